"""What a campaign is measured against: dice, deck and dynamic dice
(d = :data:`REFERENCE_D`) pressed as often, seeded. Each is one piece of
work (:func:`reference_piece`), so a campaign's workers take them while
they press its shards."""

from __future__ import annotations

import time
from dataclasses import dataclass

from fairdie.subjects.die.lab._measures import run as run_system
from fairdie.subjects.die.lab._predict import Tally, tally
from fairdie.subjects.die.lab._systems import Deck, Dice, DynamicDice, System

__all__ = [
    "REFERENCES",
    "REFERENCE_D",
    "ReferencePiece",
    "reference_piece",
    "reference_tallies",
]

#: dynamic dice's d as the spec's search picks it for n = 6, T = 25, entropy >= 0.90
REFERENCE_D = 0.355
#: the reference systems, by the name a campaign's output gives them
REFERENCES = ("dice", "deck", "dynamic_dice")


def _system(name: str) -> System:
    if name == "dice":
        return Dice(6)
    if name == "deck":
        return Deck(6)
    if name == "dynamic_dice":
        return DynamicDice(6, REFERENCE_D)
    raise ValueError(f"no reference system {name!r} (known: {', '.join(REFERENCES)})")


@dataclass(frozen=True)
class ReferencePiece:
    """One reference system pressed ``presses`` times under ``seed``."""

    name: str
    presses: int
    seed: int


def reference_piece(p: ReferencePiece) -> tuple[str, Tally, float]:
    """``(name, its tally, CPU seconds)``."""
    t0 = time.process_time()
    s = _system(p.name)
    found = tally(run_system(s, p.presses, p.seed), s)
    return p.name, found, time.process_time() - t0


def reference_tallies(presses: int, seed: int) -> dict[str, Tally]:
    """Dice, deck and dynamic dice pressed as often, seeded."""
    return {n: reference_piece(ReferencePiece(n, presses, seed))[1] for n in REFERENCES}
