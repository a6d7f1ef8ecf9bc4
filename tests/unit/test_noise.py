"""The ADC transfer function, and what every seekable noise model does: a press
reads the same whatever came before, shards read what one run reads, readings
stay within the supply; and the seeded generators' keyed starts. Each model's
own behaviour is in test_noise_models.py, recordings and CLI specs in
test_noise_specs.py, the Hypothesis strategies in test_noise_strategies.py."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from noisesupport import read_press, recording

from fairdie.noise import (
    ADC_MAX,
    Biased,
    Codes,
    Dead,
    Floating,
    Hum,
    SeekableNoise,
    Stuck,
    Trace,
    Uniform,
    Weak,
    code_for_mv,
    mv_for_code,
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
    "trace": lambda seed, tmp_path: Trace(recording(tmp_path)),
}
SEEDED = ("floating", "uniform", "hum", "biased", "weak")


@pytest.mark.parametrize("kind", MODELS)
def test_a_press_reads_the_same_whatever_came_before(kind: str, tmp_path: Path) -> None:
    build = MODELS[kind]
    fresh = build(7, tmp_path)
    expected = read_press(fresh, 5)
    used = build(7, tmp_path)
    for k in (9, 0, 5, 3):  # other presses, another channel, this press part read
        used.seek(k)
        for n in range(k + 2):
            used(2)
            used(n % 3)
    assert read_press(used, 5) == expected
    assert read_press(used, 5) == expected  # and again, straight after itself


@pytest.mark.parametrize("kind", MODELS)
def test_shards_read_what_one_run_reads(kind: str, tmp_path: Path) -> None:
    """A campaign over presses 0..29 in one process, or in three shards."""
    build = MODELS[kind]
    one = build(3, tmp_path)
    whole = [read_press(one, k, n=1 + k % 4) for k in range(30)]
    for start in (0, 10, 20):
        shard = build(3, tmp_path)
        assert [read_press(shard, k, n=1 + k % 4) for k in range(start, start + 10)] == whole[
            start : start + 10
        ]


@pytest.mark.parametrize("kind", MODELS)
def test_without_a_seek_a_model_reads_press_0(kind: str, tmp_path: Path) -> None:
    build = MODELS[kind]
    stream = build(4, tmp_path)
    assert [stream(2) for _ in range(40)] == read_press(build(4, tmp_path), 0, n=40)


@pytest.mark.parametrize("kind", MODELS)
def test_readings_are_within_the_supply(kind: str, tmp_path: Path) -> None:
    model = MODELS[kind](8, tmp_path)
    values = [v for k in range(0, 4000, 40) for v in read_press(model, k)]
    assert all(0 <= v <= 3000 for v in values)


@pytest.mark.parametrize("kind", SEEDED)
def test_seeds_and_presses_differ(kind: str, tmp_path: Path) -> None:
    build = MODELS[kind]
    a, b = build(1, tmp_path), build(2, tmp_path)
    presses = range(0, 600, 7)
    read_a = [read_press(a, k) for k in presses]
    assert read_a != [read_press(b, k) for k in presses]
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
    read_press(model, 40)
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


def test_keyed_starts_are_those_of_the_keyed_generators() -> None:
    suffixes = ["0:0", "1:0", "12345:3", ""]
    starts = keyed_starts("fairdie.noise.floating:7:", suffixes)
    assert starts == [keyed(f"fairdie.noise.floating:7:{s}").rng for s in suffixes]
    assert len(set(starts)) == len(starts)
