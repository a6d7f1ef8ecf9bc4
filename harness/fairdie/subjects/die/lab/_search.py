"""The parameter search of specs/randomness-systems.md ("Parameter search").

For n values, matches of T samples and an entropy threshold:

- dynamic dice: d = (j + 0.5) / 100 for j = 0, 1, ..., 99, in that order;
- generalized deck: s = 1..10 and, for each s, r = 1..10 (s outer, r inner);
- of the candidates whose entropy is at least the threshold, the one with the
  lowest outcome variance is chosen; on a tie the candidate tried last wins.
  Variances are equal when they differ by at most ``TIE_REL`` relative (float
  rounding): equivalent candidates, such as decks whose refill rule never fires
  within T samples, then resolve to the last one tried.

Plain dice and the deck are reported for reference. Measures are exact
(:func:`fairdie.subjects.die.lab.exact`) unless ``simulate_matches`` is given; a simulation
plays every candidate with the same seed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from fairdie.subjects.die.lab._measures import Measures, exact, simulate
from fairdie.subjects.die.lab._systems import Deck, Dice, DynamicDice, GeneralizedDeck, System

__all__ = ["D_VALUES", "SR_VALUES", "TIE_REL", "search"]

#: The dynamic dice candidates, in the order they are tried.
D_VALUES: tuple[float, ...] = tuple((j + 0.5) / 100 for j in range(100))
#: The generalized deck candidates (s, r), in the order they are tried.
SR_VALUES: tuple[tuple[int, int], ...] = tuple((s, r) for s in range(1, 11) for r in range(1, 11))
#: Relative difference up to which two variances count as a tie.
TIE_REL = 1e-9


def _best(
    candidates: Iterable[tuple[dict[str, Any], Measures]], entropy: float
) -> tuple[dict[str, Any], Measures] | None:
    """The lowest-variance candidate at or above the entropy threshold; ties go to the last."""
    best: tuple[dict[str, Any], Measures] | None = None
    for params, m in candidates:
        if m.entropy < entropy:
            continue
        if best is None or m.variance <= best[1].variance + TIE_REL * abs(best[1].variance):
            best = (params, m)
    return best


def _report(params: dict[str, Any], m: Measures) -> dict[str, Any]:
    out: dict[str, Any] = {**params, "entropy": m.entropy, "variance": m.variance}
    if m.entropy_se is not None:
        out["entropy_se"] = m.entropy_se
        out["variance_se"] = m.variance_se
    return out


def search(
    values: int,
    samples: int,
    entropy: float,
    *,
    simulate_matches: int | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The spec's search for ``values`` values, ``samples`` per match, an entropy threshold.

    Returns a JSON-ready dict: ``values``, ``samples``, ``entropy_threshold``,
    ``method`` ("exact" or "simulated"), ``matches`` and ``seed`` (``None``
    when exact), and ``dice``, ``deck``, ``generalized_deck`` (with ``s``,
    ``r``), ``dynamic_dice`` (with ``d``), each with ``entropy`` and
    ``variance`` (plus ``entropy_se`` and ``variance_se`` when simulated). A
    searched system is ``None`` when no candidate reaches the threshold.
    """
    if isinstance(values, bool) or not isinstance(values, int) or values < 2:
        raise ValueError(f"values must be an integer >= 2, got {values!r}")
    if not 0.0 <= entropy <= 1.0:
        raise ValueError(f"the entropy threshold must be in 0..1, got {entropy!r}")
    measure: Callable[[System], Measures]
    if simulate_matches is None:

        def measure(system: System) -> Measures:
            return exact(system, samples)

    else:

        def measure(system: System) -> Measures:
            return simulate(system, samples, simulate_matches, seed)

    deck = _best(
        (({"s": s, "r": r}, measure(GeneralizedDeck(values, s, r))) for s, r in SR_VALUES), entropy
    )
    dyn = _best((({"d": d}, measure(DynamicDice(values, d))) for d in D_VALUES), entropy)
    return {
        "values": values,
        "samples": samples,
        "entropy_threshold": entropy,
        "method": "exact" if simulate_matches is None else "simulated",
        "matches": simulate_matches,
        "seed": None if simulate_matches is None else seed,
        "dice": _report({}, measure(Dice(values))),
        "deck": _report({}, measure(Deck(values))),
        "generalized_deck": None if deck is None else _report(*deck),
        "dynamic_dice": None if dyn is None else _report(*dyn),
    }
