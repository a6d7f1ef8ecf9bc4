/*
 * button_die -- a tiny electronic die for the ATtiny13A
 * ======================================================
 *
 * Press the button, get a number 1..6 on seven LEDs laid out like the pips
 * of a die. The face stays lit until the next press.
 *
 * MCU / clock / fuses
 * -------------------
 *   ATtiny13A, internal 9.6 MHz RC oscillator with CKDIV8 -> F_CPU = 1.2 MHz
 *   (this is the factory default clock setting).
 *   Fuses: lfuse = 0x6A  (CKSEL=10 9.6 MHz, SUT=10, CKDIV8 programmed)
 *          hfuse = 0xFF  (BOD off, RESET pin kept as reset, SPI enabled)
 *   e.g.  avrdude -c usbasp -p t13 -U lfuse:w:0x6A:m -U hfuse:w:0xFF:m
 *
 * Pinout (DIP-8 / SOIC-8)
 * -----------------------
 *                      +---\/---+
 *      (RESET) PB5  1 -|        |- 8  VCC  (3 V)
 *  centre+/mid- PB3  2 -|ATtiny13A|- 7  PB2  mid+/centre-
 *   roll button PB4  3 -|        |- 6  PB1  diagB+/diagA-
 *               GND  4 -|        |- 5  PB0  diagA+/diagB-
 *                      +--------+
 *   ("x+" = anode of group x, "x-" = cathode of group x)
 *
 *   LEDs are wired as series pairs between two port pins, each string with
 *   its own resistor (~100 R at 3 V, two red LEDs in series need ~3.6 V to
 *   glow brightly -- use low-Vf LEDs or 2xAA/LiPo as you see fit):
 *
 *     PB0 -->|-->|-- PB1   top-left + bottom-right          ("diag-A")
 *     PB1 -->|-->|-- PB0   top-right + bottom-left          ("diag-B")
 *     PB2 -->|-->|-- PB3   middle-left + middle-right       ("middle")
 *     PB3 -->|------ PB2   centre                           ("centre")
 *
 *     Pip layout:   TL  .  TR
 *                   ML  C  MR
 *                   BL  .  BR
 *
 *   Roll button: PB4 to GND, internal pull-up enabled, reads low when pressed.
 *
 * Faces
 * -----
 *   1 = C            2 = TR+BL (diag-B)     3 = diag-B + C
 *   4 = diag-A + diag-B          5 = diag-A + diag-B + C
 *   6 = diag-A + diag-B + middle pair
 *
 * Timing
 * ------
 *   Timer0 in CTC mode, clk/8, OCR0A = 149 -> interrupt every 1.000 ms.
 *   Each tick:
 *     - LED multiplexing: the two pin pairs (PB0/PB1 and PB2/PB3) are
 *       independent. If a face needs both directions on one pair (faces 4,5,6
 *       need diag-A and diag-B) the pair alternates direction every tick,
 *       i.e. each diagonal is lit 1 ms out of 2 ms (500 Hz refresh, 50 %).
 *       A pair that only needs one direction is driven steadily and is never
 *       rewritten, so faces 1, 2, 3 and the middle/centre LEDs are steady DC.
 *     - Button debounce: PB4 sampled every 1 ms, a new level is accepted once
 *       it has been seen for 12 consecutive samples (12 ms).
 *   A pin-change interrupt on PB4 grabs TCNT0 (free running 0..149 at
 *   150 kHz) at every edge of the button and stirs it into an entropy byte;
 *   together with the millisecond counter this is the randomness source.
 *   Between events the CPU sleeps in IDLE mode; Timer0 wakes it every 1 ms.
 *
 * Randomness
 * ----------
 *   16-bit xorshift (7, 9, 8), period 65535. On each debounced press the
 *   state is XORed with (ms counter, edge-time entropy), then values are
 *   drawn and the low three bits taken; 6 and 7 are rejected and redrawn, so
 *   1..6 are equally likely (no modulo bias).
 *
 * Unused / idle pins are inputs WITHOUT pull-up (DDR=0, PORT=0); the only
 * pull-up ever enabled is the one on the button (PB4). No EEPROM is used.
 *
 * Build:
 *   avr-gcc -Os -std=gnu11 -Wall -Wextra -Werror -mmcu=attiny13a \
 *           -DF_CPU=1200000UL -I/usr/include/simavr -o button_die.elf main.c
 *   avr-objcopy -O ihex -R .eeprom button_die.elf button_die.hex
 */

