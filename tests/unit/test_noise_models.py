"""Each noise model's own behaviour: floating, uniform, stuck, weak, dead, hum
and biased (what every seekable model does is in test_noise.py)."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable

import pytest
from noisesupport import read_press

from fairdie.noise import (
    Biased,
    Dead,
    Floating,
    Hum,
    NoiseModel,
    SeekableNoise,
    Stuck,
    Uniform,
    Weak,
    code_for_mv,
)

# ---- floating ------------------------------------------------------------------------------


def _codes(model: NoiseModel, n: int, vcc: int = 3000, ch: int = 2) -> list[int]:
    return [code_for_mv(round(model(ch)), vcc) for _ in range(n)]


def _one_per_press(model: Floating, presses: range, vcc: int = 3000) -> list[int]:
    out = []
    for k in presses:
        model.seek(k)
        out.append(code_for_mv(round(model(2)), vcc))
    return out


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


def _few_skewed_codes(codes: list[int]) -> None:
    """What 100 conversions of a floating pin look like: 4-8 codes (measured
    3-8, median 5), most of them on the 2-3 commonest (measured >= 65)."""
    for start in range(0, len(codes), 100):
        window = Counter(codes[start : start + 100])
        assert 3 <= len(window) <= 8
        assert sum(n for _, n in window.most_common(3)) >= 60


@pytest.mark.parametrize("seed", range(4))
def test_floating_reads_few_codes_in_one_long_press(seed: int) -> None:
    codes = _codes(Floating(seed, 3000), 10_000)
    _few_skewed_codes(codes)
    # The walk drifts: the long press spans more codes than one window ...
    assert max(codes) - min(codes) > max(codes[:100]) - min(codes[:100])
    # ... but stays near its resting level, far from uniform.
    assert max(codes) - min(codes) < 40
    assert 0.25 * 1023 - 30 < statistics.mean(codes) < 0.75 * 1023 + 30


@pytest.mark.parametrize("seed", range(4))
def test_floating_reads_few_codes_one_per_press(seed: int) -> None:
    m = Floating(seed, 3000)
    for start in (0, 4_321, 27_000):
        _few_skewed_codes(_one_per_press(m, range(start, start + 100)))


@pytest.mark.parametrize("seed", range(4))
def test_floating_centre_drifts_across_presses(seed: int) -> None:
    m = Floating(seed, 3000)
    lsb = 3000 / 1023
    centres = [m.centre(k) for k in range(0, 40_000, 10)]
    assert centres == [Floating(seed, 3000).centre(k) for k in range(0, 40_000, 10)]
    spread = max(centres) - min(centres)
    assert 1.0 * lsb < spread <= 4 * lsb  # within drift_lsb = 2 of home, either way
    near = [m.centre(k) for k in range(100)]
    assert max(near) - min(near) < 1.5 * lsb  # slow: periods of 300 presses and more
    # A press's walk reverts to its centre (the mean's sd is about 0.5 LSB).
    m.seek(20_000)
    mean = statistics.mean(m(0) for _ in range(10_000))
    assert abs(mean - m.centre(20_000)) < 2.5 * lsb
    # Over many presses the LSB is balanced (measured 0.43-0.57 over 200 seeds).
    codes = _one_per_press(m, range(0, 30_000, 10))
    assert 0.4 < sum(c & 1 for c in codes) / len(codes) < 0.6
    assert max(codes) - min(codes) <= 12


def test_floating_stays_within_the_supply() -> None:
    for home in (0.0, 3000.0):
        m = Floating(3, 3000, home_mv=home, jitter_lsb=20)
        values = [v for k in range(0, 200_000, 1000) for v in read_press(m, k, n=10)]
        assert all(0 <= v <= 3000 for v in values)
        assert min(values) == 0 if home == 0 else max(values) == 3000


def test_floating_without_drift_or_walk_centres_on_home() -> None:
    m = Floating(3, 3000, home_mv=1500, drift_lsb=0, walk_lsb=0, jitter_lsb=0)
    assert {v for k in (0, 77, 12_345) for v in read_press(m, k, n=3)} == {1500}


@pytest.mark.parametrize(
    "kwargs",
    [{"home_mv": 4000}, {"pull": 2}, {"jitter_lsb": -1}, {"walk_lsb": math.nan}, {"drift_lsb": -1}],
)
def test_floating_rejects_bad_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        Floating(1, 3000, **kwargs)


@pytest.mark.parametrize("model", [Floating, Uniform])
def test_models_reject_a_bad_supply(model: Callable[[int, float], NoiseModel]) -> None:
    for vcc in (0, -1, math.nan, math.inf):
        with pytest.raises(ValueError, match="vcc_mv"):
            model(1, vcc)


# ---- uniform, stuck ----------------------------------------------------------------------


def test_uniform_codes_are_uniform() -> None:
    n = 204_800
    codes = Counter(_codes(Uniform(11, 3000), n))
    assert set(codes) == set(range(1024))
    expected = n / 1024
    chi2 = sum((codes[k] - expected) ** 2 / expected for k in range(1024))
    assert chi2 < 1023 + 5 * math.sqrt(2 * 1023)  # about 5 sigma for 1023 dof
    thirds = Counter(k % 3 for k in codes.elements())
    assert all(abs(thirds[r] / n - (342 if r == 0 else 341) / 1024) < 0.005 for r in range(3))


def test_uniform_is_uniform_one_per_press() -> None:
    m = Uniform(12, 3000)
    codes = Counter(code_for_mv(read_press(m, k, n=1)[0], 3000) // 64 for k in range(16_000))
    chi2 = sum((codes[b] - 1000) ** 2 / 1000 for b in range(16))
    assert chi2 < 15 + 5 * math.sqrt(2 * 15)


def test_uniform_is_deterministic_and_in_range() -> None:
    a, b = Uniform(4, 5000), Uniform(4, 5000)
    va = [a(2) for _ in range(1000)]
    assert va == [b(2) for _ in range(1000)]
    assert all(0 <= v <= 5000 for v in va)
    c = Uniform(5, 5000)
    assert va != [c(2) for _ in range(1000)]


def test_stuck() -> None:
    m = Stuck(1234.5)
    m.seek(3)
    assert {m(ch) for ch in range(4) for _ in range(3)} == {1234.5}
    with pytest.raises(ValueError, match="mv"):
        Stuck(-1)
    with pytest.raises(ValueError, match="mv"):
        Stuck(math.nan)


# ---- weak and dead ----------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [1, 10, 50])
def test_weak_reads_its_rest_and_the_code_above_by_ratio(ratio: int) -> None:
    m = Weak(ratio, 4)
    rest = m.rest(2)
    codes = Counter(c for k in range(400) for c in _codes_of(m, k, 50))
    assert set(codes) == {rest, rest + 1}
    n = sum(codes.values())
    p_up = 1 / (ratio + 1)
    se = math.sqrt(p_up * (1 - p_up) / n)
    assert abs(codes[rest + 1] / n - p_up) < 5 * se, codes


def _codes_of(model: SeekableNoise, press: int, n: int, vcc: int = 3000) -> list[int]:
    return [code_for_mv(round(v), vcc) for v in read_press(model, press, n=n)]


def test_weak_rests_away_from_the_rails_at_a_seeded_code() -> None:
    rests = [Weak(10, seed).rest(0) for seed in range(300)]
    assert all(64 <= r <= 1023 - 65 for r in rests)
    assert len(set(rests)) > 200  # spread over the codes (300 draws from 895: 255 expected)
    assert Weak(10, 5).rest(0) == Weak(50, 5).rest(0) != Weak(10, 6).rest(0)
    m = Weak(10, 5)
    assert m.rest(0) != m.rest(1)  # each channel rests at its own code
    # the rest is a code whatever the supply: both codes read back exactly
    for vcc in (1100, 3300, 5000):
        w = Weak(1, 5, vcc)
        assert set(_codes_of(w, 0, 200, vcc)) == {w.rest(2), w.rest(2) + 1}


@pytest.mark.parametrize("ratio", [0.5, 0, -3, math.nan, math.inf, True])
def test_weak_rejects_a_bad_ratio(ratio: float) -> None:
    with pytest.raises(ValueError, match="ratio must be a finite number >= 1"):
        Weak(ratio, 0)


def test_dead_reads_one_code_at_every_conversion_and_press() -> None:
    m = Dead(9)
    code = m.code(2)
    seen = {c for k in (0, 1, 77, 5000) for c in _codes_of(m, k, 300)}
    assert seen == {code}
    assert Dead(9).code(2) == code  # drawn from the seed alone


def test_dead_codes_differ_by_seed_and_reach_the_rails() -> None:
    codes = [Dead(seed).code(0) for seed in range(400)]
    near = [c for c in codes if c <= 3 or c >= 1020]
    assert 0.15 < len(near) / len(codes) < 0.35  # a quarter of the seeds, by design
    assert {0, 1023} <= set(near)
    middle = [c for c in codes if 3 < c < 1020]
    assert len(set(middle)) > 200 and min(middle) < 200 and max(middle) > 800


def test_dead_rejects_a_bad_supply_and_press() -> None:
    with pytest.raises(ValueError, match="vcc_mv"):
        Dead(0, 0)
    with pytest.raises(ValueError, match="press"):
        Dead(0).seek(-1)


# ---- hum ------------------------------------------------------------------------------------


def _spectrum_peak(samples: list[float], rate: float, freqs: range) -> int:
    """The frequency in ``freqs`` with the most power (a DFT at each)."""
    mean = statistics.mean(samples)

    def power(f: int) -> float:
        re = sum((v - mean) * math.cos(math.tau * f * n / rate) for n, v in enumerate(samples))
        im = sum((v - mean) * math.sin(math.tau * f * n / rate) for n, v in enumerate(samples))
        return re * re + im * im

    return max(freqs, key=power)


@pytest.mark.parametrize("hz", [50, 60])
def test_hum_is_seen_at_its_frequency_on_the_bound_clock(hz: int) -> None:
    now = [0.0]
    m = Hum(hz, 9, 3000)
    m.bind_clock(lambda: now[0])
    m.seek(4)
    samples = []
    for n in range(500):  # 1 kHz for half a second
        now[0] = n / 1000
        samples.append(m(2))
    assert _spectrum_peak(samples, 1000, range(20, 200, 2)) == hz
    assert min(samples) < 300 and max(samples) > 2700  # near rail to rail
    assert 1300 < statistics.mean(samples) < 1700  # around mid-rail


def test_hum_is_the_sine_at_the_press_start_plus_the_clock() -> None:
    now = [0.0]
    m = Hum(60, 2, 3000, jitter_lsb=0)
    m.bind_clock(lambda: now[0])
    m.seek(8)
    for t in (0.0, 0.001, 0.0123, 0.5):
        now[0] = t
        expected = 1500 + 1350 * math.sin(math.tau * 60 * (m.start_s + t))
        assert m(0) == pytest.approx(expected, abs=1e-6)
    # The clock only sets the time: the same instant reads the same.
    now[0] = 0.0123
    assert m(0) == pytest.approx(1500 + 1350 * math.sin(math.tau * 60 * (m.start_s + 0.0123)))


def test_hum_without_a_clock_steps_by_its_conversion_period() -> None:
    m = Hum(50, 2, 3000, jitter_lsb=0)
    assert m.period_s == 104e-6
    m.seek(1)
    for n in range(50):
        t = m.start_s + n * 104e-6
        assert m(3) == pytest.approx(1500 + 1350 * math.sin(math.tau * 50 * t))


def test_hum_phase_at_power_on_is_uniform_per_press() -> None:
    m = Hum(50, 5)
    phases = []
    for k in range(2000):
        m.seek(k)
        phases.append(m.start_s * 50)
    assert all(0 <= p < 1 for p in phases)
    quarters = Counter(int(p * 4) for p in phases)
    assert all(400 < quarters[q] < 600 for q in range(4))


@pytest.mark.parametrize("hz", [0, 0.5, 10_001, math.nan, True])
def test_hum_rejects_a_bad_frequency(hz: float) -> None:
    with pytest.raises(ValueError, match="hz"):
        Hum(hz, 1)


def test_hum_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="amplitude_mv"):
        Hum(50, 1, amplitude_mv=-1)
    with pytest.raises(ValueError, match="jitter_lsb"):
        Hum(50, 1, jitter_lsb=math.inf)
    with pytest.raises(ValueError, match="period_s"):
        Hum(50, 1, period_s=0)


# ---- biased ----------------------------------------------------------------------------------


def test_biased_codes_follow_their_weights() -> None:
    m = Biased([1, 0, 3, 6], 12, 3000)
    n = 40_000
    codes = Counter(code_for_mv(round(m(2)), 3000) for _ in range(n))
    assert set(codes) == {0, 2, 3}
    for code, p in ((0, 0.1), (2, 0.3), (3, 0.6)):
        assert abs(codes[code] / n - p) < 0.015  # about 6 sigma


def test_biased_one_per_press_follows_its_weights() -> None:
    m = Biased([0] * 1020 + [1, 1, 2, 0], 3, 3300)
    codes = Counter(code_for_mv(read_press(m, k, n=1)[0], 3300) for k in range(8_000))
    assert set(codes) == {1020, 1021, 1022}
    assert abs(codes[1022] / 8_000 - 0.5) < 0.03


@pytest.mark.parametrize(
    "weights",
    [[], [-1, 2], [0, 0], [math.nan], [math.inf, 1], [1] * 1025, [1e308, 1e308]],
)
def test_biased_rejects_bad_weights(weights: list[float]) -> None:
    with pytest.raises(ValueError, match="weights"):
        Biased(weights, 1)
