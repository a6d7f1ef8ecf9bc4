/*
 * fairdie: a "fair" electronic die on an ATtiny13A, one switch, no PRNG.
 *
 * Pinout (DIP8; LED groups and the charlieplexed table in pins.h):
 *
 *                    +--\/--+
 *       RESET  PB5  1|      |8  VCC (CR2032 through the power switch)
 *     group D  PB3  2|      |7  PB2  group C
 *   ADC2 (in)  PB4  3|      |6  PB1  group B
 *              GND  4|      |5  PB0  group A
 *                    +------+
 *   PB4 is left floating: its ADC noise is the only source of chance.
 *
 * Clock: F_CPU defaults to 1.2 MHz = 9.6 MHz internal RC with CKDIV8. The
 * build may set another F_CPU (e.g. 9600000 with CKDIV8 unprogrammed); the
 * ADC and Timer0 prescalers follow it.
 * Fuses (declared below with avr-libc's FUSES, in the ELF's .fuse section;
 * `fairdie build` prints them): lfuse 0x6A, the factory value (9.6 MHz RC,
 * SUT 64 ms, CKDIV8); hfuse 0xFD: the factory 0xFF with BODLEVEL = 10, the
 * brown-out detector on at 1.8 V (RESET enabled, WDTON unprogrammed: safety
 * level 1, so the watchdog can run in interrupt mode).
 *   Why 1.8 V: at 1.2 MHz the datasheet's safe operating area starts at
 *   1.8 V (0..4 MHz at 1.8..5.5 V), and the detector holds the chip in reset
 *   below it, where the CPU may misexecute and corrupt the EEPROM (the
 *   datasheet's "Preventing EEPROM Corruption"). 2.7 V would reset a CR2032
 *   that sags under the LEDs' load well before it is spent; 1.8 V uses the
 *   cell to its end (about 2.0 V) and still guards the minimum. An EEPROM
 *   write in progress when the detector trips completes if the supply holds.
 *   Burn: avrdude -c usbasp -p t13 -U lfuse:w:0x6A:m -U hfuse:w:0xFD:m
 *
 * Every press of the switch is a power-on; releasing it cuts power.
 *   1. Display off; ADC2 converted back to back against Vcc (fair.S,
 *      fair_sample): 64 to 256 codes, until 16 fresh unbiased bits are in
 *      hand, under the health tests of NIST SP 800-90B 4.4 (fair.h).
 *   2. Load the state from EEPROM (store.S): each face's offset above the
 *      least-counted face (0..3) and a 12-bit pool. Any bytes are valid (a
 *      fresh chip holds 0xFF: no record, so a fresh table).
 *   3. If the noise failed a health test: no roll, nothing written, the
 *      fault pattern (a bar across the middle: centre, middle-left and
 *      middle-right) instead of a face. Else the rule (fair.S;
 *      fairdie.subjects.die._fair mirrors it bit for bit): the fresh bits
 *      combined with the pool; a face drawn with weight 8, 3 or 1 for offset
 *      0, 1 or 2 (none for 3), without modulo bias; its offset goes up and
 *      the least is kept at 0.
 *   4. Write the state as the next record of the ring and wait until EEPROM
 *      is idle, so a face that is shown is never lost.
 *   5. Show the face (or the fault) and sleep. The watchdog (interrupt mode)
 *      counts 64 ms ticks from power-on: after 155 ticks (9.92 s) of
 *      continuous power the table is cleared, inside the 9.9 .. 10.0 s
 *      window the tests hold.
 *   6. Clear: write a record with every offset 0 (the pool is kept), wait,
 *      light every LED, stay so.
 *
 * DIE_RULE_SEED=1 builds the seed's rule instead (rule.c): six byte counters
 * at EEPROM 0..5, one conversion, candidate (code % 3) of the 1st, 3rd and
 * 5th faces by count, a rebase at 255; the clear zeroes the six bytes.
 *
 * Variants: DIE_CHARLIEPLEX=0 drives the four LED groups directly and sleeps
 * in power-down (outputs keep their levels). DIE_CHARLIEPLEX=1 drives the
 * seven LEDs charlieplexed from a Timer0 interrupt and sleeps in idle.
 *
 * Mutants (broken on purpose, for `fairdie verify`'s tests; none is set in
 * any shipped variant, and without them the build is byte for byte the
 * same): DIE_MUTANT_LED_MAP=1 swaps groups C and D (pins.h);
 * DIE_MUTANT_SHOW_FIRST=1 lights the face before its roll is stored;
 * DIE_MUTANT_CLEAR_TICKS=N clears after N watchdog ticks instead of 155;
 * DIE_MUTANT_REBASE_WRAP=1 lets the seed's rebase wrap a 0 to 255 (rule.c);
 * DIE_MUTANT_NO_HEALTH=1 rolls whatever the health tests say (with the fresh
 * bits of the last healthy press: none since power-on);
 * DIE_MUTANT_BOD_OFF=1 declares the factory hfuse 0xFF (brown-out detector
 * off), which `fairdie verify` fails and the power-cut campaigns cut with the
 * CPU misexecuting below its minimum voltage.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/pgmspace.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "fair.h"
#include "pins.h"
#include "rule.h"
#include "store.h"

#ifndef F_CPU
#error "F_CPU must be set by the build (fairdie.toolchain does)"
#endif
#ifndef DIE_CHARLIEPLEX
#define DIE_CHARLIEPLEX 0
#endif
#ifndef DIE_RULE_SEED
#define DIE_RULE_SEED 0
#endif
#ifndef FAIRDIE_MCU
#define FAIRDIE_MCU "attiny13a"
#endif

/* Name the chip, clock and supply in the ELF so simavr needs no options. */
#if __has_include(<avr_mcu_section.h>)
#include <avr_mcu_section.h>
AVR_MCU(F_CPU, FAIRDIE_MCU);
AVR_MCU_VOLTAGES(3000, 3000, 0)
#endif

