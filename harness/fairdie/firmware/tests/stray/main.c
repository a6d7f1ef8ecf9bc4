/*
 * stray: a program that reaches outside the ATtiny13A's memories, as code
 * built for a larger part does. ATtiny13A, any clock.
 * Each pass stores 0xA5 at every data address from just past RAMEND (0x9F)
 * up to 0x136 (I/O addresses of larger parts, which simavr 1.6 stores
 * without a bounds check), then reads flash with LPM from 0xFF00 to 0xFFFF
 * (far past the 1 KB of flash), and counts the pass in `passes`.
 */
#include <avr/io.h>
#include <stdint.h>

volatile uint8_t passes;
volatile uint8_t sink;

int main(void) {
    for (;;) {
        for (uint16_t a = RAMEND + 1; a <= 0x136; a++)
            *(volatile uint8_t *)a = 0xA5;
        uint8_t sum = 0;
        for (uint16_t z = 0xFF00; z != 0; z++) {
            uint8_t v;
            __asm__ volatile("lpm %0, Z" : "=r"(v) : "z"(z));
            sum += v;
        }
        sink = sum;
        passes++;
    }
}
