"""Board parts beyond LEDs: series strings, buttons with pulls and bounce,
displays, the speaker and the ``[die]`` table."""

from __future__ import annotations

from typing import Any

import pytest

from fairdie.board import INVALID, OFF, Bounce, load_board, parse_board
from fairdie.errors import BoardError
from fairdie.subjects.die._board import die_spec

HEAD = {"name": "t", "mcu": "attiny13a", "f_cpu": 1_000_000, "vcc_mv": 3000}


def _led(name: str, anode: str, cathode: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "anode": anode, "cathode": cathode, **extra}


def board(**tables: Any) -> Any:
    return parse_board({"board": HEAD, **tables})


SERIES = [
    _led("tl", "PB0", "PB1", series="diag"),
    _led("br", "PB0", "PB1", series="diag"),
    _led("tr", "PB1", "PB0", series="other"),
    _led("bl", "PB1", "PB0", series="other"),
]


def test_series_pairs_share_a_pin_pair() -> None:
    b = board(led=SERIES)
    assert [led.series for led in b.leds] == ["diag", "diag", "other", "other"]


@pytest.mark.parametrize(
    ("leds", "message"),
    [
        # the same pair without a series is a typo in a charlieplex table
        ([_led("a", "PB0", "PB1"), _led("b", "PB0", "PB1")], "PB0->PB1 is already LED 'a'"),
        # one of the two declares it, the other does not
        ([_led("a", "PB0", "PB1", series="s"), _led("b", "PB0", "PB1")], "already LED 'a'"),
        # two series on one pair
        (
            [_led("a", "PB0", "PB1", series="s"), _led("b", "PB0", "PB1", series="t")],
            "already LED 'a'",
        ),
        # a series whose LEDs do not share both ends
        (
            [_led("a", "PB0", "PB1", series="s"), _led("b", "PB1", "PB0", series="s")],
            "series 's' runs PB0->PB1 .LED 'a'., not PB1->PB0",
        ),
    ],
)
def test_series_mistakes(leds: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(BoardError, match=message):
        board(led=leds)


def test_button_pulls_and_defaults() -> None:
    b = board(
        button=[
            {"name": "a", "pin": "PB0"},
            {"name": "b", "pin": "PB1", "active": "high"},
            {"name": "c", "pin": "PB2", "pull": "up", "bounce": {"count": 2, "spacing_us": 50}},
            {"name": "d", "pin": "PB3", "active": "high", "pull": "none"},
        ]
    )
    assert [x.pull for x in b.buttons] == ["chip", "down", "up", "none"]
    assert b.button("c").bounce == Bounce(2, 50.0)
    assert b.button("a").bounce.count == 0
    assert b.input_buttons == b.buttons


def test_a_button_may_share_the_analog_pin() -> None:
    b = board(
        analog={"noise": {"pin": "PB4", "channel": 2}},
        button=[{"name": "roll", "pin": "PB4"}],
    )
    assert b.button("roll").pin == b.analog_input("noise").pin


@pytest.mark.parametrize(
    ("button", "message"),
    [
        ({"pin": "PB0", "pull": "down"}, "pull 'down' holds the pin low, its active level"),
        ({"pin": "PB0", "active": "high", "pull": "chip"}, "holds the pin high"),
        ({"pin": "PB0", "active": "high", "pull": "up"}, "holds the pin high"),
        ({"pin": "PB0", "pull": "sideways"}, "pull 'sideways' is not one of"),
        ({"pin": "PB0", "bounce": {"count": -1}}, "bounce count -1 is outside"),
        ({"pin": "PB0", "bounce": {"count": 1, "spacing_us": 0}}, "spacing_us must be"),
        ({"pin": "PB0", "bounce": {"count": 1, "gap": 3}}, "unknown key 'gap'"),
        ({"pin": "PB0", "bounce": 3}, "expected a table"),
        ({"kind": "power", "bounce": {"count": 1}}, "supply switch: no pin"),
    ],
)
def test_button_mistakes(button: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardError, match=message) as e:
        board(button=[{"name": "b", **button}])
    assert "\n" not in str(e.value)


LEDS = [_led("a", "PB0", "GND"), _led("b", "PB1", "GND"), _led("c", "PB2", "GND")]


def test_a_display_decodes_its_symbols() -> None:
    b = board(
        led=LEDS,
        display={
            "digit": {"leds": ["a", "b"], "symbols": {"one": ["a"], "two": ["a", "b"]}},
            "all": {"symbols": {"dark": [], "lit": ["a", "b", "c"]}},
        },
    )
    d = b.display("digit")
    assert d.decode(frozenset({"a"})) == "one"
    assert d.decode(frozenset({"a", "b", "c"})) == "two"  # c is not part of it
    assert d.decode(frozenset()) == OFF
    assert d.decode(frozenset({"b"})) == INVALID
    assert d.lit_for("two") == {"a", "b"}
    assert b.display("all").decode(frozenset()) == "dark"  # a symbol may claim "nothing lit"
    assert b.display("all").leds == ("a", "b", "c")
    with pytest.raises(KeyError):
        d.lit_for("three")


@pytest.mark.parametrize(
    ("display", "message"),
    [
        ({"symbols": {"x": ["z"]}}, "no LED named 'z'"),
        ({"leds": ["a"], "symbols": {"x": ["b"]}}, "LED 'b' is not in the display's leds"),
        ({"symbols": {"x": ["a"], "y": ["a"]}}, "lights the same LEDs as symbol 'x'"),
        ({"symbols": {"x": ["a", "a"]}}, "LED 'a' is listed twice"),
        ({"symbols": {"x": "a"}}, "expected a list of LED names"),
        ({"symbols": {}}, "no symbols"),
        ({"symbols": {"invalid": ["a"]}}, "symbol 'invalid' is reserved"),
        ({"symbols": {"off": ["a"]}}, "symbol 'off' is reserved"),
        ({"symbols": {"x": ["a"]}, "colour": 1}, "unknown key 'colour'"),
    ],
)
def test_display_mistakes(display: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardError, match=message):
        board(led=LEDS, display={"d": display})


def test_speaker_and_die_tables() -> None:
    b = board(
        led=LEDS,
        speaker={"pin": "PB3"},
        button=[{"name": "roll", "pin": "PB4"}],
        display={"face": {"symbols": {"1": ["a"]}}},
        die={"roll": "roll", "display": "face", "settle_ms": 200},
    )
    assert b.speaker == "PB3"
    assert die_spec(b) is not None
    assert (die_spec(b).roll, die_spec(b).display, die_spec(b).counters, die_spec(b).settle_ms) == (
        "roll",
        "face",
        None,
        200.0,
    )


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ({"speaker": {"pin": "PB0"}}, r"\[speaker\]: PB0 is also used by LED 'a'"),
        ({"speaker": {}}, "missing key 'pin'"),
        ({"die": {"roll": "nope"}}, "roll 'nope' is not a button"),
        ({"die": {"display": "nope"}}, "display 'nope' is not a display"),
        ({"die": {"counters": -1}}, "counters -1 is not an EEPROM address"),
        ({"die": {"settle_ms": 0}}, "settle_ms must be"),
    ],
)
def test_speaker_and_die_mistakes(tables: dict[str, Any], message: str) -> None:
    with pytest.raises(BoardError, match=message):
        board(led=LEDS, **tables)


def test_shipped_dice_roll_by_power() -> None:
    for name in ("die-direct", "die-charlieplex"):
        die = die_spec(load_board(name))
        assert die is not None
        # the table is the build's reference model's (die_t13a/target.toml);
        # the faces, the clear and the fault pattern are the display "face"'s
        assert (die.roll, die.counters, die.display) == ("power", None, "face")
