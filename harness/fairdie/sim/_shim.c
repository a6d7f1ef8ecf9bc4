/*
 * fairdie's C shim over libsimavr 1.6. See _shim.h for what it fixes and why,
 * _api.h for what Python sees. Built by cffi (see _build.py) as a second
 * source of the extension; the only symbol it expects from the generated
 * module is fd_py_adc, the extern "Python+C" callback that feeds an ADC
 * conversion.
 */
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Provided by the cffi module: returns millivolts, or a negative number when
 * the Python callable raised (the run then stops with CALLBACK_ERROR). */
int fd_py_adc(uint64_t chip_id, int channel);

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
/* With FD_FIX_MEMORY the data space covers every 16-bit address and flash
 * every address LPM's Z reaches: simavr 1.6 stores stray writes below
 * 32 + MAX_IOs without a bounds check, and reads past its buffers after it
 * has flagged a crash. */
#define FD_GUARD_SPAN 0x10000u
#define FD_SNAP_MAGIC 0x66647331u /* "fds1" */
/* simavr's run_cycle_limit while fd_run batches instructions (see fd_run) */
#define FD_BATCH_LIMIT 0x7FFFFFFFu

enum { ADC_NONE = 0, ADC_CONST, ADC_PYTHON };
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
    int adc_pending;   /* the conversion in progress was single-ended: its code is known */
    uint32_t adc_next; /* that code, right-adjusted */
    int adc_ready;     /* the last completed conversion's code is known */
    uint32_t adc_code; /* that code: what the firmware reads */
    uint32_t led_mask;
    int64_t led_first;
    uint32_t led_head, led_count; /* history ring: next slot, entries held */
    int led_dropped;              /* the ring has overwritten its oldest entry */
    uint32_t wdt_entered;         /* the watchdog's ISR has just been entered */
} fd_state;

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

    avr_watchdog_t *wdt;
    uint16_t wdrf_reg; /* MCUSR's address, from the watchdog */
    avr_eeprom_t *ee;
    uint32_t ee_erase_write_us, ee_single_us;
    avr_adc_t *adc;
    avr_irq_t *adc_in; /* ADC_IRQ_ADC0.. of the ADC, or NULL */
    avr_io_read_t adc_read[2];
    void *adc_read_param[2];
    void (*orig_sleep)(avr_t *avr, avr_cycle_count_t how_long);

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
}

/* ---- events: trace and stops --------------------------------------------- */

static int fd_stop_matches(fd_chip *c, uint32_t kind, uint32_t a, uint32_t b, uint32_t d) {
    if (kind == FD_EV_PIN) {
        uint8_t changed = (uint8_t)((b ^ d) & 0xFF);
        return c->any_pin ? changed != 0 : (changed & c->stops.pins[(a - 'A') % FD_MAX_PORTS]) != 0;
    }
    if (kind == FD_EV_IRQ)
        return !c->stops.vectors || (a < 64 && ((c->stops.vectors >> a) & 1));
    return 1;
}

static void fd_event_at(fd_chip *c, uint64_t cycle, uint32_t kind, uint32_t a, uint32_t b,
                        uint32_t d) {
    if (c->trace_mask & kind) {
        if (c->ntrace >= FD_TRACE_CAP - FD_TRACE_MARGIN) {
            c->stop |= FD_STOP_TRACE_FULL;
            fd_end_batch(c);
        }
        if (c->ntrace < FD_TRACE_CAP) { /* runs stop at the margin, before this */
            fd_event *e = &c->trace[c->ntrace++];
            e->cycle = cycle;
            e->kind = kind;
            e->a = a;
            e->b = b;
            e->c = d;
        }
    }
    if ((c->stops.kinds & kind) && !(c->stop & FD_STOP_EVENT) &&
        fd_stop_matches(c, kind, a, b, d)) {
        c->stop |= FD_STOP_EVENT;
        fd_end_batch(c);
        c->why.cycle = cycle;
        c->why.kind = kind;
        c->why.a = a;
        c->why.b = b;
        c->why.c = d;
    }
}

static void fd_event_raise(fd_chip *c, uint32_t kind, uint32_t a, uint32_t b, uint32_t d) {
    fd_event_at(c, c->avr->cycle, kind, a, b, d);
}

/* A timer that does nothing but end a sleep fast-forward on time: the run's
 * deadline (param: the chip) and its quiet time (param: its stops). */
static avr_cycle_count_t fd_wake_timer(avr_t *avr, avr_cycle_count_t when, void *param) {
    (void)avr;
    (void)when;
    (void)param;
    return 0;
}

/* ---- log ------------------------------------------------------------------ */

/* simavr's logger is process-wide; each line goes to its chip's buffer,
 * level first, colour escapes dropped. Python drains it into `logging`. */
static void fd_logger(avr_t *avr, const int level, const char *format, va_list ap) {
    fd_chip *c = avr ? avr->custom.data : NULL;
    if (!c || !c->log || level > c->log_level)
        return;
    char line[512];
    int n = vsnprintf(line, sizeof line, format, ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = sizeof line - 1;
    if (c->nlog + (uint32_t)n + 3 > FD_LOG_CAP)
        return; /* full until drained: later lines are dropped */
    c->log[c->nlog++] = (char)('0' + level);
    for (int i = 0; i < n; i++) {
        if (line[i] == '\033') { /* ESC [ ... m */
            while (i < n && line[i] != 'm')
                i++;
            continue;
        }
        if (line[i] != '\r')
            c->log[c->nlog++] = line[i];
    }
    if (c->log[c->nlog - 1] != '\n')
        c->log[c->nlog++] = '\n';
}

void fd_log_level(fd_chip *c, int level) {
    c->log_level = level;
    if (c->avr->data) /* simavr 1.6 checks it at a few sites only; fd_logger filters */
        c->avr->log = (uint8_t)level;
}

uint32_t fd_pending(fd_chip *c) { return (c->ntrace ? 1u : 0u) | (c->nlog ? 2u : 0u); }

uint32_t fd_log_drain(fd_chip *c, char *out, uint32_t max) {
    uint32_t n = c->nlog < max ? c->nlog : max;
    memcpy(out, c->log, n);
    memmove(c->log, c->log + n, c->nlog - n);
    c->nlog -= n;
    return n;
}

/* ---- LEDs ------------------------------------------------------------------ */

static uint32_t fd_leds_mask(fd_chip *c) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < c->nleds; i++) {
        int on = 1;
        if (c->led_ap[i] >= 0) {
            uint32_t s = c->st.pin_state[c->led_ap[i]], b = c->leds[i].anode_bit;
            on = ((s >> b) & 1) && (((s >> 8) | (s >> 16)) >> b & 1);
        }
        if (on && c->led_cp[i] >= 0) {
            uint32_t s = c->st.pin_state[c->led_cp[i]], b = c->leds[i].cathode_bit;
            on = !((s >> b) & 1) && (((s >> 8) | (s >> 16)) >> b & 1);
        }
        m |= (uint32_t)on << i;
    }
    return m;
}

static void fd_leds_push(fd_chip *c, uint32_t mask) {
    fd_state *st = &c->st;
    fd_led_entry *e = &c->led_hist[st->led_head];
    e->cycle = c->avr->cycle;
    e->mask = mask;
    st->led_head = (st->led_head + 1) & (FD_LED_HISTORY - 1);
    if (st->led_count < FD_LED_HISTORY)
        st->led_count++;
    else
        st->led_dropped = 1;
    st->led_mask = mask;
    if (mask && st->led_first < 0)
        st->led_first = (int64_t)c->avr->cycle;
}

static void fd_leds_update(fd_chip *c) {
    if (!c->nleds)
        return;
    uint32_t m = fd_leds_mask(c);
    if (m != c->st.led_mask)
        fd_leds_push(c, m);
}

/* ---- the pin model ------------------------------------------------------- */

/* The state word of port i (see _api.h): the chip side (DDR, PORT, the
 * pull-up unless PUD, compare outputs that take over a pin) combined with
 * the outside world (driven, or pulled by an external resistor). Where the
 * chip and the world both drive a pin, the chip's level wins. */
static uint32_t fd_resolve(fd_chip *c, int i) {
    avr_t *avr = c->avr;
    fd_state *st = &c->st;
    uint8_t ddr = 0, out = 0, ocm = 0, ocv = 0, pud = 0;
    if (st->powered) {
        ddr = avr->data[c->port[i].io->r_ddr];
        out = avr->data[c->port[i].io->r_port];
        if (c->fixes & FD_FIX_COMPARE)
            for (int k = 0; k < c->ncmp; k++)
                if (c->cmp[k].port == i && avr_regbit_get(avr, c->cmp[k].com)) {
                    ocm |= (uint8_t)(1u << c->cmp[k].bit);
                    if (st->oc[k])
                        ocv |= (uint8_t)(1u << c->cmp[k].bit);
                }
        if (c->pud.reg)
            pud = avr_regbit_get(avr, c->pud);
    }
    uint8_t chip = ddr;
    uint8_t cval = (uint8_t)((out & ~ocm) | (ocv & ocm));
    uint8_t world = st->ext_drive[i];
    uint8_t free_ = (uint8_t)(~chip & ~world);
    uint8_t ext_pull = (uint8_t)((st->pull_up[i] | st->pull_down[i]) & free_);
    uint8_t int_pull = pud ? 0 : (uint8_t)(out & ~ddr & free_ & ~ext_pull);
    uint8_t level = (uint8_t)((chip & cval) | (world & ~chip & st->ext_value[i]) |
                              (ext_pull & st->pull_up[i]) | int_pull);
    return (uint32_t)level | (uint32_t)chip << 8 | (uint32_t)world << 16 |
           (uint32_t)(ext_pull | int_pull) << 24;
}

