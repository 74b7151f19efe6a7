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

/* k repeated cycles' counters (the caller gives their outputs), k at most
 * rp_budget. */
void etm_fast_advance(etm_ctx_t *ctx, uint32_t k);
/* The leading cycles of in[0..n-1] that the repeat path gives, at once. */
size_t etm_fast_repeat_run(etm_ctx_t *ctx, const etm_in_t *in, size_t n);
/* Before a cycle that is not repeated: is it tried as a fixed point? *quiet
 * says what etm_fast_tried needs. A quiet cycle's inputs are compared with the
 * last cycle's and kept for the next. */
int etm_fast_before(etm_ctx_t *ctx, const etm_in_t *in, int *quiet);
/* A cycle tried as a fixed point was modelled (its state before in
 * ctx->fast.snap, e its return value): is it one? Then the repeat path takes
 * over. */
int etm_fast_judge(etm_ctx_t *ctx, etm_err_t e);
/* Whether the cycle just modelled was quiet (its inputs are kept). */
static inline void etm_fast_quiet(etm_ctx_t *ctx, int quiet) { ctx->fast.rp_have = (uint8_t)quiet; }
/* The state before a tried cycle, into ctx->fast.snap. */
void etm_fast_snap(etm_ctx_t *ctx);

/* ---- fast_plain.c ---- */

/* A plain cycle (etm_fast_plain_in, with the state plain_go says) through the
 * stages' plain steps, tried as a fixed point or not (the repeat path's
 * bookkeeping around it). Returns 0 for the one kind of such a cycle it leaves
 * to the reference (with records, one whose record brings a periodic sync). */
int etm_fast_plain(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e);
/* A cycle that is neither repeated nor plain (etm_fast_step's slow part):
 * the repeat path's bookkeeping, and the records' plain forms where they
 * apply. Returns 1 when it gave the cycle. */
int etm_fast_other(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e);
/* After a reference cycle that etm_fast_other did not give. */
void etm_fast_after(etm_ctx_t *ctx, const etm_out_t *out, etm_err_t e);
/* The same for a watching instance (etm_watch_step). */
int etm_fast_watch(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen, etm_err_t *e);
void etm_fast_watch_after(etm_ctx_t *ctx, const etm_seen_t *seen, etm_err_t e);

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
