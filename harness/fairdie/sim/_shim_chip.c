/*
 * A chip's life: made, started, described and freed; raw memory access.
 */
#include "_shim_private.h"

fd_chip *fd_new(const char *mcu, void *handle, uint32_t fixes, uint64_t seed) {
    avr_global_logger_set(fd_logger);
    avr_t *avr = avr_make_mcu_by_name(mcu);
    if (!avr)
        return NULL;
    fd_chip *c = calloc(1, sizeof(*c));
    if (!c) {
        free(avr);
        return NULL;
    }
    c->trace = calloc(FD_TRACE_CAP, sizeof(fd_event));
    c->led_hist = calloc(FD_LED_HISTORY, sizeof(fd_led_entry));
    c->log = calloc(FD_LOG_CAP, 1);
    c->avr = avr;
    c->handle = handle;
    c->fixes = fixes;
    c->st.rng = seed;
    c->st.led_first = -1;
    c->trace_mask = FD_EV_TRACEABLE;
    c->log_level = LOG_WARNING;
    c->poll_skip = 1;
    c->batch = 1;
    c->ee_erase_write_us = 3400;
    c->ee_single_us = 1800;
    c->block_size = malloc_usable_size(avr);
    /* The ATtiny13 core declares no ioend, so avr_reset would clear no I/O
     * register while it wipes the cycle timers. 0x5F is the end of the
     * 64-register I/O space every such classic core has. */
    c->sram_start = avr->ioend ? (uint32_t)avr->ioend + 1 : 0x60;
    if (avr->ioend == 0 && (fixes & FD_FIX_IOEND))
        avr->ioend = 0x5F;
    avr->custom.data = c; /* for the logger and fd_sleep_hook; simavr reads it only for
                             custom.init, which is NULL */
    return c;
}

static void fd_guard_memory(fd_chip *c) {
    avr_t *avr = c->avr;
    size_t used = (size_t)avr->ramend + 1;
    c->data_snap = used;
    if (!(c->fixes & FD_FIX_MEMORY))
        return;
    uint8_t *d = realloc(avr->data, FD_GUARD_SPAN);
    if (!d)
        return;
    memset(d + used, 0, FD_GUARD_SPAN - used);
    avr->data = d;
    /* what a stray write can reach without crashing the core: 32 + MAX_IOs */
    c->data_snap = used > 32 + MAX_IOs ? used : 32 + MAX_IOs;
    size_t flash = (size_t)avr->flashend + 1;
    if (flash < FD_GUARD_SPAN) {
        uint8_t *f = realloc(avr->flash, FD_GUARD_SPAN + 4);
        if (!f)
            return;
        memset(f + flash + 2, 0xFF, FD_GUARD_SPAN + 2 - flash);
        avr->flash = f;
    }
}

int fd_start(fd_chip *c, uint32_t frequency, uint32_t vcc_mv) {
    avr_t *avr = c->avr;
    if (avr_init(avr) != 0)
        return -1;
    avr->log = (uint8_t)c->log_level;
    avr->frequency = frequency;
    avr->vcc = avr->avcc = avr->aref = vcc_mv;
    c->plain_run = avr->run;
    c->orig_sleep = avr->sleep; /* simavr's, which sleeps the host: kept without the fix */
    avr->sleep = fd_sleep_hook;
    fd_guard_memory(c);
    fd_find_ports(c);
    /* our own pseudo peripheral goes last, so its reset runs after all others */
    c->io.kind = "fairdie";
    c->io.avr = avr;
    c->io.reset = fd_after_reset;
    c->io.next = NULL;
    avr_io_t **tail = &avr->io_port;
    while (*tail)
        tail = &(*tail)->next;
    *tail = &c->io;

    for (avr_io_t *io = avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "eeprom") == 0)
            c->ee = (avr_eeprom_t *)io;
        else if (io->kind && strcmp(io->kind, "flash") == 0)
            c->snap_flash = 1;
        else if (io->kind && strcmp(io->kind, "watchdog") == 0) {
            c->wdt = (avr_watchdog_t *)io;
            c->wdrf_reg = c->wdt->wdrf.reg;
        }
    fd_ee_attach(c);
    fd_irq_attach(c);
    fd_adc_attach(c);
    fd_sleep_attach(c);
    if (c->fixes & FD_FIX_COMPARE)
        for (int k = 0; k < c->ncmp; k++)
            fd_compare_attach(c, &c->cmp[k]);
    if (c->pud.reg)
        fd_watch_register(c, (uint16_t)c->pud.reg);
    if (c->ee && (c->fixes & FD_FIX_EEPROM)) /* EEPE: cleared by fd_ee_done */
        fd_poll_register(c, c->ee->r_eecr);
    if (c->adc) /* ADSC: cleared by the ADC's conversion timer */
        fd_poll_register(c, c->adc->r_adcsra);
    avr->state = cpu_Stopped;
    for (int i = 0; i < c->nports; i++)
        c->st.pin_state[i] = fd_resolve(c, i);
    return 0;
}

