/*
 * ctc: Timer0 in CTC mode toggles PB0 from its compare-match interrupt.
 * ATtiny13A, any clock. OCR0A = CTC_TOP, prescaler 8: the compare match
 * comes every (CTC_TOP + 1) * 8 cycles, so PB0 toggles with that period
 * exactly (the ISR's latency is the same every time). The CPU idles between.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#ifndef CTC_TOP
#define CTC_TOP 99
#endif

ISR(TIM0_COMPA_vect) { PINB = 1 << PB0; }

int main(void) {
    DDRB = 1 << PB0;
    OCR0A = CTC_TOP;
    TCCR0A = 1 << WGM01;
    TIMSK0 = 1 << OCIE0A;
    TCCR0B = 1 << CS01;
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    for (;;)
        sleep_mode();
}
