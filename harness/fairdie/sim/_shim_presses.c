/*
 * Presses replayed in C: power on, run the hold, power off, the next press,
 * with no Python between them (the yardstick of a device's presses).
 */
#include "_shim_private.h"

/* See _api.h. The snapshot's feed of the channel is put back at the end:
 * the values given here are the caller's only for this call. */
int fd_replay_presses(fd_chip *c, const uint8_t *snapshot, int channel, const double *mv,
                      const uint32_t *ends, uint32_t n, const uint64_t *holds, uint64_t window,
                      uint64_t *lit, uint32_t *done) {
    avr_t *avr = c->avr;
    *done = 0;
    if (fd_restore(c, snapshot) != 0 || c->st.powered || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    for (uint32_t k = 1; k < n; k++)
        if (ends[k] < ends[k - 1])
            return -1;
    int mode = c->st.adc_mode[channel];
    fd_adc_buf feed = c->st.adc_buf[channel];
    uint32_t mask = c->trace_mask;
    c->trace_mask = 0;
    int rc = 0;
    for (uint32_t k = 0, from = 0; k < n && !rc; from = ends[k++]) {
        if (fd_adc_buffer(c, channel, mv + from, ends[k] - from, 0) != 0) {
            rc = -1;
            break;
        }
        fd_leds_restart(c);
        fd_power_on(c);
        uint64_t on = avr->cycle;
        uint32_t stop = fd_run(c, on + holds[k], NULL, NULL);
        if (stop & FD_STOP_CRASHED)
            rc = -2;
        else if (stop & FD_STOP_ADC_EMPTY)
            rc = -3;
        else if (fd_adc_buffered(c, channel))
            rc = -4;
        else if (lit) {
            uint64_t end = avr->cycle;
            uint64_t start = end - on > window ? end - window : on;
            fd_leds_lit_cycles(c, start, end, lit + (size_t)k * c->nleds);
        }
        fd_power_off(c, -1);
        if (!rc)
            *done = k + 1;
    }
    c->trace_mask = mask;
    c->st.adc_mode[channel] = mode;
    c->st.adc_buf[channel] = feed;
    return rc;
}
