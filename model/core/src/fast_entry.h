/* fast_entry.h - the speed engine's entry at every cycle (internal; the
 * contract is in fast.h). etm_step and etm_watch_step begin with
 * etm_fast_step; when it gives the cycle they return, else the reference
 * cycle runs and etm_fast_after learns from it. Inline, as the repeated and
 * plain cycles it gives are most cycles. */
#ifndef ETM_FAST_ENTRY_H
#define ETM_FAST_ENTRY_H

#include "ctx.h"
#include "fast_steps.h"
#include "fast_words.h"

/* ---- fast_repeat.c ---- */

/* The leading cycles of in[0..n-1] that the repeat path gives, at once. */
size_t etm_fast_repeat_run(etm_ctx_t *ctx, const etm_in_t *in, size_t n);
/* A cycle tried as a fixed point was modelled (its state before in
 * ctx->fast.snap, e its return value): is it one? Then the repeat path takes
 * over. */
int etm_fast_judge(etm_ctx_t *ctx, etm_err_t e);
/* Whether the cycle just modelled was quiet (its inputs are kept). */
static inline void etm_fast_quiet(etm_ctx_t *ctx, int quiet) { ctx->fast.rp_have = (uint8_t)quiet; }
/* The state before a tried cycle, into ctx->fast.snap. */
void etm_fast_snap(etm_ctx_t *ctx);

/* ---- The repeat path's inline part (fast_repeat.c has the rest) ---- */

static inline int rp_allowed(const etm_ctx_t *ctx) { return !ctx->fast.rp_off; }

/* Is this cycle tried as a fixed point? Only a cycle without an instruction or
 * an APB access is (an instruction traced moves the trace; one not traced
 * repeats only in a loop of one instruction), and only the seventh of the
 * same inputs in a row: a try costs a copy and a comparison of the state,
 * and runs of idle cycles among instructions are short (on random stimulus,
 * a try after the third paid for itself less often than it cost). */
#define RP_TRY_AFTER 6
/* After RP_MISSES quiet cycles none of which ended a run long enough to be
 * tried, the next RP_PAUSE cycles are not compared: where idle cycles are
 * bubbles between instructions, keeping their inputs costs more than the path
 * gives; a long idle stretch is still found, at most RP_PAUSE cycles late. */
#define RP_MISSES 32
#define RP_PAUSE 240
static inline int rp_try(etm_ctx_t *ctx, const etm_in_t *in)
{
    fast_state_t *f = &ctx->fast;
    if (!rp_allowed(ctx) || f->rp_run < RP_TRY_AFTER)
        return 0;
    if (f->rp_wait) {
        f->rp_wait--;
        return 0;
    }
    return ETM_DDCTL_SLOT(in->ddctl) == 0;
}

/* Before a cycle that is not repeated: is it tried as a fixed point? *quiet
 * says whether it was quiet (no instruction, no APB access: etm_fast_quiet).
 * A quiet cycle's inputs are compared with the last cycle's and kept for the
 * next. */
static ETM_INLINE int etm_fast_before(etm_ctx_t *ctx, const etm_in_t *in, int *quiet)
{
    fast_state_t *f = &ctx->fast;
    if (f->rp_pause) { /* not compared: as a cycle that is not quiet (a branch taken alike each cycle) */
        f->rp_pause--;
        *quiet = 0;
        f->rp_run = 0;
        return 0;
    }
    *quiet = !in->ivalid && !in->psel && rp_allowed(ctx);
    if (!*quiet) {
        f->rp_run = 0;
        return 0;
    }
    int same = rec_keep(&f->rp_in, in) && f->rp_have;
    f->rp_run = (uint8_t)(same ? f->rp_run + (f->rp_run < RP_TRY_AFTER) : 0);
    f->rp_miss = (uint8_t)(f->rp_run == RP_TRY_AFTER ? 0 : f->rp_miss + 1);
    if (f->rp_miss == RP_MISSES) { /* idle runs are short here: compare fewer */
        f->rp_miss = 0;
        f->rp_pause = RP_PAUSE;
    }
    return same && rp_try(ctx, in);
}

/* k repeated cycles' counters (the caller gives their outputs), k at most
 * rp_budget. */
