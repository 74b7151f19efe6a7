/* etm.c - the model's top level: the public API (etm/model.h) and the order
 * of one cycle's stages. One etm_step is one rising clock edge:
 *
 *   check + regs       the interface rules, the debug APB access   (check.c, program.c, regs.c)
 *   frontend           the cycle's signals as trace items           (frontend.c)
 *   filter             TraceEnable, ViewData, trigger, counters     (filter.c)
 *   ETMv1: pipestat    PIPESTAT/TRACEPKT and its FIFO               (pipestat.c, fifo.c)
 *   ETMv3: packet      the packets of the cycle, into a cycle buffer (packet.c, dpacket.c, pheader.c, cbuf.c)
 *          (records    with PKT_QUEUE, a queue before the packets)  (records.c)
 *          fifo        the cycle's bytes in, the port's bytes out   (fifo.c, ctx.h: etm_commit_cycle)
 *   the edge           the register write and programming flow      (program.c)
 *
 * step_stages below is that order, the reference. The speed engine (fast.h:
 * its contract; fast_*.c) may give a cycle in its place when it produces
 * exactly what step_stages would; etm_step asks it first. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "etm/model.h"
#include "fast_entry.h"
#include "util.h"

/* ---- The instance --------------------------------------------------------------------------- */

static const char *const pkt_names[ETM_PKT_ALL_COUNT] = {
    "P-header format 1", "P-header format 2", "P-header format 3", "P-header format 4",
    "branch address", "branch address with exception", "A-sync", "I-sync", "I-sync with cycle count",
    "cycle count", "trigger", "exception return", "ignore",
    "normal data", "value not traced", "out-of-order placeholder", "out-of-order data", "store failed",
};

const char *etm_pkt_kind_name(etm_pkt_kind_t k) { return (unsigned)k < ETM_PKT_ALL_COUNT ? pkt_names[k] : "?"; }

static const char *const pkt_ids[ETM_PKT_ALL_COUNT] = {
    "P_HDR", "P_HDR", "P_HDR", "P_HDR", "BRANCH", "BRANCH", "A_SYNC", "I_SYNC", "I_SYNC_CC",
    "CYCLE_COUNT", "TRIGGER", "EXC_RETURN", "IGNORE",
    "NORMAL_DATA", "VALUE_NOT_TRACED", "OOO_PLACEHOLDER", "OOO_DATA", "STORE_FAILED",
};

const char *etm_pkt_kind_id(etm_pkt_kind_t k) { return (unsigned)k < ETM_PKT_ALL_COUNT ? pkt_ids[k] : "?"; }

size_t etm_ctx_size(void) { return sizeof(struct etm_ctx); }
size_t etm_stats_size(void) { return sizeof(etm_stats_t); }

etm_err_t etm_ctx_init(etm_ctx_t *ctx, const etm_config_t *cfg, etm_diag_t *diag)
{
    etm_err_t e = etm_config_validate(cfg, diag, NULL);
    if (e != ETM_OK)
        return e;
    e = etm_model_supports(cfg, diag);
    if (e != ETM_OK)
        return e;
    /* Every byte known: the repeat path compares the state whole, padding
     * included, and etm_state_diff compares two instances. */
    memset(ctx, 0, sizeof *ctx);
    ctx->cfg0 = *cfg;
    ctx->owned = 0;
    ctx->watch = 0;
    ctx->fast.rp_off = 0;
    ctx->fast.plain_off = 0;
    etm_reset(ctx);
    return ETM_OK;
}

etm_err_t etm_ctx_init_at_reset(etm_ctx_t *ctx, const etm_config_t *impl, etm_diag_t *diag)
{
    etm_err_t e = etm_ctx_init(ctx, impl, diag);
    if (e != ETM_OK)
        return e;
    etm_config_at_reset(&ctx->cfg0);
    etm_reset(ctx);
    return ETM_OK;
}

static etm_err_t create(etm_ctx_t **out, const etm_config_t *cfg, int at_reset, etm_diag_t *diag)
{
    *out = NULL;
    etm_ctx_t *ctx = (etm_ctx_t *)malloc(sizeof *ctx);
    if (!ctx)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    etm_err_t e = at_reset ? etm_ctx_init_at_reset(ctx, cfg, diag) : etm_ctx_init(ctx, cfg, diag);
    if (e != ETM_OK) {
        free(ctx);
        return e;
    }
    ctx->owned = 1;
    *out = ctx;
    return ETM_OK;
}

etm_err_t etm_create(etm_ctx_t **out, const etm_config_t *cfg, etm_diag_t *diag) { return create(out, cfg, 0, diag); }

