/*
 * ADC: each conversion fed (a constant, Python's sources, a buffer), logged,
 * and latched.
 */
#include <math.h>

#include "_shim_private.h"

/* Provided by the cffi module: returns millivolts, or a negative number when
 * the Python callable raised (the run then stops with CALLBACK_ERROR). */
int fd_py_adc(uint64_t chip_id, int channel);
/* Provided by the cffi module: hands a buffer-fed channel its next block
 * (fd_adc_buffer); returns 0, or a negative number when the source raised. */
int fd_py_adc_block(uint64_t chip_id, int channel);

/* ---- ADC: feed and log each conversion ---------------------------------- */

static uint32_t fd_adc_vref(fd_chip *c, uint32_t *kind) {
    avr_t *avr = c->avr;
    avr_adc_t *p = c->adc;
    uint8_t refi = avr_regbit_get_array(avr, p->ref, ARRAY_SIZE(p->ref));
    uint16_t ref = p->ref_values[refi];
    switch (ref) {
    case ADC_VREF_VCC:
        *kind = FD_ADC_REF_VCC;
        return avr->vcc ? avr->vcc : 3300;
    case ADC_VREF_AVCC:
        *kind = FD_ADC_REF_VCC;
        return avr->avcc ? avr->avcc : 3300;
    case ADC_VREF_AREF:
        *kind = FD_ADC_REF_AREF;
        return avr->aref ? avr->aref : 3300;
    default:
        *kind = FD_ADC_REF_INTERNAL;
        return ref;
    }
}

/* ADC_IRQ_OUT_TRIGGER: a conversion starts. Feed the channel, then log the
 * channel, reference, millivolts and the code simavr's transfer function
 * gives (floor(mV * 1023 / Vref), clipped to 1023). */
static void fd_adc_trigger(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    union {
        avr_adc_mux_t mux;
        uint32_t v;
    } e = {.v = value};
    (void)irq;
    int ch = e.mux.src;
    c->st.adc_pending = 0;
    if (e.mux.kind != ADC_MUX_SINGLE || ch < 0 || ch >= FD_ADC_CHANNELS)
        return;
    uint32_t mv;
    if (c->st.adc_mode[ch] == ADC_PYTHON) {
        int r = fd_py_adc((uint64_t)(uintptr_t)c->handle, ch);
        if (r < 0) {
            c->stop |= FD_STOP_CALLBACK_ERROR;
            fd_end_batch(c);
            return;
        }
        mv = (uint32_t)r;
        c->st.adc_mv[ch] = mv;
    } else if (c->st.adc_mode[ch] == ADC_BUFFER) {
        fd_adc_buf *b = &c->st.adc_buf[ch];
        if (b->next >= b->n) {
            if (b->flags & FD_ADC_WRAP && b->n)
                b->next = 0;
            else if (b->flags & FD_ADC_REFILL &&
                     fd_py_adc_block((uint64_t)(uintptr_t)c->handle, ch) < 0) {
                c->stop |= FD_STOP_CALLBACK_ERROR;
                fd_end_batch(c);
                return;
            }
            if (b->next >= b->n) {
                c->stop |= FD_STOP_ADC_EMPTY;
                fd_end_batch(c);
                return;
            }
        }
        /* Python's round(): half to even, the default rounding mode */
        mv = (uint32_t)nearbyint(b->mv[b->next++]);
        c->st.adc_mv[ch] = mv;
    } else if (c->st.adc_mode[ch] == ADC_CONST) {
        mv = c->st.adc_mv[ch];
    } else {
        mv = ch < 8 ? c->adc->adc_values[ch] : 0;
    }
    avr_raise_irq(c->adc_in + ch, mv);
    uint32_t kind, vref = fd_adc_vref(c, &kind);
    uint64_t code = (uint64_t)mv * 0x3ff / vref;
    if (code > 0x3ff)
        code = 0x3ff;
    c->st.adc_next = (uint32_t)code;
    c->st.adc_pending = 1;
    fd_event_raise(c, FD_EV_ADC, (uint32_t)ch | kind << 8, mv, (uint32_t)code | vref << 16);
}

/* The ADC's vector is raised when a conversion completes (also with its
 * interrupt off; not while an enabled ADC interrupt is still pending, when
 * simavr skips the raise and the older result stays). */
