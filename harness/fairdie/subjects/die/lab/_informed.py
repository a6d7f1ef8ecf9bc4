"""The strongest player the lab knows: one who has read the firmware.

:func:`informed_player` makes it for a die's reference model. It knows the
rule bit for bit and, from an erased chip, the state the die starts in; it
sees every face and never the noise or the EEPROM. Its figure is the campaign's
``guess_rate_informed`` (and ``guess_rate_informed_in_use`` for the player
who meets the die in use: it knows the rule but not the state).

For the fair rule (:class:`FairPlayer`) it keeps two beliefs:

- the table, exactly: a distribution over the 3367 canonical tables (a point
  from an erased chip; the rule's steady state, :func:`stationary`, for a
  die in use), moved by each face seen as Bayes says for ideal noise;
- a filter for the hypothesis that the noise gives no fresh bits (a
  deterministic die: what a stuck pin did before the firmware's health
  tests, and what a firmware that skips them does): the set of (table,
  pool) states consistent with every face seen since it was last started,
  rolled all at once (:meth:`Chain.roll_quiet`, read from
  :attr:`Chain.quiet_faces`). When no state is left it starts again from
  every pool at the tables the belief holds (the likeliest
  :data:`RESTART_TABLES` of them). From an erased chip it starts
  as the one state the chip holds.

It guesses the set's commonest face once the set has been consistent for
:data:`LOCK` presses (or holds the known start), else the face the table
belief makes likeliest (the lowest on a tie). LOCK = 10 was chosen by
measurement on 100 000 faces of `_fair.roll` with uniform 16-bit noise
from an erased chip (seeds 1 and 2): a set started from 4095 pools empties
after about 5-6 faces of live noise, and a survivor's vote is a worse guess
than the table's, so the guess rate is 0.304 at LOCK 3 (seed 1), 0.324 at
6, 0.3289 at 8, 0.3292 at 10 and 12 and 0.3293 with no filter (seed 2); a
deterministic die met in use is followed from the LOCK-th face after a
restart holds its table (measured over 40 states drawn from the steady
state: it guesses every face from the 8th-45th on, median the 17th). Its cost, measured: about 3 s
for 100 000 faces, from an erased chip or in use; in use under the lab's
adversary, whose faces never pin the table down so that the set restarts
at 64 tables every eight faces or so, 6.6 s of CPU for 100 000 faces on a
loaded machine (a restarted set is whole rows of :attr:`Chain.quiet_faces`,
and only its states that match the face gather their pools after; 8.1 s
when every state's were gathered).

For the seed's rule (:class:`SeedPlayer`) the counters follow from the
faces and the face from the code's remainder by 3, so it follows the
counters, sees which candidate each face was, and guesses the candidate
seen in each of the last two presses (a stuck pin: it predicts every face
from the third), else the candidate seen most often. It has no figure in
use: the seed's counters have no small steady state to start from.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from fairdie.subjects.die import _fair, _rule
from fairdie.subjects.die._models import ERASED, DieModel
from fairdie.subjects.die.lab._chain import POOLS, TABLE_COUNT, Floats, Ints, chain, stationary

__all__ = [
    "LOCK",
    "RESTART_TABLES",
    "FairPlayer",
    "Player",
    "SeedPlayer",
    "guess_hits",
    "informed_player",
]

#: presses a no-fresh-bits set must stay consistent before the player trusts it
LOCK = 10
#: the most tables a no-fresh-bits set restarts at (x 4095 pools)
RESTART_TABLES = 64
_ALL_POOLS = np.arange(1, POOLS + 1, dtype=np.int64)


class Player(Protocol):
    def predict(self) -> int:
        """The face (0..5) it guesses comes next."""
        ...

    def see(self, face: int) -> None:
        """Take in the face (0..5) that came."""
        ...


def informed_player(model: DieModel | str, *, in_use: bool = False) -> Player:
    """The firmware-aware player of a die whose reference model is ``model``:
    from an erased chip, or (``in_use``) for a die met in use. Raises
    ValueError for a model it does not know, and for the seed's rule in use."""
    name = model if isinstance(model, str) else model.name
    if name == "fair":
        if in_use:
            return FairPlayer()
        table, pool = _fair.unpack(_fair.canonical(_start(model, "fair")))
        return FairPlayer(table, pool)
    if name == "seed":
        if in_use:
            raise ValueError("the seed's rule has no steady state to meet it in")
        return SeedPlayer(_start(model, "seed")[:6])
    raise ValueError(f"no firmware-aware player for die model {name!r} (known: fair, seed)")


def _start(model: DieModel | str, name: str) -> bytes:
    """The state an erased chip holds, as the model reads it."""
    if isinstance(model, str):
        from fairdie.subjects.die._models import model_named

        model = model_named(name)
    return model.state(ERASED)


@functools.cache
def _rows() -> tuple[list[list[int]], list[list[float]], list[int]]:
    """The chain's next tables, chances and likeliest faces as lists (a point
    belief steps through them faster than through arrays)."""
    c = chain()
    return c.next.tolist(), c.probs.tolist(), c.probs.argmax(axis=1).tolist()


