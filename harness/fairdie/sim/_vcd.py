"""Value Change Dump files of a chip's recorded trace, written with pyvcd.

A VCD file opens in GTKWave (or any waveform viewer). Time is in
nanoseconds: ``round(cycle * 1e9 / frequency)``; at the clocks simavr runs
(at most 32 MHz) every cycle has a time of its own.

Pins are 1-bit wires as the pin model has them: 0 or 1 when driven or
pulled, z when floating. The signals, each made from the trace's events:

==============  =====  ===================================================
signal          width  from
==============  =====  ===================================================
``power``       1      POWER (1 on, 0 off)
``sleep``       1      SLEEP (1), WAKE and power off (0)
``eeprom_busy`` 1      EEPROM_START (1), EEPROM_DONE (0)
``eeprom_addr`` 16     the address of the write started (or completed)
``eeprom_data`` 8      the byte the write stores, then the byte it stored
``adc``         1      a strobe: 1 for the cycle an ADC conversion starts
``adc_mv``      32     the millivolts fed to that conversion
``adc_code``    10     the code the firmware reads from it
``sleep_mode``  text   SLEEP (its mode: "idle", "power-down", ...), WAKE
                       and power off ("awake")
==============  =====  ===================================================

A board's parts may be added under the names the board gives them, each kind
in a scope of its own, beside the raw pins (scope ``chip``): ``led.NAME`` is 1
while the LED is lit (its anode driven high and its cathode driven low, as
the chip's LED integrator has it), ``btn.NAME`` 1 while the button is
pressed (the outside world drives its pin at the active level), and
``spk.speaker`` the level of the pin the speaker hangs on (0, 1, or z when
floating). All are made from the pin events alone.

A signal is only as complete as the trace: its event kinds must have been
in ``Chip.trace_kinds`` (:func:`signals_for` names the signals a set of kinds
feeds). A value no event sets is x (unknown), unless ``state`` says what the
chip was at the end and no event changed it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

from fairdie.sim._types import Event, EventFields, EventKind, Level, parse_pin

if TYPE_CHECKING:
    from vcd import VCDWriter

__all__ = ["SIGNALS", "VCD_KINDS", "ChipState", "Parts", "led_lit", "signals_for", "write_vcd"]

#: the event kinds a VCD shows: pins, sleep, EEPROM writes, conversions and power
VCD_KINDS = (
    EventKind.PIN
    | EventKind.SLEEP
    | EventKind.WAKE
    | EventKind.EEPROM_START
    | EventKind.EEPROM_DONE
    | EventKind.ADC
    | EventKind.POWER
)

#: every signal and its width in bits, in the order they are declared
SIGNALS: dict[str, int] = {
    "power": 1,
    "sleep": 1,
    "eeprom_busy": 1,
    "eeprom_addr": 16,
    "eeprom_data": 8,
    "adc": 1,
    "adc_mv": 32,
    "adc_code": 10,
    "sleep_mode": 0,  # a string variable
}
_EEPROM = EventKind.EEPROM_START | EventKind.EEPROM_DONE
_NEEDS: dict[str, EventKind] = {
    "power": EventKind.POWER,
    "sleep": EventKind.SLEEP | EventKind.WAKE,
    "eeprom_busy": _EEPROM,
    "eeprom_addr": _EEPROM,
    "eeprom_data": _EEPROM,
    "adc": EventKind.ADC,
    "adc_mv": EventKind.ADC,
    "adc_code": EventKind.ADC,
    "sleep_mode": EventKind.SLEEP | EventKind.WAKE,
}
_AWAKE = "awake"
_SUPPLY = {"VCC": True, "GND": False}
_PIN_VALUE = {
    Level.LOW: "0",
    Level.HIGH: "1",
    Level.PULLUP: "1",
    Level.PULLDOWN: "0",
    Level.Z: "z",
}
_Value = int | str


@dataclass(frozen=True, slots=True)
class ChipState:
    """The chip at the end of the trace (None: not known). A pin or signal
    that no event of the trace changes held this value throughout."""

    ports: Mapping[str, int] = field(default_factory=dict)  #: port letter -> state word
    powered: bool | None = None
    sleeping: bool | None = None
    eeprom_busy: bool | None = None
    sleep_mode: str | None = None  #: the mode it sleeps in (None: awake or unknown)


@dataclass(frozen=True, slots=True)
class Parts:
    """A board's parts for a VCD: LEDs as (name, anode, cathode), pins or
    ``"VCC"``/``"GND"``; buttons as (name, pin, active high); speakers as
    (name, pin)."""

    leds: Sequence[tuple[str, str, str]] = ()
    buttons: Sequence[tuple[str, str, bool]] = ()
    speakers: Sequence[tuple[str, str]] = ()
    #: sleep mode names by SM bits (the SLEEP event's b is 1 + them)
    sleep_names: Mapping[int, str] = field(default_factory=dict)


def signals_for(kinds: EventKind) -> tuple[str, ...]:
    """The signals a trace of these event kinds records completely."""
    return tuple(s for s, need in _NEEDS.items() if need & kinds == need)


_PIN = int(EventKind.PIN)
_POWER, _SLEEP, _WAKE = int(EventKind.POWER), int(EventKind.SLEEP), int(EventKind.WAKE)
_EEPROM_START, _EEPROM_DONE = int(EventKind.EEPROM_START), int(EventKind.EEPROM_DONE)
_ADC = int(EventKind.ADC)


def _changes(kind: int, a: int, b: int, c: int) -> list[tuple[str, _Value]]:
    """The signal values an event (its kind and fields) sets at its cycle."""
    if kind == _POWER:
        return [("power", a)] if a else [("power", 0), ("sleep", 0), ("sleep_mode", -1)]
    if kind == _SLEEP:
        return [("sleep", 1), ("sleep_mode", b - 1)]
    if kind == _WAKE:
        return [("sleep", 0), ("sleep_mode", -1)]
    if kind == _EEPROM_START:
        return [("eeprom_busy", 1), ("eeprom_addr", a), ("eeprom_data", c & 0xFF)]
    if kind == _EEPROM_DONE:
        return [("eeprom_busy", 0), ("eeprom_addr", a), ("eeprom_data", b & 0xFF)]
    if kind == _ADC:
        return [("adc", 1), ("adc_mv", b), ("adc_code", c & 0x3FF)]
    return []


def _initial(events: Sequence[EventFields], state: ChipState) -> dict[str, _Value]:
    """Each signal's value before the first event: what its first change
    undoes, else what the chip is at the end."""
    init: dict[str, _Value] = {"adc": 0}
    at_end = {
        "power": state.powered,
        "sleep": state.sleeping,
        "eeprom_busy": state.eeprom_busy,
    }
    for name, known in at_end.items():
        if known is not None:
            init[name] = int(known)
    if state.sleeping is not None:
        init["sleep_mode"] = (state.sleep_mode or "unknown") if state.sleeping else _AWAKE
    first: set[str] = set()
    for _, kind, a, b, c in events:
        if kind == _PIN:
            continue  # sets no signal
        for name, value in _changes(kind, a, b, c):
            if name in first or (name.startswith("sleep") and kind == _POWER):
                continue  # a power cut says nothing of the sleep before it
            first.add(name)
            if name in ("power", "sleep", "eeprom_busy"):
                init[name] = 1 - int(value)
            elif name == "sleep_mode":
                init[name] = _AWAKE if kind == _SLEEP else "unknown"
            elif name != "adc":
                init.pop(name, None)  # a vector is unknown until its first value
    return init


#: an LED's terminal: a supply (whether it lets the LED light), or a pin
_Terminal = bool | tuple[str, int]


@cache
def _terminals(anode: str, cathode: str) -> tuple[_Terminal, _Terminal]:
    """An LED's anode and cathode, each a supply (whether it is where the LED
    needs it to light: VCC for the anode, GND for the cathode) or a pin."""
    ends: list[_Terminal] = []
    for terminal, high in ((anode, True), (cathode, False)):
        supply = _SUPPLY.get(terminal.upper())
        ends.append(parse_pin(terminal) if supply is None else supply == high)
    return ends[0], ends[1]


def _driven(words: Mapping[str, int], terminal: _Terminal, high: int) -> bool | None:
    """A terminal is where it must be to light: a supply always, a pin when
    driven (by the chip or from outside) to ``high`` (None: its port is
    unknown). As ``Level.of(word, bit) is HIGH`` (or LOW), in bits."""
    if isinstance(terminal, bool):
        return terminal
    port, bit = terminal
    word = words.get(port)
    if word is None:
        return None
    return bool((word >> (8 + bit) | word >> (16 + bit)) & 1) and (word >> bit & 1) == high


def led_lit(words: Mapping[str, int], anode: str, cathode: str) -> bool | None:
    """An LED between ``anode`` and ``cathode`` (pins, or ``"VCC"``/``"GND"``)
    is lit in these port state words: its anode driven high, its cathode
    driven low, as the engine's LED integrator has it (None: a port unknown)."""
    a, c = _terminals(anode, cathode)
    ends = (_driven(words, a, 1), _driven(words, c, 0))
    return None if None in ends else all(ends)


