"""The Silver Dollar Game's brute-force solver and its chi-square helper
(fairdie.subjects.silver_dollar._solver, ._stats): hand-checked positions,
the counts, the consistency of the win/loss labels, agreement with Nim theory
(computed here only), the strategies, and the search's speed."""

from __future__ import annotations

import random
import time
from functools import reduce
from itertools import pairwise
from operator import xor

import pytest

from fairdie.errors import FairdieError
from fairdie.subjects.silver_dollar._solver import (
    Move,
    Player,
    Position,
    PositionError,
    all_positions,
    apply,
    button,
    cells,
    format_position,
    legal_moves,
    move_between,
    parse_position,
    perfect_player,
    random_player,
    valid_starts,
    winning_moves,
    wins,
)
from fairdie.subjects.silver_dollar._stats import chi2_critical, chi_square, uniform_fit

P = parse_position

#: the solver's counts, reported by the README: positions, P-positions (lost
#: for the player to move), valid starts, and positions by number of winning moves
POSITIONS = 792
P_POSITIONS = 156
VALID_STARTS = 444
BY_WINNING_MOVES = {0: 156, 1: 364, 2: 224, 3: 48}


# -- hand-checked positions ---------------------------------------------------


def test_packed_dollars_have_no_move_and_lose() -> None:
    pos = P("5,4,3,2,1")
    assert legal_moves(pos) == []
    assert not wins(pos)
    assert winning_moves(pos) == []


def test_one_dollar_one_step_from_packing_wins() -> None:
    pos = P("6,4,3,2,1")
    assert legal_moves(pos) == [Move(6, 5)]
    assert wins(pos)
    assert winning_moves(pos) == [Move(6, 5)]


def test_small_endgames_by_hand() -> None:
    # 7,4,3,2,1: 7->5 packs the strip; 7->6 hands the opponent 6,4,3,2,1
    assert legal_moves(P("7,4,3,2,1")) == [Move(7, 6), Move(7, 5)]
    assert winning_moves(P("7,4,3,2,1")) == [Move(7, 5)]
    # 6,5,3,2,1: the only move (5->4) gives 6,4,3,2,1, a win for the other
    assert legal_moves(P("6,5,3,2,1")) == [Move(5, 4)]
    assert not wins(P("6,5,3,2,1"))
    # 7,5,3,2,1: 7->6 leaves 6,5,3,2,1
    assert winning_moves(P("7,5,3,2,1")) == [Move(7, 6)]
    # 7,6,3,2,1: both moves (6->5, 6->4) give the other a win
    assert legal_moves(P("7,6,3,2,1")) == [Move(6, 5), Move(6, 4)]
    assert not wins(P("7,6,3,2,1"))


def test_moves_stop_at_dollars_and_the_end() -> None:
    pos = P("12,9,6,3,1")
    assert legal_moves(pos) == [
        Move(12, 11),
        Move(12, 10),
        Move(9, 8),
        Move(9, 7),
        Move(6, 5),
        Move(6, 4),
        Move(3, 2),
    ]
    assert apply(pos, Move(9, 7)) == P("12,7,6,3,1")
    for bad in (Move(9, 6), Move(9, 5), Move(1, 0), Move(11, 10), Move(6, 7), Move(13, 12)):
        with pytest.raises(PositionError, match="not legal"):
            apply(pos, bad)


def test_moves_read_from_two_positions_and_their_buttons() -> None:
    before = P("12,9,6,3,1")
    assert move_between(before, P("12,9,4,3,1")) == Move(6, 4)
    assert button(before, Move(6, 4)) == 3
    assert button(before, Move(12, 11)) == 1
    assert Move(6, 4).steps == 2
    assert str(Move(6, 4)) == "6->4"
    # none, two dollars, a dollar leftwards, a jump over another
    for after in (before, P("11,9,5,3,1"), P("12,10,6,3,1"), P("12,9,3,2,1")):
        with pytest.raises(PositionError, match="no legal move turns"):
            move_between(before, after)
    with pytest.raises(PositionError, match="no dollar on cell 7"):
        button(before, Move(7, 5))


