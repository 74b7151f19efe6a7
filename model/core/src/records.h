/* records.h - the packet generator's records (records.c; PKT_QUEUE > 0,
 * docs/etmv3-encoder.md, "Records"): each traced cycle hands a record of what
 * it saw to a queue between the filter and the packet stage; the generator
 * takes the oldest and runs one phase of it a cycle, when the bytes of the
 * phase before have all entered the FIFO's store. */
#ifndef ETM_RECORDS_H
#define ETM_RECORDS_H

#include "etm/model.h"
#include "packet.h"

/* The records' queue but for the records themselves: its ends, its flags, the
 * stage's cycle count and the generator. All of it may change in a cycle;
 * the records waiting change only where head or len move. */
typedef struct pq_state {
    uint8_t head, len;
    uint8_t busy;     /* gen holds the record being generated */
    uint8_t gap;      /* records were lost after the last one queued */
    uint8_t ovf;      /* overflow: records are lost until the generator and the FIFO are empty */
    uint8_t untraced; /* an overflow whose restart I-sync is not made yet (OVERFLOW, ETMSR[0]) */
    uint8_t te;       /* TraceEnable in the last cycle (etm_packet_wants) */
    uint32_t now;     /* the stage's cycle count (what wtotal_q counts without records) */
    pk_gen_t gen;
} pq_state_t;

/* No record: the queue empty, nothing generated, no overflow. */
void etm_records_reset(pq_state_t *q);
/* The generator has nothing left: no record waiting or being generated, no gap. */
static inline int etm_records_idle(const pq_state_t *q) { return !(q->len | q->busy | q->gap); }

/* The instance (ctx.h). */
struct etm_ctx;

/* A traced cycle with records: the cycle's record (its frontend items fe and
 * filter outputs fo) into the queue (an overflow when the queue is full), then
 * the generator's and the FIFO's cycle, and FIFOFULL. Returns 1 when the
 * cycle's record was queued. */
int etm_records_cycle(struct etm_ctx *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                       etm_out_t *out);
/* The record queued next (the caller fills it and calls etm_records_queued). */
pk_record_t *etm_records_tail(struct etm_ctx *ctx);
void etm_records_queued(struct etm_ctx *ctx);
/* One generator cycle and the FIFO's: a phase of the record being generated
 * (the oldest waiting one begun first, so a record can be generated in the
 * cycle it is made), the gap an overflow left, or (finish: at the end of
 * trace, with nothing else left) the end's bytes. Returns 1 when the end's
 * bytes went out. */
int etm_records_generate(struct etm_ctx *ctx, const etm_in_t *in, etm_out_t *out, int finish);
/* A generator cycle's bytes into the FIFO with the port's cycle (the staging
 * buffer is empty when a phase is written: they always go in), counted. */
void etm_records_put(struct etm_ctx *ctx, const etm_in_t *in, const cycle_buf_t *c, etm_out_t *out);
/* An external port after etm_end: the generator's remaining phases, the
 * end's bytes and the write port's cycles run at once, as far as the store's
 * room lets them; etm_port_take resumes them when it has made room. */
void etm_records_finish_external(struct etm_ctx *ctx);

#endif
