"""Noise models, the ADC transfer function, and the Hypothesis strategies."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import find, given
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from fairdie.noise import (
    ADC_MAX,
    DEFAULT_NOISE,
    Floating,
    Stuck,
    Uniform,
    code_for_mv,
    mv_for_code,
    parse_noise,
)
from fairdie.noise.strategies import adc_codes, counters

# ---- the ADC transfer function -------------------------------------------------------


def test_code_for_mv_is_simavrs_formula() -> None:
    assert code_for_mv(0, 3000) == 0
    assert code_for_mv(2, 3000) == 0  # 2 * 1023 / 3000 = 0.68
    assert code_for_mv(3, 3000) == 1  # 1.023
    assert code_for_mv(1500, 3000) == 511  # 511.5
    assert code_for_mv(2999, 3000) == 1022
    assert code_for_mv(3000, 3000) == 1023
    assert code_for_mv(1100, 1100) == 1023


def test_code_for_mv_clips() -> None:
    assert code_for_mv(-5, 3000) == 0
    assert code_for_mv(9000, 3000) == 1023
    assert code_for_mv(math.inf, 3000) == 1023
    assert code_for_mv(-math.inf, 3000) == 0


def test_code_for_mv_is_exact_at_boundaries() -> None:
    # The float 3300/1023 lies just below the exact start of code 1; naive
    # float arithmetic (mv * 1023 / vref) rounds it up to 1.
    mv = 3.225806451612903
    assert math.floor(mv * 1023 / 3300) == 1
    assert code_for_mv(mv, 3300) == 0
    assert code_for_mv(math.nextafter(mv, math.inf), 3300) == 1


@given(st.floats(-10, 6000), st.sampled_from([1100, 3000, 3300, 5000]))
def test_code_for_mv_is_floor_of_the_exact_ratio(mv: float, vref: int) -> None:
    assert code_for_mv(mv, vref) == max(0, min(1023, math.floor(Fraction(mv) * 1023 / vref)))
    if mv == int(mv):
        assert code_for_mv(int(mv), vref) == code_for_mv(mv, vref)


def test_code_for_mv_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="vref_mv"):
        code_for_mv(1, 0)
    with pytest.raises(ValueError, match="vref_mv"):
        code_for_mv(1, math.nan)
    with pytest.raises(ValueError, match="NaN"):
        code_for_mv(math.nan, 3000)


@pytest.mark.parametrize("vref", [1100, 1800, 3000, 3300, 5000])
def test_mv_for_code_round_trips_every_code(vref: int) -> None:
    previous = -1.0
    for code in range(ADC_MAX + 1):
        mv = mv_for_code(code, vref)
        assert code_for_mv(mv, vref) == code
        # Whole millivolts: survives the chip's round() before simavr sees it.
        assert mv == round(mv)
        assert code_for_mv(round(mv), vref) == code
        assert 0 <= mv <= vref
        assert mv > previous
        previous = mv


def test_mv_for_code_below_1023_mv_vref_uses_the_midpoint() -> None:
    # With vref 500 mV not every code contains a whole millivolt.
    for code in range(ADC_MAX + 1):
        assert code_for_mv(mv_for_code(code, 500), 500) == code


@pytest.mark.parametrize("code", [-1, 1024, 1.5, True])
def test_mv_for_code_rejects_bad_codes(code: int) -> None:
    with pytest.raises(ValueError, match="code"):
        mv_for_code(code, 3000)


# ---- models ----------------------------------------------------------------------------


def _codes(model: Floating | Uniform | Stuck, n: int, vcc: int = 3000, ch: int = 2) -> list[int]:
    return [code_for_mv(round(model(ch)), vcc) for _ in range(n)]


def test_floating_is_deterministic_and_seeded() -> None:
    assert _codes(Floating(1), 500) == _codes(Floating(1), 500)
    assert _codes(Floating(1), 500) != _codes(Floating(2), 500)


def test_floating_channels_are_independent() -> None:
    alone = _codes(Floating(5), 200, ch=2)
    m = Floating(5)
    mixed = []
    for _ in range(200):
        m(3)
        mixed.append(code_for_mv(round(m(2)), 3000))
    assert mixed == alone


@pytest.mark.parametrize("seed", range(5))
def test_floating_reads_few_codes_around_a_drifting_centre(seed: int) -> None:
    codes = _codes(Floating(seed, 3000), 20_000)
    # A short window: a handful of codes, most of them on 2-3 values.
    for start in range(0, 20_000, 2_000):
        window = Counter(codes[start : start + 100])
        assert 2 <= len(window) <= 12
        assert sum(n for _, n in window.most_common(3)) >= 50
    # The centre drifts: the long run spans more codes than one window ...
    assert max(codes) - min(codes) > max(codes[:100]) - min(codes[:100])
    # ... but stays near its resting level, far from uniform.
    assert max(codes) - min(codes) < 60
    assert 0.25 * 1023 - 30 < sum(codes) / len(codes) < 0.75 * 1023 + 30


def test_floating_stays_within_the_supply() -> None:
    for home in (0.0, 3000.0):
        m = Floating(3, 3000, home_mv=home, jitter_lsb=20)
        values = [m(0) for _ in range(2000)]
        assert all(0 <= v <= 3000 for v in values)
        assert min(values) == 0 if home == 0 else max(values) == 3000


def test_floating_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="home_mv"):
        Floating(1, 3000, home_mv=4000)
    with pytest.raises(ValueError, match="vcc_mv"):
        Floating(1, 0)
    with pytest.raises(ValueError):
        Floating(1, 3000, pull=2)


def test_uniform_codes_are_uniform() -> None:
    n = 204_800
    codes = Counter(_codes(Uniform(11, 3000), n))
    assert set(codes) == set(range(1024))
    expected = n / 1024
    chi2 = sum((codes[k] - expected) ** 2 / expected for k in range(1024))
    assert chi2 < 1023 + 5 * math.sqrt(2 * 1023)  # about 5 sigma for 1023 dof
    thirds = Counter(k % 3 for k in codes.elements())
    assert all(abs(thirds[r] / n - (342 if r == 0 else 341) / 1024) < 0.005 for r in range(3))


def test_uniform_is_deterministic_and_in_range() -> None:
    a, b = Uniform(4, 5000), Uniform(4, 5000)
    va = [a(2) for _ in range(1000)]
    assert va == [b(2) for _ in range(1000)]
    assert all(0 <= v <= 5000 for v in va)
    c = Uniform(5, 5000)
    assert va != [c(2) for _ in range(1000)]


def test_stuck() -> None:
    m = Stuck(1234.5)
    assert {m(ch) for ch in range(4) for _ in range(3)} == {1234.5}
    with pytest.raises(ValueError, match="mv"):
        Stuck(-1)
    with pytest.raises(ValueError, match="mv"):
        Stuck(math.nan)


# ---- parse_noise -----------------------------------------------------------------------


def test_parse_noise_names() -> None:
    assert DEFAULT_NOISE == "floating"
    assert isinstance(parse_noise("floating", seed=3, vcc_mv=3000), Floating)
    assert isinstance(parse_noise("FLOATING", seed=3, vcc_mv=3000), Floating)
    assert isinstance(parse_noise(" Uniform ", seed=3, vcc_mv=3000), Uniform)
    s = parse_noise("stuck:1500", seed=3, vcc_mv=3000)
    assert isinstance(s, Stuck) and s(2) == 1500
    assert parse_noise("stuck:0", seed=0, vcc_mv=3000)(2) == 0
    assert parse_noise("stuck:3000", seed=0, vcc_mv=3000)(2) == 3000
    assert parse_noise("stuck:12.5", seed=0, vcc_mv=3000)(2) == 12.5


def test_parse_noise_uses_seed_and_vcc() -> None:
    a = parse_noise("floating", seed=9, vcc_mv=5000)
    b = Floating(9, 5000)
    assert [a(2) for _ in range(100)] == [b(2) for _ in range(100)]
    u = parse_noise("uniform", seed=9, vcc_mv=5000)
    v = Uniform(9, 5000)
    assert [u(2) for _ in range(100)] == [v(2) for _ in range(100)]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("noisy", "unknown noise 'noisy'"),
        ("", "unknown noise ''"),
        ("stuck", "expected stuck:MILLIVOLTS"),
        ("stuck:", "expected stuck:MILLIVOLTS"),
        ("stuck:abc", "expected stuck:MILLIVOLTS"),
        ("stuck:-1", "outside 0..3000 mV"),
        ("stuck:3001", "outside 0..3000 mV"),
        ("stuck:nan", "outside 0..3000 mV"),
        ("stuck:inf", "outside 0..3000 mV"),
    ],
)
def test_parse_noise_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as e:
        parse_noise(spec, seed=0, vcc_mv=3000)
    assert "\n" not in str(e.value)


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
    find(counters(), condition)  # raises NoSuchExample if unreachable
