/* cov_c: a loop in a file of its own. */
#include "cov.h"

volatile uint8_t count;

/* LOOPS passes per call: the exit branch is taken once and not taken LOOPS - 1 times. */
__attribute__((noinline, noclone)) void count_to(uint8_t n) {
    uint8_t i = n;
    do {
        count++;
    } while (--i);
}
