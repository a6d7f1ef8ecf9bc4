/*
 * fairdie's C shim over libsimavr 1.6: the only C the harness owns.
 *
 * Python sees only what is declared here (the same text is the cffi cdef, see
 * _build.py), never simavr's own structs. The shim keeps the hot loops in C
 * and fixes, in one place, what simavr 1.6 gets wrong for our use:
 *   - sleep fast-forwards instead of sleeping the host (no-op sleep callback);
 *   - INT0 strict level triggering is switched off after every reset;
 *   - the ATtiny13 core gets an ioend, so a reset clears the I/O registers;
 *   - a power-on sets PORF and refills registers and SRAM;
 *   - the EEPROM write takes the datasheet time, honours EEPM, and keeps the
 *     new byte pending until it completes;
 *   - entering an interrupt costs the datasheet's response time;
 *   - SBI/CBI on a PINx register toggles one pin, not every pin reading high;
 *   - the watchdog's interrupt mode (WDE=0) is not one-shot.
 */
#ifndef FAIRDIE_SHIM_H
#define FAIRDIE_SHIM_H

#include <stdint.h>

typedef struct fd_chip fd_chip;

/* Why fd_run returned: a bit set, several may be set at once. */
#define FD_STOP_DEADLINE 1
#define FD_STOP_PIN 2
#define FD_STOP_PC 4
#define FD_STOP_QUIET 8
#define FD_STOP_HALTED 16
#define FD_STOP_CRASHED 32
#define FD_STOP_TRACE_FULL 64
#define FD_STOP_CALLBACK_ERROR 128

/* The simavr 1.6 fixes, each on by default; a test switches one off to show
 * the bug it fixes is still there. */
#define FD_FIX_SLEEP 1    /* sleep fast-forwards instead of sleeping the host */
#define FD_FIX_EXTINT 2   /* no per-cycle INT0 level polling after a reset     */
#define FD_FIX_IOEND 4    /* reset clears the I/O registers (ATtiny13 core)    */
#define FD_FIX_PORF 8     /* power-on sets PORF                                */
#define FD_FIX_EEPROM 16  /* datasheet EEPROM write: busy time, EEPM, pending  */
#define FD_FIX_IRQ 32     /* interrupt response: 4 cycles, 8 when it wakes     */
#define FD_FIX_PIN_BIT 64 /* SBI/CBI on PINx writes one bit, as in hardware   */
#define FD_FIX_WDT 128    /* watchdog interrupt mode stays on after its ISR    */
#define FD_FIX_ALL 255

/* Kinds of trace events. */
#define FD_EV_PORT 1   /* port a = letter, b = DDR, c = PORT              */
#define FD_EV_SLEEP 2  /* a = 1 asleep, 0 awake                           */
#define FD_EV_EEPROM 3 /* a = 1 write started, 0 finished; b = addr; c = new */
#define FD_EV_ADC 4    /* a = channel, c = millivolts fed                  */

typedef struct fd_event {
    uint64_t cycle;
    uint32_t kind;
    uint32_t a;
    uint32_t b;
    uint32_t c;
} fd_event;

typedef struct fd_info {
    uint32_t flash_size;
    uint32_t sram_start;
    uint32_t ramend;
    uint32_t eeprom_size;
    uint32_t ioend;
    uint32_t frequency;
    char ports[12]; /* letters of the I/O ports, NUL terminated */
} fd_info;

typedef struct fd_ee_write {
    int32_t active;
    uint32_t address;
    uint32_t old_value;
    uint32_t new_value;
    uint64_t done_cycle;
    uint32_t mode; /* EEPM bits: 0 erase+write, 1 erase, 2 write */
} fd_ee_write;

/* Lifetime. fd_new returns NULL when simavr does not know the MCU. */
fd_chip *fd_new(const char *mcu, uint32_t frequency, uint32_t vcc_mv, void *handle, uint32_t fixes);
void fd_free(fd_chip *chip);
void fd_get_info(fd_chip *chip, fd_info *info);
int fd_load_flash(fd_chip *chip, const uint8_t *code, uint32_t size, uint32_t address);

/* Power. fill is (32 registers + SRAM) bytes of power-on garbage. */
void fd_power_on(fd_chip *chip, const uint8_t *fill, uint32_t fill_size);
void fd_power_off(fd_chip *chip, int torn_value);
int fd_powered(fd_chip *chip);

/* Running. Stops at the first condition met; returns FD_STOP_* bits.
 * pin_watch: per port letter 'A'+i, a mask of pins whose level change stops
 * the run (array of 12 bytes or NULL). pc_stop: a byte address or -1.
 * quiet_cycles: stop once asleep with no pin change for that long (0 = off).
 */
uint32_t fd_run(fd_chip *chip, uint64_t deadline, const uint8_t *pin_watch, int64_t pc_stop,
                uint64_t quiet_cycles);
/* simavr's own loop, for the benchmark: avr_run until the deadline. */
void fd_run_raw(fd_chip *chip, uint64_t deadline);
/* One avr_run call, the unit the old pysimavr binding stepped from Python
 * (a benchmark yardstick only: the harness never steps from Python). */
int fd_step(fd_chip *chip);
uint64_t fd_cycle(fd_chip *chip);
uint32_t fd_pc(fd_chip *chip);
int fd_sleeping(fd_chip *chip);
/* How many sleep fast-forward steps fd_run has taken (a cost measure). */
uint64_t fd_sleep_steps(fd_chip *chip);

/* Memory: data space (registers, I/O, SRAM) and EEPROM. */
int fd_data_read(fd_chip *chip, uint32_t address, uint8_t *out, uint32_t size);
int fd_data_write(fd_chip *chip, uint32_t address, const uint8_t *in, uint32_t size);
int fd_io_write(fd_chip *chip, uint32_t address, uint8_t value);
int fd_eeprom_read(fd_chip *chip, uint32_t address, uint8_t *out, uint32_t size);
int fd_eeprom_write(fd_chip *chip, uint32_t address, const uint8_t *in, uint32_t size);
void fd_eeprom_in_flight(fd_chip *chip, fd_ee_write *out);
void fd_eeprom_set_times(fd_chip *chip, uint32_t erase_write_us, uint32_t single_us);

/* Pins. level: 0 or 1 drives the input; -1 releases it. */
int fd_pin_drive(fd_chip *chip, char port, int pin, int level);
int fd_port_regs(fd_chip *chip, char port, uint8_t *ddr, uint8_t *out, uint8_t *pin);

/* ADC: a constant per channel, or a call into Python per conversion. */
int fd_adc_constant(fd_chip *chip, int channel, uint32_t millivolts);
int fd_adc_callback(fd_chip *chip, int channel);

/* Trace of events since the last drain. Returns the number copied. */
uint32_t fd_trace_drain(fd_chip *chip, fd_event *out, uint32_t max);
void fd_trace_enable(fd_chip *chip, int on);

#endif
