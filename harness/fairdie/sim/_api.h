/*
 * The C boundary of fairdie.sim: everything Python sees of the shim.
 *
 * This file is the cffi cdef exactly as it stands (_build.py reads it whole),
 * so it holds only typedefs, integer #defines and prototypes: no #include, no
 * guard, no expression in a #define. _shim.h includes it for the C side.
 */

typedef struct fd_chip fd_chip;

/* Kinds of engine events. The trace records the kinds in its mask; a run
 * stops on the kinds in fd_stops.kinds. Bits, so that a set is a mask. */
#define FD_EV_PIN 1          /* a = port letter, b = state word after, c = before */
#define FD_EV_SLEEP 2        /* SLEEP; a = 1: interrupts off; b = 1 + SM bits; c = 1: WDT on */
#define FD_EV_WAKE 4         /* the CPU woke                                       */
#define FD_EV_EEPROM_START 8 /* a = address, b = old byte, c = new byte | mode << 8  */
#define FD_EV_EEPROM_DONE 16 /* a = address, b = byte stored, c = 1 when cut by power */
#define FD_EV_ADC 32         /* a = channel | reference << 8, b = mV, c = code | vref << 16 */
#define FD_EV_IRQ 64         /* interrupt entry; a = vector number                 */
#define FD_EV_RESET 128      /* a reset that is no power-on (the watchdog's)       */
#define FD_EV_POWER 256      /* a = 1 on, 0 off                                    */
#define FD_EV_PC 512         /* the PC reached fd_stops.pc (a stop, never traced)  */
#define FD_EV_TRACEABLE 511

/* A port's state word (FD_EV_PIN, fd_port_state): four bytes, bit i = pin i.
 *   byte 0: the level on the wire (what PINx reads)
 *   byte 1: the chip drives the pin (an output: DDR set, or a compare output)
 *   byte 2: the outside world drives the pin (fd_pin_drive)
 *   byte 3: the pin is pulled (internal pull-up, or an external pull) and
 *           nothing drives it; its level is the pull's */

/* Reference kinds of FD_EV_ADC */
#define FD_ADC_REF_VCC 0
#define FD_ADC_REF_INTERNAL 1
#define FD_ADC_REF_AREF 2

/* fd_run's answer: bits, several may be set. */
#define FD_STOP_DEADLINE 1
#define FD_STOP_EVENT 2 /* an event in fd_stops.kinds; fd_run fills *why */
#define FD_STOP_QUIET 4
#define FD_STOP_HALTED 8
#define FD_STOP_CRASHED 16
#define FD_STOP_TRACE_FULL 32
#define FD_STOP_CALLBACK_ERROR 64
#define FD_STOP_OFF 128
#define FD_STOP_ADC_EMPTY 256 /* a buffer-fed ADC channel ran out (fd_adc_buffer) */

/* The simavr 1.6 fixes, each on by default; a test switches one off to show
 * that the bug it fixes is still there without it. */
#define FD_FIX_SLEEP 1          /* sleep fast-forwards instead of sleeping the host     */
#define FD_FIX_EXTINT 2         /* no per-cycle INT0 level polling after a reset        */
#define FD_FIX_IOEND 4          /* reset clears the I/O registers (ATtiny13 core)       */
#define FD_FIX_PORF 8           /* power-on sets PORF                                   */
#define FD_FIX_EEPROM 16        /* datasheet EEPROM write: busy time, EEPM, pending     */
#define FD_FIX_IRQ 32           /* interrupt response: 4 cycles, 8 when it wakes        */
#define FD_FIX_PIN_BIT 64       /* SBI/CBI on PINx writes one bit, as in hardware       */
#define FD_FIX_WDT 128          /* watchdog interrupt mode stays on after its ISR       */
#define FD_FIX_SRAM 256         /* power-on fills registers and SRAM with seeded junk   */
#define FD_FIX_PULLUP 512       /* one pin model: no pull-up re-applied over a drive    */
#define FD_FIX_COMPARE 1024     /* compare outputs drive their datasheet pin            */
#define FD_FIX_MEMORY 2048      /* stray data/flash accesses stay inside our buffers    */
#define FD_FIX_ADC 4096         /* channel and reference latched at conversion start    */
#define FD_FIX_SLEEP_MODES 8192 /* SE, SM: a mode stops timers, wakes on its sources only */
#define FD_FIX_ALL 16383

