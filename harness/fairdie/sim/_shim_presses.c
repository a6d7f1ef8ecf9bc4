/*
 * Presses of a power switch in C: one press in one call (a device's press),
 * and presses replayed with no Python between them (the yardstick of a
 * device's presses), both through fd_power_cycle.
 */
#include "_shim_private.h"

/* See _api.h. A run that reaches its deadline, or halts there or short of
 * it, ends its step; the next runs from where it ended, as a caller running
 * step after step from Python would. */
uint32_t fd_power_cycle(fd_chip *c, const uint64_t *steps, uint32_t n, uint64_t window,
                        double relative, double floor, fd_cycle_at *where, uint64_t *at,
                        int64_t *seen) {
    avr_t *avr = c->avr;
    if (!c->st.powered) {
        fd_leds_restart(c);
        fd_power_on(c);
        *where = (fd_cycle_at){.on = avr->cycle};
    } else if (!where->running && !where->done) {
        return FD_STOP_OFF;
    }
    for (uint32_t k = where->done; k < n; k++) {
        if (!where->running) {
            where->deadline = avr->cycle + steps[k];
            where->running = 1;
        }
        uint32_t stop = fd_run(c, where->deadline, NULL, NULL);
        if (stop & ~(uint32_t)(FD_STOP_DEADLINE | FD_STOP_HALTED))
            return stop;
        uint64_t end = avr->cycle;
        at[k] = end;
        seen[k] = fd_leds_seen(c, end - where->on > window ? end - window : where->on, end,
                               relative, floor);
        where->running = 0;
        where->done = k + 1;
    }
    fd_power_off(c, -1);
    return 0;
}

/* See _api.h. The snapshot's feed of the channel is put back at the end:
 * the values given here are the caller's only for this call. */
int fd_replay_presses(fd_chip *c, const uint8_t *snapshot, int channel, const double *mv,
                      const uint32_t *ends, uint32_t n, const uint64_t *steps, uint32_t nsteps,
                      uint64_t window, double relative, double floor, uint64_t *at, int64_t *seen,
                      int64_t *first, uint32_t *done) {
    *done = 0;
    if (fd_restore(c, snapshot) != 0 || c->st.powered || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    for (uint32_t k = 1; k < n; k++)
        if (ends[k] < ends[k - 1])
            return -1;
    int mode = c->st.adc_mode[channel];
    fd_adc_buf feed = c->st.adc_buf[channel];
    int rc = 0;
    for (uint32_t k = 0, from = 0; k < n && !rc; from = ends[k++]) {
        if (fd_adc_buffer(c, channel, mv + from, ends[k] - from, 0) != 0) {
            rc = -1;
            break;
        }
        c->ntrace = 0; /* what a device's press drains from the trace */
        fd_cycle_at where;
        size_t i = (size_t)k * nsteps;
        uint32_t stop;
        while ((stop = fd_power_cycle(c, steps, nsteps, window, relative, floor, &where, at + i,
                                      seen + i)) == FD_STOP_TRACE_FULL) {
            c->ntrace = 0;
            c->stop &= ~(uint32_t)FD_STOP_TRACE_FULL;
        }
        if (stop & FD_STOP_CRASHED)
            rc = -2;
        else if (stop & FD_STOP_ADC_EMPTY)
            rc = -3;
        else if (stop)
            rc = -5;
        else if (fd_adc_buffered(c, channel))
            rc = -4;
        if (stop)
            fd_power_off(c, -1);
        first[k] = fd_leds_first_lit(c);
        if (!rc)
            *done = k + 1;
    }
    c->ntrace = 0;
    c->st.adc_mode[channel] = mode;
    c->st.adc_buf[channel] = feed;
    return rc;
}
