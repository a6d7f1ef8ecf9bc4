/*
 * The C boundary of fairdie.sim._kernels: the seeded noise models of
 * fairdie.noise, a block of values at a time, with no chip and no simavr
 * (only libm), so the models work where the simavr binding is not built.
 *
 * Like _api.h this file is the cffi cdef exactly as it stands: typedefs and
 * prototypes only.
 *
 * A stream is one channel's position in a press: its splitmix64 state, the
 * value the model carries (Floating's centre) and the values drawn so far.
 * Each kernel writes the next n values (millivolts) to out and advances the
 * stream. Every value is what the model's definition in Python arithmetic
 * gives, bit for bit: IEEE double operations in the same order, libm's log,
 * cos and sin (the functions Python's math module calls), no fused
 * multiply-add (built with -ffp-contract=off).
 */

typedef struct fd_noise_stream {
    uint64_t rng;
    double value;
    uint64_t count;
} fd_noise_stream;

/* splitmix64's next output, its top 53 bits; and (bits | 1) / 2**53, a
 * uniform double in (0, 1). */
uint64_t fd_noise_bits53(fd_noise_stream *s);
double fd_noise_random(fd_noise_stream *s);

/* Floating: the centre (value) walks back towards target (an
 * Ornstein-Uhlenbeck step: pull, then Gaussian walk), clipped to 0..vcc;
 * each value is the centre plus Gaussian jitter, clipped to 0..vcc. */
void fd_noise_floating(fd_noise_stream *s, double target, double pull, double walk, double jitter,
                       double vcc, double *out, uint32_t n);
/* Uniform: table[bits53 >> 43] (a table of 1024 millivolts). */
void fd_noise_uniform(fd_noise_stream *s, const double *table, double *out, uint32_t n);
/* Biased: table[min(bisect_right(cumulative, random() * cumulative[len-1]), last)]. */
void fd_noise_biased(fd_noise_stream *s, const double *cumulative, uint32_t len, uint32_t last,
                     const double *table, double *out, uint32_t n);
/* Weak: hi when random() < upper, else lo. */
void fd_noise_weak(fd_noise_stream *s, double upper, double lo, double hi, double *out, uint32_t n);
/* Hum: 0.5 vcc + amplitude * sin(2 pi hz t) plus Gaussian jitter, clipped to
 * 0..vcc, at t = start_s + since[i] (seconds since power-on, from a clock),
 * or with since NULL at t = start_s + count * period_s. */
void fd_noise_hum(fd_noise_stream *s, double start_s, const double *since, double period_s,
                  double hz, double amplitude, double jitter, double vcc, double *out, uint32_t n);
