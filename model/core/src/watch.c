/* watch.c - a watching instance (etm/watch.h): the stages up to the filter,
 * for the protocol scoreboard, which needs what the core did and what the
 * filter let through, never the encoder's bytes. */
#include <string.h>

#include "etm/watch.h"
#include "fast_entry.h"

etm_err_t etm_watch_create(etm_ctx_t **out, const etm_config_t *cfg, int at_reset, etm_diag_t *diag)
{
    etm_err_t e = at_reset ? etm_create_at_reset(out, cfg, diag) : etm_create(out, cfg, diag);
    if (e == ETM_OK)
        (*out)->watch = 1;
    return e;
}

/* What a watching instance saw in the cycle (etm/watch.h). */
static void watch_record(const etm_ctx_t *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                         etm_seen_t *s)
{
    memset(s, 0, sizeof *s);
    s->running = (uint8_t)ctx->mode.enabled;
    s->trace_enable = fo->trace_enable;
    s->view_data = fo->view_data;
    s->trigger = fo->trigger;
    s->ninsn = fe->natoms;
    for (unsigned i = 0; i < fe->natoms; i++) {
        s->insn[i].addr = fe->atom[i].addr;
        s->insn[i].exec = fe->atom[i].exec;
        s->insn[i].indirect = fe->atom[i].target;
    }
    s->insn[0].branch = (uint8_t)(fe->natoms && in->ibranch);
    s->insn[1].branch = (uint8_t)(fe->natoms > 1 && !fe->fold && in->ibranch1);
    s->fold = fe->fold;
    s->entry = fe->entry;
    s->ret = fe->ret;
    s->exit = fe->exit;
    s->exc = fe->exc;
    s->cancel = fe->cancel;
    s->flush = fe->flush;
    s->trace_id = ctx->mode.trace_id;
    s->etmcr = ctx->cfg.etmcr;
}

/* etm_step's edge up to the filter, without the trace stages' bookkeeping. */
static etm_err_t watch_edge(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen)
{
    etm_out_t out;
    out.prdata = 0;
    regs_access_t acc;
    unsigned nr = etm_edge_begin(ctx, in, &out, &acc);
    if (ctx->rg.restart_q)
        etm_restart_stages(ctx);
    fe_cycle_t fe;
    filter_out_t fo;
    etm_front_cycle(ctx, in, &fe, &fo);
    watch_record(ctx, in, &fe, &fo, seen);
    if (acc.write || ctx->rg.stop_q || ctx->rg.restart_q)
        etm_regs_edge(ctx, &acc);
    return nr ? ETM_ERR_RULE : ETM_OK;
}

etm_err_t etm_watch_step(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen)
{
    if (!ctx->watch)
        return ETM_ERR_ARG;
    etm_err_t e;
    if (etm_fast_watch(ctx, in, seen, &e)) /* the speed engine gave the cycle */
        return e;
    e = watch_edge(ctx, in, seen);
    etm_fast_watch_after(ctx, seen, e);
    return e;
}

size_t etm_watch_repeat(etm_ctx_t *ctx, const etm_in_t *in, size_t n)
{
    return ctx->watch ? etm_fast_repeat_run(ctx, in, n) : 0;
}
