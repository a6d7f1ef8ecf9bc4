"""Analog inputs on the analog comparator's pins: the MCU tables (AIN0/AIN1
per MCU), the ``comparator`` key, ``channel`` optional on a comparator pin,
and every mistake one line."""

from __future__ import annotations

from typing import Any

import pytest

from fairdie.board import MCU_ADC_PINS, MCU_COMPARATOR_PINS, MCU_PINS, AnalogInput, parse_board
from fairdie.errors import BoardError


def board(mcu: str, **analog: dict[str, Any]) -> Any:
    head = {"name": "t", "mcu": mcu, "f_cpu": 8_000_000, "vcc_mv": 3000}
    return parse_board({"board": head, "analog": analog})


@pytest.mark.parametrize(
    ("mcu", "ain0", "ain1"),
    [
        ("attiny13", "PB0", "PB1"),
        ("attiny13a", "PB0", "PB1"),
        ("attiny25", "PB0", "PB1"),
        ("attiny45", "PB0", "PB1"),
        ("attiny85", "PB0", "PB1"),
        ("attiny84", "PA1", "PA2"),
        ("attiny84a", "PA1", "PA2"),
        ("atmega328p", "PD6", "PD7"),
    ],
)
def test_each_known_mcu_knows_its_comparator_pins(mcu: str, ain0: str, ain1: str) -> None:
    assert MCU_COMPARATOR_PINS[mcu] == {ain0: "AIN0", ain1: "AIN1"}
    assert set(MCU_COMPARATOR_PINS[mcu]) <= MCU_PINS[mcu]
    b = board(mcu, probe={"pin": ain0}, reference={"pin": ain1, "comparator": "ain1"})
    adc = MCU_ADC_PINS[mcu]
    assert b.analog == (
        AnalogInput("probe", ain0, adc.get(ain0), "AIN0"),
        AnalogInput("reference", ain1, adc.get(ain1), "AIN1"),
    )


def test_every_known_mcu_has_a_comparator_table() -> None:
    assert set(MCU_COMPARATOR_PINS) == set(MCU_PINS)


def test_attiny85_comparator_pins_are_no_adc_pins() -> None:
    b = board(
        "attiny85", probe={"pin": "PB0", "comparator": "AIN0"}, knob={"pin": "PB3", "channel": 3}
    )
    assert b.analog_input("probe") == AnalogInput("probe", "PB0", None, "AIN0")
    assert b.analog_input("probe").inputs == "AIN0"
    assert b.analog_input("knob") == AnalogInput("knob", "PB3", 3, None)
    assert b.analog_input("knob").inputs == "ADC3"


def test_attiny84a_comparator_pins_are_adc_pins_too_and_feed_both() -> None:
    b = board("attiny84a", probe={"pin": "PA1"}, reference={"pin": "PA2", "channel": 2})
    assert b.analog_input("probe") == AnalogInput("probe", "PA1", 1, "AIN0")
    assert b.analog_input("reference") == AnalogInput("reference", "PA2", 2, "AIN1")
    assert b.analog_input("probe").inputs == "ADC1/AIN0"
    # an ADC pin that is no comparator pin keeps its channel only
    assert board("attiny84a", n={"pin": "PA3", "channel": 3}).analog[0].comparator is None


def test_an_unknown_mcu_takes_the_comparator_key_on_any_pin() -> None:
    b = board(
        "atmega644",
        probe={"pin": "PB2", "comparator": "AIN0"},
        ref={"pin": "PB3", "comparator": "AIN1"},
    )
    assert [(a.pin, a.channel, a.comparator) for a in b.analog] == [
        ("PB2", None, "AIN0"),
        ("PB3", None, "AIN1"),
    ]
    with pytest.raises(BoardError, match=r"analog 'n': missing key 'channel' \(give the pin's ADC"):
        board("atmega644", n={"pin": "PA0"})


@pytest.mark.parametrize(
    ("mcu", "analog", "message"),
    [
        (
            "attiny13a",
            {"pin": "PB0", "comparator": "AIN1"},
            "PB0 is AIN0 on the attiny13a, not AIN1 .AIN0 is PB0, AIN1 is PB1.$",
        ),
        (
            "attiny13a",
            {"pin": "PB2", "comparator": "AIN0"},
            "PB2 is no comparator input on the attiny13a, not AIN0",
        ),
        ("attiny84a", {"pin": "PB0", "comparator": "AIN0"}, "AIN0 is PA1, AIN1 is PA2"),
        (
            "attiny13a",
            {"pin": "PB0", "comparator": "AIN2"},
            "comparator 'AIN2': choose AIN0 or AIN1$",
        ),
        ("attiny13a", {"pin": "PB0", "comparator": 0}, "comparator must be a non-empty string"),
        (
            "attiny13a",
            {"pin": "PB0", "channel": 0},
            "PB0 is no ADC input on the attiny13a, not channel 0",
        ),
        ("attiny84a", {"pin": "PA1", "channel": 2}, "PA1 is ADC1 on the attiny84a, not channel 2"),
        (
            "attiny13a",
            {"pin": "PB4"},
            r"missing key 'channel' \(PB4 is no comparator input on the attiny13a:"
            r" give its ADC channel\)$",
        ),
        (
            "attiny13a",
            {"pin": "PB0", "mux": 1},
            "unknown key 'mux' .allowed: channel, comparator, pin.$",
        ),
    ],
)
def test_a_bad_comparator_input_is_one_line(mcu: str, analog: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardError, match=message) as e:
        board(mcu, n=analog)
    assert str(e.value).startswith("<board>: analog 'n': ") and "\n" not in str(e.value)


def test_one_comparator_input_feeds_one_analog_input() -> None:
    with pytest.raises(BoardError, match="analog 'b': AIN0 is already analog input 'a'"):
        board(
            "atmega644",
            a={"pin": "PB2", "comparator": "AIN0"},
            b={"pin": "PB3", "comparator": "AIN0"},
        )
    with pytest.raises(BoardError, match="analog 'b': PB0 is already analog input 'a'"):
        board("attiny13a", a={"pin": "PB0"}, b={"pin": "PB0"})


def test_a_comparator_pin_may_not_be_an_led_pin() -> None:
    head = {"name": "t", "mcu": "attiny13a", "f_cpu": 8_000_000, "vcc_mv": 3000}
    led = [{"name": "a", "anode": "PB0", "cathode": "GND"}]
    with pytest.raises(BoardError, match="analog 'probe': PB0 is also used by LED 'a'"):
        parse_board({"board": head, "led": led, "analog": {"probe": {"pin": "PB0"}}})
