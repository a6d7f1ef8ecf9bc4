"""The noise models: what the floating ADC pin reads, one value per
conversion (the protocol is described in :mod:`fairdie.noise._seeded`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from fairdie.noise._adc import ADC_MAX, mv_array, mv_table
from fairdie.noise._seeded import (
    AHEAD,
    Seeded,
    check_press,
    clip,
    keyed,
)
from fairdie.sim._noise import NoiseStream, Values

__all__ = [
    "HUM_HZ",
    "MAX_WEIGHTS",
    "Biased",
    "Floating",
    "Hum",
    "Uniform",
    "Weak",
]


#: The slow waves of Floating's drift across presses: (shortest, longest)
#: period in presses and share of the drift amplitude, fast waves weakest.
_WAVES = ((300.0, 1_500.0, 0.2), (1_500.0, 8_000.0, 0.3), (8_000.0, 40_000.0, 0.5))


class Floating(Seeded):
    """A floating input: a few distinct codes around a slowly drifting centre.

    Across presses the centre drifts deterministically with the press number
    ``k``: ``home`` plus three seeded sinusoids in ``k`` with periods of
    300-1 500, 1 500-8 000 and 8 000-40 000 presses and amplitudes 0.2, 0.3
    and 0.5 times ``drift_lsb`` (so it stays within ``drift_lsb`` of home).
    Within a press the centre starts there and takes a mean-reverting random
    step per conversion (an Ornstein-Uhlenbeck walk: ``walk_lsb`` standard
    deviation per step, pulled back by the fraction ``pull``), and each
    reading is the centre plus Gaussian jitter of ``jitter_lsb``; all clipped
    to 0..vcc. One LSB is ``vcc_mv / 1023``. ``home_mv`` defaults to a seeded
    value between 25 % and 75 % of vcc. Each channel floats independently.

    With the defaults (measured over 200 seeds), 100 consecutive conversions
    read 3-8 distinct codes (median 5), both within one long press and one
    per press over 100 presses, 65 % or more of them (median 90 %) on the 3
    commonest: what a real floating pin near its resting level does. The
    walk makes 20 000 conversions in one press span 11-16 codes, and one
    conversion per press spans 6-9 over 30 000 presses. Over those the codes'
    LSB is balanced per seed to 0.43-0.58 (0.5 at the median); over 100
    presses to 0.26-0.70.
    """

    kind = "floating"

    def __init__(
        self,
        seed: int,
        vcc_mv: float = 3000,
        *,
        home_mv: float | None = None,
        jitter_lsb: float = 0.8,
        walk_lsb: float = 0.1,
        pull: float = 0.002,
        drift_lsb: float = 2.0,
    ) -> None:
        super().__init__(seed, vcc_mv)
        if home_mv is not None and not 0 <= home_mv <= self.vcc_mv:
            raise ValueError(f"home_mv {home_mv} is outside 0..{vcc_mv}")
        lsbs = (jitter_lsb, walk_lsb, drift_lsb)
        if not (all(math.isfinite(x) and x >= 0 for x in lsbs) and 0 <= pull <= 1):
            raise ValueError(
                "jitter_lsb, walk_lsb and drift_lsb must be finite and >= 0, pull in 0..1"
            )
        self.home_mv = home_mv
        lsb = self.vcc_mv / ADC_MAX
        self._jitter = jitter_lsb * lsb
        self._walk = walk_lsb * lsb
        self._pull = pull
        self._drift = drift_lsb * lsb
        # per channel: home and the waves (amplitude mV, radians per press, phase)
        self._shapes: dict[int, tuple[float, tuple[tuple[float, float, float], ...]]] = {}
        # per (press, channel): the centre the press starts at, which the walk
        # reverts to (kept for the presses in use: a few times AHEAD)
        self._targets: dict[tuple[int, int], float] = {}

    def _shape(self, channel: int) -> tuple[float, tuple[tuple[float, float, float], ...]]:
        shape = self._shapes.get(channel)
        if shape is None:
            rng = keyed(f"fairdie.noise.floating.shape:{self.seed}:{channel}")
            # drawn even with a home_mv, so that the waves are the same either way
            home = rng.uniform(0.25, 0.75) * self.vcc_mv
            if self.home_mv is not None:
                home = self.home_mv
            waves = tuple(
                (
                    share * self._drift,
                    math.tau / math.exp(rng.uniform(math.log(lo), math.log(hi))),
                    rng.uniform(0.0, math.tau),
                )
                for lo, hi, share in _WAVES
            )
            shape = self._shapes[channel] = (home, waves)
        return shape

    def centre(self, press: int, channel: int = 0) -> float:
        """The centre a channel starts press ``press`` at, in millivolts."""
        return self._centre(check_press(press), channel)

    def _centre(self, press: int, channel: int) -> float:
        return self._centres(range(press, press + 1), channel)[0]

    def _centres(self, presses: range, channel: int) -> list[float]:
        """:meth:`centre` of each press: home plus the three waves' drift,
        clipped to 0..vcc."""
        home, ((a0, w0, p0), (a1, w1, p1), (a2, w2, p2)) = self._shape(channel)
        vcc, sin = self.vcc_mv, math.sin
        # the drift summed from 0.0, left to right (as sum() did it)
        return [
            clip(
                home
                + (((0.0 + a0 * sin(w0 * k + p0)) + a1 * sin(w1 * k + p1)) + a2 * sin(w2 * k + p2)),
                vcc,
            )
            for k in presses
        ]

    def _target(self, press: int, channel: int) -> float:
        """The centre the walk reverts to in press ``press``."""
        target = self._targets.get((press, channel))
        if target is None:
            if len(self._targets) >= 4 * AHEAD:
                self._targets.clear()
            target = self._targets[press, channel] = self._centre(press, channel)
        return target

    def _begin(self, press: int, channel: int, stream: NoiseStream) -> None:
        stream.value = self._target(press, channel)

    def _first_blocks(
        self, presses: range, channel: int, n: int
    ) -> list[tuple[NoiseStream, Values]]:
        # the same as press by press (_begin, then _fill), in one pass: rows of one array
        cache = self._targets
        if len(cache) + len(presses) > 4 * AHEAD:
            cache.clear()
        targets = self._centres(presses, channel)
        cache.update(zip([(k, channel) for k in presses], targets, strict=True))
        starts = self._starts(presses, channel)
        streams = [NoiseStream(rng, t) for rng, t in zip(starts, targets, strict=True)]
        walk = {"pull": self._pull, "walk": self._walk, "jitter": self._jitter, "vcc": self.vcc_mv}
        rows = NoiseStream.floating_rows(streams, n, targets=targets, **walk)
        return list(zip(streams, rows, strict=True))

    def _fill(self, stream: NoiseStream, press: int, channel: int, n: int) -> Values:
        # per conversion: centre = clip(centre + pull * (target - centre) + gauss(0, walk)),
        # then the value clip(centre + gauss(0, jitter)), both to 0..vcc
        return stream.floating(
            n,
            target=self._target(press, channel),
            pull=self._pull,
            walk=self._walk,
            jitter=self._jitter,
            vcc=self.vcc_mv,
        )


class Uniform(Seeded):
    """Every code 0..1023 equally likely: an ideal noise source.

    Returns :func:`~fairdie.noise.mv_for_code` of a uniformly drawn code
    (whole millivolts for any vcc >= 1023 mV), so the codes simavr reads are
    exactly uniform. (Millivolts drawn uniformly from 0..vcc would not be:
    under ``floor(mV * 1023 / vcc)`` the code 1023 needs exactly vcc.)
    """

    kind = "uniform"

    def __init__(self, seed: int, vcc_mv: float = 3000) -> None:
        super().__init__(seed, vcc_mv)
        self._mv = mv_array(self.vcc_mv)

    def _fill(self, stream: NoiseStream, press: int, channel: int, n: int) -> Values:
        return stream.table(n, self._mv)  # the code: the top 10 of 53 random bits


#: The most codes :class:`Biased` takes weights for.
MAX_WEIGHTS = ADC_MAX + 1


class Biased(Seeded):
    """Code ``i`` with probability ``weights[i] / sum(weights)``, i = 0..len-1.

    Like :class:`Uniform` it returns the millivolts of the drawn code, so the
    codes simavr reads have exactly these probabilities. ``weights``: 1 to
    1024 finite numbers >= 0, at least one of them above 0.
    """

    kind = "biased"

    def __init__(self, weights: Sequence[float], seed: int, vcc_mv: float = 3000) -> None:
        super().__init__(seed, vcc_mv)
        w = tuple(weights)
        if not 1 <= len(w) <= MAX_WEIGHTS or any(
            isinstance(p, bool) or not math.isfinite(p) or p < 0 for p in w
        ):
            raise ValueError(f"weights must be 1 to {MAX_WEIGHTS} finite numbers >= 0")
        cumulative = tuple(itertools.accumulate(w))
        if not (0 < cumulative[-1] < math.inf):
            raise ValueError("weights must have a finite sum above 0")
        self.weights = w
        self._cumulative = np.array(cumulative, dtype=np.float64)
        self._last = max(i for i, p in enumerate(w) if p > 0)
        self._mv = mv_array(self.vcc_mv)

    def _fill(self, stream: NoiseStream, press: int, channel: int, n: int) -> Values:
        # x = random() * the sum of the weights; the code is the first whose
        # running sum passes x (never one of weight 0)
        return stream.biased(n, self._cumulative, self._last, self._mv)

    def __repr__(self) -> str:
        return f"Biased({list(self.weights)!r}, seed={self.seed}, vcc_mv={self.vcc_mv:g})"


#: The frequencies :class:`Hum` takes, in hertz.
HUM_HZ = (1.0, 10_000.0)


class Hum(Seeded):
    """Mains hum picked up by the open input, sampled at each conversion.

    Reads ``vcc/2 + amplitude * sin(2 pi hz t)`` plus Gaussian jitter of
    ``jitter_lsb``, clipped to 0..vcc; ``amplitude_mv`` defaults to 45 % of
    vcc. ``t`` is this press's start time plus the seconds since power-on.
    The start time is seeded per press and uniform over one mains cycle (the
    user presses at arbitrary moments, so the phase at power-on is uniform).
    The seconds since power-on come from the clock given to
    :meth:`bind_clock`; without one, a press's n-th conversion on a channel
    (from 0) is taken at ``n * period_s``, by default 104 microseconds
    (13 ADC clocks at 125 kHz, a free-running conversion).
    """

    kind = "hum"

    def __init__(
        self,
        hz: float,
        seed: int,
        vcc_mv: float = 3000,
        *,
        amplitude_mv: float | None = None,
        jitter_lsb: float = 1.0,
        period_s: float = 104e-6,
    ) -> None:
        super().__init__(seed, vcc_mv)
        lo, hi = HUM_HZ
        if isinstance(hz, bool) or not lo <= hz <= hi:
            raise ValueError(f"hz must be within {lo:g}..{hi:g}, got {hz!r}")
        amplitude = 0.45 * self.vcc_mv if amplitude_mv is None else amplitude_mv
        if not (math.isfinite(amplitude) and amplitude >= 0):
            raise ValueError(f"amplitude_mv must be finite and >= 0, got {amplitude_mv!r}")
        if not (math.isfinite(jitter_lsb) and jitter_lsb >= 0):
            raise ValueError(f"jitter_lsb must be finite and >= 0, got {jitter_lsb!r}")
        if not (math.isfinite(period_s) and period_s > 0):
            raise ValueError(f"period_s must be a positive number, got {period_s!r}")
        self.hz = float(hz)
        self.amplitude_mv = float(amplitude)
        self.period_s = period_s
        self._jitter = jitter_lsb * self.vcc_mv / ADC_MAX
        self._clock: Callable[[], float] | None = None
        self.start_s = self._start_time()

    def _start_time(self, press: int | None = None) -> float:
        at = self.press if press is None else press
        return keyed(f"fairdie.noise.hum.start:{self.seed}:{at}").random() / self.hz

    def seek(self, press: int) -> None:
        super().seek(press)
        self.start_s = self._start_time()

    def bind_clock(self, clock: Callable[[], float]) -> None:
        """Read the seconds since this press's power-on from ``clock()``."""
        self._drop_served()  # values made ahead for calls were made without it
        self._clock = clock

    def _values(
        self, stream: NoiseStream, start_s: float, n: int, since: Values | None = None
    ) -> Values:
        return stream.hum(
            n,
            start_s=start_s,
            since=since,
            period_s=self.period_s,
            hz=self.hz,
            amplitude=self.amplitude_mv,
            jitter=self._jitter,
            vcc=self.vcc_mv,
        )

    def _fill(self, stream: NoiseStream, press: int, channel: int, n: int) -> Values:
        start = self.start_s if press == self.press else self._start_time(press)
        return self._values(stream, start, n)

    def __call__(self, channel: int) -> float:
        if self._clock is None:
            return super().__call__(channel)
        return float(self.next_values(channel, 1)[0])

    def next_values(self, channel: int, n: int) -> Values:
        """The next values; with a clock one, at the clock's time (a block
        cannot know when later conversions come)."""
        if self._clock is None:
            return super().next_values(channel, n)
        since = np.array([self._clock()], dtype=np.float64)
        return self._values(self._stream(channel), self.start_s, 1, since)

    def press_values_at(self, press: int, since: Values, channel: int = 0) -> Values:
        """The values of press ``press`` on ``channel`` at ``since``, the
        seconds since its power-on of each conversion in turn: what a clock
        reading those times gives, in one call; the model does not move."""
        check_press(press)
        at = np.ascontiguousarray(since, dtype=np.float64)
        return self._values(self._new_stream(press, channel), self._start_time(press), len(at), at)

    def __repr__(self) -> str:
        return f"Hum({self.hz:g}, seed={self.seed}, vcc_mv={self.vcc_mv:g})"


