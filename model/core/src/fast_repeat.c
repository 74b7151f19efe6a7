/* fast_repeat.c - the speed engine's repeat path (fast.h has the contract;
 * docs/performance.md, "The repeat path").
 *
 * etm_step is a function of the state and the inputs. When a cycle leaves the
 * state as it found it, but for counters that nothing in such a cycle reads,
 * and the next cycle's inputs are the same bytes, that cycle does exactly the
 * same again: the repeat path gives the stored outputs and moves the counters
 * on, without running the stages. Idle stretches (WFI, stalls, an empty FIFO)
 * are such cycles. A cycle is tried as a fixed point when its inputs equal the
 * last cycle's and it has no APB access and no data value (the interface check
 * reads its cycle number only for a value). A try that fails waits 1, 3, 7 ...
 * 63 cycles before the next.
 *
 * The counters: the statistics (written, never read, by the stages), the
 * interface check's cycle number, and four that a cycle may move by one:
 *   - the packet stage's cycle count, read only for an I-sync's count (an
 *     I-sync's bytes would move the FIFO: no fixed point sends one);
 *   - the run of idle cycles not yet sent (cycle-accurate), read by an idle
 *     cycle only as 0 or full: it may move from 1 on;
 *   - the ETMv1 cycles since a full branch address, read only for a branch
 *     status, whose bytes would move the FIFO;
 *   - the ETMv3.0 cycles since an A-sync, read as having reached ETMSYNCFR:
 *     it may move while it stays below (or once the sync is due);
 *   - with records, the stage's cycle count (pq_now), read only when a record
 *     is queued, which would move the queue: no fixed point queues one.
 * A counter that moved leaves the repeat path at its limit (RP_*, fast.h). */
#include <stddef.h>
#include <string.h>

#include "fast_entry.h"

#define RP_LIMIT 0xFFFFFFF0u

static void rp_counters(packet_state_t *pk, pipestat_state_t *ps, uint32_t *pq_now, uint32_t *c[RP_NCOUNT])
{
    c[RP_WTOTAL] = &pk->wtotal_q;
    c[RP_WRUN] = &pk->ph.wrun_q;
    c[RP_SINCE_FULL] = &ps->since_full_q;
    c[RP_SYNC] = &pk->sync_count_q;
    c[RP_PQ_NOW] = pq_now;
}

/* The highest value counter k may have before a repeated cycle moves it from
 * `before` (0: it may not move). */
static uint32_t rp_limit(const etm_ctx_t *ctx, unsigned k, uint32_t before)
{
    switch (k) {
    case RP_WRUN:
        return before ? RP_LIMIT : 0;
    case RP_SYNC: {
        /* (SYNC_PLACEMENT=1: a periodic A-sync's I-sync falls due at half the period.) */
        const packet_state_t *pk = &ctx->pk;
        uint32_t p = pk->isync_wait_q && !pk->isync_due_q ? ctx->mode.sync_period / 2 : ctx->mode.sync_period;
        if (pk->sync_due_q && !(pk->isync_wait_q && !pk->isync_due_q))
            return RP_LIMIT;
        return p < 2 ? RP_LIMIT : p - 2;
    }
    default:
        return RP_LIMIT;
    }
}

void etm_fast_snap(etm_ctx_t *ctx)
{
    rp_snap_t *s = &ctx->fast.snap;
    memcpy(&s->rg, &ctx->rg, sizeof s->rg);
    memcpy(&s->chk, &ctx->chk, sizeof s->chk);
    memcpy(&s->flt, &ctx->flt, sizeof s->flt);
    memcpy(&s->pk, &ctx->pk, sizeof s->pk);
    memcpy(&s->st, &ctx->st, sizeof s->st);
    s->end_wait = ctx->end_wait;
    memcpy(s->fifo, &ctx->fifo, sizeof s->fifo);
    if (!ctx->mode.v3)
        memcpy(&s->ps, &ctx->ps, sizeof s->ps);
    else /* ETMv3 leaves the ETMv1 stage alone */
        s->ps.since_full_q = ctx->ps.since_full_q;
    if (ctx->mode.pkt_queue)
        memcpy(&s->pq, &ctx->pq, sizeof s->pq);
    else /* without records only the cycle count is read (rp_counters) */
        s->pq.now = ctx->pq.now;
}

/* The records' part of rp_same (nothing without records). */
static int rp_same_pq(const etm_ctx_t *ctx, const rp_snap_t *s)
{
    return !ctx->mode.pkt_queue || !memcmp(&s->pq, &ctx->pq, sizeof s->pq);
}

