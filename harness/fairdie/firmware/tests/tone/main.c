/*
 * tone: a timer's compare output toggles its pin in hardware, with no ISR
 * and no PORT write: the way a piezo is driven.
 *   ATtiny84A: Timer1 in CTC mode (WGM12, TOP = OCR1A = TONE_TOP), no
 *   prescaler, OC1B (PA5) toggled on every compare match (COM1B0): PA5
 *   changes every TONE_TOP + 1 cycles.
 *   ATtiny13A: Timer0 in CTC mode (WGM01, TOP = OCR0A = TONE_TOP), prescaler
 *   8, OC0A (PB0) toggled (COM0A0): PB0 changes every (TONE_TOP + 1) * 8
 *   cycles.
 * The CPU idles; nothing wakes it.
 */
#include <avr/io.h>
#include <avr/sleep.h>

#ifndef TONE_TOP
#define TONE_TOP 199
#endif

int main(void) {
#if defined(__AVR_ATtiny84A__) || defined(__AVR_ATtiny84__)
    DDRA = 1 << PA5;
    OCR1A = TONE_TOP;
    OCR1B = TONE_TOP / 2;
    TCCR1A = 1 << COM1B0;
    TCCR1B = (1 << WGM12) | (1 << CS10);
#else
    DDRB = 1 << PB0;
    OCR0A = TONE_TOP;
    TCCR0A = (1 << COM0A0) | (1 << WGM01);
    TCCR0B = 1 << CS01;
#endif
    set_sleep_mode(SLEEP_MODE_IDLE);
    for (;;)
        sleep_mode();
}
