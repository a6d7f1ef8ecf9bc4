/*
 * buzzer: a 1 kHz tone with an uneven duty cycle, as a continuity tester's
 * buzzer makes it: Timer0 compare-match interrupts toggle the pin, and each
 * interrupt loads the other compare value, so the high and low halves
 * differ by about 13 %.
 *
 * MCU / clock / fuses: ATtiny13A, internal 9.6 MHz RC oscillator, CKDIV8
 * unprogrammed -> F_CPU = 9.6 MHz. lfuse = 0x7A, hfuse = 0xFF.
 *
 * Pinout: PB3 (pin 2) drives a piezo buzzer to GND. Every other pin is an
 * input without pull-up.
 *
 * Timing: Timer0 in CTC mode, clk/64 = 150 kHz. The high half lasts
 * HIGH_TICKS = 80 timer ticks (533 us), the low half LOW_TICKS = 70
 * (467 us): a period of 150 ticks, 9600 CPU cycles, 1.000 kHz. The
 * interrupt runs a tick after TCNT0 restarts from 0, so the new OCR0A is
 * in place long before the next match. The CPU idles between interrupts.
 *
 * The source does not tag its ELF for simavr (no AVR_MCU): the ELF names its
 * MCU only in avr-libc's device-info note and does not say its clock.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#define HIGH_TICKS 80
#define LOW_TICKS 70
#define BUZZ_BIT PB3

ISR(TIM0_COMPA_vect) {
    PINB = 1 << BUZZ_BIT; /* toggle */
    OCR0A = (uint8_t)(((PORTB >> BUZZ_BIT) & 1 ? HIGH_TICKS : LOW_TICKS) - 1);
}

int main(void) {
    DDRB = 1 << BUZZ_BIT;
    PORTB = 1 << BUZZ_BIT; /* the high half first */
    ACSR = 1 << ACD;
    TCCR0A = 1 << WGM01; /* CTC */
    OCR0A = HIGH_TICKS - 1;
    TIMSK0 = 1 << OCIE0A;
    TCCR0B = (1 << CS01) | (1 << CS00); /* clk/64 */
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    for (;;)
        sleep_mode();
}
