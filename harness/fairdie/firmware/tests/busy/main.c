/*
 * busy: an endless loop of known cycle count, for the engine's timing tests
 * and the speed benchmark. ATtiny13A (any clock), no I/O but PB0.
 *
 * Every pass of the loop toggles PB0 and then spins in a delay loop whose
 * length is exact: the pin period in cycles is checked by the tests.
 * The ELF's .eeprom section holds 01 02 03 04 at address 0.
 * With BUSY_QUIET the toggle becomes two nops (same timing, no I/O).
 *   loop body: sbi PINB,0 (2) + ldi (1) + 3*N-1 (dec/brne) + rjmp (2)
 *   => one half period = 3*N + 4 cycles, with N = BUSY_N.
 */
#include <avr/eeprom.h>
#include <avr/io.h>

#ifdef BUSY_QUIET /* no I/O at all: the speed benchmark's loop */
#define TOGGLE "    nop\n\t    nop\n\t"
#else
#define TOGGLE "    sbi %[pinb], 0\n\t"
#endif

#ifndef BUSY_N
#define BUSY_N 100
#endif

volatile unsigned char marker;
/* an initial EEPROM image, so the tests can see the .eeprom section load */
__attribute__((used)) unsigned char EEMEM ee_image[4] = {1, 2, 3, 4};

int main(void) {
    DDRB = 1 << PB0;
    marker = 0x5A;
    /* clang-format off */
    __asm__ volatile("1:\n\t" TOGGLE
                     "    ldi r24, %[n]     \n\t"
                     "2:  dec r24           \n\t"
                     "    brne 2b           \n\t"
                     "    rjmp 1b           \n\t"
                     :
                     : [pinb] "I"(_SFR_IO_ADDR(PINB)), [n] "M"(BUSY_N)
                     : "r24");
    /* clang-format on */
    return 0;
}
