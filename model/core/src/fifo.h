/* fifo.h - stage `fifo` (fifo.c): the trace FIFO and the ATB master */
#ifndef ETM_FIFO_H
#define ETM_FIFO_H

#include <string.h>

#include "mode.h"

#define ETM_FIFO_MAX 65536

typedef struct fifo_state {
    uint32_t rd_q, level_q;
    uint32_t nflags_q;            /* bytes with their flag set (ETMv1: branch address starts) */
    uint8_t held_q;               /* ATB: bytes of the word on ATDATA that ATREADY has not
                                     taken yet (0: no word waits); they stay at the head */
    uint8_t held_id_q;            /*   and the ATID it was first shown with */
    uint8_t flush_q;              /* ATB flush under way: AFVALID seen, AFREADY not yet given */
    uint32_t flush_rem_q;         /*   bytes of the FIFO still to leave before AFREADY */
    uint32_t srd_q, slevel_q;     /* ETMv3 staging buffer: bytes made but not yet in the store */
    uint8_t stage_full;           /* the last write refused was refused by ETM_STAGE_BYTES alone */
    uint8_t part_q;               /* records: the store ends inside a packet (its rest is staged) */
    uint8_t wrote_q;              /* records: bytes entered the store in the last cycle */
    uint8_t stage[ETM_STAGE_BYTES];
    uint8_t stage_end[ETM_STAGE_BYTES]; /* records: the staged byte is the last of its packet */
    uint8_t mem[ETM_FIFO_MAX];
    uint8_t flag[ETM_FIFO_MAX / 8];
} fifo_state_t;

void etm_fifo_reset(fifo_state_t *f);
/* Bytes the FIFO holds: its store and (ETMv3) its staging buffer. */
static inline unsigned etm_fifo_held(const fifo_state_t *f) { return f->level_q + f->slevel_q; }
/* The bytes FIFOLEVEL, FIFOFULL and the flush count: with records
 * (PKT_QUEUE) those of the store alone, since the generator writes a phase
 * packet by packet (docs/etmv3-encoder.md, "Records"); otherwise every byte held. */
static inline unsigned etm_fifo_counted(const fifo_state_t *f, const etm_mode_t *m)
{
    return m->pkt_queue ? f->level_q : etm_fifo_held(f);
}
/* ETMv3: the n bytes at b into the staging buffer if they all fit (in
 * FIFO_DEPTH with everything held, and in ETM_STAGE_BYTES with what is staged);
 * then up to m->fifo_write staged bytes, oldest first, into the store. Returns
 * 1 when they fitted (or n is 0). */
int etm_fifo_stage(fifo_state_t *f, const etm_mode_t *m, const uint8_t *b, unsigned n);
/* Every staged byte into the store at once (an external port's end of trace). */
void etm_fifo_settle(fifo_state_t *f);
/* ETMv1: push n bytes with their flags (flags may be NULL: none) if they fit in depth. */
int etm_fifo_push(fifo_state_t *f, unsigned depth, const uint8_t *b, const uint8_t *flags, unsigned n);
/* Take up to max bytes from the store's head into out; returns how many. */
unsigned etm_fifo_take(fifo_state_t *f, uint8_t *out, unsigned max);
/* Byte i from the head and its flag; 0 when there is no such byte. */
int etm_fifo_peek(const fifo_state_t *f, unsigned i, uint8_t *b, uint8_t *flag);
void etm_fifo_pop(fifo_state_t *f);
/* One port cycle: the ATB master shows up to m->port_bytes bytes present at
 * the start of the cycle on ATDATA (padding an incomplete word with Ignore
 * packets), or the word still waiting for ATREADY; ATREADY (in->atstall clear;
 * in NULL: a drain edge, ready, no flush) takes it. Then etm_fifo_stage: the n
 * bytes at b go in if they all fit. Returns 1 when they fitted (or n is 0). */
int etm_fifo_cycle_full(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b, unsigned n,
                        etm_out_t *out);
/* The same with records: a phase's n bytes (ends: bit i, byte i ends a
 * packet) into the empty staging buffer; then at most m->fifo_write bytes of
 * the packet at its head, as the store has room, into the store. */
void etm_fifo_cycle_rec(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b, unsigned n,
                        const uint64_t *ends, etm_out_t *out);
/* The FIFO holds nothing, staged or stored, and no flush is under way. */
static inline int etm_fifo_idle(const fifo_state_t *f) { return !(f->level_q | f->slevel_q | f->held_q | f->flush_q); }
/* An idle FIFO's cycle when nothing comes: no word, and a flush asked for now
 * is done at once (what the general case comes to). Writes AFREADY; the
 * caller gives the other outputs, all 0. */
static inline void etm_fifo_idle_cycle(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, etm_out_t *out)
{
    out->afready = (uint8_t)(m->atb_flush ? in && in->afvalid : 1);
    if (m->atb_flush) {
        f->flush_rem_q = 0;
        f->flush_q = 0;
    }
    f->held_id_q = 0;
    f->stage_full = 0;
    f->wrote_q = 0;
}
static inline int etm_fifo_cycle(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b,
                                 unsigned n, etm_out_t *out)
{
    if (!etm_fifo_idle(f) || n)
        return etm_fifo_cycle_full(f, m, in, b, n, out);
    memset(out->v3_bytes, 0, sizeof out->v3_bytes);
    out->v3_count = 0;
    out->atvalid = 0;
    out->atid = 0;
    out->fifo_level = 0;
    etm_fifo_idle_cycle(f, m, in, out);
    return 1;
}

#endif
