/*
 * The shim's private header: what its files share and Python never sees (the
 * chip's struct, limits, and the helpers one concern offers another). The
 * shim is split by what it adapts of simavr 1.6:
 *   _shim_chip.c      making, starting and freeing a chip; raw memory access
 *   _shim_pins.c      the pin model, port hooks, compare outputs, the outside world
 *   _shim_eeprom.c    the EEPROM write: datasheet timing, EEPM modes, pending byte
 *   _shim_adc.c       feeding and logging ADC conversions
 *   _shim_events.c    events (trace and stops) and simavr's log
 *   _shim_leds.c      LED light, integrated over time
 *   _shim_snapshot.c  snapshots of the whole chip
 *   _shim_debug.c     breakpoints, data watches, a step range
 *   _shim_run.c       the run loop, interrupts, polling loops, reset, power
 *   _shim_sleep.c     SLEEP, and the datasheet's sleep modes
 *   _shim_unmodelled.c the firmware's first use of what simavr does not model
 *   _shim_presses.c   presses replayed in C (the bench's floor)
 *   _shim_coverage.c  executed flash words and branch outcomes
 * See _shim.h for what it fixes and why, _api.h for what Python sees. Built
 * by cffi (see _build.py) as further sources of the extension; the only
 * symbols they expect from the generated module are fd_py_adc and
 * fd_py_adc_block, the extern "Python+C" callbacks that feed ADC conversions
 * (one value, or the next block of a buffer-fed channel).
 */
#ifndef FAIRDIE_SHIM_PRIVATE_H
#define FAIRDIE_SHIM_PRIVATE_H

#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simavr/avr_acomp.h>
#include <simavr/avr_adc.h>
#include <simavr/avr_eeprom.h>
#include <simavr/avr_extint.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_timer.h>
#include <simavr/avr_watchdog.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_cycle_timers.h>
#include <simavr/sim_interrupts.h>
#include <simavr/sim_io.h>
#include <simavr/sim_irq.h>
#include <simavr/sim_time.h>

#include "_shim.h"

#define FD_MAX_PORTS 12
#define FD_TRACE_CAP (1u << 14)
#define FD_TRACE_MARGIN 64u
#define FD_STOP_SLEPT (1u << 16) /* internal: the core fell asleep */
#define FD_ADC_CHANNELS 16       /* ADC_IRQ_ADC0..ADC15 */
#define FD_MAX_COMPARE 8
#define FD_MAX_WATCHED 8
#define FD_MAX_LEDS 32
#define FD_LED_HISTORY 1024u /* a power of two */
#define FD_LOG_CAP 8192u
#define FD_MAX_TIMERS 4
#define FD_MAX_FROZEN 16 /* cycle timers held while a sleep mode stops their clock */
#define FD_MAX_UNMODELLED 12
/* With FD_FIX_MEMORY the data space covers every 16-bit address and flash
 * every address LPM's Z reaches: simavr 1.6 stores stray writes below
 * 32 + MAX_IOs without a bounds check, and reads past its buffers after it
 * has flagged a crash. */
#define FD_GUARD_SPAN 0x10000u
#define FD_SNAP_MAGIC 0x66647331u /* "fds1" */
/* simavr's run_cycle_limit while fd_run batches instructions (see fd_run) */
#define FD_BATCH_LIMIT 0x7FFFFFFFu

enum { ADC_NONE = 0, ADC_CONST, ADC_PYTHON, ADC_BUFFER };
enum { HOOK_PORT = 0, HOOK_DDR, HOOK_PIN, HOOK_REG };

typedef struct fd_hook {
    struct fd_chip *chip;
    avr_io_write_t orig;
    void *orig_param;
    int port; /* index into chip->port, for the port hooks */
    int kind; /* HOOK_* */
} fd_hook;

typedef struct fd_port {
    char name;
    avr_ioport_t *io;
    fd_hook hooks[3]; /* PORT, DDR, PIN writes */
} fd_port;

/* A timer's compare output and the pin it drives (datasheet, from Python). */
typedef struct fd_compare {
    struct fd_chip *chip;
    char timer_name;
    int comp;
    avr_regbit_t com;
    char port_name;
    int bit;
    int port;       /* index into chip->port */
    int index;      /* into state.oc */
    avr_irq_t *out; /* the timer's output IRQ, once attached */
} fd_compare;

/* A cycle timer taken out while its peripheral's clock is stopped. */
typedef struct fd_frozen {
    avr_cycle_timer_t fn;
    void *param;
    uint64_t left; /* cycles it had to go */
} fd_frozen;

/* A buffer-fed ADC channel: the caller's values and the next one's index. */
typedef struct fd_adc_buf {
    const double *mv;
    uint32_t n, next, flags;
} fd_adc_buf;

/* Everything of ours that changes while the chip runs, in one struct, so a
 * snapshot copies it whole. */
