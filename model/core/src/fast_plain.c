/* fast_plain.c - the speed engine's plain-cycle path and its forms for
 * records (fast.h has the contract; docs/performance.md, "The plain-cycle
 * path").
 *
 * Most cycles of a program traced without data and without filtering are
 * plain: no instruction, or one (with an IT folded after it) that is not an
 * exception entry or a return, with no cancel, no DWT match, no data
 * transfer, no APB access, while trace is on and nothing waits. Such a cycle
 * breaks no rule, sends no packet of its own but the branch address when its
 * instruction is a traced branch's target, and leaves TraceEnable on: it is
 * the stages' plain steps (fast_steps.h) and the FIFO's cycle, in the
 * reference cycle's order, with the same outputs, state and statistics.
 * Which inputs a plain cycle may carry is one list, the ETM_FAST lines of
 * signals.def (plain_masks); which state allows one is plain_state here. */
#include <stddef.h>
#include <string.h>

#include "fast_entry.h"

/* ---- What a plain cycle is ------------------------------------------------------------------ */

/* The classes of the ETM_FAST lines. */
enum { ETM_FAST_ANY, ETM_FAST_NEVER, ETM_FAST_INSN, ETM_FAST_NO_INSN, ETM_FAST_NOT_EAGER };

/* Every input is listed once (a second line for a field does not compile)... */
enum {
#define ETM_FAST(field, cls, bits) fast_listed_##field,
#include "etm/signals.def"
    fast_listed_count
};
/* ... and every input is listed. */
enum {
    fast_inputs = 0
#define ETM_IN(field, name, width, lsb, ctype, part, doc) +1
#include "etm/signals.def"
};
typedef char fast_every_input_listed[(int)fast_listed_count == (int)fast_inputs ? 1 : -1];

static const struct fast_signal {
    size_t off, size;
    uint8_t cls;
    uint64_t bits;
} fast_signals[] = {
#define ETM_FAST(field, cls, bits) { offsetof(etm_in_t, field), sizeof(((etm_in_t *)0)->field), cls, bits },
#include "etm/signals.def"
};

/* Sets the bits of field (at off, size bytes) that are in bits, in a byte
 * image of etm_in_t: the host's byte order, as a record in memory. */
static void forbid(unsigned char *img, size_t off, size_t size, uint64_t bits)
{
    unsigned char b[8];
    if (size == 1) {
        b[0] = (unsigned char)bits;
    } else if (size == 2) {
        uint16_t v = (uint16_t)bits;
        memcpy(b, &v, 2);
    } else if (size == 4) {
        uint32_t v = (uint32_t)bits;
        memcpy(b, &v, 4);
    } else {
        memcpy(b, &bits, 8);
    }
    for (size_t i = 0; i < size; i++)
        img[off + i] |= b[i];
}

/* The masks etm_fast_plain_in reads, from the ETM_FAST lines: [0] for a cycle
 * without an instruction, [1] with one. */
static void plain_masks(etm_ctx_t *ctx)
{
    unsigned char img[2][sizeof(etm_in_t)];
    memset(img, 0, sizeof img);
    for (int insn = 0; insn < 2; insn++) {
        for (size_t i = 0; i < sizeof fast_signals / sizeof fast_signals[0]; i++) {
            const struct fast_signal *s = &fast_signals[i];
            int no = s->cls == ETM_FAST_NEVER || (s->cls == ETM_FAST_INSN && !insn) ||
                     (s->cls == ETM_FAST_NO_INSN && insn) || (s->cls == ETM_FAST_NOT_EAGER && ctx->mode.ph_eager);
            if (no)
                forbid(img[insn], s->off, s->size, s->bits);
        }
        memcpy(ctx->fast.plain_forbid[insn], img[insn], sizeof(etm_in_t));
    }
}

void etm_fast_configure(etm_ctx_t *ctx)
{
    const etm_mode_t *m = &ctx->mode;
    fast_state_t *f = &ctx->fast;
    /* etm_fast_plain_in reads the record as words (fast_words.h: etm_in_t holds
     * a uint64_t, its size is a multiple of 8). */
    f->plain_cfg = (uint8_t)(m->v3 && m->enabled && !m->data_addr && !m->data_value && ctx->fsetup.plain &&
                             !f->plain_off && sizeof(etm_in_t) % 8 == 0);
    f->plain_go = 0; /* the next cycle finds out */
    plain_masks(ctx);
    memset(&f->plain_out, 0, sizeof f->plain_out);
    f->plain_out.pready = 1;
    f->plain_out.trace_enable = 1;
    f->plain_out.fifofull = (uint8_t)(m->fifo_depth < m->fifofull_level); /* as FIFOFULL with nothing held */
}