typedef struct fd_event {
    uint64_t cycle;
    uint32_t kind;
    uint32_t a;
    uint32_t b;
    uint32_t c;
} fd_event;

/* What stops a run besides its deadline. */
typedef struct fd_stops {
    uint32_t kinds;        /* FD_EV_* bits */
    uint8_t pins[12];      /* FD_EV_PIN: per port 'A'+i, the pins whose level change
                              stops; all zero = any pin */
    uint64_t vectors;      /* FD_EV_IRQ: bit n = vector n; 0 = any vector */
    int64_t pc;            /* FD_EV_PC: a byte address */
    uint64_t quiet_cycles; /* stop once asleep with no pin change for this long; 0 = off */
} fd_stops;

typedef struct fd_info {
    uint32_t flash_size;
    uint32_t sram_start;
    uint32_t ramend;
    uint32_t eeprom_size;
    uint32_t ioend;
    uint32_t frequency;
    uint32_t snapshot_size;
    uint32_t self_programming; /* simavr models SPM on this core */
    char ports[12];            /* letters of the I/O ports, NUL terminated */
} fd_info;

typedef struct fd_ee_write {
    int32_t active;
    uint32_t address;
    uint32_t old_value;
    uint32_t new_value;
    uint64_t done_cycle;
    uint32_t mode; /* EEPM bits: 0 erase+write, 1 erase, 2 write */
} fd_ee_write;

/* An LED between two pins; port 0 stands for the supply (anode at Vcc,
 * cathode at ground). It is lit while its anode is driven high and its
 * cathode driven low. */
typedef struct fd_led {
    uint8_t anode_port;
    uint8_t anode_bit;
    uint8_t cathode_port;
    uint8_t cathode_bit;
} fd_led;

/* Lifetime, in three steps: make the MCU, tell it what simavr does not know
 * (compare output pins, the PUD bit), then start it. fd_new returns NULL when
 * simavr does not know the MCU. */
fd_chip *fd_new(const char *mcu, void *handle, uint32_t fixes, uint64_t seed);
int fd_set_compare_pin(fd_chip *chip, char timer, int comp, uint32_t com_reg, uint32_t com_shift,
                       char port, int bit);
int fd_set_pud(fd_chip *chip, uint32_t reg, uint32_t bit);
/* SLEEP's enable bit and its mode field (sm_bits wide from SM0, 1..3). */
int fd_set_sleep_bits(fd_chip *chip, uint32_t se_reg, uint32_t se_bit, uint32_t sm_reg,
                      uint32_t sm_shift, uint32_t sm_bits);
int fd_start(fd_chip *chip, uint32_t frequency, uint32_t vcc_mv);
void fd_free(fd_chip *chip);
void fd_get_info(fd_chip *chip, fd_info *info);
int fd_load_flash(fd_chip *chip, const uint8_t *code, uint32_t size, uint32_t address);

/* Power. */
void fd_power_on(fd_chip *chip);
void fd_power_off(fd_chip *chip, int torn_value);
int fd_powered(fd_chip *chip);

/* Running: to the absolute cycle deadline, or until a stop. Returns
 * FD_STOP_* bits; with FD_STOP_EVENT, *why (may be NULL) is the event. */
uint32_t fd_run(fd_chip *chip, uint64_t deadline, const fd_stops *stops, fd_event *why);
/* The benchmark's yardstick: avr->run in a C loop, nothing else; batch 1
 * raises simavr's run_cycle_limit as fd_run does (a cycle timer at the
 * deadline), batch 0 keeps simavr's default of one instruction per call. */
