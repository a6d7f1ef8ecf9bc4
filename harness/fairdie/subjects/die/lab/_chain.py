"""The fair rule (fairdie.subjects.die._fair) as arrays, for players who know it.

The table part of the die's state is one of :data:`TABLE_COUNT` canonical
tables: six offsets 0..3 with at least one 0 (``4**6 - 3**6``). :func:`chain`
precomputes, per table, the rule's weights (8, 3, 1, 0 by offset), each
face's chance for ideal noise and the table after each face, and
:func:`stationary` the steady state of the table chain: the distribution of
the table of a die that has been in use for a long time.

:func:`roll_many` is :func:`_fair.roll` over arrays of states at once, bit
for bit; :meth:`Chain.roll_quiet` is the same for noise that gave no fresh
bits (a deterministic die), by table lookup.

Tables are numbered 0..3366 by their packed value (``Chain.tables``);
faces are 0..5 here, as in the lab.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fairdie.subjects.die import _fair

__all__ = ["POOLS", "TABLE_COUNT", "Chain", "chain", "roll_many", "stationary"]

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

TABLE_COUNT = 4**6 - 3**6  #: canonical tables: offsets 0..3, at least one 0
POOLS = 4095  #: the pool's states: 12-bit, 0 reads as 1
_FACES = 6
_TAPS = 0x829  # as _fair._TAPS
_MOST_BITS = 6  # the most bits one draw takes: the largest total weight is 48


@dataclass(frozen=True, eq=False)
class Chain:
    """The rule's tables and their transitions (see the module)."""

    tables: Ints  #: packed canonical tables, ascending
    index: Ints  #: packed 12-bit table -> its number (-1: not canonical)
    weights: Ints  #: [table, face] the rule's weight
    totals: Ints  #: [table] the total weight
    probs: Floats  #: [table, face] the chance for ideal noise
    #: [table, face] the table after that face shows (itself for a face of
    #: weight 0, which cannot show)
    next: Ints
    #: noise 0: [total's row, pool] -> the r drawn and the pool after
    quiet_r: Ints
    quiet_pool: Ints
    total_row: Ints  #: [table] its total's row in quiet_r and quiet_pool
    face_of: Ints  #: [table, r] the face r falls on (r below the total)

    @functools.cached_property
    def quiet_faces(self) -> npt.NDArray[np.int8]:
        """[table, pool] the face a press with no fresh bits shows: ``face_of``
        of the r drawn from ``quiet_r`` (a restart's sets are whole rows)."""
        out = np.empty((TABLE_COUNT, self.quiet_r.shape[1]), np.int8)
        for row in range(len(self.quiet_r)):
            tables = np.flatnonzero(self.total_row == row)
            out[tables] = self.face_of[tables][:, self.quiet_r[row]]
        return out

    def number(self, packed: int) -> int:
        """The number of a packed table (normalised first, as the rule does)."""
        return int(self.index[_normal(packed)])

    def roll_quiet(self, tables: Ints, pools: Ints) -> tuple[Ints, Ints]:
        """``(faces, pools after)`` of a press whose noise gave no fresh bits,
        from table numbers ``tables`` and pools ``pools`` (1..4095); the
        tables after are ``next[tables, faces]``."""
        row = self.total_row[tables]
        r = self.quiet_r[row, pools]
        return self.face_of[tables, r], self.quiet_pool[row, pools]


def _normal(packed: int) -> int:
    table = packed & 0xFFF
    while all((table >> (2 * f)) & 3 for f in range(_FACES)):
        table -= 0x555
    return table


@functools.cache
def chain() -> Chain:
    """The fair rule's chain, computed once (about 0.1 s)."""
    packed = np.arange(1 << 12, dtype=np.int64)
    offs = (packed[:, None] >> (2 * np.arange(_FACES))) & 3
    tables = packed[(offs == 0).any(axis=1)]
    assert len(tables) == TABLE_COUNT
    index = np.full(1 << 12, -1, dtype=np.int64)
    index[tables] = np.arange(TABLE_COUNT)
    offsets = (tables[:, None] >> (2 * np.arange(_FACES))) & 3
    weights = np.asarray(_fair.WEIGHTS, dtype=np.int64)[offsets]
    totals = weights.sum(axis=1)
    nxt = _next_tables(offsets, weights, index)
    cumulative = np.cumsum(weights, axis=1)
    r = np.arange(int(totals.max()))
    face_of = (cumulative[:, None, :] <= r[None, :, None]).sum(axis=2)
    distinct, total_row = np.unique(totals, return_inverse=True)
    quiet_r = np.zeros((len(distinct), 1 << 12), dtype=np.int64)
    quiet_pool = np.zeros_like(quiet_r)
    pools = np.arange(1 << 12, dtype=np.int64)
    for row, total in enumerate(distinct):
        quiet_r[row], quiet_pool[row] = _draw(
            np.full_like(pools, total), pools, np.zeros_like(pools)
        )
    return Chain(
        tables=tables,
        index=index,
        weights=weights,
        totals=totals,
        probs=weights / totals[:, None],
        next=nxt,
        quiet_r=quiet_r,
        quiet_pool=quiet_pool,
        total_row=total_row.astype(np.int64),
        face_of=face_of,
    )


