/* sound.c: notes C5..B5 on Timer/Counter1, sounds stepped frame by frame. */
#include "sound.h"

#include <avr/io.h>
#include <avr/pgmspace.h>

#include "pins.h"
#include "scan.h"

/* OCR1A of a note of `mhz` millihertz: F_CPU / (2 * 64 * f) - 1, rounded. */
#define NOTE_TOP(mhz) ((uint8_t)((F_CPU * 1000ULL + 64ULL * (mhz)) / (128ULL * (mhz)) - 1))

static const uint8_t NOTE_TOPS[7] PROGMEM = {
    NOTE_TOP(523251), /* C5: 118, 525.2 Hz at 8 MHz */
    NOTE_TOP(587330), /* D5: 105, 589.6 Hz */
    NOTE_TOP(659255), /* E5: 94, 657.9 Hz */
    NOTE_TOP(698456), /* F5: 88, 702.2 Hz */
    NOTE_TOP(783991), /* G5: 79, 781.3 Hz */
    NOTE_TOP(880000), /* A5: 70, 880.3 Hz */
    NOTE_TOP(987767), /* B5: 62, 992.1 Hz */
};
_Static_assert(NOTE_TOP(880000) == 70 || F_CPU != 8000000UL, "A5 must be OCR1A 70 at 8 MHz");

const uint8_t SOUND_CLICK[] PROGMEM = {NOTE_B5, 2, SOUND_END};
const uint8_t SOUND_BEEP[] PROGMEM = {NOTE_C5, 15, SOUND_END};
const uint8_t SOUND_HUMAN_WINS[] PROGMEM = {
    NOTE_C5, 10, NOTE_E5, 10, NOTE_G5, 10, NOTE_A5, 10, NOTE_B5, 30, SOUND_END,
};
const uint8_t SOUND_DEVICE_WINS[] PROGMEM = {
    NOTE_A5, 20, NOTE_F5, 20, NOTE_D5, 20, NOTE_C5, 40, SOUND_END,
};

static const uint8_t *playing; /* the next pair, or 0 when silent */
static uint16_t note_end;      /* frame the current note ends at */

static void tone_off(void) {
    TCCR1B = 0;
    TCCR1A = 0;            /* OC1B disconnected: PA5 is its PORTA bit again */
    PORTA &= ~SPEAKER_BIT; /* one SBI/CBI instruction: safe beside Timer0's ISR */
}

static void tone_on(uint8_t note) {
    /* The clock first, then TOP: the compare registers are written to a
     * configured timer, well before its first count (64 cycles). */
    TCCR1A = _BV(COM1B0);                        /* toggle OC1B on compare match */
    TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10); /* CTC (TOP = OCR1A), clk/64 */
    OCR1A = pgm_read_byte(&NOTE_TOPS[note]);
    OCR1B = 0;
    TCNT1 = 0;
}

void sound_init(void) {
    DDRA |= SPEAKER_BIT; /* the piezo's pin: an output, low while silent */
    tone_off();
}

static void step(uint16_t now) {
    uint8_t note = pgm_read_byte(playing);
    if (note == SOUND_END) {
        sound_stop();
        return;
    }
    uint8_t len = pgm_read_byte(playing + 1);
    playing += 2;
    note_end = now + FRAMES_MS(10UL * len);
    if (note == NOTE_REST) {
        tone_off();
    } else {
        tone_on(note);
    }
}

void sound_play(const uint8_t *sound, uint16_t now) {
    playing = sound;
    step(now);
}

void sound_poll(uint16_t now) {
    if (playing && (int16_t)(now - note_end) >= 0) {
        step(now);
    }
}

uint8_t sound_busy(void) { return playing != 0; }

void sound_stop(void) {
    playing = 0;
    tone_off();
}
