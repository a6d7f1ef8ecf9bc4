/*
 * The one pin model: ports and their hooks, compare outputs, PUD, the
 * outside world's drives and pulls.
 */
#include "_shim_private.h"

/* ---- the pin model ------------------------------------------------------- */

/* The state word of port i (see _api.h): the chip side (DDR, PORT, the
 * pull-up unless PUD, compare outputs that take over a pin) combined with
 * the outside world (driven, or pulled by an external resistor). Where the
 * chip and the world both drive a pin, the chip's level wins. */
uint32_t fd_resolve(fd_chip *c, int i) {
    avr_t *avr = c->avr;
    fd_state *st = &c->st;
    uint8_t ddr = 0, out = 0, ocm = 0, ocv = 0, pud = 0;
    if (st->powered) {
        ddr = avr->data[c->port[i].io->r_ddr];
        out = avr->data[c->port[i].io->r_port];
        if (c->fixes & FD_FIX_COMPARE)
            for (int k = 0; k < c->ncmp; k++)
                if (c->cmp[k].port == i && avr_regbit_get(avr, c->cmp[k].com)) {
                    ocm |= (uint8_t)(1u << c->cmp[k].bit);
                    if (st->oc[k])
                        ocv |= (uint8_t)(1u << c->cmp[k].bit);
                }
        if (c->pud.reg)
            pud = avr_regbit_get(avr, c->pud);
    }
    uint8_t chip = ddr;
    uint8_t cval = (uint8_t)((out & ~ocm) | (ocv & ocm));
    uint8_t world = st->ext_drive[i];
    uint8_t free_ = (uint8_t)(~chip & ~world);
    uint8_t ext_pull = (uint8_t)((st->pull_up[i] | st->pull_down[i]) & free_);
    uint8_t int_pull = pud ? 0 : (uint8_t)(out & ~ddr & free_ & ~ext_pull);
    uint8_t level = (uint8_t)((chip & cval) | (world & ~chip & st->ext_value[i]) |
                              (ext_pull & st->pull_up[i]) | int_pull);
    return (uint32_t)level | (uint32_t)chip << 8 | (uint32_t)world << 16 |
           (uint32_t)(ext_pull | int_pull) << 24;
}

static void fd_pins_changed(fd_chip *c, int i, uint32_t old, uint32_t now) {
    c->st.last_pin_change = c->avr->cycle;
    if (c->quiet_cycles) /* a sleep fast-forward must not jump past the quiet time */
        avr_cycle_timer_register(c->avr, c->quiet_cycles, fd_wake_timer, &c->stops);
    fd_event_raise(c, FD_EV_PIN, (uint32_t)c->port[i].name, now, old);
    fd_leds_update(c);
}

/* Recompute port i; with the pull-up fix the model also sets what the CPU
 * reads (through the port's pin IRQs: PINx, pin change and INTn). */
static void fd_pins_update(fd_chip *c, int i) {
    uint32_t old = c->st.pin_state[i], now = fd_resolve(c, i);
    if (now == old)
        return;
    c->st.pin_state[i] = now;
    if (c->fixes & FD_FIX_PULLUP) {
        uint8_t changed = (uint8_t)((now ^ old) & 0xFF);
        for (int b = 0; b < 8; b++)
            if (changed & (1u << b))
                avr_raise_irq(c->port[i].io->io.irq + b, (now >> b) & 1);
    }
    fd_pins_changed(c, i, old, now);
}

void fd_pins_update_all(fd_chip *c) {
    for (int i = 0; i < c->nports; i++)
        fd_pins_update(c, i);
}

/* After a reset the I/O registers are cleared: PINx and the pin IRQs take
 * the model's levels again without raising an interrupt (none is pending
 * after a reset). */
void fd_pins_after_reset(fd_chip *c) {
    for (int i = 0; i < c->nports; i++) {
        uint32_t old = c->st.pin_state[i], now = fd_resolve(c, i);
        if (c->fixes & FD_FIX_PULLUP) {
            avr_ioport_t *io = c->port[i].io;
            c->avr->data[io->r_pin] = (uint8_t)now;
            for (int b = 0; b < 8; b++)
                io->io.irq[b].value = (now >> b) & 1;
        }
        c->st.pin_state[i] = now;
        if (now != old)
            fd_pins_changed(c, i, old, now);
    }
}

/* simavr runs SBI/CBI as a read-modify-write of the whole register. On a
 * PINx register that toggles every pin reading high, where the hardware
 * writes the one bit (SBI toggles that pin; CBI toggles none). The
 * instruction being executed is still at avr->pc while it writes. */
