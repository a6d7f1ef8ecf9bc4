/*
 * Running: the run loop, interrupt entry, polling loops, reset, power and sleep.
 */
#include "_shim_private.h"

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
    if (woke) /* the wake comes first, then the response */
        fd_woke(c);
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

/* The interrupt table's hooks: entry (events, response time) and, with the
 * fix, the watchdog's interrupt mode. */
void fd_irq_attach(fd_chip *c) {
    avr_t *avr = c->avr;
    if (c->wdt && (c->fixes & FD_FIX_WDT)) {
        avr_irq_register_notify(c->wdt->watchdog.irq + AVR_INT_IRQ_RUNNING, fd_wdt_running, c);
        avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_PENDING, fd_wdt_cleared, c);
    }
    avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_RUNNING, fd_irq_running, c);
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
    if (c->cov)
        fd_cov_poll(c, pc, passes);
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
void fd_poll_register(fd_chip *c, uint16_t addr) {
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
void fd_after_reset(avr_io_t *io) {
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
    fd_sleep_forget(c); /* the reset wiped the cycle timers and the enable bits */
    if (!c->powering)
        fd_event_raise(c, FD_EV_RESET, 1, 0, 0);
    fd_pins_after_reset(c);
}

static uint64_t fd_splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fd_power_on(fd_chip *c) {
    avr_t *avr = c->avr;
    c->st.powered = 1;
    fd_sleep_forget(c);
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
    fd_sleep_forget(c);
    fd_pins_update_all(c);
    fd_event_raise(c, FD_EV_POWER, 0, 0, 0);
    avr->state = cpu_Stopped;
}

int fd_powered(fd_chip *c) { return c->st.powered; }

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
    c->batching = c->batch && !watch_pc && (avr->run == avr_callback_run_raw || c->cov);
    avr->run_cycle_limit = c->batching ? FD_BATCH_LIMIT : 1;
    avr->run_cycle_count = 0; /* the first instruction runs alone: the count is fresh after it */

    uint64_t quiet = c->quiet_cycles = c->stops.quiet_cycles;
    if (quiet) {
        uint64_t target = c->st.last_pin_change + quiet;
        avr_cycle_timer_register(avr, target > avr->cycle ? target - avr->cycle : 1, fd_wake_timer,
                                 &c->stops);
    }
    while (!stop) {
        if (c->st.asleep && avr->state == cpu_Running)
            fd_woke(c);
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
            if (!fd_sleep_enter(c)) {         /* SE clear: SLEEP was a no-op */
                avr->state = cpu_Running;
                continue;
            }
            c->st.asleep = 1;
            fd_event_raise(c, FD_EV_SLEEP, 1, c->st.sleep_mode, fd_watchdog_on(c));
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
    c->stop &=
        ~(uint32_t)(FD_STOP_EVENT | FD_STOP_CALLBACK_ERROR | FD_STOP_ADC_EMPTY | FD_STOP_SLEPT);
    return stop;
}

/* The yardsticks trace nothing (their loops watch no trace buffer). With
 * batch, fd_run's policy for simavr's run_cycle_limit: a cycle timer at the
 * deadline and the limit raised before every avr->run; without, simavr's
 * default of one instruction per avr->run. */
void fd_run_raw(fd_chip *c, uint64_t deadline, int batch) {
    avr_t *avr = c->avr;
    uint32_t mask = c->trace_mask;
    c->trace_mask = 0;
    if (batch && deadline > avr->cycle)
        avr_cycle_timer_register(avr, deadline - avr->cycle, fd_wake_timer, c);
    avr->run_cycle_count = 0;
    while (avr->cycle < deadline && (avr->state == cpu_Running || avr->state == cpu_Sleeping)) {
        avr->run_cycle_limit = batch ? FD_BATCH_LIMIT : 1;
        avr->run(avr);
    }
    avr->run_cycle_limit = avr->run_cycle_count = 1;
    avr_cycle_timer_cancel(avr, fd_wake_timer, c);
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
