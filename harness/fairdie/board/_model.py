"""Board files: parse and validate the TOML, build the frozen :class:`Board`.

The schema is documented in the package docstring (:mod:`fairdie.board`).
Every problem is reported as a one-line :class:`~fairdie.errors.BoardError`
that starts with the file it came from.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fairdie._toml import loads, read_toml_text
from fairdie.board._analog import parse_analog
from fairdie.board._buttons import parse_buttons
from fairdie.board._fields import (
    Ctx,
    check_keys,
    get_int,
    get_str,
    led_names,
    port_pin,
    positive,
    table,
    terminal,
)
from fairdie.board._mcus import MCU_ADC_PINS, MCU_PINS
from fairdie.board._parts import (
    GND,
    INVALID,
    OFF,
    VCC,
    AnalogInput,
    Button,
    Display,
    Led,
)
from fairdie.errors import BoardError

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


_BOARD_KEYS = frozenset(
    {
        "name",
        "mcu",
        "f_cpu",
        "vcc_mv",
        "firmware",
        "variant",
        "persistence_ms",
        "led_ma",
        "scenarios",
    }
)
_TOP_KEYS = frozenset({"board", "led", "analog", "button", "display", "speaker"})
_LED_KEYS = frozenset({"name", "anode", "cathode", "x", "y", "series"})
_DISPLAY_KEYS = frozenset({"leds", "symbols"})
_SPEAKER_KEYS = frozenset({"pin"})


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
    #: the sections subjects add (``[die]``), parsed by them: (name, value) pairs
    sections: tuple[tuple[str, Any], ...] = ()
    firmware: str | None = None  #: build target name
    variant: str | None = None  #: build variant
    #: mA through one lit LED or series string (energy estimates only)
    led_ma: float = DEFAULT_LED_MA
    #: scenario files (``fairdie verify`` runs them), relative to :attr:`folder`
    scenarios: tuple[str, ...] = ()
    source: str = "<board>"  #: the file it came from

    def section(self, name: str) -> Any:
        """A subject's section of the board file, as its parser made it, or None."""
        return next((v for k, v in self.sections if k == name), None)

    @property
    def folder(self) -> Path | None:
        """The folder the board's relative paths start from (its file's), if any."""
        if self.source.endswith(" (shipped)"):
            return shipped_board_file(self.source.removesuffix(" (shipped)")).parent
        if self.source.startswith("<"):
            return None
        return Path(self.source).resolve().parent

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


def _simavr_may_model(mcu: str) -> bool:
    """Whether simavr models ``mcu``: asked of simavr itself, or assumed where
    the compiled binding is missing (the unit tier; no chip can run there)."""
    try:
        from fairdie.sim import simavr_models
    except ImportError:
        return True
    return simavr_models(mcu)


def _parse_header(ctx: Ctx, data: Mapping[str, Any]) -> dict[str, Any]:
    if "board" not in data:
        raise ctx.fail("", "missing [board] table")
    t = table(ctx, "[board]", data["board"])
    w = "[board]"
    check_keys(ctx, w, t, _BOARD_KEYS)
    name = get_str(ctx, w, t, "name", required=True)
    mcu = get_str(ctx, w, t, "mcu", required=True)
    assert name is not None and mcu is not None
    if mcu.lower() not in MCU_PINS and not _simavr_may_model(mcu.lower()):
        raise ctx.fail(w, f"mcu {mcu!r}: no such MCU (simavr has no model of it)")
    f_cpu = get_int(ctx, w, t, "f_cpu", required=True)
    assert f_cpu is not None
    lo, hi = F_CPU_RANGE
    if not lo <= f_cpu <= hi:
        raise ctx.fail(w, f"f_cpu must be a positive number of Hz in {lo}..{hi}, got {f_cpu}")
    vcc = get_int(ctx, w, t, "vcc_mv", required=True)
    assert vcc is not None
    lo, hi = VCC_RANGE_MV
    if not lo <= vcc <= hi:
        raise ctx.fail(w, f"vcc_mv {vcc} is outside {lo}..{hi} mV")
    persistence = positive(ctx, w, t, "persistence_ms", 20, MAX_PERSISTENCE_MS)
    return {
        "name": name,
        "mcu": mcu.lower(),
        "f_cpu": f_cpu,
        "vcc_mv": vcc,
        "persistence_ms": float(persistence),
        "firmware": get_str(ctx, w, t, "firmware", required=False),
        "variant": get_str(ctx, w, t, "variant", required=False),
        "led_ma": positive(ctx, w, t, "led_ma", DEFAULT_LED_MA, MAX_LED_MA),
        "scenarios": _scenario_files(ctx, w, t),
    }


