/*
 * unmodelled: writes registers of parts simavr 1.6 does not model, so that
 * the engine reports them (Chip.unmodelled). It sets the clock prescaler to
 * 1 through CLKPR, switches the ADC off through PRR, drives PB0 high and
 * idles in a loop. With UNMODELLED_BOD=1 it also turns the brown-out
 * detector off for a sleep (BODCR on the ATtiny13A, MCUCR's BODS elsewhere)
 * first. Any MCU avr-libc describes with CLKPR and PRR (the ATtiny13A by
 * default), any clock.
 */
#include <avr/io.h>
#include <avr/power.h>
#include <avr/sleep.h>

#ifndef UNMODELLED_BOD
#define UNMODELLED_BOD 0
#endif

int main(void) {
#if UNMODELLED_BOD
    sleep_bod_disable();
#endif
    clock_prescale_set(clock_div_1);
    PRR = 1 << PRADC;
    DDRB = 1 << PB0;
    PORTB = 1 << PB0;
    for (;;) {
    }
}
