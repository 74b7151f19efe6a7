/* decode_v1_status.c - the ETMv1 decoder's statuses: each PIPESTAT status (or the
 * status a TR cycle carries on TRACEPKT[2:0]) with its packets, to elements.
 *
 * Instructions (IE, ID, IN) follow the code from the PC; a branch (BE, BD) finds
 * its address where FIFO order puts it, checks it against the APO, and commits.
 * A status is decoded in full before anything of it is committed, so a status
 * that waits for more cycles leaves no trace in the decoder state.
 */
#include "etm/decode_v1.h"

#include <inttypes.h>
#include <string.h>

#include "decode_v1_int.h"

/* ---- Elements ----------------------------------------------------------------------- */

static void emit(etm_v1dec_t *d, const etm_v1el_t *e)
{
    switch (e->kind) {
    case ETM_V1EL_INSN:
        d->stats.insns++;
        d->stats.executed += e->executed ? 1u : 0u;
        break;
    case ETM_V1EL_DATA:
        d->stats.data++;
        break;
    case ETM_V1EL_TRACE_ON:
        d->stats.restarts++;
        break;
    case ETM_V1EL_TRIGGER:
        d->stats.triggers++;
        break;
    default:
        break;
    }
    if (d->el_fn)
        d->el_fn(d->el_user, e);
}

static void emit_trigger(etm_v1dec_t *d, uint64_t t, etm_diag_t *diag)
{
    etm_v1el_t e;
    memset(&e, 0, sizeof e);
    e.kind = ETM_V1EL_TRIGGER;
    e.cycle = t;
    if (++d->triggers > 1)
        dv1_soft_fail(d, diag, t, "a second TR (cycle %" PRIu64 "): the trigger fires once", t);
    emit(d, &e);
}

static void emit_data(etm_v1dec_t *d, uint64_t t, uint32_t iaddr, const etm_v1_insn_t *in, const dplan_t *dp)
{
    etm_v1el_t e;
    memset(&e, 0, sizeof e);
    e.kind = ETM_V1EL_DATA;
    e.cycle = t;
    e.addr = iaddr;
    e.insn = *in;
    e.is_store = in->is_store;
    if (d->data_mode & 2u) {
        e.has_data_addr = 1;
        e.data_addr_packets = dp->an;
        if (dp->an == 5)
            d->dref_state = DREF_VALID;
        d->dref = dv1_merge_address(d->dref, dp->apk, dp->an);
        e.data_addr = d->dref;
        e.data_addr_valid = d->dref_state == DREF_VALID;
    }
    e.nbytes = dp->nbytes;
    memcpy(e.bytes, dp->bytes, dp->nbytes);
    emit(d, &e);
}

/* Checks shared by ID and BD before their data is read. With ETMCR[3:2] = 0 an
 * ID or BD owns no data packets (table 5.2: they depend on ETMCR[3:2]); table 5.1
 * gives BD to every load into the PC, traced data or not. */
static int data_insn_ok(etm_v1dec_t *d, etm_diag_t *diag, uint64_t t, unsigned st, const etm_v1_insn_t *in)
{
    if (!in->data_bytes)
        return dv1_fail(d, diag, t, t + 1,
                    "%s at cycle %" PRIu64 " for the instruction at 0x%08" PRIx32 " (opcode 0x%0*" PRIx32
                    "), which is not a load or store the decoder knows",
                    etm_v1_pipestat_name(st), t, d->pc, in->size == 4 ? 8 : 4, in->opcode);
    return P_DONE;
}

/* ---- Statuses ------------------------------------------------------------------------- */

/* The effective status of cycle c: PIPESTAT, or TRACEPKT[2:0] of a TR cycle. */
static unsigned effective(etm_v1dec_t *d, uint64_t c, int *tr)
{
    cyc_t *r = dv1_at(d, c);
    *tr = r->ps == ETM_V1_PS_TR;
    return *tr ? (r->pkt & 7u) : r->ps;
}

/* The status of cycle c: PIPESTAT, or TRACEPKT[2:0] of a TR cycle. */
static unsigned effective_status(etm_v1dec_t *d, uint64_t c)
{
    int tr;
    return effective(d, c, &tr);
}

