/*
 * fairdie's C shim over libsimavr 1.6. See _shim.h for what it fixes and why.
 * Built by cffi (see _build.py) as a second source of the extension; the only
 * symbol it expects from the generated module is fd_py_adc, the extern
 * "Python+C" callback that feeds an ADC conversion.
 */
#include <stdlib.h>
#include <string.h>

#include <simavr/avr_adc.h>
#include <simavr/avr_eeprom.h>
#include <simavr/avr_extint.h>
#include <simavr/avr_ioport.h>
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
int fd_py_adc(void *handle, int channel);

#define FD_MAX_PORTS 12
#define FD_TRACE_CAP (1u << 14)
#define FD_TRACE_MARGIN 64u
#define FD_STOP_SLEPT (1u << 16) /* internal: the core fell asleep */
#define FD_ADC_CHANNELS 16       /* ADC_IRQ_ADC0..ADC15 */

enum { ADC_NONE = 0, ADC_CONST, ADC_PYTHON };

typedef struct fd_hook {
    struct fd_chip *chip;
    avr_io_write_t orig;
    void *orig_param;
    int port; /* index into chip->port */
} fd_hook;

typedef struct fd_port {
    char name;
    avr_ioport_t *io;
    uint8_t ddr, out; /* last seen DDR and PORT */
    fd_hook hooks[3]; /* PORT, DDR, PIN writes */
} fd_port;

struct fd_chip {
    avr_io_t io; /* first member: simavr calls io.reset after every reset */
    avr_t *avr;
    void *handle; /* the Python Chip, for callbacks */
    int powered;
    int powering; /* set while fd_power_on runs avr_reset */
    uint32_t fixes;
    uint32_t sram_start;
    uint64_t sleep_steps;
    int asleep;            /* between a logged sleep start and its wake */
    uint64_t quiet_cycles; /* while fd_run watches for quiet sleep */

    fd_port port[FD_MAX_PORTS];
    int nports;
    uint8_t pin_watch[FD_MAX_PORTS];
    uint32_t stop; /* FD_STOP_* bits raised from inside simavr */
    uint64_t last_pin_change;

    uint16_t wdrf_reg; /* MCUSR's address, from the watchdog */
    avr_watchdog_t *wdt;
    int wdt_entered; /* the watchdog's ISR has just been entered */
    avr_eeprom_t *ee;
    fd_ee_write ew;
    uint32_t ee_erase_write_us, ee_single_us;

    int adc_mode[FD_ADC_CHANNELS];
    uint32_t adc_mv[FD_ADC_CHANNELS];
    avr_irq_t *adc_in; /* ADC_IRQ_ADC0.. of the ADC, or NULL */

    int trace_on;
    fd_event *trace;
    uint32_t ntrace;
};

/* ---- trace ------------------------------------------------------------ */

static void fd_log(fd_chip *c, uint32_t kind, uint32_t a, uint32_t b, uint32_t d) {
    if (!c->trace_on)
        return;
    if (c->ntrace >= FD_TRACE_CAP - FD_TRACE_MARGIN)
        c->stop |= FD_STOP_TRACE_FULL;
    if (c->ntrace >= FD_TRACE_CAP)
        return; /* unreachable while runs stop at the margin */
    fd_event *e = &c->trace[c->ntrace++];
    e->cycle = c->avr->cycle;
    e->kind = kind;
    e->a = a;
    e->b = b;
    e->c = d;
}

/* Two timers that do nothing but end a sleep fast-forward on time. */
static avr_cycle_count_t fd_deadline_timer(avr_t *avr, avr_cycle_count_t when, void *param) {
    (void)avr;
    (void)when;
    (void)param;
    return 0;
}

static avr_cycle_count_t fd_quiet_timer(avr_t *avr, avr_cycle_count_t when, void *param) {
    (void)avr;
    (void)when;
    (void)param;
    return 0;
}

/* ---- ports ------------------------------------------------------------- */

/* The level a pin shows the world changes when DDR or PORT changes (an input
 * with PORT set is pulled up); one comparison covers both. */
