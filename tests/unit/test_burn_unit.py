"""The burn sheet's parts that need no simulator: the avrdude line (avrdude's
part ids and memory types, fuse bytes as immediate values) and the output
folder's guard of ``fairdie build --out``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from fairdie.errors import FairdieError, ToolchainError
from fairdie.sim import fuses
from fairdie.toolchain._out import MANIFEST, check_outputs
from fairdie.verify._burn import AVRDUDE_PARTS, avrdude_line


def _u(line: str) -> list[str]:
    argv = shlex.split(line)
    return [argv[i + 1] for i, a in enumerate(argv) if a == "-U"]


def test_an_attiny13a_burns_flash_and_two_fuse_bytes() -> None:
    f = fuses("attiny13a", bytes([0x6A, 0xFD]))
    line = avrdude_line("attiny13a", "usbasp", "out/die.hex", None, f)
    argv = shlex.split(line)
    assert argv[:5] == ["avrdude", "-c", "usbasp", "-p", "t13"]
    assert _u(line) == ["flash:w:out/die.hex:i", "lfuse:w:0x6A:m", "hfuse:w:0xFD:m"]
    assert "efuse" not in line and "eeprom" not in line


def test_a_three_fuse_mcu_burns_the_extended_fuse_and_the_eeprom() -> None:
    f = fuses("attiny85", bytes([0x62, 0xDD, 0xFF]))
    line = avrdude_line("attiny85", "avrisp2", "a b.hex", "a b.eep", f)
    assert shlex.split(line)[1:5] == ["-c", "avrisp2", "-p", "t85"]
    assert _u(line) == [
        "flash:w:a b.hex:i",
        "eeprom:w:a b.eep:i",
        "lfuse:w:0x62:m",
        "hfuse:w:0xDD:m",
        "efuse:w:0xFF:m",
    ]


def test_an_elf_is_read_in_avrdudes_elf_format() -> None:
    line = avrdude_line("atmega328p", "usbasp", "die.elf", "die.elf", None)
    assert "-p m328p" in line
    assert _u(line) == ["flash:w:die.elf:e", "eeprom:w:die.elf:e"]


def test_every_mcu_of_the_fuse_tables_has_an_avrdude_part() -> None:
    from fairdie.sim._fuses import MCU_FUSES

    assert set(MCU_FUSES) <= set(AVRDUDE_PARTS)
    assert {AVRDUDE_PARTS[m] for m in ("attiny84", "attiny84a")} == {"t84"}
    with pytest.raises(FairdieError, match="no avrdude part id"):
        avrdude_line("atmega2560", "usbasp", "x.hex", None, None)


def test_the_output_guard_lets_fairdie_replace_only_its_own_files(tmp_path: Path) -> None:
    check_outputs(tmp_path / "new", ["die.hex"], force=False, option="--out")  # nothing there
    mine, theirs = tmp_path / "die.hex", tmp_path / "die.elf"
    mine.write_text(":00000001FF\n")
    theirs.write_text("the user's own\n")
    import hashlib

    digest = hashlib.sha256(mine.read_bytes()).hexdigest()
    (tmp_path / MANIFEST).write_text(json.dumps({"die.hex": digest}))
    check_outputs(tmp_path, ["die.hex"], force=False, option="--out")
    with pytest.raises(ToolchainError, match=r"die\.elf is there and fairdie did not write it"):
        check_outputs(tmp_path, ["die.hex", "die.elf"], force=False, option="--out")
    check_outputs(tmp_path, ["die.elf"], force=True, option="--out")
    mine.write_text("changed by the user\n")  # no longer what fairdie wrote
    with pytest.raises(ToolchainError, match=r"die\.hex is there"):
        check_outputs(tmp_path, ["die.hex"], force=False, option="--out")
    (tmp_path / "fuses").mkdir()
    with pytest.raises(ToolchainError, match="no regular file"):
        check_outputs(tmp_path, ["fuses"], force=True, option="--out")