/* An instruction status (or a branch that is no overflow restart) came after a WT in
 * which nothing left the port: that WT broke table 5.1. */
static int empty_wt_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t t, uint64_t resume)
{
    uint64_t c = d->empty_wt - 1;
    d->empty_wt = 0;
    return dv1_fail(d, diag, c, resume,
                "WT in cycle %" PRIu64 ", but no packet of a decoded status leaves in it: a wait cycle with "
                "nothing to drain is TD (only the cycle of an overflow, followed by the overflow restart, may "
                "be WT; the %s at cycle %" PRIu64 " is not that restart)",
                c, etm_v1_pipestat_name(effective_status(d, t)), t);
}

/* IE, ID, IN at cycle t (tr: it came on TRACEPKT[2:0] of a TR cycle). */
static int do_insn(etm_v1dec_t *d, uint64_t t, unsigned st, int tr, etm_diag_t *diag)
{
    etm_v1_insn_t in;
    dplan_t dp;
    pos_t p = d->cur;
    if (!d->synced) {
        if (tr)
            emit_trigger(d, t, diag);
        d->stats.unsynced_statuses++;
        d->next = t + 1;
        return P_DONE;
    }
    if (d->empty_wt)
        return empty_wt_fail(d, diag, t, t + 1);
    if (!d->pc_valid)
        return dv1_fail(d, diag, t, t + 1,
                    "%s at cycle %" PRIu64 ": the branch at cycle %" PRIu64 " left no BE to say where execution "
                    "went, so only a trace restart (a BE with a full address) may follow it",
                    etm_v1_pipestat_name(st), t, d->pc_lost);
    if (!dv1_fetch(d, d->pc, &in))
        return dv1_fail(d, diag, t, t + 1, "%s at cycle %" PRIu64 ": the code image has no instruction at 0x%08" PRIx32,
                    etm_v1_pipestat_name(st), t, d->pc);
    if (st == ETM_V1_PS_ID) {
        if (data_insn_ok(d, diag, t, st, &in) == P_ERR)
            return P_ERR;
        p = dv1_from_cycle(p, t);
        int h = dv1_read_data(d, &p, 0, &in, &dp);
        if (h != RD_OK)
            return dv1_need(d, diag, h, t, "the data packets");
    }

    /* commit */
    if (st == ETM_V1_PS_ID) {
        p = dv1_from_cycle(d->cur, t);
        dv1_read_data(d, &p, 1, &in, &dp);
        d->cur = p;
    }
    if (tr)
        emit_trigger(d, t, diag);
    etm_v1el_t e;
    memset(&e, 0, sizeof e);
    e.kind = ETM_V1EL_INSN;
    e.cycle = t;
    e.addr = d->pc;
    e.status = st;
    e.executed = st != ETM_V1_PS_IN;
    e.insn = in;
    e.trigger = tr;
    emit(d, &e);
    if (st == ETM_V1_PS_ID) {
        if ((d->data_mode & 2u) && dp.an < 5 && d->dref_state == DREF_NEED_FULL)
            dv1_soft_fail(d, diag, t,
                      "ID at cycle %" PRIu64 ": the first data address after trace (re)started has %u packets; "
                      "it must be full (5)",
                      t, dp.an);
        if (d->data_mode)
            emit_data(d, t, d->pc, &in, &dp);
    }
    /* An executed indirect branch without a BE (or, with branch output, a taken direct
     * branch without one) is the last instruction before trace turned off or ended:
     * the contract resolves a status as IE/ID when no traced target follows. Only a
     * restart can come next. */
    if (st != ETM_V1_PS_IN &&
        (in.flow == ETM_V1_FLOW_INDIRECT || (in.flow == ETM_V1_FLOW_DIRECT && d->branch_output))) {
        d->pc_valid = 0;
        d->pc_lost = t;
    } else if (st == ETM_V1_PS_IE && in.flow == ETM_V1_FLOW_DIRECT) {
        d->pc = in.target;
    } else {
        d->pc += in.size;
    }
    d->next = t + 1;
    return P_DONE;
}

/* ---- Branches ---------------------------------------------------------------------------- */

