"""What a power cut does with the brown-out detector off, as the fuses say.

Below its minimum supply an AVR's CPU may misexecute; the datasheets warn
that it may then corrupt the EEPROM and name the brown-out detector as the
remedy. With the detector on, a cut resets the chip before the supply
leaves the safe operating area, and a write in flight completes or tears as
:func:`~fairdie.campaigns.cut` models. With it off (:func:`misexecutes`),
the model is kept simple: a cut that comes while a write is in flight makes
that write land at a wrong address. Its own byte keeps its old value, and
another byte of the firmware's footprint takes the value (the write's new
value, or a torn one). Which byte: every one of the footprint
(:func:`wrong_addresses` without ``count``, for the exhaustive campaigns),
or a seeded draw (the soak). A campaign's replay id names the address.

Not modelled: misexecution with no write in flight (a write started from
nothing, a wrong value computed and stored, SRAM or registers corrupted and
written later), more than one byte misplaced by one cut, flash corrupted by
self-programming, and the supply's actual decay.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairdie.sim import Fuses

__all__ = ["misexecutes", "wrong_addresses"]


def misexecutes(fuses: Fuses | None) -> bool:
    """Whether a cut may misexecute: the brown-out detector is off (no fuses
    known: the factory values of every MCU the core knows leave it off)."""
    return fuses is None or not fuses.bod_on


def wrong_addresses(
    address: int,
    footprint: Sequence[int],
    *,
    rng: random.Random | None = None,
    count: int | None = None,
) -> list[int]:
    """Where a write to ``address`` may land instead: every other address of
    ``footprint`` (``count`` None), else ``count`` of them drawn by ``rng``."""
    others = [a for a in footprint if a != address]
    if count is None or count >= len(others):
        return others
    return sorted((rng or random.Random(address)).sample(others, count))
