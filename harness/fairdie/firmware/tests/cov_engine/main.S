/*
 * cov_engine: the corner cases of coverage in the engine, each pass of the
 * loop alike (tests/sim/test_coverage_engine.py reads the labels):
 *   k0_taken, k0_fell  `breq .+0`, which lands on the same PC either way:
 *                      taken once, then not taken once;
 *   skip2              `sbrs` over a two-word `lds`: taken (the lds never runs);
 *   irq_skip           `cpse` of two different registers, falling through,
 *                      and INT0 entered right behind it (raised while
 *                      interrupts are off; simavr takes it two instructions
 *                      after the SEI);
 *   irq_branch         `breq` with Z clear, not taken, and INT0 right behind it;
 *   __vector_1         INT0: counts in r20, runs twice a pass.
 * COV_IRQ=0 leaves INT0 disabled: the handler never runs.
 * ATtiny13A, any clock.
 */
#include <avr/io.h>

#ifndef COV_IRQ
#define COV_IRQ 1
#endif

    .text
    .global __vector_1
__vector_1:
    inc r20
    reti

    .global main
    .global k0_taken, k0_fell, skip2, skipped
    .global irq_skip, irq_branch
main:
    ldi r16, (1 << PB1)
    out _SFR_IO_ADDR(DDRB), r16
    ldi r16, (1 << ISC00)
    out _SFR_IO_ADDR(MCUCR), r16
    ldi r16, (COV_IRQ << INT0)
    out _SFR_IO_ADDR(GIMSK), r16
    clr r20
    sei
loop:
    sez
k0_taken:
    breq .+0
    clz
k0_fell:
    breq .+0
    ldi r17, 1
skip2:
    sbrs r17, 0
skipped:
    lds r18, 0x0060
    cli
    sbi _SFR_IO_ADDR(PORTB), PB1
    ldi r16, 1
    ldi r17, 2
    sei
    nop
irq_skip:
    cpse r16, r17
    nop
    cli
    cbi _SFR_IO_ADDR(PORTB), PB1
    clz
    sei
    nop
irq_branch:
    breq .+2
    nop
    rjmp loop
