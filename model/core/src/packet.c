/* packet.c - stage `packet`: the ETMv3 packet stream around the P-headers:
 * branch addresses (original and alternative encodings, exception bytes),
 * A-sync, I-sync with and without cycle count, periodic synchronisation,
 * trigger, exception return, and the restart after a FIFO overflow.
 *
 * Within a cycle the packets go out in this order (docs/etmv3-encoder.md):
 *   1. trigger (0x0C) after everything gathered so far;
 *   2. trace turned off: everything gathered is sent;
 *   3. ETMCANCEL: the cancelled atom is separated into a header of its own;
 *   4. ETMFLUSH: with PH_EAGER=1, the atoms gathered are sent (by default
 *      a flush hint closes nothing: the branch packet that may follow does);
 *   5. for the cycle's first instruction: the I-sync that starts or restarts
 *      trace, or the exception return packet and the branch address packet of
 *      a traced branch or exception; then a periodic A-sync and I-sync if due;
 *   6. the cycle's W and atoms (a branch packet between them when the second
 *      instruction of the cycle is a branch target).
 * With data trace, the cycle's value comes before 1 and its transfer after 6
 * (dpacket.c).
 */
#include <string.h>

#include "packet.h"

void etm_packet_reset(packet_state_t *s)
{
    memset(s, 0, sizeof *s);
    s->isync_reason_q = ETMV3_ISYNC_REASON_TRACE_ON;
    ph_reset(&s->ph);
    dp_reset(&s->dp);
}

unsigned etm_v3_branch_packet(uint8_t *out, uint32_t from, uint32_t to, int alt, int exc, int cancel)
{
    uint32_t d = (from ^ to) & ~1u;
    unsigned n;
    if (alt)
        n = d < (1u << 7) ? 1 : d < (1u << 13) ? 2 : d < (1u << 20) ? 3 : d < (1u << 27) ? 4 : 5;
    else
        n = d < (1u << 7) ? 1 : d < (1u << 14) ? 2 : d < (1u << 21) ? 3 : d < (1u << 28) ? 4 : 5;
    int x = exc >= 0;
    if (x)
        n = alt ? (n < 2 ? 2 : n) : 5; /* exception bytes need the E flag of a later byte */
    unsigned k = 0;
    out[k++] = (uint8_t)((n > 1 ? 0x80 : 0) | ((to >> 1) & 0x3f) << 1 | 1);
    for (unsigned i = 1; i < n && i < 4; i++) {
        int last = i == n - 1;
        if (alt && last) /* alternative encoding: the last of bytes 1-3 has E and 6 address bits */
            out[k++] = (uint8_t)((unsigned)x << 6 | ((to >> (7 * i)) & 0x3f));
        else
            out[k++] = (uint8_t)((last ? 0 : 0x80) | ((to >> (7 * i)) & 0x7f));
    }
    if (n == 5) /* 0 E 0 1 A[31:28]: Thumb state */
        out[k++] = (uint8_t)((unsigned)x << 6 | 0x10 | (to >> 28));
    if (x) {
        int big = exc >= 16;
        out[k++] = (uint8_t)((big ? 0x80 : 0) | (cancel ? 0x20 : 0) | (exc & 0xf) << 1);
        if (big)
            out[k++] = (uint8_t)((exc >> 4) & 0x1f);
    }
    return k;
}

static void put_bytes(cycle_buf_t *c, const uint8_t *b, unsigned n)
{
    cbuf_put_bytes(c, b, n);
    c->last_single = 0;
}

/* With data trace, the transfers still waiting for their values get their
 * placeholders before the first P-header with atoms put since the last look
 * (cbuf.h, atoms_at): called before anything that reads or changes the data
 * stage, so that they are made as they would have been at that header. */
static void data_sync(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c)
{
    if (c->atoms_at == CBUF_NO_MARK)
        return;
    if (m->data_addr || m->data_value)
        dp_place_at(&s->dp, m, c, c->atoms_at);
    c->atoms_at = CBUF_NO_MARK;
}

