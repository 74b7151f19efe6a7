/* verify_v1.c - the protocol scoreboard's ETMv1 half (etm/verify.h,
 * docs/scoreboard.md): the port's PIPESTAT, TRACEPKT and TRACESYNC against
 * what the core did.
 *
 * Every traced instruction gets one status (IE, IN or BE; ID and BD belong to
 * data trace, which the checker refuses). Which one is a fact of the core's
 * flow, not of the design: BE when the next instruction is a traced branch
 * target, an exception handler's first or the first after a return, with
 * that instruction's address on TRACEPKT; else IE, or IN when it failed its
 * condition. An instruction before an exception entry is shown executed (BE)
 * even when it failed its condition or was cancelled: ETMv1 has no exception
 * packet (docs/etmv1-encoder.md). The last instruction before trace turns off
 * is IE or IN: where it went is not traced.
 *
 * The project's ETMv1 decoder reads the port. It needs to know each
 * instruction's size and kind to follow the code; instead of a code image it
 * asks the checker (etm_v1dec_set_classifier), which answers from the core's
 * flow: an instruction followed by the one 2 or 4 bytes on is that long; one
 * executed and followed by another elsewhere is a direct branch to it; one
 * with a BE is indirect. A wrong trace then decodes to statuses or addresses
 * that differ from the core's, and the first difference is reported.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "verify_int.h"

static const char *status_name(unsigned st) { return etm_v1_pipestat_name(st); }

/* ---- The core's side -------------------------------------------------------------------------- */

/* The core executed the instruction at addr: the newest queued one, if it
 * was the one before, learns where execution went (traced or not). */
static void note_next(etm_verify_t *v, uint32_t addr)
{
    if (v->next_open && v->len > v->cur) {
        vitem_t *p = vfy_item(v, v->len - 1);
        p->next = addr;
        p->has_next = 1;
    }
    v->next_open = 0;
}

void vfy_v1_core(etm_verify_t *v, const etm_seen_t *s, uint64_t cyc)
{
    int traced = s->running && s->trace_enable;
    v->triggers_fired += s->trigger;
    if (s->ninsn)
        note_next(v, s->insn[0].addr);
    if (!traced) {
        vfy_data_newest(v, s, 0);
        vfy_untraced_cycle(v, s, cyc);
        return;
    }
    if (s->cancel)
        v->r.cancels++; /* shown as executed, traced again when it restarts */
    for (unsigned i = 0; i < s->ninsn; i++) {
        vitem_t x;
        memset(&x, 0, sizeof x);
        x.cycle = cyc;
        x.addr = s->insn[i].addr;
        x.exec = s->insn[i].exec;
        x.restart = !v->active;
        x.untraced_before = v->untraced_run;
        int branch_in = s->insn[i].indirect || (i == 0 && (s->entry || s->ret));
        x.entry = (uint8_t)(i == 0 && s->entry);
        x.ret = (uint8_t)(i == 0 && s->ret);
        if (branch_in && v->active && v->last_pushed && v->len > v->cur) {
            /* The instruction before is resolved as a branch to this one. */
            vitem_t *p = vfy_item(v, v->len - 1);
            p->be = 1;
            p->target = x.addr;
            if (x.entry)
                p->exec = 1;
        }
        v->untraced_run = 0;
        v->active = 1;
        v->last_pushed = 1;
        v->r.traced_expected++;
        v->r.exceptions += x.entry;
        v->r.returns += x.ret;
        if (i)
            note_next(v, x.addr);
        vfy_push(v, &x);
        v->next_open = 1;
    }
    vfy_data_newest(v, s, 1);
}

/* ---- Data trace: the core's side ---------------------------------------------------------------
 *
 * As the ETMv1 encoder's contract (docs/etmv1-encoder.md, "Data"): the
 * instruction's data is traced, all of it or none, when ViewData is on for
 * its first transfer with trace on; its packets are the first transfer's
 * address and, per transfer, the bytes its lanes select, in address order. */

