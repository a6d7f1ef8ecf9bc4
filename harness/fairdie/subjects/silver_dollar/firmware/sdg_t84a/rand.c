/* rand.c: xorshift32 (Marsaglia 2003, shifts 13, 17, 5). */
#include "rand.h"

#define RAND_SEED 0x2545F491UL

static uint32_t state = RAND_SEED;

uint16_t rand_next(void) {
    uint32_t s = state;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    state = s;
    return (uint16_t)(s >> 8);
}

void rand_stir(uint32_t x) {
    state ^= x;
    if (state == 0) {
        state = RAND_SEED; /* xorshift's one fixed point */
    }
    rand_next();
    rand_next();
}

uint8_t rand_below(uint8_t n) {
    uint8_t mask = 1;
    while (mask < n) {
        mask = (uint8_t)(mask << 1);
    }
    mask--;
    for (;;) {
        uint8_t r = (uint8_t)rand_next() & mask;
        if (r < n) {
            return r;
        }
    }
}
