/*
 * sleep: the sleep modes. Timer0 interrupts at 1 kHz (CTC, 1.2 MHz / 8 /
 * 150) and counts `ticks`; a pin change on PB1 counts `wakes`. The main loop
 * sleeps in SLEEP_MODE (default power-down) and counts `loops` after each
 * wake. In power-down the timer stops and only the pin change wakes the CPU;
 * in idle (SLEEP_IDLE=1) the timer wakes it every millisecond. With
 * SLEEP_NO_SE=1 the loop runs SLEEP with SE clear, which a real chip ignores.
 * ATtiny13A at 1.2 MHz.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#ifndef SLEEP_IDLE
#define SLEEP_IDLE 0
#endif
#ifndef SLEEP_NO_SE
#define SLEEP_NO_SE 0
#endif

volatile uint16_t ticks, wakes, loops;

ISR(TIM0_COMPA_vect) { ticks++; }

ISR(PCINT0_vect) { wakes++; }

int main(void) {
    DDRB = 1 << PB0;
    OCR0A = 149;
    TCCR0A = 1 << WGM01;
    TCCR0B = 1 << CS01;
    TIMSK0 = 1 << OCIE0A;
    PCMSK = 1 << PCINT1;
    GIMSK = 1 << PCIE;
    set_sleep_mode(SLEEP_IDLE ? SLEEP_MODE_IDLE : SLEEP_MODE_PWR_DOWN);
    sei();
    for (;;) {
#if SLEEP_NO_SE
        sleep_cpu();
#else
        sleep_mode();
#endif
        loops++;
    }
}
