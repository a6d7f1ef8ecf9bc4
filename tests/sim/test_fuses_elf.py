"""Fuses read from the ELF: the die declares the brown-out detector on at
1.8 V in every variant (its BOD_OFF mutant off), outside the flash budget;
the build prints them; a HEX or an ELF without FUSES is taken at the MCU's
factory values, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairdie.sim import load_firmware
from fairdie.toolchain import build, elf_sections
from fairdie.toolchain.__main__ import main


@pytest.mark.parametrize("variant", ["direct", "charlieplex", "seed"])
def test_every_die_variant_declares_the_detector_on(variant: str) -> None:
    b = build("die_t13a", variant=variant)
    f = b.fuses
    assert f is not None and f.declared
    assert (f.low, f.high, f.bod_mv) == (0x6A, 0xFD, 1800)
    sections = elf_sections(b.elf)
    assert sections[".fuse"] == 2
    # the .fuse section is no part of the flash the budget counts
    assert b.flash_bytes == sections[".text"] + sections.get(".data", 0) <= 1024
    fw = load_firmware(b.elf)
    assert fw.fuses() == f
    assert len(fw.flash) == b.flash_bytes  # nothing of .fuse is loaded into flash


def test_the_bod_off_mutant_declares_it_off() -> None:
    plain = build("die_t13a")
    b = build("die_t13a", defines={"DIE_MUTANT_BOD_OFF": 1})
    f = b.fuses
    assert f is not None and f.declared and not f.bod_on
    assert f.burn == "lfuse 0x6A hfuse 0xFF"
    assert load_firmware(b.hex).flash == load_firmware(plain.hex).flash  # only the fuses differ


def test_a_hex_or_an_elf_without_fuses_is_taken_at_the_factory_values() -> None:
    b = build("die_t13a")
    f = load_firmware(b.hex).fuses("attiny13a")
    assert f is not None and not f.declared and not f.bod_on
    assert f.source == "attiny13a factory defaults"
    none = build(Path(__file__).resolve().parents[2] / "harness/fairdie/firmware/tests/buzzer")
    assert none.fuse_bytes is None and none.fuses is not None and not none.fuses.declared


def test_build_prints_the_fuses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--target", "die_t13a", "--variant", "charlieplex"]) == 0
    lines = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines())
    assert lines["fuses"].startswith("lfuse 0x6A hfuse 0xFD (brown-out detector 1.8 V;")
    assert main(["--target", "die_t13a", "-D", "DIE_MUTANT_BOD_OFF=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fuses"]["hfuse"] == "0xFF" and out["fuses"]["bod_on"] is False