etm_err_t etm_create_at_reset(etm_ctx_t **out, const etm_config_t *impl, etm_diag_t *diag)
{
    return create(out, impl, 1, diag);
}

void etm_destroy(etm_ctx_t *ctx)
{
    if (ctx && ctx->owned)
        free(ctx);
}

void etm_reset(etm_ctx_t *ctx)
{
    etm_fast_reset(ctx);
    ctx->cfg = ctx->cfg0;
    ctx->last_mask = 0;
    unsigned version = 0;
    etm_config_version(&ctx->cfg, &version, NULL);
    etm_regs_reset(&ctx->rg, version);
    etm_refresh(ctx);
    etm_check_init(&ctx->chk, &ctx->cfg);
    ctx->nlast = 0;
    etm_filter_reset(&ctx->flt, &ctx->fsetup);
    etm_packet_reset(&ctx->pk);
    etm_records_reset(&ctx->pq);
    etm_pipestat_reset(&ctx->ps);
    memset(&ctx->idle_in, 0, sizeof ctx->idle_in);
    etm_fifo_reset(&ctx->fifo);
    memset(&ctx->st, 0, sizeof ctx->st);
    ctx->ended = 0;
    ctx->end_wait = 0;
}

const etm_stats_t *etm_get_stats(const etm_ctx_t *ctx) { return &ctx->st; }
const etm_config_t *etm_get_config(const etm_ctx_t *ctx) { return &ctx->cfg; }
uint64_t etm_last_rule_mask(const etm_ctx_t *ctx) { return ctx->last_mask; }
unsigned etm_fifo_level(const etm_ctx_t *ctx) { return etm_fifo_counted(&ctx->fifo, &ctx->mode); }

unsigned etm_last_rules(const etm_ctx_t *ctx, etm_rule_t *rules, unsigned max)
{
    unsigned n = ctx->nlast < max ? ctx->nlast : max;
    memcpy(rules, ctx->last_rules, n * sizeof *rules);
    return ctx->nlast;
}

void etm_set_repeat_path(etm_ctx_t *ctx, int on)
{
    ctx->fast.rp_off = (uint8_t)!on;
    ctx->fast.rp_on = 0;
}

void etm_set_plain_path(etm_ctx_t *ctx, int on)
{
    ctx->fast.plain_off = (uint8_t)!on;
    etm_refresh(ctx);
}

/* ---- One cycle ------------------------------------------------------------------------------ */

/* The filter's events of the cycle, counted (most cycles have none). */
static void count_filter_events(etm_ctx_t *ctx, const fe_cycle_t *fe, const filter_out_t *fo)
{
    if (!(fo->trigger | fe->entry | fo->ss_change | fo->cnt_reload | fo->ie_hit))
        return;
    ctx->st.triggers += fo->trigger;
    ctx->st.exceptions += fe->entry && fo->trace_enable;
    ctx->st.ss_starts += fo->ss_change & 1;
    ctx->st.ss_stops += (fo->ss_change >> 1) & 1;
    for (unsigned m = fo->cnt_reload; m; m &= m - 1)
        ctx->st.counter_reloads++;
    ctx->st.include_hits += fo->ie_hit & 1;
    ctx->st.exclude_hits += (fo->ie_hit >> 1) & 1;
}

/* ETMv1: PIPESTAT and TRACEPKT (the port drains while programming; the edge
 * that stops tracing resolves the last instruction, as etm_end does). */
static void v1_cycle(etm_ctx_t *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                     etm_out_t *out)
{
    if (ctx->rg.stop_q) {
        etm_pipestat_end(&ctx->ps);
        out->pipestat = ETM_V1_PS_TD;
        out->fifo_level = (uint16_t)ctx->fifo.level_q;
    } else if (!ctx->mode.enabled && !ctx->rg.restart_q) {
        etm_v1_drain_cycle(ctx, out);
    } else {
        etm_pipestat_cycle(&ctx->ps, &ctx->mode, in, fe, fo, &ctx->fifo, out, &ctx->st);
        out->trigger = fo->trigger;
    }
    etm_commit_fifofull(ctx, out);
}

/* ETMv3: the cycle's packets into the cycle buffer, then into the FIFO with
 * the port's cycle (or, with records, into the generator's queue). */
