/* cbuf.h - the cycle buffer (cbuf.c): one cycle's ETMv3 packets before they enter the FIFO */
#ifndef ETM_CBUF_H
#define ETM_CBUF_H

#include <string.h>

#include "core_inline.h"
#include "mode.h"

/* No P-header with atoms was put since the mark was last taken (atoms_at). */
#define CBUF_NO_MARK 0xFFFFFFFFu

typedef struct cycle_buf {
    uint8_t b[ETM_CYCLE_BYTES_MAX];
    unsigned n;
    unsigned overrun;     /* bytes that did not fit (never expected: an internal error) */
    uint32_t w;           /* W atoms (and counts) these bytes carry */
    uint8_t kinds[ETM_PKT_ALL_COUNT]; /* packets by kind, for the statistics (a cycle's bytes make
                                         fewer than 256 packets) */
    uint32_t kmask;       /* the kinds counted (bit k: kinds[k] is not 0) */
    uint8_t last_single;  /* the last P-header or other non-data packet is a P-header holding exactly one atom */
    unsigned atoms;       /* atoms of this cycle that were traced */
    uint64_t ends[(ETM_CYCLE_BYTES_MAX + 63) / 64]; /* bit i: byte i is the last of its packet */
    /* Where the first P-header with atoms put since the packet stage last
     * looked begins (CBUF_NO_MARK: none). With data trace the transfers still
     * waiting for their values get their placeholders there, before it
     * (packet.c, data_sync): the P-header stage marks, the packet stage
     * places, so neither calls back into the other. */
    unsigned atoms_at;
} cycle_buf_t;

/* An empty buffer; last_single: the packet before it is a P-header with one atom. */
static inline void cbuf_init(cycle_buf_t *c, uint8_t last_single)
{
    /* The bytes past n are never read: only the counts are cleared. */
    c->n = 0;
    c->overrun = 0;
    c->w = 0;
    memset(c->kinds, 0, sizeof c->kinds);
    c->kmask = 0;
    c->last_single = last_single;
    c->atoms = 0;
    memset(c->ends, 0, sizeof c->ends);
    c->atoms_at = CBUF_NO_MARK;
}
/* kmask has a bit for every kind. */
typedef char cbuf_kinds_fit_mask[ETM_PKT_ALL_COUNT <= 32 ? 1 : -1];
/* One more packet of kind k (etm_pkt_kind_t), whose last byte is the last put. */
static inline void cbuf_kind(cycle_buf_t *c, unsigned k)
{
    c->kinds[k]++;
    c->kmask |= 1u << k;
    if (c->n)
        c->ends[(c->n - 1) / 64] |= 1ull << ((c->n - 1) % 64);
}
static inline void cbuf_put(cycle_buf_t *c, uint8_t byte)
{
    if (c->n < ETM_CYCLE_BYTES_MAX)
        c->b[c->n++] = byte;
    else
        c->overrun++;
}
void cbuf_put_bytes(cycle_buf_t *c, const uint8_t *b, unsigned n);
/* A P-header with atoms is about to be put: the first since the mark was
 * taken marks where it begins. */
static inline void cbuf_before_atoms(cycle_buf_t *c)
{
    if (c->atoms_at == CBUF_NO_MARK)
        c->atoms_at = c->n;
}
/* The packets of ins (bytes, kinds, packet ends; no W atoms, atoms or P-header)
 * into c before its byte at, as if they had been put there: the bytes from at
 * on move up (those past ETM_CYCLE_BYTES_MAX are counted in overrun). */
void cbuf_insert(cycle_buf_t *c, unsigned at, const cycle_buf_t *ins);

#endif
