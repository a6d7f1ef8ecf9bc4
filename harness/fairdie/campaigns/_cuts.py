"""Power cuts: in a write the run stopped at, at a chosen cycle, or at every cycle.

A cut powers the chip off with the byte in flight (if a write is in flight)
left at a torn value, and reads what the EEPROM then holds: the image the
next power-on meets. One byte is in flight at a time (EEPE serialises
writes); every other byte holds its old or its new value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fairdie.campaigns._torn import TornModel, physical
from fairdie.campaigns._writes import Write, chip_of
from fairdie.errors import FairdieError
from fairdie.sim import EventKind, Until

if TYPE_CHECKING:
    from fairdie.device import Device
    from fairdie.sim import Chip

__all__ = ["Cut", "cut", "every_cycle"]

_WAKE = Until.event(EventKind.WAKE | EventKind.EEPROM_START)


def cut(
    on: Chip | Device,
    write: Write | None = None,
    torn: int | None = None,
    *,
    at: int | None = None,
    land: int | None = None,
) -> bytes:
    """Cut the power and return the EEPROM it leaves.

    With ``write``, the chip goes back to the snapshot taken as that write
    started and runs to ``at`` (default: the write's start) before the cut;
    without, it runs from where it is to ``at`` (default: now). The byte in
    flight is left at ``torn`` (None: the write is lost, the byte keeps its
    old value). With ``land`` (the brown-out detector off: the CPU
    misexecutes, :mod:`fairdie.campaigns._brownout`), the write in flight
    lands at that address instead: its own byte keeps its old value and
    ``land`` takes ``torn`` (None: the write's new value); with no write in
    flight, ``land`` changes nothing.
    """
    chip = chip_of(on)
    if write is not None:
        if at is not None and not write.cycle <= at <= write.done:
            raise FairdieError(
                f"cut at cycle {at}: not within the write of cycles {write.cycle}..{write.done}"
            )
        chip.restore(write.snapshot)
    if at is not None:
        chip.run(to_cycle=at)
    flight = chip.eeprom_in_flight if land is not None else None
    if flight is None or land is None:
        chip.power_off(torn_value=torn)
        return chip.eeprom
    chip.power_off(torn_value=None)
    chip.write_eeprom(land, bytes([flight.new if torn is None else torn]))
    return chip.eeprom


@dataclass(frozen=True)
class Cut:
    """A cut at ``cycle``, standing for ``span`` cycles: the image it left."""

    cycle: int
    span: int  #: the cycles until the next cut (the same image for each)
    image: bytes
    address: int | None  #: the byte in flight (None: no write in flight)
    torn: int | None  #: the value the cut left there (None: no write in flight)


def every_cycle(on: Chip | Device, *, to_cycle: int, tear: TornModel = physical) -> Iterator[Cut]:
    """A cut at every cycle of a run of the (powered) chip to ``to_cycle``.

    The chip steps one instruction at a time while awake or writing, and
    goes on from each cut uncut. The byte in flight is torn as ``tear`` says
    at the write's progress. A stretch asleep with no write in flight leaves
    the EEPROM as it is, so one cut stands for all of its cycles. Each cut
    is yielded once the chip has run past it, so the caller can read what
    that step did (an LED lit), but not run the chip on: the next step
    starts where this one ended.

    A cut powers off from a snapshot and restores it, once for each image
    it can leave: what a power-off leaves depends only on the stored bytes
    and the byte in flight with its torn value, and the stored bytes change
    only as a write completes, so the cuts between two writes' ends that
    leave the same torn value at the same address leave the same image.
    """
    chip = chip_of(on)
    started: tuple[int, int, int] = (-1, 0, 0)  # (address, start cycle, length) in flight
    flight: tuple[int, int, int, int, int] | None = None  # the write in flight at the last cut
    left: dict[tuple[int, int | None], bytes] = {}  # (address, torn) -> the image a cut leaves
    run, in_flight, snapshot, restore = chip.run, chip.eeprom_flight, chip.snapshot, chip.restore
    now = chip.cycle
    while now < to_cycle:
        w = in_flight()
        torn = None
        address = -1
        if w is None:
            if flight is not None:  # a write ended: the stored bytes may have changed
                flight = None
                left.clear()
        else:
            address, old, new, mode, done = w
            this = (address, old, new, mode, max(now, done))
            if this != flight:  # a write started or ended
                flight = this
                left.clear()
            if started[0] != address or now >= started[1] + started[2]:
                started = (address, now, max(1, done - now))
            torn = tear(old, new, (now - started[1]) / started[2], mode=mode)
        image = left.get((address, torn))
        if image is None:
            snap = snapshot()
            chip.power_off(torn_value=torn)
            image = left[address, torn] = chip.eeprom
            restore(snap)
        if w is None and chip.sleeping:
            run(to_cycle=to_cycle, until=_WAKE)
        else:
            run(cycles=1)
        after = chip.cycle
        yield Cut(now, after - now, image, None if w is None else address, torn)
        now = after