static uint8_t fd_pin_bit_write(avr_t *avr, avr_io_addr_t addr, uint8_t v) {
    if (avr->pc + 1 > avr->flashend)
        return v;
    uint16_t op = (uint16_t)(avr->flash[avr->pc] | (avr->flash[avr->pc + 1] << 8));
    uint16_t kind = op & 0xFF00;
    if ((kind != 0x9A00 && kind != 0x9800) || ((op >> 3) & 0x1F) + 0x20 != addr)
        return v;
    return kind == 0x9A00 ? (uint8_t)(1u << (op & 7)) : 0;
}

static void fd_port_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_hook *h = param;
    fd_chip *c = h->chip;
    if (h->kind == HOOK_PIN && (c->fixes & FD_FIX_PIN_BIT))
        v = fd_pin_bit_write(avr, addr, v);
    if (!(c->fixes & FD_FIX_PULLUP)) { /* simavr's own port, then our view of it */
        h->orig(avr, addr, v, h->orig_param);
        fd_pins_update(c, h->port);
        return;
    }
    avr_ioport_t *io = c->port[h->port].io;
    if (h->kind == HOOK_PIN) { /* writing a one to PINx toggles PORTx */
        addr = io->r_port;
        v = (uint8_t)(avr->data[io->r_port] ^ v);
    }
    /* the pin model depends on this register and on inputs that update it
     * themselves when they change: a write that leaves the register as it
     * was changes no pin */
    int same = avr->data[addr] == v;
    avr->data[addr] = v;
    avr_raise_irq(
        io->io.irq + (h->kind == HOOK_DDR ? IOPORT_IRQ_DIRECTION_ALL : IOPORT_IRQ_REG_PORT), v);
    if (!same)
        fd_pins_update(c, h->port);
}

/* A register that changes pins without being a port (PUD, COM bits). */
static void fd_reg_write(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param) {
    fd_hook *h = param;
    if (h->orig)
        h->orig(avr, addr, v, h->orig_param);
    else
        avr->data[addr] = v;
    fd_pins_update_all(h->chip);
}

static void fd_hook_write(fd_chip *c, fd_hook *h, int port, int kind, uint16_t addr,
                          avr_io_write_t fn) {
    avr_t *avr = c->avr;
    int a = AVR_DATA_TO_IO(addr);
    h->chip = c;
    h->port = port;
    h->kind = kind;
    h->orig = avr->io[a].w.c;
    h->orig_param = avr->io[a].w.param;
    if (!h->orig && kind != HOOK_REG)
        return;
    avr->io[a].w.c = fn;
    avr->io[a].w.param = h;
}

void fd_watch_register(fd_chip *c, uint16_t addr) {
    if (addr < 0x20 || addr > c->avr->ioend)
        return;
    for (int i = 0; i < c->nwatched; i++)
        if (c->avr->io[AVR_DATA_TO_IO(addr)].w.param == &c->watched[i])
            return;
    if (c->nwatched < FD_MAX_WATCHED)
        fd_hook_write(c, &c->watched[c->nwatched++], -1, HOOK_REG, addr, fd_reg_write);
}

void fd_find_ports(fd_chip *c) {
    for (avr_io_t *io = c->avr->io_port; io; io = io->next) {
        if (!io->kind || strcmp(io->kind, "port") != 0 || c->nports >= FD_MAX_PORTS)
            continue;
        avr_ioport_t *p = (avr_ioport_t *)io;
        int i = c->nports++;
        c->port[i].name = p->name;
        c->port[i].io = p;
        fd_hook_write(c, &c->port[i].hooks[0], i, HOOK_PORT, p->r_port, fd_port_write);
        fd_hook_write(c, &c->port[i].hooks[1], i, HOOK_DDR, p->r_ddr, fd_port_write);
        fd_hook_write(c, &c->port[i].hooks[2], i, HOOK_PIN, p->r_pin, fd_port_write);
    }
}

int fd_port_index(fd_chip *c, char name) {
    for (int i = 0; i < c->nports; i++)
        if (c->port[i].name == name)
            return i;
    return -1;
}

/* ---- compare outputs ------------------------------------------------------- */

static void fd_compare_out(avr_irq_t *irq, uint32_t value, void *param) {
    fd_compare *k = param;
    (void)irq;
    k->chip->st.oc[k->index] = (uint8_t)(value & 1);
    fd_pins_update(k->chip, k->port);
}

/* Route a compare output to its datasheet pin: simavr 1.6 drives it through
 * PORTx (so PORTx reads wrong and our port hooks never see it), on the
 * ATtiny84 to the wrong pins, and on the ATtiny13 not at all. With no
 * com_pin, simavr toggles the output IRQ itself; the pin model reads it. */