/* The fuses to burn (the .fuse section: no flash used). The brown-out
 * detector on at 1.8 V (BODLEVEL = 10): see the banner. */
#include <avr/fuse.h>
#ifndef DIE_MUTANT_BOD_OFF
#define DIE_MUTANT_BOD_OFF 0
#endif
FUSES = {
    .low = LFUSE_DEFAULT, /* 0x6A */
#if DIE_MUTANT_BOD_OFF
    .high = HFUSE_DEFAULT, /* mutant: 0xFF, the detector off */
#else
    .high = HFUSE_DEFAULT & FUSE_BODLEVEL0, /* 0xFD */
#endif
};

/*
 * Clear timing. The watchdog runs on its own 128 kHz oscillator, so its
 * ticks depend neither on F_CPU nor on how long the EEPROM writes take, and
 * it starts within microseconds of power-on: 155 x 64 ms = 9.920 s, which
 * leaves some 60 ms for the clear's six writes (3.4 ms each) before 10.0 s.
 * (A real chip adds its 64 ms start-up delay and the oscillator's
 * tolerance: about 10 s either way.)
 */
#define WDT_BITS _BV(WDP1) /* 16 ms << 2 = 64 ms */
#ifdef DIE_MUTANT_CLEAR_TICKS
#define CLEAR_TICKS DIE_MUTANT_CLEAR_TICKS /* mutant: the clear at another time */
#else
#define CLEAR_TICKS 155
#endif

/* What show() takes: group bits (direct) or LED bits (charlieplexed). */
#if DIE_CHARLIEPLEX
#define SEG_A CP_GROUP_A
#define SEG_B CP_GROUP_B
#define SEG_C CP_GROUP_C
#define SEG_D CP_GROUP_D
#else
#define SEG_A GROUP_A
#define SEG_B GROUP_B
#define SEG_C GROUP_C
#define SEG_D GROUP_D
#endif
#define SEG_ALL (SEG_A | SEG_B | SEG_C | SEG_D)

