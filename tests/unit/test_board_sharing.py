"""A button and LEDs on one pin (``shares``), and the MCUs whose pins the
board model knows."""

from __future__ import annotations

from typing import Any

import pytest

from fairdie.board import MCU_ADC_PINS, MCU_PINS, parse_board
from fairdie.errors import BoardError
from fairdie.subjects.die._board import die_spec


def board(mcu: str = "attiny85", **tables: Any) -> Any:
    head = {"name": "t", "mcu": mcu, "f_cpu": 8_000_000, "vcc_mv": 3000}
    return parse_board({"board": head, **tables})


LEDS = [
    {"name": "a", "anode": "PB0", "cathode": "GND"},
    {"name": "b", "anode": "PB1", "cathode": "PB0"},
    {"name": "c", "anode": "PB2", "cathode": "GND"},
]


def test_a_button_names_the_leds_it_shares_its_pin_with() -> None:
    b = board(led=LEDS, button=[{"name": "go", "pin": "PB0", "shares": ["b", "a"]}])
    assert b.button("go").shares == ("b", "a")
    assert b.button("go").pull == "chip"
    assert board(led=LEDS, button=[{"name": "go", "pin": "PB3"}]).button("go").shares == ()


@pytest.mark.parametrize(
    ("button", "message"),
    [
        (
            {"pin": "PB2"},
            r"button 'go': PB2 is also used by LED 'c' \(if the firmware shares the pin,"
            r' say so: shares = \["c"\]\)$',
        ),
        ({"pin": "PB0"}, r'shares = \["a", "b"\]\)$'),  # every LED on the pin
        ({"pin": "PB0", "shares": ["a"]}, "PB0 is also used by LED 'b': name it in shares too"),
        ({"pin": "PB0", "shares": ["a", "b", "c"]}, "shares LED 'c', which is not on PB0"),
        ({"pin": "PB3", "shares": ["a"]}, "shares LED 'a', which is not on PB3"),
        ({"pin": "PB0", "shares": ["z"]}, "no LED named 'z'"),
        ({"pin": "PB0", "shares": ["a", "a", "b"]}, "LED 'a' is listed twice"),
        ({"pin": "PB0", "shares": "a"}, "shares: expected a list of LED names"),
        ({"pin": "PB3", "shares": []}, "shares is empty"),
        ({"kind": "power", "shares": ["a"]}, "no pin, active, pull, bounce or shares"),
    ],
)
def test_unannounced_or_wrong_sharing_is_refused(button: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardError, match=message) as e:
        board(led=LEDS, button=[{"name": "go", **button}])
    assert str(e.value).startswith("<board>: button 'go': ") and "\n" not in str(e.value)


def test_the_speaker_and_analog_inputs_still_may_not_share_an_led_pin() -> None:
    with pytest.raises(BoardError, match=r"\[speaker\]: PB2 is also used by LED 'c'"):
        board(led=LEDS, speaker={"pin": "PB2"})
    with pytest.raises(BoardError, match="analog 'n': PB2 is also used by LED 'c'"):
        board(led=LEDS, analog={"n": {"pin": "PB2", "channel": 1}})


@pytest.mark.parametrize("mcu", ["attiny25", "attiny45", "attiny85"])
def test_the_tinyx5_pins(mcu: str) -> None:
    assert MCU_PINS[mcu] == {f"PB{i}" for i in range(6)}
    assert board(mcu, analog={"n": {"pin": "PB3", "channel": 3}}).analog[0].channel == 3
    with pytest.raises(BoardError, match=f"PB6 is not a pin of the {mcu} .PB0-PB5"):
        board(mcu, led=[{"name": "a", "anode": "PB6", "cathode": "GND"}])
    with pytest.raises(BoardError, match=f"PB0 is no ADC input on the {mcu}"):
        board(mcu, analog={"n": {"pin": "PB0", "channel": 0}})


def test_the_eeprom_sizes_bound_a_dies_counters() -> None:
    power = [{"name": "p", "kind": "power"}]
    for mcu, size in (("attiny25", 128), ("attiny45", 256), ("attiny85", 512)):
        assert die_spec(board(mcu, button=power, die={"counters": size - 6})).counters == size - 6
        with pytest.raises(BoardError, match=f"overrun the {mcu}'s {size} bytes"):
            board(mcu, button=power, die={"counters": size - 5})


def test_the_atmega328p_pins() -> None:
    assert len(MCU_PINS["atmega328p"]) == 8 + 7 + 8
    assert MCU_ADC_PINS["atmega328p"] == {f"PC{i}": i for i in range(6)}
    b = board("atmega328p", led=[{"name": "a", "anode": "PB5", "cathode": "GND"}])
    assert b.led("a").anode == "PB5"
    with pytest.raises(BoardError, match="PC7 is not a pin of the atmega328p"):
        board("atmega328p", speaker={"pin": "PC7"})
