"""Hypothesis strategies for the die's inputs, in Hypothesis's own style.

Bounds are keyword-only; invalid arguments raise
:class:`hypothesis.errors.InvalidArgument` when the strategy is first drawn
from, not when it is built; and there is no promise about the distribution
(only about which values can be generated), so shrinking stays free to
change it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from fairdie.noise._adc import ADC_MAX
from fairdie.noise._fixed import Stuck
from fairdie.noise._models import (
    HUM_HZ,
    MAX_WEIGHTS,
    Biased,
    Floating,
    Hum,
    Uniform,
)
from fairdie.noise._seeded import SeekableNoise

__all__ = ["adc_codes", "counters", "noise_models", "noise_sequences"]

_FACES = 6
_EDGES = (0, 1, 254, 255)


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name}={value!r} must be an integer")
    return value


def adc_codes(*, min_value: int = 0, max_value: int = ADC_MAX) -> st.SearchStrategy[int]:
    """10-bit ADC results ``min_value <= code <= max_value`` (within 0..1023)."""

    def build() -> st.SearchStrategy[int]:
        lo = _check_int("min_value", min_value)
        hi = _check_int("max_value", max_value)
        if not 0 <= lo <= ADC_MAX or not 0 <= hi <= ADC_MAX:
            raise InvalidArgument(f"min_value={lo} and max_value={hi} must be within 0..{ADC_MAX}")
        if lo > hi:
            raise InvalidArgument(f"min_value={lo} must not exceed max_value={hi}")
        return st.integers(lo, hi)

    return st.deferred(build)


def counters(*, edges: bool = True) -> st.SearchStrategy[tuple[int, ...]]:
    """Tables of six face counters, each 0..255 (index 0 is face 1).

    With ``edges`` (the default) the strategy also leans toward the cases the
    rule treats specially: counters at 0, 254 and 255, tables with a counter
    at 255 (a press may rebase), tables whose smallest counter is above 0 (the
    rebase subtracts it) and tables full of ties. Every table is still
    possible either way.
    """

    def build() -> st.SearchStrategy[tuple[int, ...]]:
        if not isinstance(edges, bool):
            raise InvalidArgument(f"edges={edges!r} must be a bool")
        byte = st.integers(0, 255)
        plain = st.tuples(*[byte] * _FACES)
        if not edges:
            return plain
        edgy = st.one_of(st.sampled_from(_EDGES), byte)
        high = st.one_of(st.sampled_from((1, 254, 255)), st.integers(1, 255))
        full = st.tuples(edgy, edgy, edgy, edgy, edgy).flatmap(
            lambda rest: st.integers(0, _FACES - 1).map(lambda i: (*rest[:i], 255, *rest[i:]))
        )
        # Two values spread over six counters: ties, and ties at the edges.
        ties = st.tuples(edgy, edgy).flatmap(lambda ab: st.tuples(*[st.sampled_from(ab)] * _FACES))
        return st.one_of(
            plain,
            st.tuples(*[edgy] * _FACES),
            st.tuples(*[high] * _FACES),
            full,
            ties,
        )

    return st.deferred(build)


def noise_sequences(
    *, min_size: int = 1, max_size: int = 64, compact: bool = False
) -> st.SearchStrategy[list[int]]:
    """Lists of ``min_size`` to ``max_size`` 10-bit ADC codes, as a
    :class:`~fairdie.noise.Codes` model would feed them.

    The strategy leans toward what breaks a rule that trusts its noise: runs
    of one code (a stuck pin), both rails, 0 and 1023 in alternation, and a
    few codes in a skewed cluster (a floating pin), as well as any codes.

    With ``compact``, a shape whose every code is drawn on its own (any
    codes, any rails, the cluster's picks) draws them as one byte string, two
    bytes a code: one Hypothesis choice instead of one per code, far cheaper
    at hundreds of codes. The same lists are possible; Hypothesis then varies
    and shrinks the string, not each code.
    """

    def build() -> st.SearchStrategy[list[int]]:
        lo = _check_int("min_size", min_size)
        hi = _check_int("max_size", max_size)
        if lo < 0:
            raise InvalidArgument(f"min_size={lo} must be >= 0")
        if lo > hi:
            raise InvalidArgument(f"min_size={lo} must not exceed max_size={hi}")
        if not isinstance(compact, bool):
            raise InvalidArgument(f"compact={compact!r} must be a bool")
        return st.integers(lo, hi).flatmap(functools.partial(_sequences_of, compact=compact))

    return st.deferred(build)


_CODE_EDGES = (0, 1, 511, 512, ADC_MAX - 1, ADC_MAX)
#: Which code of a cluster each reading takes: the first most often.
_CLUSTER_PICKS = (0, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6)


@functools.lru_cache(maxsize=256)
def _sequences_of(n: int, *, compact: bool = False) -> st.SearchStrategy[list[int]]:
    """Every shape of :func:`noise_sequences` at length ``n`` (built once per n)."""
    code = st.one_of(st.sampled_from(_CODE_EDGES), st.integers(0, ADC_MAX))
    runs = st.lists(st.tuples(code, st.integers(1, max(n, 1))), min_size=1, max_size=8)
    rails = st.sampled_from((0, ADC_MAX))
    # a cluster: up to seven distinct codes within 4 of a centre, the first commonest
    offsets = st.lists(st.integers(-4, 4), min_size=1, max_size=7, unique=True)
    each = _each_compact if compact else _each
    picks = each(_CLUSTER_PICKS, n)
    return st.one_of(
        each(range(ADC_MAX + 1), n),
        st.one_of(rails, code).map(lambda c: [c] * n),
        runs.map(lambda rs: _fill([c for c, k in rs for _ in range(k)], n)),
        each((0, ADC_MAX), n),
        st.booleans().map(lambda high: [ADC_MAX * ((i + high) % 2) for i in range(n)]),
        st.tuples(st.integers(0, ADC_MAX), offsets, picks).map(lambda t: _cluster(*t)),
    )


def _each(values: Sequence[int], n: int) -> st.SearchStrategy[list[int]]:
    """``n`` of ``values``, each drawn on its own."""
    one = (
        st.integers(values[0], values[-1]) if isinstance(values, range) else st.sampled_from(values)
    )
    return st.lists(one, min_size=n, max_size=n)


def _each_compact(values: Sequence[int], n: int) -> st.SearchStrategy[list[int]]:
    """``n`` of ``values`` (at most 2**16 of them) from one string of ``2 * n``
    bytes: each little-endian 16-bit word, scaled to ``len(values)``."""
    k = len(values)
    return st.binary(min_size=2 * n, max_size=2 * n).map(
        lambda b: [values[(b[i] | b[i + 1] << 8) * k >> 16] for i in range(0, 2 * n, 2)]
    )


def _fill(codes: list[int], n: int) -> list[int]:
    """``codes`` cut or stretched (its last code repeated) to ``n``."""
    return (codes + codes[-1:] * n)[:n]


def _cluster(centre: int, offsets: list[int], picks: list[int]) -> list[int]:
    codes = [min(max(centre + d, 0), ADC_MAX) for d in offsets]
    return [codes[i % len(codes)] for i in picks]


def noise_models(*, vcc_mv: float = 3000) -> st.SearchStrategy[SeekableNoise]:
    """Seeded noise models for a supply of ``vcc_mv``: one of every kind
    :func:`~fairdie.noise.parse_noise` builds but a trace (floating, uniform,
    stuck anywhere in 0..vcc including both rails, hum and biased)."""

    def build() -> st.SearchStrategy[SeekableNoise]:
        if isinstance(vcc_mv, bool) or not isinstance(vcc_mv, int | float):
            raise InvalidArgument(f"vcc_mv={vcc_mv!r} must be a number")
        if not (math.isfinite(vcc_mv) and vcc_mv > 0):
            raise InvalidArgument(f"vcc_mv={vcc_mv!r} must be a positive number")
        vcc = float(vcc_mv)
        seeds = st.integers(0, 2**64 - 1)
        lo, hi = HUM_HZ
        hz = st.one_of(st.sampled_from((50.0, 60.0)), st.floats(lo, hi))
        weight = st.one_of(st.integers(0, 1000), st.floats(0, 1000))
        weights = st.lists(weight, min_size=1, max_size=MAX_WEIGHTS).filter(any)
        mv = st.one_of(st.sampled_from((0.0, vcc)), st.floats(0, vcc))
        models: list[st.SearchStrategy[SeekableNoise]] = [
            st.builds(Floating, seeds, st.just(vcc)),
            st.builds(Uniform, seeds, st.just(vcc)),
            st.builds(Stuck, mv),
            st.builds(Hum, hz, seeds, st.just(vcc)),
            st.builds(Biased, weights, seeds, st.just(vcc)),
        ]
        return st.one_of(models)

    return st.deferred(build)