static void fd_pins_changed(fd_chip *c, int i, uint32_t old, uint32_t now) {
    c->st.last_pin_change = c->avr->cycle;
    if (c->quiet_cycles) /* a sleep fast-forward must not jump past the quiet time */
        avr_cycle_timer_register(c->avr, c->quiet_cycles, fd_wake_timer, &c->stops);
    fd_event_raise(c, FD_EV_PIN, (uint32_t)c->port[i].name, now, old);
    fd_leds_update(c);
}

/* Recompute port i; with the pull-up fix the model also sets what the CPU
 * reads (through the port's pin IRQs: PINx, pin change and INTn). */
static void fd_pins_update(fd_chip *c, int i) {
    uint32_t old = c->st.pin_state[i], now = fd_resolve(c, i);
    if (now == old)
        return;
    c->st.pin_state[i] = now;
    if (c->fixes & FD_FIX_PULLUP) {
        uint8_t changed = (uint8_t)((now ^ old) & 0xFF);
        for (int b = 0; b < 8; b++)
            if (changed & (1u << b))
                avr_raise_irq(c->port[i].io->io.irq + b, (now >> b) & 1);
    }
    fd_pins_changed(c, i, old, now);
}

static void fd_pins_update_all(fd_chip *c) {
    for (int i = 0; i < c->nports; i++)
        fd_pins_update(c, i);
}

/* After a reset the I/O registers are cleared: PINx and the pin IRQs take
 * the model's levels again without raising an interrupt (none is pending
 * after a reset). */
static void fd_pins_after_reset(fd_chip *c) {
    for (int i = 0; i < c->nports; i++) {
        uint32_t old = c->st.pin_state[i], now = fd_resolve(c, i);
        if (c->fixes & FD_FIX_PULLUP) {
            avr_ioport_t *io = c->port[i].io;
            c->avr->data[io->r_pin] = (uint8_t)now;
            for (int b = 0; b < 8; b++)
                io->io.irq[b].value = (now >> b) & 1;
        }
        c->st.pin_state[i] = now;
        if (now != old)
            fd_pins_changed(c, i, old, now);
    }
}

/* simavr runs SBI/CBI as a read-modify-write of the whole register. On a
 * PINx register that toggles every pin reading high, where the hardware
 * writes the one bit (SBI toggles that pin; CBI toggles none). The
 * instruction being executed is still at avr->pc while it writes. */
static uint8_t fd_pin_bit_write(avr_t *avr, avr_io_addr_t addr, uint8_t v) {
    if (avr->pc + 1 > avr->flashend)
        return v;
    uint16_t op = (uint16_t)(avr->flash[avr->pc] | (avr->flash[avr->pc + 1] << 8));
    uint16_t kind = op & 0xFF00;
    if ((kind != 0x9A00 && kind != 0x9800) || ((op >> 3) & 0x1F) + 0x20 != addr)
        return v;
    return kind == 0x9A00 ? (uint8_t)(1u << (op & 7)) : 0;
}

static void fd_port_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_hook *h = param;
    fd_chip *c = h->chip;
    if (h->kind == HOOK_PIN && (c->fixes & FD_FIX_PIN_BIT))
        v = fd_pin_bit_write(avr, addr, v);
    if (!(c->fixes & FD_FIX_PULLUP)) { /* simavr's own port, then our view of it */
        h->orig(avr, addr, v, h->orig_param);
        fd_pins_update(c, h->port);
        return;
    }
    avr_ioport_t *io = c->port[h->port].io;
    if (h->kind == HOOK_PIN) { /* writing a one to PINx toggles PORTx */
        addr = io->r_port;
        v = (uint8_t)(avr->data[io->r_port] ^ v);
    }
    /* the pin model depends on this register and on inputs that update it
     * themselves when they change: a write that leaves the register as it
     * was changes no pin */
    int same = avr->data[addr] == v;
    avr->data[addr] = v;
    avr_raise_irq(
        io->io.irq + (h->kind == HOOK_DDR ? IOPORT_IRQ_DIRECTION_ALL : IOPORT_IRQ_REG_PORT), v);
    if (!same)
        fd_pins_update(c, h->port);
}

/* A register that changes pins without being a port (PUD, COM bits). */
static void fd_reg_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_hook *h = param;
    if (h->orig)
        h->orig(avr, addr, v, h->orig_param);
    else
        avr->data[addr] = v;
    fd_pins_update_all(h->chip);
}

static void fd_hook_write(fd_chip *c, fd_hook *h, int port, int kind, uint16_t addr,
                          avr_io_write_t fn) {
    avr_t *avr = c->avr;
    int a = AVR_DATA_TO_IO(addr);
    h->chip = c;
    h->port = port;
    h->kind = kind;
    h->orig = avr->io[a].w.c;
    h->orig_param = avr->io[a].w.param;
    if (!h->orig && kind != HOOK_REG)
        return;
    avr->io[a].w.c = fn;
    avr->io[a].w.param = h;
}

static void fd_watch_register(fd_chip *c, uint16_t addr) {
    if (addr < 0x20 || addr > c->avr->ioend)
        return;
    for (int i = 0; i < c->nwatched; i++)
        if (c->avr->io[AVR_DATA_TO_IO(addr)].w.param == &c->watched[i])
            return;
    if (c->nwatched < FD_MAX_WATCHED)
        fd_hook_write(c, &c->watched[c->nwatched++], -1, HOOK_REG, addr, fd_reg_write);
}

static void fd_find_ports(fd_chip *c) {
    for (avr_io_t *io = c->avr->io_port; io; io = io->next) {
        if (!io->kind || strcmp(io->kind, "port") != 0 || c->nports >= FD_MAX_PORTS)
            continue;
        avr_ioport_t *p = (avr_ioport_t *)io;
        int i = c->nports++;
        c->port[i].name = p->name;
        c->port[i].io = p;
        fd_hook_write(c, &c->port[i].hooks[0], i, HOOK_PORT, p->r_port, fd_port_write);
        fd_hook_write(c, &c->port[i].hooks[1], i, HOOK_DDR, p->r_ddr, fd_port_write);
        fd_hook_write(c, &c->port[i].hooks[2], i, HOOK_PIN, p->r_pin, fd_port_write);
    }
}

static int fd_port_index(fd_chip *c, char name) {
    for (int i = 0; i < c->nports; i++)
        if (c->port[i].name == name)
            return i;
    return -1;
}

/* ---- compare outputs ------------------------------------------------------- */

static void fd_compare_out(avr_irq_t *irq, uint32_t value, void *param) {
    fd_compare *k = param;
    (void)irq;
    k->chip->st.oc[k->index] = (uint8_t)(value & 1);
    fd_pins_update(k->chip, k->port);
}

/* Route a compare output to its datasheet pin: simavr 1.6 drives it through
 * PORTx (so PORTx reads wrong and our port hooks never see it), on the
 * ATtiny84 to the wrong pins, and on the ATtiny13 not at all. With no
 * com_pin, simavr toggles the output IRQ itself; the pin model reads it. */
static void fd_compare_attach(fd_chip *c, fd_compare *k) {
    avr_timer_t *t = NULL;
    for (avr_io_t *io = c->avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "timer") == 0 &&
            ((avr_timer_t *)io)->name == k->timer_name)
            t = (avr_timer_t *)io;
    k->port = fd_port_index(c, k->port_name);
    if (!t || k->port < 0)
        return;
    avr_timer_comp_t *comp = &t->comp[k->comp];
    avr_irq_t *out = t->io.irq + TIMER_IRQ_OUT_COMP + k->comp;
    if (comp->com_pin.reg) {
        avr_ioport_getirq_t req = {.bit = comp->com_pin};
        if (avr_ioctl(c->avr, AVR_IOCTL_IOPORT_GETIRQ_REGBIT, &req) > 0)
            avr_unconnect_irq(out, req.irq[0]);
        comp->com_pin = (avr_regbit_t){0};
    }
    comp->com = k->com;
    out->value = 0;
    k->out = out;
    avr_irq_register_notify(out, fd_compare_out, k);
    fd_watch_register(c, (uint16_t)k->com.reg);
}

