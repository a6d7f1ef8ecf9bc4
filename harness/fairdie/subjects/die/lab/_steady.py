"""A match that starts from a die in use: the steady state, and the measures from it.

A fresh die starts erased (every count 0). A die in use has been rolled for a
long time: what it remembers, each value's count above the least-counted
value (its *offsets*), follows the steady state of its chain. A match that
starts from a die in use draws its starting offsets from that steady state
and counts only its own draws: its outcome variance is that of the match's
counts, as in the spec's measures, and its entropy and guess rate those of
the draws the match makes.

This applies to the systems symmetric in the values whose next draw depends
only on the offsets: dynamic dice, the weighted window (the firmware's rule)
and the player's view of the fair table (:class:`FairTable`). Dice forget
everything, so a die in use is a fresh die. Decks and the tightness roller
remember more than the offsets and are refused.

- :func:`steady_state` is the stationary distribution of the offsets, by
  power iteration on the lazy chain (half a step of staying put, which makes
  it aperiodic without changing the stationary distribution: the fair rule's
  table cycles with period 6, since the offsets' sum goes up by one at a
  draw and drops by 6 when the least count rises). Offsets of dynamic dice
  are unbounded; states whose probability falls below ``floor`` are dropped
  and their mass is reported as ``lost``.
- :func:`in_use` gives the entropy, outcome variance and guess rate of a
  match that starts from the steady state; :func:`in_use_joint` is
  :func:`exact` over such a match (spreads too, but only for small chains).
- :func:`guess_rate` is the informed player's steady-state guess rate: the
  expected probability of the likeliest value, over the steady state.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Self

from fairdie.subjects.die.lab._measures import (
    Measures,
    _check_samples,
    _entropy,
    exact,
    exact_from,
)
from fairdie.subjects.die.lab._public import FairTable
from fairdie.subjects.die.lab._systems import Dice, DynamicDice, System, WeightedWindow

__all__ = [
    "InUse",
    "InUseMeasures",
    "SteadyState",
    "guess_rate",
    "in_use",
    "in_use_joint",
    "steady_state",
]

Offsets = tuple[int, ...]


def _offsets(system: System) -> Offsets:
    c = system.counts
    low = min(c)
    return tuple(x - low for x in c)


def _check_supported(system: System) -> None:
    if not isinstance(system, DynamicDice | WeightedWindow | FairTable | Dice):
        raise ValueError(
            "a die in use is defined for dice, dynamic dice, the weighted window and the fair"
            f" table, whose next draw depends on the offsets alone; not {type(system).__name__}"
        )
    if any(system.counts):
        raise ValueError("pass the fresh system (every count 0): its steady state is computed")


def _memoryless(system: System) -> bool:
    return isinstance(system, Dice) or (isinstance(system, DynamicDice) and system.d == 1.0)


def _build(fresh: System, offsets: Offsets) -> System:
    """The state of ``fresh``'s system with these offsets: each value drawn that often."""
    state = fresh
    for value, times in enumerate(offsets):
        for _ in range(times):
            state = state.after(value)
    return state


@dataclass(frozen=True)
class SteadyState:
    """The stationary distribution of a system's offsets (sorted: values are interchangeable).

    ``states`` pairs each probability with the sorted offsets it belongs to,
    likeliest first; ``lost`` is the mass dropped below the floor (0 for a
    finite chain), ``steps`` the lazy power iterations it took.
    """

    states: tuple[tuple[float, Offsets], ...]
    lost: float
    steps: int


