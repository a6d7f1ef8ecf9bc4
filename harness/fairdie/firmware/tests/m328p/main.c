/*
 * m328p: an ATmega328P program (16 MHz crystal, the Arduino Uno's chip) that
 * must never run on an ATtiny13A. The refusal tests load it for the tiny13
 * and expect a one-line FirmwareError before any simulator runs it.
 *
 * Pinout: PD1 (TXD) carries the USART0 output, PB5 (the Uno's LED) blinks.
 * Fuses: lfuse 0xFF (external crystal), hfuse 0xDE, efuse 0xFD (as an Uno).
 *
 * What makes it foreign to a tiny13 (each is one of the checks):
 *   - built for avr5: the vector table is JMPs, 4 bytes per vector;
 *   - the stack pointer is set to RAMEND 0x08FF and .bss lies at 0x0100
 *     and up (a tiny13's SRAM ends at 0x009F), 128 B of it a ring buffer;
 *   - USART0, Timer1 and their interrupts sit at I/O addresses above 0x5F.
 * Still small: the whole flash image is under 1 KB, as a tiny13's is.
 * Timer1 ticks at 100 Hz; every tick queues a line "t=<n>\n" that the UDRE
 * interrupt sends out of UDR0 at 38400 baud.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>

#define BAUD 38400UL
#define TICK_HZ 100UL
#define RING 128 /* a power of two */

static volatile uint8_t ring[RING];
static volatile uint8_t head, tail;
static volatile uint16_t ticks;

static void put(uint8_t c) {
    uint8_t next = (head + 1) & (RING - 1);
    if (next == tail) {
        return; /* full: drop */
    }
    ring[head] = c;
    head = next;
    UCSR0B |= 1 << UDRIE0;
}

ISR(USART_UDRE_vect) {
    if (head == tail) {
        UCSR0B &= ~(1 << UDRIE0);
        return;
    }
    UDR0 = ring[tail];
    tail = (tail + 1) & (RING - 1);
}

ISR(TIMER1_COMPA_vect) {
    ticks++;
    PINB = 1 << PB5;
}

static void put_number(uint16_t n) {
    char digits[5];
    uint8_t i = 0;
    do {
        digits[i++] = (char)('0' + n % 10);
        n /= 10;
    } while (n);
    while (i) {
        put((uint8_t)digits[--i]);
    }
}

int main(void) {
    /* the stack at the top of the 328P's 2 KB of SRAM (the C startup did too) */
    SP = RAMEND;
    DDRB = 1 << DDB5;
    UBRR0 = (uint16_t)(F_CPU / (16 * BAUD) - 1);
    UCSR0B = 1 << TXEN0;
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00); /* 8N1 */
    OCR1A = (uint16_t)(F_CPU / 64 / TICK_HZ - 1);
    TCCR1B = (1 << WGM12) | (1 << CS11) | (1 << CS10); /* CTC, clk/64 */
    TIMSK1 = 1 << OCIE1A;
    sei();
    uint16_t seen = 0;
    for (;;) {
        cli();
        uint16_t now = ticks;
        sei();
        if (now != seen) {
            seen = now;
            put('t');
            put('=');
            put_number(now);
            put('\n');
        }
    }
}
