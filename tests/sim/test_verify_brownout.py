"""``fairdie verify``'s brown-out check: a firmware that writes EEPROM passes
with the brown-out detector on, fails with it off (in one line, naming the
fuse bytes to burn), and one that writes none passes saying so. Its
evidence: the recorded run's writes, else an SBI EECR,EEPE in its code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairdie.cli import main
from fairdie.sim import load_firmware
from fairdie.toolchain import build
from fairdie.verify._brownout import sets_eepe_at

pytestmark = pytest.mark.sim

TESTS = Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests"

EEPROM_BOARD = """\
[board]
name = "eeprom-box"
mcu = "attiny13a"
f_cpu = 1200000
vcc_mv = 3000

[[led]]
name = "shown"
anode = "PB0"
cathode = "GND"
x = 0
y = 0
"""


def brownout(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    rc = main(["verify", *args, "--only", "brown-out", "--json"])
    out = json.loads(capsys.readouterr().out)
    return rc, {c["name"]: c for c in out["checks"]}["brown-out"] | {"fuses": out["fuses"]}


def test_the_die_passes_with_the_detector_on(capsys: pytest.CaptureFixture[str]) -> None:
    rc, c = brownout(capsys, "--board", "die-direct")
    assert rc == 0 and c["status"] == "pass", c["reason"]
    assert c["fuses"] == "lfuse 0x6A hfuse 0xFD"
    assert "brown-out detector on at 1.8 V" in c["reason"]
    assert c["reason"].endswith("burn lfuse 0x6A hfuse 0xFD")
    assert c["details"]["writes_eeprom"] and c["details"]["min_mv"] == 1800


def test_the_die_with_the_detector_off_fails_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    elf = str(build("die_t13a", defines={"DIE_MUTANT_BOD_OFF": 1}).elf)
    rc, c = brownout(capsys, elf, "--board", "die-direct")
    assert rc == 1 and c["status"] == "fail"
    assert "\n" not in c["reason"]
    assert "with the brown-out detector off, declared in the ELF" in c["reason"]
    assert c["reason"].endswith("burn lfuse 0x6A hfuse 0xFD instead")
    assert c["fuses"] == "lfuse 0x6A hfuse 0xFF"


def test_a_hex_of_a_build_takes_that_builds_fuses(capsys: pytest.CaptureFixture[str]) -> None:
    rc, c = brownout(capsys, str(build("die_t13a").hex), "--board", "die-direct")
    assert rc == 0 and c["status"] == "pass"
    assert "as build direct's ELF declares them" in c["reason"]


@pytest.mark.parametrize("bod_off", [0, 1])
def test_the_recorded_runs_writes_are_the_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, bod_off: int
) -> None:
    board = tmp_path / "board.toml"
    board.write_text(EEPROM_BOARD)
    elf = str(build(TESTS / "eeprom", defines={"EE_BOD_OFF": bod_off}).elf)
    rc, c = brownout(capsys, elf, "--board", str(board))
    assert c["reason"].startswith("writes EEPROM (3 EEPROM writes in the recorded run")
    assert (rc, c["status"]) == ((1, "fail") if bod_off else (0, "pass"))


def test_a_hex_that_writes_eeprom_is_taken_at_the_factory_fuses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    board = tmp_path / "board.toml"
    board.write_text(EEPROM_BOARD)
    rc, c = brownout(capsys, str(build(TESTS / "eeprom").hex), "--board", str(board))
    assert rc == 1 and "the attiny13a factory defaults (a HEX carries no fuses)" in c["reason"]


def test_a_firmware_that_writes_no_eeprom_passes_saying_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    hexfile = str(build("sdg_t84a").hex)
    rc, c = brownout(capsys, hexfile, "--board", "silver-dollar")
    assert rc == 0 and c["status"] == "pass"
    assert c["reason"].startswith("writes no EEPROM: none in the recorded run")
    assert "brown-out detector off, as build game's ELF declares them" in c["reason"]
    assert c["reason"].endswith("burn lfuse 0xE2 hfuse 0xDF efuse 0xFF")


def test_the_static_evidence_finds_the_write_instruction() -> None:
    die = load_firmware(build("die_t13a").elf)
    at = sets_eepe_at(die, "attiny13a")
    assert at is not None and die.flash[at : at + 2] == bytes([0xE1, 0x9A])  # sbi 0x1C, 1
    assert sets_eepe_at(load_firmware(build("sdg_t84a").elf), "attiny84a") is None
