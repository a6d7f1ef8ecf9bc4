"""Noise models that read alike at every press: a steady input (:class:`Stuck`,
:class:`Dead`) and values replayed in turn (:class:`Cycle`, :class:`Codes`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fairdie.noise._adc import ADC_MAX, mv_table
from fairdie.noise._seeded import check_count, check_press, check_vcc, keyed
from fairdie.sim._noise import Values

__all__ = ["DEAD_NEAR_RAIL", "Codes", "Cycle", "Dead", "Steady", "Stuck"]


class Steady:
    """A model that reads the same at every conversion of a channel, at every
    press: its blocks and presses are that value repeated."""

    def __call__(self, channel: int) -> float:
        raise NotImplementedError

    def next_values(self, channel: int, n: int) -> Values:
        return np.full(max(1, n), self(channel))

    def press_values(self, press: int, n: int, channel: int = 0) -> Values:
        """The first ``n`` values of press ``press`` (the same at any press)."""
        check_press(press)
        return np.full(check_count(n), self(channel))

    def seek(self, press: int) -> None:
        """Start press ``press`` (checked, and otherwise the same as any)."""
        check_press(press)


class Stuck(Steady):
    """Always the same voltage: a shorted or saturated input (the same at
    every press, so :meth:`seek` has nothing to do)."""

    def __init__(self, mv: float) -> None:
        if isinstance(mv, bool) or not math.isfinite(mv) or mv < 0:
            raise ValueError(f"mv must be a finite number >= 0, got {mv!r}")
        self.mv = float(mv)

    def __call__(self, channel: int) -> float:
        return self.mv

    def __repr__(self) -> str:
        return f"Stuck(mv={self.mv:g})"


#: Where :class:`Weak` may rest: codes this far from either rail are not drawn.
#: The share of :class:`Dead` inputs that sit at or next to a rail, and how
#: many codes from each rail count as next to it.
DEAD_NEAR_RAIL = (0.25, 4)


class Dead(Steady):
    """A dead input: no analog noise at all, one code at every conversion.

    Unlike :class:`Stuck` (a voltage the user names), the code is drawn once
    per seed and channel: a quarter of the seeds sit at or next to a rail
    (codes 0..3 or 1020..1023, equally likely: a pin shorted to a supply or
    saturated), the rest anywhere in 0..1023 uniformly (a pin held by a
    source with no noise). So a campaign over seeds exercises many codes,
    the rails among them. It reads the same at every press: :meth:`seek`
    only checks its argument. Returns the millivolts of the code.
    """

    def __init__(self, seed: int, vcc_mv: float = 3000) -> None:
        self.seed = seed
        self.vcc_mv = check_vcc(vcc_mv)
        self._mv = mv_table(self.vcc_mv)
        self._codes: dict[int, int] = {}

    def code(self, channel: int = 0) -> int:
        """The code a channel reads, at every conversion of every press."""
        code = self._codes.get(channel)
        if code is None:
            rng = keyed(f"fairdie.noise.dead:{self.seed}:{channel}")
            share, near = DEAD_NEAR_RAIL
            if rng.random() < share:
                n = rng.bits53() % (2 * near)
                code = n if n < near else ADC_MAX - (n - near)
            else:
                code = rng.bits53() % (ADC_MAX + 1)
            self._codes[channel] = code
        return code

    def __call__(self, channel: int) -> float:
        return self._mv[self.code(channel)]

    def __repr__(self) -> str:
        return f"Dead(seed={self.seed}, vcc_mv={self.vcc_mv:g})"


class Cycle:
    """Millivolts replayed in turn, then again: the part of :class:`Codes` and
    :class:`~fairdie.noise._trace.Trace` that reads them. Subclasses call
    :meth:`_replay` with the values (not empty)."""

    _mv: tuple[float, ...]
    _values: Values
    _next = 0
    #: changed by every move other than reading (see :mod:`fairdie.noise._seeded`)
    epoch = 0

    def _replay(self, mv: tuple[float, ...]) -> None:
        self._mv = mv
        self._values = np.array(mv, dtype=np.float64)

    def __call__(self, channel: int) -> float:
        mv = self._mv[self._next]
        self._next = (self._next + 1) % len(self._mv)
        return mv

    def next_values(self, channel: int, n: int) -> Values:
        """Up to ``n`` of the next values (at least one; to the end of the
        sequence at the most): a view of them, no copy."""
        at = self._next
        block = self._values[at : at + max(1, n)]
        self._next = (at + len(block)) % len(self._mv)
        return block

    def _move(self, at: int) -> None:
        self._next = at
        self.epoch += 1

    def snapshot(self) -> int:
        """The position in the sequence (``Chip.snapshot`` keeps it)."""
        return self._next

    def restore(self, state: int) -> None:
        self._move(state)


class Codes(Cycle):
    """The voltages that make the ADC read ``codes``, one per conversion, in
    turn and then again: a test's exact control of what the firmware reads.
    A stream across presses: it has no ``seek``."""

    def __init__(self, codes: Sequence[int], vcc_mv: float = 3000) -> None:
        # checked and looked up a tuple at a time (a campaign makes one per press)
        if (
            not codes
            or bool in set(map(type, codes))
            or not 0 <= min(codes) <= max(codes) <= ADC_MAX
        ):
            raise ValueError(f"codes must be 1 or more integers 0..{ADC_MAX}, got {codes!r}")
        self.codes = tuple(codes)
        self.vcc_mv = check_vcc(vcc_mv)
        self._replay(tuple(map(mv_table(self.vcc_mv).__getitem__, self.codes)))

    def __repr__(self) -> str:
        return f"Codes({list(self.codes)!r}, vcc_mv={self.vcc_mv:g})"