static inline void etm_fast_advance(etm_ctx_t *ctx, uint32_t k)
{
    fast_state_t *f = &ctx->fast;
    f->rp_budget -= k;
    unsigned char *base = (unsigned char *)ctx;
    for (unsigned i = 0; i < f->rp_ncount; i++) {
        uint32_t *c = (uint32_t *)(void *)(base + f->rp_count_off[i]);
        *c += k;
    }
    ctx->chk.cycle += k;
    uint64_t *st = (uint64_t *)(void *)&ctx->st;
    for (unsigned i = 0; i < f->rp_nst; i++)
        st[f->rp_st_idx[i]] += k * f->rp_st_add[i];
    f->rp_count += k;
}

/* ---- fast_plain.c ---- */

/* A plain cycle through the stages' plain steps: without records, with them. */
etm_err_t etm_fast_step_plain(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);
etm_err_t etm_fast_step_plain_records(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);
/* etm_fast_plain for a cycle tried as a fixed point. */
int etm_fast_plain_tried(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e, int quiet);
/* With records, a plain cycle queued behind the generator's work. */
etm_err_t etm_fast_step_plain_queued(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);
/* A reference cycle tried as a fixed point is judged; if it is one, its
 * outputs (out), or what a watching instance saw (seen, out NULL), are kept
 * for the repeat path. */
void etm_fast_tried(etm_ctx_t *ctx, const etm_out_t *out, const etm_seen_t *seen, etm_err_t e);
/* A watching instance's etm_fast_step (etm_watch_step). */
int etm_fast_watch(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen, etm_err_t *e);

/* The inputs have none of the signals a plain cycle does not have: the masks
 * etm_fast_configure made from the ETM_FAST lines of signals.def, and their
 * ETM_FAST_NEEDS. */
static inline int etm_fast_plain_in(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return rec_none_of(in, ctx->fast.plain_forbid[in->ivalid != 0])
#define ETM_FAST_NEEDS(field, other) && !(in->field && !in->other)
#include "etm/signals.def"
        ;
}

/* The state a plain cycle needs up to the filter (a watching instance's
 * whole need): the configuration allows it, no programming stop or restart,
 * no cancel waiting in the interface check, TraceEnable on to stay. */
static inline int plain_front_state(const etm_ctx_t *ctx)
{
    return ctx->fast.plain_cfg && !(ctx->rg.stop_q | ctx->rg.restart_q) && fast_check_ok(&ctx->chk) &&
           fast_filter_ok(&ctx->fsetup, &ctx->flt);
}

/* With records: the generator has nothing left and nothing is staged, so a
 * plain cycle's record would be begun and finished in the cycle; no overflow
 * is lost or untraced. */
static inline int plain_records_ok(const etm_ctx_t *ctx)
{
    return !ctx->mode.pkt_queue ||
           (etm_records_idle(&ctx->pq) && !(ctx->pq.ovf | ctx->pq.untraced) && ctx->fifo.slevel_q == 0);
}

/* ... and for the trace stages: no end of trace, nothing waiting in the packet stage. */
static inline int plain_state(const etm_ctx_t *ctx)
{
    return plain_front_state(ctx) && !(ctx->end_wait | ctx->ended) && fast_packet_ok(&ctx->pk) &&
           plain_records_ok(ctx);
}

/* The instructions a plain cycle carries (an IT folded after one counts). */
static inline unsigned plain_natoms(const etm_in_t *in) { return in->ivalid ? 1u + in->fold : 0u; }

/* The cycles the plain path leaves to the reference, with records: the idle
 * cycles before a record can bring an ETMv3.0 periodic sync due, and the
 * record a phase more. */
static inline int plain_takes(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return !ctx->mode.pkt_queue || !plain_natoms(in) || !fast_sync_due_at(&ctx->pk, &ctx->mode, ctx->pq.now);
}

/* The reference runs this cycle: etm_fast_after (or etm_fast_watch_after)
 * has the repeat path's bookkeeping to finish. Returns 0 (not given). */
static inline int to_reference(fast_state_t *f, int tried, int quiet)
{
    f->around = 1;
    f->trying = (uint8_t)tried;
    f->quiet = (uint8_t)quiet;
    return 0;
}

