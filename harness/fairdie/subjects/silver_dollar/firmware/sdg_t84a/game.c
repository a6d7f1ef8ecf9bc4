/*
 * game.c: rules and play.
 *
 * The gaps (empty cells) right of each dollar are the steps of a staircase
 * Nim: moving dollar k by d takes d from its own gap and adds d to the gap
 * of dollar k-1, on its left; the leftmost dollar's moves drop their d off
 * the staircase. Counted from there, dollar 0's gap is step 1, dollar 1's
 * step 2, and so on. The player to move loses with correct play exactly
 * when the gaps on the odd steps (dollars 0, 2 and 4) XOR to zero
 * (Conway, On Numbers and Games). The harness checks the play against a
 * brute-force search of the game, not against this formula.
 */
#include "game.h"

#include "pins.h"
#include "rand.h"

/* The most moves a position has: every empty cell right of the leftmost
 * dollar is one (dollar, distance), 12 - 5 at most. */
#define MAX_MOVES (CELLS - DOLLARS)
#define MOVE(k, d) ((uint8_t)((k) << 4 | (d)))

uint8_t game_room(const uint8_t *p, uint8_t k) {
    uint8_t right = k == DOLLARS - 1 ? 0 : p[k + 1];
    return (uint8_t)(p[k] - right - 1);
}

uint8_t game_nim(const uint8_t *p) { return game_room(p, 0) ^ game_room(p, 2) ^ game_room(p, 4); }

uint8_t game_over(const uint8_t *p) { return p[0] == DOLLARS; }

uint16_t game_mask(const uint8_t *p) {
    uint16_t m = 0;
    for (uint8_t k = 0; k < DOLLARS; k++) {
        m |= (uint16_t)1 << (p[k] - 1);
    }
    return m;
}

uint8_t game_from_mask(uint8_t *p, uint16_t mask) {
    uint8_t q[DOLLARS];
    uint8_t n = 0;
    if (mask >> CELLS) {
        return 0;
    }
    for (uint8_t c = CELLS; c >= 1; c--) {
        if (mask & ((uint16_t)1 << (c - 1))) {
            if (n == DOLLARS) {
                return 0;
            }
            q[n++] = c;
        }
    }
    if (n != DOLLARS) {
        return 0;
    }
    for (uint8_t k = 0; k < DOLLARS; k++) {
        p[k] = q[k];
    }
    return 1;
}

void game_device_move(uint8_t *p) {
    uint8_t all[MAX_MOVES], wins[MAX_MOVES];
    uint8_t n = 0, w = 0;
    for (uint8_t k = 0; k < DOLLARS; k++) {
        uint8_t room = game_room(p, k);
        for (uint8_t d = 1; d <= room; d++) {
            p[k] -= d;
            if (game_nim(p) == 0) {
                wins[w++] = MOVE(k, d); /* leaves the human a lost game */
            }
            p[k] += d;
            all[n++] = MOVE(k, d);
        }
    }
    uint8_t m;
    if (w > 0) {
#if SDG_MUTANT_FIRST_WIN /* mutant: always the first winning move */
        m = wins[0];
#else
        m = wins[rand_below(w)];
#endif
    } else {
        m = all[rand_below(n)];
    }
    p[m >> 4] -= m & 0x0F;
}

void game_start(uint8_t *p) {
    /* Uniform over the valid starts: draw any set of cells, keep it only if
     * it is one (each set is drawn with the same chance, 1 in 4096). */
    for (;;) {
        uint16_t mask = rand_next() & 0x0FFF;
#if !SDG_MUTANT_START /* the mutant leaves out the leftmost-cell rule */
        if (!(mask & 0x0C00)) {
            continue; /* the leftmost dollar must be on cell 12 or 11 */
        }
#endif
        if (game_from_mask(p, mask) && game_nim(p) != 0) {
            return;
        }
    }
}
