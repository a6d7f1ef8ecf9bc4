"""The fair die's EEPROM: a ring of records, as firmware/die_t13a/store.S.

Bytes 0..59 hold 10 slots of 6 bytes (60..63 are unused):

    byte 0  seq: bit 7 the phase, lap 0..7 in bits 4..6, the slot's number
            0..9 in bits 0..3
    bytes 1..3  the state (fairdie.subjects.die._fair: table and pool)
    byte 4  check: the XOR of bytes 0..3 and 0x5B
    byte 5  gate: 0xA5 for phase 0, 0x5A for phase 1

A slot is valid when its seq names it, its check matches and its gate is
its phase's. The newest valid record (its seq 1..15 ahead, as a 7-bit
number, of the newest found before it in slot order) holds the state; with
none the state is fresh (table 0, pool 1). A save writes the next slot (lap
+ 1 after slot 9) with phase 0 if the slot's gate is phase 1's, else phase
1, byte by byte in order, skipping bytes that already hold their value.
store.S says why a power cut at any instant leaves the state before or
after the save.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["EEPROM_SIZE", "RECORD", "SLOTS", "Stored", "load", "save", "save_writes"]

SLOTS = 10
RECORD = 6
EEPROM_SIZE = 64
_KEY = 0x5B
_GATES = (0xA5, 0x5A)
_FRESH_SEQ = (7 << 4) | (SLOTS - 1)
_FRESH = bytes((0, 0, 0))


@dataclass(frozen=True, slots=True)
class Stored:
    """What an EEPROM image holds: the state bytes and the newest record's seq."""

    state: bytes  #: the three state bytes (fresh: 00 00 00)
    seq: int  #: the newest record's seq, phase bit included (fresh: lap 7, slot 9)
    slot: int | None  #: where it is (None: no valid record)


def _check(r: Sequence[int]) -> int:
    return r[0] ^ r[1] ^ r[2] ^ r[3] ^ _KEY


def _gate(seq: int) -> int:
    return _GATES[seq >> 7]


def _need(image: bytes) -> None:
    if len(image) < SLOTS * RECORD:
        raise ValueError(f"an EEPROM image needs {SLOTS * RECORD} bytes, got {len(image)}")


def valid(image: bytes, slot: int) -> bool:
    """Whether ``slot`` holds a valid record."""
    r = image[slot * RECORD : (slot + 1) * RECORD]
    return (r[0] & 0x0F) == slot and r[4] == _check(r) and r[5] == _gate(r[0])


def load(image: bytes) -> Stored:
    """Decode an image exactly as the firmware's store_load does."""
    _need(image)
    seq = where = -1
    for slot in range(SLOTS):  # valid(image, slot), inline: a die's every press reads it
        at = slot * RECORD
        s, a, b, c, check, gate = image[at : at + RECORD]
        if (s & 0x0F) != slot or check != s ^ a ^ b ^ c ^ _KEY or gate != _GATES[s >> 7]:
            continue
        if where >= 0 and not 1 <= ((s - seq) & 0x7F) <= 15:
            continue
        seq, where = s, slot
    if where < 0:
        return Stored(_FRESH, _FRESH_SEQ, None)
    at = where * RECORD
    return Stored(bytes(image[at + 1 : at + 4]), seq, where)


def save_writes(image: bytes, state: bytes) -> list[tuple[int, int]]:
    """The ``(address, value)`` writes a save makes, in order (unchanged bytes
    are skipped, as ``eeprom_update_byte`` does)."""
    _need(image)
    seq = (load(image).seq & 0x7F) + 1
    if (seq & 0x0F) == SLOTS:
        seq += 16 - SLOTS
    seq &= 0x7F
    at = (seq & 0x0F) * RECORD
    if image[at + 5] != _GATES[1]:
        seq |= 0x80
    r = [seq, *state]
    r += [_check(r), _gate(seq)]
    return [(at + i, v) for i, v in enumerate(r) if image[at + i] != v]


def save(image: bytes, state: bytes) -> bytes:
    """The image after a complete save of ``state``."""
    out = bytearray(image)
    for address, value in save_writes(image, state):
        out[address] = value
    return bytes(out)