class _PartValues:
    """A board's parts' values (``led.NAME``, ``btn.NAME``, ``spk.NAME``) from
    port state words, x while a pin's port is unknown; each pin parsed once,
    and each part known by the bits of the state words it reads."""

    def __init__(self, parts: Parts) -> None:
        self.leds = {f"led.{n}": _terminals(a, c) for n, a, c in parts.leds}
        self.buttons = {f"btn.{n}": (*parse_pin(p), int(high)) for n, p, high in parts.buttons}
        self.speakers = {f"spk.{n}": parse_pin(p) for n, p in parts.speakers}
        #: port -> the parts that read it, each with the bits of its word it reads
        self.reads: dict[str, list[tuple[str, int]]] = {}
        for key, ends in self.leds.items():
            for end in ends:
                if not isinstance(end, bool):
                    self._reads(key, end, 8, 16)
        for key, (port, bit, _) in self.buttons.items():
            self._reads(key, (port, bit), 16)
        for key, pin in self.speakers.items():
            self._reads(key, pin, 8, 16, 24)
        #: the ports whose parts read no other port: their values follow from
        #: the port's word alone (and a display's scan repeats a few words)
        alone = {p for p, read in self.reads.items() if all(self._ports(k) == {p} for k, _ in read)}
        self._alone = alone
        self._seen: dict[tuple[str, int, int], dict[str, str]] = {}

    def _reads(self, key: str, pin: tuple[str, int], *planes: int) -> None:
        port, bit = pin
        mask = sum(1 << (p + bit) for p in (0, *planes))
        self.reads.setdefault(port, []).append((key, mask))

    def all(self, words: Mapping[str, int]) -> dict[str, str]:
        """Every part's value."""
        keys = [*self.leds, *self.buttons, *self.speakers]
        return {k: self.value(k, words) for k in keys}

    def _ports(self, key: str) -> set[str]:
        """The ports a part reads."""
        return {port for port, read in self.reads.items() if any(k == key for k, _ in read)}

    def changed(self, words: Mapping[str, int], port: str, before: int | None) -> dict[str, str]:
        """The values of the parts that read the bits of ``port``'s word that
        changed from ``before`` (all of its parts when that is unknown)."""
        after = words[port]
        seen = None
        if before is not None and port in self._alone:
            seen = self._seen.get((port, before, after))
            if seen is not None:
                return seen
        bits = -1 if before is None else before ^ after
        out = {k: self.value(k, words) for k, mask in self.reads.get(port, ()) if mask & bits}
        if before is not None and port in self._alone:
            self._seen[port, before, after] = out
        return out

    def value(self, key: str, words: Mapping[str, int]) -> str:
        if key in self.leds:
            anode, cathode = self.leds[key]
            ends = (_driven(words, anode, 1), _driven(words, cathode, 0))
            return "x" if None in ends else "1" if all(ends) else "0"
        if key in self.buttons:
            port, bit, high = self.buttons[key]
            word = words.get(port)
            if word is None:
                return "x"
            return "1" if (word >> (16 + bit)) & 1 and (word >> bit & 1) == high else "0"
        port, bit = self.speakers[key]
        word = words.get(port)
        return "x" if word is None else _PIN_VALUE[Level.of(word, bit)]