static v1rec_t *rec_at(const etm_verify_t *v, size_t i) { return &v->v1r[(v->v1r_head + i) & (v->v1r_cap - 1)]; }

static v1rec_t *rec_num(const etm_verify_t *v, uint64_t num)
{
    if (num < v->v1r_base || num - v->v1r_base >= v->v1r_len)
        return NULL;
    return rec_at(v, (size_t)(num - v->v1r_base));
}

/* The record of instruction insn, if it has one. */
static v1rec_t *rec_for(const etm_verify_t *v, uint64_t insn)
{
    for (size_t i = 0; i < v->v1r_len; i++) {
        v1rec_t *r = rec_at(v, i);
        if (r->insn == insn)
            return r;
        if (r->insn > insn)
            break;
    }
    return NULL;
}

static unsigned rec_bytes(const v1rec_t *r, uint8_t *out)
{
    unsigned n = 0;
    for (unsigned t = 0; t < r->nxfer; t++)
        for (unsigned lane = 0; lane < 8; lane++)
            if ((r->lanes[t] >> lane) & 1u) {
                if (out)
                    out[n] = (uint8_t)(r->value[t] >> (8 * lane));
                n++;
            }
    return n;
}

void vfy_v1_data(etm_verify_t *v, const etm_in_t *in, const etm_seen_t *s, uint64_t cyc)
{
    uint32_t ctl = in->dactl;
    int first = 0, slot_used = ETM_DACTL_SLOT(ctl) != 0;
    if (slot_used) {
        if (v->dunal) {
            v->dunal = 0;
            v->dfirst = (uint8_t)ETM_DACTL_LAST(ctl);
        } else {
            first = v->dfirst;
            v->dunal = (uint8_t)ETM_DACTL_UNALIGNED(ctl);
            v->dfirst = (uint8_t)(v->dunal ? 0 : ETM_DACTL_LAST(ctl));
        }
    }
    if (!s->running)
        return;
    /* The cycle's value, for the last address on its slot. */
    unsigned ds = ETM_DDCTL_SLOT(in->ddctl);
    if (ds && v->v1_slot[ds]) {
        v1rec_t *r = rec_num(v, v->v1_slot[ds] - 1);
        unsigned t = v->v1_slot_x[ds];
        if (r && t < r->nxfer && !r->got[t]) {
            r->value[t] = in->dd;
            r->got[t] = 1;
            r->nwait--;
        }
        v->v1_slot[ds] = 0;
    }
    if (!slot_used)
        return;
    v1rec_t *r = NULL;
    uint64_t num = 0; /* the record's number */
    if (first) {
        v->v1_owner = 0;
        if (v->dnewest_traced) {
            if (v->v1r_len == v->v1r_cap &&
                vfy_ring_grow((void **)&v->v1r, sizeof *v->v1r, &v->v1r_cap, &v->v1r_head, v->v1r_len,
                              4 * v->lag_max) != 0) {
                vfy_fail(v, ETM_VFAIL_LATENCY, cyc, v->r.bytes, "the trace lags more than %zu data instructions "
                         "behind the core", v->v1r_len);
                return;
            }
            r = rec_at(v, v->v1r_len++);
            memset(r, 0, sizeof *r);
            r->insn = v->dnewest;
            r->insn_addr = v->dnewest_addr;
            r->cycle = cyc;
            r->daddr = in->da;
            r->store = (uint8_t)ETM_DACTL_WRITE(ctl);
            /* ViewData decides; with trace off in the cycle of the first transfer
             * the design may trace it or not. */
            r->view = (uint8_t)(s->view_data && s->trace_enable);
            r->optional = (uint8_t)(s->view_data && !s->trace_enable);
            num = v->v1r_base + v->v1r_len - 1;
            v->v1_owner = num + 1;
        }
    } else if (v->v1_owner) {
        num = v->v1_owner - 1;
        r = rec_num(v, num);
    }
    if (!r || r->nxfer == V1_MAX_XFER)
        return;
    unsigned t = r->nxfer++;
    r->lanes[t] = (uint8_t)ETM_DACTL_BLSEL(ctl);
    if (v->dvalues) {
        r->nwait++;
        v->v1_slot[ETM_DACTL_SLOT(ctl)] = num + 1;
        v->v1_slot_x[ETM_DACTL_SLOT(ctl)] = (uint8_t)t;
    }
    if (ETM_DACTL_LAST(ctl) && !ETM_DACTL_UNALIGNED(ctl)) {
        r->done = 1;
        v->v1_owner = 0;
    }
}

