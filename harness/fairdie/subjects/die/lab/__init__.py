"""fairdie.subjects.die.lab: the fairness lab of specs/randomness-systems.md.

- the reference systems (:class:`Dice`, :class:`Deck`, :class:`GeneralizedDeck`,
  :class:`DynamicDice`, :class:`Tightness`, :class:`SortedCandidates`,
  :class:`WeightedWindow`) behind one protocol, :class:`System`;
- their measures, exact (:func:`exact`) or simulated (:func:`simulate`), and
  seeded press sequences (:func:`run`);
- the parameter search (:func:`search`) and its command, :func:`search_main`;
- a match from a die in use: the steady state of a die's offsets
  (:func:`steady_state`) and the measures from it (:func:`in_use`,
  :func:`in_use_joint`, :func:`guess_rate`);
- a weighted-window rule against the dynamic dice of its own entropy
  (:func:`compare`, :func:`dynamic_dice_at`);
- the destinator's bit scaling and source combining (:func:`prefix_reject`,
  :func:`plain_reject`, :func:`combine`, :func:`bits_per_value`,
  :func:`expected_bits_per_value`).
"""

from __future__ import annotations

from fairdie.subjects.die.lab._compare import Compared, compare, dynamic_dice_at
from fairdie.subjects.die.lab._lab_cli import search_main
from fairdie.subjects.die.lab._measures import Measures, exact, exact_from, run, simulate
from fairdie.subjects.die.lab._scaling import (
    Method,
    bits_per_value,
    combine,
    expected_bits_per_value,
    plain_reject,
    prefix_reject,
)
from fairdie.subjects.die.lab._search import D_VALUES, SR_VALUES, TIE_REL, search
from fairdie.subjects.die.lab._steady import (
    InUseMeasures,
    SteadyState,
    guess_rate,
    in_use,
    in_use_joint,
    steady_state,
)
from fairdie.subjects.die.lab._systems import (
    Deck,
    Dice,
    DynamicDice,
    GeneralizedDeck,
    SortedCandidates,
    System,
    Tightness,
    WeightedWindow,
    destinator_roll,
    two_d6,
    two_d6_coin,
)

__all__ = [
    "D_VALUES",
    "SR_VALUES",
    "TIE_REL",
    "Compared",
    "Deck",
    "Dice",
    "DynamicDice",
    "GeneralizedDeck",
    "InUseMeasures",
    "Measures",
    "Method",
    "SortedCandidates",
    "SteadyState",
    "System",
    "Tightness",
    "WeightedWindow",
    "bits_per_value",
    "combine",
    "compare",
    "destinator_roll",
    "dynamic_dice_at",
    "exact",
    "exact_from",
    "expected_bits_per_value",
    "guess_rate",
    "in_use",
    "in_use_joint",
    "plain_reject",
    "prefix_reject",
    "run",
    "search",
    "search_main",
    "simulate",
    "steady_state",
    "two_d6",
    "two_d6_coin",
]
