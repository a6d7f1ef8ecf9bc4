"""What a power cut leaves in the EEPROM byte being written.

The exhaustive campaigns try all 256 values. The physical model follows
what an erase-and-write does to the cell: the erase drifts the byte's 0 bits
towards 1 (to 0xFF), then programming drifts the bits that must be 0 towards
0 (to the new value); an erase-only write stops at 0xFF, a write-only one
starts from the old value. At a given progress a number of those bits have
flipped; which ones is the model's order (fixed, or drawn from a seeded
random source for the soak).
"""

from __future__ import annotations

import random
from typing import Protocol

__all__ = ["EVERY_VALUE", "MODES", "TornModel", "physical"]

#: every value a byte can be left at: what the exhaustive campaigns try
EVERY_VALUE = range(256)
#: EECR's EEPM modes by number, as :class:`fairdie.sim.EepromWrite` names them
MODES = ("erase+write", "erase", "write")
_ERASE_WRITE, _ERASE, _WRITE = 0, 1, 2


class TornModel(Protocol):
    """What a cut leaves in the byte in flight, ``progress`` (0..1) into a
    write of ``mode`` (EEPM) from ``old`` to ``new``: :func:`physical`, or one
    of your own."""

    def __call__(self, old: int, new: int, progress: float, *, mode: int = 0) -> int: ...


#: for each set of bits (a byte), the masks of its lowest 0, 1, 2, ... bits: the
#: bits a write flips in the model's fixed order (no ``rng``), lowest first
_LOWEST = tuple(
    tuple(x & ((1 << b) - 1) for b in [0, *(b + 1 for b in range(8) if x >> b & 1)])
    for x in range(256)
)


def _flip(value: int, bits: list[int], count: int, to_one: bool) -> int:
    for b in bits[:count]:
        value = value | (1 << b) if to_one else value & ~(1 << b)
    return value


def physical(
    old: int, new: int, progress: float, *, mode: int = 0, rng: random.Random | None = None
) -> int:
    """The byte after ``progress`` (0..1) of a write from ``old`` to ``new``.

    ``rng`` orders the bits that flip (None: lowest bit first)."""
    progress = min(max(progress, 0.0), 1.0)
    if mode == _ERASE_WRITE:
        erase, program = min(progress * 2, 1.0), max(progress * 2 - 1, 0.0)
    elif mode == _ERASE:
        erase, program = progress, 0.0
    else:
        erase, program = 0.0, progress
    if rng is None:  # the bits in order: a table's masks (G2 tears at every cycle)
        value = old
        if mode != _WRITE:
            masks = _LOWEST[~old & 0xFF]
            value |= masks[int(erase * (len(masks) - 1))]
        if program > 0:
            masks = _LOWEST[value & ~new & 0xFF]
            value &= ~masks[int(program * (len(masks) - 1))]
        return value & 0xFF
    value = old
    if mode != _WRITE:
        ups = [b for b in range(8) if not old >> b & 1]
        rng.shuffle(ups)
        value = _flip(value, ups, int(erase * len(ups)), True)
    if program > 0:
        downs = [b for b in range(8) if value >> b & 1 and not new >> b & 1]
        rng.shuffle(downs)
        value = _flip(value, downs, int(program * len(downs)), False)
    return value & 0xFF