static void fd_port_seen(fd_chip *c, int i) {
    fd_port *p = &c->port[i];
    avr_t *avr = c->avr;
    uint8_t ddr = avr->data[p->io->r_ddr];
    uint8_t out = avr->data[p->io->r_port];
    uint8_t changed = (uint8_t)((ddr ^ p->ddr) | (out ^ p->out));
    if (!changed)
        return;
    p->ddr = ddr;
    p->out = out;
    c->last_pin_change = avr->cycle;
    if (c->quiet_cycles) /* a sleep fast-forward must not jump past the quiet time */
        avr_cycle_timer_register(avr, c->quiet_cycles, fd_quiet_timer, c);
    if (changed & c->pin_watch[(p->name - 'A') % FD_MAX_PORTS])
        c->stop |= FD_STOP_PIN;
    fd_log(c, FD_EV_PORT, (uint32_t)p->name, ddr, out);
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
    if (h == &h->chip->port[h->port].hooks[2] && (h->chip->fixes & FD_FIX_PIN_BIT))
        v = fd_pin_bit_write(avr, addr, v);
    h->orig(avr, addr, v, h->orig_param);
    fd_port_seen(h->chip, h->port);
}

static void fd_hook_io_write(fd_chip *c, fd_hook *h, int port, uint16_t addr) {
    avr_t *avr = c->avr;
    int a = AVR_DATA_TO_IO(addr);
    h->chip = c;
    h->port = port;
    h->orig = avr->io[a].w.c;
    h->orig_param = avr->io[a].w.param;
    if (!h->orig)
        return;
    avr->io[a].w.c = fd_port_write;
    avr->io[a].w.param = h;
}

static void fd_find_ports(fd_chip *c) {
    for (avr_io_t *io = c->avr->io_port; io; io = io->next) {
        if (!io->kind || strcmp(io->kind, "port") != 0 || c->nports >= FD_MAX_PORTS)
            continue;
        avr_ioport_t *p = (avr_ioport_t *)io;
        int i = c->nports++;
        c->port[i].name = p->name;
        c->port[i].io = p;
        fd_hook_io_write(c, &c->port[i].hooks[0], i, p->r_port);
        fd_hook_io_write(c, &c->port[i].hooks[1], i, p->r_ddr);
        fd_hook_io_write(c, &c->port[i].hooks[2], i, p->r_pin);
    }
}

static int fd_port_index(fd_chip *c, char name) {
    for (int i = 0; i < c->nports; i++)
        if (c->port[i].name == name)
            return i;
    return -1;
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
    (void)when;
    if (!c->ew.active)
        return 0;
    c->ee->eeprom[c->ew.address] = (uint8_t)c->ew.new_value;
    c->ew.active = 0;
    avr->data[c->ee->r_eecr] &= (uint8_t)~fd_bit(c->ee->eepe);
    fd_log(c, FD_EV_EEPROM, 0, c->ew.address, c->ew.new_value);
    if (avr->data[c->ee->r_eecr] & fd_bit(c->ee->ready.enable))
        avr_raise_interrupt(avr, &c->ee->ready);
    return 0;
}

static void fd_eecr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_chip *c = param;
    avr_eeprom_t *ee = c->ee;
    uint8_t old = avr->data[addr];
    uint8_t m_pm = (uint8_t)(fd_bit(ee->eepm[0]) | fd_bit(ee->eepm[1]));
    uint8_t m_mpe = fd_bit(ee->eempe), m_pe = fd_bit(ee->eepe), m_re = fd_bit(ee->eere);
    uint8_t m_rie = fd_bit(ee->ready.enable);
    int busy = c->ew.active;

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
        c->ew.active = 1;
        c->ew.address = a;
        c->ew.old_value = was;
        c->ew.new_value = mode == 0 ? data : mode == 1 ? 0xFF : (uint8_t)(was & data);
        c->ew.mode = mode;
        avr_cycle_count_t n = avr_usec_to_cycles(avr, us);
        c->ew.done_cycle = avr->cycle + n;
        avr_cycle_timer_register(avr, n, fd_ee_done, c);
        r = (uint8_t)((r | m_pe) & ~m_mpe);
        avr_cycle_timer_cancel(avr, fd_ee_mpe_clear, c);
        fd_log(c, FD_EV_EEPROM, 1, a, c->ew.new_value);
        avr->cycle += 2; /* the CPU halts two cycles after setting EEPE */
    } else if (busy) {
        r |= m_pe;
    }
    if ((r & m_mpe) && !(old & m_mpe) && !start)
        avr_cycle_timer_register(avr, 4, fd_ee_mpe_clear, c);
    avr->data[addr] = r;

    if ((v & m_re) && !c->ew.active) {
        avr->data[ee->r_eedr] = ee->eeprom[fd_ee_address(c)];
        avr->cycle += 4; /* the CPU halts four cycles on a read */
    }
    if ((r & m_rie) && !(old & m_rie) && !c->ew.active)
        avr_raise_interrupt(avr, &ee->ready);
}

/* ---- interrupt response ------------------------------------------------ */

