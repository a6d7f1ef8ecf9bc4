"""The ring's load (fairdie.subjects.die._ring) decodes an image as its
definition says: the newest valid record, slot by slot, a record 1..15 ahead
of the newest found before it (the firmware's store_load is checked against
it in the die's suite)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fairdie.subjects.die import _ring


def defined_load(image: bytes) -> _ring.Stored:
    """The module docstring's rule, written plainly with ``valid``."""
    best: bytes | None = None
    where = None
    for slot in range(_ring.SLOTS):
        r = image[slot * _ring.RECORD : (slot + 1) * _ring.RECORD]
        if not _ring.valid(image, slot):
            continue
        if best is not None and not 1 <= ((r[0] - best[0]) & 0x7F) <= 15:
            continue
        best, where = r, slot
    if best is None:
        return _ring.Stored(bytes(3), (7 << 4) | (_ring.SLOTS - 1), None)
    return _ring.Stored(bytes(best[1:4]), best[0], where)


states = st.binary(min_size=3, max_size=3)


@given(st.lists(states, max_size=30), st.binary(min_size=64, max_size=64))
def test_load_decodes_as_defined_after_saves_on_any_image(saves: list[bytes], start: bytes) -> None:
    image = start
    for state in saves:
        image = _ring.save(image, state)
        assert _ring.load(image) == defined_load(image)
    assert _ring.load(start) == defined_load(start)


@given(st.binary(min_size=60, max_size=64), st.integers(0, 59), st.integers(0, 255))
def test_load_skips_a_broken_record_as_the_definition_does(
    image: bytes, at: int, value: int
) -> None:
    saved = _ring.save(_ring.save(image, b"\x01\x02\x03"), b"\x04\x05\x06")
    broken = saved[:at] + bytes([value]) + saved[at + 1 :]
    assert _ring.load(broken) == defined_load(broken)
