/* ctx.h - the instance (internal): every stage's state, and the cycle's
 * commit, which the reference cycle (etm.c), the end of trace (end.c), the
 * records (records.c) and the speed engine (fast*.c) share.
 *
 * State fields end in _q like the RTL's flip-flops of the same name; a
 * stage's step function reads the _q values and this cycle's inputs and
 * writes the new values, which the cycle commits at its end (the C functions
 * may write in place where no later reader of the same cycle needs the old
 * value). */
#ifndef ETM_CTX_H
#define ETM_CTX_H

#include <string.h>

#include "etm/check.h"
#include "etm/model.h"
#include "fast.h"
#include "fifo.h"
#include "filter.h"
#include "packet.h"
#include "pipestat.h"
#include "records.h"
#include "regs.h"

#define MAX_RULES_KEPT 8

struct etm_ctx {
    etm_config_t cfg;  /* the registers as they stand (the programmer's model writes them) */
    etm_config_t cfg0; /* as at init: etm_reset returns to it */
    etm_mode_t mode;
    regs_state_t rg;
    etm_check_t chk;
    etm_rule_t last_rules[MAX_RULES_KEPT];
    unsigned nlast;
    uint64_t last_mask; /* the rules of the last cycle, bit r for etm_rule_t r */
    filter_setup_t fsetup;
    filter_state_t flt;
    packet_state_t pk;
    pipestat_state_t ps;
    etm_stats_t st;
    int ended;
    int end_wait; /* etm_end's bytes found no room: they wait for the next drain edge */
    int owned;    /* allocated by etm_create */
    int watch;    /* etm_watch_create: the stages up to the filter only */
    etm_in_t idle_in; /* all zero: a cycle with no core activity */
    fast_state_t fast; /* the speed engine's own (fast.h) */
    /* The packet generator's records (PKT_QUEUE > 0; records.h). */
    pk_record_t pq_rec[ETM_MAX_PKT_QUEUE]; /* waiting, oldest at pq.head */
    pq_state_t pq;
    fifo_state_t fifo; /* last: the largest */
};

/* ---- The cycle's commit ---------------------------------------------------------------------- */

/* FIFOFULL after the cycle (ETMCR[7]): fewer than ETMFFLR bytes free, or with
 * records PKT_QUEUE of them waiting, so that the next would be lost (the
 * store's level alone does not see the records the generator is behind by). */
static inline void etm_commit_fifofull(etm_ctx_t *ctx, etm_out_t *out)
{
    unsigned held = etm_fifo_counted(&ctx->fifo, &ctx->mode);
    unsigned free_bytes = held < ctx->mode.fifo_depth ? ctx->mode.fifo_depth - held : 0;
    out->fifofull = (uint8_t)(free_bytes < ctx->mode.fifofull_level ||
                              (ctx->mode.fifofull_level && ctx->mode.pkt_queue && ctx->pq.len >= ctx->mode.pkt_queue));
    ctx->st.fifofull_cycles += out->fifofull;
}

/* Bytes that went into the FIFO: counted in the statistics. */
static ETM_INLINE void etm_commit_count(etm_ctx_t *ctx, const cycle_buf_t *c)
{
    if (!c->n) /* no bytes, no packets */
        return;
    ctx->st.bytes += c->n;
    for (uint32_t m = c->kmask; m; m &= m - 1) {
        unsigned k = etm_lowest_bit(m);
        ctx->st.packets[k] += c->kinds[k];
    }
}

/* The cycle's packets were accepted into the FIFO: count them. */
static ETM_INLINE void etm_commit_accepted(etm_ctx_t *ctx, const cycle_buf_t *c)
{
    etm_packet_accepted(&ctx->pk, &ctx->mode, c);
    etm_commit_count(ctx, c);
}

/* The port, then the cycle's bytes into the FIFO, or an overflow when they do
 * not fit (or, never expected, did not fit the cycle buffer). No roll-back:
 * after an overflow the encoder keeps the state the cycle left, and
 * etm_packet_overflow drops what it had gathered (P-headers, data transfers
 * waiting for values) and waits for the FIFO to empty; the A-sync of a dropped
 * cycle never went out, so it is still to be sent (started_before). */
static ETM_INLINE void etm_commit_cycle(etm_ctx_t *ctx, const etm_in_t *in, uint8_t started_before, cycle_buf_t *c,
                                        etm_out_t *out)
{
    int fit = etm_fifo_cycle(&ctx->fifo, &ctx->mode, in, c->b, c->overrun ? 0 : c->n, out) && !c->overrun;
    if (fit) {
        etm_commit_accepted(ctx, c);
        ctx->pk.single_q = c->last_single;
        ctx->st.atoms += c->atoms;
    } else {
        ctx->pk.started_q = started_before;
        etm_packet_overflow(&ctx->pk);
        ctx->st.overflows++;
        ctx->st.stage_overflows += ctx->fifo.stage_full;
        ctx->st.bytes_lost += c->n + c->overrun;
        ctx->st.cycles_lost++;
    }
    ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
    ctx->st.internal_errors += c->overrun != 0;
    out->overflow = (uint8_t)(!fit || ctx->pk.ovf_q);
    ctx->st.port_bytes += out->v3_count;
}

/* ---- Shared by the top-level files ----------------------------------------------------------- */

/* The frontend and the filter: the part of a cycle a watching instance runs
 * too. */
static inline void etm_front_cycle(etm_ctx_t *ctx, const etm_in_t *in, fe_cycle_t *fe, filter_out_t *fo)
{
    etm_frontend(&ctx->mode, in, fe);
    if (ctx->mode.enabled) /* powered down or programming: resources are held */
        etm_filter(&ctx->flt, &ctx->fsetup, in, fe, fo);
    else
        memset(fo, 0, sizeof *fo);
}
/* The start of an edge, shared by etm_step and etm_watch_step: the interface
 * check and the debug APB access (its rules added to the check's), kept for
 * etm_last_rules. Returns the number of rules broken (etm.c). */
unsigned etm_edge_begin(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, regs_access_t *acc);
/* The edge's register write, and the programming flow it starts (etm.c). */
void etm_regs_edge(etm_ctx_t *ctx, const regs_access_t *acc);
/* The cycle after tracing was enabled: the trace stages start again from
 * reset; returns 1 when ETMv1 bytes were lost (etm.c). */
int etm_restart_stages(etm_ctx_t *ctx);
/* What the status registers and ETMCNTVR read in this cycle (etm.c). */
void etm_live_values(const etm_ctx_t *ctx, regs_live_t *l);
/* The mode and the filter's setup from the registers as they stand (setup.c). */
void etm_refresh(etm_ctx_t *ctx);
/* ETMv1 with nothing more to trace: the PIPESTAT port gives out what is left;
 * returns 0, with out an idle TD cycle, when nothing is (end.c). */
int etm_v1_drain_cycle(etm_ctx_t *ctx, etm_out_t *out);
/* etm_end's bytes into the FIFO, now or on a later drain edge (end.c). */
etm_err_t etm_end_try(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);
/* Tracing runs: not powered down (ETMCR[0]) and not being programmed (ETMCR[10]) (setup.c). */
int etm_cr_enabled(uint32_t etmcr);

#endif
