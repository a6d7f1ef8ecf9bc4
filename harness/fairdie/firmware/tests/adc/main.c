/*
 * adc: converts ADC0..ADC3 against Vcc, then ADC2 against the internal
 * 1.1 V reference, forever; results land in `result` and `result_int`,
 * and `rounds` counts complete passes. ATtiny13A, any clock.
 * With ADC_SWITCH it converts ADC0 against Vcc but writes ADMUX =
 * ADC_SWITCH_TO (default 1: ADC1) while the conversion runs, then reads the
 * result into `switched` (the datasheet latches channel and reference when
 * the conversion starts: it is ADC0's against Vcc) and halts.
 * With ADC_FREE it converts ADC0 free-running (ADATE) and its ADC interrupt
 * stores the first eight results in `free_codes`.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#ifndef ADC_SWITCH_TO
#define ADC_SWITCH_TO 1
#endif

volatile uint16_t result[4];
volatile uint16_t result_int;
volatile uint8_t rounds;
volatile uint16_t switched;
volatile uint16_t free_codes[8];
volatile uint8_t nfree;

#ifdef ADC_FREE
ISR(ADC_vect) {
    if (nfree < 8)
        free_codes[nfree++] = ADC;
}
#endif

static uint16_t convert(uint8_t admux) {
    ADMUX = admux;
    ADCSRA |= 1 << ADSC;
    while (ADCSRA & (1 << ADSC))
        ;
    return ADC;
}

int main(void) {
    ADCSRA = (1 << ADEN) | (1 << ADPS2) | (1 << ADPS1); /* clock / 64 */
#ifdef ADC_SWITCH
    ADMUX = 0;
    ADCSRA |= 1 << ADSC;
    ADMUX = ADC_SWITCH_TO;
    while (ADCSRA & (1 << ADSC))
        ;
    switched = ADC;
    for (;;)
        ;
#endif
#ifdef ADC_FREE
    ADMUX = 0;
    ADCSRB = 0; /* free running */
    ADCSRA |= (1 << ADATE) | (1 << ADIE) | (1 << ADSC);
    sei();
    for (;;)
        ;
#endif
    for (;;) {
        for (uint8_t ch = 0; ch < 4; ch++)
            result[ch] = convert(ch);
        result_int = convert((1 << REFS0) | 2);
        rounds++;
    }
}
