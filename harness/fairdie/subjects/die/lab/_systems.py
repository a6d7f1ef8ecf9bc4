"""The reference randomness systems of specs/randomness-systems.md ("Systems").

Every system picks a value 0..n-1 (value ``i`` is face ``i + 1``) and shares one
protocol, :class:`System`. A system object is one immutable state:

- ``base`` is the distribution fairness is measured against (uniform for all
  systems but the tightness roller, whose ``base`` is its P0);
- ``counts[i]`` is how often value ``i`` has been drawn so far;
- ``probs()`` is the distribution of the next draw in this state;
- ``after(outcome)`` is the state after drawing ``outcome`` (a new object);
- ``key()`` is a hashable canonical form: two states with equal keys have the
  same future and the same measures, so exact computation may merge them. For
  systems symmetric in the values it is the sorted count vector (or the sorted
  (count, copies left) pairs of a deck);
- ``key_after(outcome)`` is ``after(outcome).key()`` without building the
  new state (exact computation builds one state per key).

Helpers give the base distributions of the spec's tightness examples:
:func:`two_d6` (the sums 2..12) and :func:`two_d6_coin` (the destinator's 72
outcomes, numbered as :func:`destinator_roll` maps them).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Protocol, Self

__all__ = [
    "Deck",
    "Dice",
    "DynamicDice",
    "GeneralizedDeck",
    "SortedCandidates",
    "System",
    "Tightness",
    "WeightedWindow",
    "destinator_roll",
    "two_d6",
    "two_d6_coin",
]


class System(Protocol):
    """One state of a randomness system (see the module docstring)."""

    @property
    def base(self) -> tuple[float, ...]:
        """The distribution fairness and entropy are measured against."""
        ...

    @property
    def counts(self) -> tuple[int, ...]:
        """Times each value has been drawn so far."""
        ...

    def probs(self) -> tuple[float, ...]:
        """The distribution of the next draw."""
        ...

    def after(self, outcome: int) -> Self:
        """The state after drawing ``outcome``."""
        ...

    def key(self) -> Hashable:
        """Canonical form: equal keys have equal futures and measures."""
        ...

    def key_after(self, outcome: int) -> Hashable:
        """``after(outcome).key()``, computed without building the new state."""
        ...


def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    return n


def _check_positive_int(name: str, v: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
    return v


def _bump(counts: tuple[int, ...], outcome: int) -> tuple[int, ...]:
    c = list(counts)
    c[outcome] += 1
    return tuple(c)


def _normalised(weights: Sequence[float]) -> tuple[float, ...]:
    total = sum(weights)
    return tuple([w / total for w in weights])


class _Counted:
    """Shared state of the systems symmetric in the values: counts, uniform base."""

    __slots__ = ("base", "counts")

    base: tuple[float, ...]
    counts: tuple[int, ...]

    def __init__(self, n: int) -> None:
        n = _check_n(n)
        self.base = (1.0 / n,) * n
        self.counts = (0,) * n

    def key(self) -> Hashable:
        """The sorted count vector."""
        return tuple(sorted(self.counts))

    def key_after(self, outcome: int) -> Hashable:
        c = list(self.counts)
        c[outcome] += 1
        c.sort()
        return tuple(c)


class Dice(_Counted):
    """Spec "Dice": every draw uniform over the n values, independent of the past."""

    __slots__ = ()

    def probs(self) -> tuple[float, ...]:
        return self.base

    def after(self, outcome: int) -> Dice:
        new = object.__new__(Dice)
        new.base = self.base
        new.counts = _bump(self.counts, outcome)
        return new


class DynamicDice(_Counted):
    """Spec "Dynamic dice (d)": P(i) is proportional to ``d ** counts[i]``, 0 < d <= 1."""

    __slots__ = ("d",)

    d: float

    def __init__(self, n: int, d: float) -> None:
        super().__init__(n)
        if not 0.0 < d <= 1.0:
            raise ValueError(f"d must be in (0, 1], got {d!r}")
        self.d = float(d)

    def probs(self) -> tuple[float, ...]:
        # d ** (c - min c) has the same ratios and never underflows to all zeros
        low = min(self.counts)
        return _normalised([self.d ** (c - low) for c in self.counts])

    def after(self, outcome: int) -> DynamicDice:
        new = object.__new__(DynamicDice)
        new.base = self.base
        new.d = self.d
        new.counts = _bump(self.counts, outcome)
        return new


class GeneralizedDeck(_Counted):
    """Spec "Generalized deck (s, r)".

    The deck starts with ``s`` copies of each value; each draw removes one card
    uniformly from the deck; after each draw, if fewer than ``r`` cards remain,
    ``s`` copies of every value are added to what remains (``r = 1``: refill
    when empty). ``left[i]`` is the copies of value ``i`` in the deck.
    """

    __slots__ = ("left", "r", "s", "size")

    s: int
    r: int
    left: tuple[int, ...]
    size: int

    def __init__(self, n: int, s: int, r: int) -> None:
        super().__init__(n)
        self.s = _check_positive_int("s", s)
        self.r = _check_positive_int("r", r)
        self.left = (s,) * n
        self.size = s * n

    def probs(self) -> tuple[float, ...]:
        """Each value's share of the remaining deck."""
        size = self.size
        return tuple(c / size for c in self.left)

    def _left_after(self, outcome: int) -> tuple[list[int], int]:
        """Copies of each value left after drawing ``outcome``, refill included, and their sum."""
        left = list(self.left)
        left[outcome] -= 1
        size = self.size - 1
        if size < self.r:
            left = [c + self.s for c in left]
            size += self.s * len(left)
        return left, size

    def after(self, outcome: int) -> Self:
        new = object.__new__(type(self))
        new.base = self.base
        new.s = self.s
        new.r = self.r
        new.counts = _bump(self.counts, outcome)
        left, new.size = self._left_after(outcome)
        new.left = tuple(left)
        return new

    def key(self) -> Hashable:
        """The sorted (count, copies left) pairs."""
        return tuple(sorted(zip(self.counts, self.left, strict=True)))

    def key_after(self, outcome: int) -> Hashable:
        left, _ = self._left_after(outcome)
        return tuple(sorted(zip(_bump(self.counts, outcome), left, strict=True)))


