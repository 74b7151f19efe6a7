/* program.c - the programmer's model's part of a cycle: the debug APB access
 * (regs.c answers it), the write at the edge, and the programming flow it
 * starts: tracing stops when ETMCR[10] or ETMCR[0] is set and restarts when
 * both are clear (docs/registers.md). */
#include <string.h>

#include "ctx.h"

void etm_live_values(const etm_ctx_t *ctx, regs_live_t *l)
{
    l->overflow = !ctx->mode.v3 ? ctx->ps.ovf_q : ctx->mode.pkt_queue ? ctx->pq.untraced : etm_packet_untraced(&ctx->pk);
    l->drained = !ctx->rg.stop_q && etm_fifo_held(&ctx->fifo) == 0 &&
                 (ctx->mode.v3 ? !ctx->end_wait : !etm_pipestat_busy(&ctx->ps));
    l->ss = ctx->flt.ss_q;
    l->triggered = ctx->flt.triggered_q;
    l->live_cnt = ctx->mode.enabled || ctx->rg.stop_q;
    for (unsigned i = 0; i < ETM_NUM_COUNTERS; i++)
        l->cnt[i] = ctx->flt.cnt_q[i];
}

/* The cycle after tracing was enabled: the trace stages start again from
 * reset, as after etm_reset; ETMv3 bytes already in the FIFO still leave it,
 * an ETMv1 FIFO (whose bytes belong to the PIPESTAT sequence) is emptied: its
 * bytes are lost, counted and signalled (OVERFLOW) as an overflow's; returns 1
 * then. Trace restarts with A-sync and I-sync (ETMv3) or TRACESYNC (ETMv1) at
 * the next traced instruction. */
int etm_restart_stages(etm_ctx_t *ctx)
{
    etm_filter_reset(&ctx->flt, &ctx->fsetup);
    etm_packet_reset(&ctx->pk);
    etm_records_reset(&ctx->pq);
    etm_pipestat_reset(&ctx->ps);
    ctx->end_wait = 0;
    int dropped = 0;
    if (!ctx->mode.v3) {
        /* Bytes still there (programmed again before ETMSR[1] said the port had
         * drained) are lost, as to an overflow. */
        dropped = ctx->fifo.level_q != 0;
        ctx->st.bytes_lost += ctx->fifo.level_q;
        ctx->st.overflows += (unsigned)dropped;
        etm_fifo_reset(&ctx->fifo);
    }
    return dropped;
}

/* The APB rules of the cycle, after the interface's: counted as the check
 * stage counts its own. */
static unsigned add_apb_rules(etm_ctx_t *ctx, etm_rule_t *rules, unsigned nr, uint64_t apb)
{
    for (unsigned r = 0; apb; r++, apb >>= 1) {
        if (!(apb & 1))
            continue;
        ctx->chk.counts[r]++;
        ctx->chk.total++;
        rules[nr++] = (etm_rule_t)r;
    }
    return nr;
}

unsigned etm_edge_begin(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, regs_access_t *acc)
{
    etm_rule_t rules[ETM_RULE_COUNT];
    unsigned nr = etm_check_step(&ctx->chk, in, rules, ETM_RULE_COUNT);
    out->pready = 1;
    if (in->psel) {
        regs_live_t live;
        etm_live_values(ctx, &live);
        uint64_t apb = etm_regs_cycle(&ctx->rg, &ctx->cfg, &live, in, out, acc);
        if (apb)
            nr = add_apb_rules(ctx, rules, nr < (unsigned)ETM_RULE_COUNT ? nr : (unsigned)ETM_RULE_COUNT, apb);
    } else {
        ctx->rg.setup_q = 0;
        acc->write = 0;
    }
    ctx->nlast = nr < MAX_RULES_KEPT ? nr : MAX_RULES_KEPT;
    ctx->last_mask = 0;
    if (nr) { /* the common cycle breaks none: nothing to copy */
        memcpy(ctx->last_rules, rules, ctx->nlast * sizeof *rules);
        for (unsigned i = 0; i < nr && i < ETM_RULE_COUNT; i++)
            ctx->last_mask |= 1ull << rules[i];
    }
    ctx->st.violations = ctx->chk.total;
    ctx->st.cycles++;
    return nr;
}

void etm_regs_edge(etm_ctx_t *ctx, const regs_access_t *acc)
{
    uint8_t restart_was = ctx->rg.restart_q;
    if (ctx->rg.stop_q) {
        /* The counters hold their values while tracing is stopped: ETMCNTVR
         * reads them, and trace starts again from them unless written. */
        unsigned ncnt = ETM_FIELD_GET(ETM_CCR_COUNTERS, ctx->cfg.etmccr);
        for (unsigned i = 0; i < ncnt && i < ETM_NUM_COUNTERS; i++)
            ctx->cfg.etmcntvr[i] = ctx->flt.cnt_q[i];
    }
    int was = etm_cr_enabled(ctx->cfg.etmcr);
    etm_regs_commit(&ctx->rg, &ctx->cfg, acc);
    int now = etm_cr_enabled(ctx->cfg.etmcr);
    ctx->rg.stop_q = (uint8_t)(was && !now);
    ctx->rg.restart_q = (uint8_t)(!was && now);
    if (acc->write || ctx->rg.stop_q || restart_was != ctx->rg.restart_q)
        etm_refresh(ctx);
    ctx->st.reg_writes += acc->write;
    ctx->st.restarts += ctx->rg.restart_q;
}

uint32_t etm_reg_peek(const etm_ctx_t *ctx, unsigned offset, int debugger)
{
    etm_in_t in;
    etm_out_t out;
    regs_state_t rg = ctx->rg;
    regs_live_t live;
    regs_access_t acc;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.psel = in.penable = 1;
    in.paddr = (uint16_t)(offset & 0xFFCu);
    in.paddrdbg31 = (uint8_t)(debugger != 0);
    rg.setup_q = 1;
    etm_live_values(ctx, &live);
    etm_regs_cycle(&rg, &ctx->cfg, &live, &in, &out, &acc);
    return out.prdata;
}

int etm_untraced_overflow(const etm_ctx_t *ctx)
{
    return (int)(etm_reg_peek(ctx, 4u * etm_mgmt_registers[ETM_MGMT_SR].number, 1) & 1u);
}
