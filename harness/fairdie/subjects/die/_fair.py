"""Reference model of the die's press, bit for bit as firmware/die_t13a/fair.S.

The state the die keeps is three bytes ``d``: a table of six 2-bit offsets
(each face's count above the least-counted face, 0..3; face 1 in bits 0..1)
in ``d[0]`` and the low nibble of ``d[1]``, and a 12-bit LFSR pool in the high
nibble of ``d[1]`` and ``d[2]``. A press:

1. samples the floating pin (:func:`sample`): at least :data:`WINDOW` ADC
   codes, then pairs until it holds :data:`FRESH_BITS` unbiased bits (von
   Neumann over the codes' low bits: 01 gives 0, 10 gives 1), at most
   :data:`MOST_READS`, under the health tests of NIST SP 800-90B 4.4 on the
   raw codes (a repetition count and an adaptive proportion test). A failed
   test rolls nothing and stores nothing: the die shows its fault pattern;
2. unpacks the state (a pool of 0 becomes 1) and normalises the table
   (while no offset is 0, every offset drops by 1);
3. draws ``r`` uniformly below the total weight (8, 3, 1, 0 for offsets 0..3)
   by rejection from bits that are the pool's LFSR output XOR the fresh bits
   while they last (each fresh bit also enters the pool);
4. shows the face whose weight interval holds ``r``; its offset goes up and
   the table is normalised again.

The cut-offs, and the false-alarm rates they were chosen for, are in
``fair.h``; the figures measured against them are in the README.
Pure functions on ints and tuples; faces are numbered 1..6 here.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "APT_CUTOFF",
    "FRESH_BITS",
    "MOST_READS",
    "RCT_CUTOFF",
    "WEIGHTS",
    "WINDOW",
    "FairState",
    "Sample",
    "advance",
    "canonical",
    "offsets",
    "pack",
    "press",
    "probabilities",
    "roll",
    "sample",
    "sampled",
    "unpack",
]

WINDOW = 64  #: the fewest conversions a press makes: the proportion test's window
MOST_READS = 256  #: the most conversions a press makes
FRESH_BITS = 16  #: the fresh unbiased bits a roll needs
RCT_CUTOFF = 39  #: this many equal codes in a row fail the repetition count test
APT_CUTOFF = 56  #: this many of the first WINDOW codes equal to the first fail
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
    return _OFFSETS[table & 0xFFF]


#: each 12-bit table's offsets, made once (the model asks at every press)
_OFFSETS = tuple(tuple((t >> (2 * f)) & 3 for f in range(6)) for t in range(1 << 12))


def _normalise(table: int) -> int:
    # every offset above 0 (each face's two bits not both 0): all down by one
    while (table | table >> 1) & _ONES == _ONES:
        table -= _ONES
    return table


def advance(table: int, face: int) -> int:
    """The table after ``face`` (1..6) shows: its offset up, normalised."""
    return _normalise(_normalise(table & 0xFFF) + (1 << (2 * (face - 1))))


@dataclass(frozen=True, slots=True)
class Sample:
    """What a press's sampling found."""

    reads: int  #: the codes it converted
    noise: int | None  #: its FRESH_BITS fresh bits, the newest in bit 0 (None: failed)
    #: the test that failed: "repetition", "proportion" or "fresh bits" (None: healthy)
    failure: str | None


def sample(codes: Iterable[int]) -> Sample:
    """Sample as the firmware does, reading codes from ``codes`` one by one
    (it stops reading where the firmware stops converting). Raises
    ValueError if ``codes`` ends before the firmware would."""
    noise = bits = run = count = 0
    prev = first = -1
    it = iter(codes)
    for i in range(MOST_READS):
        try:
            code = next(it) & 0x3FF
        except StopIteration:
            raise ValueError(
                f"a press converts up to {MOST_READS} codes; these ended at {i}"
            ) from None
        if i & 1 and (code ^ prev) & 1:
            noise = ((noise << 1) | (prev & 1)) & 0xFFFF
            bits += 1
        run = run + 1 if code == prev else 0
        prev = code
        if run == RCT_CUTOFF - 1:
            return Sample(i + 1, None, "repetition")
        if i == 0:
            first = code
        if i < WINDOW and code == first:
            count += 1
            if count == APT_CUTOFF:
                return Sample(i + 1, None, "proportion")
        if i & 1 and i >= WINDOW - 1 and bits >= FRESH_BITS:
            return Sample(i + 1, noise, None)
    return Sample(MOST_READS, None, "fresh bits")


def probabilities(table: int) -> tuple[float, ...]:
    """The chance of each face (1..6 as index 0..5) for ideal noise."""
    w = [WEIGHTS[o] for o in offsets(_normalise(table & 0xFFF))]
    total = sum(w)
    return tuple(x / total for x in w)


@functools.lru_cache(maxsize=256)
def _sample_of(codes: tuple[int, ...]) -> Sample:
    return sample(codes)


def sampled(codes: Iterable[int]) -> Sample:
    """:func:`sample`, remembered for the last few tuples of codes (the
    campaigns ask the model of the same press's codes several times)."""
    return _sample_of(codes) if isinstance(codes, tuple) else sample(codes)


def press(d: Sequence[int], codes: Iterable[int]) -> tuple[int | None, bytes]:
    """One press: ``(face 1..6, new stored bytes)`` as the firmware computes
    them; ``(None, the bytes as they were)`` when the noise fails its health
    tests."""
    s = sampled(codes)
    if s.noise is None:
        return None, bytes(d[:3])
    return roll(d, s.noise)


def roll(d: Sequence[int], noise: int) -> tuple[int, bytes]:
    """The rule: ``(face 1..6, new stored bytes)`` from the stored bytes and
    the press's FRESH_BITS fresh bits."""
    table, pool = unpack(d)
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
            v = noise & 1
            noise >>= 1
            if v:
                out ^= 1
                pool = (pool ^ 1) or 1
            r = (r << 1) | out
        if r < total:
            break
    face = 0
    while r >= weights[face]:
        r -= weights[face]
        face += 1
    return face + 1, pack((advance(table, face + 1), pool))
