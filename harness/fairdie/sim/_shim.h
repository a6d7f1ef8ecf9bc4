/*
 * fairdie's C shim over libsimavr 1.6: the only C the harness owns.
 *
 * The shim keeps the hot loops in C and fixes, in one place, what simavr 1.6
 * gets wrong for our use (each fix switchable, see FD_FIX_* in _api.h):
 *   - sleep fast-forwards instead of sleeping the host (no-op sleep callback);
 *   - INT0 strict level triggering is switched off after every reset;
 *   - the ATtiny13 core gets an ioend, so a reset clears the I/O registers;
 *   - a power-on sets PORF and refills registers and SRAM from the seed;
 *   - the EEPROM write takes the datasheet time, honours EEPM, keeps the new
 *     byte pending until it completes, and completes whatever the CPU does;
 *   - entering an interrupt costs the datasheet's response time;
 *   - SBI/CBI on a PINx register toggles one pin, not every pin reading high;
 *   - the watchdog's interrupt mode (WDE=0) is not one-shot;
 *   - one pin model (DDR, PORT, pull-up, PUD, compare outputs, the outside
 *     world): simavr re-applies the pull-up over an external drive on every
 *     PORT write and routes compare outputs through PORT, to wrong pins;
 *   - stray data and flash accesses stay inside buffers of our own;
 *   - the ADC latches its channel and reference when a conversion starts;
 *   - SLEEP honours SE and the sleep mode: timers stop, only its wake
 *     sources wake the CPU.
 * Python sees only _api.h (which is also the cffi cdef).
 */
#ifndef FAIRDIE_SHIM_H
#define FAIRDIE_SHIM_H

#include <stdint.h>

#include "_api.h"

#endif