int fd_set_compare_pin(fd_chip *c, char timer, int comp, uint32_t com_reg, uint32_t com_shift,
                       char port, int bit) {
    if (c->ncmp >= FD_MAX_COMPARE || comp < 0 || comp >= AVR_TIMER_COMP_COUNT || bit < 0 ||
        bit > 7 || com_shift > 6 || com_reg > 0x1FF)
        return -1;
    fd_compare *k = &c->cmp[c->ncmp];
    k->chip = c;
    k->index = c->ncmp++;
    k->timer_name = timer;
    k->comp = comp;
    k->com = (avr_regbit_t){.reg = com_reg, .bit = com_shift, .mask = 3};
    k->port_name = port;
    k->bit = bit;
    k->port = -1;
    return 0;
}

int fd_set_pud(fd_chip *c, uint32_t reg, uint32_t bit) {
    if (reg > 0x1FF || bit > 7)
        return -1;
    c->pud = (avr_regbit_t){.reg = reg, .bit = bit, .mask = 1};
    return 0;
}

/* ---- EEPROM: datasheet timing, EEPM modes, pending byte --------------- */

static uint8_t fd_bit(avr_regbit_t rb) { return rb.reg ? (uint8_t)(1u << rb.bit) : 0; }

static uint32_t fd_ee_address(fd_chip *c) {
    avr_t *avr = c->avr;
    uint32_t a = avr->data[c->ee->r_eearl];
    if (c->ee->r_eearh)
        a |= (uint32_t)avr->data[c->ee->r_eearh] << 8;
    return a & (uint32_t)(c->ee->size - 1);
}

static avr_cycle_count_t fd_ee_mpe_clear(avr_t *avr, avr_cycle_count_t when, void *param) {
    fd_chip *c = param;
    (void)when;
    avr->data[c->ee->r_eecr] &= (uint8_t)~fd_bit(c->ee->eempe);
    return 0;
}

static avr_cycle_count_t fd_ee_done(avr_t *avr, avr_cycle_count_t when, void *param) {
    fd_chip *c = param;
    fd_ee_write *w = &c->st.ew;
    (void)when;
    if (!w->active)
        return 0;
    c->ee->eeprom[w->address] = (uint8_t)w->new_value;
    w->active = 0;
    avr->data[c->ee->r_eecr] &= (uint8_t)~fd_bit(c->ee->eepe);
    fd_event_raise(c, FD_EV_EEPROM_DONE, w->address, w->new_value, 0);
    if (avr->data[c->ee->r_eecr] & fd_bit(c->ee->ready.enable))
        avr_raise_interrupt(avr, &c->ee->ready);
    return 0;
}

static void fd_eecr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_chip *c = param;
    avr_eeprom_t *ee = c->ee;
    fd_ee_write *w = &c->st.ew;
    uint8_t old = avr->data[addr];
    uint8_t m_pm = (uint8_t)(fd_bit(ee->eepm[0]) | fd_bit(ee->eepm[1]));
    uint8_t m_mpe = fd_bit(ee->eempe), m_pe = fd_bit(ee->eepe), m_re = fd_bit(ee->eere);
    uint8_t m_rie = fd_bit(ee->ready.enable);
    int busy = w->active;

    uint8_t r = (uint8_t)(v & ~(m_pe | m_re));
    if (busy) /* EEPM cannot change while a write is in progress */
        r = (uint8_t)((r & ~m_pm) | (old & m_pm));

    uint32_t mode = 0;
    if (ee->eepm[0].reg && (r & fd_bit(ee->eepm[0])))
        mode |= 1;
    if (ee->eepm[1].reg && (r & fd_bit(ee->eepm[1])))
        mode |= 2;

    int start = (v & m_pe) && (old & m_mpe) && !busy && mode != 3;
    if (start) {
        uint32_t a = fd_ee_address(c);
        uint8_t was = ee->eeprom[a], data = avr->data[ee->r_eedr];
        uint32_t us = mode == 0 ? c->ee_erase_write_us : c->ee_single_us;
        w->active = 1;
        w->address = a;
        w->old_value = was;
        w->new_value = mode == 0 ? data : mode == 1 ? 0xFF : (uint8_t)(was & data);
        w->mode = mode;
        avr_cycle_count_t n = avr_usec_to_cycles(avr, us);
        w->done_cycle = avr->cycle + n;
        avr_cycle_timer_register(avr, n, fd_ee_done, c);
        r = (uint8_t)((r | m_pe) & ~m_mpe);
        avr_cycle_timer_cancel(avr, fd_ee_mpe_clear, c);
        fd_event_raise(c, FD_EV_EEPROM_START, a, was, w->new_value | mode << 8);
        avr->cycle += 2; /* the CPU halts two cycles after setting EEPE */
        fd_end_batch(c);
    } else if (busy) {
        r |= m_pe;
    }
    if ((r & m_mpe) && !(old & m_mpe) && !start)
        avr_cycle_timer_register(avr, 4, fd_ee_mpe_clear, c);
    avr->data[addr] = r;

    if ((v & m_re) && !w->active) {
        avr->data[ee->r_eedr] = ee->eeprom[fd_ee_address(c)];
        avr->cycle += 4; /* the CPU halts four cycles on a read */
        fd_end_batch(c);
    }
    if ((r & m_rie) && !(old & m_rie) && !w->active)
        avr_raise_interrupt(avr, &ee->ready);
}

/* ---- interrupts --------------------------------------------------------- */

/* The table-wide "running" IRQ is raised on entry (with the vector) and on
 * RETI (with the vector still running, or 0); entry is when the PC has just
 * been set to the vector. simavr enters a vector at no cost. The datasheet:
 * the response takes four cycles (the PC is pushed), four more when the
 * interrupt wakes the CPU from sleep (the oscillator's start-up time is not
 * modelled). */
static void fd_irq_running(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    avr_t *avr = c->avr;
    (void)irq;
    if (!value || avr->pc != (avr_flashaddr_t)value * avr->vector_size)
        return;
    int woke = c->st.asleep;
    if (woke) { /* the wake comes first, then the response */
        c->st.asleep = 0;
        fd_event_raise(c, FD_EV_WAKE, 0, 0, 0);
    }
    if (c->fixes & FD_FIX_IRQ) {
        avr->cycle += woke ? 8 : 4;
        fd_end_batch(c);
    }
    fd_event_raise(c, FD_EV_IRQ, value, 0, 0);
}

/* simavr clears WDTIE whenever the watchdog's interrupt has been serviced:
 * right for the interrupt-and-reset mode (WDE=1), wrong for the interrupt
 * mode (WDE=0), where WDTIE stays set and the watchdog keeps interrupting.
 * simavr clears it from a hook on the vector's "pending" IRQ, which runs
 * after ours; the table-wide "pending" IRQ is raised right after it, so the
 * bit is put back from there. */
static void fd_wdt_running(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    (void)irq;
    c->st.wdt_entered = value != 0;
}

static void fd_wdt_cleared(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    (void)irq;
    (void)value;
    if (!c->st.wdt_entered)
        return;
    c->st.wdt_entered = 0;
    if (!avr_regbit_get(c->avr, c->wdt->wde))
        avr_regbit_set(c->avr, c->wdt->watchdog.enable);
}

/* ---- ADC: feed and log each conversion ---------------------------------- */

static uint32_t fd_adc_vref(fd_chip *c, uint32_t *kind) {
    avr_t *avr = c->avr;
    avr_adc_t *p = c->adc;
    uint8_t refi = avr_regbit_get_array(avr, p->ref, ARRAY_SIZE(p->ref));
    uint16_t ref = p->ref_values[refi];
    switch (ref) {
    case ADC_VREF_VCC:
        *kind = FD_ADC_REF_VCC;
        return avr->vcc ? avr->vcc : 3300;
    case ADC_VREF_AVCC:
        *kind = FD_ADC_REF_VCC;
        return avr->avcc ? avr->avcc : 3300;
    case ADC_VREF_AREF:
        *kind = FD_ADC_REF_AREF;
        return avr->aref ? avr->aref : 3300;
    default:
        *kind = FD_ADC_REF_INTERNAL;
        return ref;
    }
}

/* ADC_IRQ_OUT_TRIGGER: a conversion starts. Feed the channel, then log the
 * channel, reference, millivolts and the code simavr's transfer function
 * gives (floor(mV * 1023 / Vref), clipped to 1023). */
