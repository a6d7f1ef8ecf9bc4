"""The destinator's bit scaling and source combining (fairdie.subjects.die.lab._scaling).

The text's worked example, exact uniformity over every bit string of a given
length, the exact bits per value against hand computation and against a
seeded measurement (within 4 standard errors), and the 1-based "rotate
around 72" rule against :func:`combine` on every pair.
"""

from __future__ import annotations

import itertools
import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction

import pytest

from fairdie.subjects.die.lab import (
    Method,
    bits_per_value,
    combine,
    expected_bits_per_value,
    plain_reject,
    prefix_reject,
)

Scale = Callable[[Iterable[int], int], Iterator[int]]
STREAM = "01011101100010011001011110100111001"  # the text's example, 35 bits


def _bits(text: str) -> list[int]:
    return [int(c) for c in text]


def test_the_texts_prefix_example() -> None:
    # 0101110 = 46; "11" dropped; 0001001 = 9; "1001" dropped; 0111101 = 61; 0011100 = 28
    it = iter(_bits(STREAM))
    assert list(prefix_reject(it, 72)) == [46, 9, 61, 28]
    assert list(it) == []  # the last bit was read and left unfinished
    # lazy: the first value leaves the rest unread
    it = iter(_bits(STREAM))
    assert next(prefix_reject(it, 72)) == 46
    assert "".join(map(str, it)) == STREAM[7:]


def test_the_texts_plain_example() -> None:
    # chunks 46, 98, 50, 123, 57: 98 and 123 dropped
    assert list(plain_reject(_bits(STREAM), 72)) == [46, 50, 57]


def test_prefix_drops_only_hopeless_prefixes() -> None:
    # m = 72: a 7-bit value starting 11, 101 or 1001 is >= 72; 1000111 = 71 is kept
    assert list(prefix_reject(_bits("11" + "1000111"), 72)) == [71]
    assert list(prefix_reject(_bits("101" + "1001" + "0000000"), 72)) == [0]
    # m a power of two: nothing is ever dropped
    assert list(prefix_reject(_bits("111111"), 8)) == [7, 7]


@pytest.mark.parametrize("scale", [prefix_reject, plain_reject])
@pytest.mark.parametrize("m", [*range(2, 18), 72])
def test_every_value_equally_likely(scale: Scale, m: int) -> None:
    """Over all 2**L equally likely strings: the first value, and the first two."""
    k = (m - 1).bit_length()
    length = 10 if m == 72 else 2 * k + 2
    first: Counter[int] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    for bits in itertools.product((0, 1), repeat=length):
        values = list(scale(bits, m))
        if values:
            first[values[0]] += 1
        if len(values) >= 2:
            pairs[values[0], values[1]] += 1
    assert sorted(first) == list(range(m))
    assert len(set(first.values())) == 1
    if m != 72:
        assert len(pairs) == m * m
        assert len(set(pairs.values())) == 1


def test_exact_bits_per_value_by_hand() -> None:
    # m = 5, k = 3, q = 5/8. Plain: 3 / q = 24/5. Prefix: bit 1 always, bit 2
    # after 0 or 1 (2 of 2), bit 3 after 00, 01 or 10 (3 of 4): 2.75 / q = 22/5.
    assert expected_bits_per_value("plain", 5) == Fraction(24, 5)
    assert expected_bits_per_value("prefix", 5) == Fraction(22, 5)
    # m = 3: only "11" is dropped, after its second bit: both methods are one
    assert (
        expected_bits_per_value("plain", 3)
        == expected_bits_per_value("prefix", 3)
        == Fraction(8, 3)
    )
    for k in range(1, 8):  # powers of two: k bits, never a rejection
        assert expected_bits_per_value("plain", 2**k) == k
        assert expected_bits_per_value("prefix", 2**k) == k


def test_bits_per_value_for_72() -> None:
    """The figures of the module docstring (the text claims 8.7 and 11.5)."""
    assert expected_bits_per_value("prefix", 72) == 9
    assert expected_bits_per_value("plain", 72) == Fraction(112, 9)
    assert round(bits_per_value("prefix", 72, 10**6, seed=0), 3) == 9.006
    assert round(bits_per_value("plain", 72, 10**6, seed=0), 3) == 12.427


def _costs(scale: Scale, m: int, nbits: int, seed: int) -> list[int]:
    """Bits consumed by each value, on the same bits as ``bits_per_value``."""
    stream = format(random.Random(seed).getrandbits(nbits), f"0{nbits}b")
    read = 0

    def counted() -> Iterator[int]:
        nonlocal read
        for ch in stream:
            read += 1
            yield int(ch)

    costs = []
    last = 0
    for _ in scale(counted(), m):
        costs.append(read - last)
        last = read
    return costs


@pytest.mark.parametrize(("name", "scale"), [("prefix", prefix_reject), ("plain", plain_reject)])
@pytest.mark.parametrize("m", [3, 5, 9, 72, 100, 129])
def test_measured_bits_per_value_match_the_exact(name: Method, scale: Scale, m: int) -> None:
    nbits = 40_000
    measured = bits_per_value(name, m, nbits, seed=m)
    costs = _costs(scale, m, nbits, seed=m)
    assert measured == pytest.approx(statistics.fmean(costs), rel=1e-12)
    se = statistics.stdev(costs) / len(costs) ** 0.5
    assert abs(measured - float(expected_bits_per_value(name, m))) <= 4 * se


def test_combine_is_the_texts_rotation_around_72() -> None:
    def one_based(v: int) -> int:  # the text's value 0 is 72
        return v if v else 72

    def rotate(x: int, y: int) -> int:  # x, y in 1..72: add, minus 72 above 72
        return x + y - 72 if x + y > 72 else x + y

    for a, b in itertools.product(range(72), repeat=2):
        assert one_based(combine(a, b, 72)) == rotate(one_based(a), one_based(b))
    # the text's examples, 1-based
    for y, out in [(70, 68), (1, 71), (2, 72), (3, 1), (4, 2), (72, 70)]:
        assert one_based(combine(70 % 72, y % 72, 72)) == out
    assert [one_based(combine(a, 7, 72)) for a in (23, 54, 2)] == [30, 61, 9]


def test_combine_with_one_uniform_source_is_uniform() -> None:
    # whatever the other source gives, a -> combine(a, b) hits every value once
    for b in range(72):
        assert sorted(combine(a, b, 72) for a in range(72)) == list(range(72))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: list(prefix_reject([0, 1], 1)), "m must"),
        (lambda: list(plain_reject([0, 2, 1], 4)), "bits must"),
        (lambda: list(prefix_reject([1, 0, -1], 4)), "bits must"),
        (lambda: combine(72, 0, 72), "0..71"),
        (lambda: combine(0, -1, 72), "0..71"),
        (lambda: expected_bits_per_value("fast", 72), "method"),  # type: ignore[arg-type]
        (lambda: bits_per_value("prefix", 72, 0, seed=0), "nbits"),
        (lambda: bits_per_value("prefix", 72, 5, seed=0), "no value"),
    ],
)
def test_bad_input_raises(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
