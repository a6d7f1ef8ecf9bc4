"""The power-cut engine's torn-value models (fairdie.campaigns): no chip needed."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from fairdie.campaigns import EVERY_VALUE, MODES, physical


@pytest.mark.parametrize(("old", "new"), [(0x00, 0xFF), (0xA5, 0x5A), (0x12, 0x12), (0xFF, 0x00)])
def test_a_write_goes_from_old_through_erased_to_new(old, new):
    assert physical(old, new, 0.0) == old
    assert physical(old, new, 0.5) == 0xFF  # erased half way
    assert physical(old, new, 1.0) == new
    seen = [physical(old, new, p / 64) for p in range(65)]
    # the erase only sets bits, the programming only clears them
    half = seen[: len(seen) // 2 + 1]
    assert all(a & ~b == 0 for a, b in pairwise(half))
    rest = seen[len(seen) // 2 :]
    assert all(b & ~a == 0 for a, b in pairwise(rest))


def test_erase_only_and_write_only_modes():
    assert physical(0x0F, 0xFF, 1.0, mode=1) == 0xFF
    assert physical(0xF0, 0x30, 1.0, mode=2) == 0x30
    assert physical(0xF0, 0x30, 0.0, mode=2) == 0xF0


def test_a_random_order_reaches_the_same_ends():
    rng = random.Random(1)
    for _ in range(100):
        old, new = rng.randrange(256), rng.randrange(256)
        assert physical(old, new, 1.0, rng=rng) == new
        assert physical(old, new, 0.5, rng=rng) == 0xFF


def test_every_value_is_every_byte_and_modes_are_the_chips_names():
    assert list(EVERY_VALUE) == list(range(256))
    assert MODES == ("erase+write", "erase", "write")


def test_progress_outside_0_1_is_clamped():
    assert physical(0xA5, 0x5A, -1.0) == 0xA5
    assert physical(0xA5, 0x5A, 2.0) == 0x5A


class _InOrder(random.Random):
    """A random source that leaves the bits in order: lowest first."""

    def shuffle(self, x):  # type: ignore[override]
        pass


def test_the_fixed_order_is_lowest_bit_first():
    # the fixed order is read from a table; flipping the bits one at a time in order agrees
    rng = random.Random(7)
    for _ in range(3000):
        old, new, mode = rng.randrange(256), rng.randrange(256), rng.randrange(3)
        p = rng.choice((rng.random(), rng.randrange(17) / 16))
        assert physical(old, new, p, mode=mode) == physical(old, new, p, mode=mode, rng=_InOrder())