static void on_element(void *user, const etm_v1el_t *e);

/* The decoder asks what the instruction at addr is: the core's flow says. */
static int classify(void *user, uint32_t addr, etm_v1_insn_t *out)
{
    etm_verify_t *v = (etm_verify_t *)user;
    out->size = 2;
    out->flow = ETM_V1_FLOW_NEXT;
    if (v->cur >= v->len || vfy_item(v, v->cur)->addr != addr)
        return 1; /* not where the core is: the matching says so */
    const vitem_t *x = vfy_item(v, v->cur);
    const v1rec_t *r = v->data ? rec_for(v, v->released + v->cur) : NULL;
    if (r) { /* its value bytes, as the core's lanes selected them */
        unsigned n = rec_bytes(r, NULL);
        out->data_bytes = n ? n : 1;
        out->is_store = r->store;
    }
    if (x->be) {
        out->flow = ETM_V1_FLOW_INDIRECT;
        return 1;
    }
    if (!x->has_next)
        return 1; /* the core has not gone on yet */
    uint32_t d = x->next - addr;
    if (d == 2 || d == 4) {
        out->size = d;
    } else if (x->exec) {
        out->flow = ETM_V1_FLOW_DIRECT;
        out->target = x->next;
    }
    return 1;
}

etm_err_t vfy_v1_open(etm_verify_t *v, etm_diag_t *diag)
{
    etm_err_t e = etm_v1dec_create(&v->v1dec, &v->cfg, 0, 0, diag);
    if (e != ETM_OK)
        return e;
    etm_v1dec_set_classifier(v->v1dec, classify, v);
    etm_v1dec_on_element(v->v1dec, on_element, v);
    v->v1r_cap = 64;
    if (!(v->v1r = (v1rec_t *)calloc(v->v1r_cap, sizeof *v->v1r)))
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    v->dfirst = 1;
    return ETM_OK;
}

void vfy_v1_close(etm_verify_t *v)
{
    free(v->v1r);
    v->v1r = NULL;
    if (v->v1dec)
        etm_v1dec_destroy(v->v1dec);
    v->v1dec = NULL;
}

/* ---- The port's side -------------------------------------------------------------------------- */

/* ID and BD say the instruction's data is traced: so must the core's flow.
 * Returns 0 after a failure. */
static int insn_data(etm_verify_t *v, const vitem_t *x, const etm_v1el_t *e)
{
    uint64_t n = v->released + v->cur;
    while (v->v1r_len && rec_at(v, 0)->insn < n) { /* earlier instructions are done */
        v->v1r_head = (v->v1r_head + 1) & (v->v1r_cap - 1);
        v->v1r_len--;
        v->v1r_base++;
    }
    const v1rec_t *r = rec_for(v, n);
    int traced = e->status == ETM_V1_PS_ID || e->status == ETM_V1_PS_BD;
    v->v1_matched = n + 1;
    if (traced && !(r && (r->view || r->optional))) {
        vfy_fail(v, ETM_VFAIL_DATA_EXTRA, x->cycle, e->cycle,
                 "%s in port cycle %" PRIu64 " traces data of the instruction at 0x%08" PRIx32 " (cycle %" PRIu64
                 "), %s", status_name(e->status), e->cycle, x->addr, x->cycle,
                 r ? "whose first transfer was outside ViewData" : "which moved no data");
        return 0;
    }
    if (!traced && r && r->view && r->done && !r->nwait) {
        vfy_fail(v, ETM_VFAIL_DATA_MISSING, x->cycle, e->cycle,
                 "the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") moved data with ViewData on (its first "
                 "transfer at 0x%08" PRIx32 " in cycle %" PRIu64 "), but its status in port cycle %" PRIu64
                 " is %s, not %s", x->addr, x->cycle, r->daddr, r->cycle, e->cycle, status_name(e->status),
                 e->status == ETM_V1_PS_BE ? "BD" : "ID");
        return 0;
    }
    return 1;
}