/* A BE or BD being decoded: what the steps of do_branch find out. */
typedef struct branch {
    uint64_t t;           /* cycle of the status */
    unsigned st;          /* ETM_V1_PS_BE or ETM_V1_PS_BD */
    int tr;               /* it came on TRACEPKT[2:0] of a TR cycle */
    const char *bname;
    unsigned apo, abandoned;
    int trk[3];           /* the same for the status and its two APO cycles */
    uint64_t after;       /* cycle of the next status */
    etm_v1_insn_t in;
    int have_insn;
    int no_insn;          /* the status stands for the target of an abandoned branch */
    int restart;          /* a full address with reason 1-3: no instruction */
    uint32_t traced;
    dplan_t dp;
    pos_t p0, e;          /* the status's first packet slot; where its address starts */
    uint8_t apk[5], cpk[4];
    unsigned an, reason;
    uint32_t ctx;
} branch_t;

/* The two APO cycles, or a BE/BD in one of them (the branch is abandoned). */
static int branch_apo(etm_v1dec_t *d, branch_t *b, etm_diag_t *diag)
{
    uint64_t t = b->t;
    for (unsigned k = 1; k <= 2; k++) {
        int h = dv1_have(d, t + k);
        if (h != RD_OK)
            return dv1_need(d, diag, h, t, k == 1 ? "the first APO cycle" : "the second APO cycle");
        unsigned s = effective(d, t + k, &b->trk[k]);
        if (b->trk[k] && (s == ETM_V1_PS_TR || s == ETM_V1_PS_TD))
            return dv1_fail(d, diag, t + k, t + k + 1, "TR in cycle %" PRIu64 " carries %s on TRACEPKT[2:0]; the replaced status is never TR or TD",
                        t + k, etm_v1_pipestat_name(s));
        if (s == ETM_V1_PS_BE || s == ETM_V1_PS_BD) {
            b->abandoned = k;
            break;
        }
        if (s == ETM_V1_PS_TD || s == ETM_V1_PS_TR)
            return dv1_fail(d, diag, t + k, t + k + 1,
                        "%s in cycle %" PRIu64 ", APO cycle %u of the %s at cycle %" PRIu64
                        ": an APO cycle carries {0, APO bits}",
                        etm_v1_pipestat_name(s), t + k, k, b->bname, t);
        b->apo |= (s & 3u) << (2 * (k - 1));
    }
    return P_DONE;
}

/* Before synchronisation: the branch's address starts at the (APO+1)-th
 * TRACESYNC from cycle t. */
static int branch_find_unsynced(etm_v1dec_t *d, branch_t *b, etm_diag_t *diag)
{
    uint64_t t = b->t, c = t;
    unsigned seen = 0;
    for (;; c++) {
        int h = dv1_have(d, c);
        if (h != RD_OK)
            return dv1_need(d, diag, h, t, "the branch address (TRACESYNC) the APO points to");
        if (dv1_at(d, c)->flags & F_SYNC) {
            if (seen == b->apo)
                break;
            seen++;
        }
    }
    b->e.cyc = c;
    b->e.lane = 0;
    b->p0 = b->e; /* nothing before the address is known */
    if (!dv1_drains(dv1_at(d, c)))
        return dv1_fail(d, diag, c, b->after, "TRACESYNC in cycle %" PRIu64 ", a %s cycle, which drains nothing", c,
                        etm_v1_pipestat_name(dv1_at(d, c)->ps));
    return P_DONE;
}

/* After synchronisation: the address starts where FIFO order puts it (after a BD's
 * data packets), in a cycle with TRACESYNC, and the APO counts the addresses
 * that start before it. */
