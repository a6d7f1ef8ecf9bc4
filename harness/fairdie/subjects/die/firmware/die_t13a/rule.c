/*
 * rule.c: the fair-die rule (see rule.h and the banner of main.c).
 */
#include "rule.h"

/*
 * The face at position k when the faces are sorted by (count, face number)
 * ascending. A face's position is the number of faces that sort before it;
 * positions are a permutation of 0..5, so the last face needs no test.
 */
static uint8_t face_at(const uint8_t c[DIE_FACES], uint8_t k) {
    uint8_t f;
    for (f = 0; f < DIE_FACES - 1; f++) {
        uint8_t pos = 0;
        for (uint8_t g = 0; g < DIE_FACES; g++) {
            if (c[g] < c[f] || (c[g] == c[f] && g < f)) {
                pos++;
            }
        }
        if (pos == k) {
            break;
        }
    }
    return f;
}

static uint8_t holds(const uint8_t c[DIE_FACES], uint8_t value) {
    for (uint8_t g = 0; g < DIE_FACES; g++) {
        if (c[g] == value) {
            return 1;
        }
    }
    return 0;
}

/*
 * Make room below 255 while keeping the faces' order, ties included.
 * The seed's rule subtracts the smallest counter from all. When that is 0 it
 * frees nothing, so instead close the highest unused value g in 0..254
 * (one exists: six counters, one of them 255) by decrementing every counter
 * above g. Neither way can wrap below 0.
 */
static void rebase(uint8_t c[DIE_FACES]) {
    uint8_t m = 255;
    for (uint8_t g = 0; g < DIE_FACES; g++) {
        if (c[g] < m) {
            m = c[g];
        }
    }
#if DIE_MUTANT_REBASE_WRAP
    m |= !m; /* mutant (fairdie verify's tests): subtract at least 1, so a 0 wraps to 255 */
#endif
    if (m > 0) {
        for (uint8_t g = 0; g < DIE_FACES; g++) {
            c[g] -= m;
        }
        return;
    }
    uint8_t gap = 254;
    while (holds(c, gap)) {
        gap--;
    }
    for (uint8_t g = 0; g < DIE_FACES; g++) {
        if (c[g] > gap) {
            c[g]--;
        }
    }
}

uint8_t die_roll(uint8_t c[DIE_FACES], uint16_t code) {
    /* Candidates are positions 0, 2 and 4 of the order; the noise picks one. */
    uint8_t face = face_at(c, (uint8_t)(code % 3) * 2);
    if (c[face] == 255) {
        rebase(c);
    }
    c[face]++;
    return face;
}
