"""A pure Python reference of the seeded noise models: the arithmetic their
C kernels replaced, kept for the tests that pin the kernels (and a press's
codes on the chip) to it bit for bit."""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
from collections.abc import Callable

from fairdie.noise import ADC_MAX, Biased, Dead, Floating, Hum, Uniform, Weak, mv_table
from fairdie.noise._models import _WAVES

_M64 = (1 << 64) - 1


class RefMix:
    """splitmix64 in Python integers."""

    def __init__(self, key: str) -> None:
        self.state = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")

    def bits53(self) -> int:
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return (z ^ (z >> 31)) >> 11

    def random(self) -> float:
        return (self.bits53() | 1) / 9007199254740992.0

    def gauss(self, mu: float, sigma: float) -> float:
        r = math.sqrt(-2.0 * math.log(self.random()))
        return mu + sigma * r * math.cos(math.tau * self.random())

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()


def _clip(mv: float, vcc: float) -> float:
    return min(max(mv, 0.0), vcc)


def ref_floating(seed: int, vcc: float, press: int, channel: int, n: int) -> list[float]:
    lsb = vcc / ADC_MAX
    jitter, walk, pull, drift = 0.8 * lsb, 0.1 * lsb, 0.002, 2.0 * lsb
    shape = RefMix(f"fairdie.noise.floating.shape:{seed}:{channel}")
    home = shape.uniform(0.25, 0.75) * vcc
    waves = [
        (
            share * drift,
            math.tau / math.exp(shape.uniform(math.log(lo), math.log(hi))),
            shape.uniform(0.0, math.tau),
        )
        for lo, hi, share in _WAVES
    ]
    target = _clip(home + sum(a * math.sin(w * press + ph) for a, w, ph in waves), vcc)
    rng = RefMix(f"fairdie.noise.floating:{seed}:{press}:{channel}")
    value, out = target, []
    for _ in range(n):
        centre = value + pull * (target - value) + rng.gauss(0.0, walk)
        value = _clip(centre, vcc)
        out.append(_clip(value + rng.gauss(0.0, jitter), vcc))
    return out


def ref_uniform(seed: int, vcc: float, press: int, channel: int, n: int) -> list[float]:
    rng, mv = RefMix(f"fairdie.noise.uniform:{seed}:{press}:{channel}"), mv_table(vcc)
    return [mv[rng.bits53() >> 43] for _ in range(n)]


WEIGHTS = (3.0, 0.0, 1.5, 0.25, 0.0, 7.0, 1.0)


def ref_biased(seed: int, vcc: float, press: int, channel: int, n: int) -> list[float]:
    rng, mv = RefMix(f"fairdie.noise.biased:{seed}:{press}:{channel}"), mv_table(vcc)
    cumulative = tuple(itertools.accumulate(WEIGHTS))
    last = max(i for i, p in enumerate(WEIGHTS) if p > 0)
    out = []
    for _ in range(n):
        x = rng.random() * cumulative[-1]
        out.append(mv[min(bisect.bisect_right(cumulative, x), last)])
    return out


def ref_weak(seed: int, vcc: float, press: int, channel: int, n: int) -> list[float]:
    rest = 64 + RefMix(f"fairdie.noise.weak.rest:{seed}:{channel}").bits53() % (ADC_MAX - 128)
    rng, mv = RefMix(f"fairdie.noise.weak:{seed}:{press}:{channel}"), mv_table(vcc)
    return [mv[rest + (rng.random() < 1.0 / (3.0 + 1.0))] for _ in range(n)]


def ref_hum(
    seed: int, vcc: float, press: int, channel: int, n: int, since: list[float] | None = None
) -> list[float]:
    hz, period = 50.0, 104e-6
    start = RefMix(f"fairdie.noise.hum.start:{seed}:{press}").random() / hz
    rng = RefMix(f"fairdie.noise.hum:{seed}:{press}:{channel}")
    out = []
    for k in range(n):
        t = start + (k * period if since is None else since[k])
        mv = 0.5 * vcc + 0.45 * vcc * math.sin(math.tau * hz * t)
        out.append(_clip(mv + rng.gauss(0.0, vcc / ADC_MAX), vcc))
    return out


def ref_dead(seed: int, vcc: float, press: int, channel: int, n: int) -> list[float]:
    rng = RefMix(f"fairdie.noise.dead:{seed}:{channel}")
    if rng.random() < 0.25:
        k = rng.bits53() % 8
        code = k if k < 4 else ADC_MAX - (k - 4)
    else:
        code = rng.bits53() % (ADC_MAX + 1)
    return [mv_table(vcc)[code]] * n


Ref = Callable[[int, float, int, int, int], list[float]]
MODELS: dict[str, tuple[Callable[[int, float], object], Ref]] = {
    "floating": (lambda seed, vcc: Floating(seed, vcc), ref_floating),
    "uniform": (lambda seed, vcc: Uniform(seed, vcc), ref_uniform),
    "biased": (lambda seed, vcc: Biased(WEIGHTS, seed, vcc), ref_biased),
    "weak": (lambda seed, vcc: Weak(3, seed, vcc), ref_weak),
    "hum": (lambda seed, vcc: Hum(50, seed, vcc), ref_hum),
    "dead": (lambda seed, vcc: Dead(seed, vcc), ref_dead),
}