typedef struct fd_state {
    int powered;
    int asleep; /* between a logged sleep start and its wake */
    uint64_t rng;
    uint64_t sleep_steps;
    uint64_t last_pin_change;
    fd_ee_write ew;
    uint8_t ext_drive[FD_MAX_PORTS], ext_value[FD_MAX_PORTS];
    uint8_t pull_up[FD_MAX_PORTS], pull_down[FD_MAX_PORTS];
    uint32_t pin_state[FD_MAX_PORTS];
    uint8_t oc[FD_MAX_COMPARE];
    int adc_mode[FD_ADC_CHANNELS];
    uint32_t adc_mv[FD_ADC_CHANNELS];
    fd_adc_buf adc_buf[FD_ADC_CHANNELS]; /* ADC_BUFFER channels (fd_adc_buffer) */
    int adc_pending;   /* the conversion in progress was single-ended: its code is known */
    uint32_t adc_next; /* that code, right-adjusted */
    int adc_ready;     /* the last completed conversion's code is known */
    uint32_t adc_code; /* that code: what the firmware reads */
    uint32_t led_mask;
    int64_t led_first;
    uint32_t led_head, led_count; /* history ring: next slot, entries held */
    int led_dropped;              /* the ring has overwritten its oldest entry */
    uint32_t wdt_entered;         /* the watchdog's ISR has just been entered */
    uint32_t sleep_mode;          /* 1 + the SM bits at the last SLEEP (0: awake or unknown) */
    uint32_t nfrozen;             /* cycle timers held since frozen_at (fd_sleep_enter) */
    uint64_t frozen_at;
    fd_frozen frozen[FD_MAX_FROZEN];
    uint64_t masked; /* interrupt table entries masked while asleep */
    uint64_t flags;  /* their raised flags when the sleep began */
} fd_state;

/* A register of something simavr does not model, watched (fd_unmodelled_watch). */
typedef struct fd_unmod {
    struct fd_chip *chip;
    uint8_t mask;  /* a write setting one of these bits counts (0: writes do not) */
    uint8_t index; /* the bit it sets in unmod_seen */
    avr_io_write_t orig_w;
    void *orig_wp;
    avr_io_read_t orig_r;
    void *orig_rp;
} fd_unmod;

/* Breakpoints, data watches and a step range (fd_debug_*): settings of a
 * debugger, not state of the chip, so no snapshot holds them. */
typedef struct fd_debug {
    int armed; /* something below is set */
    uint32_t nbreaks;
    uint32_t breaks[FD_DBG_MAX_BREAKS];
    uint8_t filter[32]; /* bit (pc >> 1) & 255: a breakpoint may be there */
    uint32_t nwatches;
    uint32_t watch_addr[FD_DBG_MAX_WATCHES], watch_size[FD_DBG_MAX_WATCHES];
    uint8_t shadow[FD_DBG_MAX_WATCHES][FD_DBG_MAX_WATCH_SIZE]; /* the bytes at the last look */
    uint32_t range_start, range_end;                           /* equal: no range */
} fd_debug;

/* Coverage counts per flash word (fd_cov_on): not chip state, so no
 * snapshot holds them. */
typedef struct fd_cov {
    uint32_t nwords;
    uint8_t *cls; /* each word's class, decoded from flash (_shim_coverage.c) */
    uint64_t *hits, *taken, *fell;
} fd_cov;

typedef struct fd_led_entry {
    uint64_t cycle; /* the mask holds from this cycle on */
    uint64_t mask;
} fd_led_entry;

struct fd_chip {
    avr_io_t io; /* simavr calls io.reset after every reset */
    avr_t *avr;
    void *handle; /* the Python Chip, for callbacks */
    uint32_t fixes;
    int powering; /* set while fd_power_on runs avr_reset */
    uint32_t sram_start;
    size_t block_size; /* simavr's allocation of the MCU (core + peripherals) */
    size_t data_snap;  /* the data space a snapshot copies */
    int snap_flash;    /* the core can write its flash (SPM): snapshots copy it */
    fd_state st;

    fd_port port[FD_MAX_PORTS];
    int nports;
    fd_hook watched[FD_MAX_WATCHED]; /* registers that change pins: PUD, COM bits */
    int nwatched;
    avr_regbit_t pud;
    fd_compare cmp[FD_MAX_COMPARE];
    int ncmp;

    /* the run in progress */
    uint32_t stop; /* FD_STOP_* bits raised from inside simavr */
    fd_stops stops;
    int any_pin;
    fd_event why;
    uint64_t quiet_cycles;
    uint64_t run_deadline; /* of the run in progress (0: none): no sleep passes it */
    int batch;             /* fd_run may batch instructions (fd_set_batch) */
    int batching;          /* the run in progress batches */
    int batch_ended;       /* fd_end_batch since coverage last cleared it */

