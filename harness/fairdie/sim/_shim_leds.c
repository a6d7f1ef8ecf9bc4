/*
 * LEDs: which are lit, as the pin model drives them, and their light over time.
 */
#include "_shim_private.h"

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

void fd_leds_update(fd_chip *c) {
    if (!c->nleds)
        return;
    uint32_t m = fd_leds_mask(c);
    if (m != c->st.led_mask)
        fd_leds_push(c, m);
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

/* fairdie.board.LedDecoder's rule, in the same double arithmetic: none seen
 * unless the brightest LED's lit cycles exceed floor times the window; then
 * each LED lit at least relative times the brightest's. */
int64_t fd_leds_seen(fd_chip *c, uint64_t start, uint64_t end, double relative, double floor) {
    uint64_t lit[FD_MAX_LEDS];
    int rc = fd_leds_lit_cycles(c, start, end, lit);
    if (rc != 0)
        return rc;
    if (end <= start)
        return 0;
    uint64_t top = 0;
    for (uint32_t i = 0; i < c->nleds; i++)
        top = lit[i] > top ? lit[i] : top;
    if ((double)top <= floor * (double)(end - start))
        return 0;
    double cut = relative * (double)top;
    int64_t mask = 0;
    for (uint32_t i = 0; i < c->nleds; i++)
        if ((double)lit[i] >= cut)
            mask |= (int64_t)1 << i;
    return mask;
}
