"""Board files: parse and validate the TOML, build the frozen :class:`Board`.

The schema is documented in the package docstring (:mod:`fairdie.board`).
Every problem is reported as a one-line :class:`~fairdie.errors.BoardError`
that starts with the file it came from.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairdie.board._parts import (
    GND,
    INVALID,
    OFF,
    VCC,
    AnalogInput,
    Bounce,
    Button,
    DieSpec,
    Display,
    Led,
)
from fairdie.errors import BoardError
from fairdie.sim._types import parse_pin

__all__ = [
    "MCU_ADC_PINS",
    "MCU_PINS",
    "Board",
    "load_board",
    "parse_board",
    "shipped_board_file",
    "shipped_boards",
]

VCC_RANGE_MV = (1800, 5500)
#: the clocks the simulator runs (Hz), as ``--f-cpu`` takes them
F_CPU_RANGE = (1_000, 32_000_000)
#: the longest LED integration window (ms): an eye integrates over tens of ms
MAX_PERSISTENCE_MS = 1000.0
#: the current through one lit LED (or one lit series string) when the board
#: file gives no ``led_ma``: a red LED through about 560 ohm at 3 V. Only the
#: energy estimate (fairdie verify) reads it; the simulation does not.
DEFAULT_LED_MA = 2.0
#: the largest ``led_ma`` a board may give (an AVR pin's absolute maximum is 40 mA)
MAX_LED_MA = 40.0


def _pins(port: str, bits: range) -> frozenset[str]:
    return frozenset(f"P{port}{b}" for b in bits)


#: Port pins of the MCUs the board model knows. A board for any other MCU may
#: name any port pin (PA0..PZ7); the simulator then reports what is missing.
MCU_PINS: Mapping[str, frozenset[str]] = {
    "attiny13": _pins("B", range(6)),
    "attiny13a": _pins("B", range(6)),
    "attiny84": _pins("A", range(8)) | _pins("B", range(4)),
    "attiny84a": _pins("A", range(8)) | _pins("B", range(4)),
}

#: EEPROM bytes of the MCUs the board model knows (a [die] counters table must fit)
_MCU_EEPROM: Mapping[str, int] = {
    "attiny13": 64,
    "attiny13a": 64,
    "attiny84": 512,
    "attiny84a": 512,
}

_T13_ADC = {"PB5": 0, "PB2": 1, "PB4": 2, "PB3": 3}
_T84_ADC = {f"PA{i}": i for i in range(8)}

#: Single-ended ADC channel of each analog-capable pin of the known MCUs.
MCU_ADC_PINS: Mapping[str, Mapping[str, int]] = {
    "attiny13": _T13_ADC,
    "attiny13a": _T13_ADC,
    "attiny84": _T84_ADC,
    "attiny84a": _T84_ADC,
}

_BOARD_KEYS = frozenset(
    {"name", "mcu", "f_cpu", "vcc_mv", "firmware", "variant", "persistence_ms", "led_ma"}
)
_TOP_KEYS = frozenset({"board", "led", "analog", "button", "display", "speaker", "die"})
_LED_KEYS = frozenset({"name", "anode", "cathode", "x", "y", "series"})
_ANALOG_KEYS = frozenset({"pin", "channel"})
_BUTTON_KEYS = frozenset({"name", "kind", "pin", "active", "pull", "bounce"})
_BOUNCE_KEYS = frozenset({"count", "spacing_us"})
_DISPLAY_KEYS = frozenset({"leds", "symbols"})
_SPEAKER_KEYS = frozenset({"pin"})
_DIE_KEYS = frozenset({"roll", "display", "counters", "settle_ms"})
_PULLS = ("chip", "up", "down", "none")
_MAX_BOUNCES = 100
_SETTLE_MS = 50.0
_BUTTON_KINDS = ("input", "power")
_ACTIVE_LEVELS = ("low", "high")


@dataclass(frozen=True, slots=True)
class Board:
    """The wiring of one board, as read from a board file."""

    name: str
    mcu: str
    f_cpu: int  #: Hz
    vcc_mv: int
    persistence_ms: float  #: the window over which LED light is integrated
    leds: tuple[Led, ...]
    analog: tuple[AnalogInput, ...] = ()
    buttons: tuple[Button, ...] = ()
    displays: tuple[Display, ...] = ()
    speaker: str | None = None  #: the pin a speaker hangs on
    die: DieSpec | None = None  #: how it rolls and reads as a die, if it is one
    firmware: str | None = None  #: build target name
    variant: str | None = None  #: build variant
    #: mA through one lit LED or series string (energy estimates only)
    led_ma: float = DEFAULT_LED_MA
    source: str = "<board>"  #: the file it came from

    @property
    def persistence_cycles(self) -> int:
        """The persistence window in CPU cycles at the board's clock (at least 1)."""
        return self.persistence_cycles_at(self.f_cpu)

    def persistence_cycles_at(self, f_cpu: int) -> int:
        """The persistence window in cycles of a chip clocked at ``f_cpu`` (at least 1)."""
        return max(1, round(f_cpu * self.persistence_ms / 1000))

    @property
    def led_names(self) -> tuple[str, ...]:
        return tuple(led.name for led in self.leds)

    def led(self, name: str) -> Led:
        for led in self.leds:
            if led.name == name:
                return led
        raise KeyError(f"board {self.name!r} has no LED {name!r}")

    def analog_input(self, name: str) -> AnalogInput:
        for a in self.analog:
            if a.name == name:
                return a
        raise KeyError(f"board {self.name!r} has no analog input {name!r}")

    def button(self, name: str) -> Button:
        for b in self.buttons:
            if b.name == name:
                return b
        raise KeyError(f"board {self.name!r} has no button {name!r}")

    def display(self, name: str) -> Display:
        for d in self.displays:
            if d.name == name:
                return d
        raise KeyError(f"board {self.name!r} has no display {name!r}")

    @property
    def input_buttons(self) -> tuple[Button, ...]:
        """The buttons on a pin (every one but the power switch)."""
        return tuple(b for b in self.buttons if b.kind == "input")

    @property
    def power_button(self) -> Button | None:
        """The supply switch, if the board has one."""
        return next((b for b in self.buttons if b.kind == "power"), None)

    @property
    def led_drive(self) -> str | None:
        """How the LEDs are wired, so how firmware must drive them: ``"direct"``
        (each between a port pin and a rail), ``"charlieplex"`` (each between
        two port pins), ``"mixed"``, or None without LEDs."""
        railed = [
            VCC in (led.anode, led.cathode) or GND in (led.anode, led.cathode) for led in self.leds
        ]
        if not railed:
            return None
        if all(railed):
            return "direct"
        return "mixed" if any(railed) else "charlieplex"

    @property
    def led_pins(self) -> frozenset[str]:
        """Every port pin an LED is connected to."""
        return frozenset(t for led in self.leds for t in (led.anode, led.cathode)) - {VCC, GND}


