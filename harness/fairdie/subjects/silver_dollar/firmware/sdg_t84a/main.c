/*
 * The Silver Dollar Game on an ATtiny84A: twelve cells, five dollars, a
 * person against the device.
 *
 * Pinout (DIP14; the LED table and button bits in pins.h):
 *
 *                      +--\/--+
 *            VCC      1|      |14  GND
 *   button 4  PB0     2|      |13  PA0  LEDs (charlieplexed)
 *   button 5  PB1     3|      |12  PA1  LEDs
 *      RESET  PB3     4|      |11  PA2  LEDs
 *  button GO  PB2     5|      |10  PA3  LEDs
 *   button 3  PA7     6|      |9   PA4  button 1
 *   button 2  PA6     7|      |8   PA5  piezo (OC1B)
 *                      +------+
 *   Buttons close to GND (the chip's pull-ups hold them high). Button k
 *   moves the k-th dollar counted from the left.
 *
 * Clock: 8 MHz internal RC, CKDIV8 unprogrammed. Supply 3..5 V (two AAA
 * cells), no power switch.
 * Fuses (declared below with avr-libc's FUSES, in the ELF's .fuse section):
 * lfuse 0xE2 (8 MHz RC, SUT 64 ms, CKDIV8 off), hfuse 0xDF (RESET on, SPI
 * programming on, BOD off: it would draw current in power-down, and the game
 * writes no EEPROM for a brown-out to corrupt), efuse 0xFF.
 *
 * The game: cells 12 (left) to 1 (right), five dollars; a move takes one
 * dollar one or more cells right into empty cells, jumping none; the last
 * player able to move wins (all five on cells 5..1 ends the game). The
 * human moves first: a dollar's button once per cell (one dollar per turn),
 * then GO. A press that breaks this (a second dollar, a blocked dollar, GO
 * before any step) beeps and changes nothing; a valid step clicks. The
 * device moves 250 ms after the human's GO; an ended game's position (and
 * its tune) stays 3 s, then the idle light; GO starts the next game.
 * Sounds (sound.c): click B5 20 ms, beep C5 150 ms, the human's win C5 E5
 * G5 A5 B5, the device's win A5 F5 D5 C5.
 *
 * The device's move (game.c): if some move leaves a position from which the
 * human cannot force a win, one of all such moves, uniformly; else any legal
 * move, uniformly.
 *
 * The start, drawn at the GO that begins a game: uniform among the
 * positions whose leftmost dollar is on cell 12 or 11 and from which the
 * human, to move, can force a win.
 *
 * Where the chance comes from: the PRNG (rand.c) starts from a fixed seed,
 * so alone it would play the same games after every power-up. Every button
 * edge (bounces too) is timed by Timer0 to the microsecond within the frame
 * (scan.c), and at every debounced press that time and the frame count are
 * stirred into the PRNG: the moment a person presses GO decides the start,
 * and the moments of all the presses before a reply decide the device's
 * choice.
 *
 * Display: 12 LEDs charlieplexed on PA0..PA3, one lit per Timer0 tick (12.05
 * kHz), each refreshed every 996 us (1004 Hz); unlit pins are inputs
 * without pull-ups. Buttons are sampled once a frame and debounced (8
 * frames stable). Sound: Timer1 (sound.c).
 *
 * Idle: before a game, and after one ends, a light runs to and fro until GO.
 * After 30 s with no press, in any state but the device's move: display
 * off, sound off, power-down (Timer0 stops with the clock); only GO wakes
 * the chip (pin change on PB2), and play resumes where it was. The waking
 * press is no GO of the game.
 *
 * Variants (target.toml; each off unless set):
 *   SDG_TEST_POSITION=1: a position placed in EEPROM is the device's to move
 *     at power-on. EEPROM byte 0: 0x5D (else the game starts as usual);
 *     bytes 1..2: the cells, a 12-bit mask, little endian, bit c-1 for cell
 *     c (exactly five, not the end position); bytes 3..6: 32 bits stirred
 *     into the PRNG (little endian), the chance the presses would give. The
 *     device replies at once (its own code chooses), then the game goes on,
 *     the human to move.
 *   Mutants, broken on purpose for the suite's tests: SDG_MUTANT_LED_TABLE
 *   (cells 4 and 3 swapped in the LED table), SDG_MUTANT_FIRST_WIN (always
 *   the first winning move), SDG_MUTANT_START (no leftmost-cell rule),
 *   SDG_MUTANT_SLEEP_TIMER (idle sleep instead of power-down: Timer0 runs
 *   on and wakes the CPU every tick), SDG_MUTANT_NO_DEBOUNCE (every tick's
 *   sample taken as it is). Each combines with SDG_TEST_POSITION (a build's
 *   extra defines).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include "game.h"
#include "pins.h"
#include "rand.h"
#include "scan.h"
#include "sound.h"

#if SDG_TEST_POSITION
#include <avr/eeprom.h>
#endif

#ifndef F_CPU
#error "F_CPU must be set by the build (fairdie.toolchain does)"
#endif
#ifndef FAIRDIE_MCU
#define FAIRDIE_MCU "attiny84a"
#endif

/* Name the chip, clock and supply in the ELF so simavr needs no options. */
#if __has_include(<avr_mcu_section.h>)
#include <avr_mcu_section.h>
AVR_MCU(F_CPU, FAIRDIE_MCU);
AVR_MCU_VOLTAGES(3000, 3000, 0)
#endif