/* simavr enters a vector at no cost. The datasheet: the response takes four
 * cycles (the PC is pushed), four more when the interrupt wakes the CPU from
 * sleep (the start-up time of the oscillator is not modelled). */
static void fd_irq_running(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    (void)irq;
    (void)value;
    c->avr->cycle += c->asleep ? 8 : 4;
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
    c->wdt_entered = value != 0;
}

static void fd_wdt_cleared(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    (void)irq;
    (void)value;
    if (!c->wdt_entered)
        return;
    c->wdt_entered = 0;
    if (!avr_regbit_get(c->avr, c->wdt->wde))
        avr_regbit_set(c->avr, c->wdt->watchdog.enable);
}

/* ---- ADC: feed each conversion ----------------------------------------- */

static void fd_adc_trigger(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    union {
        avr_adc_mux_t mux;
        uint32_t v;
    } e = {.v = value};
    (void)irq;
    int ch = e.mux.src;
    if (e.mux.kind != ADC_MUX_SINGLE || ch < 0 || ch >= FD_ADC_CHANNELS)
        return;
    uint32_t mv;
    if (c->adc_mode[ch] == ADC_PYTHON) {
        int r = fd_py_adc(c->handle, ch);
        if (r < 0) {
            c->stop |= FD_STOP_CALLBACK_ERROR;
            return;
        }
        mv = (uint32_t)r;
    } else if (c->adc_mode[ch] == ADC_CONST) {
        mv = c->adc_mv[ch];
    } else {
        return;
    }
    fd_log(c, FD_EV_ADC, (uint32_t)ch, 0, mv);
    avr_raise_irq(c->adc_in + ch, mv);
}

/* ---- reset hook and power ---------------------------------------------- */

/* Runs after simavr's own peripherals on every reset (power-on, watchdog). */
static void fd_after_reset(avr_io_t *io) {
    fd_chip *c = (fd_chip *)io;
    avr_t *avr = c->avr;
    if (c->fixes & FD_FIX_EXTINT)
        for (int i = 0; i < EXTINT_COUNT; i++)
            avr_extint_set_strict_lvl_trig(avr, (uint8_t)i, 0);
    /* A reset that is no power cut (the watchdog's) lets a write finish;
     * simavr has just wiped the timer that would finish it. */
    if (c->ew.active && !c->powering) {
        avr_cycle_count_t left = c->ew.done_cycle > avr->cycle ? c->ew.done_cycle - avr->cycle : 1;
        avr_cycle_timer_register(avr, left, fd_ee_done, c);
        avr->data[c->ee->r_eecr] |= fd_bit(c->ee->eepe);
    }
    for (int i = 0; i < c->nports; i++)
        fd_port_seen(c, i);
}

/* Replaces simavr's sleep, which sleeps the host for the simulated time.
 * simavr calls it from inside the SLEEP instruction's run step, just before
 * it fast-forwards the cycle count to the next timer: the right moment to
 * stamp the start of a sleep. */
static void fd_sleep_noop(avr_t *avr, avr_cycle_count_t how_long) {
    fd_chip *c = avr->custom.data;
    (void)how_long;
    c->sleep_steps++;
    if (!c->asleep) {
        c->asleep = 1;
        fd_log(c, FD_EV_SLEEP, 1, 0, 0);
    }
    c->stop |= FD_STOP_SLEPT;
}

