/*
 * eeprom: three EEPROM operations, one per programming mode, each followed
 * by a toggle of PB0 once EEPE has cleared:
 *   address 0: erase and write 0x5A   (EEPM = 00, 3.4 ms)
 *   address 1: erase only             (EEPM = 01, 1.8 ms -> 0xFF)
 *   address 2: write only, data 0x0F  (EEPM = 10, 1.8 ms -> old & 0x0F)
 * then it reads address 0 back into `readback` and halts (cli; sleep).
 * With EE_SLEEP_WRITING it instead starts one write (address 3 <- 0xA5)
 * and halts at once, while the write is still in flight. With
 * EE_TOGGLE_FIRST=1 each toggle comes as soon as its write starts, while it
 * is in flight (something shown before it is stored).
 * ATtiny13A, any clock up to 4 MHz. Fuses (the ELF's .fuse section): the
 * factory lfuse 0x6A, hfuse 0xFD (brown-out detector on at 1.8 V); with
 * EE_BOD_OFF=1 the factory hfuse 0xFF (the detector off).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#include <avr/fuse.h> /* after avr/io.h */

#ifndef EE_TOGGLE_FIRST
#define EE_TOGGLE_FIRST 0
#endif

#ifndef EE_BOD_OFF
#define EE_BOD_OFF 0
#endif
FUSES = {
    .low = LFUSE_DEFAULT,
    .high = EE_BOD_OFF ? HFUSE_DEFAULT : HFUSE_DEFAULT & FUSE_BODLEVEL0,
};

volatile uint8_t readback;

static void program(uint8_t mode, uint8_t address, uint8_t data) {
    while (EECR & (1 << EEPE))
        ;
    EECR = mode;
    EEARL = address;
    EEDR = data;
    EECR |= 1 << EEMPE;
    EECR |= 1 << EEPE;
    if (EE_TOGGLE_FIRST)
        PINB = 1 << PB0;
    while (EECR & (1 << EEPE))
        ;
    if (!EE_TOGGLE_FIRST)
        PINB = 1 << PB0;
}

int main(void) {
    DDRB = 1 << PB0;
#ifdef EE_SLEEP_WRITING
    EECR = 0;
    EEARL = 3;
    EEDR = 0xA5;
    EECR |= 1 << EEMPE;
    EECR |= 1 << EEPE;
    cli();
    sleep_mode();
#endif
    program(0, 0, 0x5A);
    program(1 << EEPM0, 1, 0x00);
    program(1 << EEPM1, 2, 0x0F);
    EEARL = 0;
    EECR |= 1 << EERE;
    readback = EEDR;
    cli();
    sleep_mode();
    for (;;)
        ;
}