def _next_tables(offsets: Ints, weights: Ints, index: Ints) -> Ints:
    """[table, face] the table after the face shows, as :func:`_fair.advance`:
    the face's offset up by one, then every offset down by their least (what
    the rule's normalising does one step at a time); a face of weight 0
    cannot show and leaves the table as it was."""
    shifts = 2 * np.arange(_FACES)
    own = np.arange(len(offsets))
    out = np.empty_like(weights)
    for f in range(_FACES):
        up = offsets.copy()
        up[:, f] += 1
        up -= up.min(axis=1, keepdims=True)
        shows = weights[:, f] > 0
        packed = np.where(shows, (up << shifts).sum(axis=1), 0)
        out[:, f] = np.where(shows, index[packed], own)
    return out


@functools.cache
def _passes() -> tuple[Ints, Ints]:
    """``(r, pool after)`` of one pass of the rule's draw, by ``[k, pool,
    noise]``: k bits drawn (0..6) from a pool (0..4095) fed the low k bits
    of ``noise`` (0..63), as the loop in :func:`_fair.roll`; for every pool
    and noise at once (a pass of :func:`_draw` is then a lookup)."""
    span = 1 << _MOST_BITS
    pool = np.repeat(np.arange(1 << 12, dtype=np.int64), span)
    noise = np.tile(np.arange(span, dtype=np.int64), 1 << 12)
    r = np.zeros_like(pool)
    rs, pools = [r.copy()], [pool.copy()]
    for _ in range(_MOST_BITS):
        out = pool & 1
        stepped = (pool >> 1) ^ np.where(out == 1, _TAPS, 0)
        v = noise & 1
        out ^= v
        fed = stepped ^ 1
        pool = np.where(v == 1, np.where(fed == 0, 1, fed), stepped)
        noise = noise >> 1
        r = (r << 1) | out
        rs.append(r)
        pools.append(pool)
    shape = (_MOST_BITS + 1, 1 << 12, span)
    return np.stack(rs).reshape(shape), np.stack(pools).reshape(shape)


def _draw(totals: Ints, pools: Ints, noise: Ints) -> tuple[Ints, Ints]:
    """The rule's draw of r below ``totals`` by rejection, over arrays:
    ``(r, pools after)``, as the loop in :func:`_fair.roll` (a pass at a
    time, by :func:`_passes`, for the draws not yet below their total)."""
    pass_r, pass_pool = _passes()
    pool = np.where(pools == 0, 1, pools & 0xFFF)
    noise = noise.copy()
    bits = np.maximum(1, np.ceil(np.log2(totals)).astype(np.int64))
    r = np.zeros_like(pool)
    todo = np.arange(len(pool))
    while len(todo):
        k, at, fed = bits[todo], pool[todo], noise[todo] & ((1 << _MOST_BITS) - 1)
        drawn = pass_r[k, at, fed]
        r[todo], pool[todo] = drawn, pass_pool[k, at, fed]
        noise[todo] >>= k
        todo = todo[drawn >= totals[todo]]
    return r, pool


def roll_many(tables: Ints, pools: Ints, noise: Ints) -> tuple[Ints, Ints, Ints]:
    """:func:`_fair.roll` over arrays: from table numbers, pools (0 reads as
    1) and each press's FRESH_BITS fresh bits, ``(faces 0..5, tables after,
    pools after)``."""
    c = chain()
    r, pool = _draw(c.totals[tables], pools, noise)
    faces = c.face_of[tables, r]
    return faces, c.next[tables, faces], pool


@functools.cache
def _stationary() -> Floats:
    c = chain()
    pi = np.zeros(TABLE_COUNT)
    pi[c.index[0]] = 1.0
    flat_next = c.next.ravel()
    for _ in range(100_000):
        # the lazy chain (stay put half the time) has the same steady state and,
        # unlike the rule's own chain (period 6: the offsets' sum grows by 1 a
        # press, mod 6), converges to it
        moved = np.bincount(flat_next, (pi[:, None] * c.probs).ravel(), TABLE_COUNT)
        new: Floats = 0.5 * (pi + moved)
        if np.abs(new - pi).sum() < 1e-15:
            result: Floats = new / new.sum()
            return result
        pi = new
    raise AssertionError("the table chain's steady state did not converge")


def stationary() -> Floats:
    """The steady state of the table chain for ideal noise: the chance of
    each table (by number) in a die met at a random moment of long use.
    Computed over every table, iterated until a step moves it by less than
    1e-15 in total (what a step of the rule then moves it by, measured: about
    1e-17 at most per table); a copy."""
    return _stationary().copy()
