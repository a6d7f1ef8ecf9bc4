"""Snapshots of a :class:`Chip`: the whole chip at one cycle, and back."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fairdie.errors import FairdieError, SimulationError
from fairdie.sim._chip_adc import Feed
from fairdie.sim._chipbase import ChipBase, check, check_range
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._types import PowerCycle

# snapshot buffers: the shim writes every byte it reads back, no need to clear them
_NEW_UNCLEARED = ffi.new_allocator(should_clear_after_alloc=False)
_fd_cycle = lib.fd_cycle
_fd_pending = lib.fd_pending
_REPLAY_ERRORS = {
    -1: "a snapshot of a powered chip, a channel the chip has no ADC for, or a bad value",
    -2: "simavr stopped the core (bad opcode or address)",
    -3: "it converted more values than it was given",
    -4: "it converted fewer values than it was given",
    -5: "a run stopped short",
}


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
    _stateful: tuple[Any, ...]
    _nleds: int
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
        stateful = self._stateful
        states = tuple([s.snapshot() for s in stateful]) if stateful else ()
        # the blocks C reads: the shim's bytes keep a pointer into them
        blocks = tuple([f.block for f in feeds.values()]) if feeds else ()
        python = (self.power_ons, self.power_on_cycle, self._adc, feeds, stateful, states, blocks)
        return Snapshot(self._id, _fd_cycle(c), buf, python)

    def restore(self, snap: Snapshot) -> None:
        """Put back a snapshot this chip made; running on repeats the first run."""
        if snap.chip_id != self._id:
            raise SimulationError("restore: the snapshot was made by another chip")
        check(lib.fd_restore(self._c, snap.data), SimulationError, "restore: snapshot mismatch")
        self._restore_python(snap)
        if _fd_pending(self._c):
            self._drain()

    def _restore_python(self, snap: Snapshot) -> None:
        # the sources' dicts as they were (set_adc replaces them, never changes them)
        (self.power_ons, self.power_on_cycle, self._adc, feeds, stateful, states, blocks) = (
            snap.python
        )
        self._feeds, self._stateful = feeds, stateful
        if states:
            for src, state in zip(stateful, states):  # noqa: B905 - one state per source
                src.restore(state)
        if blocks:
            for f, block in zip(feeds.values(), blocks):  # noqa: B905 - one block per feed
                f.block = block
                f.epoch = getattr(f.source, "epoch", None)  # restored with its source

    def replay_presses(
        self,
        snap: Snapshot,
        channel: int,
        millivolts: Sequence[float],
        ends: Sequence[int],
        steps: Sequence[int],
        window: int,
        *,
        relative: float,
        floor: float,
    ) -> list[PowerCycle]:
        """Presses of a power switch replayed in C, with no Python between
        them (the yardstick of a device's presses).

        From ``snap`` (this chip, powered off), press ``k`` feeds ADC
        ``channel`` from ``millivolts[ends[k - 1]:ends[k]]`` (``ends[-1]`` is
        0; one value per conversion; an ``array("d")`` is read without a
        copy) and is one :meth:`power_cycle` of ``steps`` (its ``window``,
        ``relative`` and ``floor``). Returns what each press saw. The chip is
        left after the last press, its channel fed as in ``snap``; the trace
        records as in any run but keeps nothing of the replay. A press that
        converts more or fewer values than it was given raises
        :class:`SimulationError`.
        """
        if snap.chip_id != self._id:
            raise SimulationError("replay_presses: the snapshot was made by another chip")
        check_range("ADC channel", channel, 0, 15)
        check_range("window", window, 1, 2**62)
        n, k = len(ends), len(steps)
        if n and ends[-1] != len(millivolts):
            raise FairdieError(f"replay_presses: {n} ends for {len(millivolts)} values")
        if not k or min(steps) < 0:
            raise FairdieError(f"replay_presses: steps must be cycle counts >= 0, not {steps}")
        if isinstance(millivolts, array) and millivolts.typecode == "d":
            mv = ffi.from_buffer("double[]", millivolts)
        else:
            mv = ffi.new("double[]", list(millivolts))
        at = ffi.new("uint64_t[]", max(1, n * k))
        seen = ffi.new("int64_t[]", max(1, n * k))
        first = ffi.new("int64_t[]", max(1, n))
        done = ffi.new("uint32_t *")
        rc = lib.fd_replay_presses(
            self._c,
            snap.data,
            channel,
            mv,
            ffi.new("uint32_t[]", list(ends)),
            n,
            ffi.new("uint64_t[]", list(steps)),
            k,
            window,
            relative,
            floor,
            at,
            seen,
            first,
            done,
        )
        self._restore_python(snap)
        made = done[0]
        if _fd_pending(self._c):
            self._drain()
        ons = [snap.cycle, *(at[i * k + k - 1] for i in range(n))]
        self.power_ons += made
        self.power_on_cycle = ons[made - 1] if made else self.power_on_cycle
        if rc != 0:
            raise SimulationError(f"replay_presses: press {made}: {_REPLAY_ERRORS[rc]}")
        lost = next((i for i in range(n * k) if seen[i] < 0), None)
        if lost is not None:
            raise SimulationError(
                f"replay_presses: press {lost // k}: the LED history no longer reaches a window"
            )
        return [
            PowerCycle(
                ons[i],
                None if first[i] < 0 else first[i],
                tuple(at[i * k : (i + 1) * k]),
                tuple(seen[i * k : (i + 1) * k]),
            )
            for i in range(n)
        ]
