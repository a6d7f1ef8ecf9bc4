/* cov_c: a function inlined where it is called (its lines map to this header). */
#ifndef COV_H
#define COV_H
#include <stdint.h>

static inline uint8_t twice(uint8_t x) {
    return (uint8_t)(x + x);
}

void count_to(uint8_t n);

#endif
