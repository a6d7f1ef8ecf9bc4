"""A board against the build it runs (fairdie.board.check_build): MCU, variant, LED drive."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fairdie.board import Board, check_build, load_board, parse_board
from fairdie.errors import BoardError, ToolchainError
from fairdie.toolchain import load_target
from fairdie.toolchain._target import parse_target_toml


def _board(leds: list[tuple[str, str]], **header: Any) -> Board:
    head = {"name": "t", "mcu": "attiny13a", "f_cpu": 1_200_000, "vcc_mv": 3000, **header}
    return parse_board(
        {
            "board": head,
            "led": [{"name": f"l{i}", "anode": a, "cathode": c} for i, (a, c) in enumerate(leds)],
        },
        source="t.toml",
    )


def test_led_drive_follows_the_wiring() -> None:
    assert _board([]).led_drive is None
    assert _board([("PB0", "GND"), ("VCC", "PB1")]).led_drive == "direct"
    assert _board([("PB0", "PB1"), ("PB1", "PB0")]).led_drive == "charlieplex"
    assert _board([("PB0", "PB1"), ("PB2", "GND")]).led_drive == "mixed"
    assert load_board("die-direct").led_drive == "direct"
    assert load_board("die-charlieplex").led_drive == "charlieplex"


def test_each_die_variant_names_its_led_drive() -> None:
    t = load_target("die_t13a")
    assert {v: t.leds_for(v) for v in t.variants} == {
        "direct": "direct",
        "charlieplex": "charlieplex",
        "seed": "direct",
    }
    assert t.leds_for(None) == "direct"  # the default variant's


def test_shipped_boards_fit_their_own_builds() -> None:
    check_build(load_board("die-direct"))
    check_build(load_board("die-charlieplex"))
    check_build(load_board("die-direct"), "seed")


@pytest.mark.parametrize(
    ("board", "variant", "message"),
    [
        ("die-charlieplex", "direct", "LEDs are charlieplexed (each between two pins), but build"),
        ("die-direct", "charlieplex", "die_t13a (charlieplex) charlieplexes them"),
    ],
)
def test_another_led_drive_is_refused(board: str, variant: str, message: str) -> None:
    with pytest.raises(BoardError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        check_build(load_board(board), variant)
    assert str(e.value).startswith(f"{board}.toml (shipped): ") and "\n" not in str(e.value)


def test_the_board_and_its_target_must_agree() -> None:
    wired = [("PB0", "GND")]
    with pytest.raises(BoardError, match=r"t\.toml: the board's LEDs are wired for direct drive"):
        check_build(_board(wired, firmware="die_t13a", variant="charlieplex"))
    with pytest.raises(BoardError, match=r"t.toml: \[board\] variant: unknown variant 'x'"):
        check_build(_board(wired, firmware="die_t13a", variant="x"))
    with pytest.raises(BoardError, match=r"t.toml: \[board\] firmware 'nope': "):
        check_build(_board(wired, firmware="nope"))
    with pytest.raises(BoardError, match="MCU is attiny84a, but firmware die_t13a is for"):
        check_build(_board([("PA0", "GND")], mcu="attiny84a", firmware="die_t13a"))
    with pytest.raises(ToolchainError, match="unknown variant 'x' for die_t13a"):
        check_build(_board(wired, firmware="die_t13a"), "x")  # the caller's variant
    check_build(_board(wired))  # no firmware target: nothing to check
    check_build(_board([], firmware="die_t13a", variant="charlieplex"))  # no LEDs to drive


def test_target_led_drive_keys(tmp_path: Path) -> None:
    text = 'mcu = "attiny13a"\nf_cpu = 1200000\nleds = "charlieplex"\n'
    text += '[variants.a]\nleds = "direct"\n[variants.b]\ndefines = { X = 1 }\n'
    t = parse_target_toml(text, tmp_path)
    assert (t.leds_for("a"), t.leds_for("b")) == ("direct", "charlieplex")  # b: the target's
    assert t.leds_for(None) == "direct"  # the default variant's: the first, a
    with pytest.raises(ToolchainError, match="leds must be one of direct, charlieplex, mixed"):
        parse_target_toml('leds = "sideways"\n', tmp_path)
    with pytest.raises(ToolchainError, match=r"unknown key variants\.a\.led "):
        parse_target_toml('[variants.a]\nled = "direct"\n', tmp_path)
