"""``fairdie silver-dollar``: the game's commands, each on the emulated firmware.

- ``starts``: the start positions of N games, each from power-on with GO
  pressed at a moment drawn (seeded) from a person's timing, read off the
  strip; how many differ, against the solver's count of valid starts;
- ``reply``: the device's move from a placed position (the test-position
  build), over K trials of different chance, judged by the solver;
- ``play``: the game in the terminal (:mod:`._play`).

The solver only judges: every position reported is read from the LEDs, and
every move is the firmware's own. Bad input is one line and exit 2.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from fairdie._cmdline import SEED, Parser, int_in, parser_once, run_command
from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar._solver import (
    Move,
    Position,
    PositionError,
    format_position,
    legal_moves,
    parse_position,
    valid_starts,
    winning_moves,
)

__all__ = ["BOARD", "MAX_GAMES", "MAX_TRIALS", "TEST_VARIANT", "main", "make_setup"]

#: the game's board, and its build that takes a placed position
BOARD = "silver-dollar"
TEST_VARIANT = "test-position"
MAX_GAMES = 100_000
MAX_TRIALS = 100_000
#: the significance level of the chi-square test of the replies' spread
ALPHA = 0.01


def _position(text: str) -> Position:
    try:
        return parse_position(text)
    except PositionError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_common(p: argparse.ArgumentParser, *, default_build: str) -> None:
    p.add_argument(
        "--firmware",
        type=Path,
        metavar="HEX_OR_ELF",
        help=f"a build of the game to run (default: build the board's target, {default_build})",
    )
    p.add_argument("--board", default=BOARD, metavar="NAME_OR_TOML", help=f"default {BOARD}")
    p.add_argument("--seed", type=SEED, default=0, metavar="S")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def make_setup(a: argparse.Namespace, variant: str | None = None) -> Any:
    """The :class:`~fairdie.device.Setup` of ``--firmware``/``--board``: the
    given file, else the board's target built as ``variant`` (else the
    board's own); refused when the board is no game's."""
    from fairdie.board import load_board
    from fairdie.device import Setup
    from fairdie.subjects.silver_dollar._game import is_game_board

    board = load_board(a.board)
    if not is_game_board(board):  # before anything is built
        raise FairdieError(
            f"board {board.name} is no Silver Dollar Game's: it needs a display"
            ' "strip" of the LEDs c12..c1 and buttons 1..5 and go'
        )
    setup = Setup.make(
        a.firmware, board=board, variant=None if a.firmware else variant, seed=a.seed
    )
    note = setup.clock_note()
    if note is not None:
        print(f"fairdie: note: {note}", file=sys.stderr)
    return setup


def _game(setup: Any) -> Any:
    from fairdie.subjects.silver_dollar._game import Game

    dev = setup.device()
    assert isinstance(dev, Game)
    return dev


# ---- starts -----------------------------------------------------------------------


def _starts(a: argparse.Namespace) -> int:
    from fairdie.sim import EventKind
    from fairdie.stimulus import HUMAN

    setup = make_setup(a)
    waits = HUMAN.presses(a.seed)  # when the person presses GO after power-on
    starts: list[Position] = []
    for _ in range(a.games):
        game = _game(setup)
        game.chip.trace_kinds = EventKind(
            0
        )  # the strip is read from the LEDs' light: no trace needed
        game.power_on()
        game.chip.run(seconds=next(waits).interval)
        starts.append(game.start())
    valid = set(valid_starts())
    invalid = sorted({format_position(p) for p in starts if p not in valid})
    out = {
        "games": a.games,
        "seed": a.seed,
        "starts": [format_position(p) for p in starts],
        "distinct": len(set(starts)),
        "valid_starts": len(valid),
        "invalid": invalid,
        "timing": str(HUMAN),
        "board": setup.board.name,
        "firmware": str(setup.firmware),
        "replay": a.replay,
    }
    if a.json:
        print(json.dumps(out))
    else:
        for i, p in enumerate(starts, 1):
            print(f"game {i}: {format_position(p)}")
        print(
            f"{out['distinct']} distinct starts in {a.games} games;"
            f" the solver counts {len(valid)} valid starts    replay: {a.replay}"
        )
    if invalid:
        print(
            f"fairdie: {len(invalid)} of the starts are not valid starts: {', '.join(invalid)}",
            file=sys.stderr,
        )
        return 1
    return 0


# ---- reply ------------------------------------------------------------------------


def _reply(a: argparse.Namespace) -> int:
    pos: Position = a.position
    if not legal_moves(pos):
        raise FairdieError(f"{format_position(pos)} is the end: the device has no move to make")
    setup = make_setup(a, TEST_VARIANT)
    rng = random.Random(f"reply:{a.seed}")
    wins = winning_moves(pos)
    trials: list[dict[str, Any]] = []
    for i in range(a.trials):
        game = _game(setup)
        game.place(pos, rng.getrandbits(32))
        game.power_on()
        try:
            move = game.wait_reply(pos)
        except FairdieError as e:
            if i or game.held() == pos or "no reply" not in str(e):
                raise
            raise FairdieError(
                f"{e}: is {setup.firmware.name} a test-position build (SDG_TEST_POSITION=1)?"
            ) from None
        assert move is not None  # pos has a legal move
        after = game.position()
        trials.append({"move": str(move), "after": format_position(after), "winning": move in wins})
    tally = Counter(t["move"] for t in trials)
    out: dict[str, Any] = {
        "position": format_position(pos),
        "trials": a.trials,
        "seed": a.seed,
        "replies": trials,
        "tally": dict(sorted(tally.items())),
        "winning_replies": [str(m) for m in wins],
        "all_winning": bool(wins) and all(t["winning"] for t in trials),
        "legal_replies": len(legal_moves(pos)),
        "uniform": _uniform(tally, wins, a.trials),
        "board": setup.board.name,
        "firmware": str(setup.firmware),
        "replay": a.replay,
    }
    if a.json:
        print(json.dumps(out))
    else:
        _print_reply(out, wins)
    # a device that has a winning reply and misses it loses a won game
    return 1 if wins and not out["all_winning"] else 0


def _uniform(tally: Counter[str], wins: list[Move], trials: int) -> dict[str, Any] | None:
    """The chi-square test that the winning replies were chosen equally often,
    when there are two or more and enough trials (else None)."""
    from fairdie.subjects.silver_dollar._stats import MIN_EXPECTED, uniform_fit

    if len(wins) < 2 or trials < MIN_EXPECTED * len(wins):
        return None
    fit = uniform_fit([tally.get(str(m), 0) for m in wins], ALPHA)
    return {"uniform": fit.uniform, "statistic": fit.statistic, "critical": fit.critical,
            "alpha": ALPHA, "text": str(fit)}  # fmt: skip


def _print_reply(out: dict[str, Any], wins: list[Move]) -> None:
    for i, t in enumerate(out["replies"], 1):
        verdict = "winning" if t["winning"] else "not winning"
        print(f"trial {i}: {out['position']} -> {t['after']}  ({t['move']}, {verdict})")
    tally = ", ".join(f"{m} x{n}" for m, n in out["tally"].items())
    print(f"replies: {tally}")
    if wins:
        print(
            f"the solver's winning replies: {', '.join(out['winning_replies'])};"
            f" {'every' if out['all_winning'] else 'NOT every'} reply was one"
        )
    else:
        print(f"no winning reply from {out['position']}: any of {out['legal_replies']} is fair")
    if out["uniform"] is not None:
        print(f"spread over the winning replies: {out['uniform']['text']}")
    print(f"replay: {out['replay']}")


# ---- the command ------------------------------------------------------------------


@parser_once
def _parser() -> Parser:
    p = Parser(
        prog="fairdie silver-dollar",
        description="The Silver Dollar Game on its emulated firmware.",
        epilog="Also: fairdie silver-dollar sweep (the exhaustive campaign; its own --help).",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    s = sub.add_parser(
        "starts",
        help="the start positions of N games, read from the LEDs",
        description="Power on N times, press GO when a person would (seeded), read each start.",
    )
    s.add_argument("--games", type=int_in(1, MAX_GAMES), default=20, metavar="N")
    _add_common(s, default_build="game")
    r = sub.add_parser(
        "reply",
        help="the device's move from a position, over K trials",
        description="Place a position with the device to move (the test-position build) and"
        " read its reply off the LEDs, K times with different chance; the solver judges.",
    )
    r.add_argument(
        "--position", type=_position, required=True, metavar="CELLS", help="e.g. 12,9,6,3,1"
    )
    r.add_argument("--trials", type=int_in(1, MAX_TRIALS), default=20, metavar="K")
    _add_common(r, default_build=TEST_VARIANT)
    g = sub.add_parser(
        "play",
        help="play the game in the terminal",
        description="Play the emulated game: keys 1..5 press the dollars' buttons, space is"
        " GO, q quits; the device's sounds are shown as notes.",
    )
    _add_common(g, default_build="game")
    return p


def _run(a: argparse.Namespace) -> int:
    if a.command == "starts":
        return _starts(a)
    if a.command == "reply":
        return _reply(a)
    from fairdie.subjects.silver_dollar._play import play_command

    return play_command(a)


def main(argv: list[str]) -> int:
    """``fairdie silver-dollar COMMAND ...``; returns the exit status."""
    if argv[:1] == ["sweep"]:  # the campaign parses its own options (_sweep.py)
        from fairdie.subjects.silver_dollar._sweep import sweep_main

        return sweep_main(argv[1:])
    return run_command(_parser(), argv, _run, replay=True)
