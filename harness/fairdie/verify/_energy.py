"""The charge a press (or a recorded run) draws, estimated from the simulated
time in each state.

A recorded press or run (:class:`~fairdie.verify._timeline.Timeline`) says how many
cycles the CPU was awake, asleep in each mode (as the engine reports it),
programming EEPROM, converting with the ADC, and how long each LED was lit.
Each state's time is multiplied by its supply current
(:mod:`fairdie.verify._figures`; LEDs: the board's ``led_ma`` per lit LED,
once per lit series string). The result is an estimate: the currents are
typical datasheet figures or stated assumptions, the states are simulated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fairdie.board import Board
from fairdie.verify._figures import CR2032_MAH, FIGURES, active_ma, idle_ma
from fairdie.verify._timeline import Timeline

__all__ = ["LED_PART", "Energy", "Part", "estimate", "estimate_run"]

#: the part that is the LEDs' light
LED_PART = "LEDs (ms summed over LEDs)"

_MERGE_S = 0.001  # ADC conversions closer than this count as one stretch of ADC on
#: the modes (as the engine names them) counted at the power-down figure
_POWER_DOWN_MODES = ("power-down", "power-save", "standby", "extended-standby")
_NO_SLEEP_MODES = (
    "the engine ran without its sleep_modes fix: it slept at every SLEEP, SE set or not"
    " (a real chip stays awake with SE clear), with the timers running on; its sleeps are"
    " counted as it ran them"
)


@dataclass(frozen=True)
class Part:
    """One state's share of a press: its time and its current."""

    name: str
    seconds: float
    ma: float

    @property
    def uc(self) -> float:
        """Charge in microcoulombs (mA x ms)."""
        return self.ma * self.seconds * 1000.0

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ms": round(self.seconds * 1000, 4),
            "ma": round(self.ma, 5),
            "uc": round(self.uc, 3),
        }


@dataclass(frozen=True)
class Energy:
    """The estimate for a press, averaged over the presses recorded; or, with
    :attr:`run_s`, for a run of the firmware, averaged over the runs recorded."""

    hold_s: float
    presses_recorded: int
    parts: tuple[Part, ...]
    by_power: bool  #: the device is powered only while pressed
    standby_ma: float | None  #: a device that stays powered: its current once its LEDs settle
    led_ma: float
    figures: tuple[str, ...]  #: the keys of FIGURES the estimate used
    notes: tuple[str, ...] = field(default=())
    #: the mean length of the runs recorded (None: presses): the parts are per run
    run_s: float | None = None
    #: what the runs were ("2 s from power-on, no input", "scenario x.toml", ...)
    runs: tuple[str, ...] = ()
    #: the second half of each press, per press: (seconds, LEDs' lit seconds, other
    #: charge uC): how the charge grows with a longer hold
    tail: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def led_s(self) -> float:
        """The LEDs' lit time per press (s, summed over lit paths)."""
        return sum(p.seconds for p in self.parts if p.name == LED_PART)

    def uc_at(self, hold: float, led_ma: float) -> float:
        """The charge per press held ``hold`` s with LEDs at ``led_ma``: beyond
        the recorded hold, linear at the rate of the presses' second halves."""
        tail_s, tail_led, tail_other = self.tail
        other = self.per_press_uc - self.led_s * self.led_ma * 1000
        led_s = self.led_s
        if tail_s > 0:
            extra = hold - self.hold_s
            led_s = max(0.0, led_s + extra * tail_led / tail_s)
            other = max(0.0, other + extra * tail_other / tail_s)
        return other + led_s * led_ma * 1000

    def presses_at(self, hold: float, led_ma: float) -> float:
        """Presses a CR2032 (nominal capacity) powers at :meth:`uc_at`."""
        uc = self.uc_at(hold, led_ma)
        return CR2032_MAH * 3.6e6 / uc if uc > 0 else 0.0

    @property
    def per_press_uc(self) -> float:
        return sum(p.uc for p in self.parts)

    @property
    def presses(self) -> int:
        """Presses a CR2032 (nominal capacity) powers, at this charge each."""
        capacity_uc = CR2032_MAH * 3.6e6
        return int(capacity_uc / self.per_press_uc) if self.per_press_uc > 0 else 0

    @property
    def mean_ma(self) -> float | None:
        """A run's mean current (None: presses)."""
        return None if not self.run_s else self.per_press_uc / self.run_s / 1000

    @property
    def standby_hours(self) -> float | None:
        if self.standby_ma is None or self.standby_ma <= 0:
            return None
        return CR2032_MAH / self.standby_ma

    def summary(self) -> str:
        """One line: the charge per press (or the current of a run) and what a CR2032 gives."""
        if self.run_s is not None:
            ma = self.mean_ma or 0.0
            line = (
                f"estimate: a mean {ma:.3g} mA ({_charge(self.per_press_uc)} over"
                f" {self.run_s:.3g} s: {'; '.join(self.runs)})"
            )
            if ma > 0:
                line += f"; a CR2032 ({CR2032_MAH:g} mAh) lasts ~{CR2032_MAH / ma:,.0f} h at it"
            return line
        if self.by_power:
            return (
                f"estimate: {_charge(self.per_press_uc)} per press held {self.hold_s:g} s,"
                f" ~{self.presses:,} presses from a CR2032 ({CR2032_MAH:g} mAh)"
            )
        line = f"estimate: {_charge(self.per_press_uc)} per roll (button held {self.hold_s:g} s)"
        if self.standby_ma is not None:
            hours = self.standby_hours
            line += f"; it stays powered, drawing {self.standby_ma:.3g} mA once its LEDs settle"
            if hours:
                line += f": a CR2032 ({CR2032_MAH:g} mAh) lasts ~{hours:,.0f} h"
        return line

    def as_json(self) -> dict[str, Any]:
        return {
            "hold_s": self.hold_s,
            "presses_recorded": self.presses_recorded,
            "run_s": self.run_s,
            "runs": list(self.runs),
            "mean_ma": None if self.mean_ma is None else round(self.mean_ma, 5),
            "per_press_uc": round(self.per_press_uc, 3),
            "cr2032_mah": CR2032_MAH,
            "presses_from_cr2032": self.presses,
            "standby_ma": None if self.standby_ma is None else round(self.standby_ma, 5),
            "standby_hours": None if self.standby_hours is None else round(self.standby_hours, 1),
            "led_ma": self.led_ma,
            "parts": [p.as_json() for p in self.parts],
            "figures": [FIGURES[k].as_json() for k in self.figures],
            "notes": list(self.notes),
        }


