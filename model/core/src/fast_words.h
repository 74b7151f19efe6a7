/* fast_words.h - input records as words (internal; the speed engine's): the
 * repeat path and the plain-cycle path read a whole etm_in_t per cycle, as
 * 16-byte words where the compiler has vector types (SSE2 on x86-64, NEON on
 * AArch64, or its own lowering), else as 8-byte words. etm_in_t holds a
 * uint64_t, so its size is a whole number of 8-byte words: REC_N words of
 * REC_WORD_BYTES, then one 8-byte word when REC_REST. */
#ifndef ETM_FAST_WORDS_H
#define ETM_FAST_WORDS_H

#include <stdint.h>
#include <string.h>

#include "etm/signals.h"

#if defined(__GNUC__)
typedef uint64_t rec_word_t __attribute__((vector_size(16)));
#define REC_WORD_BYTES 16
static inline uint64_t rec_any(rec_word_t w) { return w[0] | w[1]; }
#else
typedef uint64_t rec_word_t;
#define REC_WORD_BYTES 8
static inline uint64_t rec_any(rec_word_t w) { return w; }
#endif
#define REC_N (sizeof(etm_in_t) / REC_WORD_BYTES) /* whole rec_word_t in a record */
/* Their loops are unrolled: a record is a few words. */
#if defined(__GNUC__)
#define REC_UNROLL _Pragma("GCC unroll 8")
#else
#define REC_UNROLL
#endif
#define REC_REST (sizeof(etm_in_t) % REC_WORD_BYTES != 0) /* and an 8-byte word after them */

static inline rec_word_t rec_load(const unsigned char *p)
{
    rec_word_t w;
    memcpy(&w, p, sizeof w);
    return w;
}
static inline uint64_t rec_load_tail(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p + REC_N * REC_WORD_BYTES, 8);
    return w;
}

/* The same inputs, byte for byte (padding included: a difference there only
 * costs a repeat). Inline: a call to memcmp costs as much as the rest of a
 * repeated cycle. */
static inline int rec_same(const etm_in_t *a, const etm_in_t *b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    rec_word_t d = rec_load(x) ^ rec_load(y);
    REC_UNROLL
    for (size_t i = 1; i < REC_N; i++)
        d |= rec_load(x + i * REC_WORD_BYTES) ^ rec_load(y + i * REC_WORD_BYTES);
    uint64_t t = REC_REST ? rec_load_tail(x) ^ rec_load_tail(y) : 0;
    return (rec_any(d) | t) == 0;
}

/* Are the bytes of in those kept (the last quiet cycle's inputs)? They are
 * kept for the next cycle, in the same pass. */
static inline int rec_keep(etm_in_t *kept, const etm_in_t *in)
{
    const unsigned char *x = (const unsigned char *)in;
    unsigned char *y = (unsigned char *)kept;
    rec_word_t d = rec_load(x) ^ rec_load(y);
    memcpy(y, x, REC_WORD_BYTES);
    REC_UNROLL
    for (size_t i = 1; i < REC_N; i++) {
        rec_word_t u = rec_load(x + i * REC_WORD_BYTES);
        d |= u ^ rec_load(y + i * REC_WORD_BYTES);
        memcpy(y + i * REC_WORD_BYTES, &u, sizeof u);
    }
    uint64_t t = 0;
    if (REC_REST) {
        uint64_t u = rec_load_tail(x);
        t = u ^ rec_load_tail(y);
        memcpy(y + REC_N * REC_WORD_BYTES, &u, 8);
    }
    return (rec_any(d) | t) == 0;
}

/* Does in have none of the bits set in mask (a byte image of etm_in_t)? */
static inline int rec_none_of(const etm_in_t *in, const uint64_t *mask)
{
    const unsigned char *f = (const unsigned char *)mask;
    const unsigned char *x = (const unsigned char *)in;
    rec_word_t hit = rec_load(x) & rec_load(f);
    REC_UNROLL
    for (size_t i = 1; i < REC_N; i++)
        hit |= rec_load(x + i * REC_WORD_BYTES) & rec_load(f + i * REC_WORD_BYTES);
    uint64_t t = REC_REST ? rec_load_tail(x) & rec_load_tail(f) : 0;
    return (rec_any(hit) | t) == 0;
}

#endif