WEAK_MARGIN = 64


class Weak(Seeded):
    """A pin that rarely changes: a resting code, now and then the next one up.

    Each conversion reads the resting code with weight ``ratio`` and the code
    above it with weight 1, drawn independently (so ``ratio`` 1 is a fair
    coin between two codes, whose low bits differ; ``ratio`` 50 reads the
    upper code once in 51 conversions on average). The resting code is drawn
    per seed and channel, uniformly from :data:`WEAK_MARGIN` ..
    ``1023 - WEAK_MARGIN - 1``: away from the rails, so both codes are real
    readings of a live but weak input (a high-impedance source, a pin that
    barely leaks). Like :class:`Uniform` it returns the millivolts of the
    drawn code. ``ratio``: a finite number >= 1.
    """

    kind = "weak"

    def __init__(self, ratio: float, seed: int, vcc_mv: float = 3000) -> None:
        super().__init__(seed, vcc_mv)
        if isinstance(ratio, bool) or not (math.isfinite(ratio) and ratio >= 1):
            raise ValueError(f"ratio must be a finite number >= 1, got {ratio!r}")
        self.ratio = float(ratio)
        self._upper = 1.0 / (self.ratio + 1.0)  # the chance of the code above
        self._mv = mv_table(self.vcc_mv)
        self._rests: dict[int, int] = {}

    def rest(self, channel: int = 0) -> int:
        """The code a channel rests at (the same at every press)."""
        code = self._rests.get(channel)
        if code is None:
            rng = keyed(f"fairdie.noise.weak.rest:{self.seed}:{channel}")
            span = ADC_MAX - 2 * WEAK_MARGIN  # rests WEAK_MARGIN .. ADC_MAX - WEAK_MARGIN - 1
            code = self._rests[channel] = WEAK_MARGIN + rng.bits53() % span
        return code

    def _fill(self, stream: NoiseStream, press: int, channel: int, n: int) -> Values:
        # the code above the rest when random() < 1 / (ratio + 1)
        lo = self.rest(channel)
        return stream.weak(n, upper=self._upper, lo=self._mv[lo], hi=self._mv[lo + 1])

    def __repr__(self) -> str:
        return f"Weak({self.ratio:g}, seed={self.seed}, vcc_mv={self.vcc_mv:g})"
