/*
 * models.h: the die's reference models for the host (see models.c).
 */
#ifndef DIE_HOST_MODELS_H
#define DIE_HOST_MODELS_H

#include <stdint.h>

#define FM_FAIR 0 /* the models, by kind */
#define FM_SEED 1
#define FM_MOST_READS 256 /* the most conversions a press makes */
#define FM_FIXED 6        /* the adversary's fixed menu items */
#define FM_MAX_TRIES 64   /* and the most seeded ones it tries */

int32_t fm_digest(int kind, const uint16_t *codes, int n, int *reads);
int fm_apply(int kind, uint8_t *image, int32_t digest);
void fm_chain(int kind, uint8_t *image, const int32_t *digests, int presses, int8_t *faces);
void fm_table(int kind, const uint8_t *image, uint8_t table[6]);
void fm_menu_digests(int kind, const uint32_t *key, int keylen, int n, int tries, int32_t *digests);
void fm_adversary_chain(int kind, uint8_t *image, const int32_t *digests, int items, int presses,
                        int8_t *faces);
int fm_adversary(int kind, const uint8_t *image, const uint32_t *key, int keylen, int n, int tries,
                 uint16_t *chosen);

#endif /* DIE_HOST_MODELS_H */