# ---- parsing ------------------------------------------------------------------------


class _Ctx:
    """Where we are in the file, for one-line error messages."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> BoardError:
        msg = f"{self.source}: {where}: {problem}" if where else f"{self.source}: {problem}"
        return BoardError(" ".join(msg.split()))


def _table(ctx: _Ctx, where: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ctx.fail(where, f"expected a table, got {type(value).__name__}")
    return value


def _check_keys(ctx: _Ctx, where: str, table: Mapping[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ctx.fail(where, f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")


def _str(
    ctx: _Ctx, where: str, table: Mapping[str, Any], key: str, *, required: bool
) -> str | None:
    if key not in table:
        if required:
            raise ctx.fail(where, f"missing key {key!r}")
        return None
    v = table[key]
    if not isinstance(v, str) or not v.strip():
        raise ctx.fail(where, f"{key} must be a non-empty string, got {v!r}")
    return v.strip()


def _int(
    ctx: _Ctx, where: str, table: Mapping[str, Any], key: str, *, required: bool
) -> int | None:
    if key not in table:
        if required:
            raise ctx.fail(where, f"missing key {key!r}")
        return None
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.fail(where, f"{key} must be an integer, got {v!r}")
    return v


def _positive(
    ctx: _Ctx, where: str, table: Mapping[str, Any], key: str, default: float, hi: float = math.inf
) -> float:
    """A finite number in (0, hi], ``default`` when the key is absent."""
    v: object = table.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        v = None
    if v is None or not 0 < v <= hi:
        bound = "a positive number" + ("" if hi == math.inf else f" up to {hi:g}")
        raise ctx.fail(where, f"{key} must be {bound}, got {table.get(key)!r}")
    return float(v)


def _pin(ctx: _Ctx, where: str, key: str, value: str, mcu: str) -> str:
    try:
        port, bit = parse_pin(value)
    except ValueError:
        raise ctx.fail(where, f"{key} {value!r} is not a pin name such as PB3") from None
    pin = f"P{port}{bit}"
    known = MCU_PINS.get(mcu)
    if known is not None and pin not in known:
        raise ctx.fail(where, f"{key} {pin} is not a pin of the {mcu} ({_describe(known)})")
    return pin


def _describe(pins: frozenset[str]) -> str:
    ports: dict[str, list[int]] = {}
    for p in pins:
        ports.setdefault(p[1], []).append(int(p[2]))
    return ", ".join(f"P{port}{min(b)}-P{port}{max(b)}" for port, b in sorted(ports.items()))


def _terminal(ctx: _Ctx, where: str, key: str, value: str, mcu: str, rail: str) -> str:
    if value.upper() in (VCC, GND):
        if value.upper() != rail:
            raise ctx.fail(where, f"{key} {value!r} must be a pin or {rail}")
        return rail
    return _pin(ctx, where, key, value, mcu)


def _parse_header(ctx: _Ctx, data: Mapping[str, Any]) -> dict[str, Any]:
    if "board" not in data:
        raise ctx.fail("", "missing [board] table")
    t = _table(ctx, "[board]", data["board"])
    w = "[board]"
    _check_keys(ctx, w, t, _BOARD_KEYS)
    name = _str(ctx, w, t, "name", required=True)
    mcu = _str(ctx, w, t, "mcu", required=True)
    assert name is not None and mcu is not None
    f_cpu = _int(ctx, w, t, "f_cpu", required=True)
    assert f_cpu is not None
    lo, hi = F_CPU_RANGE
    if not lo <= f_cpu <= hi:
        raise ctx.fail(w, f"f_cpu must be a positive number of Hz in {lo}..{hi}, got {f_cpu}")
    vcc = _int(ctx, w, t, "vcc_mv", required=True)
    assert vcc is not None
    lo, hi = VCC_RANGE_MV
    if not lo <= vcc <= hi:
        raise ctx.fail(w, f"vcc_mv {vcc} is outside {lo}..{hi} mV")
    persistence = _positive(ctx, w, t, "persistence_ms", 20, MAX_PERSISTENCE_MS)
    return {
        "name": name,
        "mcu": mcu.lower(),
        "f_cpu": f_cpu,
        "vcc_mv": vcc,
        "persistence_ms": float(persistence),
        "firmware": _str(ctx, w, t, "firmware", required=False),
        "variant": _str(ctx, w, t, "variant", required=False),
        "led_ma": _positive(ctx, w, t, "led_ma", DEFAULT_LED_MA, MAX_LED_MA),
    }


def _parse_leds(ctx: _Ctx, data: Mapping[str, Any], mcu: str) -> tuple[Led, ...]:
    raw = data.get("led", [])
    if not isinstance(raw, list):
        raise ctx.fail("led", "must be an array of tables ([[led]])")
    leds: list[Led] = []
    names: set[str] = set()
    pairs: dict[tuple[str, str], tuple[str, str | None]] = {}
    strings: dict[str, tuple[str, str, str]] = {}
    for i, item in enumerate(raw, 1):
        t = _table(ctx, f"[[led]] #{i}", item)
        name = _str(ctx, f"[[led]] #{i}", t, "name", required=True)
        assert name is not None
        w = f"led {name!r}"
        _check_keys(ctx, w, t, _LED_KEYS)
        if name in names:
            raise ctx.fail(w, "duplicate LED name")
        names.add(name)
        a = _str(ctx, w, t, "anode", required=True)
        c = _str(ctx, w, t, "cathode", required=True)
        assert a is not None and c is not None
        anode = _terminal(ctx, w, "anode", a, mcu, VCC)
        cathode = _terminal(ctx, w, "cathode", c, mcu, GND)
        if anode == cathode:
            raise ctx.fail(w, f"anode and cathode are both {anode}")
        series = _str(ctx, w, t, "series", required=False)
        # Two LEDs between the same two pins light together: a series string
        # the board declares, or else a typo in a charlieplex table. LEDs
        # sharing a pin and a rail are a direct-drive group lit together (the
        # die's B, C, D) and are allowed.
        if series is not None:
            first = strings.setdefault(series, (anode, cathode, name))
            if first[:2] != (anode, cathode):
                raise ctx.fail(
                    w,
                    f"series {series!r} runs {first[0]}->{first[1]} (LED {first[2]!r}),"
                    f" not {anode}->{cathode}: LEDs in series share both ends",
                )
        if anode not in (VCC, GND) and cathode not in (VCC, GND):
            other_name, other_series = pairs.setdefault((anode, cathode), (name, series))
            if other_name != name and (series is None or series != other_series):
                raise ctx.fail(
                    w,
                    f"{anode}->{cathode} is already LED {other_name!r}"
                    " (LEDs in series on one pin pair name the same series)",
                )
        x = _int(ctx, w, t, "x", required=False)
        y = _int(ctx, w, t, "y", required=False)
        if (x is None) != (y is None):
            raise ctx.fail(w, "give both x and y, or neither")
        if (x is not None and x < 0) or (y is not None and y < 0):
            raise ctx.fail(w, f"x and y must be >= 0, got ({x}, {y})")
        leds.append(Led(name, anode, cathode, x, y, series))
    return tuple(leds)


def _parse_analog(ctx: _Ctx, data: Mapping[str, Any], mcu: str) -> tuple[AnalogInput, ...]:
    raw = _table(ctx, "[analog]", data.get("analog", {}))
    out: list[AnalogInput] = []
    pins: dict[str, str] = {}
    for name, item in raw.items():
        w = f"analog {name!r}"
        t = _table(ctx, w, item)
        _check_keys(ctx, w, t, _ANALOG_KEYS)
        p = _str(ctx, w, t, "pin", required=True)
        assert p is not None
        pin = _pin(ctx, w, "pin", p, mcu)
        channel = _int(ctx, w, t, "channel", required=True)
        assert channel is not None
        if not 0 <= channel <= 15:
            raise ctx.fail(w, f"channel {channel} is outside 0..15")
        adc = MCU_ADC_PINS.get(mcu)
        if adc is not None and adc.get(pin) != channel:
            real = f"ADC{adc[pin]}" if pin in adc else "no ADC input"
            raise ctx.fail(w, f"{pin} is {real} on the {mcu}, not channel {channel}")
        if pin in pins:
            raise ctx.fail(w, f"{pin} is already analog input {pins[pin]!r}")
        pins[pin] = name
        out.append(AnalogInput(name, pin, channel))
    return tuple(out)


def _parse_buttons(ctx: _Ctx, data: Mapping[str, Any], mcu: str) -> tuple[Button, ...]:
    raw = data.get("button", [])
    if not isinstance(raw, list):
        raise ctx.fail("button", "must be an array of tables ([[button]])")
    out: list[Button] = []
    names: set[str] = set()
    pins: dict[str, str] = {}
    for i, item in enumerate(raw, 1):
        t = _table(ctx, f"[[button]] #{i}", item)
        name = _str(ctx, f"[[button]] #{i}", t, "name", required=True)
        assert name is not None
        w = f"button {name!r}"
        _check_keys(ctx, w, t, _BUTTON_KEYS)
        if name in names:
            raise ctx.fail(w, "duplicate button name")
        names.add(name)
        kind = _str(ctx, w, t, "kind", required=False) or "input"
        if kind not in _BUTTON_KINDS:
            raise ctx.fail(w, f"kind {kind!r} is not one of {', '.join(_BUTTON_KINDS)}")
        p = _str(ctx, w, t, "pin", required=False)
        active = _str(ctx, w, t, "active", required=False)
        if kind == "power":
            if any(k in t for k in ("pin", "active", "pull", "bounce")):
                raise ctx.fail(
                    w,
                    "a power button is the supply switch: no pin, active, pull or bounce",
                )
            if any(b.kind == "power" for b in out):
                raise ctx.fail(w, "a board has at most one power button")
            out.append(Button(name, kind))
            continue
        if p is None:
            raise ctx.fail(w, "missing key 'pin'")
        pin = _pin(ctx, w, "pin", p, mcu)
        active = (active or "low").lower()
        if active not in _ACTIVE_LEVELS:
            raise ctx.fail(w, f"active {active!r} is not one of {', '.join(_ACTIVE_LEVELS)}")
        if pin in pins:
            raise ctx.fail(w, f"{pin} is already button {pins[pin]!r}")
        pins[pin] = name
        pull = _pull(ctx, w, t, active)
        out.append(Button(name, kind, pin, active, pull, _bounce(ctx, w, t)))
    return tuple(out)


def _pull(ctx: _Ctx, where: str, t: Mapping[str, Any], active: str) -> str:
    """What holds a released button's pin; a pull towards the active level is a
    wiring mistake (the button would read pressed all the time)."""
    pull = (_str(ctx, where, t, "pull", required=False) or "").lower()
    if not pull:
        return "chip" if active == "low" else "down"
    if pull not in _PULLS:
        raise ctx.fail(where, f"pull {pull!r} is not one of {', '.join(_PULLS)}")
    towards = {"chip": "high", "up": "high", "down": "low"}.get(pull)
    if towards is not None and towards == active:
        raise ctx.fail(
            where,
            f"pull {pull!r} holds the pin {towards}, its active level:"
            " the button would read pressed while released",
        )
    return pull


def _bounce(ctx: _Ctx, where: str, t: Mapping[str, Any]) -> Bounce:
    if "bounce" not in t:
        return Bounce()
    b = _table(ctx, f"{where}: bounce", t["bounce"])
    _check_keys(ctx, f"{where}: bounce", b, _BOUNCE_KEYS)
    count = _int(ctx, f"{where}: bounce", b, "count", required=True)
    assert count is not None
    if not 0 <= count <= _MAX_BOUNCES:
        raise ctx.fail(where, f"bounce count {count} is outside 0..{_MAX_BOUNCES}")
    return Bounce(count, _positive(ctx, f"{where}: bounce", b, "spacing_us", 500, 1e6))


def _parse_displays(
    ctx: _Ctx, data: Mapping[str, Any], leds: tuple[Led, ...]
) -> tuple[Display, ...]:
    raw = _table(ctx, "[display]", data.get("display", {}))
    names = {led.name for led in leds}
    out: list[Display] = []
    for name, item in raw.items():
        w = f"display {name!r}"
        t = _table(ctx, w, item)
        _check_keys(ctx, w, t, _DISPLAY_KEYS)
        members = _names(ctx, w, "leds", t.get("leds", [led.name for led in leds]), names)
        symbols_raw = _table(ctx, f"{w}: symbols", t.get("symbols", {}))
        if not symbols_raw:
            raise ctx.fail(w, "no symbols: give [display.NAME.symbols] SYMBOL = [LED, ...]")
        symbols: dict[frozenset[str], str] = {}
        for symbol, lit in symbols_raw.items():
            if symbol in (INVALID,) or (symbol == OFF and lit):
                raise ctx.fail(w, f"symbol {symbol!r} is reserved")
            where = f"{w}: symbol {symbol!r}"
            leds_lit = frozenset(_names(ctx, where, "LED", lit, names))
            outside = sorted(leds_lit - set(members))
            if outside:
                raise ctx.fail(where, f"LED {outside[0]!r} is not in the display's leds")
            if leds_lit in symbols:
                raise ctx.fail(where, f"lights the same LEDs as symbol {symbols[leds_lit]!r}")
            symbols[leds_lit] = symbol
        out.append(Display(name, tuple(members), symbols))
    return tuple(out)


def _names(ctx: _Ctx, where: str, what: str, value: object, known: set[str]) -> list[str]:
    """A list of LED names, each known and none twice."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ctx.fail(where, f"{what}: expected a list of LED names, got {value!r}")
    seen: set[str] = set()
    for v in value:
        if v not in known:
            raise ctx.fail(where, f"no LED named {v!r}")
        if v in seen:
            raise ctx.fail(where, f"LED {v!r} is listed twice")
        seen.add(v)
    return list(value)


