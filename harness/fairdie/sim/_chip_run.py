"""Power and running of a :class:`Chip`: runs in C to a deadline or a stop."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairdie.errors import FairdieError, SimulationError
from fairdie.sim._chip_adc import Feed
from fairdie.sim._chip_leds import check_led_window
from fairdie.sim._chipbase import ChipBase, check_range
from fairdie.sim._simavr import ffi, lib
from fairdie.sim._trace import simavr_log_level
from fairdie.sim._types import EepromWrite, Event, EventKind, PowerCycle, StopReason, Until

# The calls and constants of a press, looked up once (each lookup on the
# compiled module costs as much as a short C call).
_fd_cycle = lib.fd_cycle
_fd_run = lib.fd_run
_fd_pending = lib.fd_pending
_fd_powered = lib.fd_powered
_fd_power_on = lib.fd_power_on
_fd_power_off = lib.fd_power_off
_fd_eeprom_busy = lib.fd_eeprom_busy
_fd_power_cycle = lib.fd_power_cycle
_fd_leds_first_lit = lib.fd_leds_first_lit
_STOP_DEADLINE = lib.FD_STOP_DEADLINE
_STOP_EVENT = lib.FD_STOP_EVENT
_STOP_TRACE_FULL = lib.FD_STOP_TRACE_FULL
_STOP_FAILED = lib.FD_STOP_CALLBACK_ERROR | lib.FD_STOP_ADC_EMPTY | lib.FD_STOP_CRASHED
#: (stop bits, the event's kind) -> why a run stopped: a few dozen at most
_REASONS: dict[tuple[int, int], StopReason] = {}


class RunMixin(ChipBase):
    """Power on and off; run to a deadline or until an event; why a run stopped."""

    _stops: Any
    _why: Any
    _log_level: int
    _adc_error: BaseException | None
    _feeds: dict[int, Feed]
    _skip_polling: bool
    _batch: bool
    _cycle_bufs: tuple[Any, Any, Any, Any]  #: fd_power_cycle's where, at, seen, steps
    _cycle_steps: tuple[int, ...] | None  #: the steps in _cycle_bufs, if a tuple
    stop_event: Event | None
    power_on_cycle: int
    power_ons: int

    @property
    def powered(self) -> bool:
        return _fd_powered(self._c) != 0

    def power_on(self) -> None:
        """Power-on reset: I/O registers at reset values, PORF set, SRAM and
        registers filled with (seeded) junk; EEPROM, flash and the outside
        world's drives and pulls are kept."""
        c = self._c
        if _fd_powered(c):
            raise SimulationError("power_on: the chip is already powered")
        _fd_power_on(c)
        self.power_ons += 1
        self.power_on_cycle = _fd_cycle(c)
        if _fd_pending(c):
            self._drain()

    def power_off(self, *, torn_value: int | None = None) -> EepromWrite | None:
        """Cut the power. An EEPROM write in flight is lost (the byte keeps its
        old value) unless ``torn_value`` says what the cut leaves there.
        Returns the write that was cut, if any."""
        c = self._c
        if torn_value is not None:
            check_range("torn_value", torn_value, 0, 255)
        cut = self.eeprom_in_flight if _fd_eeprom_busy(c) else None
        _fd_power_off(c, -1 if torn_value is None else torn_value)
        if _fd_pending(c):
            self._drain()
        return cut

    @property
    def cycle(self) -> int:
        """Cycles since the chip was created (monotonic across power cycles)."""
        return _fd_cycle(self._c)

    @property
    def seconds(self) -> float:
        return self.cycle / self.frequency

    @property
    def cycles_powered(self) -> int:
        """Cycles since the last power-on."""
        return self.cycle - self.power_on_cycle

    @property
    def pc(self) -> int:
        """Program counter, as a byte address."""
        return int(lib.fd_pc(self._c))

    @property
    def sleep_steps(self) -> int:
        """Sleep fast-forward steps taken so far: few when sleep is cheap."""
        return int(lib.fd_sleep_steps(self._c))

    @property
    def skip_polling(self) -> bool:
        """Skip whole passes of a loop polling EEPE or ADSC up to the next
        cycle timer: the run is cycle for cycle the same, only faster."""
        return self._skip_polling

    @skip_polling.setter
    def skip_polling(self, on: bool) -> None:
        self._skip_polling = bool(on)
        lib.fd_set_poll_skip(self._c, int(on))

    @property
    def batch_instructions(self) -> bool:
        """Let simavr run the instructions between two cycle timers in one
        call, while nothing of ours needs a look after each one: the run is
        cycle for cycle the same, only faster."""
        return self._batch

    @batch_instructions.setter
    def batch_instructions(self, on: bool) -> None:
        self._batch = bool(on)
        lib.fd_set_batch(self._c, int(on))

    @property
    def poll_skipped_cycles(self) -> int:
        """Cycles of EEPE/ADSC polling loops skipped whole (``skip_polling``)."""
        return int(lib.fd_poll_skipped(self._c))

    @property
    def sleeping(self) -> bool:
        return bool(lib.fd_sleeping(self._c))

    @property
    def sleep_mode(self) -> str | None:
        """The sleep mode the CPU is in, by its SM bits at the SLEEP ("idle",
        "adc" (ADC noise reduction), "power-down", "standby", and on the
        ATmega parts "power-save" and "extended-standby"), or None while awake."""
        mode = int(lib.fd_sleep_mode(self._c))
        if mode < 0:
            return None
        return self._sleep_names.get(mode, f"reserved-{mode}")

    def cycles_for(self, seconds: float) -> int:
        if not 0 <= seconds <= 1e6:
            check_range("seconds", seconds, 0, 1e6)
        return round(seconds * self.frequency)

    def run(
        self,
        cycles: int | None = None,
        *,
        seconds: float | None = None,
        to_cycle: int | None = None,
        until: Until | None = None,
    ) -> StopReason:
        """Run in C for ``cycles``, ``seconds``, or to the absolute cycle
        ``to_cycle``, or until an engine event of ``until``.

        Returns why it stopped; a stop on an event has that event's kind set
        and leaves the event in :attr:`stop_event`.
        """
        c = self._c
        now = _fd_cycle(c)
        if to_cycle is None and (cycles is None) != (seconds is None):
            if seconds is None:
                n = int(cycles or 0)
            elif 0 <= seconds <= 1e6:
                n = round(seconds * self.frequency)
            else:
                n = self.cycles_for(seconds)  # raises
            if n < 0:
                raise FairdieError(f"run: cycles {n} is negative")
            deadline = now + n
        elif to_cycle is not None and cycles is None and seconds is None:
            deadline = int(to_cycle)
            if deadline < now:
                raise FairdieError(f"run: cycle {deadline} is in the past (now {now})")
        else:
            raise FairdieError("run: give exactly one of cycles, seconds and to_cycle")
        if not _fd_powered(c):
            raise SimulationError("run: the chip is not powered")
        stops = ffi.NULL if until is None else self._set_stops(until)
        if simavr_log_level() != self._log_level:
            self._follow_log_level()
        if self._feeds:
            self._sync_feeds()
        why = self._why
        self.stop_event = None
        while True:
            bits = _fd_run(c, deadline, stops, why)
            if _fd_pending(c):
                self._drain()
            if bits & _STOP_FAILED:
                self._raise_failure(bits)
            if bits & ~_STOP_TRACE_FULL:
                break
        if bits == _STOP_DEADLINE:  # the common case, without enum arithmetic
            return StopReason.DEADLINE
        return self._reason(bits)

    def _raise_failure(self, bits: int) -> None:
        if bits & lib.FD_STOP_CALLBACK_ERROR:
            err, self._adc_error = self._adc_error, None
            raise SimulationError(f"the ADC source raised {err!r}") from err
        if bits & lib.FD_STOP_ADC_EMPTY:
            raise SimulationError("an ADC channel fed from a buffer ran out of values")
        raise SimulationError(
            f"simavr stopped the core at pc=0x{self.pc:04x}, cycle {self.cycle}"
            " (bad opcode or address)"
        )

    def _reason(self, bits: int) -> StopReason:
        kind = 0
        if bits & _STOP_EVENT:
            w = self._why
            kind = int(w.kind)
            self.stop_event = Event(int(w.cycle), EventKind(kind), int(w.a), int(w.b), int(w.c))
        reason = _REASONS.get((bits, kind))
        if reason is None:  # flag arithmetic once for each stop's bits and event kind
            reason = StopReason(kind)
            for bit, flag in (
                (lib.FD_STOP_DEADLINE, StopReason.DEADLINE),
                (lib.FD_STOP_QUIET, StopReason.QUIET),
                (lib.FD_STOP_HALTED, StopReason.HALTED),
                (lib.FD_STOP_OFF, StopReason.OFF),
            ):
                if bits & bit:
                    reason |= flag
            _REASONS[bits, kind] = reason
        return reason

    def _set_stops(self, until: Until) -> Any:
        s = self._stops
        s.kinds = int(until.kinds)
        ffi.memmove(s.pins, bytes(12), 12)
        for p in until.pins:
            port, bit = self._pin(p)
            s.pins[ord(port) - ord("A")] |= 1 << bit
        s.vectors = 0
        for v in until.vectors:
            check_range("interrupt vector", v, 1, 63)
            s.vectors |= 1 << v
        s.pc = -1
        if until.pc is not None:
            s.pc = self.symbol(until.pc).address if isinstance(until.pc, str) else int(until.pc)
        s.quiet_cycles = 0
        if until.quiet_seconds is not None:
            s.quiet_cycles = max(1, self.cycles_for(until.quiet_seconds))
        return s

    def power_cycle(
        self, steps: Sequence[int], window: int, *, relative: float, floor: float
    ) -> PowerCycle:
        """A press of a power switch in one C call: power on, run ``steps[0]``
        cycles, then ``steps[1]`` more from where that run ended, and so on,
        and power off; after each run, the cycle it reached and the LEDs seen
        over the ``window`` cycles ending there (none before the power-on) by
        :meth:`leds_seen`'s rule (``relative``, ``floor``).

        The same as :meth:`power_on` (with :meth:`leds_restart` first), a
        :meth:`run` of each step followed by :meth:`leds_seen`, and
        :meth:`power_off`, cycle for cycle: it stops only as they would (to
        drain a full trace, or raising for a failed run, the chip left
        powered). A channel fed a block at a time (:meth:`set_adc`) is handed
        its first block before the power-on, unless its source reads a clock,
        so the press runs with no call into Python (an error of the source
        then raises before the power-on).
        """
        c = self._c
        if _fd_powered(c):
            raise SimulationError("power_cycle: the chip is already powered")
        where, at, seen, buf = self._cycle_bufs
        if steps is self._cycle_steps and window >= 1:  # a die's presses: in buf already
            n = len(steps)
        else:
            n = len(steps)
            if n > len(buf):  # more steps than a press has
                where, at, seen, buf = self._cycle_bufs = self._cycle_buffers(n)
            self._cycle_steps = None
            try:
                buf[0:n] = steps
                if not n or window < 1:
                    raise ValueError
            except (ValueError, OverflowError, TypeError):
                raise FairdieError(
                    f"power_cycle: steps must be one or more cycle counts >= 0 and the window"
                    f" >= 1, not {list(steps)} and {window}"
                ) from None
            if steps.__class__ is tuple:  # never changes: the next press may skip the copy
                self._cycle_steps = steps
        if simavr_log_level() != self._log_level:
            self._follow_log_level()
        if self._feeds:
            self._sync_feeds(ahead=True)
        self.stop_event = None
        self.power_ons += 1
        self.power_on_cycle = on = _fd_cycle(c)  # power-on takes no cycle
        while True:
            bits = _fd_power_cycle(c, buf, n, window, relative, floor, where, at, seen)
            if _fd_pending(c):
                self._drain()
            if not bits:
                break
            if bits & _STOP_FAILED:
                self._raise_failure(bits)
            if bits != _STOP_TRACE_FULL:
                raise SimulationError(f"power_cycle: a run stopped short ({self._reason(bits)!r})")
        masks = tuple(seen[0:n])
        if min(masks) < 0:
            k = next(i for i, m in enumerate(masks) if m < 0)
            check_led_window(masks[k], self, max(on, at[k] - window), at[k])
        first = _fd_leds_first_lit(c)
        return PowerCycle(on, None if first < 0 else first, tuple(at[0:n]), masks)

    @staticmethod
    def _cycle_buffers(n: int) -> tuple[Any, Any, Any, Any]:
        """Buffers for :meth:`power_cycle` of ``n`` steps: where, at, seen, steps."""
        return (
            ffi.new("fd_cycle_at *"),
            ffi.new("uint64_t[]", n),
            ffi.new("int64_t[]", n),
            ffi.new("uint64_t[]", n),
        )

    def run_raw(self, cycles: int, *, batch: bool = True) -> None:
        """``avr->run`` in a C loop with nothing of ours in it (the benchmark's
        yardstick). ``batch``: simavr's ``run_cycle_limit`` raised as
        :meth:`run` raises it (:attr:`batch_instructions`), with a cycle timer
        at the end; ``batch=False``: simavr's default, one instruction per call."""
        lib.fd_run_raw(self._c, self.cycle + cycles, int(batch))
        self._drain()

    def step_from_python(self, cycles: int) -> None:
        """One simavr step per Python call, as the old pysimavr binding ran.

        A benchmark yardstick only: many times slower than :meth:`run`.
        """
        end = self.cycle + cycles
        step, c = lib.fd_step, self._c
        while step(c) < end:
            pass
        self._drain()
