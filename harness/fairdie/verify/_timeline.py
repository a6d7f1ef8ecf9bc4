"""A run of a chip (one press of a device, say), recorded from the engine's
trace for the timing diagram and the energy estimate: pin levels, EEPROM
writes, ADC conversions, sleeps and how long each LED was lit. A subject
drives the run (its press) through a :class:`Recorder`, which makes the
:class:`Timeline`.

Each SLEEP event says the mode the engine slept in (its ``b``: 1 + the SM
bits, named by :func:`~fairdie.sim.sleep_mode_name`) and whether the
watchdog ran (its ``c``); with the engine's ``sleep_modes`` fix a SLEEP with
SE clear is no sleep at all, so the events are the sleeps a real chip takes.
The recorder stops the run only at each ADC conversion start, to read the ADC
clock's prescaler (ADCSRA), which gives the conversion's length: 25 ADC
clocks for the first of a press, 13 after. LED light comes from the engine's
integrator, read window by window (its history is bounded), so multiplexed
displays are counted as they are lit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairdie.board import Board
from fairdie.sim import EventKind, PinChange, Until, sleep_mode_name
from fairdie.sim._regs import bit_location
from fairdie.sim._types import EventFields
from fairdie.sim._vcd import VCD_KINDS

if TYPE_CHECKING:
    from fairdie.device import Device
    from fairdie.sim import Chip

__all__ = ["KINDS", "Recorder", "Sleep", "Timeline", "record_run"]

#: the trace events a recording needs
KINDS = VCD_KINDS | EventKind.RESET
_NOT_PINS = int(KINDS & ~EventKind.PIN)
_SLEEP, _WAKE, _RESET = int(EventKind.SLEEP), int(EventKind.WAKE), int(EventKind.RESET)
_POWER, _ADC = int(EventKind.POWER), int(EventKind.ADC)
_EEPROM_START, _EEPROM_DONE = int(EventKind.EEPROM_START), int(EventKind.EEPROM_DONE)


def trace_fields(chip: Chip) -> list[EventFields]:
    """The fields of the trace's events but its pins' changes (those a
    timeline keeps as they are), as ``Trace.tuples`` gives them."""
    return [e for e in chip.trace.tuples() if e[1] & _NOT_PINS]


_STOPS = Until(kinds=EventKind.ADC)
_CHUNK_S = 0.02  # LED light is read this often (the integrator's history is bounded)


@dataclass(frozen=True)
class Sleep:
    """The CPU asleep from ``start`` to ``end`` (cycles)."""

    start: int
    end: int
    mode: str  #: the mode the SM bits chose, as the engine names it ("power-down", ...)
    watchdog: bool  #: the watchdog was running (its interrupt or reset enabled)
    halted: bool  #: interrupts were off: nothing but a reset ends it


@dataclass(frozen=True)
class Timeline:
    """What one press did, cycle by cycle (cycles are the chip's, absolute)."""

    frequency: int
    start: int  #: power-on, or the button's press
    end: int  #: power-off, or the end of the recording
    release: int  #: the cycle the roll control was let go (power dice: ``end``)
    settled: int  #: the cycle the face had settled after it (power dice: ``end``)
    pins: tuple[PinChange, ...]
    pin_names: tuple[str, ...]  #: the LED pins, for the diagram
    eeprom: tuple[tuple[int, int, int], ...]  #: (start, end, address) per byte written
    adc: tuple[tuple[int, int], ...]  #: (start, end) per conversion
    sleeps: tuple[Sleep, ...]
    led_names: tuple[str, ...]
    #: (start, end, lit cycles of each LED) for consecutive windows
    led_windows: tuple[tuple[int, int, tuple[int, ...]], ...]
    first_lit: int | None  #: the cycle some LED first lit (None: none did)
    shown: str  #: the display once the face had time to settle
    lit: frozenset[str]  #: the LEDs an eye saw lit then
    end_display: str  #: the display when the recording ended
    end_lit: frozenset[str]  #: the LEDs an eye saw lit then
    before: bytes  #: EEPROM before the press
    after: bytes  #: EEPROM after it
    codes: tuple[int, ...]  #: the ADC codes the firmware read
    #: the engine honoured SE and the SM bits (its ``sleep_modes`` fix): without
    #: it every SLEEP slept, SE set or not, and the timers ran on while asleep
    sleep_modes: bool = True
    #: each port's state word when the recording started (its pins' changes are :attr:`pins`)
    ports: tuple[tuple[str, int], ...] = ()
    #: (start, end) of each stretch the chip was unpowered (a scenario's power steps)
    unpowered: tuple[tuple[int, int], ...] = ()

    def ms(self, cycle: int) -> float:
        """Milliseconds from the start of the press."""
        return (cycle - self.start) * 1000 / self.frequency

    @property
    def eeprom_done(self) -> int | None:
        """The cycle the last EEPROM write of the press completed."""
        return max((e for _, e, _ in self.eeprom), default=None)

    def led_cycles(self, t0: int, t1: int) -> list[float]:
        """Each LED's lit cycles within ``[t0, t1)`` (a window cut by the
        range counts in proportion)."""
        out = [0.0] * len(self.led_names)
        for a, b, cycles in self.led_windows:
            lo, hi = max(a, t0), min(b, t1)
            if hi <= lo:
                continue
            share = (hi - lo) / (b - a)
            for i, c in enumerate(cycles):
                out[i] += c * share
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "ms": round(self.ms(self.end), 3),
            "first_lit_ms": None if self.first_lit is None else round(self.ms(self.first_lit), 3),
            "eeprom_done_ms": None
            if self.eeprom_done is None
            else round(self.ms(self.eeprom_done), 3),
            "eeprom_writes": len(self.eeprom),
            "adc_conversions": len(self.adc),
            "sleeps": len(self.sleeps),
            "shown": self.shown,
        }


