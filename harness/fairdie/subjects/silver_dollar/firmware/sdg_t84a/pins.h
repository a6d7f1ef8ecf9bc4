/*
 * pins.h: the Silver Dollar Game's wiring on the ATtiny84A (DIP14). Fixed:
 * the board file (boards/silver-dollar.toml) and the tests depend on it.
 *
 *   PA0..PA3  the 12 LEDs, charlieplexed (table below)
 *   PA4       button "1": the first dollar from the left
 *   PA5       piezo, OC1B (Timer/Counter1 toggles it)
 *   PA6       button "2"
 *   PA7       button "3"
 *   PB0       button "4"
 *   PB1       button "5": the fifth dollar from the left
 *   PB2       button GO (PCINT10: wakes the chip from power-down)
 *   PB3       RESET (not used by the firmware)
 *
 * Buttons close to GND; the chip's pull-ups hold them high when released.
 */
#ifndef SDG_PINS_H
#define SDG_PINS_H

#include <avr/io.h>

/* LED pins: PA0..PA3, the low nibble of port A. */
#define LED_PINS 0x0F

#define SPEAKER_BIT _BV(PA5)

/* Button bits as the firmware numbers them: bits 0..4 the dollars 1..5,
 * bit 5 GO (BTN_GO). Read from port A (dollars 1..3) and port B. */
#define BTN_A_PINS (_BV(PA4) | _BV(PA6) | _BV(PA7))
#define BTN_B_PINS (_BV(PB0) | _BV(PB1) | _BV(PB2))
#define GO_PIN _BV(PB2)
#define GO_PCINT _BV(PCINT10)
#define BTN_A_PCINT (_BV(PCINT4) | _BV(PCINT6) | _BV(PCINT7))
#define BTN_B_PCINT (_BV(PCINT8) | _BV(PCINT9) | _BV(PCINT10))
#define BTN_GO 0x20
#define BTN_DOLLARS 0x1F

/*
 * The LED of each cell: its anode and cathode among PA0..PA3. An LED lights
 * when its anode drives high and its cathode low; the other two pins are
 * inputs without pull-ups. Each of the 12 ordered pin pairs is one LED.
 *
 *   cell  anode  cathode      cell  anode  cathode
 *    12    PA0    PA1           6    PA0    PA2
 *    11    PA1    PA0           5    PA2    PA0
 *    10    PA1    PA2           4    PA1    PA3
 *     9    PA2    PA1           3    PA3    PA1
 *     8    PA2    PA3           2    PA0    PA3
 *     7    PA3    PA2           1    PA3    PA0
 *
 * LED_PAIR packs one LED into a byte: the anode's mask in the high nibble,
 * the cathode's in the low one.
 */
#define LED_PAIR(anode, cathode) ((uint8_t)((_BV(anode) << 4) | _BV(cathode)))

#define LED_C12 LED_PAIR(PA0, PA1)
#define LED_C11 LED_PAIR(PA1, PA0)
#define LED_C10 LED_PAIR(PA1, PA2)
#define LED_C9 LED_PAIR(PA2, PA1)
#define LED_C8 LED_PAIR(PA2, PA3)
#define LED_C7 LED_PAIR(PA3, PA2)
#define LED_C6 LED_PAIR(PA0, PA2)
#define LED_C5 LED_PAIR(PA2, PA0)
#if SDG_MUTANT_LED_TABLE /* mutant (the suite's tests): cells 4 and 3 swapped */
#define LED_C4 LED_PAIR(PA3, PA1)
#define LED_C3 LED_PAIR(PA1, PA3)
#else
#define LED_C4 LED_PAIR(PA1, PA3)
#define LED_C3 LED_PAIR(PA3, PA1)
#endif
#define LED_C2 LED_PAIR(PA0, PA3)
#define LED_C1 LED_PAIR(PA3, PA0)

#define CELLS 12

#endif /* SDG_PINS_H */