static int branch_find_synced(etm_v1dec_t *d, branch_t *b, etm_diag_t *diag)
{
    uint64_t t = b->t, after = b->after;
    const char *bname = b->bname;
    unsigned apo = b->apo;
    int h;
    b->have_insn = d->pc_valid && dv1_fetch(d, d->pc, &b->in);
    b->no_insn = d->pending_abandon;
    if (!d->pc_valid && b->st == ETM_V1_PS_BD)
        return dv1_fail(d, diag, t, after,
                        "BD at cycle %" PRIu64 ": the branch at cycle %" PRIu64 " left no BE to say where execution "
                        "went, so only a trace restart (a BE with a full address) may follow it",
                        t, d->pc_lost);
    b->p0 = dv1_from_cycle(b->p0, t);
    b->e = b->p0;
    if (b->st == ETM_V1_PS_BD) {
        if (!b->have_insn)
            return dv1_fail(d, diag, t, after,
                            "BD at cycle %" PRIu64 ": the code image has no instruction at 0x%08" PRIx32
                            " to count its data packets",
                            t, d->pc);
        if (data_insn_ok(d, diag, t, b->st, &b->in) == P_ERR)
            return P_ERR;
        h = dv1_read_data(d, &b->e, 0, &b->in, &b->dp);
        if (h != RD_OK)
            return dv1_need(d, diag, h, t, "the data packets");
    }
    /* the address starts on [7:0] (16-bit port) of a cycle with TRACESYNC */
    if (d->port == 16 && b->e.lane)
        b->e.cyc++, b->e.lane = 0;
    h = dv1_norm(d, &b->e);
    if (h != RD_OK)
        return dv1_need(d, diag, h, t, "the branch address");
    if (!(dv1_at(d, b->e.cyc)->flags & F_SYNC))
        return dv1_fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 ": FIFO order puts its branch address in cycle %" PRIu64
                        ", but TRACESYNC is 0 there",
                        bname, t, b->e.cyc);
    unsigned ns = 0;
    for (uint64_t c = t; c < b->e.cyc; c++)
        ns += (dv1_at(d, c)->flags & F_SYNC) ? 1u : 0u;
    if (!b->abandoned && (apo < 15 ? ns != apo : ns < 15))
        return dv1_fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 ": APO %u, but %u branch addresses start between it and its own "
                        "(cycle %" PRIu64 ")%s",
                        bname, t, apo, ns, b->e.cyc, apo == 15 ? ": 15 stands for more than 14" : "");
    if (b->abandoned == 2 && (apo & 3u) != ((ns > 14 ? 15u : ns) & 3u))
        return dv1_fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 " (abandoned): APO[1:0] = %u, but %u branch addresses start between "
                        "it and its own",
                        bname, t, apo & 3u, ns);
    return P_DONE;
}

/* The address itself (and, after a full address with a reason, a context ID). */
static int branch_read_address(etm_v1dec_t *d, branch_t *b, etm_diag_t *diag)
{
    uint64_t t = b->t, after = b->after;
    const char *bname = b->bname;
    pos_t q = b->e;
    int h = dv1_read_address(d, &q, 0, b->apk, &b->an);
    if (h != RD_OK)
        return dv1_need(d, diag, h, t, "the branch address");
    if (!(b->apk[0] & 1u))
        return dv1_fail(d, diag, t, after,
                    "%s at cycle %" PRIu64 ": branch address bit 0 is 0 (ARM state), but the core only runs Thumb",
                    bname, t);
    if (b->an == 5) {
        unsigned reason = b->reason = (b->apk[4] >> 4) & 7u;
        if (b->apk[4] & 0x80u)
            return dv1_fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 ": bit 7 of address packet 5 is %s",
                        bname, t, d->version >= ETM_V(1, 3) ? "the J bit (Jazelle), which a Cortex-M3 never sets"
                                                           : "1; it is 0 before ETMv1.3");
        if (reason > 4 || (reason == 4 && d->version < ETM_V(1, 2)))
            return dv1_fail(d, diag, t, after, "%s at cycle %" PRIu64 ": reason code %u is reserved in ETMv1.%u", bname,
                        t, reason, ETM_V_MINOR(d->version));
        if (reason != 0 && d->ctxid_bytes) {
            for (unsigned i = 0; i < d->ctxid_bytes; i++) {
                h = dv1_read_packet(d, &q, 0, &b->cpk[i], NULL);
                if (h != RD_OK)
                    return dv1_need(d, diag, h, t, "the context ID");
                b->ctx |= (uint32_t)b->cpk[i] << (8 * i);
            }
        }
    }
    return P_DONE;
}

