/*
 * fair.h: the fair rule and its noise conditioning (fair.S; its Python
 * reference model is fairdie.subjects.die._fair).
 */
#ifndef DIE_FAIR_H
#define DIE_FAIR_H

#include <stdint.h>

/* ADC conversions per press: their least significant bits are the noise. */
#define FAIR_READS 16
/* The pool is a 12-bit Galois LFSR, x^12 + x^11 + x^5 + x^3 + 1 (taps
 * 0x829): period 4095; 0 is not a state of it. */
#define FAIR_POOL_TAPS 0x0829u
/* A table packs each face's offset above the least-counted face, 0..3, in
 * two bits (face 1 in bits 0..1): 12 bits; at least one offset is 0. */
#define FAIR_ONES 0x0555u
#define FAIR_TABLE 0x0FFFu

/*
 * One roll. d[0..2]: the state kept in EEPROM, packed: the table in d[0]
 * and the low nibble of d[1], the pool in the high nibble of d[1] and d[2]
 * (any bytes are valid: the table is normalised first, a pool of 0 becomes
 * 1); lsbs: the least significant bits of FAIR_READS conversions, the first
 * in bit 15. Returns the face index 0..5 and updates d[].
 */
uint8_t fair_roll(uint8_t d[3], uint16_t lsbs);

#endif /* DIE_FAIR_H */