static void put_async(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c)
{
    data_sync(s, m, c);
    static const uint8_t async[6] = { 0, 0, 0, 0, 0, ETMV3_HDR_ASYNC_LAST };
    put_bytes(c, async, 6);
    cbuf_kind(c, ETM_PKT_ASYNC);
    s->dp.dfull_q = 1; /* D-sync: the next data address is full */
    s->started_q = 1;
    s->sync_due_q = 0;
    s->sync_count_q = 0;
}

static void put_branch(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c, uint32_t to, int exc, int cancel)
{
    uint8_t b[8];
    /* BRANCH_FULL: compressed against an address that differs in every bit. */
    uint32_t from = m->branch_full ? ~to : s->last_addr_q;
    unsigned n = etm_v3_branch_packet(b, from, to, m->alt_branch, exc, cancel);
    put_bytes(c, b, n);
    cbuf_kind(c, exc >= 0 ? ETM_PKT_BRANCH_EXC : ETM_PKT_BRANCH);
    s->last_addr_q = to & ~1u;
}

/* I-sync for the instruction at addr. cc < 0: no cycle count. */
static void put_isync(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c, unsigned reason, uint32_t addr,
                      int64_t cc)
{
    data_sync(s, m, c);
    uint8_t b[16];
    unsigned k = 0;
    if (cc >= 0) {
        uint32_t v = (uint32_t)cc;
        b[k++] = ETMV3_HDR_ISYNC_CC;
        for (int i = 0; i < 5; i++) {
            uint8_t x = (uint8_t)(v & 0x7f);
            v >>= 7;
            if (i == 4) {
                b[k++] = (uint8_t)(x & 0x0f);
                break;
            }
            b[k++] = (uint8_t)(x | (v ? 0x80 : 0));
            if (!v)
                break;
        }
        c->w += (uint32_t)cc;
    } else {
        b[k++] = ETMV3_HDR_ISYNC;
    }
    b[k++] = (uint8_t)(reason << 5 | m->isync_info); /* info: LSiP 0, J 0, NS 0, AltISA 0, Hyp 0; ISYNC_INFO */
    uint32_t a = (addr & ~1u) | 1u;  /* bit 0: Thumb */
    b[k++] = (uint8_t)a;
    b[k++] = (uint8_t)(a >> 8);
    b[k++] = (uint8_t)(a >> 16);
    b[k++] = (uint8_t)(a >> 24);
    put_bytes(c, b, k);
    cbuf_kind(c, cc >= 0 ? ETM_PKT_ISYNC_CC : ETM_PKT_ISYNC);
    s->last_addr_q = addr & ~1u;
    if (reason != ETMV3_ISYNC_REASON_PERIODIC)
        s->dp.dfull_q = 1;
    s->isync_wait_q = 0; /* (SYNC_PLACEMENT=1) the periodic A-sync's I-sync, or one that serves for it */
    s->isync_due_q = 0;
}

static void put_trigger(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c)
{
    if (!s->started_q)
        put_async(s, m, c);
    ph_close_all(&s->ph, m, c);
    cbuf_put(c, ETMV3_HDR_TRIGGER);
    c->last_single = 0;
    cbuf_kind(c, ETM_PKT_TRIGGER);
}

/* instr_cycle's step 5 for a target that is no exception entry or return,
 * with no cancel and no trigger waiting. */
void etm_packet_plain_branch(packet_state_t *s, const etm_mode_t *m, uint32_t to, cycle_buf_t *c)
{
    ph_close_atoms(&s->ph, m, c);
    put_branch(s, m, c, to, -1, 0);
}

/* Cycles since the last W or count that was sent (this cycle's bytes
 * included), not counting this cycle: its instruction brings its own W. */
static uint32_t cycles_unsent(const packet_state_t *s, const cycle_buf_t *c)
{
    return s->wtotal_q - s->wsent_q - c->w;
}

/* A cycle's steps 1 to 6 fall into four phases, each run when its test
 * holds (tested in this order, each on the state the phases before it left):
 *   events: steps 1 to 4, when the cycle has a trigger, a cancel, a flush
 *     that closes headers, or TraceEnable off (which ends the cycle);
 *   first: step 5 for a first instruction that restarts trace, enters or
 *     returns from an exception, or meets a cancel or trigger waiting;
 *   periodic: step 5's periodic A-sync and I-sync;
 *   atoms: step 6.
 * A plain branch target's packet (step 5 when first does not run) goes with
 * the first of periodic and atoms.
 * Run one after the other they are instr_cycle; a generator that spends a
 * clock on each phase stops between them with the same state. */
