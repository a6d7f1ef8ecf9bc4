/*
 * Sleep: the SLEEP instruction's hook, and with the `sleep_modes` fix the
 * datasheet's sleep modes. simavr 1.6 ignores SE and the SM bits: every
 * SLEEP sleeps, the timers keep running in every mode, and any enabled
 * interrupt wakes the CPU. With the fix a SLEEP with SE clear is a no-op;
 * in every mode but idle the CPU-clocked timers stop (their cycle timers are
 * taken out and put back, shifted, at the wake, so counters and prescalers
 * freeze) and so does the ADC outside ADC noise reduction; only the mode's
 * wake sources wake the CPU. The others are masked while it sleeps (their
 * enable bit reads clear until the wake) and a flag they raised meanwhile
 * is served after the wake, as on a real chip.
 */
#include "_shim_private.h"

int fd_set_sleep_bits(fd_chip *c, uint32_t se_reg, uint32_t se_bit, uint32_t sm_reg,
                      uint32_t sm_shift, uint32_t sm_bits) {
    if (se_reg > 0x1FF || sm_reg > 0x1FF || se_bit > 7 || sm_bits < 1 || sm_bits > 3 ||
        sm_shift + sm_bits > 8)
        return -1;
    c->se = (avr_regbit_t){.reg = se_reg, .bit = se_bit, .mask = 1};
    c->sm = (avr_regbit_t){.reg = sm_reg, .bit = sm_shift, .mask = (1u << sm_bits) - 1};
    c->sm_bits = (int)sm_bits;
    return 0;
}

/* The timers and the external interrupts, found once the chip has started. */
void fd_sleep_attach(fd_chip *c) {
    for (avr_io_t *io = c->avr->io_port; io; io = io->next) {
        if (!io->kind)
            continue;
        if (strcmp(io->kind, "timer") == 0 && c->ntimers < FD_MAX_TIMERS)
            c->timers[c->ntimers++] = (avr_timer_t *)io;
        else if (strcmp(io->kind, "extint") == 0)
            c->extint = (avr_extint_t *)io;
    }
}

/* The ATmega's Timer2 runs on in ADC noise reduction, power-save and
 * extended standby (its asynchronous modes; simavr clocks it from the CPU). */
static int fd_keeps_timer2(fd_chip *c, int mode) {
    return c->sm_bits == 3 && (mode == 1 || mode == 3 || mode == 7);
}

static int fd_timer_stops(fd_chip *c, avr_timer_t *t, int mode) {
    return !(t->name == '2' && fd_keeps_timer2(c, mode));
}

/* The peripheral a cycle timer belongs to stops in this mode. */
static int fd_param_stops(fd_chip *c, void *param, int mode) {
    for (int i = 0; i < c->ntimers; i++)
        if (param == c->timers[i])
            return fd_timer_stops(c, c->timers[i], mode);
    return param == c->adc && c->adc && mode != 1;
}

static int fd_extint_index(fd_chip *c, avr_int_vector_t *v) {
    for (int i = 0; c->extint && i < EXTINT_COUNT; i++)
        if (v == &c->extint->eint[i].vector)
            return i;
    return -1;
}

/* The datasheets' wake-up sources (what simavr models of them): in every
 * mode the watchdog, pin changes and INTn as a low level (an edge needs the
 * I/O clock); in ADC noise reduction also the ADC and EEPROM ready; Timer2
 * where it runs on. */
static int fd_wakes(fd_chip *c, avr_int_vector_t *v, int mode) {
    if (c->wdt && v == &c->wdt->watchdog)
        return 1;
    for (int i = 0; i < c->nports; i++)
        if (v == &c->port[i].io->pcint)
            return 1;
    int x = fd_extint_index(c, v);
    if (x >= 0)
        return avr_regbit_get_array(c->avr, c->extint->eint[x].isc, 2) == 0;
    if (mode == 1 && ((c->adc && v == &c->adc->adc) || (c->ee && v == &c->ee->ready)))
        return 1;
    for (int i = 0; i < c->ntimers; i++) {
        avr_timer_t *t = c->timers[i];
        if (t->name != '2' || !fd_keeps_timer2(c, mode))
            continue;
        if (v == &t->overflow)
            return 1;
        for (int k = 0; k < AVR_TIMER_COMP_COUNT; k++)
            if (v == &t->comp[k].interrupt)
                return 1;
    }
    return 0;
}

/* The watchdog runs: its reset or its interrupt is enabled (the SLEEP
 * event says so: a power-down draws more with it on). */
int fd_watchdog_on(fd_chip *c) {
    return c->wdt &&
           (avr_regbit_get(c->avr, c->wdt->wde) || avr_regbit_get(c->avr, c->wdt->watchdog.enable));
}

