/* records.c - the packet generator's records (records.h; PKT_QUEUE > 0,
 * docs/etmv3-encoder.md, "Records"): the cycle hands its record to the
 * generator's queue; the generator runs one phase of the oldest record a
 * cycle, when the bytes of the phase before have all entered the FIFO's
 * store. */
#include <string.h>

#include "ctx.h"

void etm_records_reset(pq_state_t *q) { memset(q, 0, sizeof *q); }

void etm_records_put(etm_ctx_t *ctx, const etm_in_t *in, const cycle_buf_t *c, etm_out_t *out)
{
    etm_fifo_cycle_rec(&ctx->fifo, &ctx->mode, in, c->b, c->overrun ? 0 : c->n, c->ends, out);
    etm_commit_count(ctx, c);
    ctx->st.atoms += c->atoms;
    ctx->st.internal_errors += c->overrun != 0;
    ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
    ctx->pk.single_q = c->last_single;
}

/* The generator takes the oldest waiting record and begins it. */
static void begin_oldest(etm_ctx_t *ctx, cycle_buf_t *c)
{
    ctx->pq.gen.rec = ctx->pq_rec[ctx->pq.head];
    ctx->pq.head = (uint8_t)((ctx->pq.head + 1u) % ETM_MAX_PKT_QUEUE);
    ctx->pq.len--;
    ctx->pq.busy = 1;
    etm_packet_begin(&ctx->pk, &ctx->mode, &ctx->pq.gen, c);
}

int etm_records_generate(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, int finish)
{
    const etm_mode_t *m = &ctx->mode;
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    int in_rec = 0, rec_done = 0, ended = 0;
    if (ctx->fifo.slevel_q == 0) {
        if (!ctx->pq.busy && ctx->pq.len)
            begin_oldest(ctx, &c);
        if (ctx->pq.busy) {
            in_rec = 1;
            rec_done = etm_packet_phase(&ctx->pk, m, &ctx->pq.gen, &c, &ctx->st);
        } else if (ctx->pq.gap) {
            etm_packet_gap(&ctx->pk);
            ctx->pq.gap = 0;
        } else if (finish) {
            etm_packet_catch_up(&ctx->pk, m, ctx->pq.now, &c);
            etm_packet_end(&ctx->pk, m, &c);
            ended = 1;
        }
    }
    etm_records_put(ctx, in, &c, out);
    if (in_rec) { /* the record's bytes count towards a periodic sync after its last phase */
        ctx->pk.wsent_q += c.w;
        ctx->pq.gen.bytes += c.n;
    } else {
        etm_packet_accepted_n(&ctx->pk, m, c.n, c.w);
    }
    if (rec_done) {
        etm_packet_record_end(&ctx->pk, m, ctx->pq.gen.bytes);
        ctx->pq.busy = 0;
    }
    /* Trace restarted after the gap: the overflow has been traced. */
    if (ctx->pq.untraced && !ctx->pq.gap && ctx->pk.active_q)
        ctx->pq.untraced = 0;
    out->overflow = ctx->pq.untraced;
    return ended;
}

void etm_records_finish_external(etm_ctx_t *ctx)
{
    etm_out_t o;
    while (ctx->end_wait || ctx->fifo.slevel_q) {
        unsigned staged = ctx->fifo.slevel_q;
        memset(&o, 0, sizeof o);
        if (!ctx->end_wait)
            etm_fifo_stage(&ctx->fifo, &ctx->mode, NULL, 0);
        else if (etm_records_generate(ctx, NULL, &o, 1))
            ctx->end_wait = 0;
        if (staged && !ctx->fifo.wrote_q) /* the store is full: the port takes first */
            return;
    }
}

pk_record_t *etm_records_tail(etm_ctx_t *ctx) { return &ctx->pq_rec[(ctx->pq.head + ctx->pq.len) % ETM_MAX_PKT_QUEUE]; }

void etm_records_queued(etm_ctx_t *ctx) { ctx->pq.len++; }

int etm_records_cycle(etm_ctx_t *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                      etm_out_t *out)
{
    const etm_mode_t *m = &ctx->mode;
    int queued = 0;
    if (m->enabled) {
        int want = etm_packet_wants(m, fe, fo, &ctx->pq.te);
        /* After an overflow nothing is traced until the generator and the FIFO have drained. */
        if (ctx->pq.ovf && etm_records_idle(&ctx->pq) && etm_fifo_held(&ctx->fifo) == 0)
            ctx->pq.ovf = 0;
        if (ctx->pq.ovf) {
            ctx->st.cycles_lost++;
        } else if (want && ctx->pq.len < m->pkt_queue) {
            pk_record_t *r = etm_records_tail(ctx);
            r->fe = *fe;
            r->flt = *fo;
            r->cycle = ctx->pq.now;
            etm_records_queued(ctx);
            queued = 1;
        } else if (want) {
            ctx->pq.ovf = 1;
            ctx->pq.untraced = 1;
            ctx->pq.gap = 1;
            ctx->st.overflows++;
            ctx->st.cycles_lost++;
        }
    }
    ctx->pq.now++;
    etm_records_generate(ctx, in, out, 0);
    ctx->st.port_bytes += out->v3_count;
    etm_commit_fifofull(ctx, out);
    return queued;
}
