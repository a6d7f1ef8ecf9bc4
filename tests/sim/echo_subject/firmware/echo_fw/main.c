/*
 * echo: copies an input with its pull-up on to an output, forever.
 * ATtiny13A, any clock. PB3 is an input with the internal pull-up (PORTB3
 * set); PB0 is an output that follows it. Every pass writes all of PORTB
 * (pull-up kept on), so a simulator that re-applies the pull-up on a PORT
 * write overrides whatever drives PB3 from outside. `samples` counts passes
 * and `lows` the passes that read PB3 low (both wrap at 65536).
 */
#include <avr/io.h>
#include <stdint.h>

volatile uint16_t samples;
volatile uint16_t lows;

int main(void) {
    DDRB = 1 << PB0;
    PORTB = 1 << PB3;
    for (;;) {
        if (PINB & (1 << PB3)) {
            PORTB = (1 << PB3) | (1 << PB0);
        } else {
            PORTB = 1 << PB3;
            lows++;
        }
        samples++;
    }
}
