/*
 * Snapshots: the whole chip in one buffer, and back.
 */
#include "_shim_private.h"

uint32_t fd_snapshot_size(fd_chip *c) {
    return (uint32_t)(16 + c->block_size + c->data_snap + (c->ee ? c->ee->size : 0) +
                      (c->snap_flash ? (size_t)c->avr->flashend + 1 : 0) +
                      (size_t)c->avr->irq_pool.count * 8 + sizeof(fd_state) +
                      FD_LED_HISTORY * sizeof(fd_led_entry));
}

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
    /* the run callback as without coverage: a snapshot is the same either way */
    memcpy(p + offsetof(avr_t, run), &c->plain_run, sizeof c->plain_run);
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
    fd_cov_set_run(c); /* coverage is the chip's setting, not the snapshot's */
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
