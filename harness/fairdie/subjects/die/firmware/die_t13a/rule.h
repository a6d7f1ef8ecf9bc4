/*
 * rule.h: the fair-die rule, free of I/O so it reads like its Python
 * reference model (and could be compiled for the host to cross-check it).
 */
#ifndef DIE_RULE_H
#define DIE_RULE_H

#include <stdint.h>

#define DIE_FACES 6

/*
 * One roll. counts[0..5] are the counters of faces 1..6 (any values are
 * valid); code is the ADC sample. Returns the face index 0..5 and counts it
 * in counts[] (rebasing first if the counter would pass 255).
 */
uint8_t die_roll(uint8_t counts[DIE_FACES], uint16_t code);

#endif /* DIE_RULE_H */
