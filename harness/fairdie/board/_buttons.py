"""The ``[[button]]`` tables of a board file: pins, levels, pulls, bounce,
and the LEDs a button shares its pin with (``shares``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairdie.board._fields import (
    Ctx,
    check_keys,
    get_int,
    get_str,
    led_names,
    port_pin,
    positive,
    table,
)
from fairdie.board._parts import Bounce, Button, Led

__all__ = ["parse_buttons"]

_BUTTON_KEYS = frozenset({"name", "kind", "pin", "active", "pull", "bounce", "shares"})
_BOUNCE_KEYS = frozenset({"count", "spacing_us"})
_PULLS = ("chip", "up", "down", "none")
_MAX_BOUNCES = 100
_BUTTON_KINDS = ("input", "power")
_ACTIVE_LEVELS = ("low", "high")


def parse_buttons(
    ctx: Ctx, data: Mapping[str, Any], mcu: str, leds: tuple[Led, ...]
) -> tuple[Button, ...]:
    """The ``[[button]]`` tables, each checked against the board's LEDs (``shares``)."""
    raw = data.get("button", [])
    if not isinstance(raw, list):
        raise ctx.fail("button", "must be an array of tables ([[button]])")
    out: list[Button] = []
    names: set[str] = set()
    pins: dict[str, str] = {}
    for i, item in enumerate(raw, 1):
        t = table(ctx, f"[[button]] #{i}", item)
        name = get_str(ctx, f"[[button]] #{i}", t, "name", required=True)
        assert name is not None
        w = f"button {name!r}"
        check_keys(ctx, w, t, _BUTTON_KEYS)
        if name in names:
            raise ctx.fail(w, "duplicate button name")
        names.add(name)
        kind = get_str(ctx, w, t, "kind", required=False) or "input"
        if kind not in _BUTTON_KINDS:
            raise ctx.fail(w, f"kind {kind!r} is not one of {', '.join(_BUTTON_KINDS)}")
        p = get_str(ctx, w, t, "pin", required=False)
        active = get_str(ctx, w, t, "active", required=False)
        if kind == "power":
            if any(k in t for k in ("pin", "active", "pull", "bounce", "shares")):
                raise ctx.fail(
                    w,
                    "a power button is the supply switch: no pin, active, pull, bounce or shares",
                )
            if any(b.kind == "power" for b in out):
                raise ctx.fail(w, "a board has at most one power button")
            out.append(Button(name, kind))
            continue
        if p is None:
            raise ctx.fail(w, "missing key 'pin'")
        pin = port_pin(ctx, w, "pin", p, mcu)
        active = (active or "low").lower()
        if active not in _ACTIVE_LEVELS:
            raise ctx.fail(w, f"active {active!r} is not one of {', '.join(_ACTIVE_LEVELS)}")
        if pin in pins:
            raise ctx.fail(w, f"{pin} is already button {pins[pin]!r}")
        pins[pin] = name
        pull = _pull(ctx, w, t, active)
        shares = _shares(ctx, w, t, pin, leds)
        out.append(Button(name, kind, pin, active, pull, _bounce(ctx, w, t), shares))
    return tuple(out)


def _pull(ctx: Ctx, where: str, t: Mapping[str, Any], active: str) -> str:
    """What holds a released button's pin; a pull towards the active level is a
    wiring mistake (the button would read pressed all the time)."""
    pull = (get_str(ctx, where, t, "pull", required=False) or "").lower()
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


def _bounce(ctx: Ctx, where: str, t: Mapping[str, Any]) -> Bounce:
    if "bounce" not in t:
        return Bounce()
    b = table(ctx, f"{where}: bounce", t["bounce"])
    check_keys(ctx, f"{where}: bounce", b, _BOUNCE_KEYS)
    count = get_int(ctx, f"{where}: bounce", b, "count", required=True)
    assert count is not None
    if not 0 <= count <= _MAX_BOUNCES:
        raise ctx.fail(where, f"bounce count {count} is outside 0..{_MAX_BOUNCES}")
    return Bounce(count, positive(ctx, f"{where}: bounce", b, "spacing_us", 500, 1e6))


def _shares(
    ctx: Ctx, where: str, t: Mapping[str, Any], pin: str, leds: tuple[Led, ...]
) -> tuple[str, ...]:
    """The LEDs the button shares its pin with: every LED on the pin, named.

    A pin both a button and an LED use is a design the firmware must know
    (it turns the pin into an input to read the button, an output to light
    the LED), so the board says so; unannounced, it is a wiring mistake.
    """
    on_pin = [led.name for led in leds if pin in (led.anode, led.cathode)]
    if "shares" not in t:
        if on_pin:
            listed = ", ".join(f'"{n}"' for n in on_pin)
            raise ctx.fail(
                where,
                f"{pin} is also used by LED {on_pin[0]!r} (if the firmware shares the pin,"
                f" say so: shares = [{listed}])",
            )
        return ()
    named = led_names(ctx, where, "shares", t["shares"], {led.name for led in leds})
    if not named:
        raise ctx.fail(where, "shares is empty: name the LEDs on its pin, or leave it out")
    for n in named:
        if n not in on_pin:
            raise ctx.fail(where, f"shares LED {n!r}, which is not on {pin}")
    for n in on_pin:
        if n not in named:
            raise ctx.fail(where, f"{pin} is also used by LED {n!r}: name it in shares too")
    return tuple(named)