    avr_watchdog_t *wdt;
    uint16_t wdrf_reg; /* MCUSR's address, from the watchdog */
    avr_eeprom_t *ee;
    uint32_t ee_erase_write_us, ee_single_us;
    avr_adc_t *adc;
    avr_irq_t *adc_in; /* ADC_IRQ_ADC0.. of the ADC, or NULL */
    avr_io_read_t adc_read[2];
    void *adc_read_param[2];
    void (*orig_sleep)(avr_t *avr, avr_cycle_count_t how_long);
    avr_regbit_t se, sm; /* SLEEP's enable bit and mode field (fd_set_sleep_bits) */
    int sm_bits;
    avr_timer_t *timers[FD_MAX_TIMERS];
    int ntimers;
    avr_extint_t *extint;

    fd_led leds[FD_MAX_LEDS];
    int led_ap[FD_MAX_LEDS], led_cp[FD_MAX_LEDS]; /* port index, -1 for the supply */
    uint32_t nleds;
    fd_led_entry *led_hist;

    uint32_t trace_mask;
    fd_event *trace;
    uint32_t ntrace;
    char *log;
    uint32_t nlog;
    int log_level; /* simavr's LOG_* levels kept (simavr skips formatting the rest) */

    /* polling loops skipped up to the next cycle timer (see fd_poll_read) */
    int poll_skip;
    uint64_t poll_skipped;
    struct {
        uint16_t addr;
        avr_io_read_t orig;
        void *orig_param;
    } polled[4];
    int npolled;

    fd_debug dbg;
    fd_cov *cov;                   /* NULL: coverage off */
    void (*plain_run)(avr_t *avr); /* simavr's run callback, without coverage */

    /* unmodelled registers: not chip state (a snapshot does not unsee them) */
    fd_unmod unmod[FD_MAX_UNMODELLED];
    int nunmod;
    uint32_t unmod_seen; /* bit n: the access of index n happened */
    int unmod_new;       /* since fd_unmodelled_seen last looked */
};

/* ---- batches of instructions ---------------------------------------------- */

/* Ends simavr's batch of instructions (see fd_run) after the one executing:
 * called wherever a stop is raised or the cycle count moves by more than the
 * instruction's own cycles, which simavr's count of cycles left before the
 * next timer does not see. The limit, not only the count: a timer registered
 * later in the same instruction recomputes the count (bounded by the limit).
 * fd_run puts the limit back between two calls of avr->run. Harmless when
 * nothing batches (the limit is 1 then anyway). */
static inline void fd_end_batch(fd_chip *c) {
    c->avr->run_cycle_limit = 1;
    c->avr->run_cycle_count = 0;
    c->batch_ended = 1;
}

/* A bit of a register as a mask (0 for a bit the core does not have). */
static inline uint8_t fd_bit(avr_regbit_t rb) { return rb.reg ? (uint8_t)(1u << rb.bit) : 0; }

/* The helpers one file of the shim offers the others (hidden from the
 * extension's exports). */
#pragma GCC visibility push(hidden)

/* _shim_events.c */
void fd_event_at(fd_chip *c, uint64_t cycle, uint32_t kind, uint32_t a, uint32_t b, uint32_t d);
void fd_event_raise(fd_chip *c, uint32_t kind, uint32_t a, uint32_t b, uint32_t d);
avr_cycle_count_t fd_wake_timer(avr_t *avr, avr_cycle_count_t when, void *param);
void fd_logger(avr_t *avr, const int level, const char *format, va_list ap);

/* _shim_pins.c */
uint32_t fd_resolve(fd_chip *c, int i);
void fd_pins_update_all(fd_chip *c);
void fd_pins_after_reset(fd_chip *c);
void fd_watch_register(fd_chip *c, uint16_t addr);
void fd_find_ports(fd_chip *c);
int fd_port_index(fd_chip *c, char name);
void fd_compare_attach(fd_chip *c, fd_compare *k);

/* _shim_leds.c */
void fd_leds_update(fd_chip *c);

/* _shim_eeprom.c */
void fd_ee_attach(fd_chip *c);
avr_cycle_count_t fd_ee_done(avr_t *avr, avr_cycle_count_t when, void *param);

/* _shim_adc.c */
void fd_adc_attach(fd_chip *c);

/* _shim_run.c */
void fd_irq_attach(fd_chip *c);
void fd_poll_register(fd_chip *c, uint16_t addr);
void fd_after_reset(avr_io_t *io);

/* _shim_sleep.c: fd_sleep_enter returns 0 when SLEEP is a no-op (SE clear) */
void fd_sleep_attach(fd_chip *c);
int fd_sleep_enter(fd_chip *c);
int fd_watchdog_on(fd_chip *c);
void fd_woke(fd_chip *c);
void fd_sleep_forget(fd_chip *c);
void fd_sleep_hook(avr_t *avr, avr_cycle_count_t how_long);

/* _shim_debug.c */
void fd_debug_look(fd_chip *c);
int fd_debug_check(fd_chip *c, int pcs);

/* _shim_coverage.c */
void fd_cov_decode(fd_chip *c);
void fd_cov_set_run(fd_chip *c);
void fd_cov_poll(fd_chip *c, uint32_t pc, uint64_t passes);

/* _shim_snapshot.c */
uint32_t fd_snapshot_size(fd_chip *c);

#pragma GCC visibility pop

#endif