def _first_words(events: Sequence[EventFields], state: ChipState) -> dict[str, int]:
    """Each port's state word before the first event (None: unknown)."""
    words = dict(state.ports)
    seen: set[int] = set()
    for _, kind, a, _, c in events:
        if kind == _PIN and a not in seen:
            seen.add(a)
            words[chr(a)] = c  # the state word before the first change
    return words


def _pin_initial(pins: Sequence[str], words: Mapping[str, int]) -> dict[str, str]:
    init: dict[str, str] = {}
    for name in pins:
        port, bit = parse_pin(name)
        word = words.get(port)
        init[name] = "x" if word is None else _PIN_VALUE[Level.of(word, bit)]
    return init


def write_vcd(
    path: Path,
    *,
    frequency: int,
    pins: Sequence[str],
    events: Sequence[Event] | Sequence[EventFields],
    signals: Sequence[str],
    end: int,
    state: ChipState | None = None,
    comment: str = "",
    scope: str = "chip",
    parts: Parts | None = None,
) -> Path:
    """Write ``events`` (a trace, in cycle order: events, or their fields as
    ``Trace.tuples`` gives them) as a VCD file at ``path``: the ``pins``
    (``"PB0"``, ...) and ``signals`` (names of :data:`SIGNALS`), and a board's
    ``parts``, from time 0 to cycle ``end``. Raises ValueError for an unknown
    signal and OSError when the file cannot be written."""
    for s in signals:
        if s not in SIGNALS:
            raise ValueError(f"unknown VCD signal {s!r}: choose from {', '.join(SIGNALS)}")
    fields = _fields(events)
    state = state or ChipState()
    parts = parts or Parts()
    words = _first_words(fields, state)
    part_values = _PartValues(parts)
    part_init = part_values.all(words)
    init: dict[str, Any] = {**_initial(fields, state), **_pin_initial(pins, words)}
    rows = _rows(fields, pins, signals, words, part_values, part_init, parts.sleep_names)
    ns = 1e9 / frequency
    from vcd import VCDWriter  # pyvcd, when a file is written (not on every import)

    with path.open("w", encoding="utf-8") as f:
        w = VCDWriter(f, timescale="1 ns", date="", comment=comment, version="fairdie")
        var = {name: w.register_var(scope, name, "wire", 1, init.get(name, "x")) for name in pins}
        for name in signals:
            if SIGNALS[name]:
                var[name] = w.register_var(scope, name, "wire", SIGNALS[name], init.get(name, "x"))
            else:
                var[name] = w.register_var(scope, name, "string", init=init.get(name, "unknown"))
        for key, value in part_init.items():
            kind, name = key.split(".", 1)
            var[key] = w.register_var(kind, name, "wire", 1, value)
        _write_changes(f, w, var, rows, ns, end, part_init)
    return path


