"""Scaling random bits to 0..m-1, and combining two sources (seeds/destinator-random-scaling.md).

The destinator needs values 0..71 (its outcome 72 is the value 0) from a
stream of random bits. Both methods read k = bit_length(m - 1) bits per
value, most significant bit first:

- :func:`plain_reject` takes whole k-bit chunks and drops those >= m;
- :func:`prefix_reject` (the text's algorithm) abandons a value as soon as
  the bits read so far cannot start a number < m ("11", "101", "1001" for
  m = 72), throws those bits away and continues with the next unread bit.

Both give every value 0..m-1 with the same probability when the bits are fair:
a value is only ever completed by k bits, and each k-bit string below m
completes exactly one value.

Bits per value for m = 72, where the text reports 8.7 (prefix) and 11.5
(plain) from "thousands of bits": the exact means are 9 and 112/9 = 12.444...
(:func:`expected_bits_per_value`); measured on 10**6 seeded bits
(``bits_per_value(method, 72, 10**6, seed=0)``) 9.006 and 12.427. Both of the
text's figures are below the exact means.

:func:`combine` is the text's way to mix two sources: (a + b) mod m.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Literal

__all__ = [
    "Method",
    "bits_per_value",
    "combine",
    "expected_bits_per_value",
    "plain_reject",
    "prefix_reject",
]

Method = Literal["prefix", "plain"]


def _width(m: int) -> int:
    """k: the bits of the largest value m - 1."""
    if isinstance(m, bool) or not isinstance(m, int) or m < 2:
        raise ValueError(f"m must be an integer >= 2, got {m!r}")
    return (m - 1).bit_length()


def _not_a_bit(b: object) -> ValueError:
    return ValueError(f"bits must be 0 or 1, got {b!r}")


def prefix_reject(bits: Iterable[int], m: int) -> Iterator[int]:
    """Values 0..m-1 from ``bits`` by the destinator's prefix rejection.

    Reads bits MSB first into a k-bit value; after each bit, if even the
    smallest completion (the rest zeros) is >= m, the bits read so far are
    dropped and a new value starts at the next bit. Stops when the bits run
    out (an unfinished value is dropped). Lazy: it reads no bit beyond the
    last value it yields until asked for the next.
    """
    k = _width(m)
    it = iter(bits)
    while True:
        value = 0
        for read in range(1, k + 1):
            b = next(it, None)
            if b is None:
                return
            if b == 1:  # the bit's check inline: the loop runs once a bit
                value = value << 1 | 1
            elif b == 0:
                value <<= 1
            else:
                raise _not_a_bit(b)
            if value << (k - read) >= m:
                break
        else:
            yield value


def plain_reject(bits: Iterable[int], m: int) -> Iterator[int]:
    """Values 0..m-1 from ``bits``: whole k-bit chunks (MSB first), dropping those >= m."""
    k = _width(m)
    it = iter(bits)
    while True:
        value = 0
        for _ in range(k):
            b = next(it, None)
            if b is None:
                return
            if b == 1:
                value = value << 1 | 1
            elif b == 0:
                value <<= 1
            else:
                raise _not_a_bit(b)
        if value < m:
            yield value


def combine(a: int, b: int, m: int) -> int:
    """Two values 0..m-1 combined as the destinator does: (a + b) mod m.

    The text works 1-based ("add them together, and rotate around 72": x + y,
    minus 72 if above 72, for x, y in 1..72) and turns its value 0 into 72.
    With x = a, or m when a = 0 (likewise y), the rotation gives exactly
    combine(a, b, m), or m when that is 0. If either input is uniform and
    independent of the other, the result is uniform.
    """
    _width(m)
    for v in (a, b):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < m:
            raise ValueError(f"values must be integers 0..{m - 1}, got {v!r}")
    return (a + b) % m


_METHODS: dict[str, Callable[[Iterable[int], int], Iterator[int]]] = {
    "prefix": prefix_reject,
    "plain": plain_reject,
}


def _method(method: str) -> Callable[[Iterable[int], int], Iterator[int]]:
    try:
        return _METHODS[method]
    except KeyError:
        raise ValueError(f"method must be 'prefix' or 'plain', got {method!r}") from None


def expected_bits_per_value(method: Method, m: int) -> Fraction:
    """The exact mean number of fair bits consumed per value.

    Every attempt at a value is independent and succeeds with probability
    q = m / 2**k, so the mean is E[bits per attempt] / q. Plain: every attempt
    reads k bits, k * 2**k / m. Prefix: the attempt reads bit j + 1 when its
    first j bits can still start a value < m, which ceil(m / 2**(k - j)) of
    the 2**j prefixes can.
    """
    _method(method)
    k = _width(m)
    q = Fraction(m, 2**k)
    if method == "plain":
        return k / q
    reads = sum(Fraction(-(-m // 2 ** (k - j)), 2**j) for j in range(k))
    return reads / q


_BITS = bytes.maketrans(b"01", b"\x00\x01")


def bits_per_value(method: Method, m: int, nbits: int, seed: int) -> float:
    """Measured bits per value: ``nbits`` bits of ``random.Random(seed).getrandbits``.

    The bits (MSB first of the one ``nbits``-bit number) go through ``method``;
    the result is the bits consumed up to the last completed value divided by
    the number of values (the unused tail is not counted).
    """
    scale = _method(method)
    if isinstance(nbits, bool) or not isinstance(nbits, int) or nbits < 1:
        raise ValueError(f"nbits must be an integer >= 1, got {nbits!r}")
    stream = format(random.Random(seed).getrandbits(nbits), f"0{nbits}b")
    # the bits as bytes 0 and 1; what the iterator has left tells what was read
    bits = iter(stream.encode("ascii").translate(_BITS))
    values = 0
    used = 0
    for _ in scale(bits, m):
        values += 1
        used = nbits - operator.length_hint(bits)
    if values == 0:
        raise ValueError(f"{nbits} bits gave no value for m = {m}")
    return used / values
