/* cxx: the C half of the mixed C and C++ test firmware. */
#include "sum.h"

uint8_t sum_u8(uint8_t a, uint8_t b) { return (uint8_t)(a + b); }
