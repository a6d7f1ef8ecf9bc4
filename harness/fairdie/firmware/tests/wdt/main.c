/*
 * wdt: sleeps in power-down and wakes on the watchdog interrupt every
 * 1.024 s (WDP = 0110), counting wake-ups in `wakeups` and toggling PB0.
 * PB1 (INT0) is driven low all the while: under simavr 1.6 that alone makes
 * INT0's level-trigger polling re-arm every cycle unless the harness turns it
 * off. Alone, simavr clears WDTIE after the watchdog ISR (one-shot) where
 * the chip keeps interrupt mode; WDT_REARM=1 makes the ISR set it again.
 * ATtiny13A, any clock.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

volatile uint8_t wakeups;

#ifndef WDT_REARM
#define WDT_REARM 0
#endif

ISR(WDT_vect) {
    wakeups++;
    if (WDT_REARM)
        WDTCR |= 1 << WDTIE;
}

int main(void) {
    DDRB = (1 << PB0) | (1 << PB1);
    PORTB = 0;
    WDTCR = (1 << WDCE) | (1 << WDE);
    WDTCR = (1 << WDTIE) | (1 << WDP2) | (1 << WDP1);
    set_sleep_mode(SLEEP_MODE_PWR_DOWN);
    sei();
    for (;;) {
        sleep_mode();
        PINB = 1 << PB0;
    }
}