/* A trigger, a cancel or a flush that closes headers: phase events' work
 * with TraceEnable on. */
static int events_on(const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt)
{
    return flt->trigger || fe->cancel || (fe->flush && m->ph_eager);
}

static int phase_events(const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt)
{
    return !flt->trace_enable || events_on(m, fe, flt);
}

static int phase_first(const packet_state_t *s, const fe_cycle_t *fe)
{
    return fe->natoms && (!s->active_q || fe->entry || fe->ret || s->cancel_q || s->trig_pend_q);
}

/* (SYNC_PLACEMENT=1: the A-sync went out where a header closed, sync_close;
 * the I-sync follows when due.) */
static int phase_periodic(const packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe)
{
    return fe->natoms && (m->sync_m3 ? s->isync_due_q : s->sync_due_q);
}

static int phase_atoms(const packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe)
{
    return fe->natoms || (s->active_q && m->cycle_accurate);
}

/* SYNC_PLACEMENT=1: a periodic A-sync goes in where the P-header has closed by
 * itself (at an N atom or at 15 E, at a flush hint with PH_EAGER, or before
 * the branch packet of a target) and no atom has come since; its I-sync half a
 * sync period later (phase periodic). */
static void sync_close(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c)
{
    if (!(m->sync_m3 && s->sync_due_q && s->active_q && s->ph.open_q == PH_OPEN_NONE))
        return;
    ph_close_atoms(&s->ph, m, c); /* a header held back for a cancel (PH_PACKING=0) goes first */
    put_async(s, m, c);
    s->isync_wait_q = 1;
    s->isync_due_q = 0;
}

/* Steps 1 to 4; returns 0 when TraceEnable is off (nothing more in the cycle). */
static int run_events(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                      cycle_buf_t *c, etm_stats_t *st)
{
    /* 1. Trigger (TRACE_START=1: before the first atom after a restart it
     * waits for that atom's header, as behind a cancel). */
    if (flt->trigger) {
        if (s->cancel_q || (m->trace_start && !s->active_q))
            s->trig_pend_q = 1;
        else
            put_trigger(s, m, c);
    }

    /* 2. Trace off. */
    if (!flt->trace_enable) {
        if (s->active_q) {
            ph_close_all(&s->ph, m, c);
            s->active_q = 0;
            s->isync_reason_q = ETMV3_ISYNC_REASON_TRACE_ON;
            s->cancel_q = 0;
        }
        return 0;
    }

    if (s->active_q) {
        /* 3. Cancel: the cancelled atom alone in its header, the exception
         * packet right after it. */
        if (fe->cancel) {
            if (!m->cancel_withdraw && !ph_isolate_last(&s->ph, m, c))
                st->untraceable++;
            s->cancel_q = 1;
        }
        /* 4. Flush hint: closing here only lowers latency (PH_EAGER); a
         * periodic A-sync may go where it closed (SYNC_PLACEMENT=1). */
        if (fe->flush && m->ph_eager && !s->cancel_q) {
            ph_close_atoms(&s->ph, m, c);
            sync_close(s, m, c);
        }
    }
    return 1;
}

/* A trigger that waited behind a cancel goes out once the cancel is resolved. */
static void trigger_after_cancel(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c)
{
    if (s->trig_pend_q) {
        put_trigger(s, m, c);
        s->trig_pend_q = 0;
    }
}

/* Step 5 for the cases of phase_first. Before ETMv3.4 an exception byte holds
 * numbers 0-15 only (IHI 0014Q 7.5.1): a higher one is traced as a plain
 * branch to the handler and counted as untraceable. */
