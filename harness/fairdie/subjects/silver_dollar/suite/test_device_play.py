"""The device's play against the solver.

From a position placed in EEPROM (a test-position build), the device's own
code chooses its reply, read off the strip:

- where it has a winning reply, the position it leaves is one the human
  cannot win from (by the solver's search of the game tree);
- where it has several, repeated trials (each with its own 32 bits of
  chance) choose each about equally often: Pearson's chi-square at
  significance :data:`ALPHA` per position;
- where it has none, it makes a legal move.

``make test`` runs a seeded sample of positions; the sweep of every
position (636 with a winning reply, 272 of them with a choice) is in the
slow tier. Through play, on any build, the device's replies from the
positions a human leaves it must be winning ones, and spread over its
choices.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from fairdie.subjects.silver_dollar._solver import (
    Position,
    all_positions,
    apply,
    format_position,
    legal_moves,
    winning_moves,
    wins,
)
from fairdie.subjects.silver_dollar._stats import UniformFit, uniform_fit
from fairdie.subjects.silver_dollar.suite._support import Factory, Measured, reply, starts

pytestmark = pytest.mark.sim

#: significance of each position's chi-square test (the chance that a
#: uniformly choosing device fails it)
ALPHA = 0.001
#: trials per position: at least 20 expected per reply (three at most)
TRIALS = 60
SAMPLE_SEED = 18
#: the sample: positions with a winning reply, and without one
WITH_A_WIN, WITHOUT = 30, 10
#: positions tested for uniformity: with 2 and with 3 winning replies
CHOICES = {2: 2, 3: 1}
GAMES = 40

#: every position the device can be given to move from (not the end)
MOVABLE = [p for p in all_positions() if legal_moves(p)]


def _sample(keep: int, among: list[Position], tag: str) -> list[Position]:
    return sorted(random.Random(f"{tag}:{SAMPLE_SEED}").sample(among, keep), reverse=True)


WINNABLE = _sample(WITH_A_WIN, [p for p in MOVABLE if wins(p)], "win")
LOST = _sample(WITHOUT, [p for p in MOVABLE if not wins(p)], "lost")
CHOOSING = [
    p
    for k, n in CHOICES.items()
    for p in _sample(n, [p for p in MOVABLE if len(winning_moves(p)) == k], f"choice{k}")
]


def _chances(seed: int, position: Position) -> random.Random:
    return random.Random(f"chance:{seed}:{position}")


@pytest.mark.parametrize("position", WINNABLE, ids=format_position)
def test_a_winning_reply_leaves_the_human_a_lost_position(
    game_factory: Factory, fairdie_seed: int, position: Position
) -> None:
    chance = _chances(fairdie_seed, position).getrandbits(32)
    move = reply(game_factory, position, chance)
    after = apply(position, move)
    assert not wins(after), (
        f"from {format_position(position)} the device played {move}, leaving"
        f" {format_position(after)}, which the human wins; its winning replies:"
        f" {', '.join(map(str, winning_moves(position)))}"
    )


@pytest.mark.parametrize("position", LOST, ids=format_position)
def test_without_a_winning_reply_the_device_makes_a_legal_move(
    game_factory: Factory, fairdie_seed: int, position: Position
) -> None:
    # reply() reads the move that turns the position into the one shown:
    # a position no legal move reaches fails there
    move = reply(game_factory, position, _chances(fairdie_seed, position).getrandbits(32))
    assert move in legal_moves(position)


def _choice_fit(
    factory: Factory, seed: int, position: Position, trials: int, alpha: float
) -> UniformFit:
    """The device's replies from ``position`` over ``trials``, each with its
    own chance: all winning ones, tested for a uniform choice among them."""
    rng = _chances(seed, position)
    best = winning_moves(position)
    counts = Counter(reply(factory, position, rng.getrandbits(32)) for _ in range(trials))
    losing = set(counts) - set(best)
    assert not losing, f"from {format_position(position)}: replies {losing} lose"
    return uniform_fit([counts[m] for m in best], alpha)


@pytest.mark.parametrize("position", CHOOSING, ids=format_position)
def test_each_winning_reply_is_chosen_about_equally_often(
    game_factory: Factory,
    fairdie_seed: int,
    position: Position,
    measured: Measured,
) -> None:
    fit = _choice_fit(game_factory, fairdie_seed, position, TRIALS, ALPHA)
    measured("chi_square", str(fit))
    assert fit.uniform, f"{format_position(position)}: {fit}"


def test_through_play_the_device_replies_to_win_and_spreads_its_choice(
    game_factory: Factory, fairdie_seed: int, measured: Measured
) -> None:
    """Any build: from each start the human leaves the device a position with
    two winning replies (where some move does); the device must play one of
    them, and over the games each rank (the solver's order) about as often."""
    rng = random.Random(f"steer:{fairdie_seed}")
    ranks = [0, 0]
    for game, start in starts(game_factory, GAMES, fairdie_seed):
        steer = [m for m in legal_moves(start) if len(winning_moves(apply(start, m))) == 2]
        if not steer:
            continue
        mine = rng.choice(steer)
        game.move(mine)
        pos = apply(start, mine)
        theirs = game.wait_reply(pos)
        best = winning_moves(pos)
        assert theirs in best, (
            f"from {format_position(pos)} the device played {theirs}, not one of"
            f" its winning replies {', '.join(map(str, best))}"
        )
        ranks[best.index(theirs)] += 1
    fit = uniform_fit(ranks, ALPHA)
    measured("chi_square", str(fit))
    assert fit.uniform, f"the first and second of two winning replies: {fit}"


@pytest.mark.slow
def test_every_position_the_device_replies_as_the_solver_says(game_factory: Factory) -> None:
    """All 791 positions the device can move from: 636 with a winning reply,
    155 without."""
    bad = []
    for position in MOVABLE:
        move = reply(game_factory, position, _chances(0, position).getrandbits(32))
        if wins(position) and wins(apply(position, move)):
            bad.append(f"{format_position(position)}: {move}")
    assert not bad, f"{len(bad)} positions left the human a win: {bad[:10]}"


@pytest.mark.slow
def test_every_choice_is_uniform(game_factory: Factory, measured: Measured) -> None:
    """Every position with several winning replies (272), each at ALPHA / 272
    (Bonferroni: a uniformly choosing device fails the sweep with a chance
    of at most ALPHA)."""
    choosing = [p for p in MOVABLE if len(winning_moves(p)) >= 2]
    alpha = ALPHA / len(choosing)
    fits = {p: _choice_fit(game_factory, 0, p, TRIALS, alpha) for p in choosing}
    failed = [f"{format_position(p)}: {fit}" for p, fit in fits.items() if not fit.uniform]
    worst = max(fits.items(), key=lambda item: item[1].statistic)
    measured("positions", len(choosing))
    measured("largest_chi_square", f"{format_position(worst[0])}: {worst[1]}")
    assert not failed, f"{len(failed)} of {len(choosing)} not uniform: {failed[:5]}"
