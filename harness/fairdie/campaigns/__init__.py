"""fairdie.campaigns: the power-cut engine, and the shard map campaigns run on.

It knows chips and their EEPROM, no product. A run stops at every EEPROM
write the firmware starts and keeps a snapshot there (:func:`stop_at_writes`),
so a cut in any write, with any torn value, costs a restore and a power-off
(:func:`cut`); :func:`every_cycle` cuts at every cycle of a run instead.
Torn values come from a model (:data:`EVERY_VALUE` to try them all,
:func:`physical` for the erase-then-program physics of the cell). A
campaign's pieces go to local processes or a Dask cluster (:func:`map_work`).

    >>> chip.power_on()                                        # doctest: +SKIP
    >>> writes = stop_at_writes(chip, to_cycle=chip.cycles_for(0.05))  # doctest: +SKIP
    >>> images = {cut(chip, w, v) for w in writes for v in EVERY_VALUE}  # doctest: +SKIP

With the brown-out detector off (:func:`misexecutes`, from the fuses), a
cut may misexecute: ``cut(chip, w, v, land=a)`` lands the write in flight
at a wrong address ``a`` (:func:`wrong_addresses` of the footprint).

What the images must satisfy is the subject's to say (a die's invariants
are in its own campaigns).
"""

from __future__ import annotations

from fairdie.campaigns._brownout import misexecutes, wrong_addresses
from fairdie.campaigns._cuts import Cut, cut, every_cycle
from fairdie.campaigns._pool import Workers, map_work
from fairdie.campaigns._torn import EVERY_VALUE, MODES, TornModel, physical
from fairdie.campaigns._writes import Write, chip_of, stop_at_writes

__all__ = [
    "EVERY_VALUE",
    "MODES",
    "Cut",
    "TornModel",
    "Workers",
    "Write",
    "chip_of",
    "cut",
    "every_cycle",
    "map_work",
    "misexecutes",
    "physical",
    "stop_at_writes",
    "wrong_addresses",
]