/* A plain cycle (etm_fast_plain_in, with the state plain_go says) through the
 * stages' plain steps, tried as a fixed point or not (the repeat path's
 * bookkeeping around it). Returns 0 for the one kind of such a cycle it leaves
 * to the reference (with records, one whose record brings a periodic sync). */
static ETM_INLINE int etm_fast_plain(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e)
{
    int quiet;
    if (etm_fast_before(ctx, in, &quiet))
        return etm_fast_plain_tried(ctx, in, out, e, quiet);
    if (!plain_takes(ctx, in))
        return to_reference(&ctx->fast, 0, quiet);
    *e = ctx->mode.pkt_queue ? etm_fast_step_plain_records(ctx, in, out) : etm_fast_step_plain(ctx, in, out);
    etm_fast_quiet(ctx, quiet);
    return 1;
}

/* With records, a plain cycle while the generator is still busy, or bytes are
 * staged: its record is queued behind the others, as etm_records_cycle queues
 * any record, but the stages before it run their plain steps (the interface
 * check, the filter), and the record's filter outputs are a plain cycle's:
 * TraceEnable on, nothing else but a counter 1 reload. */
static inline int plain_queued_ok(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return ctx->mode.pkt_queue && plain_front_state(ctx) && !(ctx->end_wait | ctx->ended) &&
           etm_fast_plain_in(ctx, in);
}

/* A cycle that is neither repeated nor plain (etm_fast_step's slow part):
 * the repeat path's bookkeeping, and the records' plain form where it
 * applies. Returns 1 when it gave the cycle. */
static ETM_INLINE int etm_fast_other(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e)
{
    fast_state_t *f = &ctx->fast;
    f->around = 0;
    if (ctx->ended) /* the reference says ETM_ERR_STATE */
        return 0;
    int quiet;
    int tried = etm_fast_before(ctx, in, &quiet);
    if (tried) {
        etm_fast_snap(ctx);
    } else if (plain_queued_ok(ctx, in)) {
        *e = etm_fast_step_plain_queued(ctx, in, out);
        etm_fast_quiet(ctx, quiet);
        return 1;
    }
    return to_reference(f, tried, quiet);
}

/* After a reference cycle that etm_fast_step did not give (around): the
 * plain path's state test, the repeat path's judgement of a tried cycle, and
 * whether the record at the queue's tail can still be a plain cycle's. */
static ETM_INLINE void etm_fast_after(etm_ctx_t *ctx, const etm_out_t *out, etm_err_t e)
{
    fast_state_t *f = &ctx->fast;
    if (!f->around)
        return;
    f->around = 0;
    f->plain_go = (uint8_t)plain_state(ctx);
    if (f->trying)
        etm_fast_tried(ctx, out, NULL, e);
    etm_fast_quiet(ctx, f->quiet);
    if (ctx->pq.now < f->tail_cycle) /* the stages restarted */
        f->tail_plain = 0;
}

/* The same for a watching instance. */
static inline void etm_fast_watch_after(etm_ctx_t *ctx, const etm_seen_t *seen, etm_err_t e)
{
    fast_state_t *f = &ctx->fast;
    if (!f->around)
        return;
    f->around = 0;
    if (f->trying)
        etm_fast_tried(ctx, NULL, seen, e);
    etm_fast_quiet(ctx, f->quiet);
}

/* A repeated cycle's counters: 0 when a counter has reached its limit (the
 * cycle is then modelled in full). */
static inline int etm_fast_repeat(etm_ctx_t *ctx)
{
    if (!ctx->fast.rp_budget)
        return 0;
    etm_fast_advance(ctx, 1);
    return 1;
}

/* The engine's part of every etm_step: returns 1, with the cycle's outputs in
 * out and its return value in *e, when it gave the cycle. */
static ETM_INLINE int etm_fast_step(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e)
{
    fast_state_t *f = &ctx->fast;
    if (f->rp_on) {
        if (rec_same(in, &f->rp_in) && etm_fast_repeat(ctx)) {
            *out = f->rp_out;
            *e = ETM_OK;
            return 1;
        }
        f->rp_on = 0;
    }
    if (f->plain_go && etm_fast_plain_in(ctx, in))
        return etm_fast_plain(ctx, in, out, e);
    return etm_fast_other(ctx, in, out, e);
}

#endif