class Deck(GeneralizedDeck):
    """Spec "Deck": one copy of each value, refilled when empty (``GeneralizedDeck(n, 1, 1)``)."""

    __slots__ = ()

    def __init__(self, n: int) -> None:
        super().__init__(n, 1, 1)


class WeightedWindow(_Counted):
    """P(i) is proportional to ``weights[counts[i] - min(counts)]``.

    A value whose count is ``len(weights)`` or more above the minimum is never
    drawn. The product firmware's rule is ``WeightedWindow(6, (8, 3, 1))``.
    """

    __slots__ = ("weights",)

    weights: tuple[float, ...]

    def __init__(self, n: int, weights: Sequence[float]) -> None:
        super().__init__(n)
        w = tuple(float(x) for x in weights)
        if not w or w[0] <= 0.0 or any(not 0.0 <= x < math.inf for x in w):
            raise ValueError(
                f"weights must be finite, non-negative, and the first positive; got {weights!r}"
            )
        self.weights = w

    def probs(self) -> tuple[float, ...]:
        low = min(self.counts)
        w = self.weights
        span = len(w)
        return _normalised([w[c - low] if c - low < span else 0.0 for c in self.counts])

    def after(self, outcome: int) -> WeightedWindow:
        new = object.__new__(WeightedWindow)
        new.base = self.base
        new.weights = self.weights
        new.counts = _bump(self.counts, outcome)
        return new


class SortedCandidates(_Counted):
    """Spec "Sorted-candidates die": the ATtiny13A firmware's rule on six counters.

    Faces sorted by (count, face number) ascending; the 1st, 3rd and 5th are the
    candidates (:meth:`candidates`); the noise picks candidate index ``i`` with
    probability ``index_probs[i]``. The firmware's noise input is that index
    (``adc_code % 3``): draw ``candidates()[i]`` to follow the chip roll by roll.
    Counts are unbounded here; the firmware's rebase at 255 keeps the order of
    the faces, so it never changes which face is drawn. The key is the sorted
    count vector: ties decide which face is drawn, not which count grows.
    """

    __slots__ = ("index_probs",)

    index_probs: tuple[float, float, float]

    def __init__(self, index_probs: Sequence[float] = (1 / 3, 1 / 3, 1 / 3)) -> None:
        super().__init__(6)
        p = tuple(float(x) for x in index_probs)
        if len(p) != 3 or any(not 0.0 <= x <= 1.0 for x in p) or not math.isclose(sum(p), 1.0):
            raise ValueError(f"index_probs must be three probabilities summing to 1: {p!r}")
        self.index_probs = (p[0], p[1], p[2])

    def candidates(self) -> tuple[int, int, int]:
        """The values (0-based) in 1st, 3rd and 5th place of the (count, value) order."""
        c = self.counts
        order = sorted(range(6), key=lambda v: (c[v], v))
        return order[0], order[2], order[4]

    def probs(self) -> tuple[float, ...]:
        p = [0.0] * 6
        for value, q in zip(self.candidates(), self.index_probs, strict=True):
            p[value] = q
        return tuple(p)

    def after(self, outcome: int) -> SortedCandidates:
        new = object.__new__(SortedCandidates)
        new.base = self.base
        new.index_probs = self.index_probs
        new.counts = _bump(self.counts, outcome)
        return new