void fd_compare_attach(fd_chip *c, fd_compare *k) {
    avr_timer_t *t = NULL;
    for (avr_io_t *io = c->avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "timer") == 0 &&
            ((avr_timer_t *)io)->name == k->timer_name)
            t = (avr_timer_t *)io;
    k->port = fd_port_index(c, k->port_name);
    if (!t || k->port < 0)
        return;
    avr_timer_comp_t *comp = &t->comp[k->comp];
    avr_irq_t *out = t->io.irq + TIMER_IRQ_OUT_COMP + k->comp;
    if (comp->com_pin.reg) {
        avr_ioport_getirq_t req = {.bit = comp->com_pin};
        if (avr_ioctl(c->avr, AVR_IOCTL_IOPORT_GETIRQ_REGBIT, &req) > 0)
            avr_unconnect_irq(out, req.irq[0]);
        comp->com_pin = (avr_regbit_t){0};
    }
    comp->com = k->com;
    out->value = 0;
    k->out = out;
    avr_irq_register_notify(out, fd_compare_out, k);
    fd_watch_register(c, (uint16_t)k->com.reg);
}

int fd_set_compare_pin(fd_chip *c, char timer, int comp, uint32_t com_reg, uint32_t com_shift,
                       char port, int bit) {
    if (c->ncmp >= FD_MAX_COMPARE || comp < 0 || comp >= AVR_TIMER_COMP_COUNT || bit < 0 ||
        bit > 7 || com_shift > 6 || com_reg > 0x1FF)
        return -1;
    fd_compare *k = &c->cmp[c->ncmp];
    k->chip = c;
    k->index = c->ncmp++;
    k->timer_name = timer;
    k->comp = comp;
    k->com = (avr_regbit_t){.reg = com_reg, .bit = com_shift, .mask = 3};
    k->port_name = port;
    k->bit = bit;
    k->port = -1;
    return 0;
}

int fd_set_pud(fd_chip *c, uint32_t reg, uint32_t bit) {
    if (reg > 0x1FF || bit > 7)
        return -1;
    c->pud = (avr_regbit_t){.reg = reg, .bit = bit, .mask = 1};
    return 0;
}

/* ---- pins and ADC ---------------------------------------------------------- */

/* An edge that wakes the CPU runs its ISR before the instruction after
 * SLEEP, as simavr does when a timer wakes it inside a run. */
static void fd_after_outside_change(fd_chip *c, int was_asleep) {
    avr_t *avr = c->avr;
    if (was_asleep && avr->state == cpu_Running && avr->interrupt_state)
        avr_service_interrupts(avr);
}

int fd_pin_drive(fd_chip *c, char port, int pin, int level) {
    int i = fd_port_index(c, port);
    if (i < 0 || pin < 0 || pin > 7)
        return -1;
    avr_t *avr = c->avr;
    uint8_t m = (uint8_t)(1u << pin);
    fd_state *st = &c->st;
    st->ext_drive[i] = (uint8_t)(level < 0 ? st->ext_drive[i] & ~m : st->ext_drive[i] | m);
    st->ext_value[i] = (uint8_t)(level > 0 ? st->ext_value[i] | m : st->ext_value[i] & ~m);
    int was_asleep = avr->state == cpu_Sleeping;
    if (c->fixes & FD_FIX_PULLUP) {
        fd_pins_update(c, i);
    } else { /* simavr's way: the pin IRQ takes the level; released, the PORT bit */
        int v = level < 0 ? (avr->data[c->port[i].io->r_port] >> pin) & 1 : level;
        avr_raise_irq(c->port[i].io->io.irq + pin, (uint32_t)v);
        fd_pins_update(c, i);
    }
    fd_after_outside_change(c, was_asleep);
    return 0;
}

int fd_pin_pull(fd_chip *c, char port, int pin, int pull) {
    int i = fd_port_index(c, port);
    if (i < 0 || pin < 0 || pin > 7)
        return -1;
    uint8_t m = (uint8_t)(1u << pin);
    fd_state *st = &c->st;
    st->pull_up[i] = (uint8_t)(pull > 0 ? st->pull_up[i] | m : st->pull_up[i] & ~m);
    st->pull_down[i] = (uint8_t)(pull < 0 ? st->pull_down[i] | m : st->pull_down[i] & ~m);
    int was_asleep = c->avr->state == cpu_Sleeping;
    fd_pins_update(c, i);
    fd_after_outside_change(c, was_asleep);
    return 0;
}

int64_t fd_port_state(fd_chip *c, char port) {
    int i = fd_port_index(c, port);
    return i < 0 ? -1 : (int64_t)c->st.pin_state[i];
}

int fd_port_regs(fd_chip *c, char port, uint8_t *ddr, uint8_t *out, uint8_t *pin) {
    int i = fd_port_index(c, port);
    if (i < 0)
        return -1;
    avr_ioport_t *p = c->port[i].io;
    *ddr = c->avr->data[p->r_ddr];
    *out = c->avr->data[p->r_port];
    *pin = c->avr->data[p->r_pin];
    return 0;
}