/* The fuses to burn (the .fuse section: no flash used); see the banner. */
#include <avr/fuse.h>
FUSES = {
    .low = LFUSE_DEFAULT | (unsigned char)~FUSE_CKDIV8, /* 0xE2: CKDIV8 unprogrammed */
    .high = HFUSE_DEFAULT,                              /* 0xDF: the detector off */
    .extended = EFUSE_DEFAULT,                          /* 0xFF */
};

#define IDLE_FRAMES FRAMES_MS(30000UL) /* no press this long: power-down */
#define REPLY_FRAMES FRAMES_MS(250UL)  /* GO to the device's move */
#define OVER_FRAMES FRAMES_MS(3000UL)  /* the end position shown, then idle */
#define ANIM_FRAMES FRAMES_MS(60UL)    /* one step of the idle light */

#define TEST_MAGIC 0x5D

enum state {
    ST_IDLE,   /* the idle light; GO starts a game */
    ST_HUMAN,  /* the human's turn */
    ST_DEVICE, /* the device's move, due at `due` */
    ST_OVER,   /* the end position (and its tune), until `due` */
};

/* The game, named for the debugger: the dollars' cells from the left. */
uint8_t sdg_pos[DOLLARS];
uint8_t sdg_state;
static uint8_t moving; /* the dollar (0..4) moved this turn, or NONE */
#define NONE 0xFF
static uint16_t due;
static uint16_t last_press;
static uint8_t anim; /* the idle light's step, 0..21 */

static void show_position(void) { scan_show(game_mask(sdg_pos)); }

static void show_anim(void) {
    /* cells 12 down to 1, then 2 up to 11 */
    uint8_t cell = anim < CELLS ? CELLS - anim : anim - (CELLS - 2);
    scan_show((uint16_t)1 << (cell - 1));
}

static void go_idle(void) {
    sdg_state = ST_IDLE;
    anim = 0;
    show_anim();
}

static void human_turn(void) {
    sdg_state = ST_HUMAN;
    moving = NONE;
    show_position();
}

/* The device moves; the game ends or the human is to move. */
static void device_moves(uint16_t now) {
    game_device_move(sdg_pos);
    if (game_over(sdg_pos)) {
        sdg_state = ST_OVER;
        due = now + OVER_FRAMES;
        show_position();
        sound_play(SOUND_DEVICE_WINS, now);
    } else {
        human_turn();
    }
}

static void beep(uint16_t now) { sound_play(SOUND_BEEP, now); }

static void press_dollar(uint8_t k, uint16_t now) {
    if (sdg_state != ST_HUMAN || (moving != NONE && moving != k) || game_room(sdg_pos, k) == 0) {
        beep(now);
        return;
    }
    moving = k;
    sdg_pos[k]--;
    show_position();
    sound_play(SOUND_CLICK, now);
}

