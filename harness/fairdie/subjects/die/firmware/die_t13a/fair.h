/*
 * fair.h: the noise source's health tests and the fair rule (fair.S; its
 * Python reference model is fairdie.subjects.die._fair). Included by C and
 * by fair.S.
 */
#ifndef DIE_FAIR_H
#define DIE_FAIR_H

#include <avr/io.h>

/*
 * Sampling (fair_sample). The raw samples are the 10-bit codes of ADC2.
 * A press converts at least FAIR_WINDOW codes, then goes on in pairs until
 * it holds FAIR_BITS fresh unbiased bits (von Neumann over the codes' low
 * bits: of each pair, 01 gives 0 and 10 gives 1), and at most FAIR_MAX.
 *
 * Health tests, from NIST SP 800-90B section 4.4, on the raw codes, with an
 * assessed min-entropy of H = 0.8 bit per code (a floating pin's commonest
 * code comes up at most 2^-0.8 = 57 % of the time):
 * - repetition count: FAIR_RCT_CUTOFF equal codes in a row fail,
 *   1 + ceil(30 / H): a false alarm at most 2^-30 per code;
 * - adaptive proportion: over the first FAIR_WINDOW codes, FAIR_APT_CUTOFF
 *   codes equal to the first fail: the binomial cut-off for 2^-20 per press.
 * Fewer than FAIR_BITS fresh bits in FAIR_MAX codes fail too. A failed
 * press rolls nothing, writes nothing and shows the fault pattern.
 */
#define FAIR_WINDOW 64
#define FAIR_MAX 256 /* the loop counts samples in one byte */
#define FAIR_BITS 16
#define FAIR_RCT_CUTOFF 39
#define FAIR_APT_CUTOFF 56

/* The ADC clock must be 50..200 kHz: the smallest prescaler that gets there. */
#if F_CPU / 2 <= 200000UL
#define ADC_PS 1
#elif F_CPU / 4 <= 200000UL
#define ADC_PS 2
#elif F_CPU / 8 <= 200000UL
#define ADC_PS 3
#elif F_CPU / 16 <= 200000UL
#define ADC_PS 4
#elif F_CPU / 32 <= 200000UL
#define ADC_PS 5
#elif F_CPU / 64 <= 200000UL
#define ADC_PS 6
#else
#define ADC_PS 7
#endif
#if F_CPU / (1UL << ADC_PS) < 50000UL || F_CPU / (1UL << ADC_PS) > 200000UL
#error "no ADC prescaler puts this F_CPU in 50..200 kHz"
#endif

/* The pool is a 12-bit Galois LFSR, x^12 + x^11 + x^5 + x^3 + 1 (taps
 * 0x829): period 4095; 0 is not a state of it. */
#define FAIR_POOL_TAPS 0x0829
/* A table packs each face's offset above the least-counted face, 0..3, in
 * two bits (face 1 in bits 0..1): 12 bits; at least one offset is 0. */
#define FAIR_ONES 0x0555

#ifndef __ASSEMBLER__
#include <stdint.h>

/* The fresh bits of the last healthy fair_sample, the newest in bit 0. */
extern uint16_t fair_noise;

/* Sample the noise and test its health (above). Returns 1 and sets
 * fair_noise when the source is healthy, 0 when a test failed. The ADC is
 * off again on return. */
uint8_t fair_sample(void);

/*
 * One roll. d[0..2]: the state kept in EEPROM, packed: the table in d[0]
 * and the low nibble of d[1], the pool in the high nibble of d[1] and d[2]
 * (any bytes are valid: the table is normalised first, a pool of 0 becomes
 * 1); noise: FAIR_BITS fresh bits (fair_noise). Returns the face index
 * 0..5 and updates d[].
 */
uint8_t fair_roll(uint8_t d[3], uint16_t noise);
#endif

#endif /* DIE_FAIR_H */