def _scenario_files(ctx: Ctx, where: str, t: Mapping[str, Any]) -> tuple[str, ...]:
    files = t.get("scenarios", [])
    if not isinstance(files, list) or not all(isinstance(f, str) and f.strip() for f in files):
        raise ctx.fail(where, "scenarios must be a list of scenario file paths (TOML)")
    if len(set(files)) != len(files):
        raise ctx.fail(where, "scenarios names a file twice")
    return tuple(files)


def _parse_leds(ctx: Ctx, data: Mapping[str, Any], mcu: str) -> tuple[Led, ...]:
    raw = data.get("led", [])
    if not isinstance(raw, list):
        raise ctx.fail("led", "must be an array of tables ([[led]])")
    leds: list[Led] = []
    names: set[str] = set()
    pairs: dict[tuple[str, str], tuple[str, str | None]] = {}
    strings: dict[str, tuple[str, str, str]] = {}
    for i, item in enumerate(raw, 1):
        t = table(ctx, f"[[led]] #{i}", item)
        name = get_str(ctx, f"[[led]] #{i}", t, "name", required=True)
        assert name is not None
        w = f"led {name!r}"
        check_keys(ctx, w, t, _LED_KEYS)
        if name in names:
            raise ctx.fail(w, "duplicate LED name")
        names.add(name)
        a = get_str(ctx, w, t, "anode", required=True)
        c = get_str(ctx, w, t, "cathode", required=True)
        assert a is not None and c is not None
        anode = terminal(ctx, w, "anode", a, mcu, VCC)
        cathode = terminal(ctx, w, "cathode", c, mcu, GND)
        if anode == cathode:
            raise ctx.fail(w, f"anode and cathode are both {anode}")
        series = get_str(ctx, w, t, "series", required=False)
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
        x = get_int(ctx, w, t, "x", required=False)
        y = get_int(ctx, w, t, "y", required=False)
        if (x is None) != (y is None):
            raise ctx.fail(w, "give both x and y, or neither")
        if (x is not None and x < 0) or (y is not None and y < 0):
            raise ctx.fail(w, f"x and y must be >= 0, got ({x}, {y})")
        leds.append(Led(name, anode, cathode, x, y, series))
    return tuple(leds)


def _parse_displays(
    ctx: Ctx, data: Mapping[str, Any], leds: tuple[Led, ...]
) -> tuple[Display, ...]:
    raw = table(ctx, "[display]", data.get("display", {}))
    names = {led.name for led in leds}
    out: list[Display] = []
    for name, item in raw.items():
        w = f"display {name!r}"
        t = table(ctx, w, item)
        check_keys(ctx, w, t, _DISPLAY_KEYS)
        members = led_names(ctx, w, "leds", t.get("leds", [led.name for led in leds]), names)
        symbols_raw = table(ctx, f"{w}: symbols", t.get("symbols", {}))
        if not symbols_raw:
            raise ctx.fail(w, "no symbols: give [display.NAME.symbols] SYMBOL = [LED, ...]")
        symbols: dict[frozenset[str], str] = {}
        for symbol, lit in symbols_raw.items():
            if symbol in (INVALID,) or (symbol == OFF and lit):
                raise ctx.fail(w, f"symbol {symbol!r} is reserved")
            where = f"{w}: symbol {symbol!r}"
            leds_lit = frozenset(led_names(ctx, where, "LED", lit, names))
            outside = sorted(leds_lit - set(members))
            if outside:
                raise ctx.fail(where, f"LED {outside[0]!r} is not in the display's leds")
            if leds_lit in symbols:
                raise ctx.fail(where, f"lights the same LEDs as symbol {symbols[leds_lit]!r}")
            symbols[leds_lit] = symbol
        out.append(Display(name, tuple(members), symbols))
    return tuple(out)


def _parse_speaker(ctx: Ctx, data: Mapping[str, Any], mcu: str) -> str | None:
    if "speaker" not in data:
        return None
    t = table(ctx, "[speaker]", data["speaker"])
    check_keys(ctx, "[speaker]", t, _SPEAKER_KEYS)
    p = get_str(ctx, "[speaker]", t, "pin", required=True)
    assert p is not None
    return port_pin(ctx, "[speaker]", "pin", p, mcu)


