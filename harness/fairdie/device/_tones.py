"""Tones from a speaker pin's edges (:meth:`fairdie.sim.Trace.pin_edges`): pure
functions over cycle numbers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Tone", "tones_from_edges"]

#: A period may drift this much (relative) and still be the same tone.
_SAME_TONE = 0.1


@dataclass(frozen=True, slots=True)
class Tone:
    """A square wave on the speaker pin: from ``start`` to ``end`` (cycles)."""

    start: int
    end: int
    frequency_hz: float
    duration_s: float


def _period(run: Sequence[int]) -> float:
    """The mean period between like edges of a run of at least three edges:
    the mean of ``run[i + 2] - run[i]``, which telescopes."""
    return (run[-1] + run[-2] - run[0] - run[1]) / (len(run) - 2)


def tones_from_edges(edges: Sequence[int], f_cpu: int, *, min_hz: float = 20.0) -> list[Tone]:
    """Group the cycles at which a pin changed level into tones.

    ``edges`` alternate (rising, falling, rising, ... or the reverse), so
    every second one is a like edge. A tone is a run of at least three edges
    whose periods between like edges (rising to rising, falling to falling)
    agree within 10 %, so a wave of any duty cycle reads as one tone: a
    buzzer whose half periods differ by 15 % is still one frequency. A gap
    longer than a period of ``min_hz`` is silence, and a change of period
    starts a new tone. Each tone's frequency is from its mean period, so
    jitter of a cycle or two averages out.
    """
    if f_cpu <= 0:
        raise ValueError(f"f_cpu must be positive, not {f_cpu}")
    silence = f_cpu / min_hz
    out: list[Tone] = []
    run: list[int] = []

    def close() -> None:
        if len(run) >= 3:
            period = _period(run)
            span = run[-1] - run[0]
            out.append(Tone(run[0], run[-1], f_cpu / period, (span + period / 2) / f_cpu))

    for cycle in edges:
        if run and cycle - run[-1] > silence:
            close()
            run = []
        elif len(run) >= 3 and abs(cycle - run[-2] - _period(run)) > _SAME_TONE * _period(run):
            close()
            run = [run[-1]]
        run.append(cycle)
    close()
    return out