void fd_run_raw(fd_chip *chip, uint64_t deadline, int batch);
/* One avr->run per call: the unit the old pysimavr binding stepped from
 * Python (a benchmark yardstick; the harness never steps from Python).
 * Returns the cycle after the step. */
uint64_t fd_step(fd_chip *chip);
uint64_t fd_cycle(fd_chip *chip);
/* Skip whole passes of a loop that polls EEPE or ADSC up to the next cycle
 * timer (on by default; the run is cycle for cycle the same). */
void fd_set_poll_skip(fd_chip *chip, int on);
/* Let simavr run the instructions between two cycle timers in one call
 * (on by default; the run is cycle for cycle the same). */
void fd_set_batch(fd_chip *chip, int on);
uint64_t fd_poll_skipped(fd_chip *chip);
uint32_t fd_pc(fd_chip *chip);
int fd_sleeping(fd_chip *chip);
/* The SM bits of the sleep the CPU is in (0 idle, 1 ADC noise reduction,
 * 2 power-down, ...: the datasheet's numbers), or -1 while awake. */
int fd_sleep_mode(fd_chip *chip);
uint64_t fd_sleep_steps(fd_chip *chip);

/* Coverage: per flash word, times executed and, for a conditional branch or
 * skip, times taken and not. On, simavr runs each instruction alone and the
 * shim batches them by simavr's rule (the run is cycle for cycle the same);
 * off (the default) nothing records. Counts survive restores. */
int fd_cov_on(fd_chip *chip);
void fd_cov_off(fd_chip *chip);
int fd_cov_active(fd_chip *chip);
/* The words executed at least once, up to cap of them, by address; returns
 * how many there are. branch[i]: the word is a conditional branch or skip. */
uint32_t fd_cov_read(fd_chip *chip, uint32_t *address, uint64_t *hits, uint64_t *taken,
                     uint64_t *fell, uint8_t *branch, uint32_t cap);

/* Memory: data space (registers, I/O, SRAM), I/O through the handlers, EEPROM. */
int fd_data_read(fd_chip *chip, uint32_t address, uint8_t *out, uint32_t size);
int fd_data_write(fd_chip *chip, uint32_t address, const uint8_t *in, uint32_t size);
int fd_io_read(fd_chip *chip, uint32_t address);
int fd_io_write(fd_chip *chip, uint32_t address, uint8_t value);
int fd_eeprom_read(fd_chip *chip, uint32_t address, uint8_t *out, uint32_t size);
int fd_eeprom_write(fd_chip *chip, uint32_t address, const uint8_t *in, uint32_t size);
void fd_eeprom_in_flight(fd_chip *chip, fd_ee_write *out);
int fd_eeprom_busy(fd_chip *chip);
void fd_eeprom_set_times(fd_chip *chip, uint32_t erase_write_us, uint32_t single_us);

/* Pins: the outside world. drive: 1 high, 0 low, -1 released.
 * pull: 1 up, -1 down, 0 none (a weak external resistor). */
int fd_pin_drive(fd_chip *chip, char port, int pin, int level);
int fd_pin_pull(fd_chip *chip, char port, int pin, int pull);
int64_t fd_port_state(fd_chip *chip, char port);
int fd_port_regs(fd_chip *chip, char port, uint8_t *ddr, uint8_t *out, uint8_t *pin);

/* ADC: a constant per channel, a call into Python per conversion, or a
 * buffer of millivolts. */
int fd_adc_constant(fd_chip *chip, int channel, uint32_t millivolts);
int fd_adc_callback(fd_chip *chip, int channel);
/* A channel fed from mv[0..n): each conversion takes the next value (in
 * 0..65535, rounded half to even as Python's round). The buffer stays the
 * caller's: it must live while the channel reads it, and while a snapshot
 * taken meanwhile may be restored (a snapshot keeps the pointer and the
 * position, not the values). When it runs out, with FD_ADC_WRAP it starts
 * again; with FD_ADC_REFILL the shim calls Python once (fd_py_adc_block),
 * which hands the next block with this function; otherwise, or when no
 * block comes, the run stops with FD_STOP_ADC_EMPTY. n = 0 empties the
 * channel's buffer (the next conversion refills). Returns 0, -1 for no such
 * channel, -2 for a value outside 0..65535 or NaN (nothing changed). A C
 * loop with no Python feeds a channel with its own buffer and flags 0. */