def _charge(uc: float) -> str:
    return f"{uc / 1000:.3g} mC" if uc >= 1000 else f"{uc:.3g} uC"


def _overlap(intervals: Sequence[tuple[int, int]], t0: int, t1: int) -> int:
    """Cycles of the union of ``intervals`` inside ``[t0, t1)``."""
    total, reach = 0, t0
    for a, b in sorted(intervals):
        a, b = max(a, reach), min(b, t1)
        if b > a:
            total += b - a
            reach = b
    return total


class _Tally:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.ma: dict[str, float] = {}
        self.used: set[str] = set()
        self.notes: set[str] = set()

    def add(self, name: str, seconds: float, ma: float, figure: str | None = None) -> None:
        if seconds <= 0:
            return
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.ma[name] = ma
        if figure is not None:
            self.used.add(figure)


def _sleep_ma(mode: str, watchdog: bool, f_cpu: int, tally: _Tally) -> tuple[str, float, str]:
    if mode in _POWER_DOWN_MODES:
        if mode != "power-down":
            tally.notes.add(f"{mode} is counted at the power-down figure")
        key = "power-down, watchdog on" if watchdog else "power-down, watchdog off"
        return f"sleep: {key}", FIGURES[key].value / 1000, key
    if mode != "idle":
        tally.notes.add(f"{mode} sleep is counted at the idle figure (an upper bound)")
    return f"sleep: {mode}", idle_ma(f_cpu), "idle"


