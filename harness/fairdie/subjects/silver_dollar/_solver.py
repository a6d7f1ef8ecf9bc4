"""The Silver Dollar Game solved by brute force: the referee of the device's play.

Five silver dollars lie on distinct cells of a strip numbered 12 (left end)
down to 1 (right end). A move takes one dollar one or more cells to the
right, into empty cells only (no landing on or jumping over another dollar,
never off the strip); the player who cannot move loses.

The game is a disguised Nim, and the firmware plays it by the Nim formula.
This module does not: it searches the game tree (a position is won for the
player to move when some move leaves a position that is lost for the
other), memoised over positions encoded as 12-bit masks, so that it checks
the firmware's play rather than repeating its arithmetic. The whole tree
(all C(12, 5) = 792 positions) takes a few milliseconds.

A position is an ``int``: bit ``c - 1`` is set when cell ``c`` holds a
dollar. It is written as its cells in descending order, ``"12,9,6,3,1"``
(:func:`parse_position`, :func:`format_position`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from functools import cache, lru_cache
from itertools import combinations
from typing import NamedTuple

from fairdie.errors import FairdieError

__all__ = [
    "CELLS",
    "DOLLARS",
    "Move",
    "Player",
    "Position",
    "PositionError",
    "all_positions",
    "apply",
    "button",
    "cells",
    "format_position",
    "from_cells",
    "legal_moves",
    "move_between",
    "parse_position",
    "perfect_player",
    "random_player",
    "valid_starts",
    "winning_moves",
    "wins",
]

#: cells on the strip, numbered CELLS (left end) down to 1 (right end)
CELLS = 12
#: dollars in play
DOLLARS = 5
#: the leftmost dollar of a start is on one of these cells (no trivial games)
START_CELLS = frozenset({12, 11})

#: a set of occupied cells: bit ``c - 1`` for cell ``c``
Position = int


class PositionError(FairdieError):
    """A position or a move is not one of the game's (bad cells, an illegal move)."""


class Move(NamedTuple):
    """One dollar moved from cell ``src`` to cell ``dst`` (``dst < src``)."""

    src: int
    dst: int

    @property
    def steps(self) -> int:
        """Cells travelled: the presses of the dollar's button."""
        return self.src - self.dst

    def __str__(self) -> str:
        return f"{self.src}->{self.dst}"


#: a strategy: the move it makes from a position that has one
Player = Callable[[Position], Move]


def _bit(cell: int) -> int:
    return 1 << (cell - 1)


#: the solver's answers about one position are memoised: play reads them many
#: times a game (a mask of the strip's 12 cells has 4096 values; as many lists
#: of cells are kept)
_MEMO = 1 << CELLS


@lru_cache(maxsize=_MEMO)
def cells(pos: Position) -> tuple[int, ...]:
    """The occupied cells, leftmost (highest) first."""
    return tuple(c for c in range(CELLS, 0, -1) if pos & _bit(c))


def from_cells(occupied: Iterable[int]) -> Position:
    """The position with a dollar on each of ``occupied`` (five distinct cells 1..12)."""
    return _from_cells(tuple(occupied))


@lru_cache(maxsize=_MEMO)
def _from_cells(given: tuple[int, ...]) -> Position:
    bad = [c for c in given if not 1 <= c <= CELLS]
    if bad:
        raise PositionError(f"cell {bad[0]} is off the strip (cells are 1..{CELLS})")
    if len(set(given)) != len(given):
        raise PositionError(f"two dollars on one cell in {list(given)}")
    if len(given) != DOLLARS:
        raise PositionError(f"a position has {DOLLARS} dollars, not {len(given)}")
    pos = 0
    for c in given:
        pos |= _bit(c)
    return pos


def parse_position(text: str) -> Position:
    """A position from its cells, as in ``"12,9,6,3,1"`` (any order, commas)."""
    try:
        given = [int(part) for part in text.split(",")]
    except ValueError:
        raise PositionError(f"position {text!r} is not five cell numbers like 12,9,6,3,1") from None
    return from_cells(given)


