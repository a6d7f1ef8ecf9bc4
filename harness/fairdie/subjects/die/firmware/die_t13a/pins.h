/*
 * pins.h: the die's wiring on the ATtiny13A (DIP8). Fixed: the board files,
 * the die model and the tests depend on these numbers.
 *
 *   PB0 (pin 5)  LED group A     centre
 *   PB1 (pin 6)  LED group B     top-right + bottom-left
 *   PB2 (pin 7)  LED group C     top-left + bottom-right
 *   PB3 (pin 2)  LED group D     middle-left + middle-right
 *   PB4 (pin 3)  floating ADC input, ADC2 (MUX1:0 = 0b10), the noise source
 *   PB5 (pin 1)  RESET (not used by the firmware)
 *
 *   Layout      C . B       Faces: 1 = A        4 = B+C
 *               D A D              2 = B        5 = A+B+C
 *               B . C              3 = A+B      6 = B+C+D
 *                           Table cleared: A+B+C+D
 *
 * Direct drive: each group's LEDs sit between its pin (anode side, through a
 * resistor) and GND, so a high output lights the group.
 */
#ifndef DIE_PINS_H
#define DIE_PINS_H

#include <avr/io.h>

#define GROUP_A _BV(PB0)
#define GROUP_B _BV(PB1)
#if DIE_MUTANT_LED_MAP /* mutant (fairdie verify's tests): groups C and D swapped */
#define GROUP_C _BV(PB3)
#define GROUP_D _BV(PB2)
#else
#define GROUP_C _BV(PB2)
#define GROUP_D _BV(PB3)
#endif
#define LED_PINS (GROUP_A | GROUP_B | GROUP_C | GROUP_D)

#define ADC_MUX_BITS _BV(MUX1) /* ADC2 = PB4; REFS0 = 0: Vcc is the reference */
#define ADC_DIDR_BIT _BV(ADC2D)

/*
 * Charlieplexed variant (DIE_CHARLIEPLEX=1): the seven LEDs are wired
 * individually between two of PB0..PB3. An LED lights when its anode pin
 * drives high and its cathode pin drives low; the other two pins are inputs
 * without pull-ups. LED numbers are the bit numbers of the display mask, in
 * group order so a group maps to adjacent bits.
 *
 *   LED  position      anode  cathode  group
 *    0   centre         PB0    PB1       A
 *    1   top-right      PB1    PB0       B
 *    2   bottom-left    PB1    PB2       B
 *    3   top-left       PB2    PB1       C
 *    4   bottom-right   PB2    PB3       C
 *    5   middle-left    PB3    PB2       D
 *    6   middle-right   PB0    PB3       D
 *
 * CP_PAIR packs one LED into a byte: anode mask in the high nibble, cathode
 * mask in the low nibble (both pins are in PB0..PB3, so each fits a nibble).
 */
#define CP_PAIR(anode, cathode) ((uint8_t)((_BV(anode) << 4) | _BV(cathode)))

#define CP_CENTRE CP_PAIR(PB0, PB1)
#define CP_TOP_RIGHT CP_PAIR(PB1, PB0)
#define CP_BOTTOM_LEFT CP_PAIR(PB1, PB2)
#define CP_TOP_LEFT CP_PAIR(PB2, PB1)
#define CP_BOTTOM_RIGHT CP_PAIR(PB2, PB3)
#define CP_MIDDLE_LEFT CP_PAIR(PB3, PB2)
#define CP_MIDDLE_RIGHT CP_PAIR(PB0, PB3)
#define CP_LED_COUNT 7

/* Display-mask bits of each group in the charlieplexed variant. */
#define CP_GROUP_A 0x01 /* LED 0 */
#define CP_GROUP_B 0x06 /* LEDs 1, 2 */
#define CP_GROUP_C 0x18 /* LEDs 3, 4 */
#define CP_GROUP_D 0x60 /* LEDs 5, 6 */

#endif /* DIE_PINS_H */
