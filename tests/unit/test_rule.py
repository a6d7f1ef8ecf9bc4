"""The reference model of the fair-die rule (fairdie.die._rule).

Properties with Hypothesis; fairness as seeded statistical checks. The model
is also compared with a line-by-line transliteration of firmware/die_t13a/rule.c
that keeps the C's 8-bit arithmetic, so a wrap would show.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairdie.die._rule import CLEARED, candidates, choose, press, rebase
from fairdie.noise.strategies import adc_codes, counters

# ---- rule.c, transliterated (uint8_t arithmetic kept with & 0xFF) ----------------


def _c_face_at(c: list[int], k: int) -> int:
    f = 0
    while f < 5:
        pos = 0
        for g in range(6):
            if c[g] < c[f] or (c[g] == c[f] and g < f):
                pos += 1
        if pos == k:
            break
        f += 1
    return f


def _c_rebase(c: list[int]) -> None:
    m = 255
    for g in range(6):
        m = min(m, c[g])
    if m > 0:
        for g in range(6):
            c[g] = (c[g] - m) & 0xFF
        return
    gap = 254
    while gap in c:
        gap = (gap - 1) & 0xFF
    for g in range(6):
        if c[g] > gap:
            c[g] = (c[g] - 1) & 0xFF


def _c_die_roll(c: list[int], code: int) -> int:
    face = _c_face_at(c, (code % 3) * 2)
    if c[face] == 255:
        _c_rebase(c)
    c[face] = (c[face] + 1) & 0xFF
    return face


# ---- examples ------------------------------------------------------------------------


def test_cleared_table_candidates_are_faces_1_3_5() -> None:
    assert CLEARED == (0, 0, 0, 0, 0, 0)
    assert candidates(CLEARED) == (1, 3, 5)
    assert [choose(CLEARED, code) for code in range(6)] == [1, 3, 5, 1, 3, 5]


def test_ties_break_by_face_number() -> None:
    # counts 5,1,1,5,0,1 -> order: face5(0), face2(1), face3(1), face6(1), face1(5), face4(5)
    assert candidates((5, 1, 1, 5, 0, 1)) == (5, 3, 1)


def test_all_ff_rebases_to_zero_then_counts() -> None:
    assert rebase((255,) * 6) == CLEARED
    assert press((255,) * 6, 0) == (1, (1, 0, 0, 0, 0, 0))
    assert press((255,) * 6, 1) == (3, (0, 0, 1, 0, 0, 0))
    assert press((255,) * 6, 1022) == (5, (0, 0, 0, 0, 1, 0))


def test_rebase_subtracts_the_minimum_when_above_zero() -> None:
    assert rebase((10, 255, 20, 10, 30, 11)) == (0, 245, 10, 0, 20, 1)


def test_rebase_closes_the_highest_gap_when_minimum_is_zero() -> None:
    # 254 and 253 are held, 252 is free: counters above 252 drop by one.
    assert rebase((0, 255, 254, 253, 7, 0)) == (0, 254, 253, 252, 7, 0)
    # code % 3 == 2 takes the 5th face in order; here that face holds 255.
    assert press((0, 0, 0, 0, 255, 255), 2) == (5, (0, 0, 0, 0, 255, 254))
    assert press((0, 1, 2, 254, 255, 255), 2) == (5, (0, 1, 2, 253, 255, 254))
    # The 5th face holds 3: no rebase although another counter is 255.
    assert press((0, 0, 1, 2, 255, 3), 2) == (6, (0, 0, 1, 2, 255, 4))


def test_a_counter_below_255_is_never_rebased() -> None:
    assert press((255, 255, 255, 255, 254, 255), 0) == (5, (255,) * 6)
    # ... while a chosen 255 rebases the whole table first.
    assert press((255, 255, 255, 255, 254, 255), 2) == (4, (1, 1, 1, 2, 0, 1))


@pytest.mark.parametrize(
    "counts",
    [(0,) * 5, (0,) * 7, (0, 0, 0, 0, 0, 256), (0, 0, 0, 0, 0, -1), (0, 0, 0, 0, 0, 1.0)],
)
def test_bad_counts_raise(counts: tuple[int, ...]) -> None:
    for fn in (candidates, rebase):
        with pytest.raises(ValueError, match="counts"):
            fn(counts)
    with pytest.raises(ValueError, match="counts"):
        press(counts, 0)


@pytest.mark.parametrize("code", [-1, 1024, True, 1.0])
def test_bad_codes_raise(code: int) -> None:
    with pytest.raises(ValueError, match="adc_code"):
        press(CLEARED, code)


def test_accepts_lists_and_bytes() -> None:
    assert press([1, 2, 3, 4, 5, 6], 0) == press(bytes([1, 2, 3, 4, 5, 6]), 0)


# ---- properties ----------------------------------------------------------------------


@given(counters(), adc_codes())
def test_matches_the_firmware(counts: tuple[int, ...], code: int) -> None:
    c = list(counts)
    index = _c_die_roll(c, code)
    assert press(counts, code) == (index + 1, tuple(c))


@given(counters(), adc_codes())
def test_press_increments_exactly_the_chosen_face(counts: tuple[int, ...], code: int) -> None:
    face, new = press(counts, code)
    assert face == choose(counts, code)
    base = rebase(counts) if counts[face - 1] == 255 else tuple(counts)
    assert all(0 <= v <= 255 for v in new)
    assert [b - a for a, b in zip(base, new, strict=True)] == [int(f == face) for f in range(1, 7)]


@given(counters())
def test_rebase_keeps_order_and_ties(counts: tuple[int, ...]) -> None:
    after = rebase(counts)
    assert all(0 <= v <= 255 for v in after)
    for i in range(6):
        for j in range(6):
            if counts[i] < counts[j]:
                assert after[i] < after[j]
            if counts[i] == counts[j]:
                assert after[i] == after[j]
    if 255 in counts:
        assert max(after) <= 254  # room for the increment


@given(counters())
def test_candidates_are_the_1st_3rd_5th_distinct_faces(counts: tuple[int, ...]) -> None:
    cand = candidates(counts)
    assert len(set(cand)) == 3
    assert all(1 <= f <= 6 for f in cand)
    order = sorted(range(1, 7), key=lambda f: (counts[f - 1], f))
    assert cand == (order[0], order[2], order[4])
    # The 1st candidate has the lowest count; the 6th face is never a candidate.
    assert counts[cand[0] - 1] == min(counts)
    assert order[5] not in cand


@given(counters(), st.integers(0, 340))
def test_choice_depends_only_on_code_mod_3(counts: tuple[int, ...], k: int) -> None:
    assert choose(counts, 3 * k) == choose(counts, 0)
    assert choose(counts, 3 * k + 1) == choose(counts, 1)
    assert choose(counts, 3 * k + 2) == choose(counts, 2)


# ---- fairness: seeded statistical checks, not properties ------------------------------

PRESSES = 60_000
STUCK_PRESSES = 6_000  # deterministic, and long enough to pass 255 many times


def _campaign(code_for: random.Random | int, presses: int = PRESSES) -> tuple[list[int], int, int]:
    """(presses per face, largest spread of the totals, largest spread of the table)."""
    counts = CLEARED
    totals = [0] * 6
    total_spread = table_spread = 0
    for _ in range(presses):
        code = code_for.randrange(1024) if isinstance(code_for, random.Random) else code_for
        face, counts = press(counts, code)
        totals[face - 1] += 1
        total_spread = max(total_spread, max(totals) - min(totals))
        table_spread = max(table_spread, max(counts) - min(counts))
    return totals, total_spread, table_spread


def test_uniform_codes_give_every_face_a_sixth() -> None:
    """Observed over seeds 0..59 (60 000 presses each): the worst face is 5..151
    presses away from 10 000 (median 55), chi-square 0.01..8.7; an ideal die
    over the same seeds strays 58..285 (median 144). The counter table itself
    is not held close: the faces settle into three pairs (sorted positions
    1-2, 3-4, 5-6) and only within a pair is there feedback; the pairs' levels
    random-walk apart, so the table's max-min spread reaches 71..255 (median
    135) and the 255 rebase often runs. The press totals stay tight because
    every pair is chosen with probability 1/3 however far apart they are."""
    totals, total_spread, _table_spread = _campaign(random.Random(20240601))
    assert sum(totals) == PRESSES
    expected = PRESSES / 6
    assert max(abs(t - expected) for t in totals) <= 250  # 0.42 % of the presses
    chi2 = sum((t - expected) ** 2 / expected for t in totals)
    assert chi2 < 15.1  # p = 0.01 for 5 degrees of freedom, for an ideal die
    assert total_spread <= 500


@pytest.mark.parametrize("code", [0, 3, 513, 1023])
def test_stuck_code_0_mod_3_cycles_through_all_faces(code: int) -> None:
    """code % 3 == 0 always takes the least-counted face: a strict round robin
    1, 2, 3, 4, 5, 6, 1, ... The totals never differ by more than 1."""
    totals, total_spread, table_spread = _campaign(code, STUCK_PRESSES)
    assert totals == [STUCK_PRESSES // 6] * 6
    assert total_spread == 1
    assert table_spread <= 1
    counts = CLEARED
    faces = []
    for _ in range(12):
        face, counts = press(counts, code)
        faces.append(face)
    assert faces == [1, 2, 3, 4, 5, 6] * 2


@pytest.mark.parametrize(
    ("code", "shown"),
    [(1, {3, 4, 5, 6}), (1021, {3, 4, 5, 6}), (2, {5, 6}), (512, {5, 6})],
)
def test_stuck_code_1_or_2_mod_3_never_shows_some_faces(code: int, shown: set[int]) -> None:
    """OBSERVED, and a fairness defect of the seed's rule: a stuck ADC whose
    code % 3 is 1 always takes the 3rd face in order, so the two lowest faces
    (1 and 2 from a cleared table) never advance and never show; 3-6 take
    turns. code % 3 == 2 always takes the 5th: only faces 5 and 6 ever show.
    The cycle is deterministic; at 255 the gap-closing rebase keeps the
    shown faces at 254/255 and the others at 0 for ever."""
    totals, _total_spread, table_spread = _campaign(code, STUCK_PRESSES)
    assert {f for f in range(1, 7) if totals[f - 1]} == shown
    assert all(totals[f - 1] == STUCK_PRESSES // len(shown) for f in shown)
    assert table_spread == 255


def test_campaign_is_deterministic() -> None:
    first = _campaign(random.Random(7), 3000)
    assert first == _campaign(random.Random(7), 3000)
    assert sum(first[0]) == 3000
