"""Reference model of the fair rule, bit for bit as firmware/die_t13a/fair.S.

The state the die keeps is three bytes ``d``: a table of six 2-bit offsets
(each face's count above the least-counted face, 0..3; face 1 in bits 0..1)
in ``d[0]`` and the low nibble of ``d[1]``, and a 12-bit LFSR pool in the high
nibble of ``d[1]`` and ``d[2]``. A press:

1. unpacks them (a pool of 0 becomes 1) and normalises the table (while no
   offset is 0, every offset drops by 1);
2. turns the low bits of the press's 16 ADC conversions into unbiased bits
   (von Neumann over the 8 pairs, first pair first: 01 gives 0, 10 gives 1);
3. draws ``r`` uniformly below the total weight (8, 3, 1, 0 for offsets 0..3)
   by rejection from bits that are the pool's LFSR output XOR the noise bits
   while they last (each noise bit also enters the pool);
4. shows the face whose weight interval holds ``r``; its offset goes up and
   the table is normalised again.

Pure functions on ints and tuples; faces are numbered 1..6 here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = [
    "FAIR_READS",
    "WEIGHTS",
    "FairState",
    "advance",
    "canonical",
    "lsbs_of",
    "offsets",
    "pack",
    "press",
    "probabilities",
    "unpack",
    "von_neumann",
]

FAIR_READS = 16  #: ADC conversions per press
WEIGHTS = (8, 3, 1, 0)  #: a face's weight by its offset 0..3
_TAPS = 0x829  # x^12 + x^11 + x^5 + x^3 + 1, as a Galois LFSR shifting right
_ONES = 0x555

#: (table, pool): 12-bit packed offsets and the 12-bit pool
FairState = tuple[int, int]


def unpack(d: Sequence[int]) -> FairState:
    """The (table, pool) three stored bytes hold; pool 0 reads as 1."""
    table = ((d[1] & 0x0F) << 8) | d[0]
    pool = ((d[1] >> 4) << 8) | d[2]
    return table, pool or 1


def pack(state: FairState) -> bytes:
    table, pool = state
    return bytes((table & 0xFF, (table >> 8) | ((pool >> 8) << 4), pool & 0xFF))


def canonical(d: Sequence[int]) -> bytes:
    """The stored bytes of the same state, normalised (table) and with pool 0
    read as 1: equal for any two states that roll alike from now on."""
    table, pool = unpack(d)
    return pack((_normalise(table), pool))


def offsets(table: int) -> tuple[int, ...]:
    """The six offsets (face 1 first) of a packed table."""
    return tuple((table >> (2 * f)) & 3 for f in range(6))


def _normalise(table: int) -> int:
    while all(o for o in offsets(table)):
        table -= _ONES
    return table


def advance(table: int, face: int) -> int:
    """The table after ``face`` (1..6) shows: its offset up, normalised."""
    return _normalise(_normalise(table & 0xFFF) + (1 << (2 * (face - 1))))


def lsbs_of(codes: Sequence[int]) -> int:
    """The 16-bit word of low bits the firmware builds, first code in bit 15."""
    if len(codes) != FAIR_READS:
        raise ValueError(f"a press converts {FAIR_READS} times, got {len(codes)} codes")
    word = 0
    for c in codes:
        word = (word << 1) | (c & 1)
    return word


def von_neumann(lsbs: int) -> tuple[int, int]:
    """``(noise, left)``: the unbiased bits of a press, the last found in bit 0."""
    noise = left = 0
    for i in range(FAIR_READS // 2):
        first = (lsbs >> (15 - 2 * i)) & 1
        second = (lsbs >> (14 - 2 * i)) & 1
        if first != second:
            noise = ((noise << 1) | first) & 0xFF
            left += 1
    return noise, left


def probabilities(table: int) -> tuple[float, ...]:
    """The chance of each face (1..6 as index 0..5) for ideal noise."""
    w = [WEIGHTS[o] for o in offsets(_normalise(table & 0xFFF))]
    total = sum(w)
    return tuple(x / total for x in w)


def press(d: Sequence[int], codes: Sequence[int]) -> tuple[int, bytes]:
    """One press: ``(face 1..6, new stored bytes)`` as the firmware computes them."""
    table, pool = unpack(d)
    noise, left = von_neumann(lsbs_of(codes))
    table = _normalise(table)
    weights = [WEIGHTS[o] for o in offsets(table)]
    total = sum(weights)
    k = max(1, math.ceil(math.log2(total)))
    while True:
        r = 0
        for _ in range(k):
            out = pool & 1
            pool >>= 1
            if out:
                pool ^= _TAPS
            if left:
                left -= 1
                v = noise & 1
                noise >>= 1
                out ^= v
                pool ^= v
                pool = pool or 1
            r = (r << 1) | out
        if r < total:
            break
    face = 0
    while r >= weights[face]:
        r -= weights[face]
        face += 1
    return face + 1, pack((advance(table, face + 1), pool))