void etm_fast_reset(etm_ctx_t *ctx)
{
    fast_state_t *f = &ctx->fast;
    f->rp_on = f->rp_have = f->rp_run = f->rp_wait = f->rp_backoff = 0;
    f->rp_miss = f->rp_pause = 0;
    f->rp_count = 0;
    f->plain_count = 0;
    f->around = 0;
    f->tail_plain = 0;
    memset(&f->rp_in, 0, sizeof f->rp_in);
}

void etm_fast_leave(etm_ctx_t *ctx)
{
    ctx->fast.rp_on = 0;
    ctx->fast.plain_go = 0;
}

/* The plain cycle's instruction is a traced branch's target (as the frontend
 * says: ETMIBRANCH with ETMIINDBR, or with branch broadcast). */
static inline int plain_target(const etm_ctx_t *ctx, const etm_in_t *in)
{
    return in->ivalid && in->ibranch && (in->iindbr || ctx->mode.branch_broadcast);
}

/* ---- The plain steps ------------------------------------------------------------------------ */

/* etm_edge_begin for a plain cycle: no rule broken, no APB access. */
static inline void plain_edge_begin(etm_ctx_t *ctx, const etm_in_t *in)
{
    fast_check_step(&ctx->chk, in->ivalid);
    ctx->rg.setup_q = 0;
    ctx->nlast = 0;
    ctx->last_mask = 0;
    ctx->st.violations = ctx->chk.total;
    ctx->st.cycles++;
}

/* What every plain step begins with: the outputs as plain_out holds them (the
 * FIFO's cycle writes its own over them), etm_edge_begin without a rule or an
 * access, the cycle's natoms instructions counted, and the filter's plain
 * step. Returns counter 1's reload (filter_out_t's cnt_reload). */
static ETM_INLINE uint8_t plain_begin(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, etm_out_t *out)
{
    *out = ctx->fast.plain_out;
    plain_edge_begin(ctx, in);
    ctx->st.instructions += natoms;
    uint8_t reload = fast_filter_step(&ctx->flt, &ctx->fsetup, in);
    ctx->st.counter_reloads += reload;
    return reload;
}

/* etm_commit_cycle for a plain cycle that put no byte (fast_packet_quick):
 * the FIFO's cycle with nothing to stage, which always fits, and what
 * etm_commit_cycle counts of an empty cycle buffer. With the FIFO idle, the
 * outputs are plain_out's as they stand. */
static ETM_INLINE void commit_quiet(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    if (etm_fifo_idle(&ctx->fifo)) {
        etm_fifo_idle_cycle(&ctx->fifo, &ctx->mode, in, out);
        ctx->st.fifofull_cycles += ctx->fast.plain_out.fifofull; /* not out's: just written whole */
    } else {
        static const uint8_t nothing[1] = { 0 };
        (void)etm_fifo_cycle_full(&ctx->fifo, &ctx->mode, in, nothing, 0, out);
        out->overflow = ctx->pk.ovf_q;
        ctx->st.port_bytes += out->v3_count;
        ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
        etm_commit_fifofull(ctx, out);
    }
    etm_packet_accepted_n(&ctx->pk, &ctx->mode, 0, 0);
}

/* A plain cycle that puts bytes (a branch address, a P-header): its packets
 * through a cycle buffer into the FIFO. Out of line: the cycle buffer needs a
 * frame the commoner cycle without bytes does not. */
