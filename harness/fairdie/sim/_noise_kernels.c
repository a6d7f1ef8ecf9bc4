/*
 * Noise kernels (_noise_api.h): the seeded models of fairdie.noise
 * (_models.py, _seeded.py). Each line follows the model's definition in
 * Python arithmetic, operation for operation: tests/unit/test_noise_kernels.py
 * checks them bit for bit against a pure Python reference.
 */
#include <math.h>
#include <stdint.h>

#include "_noise_api.h"

#define FD_TAU 6.283185307179586 /* math.tau */

/* The kernels' own copies, inlined in their loops (the exported functions
 * below are called through the symbol table). */
static inline uint64_t fd_bits53(fd_noise_stream *s) {
    uint64_t z = s->rng += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return (z ^ (z >> 31)) >> 11;
}

static inline double fd_random(fd_noise_stream *s) {
    return (double)(fd_bits53(s) | 1) / 9007199254740992.0;
}

uint64_t fd_noise_bits53(fd_noise_stream *s) { return fd_bits53(s); }

double fd_noise_random(fd_noise_stream *s) { return fd_random(s); }

/* Box-Muller, one of the pair: mu + sigma * sqrt(-2 log u1) * cos(2 pi u2). */
static inline double fd_gauss(fd_noise_stream *s, double mu, double sigma) {
    double r = sqrt(-2.0 * log(fd_random(s)));
    return mu + sigma * r * cos(FD_TAU * fd_random(s));
}

/* min(max(mv, 0.0), vcc), as Python's min and max pick (the first of equals). */
static inline double fd_clip(double mv, double vcc) {
    double x = 0.0 > mv ? 0.0 : mv;
    return vcc < x ? vcc : x;
}

void fd_noise_floating(fd_noise_stream *s, double target, double pull, double walk, double jitter,
                       double vcc, double *out, uint32_t n) {
    double centre = s->value;
    for (uint32_t i = 0; i < n; i++) {
        double step = centre + pull * (target - centre);
        centre = fd_clip(step + fd_gauss(s, 0.0, walk), vcc);
        out[i] = fd_clip(centre + fd_gauss(s, 0.0, jitter), vcc);
    }
    s->value = centre;
    s->count += n;
}

void fd_noise_uniform(fd_noise_stream *s, const double *table, double *out, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        out[i] = table[fd_bits53(s) >> 43];
    s->count += n;
}

void fd_noise_biased(fd_noise_stream *s, const double *cumulative, uint32_t len, uint32_t last,
                     const double *table, double *out, uint32_t n) {
    double total = cumulative[len - 1];
    for (uint32_t i = 0; i < n; i++) {
        double x = fd_random(s) * total;
        uint32_t lo = 0, hi = len; /* bisect_right: the first sum above x */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (x < cumulative[mid])
                hi = mid;
            else
                lo = mid + 1;
        }
        out[i] = table[lo < last ? lo : last];
    }
    s->count += n;
}

void fd_noise_weak(fd_noise_stream *s, double upper, double lo, double hi, double *out,
                   uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        out[i] = fd_random(s) < upper ? hi : lo;
    s->count += n;
}

void fd_noise_hum(fd_noise_stream *s, double start_s, const double *since, double period_s,
                  double hz, double amplitude, double jitter, double vcc, double *out, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        double t = start_s + (since ? since[i] : (double)s->count * period_s);
        s->count++;
        double mv = 0.5 * vcc + amplitude * sin(FD_TAU * hz * t);
        out[i] = fd_clip(mv + fd_gauss(s, 0.0, jitter), vcc);
    }
}