fd_chip *fd_new(const char *mcu, uint32_t frequency, uint32_t vcc_mv, void *handle,
                uint32_t fixes) {
    avr_t *avr = avr_make_mcu_by_name(mcu);
    if (!avr)
        return NULL;
    fd_chip *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->trace = calloc(FD_TRACE_CAP, sizeof(fd_event));
    c->avr = avr;
    c->handle = handle;
    c->fixes = fixes;
    c->trace_on = 1;
    c->ee_erase_write_us = 3400;
    c->ee_single_us = 1800;
    /* The ATtiny13 core declares no ioend, so avr_reset would clear no I/O
     * register while it wipes the cycle timers. 0x5F is the end of the
     * 64-register I/O space every such classic core has. */
    c->sram_start = avr->ioend ? (uint32_t)avr->ioend + 1 : 0x60;
    if (avr->ioend == 0 && (fixes & FD_FIX_IOEND))
        avr->ioend = 0x5F;
    avr_init(avr);
    avr->log = LOG_ERROR;
    avr->frequency = frequency;
    avr->vcc = avr->avcc = avr->aref = vcc_mv;
    avr->custom.data = c; /* for fd_sleep_noop; simavr only reads it for custom.init */
    if (fixes & FD_FIX_SLEEP)
        avr->sleep = fd_sleep_noop;

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
        else if (io->kind && strcmp(io->kind, "watchdog") == 0) {
            c->wdt = (avr_watchdog_t *)io;
            c->wdrf_reg = c->wdt->wdrf.reg;
        }
    if (c->ee && (fixes & FD_FIX_EEPROM)) {
        int a = AVR_DATA_TO_IO(c->ee->r_eecr);
        avr->io[a].w.c = fd_eecr_write;
        avr->io[a].w.param = c;
    }
    if (c->wdt && (fixes & FD_FIX_WDT)) {
        avr_irq_register_notify(c->wdt->watchdog.irq + AVR_INT_IRQ_RUNNING, fd_wdt_running, c);
        avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_PENDING, fd_wdt_cleared, c);
    }
    if (fixes & FD_FIX_IRQ)
        avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_RUNNING, fd_irq_running, c);
    avr_irq_t *trig = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER);
    if (trig) {
        c->adc_in = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0);
        avr_irq_register_notify(trig, fd_adc_trigger, c);
    }
    avr->state = cpu_Stopped;
    return c;
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
    avr_terminate(c->avr);
    free(c->avr);
    free(c->trace);
    free(c);
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
    for (int i = 0; i < c->nports && i < 11; i++)
        info->ports[i] = c->port[i].name;
}

int fd_load_flash(fd_chip *c, const uint8_t *code, uint32_t size, uint32_t address) {
    if ((uint64_t)address + size > (uint64_t)c->avr->flashend + 1)
        return -1;
    memcpy(c->avr->flash + address, code, size);
    return 0;
}

