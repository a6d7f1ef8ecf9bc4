"""Board files and the LED model (fairdie.board)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fairdie.board import Board, LedDecoder, load_board, parse_board, shipped_boards
from fairdie.errors import BoardError
from fairdie.subjects.die._faces import GROUPS, POSITIONS

REPO = Path(__file__).resolve().parents[2]
PINS_H = REPO / "harness" / "fairdie" / "subjects" / "die" / "firmware" / "die_t13a" / "pins.h"

HEADER = """\
[board]
name = "test"
mcu = "attiny13a"
f_cpu = 1000000
vcc_mv = 3000
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "board.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _led(name: str, anode: str, cathode: str, extra: str = "") -> str:
    return f'\n[[led]]\nname = "{name}"\nanode = "{anode}"\ncathode = "{cathode}"\n{extra}\n'


def _board(*leds: tuple[str, str, str], mcu: str = "attiny13a", persistence: float = 1) -> Board:
    return parse_board(
        {
            "board": {
                "name": "t",
                "mcu": mcu,
                "f_cpu": 1_000_000,
                "vcc_mv": 3000,
                "persistence_ms": persistence,
            },
            "led": [{"name": n, "anode": a, "cathode": c} for n, a, c in leds],
        }
    )


# ---- shipped boards ---------------------------------------------------------------------


def test_shipped_boards_load_by_name_and_path() -> None:
    assert {"die-direct", "die-charlieplex"} <= set(shipped_boards())
    for name in ("die-direct", "die-charlieplex"):
        board = load_board(name)
        assert board.name == name
        assert board.mcu == "attiny13a"
        assert board.f_cpu == 1_200_000
        assert board.vcc_mv == 3000
        assert board.firmware == "die_t13a"
        assert board.persistence_ms == 20
        assert board.persistence_cycles == 24_000
        assert set(board.led_names) == set(POSITIONS)
        assert board.analog_input("noise").pin == "PB4"
        assert board.analog_input("noise").channel == 2
        assert board.power_button is not None
        assert board.led_pins == {"PB0", "PB1", "PB2", "PB3"}
    assert load_board("die-direct").variant == "direct"
    assert load_board("die-charlieplex").variant == "charlieplex"
    path = REPO / "harness" / "fairdie" / "subjects" / "die" / "boards" / "die-direct.toml"
    assert load_board(path) == load_board(str(path))
    assert load_board(path).source == str(path)
    assert load_board(path).leds == load_board("die-direct").leds


def test_direct_board_groups() -> None:
    board = load_board("die-direct")
    group_pin = {"A": "PB0", "B": "PB1", "C": "PB2", "D": "PB3"}
    for group, positions in GROUPS.items():
        for pos in positions:
            led = board.led(pos)
            assert (led.anode, led.cathode) == (group_pin[group], "GND")


def _pins_h() -> str:
    if not PINS_H.exists():
        pytest.skip(f"{PINS_H.relative_to(REPO)} is not there")
    return PINS_H.read_text()


def test_direct_board_matches_pins_h() -> None:
    text = _pins_h()
    groups = dict(re.findall(r"#define GROUP_([A-D]) _BV\((PB\d)\)", text))
    assert len(groups) == 4
    board = load_board("die-direct")
    for group, positions in GROUPS.items():
        for pos in positions:
            assert board.led(pos).anode == groups[group]
    adc = re.search(r"ADC_DIDR_BIT _BV\(ADC(\d)D\)", text)
    assert adc is not None and int(adc.group(1)) == board.analog_input("noise").channel


def test_charlieplex_board_matches_pins_h() -> None:
    pairs = re.findall(r"#define CP_([A-Z_]+) CP_PAIR\((PB\d), (PB\d)\)", _pins_h())
    table = {name.lower().replace("_", "-"): (a, c) for name, a, c in pairs}
    assert set(table) == set(POSITIONS)
    board = load_board("die-charlieplex")
    for led in board.leds:
        assert (led.anode, led.cathode) == table[led.name]


def test_load_board_errors() -> None:
    with pytest.raises(BoardError, match=r"no such board file or shipped board .*die-direct"):
        load_board("die-nothing")
    with pytest.raises(BoardError, match=r"nope/x\.toml: no such board file"):
        load_board("nope/x.toml")
    with pytest.raises(BoardError, match="no such board file"):
        load_board(Path("/nonexistent/board.toml"))


def test_a_board_file_is_loaded_as_it_is_now(tmp_path: Path) -> None:
    """Parsed boards are kept by their text: a file edited in place (same size,
    perhaps the same mtime) loads as edited, a bad one is refused every time."""
    good = HEADER + _led("a", "PB0", "GND")
    bad = good.replace("vcc_mv = 3000", "vcc_mv = 9000")
    path = _write(tmp_path, good)
    first = load_board(path)
    assert load_board(str(path)) is load_board(path) == first  # one parse
    for _ in range(2):
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(BoardError, match=r"vcc_mv"):
            load_board(path)
        path.write_text(good, encoding="utf-8")
        assert load_board(path) == first


