/*
 * sound.h: the piezo on PA5 (OC1B). Timer/Counter1 in CTC mode (TOP =
 * OCR1A) with a clk/64 prescaler toggles OC1B once a period of TOP + 1
 * counts: f = F_CPU / (2 * 64 * (OCR1A + 1)), so A5 (880 Hz) is OCR1A = 70
 * at 8 MHz (880.3 Hz). Sounds play in the background: sound_poll, called
 * every frame, steps them.
 */
#ifndef SDG_SOUND_H
#define SDG_SOUND_H

#include <stdint.h>

/* A sound: pairs (note, length in units of 10 ms), ended by SOUND_END. */
#define NOTE_C5 0
#define NOTE_D5 1
#define NOTE_E5 2
#define NOTE_F5 3
#define NOTE_G5 4
#define NOTE_A5 5
#define NOTE_B5 6
#define NOTE_REST 7
#define SOUND_END 0xFF

extern const uint8_t SOUND_CLICK[];      /* a valid step: B5, 20 ms */
extern const uint8_t SOUND_BEEP[];       /* an invalid press: C5, 150 ms */
extern const uint8_t SOUND_HUMAN_WINS[]; /* C5 E5 G5 A5 B5, rising */
extern const uint8_t SOUND_DEVICE_WINS[];

void sound_init(void);
/* Play `sound` (in flash) from frame `now`, cutting off any other. */
void sound_play(const uint8_t *sound, uint16_t now);
/* Step the sound playing; call once a frame. */
void sound_poll(uint16_t now);
uint8_t sound_busy(void);
/* Silence, now. */
void sound_stop(void);

#endif /* SDG_SOUND_H */