class Tightness:
    """Spec "Tightness roller (k)" over a base distribution ``p0``.

    After ``m`` draws with counts ``c``, P(i) is proportional to
    ``p0[i] * 2 ** (-k * (c[i] - p0[i] * m))``. ``k = 0`` is a plain roll of
    ``p0``. The measures use ``p0`` as the base: entropy relative to H(p0),
    fairness as the mean squared error of ``c[i]`` against ``p0[i] * m``.
    Values with equal ``p0`` are interchangeable: the key sorts the counts
    within each group of equal ``p0``.
    """

    __slots__ = ("_group_of", "_groups", "_key", "base", "counts", "k")

    base: tuple[float, ...]
    counts: tuple[int, ...]
    k: float
    _groups: tuple[tuple[int, ...], ...]
    _group_of: tuple[int, ...]  #: each value's group
    _key: tuple[tuple[int, ...], ...] | None  #: :meth:`key`, once found

    def __init__(self, p0: Sequence[float], k: float) -> None:
        p = tuple(float(x) for x in p0)
        if len(p) < 2 or any(not 0.0 <= x <= 1.0 for x in p) or not math.isclose(math.fsum(p), 1.0):
            raise ValueError(f"p0 must be at least two probabilities summing to 1, got {p0!r}")
        if max(p) == 1.0:
            raise ValueError("p0 must have positive entropy (more than one possible outcome)")
        if not 0.0 <= k < math.inf:
            raise ValueError(f"k must be finite and >= 0, got {k!r}")
        self.base = p
        self.k = float(k)
        self.counts = (0,) * len(p)
        groups: dict[float, list[int]] = {}
        for i, x in enumerate(p):
            groups.setdefault(x, []).append(i)
        self._groups = tuple(tuple(g) for g in groups.values())
        of = {i: n for n, g in enumerate(self._groups) for i in g}
        self._group_of = tuple(of[i] for i in range(len(p)))
        self._key = None

    def probs(self) -> tuple[float, ...]:
        m = sum(self.counts)
        k = self.k
        expo = [-k * (c - q * m) for c, q in zip(self.counts, self.base, strict=True)]
        top = max(e for e, q in zip(expo, self.base, strict=True) if q > 0.0)
        return _normalised([q * 2.0 ** (e - top) for e, q in zip(expo, self.base, strict=True)])

    def after(self, outcome: int) -> Tightness:
        new = object.__new__(Tightness)
        new.base = self.base
        new.k = self.k
        new._groups = self._groups
        new._group_of = self._group_of
        new._key = None
        new.counts = _bump(self.counts, outcome)
        return new

    def key(self) -> Hashable:
        """The sorted counts within each group of values with equal ``p0``."""
        if self._key is None:
            c = self.counts
            self._key = tuple(tuple(sorted(c[i] for i in g)) for g in self._groups)
        return self._key

    def key_after(self, outcome: int) -> Hashable:
        """:meth:`key` with the outcome's group sorted again (the others keep theirs)."""
        self.key()
        assert self._key is not None
        n = self._group_of[outcome]
        c = _bump(self.counts, outcome)
        key = list(self._key)
        key[n] = tuple(sorted(c[i] for i in self._groups[n]))
        return tuple(key)


def two_d6() -> tuple[float, ...]:
    """P0 of the sum of two fair dice: sums 2..12 (value 0 is the sum 2)."""
    return tuple((6 - abs(total - 7)) / 36 for total in range(2, 13))


def two_d6_coin() -> tuple[float, ...]:
    """P0 of the destinator's roll: 72 equally likely outcomes (see :func:`destinator_roll`)."""
    return (1 / 72,) * 72


def destinator_roll(number: int) -> tuple[int, int, str]:
    """The destinator's outcome ``number`` (1..72) as (first die, second die, coin).

    As the destinator text numbers them: 1..36 are "odd", 37..72 "even"; within
    each half the 36 dice pairs in order of their sum, and within a sum by the
    first die: 1 = 1+1, 2 = 1+2, 3 = 2+1, 4 = 1+3, ..., 36 = 6+6.
    """
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 72:
        raise ValueError(f"the destinator numbers its outcomes 1..72, got {number!r}")
    pairs = sorted(
        ((a, b) for a in range(1, 7) for b in range(1, 7)), key=lambda ab: (ab[0] + ab[1], ab[0])
    )
    a, b = pairs[(number - 1) % 36]
    return a, b, "odd" if number <= 36 else "even"