static void run_first(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, cycle_buf_t *c, etm_stats_t *st)
{
    const fe_atom_t *a0 = &fe->atom[0];
    int exc = fe->entry ? (int)fe->exc : -1;
    if (exc >= 16 && !m->exc_ext) {
        exc = -1;
        st->untraceable++;
    }
    if (!s->active_q) {
        /* Trace starts (or restarts after an overflow or a gap): A-sync when
         * none was sent yet or one is due, then an I-sync for this instruction.
         * Data transfers still waiting for their values are placed first. */
        if (m->data_addr || m->data_value) {
            data_sync(s, m, c);
            dp_place_all(&s->dp, m, c);
        }
        if (!s->started_q || s->sync_due_q)
            put_async(s, m, c);
        put_isync(s, m, c, s->isync_reason_q, a0->addr, m->cycle_accurate ? (int64_t)cycles_unsent(s, c) : -1);
        s->active_q = 1;
        s->cancel_q = 0;
        s->first_q = (uint8_t)m->trace_start; /* the first atom alone (run_atoms) */
        if (fe->entry && exc >= 0) /* the exception itself is still worth telling */
            put_branch(s, m, c, a0->addr, exc, 0);
    } else if (a0->target || fe->entry || fe->ret) {
        ph_close_atoms(&s->ph, m, c);
        if ((fe->ret && m->exc_ext) || (fe->entry && s->exited_q && m->tailchain_return)) {
            /* (TAILCHAIN_RETURN=1: an entry after an exit without a return is
             * a tail-chain, and the handler left returns first.) */
            cbuf_put(c, ETMV3_HDR_EXC_RETURN);
            c->last_single = 0;
            cbuf_kind(c, ETM_PKT_EXC_RETURN);
        } else if (fe->ret) {
            st->untraceable++; /* no exception-return packet before ETMv3.4 */
        }
        put_branch(s, m, c, a0->addr, exc, exc >= 0 && s->cancel_q);
        if (s->cancel_q && !fe->entry)
            st->untraceable++; /* a cancel that no exception followed */
        s->cancel_q = 0;
        trigger_after_cancel(s, m, c);
    } else if (s->cancel_q) { /* cancelled, but no exception came: the atom stays */
        st->untraceable++;
        s->cancel_q = 0;
        trigger_after_cancel(s, m, c);
    }
}

/* Step 5 for a plain branch target, when phase first did not run: the
 * branch packet goes with the phase after it, periodic or atoms. */
static void plain_target(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, int branch_done, cycle_buf_t *c)
{
    if (!branch_done && fe->atom[0].target)
        etm_packet_plain_branch(s, m, fe->atom[0].addr, c);
}

/* Step 5's periodic synchronisation, after any branch packet (first: phase
 * first ran). */
static void run_periodic(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, int first, cycle_buf_t *c)
{
    plain_target(s, m, fe, first, c);
    ph_close_atoms(&s->ph, m, c);
    if (!m->sync_m3)
        put_async(s, m, c);
    put_isync(s, m, c, ETMV3_ISYNC_REASON_PERIODIC, fe->atom[0].addr, -1);
}


/* Step 5 for a plain branch target (branch_done: phase first or periodic
 * ran), then step 6: W and atoms. */
static void run_atoms(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, int branch_done,
                      cycle_buf_t *c, etm_stats_t *st)
{
    const fe_atom_t *a0 = &fe->atom[0];
    if (fe->natoms == 0) { /* cycle-accurate, trace on: the cycle's W */
        ph_cycle(&s->ph, m, 0, NULL, c);
        return;
    }
    plain_target(s, m, fe, branch_done, c);
    sync_close(s, m, c); /* after a branch packet, before the atoms (SYNC_PLACEMENT=1) */
    s->dp.newest_q = 1;
    c->atoms = fe->natoms;
    int second_branch = fe->natoms == 2 && fe->atom[1].target;
    uint8_t ex[2] = { a0->exec, (uint8_t)(fe->natoms > 1 ? fe->atom[1].exec : 0) };
    unsigned done = 0; /* atoms already in the P-headers */
    if (s->first_q) {
        /* TRACE_START=1: the first atom after a restart in a header of its
         * own, then a trigger that waited for it. Cycle-accurate, the header
         * is the first cycle's (one W): its two atoms together, since an atom
         * of the same cycle in the next header would take a W of its own. */
        done = m->cycle_accurate && fe->natoms == 2 && !second_branch ? 2 : 1;
        ph_cycle(&s->ph, m, done, ex, c);
        ph_close_atoms(&s->ph, m, c);
        s->first_q = 0;
        trigger_after_cancel(s, m, c);
    }
    if (second_branch) {
        if (!done)
            ph_cycle(&s->ph, m, 1, ex, c);
        ph_close_atoms(&s->ph, m, c);
        put_branch(s, m, c, fe->atom[1].addr, -1, 0);
        if (!ph_atom_nowait(&s->ph, m, fe->atom[1].exec, c))
            st->untraceable++; /* needs format 4: ETMv3.3 and later */
    } else if (fe->natoms > done) {
        ph_cycle(&s->ph, m, fe->natoms - done, ex + done, c);
    }
    sync_close(s, m, c);
}

