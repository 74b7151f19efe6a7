/* end.c - the end of trace and the ports' drain (etm/model.h: etm_end,
 * etm_drain, etm_drain_in, etm_port_take): what was gathered
 * goes into the FIFO, and the FIFO empties through its port after the last
 * cycle. */
#include <string.h>

#include "fast_entry.h"

/* etm_end's bytes (the P-headers still being gathered) into the FIFO: on the
 * end's own edge (out NULL, no port cycle), then on each drain edge with the
 * port's cycle until they fit. Until then they wait, as in an ETM that holds
 * its last packet until the FIFO has room: no trace is lost at the end. in: the
 * cycle's ATB inputs (NULL: a drain edge, the sink ready). */
etm_err_t etm_end_try(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (ctx->mode.pkt_queue) {
        /* Records: the generator finishes the queue, then the end's bytes go
         * out on a cycle of their own; etm_end's edge has no generator cycle,
         * only the write port's (as without records). */
        ctx->end_wait = 1;
        if (!out)
            etm_fifo_stage(&ctx->fifo, &ctx->mode, NULL, 0);
        else if (etm_records_generate(ctx, in, out, 1))
            ctx->end_wait = 0;
        return ETM_OK;
    }
    packet_state_t before = ctx->pk;
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    etm_packet_end(&ctx->pk, &ctx->mode, &c);
    int fit;
    if (c.overrun)
        fit = 0;
    else if (out)
        fit = etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, c.b, c.n, out);
    else
        fit = etm_fifo_stage(&ctx->fifo, &ctx->mode, c.b, c.n);
    ctx->st.internal_errors += c.overrun != 0;
    ctx->end_wait = 0;
    if (fit) {
        etm_commit_accepted(ctx, &c);
    } else if (c.overrun || (etm_fifo_held(&ctx->fifo) == 0 && out)) {
        /* never expected: more than the cycle buffer, or more than an empty FIFO holds */
        ctx->st.overflows++;
        ctx->st.bytes_lost += c.n + c.overrun;
        if (out)
            out->overflow = 1;
    } else {
        ctx->pk = before;
        ctx->end_wait = 1;
    }
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* ETMv1 with nothing more to trace (after etm_end, or while programming): the
 * PIPESTAT port gives out what the queue and the FIFO hold, whatever ETMCR
 * says. Returns 0, with out an idle TD cycle, when nothing is left. */
int etm_v1_drain_cycle(etm_ctx_t *ctx, etm_out_t *out)
{
    if (ctx->fifo.level_q == 0 && !etm_pipestat_busy(&ctx->ps)) {
        out->pipestat = ETM_V1_PS_TD;
        return 0;
    }
    fe_cycle_t fe;
    filter_out_t fo;
    memset(&fe, 0, sizeof fe);
    memset(&fo, 0, sizeof fo);
    fo.trace_enable = 1;
    etm_mode_t m = ctx->mode;
    m.enabled = 1;
    etm_pipestat_cycle(&ctx->ps, &m, &ctx->idle_in, &fe, &fo, &ctx->fifo, out, &ctx->st);
    return 1;
}

etm_err_t etm_end(etm_ctx_t *ctx)
{
    etm_fast_leave(ctx);
    if (ctx->ended)
        return ETM_ERR_STATE;
    if (!ctx->mode.v3) {
        etm_pipestat_end(&ctx->ps);
        ctx->ended = 1;
        return ETM_OK;
    }
    etm_err_t e = etm_end_try(ctx, NULL, NULL);
    if (ctx->mode.port_bytes == 0 && ctx->mode.pkt_queue) /* an external port: no more cycles */
        etm_records_finish_external(ctx);
    else if (ctx->mode.port_bytes == 0)
        etm_fifo_settle(&ctx->fifo);
    ctx->ended = 1;
    return e;
}

etm_err_t etm_drain_in(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    etm_fast_leave(ctx);
    memset(out, 0, sizeof *out);
    out->pready = 1;
    if (!ctx->mode.v3) {
        if (!etm_v1_drain_cycle(ctx, out))
            return ETM_END;
        etm_commit_fifofull(ctx, out);
        return ETM_OK;
    }
    /* An external port drains through etm_port_take (which also offers etm_end_try). */
    if (ctx->mode.port_bytes == 0 || (etm_fifo_held(&ctx->fifo) == 0 && !ctx->end_wait)) {
        out->fifo_level = (uint16_t)etm_fifo_counted(&ctx->fifo, &ctx->mode);
        return ETM_END;
    }
    etm_err_t e = ETM_OK;
    if (ctx->end_wait)
        e = etm_end_try(ctx, in, out); /* the port's cycle, and the end's bytes if they fit now */
    else
        etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, NULL, 0, out);
    ctx->st.port_bytes += out->v3_count;
    etm_commit_fifofull(ctx, out);
    return e;
}

etm_err_t etm_drain(etm_ctx_t *ctx, etm_out_t *out) { return etm_drain_in(ctx, NULL, out); }

unsigned etm_port_take(etm_ctx_t *ctx, uint8_t *buf, unsigned max)
{
    if (!ctx->mode.v3 || ctx->mode.port_bytes)
        return 0;
    etm_fast_leave(ctx);
    unsigned n = etm_fifo_take(&ctx->fifo, buf, max);
    ctx->st.port_bytes += n;
    if (ctx->mode.pkt_queue) {
        if (ctx->ended && n)
            etm_records_finish_external(ctx);
    } else if (ctx->end_wait && n) {
        etm_end_try(ctx, NULL, NULL);
        if (ctx->ended)
            etm_fifo_settle(&ctx->fifo); /* no more cycles to let them through */
    }
    return n;
}