def _fields(events: Sequence[Event] | Sequence[EventFields]) -> Sequence[EventFields]:
    """The events' fields (as ``Trace.tuples`` gives them)."""
    if not events or not isinstance(events[0], Event):
        return cast("Sequence[EventFields]", events)
    return [(e.cycle, int(e.kind), e.a, e.b, e.c) for e in cast("Sequence[Event]", events)]


def _rows(
    events: Sequence[EventFields],
    pins: Sequence[str],
    signals: Sequence[str],
    words: dict[str, int],
    part_values: _PartValues,
    part_init: Mapping[str, str],
    names: Mapping[int, str],
) -> list[tuple[int, int, str, _Value]]:
    """(cycle, order, name, value) of each change the events make, by time
    and order (the event's index; -1 for a strobe's fall, before the events
    of its cycle): a pin's or a part's only when its value changes."""
    by_port: dict[int, list[tuple[str, int]]] = {}
    for p in pins:
        port, bit = parse_pin(p)
        by_port.setdefault(ord(port), []).append((p, bit))
    wanted = set(signals)
    rows: list[tuple[int, int, str, _Value]] = []
    append = rows.append
    now = dict(part_init)  # each part's value as the events go: a row only for a change
    # each port's word as the events go, and the pins' values that change
    # from one word to the next (a row only for a change): a port cycles
    # through few words
    port_word: dict[int, int | None] = {ord(p): w for p, w in words.items()}
    steps: dict[tuple[int, int | None, int], list[tuple[str, str]]] = {}
    falls: list[int] = []  # the cycles the ADC strobe falls at, not yet passed
    latest, in_order = 0, True
    for n, (cycle, kind, a, b, c) in enumerate(events):
        while falls and falls[0] <= cycle:  # a fall before the events of its cycle
            append((falls.pop(0), -1, "adc", 0))
        if cycle < latest:
            in_order = False
        latest = cycle
        if kind == _PIN:
            before = port_word.get(a)
            step = steps.get((a, before, b))
            if step is None:
                step = steps[a, before, b] = _pin_step(by_port.get(a, ()), before, b)
            port_word[a] = b
            for name, v in step:
                append((cycle, n, name, v))
            if part_init:
                port = chr(a)
                was = words.get(port)
                words[port] = b
                for k, v in part_values.changed(words, port, was).items():
                    if now[k] != v:
                        now[k] = v
                        append((cycle, n, k, v))
            continue
        for name, value in _changes(kind, a, b, c):
            if name == "sleep_mode" and isinstance(value, int):
                value = _AWAKE if value < 0 else names.get(value, f"sm-{value}")
            if name in wanted:
                append((cycle, n, name, value))
                if name == "adc":
                    falls.append(cycle + 1)
    rows += ((fall, -1, "adc", 0) for fall in falls)
    if not in_order:  # events out of cycle order: their rows by time, then order
        rows.sort(key=lambda r: (r[0], r[1]))
    return rows


