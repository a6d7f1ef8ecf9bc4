"""The fair rule's guarantees, on its reference model (fairdie.subjects.die._fair),
which the chip matches press by press (harness/fairdie/subjects/die/suite)."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdie.noise.strategies import noise_sequences
from fairdie.subjects.die import _fair
from fairdie.subjects.die.lab import DynamicDice, WeightedWindow, exact, search
from fairdie.subjects.die.lab._public import FairTable

offsets = st.tuples(*[st.integers(0, 3)] * 6)
pools = st.integers(0, 0xFFF)


def _state(table: tuple[int, ...], pool: int) -> bytes:
    return _fair.pack((sum(t << (2 * f) for f, t in enumerate(table)), pool))


def _next(table: tuple[int, ...], face: int | None) -> tuple[int, ...]:
    """``table`` with ``face`` (0-based; None: none) up one, least back at 0."""
    t = list(table)
    if face is not None:
        t[face] += 1
    m = min(t)
    return tuple(x - m for x in t)


@settings(max_examples=300, deadline=None)
@given(
    table=offsets,
    pool=pools,
    noise=st.lists(noise_sequences(min_size=16, max_size=16), max_size=40),
)
def test_a_press_raises_a_face_that_is_not_3_ahead(
    table: tuple[int, ...], pool: int, noise: list[list[int]]
) -> None:
    """Any stored table and pool, any noise: the face shown had an offset of
    0..2 and is exactly what changed, so no face gets more than 3 ahead (the
    offsets are two bits: a face pushed to 4 would wrap to 0, unnoticed)."""
    d = _state(table, pool)
    before = _next(table, None)  # what the firmware reads: normalised
    for codes in noise:
        face, d = _fair.press(d, codes)
        assert 1 <= face <= 6
        assert before[face - 1] <= 2
        after = _fair.offsets(_fair.unpack(d)[0])
        assert after == _next(before, face - 1)
        before = after


@functools.cache
def _longest_wait(table: tuple[int, ...]) -> int:
    """The most presses face 1 can wait from ``table``, every other choice the
    rule allows taken by an adversary (no cycle avoids face 1, or this recurses
    without end)."""
    others = [g for g in range(1, 6) if _fair.WEIGHTS[table[g]] > 0]
    return max((1 + _longest_wait(_next(table, g)) for g in others), default=0)


def test_no_face_waits_40_presses_whatever_the_noise() -> None:
    starts = [
        (a, b, c, d, e, f)
        for a in range(4)
        for b in range(4)
        for c in range(4)
        for d in range(4)
        for e in range(4)
        for f in range(4)
        if min(a, b, c, d, e, f) == 0
    ]
    worst = max(_longest_wait(t) for t in starts)
    # a face shows within worst + 1 presses of any press, so within 40 of its last
    assert worst + 1 < 40, worst


def test_the_player_sees_the_weighted_window() -> None:
    table = sum(t << (2 * f) for f, t in enumerate((0, 1, 2, 3, 0, 1)))
    ww = WeightedWindow(6, _fair.WEIGHTS[:3])
    state = ww
    for face, times in enumerate((0, 1, 2, 3, 0, 1)):
        for _ in range(times):
            state = state.after(face)
    assert FairTable(table).probs() == state.probs()


def test_the_rule_beats_the_best_dynamic_dice_at_T25() -> None:
    best = search(6, 25, 0.90)["dynamic_dice"]
    rule = exact(WeightedWindow(6, (8, 3, 1)), 25)
    assert rule.entropy >= 0.90
    assert rule.variance < best["variance"]
    assert exact(DynamicDice(6, best["d"]), 25).variance == best["variance"]
