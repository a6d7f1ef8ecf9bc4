/*
 * lightsout -- Lights Out on a line of five, for the ATtiny85
 * ===========================================================
 *
 * Five LEDs in a row, each with a button. A press toggles its LED and the
 * LEDs next to it; the puzzle is solved when all five are lit. It starts
 * with LEDs 1 and 3 lit (presses 0, 2, 4 solve it). After 30 s without a
 * press the LEDs go dark and the chip powers down; any button wakes it, and
 * the LEDs come back as they were (the waking press toggles nothing).
 *
 * MCU / clock / fuses
 * -------------------
 *   ATtiny85, internal 8 MHz RC oscillator, CKDIV8 unprogrammed: F_CPU = 8 MHz.
 *   Fuses: lfuse = 0xE2 (CKSEL=0010 8 MHz, SUT=10, CKDIV8 unprogrammed)
 *          hfuse = 0xDF (BOD off, RESET kept, SPI enabled), efuse = 0xFF
 *   e.g.  avrdude -c usbasp -p t85 -U lfuse:w:0xE2:m -U hfuse:w:0xDF:m
 *
 * Pinout (DIP-8 / SOIC-8)
 * -----------------------
 *                    +---\/---+
 *    (RESET) PB5  1 -|        |- 8  VCC  (3 V)
 *    LED3/B3 PB3  2 -|ATtiny85|- 7  PB2  LED2/B2
 *    LED4/B4 PB4  3 -|        |- 6  PB1  LED1/B1
 *            GND  4 -|        |- 5  PB0  LED0/B0
 *                    +--------+
 *
 *   Each of PB0..PB4 carries one LED and one button:
 *     VCC --[330R]-->|-- PBn      LED n, lit while PBn is driven low
 *     PBn --[1k]--- button --- GND
 *   The LED sinks into the pin, so the pull-up holds it dark while the pin
 *   is an input; the 1k keeps a pressed button from shorting a pin driven
 *   high.
 *
 * Sharing the pins
 * ----------------
 *   Timer0 interrupts every 1 ms (CTC, clk/64, OCR0A = 124). Each tick turns
 *   PB0..PB4 into inputs with pull-ups (driven high first, so no LED flashes),
 *   waits 5 us, reads the buttons, then drives the LEDs again: lit pins low,
 *   dark pins high. A button's LED shows while it is pressed during those
 *   5 us (0.5 % of the time: unseen). A button is debounced over 10 ticks.
 *
 * Sleep
 * -----
 *   Between ticks the CPU idles. After 30 000 ticks without a press it
 *   stops Timer0, leaves PB0..PB4 inputs with pull-ups (every LED dark),
 *   enables the pin-change interrupt on them and enters power-down. A press
 *   wakes it (pin change is a power-down wake-up source); the button that
 *   woke it is taken as already down, so it toggles nothing.
 */

#ifndef F_CPU
#define F_CPU 8000000UL
#endif

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>
#include <util/delay.h>

/* Tag the ELF with chip and clock for simavr (.mmcu section), when its
 * header is at hand. */
#if defined(__has_include)
#if __has_include(<avr_mcu_section.h>)
#include <avr_mcu_section.h>
AVR_MCU(F_CPU, "attiny85");
#endif
#endif

#define PINS 0x1F  /* PB0..PB4 */
#define START 0x0A /* LEDs 1 and 3 */
#define TICK_OCR (F_CPU / 64 / 1000 - 1)
#define DEBOUNCE_TICKS 10
#define SLEEP_TICKS 30000u

#if TICK_OCR > 255
#error "Timer0 compare value out of range for this F_CPU"
#endif

static volatile uint8_t lights = START; /* bit n: LED n lit */
static volatile uint8_t presses;        /* debounced presses, bit n: button n */
static volatile uint8_t sleepy;         /* set after SLEEP_TICKS without a press */

/* Only touched from the timer ISR, and from main while the timer is off. */
static uint8_t stable = PINS; /* debounced levels: 1 = released */
static uint8_t counts[5];
static uint16_t idle;

/* Pins as inputs with pull-ups: driven high first, so a lit LED goes dark
 * rather than flashing through a low input. */
static inline void pins_to_inputs(void) {
    PORTB |= PINS;
    DDRB &= (uint8_t)~PINS;
}

static inline void pins_to_leds(uint8_t lit) {
    DDRB |= PINS; /* high: every LED dark */
    PORTB &= (uint8_t)~lit;
}

static inline uint8_t read_buttons(void) {
    pins_to_inputs();
    _delay_us(5);
    return PINB & PINS;
}

static void debounce(uint8_t level) {
    for (uint8_t n = 0; n < 5; n++) {
        uint8_t bit = (uint8_t)(1u << n);
        if ((level ^ stable) & bit) {
            if (++counts[n] >= DEBOUNCE_TICKS) {
                counts[n] = 0;
                stable ^= bit;
                if (!(level & bit))
                    presses |= bit; /* a falling edge: pressed */
            }
        } else {
            counts[n] = 0;
        }
    }
}

ISR(TIMER0_COMPA_vect) {
    uint8_t level = read_buttons();
    pins_to_leds(lights);
    debounce(level);
    if (presses) {
        idle = 0;
    } else if (++idle >= SLEEP_TICKS) {
        idle = 0;
        sleepy = 1;
    }
}

EMPTY_INTERRUPT(PCINT0_vect);

static void timer_start(void) {
    TCNT0 = 0;
    TCCR0A = 1 << WGM01; /* CTC */
    OCR0A = (uint8_t)TICK_OCR;
    TIFR = 1 << OCF0A;
    TIMSK = 1 << OCIE0A;
    TCCR0B = (1 << CS01) | (1 << CS00); /* clk/64: 125 kHz */
}

static void power_down(void) {
    TCCR0B = 0; /* Timer0 stopped */
    TIMSK = 0;
    pins_to_inputs(); /* every LED dark, every button readable */
    PCMSK = PINS;
    GIFR = 1 << PCIF; /* no stale pin change */
    GIMSK = 1 << PCIE;
    set_sleep_mode(SLEEP_MODE_PWR_DOWN);
    cli();
    sleep_enable();
    sei(); /* SLEEP runs before any pending interrupt */
    sleep_cpu();
    sleep_disable();
    GIMSK = 0;
    PCMSK = 0;
    /* the button that woke us is down already: no press from it */
    _delay_us(5);
    stable = PINB & PINS;
    for (uint8_t n = 0; n < 5; n++)
        counts[n] = 0;
    sleepy = 0;
    timer_start();
}

int main(void) {
    ACSR = 1 << ACD;                                   /* analog comparator off */
    PRR = (1 << PRTIM1) | (1 << PRUSI) | (1 << PRADC); /* unused parts off */
    pins_to_leds(lights);
    timer_start();
    sei();
    for (;;) {
        cli();
        uint8_t p = presses;
        presses = 0;
        sei();
        for (uint8_t n = 0; n < 5; n++)
            if (p & (1u << n))
                lights ^= (uint8_t)((7u << n) >> 1) & PINS; /* n and its neighbours */
        if (sleepy) {
            power_down();
            continue;
        }
        set_sleep_mode(SLEEP_MODE_IDLE);
        cli();
        if (!presses && !sleepy) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
