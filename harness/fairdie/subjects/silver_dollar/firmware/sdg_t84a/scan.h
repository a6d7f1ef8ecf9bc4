/*
 * scan.h: the 12 kHz tick of Timer/Counter0. Each tick lights one cell's
 * LED (or none), so the 12 cells take turns and each is refreshed once per
 * frame of 12 ticks (about 1 kHz); once per frame the buttons are sampled
 * and debounced. Pin changes on the buttons time the presses to the
 * microsecond: the chance the PRNG is stirred with.
 */
#ifndef SDG_SCAN_H
#define SDG_SCAN_H

#include <stdint.h>

/* Timer0: CTC, clk/8, TOP 82 at 8 MHz: a tick every 83 us (12.05 kHz). */
#define SCAN_PRESCALE 8UL
#define SCAN_TOP (F_CPU / SCAN_PRESCALE / 12000UL - 1)
/* One frame: 12 ticks, 996 us at 8 MHz (a 1004 Hz refresh). */
#define SCAN_FRAME_NUM (SCAN_PRESCALE * (SCAN_TOP + 1) * 12UL) /* cycles per frame */
/* Whole frames in `ms` milliseconds, rounded up. */
#define FRAMES_MS(ms) ((uint16_t)(((ms) * (F_CPU / 1000UL) + SCAN_FRAME_NUM - 1) / SCAN_FRAME_NUM))

/* A button is taken as pressed or released once its pin (and every other
 * button's) has read the same for this many frames (8 ms). */
#define DEBOUNCE_FRAMES 8

void scan_init(void);
/* Light the cells of `mask` (bit c-1 = cell c), from the next frame on. */
void scan_show(uint16_t mask);
/* Frames since power-on (wraps after 65 s). */
uint16_t scan_frames(void);
/* The buttons (pins.h's BTN_ bits) pressed since the last call, debounced. */
uint8_t scan_take(void);
/* The press timings gathered since the last call, folded into 16 bits. */
uint16_t scan_chance(void);
/* The buttons held down now, as read (no debounce). */
uint8_t scan_raw(void);
/* All LED pins inputs without pull-ups, now (the display off). */
void scan_release(void);
/* Restart the debounce with `held` down, as if long settled: their release
 * is no press, and no press is seen of them until they are released. */
void scan_hold(uint8_t held);

#endif /* SDG_SCAN_H */