static void fd_adc_trigger(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    union {
        avr_adc_mux_t mux;
        uint32_t v;
    } e = {.v = value};
    (void)irq;
    int ch = e.mux.src;
    c->st.adc_pending = 0;
    if (e.mux.kind != ADC_MUX_SINGLE || ch < 0 || ch >= FD_ADC_CHANNELS)
        return;
    uint32_t mv;
    if (c->st.adc_mode[ch] == ADC_PYTHON) {
        int r = fd_py_adc((uint64_t)(uintptr_t)c->handle, ch);
        if (r < 0) {
            c->stop |= FD_STOP_CALLBACK_ERROR;
            fd_end_batch(c);
            return;
        }
        mv = (uint32_t)r;
        c->st.adc_mv[ch] = mv;
    } else if (c->st.adc_mode[ch] == ADC_CONST) {
        mv = c->st.adc_mv[ch];
    } else {
        mv = ch < 8 ? c->adc->adc_values[ch] : 0;
    }
    avr_raise_irq(c->adc_in + ch, mv);
    uint32_t kind, vref = fd_adc_vref(c, &kind);
    uint64_t code = (uint64_t)mv * 0x3ff / vref;
    if (code > 0x3ff)
        code = 0x3ff;
    c->st.adc_next = (uint32_t)code;
    c->st.adc_pending = 1;
    fd_event_raise(c, FD_EV_ADC, (uint32_t)ch | kind << 8, mv, (uint32_t)code | vref << 16);
}

/* The ADC's vector is raised when a conversion completes (also with its
 * interrupt off; not while an enabled ADC interrupt is still pending, when
 * simavr skips the raise and the older result stays). */
static void fd_adc_done(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    (void)irq;
    if (!value)
        return;
    c->st.adc_ready = c->st.adc_pending;
    c->st.adc_code = c->st.adc_next;
    c->st.adc_pending = 0;
}

/* simavr computes the result when ADCL (or ADCH) is first read after a
 * conversion, from the channel and reference selected at that moment; the
 * datasheet latches them when the conversion starts. With the fix the
 * firmware reads the code of the last completed conversion, as logged. */
static uint8_t fd_adc_read(avr_t *avr, avr_io_addr_t addr, void *param) {
    fd_chip *c = param;
    avr_adc_t *p = c->adc;
    int hi = addr == p->r_adch;
    uint8_t was = p->read_status;
    uint8_t v = c->adc_read[hi](avr, addr, c->adc_read_param[hi]);
    if (was == 0 && p->read_status != 0 && c->st.adc_ready && (c->fixes & FD_FIX_ADC)) {
        uint32_t reg = c->st.adc_code << (avr_regbit_get(avr, p->adlar) ? 6 : 0);
        avr->data[p->r_adcl] = (uint8_t)reg;
        avr->data[p->r_adch] = (uint8_t)(reg >> 8);
        v = avr->data[addr];
    }
    return v;
}

static void fd_adc_attach(fd_chip *c) {
    avr_t *avr = c->avr;
    avr_irq_t *trig = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER);
    if (!trig)
        return;
    for (avr_io_t *io = avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "adc") == 0)
            c->adc = (avr_adc_t *)io;
    if (!c->adc)
        return;
    c->adc_in = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0);
    avr_irq_register_notify(trig, fd_adc_trigger, c);
    avr_irq_register_notify(c->adc->adc.irq + AVR_INT_IRQ_PENDING, fd_adc_done, c);
    uint8_t regs[2] = {c->adc->r_adcl, c->adc->r_adch};
    for (int i = 0; i < 2; i++) {
        int a = AVR_DATA_TO_IO(regs[i]);
        c->adc_read[i] = avr->io[a].r.c;
        c->adc_read_param[i] = avr->io[a].r.param;
        if (c->adc_read[i]) {
            avr->io[a].r.c = fd_adc_read;
            avr->io[a].r.param = c;
        }
    }
}

/* ---- polling loops --------------------------------------------------------- */

/* A firmware that waits for EEPE or ADSC to clear spins in a two-instruction
 * loop, `sbic A,b` / `rjmp .-4` (3 cycles a pass), that does nothing but read
 * the register until a cycle timer (the write's, the conversion's) changes
 * it. When the CPU reads such a register from such a loop, no interrupt is
 * pending and nothing else is watched, the passes before the next cycle
 * timer are skipped whole: each would have read the same value and changed
 * nothing, and the timer then fires after the same instruction as without
 * the skip, so the run is cycle for cycle the same (tested both ways). */
static void fd_poll_check(fd_chip *c, uint16_t addr, uint8_t v) {
    avr_t *avr = c->avr;
    avr_flashaddr_t pc = avr->pc;
    if (!c->poll_skip || avr->interrupt_state || (c->stops.kinds & FD_EV_PC) ||
        pc + 3 > avr->flashend)
        return;
    uint16_t op = (uint16_t)(avr->flash[pc] | (avr->flash[pc + 1] << 8));
    uint16_t next = (uint16_t)(avr->flash[pc + 2] | (avr->flash[pc + 3] << 8));
    uint16_t kind = op & 0xFF00;
    if ((kind != 0x9900 && kind != 0x9B00) || ((op >> 3) & 0x1F) + 0x20 != addr || next != 0xCFFE)
        return;
    int set = (v >> (op & 7)) & 1;
    if (kind == 0x9900 ? !set : set) /* sbic loops while set, sbis while clear */
        return;
    avr_cycle_timer_slot_p t = avr->cycle_timers.timer;
    if (!t || t->when <= avr->cycle + 9)
        return;
    uint64_t passes = (t->when - avr->cycle - 3) / 3 - 1;
    avr->cycle += 3 * passes;
    fd_end_batch(c);
    c->poll_skipped += 3 * passes;
}

static uint8_t fd_poll_read(avr_t *avr, avr_io_addr_t addr, void *param) {
    fd_chip *c = param;
    for (int i = 0; i < c->npolled; i++)
        if (c->polled[i].addr == addr) {
            uint8_t v = c->polled[i].orig ? c->polled[i].orig(avr, addr, c->polled[i].orig_param)
                                          : avr->data[addr];
            fd_poll_check(c, addr, v);
            return v;
        }
    return avr->data[addr];
}

/* Registers that only a cycle timer changes while firmware polls them. */
static void fd_poll_register(fd_chip *c, uint16_t addr) {
    avr_t *avr = c->avr;
    if (!addr || addr < 0x20 || addr > avr->ioend || c->npolled >= 4)
        return;
    int a = AVR_DATA_TO_IO(addr);
    c->polled[c->npolled].addr = addr;
    c->polled[c->npolled].orig = avr->io[a].r.c;
    c->polled[c->npolled].orig_param = avr->io[a].r.param;
    c->npolled++;
    avr->io[a].r.c = fd_poll_read;
    avr->io[a].r.param = c;
}

void fd_set_poll_skip(fd_chip *c, int on) { c->poll_skip = on; }

void fd_set_batch(fd_chip *c, int on) { c->batch = on; }

uint64_t fd_poll_skipped(fd_chip *c) { return c->poll_skipped; }

/* ---- reset hook and power ---------------------------------------------- */

/* Runs after simavr's own peripherals on every reset (power-on, watchdog). */
static void fd_after_reset(avr_io_t *io) {
    fd_chip *c = (fd_chip *)io;
    avr_t *avr = c->avr;
    /* simavr's reset wiped the cycle timers, the run's deadline timer with
     * them, and set run_cycle_limit back to 1: the run goes on unbatched */
    c->batching = 0;
    if (c->fixes & FD_FIX_EXTINT)
        for (int i = 0; i < EXTINT_COUNT; i++)
            avr_extint_set_strict_lvl_trig(avr, (uint8_t)i, 0);
    /* A reset that is no power cut (the watchdog's) lets a write finish;
     * simavr has just wiped the timer that would finish it. */
    fd_ee_write *w = &c->st.ew;
    if (w->active && !c->powering) {
        avr_cycle_count_t left = w->done_cycle > avr->cycle ? w->done_cycle - avr->cycle : 1;
        avr_cycle_timer_register(avr, left, fd_ee_done, c);
        avr->data[c->ee->r_eecr] |= fd_bit(c->ee->eepe);
    }
    for (int k = 0; k < c->ncmp; k++) { /* OCnx is cleared by a reset */
        c->st.oc[k] = 0;
        if (c->cmp[k].out)
            c->cmp[k].out->value = 0;
    }
    c->st.adc_pending = c->st.adc_ready = 0;
    c->st.asleep = 0;
    if (!c->powering)
        fd_event_raise(c, FD_EV_RESET, 1, 0, 0);
    fd_pins_after_reset(c);
}

/* Wraps simavr's sleep, which sleeps the host for the simulated time (the
 * `sleep` fix does not call it).
 * simavr calls it from inside the SLEEP instruction's run step, just before
 * it fast-forwards the cycle count to the next timer: the right moment to
 * stamp the start of a sleep. */
