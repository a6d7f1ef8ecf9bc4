"""Noise models: what the floating ADC pin reads, one value per conversion.

A noise model is a deterministic callable ``model(channel) -> millivolts``
called once per ADC conversion; the same seed and the same sequence of calls
give the same values. The chip rounds the value to whole millivolts and
simavr converts it with :func:`~fairdie.noise.code_for_mv`.
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
from collections.abc import Sequence
from typing import Protocol

from fairdie.noise._adc import ADC_MAX, mv_for_code

__all__ = [
    "DEFAULT_NOISE",
    "NOISE_NAMES",
    "Floating",
    "NoiseModel",
    "Stuck",
    "Uniform",
    "parse_noise",
]

DEFAULT_NOISE = "floating"
#: The specs :func:`parse_noise` accepts, as the CLI lists them.
NOISE_NAMES = ("floating", "uniform", "stuck:MILLIVOLTS")


class NoiseModel(Protocol):
    """``model(channel) -> millivolts``, called once per ADC conversion."""

    def __call__(self, channel: int) -> float: ...


def _check_vcc(vcc_mv: float) -> float:
    if isinstance(vcc_mv, bool) or not math.isfinite(vcc_mv) or vcc_mv <= 0:
        raise ValueError(f"vcc_mv must be a positive number, got {vcc_mv!r}")
    return float(vcc_mv)


_M64 = (1 << 64) - 1


class _SplitMix:
    """splitmix64 (Steele, Lea and Flood, 2014): a generator whose whole state
    is one integer, so a chip snapshot keeps a noise source's position for the
    cost of an int (``random.Random``'s state is 625 of them). Written here
    because the standard library has no generator with a small state."""

    __slots__ = ("state",)

    def __init__(self, key: str) -> None:
        self.state = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")

    def random(self) -> float:
        """A uniform float in (0, 1)."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return ((z ^ (z >> 31)) >> 11 | 1) / 9007199254740992.0

    def gauss(self, mu: float, sigma: float) -> float:
        """A normal deviate (Box-Muller, one of the pair)."""
        r = math.sqrt(-2.0 * math.log(self.random()))
        return mu + sigma * r * math.cos(math.tau * self.random())

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()


class _Channel:
    __slots__ = ("centre", "home", "rng")

    def __init__(self, rng: _SplitMix, home: float) -> None:
        self.rng = rng
        self.home = home
        self.centre = home


class Floating:
    """A floating input: a few distinct codes around a slowly drifting centre.

    Per conversion the centre takes a mean-reverting random step (an
    Ornstein-Uhlenbeck walk: ``drift_lsb`` standard deviation per step, pulled
    back toward ``home`` by the fraction ``pull``), and the reading is the
    centre plus Gaussian jitter of ``jitter_lsb``; both clipped to 0..vcc.
    One LSB is ``vcc_mv / 1023``. With the defaults the centre wanders about
    1.6 LSB (standard deviation) over hundreds of conversions; 100 consecutive
    conversions read 4-8 distinct codes (median 5) and 20 000 span about a
    dozen, which is what a real floating pin near its resting level does.
    ``home_mv`` defaults to a seeded value between 25 % and 75 % of vcc.
    Each channel floats independently.
    """

    def __init__(
        self,
        seed: int,
        vcc_mv: float = 3000,
        *,
        home_mv: float | None = None,
        jitter_lsb: float = 0.8,
        drift_lsb: float = 0.1,
        pull: float = 0.002,
    ) -> None:
        self.seed = seed
        self.vcc_mv = _check_vcc(vcc_mv)
        if home_mv is not None and not 0 <= home_mv <= self.vcc_mv:
            raise ValueError(f"home_mv {home_mv} is outside 0..{vcc_mv}")
        if not (jitter_lsb >= 0 and drift_lsb >= 0 and 0 <= pull <= 1):
            raise ValueError("jitter_lsb and drift_lsb must be >= 0 and pull in 0..1")
        self.home_mv = home_mv
        lsb = self.vcc_mv / ADC_MAX
        self._jitter = jitter_lsb * lsb
        self._drift = drift_lsb * lsb
        self._pull = pull
        self._channels: dict[int, _Channel] = {}

    def _channel(self, channel: int) -> _Channel:
        rng = _SplitMix(f"fairdie.noise.Floating:{self.seed}:{channel}")
        home = self.home_mv
        if home is None:
            home = rng.uniform(0.25, 0.75) * self.vcc_mv
        ch = _Channel(rng, home)
        self._channels[channel] = ch
        return ch

    def __call__(self, channel: int) -> float:
        ch = self._channels.get(channel) or self._channel(channel)
        vcc = self.vcc_mv
        centre = ch.centre + self._pull * (ch.home - ch.centre) + ch.rng.gauss(0.0, self._drift)
        ch.centre = centre = min(max(centre, 0.0), vcc)
        return min(max(centre + ch.rng.gauss(0.0, self._jitter), 0.0), vcc)

    def snapshot(self) -> dict[int, tuple[int, float]]:
        """The position in the noise sequence (``Chip.snapshot`` keeps it)."""
        return {n: (ch.rng.state, ch.centre) for n, ch in self._channels.items()}

    def restore(self, state: dict[int, tuple[int, float]]) -> None:
        for n in list(self._channels):
            if n not in state:
                del self._channels[n]
        for n, (rng, centre) in state.items():
            ch = self._channels.get(n) or self._channel(n)
            ch.rng.state = rng
            ch.centre = centre

    def __repr__(self) -> str:
        return f"Floating(seed={self.seed}, vcc_mv={self.vcc_mv:g})"


@functools.lru_cache(maxsize=16)
def _code_table(vcc_mv: float) -> tuple[float, ...]:
    return tuple(mv_for_code(c, vcc_mv) for c in range(ADC_MAX + 1))


class Uniform:
    """Every code 0..1023 equally likely: an ideal noise source.

    Returns :func:`~fairdie.noise.mv_for_code` of a uniformly drawn code
    (whole millivolts for any vcc >= 1023 mV), so the codes simavr reads are
    exactly uniform. (Millivolts drawn uniformly from 0..vcc would not be:
    under ``floor(mV * 1023 / vcc)`` the code 1023 needs exactly vcc.)
    """

    def __init__(self, seed: int, vcc_mv: float = 3000) -> None:
        self.seed = seed
        self.vcc_mv = _check_vcc(vcc_mv)
        self._rng = random.Random(f"fairdie.noise.Uniform:{seed}")
        self._mv = _code_table(self.vcc_mv)

    def __call__(self, channel: int) -> float:
        return self._mv[self._rng.randrange(ADC_MAX + 1)]

    def snapshot(self) -> object:
        """The position in the noise sequence (``Chip.snapshot`` keeps it)."""
        return self._rng.getstate()

    def restore(self, state: object) -> None:
        self._rng.setstate(state)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"Uniform(seed={self.seed}, vcc_mv={self.vcc_mv:g})"


class Stuck:
    """Always the same voltage: a shorted or saturated input."""

    def __init__(self, mv: float) -> None:
        if isinstance(mv, bool) or not math.isfinite(mv) or mv < 0:
            raise ValueError(f"mv must be a finite number >= 0, got {mv!r}")
        self.mv = float(mv)

    def __call__(self, channel: int) -> float:
        return self.mv

    def __repr__(self) -> str:
        return f"Stuck(mv={self.mv:g})"


class Codes:
    """The voltages that make the ADC read ``codes``, one per conversion, in
    turn and then again: a test's exact control of what the firmware reads."""

    def __init__(self, codes: Sequence[int], vcc_mv: float = 3000) -> None:
        if not codes or any(isinstance(c, bool) or not 0 <= c <= ADC_MAX for c in codes):
            raise ValueError(f"codes must be 1 or more integers 0..{ADC_MAX}, got {codes!r}")
        self.codes = tuple(codes)
        self.vcc_mv = _check_vcc(vcc_mv)
        self._mv = tuple(mv_for_code(c, self.vcc_mv) for c in self.codes)
        self._next = 0

    def __call__(self, channel: int) -> float:
        mv = self._mv[self._next]
        self._next = (self._next + 1) % len(self._mv)
        return mv

    def snapshot(self) -> int:
        return self._next

    def restore(self, state: int) -> None:
        self._next = state

    def __repr__(self) -> str:
        return f"Codes({list(self.codes)!r}, vcc_mv={self.vcc_mv:g})"


def parse_noise(spec: str, *, seed: int, vcc_mv: int) -> NoiseModel:
    """A noise model from its CLI name: "floating", "uniform" or "stuck:MILLIVOLTS".

    Raises ValueError with a one-line message for anything else.
    """
    vcc = _check_vcc(vcc_mv)
    s = spec.strip().lower()
    if s == "floating":
        return Floating(seed, vcc)
    if s == "uniform":
        return Uniform(seed, vcc)
    if s == "stuck" or s.startswith("stuck:"):
        value = s.partition(":")[2].strip().removesuffix("mv").strip()
        try:
            mv = float(value)
        except ValueError:
            raise ValueError(
                f"bad noise {spec!r}: expected stuck:MILLIVOLTS, e.g. stuck:1500"
            ) from None
        if not (math.isfinite(mv) and 0 <= mv <= vcc):
            raise ValueError(f"bad noise {spec!r}: {value} mV is outside 0..{vcc:g} mV")
        return Stuck(mv)
    raise ValueError(f"unknown noise {spec!r}: expected one of {', '.join(NOISE_NAMES)}")
