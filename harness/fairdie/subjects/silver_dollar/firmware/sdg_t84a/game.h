/*
 * game.h: the rules of the Silver Dollar Game, the device's play and the
 * start rule. A position is the cells of the five dollars, from the left:
 * p[0] > p[1] > ... > p[4] >= 1, cells numbered 12 (left) down to 1.
 */
#ifndef SDG_GAME_H
#define SDG_GAME_H

#include <stdint.h>

#define DOLLARS 5

/* Empty cells to the right of dollar k (0..4): how far it may move. */
uint8_t game_room(const uint8_t *p, uint8_t k);
/* Nonzero when the player to move can force a win (staircase Nim). */
uint8_t game_nim(const uint8_t *p);
/* No move is left: the dollars sit on cells 5..1. */
uint8_t game_over(const uint8_t *p);
/* The lit cells: bit c-1 for each dollar on cell c. */
uint16_t game_mask(const uint8_t *p);
/* The position of a mask; 0 (p unchanged) unless exactly five of cells 1..12. */
uint8_t game_from_mask(uint8_t *p, uint16_t mask);
/* The device's move (the game must not be over). */
void game_device_move(uint8_t *p);
/* A random start the human can force a win from. */
void game_start(uint8_t *p);

#endif /* SDG_GAME_H */