/* Whether phase p applies, on the state the phases before it left. */
static int phase_applies(const packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                         unsigned p)
{
    switch (p) {
    case PK_PHASE_EVENTS:
        return phase_events(m, fe, flt);
    case PK_PHASE_FIRST:
        return phase_first(s, fe);
    case PK_PHASE_PERIODIC:
        return phase_periodic(s, m, fe);
    default:
        return phase_atoms(s, m, fe);
    }
}

/* The first phase from p on that applies, PK_PHASE_DONE when none does.
 * TraceEnable off ends the cycle at events (run_events), so the later
 * phases are tested with TraceEnable on. */
static unsigned phase_next(const packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe,
                           const filter_out_t *flt, unsigned p)
{
    for (; p < PK_PHASE_DONE; p++)
        if (phase_applies(s, m, fe, flt, p))
            return p;
    return PK_PHASE_DONE;
}

/* Runs phase p; returns the phase to test next (PK_PHASE_DONE: the cycle
 * ends). *branch_done: phase first or periodic ran (a plain branch target's
 * packet went with it). */
static unsigned phase_run(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                          unsigned p, uint8_t *branch_done, cycle_buf_t *c, etm_stats_t *st)
{
    switch (p) {
    case PK_PHASE_EVENTS:
        return run_events(s, m, fe, flt, c, st) ? PK_PHASE_FIRST : PK_PHASE_DONE;
    case PK_PHASE_FIRST:
        run_first(s, m, fe, c, st);
        *branch_done = 1;
        return PK_PHASE_PERIODIC;
    case PK_PHASE_PERIODIC:
        run_periodic(s, m, fe, *branch_done, c);
        *branch_done = 1;
        return PK_PHASE_ATOMS;
    default:
        run_atoms(s, m, fe, *branch_done, c, st);
        return PK_PHASE_DONE;
    }
}

/* A cycle with an exception's exit and no instruction: an entry before the
 * next return tail-chains (TAILCHAIN_RETURN). */
static void note_exit(packet_state_t *s, const fe_cycle_t *fe)
{
    if (!fe->natoms && fe->exit)
        s->exited_q = 1;
}

/* Steps 1 to 6: the instruction trace of the cycle, every phase at once. */
static void instr_cycle(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                        cycle_buf_t *c, etm_stats_t *st)
{
    uint8_t branch_done = 0;
    unsigned p = PK_PHASE_EVENTS;
    note_exit(s, fe);
    while ((p = phase_next(s, m, fe, flt, p)) != PK_PHASE_DONE)
        p = phase_run(s, m, fe, flt, p, &branch_done, c, st);
    if (fe->natoms)
        s->exited_q = 0;
}

/* ---- The packet generator's records (PKT_QUEUE > 0) ----------------------------------------- */

int etm_packet_wants(const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt, uint8_t *te_last)
{
    int off = !flt->trace_enable && *te_last;
    *te_last = flt->trace_enable;
    return fe->natoms || events_on(m, fe, flt) || off || (fe->exit && m->tailchain_return);
}

void etm_packet_catch_up(packet_state_t *s, const etm_mode_t *m, uint32_t cycle, cycle_buf_t *c)
{
    /* The cycles since the last record's: none had anything for this stage
     * but, cycle-accurate with trace on, its W (TraceEnable was on in all of
     * them, or a record would have turned it off). */
    uint32_t n = cycle - s->wtotal_q;
    if (s->active_q && m->cycle_accurate)
        ph_idle(&s->ph, m, n, c);
    etm_packet_tick_n(s, m, n);
}

