"""The ``[analog.NAME]`` tables of a board file: a pin, its ADC channel and
its analog comparator input, each checked against the MCU's pin tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairdie.board._fields import Ctx, check_keys, get_int, get_str, port_pin, table
from fairdie.board._mcus import MCU_ADC_PINS, MCU_COMPARATOR_PINS
from fairdie.board._parts import AnalogInput

__all__ = ["COMPARATOR_INPUTS", "parse_analog"]

_ANALOG_KEYS = frozenset({"pin", "channel", "comparator"})
#: the analog comparator's inputs a board may wire a pin to
COMPARATOR_INPUTS = ("AIN0", "AIN1")


def parse_analog(ctx: Ctx, data: Mapping[str, Any], mcu: str) -> tuple[AnalogInput, ...]:
    """The ``[analog.NAME]`` tables: each an ADC channel, a comparator input or both."""
    raw = table(ctx, "[analog]", data.get("analog", {}))
    out: list[AnalogInput] = []
    pins: dict[str, str] = {}
    ains: dict[str, str] = {}
    for name, item in raw.items():
        w = f"analog {name!r}"
        t = table(ctx, w, item)
        check_keys(ctx, w, t, _ANALOG_KEYS)
        p = get_str(ctx, w, t, "pin", required=True)
        assert p is not None
        pin = port_pin(ctx, w, "pin", p, mcu)
        if pin in pins:
            raise ctx.fail(w, f"{pin} is already analog input {pins[pin]!r}")
        comparator = _comparator(ctx, w, t, pin, mcu)
        channel = _channel(ctx, w, t, pin, mcu, comparator)
        if comparator is not None and comparator in ains:
            raise ctx.fail(w, f"{comparator} is already analog input {ains[comparator]!r}")
        pins[pin] = name
        if comparator is not None:
            ains[comparator] = name
        out.append(AnalogInput(name, pin, channel, comparator))
    return tuple(out)


def _comparator(ctx: Ctx, w: str, t: Mapping[str, Any], pin: str, mcu: str) -> str | None:
    """The comparator input on ``pin``: the key's (checked against a known
    MCU's table), else the table's, else None."""
    known = MCU_COMPARATOR_PINS.get(mcu)
    given = get_str(ctx, w, t, "comparator", required=False)
    if given is None:
        return known.get(pin) if known is not None else None
    ain = given.upper()
    if ain not in COMPARATOR_INPUTS:
        raise ctx.fail(w, f"comparator {given!r}: choose {' or '.join(COMPARATOR_INPUTS)}")
    if known is not None and known.get(pin) != ain:
        real = known.get(pin, "no comparator input")
        pins = ", ".join(f"{a} is {p}" for p, a in sorted(known.items(), key=lambda x: x[1]))
        raise ctx.fail(w, f"{pin} is {real} on the {mcu}, not {ain} ({pins})")
    return ain


def _channel(
    ctx: Ctx, w: str, t: Mapping[str, Any], pin: str, mcu: str, comparator: str | None
) -> int | None:
    """The ADC channel of ``pin``: the key's (checked against a known MCU's
    table); without the key, a comparator pin's channel from the table, if any."""
    adc = MCU_ADC_PINS.get(mcu)
    channel = get_int(ctx, w, t, "channel", required=False)
    if channel is None:
        if comparator is None:
            why = (
                f"{pin} is no comparator input on the {mcu}: give its ADC channel"
                if mcu in MCU_COMPARATOR_PINS
                else "give the pin's ADC channel or its comparator input"
            )
            raise ctx.fail(w, f"missing key 'channel' ({why})")
        return adc.get(pin) if adc is not None else None
    if not 0 <= channel <= 15:
        raise ctx.fail(w, f"channel {channel} is outside 0..15")
    if adc is not None and adc.get(pin) != channel:
        real = f"ADC{adc[pin]}" if pin in adc else "no ADC input"
        raise ctx.fail(w, f"{pin} is {real} on the {mcu}, not channel {channel}")
    return channel
