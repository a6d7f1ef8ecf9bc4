"""Noise models, their CLI specs and the ADC transfer function (the
Hypothesis strategies are in test_noise_strategies.py)."""

from __future__ import annotations

import math
import os
import statistics
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairdie.noise import (
    ADC_MAX,
    DEFAULT_NOISE,
    NOISE_NAMES,
    Biased,
    Codes,
    Dead,
    Floating,
    Hum,
    NoiseModel,
    SeekableNoise,
    Stuck,
    Trace,
    Uniform,
    Weak,
    code_for_mv,
    mv_for_code,
    parse_noise,
)
from fairdie.noise._seeded import keyed, keyed_starts

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


# ---- every seekable model ---------------------------------------------------------------


def _write(tmp_path: Path, text: str, name: str = "pin.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _recording(tmp_path: Path) -> Path:
    """37 readings (prime, so presses of 16 start at every row in turn)."""
    rows = "\n".join(f"{n},{(n * 613) % 3001}" for n in range(37))
    return _write(tmp_path, "n,mv\n" + rows + "\n")


Build = Callable[[int, Path], SeekableNoise]

#: Every seekable kind, built from a seed (a trace has none, nor a constant).
MODELS: dict[str, Build] = {
    "floating": lambda seed, _: Floating(seed),
    "uniform": lambda seed, _: Uniform(seed),
    "hum": lambda seed, _: Hum(50, seed),
    "biased": lambda seed, _: Biased([1, 0, 3, 6, 2], seed),
    "weak": lambda seed, _: Weak(3, seed),
    "stuck": lambda seed, _: Stuck(1500),
    "dead": lambda seed, _: Dead(seed),
    "trace": lambda seed, tmp_path: Trace(_recording(tmp_path)),
}
SEEDED = ("floating", "uniform", "hum", "biased", "weak")


def _press(model: SeekableNoise, press: int, n: int = 16, channel: int = 2) -> list[float]:
    model.seek(press)
    return [model(channel) for _ in range(n)]


@pytest.mark.parametrize("kind", MODELS)
def test_a_press_reads_the_same_whatever_came_before(kind: str, tmp_path: Path) -> None:
    build = MODELS[kind]
    fresh = build(7, tmp_path)
    expected = _press(fresh, 5)
    used = build(7, tmp_path)
    for k in (9, 0, 5, 3):  # other presses, another channel, this press part read
        used.seek(k)
        for n in range(k + 2):
            used(2)
            used(n % 3)
    assert _press(used, 5) == expected
    assert _press(used, 5) == expected  # and again, straight after itself


@pytest.mark.parametrize("kind", MODELS)
def test_shards_read_what_one_run_reads(kind: str, tmp_path: Path) -> None:
    """A campaign over presses 0..29 in one process, or in three shards."""
    build = MODELS[kind]
    one = build(3, tmp_path)
    whole = [_press(one, k, n=1 + k % 4) for k in range(30)]
    for start in (0, 10, 20):
        shard = build(3, tmp_path)
        assert [_press(shard, k, n=1 + k % 4) for k in range(start, start + 10)] == whole[
            start : start + 10
        ]


@pytest.mark.parametrize("kind", MODELS)
def test_without_a_seek_a_model_reads_press_0(kind: str, tmp_path: Path) -> None:
    build = MODELS[kind]
    stream = build(4, tmp_path)
    assert [stream(2) for _ in range(40)] == _press(build(4, tmp_path), 0, n=40)


@pytest.mark.parametrize("kind", MODELS)
def test_readings_are_within_the_supply(kind: str, tmp_path: Path) -> None:
    model = MODELS[kind](8, tmp_path)
    values = [v for k in range(0, 4000, 40) for v in _press(model, k)]
    assert all(0 <= v <= 3000 for v in values)


@pytest.mark.parametrize("kind", SEEDED)
def test_seeds_and_presses_differ(kind: str, tmp_path: Path) -> None:
    build = MODELS[kind]
    a, b = build(1, tmp_path), build(2, tmp_path)
    presses = range(0, 600, 7)
    read_a = [_press(a, k) for k in presses]
    assert read_a != [_press(b, k) for k in presses]
    assert len({tuple(r) for r in read_a}) > len(read_a) // 2


@pytest.mark.parametrize("kind", [*SEEDED, "trace"])
def test_snapshot_restore_resumes_mid_press(kind: str, tmp_path: Path) -> None:
    model = MODELS[kind](6, tmp_path)
    assert hasattr(model, "snapshot") and hasattr(model, "restore")
    model.seek(11)
    for n in range(5):
        model(n % 2)
    snap = model.snapshot()
    after = [model(n % 2) for n in range(20)]
    _press(model, 40)
    model.restore(snap)
    assert [model(n % 2) for n in range(20)] == after


@pytest.mark.parametrize("kind", MODELS)
@pytest.mark.parametrize("press", [-1, True, 1.5])
def test_seek_rejects_a_bad_press(kind: str, press: int, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="press"):
        MODELS[kind](0, tmp_path).seek(press)


def test_models_are_seekable_noise() -> None:
    assert isinstance(Floating(1), SeekableNoise)
    assert isinstance(Stuck(1), SeekableNoise)
    assert isinstance(Weak(10, 1), SeekableNoise) and isinstance(Dead(1), SeekableNoise)
    assert not isinstance(Codes([1]), SeekableNoise)  # a stream: a test's exact control


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
        values = [v for k in range(0, 200_000, 1000) for v in _press(m, k, n=10)]
        assert all(0 <= v <= 3000 for v in values)
        assert min(values) == 0 if home == 0 else max(values) == 3000


def test_floating_without_drift_or_walk_centres_on_home() -> None:
    m = Floating(3, 3000, home_mv=1500, drift_lsb=0, walk_lsb=0, jitter_lsb=0)
    assert {v for k in (0, 77, 12_345) for v in _press(m, k, n=3)} == {1500}


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
    codes = Counter(code_for_mv(_press(m, k, n=1)[0], 3000) // 64 for k in range(16_000))
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
    return [code_for_mv(round(v), vcc) for v in _press(model, press, n=n)]


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
    codes = Counter(code_for_mv(_press(m, k, n=1)[0], 3300) for k in range(8_000))
    assert set(codes) == {1020, 1021, 1022}
    assert abs(codes[1022] / 8_000 - 0.5) < 0.03


@pytest.mark.parametrize(
    "weights",
    [[], [-1, 2], [0, 0], [math.nan], [math.inf, 1], [1] * 1025, [1e308, 1e308]],
)
def test_biased_rejects_bad_weights(weights: list[float]) -> None:
    with pytest.raises(ValueError, match="weights"):
        Biased(weights, 1)


# ---- trace -----------------------------------------------------------------------------------


def test_trace_replays_in_order_and_cycles(tmp_path: Path) -> None:
    path = _write(tmp_path, "time, MV ,note\n0,10,a\n\n1,20.5,b\n2,3000\n")
    m = Trace(path, 3000)
    assert m.rows == 3
    assert [m(n % 2) for n in range(7)] == [10, 20.5, 3000, 10, 20.5, 3000, 10]


def test_trace_of_codes_reads_those_codes(tmp_path: Path) -> None:
    path = _write(tmp_path, "code\n0\n511\n1023\n")
    m = Trace(path, 3300)
    assert [code_for_mv(round(m(0)), 3300) for _ in range(3)] == [0, 511, 1023]


def test_trace_seek_starts_a_press_at_its_row(tmp_path: Path) -> None:
    m = Trace(_recording(tmp_path))
    rows = [m(0) for _ in range(37)]
    assert m.per_press == 16
    for k in (0, 1, 2, 5, 100):
        start = k * 16 % 37
        assert _press(m, k, n=3) == [rows[(start + i) % 37] for i in range(3)]
    m.per_press = 1
    assert _press(m, 36, n=2) == [rows[36], rows[0]]
    assert _press(Trace(_recording(tmp_path), per_press=5), 2, n=1) == [rows[10]]
    with pytest.raises(ValueError, match="per_press"):
        m.per_press = 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("\n\n", "empty"),
        ("value\n1\n", "row 1: the header must name one column mv or code"),
        ("mv,code\n1,1\n", "row 1: the header must name one column mv or code"),
        ("mv\n", "no readings"),
        ("mv\n1\n2\nabc\n", "row 4: 'abc' is not a number"),
        ("mv,x\n1,2\n,3\n", "row 3: '' is not a number"),
        ("x,mv\n1,2\n3\n", "row 3: '' is not a number"),
        ("mv\n1\n3001\n", "row 3: 3001 mV is outside 0..3000 mV"),
        ("mv\nnan\n", "row 2: nan mV is outside"),
        ("code\n1\n2.5\n", "row 3: '2.5' is not a code 0..1023"),
        ("code\n1024\n", "row 2: code 1024 is outside 0..1023"),
        ('mv\n"1\n2"\n', "row 3: '1\\\\n2' is not a number"),
    ],
)
def test_trace_errors_name_the_file_and_row(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ValueError, match=message) as e:
        Trace(path, 3000)
    assert str(e.value).startswith(f"noise trace {path}: ")
    assert "\n" not in str(e.value)


