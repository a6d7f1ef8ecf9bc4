/*
 * store.c: the ring of records (see store.h).
 *
 * EEPROM bytes 0..59 hold 12 slots of 5 bytes; 60..63 are unused.
 *   byte 0  seq: the lap (0..7) in bits 4..6, the slot's number in bits 0..3
 *   byte 1  table bits 0..7
 *   byte 2  table bits 8..11 in bits 0..3, pool bits 8..11 in bits 4..7
 *   byte 3  pool bits 0..7
 *   byte 4  marker: bits 0..6 the XOR of bytes 0..3 and 0x5B, bit 7 the
 *           lap's parity
 * A slot is valid when its seq names the slot and a lap 0..7 and its marker
 * matches. A record's place is lap * 12 + slot, modulo 96; the newest valid
 * record (1..47 places ahead of the others) holds the state. (Comparing
 * seqs as 7-bit numbers, 1..63 ahead, is the same test.)
 *
 * A record is written seq first, marker last, into the slot after the
 * newest, with a lap whose parity differs from bit 7 of the marker that the
 * slot holds. So a power cut, whatever value it leaves in the byte being
 * written, leaves the state before the write or after it:
 * - while the data is written, the slot cannot pass (wrong parity);
 * - a torn seq passes only as the slot's old record (the XOR is one-to-one
 *   in a 7-bit seq), which is older than the newest;
 * - a torn marker passes only as the new record.
 */
#include "store.h"

#include <avr/eeprom.h>

#include "fair.h"

#define MARKER_KEY 0x5B /* neither an erased nor a zeroed slot is valid */
#define FRESH_SEQ ((STORE_LAPS - 1) << 4 | (STORE_SLOTS - 1)) /* the next: lap 0, slot 0 */

uint8_t store_record[STORE_RECORD];

static uint8_t marker(const uint8_t r[STORE_RECORD]) {
    return (uint8_t)(((r[0] ^ r[1] ^ r[2] ^ r[3] ^ MARKER_KEY) & 0x7F) | (r[0] & 0x10) << 3);
}

void store_load(void) {
    uint8_t *rec = store_record;
    rec[0] = FRESH_SEQ; /* a fresh table (0) and pool (0: 1) */
    rec[1] = rec[2] = rec[3] = 0;
    uint8_t found = 0;
    uint8_t r[STORE_RECORD];
    uint8_t at = 0;
    for (uint8_t slot = 0; slot < STORE_SLOTS; slot++) {
        for (uint8_t i = 0; i < STORE_RECORD; i++) {
            r[i] = eeprom_read_byte((const uint8_t *)(uintptr_t)at++);
        }
        /* valid, and newer: 1..63 ahead as 7-bit seqs (lap << 4 | slot) is
         * 1..47 places ahead */
        if ((r[0] & 0x8F) != slot || r[4] != marker(r) ||
            (found && (uint8_t)(((r[0] - rec[0]) & 0x7F) - 1) >= 63)) {
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
    uint8_t seq = rec[0] + 1;
    if ((seq & 0x0F) == STORE_SLOTS) {
        seq += 16 - STORE_SLOTS; /* the next lap's slot 0 */
    }
    uint8_t slot = seq & 0x0F;
    uint8_t *at = (uint8_t *)(uintptr_t)((uint8_t)(slot << 2) + slot);
    if (!((eeprom_read_byte(at + 4) ^ seq << 3) & 0x80)) {
        seq += 16; /* the lap's parity must differ from the marker's in the slot */
    }
    rec[0] = seq & 0x7F;
    rec[4] = marker(rec);
    for (uint8_t i = 0; i < STORE_RECORD; i++) {
        eeprom_update_byte(at + i, rec[i]);
    }
    eeprom_busy_wait();
}