def _parse_speaker(ctx: _Ctx, data: Mapping[str, Any], mcu: str) -> str | None:
    if "speaker" not in data:
        return None
    t = _table(ctx, "[speaker]", data["speaker"])
    _check_keys(ctx, "[speaker]", t, _SPEAKER_KEYS)
    p = _str(ctx, "[speaker]", t, "pin", required=True)
    assert p is not None
    return _pin(ctx, "[speaker]", "pin", p, mcu)


def _parse_die(
    ctx: _Ctx,
    data: Mapping[str, Any],
    mcu: str,
    buttons: tuple[Button, ...],
    displays: tuple[Display, ...],
) -> DieSpec | None:
    if "die" not in data:
        return None
    w = "[die]"
    t = _table(ctx, w, data["die"])
    _check_keys(ctx, w, t, _DIE_KEYS)
    roll = _str(ctx, w, t, "roll", required=False)
    if roll is not None and roll not in {b.name for b in buttons}:
        raise ctx.fail(w, f"roll {roll!r} is not a button of this board")
    display = _str(ctx, w, t, "display", required=False)
    if display is not None and display not in {d.name for d in displays}:
        raise ctx.fail(w, f"display {display!r} is not a display of this board")
    counters = _int(ctx, w, t, "counters", required=False)
    if counters is not None and not 0 <= counters <= 0xFFFF - 5:
        raise ctx.fail(w, f"counters {counters} is not an EEPROM address")
    size = _MCU_EEPROM.get(mcu)
    if counters is not None and size is not None and counters + 6 > size:
        raise ctx.fail(
            w,
            f"counters at {counters}: six counters from there overrun the {mcu}'s {size}"
            " bytes of EEPROM",
        )
    settle = _positive(ctx, w, t, "settle_ms", _SETTLE_MS, 60_000)
    return DieSpec(roll, display, counters, settle)


