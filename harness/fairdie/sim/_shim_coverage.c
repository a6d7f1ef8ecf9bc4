/*
 * Coverage: which flash words ran, and which way each conditional branch and
 * skip went.
 *
 * Off, nothing of this runs: avr->run is simavr's own. On, avr->run is
 * fd_cov_run, which does what simavr 1.6's avr_callback_run_raw does (the
 * instructions, the cycle timers, a sleep, the interrupts) and records each
 * instruction right after avr_run_one returns, before the interrupts, so an
 * interrupt entered right after a branch does not hide where the branch
 * went. simavr's avr_run_one runs on to the next instruction by itself while
 * its run_cycle_count allows (fd_run's batches), which nothing outside can
 * watch: fd_cov_batch makes it run one at a time and applies simavr's rule
 * for going on itself, so a chip batches alike with coverage on or off.
 * Every path that executes instructions goes through avr->run: fd_run with
 * its stops and debug checks, fd_power_cycle, fd_run_raw and fd_step; a
 * polling loop's skipped passes are counted as if they had run
 * (fd_cov_poll).
 *
 * Counts are not chip state: no snapshot holds them and a restore leaves
 * them as they are. They count the instructions this chip's CPU executed over
 * its life, so work a restore undoes still counts once, and a path run again
 * after a restore counts again.
 */
#include "_shim_private.h"

#include <simavr/sim_core.h>

/* A word's class, decoded once: plain, a skip (CPSE, SBRC, SBRS, SBIC, SBIS:
 * taken when the next instruction is skipped), or a branch (BRBS, BRBC:
 * FD_COV_BRANCH + s + 8 when it branches on the SREG bit s being set).
 * A branch is decided from SREG before it runs: `brne .+0` goes to the same
 * PC either way. Decoded when coverage is turned on and whenever flash is
 * loaded (fd_load_flash, a debugger's write); a firmware that rewrites its
 * own flash with SPM is classified as it was loaded. */
enum { FD_COV_PLAIN = 0, FD_COV_SKIP = 1, FD_COV_BRANCH = 16 };

static uint8_t fd_cov_class(uint16_t op) {
    if ((op & 0xF800) == 0xF000) /* BRBS 1111 00kk kkkk ksss, BRBC 1111 01.. */
        return (uint8_t)(FD_COV_BRANCH + (op & 7) + ((op & 0x0400) ? 0 : 8));
    if ((op & 0xFC00) == 0xFC00 || /* SBRC, SBRS: 1111 11sr rrrr xbbb as simavr decodes */
        (op & 0xFC00) == 0x1000 || /* CPSE */
        (op & 0xFD00) == 0x9900)   /* SBIC 1001 1001, SBIS 1001 1011 */
        return FD_COV_SKIP;
    return FD_COV_PLAIN;
}

void fd_cov_decode(fd_chip *c) {
    fd_cov *v = c->cov;
    const uint8_t *f = c->avr->flash;
    for (uint32_t w = 0; v && w < v->nwords; w++)
        v->cls[w] = fd_cov_class((uint16_t)(f[2 * w] | (f[2 * w + 1] << 8)));
}

/* A cycle timer never registered: cancelling it makes simavr compute its
 * run_cycle_count afresh. */
static avr_cycle_count_t fd_cov_never(avr_t *avr, avr_cycle_count_t when, void *param) {
    (void)avr;
    (void)param;
    return when;
}

/* What avr_run_one does, one recorded instruction at a time. simavr goes on
 * to the next instruction, inside avr_run_one, while the CPU runs, no
 * interrupt is pending and run_cycle_count exceeds the instruction's cycles,
 * taking them off the count; a cycle timer registered or cancelled during
 * the instruction sets the count afresh, min(run_cycle_limit, cycles to the
 * next timer, at least 1), and fd_end_batch lowers the limit to 1. Here
 * avr_run_one runs with a limit of 1 and a count of 0, so it stops after one
 * instruction even when a timer set during it would have let it go on; the
 * same rule then decides, with the count simavr would have had (computed
 * afresh by simavr itself, at the cycle the instruction started, when a
 * timer came or went). Returns the next PC, as avr_run_one does. */
