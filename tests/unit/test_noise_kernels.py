"""The noise models' C kernels give, bit for bit, what the models' Python
arithmetic gave before they existed: a pure Python reference of each model
(tests/noise_reference.py, the definitions the kernels replaced) against the
models, over many seeds, presses and channels; and a block at a time against
one at a time."""

from __future__ import annotations

import itertools
import pickle
import struct

import numpy as np
import pytest

from fairdie.noise import BlockNoise, Codes, Floating, Hum, NoiseModel, Stuck
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
    first = [model(0) for _ in range(5)]  # before the clock: 104 us apart
    clock = iter(times[5:])
    model.bind_clock(lambda: next(clock))
    got = [model.next_values(0, 64) for _ in times[5:20]]
    got += [np.array([model(0)]) for _ in times[20:]]
    assert all(len(b) == 1 for b in got)  # a block cannot know later times
    expected = ref_hum(4, 3000.0, 3, 0, 40, [k * 104e-6 for k in range(5)] + times[5:])
    assert _bits(first + list(np.concatenate(got))) == _bits(expected)


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


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_presses_in_turn_or_not_read_the_reference(kind: str) -> None:
    """Presses sought in turn have their first blocks made ahead: the same values."""
    make, ref = MODELS[kind]
    model = make(5, 3000.0)
    for press in [*range(75), 3, 40, 41, 200, 7, 8, 9]:
        model.seek(press)  # type: ignore[attr-defined]
        first = model.next_values(1, 40)  # type: ignore[attr-defined]
        more = model.next_values(1, 20)  # type: ignore[attr-defined]
        expected = ref(5, 3000.0, press, 1, len(first) + len(more))
        assert _bits(np.concatenate([first, more])) == _bits(expected), press


@pytest.mark.parametrize("kind", sorted(set(MODELS) - {"dead"}))  # dead keeps no position
def test_calls_blocks_and_snapshots_mixed_read_the_reference_in_turn(kind: str) -> None:
    """Calls are served from blocks made ahead: a block asked for after some
    calls, or a snapshot taken between them, starts at the next value."""
    make, ref = MODELS[kind]
    expected = _bits(ref(8, 3000.0, 4, 0, 300))
    model = make(8, 3000.0)
    model.seek(4)  # type: ignore[attr-defined]
    got = [model(0) for _ in range(10)]  # type: ignore[operator]
    snap = model.snapshot()  # type: ignore[attr-defined]
    got += list(model.next_values(0, 30))  # type: ignore[attr-defined]
    got += [model(0) for _ in range(100)]  # type: ignore[operator]
    assert _bits(got) == expected[: 8 * len(got)]
    model.press_values(9, 10)  # type: ignore[attr-defined]
    model.restore(snap)  # type: ignore[attr-defined]
    again = [model(0) for _ in range(7)]  # type: ignore[operator]
    again += list(model.next_values(0, 283))  # type: ignore[attr-defined]
    assert _bits(got[:10] + again) == expected[: 8 * (10 + len(again))]


def test_a_model_pickles_with_its_position() -> None:
    model = Floating(3, 3000.0)
    model.seek(2)
    [model(1) for _ in range(5)]
    model.next_values(1, 20)  # the rest of the values made for the calls
    copy = pickle.loads(pickle.dumps(model))
    assert _bits(copy.next_values(1, 50)) == _bits(model.next_values(1, 50))
    copy.seek(3)
    model.seek(3)
    assert _bits(copy.next_values(1, 50)) == _bits(model.next_values(1, 50))


def test_every_model_gives_blocks_and_a_plain_callable_does_not() -> None:
    models: list[NoiseModel] = [make(1, 3000.0) for make, _ in MODELS.values()]  # type: ignore[misc]
    models += [Stuck(100.0), Codes([1, 2, 3])]
    assert all(isinstance(m, BlockNoise) for m in models)
    assert not isinstance(lambda channel: 100.0, BlockNoise)
