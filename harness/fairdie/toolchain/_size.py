"""Section sizes, read from the ELF with pyelftools."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fairdie.errors import ToolchainError

__all__ = ["Sizes", "elf_fuse_bytes", "elf_sections", "sizes_from_sections"]

Sizes = tuple[int, int, int]
"""(flash, sram, eeprom) in bytes."""


def elf_sections(elf: Path) -> dict[str, int]:
    """Section name -> size in bytes, for every named section of ``elf``."""
    # pyelftools loads when an ELF is read, not with the toolchain
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with elf.open("rb") as f:
            return {s.name: int(s["sh_size"]) for s in ELFFile(f).iter_sections() if s.name}
    except (OSError, ELFError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ToolchainError(f"cannot read the sections of {elf}: {reason}") from None


def sizes_from_sections(sections: Mapping[str, int]) -> Sizes:
    """Flash = .text + .data; SRAM = .data + .bss + .noinit; EEPROM = .eeprom."""
    get = sections.get
    flash = get(".text", 0) + get(".data", 0)
    sram = get(".data", 0) + get(".bss", 0) + get(".noinit", 0)
    return flash, sram, get(".eeprom", 0)


def elf_fuse_bytes(elf: Path) -> bytes | None:
    """The ELF's ``.fuse`` section (avr-libc's ``FUSES``), None when it has none.

    It lies outside flash, so it counts in no budget."""
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile

    try:
        with elf.open("rb") as f:
            sec = ELFFile(f).get_section_by_name(".fuse")
            return bytes(sec.data()) if sec is not None and sec["sh_size"] else None
    except (OSError, ELFError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ToolchainError(f"cannot read the fuses of {elf}: {reason}") from None