def test_trace_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"noise trace .*nope\.csv: no such recording") as e:
        Trace(tmp_path / "nope.csv")
    assert "\n" not in str(e.value)
    path = _write(tmp_path, "")
    path.write_bytes(b"mv\n\xff\xfe\n")
    with pytest.raises(ValueError, match="not a CSV text file"):
        Trace(path)


# ---- parse_noise -------------------------------------------------------------------------


def test_noise_names_list_every_form() -> None:
    assert DEFAULT_NOISE == "floating" and DEFAULT_NOISE in NOISE_NAMES
    assert set(NOISE_NAMES) == {
        "floating",
        "uniform",
        "stuck:MILLIVOLTS",
        "rail-low",
        "rail-high",
        "dead",
        "weak:RATIO",
        "hum:HZ",
        "biased:P0,P1,...",
        "trace:FILE.csv",
        "adversarial",
    }


def test_parse_noise_names(tmp_path: Path) -> None:
    assert isinstance(parse_noise("floating", seed=3, vcc_mv=3000), Floating)
    assert isinstance(parse_noise("FLOATING", seed=3, vcc_mv=3000), Floating)
    assert isinstance(parse_noise(" Uniform ", seed=3, vcc_mv=3000), Uniform)
    s = parse_noise("stuck:1500", seed=3, vcc_mv=3000)
    assert isinstance(s, Stuck) and s(2) == 1500
    assert parse_noise("stuck:0", seed=0, vcc_mv=3000)(2) == 0
    assert parse_noise("stuck:3000", seed=0, vcc_mv=3000)(2) == 3000
    assert parse_noise("stuck:12.5mV", seed=0, vcc_mv=3000)(2) == 12.5
    assert parse_noise("rail-low", seed=0, vcc_mv=3300)(2) == 0
    assert parse_noise("Rail-High", seed=0, vcc_mv=3300)(2) == 3300
    h = parse_noise("hum:60", seed=0, vcc_mv=3000)
    assert isinstance(h, Hum) and h.hz == 60
    assert isinstance(h := parse_noise("hum: 59.94 Hz", seed=0, vcc_mv=3000), Hum)
    assert h.hz == 59.94
    w = parse_noise("WEAK: 12.5", seed=4, vcc_mv=3000)
    assert isinstance(w, Weak) and w.ratio == 12.5 and w.rest(0) == Weak(12.5, 4).rest(0)
    d = parse_noise("dead", seed=4, vcc_mv=3300)
    assert isinstance(d, Dead) and d(0) == Dead(4, 3300)(0)
    b = parse_noise("biased: 1, 0,2.5", seed=0, vcc_mv=3000)
    assert isinstance(b, Biased) and b.weights == (1, 0, 2.5)
    path = _write(tmp_path, "mv\n7\n", name="Pin Recording.CSV")
    t = parse_noise(f"TRACE: {path}", seed=0, vcc_mv=3000)
    assert isinstance(t, Trace) and t.path == path and t(0) == 7