def _pin_step(
    pins: Sequence[tuple[str, int]], before: int | None, after: int
) -> list[tuple[str, str]]:
    """The values of a port's ``pins`` (name, bit) that its word's change
    from ``before`` (None: unknown, each pin x) to ``after`` changes."""
    now = {name: "x" if before is None else _PIN_VALUE[Level.of(before, bit)] for name, bit in pins}
    step = []
    for name, bit in pins:
        v = _PIN_VALUE[Level.of(after, bit)]
        if now[name] != v:
            now[name] = v
            step.append((name, v))
    return step


def _write_changes(
    f: TextIO,
    w: VCDWriter,
    var: Mapping[str, Any],
    rows: Sequence[tuple[int, int, str, _Value]],
    ns: float,
    end: int,
    part_init: Mapping[str, str],
) -> None:
    """Write ``rows`` and close ``w`` at cycle ``end`` (or the last row's
    time), as ``w.change`` for each row and ``w.close`` would: pyvcd writes
    the header and the values at time 0, and formats each value; a value
    that is no change is left out, a time written before its first change."""
    later = len(rows)  # the first row after time 0
    for i, (cycle, _, name, value) in enumerate(rows):
        if round(cycle * ns):
            later = i
            break
        w.change(var[name], 0, value)  # into the $dumpvars of time 0
    w.flush()  # the header and the values at time 0
    last: dict[str, _Value] = {name: v.value for name, v in var.items()}
    dumped = 0 if var else None  # the time last written (0 with the $dumpvars)
    formatted: dict[tuple[str, _Value], str] = {}
    out: list[str] = []
    at = final = -1  # the cycle of the row before; of the last row that counts
    for cycle, _, name, value in rows[later:]:
        if value == last[name]:  # no change: nothing to write
            if name not in part_init:  # a part's row counts only when it changes
                final = cycle
            continue
        final = cycle
        last[name] = value
        text = formatted.get((name, value))
        if text is None:
            text = formatted[name, value] = var[name].format_value(value)
        if cycle != at:
            at, stamp = cycle, round(cycle * ns)
            if stamp != dumped:
                dumped = stamp
                out.append(f"#{stamp}")
        out.append(text)
    stamp = max(round(end * ns), round(final * ns) if final >= 0 else 0)
    if stamp != dumped:
        out.append(f"#{stamp}")
    if out:
        f.write("\n".join(out) + "\n")
    w.close()
