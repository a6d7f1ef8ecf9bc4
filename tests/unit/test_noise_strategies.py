"""The Hypothesis strategies of fairdie.noise.strategies: what they draw,
which cases they reach, and their InvalidArgument on bad bounds."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from fairdie.noise import Biased, Floating, Hum, SeekableNoise, Stuck, Uniform
from fairdie.noise.strategies import adc_codes, counters, noise_models, noise_sequences

# ---- strategies --------------------------------------------------------------------------


def _assert_raises_when_drawn(strategy: st.SearchStrategy[object]) -> None:
    @given(strategy)
    def draw(value: object) -> None:
        pass

    with pytest.raises(InvalidArgument):
        draw()


@given(adc_codes())
def test_adc_codes_default_range(code: int) -> None:
    assert 0 <= code <= 1023


@given(adc_codes(min_value=510, max_value=514))
def test_adc_codes_bounds(code: int) -> None:
    assert 510 <= code <= 514


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_value": -1},
        {"max_value": 1024},
        {"min_value": 10, "max_value": 9},
        {"min_value": 1.5},
        {"max_value": True},
    ],
)
def test_adc_codes_invalid_arguments_raise_when_drawn(kwargs: dict[str, object]) -> None:
    strategy = adc_codes(**kwargs)  # type: ignore[arg-type]  # building does not raise
    _assert_raises_when_drawn(strategy)


@given(counters())
def test_counters_shape(table: tuple[int, ...]) -> None:
    assert isinstance(table, tuple) and len(table) == 6
    assert all(isinstance(v, int) and 0 <= v <= 255 for v in table)


@given(counters(edges=False))
def test_counters_plain_shape(table: tuple[int, ...]) -> None:
    assert len(table) == 6 and all(0 <= v <= 255 for v in table)


def test_counters_invalid_argument_raises_when_drawn() -> None:
    strategy = counters(edges="yes")  # type: ignore[arg-type]  # building does not raise
    _assert_raises_when_drawn(strategy)


#: A case is reachable if generation finds it (shrinking it would only cost time).
_REACH = settings(max_examples=2000, phases=[Phase.generate], database=None)


@pytest.mark.parametrize(
    "condition",
    [
        lambda t: t == (255,) * 6,
        lambda t: t == (0,) * 6,
        lambda t: 255 in t and min(t) > 0,
        lambda t: 255 in t and 0 in t,
        lambda t: 254 in t and 255 not in t,
        lambda t: min(t) > 0 and len(set(t)) <= 2,
    ],
)
def test_counters_reach_the_edge_cases(condition: object) -> None:
    assert callable(condition)
    find(counters(), condition, settings=_REACH)  # raises NoSuchExample if unreachable


# ---- noise sequences -----------------------------------------------------------------------


@given(noise_sequences())
def test_noise_sequences_default_shape(codes: list[int]) -> None:
    assert isinstance(codes, list) and 1 <= len(codes) <= 64
    assert all(isinstance(c, int) and 0 <= c <= 1023 for c in codes)


@settings(max_examples=50)
@given(noise_sequences(min_size=0, max_size=3))
def test_noise_sequences_small_bounds(codes: list[int]) -> None:
    assert 0 <= len(codes) <= 3 and all(0 <= c <= 1023 for c in codes)


@settings(max_examples=30)
@given(noise_sequences(min_size=100, max_size=100))
def test_noise_sequences_exact_size(codes: list[int]) -> None:
    assert len(codes) == 100


def _alternates(codes: list[int]) -> bool:
    return len(codes) >= 6 and all({a, b} == {0, 1023} for a, b in itertools.pairwise(codes))


def _runs(codes: list[int]) -> bool:
    repeats = sum(a == b for a, b in itertools.pairwise(codes))
    return len(codes) >= 10 and len(set(codes)) >= 3 and repeats >= 0.8 * (len(codes) - 1)


def _skewed_cluster(codes: list[int]) -> bool:
    counts = Counter(codes)
    return (
        len(codes) >= 20
        and 3 <= len(counts) <= 8
        and max(codes) - min(codes) <= 8
        and counts.most_common(1)[0][1] >= 2 * len(codes) / len(counts)
        and min(codes) > 10
    )


@pytest.mark.parametrize(
    "condition",
    [
        lambda c: len(c) >= 20 and len(set(c)) == 1,  # stuck
        lambda c: len(c) >= 10 and set(c) == {0},  # the low rail
        lambda c: len(c) >= 10 and set(c) == {1023},  # the high rail
        lambda c: set(c) == {0, 1023} and len(c) >= 10 and not _alternates(c),  # both rails
        _alternates,
        _runs,
        _skewed_cluster,
        lambda c: len(set(c)) >= 25,  # anything
    ],
)
@pytest.mark.parametrize("compact", [False, True], ids=["per-code", "compact"])
def test_noise_sequences_reach_their_shapes(condition: object, compact: bool) -> None:
    assert callable(condition)
    # 25 codes or more: every condition asks at least 10 and "anything" 25; a
    # shorter list cannot pass, it only spends the search's draws
    find(noise_sequences(min_size=25, max_size=32, compact=compact), condition, settings=_REACH)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_size": -1},
        {"min_size": 5, "max_size": 4},
        {"min_size": 1.0},
        {"max_size": "64"},
        {"max_size": True},
        {"compact": 1},
    ],
)
def test_noise_sequences_invalid_arguments_raise_when_drawn(kwargs: dict[str, object]) -> None:
    strategy = noise_sequences(**kwargs)  # type: ignore[arg-type]  # building does not raise
    _assert_raises_when_drawn(strategy)


# ---- noise models ----------------------------------------------------------------------------


@settings(max_examples=50)
@given(noise_models(), st.integers(0, 10**6))
def test_noise_models_are_seekable_and_within_the_supply(model: SeekableNoise, press: int) -> None:
    assert isinstance(model, SeekableNoise)
    model.seek(press)
    values = [model(2) for _ in range(8)]
    assert all(0 <= v <= 3000 for v in values)
    model.seek(press)
    assert [model(2) for _ in range(8)] == values


@settings(max_examples=30)
@given(noise_models(vcc_mv=1800))
def test_noise_models_take_the_supply(model: SeekableNoise) -> None:
    assert all(0 <= model(0) <= 1800 for _ in range(8))
    if not isinstance(model, Stuck):
        assert getattr(model, "vcc_mv", None) == 1800


@pytest.mark.parametrize(
    "condition",
    [
        lambda m: isinstance(m, Floating),
        lambda m: isinstance(m, Uniform),
        lambda m: isinstance(m, Stuck) and m.mv == 0,
        lambda m: isinstance(m, Stuck) and m.mv == 3000,
        lambda m: isinstance(m, Stuck) and 0 < m.mv < 3000,
        lambda m: isinstance(m, Hum) and m.hz in (50, 60),
        lambda m: isinstance(m, Hum) and m.hz not in (50, 60),
        lambda m: isinstance(m, Biased) and 0 in m.weights,
        lambda m: isinstance(m, Biased) and len(m.weights) >= 3,
    ],
)
def test_noise_models_reach_every_kind(condition: object) -> None:
    assert callable(condition)
    find(noise_models(), condition, settings=_REACH)


@pytest.mark.parametrize("vcc_mv", [0, -1, math.nan, math.inf, "3000", True])
def test_noise_models_invalid_supply_raises_when_drawn(vcc_mv: object) -> None:
    _assert_raises_when_drawn(noise_models(vcc_mv=vcc_mv))  # type: ignore[arg-type]
