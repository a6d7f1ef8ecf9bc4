"""Scenario files: read the TOML, check every key, build the :class:`Scenario`.

The schema is in the package docstring (:mod:`fairdie.scenario`). Every
mistake is one :class:`ScenarioError` line naming the file, the step number
(or ``[scenario]``) and the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairdie._cmdline import MAX_SEED
from fairdie._toml import read_toml
from fairdie.scenario._model import (
    EVENTS,
    Action,
    Analog,
    Check,
    Duration,
    Expect,
    Power,
    Press,
    Release,
    Scenario,
    ScenarioError,
    Step,
    ToneExpect,
    Wait,
    WaitUntil,
    step_error,
)
from fairdie.sim import SLEEP_MODES, canonical_sleep_mode, parse_pin

__all__ = ["SLEEP_MODES", "load_scenario", "parse_scenario"]

_TOP_KEYS = ("scenario", "step")
_HEAD_KEYS = ("name", "firmware", "board", "seed", "powered")
_ACTIONS = ("power", "press", "release", "analog", "wait", "until")
_STEP_KEYS = (*_ACTIONS, "name", "hold", "timeout", "expect")
_EXPECT_KEYS = ("leds", "display", "tone", "pins", "eeprom", "sleep", "quiet")
_STATE_KEYS = ("leds", "display", "pins")  # what a step may wait until
_DEFAULT_TIMEOUT = Duration(1, "s")
_POWER = {"on": True, "off": False, "cut": False}
_LEVELS = {"high": True, "low": False, "1": True, "0": False}


class _Where:
    """The file and the step being read, for one-line messages."""

    def __init__(self, source: str, step: int | None) -> None:
        self.source, self.step = source, step

    def fail(self, key: str, problem: str) -> ScenarioError:
        return step_error(self.source, self.step, key, problem)


def _keys(w: _Where, key: str, table: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise w.fail(
            f"{key}.{unknown[0]}" if key else unknown[0],
            f"unknown key (allowed: {', '.join(allowed)})",
        )


def _table(w: _Where, key: str, v: object) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise w.fail(key, f"expected a table, got {v!r}")
    return v


def _text(w: _Where, key: str, v: object) -> str:
    if not isinstance(v, str) or not v.strip():
        raise w.fail(key, f"expected a non-empty string, got {v!r}")
    return v.strip()


def _time(w: _Where, key: str, v: object) -> Duration:
    if not isinstance(v, str):
        raise w.fail(key, f"expected a time with its unit such as '250ms', got {v!r}")
    try:
        return Duration.parse(v)
    except ValueError as e:
        raise w.fail(key, str(e)) from None


def _number(w: _Where, key: str, v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise w.fail(key, f"expected a number, got {v!r}")
    return float(v)


def _byte_list(w: _Where, key: str, v: object) -> bytes:
    values = v if isinstance(v, list) else [v]
    out = [b for b in values if isinstance(b, int) and not isinstance(b, bool) and 0 <= b <= 255]
    if not values or len(out) != len(values):
        raise w.fail(key, f"expected bytes 0..255 (a number or a list), got {v!r}")
    return bytes(out)


def _parse_head(source: str, data: Mapping[str, Any]) -> dict[str, Any]:
    w = _Where(source, None)
    t = _table(w, "scenario", data.get("scenario", {}))
    _keys(w, "", t, _HEAD_KEYS)
    out: dict[str, Any] = {}
    for key in ("name", "firmware", "board"):
        if key in t:
            out[key] = _text(w, key, t[key])
    if "seed" in t:
        s = t["seed"]
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s <= MAX_SEED:
            raise w.fail("seed", f"expected a whole number 0..{MAX_SEED}, got {s!r}")
        out["seed"] = s
    if "powered" in t:
        if not isinstance(t["powered"], bool):
            raise w.fail("powered", f"expected true or false, got {t['powered']!r}")
        out["powered"] = t["powered"]
    return out


def _parse_tone(w: _Where, v: object) -> ToneExpect:
    key = "expect.tone"
    if v == "none":
        return ToneExpect(None)
    if not isinstance(v, Mapping):
        hz = _number(w, key, v)
        if hz <= 0:
            raise w.fail(key, f"expected a frequency in Hz above 0 or 'none', got {v!r}")
        return ToneExpect(hz)
    _keys(w, key, v, ("hz", "tolerance"))
    if "hz" not in v:
        raise w.fail(key, "missing key 'hz'")
    hz = _number(w, f"{key}.hz", v["hz"])
    if hz <= 0:
        raise w.fail(f"{key}.hz", f"expected a frequency above 0, got {v['hz']!r}")
    tol: object = v.get("tolerance", "1%")
    if isinstance(tol, str) and tol.strip().endswith("%"):
        try:
            pct = float(tol.strip()[:-1])
        except ValueError:
            pct = -1.0
        if not 0 <= pct < 100:
            raise w.fail(f"{key}.tolerance", f"expected a percentage such as '2%', got {tol!r}")
        return ToneExpect(hz, pct / 100, relative=True)
    within = _number(w, f"{key}.tolerance", tol)
    if within < 0:
        raise w.fail(f"{key}.tolerance", f"expected Hz >= 0 or a percentage, got {tol!r}")
    return ToneExpect(hz, within, relative=False)


def _parse_eeprom(w: _Where, v: object) -> tuple[tuple[int, bytes], ...]:
    items = v if isinstance(v, list) else [v]
    out: list[tuple[int, bytes]] = []
    for i, item in enumerate(items, 1):
        key = "expect.eeprom" + (f" #{i}" if isinstance(v, list) else "")
        t = _table(w, key, item)
        _keys(w, key, t, ("address", "bytes"))
        for k in ("address", "bytes"):
            if k not in t:
                raise w.fail(key, f"missing key {k!r}")
        a = t["address"]
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a <= 0xFFFF:
            raise w.fail(f"{key}.address", f"expected an EEPROM address, got {a!r}")
        out.append((a, _byte_list(w, f"{key}.bytes", t["bytes"])))
    return tuple(out)


def _parse_expect(
    w: _Where, key: str, v: object, allowed: tuple[str, ...] = _EXPECT_KEYS
) -> Expect:
    t = _table(w, key, v)
    _keys(w, key, t, allowed)
    if not t:
        raise w.fail(key, f"empty: give one of {', '.join(allowed)}")
    out: dict[str, Any] = {}
    if "leds" in t:
        leds = t["leds"]
        if not isinstance(leds, list) or not all(isinstance(n, str) for n in leds):
            raise w.fail(f"{key}.leds", f"expected a list of LED names, got {leds!r}")
        out["leds"] = frozenset(leds)
    if "display" in t:
        shown = _table(w, f"{key}.display", t["display"])
        if not shown:
            raise w.fail(f"{key}.display", "empty: give DISPLAY = SYMBOL")
        pairs = []
        for d, s in shown.items():
            if isinstance(s, bool) or not isinstance(s, str | int):
                raise w.fail(f"{key}.display.{d}", f"expected a symbol, got {s!r}")
            pairs.append((d, str(s)))
        out["display"] = tuple(pairs)
    if "pins" in t:
        pins = _table(w, f"{key}.pins", t["pins"])
        levels = []
        for p, lv in pins.items():
            try:
                port, bit = parse_pin(p)
            except ValueError as e:
                raise w.fail(f"{key}.pins.{p}", str(e)) from None
            level = _LEVELS.get(str(lv).lower()) if not isinstance(lv, bool | float) else None
            if level is None:
                raise w.fail(f"{key}.pins.{p}", f"expected 'high' or 'low', got {lv!r}")
            levels.append((f"P{port}{bit}", level))
        out["pins"] = tuple(levels)
    if "tone" in t:
        out["tone"] = _parse_tone(w, t["tone"])
    if "eeprom" in t:
        out["eeprom"] = _parse_eeprom(w, t["eeprom"])
    if "sleep" in t:
        s = t["sleep"]
        mode = canonical_sleep_mode(s) if isinstance(s, str) else None
        if not isinstance(s, bool) and mode is None:
            modes = ", ".join(sorted(SLEEP_MODES))
            raise w.fail(f"{key}.sleep", f"expected true, false or a mode ({modes}), got {s!r}")
        out["sleep"] = s if isinstance(s, bool) else mode
    if "quiet" in t:
        if not isinstance(t["quiet"], bool):
            raise w.fail(f"{key}.quiet", f"expected true or false, got {t['quiet']!r}")
        out["quiet"] = t["quiet"]
    return Expect(**out)


def _parse_action(w: _Where, t: Mapping[str, Any]) -> Action:
    given = [k for k in _ACTIONS if k in t]
    if len(given) > 1:
        raise w.fail(given[1], f"a step does one thing: it already has {given[0]!r}")
    kind = given[0] if given else None
    for extra, owner in (("hold", "press"), ("timeout", "until")):
        if extra in t and kind != owner:
            raise w.fail(extra, f"goes with {owner!r}")
    v = t.get(kind or "")
    if kind == "power":
        on = _POWER.get(str(v).lower()) if isinstance(v, str) else None
        if on is None:
            raise w.fail("power", f"expected 'on', 'off' or 'cut', got {v!r}")
        return Power(on)
    if kind == "press":
        hold = _time(w, "hold", t["hold"]) if "hold" in t else None
        return Press(_text(w, "press", v), hold)
    if kind == "release":
        return Release(_text(w, "release", v))
    if kind == "analog":
        inputs = _table(w, "analog", v)
        if not inputs:
            raise w.fail("analog", "empty: give INPUT = MILLIVOLTS")
        pairs = []
        for name, mv in inputs.items():
            volts = _number(w, f"analog.{name}", mv)
            if not 0 <= volts <= 65535:
                raise w.fail(f"analog.{name}", f"{mv!r} mV is out of range (0..65535)")
            pairs.append((name, volts))
        return Analog(tuple(pairs))
    if kind == "wait":
        return Wait(_time(w, "wait", v))
    if kind == "until":
        timeout = _time(w, "timeout", t["timeout"]) if "timeout" in t else _DEFAULT_TIMEOUT
        if isinstance(v, str):
            if v not in EVENTS:
                raise w.fail(
                    "until", f"unknown event {v!r} (events: {', '.join(EVENTS)}, or a table)"
                )
            return WaitUntil(v, None, timeout)
        return WaitUntil(None, _parse_expect(w, "until", v, _STATE_KEYS), timeout)
    return Check()


def _parse_step(source: str, number: int, item: object) -> Step:
    w = _Where(source, number)
    t = _table(w, "step", item)
    _keys(w, "", t, _STEP_KEYS)
    action = _parse_action(w, t)
    expect = _parse_expect(w, "expect", t["expect"]) if "expect" in t else Expect()
    if isinstance(action, Check) and expect.empty:
        raise w.fail("step", f"does nothing: give one of {', '.join(_ACTIONS)} or expect")
    name = _text(w, "name", t["name"]) if "name" in t else None
    return Step(number, action, expect, name)


def parse_scenario(data: Mapping[str, Any], *, source: str, base: Path) -> Scenario:
    """Check a decoded scenario file (``tomllib``'s dict); ``base`` is the folder
    its relative paths start from. Raises :class:`ScenarioError`."""
    w = _Where(source, None)
    unknown = sorted(set(data) - set(_TOP_KEYS))
    if unknown:
        raise ScenarioError(
            f"{source}: unknown table {unknown[0]!r} (allowed: [scenario], [[step]])"
        )
    raw = data.get("step")
    if not isinstance(raw, list) or not raw:
        raise w.fail("step", "no steps: give at least one [[step]]")
    head = _parse_head(source, data)
    steps = tuple(_parse_step(source, i, item) for i, item in enumerate(raw, 1))
    return Scenario(source=source, steps=steps, base=base, **head)


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file. Raises :class:`ScenarioError`."""
    p = Path(path)
    source = str(p)
    data = read_toml(p, "scenario file", ScenarioError)
    return parse_scenario(data, source=source, base=p.resolve().parent)
