"""A weighted-window rule against dynamic dice at the rule's own entropy.

The spec's parameter search (:mod:`._search`) compares systems at an entropy
threshold on a grid of d; a rule is better than dynamic dice only if its
outcome variance is lower than theirs *at the same entropy*. Dynamic dice's
entropy grows with d (d -> 1 is a plain die), so :func:`dynamic_dice_at`
solves for the d whose exact entropy equals a given one, by bisection on a
continuous d, and :func:`compare` reports a rule beside the dynamic dice of
its own entropy, from an erased die and from a die in use (:mod:`._steady`):

    margin = variance of dynamic dice at the rule's entropy - the rule's variance

A positive margin means the rule is fairer than dynamic dice as unpredictable
as it is. The guess rates are the informed player's (who knows the rule and
the table): the mean probability of the likeliest face, over the T draws of a
match from erased, and over the steady state for a die in use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fairdie.subjects.die.lab._measures import exact
from fairdie.subjects.die.lab._steady import in_use
from fairdie.subjects.die.lab._systems import DynamicDice, WeightedWindow

__all__ = ["D_TOL", "STARTS", "Compared", "compare", "dynamic_dice_at"]

#: Bisection stops when the bracket on d is this narrow.
D_TOL = 1e-10
_D_LOW = 1e-3


@dataclass(frozen=True)
class _Point:
    entropy: float
    variance: float
    guess_rate: float


def _erased(system: WeightedWindow | DynamicDice, samples: int) -> _Point:
    m = exact(system, samples)
    assert m.guess_rate is not None
    return _Point(m.entropy, m.variance, m.guess_rate)


def _in_use(system: WeightedWindow | DynamicDice, samples: int) -> _Point:
    m = in_use(system, samples)
    return _Point(m.entropy, m.variance, m.guess_rate)


def _in_use_entropy(system: DynamicDice) -> float:
    """A die in use's entropy is the steady state's mean entropy (no match to play)."""
    return in_use(system, 1).entropy


def dynamic_dice_at(
    entropy: float, values: int, samples: int, *, used: bool = False
) -> tuple[float, float]:
    """``(d, exact entropy at d)`` of the dynamic dice whose entropy equals ``entropy``,
    over matches of ``samples`` draws from erased (``used``: from a die in use).

    Bisection on d in [0.001, 1] until the bracket is narrower than
    :data:`D_TOL`; raises ValueError if ``entropy`` is outside the entropies
    of that bracket.
    """
    h: Callable[[float], float]
    if used:

        def h(d: float) -> float:
            return _in_use_entropy(DynamicDice(values, d))

    else:

        def h(d: float) -> float:
            return exact(DynamicDice(values, d), samples).entropy

    lo, hi = _D_LOW, 1.0
    h_lo, h_hi = h(lo), h(hi)
    if not h_lo <= entropy <= h_hi:
        raise ValueError(
            f"dynamic dice's entropy runs {h_lo:.6f}..{h_hi:.6f} for d in {lo}..{hi};"
            f" {entropy!r} is outside it"
        )
    while hi - lo > D_TOL:
        mid = (lo + hi) / 2
        if h(mid) < entropy:
            lo = mid
        else:
            hi = mid
    d = (lo + hi) / 2
    return d, h(d)


@dataclass(frozen=True)
class Compared:
    """One start (erased or in use) of :func:`compare`."""

    rule: _Point
    d: float
    dynamic_dice: _Point

    @property
    def margin(self) -> float:
        """Dynamic dice's variance at the rule's entropy minus the rule's: > 0, the rule wins."""
        return self.dynamic_dice.variance - self.rule.variance

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": vars(self.rule),
            "dynamic_dice": {"d": self.d, **vars(self.dynamic_dice)},
            "margin": self.margin,
        }


#: The starts :func:`compare` knows: a match from an erased die, from a die in use.
STARTS = ("erased", "in_use")


def compare(
    weights: Sequence[float],
    values: int = 6,
    samples: int = 25,
    starts: Sequence[str] = STARTS,
) -> dict[str, Compared]:
    """The weighted window ``weights`` (weight by offset 0, 1, ...; an offset past the
    last is never drawn) beside the dynamic dice of its own entropy, for each of
    ``starts`` ("erased", "in_use"): ``{start: Compared}``."""
    for start in starts:
        if start not in STARTS:
            raise ValueError(f"starts are {' or '.join(STARTS)}, got {start!r}")
    rule = WeightedWindow(values, weights)
    out: dict[str, Compared] = {}
    for start, used, measure in (("erased", False, _erased), ("in_use", True, _in_use)):
        if start not in starts:
            continue
        mine = measure(rule, samples)
        d, _ = dynamic_dice_at(mine.entropy, values, samples, used=used)
        out[start] = Compared(mine, d, measure(DynamicDice(values, d), samples))
    return out