static void fd_sleep_hook(avr_t *avr, avr_cycle_count_t how_long) {
    fd_chip *c = avr->custom.data;
    c->st.sleep_steps++;
    if (!c->st.asleep) { /* SLEEP (1 cycle) has just executed */
        c->st.asleep = 1;
        fd_event_at(c, avr->cycle - 1, FD_EV_SLEEP, 0, 0, 0);
    }
    c->stop |= FD_STOP_SLEPT;
    fd_end_batch(c);
    if (c->fixes & FD_FIX_SLEEP) {
        /* On return simavr adds 1 + how_long to the cycle count, one past the
         * timer that ends the sleep: land on it. A run that stops on this
         * sleep stops right after the SLEEP (the next step fast-forwards). */
        if (c->stop & FD_STOP_EVENT && c->why.kind == FD_EV_SLEEP)
            avr->cycle -= how_long + 1;
        else if (how_long > 0) {
            /* Nor past the run's deadline: the timer that ends a run is gone
             * when a SLEEP executes right on it, and the next one may be far. */
            uint64_t land = avr->cycle + how_long, end = c->run_deadline;
            if (end && land > end)
                land = end > avr->cycle ? end : avr->cycle;
            avr->cycle = land - 1 - how_long;
        }
    } else if (c->orig_sleep) {
        c->orig_sleep(avr, how_long);
    }
}

static uint64_t fd_splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

fd_chip *fd_new(const char *mcu, void *handle, uint32_t fixes, uint64_t seed) {
    avr_global_logger_set(fd_logger);
    avr_t *avr = avr_make_mcu_by_name(mcu);
    if (!avr)
        return NULL;
    fd_chip *c = calloc(1, sizeof(*c));
    if (!c) {
        free(avr);
        return NULL;
    }
    c->trace = calloc(FD_TRACE_CAP, sizeof(fd_event));
    c->led_hist = calloc(FD_LED_HISTORY, sizeof(fd_led_entry));
    c->log = calloc(FD_LOG_CAP, 1);
    c->avr = avr;
    c->handle = handle;
    c->fixes = fixes;
    c->st.rng = seed;
    c->st.led_first = -1;
    c->trace_mask = FD_EV_TRACEABLE;
    c->log_level = LOG_WARNING;
    c->poll_skip = 1;
    c->batch = 1;
    c->ee_erase_write_us = 3400;
    c->ee_single_us = 1800;
    c->block_size = malloc_usable_size(avr);
    /* The ATtiny13 core declares no ioend, so avr_reset would clear no I/O
     * register while it wipes the cycle timers. 0x5F is the end of the
     * 64-register I/O space every such classic core has. */
    c->sram_start = avr->ioend ? (uint32_t)avr->ioend + 1 : 0x60;
    if (avr->ioend == 0 && (fixes & FD_FIX_IOEND))
        avr->ioend = 0x5F;
    avr->custom.data = c; /* for the logger and fd_sleep_hook; simavr reads it only for
                             custom.init, which is NULL */
    return c;
}

static void fd_guard_memory(fd_chip *c) {
    avr_t *avr = c->avr;
    size_t used = (size_t)avr->ramend + 1;
    c->data_snap = used;
    if (!(c->fixes & FD_FIX_MEMORY))
        return;
    uint8_t *d = realloc(avr->data, FD_GUARD_SPAN);
    if (!d)
        return;
    memset(d + used, 0, FD_GUARD_SPAN - used);
    avr->data = d;
    /* what a stray write can reach without crashing the core: 32 + MAX_IOs */
    c->data_snap = used > 32 + MAX_IOs ? used : 32 + MAX_IOs;
    size_t flash = (size_t)avr->flashend + 1;
    if (flash < FD_GUARD_SPAN) {
        uint8_t *f = realloc(avr->flash, FD_GUARD_SPAN + 4);
        if (!f)
            return;
        memset(f + flash + 2, 0xFF, FD_GUARD_SPAN + 2 - flash);
        avr->flash = f;
    }
}

int fd_start(fd_chip *c, uint32_t frequency, uint32_t vcc_mv) {
    avr_t *avr = c->avr;
    if (avr_init(avr) != 0)
        return -1;
    avr->log = (uint8_t)c->log_level;
    avr->frequency = frequency;
    avr->vcc = avr->avcc = avr->aref = vcc_mv;
    c->orig_sleep = avr->sleep; /* simavr's, which sleeps the host: kept without the fix */
    avr->sleep = fd_sleep_hook;
    fd_guard_memory(c);
    fd_find_ports(c);
    /* our own pseudo peripheral goes last, so its reset runs after all others */
    c->io.kind = "fairdie";
    c->io.avr = avr;
    c->io.reset = fd_after_reset;
    c->io.next = NULL;
    avr_io_t **tail = &avr->io_port;
    while (*tail)
        tail = &(*tail)->next;
    *tail = &c->io;

    for (avr_io_t *io = avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "eeprom") == 0)
            c->ee = (avr_eeprom_t *)io;
        else if (io->kind && strcmp(io->kind, "flash") == 0)
            c->snap_flash = 1;
        else if (io->kind && strcmp(io->kind, "watchdog") == 0) {
            c->wdt = (avr_watchdog_t *)io;
            c->wdrf_reg = c->wdt->wdrf.reg;
        }
    if (c->ee && (c->fixes & FD_FIX_EEPROM)) {
        int a = AVR_DATA_TO_IO(c->ee->r_eecr);
        avr->io[a].w.c = fd_eecr_write;
        avr->io[a].w.param = c;
    }
    if (c->wdt && (c->fixes & FD_FIX_WDT)) {
        avr_irq_register_notify(c->wdt->watchdog.irq + AVR_INT_IRQ_RUNNING, fd_wdt_running, c);
        avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_PENDING, fd_wdt_cleared, c);
    }
    avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_RUNNING, fd_irq_running, c);
    fd_adc_attach(c);
    if (c->fixes & FD_FIX_COMPARE)
        for (int k = 0; k < c->ncmp; k++)
            fd_compare_attach(c, &c->cmp[k]);
    if (c->pud.reg)
        fd_watch_register(c, (uint16_t)c->pud.reg);
    if (c->ee && (c->fixes & FD_FIX_EEPROM)) /* EEPE: cleared by fd_ee_done */
        fd_poll_register(c, c->ee->r_eecr);
    if (c->adc) /* ADSC: cleared by the ADC's conversion timer */
        fd_poll_register(c, c->adc->r_adcsra);
    avr->state = cpu_Stopped;
    for (int i = 0; i < c->nports; i++)
        c->st.pin_state[i] = fd_resolve(c, i);
    return 0;
}

void fd_free(fd_chip *c) {
    if (!c)
        return;
    /* unlink our pseudo peripheral before simavr walks the list */
    avr_io_t **p = &c->avr->io_port;
    while (*p && *p != &c->io)
        p = &(*p)->next;
    if (*p)
        *p = c->io.next;
    if (c->avr->data) /* a started chip; one that never was has no peripherals */
        avr_terminate(c->avr);
    free(c->avr);
    free(c->trace);
    free(c->led_hist);
    free(c->log);
    free(c);
}

static uint32_t fd_snapshot_size(fd_chip *c) {
    return (uint32_t)(16 + c->block_size + c->data_snap + (c->ee ? c->ee->size : 0) +
                      (c->snap_flash ? (size_t)c->avr->flashend + 1 : 0) +
                      (size_t)c->avr->irq_pool.count * 8 + sizeof(fd_state) +
                      FD_LED_HISTORY * sizeof(fd_led_entry));
}

void fd_get_info(fd_chip *c, fd_info *info) {
    avr_t *avr = c->avr;
    memset(info, 0, sizeof(*info));
    info->flash_size = avr->flashend + 1;
    info->ramend = avr->ramend;
    info->ioend = avr->ioend;
    info->sram_start = c->sram_start;
    info->eeprom_size = c->ee ? c->ee->size : 0;
    info->frequency = avr->frequency;
    info->snapshot_size = fd_snapshot_size(c);
    for (int i = 0; i < c->nports && i < 11; i++)
        info->ports[i] = c->port[i].name;
}

int fd_load_flash(fd_chip *c, const uint8_t *code, uint32_t size, uint32_t address) {
    if ((uint64_t)address + size > (uint64_t)c->avr->flashend + 1)
        return -1;
    memcpy(c->avr->flash + address, code, size);
    return 0;
}

void fd_power_on(fd_chip *c) {
    avr_t *avr = c->avr;
    c->st.powered = 1;
    c->st.asleep = 0;
    c->powering = 1;
    fd_event_raise(c, FD_EV_POWER, 1, 0, 0);
    avr_reset(avr);
    c->powering = 0;
    /* SRAM and the register file do not survive a power cut: junk from the seed */
    if (c->fixes & FD_FIX_SRAM) {
        uint32_t end = (uint32_t)avr->ramend + 1;
        for (uint32_t a = 0; a < end; a += 8) {
            if (a >= 32 && a < c->sram_start)
                continue;
            uint64_t r = fd_splitmix(&c->st.rng);
            for (uint32_t b = 0; b < 8 && a + b < end; b++)
                if (a + b < 32 || a + b >= c->sram_start)
                    avr->data[a + b] = (uint8_t)(r >> (8 * b));
        }
    }
    /* no core sets PORF itself; it is bit 0 of the register the watchdog's
     * WDRF lives in (MCUSR, or MCUCSR on older parts) */
    if (c->fixes & FD_FIX_PORF) {
        if (avr->reset_flags.porf.reg)
            avr_regbit_set(avr, avr->reset_flags.porf);
        else if (c->wdrf_reg)
            avr->data[c->wdrf_reg] |= 1;
    }
    avr->state = cpu_Running;
}