#define FD_ADC_WRAP 1
#define FD_ADC_REFILL 2
int fd_adc_buffer(fd_chip *chip, int channel, const double *mv, uint32_t n, uint32_t flags);
/* The values a buffer-fed channel has left before it runs out (0 otherwise). */
uint32_t fd_adc_buffered(fd_chip *chip, int channel);

/* The analog comparator's inputs in millivolts: 0 AIN0, 1 AIN1, 2 + n the ADC
 * multiplexer's channel n (with ACME). -1 when the MCU has no comparator. */
int fd_acomp_input(fd_chip *chip, int input, uint32_t millivolts);

/* LEDs: light integrated in C. fd_leds_lit_cycles fills out[n] with each
 * LED's lit cycles over [start, end) and returns 0, or -1 when the history
 * no longer reaches back to start. */
int fd_leds_set(fd_chip *chip, const fd_led *leds, uint32_t n);
void fd_leds_restart(fd_chip *chip);
uint32_t fd_leds_now(fd_chip *chip);
int64_t fd_leds_first_lit(fd_chip *chip);
int fd_leds_lit_cycles(fd_chip *chip, uint64_t start, uint64_t end, uint64_t *out);
/* The LEDs an eye sees lit over [start, end), as a mask (bit i: LED i), by
 * fairdie.board.LedDecoder's rule: none unless the brightest LED's lit cycles
 * exceed floor times the window, then those lit at least relative times the
 * brightest's. Negative: fd_leds_lit_cycles' error. */
int64_t fd_leds_seen(fd_chip *chip, uint64_t start, uint64_t end, double relative, double floor);

/* Trace of events since the last drain. Returns the number copied. */
uint32_t fd_trace_drain(fd_chip *chip, fd_event *out, uint32_t max);
void fd_trace_mask(fd_chip *chip, uint32_t kinds);

/* simavr's log lines at or below a level (simavr's LOG_ERROR 2, LOG_WARNING
 * 3, LOG_TRACE 4, LOG_DEBUG 5), kept until drained; fd_log_drain returns the
 * bytes copied (lines end in a newline, the level digit first). fd_pending:
 * bit 0 = trace events wait, bit 1 = log lines wait, bit 2 = an unmodelled
 * register was first used (fd_unmodelled_seen). */
void fd_log_level(fd_chip *chip, int level);
uint32_t fd_log_drain(fd_chip *chip, char *out, uint32_t max);
uint32_t fd_pending(fd_chip *chip);

/* Registers of what simavr does not model: watch the data address (an I/O
 * register) for a write setting a bit of mask (0: no write counts) and, with
 * reads, any read; the first such write sets bit index (0..30) of
 * fd_unmodelled_seen's answer, the first such read bit index + 1. Returns 0, or -1 for a bad
 * address or too many (at most 12). fd_unmodelled_seen clears fd_pending's bit 2. */
int fd_unmodelled_watch(fd_chip *chip, uint32_t address, uint8_t mask, int reads, uint32_t index);
uint32_t fd_unmodelled_seen(fd_chip *chip);

/* Snapshots: the whole chip in a buffer of info.snapshot_size bytes. */
void fd_snapshot(fd_chip *chip, uint8_t *out);
int fd_restore(fd_chip *chip, const uint8_t *in);