/* The data packets of the instruction the last status was for. */
static void on_data(etm_verify_t *v, const etm_v1el_t *e)
{
    const v1rec_t *r = v->v1_matched ? rec_for(v, v->v1_matched - 1) : NULL;
    if (!r)
        return; /* its status was held to the core already */
    v->r.transfers += r->nxfer;
    if (e->has_data_addr && e->data_addr_valid && e->data_addr != r->daddr) {
        vfy_fail(v, ETM_VFAIL_DATA_ADDR, r->cycle, e->cycle,
                 "the instruction at 0x%08" PRIx32 " moved data at 0x%08" PRIx32 " (cycle %" PRIu64 "), its data "
                 "address in port cycle %" PRIu64 " says 0x%08" PRIx32, r->insn_addr, r->daddr, r->cycle, e->cycle,
                 e->data_addr);
        return;
    }
    if (v->dvalues) {
        uint8_t want[V1_MAX_XFER * 8];
        unsigned n = rec_bytes(r, want);
        if (r->nwait) {
            vfy_fail(v, ETM_VFAIL_DATA_VALUE, r->cycle, e->cycle,
                     "port cycle %" PRIu64 " gives the values of the instruction at 0x%08" PRIx32 " (cycle %" PRIu64
                     "), %u of whose values the core has not given", e->cycle, r->insn_addr, r->cycle, r->nwait);
            return;
        }
        for (unsigned i = 0; i < n && i < e->nbytes; i++)
            if (e->bytes[i] != want[i]) {
                vfy_fail(v, ETM_VFAIL_DATA_VALUE, r->cycle, e->cycle,
                         "value byte %u of the instruction at 0x%08" PRIx32 " (data at 0x%08" PRIx32 ", cycle %"
                         PRIu64 ") is 0x%02x, the port (status in cycle %" PRIu64 ") says 0x%02x", i, r->insn_addr,
                         r->daddr, r->cycle, want[i], e->cycle, e->bytes[i]);
                return;
            }
    }
    v->r.data_checked += r->nxfer;
}

