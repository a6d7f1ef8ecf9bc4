/* cxx: a C function called from C++. */
#ifndef CXX_SUM_H
#define CXX_SUM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint8_t sum_u8(uint8_t a, uint8_t b);

#ifdef __cplusplus
}
#endif

#endif