void etm_packet_begin(packet_state_t *s, const etm_mode_t *m, pk_gen_t *g, cycle_buf_t *c)
{
    etm_packet_catch_up(s, m, g->rec.cycle, c);
    note_exit(s, &g->rec.fe);
    g->phase = (uint8_t)phase_next(s, m, &g->rec.fe, &g->rec.flt, PK_PHASE_EVENTS);
    g->branch_done = 0;
    g->bytes = 0;
}

int etm_packet_phase(packet_state_t *s, const etm_mode_t *m, pk_gen_t *g, cycle_buf_t *c, etm_stats_t *st)
{
    const fe_cycle_t *fe = &g->rec.fe;
    if (g->phase != PK_PHASE_DONE) {
        unsigned p = phase_run(s, m, fe, &g->rec.flt, g->phase, &g->branch_done, c, st);
        g->phase = (uint8_t)phase_next(s, m, fe, &g->rec.flt, p);
    }
    if (g->phase == PK_PHASE_DONE && fe->natoms)
        s->exited_q = 0;
    return g->phase == PK_PHASE_DONE;
}

void etm_packet_record_end(packet_state_t *s, const etm_mode_t *m, uint32_t bytes)
{
    /* The record's cycle passes; the bytes of all its phases count towards a
     * periodic sync only now, as a cycle's bytes do after the cycle. */
    etm_packet_tick(s, m);
    etm_packet_accepted_n(s, m, bytes, 0); /* (its W atoms were counted phase by phase) */
}

void etm_packet_gap(packet_state_t *s)
{
    /* Records were lost after the last one generated. What it left gathered
     * is dropped as an overflow drops it: the last atom may belong to an
     * instruction that a lost record cancelled. Trace restarts with an I-sync,
     * reason overflow, whose cycle count covers every cycle whose W was not
     * sent; a trigger waiting behind a cancel is lost with the records. */
    etm_packet_overflow(s);
    s->ovf_q = 0; /* the queue's front keeps the overflow (etm.c) */
}

/* The cycle's transfer, after its instructions' packets: at an instruction's
 * first traced transfer the atoms gathered (its own among them) go out
 * first. */
static void data_address(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                         unsigned xfer, cycle_buf_t *c)
{
    data_sync(s, m, c);
    unsigned k = dp_address_begin(&s->dp, m, fe, flt, xfer, c);
    if (k == DP_ADDR_NONE)
        return;
    if (k == DP_ADDR_FIRST) {
        ph_close_atoms(&s->ph, m, c);
        data_sync(s, m, c);
    }
    dp_address_put(&s->dp, m, fe, flt, c);
}

void etm_packet_cycle(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                      int fifo_empty, cycle_buf_t *c, etm_stats_t *st)
{
    int data = m->data_addr || m->data_value;
    unsigned xfer = data ? dp_sequence(&s->dp, fe) : (unsigned)DP_XFER_NONE;
    if (!m->enabled)
        return;
    /* After an overflow nothing is traced until the FIFO has drained. */
    if (s->ovf_q) {
        if (!fifo_empty) {
            st->cycles_lost++;
            return;
        }
        s->ovf_q = 0;
    }
    if (!data) {
        instr_cycle(s, m, fe, flt, c, st);
        return;
    }
    dp_values(&s->dp, m, fe, c);
    if (fe->natoms)
        s->dp.newest_q = 0; /* until step 6 says the cycle's instructions are traced */
    instr_cycle(s, m, fe, flt, c, st);
    data_address(s, m, fe, flt, xfer, c);
    data_sync(s, m, c);
}

void etm_packet_overflow(packet_state_t *s)
{
    /* Everything gathered is lost with the cycle's bytes. Trace restarts with an
     * I-sync, reason overflow, once the FIFO is empty; its cycle count covers
     * every cycle whose W was not sent. */
    ph_reset(&s->ph);
    dp_drop(&s->dp);
    s->ovf_q = 1;
    s->active_q = 0;
    s->isync_reason_q = ETMV3_ISYNC_REASON_OVERFLOW;
    s->cancel_q = 0;
    s->trig_pend_q = 0;
    s->first_q = 0;
    s->isync_wait_q = 0;
    s->isync_due_q = 0;
}

void etm_packet_end(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c)
{
    dp_drop(&s->dp); /* values that never came: those transfers are not traced */
    if (s->active_q)
        ph_close_all(&s->ph, m, c);
}

