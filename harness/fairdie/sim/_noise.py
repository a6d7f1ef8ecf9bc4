"""The noise models' C kernels (``fairdie.sim._kernels``, see _noise_api.h)
behind a typed facade: a stream's next values, a block at a time, as numpy
arrays. Needs the kernels module only, not the simavr binding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fairdie.sim._kernels import ffi, lib

__all__ = ["NoiseStream", "Values"]

#: Millivolts, one per conversion.
Values = npt.NDArray[np.float64]

_from_buffer = ffi.from_buffer
_new_stream = ffi.new
_empty = np.empty


def _out(n: int) -> tuple[Values, Any]:
    out = _empty(n)
    return out, _from_buffer("double[]", out)


def _doubles(values: Values) -> Any:
    return _from_buffer("double[]", values)


class NoiseStream:
    """One channel's position in a press for the C noise kernels: a
    splitmix64 state (``rng``), the value the model carries (``value``) and
    the values drawn so far (``count``). Each kernel method returns the next
    ``n`` values (millivolts, float64) and advances the stream; each value is
    bit for bit what the model's Python arithmetic gives."""

    __slots__ = ("_s",)

    def __init__(self, rng: int, value: float = 0.0, count: int = 0) -> None:
        self._s = _new_stream("fd_noise_stream *", (rng, value, count))

    @property
    def rng(self) -> int:
        return self._s.rng  # type: ignore[no-any-return]

    @property
    def value(self) -> float:
        return self._s.value  # type: ignore[no-any-return]

    @value.setter
    def value(self, v: float) -> None:
        self._s.value = v

    @property
    def count(self) -> int:
        return self._s.count  # type: ignore[no-any-return]

    def state(self) -> tuple[int, float, int]:
        """``(rng, value, count)``: ``NoiseStream(*state)`` is this stream again."""
        s = self._s
        return s.rng, s.value, s.count

    def __reduce__(self) -> tuple[type[NoiseStream], tuple[int, float, int]]:
        return NoiseStream, self.state()  # a model pickles (to a worker) with its position

    def bits53(self) -> int:
        """53 uniform random bits (splitmix64's next output, shifted)."""
        return int(lib.fd_noise_bits53(self._s))

    def random(self) -> float:
        """A uniform float in (0, 1): ``(bits53() | 1) / 2**53``."""
        return float(lib.fd_noise_random(self._s))

    def uniform(self, a: float, b: float) -> float:
        return a + (b - a) * self.random()

    def floating(
        self, n: int, *, target: float, pull: float, walk: float, jitter: float, vcc: float
    ) -> Values:
        out, p = _out(n)
        lib.fd_noise_floating(self._s, target, pull, walk, jitter, vcc, p, n)
        return out

    @staticmethod
    def floating_rows(
        streams: Sequence[NoiseStream],
        n: int,
        *,
        targets: Sequence[float],
        pull: float,
        walk: float,
        jitter: float,
        vcc: float,
    ) -> Values:
        """:meth:`floating` of each stream (its own target), as the rows of
        one array: many presses' first blocks at once."""
        rows = len(streams)
        out = _empty((rows, n))
        p = _from_buffer("double[]", out)
        kernel = lib.fd_noise_floating
        for i, (s, target) in enumerate(zip(streams, targets, strict=True)):
            kernel(s._s, target, pull, walk, jitter, vcc, p + i * n, n)
        return out

    def table(self, n: int, table: Values) -> Values:
        """``table[bits53() >> 43]``: a code drawn uniformly, as millivolts."""
        out, p = _out(n)
        lib.fd_noise_uniform(self._s, _doubles(table), p, n)
        return out

    def biased(self, n: int, cumulative: Values, last: int, table: Values) -> Values:
        out, p = _out(n)
        lib.fd_noise_biased(
            self._s, _doubles(cumulative), len(cumulative), last, _doubles(table), p, n
        )
        return out

    def weak(self, n: int, *, upper: float, lo: float, hi: float) -> Values:
        out, p = _out(n)
        lib.fd_noise_weak(self._s, upper, lo, hi, p, n)
        return out

    def hum(
        self,
        n: int,
        *,
        start_s: float,
        since: Values | None,
        period_s: float,
        hz: float,
        amplitude: float,
        jitter: float,
        vcc: float,
    ) -> Values:
        """With ``since`` (n seconds since power-on) the values at those
        times; without, at ``count * period_s``."""
        out, p = _out(n)
        at = ffi.NULL if since is None else _doubles(since)
        lib.fd_noise_hum(self._s, start_s, at, period_s, hz, amplitude, jitter, vcc, p, n)
        return out
