; cov_asm: a firmware in assembler whose coverage is known
; (tests/sim/test_coverage_map*.py). ATtiny13A, any clock. After reset it
; enables INT0 (PB1, falling edge, pull-up on) and PB3's pull-up, then loops:
;   decide         a test of r2 (always zero): its "else" never runs;
;   count_to       a loop of 5 passes: its exit branch goes both ways;
;   after_restore  runs once, the first time PB3 reads low (the tests drive
;                  it only after restoring a snapshot);
;   never_called   is jumped to by no instruction.
; The INT0 handler counts in r3: it runs only when the tests pull PB1 low.
#include <avr/io.h>

#define IO(reg) _SFR_IO_ADDR(reg)

    .section .text.cov_asm, "ax", @progbits

    .global main
    .type main, @function
main:
    ldi r16, (1 << PB0) | (1 << PB4)
    out IO(DDRB), r16
    ldi r16, (1 << PB1) | (1 << PB3)
    out IO(PORTB), r16
    ldi r16, 1 << ISC01
    out IO(MCUCR), r16
    ldi r16, 1 << INT0
    out IO(GIMSK), r16
    clr r2
    clr r3
    clr r4
    sei
forever:
    rcall decide
    rcall count_to
    sbic IO(PINB), PB3
    rjmp forever
    tst r4
    brne forever
    rcall after_restore
    rjmp forever
    .size main, . - main

    .type decide, @function
decide:
    tst r2
    brne 1f
    sbi IO(PORTB), PB0
    ret
1:  cbi IO(PORTB), PB0
    ret
    .size decide, . - decide

    .type count_to, @function
count_to:
    ldi r24, 5
1:  inc r5
    dec r24
    brne 1b
    ret
    .size count_to, . - count_to

    .type after_restore, @function
after_restore:
    inc r4
    ret
    .size after_restore, . - after_restore

    .type never_called, @function
never_called:
    sbi IO(PINB), PB4
    ret
    .size never_called, . - never_called

    .global INT0_vect
    .type INT0_vect, @function
INT0_vect:
    push r16
    in r16, IO(SREG)
    inc r3
    out IO(SREG), r16
    pop r16
    reti
    .size INT0_vect, . - INT0_vect