class _Registers:
    """The register bits the recorder reads at an ADC start."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.adps = [bit_location(chip.mcu, f"ADPS{i}", ("ADCSRA",)) for i in range(3)]

    def _bit(self, loc: tuple[int, int] | None) -> int:
        if loc is None:
            return 0
        return (self.chip.read_data(loc[0])[0] >> loc[1]) & 1

    def adc_divider(self) -> int:
        ps = sum(self._bit(loc) << i for i, loc in enumerate(self.adps))
        return 2 if ps == 0 else 1 << ps


class Recorder:
    """Runs a chip (with ``chip.trace_kinds`` set to :data:`KINDS` by its
    caller) in steps, stopping at each ADC start to read its prescaler, and
    reading LED light window by window."""

    def __init__(self, chip: Chip, board: Board) -> None:
        self.board = board
        self.chip = chip
        self.regs = _Registers(self.chip)
        self.chunk = self.chip.cycles_for(_CHUNK_S)
        self.mark = self.chip.cycle
        self.windows: list[tuple[int, int, tuple[int, ...]]] = []
        self.divider_at: dict[int, int] = {}
        self.ports = self._ports()

    def _ports(self) -> tuple[tuple[str, int], ...]:
        return tuple((p, self.chip.port_state(p)) for p in self.chip.ports)

    def restart(self) -> None:
        self.mark = self.chip.cycle
        self.ports = self._ports()

    def run_to(self, to: int) -> None:
        chip = self.chip
        while chip.cycle < to:
            chip.run(to_cycle=min(to, self.mark + self.chunk), until=_STOPS)
            ev = chip.stop_event
            if ev is not None and ev.kind is EventKind.ADC:
                self.divider_at[ev.cycle] = self.regs.adc_divider()
            if chip.cycle >= self.mark + self.chunk:
                self.flush()
        self.flush()

    def flush(self) -> None:
        now = self.chip.cycle
        if now > self.mark:
            self.windows.append((self.mark, now, tuple(self.chip.leds_lit_cycles(self.mark, now))))
            self.mark = now

    def timeline(
        self,
        *,
        start: int,
        end: int,
        release: int,
        settled: int,
        first_lit: int | None,
        shown: str,
        lit: frozenset[str],
        end_display: str,
        end_lit: frozenset[str],
        before: bytes,
        codes: tuple[int, ...],
    ) -> Timeline:
        """The run recorded from ``start`` to ``end`` as a :class:`Timeline`
        (the EEPROM after it is the chip's now)."""
        chip = self.chip
        events = trace_fields(chip)
        return Timeline(
            frequency=chip.frequency,
            start=start,
            end=end,
            release=min(release, end),
            settled=settled,
            pins=tuple(chip.trace.pin_changes()),
            pin_names=_led_pins(self.board),
            eeprom=_writes(events, end),
            adc=_conversions(events, self.divider_at),
            sleeps=_sleeps(events, chip.mcu, end),
            led_names=self.board.led_names,
            led_windows=tuple(self.windows),
            first_lit=first_lit,
            shown=shown,
            lit=lit,
            end_display=end_display,
            end_lit=end_lit,
            before=before,
            after=chip.eeprom,
            codes=codes,
            sleep_modes="sleep_modes" in chip.simavr_fixes,
            ports=self.ports,
        )


def record_run(
    device: Device, seconds: float, keep: Callable[[Chip], object] | None = None
) -> Timeline:
    """Power ``device`` on and record ``seconds`` of its run with no input
    (its buttons as the board leaves them, its EEPROM as it is); ``keep(chip)``
    is called while the trace holds the run."""
    chip = device.chip
    kinds = chip.trace_kinds
    chip.trace_kinds = KINDS
    try:
        before = chip.eeprom
        chip.clear_trace()
        device.power_on()
        rec = Recorder(chip, device.board)
        start = chip.power_on_cycle
        rec.run_to(start + chip.cycles_for(seconds))
        end = chip.cycle
        lit = device.lit()
        if keep is not None:
            keep(chip)
        return rec.timeline(
            start=start,
            end=end,
            release=end,
            settled=end,
            first_lit=device.first_lit(),
            shown="",
            lit=lit,
            end_display="",
            end_lit=lit,
            before=before,
            codes=chip.adc_codes(),
        )
    finally:
        chip.trace_kinds = kinds


def _led_pins(board: Board) -> tuple[str, ...]:
    return tuple(sorted(board.led_pins))


def _writes(events: Iterable[EventFields], end: int) -> tuple[tuple[int, int, int], ...]:
    out: list[tuple[int, int, int]] = []
    open_at: dict[int, int] = {}
    for cycle, kind, a, _, _ in events:
        if kind == _EEPROM_START:
            open_at[a] = cycle
        elif kind == _EEPROM_DONE and a in open_at:
            out.append((open_at.pop(a), cycle, a))
    out.extend((s, end, a) for a, s in open_at.items())  # still busy when the press ended
    return tuple(sorted(out))


def _conversions(
    events: Iterable[EventFields], divider_at: dict[int, int]
) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    for cycle, kind, _, _, _ in events:
        if kind == _ADC:
            clocks = 25 if not out else 13
            out.append((cycle, cycle + clocks * divider_at.get(cycle, 2)))
    return tuple(out)


def _sleeps(events: Iterable[EventFields], mcu: str, end: int) -> tuple[Sleep, ...]:
    out: list[Sleep] = []
    asleep: tuple[int, str, bool, bool] | None = None
    modes: dict[int, str] = {}  # by the SLEEP's b: a chip sleeps in few modes
    for cycle, kind, a, b, c in events:
        if kind == _SLEEP:
            if asleep is None:
                mode = modes.get(b)
                if mode is None:
                    mode = modes[b] = sleep_mode_name(mcu, b - 1) if b else "unknown"
                asleep = (cycle, mode, bool(c), bool(a))
        elif asleep is not None and (kind in (_WAKE, _RESET) or (kind == _POWER and a == 0)):
            out.append(Sleep(asleep[0], cycle, *asleep[1:]))
            asleep = None
    if asleep is not None:
        out.append(Sleep(asleep[0], end, *asleep[1:]))
    return tuple(out)
