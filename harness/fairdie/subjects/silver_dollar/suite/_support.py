"""What the game suite's modules share: fresh games from the device's own
starts, whole games played by a strategy, replies from placed positions,
and the game's sounds as note names.

Every position here is read off the strip (:meth:`Game.position`) and
judged by the solver; nothing models the firmware.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fairdie.subjects.silver_dollar._solver import (
    Move,
    Player,
    Position,
    apply,
    format_position,
    legal_moves,
)

if TYPE_CHECKING:
    from fairdie.subjects.silver_dollar._game import Game, Note

__all__ = [
    "A5_HZ",
    "BEEP",
    "CLICK",
    "DEVICE_WINS",
    "HUMAN_WINS",
    "ONE_TIMER_STEP_HZ",
    "Factory",
    "Measured",
    "Played",
    "games",
    "names",
    "play",
    "reply",
    "starts",
]

#: ``game_factory(variant=None, position=None, chance=0, seed=None)``
Factory = Callable[..., "Game"]
#: the suite's ``measured(name, value)`` fixture
Measured = Callable[[str, object], None]

#: the game's sounds (main.c's banner): (note, seconds) of each sound
CLICK = (("B5", 0.02),)
BEEP = (("C5", 0.15),)
HUMAN_WINS = ("C5", "E5", "G5", "A5", "B5")
DEVICE_WINS = ("A5", "F5", "D5", "C5")
A5_HZ = 880.0
#: one step of Timer1's TOP near A5 at 8 MHz and /64 (TOP 70 against 71)
ONE_TIMER_STEP_HZ = 8e6 / 128 / 71 - 8e6 / 128 / 72
#: before GO, a game waits up to this long (chance comes from when GO is pressed)
MAX_WAIT_S = 0.3


def names(notes: list[Note]) -> tuple[str, ...]:
    """The notes' names, in order ("" for a tone off the game's octave)."""
    return tuple(n.name for n in notes)


def games(factory: Factory, n: int, seed: int, **kwargs: object) -> Iterator[Game]:
    """``n`` fresh games, powered on and idle, each from its own seed and
    left idle a drawn while before GO (as people press GO when they like)."""
    rng = random.Random(f"games:{seed}")
    for _ in range(n):
        game = factory(seed=rng.getrandbits(32), **kwargs)
        game.power_on()
        game.chip.run(seconds=rng.uniform(0.02, MAX_WAIT_S))
        yield game


def starts(factory: Factory, n: int, seed: int) -> Iterator[tuple[Game, Position]]:
    """``n`` fresh games started by GO, with the start each shows."""
    for game in games(factory, n, seed):
        yield game, game.start()


@dataclass(frozen=True)
class Played:
    """One whole game: its start, every move (the human's first), the winner."""

    start: Position
    moves: tuple[Move, ...]
    human_won: bool

    def __str__(self) -> str:
        line = " ".join(str(m) for m in self.moves)
        who = "the human" if self.human_won else "the device"
        return f"from {format_position(self.start)}: {line}; {who} won"


def play(game: Game, start: Position, player: Player) -> Played:
    """Play a started game to its end, the human moving by ``player``; the
    strip must show each move as the solver applies it."""
    pos, moves = start, []
    while True:
        mine = player(pos)
        game.move(mine)
        pos = apply(pos, mine)
        moves.append(mine)
        shown = game.position()
        assert shown == pos, (
            f"after the human's {mine} the strip shows {format_position(shown)},"
            f" not {format_position(pos)} ({_so_far(start, moves)})"
        )
        if not legal_moves(pos):
            return Played(start, tuple(moves), human_won=True)
        theirs = game.wait_reply(pos)
        assert theirs is not None
        pos = apply(pos, theirs)
        moves.append(theirs)
        if not legal_moves(pos):
            return Played(start, tuple(moves), human_won=False)


def _so_far(start: Position, moves: list[Move]) -> str:
    return f"from {format_position(start)}: " + " ".join(str(m) for m in moves)


def reply(factory: Factory, position: Position, chance: int, **kwargs: object) -> Move:
    """The device's move from ``position`` placed in EEPROM with ``chance``,
    read off the strip (a fresh game each time)."""
    game = factory(position=position, chance=chance, **kwargs)
    game.power_on()
    move = game.wait_reply(position, timeout_s=0.5)
    assert move is not None
    return move
