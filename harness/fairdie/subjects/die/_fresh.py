"""Fresh dice of one recipe, without a chip each.

A die rolled by its power switch starts every roll from power-on, so a die
as it was made is a snapshot away: :class:`FreshDice` makes one die and
restores its chip to the state it had when made, where a caller wants a
fresh one. A die that stays powered between rolls (a button die) keeps more
than its chip (its contact bounce's sequence), so it is made anew each time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from fairdie._recent import Recent

if TYPE_CHECKING:
    from fairdie.sim import Snapshot
    from fairdie.subjects.die._die import Die

__all__ = ["FreshDice", "fresh_dice"]


class FreshDice:
    """Fresh dice from ``make``; a die :meth:`get` returns is valid until the next call."""

    def __init__(self, make: Callable[[], Die]) -> None:
        self._make = make
        self._die: Die | None = None
        self._made: Snapshot | None = None
        self.chips = 0  #: chips made

    def get(self, eeprom: bytes | None = None) -> Die:
        """A die as ``make`` makes it, its EEPROM then overwritten by ``eeprom``."""
        die = self._die
        if die is not None and die.rolls_by_power and not die.chip.powered:
            assert self._made is not None
            die.chip.restore(self._made)
            die.seek(0)  # its noise and its press timing from their first press again
            if die.noise is not None:
                die.set_noise(None)  # the noise a new die starts with
        else:
            die = self._die = self._make()
            self.chips += 1
            self._made = die.chip.snapshot()
        if eeprom is not None:
            die.chip.write_eeprom(0, eeprom)
        return die


_CACHE: Recent[Hashable, FreshDice] = Recent(8)  # recipes kept per process


def fresh_dice(key: Hashable, make: Callable[[], Die]) -> FreshDice:
    """The process's :class:`FreshDice` for the recipe ``key`` (the last few are kept)."""
    return _CACHE.get(key, lambda: FreshDice(make))
