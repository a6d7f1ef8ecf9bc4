"""Parse ``avr-size -A`` (SysV format) output."""

from __future__ import annotations

from collections.abc import Mapping

from fairdie.errors import ToolchainError

__all__ = ["Sizes", "parse_avr_size", "sizes_from_sections"]

Sizes = tuple[int, int, int]
"""(flash, sram, eeprom) in bytes."""


def parse_avr_size(text: str) -> dict[str, int]:
    """Section name -> size in bytes from ``avr-size -A`` output."""
    sections: dict[str, int] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].startswith(".") and fields[1].isdigit():
            sections[fields[0]] = int(fields[1])
    if not sections:
        raise ToolchainError(f"cannot parse avr-size output: {text.strip()[:80]!r}")
    return sections


def sizes_from_sections(sections: Mapping[str, int]) -> Sizes:
    """Flash = .text + .data; SRAM = .data + .bss + .noinit; EEPROM = .eeprom."""
    get = sections.get
    flash = get(".text", 0) + get(".data", 0)
    sram = get(".data", 0) + get(".bss", 0) + get(".noinit", 0)
    return flash, sram, get(".eeprom", 0)