def parse_board(data: Mapping[str, Any], *, source: str = "<board>") -> Board:
    """Validate a decoded board file (the dict :func:`tomllib.load` returns).

    ``source`` names the file in error messages. Raises :class:`BoardError`.
    """
    ctx = _Ctx(source)
    _check_keys(ctx, "", data, _TOP_KEYS)
    head = _parse_header(ctx, data)
    mcu = head["mcu"]
    leds = _parse_leds(ctx, data, mcu)
    analog = _parse_analog(ctx, data, mcu)
    buttons = _parse_buttons(ctx, data, mcu)

    led_pins: dict[str, str] = {}
    for led in leds:
        for t in (led.anode, led.cathode):
            led_pins.setdefault(t, led.name)
    for a in analog:
        if a.pin in led_pins:
            raise ctx.fail(f"analog {a.name!r}", f"{a.pin} is also used by LED {led_pins[a.pin]!r}")
    # A button may share its pin with an analog input (a button read through
    # the ADC, or a noise pin the firmware also polls); not with an LED.
    for b in buttons:
        if b.pin is not None and b.pin in led_pins:
            raise ctx.fail(f"button {b.name!r}", f"{b.pin} is also used by LED {led_pins[b.pin]!r}")
    displays = _parse_displays(ctx, data, leds)
    speaker = _parse_speaker(ctx, data, mcu)
    if speaker is not None:
        users = {**led_pins, **{b.pin: f"button {b.name!r}" for b in buttons if b.pin}}
        if speaker in users:
            user = users[speaker]
            user = user if user.startswith("button") else f"LED {user!r}"
            raise ctx.fail("[speaker]", f"{speaker} is also used by {user}")
    return Board(
        leds=leds,
        analog=analog,
        buttons=buttons,
        displays=displays,
        speaker=speaker,
        die=_parse_die(ctx, data, mcu, buttons, displays),
        source=source,
        **head,
    )