def format_position(pos: Position) -> str:
    """The position's cells, descending: ``"12,9,6,3,1"``."""
    return ",".join(str(c) for c in cells(pos))


@lru_cache(maxsize=_MEMO)
def _legal(pos: Position) -> tuple[Move, ...]:
    out = []
    for src in cells(pos):
        dst = src - 1
        while dst >= 1 and not pos & _bit(dst):
            out.append(Move(src, dst))
            dst -= 1
    return tuple(out)


def legal_moves(pos: Position) -> list[Move]:
    """Every legal move, by dollar from the left, then by distance (shortest first)."""
    return list(_legal(pos))


def apply(pos: Position, move: Move) -> Position:
    """The position after ``move``; an illegal move is a :class:`PositionError`."""
    src, dst = move
    legal = 1 <= dst < src <= CELLS and pos & _bit(src)
    # the cells dst..src-1, which the dollar lands on or passes, must be empty
    if not legal or pos & (_bit(src) - _bit(dst)):
        raise PositionError(f"move {move} is not legal from {format_position(pos)}")
    return pos & ~_bit(src) | _bit(dst)


@cache
def wins(pos: Position) -> bool:
    """Whether the player to move can force a win (a search of the game tree)."""
    return any(not wins(apply(pos, m)) for m in _legal(pos))


def winning_moves(pos: Position) -> list[Move]:
    """The moves that leave the other player a lost position (none from a lost one)."""
    return list(_winning(pos))


@lru_cache(maxsize=_MEMO)
def _winning(pos: Position) -> tuple[Move, ...]:
    return tuple(m for m in _legal(pos) if not wins(apply(pos, m)))


def all_positions() -> list[Position]:
    """Every position of five dollars on twelve cells (792), in mask order."""
    return list(_all_positions())


@cache
def _all_positions() -> tuple[Position, ...]:
    return tuple(sorted(from_cells(c) for c in combinations(range(1, CELLS + 1), DOLLARS)))


def valid_starts() -> list[Position]:
    """The starts the spec allows: the leftmost dollar on cell 12 or 11, and the
    human, who moves first, can force a win."""
    return list(_valid_starts())


@cache
def _valid_starts() -> tuple[Position, ...]:
    return tuple(p for p in all_positions() if cells(p)[0] in START_CELLS and wins(p))


def move_between(before: Position, after: Position) -> Move:
    """The legal move that turns ``before`` into ``after``, else a :class:`PositionError`."""
    for m in _legal(before):
        if apply(before, m) == after:
            return m
    raise PositionError(
        f"no legal move turns {format_position(before)} into {format_position(after)}"
    )


def button(pos: Position, move: Move) -> int:
    """The button that moves ``move``'s dollar: 1 for the leftmost dollar .. 5."""
    occupied = cells(pos)
    if move.src not in occupied:
        raise PositionError(f"no dollar on cell {move.src} in {format_position(pos)}")
    return occupied.index(move.src) + 1


def _no_move(pos: Position) -> PositionError:
    return PositionError(f"no legal move from {format_position(pos)}: the game is over")


def random_player(rng: random.Random) -> Player:
    """A player who makes a uniformly random legal move."""

    def play(pos: Position) -> Move:
        moves = legal_moves(pos)
        if not moves:
            raise _no_move(pos)
        return rng.choice(moves)

    return play


def perfect_player(rng: random.Random | None = None) -> Player:
    """A player who makes a winning move whenever there is one, else a legal
    move: the first of each list, or a uniform choice when given ``rng``."""

    def play(pos: Position) -> Move:
        moves = winning_moves(pos) or legal_moves(pos)
        if not moves:
            raise _no_move(pos)
        return rng.choice(moves) if rng is not None else moves[0]

    return play
