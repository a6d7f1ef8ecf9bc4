/*
 * adc: converts ADC0..ADC3 against Vcc, then ADC2 against the internal
 * 1.1 V reference, forever; results land in `result` and `result_int`,
 * and `rounds` counts complete passes. ATtiny13A, any clock.
 * With ADC_SWITCH it converts ADC0 but selects ADC1 while the conversion
 * runs, then reads the result into `switched` (the datasheet: the channel
 * is latched when the conversion starts, so it is ADC0's) and halts.
 */
#include <avr/io.h>
#include <stdint.h>

volatile uint16_t result[4];
volatile uint16_t result_int;
volatile uint8_t rounds;
volatile uint16_t switched;

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
    ADMUX = 1;
    while (ADCSRA & (1 << ADSC))
        ;
    switched = ADC;
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