static avr_flashaddr_t fd_cov_batch(fd_chip *c, avr_t *avr) {
    fd_cov *v = c->cov;
    for (;;) {
        avr_flashaddr_t at = avr->pc;
        if (at >= avr->flashend) /* simavr crashes the core: nothing runs */
            return avr_run_one(avr);
        uint32_t w = at >> 1;
        uint8_t k = v->cls[w];
        int taken = k >= FD_COV_BRANCH && !avr->sreg[k & 7] == !(k & 8);
        avr_cycle_count_t limit = avr->run_cycle_limit, count = avr->run_cycle_count;
        avr_cycle_count_t start = avr->cycle;
        avr->run_cycle_limit = 1;
        avr->run_cycle_count = 0;
        c->batch_ended = 0;
        avr_flashaddr_t new_pc = avr_run_one(avr);
        v->hits[w]++;
        if (k) {
            if (k == FD_COV_SKIP)
                taken = new_pc != at + 2;
            (taken ? v->taken : v->fell)[w]++;
        }
        if (limit <= 1 || c->batch_ended) /* not batching, or the batch ended */
            return new_pc;
        avr->run_cycle_limit = limit;
        if (avr->run_cycle_count) { /* a timer came or went */
            avr_cycle_count_t now = avr->cycle;
            avr->cycle = start;
            avr_cycle_timer_cancel(avr, fd_cov_never, c);
            avr->cycle = now;
            count = avr->run_cycle_count;
        }
        avr_cycle_count_t spent = avr->cycle - start; /* what moved it more ended the batch */
        if (avr->state != cpu_Running || count <= spent || avr->interrupt_state) {
            avr->run_cycle_count = count;
            return new_pc;
        }
        avr->run_cycle_count = count - spent;
        avr->pc = new_pc;
    }
}

static void fd_cov_run(avr_t *avr) {
    fd_chip *c = avr->custom.data;
    avr_flashaddr_t new_pc = avr->pc;
    if (avr->state == cpu_Running)
        new_pc = fd_cov_batch(c, avr);
    avr_cycle_count_t sleep = avr_cycle_timer_process(avr);
    avr->pc = new_pc;
    if (avr->state == cpu_Sleeping) {
        if (!avr->sreg[S_I]) {
            AVR_LOG(avr, LOG_TRACE, "simavr: sleeping with interrupts off, quitting gracefully\n");
            avr->state = cpu_Done;
            return;
        }
        avr->sleep(avr, sleep);
        avr->cycle += 1 + sleep;
    }
    if ((avr->state == cpu_Running || avr->state == cpu_Sleeping) && avr->interrupt_state)
        avr_service_interrupts(avr);
}

/* The run callback a chip uses: after a restore, whatever the snapshot held. */
void fd_cov_set_run(fd_chip *c) { c->avr->run = c->cov ? fd_cov_run : c->plain_run; }

/* `passes` passes of a polling loop (the skip at pc falling through, the
 * rjmp back) that fd_poll_check skipped. */
void fd_cov_poll(fd_chip *c, uint32_t pc, uint64_t passes) {
    fd_cov *v = c->cov;
    if (!v || pc + 2 >= 2 * v->nwords)
        return;
    v->hits[pc >> 1] += passes;
    v->fell[pc >> 1] += passes;
    v->hits[(pc >> 1) + 1] += passes;
}

int fd_cov_on(fd_chip *c) {
    if (c->cov)
        return 0;
    if (!c->avr->flash || !c->plain_run) /* not started */
        return -1;
    uint32_t n = (c->avr->flashend + 1) / 2;
    fd_cov *v = calloc(1, sizeof *v);
    if (!v)
        return -1;
    v->nwords = n;
    v->cls = calloc(n, 1);
    v->hits = calloc(n, sizeof(uint64_t));
    v->taken = calloc(n, sizeof(uint64_t));
    v->fell = calloc(n, sizeof(uint64_t));
    if (!v->cls || !v->hits || !v->taken || !v->fell) {
        c->cov = v;
        fd_cov_off(c);
        return -1;
    }
    c->cov = v;
    fd_cov_decode(c);
    fd_cov_set_run(c);
    return 0;
}

void fd_cov_off(fd_chip *c) {
    fd_cov *v = c->cov;
    if (!v)
        return;
    c->cov = NULL;
    if (c->avr->run == fd_cov_run)
        fd_cov_set_run(c);
    free(v->cls);
    free(v->hits);
    free(v->taken);
    free(v->fell);
    free(v);
}

int fd_cov_active(fd_chip *c) { return c->cov != NULL; }

uint32_t fd_cov_read(fd_chip *c, uint32_t *address, uint64_t *hits, uint64_t *taken, uint64_t *fell,
                     uint8_t *branch, uint32_t cap) {
    fd_cov *v = c->cov;
    uint32_t n = 0;
    for (uint32_t w = 0; v && w < v->nwords; w++) {
        if (!v->hits[w])
            continue;
        if (n < cap) {
            address[n] = 2 * w;
            hits[n] = v->hits[w];
            taken[n] = v->taken[w];
            fell[n] = v->fell[w];
            branch[n] = v->cls[w] != FD_COV_PLAIN;
        }
        n++;
    }
    return n;
}
