/*
 * EEPROM: the datasheet's programming time, EEPM modes, the pending byte.
 */
#include "_shim_private.h"

/* ---- EEPROM: datasheet timing, EEPM modes, pending byte --------------- */

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

avr_cycle_count_t fd_ee_done(avr_t *avr, avr_cycle_count_t when, void *param) {
    fd_chip *c = param;
    fd_ee_write *w = &c->st.ew;
    (void)when;
    if (!w->active)
        return 0;
    c->ee->eeprom[w->address] = (uint8_t)w->new_value;
    w->active = 0;
    avr->data[c->ee->r_eecr] &= (uint8_t)~fd_bit(c->ee->eepe);
    fd_event_raise(c, FD_EV_EEPROM_DONE, w->address, w->new_value, 0);
    if (avr->data[c->ee->r_eecr] & fd_bit(c->ee->ready.enable))
        avr_raise_interrupt(avr, &c->ee->ready);
    return 0;
}

static void fd_eecr_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_chip *c = param;
    avr_eeprom_t *ee = c->ee;
    fd_ee_write *w = &c->st.ew;
    uint8_t old = avr->data[addr];
    uint8_t m_pm = (uint8_t)(fd_bit(ee->eepm[0]) | fd_bit(ee->eepm[1]));
    uint8_t m_mpe = fd_bit(ee->eempe), m_pe = fd_bit(ee->eepe), m_re = fd_bit(ee->eere);
    uint8_t m_rie = fd_bit(ee->ready.enable);
    int busy = w->active;

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
        w->active = 1;
        w->address = a;
        w->old_value = was;
        w->new_value = mode == 0 ? data : mode == 1 ? 0xFF : (uint8_t)(was & data);
        w->mode = mode;
        avr_cycle_count_t n = avr_usec_to_cycles(avr, us);
        w->done_cycle = avr->cycle + n;
        avr_cycle_timer_register(avr, n, fd_ee_done, c);
        r = (uint8_t)((r | m_pe) & ~m_mpe);
        avr_cycle_timer_cancel(avr, fd_ee_mpe_clear, c);
        fd_event_raise(c, FD_EV_EEPROM_START, a, was, w->new_value | mode << 8);
        avr->cycle += 2; /* the CPU halts two cycles after setting EEPE */
        fd_end_batch(c);
    } else if (busy) {
        r |= m_pe;
    }
    if ((r & m_mpe) && !(old & m_mpe) && !start)
        avr_cycle_timer_register(avr, 4, fd_ee_mpe_clear, c);
    avr->data[addr] = r;

    if ((v & m_re) && !w->active) {
        avr->data[ee->r_eedr] = ee->eeprom[fd_ee_address(c)];
        avr->cycle += 4; /* the CPU halts four cycles on a read */
        fd_end_batch(c);
    }
    if ((r & m_rie) && !(old & m_rie) && !w->active)
        avr_raise_interrupt(avr, &ee->ready);
}

/* With the fix, the shim's EECR handler replaces simavr's. */
void fd_ee_attach(fd_chip *c) {
    if (!c->ee || !(c->fixes & FD_FIX_EEPROM))
        return;
    int a = AVR_DATA_TO_IO(c->ee->r_eecr);
    c->avr->io[a].w.c = fd_eecr_write;
    c->avr->io[a].w.param = c;
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

void fd_eeprom_in_flight(fd_chip *c, fd_ee_write *out) { *out = c->st.ew; }

int fd_eeprom_busy(fd_chip *c) { return c->st.ew.active; }

void fd_eeprom_set_times(fd_chip *c, uint32_t erase_write_us, uint32_t single_us) {
    c->ee_erase_write_us = erase_write_us;
    c->ee_single_us = single_us;
}