# -- positions as text --------------------------------------------------------


def test_positions_parse_and_format_descending() -> None:
    pos = P("1,3,12,6,9")
    assert cells(pos) == (12, 9, 6, 3, 1)
    assert format_position(pos) == "12,9,6,3,1"
    assert pos == 0b1001_0010_0101  # bit c - 1 for cell c
    assert all(P(format_position(p)) == p for p in all_positions())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("12,9,6,3", "5 dollars, not 4"),
        ("12,9,6,3,1,2", "5 dollars, not 6"),
        ("13,9,6,3,1", "cell 13 is off the strip"),
        ("12,9,6,3,0", "cell 0 is off the strip"),
        ("12,9,9,3,1", "two dollars on one cell"),
        ("12;9;6;3;1", "not five cell numbers"),
        ("", "not five cell numbers"),
    ],
)
def test_bad_positions_are_one_line_errors(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message) as caught:
        P(text)
    assert isinstance(caught.value, FairdieError)
    assert "\n" not in str(caught.value)


# -- counts and consistency ---------------------------------------------------


def test_counts() -> None:
    positions = all_positions()
    assert len(positions) == len(set(positions)) == POSITIONS
    assert all(len(cells(p)) == 5 for p in positions)
    lost = [p for p in positions if not wins(p)]
    assert len(lost) == P_POSITIONS
    by_k: dict[int, int] = {}
    for p in positions:
        k = len(winning_moves(p))
        by_k[k] = by_k.get(k, 0) + 1
    assert by_k == BY_WINNING_MOVES


def test_labels_are_consistent() -> None:
    for pos in all_positions():
        after = [apply(pos, m) for m in legal_moves(pos)]
        if wins(pos):
            assert any(not wins(a) for a in after), format_position(pos)
            assert winning_moves(pos)
        else:
            assert all(wins(a) for a in after), format_position(pos)


def test_valid_starts() -> None:
    starts = valid_starts()
    assert len(starts) == VALID_STARTS
    assert all(cells(p)[0] in (12, 11) and wins(p) for p in starts)
    # every other start on 12 or 11 is lost for the human
    rest = {p for p in all_positions() if cells(p)[0] >= 11} - set(starts)
    assert rest and not any(wins(p) for p in rest)
    # the strip spaced evenly is no start: its Nim heaps (0, 2, 2) cancel
    assert P("12,9,6,3,1") not in starts and not wins(P("12,9,6,3,1"))
    assert P("12,9,6,4,1") in starts


def _nim_wins(pos: Position) -> bool:
    """Theory (Conway), independent of the search: the gaps right of the 1st,
    3rd and 5th dollar from the right (the first one's to the end) are Nim
    heaps; the player to move wins when their XOR is not zero."""
    right_to_left = cells(pos)[::-1]
    gaps = [right_to_left[0] - 1] + [b - a - 1 for a, b in pairwise(right_to_left)]
    return reduce(xor, gaps[0::2]) != 0


def test_the_search_agrees_with_nim_on_every_position() -> None:
    for pos in all_positions():
        assert wins(pos) == _nim_wins(pos), format_position(pos)


def test_the_whole_search_is_fast() -> None:
    wins.cache_clear()
    start = time.perf_counter()
    lost = sum(not wins(p) for p in all_positions())
    elapsed = time.perf_counter() - start
    assert lost == P_POSITIONS
    assert elapsed < 0.25, f"the search took {elapsed:.3f} s"


# -- strategies ---------------------------------------------------------------


def _winner(first: Player, second: Player, pos: Position) -> int:
    """Play a game out: 0 when ``first`` (who moves first) wins, else 1."""
    players, turn = (first, second), 0
    while legal_moves(pos):
        move = players[turn](pos)
        assert move in legal_moves(pos)
        pos = apply(pos, move)
        turn ^= 1
    return turn ^ 1


