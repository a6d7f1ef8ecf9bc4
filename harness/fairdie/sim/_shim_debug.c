/*
 * Debugging: breakpoints, data watches and a step range, checked in C.
 */
#include "_shim_private.h"

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
void fd_debug_look(fd_chip *c) {
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
int fd_debug_check(fd_chip *c, int pcs) {
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