def _press(tl: Timeline, board: Board, t0: int, t1: int, tally: _Tally) -> None:
    f = tl.frequency
    asleep = 0
    for s in tl.sleeps:
        cycles = _overlap([(s.start, s.end)], t0, t1)
        if not cycles:
            continue
        if not tl.sleep_modes:
            tally.notes.add(_NO_SLEEP_MODES)
        asleep += cycles
        name, ma, key = _sleep_ma(s.mode, s.watchdog, f, tally)
        tally.add(name, cycles / f, ma, key)
    off = _overlap(tl.unpowered, t0, t1)
    tally.add("CPU active", (t1 - t0 - asleep - off) / f, active_ma(f), "active")
    ee = _overlap([(a, b) for a, b, _ in tl.eeprom], t0, t1)
    key = "EEPROM programming"
    tally.add(key, ee / f, FIGURES[key].value, key)
    merged: list[tuple[int, int]] = []
    gap = round(_MERGE_S * f)
    for a, b in tl.adc:
        if merged and a - merged[-1][1] <= gap:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    tally.add("ADC on", _overlap(merged, t0, t1) / f, FIGURES["ADC on"].value, "ADC on")
    # LEDs: one current per lit path (LEDs in series share theirs)
    lit = tl.led_cycles(t0, t1)
    paths: dict[str, float] = {}
    for led, on in zip(board.leds, lit, strict=True):
        path = led.series or led.name
        paths[path] = max(paths.get(path, 0.0), on)
    seconds = sum(paths.values()) / f
    tally.add(LED_PART, seconds, board.led_ma)


def estimate(timelines: Sequence[Timeline], board: Board, *, hold: float, by_power: bool) -> Energy:
    """The mean charge of ``timelines`` (presses of ``hold`` seconds).

    A device powered only while pressed (``by_power``) is counted from
    power-on to power-off. One that stays powered is counted from the press to
    its release plus the time its LEDs take to settle; what it draws after
    that (recorded to the end of each timeline) is its standby current.
    """
    if not timelines:
        raise ValueError("no press recorded")
    tally = _Tally()
    standby_uc = standby_s = 0.0
    tail = [0.0, 0.0, 0.0]
    for tl in timelines:
        t1 = tl.end if by_power else tl.settled
        half = _Tally()
        mid = (tl.start + t1) // 2
        _press(tl, board, mid, t1, half)
        led = half.seconds.get(LED_PART, 0.0)
        tail[0] += (t1 - mid) / tl.frequency / len(timelines)
        tail[1] += led / len(timelines)
        charge = sum(half.seconds[k] * half.ma[k] * 1000 for k in half.seconds)
        tail[2] += (charge - led * board.led_ma * 1000) / len(timelines)
        if by_power:
            _press(tl, board, tl.start, tl.end, tally)
            continue
        settled = tl.settled
        _press(tl, board, tl.start, settled, tally)
        rest = _Tally()
        _press(tl, board, settled, tl.end, rest)
        standby_uc += sum(rest.seconds[k] * rest.ma[k] * 1000 for k in rest.seconds)
        standby_s += (tl.end - settled) / tl.frequency
        tally.used |= rest.used
    n = len(timelines)
    order = [k for k in FIGURES if k in tally.used]
    return Energy(
        hold_s=hold,
        presses_recorded=n,
        parts=_parts(tally, n),
        by_power=by_power,
        standby_ma=None if by_power or not standby_s else standby_uc / standby_s / 1000,
        led_ma=board.led_ma,
        figures=tuple(order),
        notes=tuple(sorted(tally.notes)),
        tail=(tail[0], tail[1], tail[2]),
    )


def estimate_run(timelines: Sequence[Timeline], board: Board, runs: Sequence[str]) -> Energy:
    """The mean charge of ``timelines``, each a run counted from its start to
    its end (``runs`` says what they were, for the summary)."""
    if not timelines:
        raise ValueError("no run recorded")
    tally = _Tally()
    for tl in timelines:
        _press(tl, board, tl.start, tl.end, tally)
    n = len(timelines)
    seconds = sum((tl.end - tl.start) / tl.frequency for tl in timelines) / n
    return Energy(
        hold_s=0.0,
        presses_recorded=0,
        parts=_parts(tally, n),
        by_power=False,
        standby_ma=None,
        led_ma=board.led_ma,
        figures=tuple(k for k in FIGURES if k in tally.used),
        notes=tuple(sorted(tally.notes)),
        run_s=seconds,
        runs=tuple(runs),
    )


def _parts(tally: _Tally, n: int) -> tuple[Part, ...]:
    return tuple(
        Part(name, tally.seconds[name] / n, tally.ma[name])
        for name in sorted(tally.seconds, key=lambda k: -tally.seconds[k] * tally.ma[k])
    )
