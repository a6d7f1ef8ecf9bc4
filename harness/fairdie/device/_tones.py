"""Tones from a speaker pin's edges: pure functions over cycle numbers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Tone", "tones_from_edges"]

#: A half period may drift this much (relative) and still be the same tone.
_SAME_TONE = 0.1


@dataclass(frozen=True, slots=True)
class Tone:
    """A square wave on the speaker pin: from ``start`` to ``end`` (cycles)."""

    start: int
    end: int
    frequency_hz: float
    duration_s: float


def tones_from_edges(edges: Sequence[int], f_cpu: int, *, min_hz: float = 20.0) -> list[Tone]:
    """Group the cycles at which a pin changed level into tones.

    A tone is a run of at least three edges whose half periods agree within
    10 %; a gap longer than half a period of ``min_hz`` is silence, and a
    change of half period starts a new tone. Each tone's frequency is its
    edge count over its span, so jitter of a cycle or two averages out.
    """
    if f_cpu <= 0:
        raise ValueError(f"f_cpu must be positive, not {f_cpu}")
    silence = f_cpu / (2 * min_hz)
    out: list[Tone] = []
    run: list[int] = []

    def close() -> None:
        if len(run) >= 3:
            span = run[-1] - run[0]
            half = span / (len(run) - 1)
            out.append(Tone(run[0], run[-1], f_cpu / (2 * half), (span + half) / f_cpu))

    for cycle in edges:
        if run:
            gap = cycle - run[-1]
            half = (run[-1] - run[0]) / (len(run) - 1) if len(run) > 1 else gap
            if gap > silence or abs(gap - half) > _SAME_TONE * half:
                close()
                run = [run[-1]] if gap <= silence else []
        run.append(cycle)
    close()
    return out