/* The faces, then the fault pattern: a bar across the middle, which no
 * face and not the clear's every LED shows (the board files name it
 * "fault"). */
#define FAULT DIE_FACES
static const uint8_t FACE_SEGS[DIE_FACES + 1] PROGMEM = {
    SEG_A,                 /* 1 */
    SEG_B,                 /* 2 */
    SEG_A | SEG_B,         /* 3 */
    SEG_B | SEG_C,         /* 4 */
    SEG_A | SEG_B | SEG_C, /* 5 */
    SEG_B | SEG_C | SEG_D, /* 6 */
    SEG_A | SEG_D,         /* fault */
};

static volatile uint8_t wdt_ticks;

#if !DIE_RULE_SEED
uint8_t store_record[STORE_RECORD]; /* store.h; defined in C for its debug type */
#endif

/* WDTCR |= _BV(WDTIE); wdt_ticks++; in assembly: saving only r24 and SREG
 * takes 30 bytes, as C 40. Setting WDTIE is a no-op on a real chip, which
 * stays in interrupt mode; it keeps the ticks coming in simulators that make
 * the interrupt one-shot (simavr 1.6 does, unless the harness fixes it). */
ISR(WDT_vect, ISR_NAKED) {
    __asm__ volatile("push r24\n\t"
                     "in r24, __SREG__\n\t"
                     "push r24\n\t"
                     "in r24, %[wdtcr]\n\t"
                     "ori r24, %[wdtie]\n\t"
                     "out %[wdtcr], r24\n\t"
                     "lds r24, %[ticks]\n\t"
                     "inc r24\n\t"
                     "sts %[ticks], r24\n\t"
                     "pop r24\n\t"
                     "out __SREG__, r24\n\t"
                     "pop r24\n\t"
                     "reti" ::[wdtcr] "I"(_SFR_IO_ADDR(WDTCR)),
                     [wdtie] "M"(_BV(WDTIE)), [ticks] "i"(&wdt_ticks));
}

#if DIE_CHARLIEPLEX

/* Timer0 in CTC mode, one LED slot per tick, about 1.5 kHz at any F_CPU. */
#define TICK_HZ 1500UL
#if F_CPU / 8 / TICK_HZ <= 256
#define TIMER0_CS _BV(CS01) /* clk/8 */
#define TIMER0_DIV 8
#else
#define TIMER0_CS (_BV(CS01) | _BV(CS00)) /* clk/64 */
#define TIMER0_DIV 64
#endif
#define TIMER0_TOP (F_CPU / TIMER0_DIV / TICK_HZ - 1)
_Static_assert(TIMER0_TOP >= 1 && TIMER0_TOP <= 255, "no Timer0 setting for this F_CPU");

/* Indexed by LED number (pins.h): the bit of the same number in `lit`. */
static const uint8_t CP_LEDS[CP_LED_COUNT] PROGMEM = {
    CP_CENTRE,       /* 0 */
    CP_TOP_RIGHT,    /* 1 */
    CP_BOTTOM_LEFT,  /* 2 */
    CP_TOP_LEFT,     /* 3 */
    CP_BOTTOM_RIGHT, /* 4 */
    CP_MIDDLE_LEFT,  /* 5 */
    CP_MIDDLE_RIGHT, /* 6 */
};

static volatile uint8_t lit; /* LED bits to show */
static uint8_t slot;         /* LED of the coming slot, 0..6 */
static uint8_t pending;      /* `lit` at frame start, shifted: bit 0 is that LED */
static uint8_t next_ddr;     /* its pin levels, prepared one slot ahead */
static uint8_t next_port;

