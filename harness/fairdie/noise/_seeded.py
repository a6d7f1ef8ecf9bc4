"""The machinery of the seeded noise models: the protocols, a small
generator, and per-press, per-channel streams.

A noise model is a deterministic callable ``model(channel) -> millivolts``
called once per ADC conversion. The chip rounds the value to whole
millivolts and simavr converts it with :func:`~fairdie.noise.code_for_mv`.

Two optional methods make a campaign reproducible per press:

``seek(press)``
    Start press number ``press`` (0-based; the die powers on once per press).
    After it, the press reads values that depend only on the seed, the press
    number and each conversion's index within the press (and, for a model of
    mains hum, the conversion's time), never on what was read before, so a
    campaign sharded over processes reads what one process reading every
    press in turn would. Without a ``seek`` a model reads press 0 on and on.
``bind_clock(clock)``
    A model that needs time calls ``clock()`` at each conversion for the
    seconds since this press's power-on. Models that do not need it do not
    have it.

``snapshot()`` / ``restore(state)`` keep a model's position for
``Chip.snapshot``. Each channel of a seeded model reads its own stream, as
if no other channel were converted.
"""

from __future__ import annotations

import hashlib
import math
from typing import ClassVar, Protocol, runtime_checkable

__all__ = [
    "NoiseModel",
    "Seeded",
    "SeekableNoise",
    "SplitMix",
    "State",
    "Stream",
    "check_press",
    "check_vcc",
    "clip",
]


class NoiseModel(Protocol):
    """``model(channel) -> millivolts``, called once per ADC conversion."""

    def __call__(self, channel: int) -> float: ...


@runtime_checkable
class SeekableNoise(NoiseModel, Protocol):
    """A noise model that reads the same press whatever came before it."""

    def seek(self, press: int) -> None: ...


def check_vcc(vcc_mv: float) -> float:
    if isinstance(vcc_mv, bool) or not math.isfinite(vcc_mv) or vcc_mv <= 0:
        raise ValueError(f"vcc_mv must be a positive number, got {vcc_mv!r}")
    return float(vcc_mv)


def check_press(press: int) -> int:
    if isinstance(press, bool) or not isinstance(press, int) or press < 0:
        raise ValueError(f"press must be an integer >= 0, got {press!r}")
    return press


def clip(mv: float, vcc: float) -> float:
    return min(max(mv, 0.0), vcc)


_M64 = (1 << 64) - 1


class SplitMix:
    """splitmix64 (Steele, Lea and Flood, 2014): a generator whose whole state
    is one integer, so a chip snapshot keeps a noise source's position for the
    cost of an int (``random.Random``'s state is 625 of them), and a new one
    keyed by a string costs one hash. Written here because the standard
    library has no generator with a small state."""

    __slots__ = ("state",)

    def __init__(self, key: str) -> None:
        self.state = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")

    def bits53(self) -> int:
        """53 uniform random bits."""
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & _M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        return (z ^ (z >> 31)) >> 11

    def random(self) -> float:
        """A uniform float in (0, 1)."""
        return (self.bits53() | 1) / 9007199254740992.0

    def gauss(self, mu: float, sigma: float) -> float:
        """A normal deviate (Box-Muller, one of the pair)."""
        r = math.sqrt(-2.0 * math.log(self.random()))
        return mu + sigma * r * math.cos(math.tau * self.random())

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()


class Stream:
    """One channel's position in a press: its generator, a value the model
    carries from conversion to conversion and the conversions made so far."""

    __slots__ = ("count", "rng", "value")

    def __init__(self, rng: SplitMix, value: float = 0.0, count: int = 0) -> None:
        self.rng = rng
        self.value = value
        self.count = count


#: ``(press, ((channel, generator state, value, count), ...))``
State = tuple[int, tuple[tuple[int, int, float, int], ...]]


class Seeded:
    """A seeded model whose generators are keyed by (kind, seed, press, channel)."""

    #: The model's name in the generators' keys (fixed: a key is a sequence).
    kind: ClassVar[str]

    def __init__(self, seed: int, vcc_mv: float) -> None:
        self.seed = seed
        self.vcc_mv = check_vcc(vcc_mv)
        self.press = 0
        self._streams: dict[int, Stream] = {}

    def seek(self, press: int) -> None:
        """Start press ``press``: its readings depend on nothing read before."""
        self.press = check_press(press)
        self._streams.clear()

    def _start(self, channel: int, rng: SplitMix) -> Stream:
        """A channel's stream at the start of the current press."""
        return Stream(rng)

    def _stream(self, channel: int) -> Stream:
        s = self._streams.get(channel)
        if s is None:
            key = f"fairdie.noise.{self.kind}:{self.seed}:{self.press}:{channel}"
            s = self._streams[channel] = self._start(channel, SplitMix(key))
        return s

    def snapshot(self) -> State:
        """The position in the noise sequence (``Chip.snapshot`` keeps it)."""
        return self.press, tuple(
            (n, s.rng.state, s.value, s.count) for n, s in self._streams.items()
        )

    def restore(self, state: State) -> None:
        press, streams = state
        self.seek(press)
        for n, rng, value, count in streams:
            s = self._stream(n)
            s.rng.state, s.value, s.count = rng, value, count

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed}, vcc_mv={self.vcc_mv:g})"