class FairPlayer:
    """The firmware-aware player of the fair rule (see the module). Without
    a start it meets the die in use: the table from the steady state, any pool."""

    def __init__(self, table: int | None = None, pool: int | None = None) -> None:
        c = self._c = chain()
        self._next, self._probs, self._best = _rows()
        # the table belief: a point (the table's number), else mass over a support
        self._point: int | None = None
        self._support: Ints = np.zeros(0, np.int64)
        self._mass: Floats = np.zeros(0)
        # the no-fresh-bits set: its pools, and its tables (one for all, or one each)
        self._pools: Ints
        self._table: int | Ints
        self._age = 0
        # a set just restarted at several tables: those tables, each with every pool
        self._fresh: Ints | None = None
        self._faces: npt.NDArray[np.integer[Any]] | None = None  # the set's faces
        if table is None:
            self._meet()
        else:
            self._point = c.number(table)
            if pool is None:
                self._restart()
            else:
                self._table, self._pools = self._point, np.array([pool or 1], np.int64)
                self._age = LOCK  # a known state: no guess to confirm

    @property
    def consistent(self) -> int:
        """The (table, pool) states left in the no-fresh-bits set."""
        return len(self._pools) if self._fresh is None else len(self._fresh) * POOLS

    def _meet(self) -> None:
        """Know nothing of the state: the steady state's tables, every pool."""
        pi = stationary()
        self._point = None
        self._support = np.flatnonzero(pi)
        self._mass = pi[self._support]
        self._restart()

    def _restart(self) -> None:
        self._pools, self._fresh = _ALL_POOLS, None
        if self._point is not None:
            self._table = self._point
        else:  # every pool at each table, table by table (whole rows of the chain)
            order = np.argsort(-self._mass, kind="stable")[:RESTART_TABLES]
            self._fresh = self._table = self._support[order]
        self._age = 0

    def _roll(self) -> npt.NDArray[np.integer[Any]]:
        """The faces the set's states show (their pools after: :meth:`see`,
        for the states that match alone)."""
        if self._faces is None:
            c, t, pools = self._c, self._table, self._pools
            if self._fresh is not None:  # whole rows
                self._faces = c.quiet_faces[self._fresh, 1:].ravel()
            elif isinstance(t, int):  # one table: plain gathers
                self._faces = c.face_of[t][c.quiet_r[c.total_row[t]][pools]]
            else:  # Chain.roll_quiet, by its table of faces
                self._faces = c.quiet_faces[t, pools]
        return self._faces

    def predict(self) -> int:
        if self._age >= LOCK and self.consistent:
            faces = self._roll()
            return int(np.bincount(faces, minlength=6).argmax())
        if self._point is not None:
            return self._best[self._point]
        return int((self._mass @ self._c.probs[self._support]).argmax())

    def see(self, face: int) -> None:
        self._see_table(face)
        faces = self._roll()
        self._faces = None
        match = faces == face
        if not match.any():
            self._restart()
            return
        # two pools may come to one state: it stays twice, as the two starts
        # it stands for (the vote weighs each start alike); the pools after
        # are gathered for the states that match only
        c, t = self._c, self._table
        if self._fresh is not None:
            kept = np.flatnonzero(match)
            tables = self._fresh[kept // POOLS]
            self._pools = c.quiet_pool[c.total_row[tables], kept % POOLS + 1]
            self._table, self._fresh = c.next[tables, face], None
        elif isinstance(t, int):
            self._pools = c.quiet_pool[c.total_row[t]][self._pools[match]]
            self._table = self._next[t][face]
        else:
            tables = t[match]
            self._pools = c.quiet_pool[c.total_row[tables], self._pools[match]]
            self._table = c.next[tables, face]
        self._age += 1

    def _see_table(self, face: int) -> None:
        """Move the table belief by Bayes, for ideal noise."""
        if self._point is not None:
            if self._probs[self._point][face] > 0:
                self._point = self._next[self._point][face]
            else:  # not this rule's face: the player was wrong about the state
                self._meet()
            return
        likely = self._mass * self._c.probs[self._support, face]
        seen = likely > 0
        if not seen.any():
            self._meet()
            return
        after = self._c.next[self._support[seen], face]
        # each table's mass summed in the order np.unique's inverse would sum it
        support = np.flatnonzero(np.bincount(after, minlength=TABLE_COUNT))
        mass = np.bincount(after, likely[seen], TABLE_COUNT)[support]
        if len(support) == 1:
            self._point = int(support[0])
        self._support, self._mass = support, mass / mass.sum()


class SeedPlayer:
    """The firmware-aware player of the seed's rule (see the module)."""

    def __init__(self, counts: Sequence[int]) -> None:
        self._counts = tuple(counts)
        self._seen = [0, 0, 0]  # how often each candidate showed
        self._last: list[int] = []  # the candidates of the last two presses

    def predict(self) -> int:
        if len(self._last) == 2 and self._last[0] == self._last[1]:
            pick = self._last[0]
        else:
            pick = max(range(3), key=lambda i: (self._seen[i], -i))
        return _rule.candidates(self._counts)[pick] - 1

    def see(self, face: int) -> None:
        candidates = _rule.candidates(self._counts)
        if face + 1 in candidates:
            pick = candidates.index(face + 1)
            self._seen[pick] += 1
            self._last = [*self._last[-1:], pick]
        else:  # not the rule's: forget the run
            self._last = []
        c = self._counts
        if c[face] == _rule.MAX_COUNT:
            c = _rule.rebase(c)
        self._counts = tuple(v + (i == face) for i, v in enumerate(c))


def guess_hits(player: Player, faces: Sequence[int]) -> list[bool]:
    """Whether ``player`` guessed each of ``faces`` (0..5), press by press."""
    hits = []
    for f in faces:
        hits.append(player.predict() == f)
        player.see(f)
    return hits
