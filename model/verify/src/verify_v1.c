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
    return ETM_OK;
}

void vfy_v1_close(etm_verify_t *v)
{
    if (v->v1dec)
        etm_v1dec_destroy(v->v1dec);
    v->v1dec = NULL;
}

/* ---- The port's side -------------------------------------------------------------------------- */

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
    case ETM_V1EL_SYNC:
        break; /* the branch it came with is an INSN */
    default:
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
