"""The measures of specs/randomness-systems.md ("Measures"), exact and simulated.

For a match of ``samples`` draws from a fresh system:

- ``entropy`` (the spec's unpredictability): the Shannon entropy of the
  distribution of each draw, given the state before it, divided by the entropy
  of the system's base distribution (log n for the uniform base, so a fair die
  scores 1.0), averaged over the draws of a match and over matches. The state
  before the first draw counts, the state after the last does not;
- ``variance`` (the spec's outcome variance): after the match, the mean over
  the n values of ``(counts[i] - base[i] * samples) ** 2``. For the uniform
  base that is the population variance of the counts (divided by n); for a
  tightness roller with non-uniform P0 it is the spec's mean squared error;
- ``spread_mean`` and ``spread_worst``: the mean and the largest (over all
  reachable outcomes when exact, over the matches when simulated) of
  ``max(dev) - min(dev)`` with ``dev[i] = counts[i] - base[i] * samples``,
  which is max count minus min count for the uniform base;
- ``guess_rate``: the probability of the likeliest value before each draw,
  averaged like the entropy: how often a player who knows the state (the
  rule and every count) names the next value by guessing the likeliest.

:func:`exact` computes them by dynamic programming over the system's canonical
states (:func:`exact_from`: from a distribution over starting states);
:func:`simulate` plays seeded matches and also gives the standard
errors of the entropy and the variance.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from fairdie.subjects.die.lab._systems import System

__all__ = ["Measures", "exact", "exact_from", "run", "simulate"]


@dataclass(frozen=True)
class Measures:
    """The spec's measures of one system over matches of ``samples`` draws.

    ``entropy_se`` and ``variance_se`` are the standard errors of a simulation
    (the sample standard deviation over matches divided by sqrt(matches));
    ``None`` when the measures are exact.
    """

    entropy: float
    variance: float
    spread_mean: float
    spread_worst: float
    entropy_se: float | None = None
    variance_se: float | None = None
    guess_rate: float | None = None


@functools.lru_cache(maxsize=1 << 14)
def _entropy(probs: tuple[float, ...]) -> float:
    """Shannon entropy in nats; each distribution's once (a match, a
    steady-state walk, revisits few)."""
    log = math.log
    return -sum([p * log(p) for p in probs if p > 0.0])


def _deviations(system: System, samples: int) -> list[float]:
    return [c - q * samples for c, q in zip(system.counts, system.base, strict=True)]


def _variance(system: System, samples: int) -> float:
    dev = _deviations(system, samples)
    return math.fsum(x * x for x in dev) / len(dev)


def _spread(system: System, samples: int) -> float:
    dev = _deviations(system, samples)
    return max(dev) - min(dev)


def _check_samples(samples: int) -> None:
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ValueError(f"samples must be an integer >= 1, got {samples!r}")


class _Reached:
    """The probability of one canonical state, and the state that first reached it."""

    __slots__ = ("drawn", "mass", "parent")

    def __init__(self, mass: float, parent: System, drawn: int | None) -> None:
        self.mass = mass
        self.parent = parent
        self.drawn = drawn

    def state(self) -> System:
        """The state itself, built once (``drawn is None``: ``parent`` is the state)."""
        return self.parent if self.drawn is None else self.parent.after(self.drawn)


def exact(system: System, samples: int) -> Measures:
    """The exact measures of ``system`` over a match of ``samples`` draws.

    Dynamic programming: layer t maps each canonical key (:meth:`System.key`)
    of the states after t draws to its probability; a state is built once
    per key (:meth:`System.key_after` finds the key of each outcome). Floating
    point throughout.
    """
    return exact_from([(1.0, system)], samples)


def exact_from(starts: Sequence[tuple[float, System]], samples: int) -> Measures:
    """The exact measures of a match of ``samples`` draws whose first state is
    drawn from ``starts`` (probability, state; the probabilities sum to 1, the
    states are of one system and share its base), as :func:`exact`."""
    _check_samples(samples)
    if not starts:
        raise ValueError("starts must hold at least one state")
    base = starts[0][1].base
    layer: dict[Hashable, _Reached] = {}
    for p, start in starts:
        seen = layer.get(start.key())
        if seen is None:
            layer[start.key()] = _Reached(p, start, None)
        else:
            seen.mass += p
    entropy_terms: list[float] = []
    guess_terms: list[float] = []
    for _ in range(samples):
        nxt: dict[Hashable, _Reached] = {}
        for reached in layer.values():
            state = reached.state()
            p = reached.mass
            probs = state.probs()
            entropy_terms.append(p * _entropy(probs))
            guess_terms.append(p * max(probs))
            for outcome, q in enumerate(probs):
                if q > 0.0:
                    key = state.key_after(outcome)
                    seen = nxt.get(key)
                    if seen is None:
                        nxt[key] = _Reached(p * q, state, outcome)
                    else:
                        seen.mass += p * q
        layer = nxt
    finals = [(r.mass, r.state()) for r in layer.values()]
    spreads = [_spread(s, samples) for _, s in finals]
    return Measures(
        entropy=math.fsum(entropy_terms) / samples / _entropy(base),
        variance=math.fsum(p * _variance(s, samples) for p, s in finals),
        spread_mean=math.fsum(p * x for (p, _), x in zip(finals, spreads, strict=True)),
        spread_worst=max(spreads),
        guess_rate=math.fsum(guess_terms) / samples,
    )


def _draw(rng: random.Random, probs: Sequence[float]) -> int:
    """One outcome of ``probs`` from one ``rng.random()``."""
    u = rng.random()
    acc = 0.0
    last = 0
    for outcome, p in enumerate(probs):
        if p > 0.0:
            acc += p
            last = outcome
            if u < acc:
                return outcome
    return last  # u fell in the rounding gap below 1.0


def simulate(system: System, samples: int, matches: int, seed: int) -> Measures:
    """The measures estimated from ``matches`` matches played with ``random.Random(seed)``."""
    _check_samples(samples)
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 2:
        raise ValueError(f"matches must be an integer >= 2, got {matches!r}")
    rng = random.Random(seed)
    h0 = _entropy(system.base)
    entropies: list[float] = []
    variances: list[float] = []
    spreads: list[float] = []
    guesses: list[float] = []
    for _ in range(matches):
        state = system
        h = 0.0
        for _ in range(samples):
            probs = state.probs()
            h += _entropy(probs)
            guesses.append(max(probs))
            state = state.after(_draw(rng, probs))
        entropies.append(h / samples / h0)
        variances.append(_variance(state, samples))
        spreads.append(_spread(state, samples))
    root = math.sqrt(matches)
    return Measures(
        entropy=statistics.fmean(entropies),
        variance=statistics.fmean(variances),
        spread_mean=statistics.fmean(spreads),
        spread_worst=max(spreads),
        entropy_se=statistics.stdev(entropies) / root,
        variance_se=statistics.stdev(variances) / root,
        guess_rate=statistics.fmean(guesses),
    )


def run(system: System, presses: int, seed: int) -> list[int]:
    """``presses`` outcomes (0-based values) drawn from ``system`` with ``random.Random(seed)``."""
    if isinstance(presses, bool) or not isinstance(presses, int) or presses < 0:
        raise ValueError(f"presses must be an integer >= 0, got {presses!r}")
    rng = random.Random(seed)
    out: list[int] = []
    state = system
    for _ in range(presses):
        outcome = _draw(rng, state.probs())
        out.append(outcome)
        state = state.after(outcome)
    return out
