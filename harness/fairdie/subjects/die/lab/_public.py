"""What a player sees of our die's rules: the table, followed from the faces.

Adapters that give :mod:`fairdie.subjects.die`'s rules the lab's :class:`System`
protocol, holding only the public table (no pool, no noise), so that the
:class:`~fairdie.subjects.die.lab._predict.Predictor` and the exact measures treat them
like the reference systems.
"""

from __future__ import annotations

from collections.abc import Hashable

from fairdie.subjects.die import _fair, _rule

__all__ = ["FairTable", "SeedTable", "public_view"]

_UNIFORM = (1 / 6,) * 6


class FairTable:
    """The fair rule's table: six offsets packed in 12 bits (fairdie.subjects.die._fair)."""

    def __init__(self, table: int = 0) -> None:
        self.table = table

    @property
    def base(self) -> tuple[float, ...]:
        return _UNIFORM

    @property
    def counts(self) -> tuple[int, ...]:
        return _fair.offsets(self.table)

    def probs(self) -> tuple[float, ...]:
        return _fair.probabilities(self.table)

    def after(self, outcome: int) -> FairTable:
        return FairTable(_fair.advance(self.table, outcome + 1))

    def key(self) -> Hashable:
        return tuple(sorted(self.counts))

    def key_after(self, outcome: int) -> Hashable:
        return self.after(outcome).key()


class SeedTable:
    """The seed's rule's six counters, with its three candidates equally likely."""

    def __init__(self, counts: tuple[int, ...] = (255,) * 6) -> None:
        self._counts = counts

    @property
    def base(self) -> tuple[float, ...]:
        return _UNIFORM

    @property
    def counts(self) -> tuple[int, ...]:
        return self._counts

    def probs(self) -> tuple[float, ...]:
        p = [0.0] * 6
        for f in _rule.candidates(self._counts):
            p[f - 1] = 1 / 3
        return tuple(p)

    def after(self, outcome: int) -> SeedTable:
        c = self._counts
        if c[outcome] == _rule.MAX_COUNT:
            c = _rule.rebase(c)
        new = list(c)
        new[outcome] += 1
        return SeedTable(tuple(new))

    def key(self) -> Hashable:
        return self._counts

    def key_after(self, outcome: int) -> Hashable:
        return self.after(outcome).key()


def public_view(model: str, table: tuple[int, ...]) -> FairTable | SeedTable:
    """The player's view of a die whose model is ``model``, starting at ``table``."""
    if model == "fair":
        return FairTable(sum(t << (2 * f) for f, t in enumerate(table)))
    return SeedTable(table)