def _parse_sections(ctx: Ctx, data: Mapping[str, Any], board: Board) -> Board:
    """The sections subjects add (fairdie.subjects), each parsed by its subject."""
    extra = sorted(set(data) - _TOP_KEYS)
    if not extra:
        return board
    from fairdie.subjects import board_sections, resolve

    known = board_sections()
    parsed = []
    for name in extra:
        if name not in known:
            allowed = ", ".join(sorted(_TOP_KEYS | set(known)))
            raise ctx.fail("", f"unknown key {name!r} (allowed: {allowed})")
        where = f"[{name}]"
        parsed.append((name, resolve(known[name][1])(ctx, table(ctx, where, data[name]), board)))
    return replace(board, sections=tuple(parsed))


def parse_board(data: Mapping[str, Any], *, source: str = "<board>") -> Board:
    """Validate a decoded board file (the dict :func:`tomllib.load` returns).

    ``source`` names the file in error messages. Raises :class:`BoardError`.
    """
    ctx = Ctx(source)
    head = _parse_header(ctx, data)
    mcu = head["mcu"]
    leds = _parse_leds(ctx, data, mcu)
    analog = parse_analog(ctx, data, mcu)
    # A button may share its pin with an analog input (a button read through
    # the ADC, or a noise pin the firmware also polls), and with LEDs it names.
    buttons = parse_buttons(ctx, data, mcu, leds)

    led_pins: dict[str, str] = {}
    for led in leds:
        for t in (led.anode, led.cathode):
            led_pins.setdefault(t, led.name)
    for a in analog:
        if a.pin in led_pins:
            raise ctx.fail(f"analog {a.name!r}", f"{a.pin} is also used by LED {led_pins[a.pin]!r}")
    displays = _parse_displays(ctx, data, leds)
    speaker = _parse_speaker(ctx, data, mcu)
    if speaker is not None:
        users = {**led_pins, **{b.pin: f"button {b.name!r}" for b in buttons if b.pin}}
        if speaker in users:
            user = users[speaker]
            user = user if user.startswith("button") else f"LED {user!r}"
            raise ctx.fail("[speaker]", f"{speaker} is also used by {user}")
    board = Board(
        leds=leds,
        analog=analog,
        buttons=buttons,
        displays=displays,
        speaker=speaker,
        source=source,
        **head,
    )
    return _parse_sections(ctx, data, board)


def _shipped() -> dict[str, Path]:
    """Board name -> file: every subject's ``boards/*.toml`` (the first of a name wins)."""
    from fairdie.subjects import board_folders

    found: dict[str, Path] = {}
    for folder in board_folders():
        for entry in sorted(os.listdir(folder)):  # as folder.glob("*.toml"), at a fifth the cost
            if entry.endswith(".toml") and not entry.startswith("."):  # as glob skips them
                f = folder / entry
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
    name = path_or_name.removesuffix(".toml") if isinstance(path_or_name, str) else ""
    shipped = _shipped() if isinstance(path_or_name, str) else {}  # a Path is a file
    # a name, unless a file (or a FIFO, a folder: refused as a board file) is there
    if isinstance(path_or_name, str) and not (
        Path(path_or_name).is_file() or (name not in shipped and os.path.lexists(path_or_name))
    ):
        if name not in shipped:
            if "/" in path_or_name or path_or_name.endswith(".toml"):
                raise BoardError(f"{path_or_name}: no such board file")
            raise BoardError(
                f"{path_or_name}: no such board file or shipped board"
                f" (shipped: {', '.join(sorted(shipped)) or 'none'})"
            )
        entry = shipped[name]
        source = f"{name}.toml (shipped)"
        try:
            text = entry.read_text(encoding="utf-8")
        except OSError as e:
            raise BoardError(f"{source}: cannot read: {e.strerror or e}") from None
    else:
        path = Path(path_or_name)
        source = str(path)
        text = read_toml_text(path, "board file", BoardError)
    from fairdie.subjects import board_sections

    return _parsed(text, source, tuple(board_sections().items()))


@functools.lru_cache(maxsize=64)
def _parsed(text: str, source: str, sections: tuple[tuple[str, Any], ...]) -> Board:
    """A board file parsed once per text, name and set of subjects' sections:
    the file is read (and checked) on every load, so an edited one is parsed
    again and a bad one, never kept, is refused every time (the game's board
    is 40 KB of TOML: 30 ms a parse). A Board is immutable.
    """
    return parse_board(loads(text, source, BoardError), source=source)
