/*
 * scan.c: display multiplexing, button debounce and the frame clock, all in
 * Timer0's compare interrupt; press timing from the pin-change interrupts.
 */
#include "scan.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <util/atomic.h>

#include "pins.h"

_Static_assert(SCAN_TOP >= 1 && SCAN_TOP <= 255, "no Timer0 setting for this F_CPU");

/* Indexed by cell - 1: the cell's LED (pins.h). */
static const uint8_t CELL_LED[CELLS] PROGMEM = {
    LED_C1, LED_C2, LED_C3, LED_C4,  LED_C5,  LED_C6,
    LED_C7, LED_C8, LED_C9, LED_C10, LED_C11, LED_C12,
};

static volatile uint16_t lit; /* cells to show */
static uint16_t pending;      /* `lit` at the frame's start, shifted: bit 0 is the coming slot's */
static uint8_t slot;          /* cell - 1 of the coming slot */
static uint8_t next_ddr;      /* its pins, prepared one slot ahead */
static uint8_t next_port;

static volatile uint16_t frames;
static volatile uint8_t events; /* debounced presses not yet taken */
static volatile uint16_t chance;
static uint8_t settled;  /* the debounced buttons */
static uint8_t last_raw; /* the last sample */
static uint8_t stable;   /* frames `last_raw` has held, up to DEBOUNCE_FRAMES */

static inline uint8_t read_raw(void) {
    uint8_t a = (uint8_t)~PINA;
    uint8_t b = (uint8_t)~PINB;
    /* PA4 -> bit 0, PA6 -> bit 1, PA7 -> bit 2, PB0..PB2 -> bits 3..5 */
    return (uint8_t)(((a >> 4) & 0x01) | ((a >> 5) & 0x06) | ((b & 0x07) << 3));
}

uint8_t scan_raw(void) { return read_raw(); }

ISR(TIM0_COMPA_vect) {
    /* Release the LED pins before driving the next pair: outputs low first
     * (the lit LED goes dark), then inputs, so no pull-up is ever enabled and
     * no half-switched pin lights a third LED. Then both pins of the pair as
     * low outputs (still dark), then the anode high. Port A's upper pins
     * (buttons, speaker) keep their bits. */
    PORTA &= (uint8_t)~LED_PINS;
    DDRA &= (uint8_t)~LED_PINS;
    DDRA |= next_ddr;
    PORTA |= next_port;

    if (++slot == CELLS) {
        slot = 0;
        pending = lit;
        frames++;
#if !SDG_MUTANT_NO_DEBOUNCE
        uint8_t raw = read_raw();
        if (raw != last_raw) {
            last_raw = raw;
            stable = 0;
        } else if (stable < DEBOUNCE_FRAMES && ++stable == DEBOUNCE_FRAMES) {
            events |= (uint8_t)(raw & ~settled);
            settled = raw;
        }
#endif
    } else {
        pending >>= 1;
    }
#if SDG_MUTANT_NO_DEBOUNCE /* mutant: every tick's sample taken as it is */
    uint8_t raw = read_raw();
    events |= (uint8_t)(raw & ~last_raw);
    last_raw = raw;
#endif
    next_ddr = 0;
    next_port = 0;
    if (pending & 1) {
        uint8_t pair = pgm_read_byte(&CELL_LED[slot]);
        next_port = pair >> 4;                /* anode */
        next_ddr = next_port | (pair & 0x0F); /* anode and cathode */
    }
}

/* Any button's edge (bounces too): fold the moment into `chance`, timed by
 * Timer0 to the microsecond within the frame. GO's edge also wakes the chip
 * from power-down. */
ISR(PCINT0_vect) { chance = (uint16_t)((chance << 5) + chance) ^ (uint16_t)(slot << 8 | TCNT0); }
ISR(PCINT1_vect, ISR_ALIASOF(PCINT0_vect));

void scan_init(void) {
    PCMSK0 = BTN_A_PCINT;
    PCMSK1 = BTN_B_PCINT;
    GIMSK = _BV(PCIE0) | _BV(PCIE1);
    /* The clock first, then TOP: OCR0A is written to a configured timer
     * (interrupts are still off; the flag raised meanwhile is cleared). */
    TCCR0A = _BV(WGM01); /* CTC, TOP = OCR0A */
    TCCR0B = _BV(CS01);  /* clk/8 */
    OCR0A = SCAN_TOP;
    TIFR0 = _BV(OCF0A);
    TIMSK0 = _BV(OCIE0A);
}

void scan_show(uint16_t mask) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { lit = mask; }
}

uint16_t scan_frames(void) {
    uint16_t f;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { f = frames; }
    return f;
}

uint8_t scan_take(void) {
    uint8_t e;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        e = events;
        events = 0;
    }
    return e;
}

uint16_t scan_chance(void) {
    uint16_t c;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { c = chance; }
    return c;
}

void scan_release(void) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        lit = 0;
        pending = 0;
        next_ddr = 0;
        next_port = 0;
        PORTA &= (uint8_t)~LED_PINS;
        DDRA &= (uint8_t)~LED_PINS;
    }
}

void scan_hold(uint8_t held) {
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
        settled = held;
        last_raw = held;
        stable = DEBOUNCE_FRAMES;
        events = 0;
    }
}