def test_invalid_toml(tmp_path: Path) -> None:
    path = _write(tmp_path, HEADER + "x = \n")
    with pytest.raises(BoardError, match=r"board\.toml: not valid TOML") as e:
        load_board(path)
    assert "\n" not in str(e.value)


# ---- validation ---------------------------------------------------------------------------

ERRORS = [
    (HEADER + "colour = 1\n", "unknown key 'colour'"),
    (HEADER + "[extra]\n", "unknown key 'extra'"),
    (HEADER.replace('name = "test"\n', ""), "missing key 'name'"),
    (HEADER.replace("f_cpu = 1000000", "f_cpu = 0"), "f_cpu must be a positive"),
    (HEADER.replace("f_cpu = 1000000", "f_cpu = -5"), "f_cpu must be a positive"),
    (HEADER.replace("f_cpu = 1000000", 'f_cpu = "fast"'), "f_cpu must be an integer"),
    (HEADER.replace("vcc_mv = 3000", "vcc_mv = 1799"), "vcc_mv 1799 is outside 1800..5500"),
    (HEADER.replace("vcc_mv = 3000", "vcc_mv = 5501"), "vcc_mv 5501 is outside"),
    (HEADER + "persistence_ms = 0\n", "persistence_ms must be a positive"),
    (HEADER + "persistence_ms = -1.5\n", "persistence_ms must be a positive"),
    (HEADER + _led("a", "PB0", "GND", "colour = 'red'"), "led 'a': unknown key 'colour'"),
    (HEADER + _led("a", "PX", "GND"), "led 'a': anode 'PX' is not a pin name"),
    (HEADER + _led("a", "PB0", "B1"), "led 'a': cathode 'B1' is not a pin name"),
    (HEADER + _led("a", "PB6", "GND"), "anode PB6 is not a pin of the attiny13a .PB0-PB5"),
    (HEADER + _led("a", "PA0", "GND"), "anode PA0 is not a pin of the attiny13a"),
    (HEADER + _led("a", "GND", "PB0"), "anode 'GND' must be a pin or VCC"),
    (HEADER + _led("a", "PB0", "VCC"), "cathode 'VCC' must be a pin or GND"),
    (HEADER + _led("a", "PB0", "GND") + _led("a", "PB1", "GND"), "led 'a': duplicate LED name"),
    (HEADER + _led("a", "PB0", "pb0"), "led 'a': anode and cathode are both PB0"),
    (
        HEADER + _led("a", "PB0", "PB1") + _led("b", "PB0", "PB1"),
        "led 'b': PB0->PB1 is already LED 'a'",
    ),
    (HEADER + _led("a", "PB0", "GND", "x = 1"), "give both x and y"),
    (HEADER + _led("a", "PB0", "GND", "x = -1\ny = 0"), "x and y must be >= 0"),
    (
        HEADER + _led("a", "PB4", "GND") + '[analog.noise]\npin = "PB4"\nchannel = 2\n',
        "analog 'noise': PB4 is also used by LED 'a'",
    ),
    (
        HEADER + _led("a", "PB0", "PB4") + '[analog.noise]\npin = "PB4"\nchannel = 2\n',
        "analog 'noise': PB4 is also used by LED 'a'",
    ),
    (HEADER + '[analog.noise]\npin = "PB4"\nchannel = 3\n', "PB4 is ADC2 on the attiny13a"),
    (HEADER + '[analog.noise]\npin = "PB0"\nchannel = 0\n', "PB0 is no ADC input"),
    (HEADER + '[analog.noise]\npin = "PB4"\n', "analog 'noise': missing key 'channel'"),
    (HEADER + '[analog.noise]\npin = "PB4"\nchannel = 2\nmux = 1\n', "unknown key 'mux'"),
    (HEADER + '[analog.noise]\npin = "PB7"\nchannel = 2\n', "pin PB7 is not a pin of"),
    (
        HEADER + _led("a", "PB0", "GND") + '[[button]]\nname = "go"\npin = "PB0"\n',
        "button 'go': PB0 is also used by LED 'a'",
    ),
    (HEADER + '[[button]]\nname = "go"\n', "button 'go': missing key 'pin'"),
    (HEADER + '[[button]]\nname = "go"\npin = "PB1"\nactive = "up"\n', "active 'up' is not"),
    (HEADER + '[[button]]\nname = "go"\nkind = "knob"\n', "kind 'knob' is not one of"),
    (HEADER + '[[button]]\nname = "p"\nkind = "power"\npin = "PB1"\n', "supply switch: no pin"),
    (
        HEADER + '[[button]]\nname = "p"\nkind = "power"\n[[button]]\nname = "q"\nkind = "power"\n',
        "at most one power button",
    ),
    (
        HEADER + '[[button]]\nname = "a"\npin = "PB1"\n[[button]]\nname = "b"\npin = "PB1"\n',
        "button 'b': PB1 is already button 'a'",
    ),
    (
        HEADER + '[[button]]\nname = "a"\npin = "PB1"\n[[button]]\nname = "a"\npin = "PB2"\n',
        "button 'a': duplicate button name",
    ),
    ("[[led]]\nname = 'a'\n", "missing \\[board\\] table"),
    (HEADER + "led = 3\n", "unknown key 'led'"),  # in [board]
    (HEADER.replace("[board]", "led = 3\n[board]"), "must be an array of tables"),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_validation_errors(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(BoardError, match=message) as e:
        load_board(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}: ")
    assert "\n" not in msg


def test_a_valid_board_with_everything(tmp_path: Path) -> None:
    text = (
        HEADER
        + 'firmware = "fw"\nvariant = "v"\npersistence_ms = 2.5\n'
        + _led("a", "PB0", "GND", "x = 0\ny = 0")
        + _led("b", "VCC", "PB1")
        + _led("c", "PB2", "PB3")
        + _led("d", "PB3", "PB2")
        + _led("e", "PB0", "GND")  # shares PB0 and GND with 'a': a direct-drive group
        + '[analog.noise]\npin = "PB4"\nchannel = 2\n'
        + '[[button]]\nname = "power"\nkind = "power"\n'
        + '[[button]]\nname = "reset"\npin = "PB5"\nactive = "LOW"\n'
    )
    board = load_board(_write(tmp_path, text))
    assert board.led_names == ("a", "b", "c", "d", "e")
    assert board.led("a").x == 0 and board.led("b").x is None
    assert board.led("b").anode == "VCC"
    assert board.persistence_cycles == 2500
    assert board.button("reset").active == "low"
    assert board.button("reset").kind == "input"
    assert board.power_button == board.button("power")
    with pytest.raises(KeyError):
        board.led("z")


def test_pin_checks_follow_the_mcu() -> None:
    _board(("a", "PA7", "PB3"), mcu="attiny84a")
    with pytest.raises(BoardError, match="PB4 is not a pin of the attiny84a"):
        _board(("a", "PA0", "PB4"), mcu="ATtiny84A")
    # An MCU the model does not know: any port pin is accepted.
    assert _board(("a", "PD7", "PC0"), mcu="atmega1284p").led("a").anode == "PD7"
    with pytest.raises(BoardError, match="not a pin name"):
        _board(("a", "PD8", "PC0"), mcu="atmega1284p")


def test_parse_board_names_its_source() -> None:
    with pytest.raises(BoardError, match=r"^<board>: missing"):
        parse_board({})
    with pytest.raises(BoardError, match=r"^mine\.toml: "):
        parse_board({"board": {}}, source="mine.toml")


def test_a_twelve_led_charlieplex_board() -> None:
    pins = ["PA0", "PA1", "PA2", "PA3"]
    leds = [(f"cell{i}", a, c) for i, (a, c) in enumerate((a, c) for a in pins for c in pins)]
    board = _board(*[(n, a, c) for n, a, c in leds if a != c], mcu="attiny84a")
    assert len(board.leds) == 12


# ---- LED decoding ---------------------------------------------------------------------------


def test_visible_thresholds() -> None:
    dec = LedDecoder(load_board("die-direct"))
    assert dec.visible({"a": 0.0, "b": 0.0}) == frozenset()
    assert dec.visible({}) == frozenset()
    assert dec.visible({"a": 0.02, "b": 0.01}) == frozenset()  # too dim: dark
    assert dec.visible({"a": 0.04, "b": 0.01}) == {"a", "b"}  # exactly a quarter counts
    assert dec.visible({"a": 1 / 3, "b": 1 / 3, "c": 0.004}) == {"a", "b"}  # ghost
    assert dec.visible({"a": 1.0, "b": 0.5, "c": 0.5}) == {"a", "b", "c"}  # half duty: seen
    assert dec.visible({"a": 1.0, "b": 0.24}) == {"a"}
    custom = LedDecoder(load_board("die-direct"), relative=0.1, floor=0.0)
    assert custom.visible({"a": 1.0, "b": 0.11, "c": 0.09}) == {"a", "b"}
    with pytest.raises(ValueError):
        LedDecoder(load_board("die-direct"), relative=0)


def test_decoder_pairs_and_duties() -> None:
    board = load_board("die-charlieplex")
    dec = LedDecoder(board)
    assert len(dec.pairs) == len(dec.names) == 7
    assert dec.pairs[dec.names.index("centre")] == (board.leds[0].anode, board.leds[0].cathode)
    duties = dec.duties([500] + [0] * 6, 1000)
    assert duties["centre"] == 0.5 and sum(duties.values()) == 0.5
    assert dec.lit(0b11) == {dec.names[0], dec.names[1]}
    with pytest.raises(ValueError):
        dec.duties([0] * 7, 0)
