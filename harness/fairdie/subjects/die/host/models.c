/*
 * models.c: the die's reference models for the host, for campaigns.
 *
 * The fair rule (fair.S: sampling, health tests, roll) and its ring of
 * records (store.S) are AVR assembler, so they are ported here, line for
 * line from their Python models (fairdie/subjects/die/_fair.py and
 * _ring.py), which tests compare this file with. The seed's rule is the
 * firmware's own rule.c, linked in unchanged. The adversary
 * (fairdie/subjects/die/lab/_adversary.py) is here too: its seeded menus
 * come from CPython's Mersenne Twister, keyed as random.Random(str) keys it,
 * so they are byte for byte the Python menus.
 *
 * An image is the EEPROM's 64 bytes; codes are ADC codes 0..1023.
 */
#include <stdint.h>
#include <string.h>

#include "models.h"
#include "rule.h"
#include "store.h"

#define WINDOW 64
#define MOST_READS FM_MOST_READS
#define FRESH_BITS 16
#define RCT_CUTOFF 39
#define APT_CUTOFF 56
#define TAPS 0x829
#define ONES 0x555
#define SLOTS STORE_SLOTS
#define RECORD STORE_RECORD
#define KEY 0x5B
#define GATE0 0xA5
#define GATE1 0x5A
#define FRESH_SEQ ((7 << 4) | (SLOTS - 1))
#define MAX_CODE 1023
#define FIXED FM_FIXED
#define MAX_TRIES FM_MAX_TRIES

/* ---- the fair rule (fair.S) ------------------------------------------- */

/* Sampling: the conversions made (0: the codes ended first), and *noise the
 * fresh bits, or -1 when a health test failed. */
static int sample(const uint16_t *codes, int n, int32_t *noise) {
    uint32_t bits16 = 0;
    int bits = 0, run = 0, count = 0, prev = -1, first = -1;
    for (int i = 0; i < MOST_READS; i++) {
        if (i >= n) {
            return 0;
        }
        int code = codes[i] & 0x3FF;
        if ((i & 1) && ((code ^ prev) & 1)) {
            bits16 = ((bits16 << 1) | (uint32_t)(prev & 1)) & 0xFFFF;
            bits++;
        }
        run = code == prev ? run + 1 : 0;
        prev = code;
        if (run == RCT_CUTOFF - 1) {
            *noise = -1;
            return i + 1;
        }
        if (i == 0) {
            first = code;
        }
        if (i < WINDOW && code == first && ++count == APT_CUTOFF) {
            *noise = -1;
            return i + 1;
        }
        if ((i & 1) && i >= WINDOW - 1 && bits >= FRESH_BITS) {
            *noise = (int32_t)bits16;
            return i + 1;
        }
    }
    *noise = -1;
    return MOST_READS;
}

static int offset(unsigned table, int f) { return (table >> (2 * f)) & 3; }

static unsigned normalise(unsigned table) {
    for (;;) {
        for (int f = 0; f < DIE_FACES; f++) {
            if (offset(table, f) == 0) {
                return table;
            }
        }
        table -= ONES;
    }
}

static const int WEIGHTS[4] = {8, 3, 1, 0};

/* The roll: the face 1..6; state[0..2] updated. */
static int roll(uint8_t state[3], unsigned noise) {
    unsigned table = normalise(((unsigned)(state[1] & 0x0F) << 8) | state[0]);
    unsigned pool = ((unsigned)(state[1] >> 4) << 8) | state[2];
    if (pool == 0) {
        pool = 1;
    }
    int weights[DIE_FACES], total = 0, k = 1;
    for (int f = 0; f < DIE_FACES; f++) {
        weights[f] = WEIGHTS[offset(table, f)];
        total += weights[f];
    }
    while ((1 << k) < total) {
        k++;
    }
    int r;
    do {
        r = 0;
        for (int i = 0; i < k; i++) {
            int out = pool & 1;
            pool >>= 1;
            if (out) {
                pool ^= TAPS;
            }
            if (noise & 1) {
                out ^= 1;
                pool ^= 1;
                if (pool == 0) {
                    pool = 1;
                }
            }
            noise >>= 1;
            r = (r << 1) | out;
        }
    } while (r >= total);
    int face = 0;
    while (r >= weights[face]) {
        r -= weights[face];
        face++;
    }
    table = normalise(normalise(table & 0xFFF) + (1u << (2 * face)));
    state[0] = table & 0xFF;
    state[1] = (uint8_t)((table >> 8) | ((pool >> 8) << 4));
    state[2] = pool & 0xFF;
    return face + 1;
}

/* ---- the ring of records (store.S) ------------------------------------ */

static int check_byte(const uint8_t *r) { return r[0] ^ r[1] ^ r[2] ^ r[3] ^ KEY; }

