"""Just enough of the AVR instruction set to walk code: how long each
instruction is, and which ones are conditional (the branches and skips the
engine counts as taken or not)."""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["instructions", "is_conditional", "is_two_words"]


def is_two_words(op: int) -> bool:
    """LDS, STS, JMP and CALL take a second word (the address)."""
    return (op & 0xFC0F) == 0x9000 or (op & 0xFE0C) == 0x940C


def is_conditional(op: int) -> bool:
    """BRBS/BRBC (every BRxx), CPSE, SBRC/SBRS and SBIC/SBIS."""
    return (
        (op & 0xF800) == 0xF000  # BRBS, BRBC
        or (op & 0xFC00) == 0x1000  # CPSE
        or (op & 0xFC08) == 0xFC00  # SBRC, SBRS
        or (op & 0xFD00) == 0x9900  # SBIC, SBIS
    )


def instructions(code: bytes, start: int, end: int, base: int = 0) -> Iterator[tuple[int, int]]:
    """``(byte address, first word)`` of each instruction from ``start`` up to
    ``end``; ``code`` holds flash from byte address ``base``. An instruction
    that would run past ``end`` (data, or a misaligned start) ends the walk."""
    a = start & ~1
    stop = min(end, base + len(code) - len(code) % 2)
    while a + 2 <= stop:
        i = a - base
        op = code[i] | code[i + 1] << 8
        size = 4 if is_two_words(op) else 2
        if a + size > end:
            return
        yield a, op
        a += size