def _shipped() -> dict[str, Path]:
    """Board name -> file: every subject's ``boards/*.toml`` (the first of a name wins)."""
    from fairdie.subjects import board_folders

    found: dict[str, Path] = {}
    for folder in board_folders():
        for f in sorted(folder.glob("*.toml")):
            found.setdefault(f.stem, f)
    return found


def shipped_boards() -> tuple[str, ...]:
    """Names of the board files shipped with fairdie's subjects (``"die-direct"``, ...)."""
    return tuple(sorted(_shipped()))


def shipped_board_file(name: str) -> Path:
    """The file of the shipped board ``name``; raises :class:`BoardError`."""
    found = _shipped().get(name.removesuffix(".toml"))
    if found is None:
        raise BoardError(f"{name}: no shipped board (shipped: {', '.join(shipped_boards())})")
    return found


def load_board(path_or_name: str | Path) -> Board:
    """Load a board file from a path, or a shipped board by name (``"die-direct"``).

    A string that names an existing file is a path; otherwise it must be the
    name of a shipped board. Raises :class:`BoardError`.
    """
    if isinstance(path_or_name, str) and not Path(path_or_name).is_file():
        name = path_or_name.removesuffix(".toml")
        shipped = shipped_boards()
        if name not in shipped:
            if Path(path_or_name).exists():
                raise BoardError(f"{path_or_name}: not a board file (a directory or a device)")
            if "/" in path_or_name or path_or_name.endswith(".toml"):
                raise BoardError(f"{path_or_name}: no such board file")
            raise BoardError(
                f"{path_or_name}: no such board file or shipped board"
                f" (shipped: {', '.join(shipped) or 'none'})"
            )
        entry = shipped_board_file(name)
        source = f"{name}.toml (shipped)"
        try:
            text = entry.read_text(encoding="utf-8")
        except OSError as e:
            raise BoardError(f"{source}: cannot read: {e.strerror or e}") from None
    else:
        path = Path(path_or_name)
        source = str(path)
        if path.exists() and not path.is_file():
            raise BoardError(f"{source}: not a board file (a directory or a device)")
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BoardError(f"{source}: no such board file") from None
        except UnicodeDecodeError:
            raise BoardError(f"{source}: not a board file (not UTF-8 text)") from None
        except OSError as e:
            raise BoardError(f"{source}: cannot read: {e.strerror or e}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BoardError(" ".join(f"{source}: not valid TOML: {e}".split())) from None
    return parse_board(data, source=source)