static etm_err_t v3_cycle(etm_ctx_t *ctx, const etm_in_t *in, const fe_cycle_t *fe, const filter_out_t *fo,
                          etm_out_t *out)
{
    if (ctx->rg.restart_q) {
        /* The trace stages are held in reset for this cycle: the port alone runs. */
        etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, NULL, 0, out);
        ctx->st.port_bytes += out->v3_count;
        etm_commit_fifofull(ctx, out);
        return ETM_OK;
    }
    if (ctx->rg.stop_q || ctx->end_wait) {
        /* Tracing stopped: what was gathered goes into the FIFO, as at etm_end,
         * with the port's cycle; until it fits it waits (ETMSR[1] stays 0). */
        etm_err_t e = etm_end_try(ctx, in, out);
        ctx->st.port_bytes += out->v3_count;
        etm_commit_fifofull(ctx, out);
        return e;
    }
    if (ctx->mode.pkt_queue) {
        etm_records_cycle(ctx, in, fe, fo, out);
        return ETM_OK;
    }
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    uint8_t started_before = ctx->pk.started_q;
    etm_packet_cycle(&ctx->pk, &ctx->mode, fe, fo, etm_fifo_held(&ctx->fifo) == 0, &c, &ctx->st);
    etm_commit_cycle(ctx, in, started_before, &c, out);
    etm_packet_tick(&ctx->pk, &ctx->mode);
    etm_commit_fifofull(ctx, out);
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* One edge through every stage: the reference cycle. */
ETM_NOINLINE static etm_err_t step_stages(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    memset(out, 0, sizeof *out);
    regs_access_t acc;
    unsigned nr = etm_edge_begin(ctx, in, out, &acc);
    if (in->ivalid)
        ctx->st.instructions += 1u + (in->fold || in->ivalid1);
    int dropped = ctx->rg.restart_q ? etm_restart_stages(ctx) : 0;

    fe_cycle_t fe;
    filter_out_t fo;
    etm_front_cycle(ctx, in, &fe, &fo);
    out->trigger = fo.trigger;
    out->trace_enable = fo.trace_enable;
    out->view_data = fo.view_data;
    count_filter_events(ctx, &fe, &fo);
    etm_err_t e = ETM_OK;
    if (ctx->mode.v3)
        e = v3_cycle(ctx, in, &fe, &fo, out);
    else
        v1_cycle(ctx, in, &fe, &fo, out);
    out->overflow |= (uint8_t)dropped;

    if (acc.write || ctx->rg.stop_q || ctx->rg.restart_q) /* else the registers stay as they are */
        etm_regs_edge(ctx, &acc);
    return e != ETM_OK ? e : nr ? ETM_ERR_RULE : ETM_OK;
}

etm_err_t etm_step(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    etm_err_t e;
    if (etm_fast_step(ctx, in, out, &e)) /* the speed engine gave the cycle (fast.h) */
        return e;
    if (ctx->ended) {
        memset(out, 0, sizeof *out);
        return ETM_ERR_STATE;
    }
    e = step_stages(ctx, in, out);
    etm_fast_after(ctx, out, e);
    return e;
}

size_t etm_step_repeat(etm_ctx_t *ctx, const etm_in_t *in, size_t n, etm_out_t *out)
{
    if (!ctx->fast.rp_on || ctx->watch) /* the common answer on busy code: at once */
        return 0;
    size_t k = etm_fast_repeat_run(ctx, in, n);
    if (k)
        *out = ctx->fast.rp_out;
    return k;
}

etm_err_t etm_run_records(etm_ctx_t *ctx, const etm_in_t *in, size_t n, int finish, uint8_t *bytes, size_t cap,
                          size_t *nbytes, size_t *done)
{
    etm_out_t out;
    size_t nb = 0, k = 0;
    etm_err_t e = ETM_OK;
    for (; k < n && cap - nb >= ETM_MAX_PORT_BYTES; k++) {
        if (ctx->fast.rp_on && !ctx->fast.rp_out.v3_count) { /* a run of repeated cycles: no bytes leave */
            size_t r = etm_fast_repeat_run(ctx, &in[k], n - k);
            k += r;
            if (r && k == n)
                break;
        }
        e = etm_step(ctx, &in[k], &out);
        if (e == ETM_ERR_RULE)
            e = ETM_OK;
        if (e != ETM_OK)
            break;
        memcpy(bytes + nb, out.v3_bytes, out.v3_count);
        nb += out.v3_count;
    }
    if (e == ETM_OK && finish && k == n) {
        if (!ctx->ended)
            e = etm_end(ctx);
        while (e == ETM_OK && cap - nb >= ETM_MAX_PORT_BYTES) {
            etm_err_t d = etm_drain(ctx, &out);
            if (d != ETM_OK)
                break;
            memcpy(bytes + nb, out.v3_bytes, out.v3_count);
            nb += out.v3_count;
        }
    }
    *nbytes = nb;
    *done = k;
    return e;
}
