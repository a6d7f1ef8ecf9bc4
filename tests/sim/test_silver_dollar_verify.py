"""``fairdie verify`` of the Silver Dollar Game: the shipped build passes the
game's checks; each broken build (a mutant variant of sdg_t84a, as a HEX)
fails the check that is about its fault, saying what failed; a HEX that is
none of the game's builds skips the reply check with the reason; the game's
checks apply to its board only, and a board of its target without its
strip or buttons is bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fairdie.board import Board, load_board, parse_board
from fairdie.cli import main
from fairdie.errors import BoardError
from fairdie.subjects.silver_dollar.checks import CHECKS, applies
from fairdie.toolchain import build

BOARD = ("--board", "silver-dollar")
GAME = [c.name for c in CHECKS.checks]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    rc = main(["verify", *args, "--json"])
    out, err = capsys.readouterr()
    assert err == ""
    return rc, json.loads(out)


def checks(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in out["checks"]}


def hex_of(variant: str, **defines: int) -> str:
    return str(build("sdg_t84a", variant=variant, defines=defines).hex)


def test_the_shipped_build_passes_every_game_check(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = run(
        capsys, hex_of("game"), *BOARD, "--games", "2", "--positions", "2", "--trials", "15"
    )
    c = checks(out)
    assert rc == 0, [(n, c[n]["reason"]) for n in GAME if c[n]["status"] != "pass"]
    assert out["build"] == "game"
    assert all(c[n]["status"] == "pass" for n in GAME)
    assert "uA" in c["game-sleep"]["reason"] and c["game-sleep"]["details"]["sleep_ua"] < 5
    assert c["game-tones"]["details"]["a5_hz"] == pytest.approx(880, abs=12.5)
    assert c["faces"]["status"] == "skipped"  # the die's, on no die


@pytest.mark.parametrize(
    ("variant", "check", "says"),
    [
        ("mutant-led-table", "game-display", "the strip then read"),
        ("mutant-first-win", "game-reply", "not uniform"),
        ("mutant-start", "game-start", "not 12 or 11"),
        ("mutant-sleep-timer", "game-sleep", "sleeps in idle"),
        ("mutant-no-debounce", "game-presses", "not one beep"),
    ],
)
def test_each_broken_build_fails_its_own_check(
    capsys: pytest.CaptureFixture[str], variant: str, check: str, says: str
) -> None:
    rc, out = run(capsys, hex_of(variant), *BOARD, "--only", check, "--positions", "4")
    c = checks(out)[check]
    assert rc == 1 and out["build"] == variant
    assert c["status"] == "fail" and says in c["reason"], c["reason"]


def test_a_file_that_is_no_build_of_ours_skips_the_reply_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # two mutants at once: a build no variant of the target makes
    odd = hex_of("mutant-start", SDG_MUTANT_FIRST_WIN=1)
    rc, out = run(capsys, odd, *BOARD, "--only", "game-reply")
    assert rc == 0
    c = checks(out)["game-reply"]
    assert out["build"] is None
    assert c["status"] == "skipped" and "a way to place a position" in c["reason"]


def board(name: str, mcu: str, pin: str, **header: str) -> Board:
    led = {"name": "a", "anode": pin, "cathode": "GND"}
    head = {"name": name, "mcu": mcu, "f_cpu": 1_000_000, "vcc_mv": 3000, **header}
    return parse_board({"board": head, "led": [led]})


def test_the_checks_apply_to_the_games_board_only() -> None:
    assert applies(load_board("silver-dollar")) is None
    assert applies(board("d", "attiny13a", "PB0")) == (
        "board d is no Silver Dollar Game: it lacks a display strip of the 12 LEDs c12..c1,"
        " buttons 1..5 and go"
    )
    broken = board("g", "attiny84a", "PA0", firmware="sdg_t84a")
    with pytest.raises(BoardError, match="names firmware sdg_t84a but lacks the game"):
        applies(broken)
