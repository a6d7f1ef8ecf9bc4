"""The fair rule's guarantees, on its reference model (fairdie.subjects.die._fair),
which the chip matches press by press (harness/fairdie/subjects/die/suite)."""

from __future__ import annotations

import functools
import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from fairdie.noise.strategies import noise_sequences
from fairdie.plugin import examples
from fairdie.subjects.die import _fair
from fairdie.subjects.die.lab import WeightedWindow
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


@settings(max_examples=examples(300), deadline=None)
@given(
    table=offsets,
    pool=pools,
    noise=st.lists(st.integers(0, 0xFFFF), max_size=40),
)
def test_a_press_raises_a_face_that_is_not_3_ahead(
    table: tuple[int, ...], pool: int, noise: list[int]
) -> None:
    """Any stored table and pool, any fresh bits: the face shown had an
    offset of 0..2 and is exactly what changed, so no face gets more than 3
    ahead (the offsets are two bits: a face pushed to 4 would wrap to 0,
    unnoticed)."""
    d = _state(table, pool)
    before = _next(table, None)  # what the firmware reads: normalised
    for bits in noise:
        face, d = _fair.roll(d, bits)
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


# ---- the health tests on the raw codes (fair.h; _fair.sample) ------------------


def test_a_stuck_pin_fails_the_repetition_count_test_within_the_first_press() -> None:
    for code in (0, 1, 511, 1023):
        s = _fair.sample([code] * _fair.MOST_READS)
        assert (s.reads, s.noise, s.failure) == (_fair.RCT_CUTOFF, None, "repetition")


def test_a_pin_that_mostly_reads_one_code_fails_the_adaptive_proportion_test() -> None:
    # runs of 7 (far from the repetition cut-off): 600 is 7 of every 8 codes
    mostly = [600 if i % 8 < 7 else 601 for i in range(_fair.MOST_READS)]
    s = _fair.sample(mostly)
    assert (s.reads, s.noise, s.failure) == (63, None, "proportion")
    # 6 of every 8: 48 of the window, below the cut-off of 56
    assert _fair.sample([600 if i % 8 < 6 else 601 for i in range(256)]).failure != "proportion"


def test_codes_that_change_but_never_in_the_low_bit_give_no_fresh_bits() -> None:
    codes = [100 + 2 * (i % 7) for i in range(_fair.MOST_READS)]
    s = _fair.sample(codes)
    assert (s.reads, s.noise, s.failure) == (_fair.MOST_READS, None, "fresh bits")


def test_healthy_codes_give_their_fresh_bits_after_the_window() -> None:
    # every pair's low bits 1 then 0: a fresh 1 per pair
    codes = [(7 if i % 2 == 0 else 8) + 16 * i for i in range(_fair.MOST_READS)]
    s = _fair.sample(codes)
    assert (s.reads, s.noise, s.failure) == (_fair.WINDOW, 0xFFFF, None)


@settings(max_examples=examples(300), deadline=None)
@given(codes=noise_sequences(min_size=_fair.MOST_READS, max_size=_fair.MOST_READS, compact=True))
def test_a_sample_is_healthy_exactly_when_no_test_fails(codes: list[int]) -> None:
    """Whatever the codes: a healthy sample read at least the window, an even
    number of codes, and no run of RCT_CUTOFF equal codes; a failed one names
    the test, and the repetition test fails exactly at such a run's end."""
    s = _fair.sample(codes)
    seen = codes[: s.reads]
    run = longest = 1
    for a, b in itertools.pairwise(seen):
        run = run + 1 if a == b else 1
        longest = max(longest, run)
    if s.failure is None:
        assert s.noise is not None
        assert s.reads >= _fair.WINDOW and s.reads % 2 == 0
        assert longest < _fair.RCT_CUTOFF
        assert sum(c == seen[0] for c in seen[: _fair.WINDOW]) < _fair.APT_CUTOFF
    else:
        assert s.noise is None
        assert (longest == _fair.RCT_CUTOFF) == (s.failure == "repetition")


def test_the_cut_offs_follow_from_the_assessed_entropy() -> None:
    """fair.h's and the README's figures: H = 0.8 bit per code; the repetition
    cut-off is NIST's 1 + ceil(30 / H) (2^-30 per code); the proportion test
    trips a source at exactly H with chance 2.9e-7 a press, below 2^-20."""
    h = 0.8
    p = 2**-h
    assert 1 + math.ceil(30 / h) == _fair.RCT_CUTOFF
    n = _fair.WINDOW - 1  # the first code is counted, then the 63 after it
    k = _fair.APT_CUTOFF - 1  # that many more equal to it fail
    tail = sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))
    assert tail < 2**-20 and f"{tail:.1e}" == "2.9e-07"