#ifndef F_CPU
#define F_CPU 1200000UL
#endif

#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

/*
 * Tag the ELF with chip and clock for simavr (.mmcu section, not loaded into
 * flash). The header lives in /usr/include/simavr/avr/ on Debian/Ubuntu;
 * build with -I/usr/include/simavr (or -idirafter /usr/include). If it can't
 * be found the tag is simply left out.
 */
#if defined(__has_include)
#if __has_include(<simavr/avr/avr_mcu_section.h>)
#include <simavr/avr/avr_mcu_section.h>
#define HAVE_MCU_TAG 1
#elif __has_include(<avr/avr_mcu_section.h>)
#include <avr/avr_mcu_section.h>
#define HAVE_MCU_TAG 1
#endif
#endif
#ifdef HAVE_MCU_TAG
AVR_MCU(F_CPU, "attiny13a");
#endif

/* ---- pins ---------------------------------------------------------- */

#define LED_MASK 0x0F /* PB0..PB3 */
#define BTN_BIT PB4
#define BTN_MASK (1 << BTN_BIT)

/*
 * LED groups. Each group bit is chosen so that it equals the PORTB bit that
 * is driven high (the anode) for that group; the cathode is the other pin
 * of the same pair, driven low.
 */
#define G_DIAG_A 0x01 /* TL+BR : PB0 high, PB1 low */
#define G_DIAG_B 0x02 /* TR+BL : PB1 high, PB0 low */
#define G_MIDDLE 0x04 /* ML+MR : PB2 high, PB3 low */
#define G_CENTRE 0x08 /* C     : PB3 high, PB2 low */

#define PAIR_LO 0x03 /* PB0/PB1 */
#define PAIR_HI 0x0C /* PB2/PB3 */

/* ---- timing -------------------------------------------------------- */

#define TIMER_PRESCALE 8
#define TICK_HZ 1000UL
#define OCR_VALUE (F_CPU / TIMER_PRESCALE / TICK_HZ - 1) /* 149 */
#define DEBOUNCE_TICKS 12                                /* ms of stable level before accepting */

#if OCR_VALUE > 255 || OCR_VALUE < 1
#error "Timer0 compare value out of range for this F_CPU"
#endif

/* ---- state ----------------------------------------------------------- */

static const uint8_t face_groups[6] = {
    G_CENTRE,                       /* 1 */
    G_DIAG_B,                       /* 2 */
    G_DIAG_B | G_CENTRE,            /* 3 */
    G_DIAG_A | G_DIAG_B,            /* 4 */
    G_DIAG_A | G_DIAG_B | G_CENTRE, /* 5 */
    G_DIAG_A | G_DIAG_B | G_MIDDLE, /* 6 */
};

static volatile uint8_t show;     /* groups wanted on the display      */
static volatile uint8_t pressed;  /* set by ISR on debounced press     */
static volatile uint8_t ticks;    /* free-running millisecond counter  */
static volatile uint8_t edge_mix; /* TCNT0 samples taken at PB4 edges  */

static uint16_t rng = 0xACE1u; /* xorshift state, never zero        */

/* Only touched from the timer ISR. */
static uint8_t cur_port; /* LED bits of PORTB currently set  */
static uint8_t cur_ddr;  /* LED bits of DDRB currently set   */
static uint8_t phase;
static uint8_t btn_stable = 1; /* 1 = released                      */
static uint8_t btn_count;

