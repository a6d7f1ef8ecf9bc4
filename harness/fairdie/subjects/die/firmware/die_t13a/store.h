/*
 * store.h: the die's state in EEPROM, a ring of records written so that a
 * power cut at any instant leaves the state before the write or after it,
 * and spread over 10 slots so that no byte wears out first (store.S;
 * fairdie.subjects.die._ring is its Python codec). Included by store.S too.
 */
#ifndef DIE_STORE_H
#define DIE_STORE_H

#define STORE_SLOTS 10
#define STORE_RECORD 6
#define STORE_LAPS 8 /* positions run over 8 laps of 10 slots, then wrap */

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The newest record: seq, the state (fair.h: table and pool), check, gate.
 * Defined in main.c, so that a debugger knows its type. */
extern uint8_t store_record[STORE_RECORD];

/* Load the newest valid record into store_record (none: a fresh state). */
void store_load(void);

/* Write store_record's state as the next record, wait until EEPROM is idle. */
void store_save(void);
#endif /* __ASSEMBLER__ */

#endif /* DIE_STORE_H */