static void fd_adc_done(avr_irq_t *irq, uint32_t value, void *param) {
    fd_chip *c = param;
    (void)irq;
    if (!value)
        return;
    c->st.adc_ready = c->st.adc_pending;
    c->st.adc_code = c->st.adc_next;
    c->st.adc_pending = 0;
}

/* simavr computes the result when ADCL (or ADCH) is first read after a
 * conversion, from the channel and reference selected at that moment; the
 * datasheet latches them when the conversion starts. With the fix the
 * firmware reads the code of the last completed conversion, as logged. */
static uint8_t fd_adc_read(avr_t *avr, avr_io_addr_t addr, void *param) {
    fd_chip *c = param;
    avr_adc_t *p = c->adc;
    int hi = addr == p->r_adch;
    uint8_t was = p->read_status;
    uint8_t v = c->adc_read[hi](avr, addr, c->adc_read_param[hi]);
    if (was == 0 && p->read_status != 0 && c->st.adc_ready && (c->fixes & FD_FIX_ADC)) {
        uint32_t reg = c->st.adc_code << (avr_regbit_get(avr, p->adlar) ? 6 : 0);
        avr->data[p->r_adcl] = (uint8_t)reg;
        avr->data[p->r_adch] = (uint8_t)(reg >> 8);
        v = avr->data[addr];
    }
    return v;
}

void fd_adc_attach(fd_chip *c) {
    avr_t *avr = c->avr;
    avr_irq_t *trig = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_OUT_TRIGGER);
    if (!trig)
        return;
    for (avr_io_t *io = avr->io_port; io; io = io->next)
        if (io->kind && strcmp(io->kind, "adc") == 0)
            c->adc = (avr_adc_t *)io;
    if (!c->adc)
        return;
    c->adc_in = avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0);
    avr_irq_register_notify(trig, fd_adc_trigger, c);
    avr_irq_register_notify(c->adc->adc.irq + AVR_INT_IRQ_PENDING, fd_adc_done, c);
    uint8_t regs[2] = {c->adc->r_adcl, c->adc->r_adch};
    for (int i = 0; i < 2; i++) {
        int a = AVR_DATA_TO_IO(regs[i]);
        c->adc_read[i] = avr->io[a].r.c;
        c->adc_read_param[i] = avr->io[a].r.param;
        if (c->adc_read[i]) {
            avr->io[a].r.c = fd_adc_read;
            avr->io[a].r.param = c;
        }
    }
}

int fd_adc_constant(fd_chip *c, int channel, uint32_t millivolts) {
    if (!c->adc_in || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    c->st.adc_mode[channel] = ADC_CONST;
    c->st.adc_mv[channel] = millivolts;
    avr_raise_irq(c->adc_in + channel, millivolts);
    return 0;
}

int fd_adc_callback(fd_chip *c, int channel) {
    if (!c->adc_in || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    c->st.adc_mode[channel] = ADC_PYTHON;
    return 0;
}

int fd_adc_buffer(fd_chip *c, int channel, const double *mv, uint32_t n, uint32_t flags) {
    if (!c->adc_in || channel < 0 || channel >= FD_ADC_CHANNELS)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!(mv[i] >= 0 && mv[i] <= 65535)) /* NaN fails too */
            return -2;
    c->st.adc_mode[channel] = ADC_BUFFER;
    c->st.adc_buf[channel] = (fd_adc_buf){.mv = n ? mv : NULL, .n = n, .flags = flags};
    return 0;
}

uint32_t fd_adc_buffered(fd_chip *c, int channel) {
    if (channel < 0 || channel >= FD_ADC_CHANNELS || c->st.adc_mode[channel] != ADC_BUFFER)
        return 0;
    fd_adc_buf *b = &c->st.adc_buf[channel];
    return b->n - b->next;
}

/* simavr 1.6 models the analog comparator (avr_acomp) but feeds nothing to
 * its inputs, so ACO always reads 0: these are its inputs, in millivolts
 * (0 AIN0, 1 AIN1, 2 + n the ADC mux's channel n). */
int fd_acomp_input(fd_chip *c, int input, uint32_t millivolts) {
    avr_irq_t *in = avr_io_getirq(c->avr, AVR_IOCTL_ACOMP_GETIRQ, ACOMP_IRQ_AIN0);
    if (!in || input < 0 || input > ACOMP_IRQ_ADC15 || millivolts > 0xFFFF)
        return -1;
    avr_raise_irq(in + input, millivolts);
    return 0;
}