/* A press of a power switch in one call (_shim_presses.c). From the chip
 * powered off: the LED history restarts and it powers on; then for each
 * step k it runs steps[k] cycles from where the last run ended (as fd_run to
 * that deadline) and stores the cycle it reached at at[k] and the LEDs seen
 * over the window cycles ending there (from the power-on at most;
 * fd_leds_seen with relative and floor) at seen[k]; then it powers off
 * (torn_value -1) and returns 0. A run that stops short of its deadline for
 * anything but a halted core (a full trace, an ADC source's error, an
 * empty buffer, a crash) returns its FD_STOP_* bits at once, the chip still
 * powered and *where saying where it stands: call again (after draining
 * the trace) to go on. FD_STOP_OFF: the chip is powered but *where was not
 * set by a call cut short. */
typedef struct fd_cycle_at {
    uint64_t on;       /* the power-on's cycle */
    uint64_t deadline; /* the deadline of the step under way */
    uint32_t done;     /* the steps run and read */
    uint32_t running;  /* 1: step done is under way */
} fd_cycle_at;
uint32_t fd_power_cycle(fd_chip *chip, const uint64_t *steps, uint32_t n, uint64_t window,
                        double relative, double floor, fd_cycle_at *where, uint64_t *at,
                        int64_t *seen);

/* Presses of a power switch replayed with no Python between them, from a
 * snapshot of the chip powered off: press k feeds ADC channel from
 * mv[ends[k - 1] .. ends[k]) (ends[-1] = 0; fd_adc_buffer) and is one
 * fd_power_cycle of the nsteps steps, its reads at at[k * nsteps] and
 * seen[k * nsteps], the first LED it lit (fd_leds_first_lit) at first[k].
 * The trace records as in any run and is emptied at each power-on (nothing
 * of the replay is left in it); the channel is left fed as the snapshot fed
 * it. Returns 0; -1 for a bad snapshot (or of a powered chip), bad ends, no
 * such ADC channel or a value it cannot take, -2 when the core crashed, -3
 * when a press converted more values than given, -4 fewer, -5 when a run
 * stopped short otherwise; *done: the presses made in full. */
int fd_replay_presses(fd_chip *chip, const uint8_t *snapshot, int channel, const double *mv,
                      const uint32_t *ends, uint32_t n, const uint64_t *steps, uint32_t nsteps,
                      uint64_t window, double relative, double floor, uint64_t *at, int64_t *seen,
                      int64_t *first, uint32_t *done);

/* Debugging (fairdie.debug): breakpoints, data watches and a step range,
 * checked in C before every instruction of a run whose stops include
 * FD_EV_PC, and only while one of them is set: other runs batch as ever. A
 * hit stops the run as an FD_EV_PC event: a = the PC, b = what stopped it
 * (FD_DBG_*), c = the data address of a watched byte that changed. The
 * first instruction of a run is not checked while the PC is where the run
 * started (a run resumes from a breakpoint). Each call replaces the set;
 * the calls return 0, or -1 for a bad address or too many. */
#define FD_DBG_PC 0    /* fd_stops.pc */
#define FD_DBG_BREAK 1 /* a breakpoint */
#define FD_DBG_WATCH 2 /* a watched byte changed (c: its data address)  */
#define FD_DBG_RANGE 3 /* the PC left the step range */
#define FD_DBG_MAX_BREAKS 64
#define FD_DBG_MAX_WATCHES 8
#define FD_DBG_MAX_WATCH_SIZE 64
int fd_debug_breaks(fd_chip *chip, const uint32_t *pcs, uint32_t n);
int fd_debug_watches(fd_chip *chip, const uint32_t *addresses, const uint32_t *sizes, uint32_t n);
/* Stop once the PC is outside [start, end) (byte addresses); start == end: no range. */
int fd_debug_range(fd_chip *chip, uint32_t start, uint32_t end);
/* What a debugger reads and sets besides memory: flash, the PC, SREG. */
int fd_flash_read(fd_chip *chip, uint32_t address, uint8_t *out, uint32_t size);
int fd_set_pc(fd_chip *chip, uint32_t pc);
void fd_set_sreg(fd_chip *chip, uint8_t value);