def test_a_perfect_player_wins_every_valid_start() -> None:
    device = perfect_player(random.Random(1))
    for pos in valid_starts():
        assert _winner(perfect_player(), device, pos) == 0, format_position(pos)


def test_a_random_player_nearly_always_loses_to_a_perfect_one() -> None:
    rng = random.Random(2)
    device = perfect_player(random.Random(3))
    human = random_player(rng)
    won = sum(_winner(human, device, pos) == 0 for pos in valid_starts())
    assert 0 < won < 0.05 * VALID_STARTS  # 6 of 444 (1.4 %) with these seeds


def test_players_without_a_move_say_the_game_is_over() -> None:
    for player in (perfect_player(), random_player(random.Random(0))):
        with pytest.raises(PositionError, match="no legal move from 5,4,3,2,1"):
            player(P("5,4,3,2,1"))


def test_a_perfect_player_chooses_among_its_winning_moves() -> None:
    pos = next(p for p in all_positions() if len(winning_moves(p)) == 3)
    player = perfect_player(random.Random(4))
    seen = {player(pos) for _ in range(100)}
    assert seen == set(winning_moves(pos))
    assert perfect_player()(pos) == winning_moves(pos)[0]
    # from a lost position: a legal move all the same
    assert perfect_player()(P("7,6,3,2,1")) == Move(6, 5)


# -- the chi-square helper ----------------------------------------------------


def test_chi_square_statistic() -> None:
    assert chi_square([10, 10, 10]) == 0
    assert chi_square([20, 0]) == 20  # expected 10: (100 + 100) / 10
    assert chi_square([6, 2, 4]) == pytest.approx(2.0)  # expected 4: (4 + 4 + 0) / 4
    for bad in ([5], [0, 0]):
        with pytest.raises(ValueError, match="two or more categories"):
            chi_square(bad)


#: upper quantiles of chi-square (standard tables): df -> alpha 0.05, 0.01, 0.001
TABLE = {
    1: (3.841, 6.635, 10.828),
    2: (5.991, 9.210, 13.816),
    3: (7.815, 11.345, 16.266),
    4: (9.488, 13.277, 18.467),
    5: (11.070, 15.086, 20.515),
    10: (18.307, 23.209, 29.588),
}


@pytest.mark.parametrize("df", sorted(TABLE))
def test_critical_values_match_the_tables(df: int) -> None:
    for alpha, value in zip((0.05, 0.01, 0.001), TABLE[df], strict=True):
        # df 1 and 2 are exact; Wilson-Hilferty above is within 2 %
        rel = 5e-4 if df <= 2 else 0.02
        assert chi2_critical(df, alpha) == pytest.approx(value, rel=rel)
    for bad in ((0, 0.01), (1, 0.0), (1, 1.0)):
        with pytest.raises(ValueError):
            chi2_critical(*bad)


def test_uniform_fit_passes_a_uniform_choice_and_fails_a_fixed_one() -> None:
    rng = random.Random(5)
    counts = [0, 0, 0]
    for _ in range(300):
        counts[rng.randrange(3)] += 1
    fit = uniform_fit(counts, alpha=0.001)
    assert fit.uniform and fit.df == 2, str(fit)
    first_always = uniform_fit([30, 0, 0], alpha=0.001)
    assert not first_always.uniform
    assert "not uniform" in str(first_always)
    with pytest.raises(ValueError, match="need at least 15"):
        uniform_fit([10, 4, 0], alpha=0.001)


def test_uniform_fit_rejects_a_fair_choice_about_alpha_of_the_time() -> None:
    rng = random.Random(6)
    runs, alpha = 2000, 0.05
    rejected = 0
    for _ in range(runs):
        counts = [0, 0, 0]
        for _ in range(60):
            counts[rng.randrange(3)] += 1
        rejected += not uniform_fit(counts, alpha).uniform
    # binomial sd of the rate over 2000 runs is 0.005
    assert 0.03 < rejected / runs < 0.07
