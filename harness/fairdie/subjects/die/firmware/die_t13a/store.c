/*
 * store.c: the ring of records (see store.h).
 *
 * EEPROM bytes 0..59 hold 10 slots of 6 bytes; 60..63 are unused.
 *   byte 0  seq: bit 7 the record's phase, the lap (0..7) in bits 4..6,
 *           the slot's number (0..9) in bits 0..3
 *   byte 1  table bits 0..7
 *   byte 2  table bits 8..11 in bits 0..3, pool bits 8..11 in bits 4..7
 *   byte 3  pool bits 0..7
 *   byte 4  check: the XOR of bytes 0..3 and 0x5B
 *   byte 5  gate: 0xA5 for phase 0, 0x5A for phase 1
 * A slot is valid when its seq names the slot, its check matches and its
 * gate is its phase's. A record's place is lap * 10 + slot, modulo 80; the
 * newest valid record holds the state: the scan in slot order keeps a record
 * 1..15 ahead of the one kept before it, as 7-bit seqs. The records a ring
 * of saves holds are at most 9 places apart, 15 as seqs (a lap boundary
 * skips 6), so the scan finds the newest; a wider window would take records
 * left from laps ago, in any other bytes, for newer ones, and a save could
 * then never become the newest.
 *
 * A save writes the slot after the newest, each byte at most once, in
 * order, with the phase opposite to the gate the slot holds. So a power
 * cut, whatever value it leaves in the byte being written, leaves the state
 * before the save or after it:
 * - a torn seq passes only as the slot's old record: the gate is the old
 *   phase's, and the check, one-to-one in the seq, names the old seq;
 * - while the state and the check are written, the seq's phase and the
 *   gate disagree, so no value of theirs passes;
 * - only the last write, the gate, can make the slot pass, and only with
 *   every other byte already new.
 * A gate is written only as a save's last byte, so a gate that names a
 * phase always sits on bytes 1..4 of the record it completed, or on the
 * half-written bytes of a save whose seq already has the other phase: a
 * later save with the same seq rewrites only what differs, still invalid.
 * (A check and a phase bit in one byte would not do: a torn marker could
 * name the new phase with a wrong check, and then a torn seq or byte of the
 * next save could match it.)
 */
#include "store.h"

#include <avr/eeprom.h>

#define CHECK_KEY 0x5B /* neither an erased nor a zeroed slot is valid */
#define GATE_0 0xA5
#define GATE_1 0x5A
#define FRESH_SEQ ((STORE_LAPS - 1) << 4 | (STORE_SLOTS - 1)) /* the next: lap 0, slot 0 */

uint8_t store_record[STORE_RECORD];

static uint8_t check(const uint8_t r[STORE_RECORD]) {
    return r[0] ^ r[1] ^ r[2] ^ r[3] ^ CHECK_KEY;
}

static uint8_t gate(uint8_t seq) { return (seq & 0x80) ? GATE_1 : GATE_0; }

static uint8_t *slot_at(uint8_t slot) {
    return (uint8_t *)(uintptr_t)(uint8_t)((slot << 2) + (slot << 1));
}

void store_load(void) {
    uint8_t *rec = store_record;
    rec[0] = FRESH_SEQ; /* a fresh table (0) and pool (0: 1) */
    rec[1] = rec[2] = rec[3] = 0;
    uint8_t found = 0;
    uint8_t r[STORE_RECORD];
    for (uint8_t slot = 0; slot < STORE_SLOTS; slot++) {
        eeprom_read_block(r, slot_at(slot), STORE_RECORD);
        /* valid, and newer: 1..15 ahead as 7-bit seqs (lap << 4 | slot) */
        if ((r[0] & 0x0F) != slot || r[4] != check(r) || r[5] != gate(r[0]) ||
            (found && (uint8_t)(((r[0] - rec[0]) & 0x7F) - 1) >= 15)) {
            continue;
        }
        found = 1;
        for (uint8_t i = 0; i < STORE_RECORD; i++) {
            rec[i] = r[i];
        }
    }
}

void store_save(void) {
    uint8_t *rec = store_record;
    uint8_t seq = (rec[0] & 0x7F) + 1;
    if ((seq & 0x0F) == STORE_SLOTS) {
        seq += 16 - STORE_SLOTS; /* the next lap's slot 0 */
    }
    seq &= 0x7F;
    uint8_t *at = slot_at(seq & 0x0F);
    if (eeprom_read_byte(at + 5) != GATE_1) {
        seq |= 0x80; /* phase 1 unless the slot's gate is phase 1's */
    }
    rec[0] = seq;
    rec[4] = check(rec);
    rec[5] = gate(seq);
    for (uint8_t i = 0; i < STORE_RECORD; i++) {
        eeprom_update_byte(at + i, rec[i]);
    }
    eeprom_busy_wait();
}
