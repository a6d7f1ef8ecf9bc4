"""Tones from a pin's edges: any duty cycle, silences, changes of pitch."""

from __future__ import annotations

import itertools

import pytest

from fairdie.device import tones_from_edges

F = 9_600_000


def wave(start: int, halves: tuple[int, int], n: int) -> list[int]:
    """``n`` edges from ``start``, the half periods alternating."""
    return list(
        itertools.accumulate(itertools.islice(itertools.cycle(halves), n - 1), initial=start)
    )


@pytest.mark.parametrize("halves", [(4800, 4800), (5120, 4480), (5400, 4200), (9000, 600)])
def test_a_tone_reads_at_any_duty_cycle(halves: tuple[int, int]) -> None:
    (tone,) = tones_from_edges(wave(100, halves, 201), F)
    assert tone.frequency_hz == pytest.approx(1000, rel=1e-9)
    assert (tone.start, tone.end) == (100, 100 + 100 * sum(halves))
    assert tone.duration_s == pytest.approx(0.1, abs=0.001)


def test_jitter_of_a_cycle_averages_out() -> None:
    edges = [e + (i % 3 == 0) for i, e in enumerate(wave(0, (5120, 4480), 101))]
    (tone,) = tones_from_edges(edges, F)
    assert tone.frequency_hz == pytest.approx(1000, rel=1e-4)


def test_silence_and_a_change_of_pitch_split_tones() -> None:
    first = wave(0, (5120, 4480), 41)  # 20 periods of 1 kHz
    second = wave(first[-1] + F, (2560, 2240), 41)  # a second of silence, then 2 kHz
    third = wave(second[-1], (4800, 4800), 41)  # 1 kHz again, right after
    tones = tones_from_edges(first + second + third[1:], F)
    assert [round(t.frequency_hz) for t in tones] == [1000, 2000, 1000]
    assert tones[0].end == first[-1] and tones[1].start == second[0]
    assert tones[1].end == tones[2].start == second[-1]


def test_too_few_edges_are_no_tone() -> None:
    assert tones_from_edges([0, 4800], F) == []
    assert tones_from_edges([0, 4800, F * 2, F * 2 + 4800], F) == []
    with pytest.raises(ValueError, match="f_cpu must be positive"):
        tones_from_edges([0], 0)
