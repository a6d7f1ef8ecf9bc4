"""The game's shipped suite through the plugin on a HEX, in process (pytester):
a good build passes it, and each broken build fails it, by the test that
catches it.

The game's HEX runs the tests that make every call of the game without the
ELF's symbols (:data:`ON_THE_HEX`); the tests that place a position in
EEPROM skip on it, saying so, and run on a HEX that reads one (the game
built with SDG_TEST_POSITION=1, as a mutant may be too). The outer session
runs every test of the suite on the builds' ELFs.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

# The inner runs share this process: the engine is loaded before any of them
# (see test_plugin.py).
import fairdie.sim._chip
import fairdie.subjects.silver_dollar._game  # noqa: F401
from fairdie.sim import load_firmware
from fairdie.subjects.silver_dollar._solver import format_position
from fairdie.subjects.silver_dollar.suite.test_device_play import CHOOSING, LOST, WINNABLE
from fairdie.toolchain import Build, build, default_cache_dir

SUITE = (
    "--pyargs",
    "fairdie.subjects.silver_dollar.suite",
    "-p",
    "no:cacheprovider",
    "--fairdie-board=silver-dollar",
)
TARGET = "sdg_t84a"
PLACED = {"SDG_TEST_POSITION": 1}


Built = Callable[..., Build]


@pytest.fixture(scope="module")
def built() -> Built:
    """``built(variant, placed=False)``: a build, from the session's build
    cache (set up before pytester points HOME, and so the default cache, at
    an empty folder, where each build would compile afresh)."""
    cache = default_cache_dir()

    def make(variant: str, *, placed: bool = False) -> Build:
        return build(TARGET, variant=variant, defines=PLACED if placed else {}, cache_dir=cache)

    return make


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    return {k: v for k, v in result.parseoutcomes().items() if k in ("passed", "failed", "skipped")}


#: the suite's tests run on the game's HEX: the perfect player's games make
#: every call of the game a test makes (start, moves, replies, positions read
#: off the strip without the ELF's symbols, ghosts by brightness, notes), and
#: the refresh test asks for ghosts itself; one test that places a position
#: and one slow sweep show that they skip, saying why. The rest make the same
#: calls, and the outer session runs every test on the same bytes (asserted)
#: from the same seed, so their results would be the same run again
ON_THE_HEX = "perfect_player or refreshed or devices_tune or every_valid_start"


def test_the_suite_runs_on_the_games_hex_alone(pytester: pytest.Pytester, built: Built) -> None:
    game = built("game")
    hex_path = str(game.hex)
    assert load_firmware(game.hex).flash == load_firmware(game.elf).flash
    r = pytester.runpytest_inprocess(
        *SUITE, f"--fairdie-firmware={hex_path}", "-rs", "-k", ON_THE_HEX
    )
    assert r.ret == 0, r.stdout.str()[-3000:]
    assert outcomes(r) == {"passed": 2, "skipped": 2}, r.stdout.str()[-3000:]
    for why in (
        "needs a position placed in EEPROM: the given firmware reads none",
        "an exhaustive sweep: run it with -m slow",
    ):
        r.stdout.fnmatch_lines([f"SKIPPED *{why}*"])


#: each test that places a position, once (the outer session runs every
#: case of them, on this build's ELF: the cases differ in the position only),
#: and the two slow sweeps, which skip; and play from the build's own starts
#: (the replies of a game under way, which no placed position makes)
PLACING = (
    (
        "test_device_play",
        "test_through_play_the_device_replies_to_win_and_spreads_its_choice",
        None,
    ),
    ("test_device_play", "test_a_winning_reply_leaves_the_human_a_lost_position", WINNABLE),
    ("test_device_play", "test_without_a_winning_reply_the_device_makes_a_legal_move", LOST),
    ("test_device_play", "test_each_winning_reply_is_chosen_about_equally_often", CHOOSING),
    ("test_presses", "test_the_devices_tune_plays_its_notes_a5_at_880_hz", None),
    ("test_device_play", "test_every_position_the_device_replies_as_the_solver_says", None),
    ("test_device_play", "test_every_choice_is_uniform", None),
)


def test_a_hex_that_reads_a_placed_position_runs_the_tests_that_place_one(
    pytester: pytest.Pytester, built: Built
) -> None:
    hex_path = str(built("test-position").hex)
    tests = [
        f"{SUITE[1]}.{module}::{name}" + (f"[{format_position(cases[0])}]" if cases else "")
        for module, name, cases in PLACING
    ]
    r = pytester.runpytest_inprocess(
        "--pyargs", *tests, *SUITE[2:], f"--fairdie-firmware={hex_path}"
    )
    assert r.ret == 0, r.stdout.str()[-3000:]
    # each placing test runs and passes (none skips for want of a placed
    # position), and play; only the slow sweeps skip
    assert outcomes(r) == {"passed": 5, "skipped": 2}, r.stdout.str()[-3000:]


#: each broken build, whether its HEX reads a placed position, the tests run
#: (-k) and those of them that must fail
MUTANTS = {
    "mutant-led-table": (False, "a_valid_step", ["test_a_valid_step_moves_one_dollar*"]),
    "mutant-first-win": (
        True,
        "equally_often or through_play",
        [
            "test_each_winning_reply_is_chosen_about_equally_often*",
            "test_through_play_the_device_replies_to_win_and_spreads_its_choice",
        ],
    ),
    "mutant-start": (False, "every_start", ["test_every_start_is_a_win_for_the_human*"]),
    "mutant-sleep-timer": (False, "powers_down", ["test_after_30_s_idle_it_powers_down*"]),
    "mutant-no-debounce": (False, "one_press_is_one_step", ["test_one_press_is_one_step*"]),
}


#: slow (a long -k run each); the suite's mutants show the same: a broken
#: build fails the suite by the test that catches it, and nothing passes
SLOW_MUTANTS = {"mutant-first-win", "mutant-led-table"}


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, marks=pytest.mark.slow if v in SLOW_MUTANTS else ()) for v in MUTANTS],
)
def test_a_broken_build_fails_the_suite_by_the_test_that_catches_it(
    pytester: pytest.Pytester, built: Built, variant: str
) -> None:
    placed, tests, failing = MUTANTS[variant]
    hex_path = str(built(variant, placed=placed).hex)
    r = pytester.runpytest_inprocess(*SUITE, f"--fairdie-firmware={hex_path}", "-k", tests)
    assert r.ret == pytest.ExitCode.TESTS_FAILED, r.stdout.str()[-3000:]
    r.stdout.fnmatch_lines([f"FAILED *::{name}*" for name in failing])
    assert "passed" not in outcomes(r), r.stdout.str()[-3000:]


def test_the_suite_on_a_board_that_is_no_game_is_one_usage_error(
    pytester: pytest.Pytester,
) -> None:
    r = pytester.runpytest_inprocess(*SUITE[:4], "--fairdie-board=die-direct")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    out = r.stdout.str() + r.stderr.str()
    assert "the game suite needs a Silver Dollar Game board: board die-direct" in out
    assert "Traceback" not in out
