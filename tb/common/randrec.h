/* randrec.h - random input and output records for format round trips: every
 * field gets random bits within its signal's mask (not legal traffic: the
 * formats must carry any value). */
#ifndef ETM_TB_RANDREC_H
#define ETM_TB_RANDREC_H

#include "etm/signals.h"
#include "test.h"

static inline void rand_in(test_rng_t *r, etm_in_t *in)
{
    memset(in, 0, sizeof *in);
    for (size_t i = 0; i < etm_in_signal_count; i++) {
        const etm_signal_t *s = &etm_in_signals[i];
        uint64_t v = test_rand(r);
        if (test_rand(r) & 1)
            v &= 0xff; /* small values and long runs of zero bits too */
        etm_signal_set(s, in, v & etm_signal_mask(s));
    }
}

static inline void rand_out(test_rng_t *r, etm_out_t *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        const etm_signal_t *s = &etm_out_signals[i];
        if (s->kind == ETM_SIG_BYTES) {
            o->v3_count = (uint8_t)(test_rand(r) % (ETM_MAX_PORT_BYTES + 1));
            for (unsigned b = 0; b < o->v3_count; b++)
                o->v3_bytes[b] = (uint8_t)test_rand(r);
            continue;
        }
        etm_signal_set(s, o, test_rand(r) & etm_signal_mask(s));
    }
}

#endif