int fd_sleep_enter(fd_chip *c) {
    avr_t *avr = c->avr;
    fd_state *st = &c->st;
    int mode = c->sm.reg ? avr_regbit_get(avr, c->sm) : -1;
    st->sleep_mode = (uint32_t)(mode + 1);
    if (!(c->fixes & FD_FIX_SLEEP_MODES) || mode < 0)
        return 1;
    if (c->se.reg && !avr_regbit_get(avr, c->se)) {
        st->sleep_mode = 0;
        return 0;
    }
    if (mode == 0) /* idle: the CPU stops, nothing else */
        return 1;
    st->frozen_at = avr->cycle;
    st->nfrozen = 0;
    for (avr_cycle_timer_slot_p t = avr->cycle_timers.timer; t; t = t->next)
        if (st->nfrozen < FD_MAX_FROZEN && fd_param_stops(c, t->param, mode)) {
            fd_frozen *f = &st->frozen[st->nfrozen++];
            f->fn = t->timer;
            f->param = t->param;
            f->left = t->when > avr->cycle ? t->when - avr->cycle : 1;
        }
    for (uint32_t i = 0; i < st->nfrozen; i++)
        avr_cycle_timer_cancel(avr, st->frozen[i].fn, st->frozen[i].param);
    st->masked = st->flags = 0;
    for (int i = 0; i < avr->interrupts.vector_count; i++) {
        avr_int_vector_t *v = avr->interrupts.vector[i];
        if (!v->enable.reg || !avr_regbit_get(avr, v->enable) || fd_wakes(c, v, mode))
            continue;
        st->masked |= 1ull << i;
        if (v->raised.reg && avr_regbit_get(avr, v->raised))
            st->flags |= 1ull << i;
        avr_regbit_clear(avr, v->enable);
    }
    return 1;
}

/* The wake: timers go on from where they stopped, masked interrupts are
 * enabled again, and one whose flag was raised meanwhile is served. */
static void fd_sleep_leave(fd_chip *c) {
    avr_t *avr = c->avr;
    fd_state *st = &c->st;
    int mode = (int)st->sleep_mode - 1;
    st->sleep_mode = 0;
    if (!st->nfrozen && !st->masked)
        return;
    uint64_t slept = avr->cycle - st->frozen_at;
    for (int i = 0; i < c->ntimers; i++) {
        avr_timer_t *t = c->timers[i];
        if (t->tov_cycles && fd_timer_stops(c, t, mode) &&
            !(t->ext_clock_flags & (AVR_TIMER_EXTCLK_FLAG_TN | AVR_TIMER_EXTCLK_FLAG_AS2)))
            t->tov_base += slept; /* TCNT = (cycle - tov_base) scaled: it stood still */
    }
    for (uint32_t i = 0; i < st->nfrozen; i++)
        avr_cycle_timer_register(avr, st->frozen[i].left, st->frozen[i].fn, st->frozen[i].param);
    st->nfrozen = 0;
    uint64_t masked = st->masked;
    st->masked = 0;
    for (int i = 0; i < avr->interrupts.vector_count; i++) {
        if (!((masked >> i) & 1))
            continue;
        avr_int_vector_t *v = avr->interrupts.vector[i];
        avr_regbit_set(avr, v->enable);
        if (fd_extint_index(c, v) >= 0) /* an edge went unseen without the I/O clock */
            avr_regbit_setto(avr, v->raised, (st->flags >> i) & 1);
        int raised = v->raised.reg ? avr_regbit_get(avr, v->raised) != 0
                                   : c->ee && v == &c->ee->ready &&
                                         !(avr->data[c->ee->r_eecr] & fd_bit(c->ee->eepe));
        if (raised)
            avr_raise_interrupt(avr, v);
    }
    fd_end_batch(c);
}

void fd_woke(fd_chip *c) {
    c->st.asleep = 0;
    fd_sleep_leave(c);
    fd_event_raise(c, FD_EV_WAKE, 0, 0, 0);
}

void fd_sleep_forget(fd_chip *c) {
    c->st.asleep = 0;
    c->st.sleep_mode = 0;
    c->st.nfrozen = 0;
    c->st.masked = 0;
}

int fd_sleep_mode(fd_chip *c) { return c->st.asleep ? (int)c->st.sleep_mode - 1 : -1; }

/* Wraps simavr's sleep, which sleeps the host for the simulated time (the
 * `sleep` fix does not call it).
 * simavr calls it from inside the SLEEP instruction's run step, just before
 * it fast-forwards the cycle count to the next timer: the right moment to
 * stamp the start of a sleep. */
void fd_sleep_hook(avr_t *avr, avr_cycle_count_t how_long) {
    fd_chip *c = avr->custom.data;
    if (!c->st.asleep) {          /* SLEEP (1 cycle) has just executed */
        if (!fd_sleep_enter(c)) { /* SE clear: it was a no-op; simavr adds 1 + how_long */
            avr->state = cpu_Running;
            avr->cycle -= 1 + how_long;
            return;
        }
        c->st.asleep = 1;
        fd_event_at(c, avr->cycle - 1, FD_EV_SLEEP, 0, c->st.sleep_mode, fd_watchdog_on(c));
    }
    c->st.sleep_steps++;
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