static void press_go(uint16_t now) {
    switch (sdg_state) {
    case ST_IDLE:
    case ST_OVER:
        game_start(sdg_pos);
        human_turn();
        break;
    case ST_HUMAN:
        if (moving == NONE) {
            beep(now);
        } else if (game_over(sdg_pos)) {
            sdg_state = ST_OVER;
            due = now + OVER_FRAMES;
            sound_play(SOUND_HUMAN_WINS, now);
        } else {
            sdg_state = ST_DEVICE;
            due = now + REPLY_FRAMES;
        }
        break;
    default:
        beep(now); /* the device is moving */
        break;
    }
}

/* Display and sound off, power-down until GO; then on as before. */
static void power_down(void) {
    sound_stop();
    scan_release();
    cli();
    GIMSK = _BV(PCIE1); /* port B's pin changes only, */
    PCMSK1 = GO_PCINT;  /* and of those GO's */
#if SDG_MUTANT_SLEEP_TIMER
    set_sleep_mode(SLEEP_MODE_IDLE); /* mutant: Timer0 runs on, waking it */
#else
    set_sleep_mode(SLEEP_MODE_PWR_DOWN);
#endif
    while (!(scan_raw() & BTN_GO)) {
        sei(); /* takes effect after SLEEP begins: no wake is lost */
        sleep_cpu();
        cli();
    }
    set_sleep_mode(SLEEP_MODE_IDLE);
    PCMSK1 = BTN_B_PCINT;
    GIMSK = _BV(PCIE0) | _BV(PCIE1);
    scan_hold(BTN_GO); /* the waking press is no GO of the game */
    sei();
    last_press = scan_frames();
    if (sdg_state == ST_IDLE) {
        show_anim();
    } else {
        show_position();
    }
}

static void every_frame(uint16_t now) {
    uint8_t e = scan_take();
    if (e) {
        rand_stir((uint32_t)now << 16 | scan_chance());
        last_press = now;
        for (uint8_t k = 0; k < DOLLARS; k++) {
            if (e & (1 << k)) {
                press_dollar(k, now);
            }
        }
        if (e & BTN_GO) {
            press_go(now);
        }
    }
    sound_poll(now);
    switch (sdg_state) {
    case ST_IDLE:
        if ((uint16_t)(now - due) >= ANIM_FRAMES) {
            due = now;
            anim = anim == 2 * CELLS - 3 ? 0 : anim + 1;
            show_anim();
        }
        break;
    case ST_DEVICE:
        if ((int16_t)(now - due) >= 0) {
            device_moves(now);
        }
        return; /* no sleep while the device moves */
    case ST_OVER:
        if ((int16_t)(now - due) >= 0) {
            due = now;
            go_idle();
        }
        break;
    default:
        break;
    }
    if ((uint16_t)(now - last_press) >= IDLE_FRAMES) {
        power_down();
    }
}

int main(void) {
    ACSR = _BV(ACD);    /* analog comparator off */
    DIDR0 = LED_PINS;   /* no digital input on the LED pins: they float */
    PORTA = BTN_A_PINS; /* pull-ups on the buttons */
    PORTB = BTN_B_PINS;
    sound_init();
    scan_init();
    set_sleep_mode(SLEEP_MODE_IDLE); /* Timer0 must run between ticks */
    sleep_enable();
    sei();

    go_idle();
#if SDG_TEST_POSITION
    if (eeprom_read_byte((const uint8_t *)0) == TEST_MAGIC &&
        game_from_mask(sdg_pos, eeprom_read_word((const uint16_t *)1)) && !game_over(sdg_pos)) {
        rand_stir(eeprom_read_dword((const uint32_t *)3));
        device_moves(scan_frames());
    }
#endif

    uint16_t seen = scan_frames();
    for (;;) {
        uint16_t now = scan_frames();
        if (now != seen) {
            seen = now;
            every_frame(now);
        }
        sleep_cpu(); /* until the next tick */
    }
}