static int gate(int seq) { return seq >> 7 ? GATE1 : GATE0; }

/* The newest record's seq (FRESH_SEQ: none) and its state in state[0..2]. */
static int ring_load(const uint8_t *image, uint8_t state[3]) {
    const uint8_t *best = NULL;
    for (int slot = 0; slot < SLOTS; slot++) {
        const uint8_t *r = image + slot * RECORD;
        if ((r[0] & 0x0F) != slot || r[4] != check_byte(r) || r[5] != gate(r[0])) {
            continue;
        }
        if (best != NULL) {
            int ahead = (r[0] - best[0]) & 0x7F;
            if (ahead < 1 || ahead > 15) {
                continue;
            }
        }
        best = r;
    }
    if (best == NULL) {
        memset(state, 0, 3);
        return FRESH_SEQ;
    }
    memcpy(state, best + 1, 3);
    return best[0];
}

static void ring_save(uint8_t *image, int seq, const uint8_t state[3]) {
    seq = (seq & 0x7F) + 1;
    if ((seq & 0x0F) == SLOTS) {
        seq += 16 - SLOTS;
    }
    seq &= 0x7F;
    uint8_t *r = image + (seq & 0x0F) * RECORD;
    if (r[5] != GATE1) {
        seq |= 0x80;
    }
    uint8_t rec[RECORD] = {(uint8_t)seq, state[0], state[1], state[2], 0, (uint8_t)gate(seq)};
    rec[4] = (uint8_t)check_byte(rec);
    memcpy(r, rec, RECORD);
}

/* ---- presses ------------------------------------------------------------ */

/*
 * What a press of model ``kind`` takes from ``codes[0..n-1]``, its digest:
 * for the fair rule the fresh bits (0..65535), -1 when the noise failed the
 * health tests; for the seed's rule the code. -2 when the codes end before
 * the press does. *reads: the conversions it made.
 */
int32_t fm_digest(int kind, const uint16_t *codes, int n, int *reads) {
    if (kind == FM_SEED) {
        *reads = 1;
        return n < 1 ? -2 : codes[0] & 0x3FF;
    }
    int32_t noise;
    *reads = sample(codes, n, &noise);
    return *reads == 0 ? -2 : noise;
}

/* A press with this digest from ``image`` (updated in place): the face
 * 1..6, 0 for a digest of -1 (nothing stored). */
int fm_apply(int kind, uint8_t *image, int32_t digest) {
    if (digest < 0) {
        return 0;
    }
    if (kind == FM_SEED) {
        return die_roll(image, (uint16_t)digest) + 1;
    }
    uint8_t state[3];
    int seq = ring_load(image, state);
    int face = roll(state, (unsigned)digest);
    ring_save(image, seq, state);
    return face;
}

/* ``presses`` presses in turn from ``image`` (updated), one digest each. */
void fm_chain(int kind, uint8_t *image, const int32_t *digests, int presses, int8_t *faces) {
    for (int k = 0; k < presses; k++) {
        faces[k] = (int8_t)fm_apply(kind, image, digests[k]);
    }
}

/* The six numbers the die keeps for faces 1..6. */
void fm_table(int kind, const uint8_t *image, uint8_t table[DIE_FACES]) {
    if (kind == FM_SEED) {
        memcpy(table, image, DIE_FACES);
        return;
    }
    uint8_t state[3];
    ring_load(image, state);
    unsigned packed = ((unsigned)(state[1] & 0x0F) << 8) | state[0];
    for (int f = 0; f < DIE_FACES; f++) {
        table[f] = (uint8_t)offset(packed, f);
    }
}

/* ---- CPython's Mersenne Twister (Modules/_randommodule.c) --------------- */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int i;
} mt_state;

static void mt_init(mt_state *s, uint32_t seed) {
    s->mt[0] = seed;
    for (int i = 1; i < MT_N; i++) {
        s->mt[i] = 1812433253u * (s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) + (uint32_t)i;
    }
    s->i = MT_N;
}