/* The rules a decoded branch must keep before it is committed. */
static int branch_check(etm_v1dec_t *d, const branch_t *b, etm_diag_t *diag)
{
    uint64_t t = b->t, after = b->after;
    const char *bname = b->bname;
    unsigned an = b->an;
    if (d->synced && d->empty_wt && !(b->restart && b->reason == ETM_V1_REASON_OVERFLOW))
        return empty_wt_fail(d, diag, t, after);
    if (b->restart && b->st == ETM_V1_PS_BD)
        return dv1_fail(d, diag, t, after,
                    "BD at cycle %" PRIu64 " with reason %u: a trace (re)start stands for no instruction and has "
                    "no data",
                    t, b->reason);
    if (d->synced && !b->restart && !d->pc_valid)
        return dv1_fail(d, diag, t, after,
                    "%s at cycle %" PRIu64 " with %s: the branch at cycle %" PRIu64 " left no BE to say where "
                    "execution went, so only a trace restart (a full address, reason 1-3) may follow it",
                    bname, t, an == 5 ? "a reason 0/4 full address" : "a compressed address", d->pc_lost);
    if (d->synced && !b->restart && !b->no_insn && !b->have_insn)
        return dv1_fail(d, diag, t, after, "%s at cycle %" PRIu64 ": the code image has no instruction at 0x%08" PRIx32,
                    bname, t, d->pc);
    if (d->synced && an < 5 && (d->flags & ETM_V1DEC_STRICT) && dv1_packets_needed(b->traced, d->bref) < an)
        return dv1_fail(d, diag, t, after,
                    "%s at cycle %" PRIu64 ": address 0x%08" PRIx32 " sent in %u packets; %u cover every bit "
                    "that changed",
                    bname, t, b->traced & ~1u, an, dv1_packets_needed(b->traced, d->bref));
    return P_DONE;
}

/* Commit: mark the branch's packets as read and move the cursor past them. */
static void branch_consume(etm_v1dec_t *d, branch_t *b)
{
    if (d->synced && b->st == ETM_V1_PS_BD) {
        pos_t pd = b->p0;
        dv1_read_data(d, &pd, 1, &b->in, &b->dp);
    }
    pos_t q = b->e;
    dv1_read_address(d, &q, 1, b->apk, &b->an);
    if (b->an == 5 && b->reason != 0)
        for (unsigned i = 0; i < d->ctxid_bytes; i++)
            dv1_read_packet(d, &q, 1, &b->cpk[i], NULL);
    dv1_at(d, b->e.cyc)->flags |= F_ADDR;
    d->cur = q;
    d->stats.branches++;
}

/* The branch instruction's element, a BD's data, and a sync after a full address. */
static void branch_emit_insn(etm_v1dec_t *d, const branch_t *b, etm_v1el_t *el, etm_diag_t *diag)
{
    uint64_t t = b->t;
    el->kind = ETM_V1EL_INSN;
    el->addr = d->pc;
    el->status = b->st;
    el->executed = 1;
    el->insn = b->in;
    emit(d, el);
    if (b->st == ETM_V1_PS_BD) {
        if ((d->data_mode & 2u) && b->dp.an < 5 && d->dref_state == DREF_NEED_FULL)
            dv1_soft_fail(d, diag, t,
                          "BD at cycle %" PRIu64 ": the first data address after trace (re)started has %u "
                          "packets; it must be full (5)",
                          t, b->dp.an);
        if (d->data_mode)
            emit_data(d, t, d->pc, &b->in, &b->dp);
    }
    if (b->an == 5) {
        el->kind = ETM_V1EL_SYNC;
        el->addr = el->target;
        el->status = 0;
        el->executed = 0;
        memset(&el->insn, 0, sizeof el->insn);
        emit(d, el);
    }
}

/* Commit: the elements of the branch (synchronisation or a restart, an abandoned
 * target, or the instruction). */
static void branch_emit(etm_v1dec_t *d, const branch_t *b, etm_diag_t *diag)
{
    uint64_t t = b->t;
    etm_v1el_t el;
    memset(&el, 0, sizeof el);
    el.cycle = t;
    el.target = b->traced & ~1u;
    el.addr_packets = b->an;
    el.reason = b->reason;
    el.has_context_id = b->an == 5 && b->reason != 0 && d->ctxid_bytes != 0;
    el.context_id = b->ctx;
    el.abandoned = b->abandoned != 0;
    el.trigger = b->tr;
    if (!d->synced || b->restart) {
        el.kind = b->restart ? ETM_V1EL_TRACE_ON : ETM_V1EL_SYNC;
        el.addr = el.target;
        emit(d, &el);
        if (!d->synced) {
            d->synced = 1;
            d->td_from = t;
            d->idle_from = b->e.cyc;
            d->dref_state = b->restart ? DREF_NEED_FULL : DREF_UNKNOWN;
        } else {
            d->dref_state = DREF_NEED_FULL;
        }
    } else if (b->no_insn) {
        el.kind = ETM_V1EL_ABANDON;
        el.addr = d->pc;
        emit(d, &el);
    } else {
        branch_emit_insn(d, b, &el, diag);
    }
}