void fd_power_off(fd_chip *c, int torn_value) {
    avr_t *avr = c->avr;
    fd_ee_write *w = &c->st.ew;
    if (w->active) {
        avr_cycle_timer_cancel(avr, fd_ee_done, c);
        if (torn_value >= 0 && torn_value <= 255)
            c->ee->eeprom[w->address] = (uint8_t)torn_value;
        w->active = 0;
        fd_event_raise(c, FD_EV_EEPROM_DONE, w->address, c->ee->eeprom[w->address], 1);
    }
    avr_cycle_timer_reset(avr);
    for (int i = 0; i < c->nports; i++) {
        avr->data[c->port[i].io->r_ddr] = 0;
        avr->data[c->port[i].io->r_port] = 0;
    }
    c->st.powered = 0;
    c->st.asleep = 0;
    fd_pins_update_all(c);
    fd_event_raise(c, FD_EV_POWER, 0, 0, 0);
    avr->state = cpu_Stopped;
}

int fd_powered(fd_chip *c) { return c->st.powered; }

/* ---- debugging: breakpoints, data watches, a step range ------------------ */

static void fd_debug_arm(fd_chip *c) {
    fd_debug *d = &c->dbg;
    d->armed = d->nbreaks || d->nwatches || d->range_start != d->range_end;
}

int fd_debug_breaks(fd_chip *c, const uint32_t *pcs, uint32_t n) {
    fd_debug *d = &c->dbg;
    if (n > FD_DBG_MAX_BREAKS)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if ((pcs[i] & 1) || pcs[i] > c->avr->flashend)
            return -1;
    memset(d->filter, 0, sizeof d->filter);
    for (uint32_t i = 0; i < n; i++) {
        d->breaks[i] = pcs[i];
        d->filter[(pcs[i] >> 4) & 31] |= (uint8_t)(1u << ((pcs[i] >> 1) & 7));
    }
    d->nbreaks = n;
    fd_debug_arm(c);
    return 0;
}

int fd_debug_watches(fd_chip *c, const uint32_t *addresses, const uint32_t *sizes, uint32_t n) {
    fd_debug *d = &c->dbg;
    if (n > FD_DBG_MAX_WATCHES)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (sizes[i] < 1 || sizes[i] > FD_DBG_MAX_WATCH_SIZE ||
            (uint64_t)addresses[i] + sizes[i] > (uint64_t)c->avr->ramend + 1)
            return -1;
    for (uint32_t i = 0; i < n; i++) {
        d->watch_addr[i] = addresses[i];
        d->watch_size[i] = sizes[i];
    }
    d->nwatches = n;
    fd_debug_arm(c);
    return 0;
}

int fd_debug_range(fd_chip *c, uint32_t start, uint32_t end) {
    if (start > end || end > (uint64_t)c->avr->flashend + 1)
        return -1;
    c->dbg.range_start = start;
    c->dbg.range_end = end;
    fd_debug_arm(c);
    return 0;
}

/* Copy the watched bytes: a run reports only what changes while it runs. */
static void fd_debug_look(fd_chip *c) {
    fd_debug *d = &c->dbg;
    for (uint32_t i = 0; i < d->nwatches; i++)
        memcpy(d->shadow[i], c->avr->data + d->watch_addr[i], d->watch_size[i]);
}

static int fd_debug_hit(fd_chip *c, uint32_t what, uint32_t address) {
    if (!(c->stop & FD_STOP_EVENT)) {
        c->stop |= FD_STOP_EVENT;
        c->why = (fd_event){
            .cycle = c->avr->cycle, .kind = FD_EV_PC, .a = c->avr->pc, .b = what, .c = address};
    }
    return 1;
}

/* A watched byte that changed since the last look, then (with `pcs`) the
 * PC at the run's stop PC, at a breakpoint or outside the step range. */
static int fd_debug_check(fd_chip *c, int pcs) {
    fd_debug *d = &c->dbg;
    avr_t *avr = c->avr;
    for (uint32_t i = 0; i < d->nwatches; i++) {
        const uint8_t *now = avr->data + d->watch_addr[i];
        if (memcmp(d->shadow[i], now, d->watch_size[i]) == 0)
            continue;
        uint32_t k = 0;
        while (d->shadow[i][k] == now[k])
            k++;
        fd_debug_look(c);
        return fd_debug_hit(c, FD_DBG_WATCH, d->watch_addr[i] + k);
    }
    if (!pcs)
        return 0;
    uint32_t pc = avr->pc;
    if (c->stops.pc >= 0 && pc == (uint64_t)c->stops.pc)
        return fd_debug_hit(c, FD_DBG_PC, 0);
    if ((d->filter[(pc >> 4) & 31] >> ((pc >> 1) & 7)) & 1)
        for (uint32_t i = 0; i < d->nbreaks; i++)
            if (d->breaks[i] == pc)
                return fd_debug_hit(c, FD_DBG_BREAK, 0);
    if (d->range_start != d->range_end && (pc < d->range_start || pc >= d->range_end))
        return fd_debug_hit(c, FD_DBG_RANGE, 0);
    return 0;
}

int fd_flash_read(fd_chip *c, uint32_t address, uint8_t *out, uint32_t size) {
    if ((uint64_t)address + size > (uint64_t)c->avr->flashend + 1)
        return -1;
    memcpy(out, c->avr->flash + address, size);
    return 0;
}

int fd_set_pc(fd_chip *c, uint32_t pc) {
    if ((pc & 1) || pc > c->avr->flashend)
        return -1;
    c->avr->pc = pc;
    return 0;
}

/* simavr keeps SREG as eight flags; the data byte follows them */
void fd_set_sreg(fd_chip *c, uint8_t value) {
    for (int i = 0; i < 8; i++)
        c->avr->sreg[i] = (value >> i) & 1;
    c->avr->data[R_SREG] = value;
}

/* ---- running ------------------------------------------------------------ */

