"""A scenario against the board and chip it runs on: every name it uses is
the board's, every pin and EEPROM byte the chip's, and its steps make sense
in order (no release of a button not pressed, no wait for an event while
the chip is off). Checked before the first step runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairdie.board import INVALID, OFF, Board
from fairdie.scenario._model import (
    Analog,
    Expect,
    Power,
    Press,
    Release,
    Scenario,
    Step,
    WaitUntil,
)

if TYPE_CHECKING:
    from fairdie.sim import Chip

__all__ = ["check_scenario"]


def _names(kind: str, names: tuple[str, ...]) -> str:
    return f"{kind}: {', '.join(names) or 'none'}"


def _check_expect(sc: Scenario, step: Step, key: str, e: Expect, bd: Board, chip: Chip) -> None:
    if e.leds is not None:
        unknown = sorted(e.leds - set(bd.led_names))
        if unknown:
            raise sc.fail(
                step.number,
                f"{key}.leds",
                f"board {bd.name} has no LED {unknown[0]!r} ({_names('LEDs', bd.led_names)})",
            )
    for d, symbol in e.display:
        try:
            display = bd.display(d)
        except KeyError:
            shown = tuple(x.name for x in bd.displays)
            raise sc.fail(
                step.number,
                f"{key}.display.{d}",
                f"board {bd.name} has no display {d!r} ({_names('displays', shown)})",
            ) from None
        if symbol not in (*display.symbol_names, OFF, INVALID):
            raise sc.fail(
                step.number,
                f"{key}.display.{d}",
                f"display {d!r} has no symbol {symbol!r}"
                f" ({_names('symbols', (*display.symbol_names, OFF, INVALID))})",
            )
    if e.tone is not None and bd.speaker is None:
        raise sc.fail(step.number, f"{key}.tone", f"board {bd.name} has no [speaker]")
    for pin, _ in e.pins:
        if pin[1] not in chip.ports:
            raise sc.fail(step.number, f"{key}.pins.{pin}", f"the {chip.mcu} has no pin {pin}")
    for address, data in e.eeprom:
        if address + len(data) > chip.eeprom_size:
            raise sc.fail(
                step.number,
                f"{key}.eeprom",
                f"{len(data)} bytes at {address} overrun the {chip.mcu}'s"
                f" {chip.eeprom_size} bytes of EEPROM",
            )


def _check_button(sc: Scenario, step: Step, key: str, name: str, bd: Board) -> bool:
    """Whether the button is the power switch; an unknown one is an error."""
    try:
        return bd.button(name).kind == "power"
    except KeyError:
        shown = tuple(b.name for b in bd.buttons)
        raise sc.fail(
            step.number,
            key,
            f"board {bd.name} has no button {name!r} ({_names('buttons', shown)})",
        ) from None


def check_scenario(sc: Scenario, bd: Board, chip: Chip) -> None:
    """Raise a one-line :class:`ScenarioError` for the first step that names
    what the board or chip lacks, or cannot run where it stands."""
    powered = sc.powered
    pressed: set[str] = set()
    for step in sc.steps:
        a, n = step.action, step.number
        if isinstance(a, Power):
            if a.on == powered:
                raise sc.fail(n, "power", f"the chip is already {'on' if powered else 'off'}")
            powered = a.on
        elif isinstance(a, Press):
            is_power = _check_button(sc, step, "press", a.button, bd)
            if a.button in pressed:
                raise sc.fail(n, "press", f"button {a.button!r} is already pressed")
            if is_power and powered:
                raise sc.fail(n, "press", f"power button {a.button!r}: the chip is already on")
            if a.hold is None:
                pressed.add(a.button)
            powered = powered or (is_power and a.hold is None)
        elif isinstance(a, Release):
            is_power = _check_button(sc, step, "release", a.button, bd)
            if a.button not in pressed:
                raise sc.fail(n, "release", f"button {a.button!r} is not pressed")
            pressed.discard(a.button)
            powered = powered and not is_power
        elif isinstance(a, WaitUntil):
            if not powered:
                raise sc.fail(n, "until", "the chip is off: nothing can happen while it waits")
            if a.event == "tone" and bd.speaker is None:
                raise sc.fail(n, "until", f"board {bd.name} has no [speaker]")
            if a.event == "leds" and not bd.leds:
                raise sc.fail(n, "until", f"board {bd.name} has no LEDs")
            if a.state is not None:
                _check_expect(sc, step, "until", a.state, bd, chip)
        elif isinstance(a, Analog):
            for name, _ in a.inputs:
                if name not in {x.name for x in bd.analog}:
                    shown = tuple(x.name for x in bd.analog)
                    raise sc.fail(
                        n,
                        f"analog.{name}",
                        f"board {bd.name} has no analog input {name!r} ({_names('inputs', shown)})",
                    )
        _check_expect(sc, step, "expect", step.expect, bd, chip)
