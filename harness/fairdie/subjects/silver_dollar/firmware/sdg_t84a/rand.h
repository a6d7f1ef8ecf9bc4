/*
 * rand.h: a xorshift32 PRNG. Its seed is fixed, so on its own it would play
 * the same games after every power-up; main.c stirs it with the moment of
 * every press (scan.h), which is where the chance comes from.
 */
#ifndef SDG_RAND_H
#define SDG_RAND_H

#include <stdint.h>

/* Fold `x` into the state, then step it. */
void rand_stir(uint32_t x);
/* The next 16 bits. */
uint16_t rand_next(void);
/* Uniform in 0..n-1 (1 <= n <= 128), by rejection: no modulo bias. */
uint8_t rand_below(uint8_t n);

#endif /* SDG_RAND_H */