uint32_t fd_run(fd_chip *c, uint64_t deadline, const fd_stops *stops, fd_event *why) {
    avr_t *avr = c->avr;
    uint32_t stop = 0;
    if (!c->st.powered)
        return FD_STOP_OFF;
    if (stops)
        c->stops = *stops;
    else
        memset(&c->stops, 0, sizeof c->stops);
    c->any_pin = 1;
    for (int i = 0; i < FD_MAX_PORTS; i++)
        if (c->stops.pins[i])
            c->any_pin = 0;
    c->stop &= FD_STOP_TRACE_FULL;
    if (c->stop) { /* drain the trace first */
        stop = c->stop;
        goto out;
    }
    /* a timer at the deadline so a sleep fast-forward lands on it */
    c->run_deadline = deadline;
    if (deadline > avr->cycle)
        avr_cycle_timer_register(avr, deadline - avr->cycle, fd_wake_timer, c);
    int watch_pc = (c->stops.kinds & FD_EV_PC) != 0;
    avr_flashaddr_t pc = watch_pc ? (avr_flashaddr_t)c->stops.pc : 0;
    int debugging = watch_pc && c->dbg.armed;
    avr_flashaddr_t start_pc = avr->pc;
    int fresh = 1; /* no instruction has run yet */
    if (debugging)
        fd_debug_look(c);
    if (watch_pc && avr->pc == pc && avr->state == cpu_Running)
        avr->run(avr); /* already there: a stop means "reached again" */
    /* Batches: simavr's run_cycle_limit lets avr_run_one go on to the next
     * instruction by itself while no cycle timer is due, no interrupt is
     * pending and the CPU runs, where avr_callback_run_raw would only have
     * called avr_cycle_timer_process with nothing due. The deadline is a
     * timer, and every stop of ours and every cycle we add ends the batch
     * (fd_end_batch), so the run is cycle for cycle the same (tested both
     * ways). Not while a PC is watched: that is checked per instruction. */
    c->batching = c->batch && !watch_pc && avr->run == avr_callback_run_raw;
    avr->run_cycle_limit = c->batching ? FD_BATCH_LIMIT : 1;
    avr->run_cycle_count = 0; /* the first instruction runs alone: the count is fresh after it */

    uint64_t quiet = c->quiet_cycles = c->stops.quiet_cycles;
    if (quiet) {
        uint64_t target = c->st.last_pin_change + quiet;
        avr_cycle_timer_register(avr, target > avr->cycle ? target - avr->cycle : 1, fd_wake_timer,
                                 &c->stops);
    }
    while (!stop) {
        if (c->st.asleep && avr->state == cpu_Running) {
            c->st.asleep = 0;
            fd_event_raise(c, FD_EV_WAKE, 0, 0, 0);
        }
        /* the hot loop: running, nothing to watch but the flags */
        if (!watch_pc) {
            while (avr->cycle < deadline && avr->state == cpu_Running && !c->stop) {
                avr->run(avr);
                if (c->batching) /* fd_end_batch may have lowered it */
                    avr->run_cycle_limit = FD_BATCH_LIMIT;
            }
        } else if (debugging) {
            /* before each instruction, except one at the PC the run started at */
            while (avr->cycle < deadline && avr->state == cpu_Running && !c->stop) {
                if (fd_debug_check(c, !fresh || avr->pc != start_pc))
                    break;
                fresh = 0;
                avr->run(avr);
            }
        } else {
            while (avr->cycle < deadline && avr->state == cpu_Running && !c->stop && avr->pc != pc)
                avr->run(avr);
            if (avr->pc == pc && avr->state == cpu_Running && !(c->stop & FD_STOP_EVENT)) {
                c->stop |= FD_STOP_EVENT;
                c->why = (fd_event){.cycle = avr->cycle, .kind = FD_EV_PC, .a = pc};
            }
        }
        c->stop &= ~FD_STOP_SLEPT;
        stop |= c->stop;
        int s = avr->state;
        if (s == cpu_Crashed) {
            stop |= FD_STOP_CRASHED;
            break;
        }
        if (s == cpu_Done && !c->st.asleep) { /* asleep with interrupts off */
            c->st.asleep = 1;
            fd_event_raise(c, FD_EV_SLEEP, 1, 0, 0);
            stop |= c->stop & FD_STOP_EVENT;
        }
        if (quiet && (s == cpu_Sleeping || s == cpu_Done) &&
            (avr->cycle >= c->st.last_pin_change + quiet || s == cpu_Done))
            stop |= FD_STOP_QUIET;
        if (stop)
            break;
        if (avr->cycle >= deadline) {
            stop = FD_STOP_DEADLINE;
            break;
        }
        if (s == cpu_Done) {
            /* Nothing can wake the CPU, but cycle timers go on: an EEPROM
             * write completes, a watchdog reset may come. */
            avr_cycle_count_t next = avr_cycle_timer_process(avr);
            avr->cycle = avr->cycle + next < deadline ? avr->cycle + next : deadline;
            if (avr->state == cpu_Done && avr->cycle >= deadline) {
                avr_cycle_timer_process(avr);
                stop = FD_STOP_HALTED | FD_STOP_DEADLINE;
                stop |= c->stop & FD_STOP_EVENT;
                break;
            }
            continue;
        }
        if (s == cpu_Sleeping) /* one fast-forward to the next timer */
            avr->run(avr);
        else if (s != cpu_Running) {
            stop = FD_STOP_HALTED; /* stopped: nothing will run */
            break;
        }
    }
    /* a watched byte written by the run's last step (an instruction, a wake) */
    if (debugging && !(stop & (FD_STOP_EVENT | FD_STOP_CRASHED)) && fd_debug_check(c, 0))
        stop |= FD_STOP_EVENT;
out:
    /* unbatched, simavr leaves both at 1: snapshots are the same either way */
    avr->run_cycle_limit = avr->run_cycle_count = 1;
    c->batching = 0;
    c->quiet_cycles = 0;
    c->run_deadline = 0;
    avr_cycle_timer_cancel(avr, fd_wake_timer, c);
    avr_cycle_timer_cancel(avr, fd_wake_timer, &c->stops);
    if ((stop & FD_STOP_EVENT) && why)
        *why = c->why;
    memset(&c->stops, 0, sizeof c->stops);
    c->stop &= ~(uint32_t)(FD_STOP_EVENT | FD_STOP_CALLBACK_ERROR | FD_STOP_SLEPT);
    return stop;
}

/* The yardsticks trace nothing (their loops watch no trace buffer). */
void fd_run_raw(fd_chip *c, uint64_t deadline) {
    avr_t *avr = c->avr;
    uint32_t mask = c->trace_mask;
    c->trace_mask = 0;
    while (avr->cycle < deadline && (avr->state == cpu_Running || avr->state == cpu_Sleeping))
        avr->run(avr);
    c->trace_mask = mask;
    c->st.asleep = avr->state != cpu_Running;
}

uint64_t fd_step(fd_chip *c) {
    uint32_t mask = c->trace_mask;
    c->trace_mask = 0;
    avr_run(c->avr);
    c->trace_mask = mask;
    c->st.asleep = c->avr->state != cpu_Running;
    return c->avr->cycle;
}

uint64_t fd_cycle(fd_chip *c) { return c->avr->cycle; }
uint32_t fd_pc(fd_chip *c) { return c->avr->pc; }
uint64_t fd_sleep_steps(fd_chip *c) { return c->st.sleep_steps; }
int fd_sleeping(fd_chip *c) { return c->avr->state == cpu_Sleeping || c->avr->state == cpu_Done; }

/* ---- memory ---------------------------------------------------------------- */

int fd_data_read(fd_chip *c, uint32_t address, uint8_t *out, uint32_t size) {
    if ((uint64_t)address + size > (uint64_t)c->avr->ramend + 1)
        return -1;
    memcpy(out, c->avr->data + address, size);
    return 0;
}

int fd_data_write(fd_chip *c, uint32_t address, const uint8_t *in, uint32_t size) {
    if ((uint64_t)address + size > (uint64_t)c->avr->ramend + 1)
        return -1;
    memcpy(c->avr->data + address, in, size);
    fd_pins_update_all(c);
    return 0;
}

/* A read as the CPU would make it: through the peripheral's handler (a
 * running timer's TCNTn, PINx, SREG). Returns the byte or -1. */
int fd_io_read(fd_chip *c, uint32_t address) {
    avr_t *avr = c->avr;
    if (address < 0x20 || address > avr->ioend)
        return -1;
    if (address == R_SREG) {
        uint8_t s = 0;
        for (int i = 0; i < 8; i++)
            if (avr->sreg[i])
                s |= (uint8_t)(1u << i);
        return s;
    }
    int a = AVR_DATA_TO_IO(address);
    if (avr->io[a].r.c)
        avr->data[address] = avr->io[a].r.c(avr, (avr_io_addr_t)address, avr->io[a].r.param);
    return avr->data[address];
}

/* A write as the CPU would make it: through the peripheral's handler. */
int fd_io_write(fd_chip *c, uint32_t address, uint8_t value) {
    avr_t *avr = c->avr;
    if (address < 0x20 || address > avr->ioend)
        return -1;
    int a = AVR_DATA_TO_IO(address);
    if (avr->io[a].w.c)
        avr->io[a].w.c(avr, (avr_io_addr_t)address, value, avr->io[a].w.param);
    else
        avr->data[address] = value;
    return 0;
}

int fd_eeprom_read(fd_chip *c, uint32_t address, uint8_t *out, uint32_t size) {
    if (!c->ee || (uint64_t)address + size > c->ee->size)
        return -1;
    memcpy(out, c->ee->eeprom + address, size);
    return 0;
}

int fd_eeprom_write(fd_chip *c, uint32_t address, const uint8_t *in, uint32_t size) {
    if (!c->ee || (uint64_t)address + size > c->ee->size)
        return -1;
    memcpy(c->ee->eeprom + address, in, size);
    return 0;
}

void fd_eeprom_in_flight(fd_chip *c, fd_ee_write *out) { *out = c->st.ew; }

int fd_eeprom_busy(fd_chip *c) { return c->st.ew.active; }

void fd_eeprom_set_times(fd_chip *c, uint32_t erase_write_us, uint32_t single_us) {
    c->ee_erase_write_us = erase_write_us;
    c->ee_single_us = single_us;
}

/* ---- pins and ADC ---------------------------------------------------------- */

/* An edge that wakes the CPU runs its ISR before the instruction after
 * SLEEP, as simavr does when a timer wakes it inside a run. */
static void fd_after_outside_change(fd_chip *c, int was_asleep) {
    avr_t *avr = c->avr;
    if (was_asleep && avr->state == cpu_Running && avr->interrupt_state)
        avr_service_interrupts(avr);
}

int fd_pin_drive(fd_chip *c, char port, int pin, int level) {
    int i = fd_port_index(c, port);
    if (i < 0 || pin < 0 || pin > 7)
        return -1;
    avr_t *avr = c->avr;
    uint8_t m = (uint8_t)(1u << pin);
    fd_state *st = &c->st;
    st->ext_drive[i] = (uint8_t)(level < 0 ? st->ext_drive[i] & ~m : st->ext_drive[i] | m);
    st->ext_value[i] = (uint8_t)(level > 0 ? st->ext_value[i] | m : st->ext_value[i] & ~m);
    int was_asleep = avr->state == cpu_Sleeping;
    if (c->fixes & FD_FIX_PULLUP) {
        fd_pins_update(c, i);
    } else { /* simavr's way: the pin IRQ takes the level; released, the PORT bit */
        int v = level < 0 ? (avr->data[c->port[i].io->r_port] >> pin) & 1 : level;
        avr_raise_irq(c->port[i].io->io.irq + pin, (uint32_t)v);
        fd_pins_update(c, i);
    }
    fd_after_outside_change(c, was_asleep);
    return 0;
}