ETM_NOINLINE static etm_err_t plain_bytes(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, int target,
                                          etm_out_t *out)
{
    const uint8_t exec[2] = { (uint8_t)!in->iccfail, 1 }; /* a folded IT always executes */
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    fast_packet_step(&ctx->pk, &ctx->mode, natoms, exec, target, in->ia & ~1u, &c);
    etm_commit_cycle(ctx, in, ctx->pk.started_q, &c, out);
    etm_commit_fifofull(ctx, out);
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* A plain cycle without records: the check's, the filter's and the packet
 * stage's plain steps, and the FIFO's cycle. What it leaves for plain_state:
 * only an overflow or a periodic sync due can end the path (nothing else it
 * reads moves here). */
etm_err_t etm_fast_step_plain(etm_ctx_t *ETM_RESTRICT ctx, const etm_in_t *ETM_RESTRICT in,
                              etm_out_t *ETM_RESTRICT out)
{
    unsigned natoms = plain_natoms(in);
    (void)plain_begin(ctx, in, natoms, out);
    int target = plain_target(ctx, in);
    etm_err_t e = ETM_OK;
    if (fast_packet_quick(&ctx->pk, &ctx->mode, natoms, (uint8_t)!in->iccfail, target)) {
        ctx->st.atoms += natoms;
        commit_quiet(ctx, in, out);
    } else {
        e = plain_bytes(ctx, in, natoms, target, out);
    }
    etm_packet_tick(&ctx->pk, &ctx->mode);
    ctx->fast.plain_count++;
    ctx->fast.plain_go = (uint8_t)!(ctx->pk.ovf_q | ctx->pk.sync_due_q | ctx->pk.isync_due_q);
    return e;
}

/* ---- With records (PKT_QUEUE) --------------------------------------------------------------- */

/* A plain cycle's record (natoms atoms with their exec bits, the first at
 * addr, a traced branch's target or not, made in cycle): begun and its one
 * phase (atoms) run at once, as etm_records_generate would, without the
 * record: the idle cycles before it, its atoms, the FIFO's cycle (in: this
 * cycle's inputs), its cycle passing. */
ETM_NOINLINE static etm_err_t plain_record(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, const uint8_t *exec,
                                           int target, uint32_t addr, uint32_t cycle, etm_out_t *out)
{
    const etm_mode_t *m = &ctx->mode;
    cycle_buf_t c;
    cbuf_init(&c, ctx->pk.single_q);
    etm_packet_catch_up(&ctx->pk, m, cycle, &c);
    fast_packet_step(&ctx->pk, m, natoms, exec, target, addr, &c);
    etm_records_put(ctx, in, &c, out);
    ctx->pk.wsent_q += c.w;
    etm_packet_record_end(&ctx->pk, m, c.n);
    ctx->st.port_bytes += out->v3_count;
    etm_commit_fifofull(ctx, out);
    return c.overrun ? ETM_ERR_INTERNAL : ETM_OK;
}

/* step_plain with records: a cycle without instructions makes no record (the
 * cycle count moves); one with them, plain_record. */
etm_err_t etm_fast_step_plain_records(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    unsigned natoms = plain_natoms(in);
    (void)plain_begin(ctx, in, natoms, out);
    ctx->pq.te = 1; /* TraceEnable stays on */
    uint32_t cycle = ctx->pq.now++;
    etm_err_t e = ETM_OK;
    int target = plain_target(ctx, in);
    if (!natoms) {
        commit_quiet(ctx, in, out);
    } else if (fast_record_quick(&ctx->pk, &ctx->mode, cycle, natoms, (uint8_t)!in->iccfail, target)) {
        /* A record that puts no byte: the FIFO's cycle of a cycle without
         * one, its atoms counted, and its cycle passing (etm_packet_record_end
         * with no bytes). */
        ctx->st.atoms += natoms;
        commit_quiet(ctx, in, out);
        etm_packet_tick(&ctx->pk, &ctx->mode);
    } else {
        const uint8_t exec[2] = { (uint8_t)!in->iccfail, 1 }; /* a folded IT always executes */
        e = plain_record(ctx, in, natoms, exec, target, in->ia & ~1u, cycle, out);
    }
    ctx->fast.plain_count++;
    ctx->fast.plain_go = (uint8_t)(!(ctx->pk.sync_due_q | ctx->pk.isync_due_q) && ctx->fifo.slevel_q == 0);
    return e;
}

/* A plain cycle's record waits alone in the queue, the queue has room for
 * this cycle's behind it (a queue of one record has none: this cycle's is
 * lost to an overflow), and the generator is free to begin the waiting one
 * (etm_records_generate): nothing staged, nothing being generated, no gap or
 * overflow. It has one phase, its atoms (its trace was on, nothing waits in
 * the packet stage, no periodic sync falls due in the idle cycles before it):
 * a record of a plain cycle a cycle late, which plain_record's steps
 * generate. */
static inline int pq_lone_plain(const etm_ctx_t *ctx)
{
    const pk_record_t *w = &ctx->pq_rec[ctx->pq.head];
    return ctx->pq.len == 1 && ctx->mode.pkt_queue > 1 && ctx->fast.tail_plain && w->cycle == ctx->fast.tail_cycle &&
           !(ctx->pq.busy | ctx->pq.gap | ctx->pq.ovf | ctx->pq.untraced) && ctx->fifo.slevel_q == 0 &&
           ctx->mode.enabled && fast_packet_ok(&ctx->pk) && !fast_sync_due_at(&ctx->pk, &ctx->mode, w->cycle);
}

/* The record of the plain cycle of cycle pq.now was queued last. */
static inline void tail_is_plain(etm_ctx_t *ctx)
{
    ctx->fast.tail_plain = 1;
    ctx->fast.tail_cycle = ctx->pq.now;
}

/* This plain cycle's record into the queue, which has room for it, as
 * etm_records_cycle queues a record: its filter outputs a plain cycle's
 * (TraceEnable on, nothing else but counter 1's reload). */
static inline void pq_queue_plain(etm_ctx_t *ctx, const etm_in_t *in, uint8_t reload)
{
    pk_record_t *r = etm_records_tail(ctx);
    etm_frontend(&ctx->mode, in, &r->fe);
    memset(&r->flt, 0, sizeof r->flt);
    r->flt.trace_enable = 1;
    r->flt.cnt_reload = reload;
    r->cycle = ctx->pq.now;
    etm_records_queued(ctx);
    tail_is_plain(ctx);
}

/* etm_records_cycle for a plain cycle with instructions when pq_lone_plain:
 * this cycle's record queued behind the waiting one, which is generated (a
 * code stream busy enough to keep one record waiting, cycle after cycle,
 * after bytes were staged). */
ETM_NOINLINE static etm_err_t pq_shift(etm_ctx_t *ctx, const etm_in_t *in, uint8_t reload, etm_out_t *out)
{
    pq_queue_plain(ctx, in, reload);
    ctx->pq.now++;
    ctx->pq.te = 1;
    const pk_record_t *w = &ctx->pq_rec[ctx->pq.head];
    ctx->pq.head = (uint8_t)((ctx->pq.head + 1u) % ETM_MAX_PKT_QUEUE);
    ctx->pq.len--; /* one record waits, as before */
    const fe_cycle_t *fe = &w->fe;
    const uint8_t exec[2] = { fe->atom[0].exec, (uint8_t)(fe->natoms > 1 ? fe->atom[1].exec : 0) };
    return plain_record(ctx, in, fe->natoms, exec, fe->atom[0].target, fe->atom[0].addr, w->cycle, out);
}

/* Bytes are staged: the generator begins nothing in this cycle
 * (etm_records_generate), whatever waits; the queue has room for this plain
 * cycle's record, and no overflow is under way or untraced. */
static inline int pq_staged_ok(const etm_ctx_t *ctx)
{
    return ctx->fifo.slevel_q != 0 && !(ctx->pq.ovf | ctx->pq.untraced) && ctx->pq.len < ctx->mode.pkt_queue &&
           ctx->mode.enabled;
}

/* etm_records_cycle for a plain cycle when pq_staged_ok: its record queued
 * (when it has instructions), and the FIFO's cycle with no new bytes. */
ETM_NOINLINE static etm_err_t pq_staged(etm_ctx_t *ctx, const etm_in_t *in, unsigned natoms, uint8_t reload,
                                        etm_out_t *out)
{
    if (natoms)
        pq_queue_plain(ctx, in, reload);
    ctx->pq.now++;
    ctx->pq.te = 1;
    static const uint8_t no_bytes[1] = { 0 };
    static const uint64_t no_ends[1] = { 0 };
    etm_fifo_cycle_rec(&ctx->fifo, &ctx->mode, in, no_bytes, 0, no_ends, out);
    ctx->st.staged_cycles += ctx->fifo.slevel_q != 0;
    etm_packet_accepted_n(&ctx->pk, &ctx->mode, 0, 0);
    out->overflow = 0;
    ctx->st.port_bytes += out->v3_count;
    etm_commit_fifofull(ctx, out);
    ctx->fast.plain_go = (uint8_t)plain_state(ctx);
    return ETM_OK;
}

etm_err_t etm_fast_step_plain_queued(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out)
{
    unsigned natoms = plain_natoms(in);
    uint8_t reload = plain_begin(ctx, in, natoms, out);
    if (natoms && pq_lone_plain(ctx))
        return pq_shift(ctx, in, reload, out); /* (plain_state stays 0: a record waits) */
    if (pq_staged_ok(ctx))
        return pq_staged(ctx, in, natoms, reload, out);
    filter_out_t fo;
    memset(&fo, 0, sizeof fo);
    fo.trace_enable = 1;
    fo.cnt_reload = reload;
    fe_cycle_t fe;
    etm_frontend(&ctx->mode, in, &fe);
    uint32_t cycle = ctx->pq.now;
    if (etm_records_cycle(ctx, in, &fe, &fo, out)) {
        ctx->fast.tail_plain = 1;
        ctx->fast.tail_cycle = cycle;
    }
    ctx->fast.plain_go = (uint8_t)plain_state(ctx);
    return ETM_OK;
}

/* ---- The engine's entry (fast_entry.h) ------------------------------------------------------ */

int etm_fast_plain_tried(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out, etm_err_t *e, int quiet)
{
    etm_fast_snap(ctx);
    if (!plain_takes(ctx, in))
        return to_reference(&ctx->fast, 1, quiet);
    *e = ctx->mode.pkt_queue ? etm_fast_step_plain_records(ctx, in, out) : etm_fast_step_plain(ctx, in, out);
    if (etm_fast_judge(ctx, *e))
        ctx->fast.rp_out = *out;
    etm_fast_quiet(ctx, quiet);
    return 1;
}

void etm_fast_tried(etm_ctx_t *ctx, const etm_out_t *out, const etm_seen_t *seen, etm_err_t e)
{
    if (!etm_fast_judge(ctx, e))
        return;
    if (out)
        ctx->fast.rp_out = *out;
    else
        ctx->fast.rp_seen = *seen;
}

/* ---- A watching instance -------------------------------------------------------------------- */

/* etm_watch_step's edge for a plain cycle: the interface check's and the
 * filter's plain steps, and what the reference records of such a cycle (the
 * frontend's atoms: the instruction, maybe a traced branch's target, and a
 * folded IT; trace on; no trigger, data, exception or cancel). */
static etm_err_t watch_plain(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *s)
{
    plain_edge_begin(ctx, in);
    fast_filter_step(&ctx->flt, &ctx->fsetup, in); /* a watching instance counts no reloads */
    memset(s, 0, sizeof *s);
    s->running = 1;
    s->trace_enable = 1;
    if (in->ivalid) {
        uint32_t a = in->ia & ~1u;
        s->ninsn = (uint8_t)(1u + (in->fold != 0));
        s->insn[0].addr = a;
        s->insn[0].exec = (uint8_t)!in->iccfail;
        s->insn[0].indirect = (uint8_t)plain_target(ctx, in);
        s->insn[0].branch = (uint8_t)(in->ibranch != 0);
        if (in->fold) {
            s->fold = 1;
            s->insn[1].addr = a + 2;
            s->insn[1].exec = 1;
        }
    }
    s->flush = in->flush;
    s->trace_id = ctx->mode.trace_id;
    s->etmcr = ctx->cfg.etmcr;
    ctx->fast.plain_count++;
    return ETM_OK;
}

int etm_fast_watch(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen, etm_err_t *e)
{
    fast_state_t *f = &ctx->fast;
    if (f->rp_on) { /* the repeat path, as in etm_fast_step */
        if (rec_same(in, &f->rp_in) && etm_fast_repeat(ctx)) {
            *seen = f->rp_seen;
            *e = ETM_OK;
            return 1;
        }
        f->rp_on = 0;
    }
    int quiet;
    int tried = etm_fast_before(ctx, in, &quiet);
    if (tried)
        etm_fast_snap(ctx);
    if (plain_front_state(ctx) && etm_fast_plain_in(ctx, in)) {
        *e = watch_plain(ctx, in, seen);
        if (tried && etm_fast_judge(ctx, *e))
            f->rp_seen = *seen;
        etm_fast_quiet(ctx, quiet);
        return 1;
    }
    return to_reference(f, tried, quiet);
}


uint64_t etm_plain_cycles(const etm_ctx_t *ctx) { return ctx->fast.plain_count; }
