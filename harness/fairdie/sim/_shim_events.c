/*
 * Events: the trace, the stops of a run, and simavr's log.
 */
#include "_shim_private.h"

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

void fd_event_at(fd_chip *c, uint64_t cycle, uint32_t kind, uint32_t a, uint32_t b, uint32_t d) {
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

void fd_event_raise(fd_chip *c, uint32_t kind, uint32_t a, uint32_t b, uint32_t d) {
    fd_event_at(c, c->avr->cycle, kind, a, b, d);
}

/* A timer that does nothing but end a sleep fast-forward on time: the run's
 * deadline (param: the chip) and its quiet time (param: its stops). */
avr_cycle_count_t fd_wake_timer(avr_t *avr, avr_cycle_count_t when, void *param) {
    (void)avr;
    (void)when;
    (void)param;
    return 0;
}

/* ---- log ------------------------------------------------------------------ */

/* simavr's logger is process-wide; each line goes to its chip's buffer,
 * level first, colour escapes dropped. Python drains it into `logging`. */
void fd_logger(avr_t *avr, const int level, const char *format, va_list ap) {
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

uint32_t fd_pending(fd_chip *c) {
    return (c->ntrace ? 1u : 0u) | (c->nlog ? 2u : 0u) | (c->unmod_new ? 4u : 0u);
}

uint32_t fd_log_drain(fd_chip *c, char *out, uint32_t max) {
    uint32_t n = c->nlog < max ? c->nlog : max;
    memcpy(out, c->log, n);
    memmove(c->log, c->log + n, c->nlog - n);
    c->nlog -= n;
    return n;
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
