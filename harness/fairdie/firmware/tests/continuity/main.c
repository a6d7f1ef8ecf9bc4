/*
 * continuity: a continuity tester. The analog comparator compares the probe
 * (AIN0) against a reference: AIN1, or the 1.1 V bandgap in place of the
 * probe when built with CONTINUITY_BANDGAP=1, or with CONTINUITY_REF_ADC=n
 * the ADC multiplexer's channel n (ACME, the ADC off). While the probe is
 * above it (the probes touch), a buzzer sounds a 1 kHz tone with uneven
 * halves, and is silent otherwise.
 *
 * MCU / clock / fuses: ATtiny13A, internal 9.6 MHz RC oscillator, CKDIV8
 * unprogrammed -> F_CPU = 9.6 MHz. lfuse = 0x7A, hfuse = 0xFF.
 *
 * Pinout: PB0 (pin 5) AIN0, the probe; PB1 (pin 6) AIN1, the reference
 * (a divider; unused with the bandgap); PB3 (pin 2) drives a piezo buzzer
 * to GND, low while silent. Every other pin is an input without pull-up;
 * the comparator pins' digital input buffers are off (DIDR0).
 *
 * Timing: Timer0 in CTC mode, clk/64 = 150 kHz; each compare interrupt
 * toggles the buzzer and loads the other half's length: HIGH_TICKS = 80
 * ticks (533 us) high, LOW_TICKS = 70 (467 us) low, a period of 9600 CPU
 * cycles, 1.000 kHz. The timer runs only while the probes touch.
 *
 * The comparator interrupts on each change of its output (ACIS1:0 = 00)
 * and wakes the CPU, which sleeps in idle between interrupts; awake, the
 * main loop reads ACO and starts or stops the tone.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#ifndef CONTINUITY_BANDGAP
#define CONTINUITY_BANDGAP 0
#endif
#ifndef CONTINUITY_REF_ADC
#define CONTINUITY_REF_ADC (-1)
#endif

#define HIGH_TICKS 80
#define LOW_TICKS 70
#define BUZZ_BIT PB3
#define TIMER_ON ((1 << CS01) | (1 << CS00)) /* clk/64 */

/* wakes the main loop, which reads ACO */
EMPTY_INTERRUPT(ANA_COMP_vect);

ISR(TIM0_COMPA_vect) {
    PINB = 1 << BUZZ_BIT; /* toggle */
    OCR0A = (uint8_t)(((PORTB >> BUZZ_BIT) & 1 ? HIGH_TICKS : LOW_TICKS) - 1);
}

static void tone_on(void) {
    TCNT0 = 0;
    OCR0A = HIGH_TICKS - 1;
    TIFR0 = 1 << OCF0A;
    PORTB |= 1 << BUZZ_BIT; /* the high half first */
    TCCR0B = TIMER_ON;
}

static void tone_off(void) {
    TCCR0B = 0;
    PORTB &= (uint8_t) ~(1 << BUZZ_BIT);
}

int main(void) {
    DDRB = 1 << BUZZ_BIT;
    DIDR0 = (1 << AIN1D) | (1 << AIN0D);
#if CONTINUITY_REF_ADC >= 0
    ADMUX = CONTINUITY_REF_ADC; /* the ADC stays off: the mux feeds the comparator */
    ADCSRB = 1 << ACME;
#endif
    ACSR = (CONTINUITY_BANDGAP << ACBG) | (1 << ACIE); /* interrupt on toggle */
    TCCR0A = 1 << WGM01;                               /* CTC */
    TIMSK0 = 1 << OCIE0A;
    set_sleep_mode(SLEEP_MODE_IDLE);
    for (;;) {
        cli();
        uint8_t touching = ACSR & (1 << ACO);
        if (touching && !TCCR0B)
            tone_on();
        else if (!touching && TCCR0B)
            tone_off();
        /* sei's next instruction runs before any interrupt: none is missed */
        sleep_enable();
        sei();
        sleep_cpu();
        sleep_disable();
    }
}
