"""The noise models' C kernels give, bit for bit, what the models' Python
arithmetic gave before they existed: a pure Python reference of each model
(tests/noise_reference.py, the definitions the kernels replaced) against the
models, over many seeds, presses and channels; and a block at a time against
one at a time."""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest

from fairdie.noise import Floating, Hum
from noise_reference import MODELS, ref_hum


def _bits(values: object) -> bytes:
    """The exact doubles, so that -0.0 and 0.0 (or two NaNs) never compare equal."""
    a = [float(v) for v in values]  # type: ignore[attr-defined]
    return struct.pack(f"<{len(a)}d", *a)


# ---- the kernels against the reference ------------------------------------------------


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_press_values_are_the_python_arithmetic_bit_for_bit(kind: str) -> None:
    make, ref = MODELS[kind]
    for seed, vcc in itertools.product(range(12), (1800.0, 3000.0, 5000.0)):
        model = make(seed, vcc)
        for press, channel in ((0, 0), (1, 0), (7, 3), (123_456, 0), (2**40 + 5, 1)):
            got = model.press_values(press, 300, channel)  # type: ignore[attr-defined]
            assert _bits(got) == _bits(ref(seed, vcc, press, channel, 300)), (seed, vcc, press)


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_calls_blocks_and_press_values_give_the_same_press(kind: str) -> None:
    make, ref = MODELS[kind]
    for seed in range(6):
        expected = _bits(ref(seed, 3000.0, 9, 2, 257))
        calls = make(seed, 3000.0)
        calls.seek(9)  # type: ignore[attr-defined]
        assert _bits([calls(2) for _ in range(257)]) == expected  # type: ignore[operator]
        blocks = make(seed, 3000.0)
        blocks.seek(9)  # type: ignore[attr-defined]
        got: list[float] = []
        for n in itertools.cycle((1, 5, 64, 3, 100)):
            got.extend(blocks.next_values(2, min(n, 257 - len(got))))  # type: ignore[attr-defined]
            if len(got) == 257:
                break
        assert _bits(got) == expected


def test_hum_with_a_clock_reads_the_clock_at_each_value() -> None:
    times = [0.0011 * k + 1e-7 * k * k for k in range(40)]
    model = Hum(50, 4, 3000.0)
    model.seek(3)
    clock = iter(times)
    model.bind_clock(lambda: next(clock))
    got = [model.next_values(0, 64) for _ in times]
    assert all(len(b) == 1 for b in got)  # a block cannot know later times
    assert _bits(np.concatenate(got)) == _bits(ref_hum(4, 3000.0, 3, 0, 40, times))


def test_press_values_leave_the_model_where_it_was() -> None:
    model = Floating(2, 3000.0)
    model.seek(5)
    first = [model(0) for _ in range(10)]
    model.press_values(8, 50)
    model.seek(5)
    assert [model(0) for _ in range(10)] == first
    with pytest.raises(ValueError, match="press must be"):
        model.press_values(-1, 5)
    with pytest.raises(ValueError, match="n must be"):
        model.press_values(0, -5)
