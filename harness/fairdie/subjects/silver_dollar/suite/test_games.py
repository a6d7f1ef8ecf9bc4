"""Whole games from the device's own starts, on any build of the game.

- Starts: each has its leftmost dollar on cell 12 or 11 and is one the
  human can force a win from (the solver); over many games the starts seen
  approach the solver's count of valid starts (444), and no other appears.
- Players: a perfect player (the solver's) wins every game, to the human's
  tune; a random player loses nearly always, at about the rate the solver
  gives for it against a device that plays as the spec says (1.1 %).

Each game is a fresh chip from its own seed, GO pressed after a drawn wait:
the start's chance is the moment of GO, as for a person.
"""

from __future__ import annotations

import math
import random
from functools import cache

import pytest

from fairdie.subjects.silver_dollar._solver import (
    START_CELLS,
    Position,
    apply,
    cells,
    format_position,
    legal_moves,
    perfect_player,
    random_player,
    valid_starts,
    winning_moves,
    wins,
)
from fairdie.subjects.silver_dollar.suite._support import (
    HUMAN_WINS,
    Factory,
    Measured,
    names,
    play,
    starts,
)

pytestmark = pytest.mark.sim

STARTS = 60
#: enough games that a uniform draw of 444 starts misses one with a chance
#: of about 444 * exp(-6000 / 444) = 6e-4
ALL_STARTS = 6000
PERFECT_GAMES = 3
RANDOM_GAMES = 12
RANDOM_GAMES_SLOW = 1000


def _bad_start(start: Position) -> str | None:
    if cells(start)[0] not in START_CELLS:
        return f"{format_position(start)}: its leftmost dollar is on cell {cells(start)[0]}"
    if not wins(start):
        return f"{format_position(start)}: the human cannot force a win from it"
    return None


def _check_starts(factory: Factory, n: int, seed: int, measured: Measured) -> set[Position]:
    seen: set[Position] = set()
    for i, (_, start) in enumerate(starts(factory, n, seed)):
        bad = _bad_start(start)
        assert bad is None, f"game {i}: start {bad}"
        seen.add(start)
    measured("distinct_starts", f"{len(seen)} of {len(valid_starts())} in {n} games")
    return seen


def test_every_start_is_a_win_for_the_human_from_cell_12_or_11(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    seen = _check_starts(game_factory, STARTS, fairdie_seed, measured)
    # 60 draws of 444: a uniform draw repeats itself a few times, not often
    assert len(seen) >= STARTS - 12, f"only {len(seen)} distinct starts in {STARTS} games"


@pytest.mark.slow
def test_the_starts_seen_are_every_valid_start(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    seen = _check_starts(game_factory, ALL_STARTS, fairdie_seed, measured)
    missing = set(valid_starts()) - seen
    assert not missing, (
        f"{len(missing)} valid starts never seen in {ALL_STARTS} games,"
        f" e.g. {', '.join(format_position(p) for p in sorted(missing)[:5])}"
    )


def test_a_perfect_player_wins_every_game_to_the_humans_tune(
    game_factory: Factory, fairdie_seed: int
) -> None:
    for game, start in starts(game_factory, PERFECT_GAMES, fairdie_seed):
        played = play(game, start, perfect_player(random.Random(start)))
        assert played.human_won, f"the perfect player lost: {played}"
        mark = game.chip.trace.mark()
        game.chip.run(seconds=0.8)
        assert names(game.notes(mark)) == HUMAN_WINS, f"{played}: {game.notes(mark)}"


@cache
def _random_player_wins(pos: Position, human: bool) -> float:
    """The chance that a random player to move (``human``) or facing the
    device from ``pos`` wins, the device playing as the spec says."""
    moves = legal_moves(pos)
    if not moves:
        return 0.0 if human else 1.0
    choose = moves if human else winning_moves(pos) or moves
    return sum(_random_player_wins(apply(pos, m), not human) for m in choose) / len(choose)


def expected_random_win_rate() -> float:
    """The random player's chance to win from a uniformly drawn valid start."""
    starts_ = valid_starts()
    return sum(_random_player_wins(p, True) for p in starts_) / len(starts_)


def _random_games(factory: Factory, n: int, seed: int, measured: Measured) -> int:
    rng = random.Random(f"random player:{seed}")
    won = 0
    for game, start in starts(factory, n, seed):
        won += play(game, start, random_player(rng)).human_won
    expected = expected_random_win_rate()
    measured("random_player_wins", f"{won} of {n} ({won / n:.1%}; the solver: {expected:.1%})")
    return won


def _at_most(n: int, p: float, tail: float) -> int:
    """The least k with P(Binomial(n, p) > k) < tail."""
    k, cdf = 0, (1 - p) ** n
    while 1 - cdf >= tail:
        k += 1
        cdf += math.comb(n, k) * p**k * (1 - p) ** (n - k)
    return k


def test_a_random_player_loses_nearly_always(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    won = _random_games(game_factory, RANDOM_GAMES, fairdie_seed, measured)
    most = _at_most(RANDOM_GAMES, expected_random_win_rate(), 1e-4)
    assert won <= most, f"a random player won {won} of {RANDOM_GAMES} games"


@pytest.mark.slow
def test_a_random_player_loses_nearly_always_over_many_games(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    won = _random_games(game_factory, RANDOM_GAMES_SLOW, fairdie_seed, measured)
    most = _at_most(RANDOM_GAMES_SLOW, expected_random_win_rate(), 1e-4)
    assert won <= most, f"a random player won {won} of {RANDOM_GAMES_SLOW} games (> {most})"