/* In assembly (in C 128 bytes, here 100), as this C:
 *
 *     PORTB = 0;
 *     DDRB = 0;
 *     DDRB = next_ddr;
 *     PORTB = next_port;
 *     if (++slot == CP_LED_COUNT) {
 *         slot = 0;
 *         pending = lit;
 *     } else {
 *         pending >>= 1;
 *     }
 *     uint8_t pair = pgm_read_byte(&CP_LEDS[slot]);
 *     if (!(pending & 1)) {
 *         pair = 0;
 *     }
 *     next_port = pair >> 4;                // anode
 *     next_ddr = next_port | (pair & 0x0F); // anode and cathode
 *
 * Release all four pins before driving the next pair: outputs low first (the
 * lit LED goes dark), then inputs, so no pull-up is ever enabled and no
 * half-switched pin can light a third LED. Then both pins of the pair as low
 * outputs (still dark), then the anode high.
 *
 * Work out the following slot only then, so every LED lights at the same
 * offset from its tick and stays lit for exactly one tick: each lit LED gets
 * one slot in seven, and brightness does not depend on the face (nor does
 * the ISR's time: no branch depends on the LEDs). A shifting copy of `lit`
 * avoids a variable shift (time and stack). */
ISR(TIM0_COMPA_vect, ISR_NAKED) {
    __asm__ volatile("push r24\n\t"
                     "in r24, __SREG__\n\t"
                     "push r24\n\t"
                     "ldi r24, 0\n\t"
                     "out %[port], r24\n\t"
                     "out %[ddr], r24\n\t"
                     "lds r24, %[next_ddr]\n\t"
                     "out %[ddr], r24\n\t"
                     "lds r24, %[next_port]\n\t"
                     "out %[port], r24\n\t"
                     "push r30\n\t"
                     "push r31\n\t"
                     "lds r30, %[slot]\n\t"
                     "lds r24, %[pending]\n\t"
                     "lsr r24\n\t"
                     "inc r30\n\t"
                     "cpi r30, %[count]\n\t"
                     "brne 1f\n\t"
                     "ldi r30, 0\n\t"
                     "lds r24, %[lit]\n"
                     "1:\n\t"
                     "sts %[slot], r30\n\t"
                     "sts %[pending], r24\n\t"
                     "ldi r31, 0\n\t"
                     "subi r30, lo8(-(%[leds]))\n\t"
                     "sbci r31, hi8(-(%[leds]))\n\t"
                     "lpm r30, Z\n\t"
                     "sbrs r24, 0\n\t"
                     "ldi r30, 0\n\t"
                     "mov r24, r30\n\t"
                     "swap r24\n\t"
                     "andi r24, 0x0F\n\t"
                     "sts %[next_port], r24\n\t"
                     "andi r30, 0x0F\n\t"
                     "or r30, r24\n\t"
                     "sts %[next_ddr], r30\n\t"
                     "pop r31\n\t"
                     "pop r30\n\t"
                     "pop r24\n\t"
                     "out __SREG__, r24\n\t"
                     "pop r24\n\t"
                     "reti" ::[port] "I"(_SFR_IO_ADDR(PORTB)),
                     [ddr] "I"(_SFR_IO_ADDR(DDRB)), [next_ddr] "i"(&next_ddr),
                     [next_port] "i"(&next_port), [slot] "i"(&slot), [pending] "i"(&pending),
                     [lit] "i"(&lit), [count] "M"(CP_LED_COUNT), [leds] "i"(CP_LEDS));
}

static void show(uint8_t segs) {
    lit = segs;
    TCCR0B = TIMER0_CS; /* start multiplexing; shown from the next frame on */
}

#else /* direct drive */

static void show(uint8_t segs) { PORTB = segs; }

#endif /* DIE_CHARLIEPLEX */

#if DIE_RULE_SEED

static uint16_t adc_read_once(void) {
    ADMUX = ADC_MUX_BITS;
    ADCSRA = _BV(ADEN) | _BV(ADSC) | ADC_PS;
    while (ADCSRA & _BV(ADSC)) {
    }
    uint16_t code = ADC;
    ADCSRA = 0; /* ADC off: it would draw current while the face is shown */
    return code;
}