void fd_power_on(fd_chip *c, const uint8_t *fill, uint32_t fill_size) {
    avr_t *avr = c->avr;
    c->powering = 1;
    avr_reset(avr);
    c->powering = 0;
    /* SRAM and the register file do not survive a power cut: fill them */
    uint32_t sram = (uint32_t)avr->ramend + 1 - c->sram_start;
    if (fill && fill_size >= 32 + sram) {
        memcpy(avr->data, fill, 32);
        memcpy(avr->data + c->sram_start, fill + 32, sram);
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
    c->powered = 1;
}

void fd_power_off(fd_chip *c, int torn_value) {
    avr_t *avr = c->avr;
    if (c->ew.active) {
        avr_cycle_timer_cancel(avr, fd_ee_done, c);
        if (torn_value >= 0 && torn_value <= 255)
            c->ee->eeprom[c->ew.address] = (uint8_t)torn_value;
        fd_log(c, FD_EV_EEPROM, 0, c->ew.address, c->ee->eeprom[c->ew.address]);
        c->ew.active = 0;
    }
    avr_cycle_timer_reset(avr);
    for (int i = 0; i < c->nports; i++) {
        fd_port *p = &c->port[i];
        avr->data[p->io->r_ddr] = 0;
        avr->data[p->io->r_port] = 0;
        fd_port_seen(c, i);
    }
    avr->state = cpu_Stopped;
    c->powered = 0;
}

int fd_powered(fd_chip *c) { return c->powered; }

/* ---- running ------------------------------------------------------------ */

uint32_t fd_run(fd_chip *c, uint64_t deadline, const uint8_t *pin_watch, int64_t pc_stop,
                uint64_t quiet_cycles) {
    avr_t *avr = c->avr;
    if (!c->powered)
        return 0;
    if (pin_watch)
        memcpy(c->pin_watch, pin_watch, FD_MAX_PORTS);
    else
        memset(c->pin_watch, 0, FD_MAX_PORTS);
    c->stop &= FD_STOP_TRACE_FULL;
    if (c->stop)
        return c->stop;
    /* a timer at the deadline so a sleep fast-forward lands on it */
    if (deadline > avr->cycle)
        avr_cycle_timer_register(avr, deadline - avr->cycle, fd_deadline_timer, c);
    avr_flashaddr_t pc = pc_stop >= 0 ? (avr_flashaddr_t)pc_stop : 0;
    if (pc_stop >= 0 && avr->pc == pc && avr->state == cpu_Running)
        avr->run(avr); /* already there: a stop means "reached again" */

    c->quiet_cycles = quiet_cycles;
    if (quiet_cycles) {
        uint64_t target = c->last_pin_change + quiet_cycles;
        avr_cycle_timer_register(avr, target > avr->cycle ? target - avr->cycle : 1, fd_quiet_timer,
                                 c);
    }
    uint32_t stop = 0;
    while (!stop) {
        if (c->asleep && avr->state == cpu_Running) {
            c->asleep = 0;
            fd_log(c, FD_EV_SLEEP, 0, 0, 0);
        }
        /* the hot loop: running, nothing to watch but the flags */
        if (pc_stop < 0) {
            while (avr->cycle < deadline && avr->state == cpu_Running && !c->stop)
                avr->run(avr);
        } else {
            while (avr->cycle < deadline && avr->state == cpu_Running && !c->stop && avr->pc != pc)
                avr->run(avr);
            if (avr->pc == pc && avr->state == cpu_Running)
                stop |= FD_STOP_PC;
        }
        c->stop &= ~FD_STOP_SLEPT;
        stop |= c->stop;
        int s = avr->state;
        if (s == cpu_Crashed) {
            stop |= FD_STOP_CRASHED;
            break;
        }
        if (s == cpu_Done && !c->asleep) { /* asleep with interrupts off */
            c->asleep = 1;
            fd_log(c, FD_EV_SLEEP, 1, 0, 0);
        }
        if (quiet_cycles && (s == cpu_Sleeping || s == cpu_Done) &&
            (avr->cycle >= c->last_pin_change + quiet_cycles || s == cpu_Done))
            stop |= FD_STOP_QUIET;
        if (stop)
            break;
        if (avr->cycle >= deadline) {
            stop = FD_STOP_DEADLINE;
            break;
        }
        if (s == cpu_Done) { /* nothing can wake it: only time passes */
            avr->cycle = deadline;
            stop = FD_STOP_HALTED | FD_STOP_DEADLINE;
            break;
        }
        if (s == cpu_Sleeping) /* one fast-forward to the next timer */
            avr->run(avr);
        else if (s != cpu_Running) {
            stop = FD_STOP_HALTED; /* stopped: nothing will run */
            break;
        }
    }
    c->quiet_cycles = 0;
    avr_cycle_timer_cancel(avr, fd_deadline_timer, c);
    avr_cycle_timer_cancel(avr, fd_quiet_timer, c);
    c->stop &= ~(uint32_t)(FD_STOP_PIN | FD_STOP_CALLBACK_ERROR | FD_STOP_SLEPT);
    return stop;
}

void fd_run_raw(fd_chip *c, uint64_t deadline) {
    avr_t *avr = c->avr;
    while (avr->cycle < deadline) {
        int s = avr_run(avr);
        if (s == cpu_Done || s == cpu_Crashed)
            break;
    }
}

int fd_step(fd_chip *c) { return avr_run(c->avr); }

uint64_t fd_cycle(fd_chip *c) { return c->avr->cycle; }
uint32_t fd_pc(fd_chip *c) { return c->avr->pc; }
uint64_t fd_sleep_steps(fd_chip *c) { return c->sleep_steps; }
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
    for (int i = 0; i < c->nports; i++)
        fd_port_seen(c, i);
    return 0;
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

void fd_eeprom_in_flight(fd_chip *c, fd_ee_write *out) { *out = c->ew; }

void fd_eeprom_set_times(fd_chip *c, uint32_t erase_write_us, uint32_t single_us) {
    c->ee_erase_write_us = erase_write_us;
    c->ee_single_us = single_us;
}

/* ---- pins and ADC ---------------------------------------------------------- */

int fd_pin_drive(fd_chip *c, char port, int pin, int level) {
    int i = fd_port_index(c, port);
    if (i < 0 || pin < 0 || pin > 7)
        return -1;
    avr_irq_t *irq = avr_io_getirq(c->avr, AVR_IOCTL_IOPORT_GETIRQ(port), pin);
    if (!irq)
        return -1;
    if (level < 0) /* released: a pulled-up input reads high, else low */
        level = (c->avr->data[c->port[i].io->r_port] >> pin) & 1;
    avr_t *avr = c->avr;
    int was_asleep = avr->state == cpu_Sleeping;
    avr_raise_irq(irq, (uint32_t)(level ? 1 : 0));
    /* An edge that wakes the CPU runs its ISR before the instruction after
     * SLEEP, as simavr does when a timer wakes it inside a run. */
    if (was_asleep && avr->state == cpu_Running && avr->interrupt_state)
        avr_service_interrupts(avr);
    return 0;
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
    c->adc_mode[channel] = ADC_CONST;
    c->adc_mv[channel] = millivolts;
    avr_raise_irq(c->adc_in + channel, millivolts);
    return 0;
}

int fd_adc_callback(fd_chip *c, int channel) {
    if (!c->adc_in || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    c->adc_mode[channel] = ADC_PYTHON;
    return 0;
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

void fd_trace_enable(fd_chip *c, int on) { c->trace_on = on; }
