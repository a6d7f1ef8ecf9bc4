"""Hypothesis strategies for the die's inputs, in Hypothesis's own style.

Bounds are keyword-only; invalid arguments raise
:class:`hypothesis.errors.InvalidArgument` when the strategy is first drawn
from, not when it is built; and there is no promise about the distribution
(only about which values can be generated), so shrinking stays free to
change it.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from fairdie.noise._adc import ADC_MAX

__all__ = ["adc_codes", "counters"]

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
