"""A chi-square test that a choice among k replies is uniform.

The device picks uniformly among its winning replies; over n trials from one
position the counts of each reply should fit n/k each. The statistic is
Pearson's, sum((count - n/k)^2 / (n/k)), with k - 1 degrees of freedom, and
the choice is called uniform when it does not exceed the critical value at
significance level ``alpha`` (the chance that a truly uniform device fails).

The critical value (the upper ``alpha`` quantile of chi-square with ``df``
degrees of freedom) comes from the standard library's normal quantile:

- df = 1: exactly z^2, with z the upper alpha/2 normal quantile
  (chi-square with one degree of freedom is a squared normal);
- df = 2: exactly -2 ln(alpha) (its survival function is exp(-x/2));
- df >= 3: the Wilson-Hilferty approximation
  df * (1 - 2/(9 df) + z sqrt(2/(9 df)))^3, with z the upper alpha normal
  quantile, within 2 % of the tables for 0.001 <= alpha <= 0.05 (its
  largest errors are above them, on the safe side: 1.8 % at df 3, alpha
  0.001).

From the game's positions a mover has at most three winning replies, so the
game's tests only need the exact cases.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = ["MIN_EXPECTED", "UniformFit", "chi2_critical", "chi_square", "uniform_fit"]

#: the least expected count per reply for the chi-square approximation to hold
MIN_EXPECTED = 5


def chi_square(counts: Sequence[int]) -> float:
    """Pearson's statistic of ``counts`` against equal expected counts."""
    n = sum(counts)
    if len(counts) < 2 or n == 0:
        raise ValueError("a chi-square test needs two or more categories and some trials")
    expected = n / len(counts)
    return sum((c - expected) ** 2 for c in counts) / expected


def chi2_critical(df: int, alpha: float) -> float:
    """The upper ``alpha`` quantile of chi-square with ``df`` degrees of
    freedom (exact for df 1 and 2, Wilson-Hilferty above; see the module)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, not {df}")
    if not 0 < alpha < 1:
        raise ValueError(f"significance level must be in (0, 1), not {alpha}")
    if df == 1:
        return NormalDist().inv_cdf(1 - alpha / 2) ** 2
    if df == 2:
        return -2 * math.log(alpha)
    z = NormalDist().inv_cdf(1 - alpha)
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


@dataclass(frozen=True, slots=True)
class UniformFit:
    """The outcome of :func:`uniform_fit`."""

    counts: tuple[int, ...]
    statistic: float
    df: int
    alpha: float
    critical: float

    @property
    def uniform(self) -> bool:
        """Whether the counts are consistent with a uniform choice at ``alpha``."""
        return self.statistic <= self.critical

    def __str__(self) -> str:
        verdict = "uniform" if self.uniform else "not uniform"
        return (
            f"counts {list(self.counts)}: chi-square {self.statistic:.2f}"
            f" vs {self.critical:.2f} (df {self.df}, alpha {self.alpha:g}): {verdict}"
        )


def uniform_fit(counts: Sequence[int], alpha: float) -> UniformFit:
    """Test that ``counts`` (trials per reply) come from a uniform choice.

    Every reply must be expected at least :data:`MIN_EXPECTED` times
    (n >= 5 k trials); fewer is a ValueError, not a verdict.
    """
    n, k = sum(counts), len(counts)
    if k >= 2 and n < MIN_EXPECTED * k:
        raise ValueError(
            f"{n} trials over {k} replies: need at least {MIN_EXPECTED * k}"
            f" ({MIN_EXPECTED} expected per reply)"
        )
    return UniformFit(
        counts=tuple(counts),
        statistic=chi_square(counts),
        df=k - 1,
        alpha=alpha,
        critical=chi2_critical(k - 1, alpha),
    )