static int rp_same(const etm_ctx_t *ctx, const rp_snap_t *s)
{
    return !memcmp(&s->rg, &ctx->rg, sizeof s->rg) && !memcmp(&s->chk, &ctx->chk, sizeof s->chk) &&
           !memcmp(&s->flt, &ctx->flt, sizeof s->flt) && !memcmp(&s->pk, &ctx->pk, sizeof s->pk) &&
           s->end_wait == ctx->end_wait && !memcmp(s->fifo, &ctx->fifo, sizeof s->fifo) &&
           (ctx->mode.v3 ? s->ps.since_full_q == ctx->ps.since_full_q : !memcmp(&s->ps, &ctx->ps, sizeof s->ps)) &&
           rp_same_pq(ctx, s);
}

/* The counters that moved by one in the tried cycle, and by how much the
 * statistics did (the snapshot's are moved on to match). Returns ETM_ERR_INTERNAL
 * when more statistics moved than a repeated cycle may move. */
static etm_err_t rp_moved(etm_ctx_t *ctx, rp_snap_t *s)
{
    fast_state_t *f = &ctx->fast;
    uint32_t *now[RP_NCOUNT], *was[RP_NCOUNT];
    rp_counters(&ctx->pk, &ctx->ps, &ctx->pq.now, now);
    rp_counters(&s->pk, &s->ps, &s->pq.now, was);
    f->rp_ncount = 0;
    f->rp_budget = 0xFFFFFFFFu;
    for (unsigned k = 0; k < RP_NCOUNT; k++) {
        uint32_t limit = rp_limit(ctx, k, *was[k]);
        if (*now[k] != *was[k] + 1 || !limit || *was[k] > limit)
            continue; /* it did not move by one, or may not: the state differs */
        f->rp_count_off[f->rp_ncount++] = (uint32_t)((unsigned char *)now[k] - (unsigned char *)ctx);
        uint32_t budget = *now[k] < limit ? limit - *now[k] : 0;
        f->rp_budget = budget < f->rp_budget ? budget : f->rp_budget;
        ++*was[k];
    }
    s->chk.cycle++;
    /* The statistics that moved, and by how much: commonly the cycles alone. */
    unsigned nst = 0;
    etm_err_t e = ETM_OK;
    s->st.cycles++;
    if (!memcmp(&s->st, &ctx->st, sizeof s->st)) {
        f->rp_st_idx[nst] = offsetof(etm_stats_t, cycles) / sizeof(uint64_t);
        f->rp_st_add[nst++] = 1;
    } else {
        s->st.cycles--;
        const uint64_t *sn = (const uint64_t *)(const void *)&ctx->st, *sw = (const uint64_t *)(const void *)&s->st;
        for (unsigned i = 0; i < sizeof s->st / sizeof(uint64_t); i++) {
            if (sn[i] == sw[i])
                continue;
            if (nst == RP_MAX_STATS) {
                e = ETM_ERR_INTERNAL; /* not tried again: too many */
                break;
            }
            f->rp_st_idx[nst] = (uint8_t)i;
            f->rp_st_add[nst++] = sn[i] - sw[i];
        }
    }
    f->rp_nst = (uint8_t)nst;
    return e;
}

int etm_fast_judge(etm_ctx_t *ctx, etm_err_t e)
{
    fast_state_t *f = &ctx->fast;
    etm_err_t m = rp_moved(ctx, &f->snap);
    if (e == ETM_OK && m == ETM_OK && rp_same(ctx, &f->snap)) {
        f->rp_on = 1;
        f->rp_backoff = 0;
        return 1;
    }
    f->rp_wait = f->rp_backoff;
    f->rp_backoff = (uint8_t)(f->rp_backoff < 32 ? 2 * f->rp_backoff + 1 : 63);
    return 0;
}

size_t etm_fast_repeat_run(etm_ctx_t *ctx, const etm_in_t *in, size_t n)
{
    fast_state_t *f = &ctx->fast;
    if (!f->rp_on)
        return 0;
    size_t max = n < f->rp_budget ? n : f->rp_budget, k = 0;
    while (k < max && rec_same(&in[k], &f->rp_in))
        k++;
    etm_fast_advance(ctx, (uint32_t)k);
    return k;
}

uint64_t etm_repeated_cycles(const etm_ctx_t *ctx) { return ctx->fast.rp_count; }
