/*
 * acomp: the analog comparator. ACO is copied to PB2 in a loop; its
 * interrupt on a rising output (ACIS1:0 = 11) counts `rises`. With
 * ACOMP_BANDGAP=1 the positive input is the 1.1 V bandgap, not AIN0 (PB0).
 * ATtiny13A, any clock.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#ifndef ACOMP_BANDGAP
#define ACOMP_BANDGAP 0
#endif

volatile uint16_t rises;

ISR(ANA_COMP_vect) { rises++; }

int main(void) {
    DDRB = 1 << PB2;
    ACSR = (ACOMP_BANDGAP << ACBG) | (1 << ACIE) | (1 << ACIS1) | (1 << ACIS0);
    sei();
    for (;;) {
        if (ACSR & (1 << ACO))
            PORTB |= 1 << PB2;
        else
            PORTB &= ~(1 << PB2);
    }
}