int fd_pin_pull(fd_chip *c, char port, int pin, int pull) {
    int i = fd_port_index(c, port);
    if (i < 0 || pin < 0 || pin > 7)
        return -1;
    uint8_t m = (uint8_t)(1u << pin);
    fd_state *st = &c->st;
    st->pull_up[i] = (uint8_t)(pull > 0 ? st->pull_up[i] | m : st->pull_up[i] & ~m);
    st->pull_down[i] = (uint8_t)(pull < 0 ? st->pull_down[i] | m : st->pull_down[i] & ~m);
    int was_asleep = c->avr->state == cpu_Sleeping;
    fd_pins_update(c, i);
    fd_after_outside_change(c, was_asleep);
    return 0;
}

int64_t fd_port_state(fd_chip *c, char port) {
    int i = fd_port_index(c, port);
    return i < 0 ? -1 : (int64_t)c->st.pin_state[i];
}

int fd_port_regs(fd_chip *c, char port, uint8_t *ddr, uint8_t *out, uint8_t *pin) {
    int i = fd_port_index(c, port);
    if (i < 0)
        return -1;
    avr_ioport_t *p = c->port[i].io;
    *ddr = c->avr->data[p->r_ddr];
    *out = c->avr->data[p->r_port];
    *pin = c->avr->data[p->r_pin];
    return 0;
}

int fd_adc_constant(fd_chip *c, int channel, uint32_t millivolts) {
    if (!c->adc_in || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    c->st.adc_mode[channel] = ADC_CONST;
    c->st.adc_mv[channel] = millivolts;
    avr_raise_irq(c->adc_in + channel, millivolts);
    return 0;
}

int fd_adc_callback(fd_chip *c, int channel) {
    if (!c->adc_in || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    c->st.adc_mode[channel] = ADC_PYTHON;
    return 0;
}

/* ---- LEDs ------------------------------------------------------------------- */

int fd_leds_set(fd_chip *c, const fd_led *leds, uint32_t n) {
    if (n > FD_MAX_LEDS)
        return -1;
    for (uint32_t i = 0; i < n; i++) /* all checked before any is taken */
        if ((leds[i].anode_port && fd_port_index(c, (char)leds[i].anode_port) < 0) ||
            (leds[i].cathode_port && fd_port_index(c, (char)leds[i].cathode_port) < 0) ||
            leds[i].anode_bit > 7 || leds[i].cathode_bit > 7)
            return -1;
    for (uint32_t i = 0; i < n; i++) {
        c->leds[i] = leds[i];
        c->led_ap[i] = leds[i].anode_port ? fd_port_index(c, (char)leds[i].anode_port) : -1;
        c->led_cp[i] = leds[i].cathode_port ? fd_port_index(c, (char)leds[i].cathode_port) : -1;
    }
    c->nleds = n;
    fd_leds_restart(c);
    return 0;
}

void fd_leds_restart(fd_chip *c) {
    c->st.led_count = 0;
    c->st.led_dropped = 0;
    c->st.led_first = -1;
    fd_leds_push(c, fd_leds_mask(c));
}

uint32_t fd_leds_now(fd_chip *c) { return c->st.led_mask; }

int64_t fd_leds_first_lit(fd_chip *c) { return c->st.led_first; }

int fd_leds_lit_cycles(fd_chip *c, uint64_t start, uint64_t end, uint64_t *out) {
    fd_state *st = &c->st;
    for (uint32_t i = 0; i < c->nleds; i++)
        out[i] = 0;
    if (end > c->avr->cycle)
        return -2; /* the window ends in the future */
    if (end <= start || !st->led_count)
        return 0;
    /* newest first: each entry's mask holds from its cycle to the next one's */
    uint64_t until = c->avr->cycle;
    uint32_t k = st->led_head;
    for (uint32_t n = 0; n < st->led_count; n++) {
        k = (k - 1) & (FD_LED_HISTORY - 1);
        fd_led_entry *e = &c->led_hist[k];
        uint64_t from = e->cycle > start ? e->cycle : start;
        uint64_t to = until < end ? until : end;
        if (to > from)
            for (uint32_t i = 0; i < c->nleds; i++)
                if ((e->mask >> i) & 1)
                    out[i] += to - from;
        if (e->cycle <= start)
            return 0;
        until = e->cycle;
    }
    /* the oldest entry begins after start: what came before was dropped
     * from the ring, or came before the restart (dark) */
    return st->led_dropped ? -1 : 0;
}

/* ---- trace --------------------------------------------------------------- */

uint32_t fd_trace_drain(fd_chip *c, fd_event *out, uint32_t max) {
    uint32_t n = c->ntrace < max ? c->ntrace : max;
    memcpy(out, c->trace, n * sizeof(fd_event));
    memmove(c->trace, c->trace + n, (c->ntrace - n) * sizeof(fd_event));
    c->ntrace -= n;
    if (c->ntrace < FD_TRACE_CAP - FD_TRACE_MARGIN)
        c->stop &= ~(uint32_t)FD_STOP_TRACE_FULL;
    return n;
}

void fd_trace_mask(fd_chip *c, uint32_t kinds) { c->trace_mask = kinds & FD_EV_TRACEABLE; }

/* ---- snapshots --------------------------------------------------------------- */

/* The LED history's live entries, the ring's oldest to its newest as the
 * state names them (the rest of the ring is never read): into a snapshot
 * (out), or back from one (in). */
static void fd_led_ring_copy(fd_chip *c, uint8_t *out, const uint8_t *in) {
    uint32_t n = c->st.led_count, first = (c->st.led_head - n) & (FD_LED_HISTORY - 1);
    uint32_t part = n < FD_LED_HISTORY - first ? n : FD_LED_HISTORY - first;
    fd_led_entry *ring = c->led_hist;
    size_t z = sizeof(fd_led_entry);
    if (in) {
        memcpy(ring + first, in, part * z);
        memcpy(ring, in + part * z, (n - part) * z);
    } else {
        memcpy(out, ring + first, part * z);
        memcpy(out + part * z, ring, (n - part) * z);
    }
}

/* simavr allocates an MCU as one block (its core and every peripheral:
 * registers, cycle timers, interrupt table and FIFO, timers' and ADC's
 * internal state), plus the data space, the EEPROM bytes and the IRQs.
 * Pointers inside the block point into it or at things that never move, so
 * the chip that made a snapshot can take it back byte for byte. Flash is
 * copied only where the core can write it (a self-programming peripheral). */
void fd_snapshot(fd_chip *c, uint8_t *out) {
    avr_t *avr = c->avr;
    uint32_t head[4] = {FD_SNAP_MAGIC, fd_snapshot_size(c), (uint32_t)avr->irq_pool.count, 0};
    uint8_t *p = out;
    memcpy(p, head, 16);
    p += 16;
    memcpy(p, avr, c->block_size);
    p += c->block_size;
    memcpy(p, avr->data, c->data_snap);
    p += c->data_snap;
    if (c->ee) {
        memcpy(p, c->ee->eeprom, c->ee->size);
        p += c->ee->size;
    }
    if (c->snap_flash) {
        memcpy(p, avr->flash, (size_t)avr->flashend + 1);
        p += (size_t)avr->flashend + 1;
    }
    for (int i = 0; i < avr->irq_pool.count; i++) {
        avr_irq_t *q = avr->irq_pool.irq[i];
        uint32_t v[2] = {q->value, q->flags};
        memcpy(p, v, 8);
        p += 8;
    }
    memcpy(p, &c->st, sizeof c->st);
    p += sizeof c->st;
    fd_led_ring_copy(c, p, NULL);
}

int fd_restore(fd_chip *c, const uint8_t *in) {
    avr_t *avr = c->avr;
    uint32_t head[4];
    memcpy(head, in, 16);
    if (head[0] != FD_SNAP_MAGIC || head[1] != fd_snapshot_size(c) ||
        head[2] != (uint32_t)avr->irq_pool.count)
        return -1;
    const uint8_t *p = in + 16;
    memcpy(avr, p, c->block_size);
    p += c->block_size;
    memcpy(avr->data, p, c->data_snap);
    p += c->data_snap;
    if (c->ee) {
        memcpy(c->ee->eeprom, p, c->ee->size);
        p += c->ee->size;
    }
    if (c->snap_flash) {
        memcpy(avr->flash, p, (size_t)avr->flashend + 1);
        p += (size_t)avr->flashend + 1;
    }
    for (int i = 0; i < avr->irq_pool.count; i++) {
        avr_irq_t *q = avr->irq_pool.irq[i];
        uint32_t v[2];
        memcpy(v, p, 8);
        q->value = v[0];
        q->flags = v[1];
        p += 8;
    }
    memcpy(&c->st, p, sizeof c->st);
    p += sizeof c->st;
    fd_led_ring_copy(c, NULL, p);
    c->stop = 0;
    return 0;
}
