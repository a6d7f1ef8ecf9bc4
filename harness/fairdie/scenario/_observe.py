"""A firmware run for a while, watched: what ``fairdie run`` without a
scenario prints. Pin edges, the LEDs lit over time, the symbols each display
showed, tones, EEPROM writes and sleeps with their modes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from fairdie.device import Device, Tone
from fairdie.scenario._model import Expect
from fairdie.scenario._session import Session, sleep_event_mode, wait_condition
from fairdie.sim import Chip, Event, EventKind

__all__ = ["Observation", "Sleep", "observe"]

Segment = tuple[int, int, str]  #: (start, end, what was shown), cycles


class Sleep(NamedTuple):
    """The CPU asleep from ``start`` to ``end`` (cycles) in ``mode``."""

    start: int
    end: int
    mode: str


def _sleeps(chip: Chip, events: Iterable[Event], end: int, offset: int) -> tuple[Sleep, ...]:
    """The sleeps in ``events``, each to its wake, reset or power cut (or
    ``end``), in cycles less ``offset``."""
    out: list[Sleep] = []
    asleep: tuple[int, str] | None = None
    for e in events:
        if e.kind is EventKind.SLEEP and asleep is None:
            asleep = (e.cycle, sleep_event_mode(chip, e))
        elif asleep is not None and (
            e.kind in (EventKind.WAKE, EventKind.RESET) or (e.kind is EventKind.POWER and e.a == 0)
        ):
            out.append(Sleep(asleep[0] - offset, e.cycle - offset, asleep[1]))
            asleep = None
    if asleep is not None:
        out.append(Sleep(asleep[0] - offset, end - offset, asleep[1]))
    return tuple(out)


@dataclass(frozen=True)
class Observation:
    """What a run showed, cycles counted from its start."""

    frequency: int
    cycles: int  #: how long it ran
    until: str | None  #: the event it waited for
    seen: bool  #: the event happened (it stopped there)
    edges: dict[str, tuple[int, int, int]]  #: pin -> (level changes, first, last)
    leds: tuple[Segment, ...]  #: the lit LEDs, as they changed
    displays: dict[str, tuple[Segment, ...]]
    tones: tuple[Tone, ...]
    eeprom: tuple[tuple[int, int, int, bool], ...]  #: (cycle, address, byte, cut)
    sleeps: tuple[Sleep, ...]
    eeprom_before: bytes
    eeprom_after: bytes

    def ms(self, cycle: int) -> float:
        return round(cycle * 1000 / self.frequency, 3)

    def _segments(self, segs: tuple[Segment, ...]) -> list[dict[str, Any]]:
        return [{"from_ms": self.ms(a), "to_ms": self.ms(b), "shown": s} for a, b, s in segs]

    def sleep_modes(self) -> dict[str, dict[str, float]]:
        """Per mode: how many sleeps and how long asleep in all (ms)."""
        out: dict[str, dict[str, float]] = {}
        for s in self.sleeps:
            m = out.setdefault(s.mode, {"count": 0, "ms": 0.0})
            m["count"] += 1
            m["ms"] = round(m["ms"] + (s.end - s.start) * 1000 / self.frequency, 3)
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "ms": self.ms(self.cycles),
            "until": self.until,
            "seen": self.seen,
            "edges": {
                p: {"count": n, "first_ms": self.ms(a), "last_ms": self.ms(b)}
                for p, (n, a, b) in sorted(self.edges.items())
            },
            "leds": self._segments(self.leds),
            "displays": {d: self._segments(s) for d, s in self.displays.items()},
            "tones": [
                {
                    "from_ms": self.ms(t.start),
                    "hz": round(t.frequency_hz, 2),
                    "ms": round(t.duration_s * 1000, 3),
                }
                for t in self.tones
            ],
            "eeprom_writes": [
                {"ms": self.ms(c), "address": a, "byte": b, "cut": cut}
                for c, a, b, cut in self.eeprom
            ],
            "eeprom_changed": {
                str(i): [x, y]
                for i, (x, y) in enumerate(zip(self.eeprom_before, self.eeprom_after, strict=True))
                if x != y
            },
            "sleeps": self.sleep_modes(),
        }

    def format(self) -> str:
        """The report, a few lines per kind of thing seen."""
        lines = [
            f"ran {self.ms(self.cycles):g} ms"
            + (f"; {self.until}: {'seen' if self.seen else 'not seen'}" if self.until else "")
        ]
        if not self.edges:
            lines.append("pins: no edges")
        for p, (n, a, b) in sorted(self.edges.items()):
            lines.append(f"pin {p}: {n} edges, {self.ms(a):g} .. {self.ms(b):g} ms")
        for name, segs in (("LEDs", self.leds), *self.displays.items()):
            for a, b, s in segs:
                lines.append(f"{name}: {s} from {self.ms(a):g} to {self.ms(b):g} ms")
        for t in self.tones:
            ms = t.duration_s * 1000
            lines.append(
                f"tone {t.frequency_hz:.1f} Hz for {ms:.1f} ms from {self.ms(t.start):g} ms"
            )
        for c, a, b, cut in self.eeprom:
            lines.append(f"EEPROM {a}: {b:#04x} at {self.ms(c):g} ms" + (" (cut)" if cut else ""))
        for mode, m in self.sleep_modes().items():
            lines.append(f"sleep {mode}: {m['count']:g} times, {m['ms']:g} ms in all")
        return "\n".join(lines)


def _segment(out: list[Segment], at: int, shown: str) -> None:
    if out and out[-1][2] == shown:
        out[-1] = (out[-1][0], at, shown)
    else:
        out.append((out[-1][1] if out else 0, at, shown))


def observe(
    device: Device, cycles: int, *, event: str | None = None, state: Expect | None = None
) -> Observation:
    """Power the device on and run it ``cycles``, or until ``event`` or
    ``state`` (see :func:`fairdie.scenario._session.wait_condition`)."""
    chip, board = device.chip, device.board
    session = Session(device)
    before = chip.eeprom
    device.power_on()
    start, mark = chip.cycle, chip.trace.mark()
    leds: list[Segment] = []
    displays: dict[str, list[Segment]] = {d.name: [] for d in board.displays}
    waiting = event is not None or state is not None
    until, done, poll = wait_condition(device, event, state) if waiting else (None, None, False)

    def look(ev: Event | None) -> bool:
        now = chip.cycle - start
        lit = device.lit()
        _segment(leds, now, ", ".join(sorted(lit)) or "none lit")
        for d in board.displays:
            _segment(displays[d.name], now, d.decode(lit))
        return done is not None and done(ev)

    watch = look if board.leds else done
    seen = session.run_to(start + cycles, until=until, done=watch, poll=poll or bool(board.leds))
    end = chip.cycle
    events = list(chip.trace.events(since=mark))
    edges: dict[str, tuple[int, int, int]] = {}
    for ch in chip.trace.pin_changes(since=mark):
        for bit in range(8):
            if ((ch.state ^ ch.before) >> bit) & 1:
                pin, at = f"P{ch.port}{bit}", ch.cycle - start
                n, first, _ = edges.get(pin, (0, at, at))
                edges[pin] = (n + 1, first, at)
    writes = tuple(
        (e.cycle - start, e.a, e.b, bool(e.c)) for e in events if e.kind is EventKind.EEPROM_DONE
    )
    sleeps = _sleeps(chip, events, end, start)
    tones = tuple(
        Tone(t.start - start, t.end - start, t.frequency_hz, t.duration_s)
        for t in (device.tones(mark) if board.speaker else [])
    )
    return Observation(
        frequency=chip.frequency,
        cycles=end - start,
        until=None if not waiting else event or (state.describe() if state else None),
        seen=seen,
        edges=edges,
        leds=tuple(leds),
        displays={d: tuple(s) for d, s in displays.items()},
        tones=tones,
        eeprom=writes,
        sleeps=sleeps,
        eeprom_before=before,
        eeprom_after=chip.eeprom,
    )
