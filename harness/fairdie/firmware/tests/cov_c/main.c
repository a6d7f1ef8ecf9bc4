/*
 * cov_c: a firmware whose coverage is known (tests/sim/test_coverage_map*.py).
 * ATtiny13A, any clock. After reset it enables INT0 (PB1, falling edge, pull-up
 * on) and PB3's pull-up, then loops forever:
 *   decide()        an `if` on `mode`, which nothing sets: its else never runs;
 *   count_to(LOOPS) a loop of LOOPS passes (loop.c): its exit branch goes both ways;
 *   after_restore() runs once, the first time PB3 reads low: the tests drive it
 *                   only after restoring a snapshot;
 *   never_called()  runs only when `mode` is 0x5A, which nothing sets.
 * The INT0 handler counts `irqs`: it runs only when the tests pull PB1 low.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#include "cov.h"

#ifndef LOOPS
#define LOOPS 5
#endif

volatile uint8_t mode;
volatile uint8_t irqs;
volatile uint8_t woken;
volatile uint8_t out;

/* the handler's body on a line of its own, as the tests read it */
// clang-format off
ISR(INT0_vect) {
    irqs++;
}
// clang-format on

__attribute__((noinline, noclone)) static void never_called(void) {
    out = 0xAA;
    PORTB ^= 1 << PB4;
}

__attribute__((noinline, noclone)) static void after_restore(void) {
    woken = 1;
    out = twice(out);
}

__attribute__((noinline, noclone)) static void decide(void) {
    if (mode == 0) {
        PORTB |= 1 << PB0;
    } else {
        PORTB &= ~(1 << PB0);
    }
}

int main(void) {
    DDRB = (1 << PB0) | (1 << PB4);
    PORTB = (1 << PB1) | (1 << PB3);
    MCUCR = 1 << ISC01;
    GIMSK = 1 << INT0;
    sei();
    for (;;) {
        decide();
        count_to(LOOPS);
        if (!(PINB & (1 << PB3)) && !woken) {
            after_restore();
        }
        if (mode == 0x5A) {
            never_called();
        }
    }
}
