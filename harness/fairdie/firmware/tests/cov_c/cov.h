/* cov_c: a function inlined where it is called (its lines map to this header). */
#ifndef COV_H
#define COV_H
#include <stdint.h>

/* the body on a line of its own, where the inlined code maps */
// clang-format off
static inline uint8_t twice(uint8_t x) {
    return (uint8_t)(x + x);
}
// clang-format on

void count_to(uint8_t n);

#endif
