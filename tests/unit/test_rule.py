"""The fair-die rule: its reference model (fairdie.subjects.die._rule) and rule.c itself.

rule.c, the firmware's own source, is compiled for the host (see
fairdie.subjects.die._rule_host) and compared with the model: on every table over a
set of edge values, for every ADC code, along long press sequences, and on
Hypothesis's tables. The examples run on both. Properties of the model with
Hypothesis; fairness as seeded statistical checks.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdie.noise.strategies import adc_codes, counters
from fairdie.plugin import examples
from fairdie.subjects.die._rule import CLEARED, Counts, candidates, choose, press, rebase
from fairdie.subjects.die._rule_host import HostRule

Press = Callable[[Sequence[int], int], tuple[int, Counts]]


@pytest.fixture(params=["model", "rule.c"])
def any_press(request: pytest.FixtureRequest) -> Press:
    """``press`` of the model, or of rule.c built for the host."""
    if request.param == "model":
        return press
    c_rule: HostRule = request.getfixturevalue("c_rule")
    return c_rule.press


# ---- examples ------------------------------------------------------------------------


def test_cleared_table_candidates_are_faces_1_3_5() -> None:
    assert CLEARED == (0, 0, 0, 0, 0, 0)
    assert candidates(CLEARED) == (1, 3, 5)
    assert [choose(CLEARED, code) for code in range(6)] == [1, 3, 5, 1, 3, 5]


def test_ties_break_by_face_number() -> None:
    # counts 5,1,1,5,0,1 -> order: face5(0), face2(1), face3(1), face6(1), face1(5), face4(5)
    assert candidates((5, 1, 1, 5, 0, 1)) == (5, 3, 1)


def test_rebase_examples() -> None:
    assert rebase((255,) * 6) == CLEARED
    assert rebase((10, 255, 20, 10, 30, 11)) == (0, 245, 10, 0, 20, 1)  # minus the minimum
    # The minimum is 0; 254 and 253 are held, 252 is free: counters above 252 drop by one.
    assert rebase((0, 255, 254, 253, 7, 0)) == (0, 254, 253, 252, 7, 0)


PRESS_EXAMPLES = [
    # A cleared table: code % 3 picks the 1st, 3rd or 5th face.
    (CLEARED, 0, (1, (1, 0, 0, 0, 0, 0))),
    (CLEARED, 4, (3, (0, 0, 1, 0, 0, 0))),
    (CLEARED, 1022, (5, (0, 0, 0, 0, 1, 0))),
    # Ties break by face number: the order is faces 5, 2, 3, 6, 1, 4.
    ((5, 1, 1, 5, 0, 1), 0, (5, (5, 1, 1, 5, 1, 1))),
    ((5, 1, 1, 5, 0, 1), 1, (3, (5, 1, 2, 5, 0, 1))),
    ((5, 1, 1, 5, 0, 1), 512, (1, (6, 1, 1, 5, 0, 1))),
    # All 255: the rebase subtracts 255, then the chosen face counts.
    ((255,) * 6, 0, (1, (1, 0, 0, 0, 0, 0))),
    ((255,) * 6, 1, (3, (0, 0, 1, 0, 0, 0))),
    ((255,) * 6, 1022, (5, (0, 0, 0, 0, 1, 0))),
    # The 5th face holds 255 and the minimum is 0: the highest free value closes.
    ((0, 0, 0, 0, 255, 255), 2, (5, (0, 0, 0, 0, 255, 254))),
    ((0, 1, 2, 254, 255, 255), 2, (5, (0, 1, 2, 253, 255, 254))),
    # The deepest gap search a press can need: 254, 253 and 252 held, 251 free.
    ((0, 255, 255, 254, 253, 252), 2, (2, (0, 255, 254, 253, 252, 251))),
    # The 5th face holds 3: no rebase although another counter is 255.
    ((0, 0, 1, 2, 255, 3), 2, (6, (0, 0, 1, 2, 255, 4))),
    # A chosen counter below 255 is never rebased ...
    ((255, 255, 255, 255, 254, 255), 0, (5, (255,) * 6)),
    # ... while a chosen 255 rebases the whole table first.
    ((255, 255, 255, 255, 254, 255), 2, (4, (1, 1, 1, 2, 0, 1))),
]


@pytest.mark.parametrize(("counts", "code", "expected"), PRESS_EXAMPLES)
def test_press_examples(
    any_press: Press, counts: Counts, code: int, expected: tuple[int, Counts]
) -> None:
    assert any_press(counts, code) == expected


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


def test_accepts_lists_and_bytes(any_press: Press) -> None:
    assert any_press([1, 2, 3, 4, 5, 6], 0) == any_press(bytes([1, 2, 3, 4, 5, 6]), 0)


# ---- rule.c against the model ---------------------------------------------------------

# Every table over these values, with codes 0, 1 and 2 (the choice depends on
# code % 3 only, tested below for every code): ties everywhere, both rebases
# (a minimum of 0 or above) and every depth of the gap search a press can
# reach (with 0 and two 255s held, at most 254, 253 and 252 are in the way).
EDGE_VALUES = (0, 252, 253, 254, 255)
# Wider, with small counters that differ (the slow tier).
WIDE_VALUES = (0, 1, 2, 252, 253, 254, 255)


def _mismatches(c_rule: HostRule, cases: Iterable[tuple[Counts, int]]) -> list[str]:
    out = []
    for counts, code in cases:
        model, c = press(counts, code), c_rule.press(counts, code)
        if model != c:
            out.append(f"press({counts}, {code}): model {model}, rule.c {c}")
    return out


def _every_table(values: Sequence[int]) -> Iterable[tuple[Counts, int]]:
    for counts in itertools.product(values, repeat=6):
        for code in range(3):
            yield counts, code  # type: ignore[misc]


def test_rule_c_matches_the_model_on_every_table_of_edge_values(c_rule: HostRule) -> None:
    bad = _mismatches(c_rule, _every_table(EDGE_VALUES))
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


@pytest.mark.slow
def test_rule_c_matches_the_model_on_every_table_of_wider_values(c_rule: HostRule) -> None:
    bad = _mismatches(c_rule, _every_table(WIDE_VALUES))
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


@given(counters(), adc_codes())
def test_rule_c_matches_the_model(c_rule: HostRule, counts: Counts, code: int) -> None:
    assert c_rule.press(counts, code) == press(counts, code)


@settings(max_examples=examples(25))
@given(counters())
def test_rule_c_matches_the_model_for_every_code(c_rule: HostRule, counts: Counts) -> None:
    bad = _mismatches(c_rule, ((counts, code) for code in range(1024)))
    assert not bad, bad[:3]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rule_c_follows_the_model_press_after_press(c_rule: HostRule, seed: int) -> None:
    """Long runs from a cleared and from a random table, each press on the
    table the last one left: random codes, then each stuck code % 3 (which
    drive counters through the 255 rebase again and again)."""
    rng = random.Random(seed)
    start = CLEARED if seed == 0 else tuple(rng.randrange(256) for _ in range(6))
    codes = [rng.randrange(1024) for _ in range(3000)] + [0] * 600 + [1] * 1200 + [2] * 1200
    model = c = start
    for i, code in enumerate(codes):
        (m_face, model), (c_face, c) = press(model, code), c_rule.press(c, code)
        assert (c_face, c) == (m_face, model), f"press {i} (code {code})"
    assert max(model) == 255  # the stuck codes reached the rebase


# ---- properties ----------------------------------------------------------------------


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
