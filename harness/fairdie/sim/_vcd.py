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
from typing import Any

from vcd import VCDWriter

from fairdie.sim._types import Event, EventKind, Level, parse_pin

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


def _changes(e: Event) -> list[tuple[str, _Value]]:
    """The signal values an event sets at its cycle."""
    k = e.kind
    if k is EventKind.POWER:
        return [("power", e.a)] if e.a else [("power", 0), ("sleep", 0), ("sleep_mode", -1)]
    if k is EventKind.SLEEP:
        return [("sleep", 1), ("sleep_mode", e.b - 1)]
    if k is EventKind.WAKE:
        return [("sleep", 0), ("sleep_mode", -1)]
    if k is EventKind.EEPROM_START:
        return [("eeprom_busy", 1), ("eeprom_addr", e.a), ("eeprom_data", e.c & 0xFF)]
    if k is EventKind.EEPROM_DONE:
        return [("eeprom_busy", 0), ("eeprom_addr", e.a), ("eeprom_data", e.b & 0xFF)]
    if k is EventKind.ADC:
        return [("adc", 1), ("adc_mv", e.b), ("adc_code", e.c & 0x3FF)]
    return []


def _initial(events: Sequence[Event], state: ChipState) -> dict[str, _Value]:
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
    for e in events:
        for name, value in _changes(e):
            if name in first or (name.startswith("sleep") and e.kind is EventKind.POWER):
                continue  # a power cut says nothing of the sleep before it
            first.add(name)
            if name in ("power", "sleep", "eeprom_busy"):
                init[name] = 1 - int(value)
            elif name == "sleep_mode":
                init[name] = _AWAKE if e.kind is EventKind.SLEEP else "unknown"
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


def _first_words(events: Sequence[Event], state: ChipState) -> dict[str, int]:
    """Each port's state word before the first event (None: unknown)."""
    words = dict(state.ports)
    seen: set[str] = set()
    for e in events:
        if e.kind is EventKind.PIN and chr(e.a) not in seen:
            seen.add(chr(e.a))
            words[chr(e.a)] = e.c  # the state word before the first change
    return words


def _pin_initial(events: Sequence[Event], pins: Sequence[str], state: ChipState) -> dict[str, str]:
    words = _first_words(events, state)
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
    events: Sequence[Event],
    signals: Sequence[str],
    end: int,
    state: ChipState | None = None,
    comment: str = "",
    scope: str = "chip",
    parts: Parts | None = None,
) -> Path:
    """Write ``events`` (a trace, in cycle order) as a VCD file at ``path``:
    the ``pins`` (``"PB0"``, ...) and ``signals`` (names of :data:`SIGNALS`),
    and a board's ``parts``, from time 0 to cycle ``end``. Raises ValueError
    for an unknown signal and OSError when the file cannot be written."""
    for s in signals:
        if s not in SIGNALS:
            raise ValueError(f"unknown VCD signal {s!r}: choose from {', '.join(SIGNALS)}")
    state = state or ChipState()
    parts = parts or Parts()
    names = parts.sleep_names
    by_port: dict[str, list[tuple[str, int]]] = {}
    for p in pins:
        port, bit = parse_pin(p)
        by_port.setdefault(port, []).append((p, bit))
    wanted = set(signals)
    # (cycle, order, name, value): a strobe's fall sorts before an event of its cycle
    rows: list[tuple[int, int, str, _Value]] = []
    words = _first_words(events, state)
    part_values = _PartValues(parts)
    part_init = part_values.all(words)
    now = dict(part_init)  # each part's value as the events go: a row only for a change
    init: dict[str, Any] = {**_initial(events, state), **_pin_initial(events, pins, state)}
    # each pin's value as the events go: a row only for a change (the writer
    # leaves out a value that is no change; it need not be asked)
    pin_now = {name: init.get(name, "x") for name in pins}
    # each port's pins' values by state word: a port cycles through few words
    pin_values: dict[tuple[int, int], tuple[str, ...]] = {}
    for n, e in enumerate(events):
        if e.kind is EventKind.PIN:
            here = by_port.get(chr(e.a), ())
            values = pin_values.get((e.a, e.b))
            if values is None:
                values = tuple(_PIN_VALUE[Level.of(e.b, bit)] for _, bit in here)
                pin_values[e.a, e.b] = values
            for (name, _), v in zip(here, values, strict=True):
                if pin_now[name] != v:
                    pin_now[name] = v
                    rows.append((e.cycle, n, name, v))
            if part_init:
                port = chr(e.a)
                before = words.get(port)
                words[port] = e.b
                for k, v in part_values.changed(words, port, before).items():
                    if now[k] != v:
                        now[k] = v
                        rows.append((e.cycle, n, k, v))
            continue
        for name, value in _changes(e):
            if name == "sleep_mode" and isinstance(value, int):
                value = _AWAKE if value < 0 else names.get(value, f"sm-{value}")
            if name in wanted:
                rows.append((e.cycle, n, name, value))
                if name == "adc":
                    rows.append((e.cycle + 1, -1, name, 0))
    rows.sort(key=lambda r: (r[0], r[1]))
    ns = 1e9 / frequency
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
        stamp = 0
        last: dict[str, _Value] = dict(part_init)
        for cycle, _, name, value in rows:
            if name in part_init and last[name] == value:
                continue  # a part's value is written only when it changes
            last[name] = value
            stamp = round(cycle * ns)
            w.change(var[name], stamp, value)
        w.close(max(round(end * ns), stamp))
    return path