/* ---- LED output ------------------------------------------------------ */

/*
 * Apply a new LED drive pattern. Order matters so that no LED pin is ever
 * an input with its pull-up switched on:
 *   1. clear every PORT bit that is not high in both old and new pattern
 *      (pins about to become inputs are now plain low outputs),
 *   2. set the new DDR (pins that become outputs start out low),
 *   3. set the new PORT bits.
 */
static inline void led_apply(uint8_t ddr, uint8_t port) {
    if (ddr == cur_ddr && port == cur_port)
        return; /* steady: leave it alone */

    PORTB = BTN_MASK | (cur_port & port);
    DDRB = ddr;
    PORTB = BTN_MASK | port;

    cur_ddr = ddr;
    cur_port = port;
}

static inline void led_refresh(void) {
    uint8_t g = show;

    phase ^= 1;

    /* A pin pair can only conduct one way at a time: alternate if both. */
    if ((g & PAIR_LO) == PAIR_LO)
        g &= phase ? (uint8_t)~G_DIAG_B : (uint8_t)~G_DIAG_A;
    if ((g & PAIR_HI) == PAIR_HI)
        g &= phase ? (uint8_t)~G_CENTRE : (uint8_t)~G_MIDDLE;

    uint8_t ddr = 0;
    if (g & PAIR_LO)
        ddr |= PAIR_LO;
    if (g & PAIR_HI)
        ddr |= PAIR_HI;

    led_apply(ddr, g); /* group bits == anode bits, see G_* above */
}

/* ---- button ---------------------------------------------------------- */

static inline void button_sample(void) {
    uint8_t level = (PINB & BTN_MASK) ? 1 : 0;

    if (level == btn_stable) {
        btn_count = 0;
        return;
    }
    if (++btn_count >= DEBOUNCE_TICKS) {
        btn_count = 0;
        btn_stable = level;
        if (level == 0)
            pressed = 1; /* falling edge = press */
    }
}

/* ---- interrupts ------------------------------------------------------ */

ISR(TIM0_COMPA_vect) {
    ticks++;
    led_refresh();
    button_sample();
}

ISR(PCINT0_vect) {
    /* Time of each button edge (bounces included) at 6.7 us resolution. */
    uint8_t e = edge_mix;
    e = (uint8_t)((e << 3) | (e >> 5));
    edge_mix = e ^ TCNT0;
}

/* ---- random ---------------------------------------------------------- */

static uint8_t roll(void) {
    uint16_t x = rng;
    uint8_t r;

    x ^= ((uint16_t)ticks << 8) | edge_mix;
    if (x == 0)
        x = 0xACE1u;

    do {
        x ^= x << 7;
        x ^= x >> 9;
        x ^= x << 8;
        r = (uint8_t)x & 7;
    } while (r >= 6); /* reject 6, 7: no modulo bias */

    rng = x;
    return r; /* 0..5 -> face 1..6 */
}

/* ---- main ------------------------------------------------------------ */

int main(void) {
    /* All LED pins: inputs, no pull-up. Button: input with pull-up. */
    DDRB = 0;
    PORTB = BTN_MASK;

    /* Save a little power: analog comparator and ADC are not used. */
    ACSR = (1 << ACD);
    PRR = (1 << PRADC);

    /* Timer0: CTC, clk/8, 1 ms compare interrupt. */
    TCCR0A = (1 << WGM01);
    OCR0A = (uint8_t)OCR_VALUE;
    TIMSK0 = (1 << OCIE0A);
    TCCR0B = (1 << CS01);

    /* Pin change on PB4 only feeds the entropy byte. */
    PCMSK = (1 << PCINT4);
    GIMSK = (1 << PCIE);

    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();

    for (;;) {
        cli();
        if (pressed) {
            pressed = 0;
            sei();
            show = face_groups[roll()];
            continue;
        }
        sleep_enable();
        sei(); /* sleep executes before any ISR runs */
        sleep_cpu();
        sleep_disable();
    }
}
