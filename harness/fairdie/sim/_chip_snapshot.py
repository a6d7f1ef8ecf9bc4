"""Snapshots of a :class:`Chip`: the whole chip at one cycle, and back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fairdie.errors import SimulationError
from fairdie.sim._chip_adc import Feed
from fairdie.sim._chipbase import ChipBase, check
from fairdie.sim._simavr import ffi, lib

# snapshot buffers: the shim writes every byte it reads back, no need to clear them
_NEW_UNCLEARED = ffi.new_allocator(should_clear_after_alloc=False)
_fd_cycle = lib.fd_cycle
_fd_pending = lib.fd_pending


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A whole chip at one cycle; :meth:`Chip.restore` puts it back."""

    chip_id: int
    cycle: int
    data: Any  #: the shim's bytes (a cffi buffer, kept as it was written)
    python: tuple[Any, ...]


class SnapshotMixin(ChipBase):
    """Snapshots: the shim's bytes plus the Python side (power count, ADC sources)."""

    _snapshot_size: int
    _adc: dict[int, Callable[[int], float]]
    _feeds: dict[int, Feed]
    power_ons: int
    power_on_cycle: int

    def snapshot(self) -> Snapshot:
        """The whole chip now: CPU, memories, peripherals, pending timers and
        interrupts, the EEPROM write in flight, the pin model, the LED
        history and the ADC sources' positions (a source with ``snapshot()``
        and ``restore(state)`` methods is asked for its state; other callables
        are taken as stateless)."""
        c = self._c
        feeds = self._feeds
        if feeds:  # values held ahead of a sought source are stale: dropped first
            self._sync_feeds()
        buf = _NEW_UNCLEARED("uint8_t[]", self._snapshot_size)
        lib.fd_snapshot(c, buf)
        sources = tuple(
            (ch, src, src.snapshot() if hasattr(src, "snapshot") else None)
            for ch, src in self._adc.items()
        )
        # the blocks C reads: the shim's bytes keep a pointer into them
        held = tuple([(ch, f, f.block) for ch, f in feeds.items()]) if feeds else ()
        python = (self.power_ons, self.power_on_cycle, sources, held)
        return Snapshot(self._id, _fd_cycle(c), buf, python)

    def restore(self, snap: Snapshot) -> None:
        """Put back a snapshot this chip made; running on repeats the first run."""
        if snap.chip_id != self._id:
            raise SimulationError("restore: the snapshot was made by another chip")
        check(lib.fd_restore(self._c, snap.data), SimulationError, "restore: snapshot mismatch")
        self.power_ons, self.power_on_cycle, sources, feeds = snap.python
        self._adc = {ch: src for ch, src, _ in sources}
        for _, src, state in sources:
            if state is not None:
                src.restore(state)
        self._feeds = {ch: f for ch, f, _ in feeds}
        for _, f, block in feeds:
            f.block = block
            f.epoch = getattr(f.source, "epoch", None)  # the source was restored with it
        if _fd_pending(self._c):
            self._drain()