def steady_state(
    system: System,
    *,
    tol: float = 1e-14,
    floor: float = 1e-16,
    max_steps: int = 1_000_000,
) -> SteadyState:
    """The steady state of the offsets of the fresh ``system`` (see the module docstring).

    Stops when one lazy step moves less than ``tol`` of mass (L1); raises
    ValueError if that takes more than ``max_steps`` steps, or for a system
    with no steady state (dice, and dynamic dice with d = 1: their offsets
    spread without bound; a die in use is a fresh die for them).
    """
    _check_supported(system)
    if _memoryless(system):
        raise ValueError("dice remember nothing: their offsets have no steady state")
    # the states by number, in the order found: the iteration's dicts are keyed
    # by int (a tuple's hash is computed at every look-up), in the same order
    # as by the offsets themselves, so every sum adds the same terms in turn
    keys: list[Offsets] = []
    ids: dict[Offsets, int] = {}
    moves: list[list[tuple[float, int]] | None] = []

    def number(key: Offsets) -> int:
        found = ids.get(key)
        if found is None:
            found = ids[key] = len(keys)
            keys.append(key)
            moves.append(None)
        return found

    def step_from(i: int) -> list[tuple[float, int]]:
        found = moves[i]
        if found is None:
            state = _build(system, keys[i])
            found = []
            for outcome, q in enumerate(state.probs()):
                if q > 0.0:
                    found.append((q, number(tuple(sorted(_offsets(state.after(outcome)))))))
            moves[i] = found
        return found

    dist: dict[int, float] = {number(tuple(sorted(_offsets(system)))): 1.0}
    lost = 0.0
    for steps in range(1, max_steps + 1):
        nxt: dict[int, float] = {}
        get = nxt.get
        for i, p in dist.items():
            half = 0.5 * p
            nxt[i] = get(i, 0.0) + half
            for q, to in step_from(i):
                nxt[to] = get(to, 0.0) + half * q
        for i in [i for i, p in nxt.items() if p < floor]:
            lost += nxt.pop(i)
        old = dist.get
        moved = math.fsum([abs(p - old(i, 0.0)) for i, p in nxt.items()]) + math.fsum(
            [p for i, p in dist.items() if i not in nxt]
        )
        dist = nxt
        if moved < tol:
            total = math.fsum(dist.values())
            ranked = sorted(((p / total, keys[i]) for i, p in dist.items()), reverse=True)
            return SteadyState(tuple(ranked), lost, steps)
    raise ValueError(f"the offsets did not settle within {max_steps} steps")


class InUse:
    """A match on a die in use: the die's state, and the match's own counts.

    ``inner`` is the die (its counts are what it remembers); ``counts`` are the
    draws of this match alone. The key pairs each value's match count with
    its offset, sorted: values with equal pairs are interchangeable.
    """

    __slots__ = ("counts", "inner")

    counts: tuple[int, ...]
    inner: System

    def __init__(self, inner: System) -> None:
        self.inner = inner
        self.counts = (0,) * len(inner.counts)

    @property
    def base(self) -> tuple[float, ...]:
        return self.inner.base

    def probs(self) -> tuple[float, ...]:
        return self.inner.probs()

    def after(self, outcome: int) -> Self:
        new = object.__new__(type(self))
        new.inner = self.inner.after(outcome)
        c = list(self.counts)
        c[outcome] += 1
        new.counts = tuple(c)
        return new

    def key(self) -> Hashable:
        return tuple(sorted(zip(self.counts, _offsets(self.inner), strict=True)))

    def key_after(self, outcome: int) -> Hashable:
        return self.after(outcome).key()


def _starts(system: System, steady: SteadyState) -> list[tuple[float, System]]:
    return [(p, InUse(_build(system, offsets))) for p, offsets in steady.states]


@dataclass(frozen=True)
class InUseMeasures:
    """The spec's entropy and outcome variance, and the informed player's guess
    rate, of a match of ``samples`` draws that starts from a die in use.

    ``states`` is the number of offset states of the steady state, ``lost``
    the mass dropped below the floor, in the steady state (see
    :class:`SteadyState`) and in the match.
    """

    entropy: float
    variance: float
    guess_rate: float
    samples: int
    states: int
    lost: float


