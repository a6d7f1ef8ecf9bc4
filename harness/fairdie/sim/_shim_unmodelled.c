/*
 * Registers of what simavr 1.6 does not model on the MCU (power reduction,
 * the clock prescaler, brown-out control, ...). Python names them
 * (fd_unmodelled_watch); a hook on each of those addresses, and on no other,
 * notes the firmware's first access that matters (a write setting one of
 * the watched bits, or any read where reading is what counts), so that the
 * chip can say so. Writes go on to the register as before: simavr stores
 * them and reads them back, and nothing else happens, as ever.
 */
#include "_shim_private.h"

static void fd_unmod_note(fd_unmod *u, uint32_t read) {
    fd_chip *c = u->chip;
    uint32_t bit = 1u << (u->index + read);
    if (!(c->unmod_seen & bit)) {
        c->unmod_seen |= bit;
        c->unmod_new = 1;
    }
}

static void fd_unmod_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_unmod *u = param;
    if (v & u->mask)
        fd_unmod_note(u, 0);
    if (u->orig_w)
        u->orig_w(avr, addr, v, u->orig_wp);
    else
        avr->data[addr] = v;
}

static uint8_t fd_unmod_read(avr_t *avr, avr_io_addr_t addr, void *param) {
    fd_unmod *u = param;
    fd_unmod_note(u, 1);
    return u->orig_r ? u->orig_r(avr, addr, u->orig_rp) : avr->data[addr];
}

int fd_unmodelled_watch(fd_chip *c, uint32_t addr, uint8_t mask, int reads, uint32_t index) {
    avr_t *avr = c->avr;
    if (addr < 0x20 || addr >= 0x20 + MAX_IOs || addr > avr->ramend || index >= 31 ||
        c->nunmod >= FD_MAX_UNMODELLED)
        return -1;
    int a = AVR_DATA_TO_IO(addr);
    fd_unmod *u = &c->unmod[c->nunmod++];
    u->chip = c;
    u->mask = mask;
    u->index = (uint8_t)index;
    if (mask) {
        u->orig_w = avr->io[a].w.c;
        u->orig_wp = avr->io[a].w.param;
        avr->io[a].w.c = fd_unmod_write;
        avr->io[a].w.param = u;
    }
    if (reads) {
        u->orig_r = avr->io[a].r.c;
        u->orig_rp = avr->io[a].r.param;
        avr->io[a].r.c = fd_unmod_read;
        avr->io[a].r.param = u;
    }
    return 0;
}

uint32_t fd_unmodelled_seen(fd_chip *c) {
    c->unmod_new = 0;
    return c->unmod_seen;
}