/* An instruction status, against the instruction the core executed next. */
static void on_insn(etm_verify_t *v, const etm_v1el_t *e)
{
    if (v->cur >= v->len) {
        uint64_t uc = vfy_untraced_at(v, e->addr);
        if (uc != UINT64_MAX) {
            vfy_fail(v, ETM_VFAIL_FILTER, uc, e->cycle,
                     "%s in port cycle %" PRIu64 " for 0x%08" PRIx32 ", which the core executed in cycle %" PRIu64
                     " outside TraceEnable", status_name(e->status), e->cycle, e->addr, uc);
            return;
        }
        vfy_fail(v, ETM_VFAIL_EXTRA_ATOM, e->cycle, e->cycle,
                 "%s in port cycle %" PRIu64 " for 0x%08" PRIx32 ", but the core has executed no traced instruction "
                 "that is not traced already", status_name(e->status), e->cycle, e->addr);
        return;
    }
    const vitem_t *x = vfy_item(v, v->cur);
    if (e->addr != x->addr) {
        if (x->untraced_before)
            vfy_fail(v, ETM_VFAIL_FILTER, x->cycle, e->cycle,
                     "%s in port cycle %" PRIu64 " for 0x%08" PRIx32 ", where the core went on at 0x%08" PRIx32
                     " (cycle %" PRIu64 ") after %" PRIu32 " instructions outside TraceEnable: it traces those",
                     status_name(e->status), e->cycle, e->addr, x->addr, x->cycle, x->untraced_before);
        else
            vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, x->cycle, e->cycle,
                     "%s in port cycle %" PRIu64 " for 0x%08" PRIx32 ", but the core executed 0x%08" PRIx32
                     " (cycle %" PRIu64 ")", status_name(e->status), e->cycle, e->addr, x->addr, x->cycle);
        return;
    }
    int be = e->status == ETM_V1_PS_BE || e->status == ETM_V1_PS_BD;
    if (x->be && !be) {
        vfy_fail(v, x->entry ? ETM_VFAIL_EXC_MISSING : ETM_VFAIL_BRANCH_MISSING, x->cycle, e->cycle,
                 "the core went from 0x%08" PRIx32 " (cycle %" PRIu64 ") to 0x%08" PRIx32 "%s, but its status in port "
                 "cycle %" PRIu64 " is %s, not BE", x->addr, x->cycle, x->target,
                 x->entry ? " (an exception)" : x->ret ? " (a return)" : " (a traced branch target)", e->cycle,
                 status_name(e->status));
        return;
    }
    if (!x->be && be) {
        /* Statuses left out: the branch is a few instructions on. */
        for (size_t f = v->cur + 1; f < v->len && f <= v->cur + NEAR; f++) {
            const vitem_t *y = vfy_item(v, f);
            if (y->be && y->target == e->target) {
                vfy_fail(v, ETM_VFAIL_MISSING_ATOM, x->cycle, e->cycle,
                         "%zu executed instructions have no status, from 0x%08" PRIx32 " (cycle %" PRIu64 "): the %s "
                         "in port cycle %" PRIu64 " to 0x%08" PRIx32 " is the branch at 0x%08" PRIx32 " (cycle %" PRIu64
                         ")", f - v->cur, x->addr, x->cycle, status_name(e->status), e->cycle, e->target, y->addr,
                         y->cycle);
                return;
            }
        }
        vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, x->cycle, e->cycle,
                 "%s in port cycle %" PRIu64 " says 0x%08" PRIx32 " (cycle %" PRIu64 ") branched to 0x%08" PRIx32
                 ", but the core did not take a traced branch there", status_name(e->status), e->cycle, x->addr,
                 x->cycle, e->target);
        return;
    }
    if (be && e->target != x->target) {
        vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, x->cycle, e->cycle,
                 "%s in port cycle %" PRIu64 " for 0x%08" PRIx32 " gives 0x%08" PRIx32 ", but the core went to 0x%08"
                 PRIx32, status_name(e->status), e->cycle, x->addr, e->target, x->target);
        return;
    }
    if (!be && e->executed != x->exec) {
        vfy_fail(v, ETM_VFAIL_ATOM_EN, x->cycle, e->cycle,
                 "the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") %s, but its status in port cycle %" PRIu64
                 " is %s", x->addr, x->cycle, x->exec ? "executed" : "failed its condition", e->cycle,
                 status_name(e->status));
        return;
    }
    if (v->data && !insn_data(v, x, e))
        return;
    v->r.instructions++;
    v->r.branches += (uint64_t)be;
    v->cur++;
    if (v->cur > 64)
        vfy_release(v);
}

/* A BE with a full address that stands for no instruction: trace starts (reason
 * 1) or restarts after an overflow (2) at addr. */
