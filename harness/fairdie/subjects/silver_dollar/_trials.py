"""One emulated trial of the game at a time: a start from power-on, the
device's reply from a placed position, a whole game against a scripted
player. Verify's checks and the exhaustive sweep (:mod:`._sweep`) are made
of these, so a check and a campaign judge the same runs.

Every trial is drawn from ``(seed, what, index)`` alone (a string seed of
:class:`random.Random`): the same trial gives the same result in any
process, in any order, which is what lets a campaign spread them over jobs.
The device's replies are read from its LEDs and judged by the solver
(:mod:`._solver`), never by the firmware's own formula.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar._solver import (
    Move,
    Player,
    Position,
    apply,
    format_position,
    legal_moves,
    perfect_player,
    random_player,
)

if TYPE_CHECKING:
    from fairdie.device import Setup
    from fairdie.sim import Chip
    from fairdie.subjects.silver_dollar._game import Game

    #: what a chip made for a trial is handed to (verify counts its chips)
    Track = Callable[[Chip], Chip]

__all__ = [
    "TARGET",
    "TEST_DEFINES",
    "TEST_VARIANT",
    "GameOver",
    "Played",
    "draw",
    "game_on",
    "placing_setup",
    "play",
    "play_game",
    "reply_trial",
    "start_game",
    "start_trial",
]

#: the game's firmware target
TARGET = "sdg_t84a"
#: its build that places a position in EEPROM at power-on, and the define that makes one
TEST_VARIANT = "test-position"
TEST_DEFINES = {"SDG_TEST_POSITION": 1}
#: the idle time before a start's GO is drawn from this range (seconds):
#: the moment a person presses GO is the start's chance
START_WAIT_S = (0.05, 1.0)
#: the most moves a game can last: each moves a dollar one cell at least
_MAX_MOVES = 12 * 5


class GameOver(FairdieError):
    """A game's run went wrong: no reply, a position that no move explains."""


def draw(seed: int, what: str, index: int) -> random.Random:
    """The random source of one trial: from the seed and the trial alone."""
    return random.Random(f"sdg:{seed}:{what}:{index}")


def game_on(setup: Setup, seed: int, track: Track | None = None, *, record: bool = True) -> Game:
    """A fresh game on a fresh chip of ``setup`` (handed to ``track`` first),
    its bounce drawn from ``seed``. Without ``record`` its chip records no
    trace (a trial read off the strip alone: it runs the same, only cheaper)."""
    from fairdie.sim import EventKind
    from fairdie.subjects.silver_dollar._game import Game

    assert setup.board is not None
    chip = setup.chip()
    game = Game(track(chip) if track is not None else chip, setup.board, seed=seed)
    if not record:
        game.chip.trace_kinds = EventKind(0)
    return game


def placing_setup(setup: Setup, variant: str | None) -> Setup | str:
    """A setup whose firmware places a position: ``setup`` itself when it is
    the test-position build, else the build ``variant`` of the game's target
    with the test position added; or why there is none (one line)."""
    from fairdie.device import Setup
    from fairdie.toolchain import build

    if variant == TEST_VARIANT:
        return setup
    board = setup.board
    if variant is None or board is None:
        return (
            "the file is not one of the game's builds: the reply check needs a way to place"
            " a position (the test-position build of the same variant)"
        )
    try:
        elf = build(TARGET, variant=variant, mcu=setup.mcu, f_cpu=setup.f_cpu, defines=TEST_DEFINES)
    except FairdieError as e:
        return f"cannot build {variant} with the test position: {e}"
    return Setup.make(Path(elf.elf), board=board, seed=setup.seed)


def start_game(
    setup: Setup, seed: int, index: int, track: Track | None = None, *, record: bool = True
) -> tuple[Game, Position]:
    """Game ``index`` started: power on, idle a drawn while, press GO, read
    the strip; the game and its start (``record``: as :func:`game_on`)."""
    rng = draw(seed, "start", index)
    game = game_on(setup, rng.getrandbits(32), track, record=record)
    game.power_on()
    game.chip.run(seconds=rng.uniform(*START_WAIT_S))
    return game, game.start()


def start_trial(setup: Setup, seed: int, index: int) -> Position:
    """Game ``index``'s start (:func:`start_game`, recording no trace)."""
    return start_game(setup, seed, index, record=False)[1]


def reply_trial(
    setup: Setup, position: Position, seed: int, index: int, track: Track | None = None
) -> Move:
    """The device's reply from ``position`` (itself to move), trial ``index``:
    placed with drawn chance in a fresh chip of the test-position ``setup``
    (which records no trace: the reply is read off the strip)."""
    rng = draw(seed, f"reply:{position}", index)
    game = game_on(setup, rng.getrandbits(32), track, record=False)
    game.place(position, rng.getrandbits(32))
    game.power_on()
    move = game.wait_reply(position)
    if move is None:
        raise GameOver(f"no reply from {format_position(position)}")
    return move


@dataclass(frozen=True)
class Played:
    """One game against a scripted player."""

    start: Position
    human_won: bool
    moves: int  #: both players' moves
    last_mark: int = 0  #: the trace mark before the last move (its tune follows)


def play(game: Game, script: Player, start: Position) -> Played:
    """Play ``script`` for the human from ``start`` (shown, the human to move)
    against the device, to the game's end."""
    pos = start
    for n in range(1, _MAX_MOVES + 1):
        mark = game.chip.trace.mark()
        move = script(pos)
        mine = apply(pos, move)
        game.move(move)
        if not legal_moves(mine):
            return Played(start, True, 2 * n - 1, mark)
        reply = game.wait_reply(mine)
        if reply is None:
            raise GameOver(f"no reply from {format_position(mine)}")
        pos = apply(mine, reply)
        if not legal_moves(pos):
            return Played(start, False, 2 * n, mark)
    raise GameOver(f"a game from {format_position(start)} lasted over {_MAX_MOVES} moves")


def play_game(
    setup: Setup, player: str, seed: int, index: int, track: Track | None = None
) -> Played:
    """Game ``index`` from power-on against ``player`` ("perfect" or "random",
    each drawing from the trial's random source), to its end; its chip
    records no trace (the game is read off the strip; ``last_mark`` is 0)."""
    rng = draw(seed, f"play:{player}", index)
    script: Player = perfect_player(rng) if player == "perfect" else random_player(rng)
    game = game_on(setup, rng.getrandbits(32), track, record=False)
    game.power_on()
    game.chip.run(seconds=rng.uniform(*START_WAIT_S))
    return play(game, script, game.start())
