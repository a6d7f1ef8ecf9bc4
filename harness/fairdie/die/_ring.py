"""The fair die's EEPROM: a ring of records, as firmware/die_t13a/store.c.

Bytes 0..59 hold 12 slots of 5 bytes (60..63 are unused):

    byte 0  seq: lap 0..7 in bits 4..6, the slot's number in bits 0..3
    bytes 1..3  the state (fairdie.die._fair: table and pool)
    byte 4  marker: bits 0..6 the XOR of bytes 0..3 and 0x5B, bit 7 the
            lap's parity (bit 4 of seq)

A slot is valid when its seq names it and a lap 0..7 and its marker
matches. The newest valid record (its seq 1..63 ahead, as a 7-bit number,
of the newest found before it in slot order) holds the state; with none the
state is fresh (table 0, pool 1). A save writes the next slot (lap + 1 after
slot 11), one lap further still when the slot's marker has the new lap's
parity, seq byte first and marker last.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["EEPROM_SIZE", "RECORD", "SLOTS", "Stored", "load", "save", "save_writes"]

SLOTS = 12
RECORD = 5
EEPROM_SIZE = 64
_KEY = 0x5B
_FRESH_SEQ = (7 << 4) | (SLOTS - 1)
_FRESH = bytes((0, 0, 0))


@dataclass(frozen=True, slots=True)
class Stored:
    """What an EEPROM image holds: the state bytes and the newest record's seq."""

    state: bytes  #: the three state bytes (fresh: 00 00 00)
    seq: int  #: the newest record's seq (fresh: lap 7, slot 11)
    slot: int | None  #: where it is (None: no valid record)


def _marker(r: Sequence[int]) -> int:
    return ((r[0] ^ r[1] ^ r[2] ^ r[3] ^ _KEY) & 0x7F) | ((r[0] & 0x10) << 3)


def _check(image: bytes) -> None:
    if len(image) < SLOTS * RECORD:
        raise ValueError(f"an EEPROM image needs {SLOTS * RECORD} bytes, got {len(image)}")


def load(image: bytes) -> Stored:
    """Decode an image exactly as the firmware's store_load does."""
    _check(image)
    best: tuple[int, ...] | None = None
    where = None
    for slot in range(SLOTS):
        r = image[slot * RECORD : (slot + 1) * RECORD]
        if (r[0] & 0x8F) != slot or r[4] != _marker(r):
            continue
        if best is not None and not 1 <= ((r[0] - best[0]) & 0x7F) <= 63:
            continue
        best, where = tuple(r), slot
    if best is None:
        return Stored(_FRESH, _FRESH_SEQ, None)
    return Stored(bytes(best[1:4]), best[0], where)


def save_writes(image: bytes, state: bytes) -> list[tuple[int, int]]:
    """The ``(address, value)`` writes a save makes, in order (unchanged bytes
    are skipped, as ``eeprom_update_byte`` does)."""
    _check(image)
    seq = load(image).seq + 1
    if (seq & 0x0F) == SLOTS:
        seq += 16 - SLOTS
    slot = seq & 0x0F
    at = slot * RECORD
    if not ((image[at + 4] ^ (seq << 3)) & 0x80):
        seq += 16
    r = [seq & 0x7F, *state]
    r.append(_marker(r))
    return [(at + i, v) for i, v in enumerate(r) if image[at + i] != v]


def save(image: bytes, state: bytes) -> bytes:
    """The image after a complete save of ``state``."""
    out = bytearray(image)
    for address, value in save_writes(image, state):
        out[address] = value
    return bytes(out)