/* Write only the counters that changed, then wait until EEPROM is idle. */
static void save(const uint8_t c[DIE_FACES]) {
    for (uint8_t i = 0; i < DIE_FACES; i++) {
        eeprom_update_byte((uint8_t *)(uintptr_t)i, c[i]);
    }
    eeprom_busy_wait();
}

#endif /* DIE_RULE_SEED */

/* Sleep until the watchdog has counted `ticks`. */
static void sleep_until(uint8_t ticks) {
    for (;;) {
        cli();
        if (wdt_ticks >= ticks) {
            break;
        }
        /* SEI takes effect after the next instruction, so a tick that comes
         * after the test above still wakes this SLEEP instead of being lost. */
        sei();
        sleep_cpu();
    }
    sei();
}

__attribute__((noreturn)) static void stay_lit(void) {
    cli();
    WDTCR = _BV(WDCE) | _BV(WDE); /* nothing left to time: stop the watchdog */
    WDTCR = 0;
#if DIE_CHARLIEPLEX
    sei(); /* Timer0 keeps multiplexing */
#endif
    for (;;) {
        sleep_cpu();
    }
}

int main(void) {
    DDRB = LED_PINS; /* display off: LED pins low outputs */
    PORTB = 0;
    DIDR0 = ADC_DIDR_BIT; /* a floating digital input would draw current */

    /* Watchdog in interrupt mode: WDP may change only in the timed sequence
     * (WDCE+WDE, then the new value within 4 cycles, WDE=0). */
    WDTCR = _BV(WDCE) | _BV(WDE);
    WDTCR = _BV(WDTIE) | WDT_BITS;

#if DIE_CHARLIEPLEX
    TCCR0A = _BV(WGM01); /* CTC; show() starts the clock */
    OCR0A = TIMER0_TOP;
    TIMSK0 = _BV(OCIE0A);
#define SLEEP_MODE SLEEP_MODE_IDLE /* Timer0 must keep running */
#else
#define SLEEP_MODE SLEEP_MODE_PWR_DOWN /* outputs keep their levels */
#endif
    /* Sleep enabled and its mode in one write, 10 bytes less than sleep.h's
     * two: MCUCR's other bits (pull-ups allowed, INT0's sense) stay 0. */
    MCUCR = _BV(SE) | SLEEP_MODE;
    sei();

#if DIE_RULE_SEED
    uint8_t c[DIE_FACES];
    eeprom_read_block(c, (const void *)0, DIE_FACES);
    uint8_t face = die_roll(c, adc_read_once());
    save(c);
#else
    uint8_t healthy = fair_sample(); /* first: the same instants after every power-on */
    store_load();                    /* the clear below needs it in any case */
    uint8_t face = FAULT;
#if DIE_MUTANT_NO_HEALTH
    healthy = 1; /* mutant: a failed source rolls anyway, predictably */
#endif
    if (healthy) {
        face = fair_roll(store_record + 1, fair_noise);
#if DIE_MUTANT_SHOW_FIRST
        show(pgm_read_byte(&FACE_SEGS[face])); /* mutant: lit before it is stored */
#endif
        store_save();
    }
#endif
#if !DIE_MUTANT_SHOW_FIRST
    show(pgm_read_byte(&FACE_SEGS[face]));
#endif

    sleep_until(CLEAR_TICKS);

#if DIE_RULE_SEED
    for (uint8_t i = 0; i < DIE_FACES; i++) {
        c[i] = 0;
    }
    save(c);
#else
    store_record[1] = 0;     /* table bits 0..7 */
    store_record[2] &= 0xF0; /* table bits 8..11; the pool is kept */
    store_save();
#endif
    show(SEG_ALL);
    stay_lit();
}
