"""A run that stops at every EEPROM write the firmware starts.

Each stop keeps a snapshot of the whole chip as the write has just started,
so a power cut anywhere in that write, leaving its byte at any value, costs
a restore and a power-off (:func:`fairdie.campaigns.cut`) rather than a run
from power-on.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from fairdie.sim import EventKind, StopReason, Until

if TYPE_CHECKING:
    from fairdie.device import Device
    from fairdie.sim import Chip, Snapshot

__all__ = ["Write", "chip_of", "stop_at_writes"]

_AT_WRITES = Until.event(EventKind.EEPROM_START)


@functools.cache
def _device() -> type[Device]:
    from fairdie.device import Device  # when first asked: the campaigns need no device

    return Device


def chip_of(on: Chip | Device) -> Chip:
    """The chip itself, or the chip a device drives."""
    if isinstance(on, _device()):
        return on.chip
    return cast("Chip", on)


@dataclass(frozen=True)
class Write:
    """One EEPROM write the firmware started, and the chip as it started."""

    cycle: int  #: the cycle the run stopped at, the write just started
    address: int
    old: int  #: the byte before the write
    new: int  #: the byte once the write completes
    mode: int  #: EEPM: 0 erase and write, 1 erase only, 2 write only
    done: int  #: the cycle it completes
    snapshot: Snapshot  #: the whole chip at ``cycle``


def stop_at_writes(
    on: Chip | Device, *, to_cycle: int, until: Until | None = None
) -> tuple[Write, ...]:
    """Run the (powered) chip to ``to_cycle``, or until an event of ``until``,
    stopping at each EEPROM write it starts: those writes, in order.

    A write started by the run's last instruction is kept even when that
    instruction ends past ``to_cycle``. The chip is left where the run ended
    (:attr:`fairdie.sim.Chip.stop_event` says why, when ``until`` stopped it).
    """
    chip = chip_of(on)
    stop = _AT_WRITES if until is None else _AT_WRITES | until
    writes: list[Write] = []
    while chip.cycle < to_cycle:
        reason = chip.run(to_cycle=to_cycle, until=stop)
        e = chip.stop_event
        if not reason & StopReason.EEPROM_START or e is None or e.kind != EventKind.EEPROM_START:
            break
        w = chip.eeprom_in_flight
        done = chip.cycle + (w.cycles_left if w is not None else 0)
        writes.append(Write(chip.cycle, e.a, e.b, e.c & 0xFF, e.c >> 8, done, chip.snapshot()))
    return tuple(writes)
