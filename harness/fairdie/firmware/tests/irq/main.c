/*
 * irq: interrupt response time. INT0 (PB1) fires on any logical change; its
 * naked ISR toggles PB0 as its first instruction.
 *   IRQ_SELF=1: PB1 is an output the main loop toggles (an output pin still
 *     triggers INT0). From the start of the `sbi PORTB,1` (2 cycles) to the
 *     start of the ISR's `sbi PINB,0`, a real chip takes 2 + 4 (response) +
 *     2 (the vector's rjmp) = 8 cycles.
 *   IRQ_SELF=0: PB1 is an input; the CPU sleeps (idle) and the harness drives
 *     PB1. Waking adds 4 cycles to the response: 4 + 4 + 2 = 10 cycles from
 *     the edge to the ISR's first instruction.
 * ATtiny13A, any clock.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#ifndef IRQ_SELF
#define IRQ_SELF 0
#endif

ISR(INT0_vect, ISR_NAKED) {
    __asm__ volatile("sbi %[pinb], 0\n\t"
                     "reti\n\t"
                     :
                     : [pinb] "I"(_SFR_IO_ADDR(PINB)));
}

int main(void) {
    DDRB = (1 << PB0) | (IRQ_SELF << PB1);
    MCUCR = 1 << ISC00;
    GIMSK = 1 << INT0;
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    for (;;) {
#if IRQ_SELF
        __asm__ volatile("sbi %[portb], 1\n\t"
                         "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
                         "cbi %[portb], 1\n\t"
                         "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
                         :
                         : [portb] "I"(_SFR_IO_ADDR(PORTB)));
#else
        sleep_mode();
#endif
    }
}
