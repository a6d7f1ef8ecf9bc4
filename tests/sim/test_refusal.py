"""Firmware for another MCU is refused before it runs (an ATmega328P program on a tiny13).

Whatever could reach simavr with the foreign image runs in a subprocess: if a
refusal is missing, simavr may write outside its memory and crash the process.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from fairdie.errors import FirmwareError
from fairdie.sim import Firmware, check_fits, load_firmware
from fairdie.toolchain import Build, build, variants

TEST_FIRMWARE = Path(__file__).resolve().parents[2] / "harness" / "fairdie" / "firmware" / "tests"
# Datasheet sizes (flash, SRAM, EEPROM) in bytes, as simavr reports them.
SIZES = {
    "attiny13a": (1024, 64, 64),
    "attiny84a": (8192, 512, 512),
    "attiny85": (8192, 512, 512),
    "atmega328p": (32768, 2048, 1024),
}


def fits(fw: Firmware, mcu: str) -> None:
    flash, sram, eeprom = SIZES[mcu]
    check_fits(fw, mcu, flash_size=flash, sram_size=sram, eeprom_size=eeprom)


def refusal(fw: Firmware, mcu: str = "attiny13a") -> str:
    with pytest.raises(FirmwareError) as e:
        fits(fw, mcu)
    assert "\n" not in str(e.value)
    return str(e.value)


@pytest.fixture(scope="module")
def m328p() -> Build:
    return build(TEST_FIRMWARE / "m328p")


def test_m328p_is_a_foreign_program(m328p: Build) -> None:
    fw = load_firmware(m328p.elf)
    assert (m328p.mcu, fw.arch, fw.f_cpu) == ("atmega328p", 5, None)  # no .mmcu section
    assert fw.mcu == "atmega328p"  # from its device-info note
    assert fw.device is not None and fw.device.name == "atmega328p"
    assert len(load_firmware(m328p.hex).flash) < 1024  # the size alone would not tell
    assert m328p.sram_bytes > 64
    fits(fw, "atmega328p")
    fits(load_firmware(m328p.hex), "atmega328p")


def test_elf_refused_by_its_device_note(m328p: Build) -> None:
    msg = refusal(load_firmware(m328p.elf))
    assert msg == "m328p.elf: built for atmega328p (its device-info note), not attiny13a"


def test_elf_refused_by_each_check_alone(m328p: Build) -> None:
    fw = dataclasses.replace(load_firmware(m328p.elf), device=None)
    assert "built for the avr5 architecture (ELF flags); attiny13a is avr25" in refusal(fw)
    fw = dataclasses.replace(fw, arch=None)
    assert "a JMP at 0x0000 in its vector table (4 bytes per vector)" in refusal(fw)
    fw = dataclasses.replace(fw, flash=b"")
    msg = refusal(fw)
    assert msg == (
        f"m328p.elf: needs {m328p.sram_bytes} bytes of SRAM (.data+.bss+.noinit);"
        " the attiny13a has 64"
    )


def test_hex_refused_by_its_vector_table(m328p: Build) -> None:
    fw = load_firmware(m328p.hex, mcu="attiny13a", f_cpu=1_200_000)
    assert refusal(fw) == (
        "m328p.hex: a JMP at 0x0000 in its vector table (4 bytes per vector):"
        " built for an AVR with more than 8 KB of flash, not attiny13a (1024 B)"
    )


def test_load_firmware_refuses_the_elf_for_a_tiny13(m328p: Build) -> None:
    with pytest.raises(FirmwareError, match="built for atmega328p"):
        load_firmware(m328p.elf, mcu="attiny13a")


def _own_builds() -> list[tuple[str, Callable[[], Build]]]:
    cases: list[tuple[str, Callable[[], Build]]] = [
        (f"die_t13a-{v}", lambda v=v: build("die_t13a", variant=v)) for v in variants("die_t13a")
    ]
    for folder in sorted(p for p in TEST_FIRMWARE.iterdir() if (p / "target.toml").is_file()):
        cases.append((folder.name, lambda f=folder: build(f)))
    for mcu in ("attiny84a", "attiny85"):
        cases.append((f"busy-{mcu}", lambda m=mcu: build(TEST_FIRMWARE / "busy", mcu=m)))
    return cases


@pytest.mark.parametrize(
    "make", [make for _, make in _own_builds()], ids=[name for name, _ in _own_builds()]
)
def test_own_firmware_fits_its_mcu(make: Callable[[], Build]) -> None:
    b = make()
    elf = load_firmware(b.elf, mcu=b.mcu)
    assert elf.device is not None
    assert (elf.device.flash_size, elf.device.sram_size, elf.device.eeprom_size) == SIZES[b.mcu]
    fits(elf, b.mcu)
    fits(load_firmware(b.hex, eep=b.eep, mcu=b.mcu), b.mcu)


#: Every way the foreign image could reach simavr, tried in one process of its
#: own (a crash there fails every case): ``fairdie press`` with each file, and
#: Chip given the path or a Firmware loaded without naming the MCU. Each case's
#: exit status (as the CLI or a script would exit), stdout and stderr, as JSON.
CASES_SCRIPT = """
import contextlib, io, json, sys
from fairdie.cli import main
from fairdie.errors import FirmwareError
from fairdie.sim import Chip, load_firmware
seen = {}
for path in sys.argv[1:]:
    kind = path.rsplit(".", 1)[1]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["press", "--firmware", path, "--board", "die-direct", "--json"])
    seen["cli", kind] = rc, out.getvalue(), err.getvalue()
    for how in ("sys.argv[1]", "load_firmware(sys.argv[1])"):
        try:
            Chip(path if how == "sys.argv[1]" else load_firmware(path), mcu="attiny13a",
                 f_cpu=1200000)
            seen[how, kind] = 0, "", "it ran"
        except FirmwareError as e:
            seen[how, kind] = 2, "", f"{e}\\n"
print(json.dumps([[*key, *value] for key, value in seen.items()]))
"""


@pytest.fixture(scope="module")
def refusals(m328p: Build) -> dict[tuple[str, str], tuple[int, str, str]]:
    """What each case of ``CASES_SCRIPT`` did with the ELF and the HEX."""
    r = subprocess.run(
        [sys.executable, "-c", CASES_SCRIPT, str(m328p.elf), str(m328p.hex)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    return {(how, kind): (rc, out, err) for how, kind, rc, out, err in json.loads(r.stdout)}


@pytest.mark.parametrize("kind", ["elf", "hex"])
def test_cli_refuses_m328p_for_the_die(refusals, kind: str) -> None:
    rc, out, err = refusals["cli", kind]
    assert rc == 2, (rc, err)
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("fairdie: error: ")
    for part in (f"m328p.{kind}", "atmega328p" if kind == "elf" else "8 KB", "attiny13a"):
        assert part in err


@pytest.mark.parametrize(
    "firmware",
    [
        "sys.argv[1]",  # Chip loads the path itself
        "load_firmware(sys.argv[1])",  # a Firmware loaded without naming the MCU
    ],
)
@pytest.mark.parametrize("kind", ["elf", "hex"])
def test_chip_refuses_m328p(refusals, kind: str, firmware: str) -> None:
    rc, _, err = refusals[firmware, kind]
    assert rc == 2, (rc, err)
    assert err.count("\n") == 1 and "m328p" in err, err