void fd_free(fd_chip *c) {
    if (!c)
        return;
    /* unlink our pseudo peripheral before simavr walks the list */
    avr_io_t **p = &c->avr->io_port;
    while (*p && *p != &c->io)
        p = &(*p)->next;
    if (*p)
        *p = c->io.next;
    fd_cov_off(c);
    if (c->avr->data) /* a started chip; one that never was has no peripherals */
        avr_terminate(c->avr);
    free(c->avr);
    free(c->trace);
    free(c->led_hist);
    free(c->log);
    free(c);
}

void fd_get_info(fd_chip *c, fd_info *info) {
    avr_t *avr = c->avr;
    memset(info, 0, sizeof(*info));
    info->flash_size = avr->flashend + 1;
    info->ramend = avr->ramend;
    info->ioend = avr->ioend;
    info->sram_start = c->sram_start;
    info->eeprom_size = c->ee ? c->ee->size : 0;
    info->frequency = avr->frequency;
    info->snapshot_size = fd_snapshot_size(c);
    info->self_programming = (uint32_t)c->snap_flash;
    for (int i = 0; i < c->nports && i < 11; i++)
        info->ports[i] = c->port[i].name;
}

int fd_load_flash(fd_chip *c, const uint8_t *code, uint32_t size, uint32_t address) {
    if ((uint64_t)address + size > (uint64_t)c->avr->flashend + 1)
        return -1;
    memcpy(c->avr->flash + address, code, size);
    fd_cov_decode(c);
    return 0;
}

/* ---- memory ---------------------------------------------------------------- */

int fd_data_read(fd_chip *c, uint32_t address, uint8_t *out, uint32_t size) {
    if ((uint64_t)address + size > (uint64_t)c->avr->ramend + 1)
        return -1;
    memcpy(out, c->avr->data + address, size);
    return 0;
}

int fd_data_write(fd_chip *c, uint32_t address, const uint8_t *in, uint32_t size) {
    if ((uint64_t)address + size > (uint64_t)c->avr->ramend + 1)
        return -1;
    memcpy(c->avr->data + address, in, size);
    fd_pins_update_all(c);
    return 0;
}

/* A read as the CPU would make it: through the peripheral's handler (a
 * running timer's TCNTn, PINx, SREG). Returns the byte or -1. */
int fd_io_read(fd_chip *c, uint32_t address) {
    avr_t *avr = c->avr;
    if (address < 0x20 || address > avr->ioend)
        return -1;
    if (address == R_SREG) {
        uint8_t s = 0;
        for (int i = 0; i < 8; i++)
            if (avr->sreg[i])
                s |= (uint8_t)(1u << i);
        return s;
    }
    int a = AVR_DATA_TO_IO(address);
    if (avr->io[a].r.c)
        avr->data[address] = avr->io[a].r.c(avr, (avr_io_addr_t)address, avr->io[a].r.param);
    return avr->data[address];
}

/* A write as the CPU would make it: through the peripheral's handler. */
int fd_io_write(fd_chip *c, uint32_t address, uint8_t value) {
    avr_t *avr = c->avr;
    if (address < 0x20 || address > avr->ioend)
        return -1;
    int a = AVR_DATA_TO_IO(address);
    if (avr->io[a].w.c)
        avr->io[a].w.c(avr, (avr_io_addr_t)address, value, avr->io[a].w.param);
    else
        avr->data[address] = value;
    return 0;
}