static void on_trace_on(etm_verify_t *v, const etm_v1el_t *e)
{
    v->r.isyncs++;
    if (e->reason == ETM_V1_REASON_OVERFLOW) {
        /* The restart's BE goes out in the cycle its instruction arrives: the
         * instruction at addr executed in that cycle (or the last before it). */
        v->r.overflows++;
        long j = -1;
        for (size_t f = v->cur; f < v->len && vfy_item(v, f)->cycle <= e->cycle; f++)
            if (vfy_item(v, f)->addr == e->addr)
                j = (long)f;
        if (j < 0) {
            vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, e->cycle, e->cycle,
                     "the overflow restart in port cycle %" PRIu64 " gives 0x%08" PRIx32 ", which the core has not "
                     "executed since the last instruction traced", e->cycle, e->addr);
            return;
        }
        v->r.lost += (uint64_t)j - v->cur;
        v->cur = (size_t)j;
        vfy_release(v);
        return;
    }
    if (v->cur < v->len && vfy_item(v, v->cur)->addr == e->addr)
        return;
    if (v->cur >= v->len) {
        vfy_fail(v, ETM_VFAIL_FILTER, e->cycle, e->cycle,
                 "trace starts in port cycle %" PRIu64 " at 0x%08" PRIx32 ", but the core executed nothing with "
                 "TraceEnable there", e->cycle, e->addr);
        return;
    }
    const vitem_t *x = vfy_item(v, v->cur);
    for (size_t f = v->cur + 1; f < v->len; f++)
        if (vfy_item(v, f)->addr == e->addr && vfy_item(v, f)->cycle <= e->cycle) {
            vfy_fail(v, ETM_VFAIL_GAP, x->cycle, e->cycle,
                     "%zu executed instructions have no status, from 0x%08" PRIx32 " (cycle %" PRIu64 "); trace "
                     "starts again in port cycle %" PRIu64 " at 0x%08" PRIx32 " without an overflow (reason %u)",
                     f - v->cur, x->addr, x->cycle, e->cycle, e->addr, e->reason);
            return;
        }
    vfy_fail(v, x->untraced_before ? ETM_VFAIL_FILTER : ETM_VFAIL_BRANCH_TARGET, x->cycle, e->cycle,
             "trace starts in port cycle %" PRIu64 " at 0x%08" PRIx32 ", but the core's next traced instruction is "
             "0x%08" PRIx32 " (cycle %" PRIu64 ")", e->cycle, e->addr, x->addr, x->cycle);
}

static void on_element(void *user, const etm_v1el_t *e)
{
    etm_verify_t *v = (etm_verify_t *)user;
    if (vfy_failed(v))
        return;
    switch (e->kind) {
    case ETM_V1EL_INSN:
        if (e->abandoned) {
            vfy_fail(v, ETM_VFAIL_GRAMMAR, e->cycle, e->cycle,
                     "port cycle %" PRIu64 ": an abandoned branch (a BE in the APO cycles of the one before); a "
                     "Cortex-M3 ETM never takes a branch back, and the checker does not follow one", e->cycle);
            return;
        }
        on_insn(v, e);
        break;
    case ETM_V1EL_TRACE_ON:
        on_trace_on(v, e);
        break;
    case ETM_V1EL_TRIGGER:
        v->r.triggers++;
        break;
    case ETM_V1EL_DATA:
        if (!v->data)
            goto other;
        on_data(v, e);
        break;
    case ETM_V1EL_SYNC:
        break; /* the branch it came with is an INSN */
    default:
    other:
        vfy_fail(v, ETM_VFAIL_GRAMMAR, e->cycle, e->cycle, "port cycle %" PRIu64 ": a %s element, which this "
                 "configuration cannot make", e->cycle, etm_v1el_kind_name(e->kind));
        break;
    }
}

etm_err_t etm_verify_port(etm_verify_t *v, const etm_out_t *rec)
{
    if (v->ended || !v->v1)
        return ETM_ERR_STATE;
    etm_diag_t d;
    if (!vfy_failed(v) && etm_v1dec_step(v->v1dec, rec, &d) != ETM_OK)
        vfy_fail(v, ETM_VFAIL_GRAMMAR, d.cycle, d.cycle, "port cycle %" PRIu64 ": %s", d.cycle, d.msg);
    v->r.bytes++;
    return ETM_OK;
}

void vfy_v1_end(etm_verify_t *v)
{
    etm_diag_t d;
    if (!vfy_failed(v) && etm_v1dec_end(v->v1dec, &d) != ETM_OK)
        vfy_fail(v, ETM_VFAIL_GRAMMAR, d.cycle, d.cycle, "at the end: %s", d.msg);
}