def in_use(
    system: System,
    samples: int,
    steady: SteadyState | None = None,
    *,
    floor: float = 1e-16,
) -> InUseMeasures:
    """The measures of a match of ``samples`` draws from the fresh ``system``'s steady
    state (``steady``, or :func:`steady_state` of it); for dice, those of a fresh match.

    A match that starts in the steady state stays in it, so every draw's
    distribution has the steady state's mean entropy and mean largest
    probability: the match's entropy and guess rate are those means. The values
    are interchangeable, so the variance is E[c^2] - (samples / n)^2 for the
    count c of one value picked at random at the start; dynamic programming
    over (that value's offset, the others' sorted offsets, its count) gives
    E[c^2], with far fewer states than the whole count vector
    (:func:`in_use_joint`). States of the match whose probability falls below
    ``floor`` are dropped, and their mass is added to ``lost``.
    """
    _check_supported(system)
    _check_samples(samples)
    if _memoryless(system):
        m = exact(system, samples)
        assert m.guess_rate is not None
        return InUseMeasures(m.entropy, m.variance, m.guess_rate, samples, 1, 0.0)
    if steady is None:
        steady = steady_state(system)
    n = len(system.counts)
    h0 = _entropy(system.base)
    entropy = 0.0
    guess = 0.0
    # (tagged value's offset, the others' offsets sorted) -> probability, with its count
    layer: dict[tuple[int, Offsets, int], float] = {}
    lost = steady.lost
    for p, offsets in steady.states:
        probs = _build(system, offsets).probs()
        entropy += p * _entropy(probs) / h0
        guess += p * max(probs)
        for j, o in enumerate(offsets):
            key = (o, offsets[:j] + offsets[j + 1 :], 0)
            layer[key] = layer.get(key, 0.0) + p / n
    moves: dict[tuple[int, Offsets], list[tuple[float, int, Offsets, int]]] = {}

    def step_from(tagged: int, others: Offsets) -> list[tuple[float, int, Offsets, int]]:
        found = moves.get((tagged, others))
        if found is None:
            state = _build(system, (tagged, *others))
            found = []
            for outcome, q in enumerate(state.probs()):
                if q > 0.0:
                    new = _offsets(state.after(outcome))
                    found.append((q, new[0], tuple(sorted(new[1:])), int(outcome == 0)))
            moves[(tagged, others)] = found
        return found

    for _ in range(samples):
        nxt: dict[tuple[int, Offsets, int], float] = {}
        for (tagged, others, count), p in layer.items():
            for q, to_tagged, to_others, hit in step_from(tagged, others):
                key = (to_tagged, to_others, count + hit)
                nxt[key] = nxt.get(key, 0.0) + p * q
        layer = {key: p for key, p in nxt.items() if p >= floor}
        lost += math.fsum(nxt.values()) - math.fsum(layer.values())
    total = math.fsum(layer.values())
    second = math.fsum(p * count * count for (_, _, count), p in layer.items()) / total
    return InUseMeasures(
        entropy=entropy,
        variance=second - (samples / n) ** 2,
        guess_rate=guess,
        samples=samples,
        states=len(steady.states),
        lost=lost,
    )


def in_use_joint(system: System, samples: int, steady: SteadyState | None = None) -> Measures:
    """All of :func:`exact`'s measures (spreads too) of a match from the steady state,
    by dynamic programming over the whole count vector: feasible for the fair
    rule's 56 table states, far too slow for dynamic dice at T = 25."""
    _check_supported(system)
    if _memoryless(system):
        return exact(system, samples)
    if steady is None:
        steady = steady_state(system)
    return exact_from(_starts(system, steady), samples)


def guess_rate(system: System, steady: SteadyState | None = None) -> float:
    """The informed player's guess rate on a die in use: the steady state's mean of
    the likeliest value's probability (1/n for dice)."""
    _check_supported(system)
    if _memoryless(system):
        return max(system.probs())
    if steady is None:
        steady = steady_state(system)
    return math.fsum(p * max(_build(system, o).probs()) for p, o in steady.states)