static void mt_init_by_array(mt_state *s, const uint32_t *key, int len) {
    mt_init(s, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > len ? MT_N : len; k; k--) {
        s->mt[i] =
            (s->mt[i] ^ ((s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            s->mt[0] = s->mt[MT_N - 1];
            i = 1;
        }
        if (j >= len) {
            j = 0;
        }
    }
    for (int k = MT_N - 1; k; k--) {
        s->mt[i] = (s->mt[i] ^ ((s->mt[i - 1] ^ (s->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            s->mt[0] = s->mt[MT_N - 1];
            i = 1;
        }
    }
    s->mt[0] = 0x80000000u;
}

static uint32_t mt_next(mt_state *s) {
    static const uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    uint32_t y;
    if (s->i >= MT_N) {
        int k;
        for (k = 0; k < MT_N - MT_M; k++) {
            y = (s->mt[k] & 0x80000000u) | (s->mt[k + 1] & 0x7fffffffu);
            s->mt[k] = s->mt[k + MT_M] ^ (y >> 1) ^ mag01[y & 1];
        }
        for (; k < MT_N - 1; k++) {
            y = (s->mt[k] & 0x80000000u) | (s->mt[k + 1] & 0x7fffffffu);
            s->mt[k] = s->mt[k + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1];
        }
        y = (s->mt[MT_N - 1] & 0x80000000u) | (s->mt[0] & 0x7fffffffu);
        s->mt[MT_N - 1] = s->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1];
        s->i = 0;
    }
    y = s->mt[s->i++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

/* ---- the adversary (lab/_adversary.py) ---------------------------------- */

/* Menu item ``m`` of ``n`` codes: the six fixed ones, then the seeded ones
 * in turn, each ``randbytes(2 * n)`` read as 16-bit words, low 10 bits. */
static void menu_item(int m, int n, mt_state *rng, uint16_t *out) {
    if (m >= FIXED) {
        /* getrandbits(16 n).to_bytes(2 n, "little"): whole 32-bit words low
         * half first; an odd last half is the top of a fresh word */
        for (int w = 0; 2 * w < n; w++) {
            uint32_t g = mt_next(rng);
            if (2 * w + 1 < n) {
                out[2 * w] = g & MAX_CODE;
                out[2 * w + 1] = (g >> 16) & MAX_CODE;
            } else {
                out[2 * w] = (g >> 16) & MAX_CODE;
            }
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        static const uint16_t rail[2] = {0, MAX_CODE};
        out[i] = m == 0 || m == 1 ? rail[m]
                 : m == 2         ? rail[i % 2]
                 : m == 3         ? rail[1 - i % 2]
                 : m == 4         ? (uint16_t)(i % 4)
                                  : (uint16_t)i;
    }
}

/* The digests of a press's menu (FIXED + tries items of n codes, the
 * random ones keyed by ``key[0..keylen-1]``, the words random.Random's
 * seeding makes of its key string). n is at most MOST_READS. */
void fm_menu_digests(int kind, const uint32_t *key, int keylen, int n, int tries,
                     int32_t *digests) {
    mt_state rng;
    mt_init_by_array(&rng, key, keylen);
    uint16_t codes[MOST_READS];
    for (int m = 0; m < FIXED + tries; m++) {
        int reads;
        menu_item(m, n, &rng, codes);
        digests[m] = fm_digest(kind, codes, n, &reads);
    }
}

/* The adversary's pick among a press's menu digests from ``image``: the
 * item whose face is the most counted in the image's table, the lowest face
 * on a tie, the first item on a tie of both; -1 when all fail. */
static int pick(int kind, const uint8_t *image, const int32_t *digests, int items) {
    uint8_t table[DIE_FACES];
    fm_table(kind, image, table);
    int best = -1, best_count = -1, best_face = 0;
    for (int m = 0; m < items; m++) {
        uint8_t after[64];
        memcpy(after, image, sizeof after);
        int face = fm_apply(kind, after, digests[m]);
        if (face <= 0) {
            continue;
        }
        int count = table[face - 1];
        if (best < 0 || count > best_count || (count == best_count && face < best_face)) {
            best = m;
            best_count = count;
            best_face = face;
        }
    }
    return best;
}

/* ``presses`` adversarial presses in turn from ``image`` (updated), press k
 * choosing among digests[k * items ..]: faces[k] (0: every item failed). */
void fm_adversary_chain(int kind, uint8_t *image, const int32_t *digests, int items, int presses,
                        int8_t *faces) {
    for (int k = 0; k < presses; k++) {
        int m = pick(kind, image, digests + (size_t)k * items, items);
        faces[k] = (int8_t)(m < 0 ? 0 : fm_apply(kind, image, digests[(size_t)k * items + m]));
    }
}

/* The adversary's codes for one press from ``image``, into chosen[0..n-1];
 * returns the item picked, -1 when every item fails the health tests. */
int fm_adversary(int kind, const uint8_t *image, const uint32_t *key, int keylen, int n, int tries,
                 uint16_t *chosen) {
    int32_t digests[FIXED + MAX_TRIES];
    if (tries > MAX_TRIES) {
        return -2;
    }
    fm_menu_digests(kind, key, keylen, n, tries, digests);
    int m = pick(kind, image, digests, FIXED + tries);
    if (m < 0) {
        return -1;
    }
    mt_state rng;
    mt_init_by_array(&rng, key, keylen);
    for (int i = FIXED; i <= m; i++) {
        menu_item(i, n, &rng, chosen); /* the seeded items before m, to reach m's words */
    }
    if (m < FIXED) {
        menu_item(m, n, &rng, chosen);
    }
    return m;
}