/* The APO cycles before the next status belong to the branch: mark them, and give
 * the trigger of a TR among them. */
static void branch_apo_cycles(etm_v1dec_t *d, const branch_t *b, etm_diag_t *diag)
{
    for (unsigned k = 1; k <= 2 && b->t + k < b->after; k++) {
        dv1_at(d, b->t + k)->flags |= F_APO;
        if (b->trk[k])
            emit_trigger(d, b->t + k, diag);
    }
}

/* Before synchronisation: a branch whose address cannot be used. */
static int branch_skip(etm_v1dec_t *d, const branch_t *b, etm_diag_t *diag)
{
    if (b->tr)
        emit_trigger(d, b->t, diag);
    branch_apo_cycles(d, b, diag);
    d->stats.unsynced_statuses++;
    d->next = b->after;
    return P_DONE;
}

/* BE, BD at cycle t. */
static int do_branch(etm_v1dec_t *d, uint64_t t, unsigned st, int tr, etm_diag_t *diag)
{
    branch_t b;
    int r;
    memset(&b, 0, sizeof b);
    b.t = t;
    b.st = st;
    b.tr = tr;
    b.bname = etm_v1_pipestat_name(st);
    b.trk[0] = tr;
    b.p0 = d->cur;
    if ((r = branch_apo(d, &b, diag)) != P_DONE)
        return r;
    b.after = t + (b.abandoned ? b.abandoned : 3u); /* the next status */

    if (!d->synced) {
        if (b.abandoned || b.apo == 15) /* the address cannot be found without the FIFO's contents */
            return branch_skip(d, &b, diag);
        r = branch_find_unsynced(d, &b, diag);
    } else {
        r = branch_find_synced(d, &b, diag);
    }
    if (r != P_DONE)
        return r;
    if ((r = branch_read_address(d, &b, diag)) != P_DONE)
        return r;
    if (b.an != 5 && !d->synced)
        return branch_skip(d, &b, diag); /* a compressed address needs the reference */
    b.restart = b.an == 5 && b.reason >= 1 && b.reason <= 3;
    b.traced = dv1_merge_address(d->bref, b.apk, b.an);
    if ((r = branch_check(d, &b, diag)) != P_DONE)
        return r;

    /* ---- commit ---- */
    branch_consume(d, &b);
    if (tr)
        emit_trigger(d, t, diag);
    branch_emit(d, &b, diag);
    d->bref = b.traced;
    d->pc = b.traced & ~1u;
    d->pc_valid = 1;
    d->empty_wt = 0;
    d->pending_abandon = b.abandoned != 0;
    branch_apo_cycles(d, &b, diag);
    d->next = b.after;
    return P_DONE;
}

/* Decode the status at d->next: an instruction, a branch, or WT/TD. */
int dv1_process_one(etm_v1dec_t *d, etm_diag_t *diag)
{
    uint64_t t = d->next;
    int tr;
    unsigned st = effective(d, t, &tr);
    d->wait_what = NULL;
    if (tr && (st == ETM_V1_PS_TR || st == ETM_V1_PS_TD))
        return dv1_fail(d, diag, t, t + 1, "TR in cycle %" PRIu64 " carries %s on TRACEPKT[2:0]; the replaced status is never TR or TD",
                    t, etm_v1_pipestat_name(st));
    switch (st) {
    case ETM_V1_PS_IE:
    case ETM_V1_PS_ID:
    case ETM_V1_PS_IN:
        return do_insn(d, t, st, tr, diag);
    case ETM_V1_PS_BE:
    case ETM_V1_PS_BD:
        return do_branch(d, t, st, tr, diag);
    default: /* WT, TD */
        if (tr)
            emit_trigger(d, t, diag);
        d->next = t + 1;
        return P_DONE;
    }
}
