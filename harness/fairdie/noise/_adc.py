"""simavr's ADC transfer function and its inverse.

simavr 1.6 converts a single-ended input of ``mv`` millivolts against a
reference of ``vref_mv`` as ``floor(mv * 1023 / vref_mv)``, clipped to 1023
(the chip layer rounds the noise model's value to whole millivolts first).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

__all__ = ["ADC_MAX", "code_for_mv", "mv_for_code"]

#: The largest 10-bit ADC code.
ADC_MAX = 1023


def _check_vref(vref_mv: float) -> None:
    if isinstance(vref_mv, bool) or not math.isfinite(vref_mv) or vref_mv <= 0:
        raise ValueError(f"vref_mv must be a positive number, got {vref_mv!r}")


def code_for_mv(mv: float, vref_mv: float) -> int:
    """The code simavr reads for ``mv``: ``floor(mv * 1023 / vref_mv)`` in 0..1023.

    Computed exactly (no float rounding at code boundaries).
    """
    _check_vref(vref_mv)
    if math.isnan(mv):
        raise ValueError("mv is NaN")
    if mv <= 0:
        return 0
    if math.isinf(mv):
        return ADC_MAX
    if isinstance(mv, int) and isinstance(vref_mv, int):
        code = mv * ADC_MAX // vref_mv
    else:
        code = math.floor(Fraction(mv) * ADC_MAX / Fraction(vref_mv))
    return min(code, ADC_MAX)


def mv_for_code(code: int, vref_mv: float) -> float:
    """A millivolt value that reads as exactly ``code``.

    It is the smallest whole number of millivolts in the code's bin whenever
    one exists (always for ``vref_mv >= 1023``), so it survives the chip
    layer's rounding to whole millivolts; otherwise the bin's midpoint.
    """
    _check_vref(vref_mv)
    vref = Fraction(vref_mv)
    if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code <= ADC_MAX:
        raise ValueError(f"code must be an integer 0..{ADC_MAX}, got {code!r}")
    whole = math.ceil(code * vref / ADC_MAX)
    if code == ADC_MAX or whole * ADC_MAX < (code + 1) * vref:
        return float(whole)
    return float((code + Fraction(1, 2)) * vref / ADC_MAX)


@functools.lru_cache(maxsize=16)
def mv_table(vref_mv: float) -> tuple[float, ...]:
    """:func:`mv_for_code` of every code 0..1023, computed once per reference."""
    return tuple(mv_for_code(c, vref_mv) for c in range(ADC_MAX + 1))


@functools.lru_cache(maxsize=16)
def mv_array(vref_mv: float) -> npt.NDArray[np.float64]:
    """:func:`mv_table` as a read-only numpy array (for the noise kernels)."""
    table = np.array(mv_table(vref_mv), dtype=np.float64)
    table.flags.writeable = False
    return table
