"""Reference model of the fair-die rule, matching firmware/die_t13a/rule.c.

Six counters, one per face (index 0 is face 1), each 0..255, kept in EEPROM.
A press:

1. sorts the faces by (count, face number) ascending and takes the 1st, 3rd
   and 5th as candidates;
2. picks candidate ``adc_code % 3`` (``adc_code`` is the 10-bit ADC result);
3. if the chosen face's counter is 255, rebases the table first: when the
   smallest counter ``m`` is above 0, subtracts ``m`` from every counter;
   otherwise finds the largest value ``g`` in 0..254 that no counter holds and
   decrements every counter above ``g``. Either way the order of the faces,
   ties included, is unchanged and no counter goes below 0;
4. increments the chosen face's counter.

Pure functions: tuples in, tuples out. Faces are numbered 1..6 here; the
firmware's ``die_roll`` returns the index 0..5.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CLEARED",
    "FACES",
    "MAX_COUNT",
    "Counts",
    "candidates",
    "choose",
    "press",
    "rebase",
]

FACES = 6
MAX_COUNT = 255
MAX_CODE = 1023

Counts = tuple[int, int, int, int, int, int]

#: The table after a clear (and in a fresh chip's EEPROM once initialised).
CLEARED: Counts = (0, 0, 0, 0, 0, 0)


def _check_counts(counts: Sequence[int]) -> Counts:
    if isinstance(counts, str) or len(counts) != FACES:
        raise ValueError(f"counts must be {FACES} integers, got {counts!r}")
    for c in counts:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= MAX_COUNT:
            raise ValueError(f"counts must be integers 0..{MAX_COUNT}, got {list(counts)}")
    a, b, c, d, e, f = counts
    return (a, b, c, d, e, f)


def _check_code(adc_code: int) -> int:
    if isinstance(adc_code, bool) or not isinstance(adc_code, int):
        raise ValueError(f"adc_code must be an integer, got {adc_code!r}")
    if not 0 <= adc_code <= MAX_CODE:
        raise ValueError(f"adc_code {adc_code} is outside 0..{MAX_CODE}")
    return adc_code


def _order(counts: Counts) -> list[int]:
    """Faces 1..6 sorted by (count, face number): the sort is stable, so
    faces of equal count stay in face order."""
    return [i + 1 for i in sorted(range(FACES), key=counts.__getitem__)]


def _candidates(counts: Counts) -> tuple[int, int, int]:
    order = _order(counts)
    return order[0], order[2], order[4]


def candidates(counts: Sequence[int]) -> tuple[int, int, int]:
    """The 1st, 3rd and 5th face (numbered 1..6) in (count, face) order."""
    return _candidates(_check_counts(counts))


def choose(counts: Sequence[int], adc_code: int) -> int:
    """The face (1..6) a press with this ADC code shows: candidate ``code % 3``."""
    return _candidates(_check_counts(counts))[_check_code(adc_code) % 3]


def rebase(counts: Sequence[int]) -> Counts:
    """Make room below 255 while keeping the faces' order (ties stay ties).

    The firmware calls it only when the chosen counter is 255, but it is
    defined for any table: with ``m = min(counts) > 0`` it subtracts ``m``;
    otherwise it closes the largest gap value ``g`` in 0..254 held by no
    counter by decrementing every counter above ``g`` (a table with no 255
    and no gap cannot exist: six counters cannot hold all of 0..254).
    """
    return _rebase(_check_counts(counts))


def _rebase(c: Counts) -> Counts:
    m = min(c)
    if m > 0:
        a, b, d, e, f, g = (v - m for v in c)
        return (a, b, d, e, f, g)
    held = set(c)
    gap = next(v for v in range(MAX_COUNT - 1, -1, -1) if v not in held)
    a, b, d, e, f, g = (v - 1 if v > gap else v for v in c)
    return (a, b, d, e, f, g)


def press(counts: Sequence[int], adc_code: int) -> tuple[int, Counts]:
    """One press: ``(face, new_counts)`` exactly as the firmware computes them."""
    c = _check_counts(counts)
    face = _candidates(c)[_check_code(adc_code) % 3]  # choose(), the table checked once
    if c[face - 1] == MAX_COUNT:
        c = _rebase(c)
    new = list(c)
    new[face - 1] += 1
    a, b, d, e, f, g = new
    return face, (a, b, d, e, f, g)