@pytest.mark.parametrize(
    "spec",
    ["floating", "uniform", "hum:50", "biased:1,2,3", "weak:3", "dead", "stuck:5", "rail-high"],
)
def test_parse_noise_uses_seed_and_vcc(spec: str) -> None:
    a = parse_noise(spec, seed=9, vcc_mv=5000)
    b = parse_noise(spec, seed=9, vcc_mv=5000)
    assert _press(a, 3, n=50) == _press(b, 3, n=50)
    assert all(0 <= v <= 5000 for v in _press(a, 4, n=50))
    if spec in ("floating", "uniform", "hum:50", "biased:1,2,3", "weak:3", "dead"):
        c = parse_noise(spec, seed=10, vcc_mv=5000)
        assert _press(a, 3, n=50) != _press(c, 3, n=50)
    direct: dict[str, SeekableNoise] = {
        "floating": Floating(9, 5000),
        "uniform": Uniform(9, 5000),
        "hum:50": Hum(50, 9, 5000),
    }
    if spec in direct:
        assert _press(a, 3, n=50) == _press(direct[spec], 3, n=50)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("noisy", "unknown noise 'noisy': expected one of floating, uniform, stuck:MILLIVOLTS"),
        ("", "unknown noise ''"),
        ("nope:3", "rail-low, rail-high, dead, weak:RATIO, hum:HZ, biased:P0,P1,..., trace:FILE"),
        ("floating:3", "floating takes no value"),
        ("rail-low:", "rail-low takes no value"),
        ("dead:3", "dead takes no value"),
        ("weak", "expected weak:RATIO"),
        ("weak:", "expected weak:RATIO"),
        ("weak:often", "expected weak:RATIO"),
        ("weak:0.5", "'weak:0.5': the ratio 0.5 is not a finite number >= 1"),
        ("weak:-2", "the ratio -2 is not a finite number >= 1"),
        ("weak:nan", "the ratio nan is not a finite number >= 1"),
        ("weak:inf", "the ratio inf is not a finite number >= 1"),
        ("adversarial", "adversarial noise needs the die's reference model: use `fairdie lab"),
        ("stuck", "expected stuck:MILLIVOLTS"),
        ("stuck:", "expected stuck:MILLIVOLTS"),
        ("stuck:abc", "expected stuck:MILLIVOLTS"),
        ("stuck:-1", "outside 0..3000 mV"),
        ("stuck:3001", "outside 0..3000 mV"),
        ("stuck:nan", "outside 0..3000 mV"),
        ("stuck:inf", "outside 0..3000 mV"),
        ("hum", "expected hum:HZ"),
        ("hum:fifty", "expected hum:HZ"),
        ("hum:0", "0 Hz is outside 1..10000 Hz"),
        ("hum:10001", "outside 1..10000 Hz"),
        ("hum:nan", "outside 1..10000 Hz"),
        ("hum:20000Hz", "'hum:20000Hz': 20000 Hz is outside 1..10000 Hz"),
        ("stuck:5000 mV", "'stuck:5000 mV': 5000 mV is outside 0..3000 mV"),
        ("biased", "expected biased:P0,P1,..."),
        ("biased:1,,2", "expected biased:P0,P1,..."),
        ("biased:1,x", "expected biased:P0,P1,..."),
        ("biased:1,-2", "the weight of code 1, -2, is not a finite number >= 0"),
        ("biased:inf", "the weight of code 0, inf, is not a finite number >= 0"),
        ("biased:0,0", "finite sum above 0"),
        ("biased:1e308,1e308", "finite sum above 0"),
        ("biased:" + ",".join(["1"] * 1025), "1025 weights, at most 1024"),
        ("trace", "expected trace:FILE.csv"),
        ("trace:", "expected trace:FILE.csv"),
        ("trace:/no/such/dir/pin.csv", "noise trace /no/such/dir/pin.csv: no such recording"),
    ],
)
def test_parse_noise_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")) as e:
        parse_noise(spec, seed=0, vcc_mv=3000)
    assert "\n" not in str(e.value)


def test_a_trace_is_a_regular_file_of_bounded_size(tmp_path: Path) -> None:
    """A device or a FIFO is refused before it is read (/dev/zero would be read
    until memory ran out), and so is a file too large to be a recording."""
    from fairdie.noise import _trace

    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        with pytest.raises(ValueError, match="not a regular file"):
            parse_noise(f"trace:{path}", seed=0, vcc_mv=3000)
    big = tmp_path / "big.csv"
    big.write_text("code\n" + "1\n" * (_trace.MAX_TRACE_BYTES // 2))
    with pytest.raises(ValueError, match="more than the"):
        parse_noise(f"trace:{big}", seed=0, vcc_mv=3000)


def test_keyed_starts_are_those_of_the_keyed_generators() -> None:
    suffixes = ["0:0", "1:0", "12345:3", ""]
    starts = keyed_starts("fairdie.noise.floating:7:", suffixes)
    assert starts == [keyed(f"fairdie.noise.floating:7:{s}").rng for s in suffixes]
    assert len(set(starts)) == len(starts)
