/* verify.c - the protocol scoreboard (etm/verify.h, docs/scoreboard.md).
 *
 * Two streams meet here. The core's cycles, through a watching instance
 * (etm/watch.h), become a queue of the instructions it executed with
 * TraceEnable, each with what the trace must say about it: its E or N, its
 * cycle, whether it is the target of an indirect branch (an address must
 * precede its atom), an exception entry with its number, a return, a cancel.
 * The design's bytes, through the ETMv3 decoder without a code image, become
 * atoms and address points (branch packets, exception packets, I-syncs).
 *
 * Atoms are matched as they come. An address point says where the next atom's
 * instruction is: it is looked for among the instructions waiting, near the
 * one the atoms have reached. Found there, all is well; found a few
 * instructions later or earlier, atoms were dropped or added; found far
 * ahead, trace was lost, which only an I-sync with reason overflow may say;
 * not found, the address is wrong. An E/N difference is held until the next
 * address point says whether the atoms are aligned (a swapped atom) or not (a
 * dropped or added one).
 */
#include "etm/verify.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/regmap.h"
#include "util.h"
#include "verify_int.h"

static const char *const fail_ids[ETM_VFAIL_COUNT] = {
#define ETM_VFAIL_ID(name, id, text) id,
    ETM_VFAIL_LIST(ETM_VFAIL_ID)
#undef ETM_VFAIL_ID
};
static const char *const fail_texts[ETM_VFAIL_COUNT] = {
#define ETM_VFAIL_TEXT(name, id, text) text,
    ETM_VFAIL_LIST(ETM_VFAIL_TEXT)
#undef ETM_VFAIL_TEXT
};

const char *etm_vfail_id(etm_vfail_t f) { return (unsigned)f < ETM_VFAIL_COUNT ? fail_ids[f] : "?"; }
const char *etm_vfail_text(etm_vfail_t f) { return (unsigned)f < ETM_VFAIL_COUNT ? fail_texts[f] : "?"; }

/* ---- Failures ------------------------------------------------------------------------------- */

void vfy_fail(etm_verify_t *v, etm_vfail_t rule, uint64_t cycle, uint64_t offset, const char *fmt, ...)
{
    if (vfy_failed(v))
        return;
    v->r.failures = 1;
    v->r.first.rule = rule;
    v->r.first.cycle = cycle;
    v->r.first.offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->r.first.text, sizeof v->r.first.text, fmt, ap);
    va_end(ap);
}

void vfy_hold(etm_verify_t *v, suspect_t *held, etm_vfail_t rule, uint64_t cycle, uint64_t offset, const char *fmt,
              ...)
{
    if (held->on || vfy_failed(v))
        return;
    held->on = 1;
    held->rule = rule;
    held->cycle = cycle;
    held->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(held->text, sizeof held->text, fmt, ap);
    va_end(ap);
}

/* The suspicion stands as it is. */
static void confirm(etm_verify_t *v)
{
    if (v->sus.on)
        vfy_fail(v, v->sus.rule, v->sus.cycle, v->sus.offset, "%s", v->sus.text);
    v->sus.on = 0;
}

/* ---- The core's side -------------------------------------------------------------------------- */

/* Twice the room, the waiting instructions first: a queue sized by the lag
 * seen, not the lag allowed, stays in the cache. */
static int grow(etm_verify_t *v)
{
    vitem_t *q = (vitem_t *)malloc(2 * v->cap * sizeof *q);
    if (!q)
        return -1;
    for (size_t i = 0; i < v->len; i++)
        q[i] = *vfy_item(v, i);
    free(v->q);
    v->q = q;
    v->head = 0;
    v->cap *= 2;
    return 0;
}

void vfy_push(etm_verify_t *v, const vitem_t *x)
{
    /* The lag is what the report says: instructions executed and not yet
     * matched by the trace (the matched ones wait only for their release). */
    if (v->len - v->cur >= v->lag_max) {
        vfy_fail(v, ETM_VFAIL_LATENCY, x->cycle, v->r.bytes,
             "the trace lags more than %zu instructions behind the core (the instruction at 0x%08" PRIx32
             " in cycle %" PRIu64 " has no room)", v->lag_max, x->addr, x->cycle);
        return;
    }
    if (v->len == v->cap && grow(v) != 0) {
        vfy_fail(v, ETM_VFAIL_LATENCY, x->cycle, v->r.bytes,
             "no memory for more than %zu instructions waiting for their trace (the instruction at 0x%08" PRIx32
             " in cycle %" PRIu64 ")", v->len, x->addr, x->cycle);
        return;
    }
    *vfy_item(v, v->len++) = *x;
    if (v->len - v->cur > v->r.max_lag)
        v->r.max_lag = v->len - v->cur;
}

void vfy_release(etm_verify_t *v)
{
    v->released += v->cur;
    v->head = (v->head + v->cur) & (v->cap - 1);
    v->len -= v->cur;
    v->cur = 0;
}

static void remember_untraced(etm_verify_t *v, uint32_t addr, uint64_t cycle)
{
    v->untraced_addr[v->untraced_at] = addr;
    v->untraced_cycle[v->untraced_at] = cycle;
    v->untraced_at = (v->untraced_at + 1) % UNTRACED_KEPT;
    if (v->untraced_n < UNTRACED_KEPT)
        v->untraced_n++;
}

/* Was addr executed without TraceEnable lately? Its cycle, or UINT64_MAX. */
uint64_t vfy_untraced_at(const etm_verify_t *v, uint32_t addr)
{
    for (unsigned i = 0; i < v->untraced_n; i++)
        if (v->untraced_addr[i] == addr)
            return v->untraced_cycle[i];
    return UINT64_MAX;
}

void vfy_untraced_cycle(etm_verify_t *v, const etm_seen_t *s, uint64_t cyc)
{
    for (unsigned i = 0; i < s->ninsn; i++) {
        v->r.untraced++;
        v->untraced_run++;
        remember_untraced(v, s->insn[i].addr, cyc);
    }
    v->active = 0; /* trace is off: what comes next starts again */
    if (s->ninsn)
        v->last_pushed = 0;
}

static int exception_traced(const etm_verify_t *v, unsigned number) { return number < 16 || v->exc_ext; }

/* The instructions of one cycle, in program order, into the queue. */
static void core_cycle(etm_verify_t *v, const etm_seen_t *s, uint64_t cyc)
{
    int traced = s->running && s->trace_enable;
    v->triggers_fired += s->trigger;
    v->exited |= s->exit;
    /* ETMCANCEL: the last instruction did not complete. The trace can say so
     * only by the Cancel bit of the exception packet that follows (IHI 0014
     * 7.3.6): the instruction's atom must be withdrawn when an exception the
     * version can express comes next; otherwise the cancel cannot be traced
     * and the atom stays (docs/scoreboard.md). */
    if (s->cancel && v->last_pushed && v->len > v->cur) {
        v->cancel_pending = 1;
        v->cancel_seq = v->released + v->len - 1;
    }
    if (!traced) {
        if (s->ninsn) {
            v->cancel_pending = 0;
            v->exited = 0;
        }
        vfy_data_newest(v, s, 0);
        vfy_untraced_cycle(v, s, cyc);
        return;
    }
    for (unsigned i = 0; i < s->ninsn; i++) {
        vitem_t x;
        memset(&x, 0, sizeof x);
        x.cycle = cyc;
        x.addr = s->insn[i].addr;
        x.exec = s->insn[i].exec;
        x.indirect = s->insn[i].indirect;
        x.untraced_before = v->untraced_run;
        x.restart = !v->active;
        int exc = i == 0 && s->entry && exception_traced(v, s->exc);
        if (exc) {
            x.entry = 1;
            x.exc = s->exc;
            x.tailchain = (uint8_t)(v->exited && v->exc_ext && v->active);
        } else if (i == 0 && s->entry) {
            /* Before ETMv3.4 a Cortex-M exception numbered 16 or more is a
             * plain branch to its handler, and its cancel is lost with it. */
            x.indirect = 1;
        }
        if (v->cancel_pending) {
            uint64_t k = v->cancel_seq - v->released;
            if (exc && k >= v->cur && k < v->len) {
                vfy_item(v, (size_t)k)->cancelled = 1;
                v->r.cancels++;
            }
            v->cancel_pending = 0;
        }
        if (i == 0 && s->ret && v->exc_ext && v->active)
            x.ret = 1; /* after a restart the I-sync gives the address: no return packet */
        v->untraced_run = 0;
        v->active = 1;
        v->exited = 0;
        v->last_pushed = 1;
        v->r.traced_expected++;
        vfy_push(v, &x);
    }
    vfy_data_newest(v, s, 1);
}

/* ---- The trace's side ------------------------------------------------------------------------- */

/* Where among the waiting instructions is addr, nearest to cur? Looks up to
 * `ahead` instructions forward and NEAR back (not before the last address
 * point, which is at index 0 after release). Returns the index or -1. With
 * want_entry only an exception handler's first instruction counts. */
static long find_near(const etm_verify_t *v, uint32_t addr, size_t ahead, int want_entry)
{
    for (size_t d = 0; d <= ahead; d++) {
        size_t f = v->cur + d;
        if (f < v->len && vfy_item(v, f)->addr == addr && (!want_entry || vfy_item(v, f)->entry) && !vfy_item(v, f)->cancelled)
            return (long)f;
        if (d && d <= NEAR && d <= v->cur) {
            size_t b = v->cur - d;
            if (vfy_item(v, b)->addr == addr && (!want_entry || vfy_item(v, b)->entry))
                return (long)b;
        }
    }
    return -1;
}

/* The instructions between cur and j (j > cur) were never traced. */
static void gap_text(const etm_verify_t *v, size_t j, char *buf, size_t size)
{
    const vitem_t *a = vfy_item(v, v->cur);
    snprintf(buf, size, "%zu executed instructions have no atoms: from 0x%08" PRIx32 " (cycle %" PRIu64 ") to 0x%08" PRIx32
             " (cycle %" PRIu64 ")", j - v->cur, a->addr, a->cycle, vfy_item(v, j - 1)->addr, vfy_item(v, j - 1)->cycle);
}

/* Where trace lost to an overflow goes on: an instruction at addr not yet
 * traced. Cycle-accurate, the first whose cycle is not before the I-sync's
 * (its count covers the cycles lost, IHI 0014 7.3.4); otherwise the first
 * (the candidates after it are followed: docs/scoreboard.md, "Overflow"),
 * with timed bytes one executed before the I-sync left the design. Returns
 * the index or -1. */
static long restart_at(const etm_verify_t *v, uint32_t addr, uint64_t sync_cycle, int has_cc)
{
    for (size_t f = v->cur; f < v->len; f++) {
        const vitem_t *x = vfy_item(v, f);
        if (v->timed && x->cycle > v->now)
            break;
        if (x->addr != addr)
            continue;
        if (!(v->ca && v->have_offset && has_cc) || (int64_t)x->cycle + v->offset >= (int64_t)sync_cycle)
            return (long)f;
    }
    return -1;
}

/* The trace differs from the core just after instructions the core ran
 * outside TraceEnable: it speaks of them. */
static void outside_filter(etm_verify_t *v, const vitem_t *x, uint64_t off)
{
    vfy_fail(v, ETM_VFAIL_FILTER, x->cycle, off,
         "the trace at byte %" PRIu64 " does not go on with 0x%08" PRIx32 " (cycle %" PRIu64 "), the first instruction "
         "traced after %" PRIu32 " the core executed outside TraceEnable: it traces those", off, x->addr, x->cycle,
         x->untraced_before);
}

/* Trace goes on at index j after an overflow restart. */
static void restart_from(etm_verify_t *v, size_t j)
{
    v->r.lost += (uint64_t)j - v->cur;
    v->cur = j;
    vfy_release(v);
    /* The I-sync gives the address: no return packet is owed for it. */
    vfy_item(v, 0)->ret = 0;
    vfy_item(v, 0)->restart = 1;
    v->ret_given = v->exc_given = 0; /* packets before the gap spoke of instructions lost in it */
    vfy_data_restart(v);
}

/* An address point: the next atom is for the instruction at addr. kind: "branch
 * packet", "exception packet", "I-sync". */
static void address_point(etm_verify_t *v, uint32_t addr, const char *kind, uint64_t off, int overflow, int entry,
                          uint64_t sync_cycle, int has_cc)
{
    char gap[200];
    if (overflow) {
        /* Trace was lost: it goes on at addr. */
        confirm(v);
        long j = restart_at(v, addr, sync_cycle, has_cc);
        if (j < 0) {
            vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, v->cur < v->len ? vfy_item(v, v->cur)->cycle : 0, off,
                 "the overflow restart's I-sync gives 0x%08" PRIx32 ", which the core has not executed since the "
                 "last instruction traced", addr);
            return;
        }
        if (!(v->ca && v->have_offset && has_cc)) {
            /* Which of the instructions at addr? The elements that follow tell
             * (with timed bytes, of those executed before the I-sync left). */
            v->ncand = 0;
            for (size_t f = (size_t)j; f < v->len && v->ncand < MAX_CANDIDATES; f++)
                if (v->timed && vfy_item(v, f)->cycle > v->now)
                    break;
                else if (vfy_item(v, f)->addr == addr) {
                    v->cand[v->ncand] = f;
                    v->cpos[v->ncand] = f;
                    v->cok[v->ncand] = 1;
                    v->ncand++;
                }
            if (v->ncand > 1) {
                v->cand_first = v->cand[0];
                v->resolving = 1;
                v->nheld = 0;
                return;
            }
        }
        restart_from(v, (size_t)j);
        return;
    }
    if (v->cur >= v->len) {
        confirm(v);
        uint64_t uc = vfy_untraced_at(v, addr);
        if (uc != UINT64_MAX)
            vfy_fail(v, ETM_VFAIL_FILTER, uc, off,
                 "%s at byte %" PRIu64 " gives 0x%08" PRIx32 ", executed in cycle %" PRIu64
                 " outside TraceEnable (the core has executed nothing traced since)", kind, off, addr, uc);
        else
            vfy_fail(v, ETM_VFAIL_EXTRA_ATOM, 0, off,
                 "%s at byte %" PRIu64 " gives 0x%08" PRIx32 ", but the core has executed no traced instruction "
                 "that is not traced already", kind, off, addr);
        return;
    }
    const vitem_t *x = vfy_item(v, v->cur);
    if (x->addr == addr && (!entry || x->entry)) {
        confirm(v);
        vfy_data_confirm(v);
        return;
    }
    long j = find_near(v, addr, v->len - v->cur, entry);
    if (j >= 0 && (size_t)j > v->cur) {
        v->sus.on = 0;
        gap_text(v, (size_t)j, gap, sizeof gap);
        /* An I-sync that skips instructions is a restart that hides a loss;
         * a branch packet a few atoms on means atoms left out. */
        if ((size_t)j - v->cur <= NEAR && strcmp(kind, "I-sync"))
            vfy_fail(v, ETM_VFAIL_MISSING_ATOM, x->cycle, off, "%s; the %s at byte %" PRIu64 " goes on at 0x%08" PRIx32,
                 gap, kind, off, addr);
        else if (x->indirect && strcmp(kind, "I-sync"))
            /* The core's branch owes its target's address here; one that the
             * core reaches only far later is a wrong address, not a loss. */
            vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, x->cycle, off,
                 "%s at byte %" PRIu64 " gives 0x%08" PRIx32 ", but the core went to 0x%08" PRIx32 " (cycle %" PRIu64
                 "); it reaches 0x%08" PRIx32 " only %zu instructions later", kind, off, addr, x->addr, x->cycle, addr,
                 (size_t)j - v->cur);
        else
            vfy_fail(v, ETM_VFAIL_GAP, x->cycle, off,
                 "%s; the %s at byte %" PRIu64 " goes on at 0x%08" PRIx32 " and no overflow was signalled", gap, kind,
                 off, addr);
        return;
    }
    if (j >= 0) {
        v->sus.on = 0;
        /* Atoms the core did not owe: where instructions ran outside
         * TraceEnable among those the atoms passed, the filter was ignored. */
        for (size_t f = (size_t)j; f <= v->cur && f < v->len; f++)
            if (vfy_item(v, f)->untraced_before) {
                x = vfy_item(v, f);
                break;
            }
        if (x->untraced_before)
            vfy_fail(v, ETM_VFAIL_FILTER, x->cycle, off,
                 "%zu atoms before the %s at byte %" PRIu64 " (0x%08" PRIx32 ") are for instructions executed outside "
                 "TraceEnable: the core executed %" PRIu32 " untraced instructions before 0x%08" PRIx32 " (cycle %" PRIu64
                 ")", v->cur - (size_t)j, kind, off, addr, x->untraced_before, x->addr, x->cycle);
        else
            vfy_fail(v, ETM_VFAIL_EXTRA_ATOM, x->cycle, off,
                 "%zu atoms too many before the %s at byte %" PRIu64 ": it gives 0x%08" PRIx32
                 ", which the atoms had passed; the core's next instruction is 0x%08" PRIx32 " (cycle %" PRIu64 ")",
                 v->cur - (size_t)j, kind, off, addr, x->addr, x->cycle);
        return;
    }
    v->sus.on = 0;
    uint64_t uc = vfy_untraced_at(v, addr);
    if (uc != UINT64_MAX)
        vfy_fail(v, ETM_VFAIL_FILTER, uc, off,
             "%s at byte %" PRIu64 " gives 0x%08" PRIx32 ", executed in cycle %" PRIu64
             " outside TraceEnable; trace should start at 0x%08" PRIx32 " (cycle %" PRIu64 ")", kind, off, addr, uc,
             x->addr, x->cycle);
    else if (x->untraced_before)
        outside_filter(v, x, off);
    else if (entry && x->addr == addr)
        vfy_fail(v, ETM_VFAIL_EXC_MISSING, x->cycle, off,
             "exception packet at byte %" PRIu64 " for 0x%08" PRIx32 ", but the core took no exception there (cycle %"
             PRIu64 ")", off, addr, x->cycle);
    else
        vfy_fail(v, ETM_VFAIL_BRANCH_TARGET, x->cycle, off,
             "%s at byte %" PRIu64 " gives 0x%08" PRIx32 ", but the core went to 0x%08" PRIx32 " (cycle %" PRIu64 ")",
             kind, off, addr, x->addr, x->cycle);
}

static void on_atom(etm_verify_t *v, const etm_v3el_t *e)
{
    if (v->cur >= v->len) {
        if (v->ended || !v->sus.on)
            vfy_fail(v, ETM_VFAIL_EXTRA_ATOM, 0, e->offset,
                 "%c atom at byte %" PRIu64 ", but the core has executed no traced instruction that is not traced "
                 "already", e->executed ? 'E' : 'N', e->offset);
        return;
    }
    vitem_t *x = vfy_item(v, v->cur);
    if (x->cancelled) {
        /* Held, not failed at once: a design that sends an atom before its
         * cancel is known (the ETM-M3) withdraws it with the exception
         * packet's Cancel bit, and an overflow that loses that packet loses
         * the withdrawal with it (docs/scoreboard.md). */
        confirm(v);
        vfy_hold(v, &v->sus, ETM_VFAIL_CANCEL, x->cycle, e->offset,
                 "the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") did not complete (ETMCANCEL), but the "
                 "trace keeps its atom (byte %" PRIu64 "): the exception packet must carry the Cancel bit",
                 x->addr, x->cycle, e->offset);
        v->cur++;
        v->addr_given = v->exc_given = v->ret_given = 0;
        return;
    }
    if (x->entry && !v->exc_given) {
        confirm(v);
        if (x->untraced_before) {
            outside_filter(v, x, e->offset);
            return;
        }
        vfy_fail(v, ETM_VFAIL_EXC_MISSING, x->cycle, e->offset,
             "the core took exception %u at 0x%08" PRIx32 " (cycle %" PRIu64 "), but the atom at byte %" PRIu64
             " comes without an exception packet", x->exc, x->addr, x->cycle, e->offset);
        return;
    }
    if (x->ret && !v->ret_given && !v->sus.on) {
        vfy_fail(v, ETM_VFAIL_EXC_RETURN, x->cycle, e->offset,
             "the core returned from an exception to 0x%08" PRIx32 " (cycle %" PRIu64 "), but no exception-return "
             "packet comes before its atom (byte %" PRIu64 ")", x->addr, x->cycle, e->offset);
        return;
    }
    if (!x->ret && !x->tailchain && v->ret_given && !v->sus.on) { /* (a tail-chain may return first) */
        vfy_fail(v, ETM_VFAIL_EXC_RETURN, x->cycle, e->offset,
             "an exception-return packet before the atom at byte %" PRIu64 ", but the core did not return from an "
             "exception before 0x%08" PRIx32 " (cycle %" PRIu64 ")", e->offset, x->addr, x->cycle);
        return;
    }
    if (x->indirect && !v->addr_given && !x->restart)
        vfy_hold(v, &v->sus, ETM_VFAIL_BRANCH_MISSING, x->cycle, e->offset,
                "the core reached 0x%08" PRIx32 " (cycle %" PRIu64 ") by an indirect branch, but its atom (byte %" PRIu64
                ") comes without a branch packet", x->addr, x->cycle, e->offset);
    if (x->exec != e->executed)
        vfy_hold(v, &v->sus, ETM_VFAIL_ATOM_EN, x->cycle, e->offset,
                "the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") %s, but its atom at byte %" PRIu64 " is %c",
                x->addr, x->cycle, x->exec ? "executed" : "failed its condition", e->offset, e->executed ? 'E' : 'N');
    if (v->ca && !v->sus.on && !v->cc_pending) {
        int64_t off = (int64_t)e->cycle - (int64_t)x->cycle;
        if (!v->have_offset) {
            v->offset = off;
            v->have_offset = 1;
        } else if (off != v->offset) {
            vfy_fail(v, ETM_VFAIL_CYCLE, x->cycle, e->offset,
                 "the instruction at 0x%08" PRIx32 " executed in cycle %" PRIu64 ", but the trace puts it %" PRId64
                 " cycles %s (atom at byte %" PRIu64 ")", x->addr, x->cycle,
                 off > v->offset ? off - v->offset : v->offset - off, off > v->offset ? "later" : "earlier", e->offset);
            return;
        }
        v->r.cycles_checked++;
    }
    if (v->timed && v->now > x->cycle) {
        uint64_t lat = v->now - x->cycle;
        if (lat > v->r.max_latency)
            v->r.max_latency = lat;
        if (v->o.max_latency && lat > v->o.max_latency)
            vfy_fail(v, ETM_VFAIL_LATENCY, x->cycle, e->offset,
                 "the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") is traced %" PRIu64 " cycles later, more than "
                 "the bound of %" PRIu64, x->addr, x->cycle, lat, v->o.max_latency);
    }
    v->r.instructions++;
    v->cur++;
    v->addr_given = v->exc_given = v->ret_given = 0;
    if (v->sus.on && v->cur > 4 * NEAR)
        confirm(v); /* no address point came to say otherwise */
    if (!v->sus.on && v->cur > 4 * NEAR)
        vfy_release(v);
}

static void on_exception(etm_verify_t *v, const etm_v3el_t *e)
{
    v->r.exceptions++;
    if (e->cancel && e->withdrawn) {
        /* The decoder withdrew the atom it held: the core must have cancelled it. */
        if (v->cur < v->len && vfy_item(v, v->cur)->cancelled) {
            /* What was owed before its atom (a return packet) went with it. */
            const vitem_t *x = vfy_item(v, v->cur);
            if (x->ret && !v->ret_given && !v->sus.on) {
                vfy_fail(v, ETM_VFAIL_EXC_RETURN, x->cycle, e->offset,
                     "the core returned from an exception to 0x%08" PRIx32 " (cycle %" PRIu64 "), but no "
                     "exception-return packet comes before the exception packet that cancels it (byte %" PRIu64 ")",
                     x->addr, x->cycle, e->offset);
                return;
            }
            v->ret_given = 0;
            v->cur++;
        } else {
            confirm(v);
            const vitem_t *p = v->cur ? vfy_item(v, v->cur - 1) : NULL;
            vfy_fail(v, ETM_VFAIL_CANCEL, p ? p->cycle : 0, e->offset,
                 "the exception packet at byte %" PRIu64 " has the Cancel bit, but the core completed the instruction "
                 "at 0x%08" PRIx32, e->offset, p ? p->addr : 0);
            return;
        }
    } else if (v->cur < v->len && vfy_item(v, v->cur)->cancelled) {
        confirm(v);
        const vitem_t *x = vfy_item(v, v->cur);
        vfy_fail(v, ETM_VFAIL_CANCEL, x->cycle, e->offset,
             "the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") did not complete (ETMCANCEL), but the exception "
             "packet at byte %" PRIu64 " has no Cancel bit", x->addr, x->cycle, e->offset);
        return;
    }
    if (v->cur < v->len && vfy_item(v, v->cur)->addr == e->addr && vfy_item(v, v->cur)->entry &&
        vfy_item(v, v->cur)->exc != e->exc_number) {
        confirm(v);
        const vitem_t *x = vfy_item(v, v->cur);
        vfy_fail(v, ETM_VFAIL_EXC_NUMBER, x->cycle, e->offset,
             "the core took exception %u (handler at 0x%08" PRIx32 ", cycle %" PRIu64 "), the exception packet at "
             "byte %" PRIu64 " says %u", x->exc, x->addr, x->cycle, e->offset, e->exc_number);
        return;
    }
    address_point(v, e->addr, "exception packet", e->offset, 0, 1, 0, 0);
    v->addr_given = v->exc_given = 1;
}

/* ---- Overflow restarts without cycle counts or times -----------------------------------------
 *
 * The I-sync after an overflow gives an address, and the core may have run the
 * instruction there many times during the gap (a loop). Each of those (up to
 * MAX_CANDIDATES) is a candidate; the elements that follow are held and each
 * candidate is walked over them (atoms against E/N, addresses against the
 * instructions), until one candidate alone agrees, or MAX_HELD elements, the
 * next overflow or the end come, when the first that still agrees is taken.
 * Then the held elements are matched for real from there. */

static void on_element(void *user, const etm_v3el_t *e);
/* An element past the branch-packet hold (on_element): held elements replay here. */
static void take_element(etm_verify_t *v, const etm_v3el_t *e);

/* Does candidate c still agree after element e? */
static void cand_step(etm_verify_t *v, size_t c, const etm_v3el_t *e)
{
    size_t *pos = &v->cpos[c];
    int atom = e->kind == ETM_V3EL_ATOM || e->kind == ETM_V3EL_INSN;
    int addr = (e->kind == ETM_V3EL_BRANCH || e->kind == ETM_V3EL_SYNC || e->kind == ETM_V3EL_EXCEPTION) &&
               e->addr_valid;
    if (!v->cok[c] || (!atom && !addr) || (atom && e->lsip))
        return;
    if (e->kind == ETM_V3EL_EXCEPTION && e->cancel && e->withdrawn && *pos < v->len && vfy_item(v, *pos)->cancelled)
        (*pos)++;
    while (atom && *pos < v->len && vfy_item(v, *pos)->cancelled)
        (*pos)++;
    if (*pos >= v->len)
        return; /* beyond what the core has done so far: cannot tell yet */
    const vitem_t *x = vfy_item(v, *pos);
    if (atom) {
        v->cok[c] = x->exec == e->executed;
        (*pos)++;
    } else {
        v->cok[c] = x->addr == e->addr;
    }
}

/* Take the restart at the candidate that agrees (the first of several), and
 * match the held elements from there. At the end of both streams (at_end:
 * no overflow left untraced) the end tells them apart too: a candidate after
 * whose elements every instruction executed is traced is taken first. */
static void resolve_as(etm_verify_t *v, int at_end)
{
    size_t pick = v->cand_first; /* none agrees: the first (its failure is then the report) */
    int found = 0;
    for (size_t c = 0; at_end && !found && c < v->ncand; c++)
        if (v->cok[c] && v->cpos[c] >= v->len) {
            pick = v->cand[c];
            found = 1;
        }
    for (size_t c = 0; !found && c < v->ncand; c++)
        if (v->cok[c]) {
            pick = v->cand[c];
            found = 1;
        }
    v->resolving = 0;
    restart_from(v, pick);
    size_t n = v->nheld;
    v->nheld = 0;
    for (size_t i = 0; i < n && !vfy_failed(v); i++) {
        const held_t *h = &v->held[i];
        etm_v3el_t e;
        memset(&e, 0, sizeof e);
        e.kind = (etm_v3el_kind_t)h->kind;
        e.offset = h->offset;
        e.cycle = h->cycle;
        e.addr = h->addr;
        e.addr_valid = h->addr_valid;
        e.executed = h->executed;
        e.lsip = h->lsip;
        e.exc_number = h->exc_number;
        e.cancel = h->cancel;
        e.withdrawn = h->withdrawn;
        e.reason = h->reason;
        e.has_cycle_count = h->has_cycle_count;
        take_element(v, &e);
    }
}

static void resolve(etm_verify_t *v) { resolve_as(v, 0); }

static void hold_element(etm_verify_t *v, const etm_v3el_t *e)
{
    if (e->kind == ETM_V3EL_OVERFLOW) {
        resolve(v);
        take_element(v, e);
        return;
    }
    if (v->nheld == v->held_cap) {
        size_t cap = v->held_cap ? 2 * v->held_cap : 1024;
        held_t *h = (held_t *)realloc(v->held, cap * sizeof *h);
        if (!h) { /* no room to tell them apart: take the first that agrees */
            resolve(v);
            take_element(v, e);
            return;
        }
        v->held = h;
        v->held_cap = cap;
    }
    held_t *h = &v->held[v->nheld++];
    h->offset = e->offset;
    h->cycle = e->cycle;
    h->addr = e->addr;
    h->exc_number = (uint16_t)e->exc_number;
    h->kind = (uint8_t)e->kind;
    h->executed = (uint8_t)e->executed;
    h->addr_valid = (uint8_t)e->addr_valid;
    h->lsip = (uint8_t)e->lsip;
    h->cancel = (uint8_t)e->cancel;
    h->withdrawn = (uint8_t)e->withdrawn;
    h->reason = (uint8_t)e->reason;
    h->has_cycle_count = (uint8_t)e->has_cycle_count;
    /* The candidates that still agree, in their order: most part soon. */
    size_t agree = 0;
    for (size_t c = 0; c < v->ncand; c++) {
        cand_step(v, c, e);
        if (v->cok[c]) {
            v->cand[agree] = v->cand[c];
            v->cpos[agree] = v->cpos[c];
            v->cok[agree] = 1;
            agree++;
        }
    }
    v->ncand = agree;
    if (agree <= 1 || v->nheld == MAX_HELD)
        resolve(v);
}

static void take_element(etm_verify_t *v, const etm_v3el_t *e)
{
    if (vfy_failed(v))
        return;
    if (v->resolving) {
        if (e->kind == ETM_V3EL_DATA) {
            /* Not held: the next data packet after the restart is placed finds its transfer again. */
            v->r.transfers++;
            return;
        }
        hold_element(v, e);
        return;
    }
    switch (e->kind) {
    case ETM_V3EL_ATOM:
    case ETM_V3EL_INSN:
        if (e->lsip)
            break;
        on_atom(v, e);
        break;
    case ETM_V3EL_BRANCH:
        v->r.branches++;
        if (e->addr_valid) {
            address_point(v, e->addr, "branch packet", e->offset, 0, 0, 0, 0);
            v->addr_given = 1;
        }
        break;
    case ETM_V3EL_EXCEPTION:
        on_exception(v, e);
        break;
    case ETM_V3EL_EXC_RETURN:
        v->r.returns++;
        v->ret_given = 1;
        break;
    case ETM_V3EL_OVERFLOW:
        v->r.overflows++;
        v->overflow_pending = 1;
        v->cc_pending = 0; /* 7.3.4: an overflow may take the count packet that was to follow an I-sync */
        if (v->sus.on && v->sus.rule == ETM_VFAIL_CANCEL)
            v->sus.on = 0; /* the packet that would have withdrawn the atom was lost */
        vfy_data_overflow(v);
        break;
    case ETM_V3EL_SYNC:
        v->r.isyncs++;
        /* IHI 0014Q 7.3.4: cycle-accurate, a non-periodic I-sync carries its
         * count, or a cycle-count packet follows it before the next
         * non-periodic I-sync; until it has come, the cycles of the
         * instructions after the I-sync are not known (the decoder adds the
         * count where its packet is). */
        if (v->ca && e->reason != ETM_V3_REASON_PERIODIC) {
            if (v->cc_pending)
                vfy_fail(v, ETM_VFAIL_CYCLE, 0, e->offset,
                     "byte %" PRIu64 ": a non-periodic I-sync, and the one before it (byte %" PRIu64 ") carried no cycle "
                     "count and no cycle-count packet followed it (7.3.4)", e->offset, v->cc_pending_at);
            v->cc_pending = !e->has_cycle_count;
            v->cc_pending_at = e->offset;
        }
        if (e->addr_valid) {
            address_point(v, e->addr, "I-sync", e->offset, v->overflow_pending, 0, e->cycle, e->has_cycle_count);
            v->addr_given = 1;
        }
        v->overflow_pending = 0;
        break;
    case ETM_V3EL_TRIGGER:
        v->r.triggers++;
        if (v->r.triggers > v->triggers_fired && v->timed)
            vfy_fail(v, ETM_VFAIL_TRIGGER, v->now, e->offset,
                 "trigger packet at byte %" PRIu64 ", but the trigger event has fired only %" PRIu64 " times",
                 e->offset, v->triggers_fired);
        break;
    case ETM_V3EL_CYCLE_COUNT:
        v->cc_pending = 0; /* the count of the I-sync before it: the cycles are known again */
        break;
    case ETM_V3EL_TIMESTAMP:
    case ETM_V3EL_CONTEXT:
    case ETM_V3EL_NO_IMAGE:
        break;
    case ETM_V3EL_DATA:
        /* ETMv3 data trace: each packet held to a transfer of the core's (verify_data.c). */
        if (v->data) {
            if (e->data.kind != ETM_V3_DATA_OOO)
                v->r.transfers++;
            vfy_data_element(v, e);
            break;
        }
        /* fall through */
    default:
        vfy_fail(v, ETM_VFAIL_GRAMMAR, 0, e->offset, "byte %" PRIu64 ": a %s element, which this configuration cannot make",
             e->offset, etm_v3el_kind_name(e->kind));
        break;
    }
}

/* A branch packet held until the next element: IHI 0014Q 7.3.5, several
 * branch packets may be output for one instruction, each interpreted in turn
 * and all but the final one ignored. Two branch packets with nothing between
 * are for one instruction (every instruction that branches has its atom): the
 * later replaces the earlier, and the one held is judged when anything else
 * comes, or at the end. A branch packet with exception information is a
 * branch packet too: one right after a plain one is the final one (a branch,
 * direct or indirect, whose target an exception preempted; or whose
 * instruction it cancelled). */
static void flush_branch(etm_verify_t *v)
{
    if (!v->have_branch)
        return;
    v->have_branch = 0;
    etm_v3el_t b = v->branch_held;
    take_element(v, &b);
}

static void on_element(void *user, const etm_v3el_t *e)
{
    etm_verify_t *v = (etm_verify_t *)user;
    if (vfy_failed(v))
        return;
    if (e->kind == ETM_V3EL_BRANCH && e->addr_valid) {
        if (v->have_branch)
            v->r.branches++; /* the superseded one counts as a packet */
        v->branch_held = *e;
        v->have_branch = 1;
        return;
    }
    if (e->kind == ETM_V3EL_EXCEPTION && e->addr_valid && v->have_branch) {
        v->have_branch = 0; /* superseded by the exception's packet */
        v->r.branches++;
    }
    flush_branch(v);
    take_element(v, e);
}

/* Packets: the rules of the configured mode beyond the decoder's grammar, and
 * the A-sync spacing. */
static void on_packet(void *user, const etm_v3pkt_t *p)
{
    etm_verify_t *v = (etm_verify_t *)user;
    if (vfy_failed(v))
        return;
    switch (p->kind) {
    case ETM_V3PKT_ASYNC:
        v->r.asyncs++;
        if (v->since_async > v->r.max_sync_gap && v->seen_async)
            v->r.max_sync_gap = v->since_async;
        v->since_async = 0;
        v->seen_async = 1;
        return;
    case ETM_V3PKT_IGNORE:
    case ETM_V3PKT_NOSYNC:
        return;
    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC:
        /* An overflow is the architecture's own way out when a sync cannot be
         * placed within twice the period: the count starts again after it. */
        if (p->reason == ETM_V3_REASON_OVERFLOW)
            v->since_async = 0;
        if (p->kind == ETM_V3PKT_ISYNC)
            break;
        /* fall through */
    case ETM_V3PKT_CYCLE_COUNT:
        if (!v->ca)
            vfy_fail(v, ETM_VFAIL_GRAMMAR, 0, p->offset, "byte %" PRIu64 ": %s packet, but ETMCR[12] (cycle-accurate) is clear",
                 p->offset, etm_v3pkt_kind_name(p->kind));
        break;
    case ETM_V3PKT_EXC_RETURN:
        if (!v->exc_ext)
            vfy_fail(v, ETM_VFAIL_GRAMMAR, 0, p->offset,
                 "byte %" PRIu64 ": exception-return packet (0x76), which ETMv3.4 introduced, in an earlier version",
                 p->offset);
        break;
    case ETM_V3PKT_PHDR:
        if (p->format == 4 && v->version < ETM_V(3, 3))
            vfy_fail(v, ETM_VFAIL_GRAMMAR, 0, p->offset,
                 "byte %" PRIu64 ": P-header format 4, which ETMv3.3 introduced, in an earlier version", p->offset);
        break;
    default:
        break;
    }
    v->since_async += p->size;
    if (v->sync_period && v->seen_async && v->since_async > 2ull * v->sync_period)
        vfy_fail(v, ETM_VFAIL_SYNC_PERIOD, 0, p->offset,
             "no A-sync in the %" PRIu64 " bytes up to byte %" PRIu64 ": ETMSYNCFR is %" PRIu32
             " and a sync may wait at most as long again", v->since_async, p->offset + p->size, v->sync_period);
}

/* ---- The interface -------------------------------------------------------------------------- */

etm_err_t etm_verify_create(etm_verify_t **out, const etm_config_t *cfg, const etm_verify_opts_t *opts,
                            etm_diag_t *diag)
{
    *out = NULL;
    etm_verify_t *v = (etm_verify_t *)calloc(1, sizeof *v);
    if (!v)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    v->cfg = *cfg;
    if (opts)
        v->o = *opts;
    etm_err_t e = etm_config_version(cfg, &v->version, diag);
    v->v1 = ETM_V_MAJOR(v->version) == 1;
    if (e == ETM_OK && ETM_V_MAJOR(v->version) != 3 && !v->v1)
        e = etm_util_fail(diag, ETM_ERR_UNSUPPORTED, "the checker takes ETMv3 and ETMv1 trace, not ETMv%u.%u",
                     ETM_V_MAJOR(v->version), ETM_V_MINOR(v->version));
    v->data = ETM_FIELD_GET(ETM_CR_DATA_ACCESS, cfg->etmcr) != 0;
    v->daddrs = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, cfg->etmcr) & 2u) != 0;
    v->dvalues = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, cfg->etmcr) & 1u) != 0;
    if (e == ETM_OK)
        e = etm_watch_create(&v->watch, cfg, v->o.at_reset, diag);
    if (e == ETM_OK && v->v1)
        e = vfy_v1_open(v, diag);
    else if (e == ETM_OK)
        e = etm_v3dec_create(&v->dec, cfg, ETM_V3DEC_V7M, diag);
    if (e == ETM_OK && v->data && !v->v1)
        e = vfy_data_open(v, diag);
    v->lag_max = v->o.max_lag ? (size_t)v->o.max_lag : (size_t)1 << 18;
    v->cap = 1024; /* a power of two; grows with the lag (vfy_push), up to the lag allowed */
    if (e == ETM_OK && !(v->q = (vitem_t *)calloc(v->cap, sizeof *v->q)))
        e = etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    if (e != ETM_OK) {
        etm_verify_destroy(v);
        return e;
    }
    v->ca = (int)ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr);
    v->exc_ext = v->version >= ETM_V(3, 4);
    v->sync_period = v->version >= ETM_V(3, 1) ? cfg->etmsyncfr & 0xfffu : 0;
    if (v->dec) {
        etm_v3dec_on_element(v->dec, on_element, v);
        etm_v3dec_on_packet(v->dec, on_packet, v);
    }
    *out = v;
    return ETM_OK;
}

void etm_verify_destroy(etm_verify_t *v)
{
    if (!v)
        return;
    if (v->dec)
        etm_v3dec_destroy(v->dec);
    vfy_v1_close(v);
    vfy_data_close(v);
    etm_destroy(v->watch);
    free(v->q);
    free(v->held);
    free(v);
}

etm_err_t etm_verify_cycle(etm_verify_t *v, const etm_in_t *in)
{
    if (v->ended)
        return ETM_ERR_STATE;
    etm_seen_t s;
    etm_watch_step(v->watch, in, &s);
    v->idle_last = !s.ninsn && !s.trigger && !s.cancel && !s.exit && !v->v1 && !v->data && !vfy_failed(v);
    if (v->idle_last) {
        /* A cycle without instructions (most of a core asleep): nothing to
         * queue; only trace that is off ends the run it was in (core_cycle). */
        if (!(s.running && s.trace_enable))
            v->active = 0;
        v->r.cycles++;
        return ETM_OK;
    }
    if (!vfy_failed(v) && v->v1)
        vfy_v1_core(v, &s, v->r.cycles);
    else if (!vfy_failed(v))
        core_cycle(v, &s, v->r.cycles);
    if (v->data && !vfy_failed(v)) {
        if (v->v1)
            vfy_v1_data(v, in, &s, v->r.cycles);
        else
            vfy_data_core(v, in, &s, v->r.cycles);
    }
    v->r.cycles++;
    return ETM_OK;
}

etm_err_t etm_verify_bytes(etm_verify_t *v, const uint8_t *buf, size_t n, int timed)
{
    if (v->ended || v->v1)
        return ETM_ERR_STATE;
    v->timed = timed;
    v->now = v->r.cycles ? v->r.cycles - 1 : 0;
    while (n && !vfy_failed(v)) {
        size_t used = 0;
        etm_diag_t d;
        if (etm_v3dec_feed(v->dec, buf, n, &used, &d) != ETM_OK) {
            vfy_fail(v, ETM_VFAIL_GRAMMAR, v->now, d.offset, "byte %" PRIu64 ": %s", d.offset, d.msg);
            break;
        }
        buf += used;
        n -= used;
    }
    v->r.bytes = etm_v3dec_get_stats(v->dec)->bytes;
    return ETM_OK;
}

size_t etm_verify_waiting(const etm_verify_t *v)
{
    /* While an overflow restart is worked out, the candidates have gone further. */
    size_t front = v->cur;
    for (size_t c = 0; v->resolving && c < v->ncand; c++)
        if (v->cpos[c] > front && v->cpos[c] <= v->len)
            front = v->cpos[c];
    return v->len - front;
}

etm_err_t etm_verify_end(etm_verify_t *v, int untraced_overflow)
{
    if (v->ended)
        return ETM_OK;
    v->ended = 1;
    etm_diag_t d;
    if (v->v1) {
        vfy_v1_end(v);
    } else {
        if (!vfy_failed(v) && etm_v3dec_end(v->dec, &d) != ETM_OK)
            vfy_fail(v, ETM_VFAIL_GRAMMAR, v->now, d.offset, "at the end: %s", d.msg);
        if (!vfy_failed(v))
            flush_branch(v);
        if (v->resolving)
            resolve_as(v, !untraced_overflow);
        confirm(v);
        if (!vfy_failed(v) && v->ca && v->cc_pending && !untraced_overflow)
            vfy_fail(v, ETM_VFAIL_CYCLE, v->now, v->r.bytes,
                 "the non-periodic I-sync at byte %" PRIu64 " carried no cycle count and no cycle-count packet "
                 "followed it before the trace ended (7.3.4): the cycles after it are not in the trace",
                 v->cc_pending_at);
    }
    if (!vfy_failed(v) && untraced_overflow) {
        v->r.overflows++;
        v->r.lost += v->len - v->cur;
        v->cur = v->len;
    }
    if (!vfy_failed(v) && v->cur < v->len) {
        const vitem_t *x = vfy_item(v, v->cur);
        vfy_fail(v, ETM_VFAIL_UNTRACED, x->cycle, v->r.bytes,
             "%zu instructions executed with TraceEnable %s, from 0x%08" PRIx32 " (cycle %" PRIu64 ")",
             v->len - v->cur, v->v1 ? "have no status" : "were never traced", x->addr, x->cycle);
    }
    if (!v->v1)
        vfy_data_end(v, untraced_overflow);
    if (!vfy_failed(v) && v->r.triggers != v->triggers_fired && !(v->r.overflows && v->r.triggers < v->triggers_fired))
        vfy_fail(v, ETM_VFAIL_TRIGGER, 0, v->r.bytes, "the trigger event fired %" PRIu64 " times, the %s %" PRIu64
             " %s", v->triggers_fired, v->v1 ? "port shows" : "trace has", v->r.triggers,
             v->v1 ? "TR cycles" : "trigger packets");
    return ETM_OK;
}

const etm_verify_result_t *etm_verify_result(const etm_verify_t *v) { return &v->r; }

size_t etm_verify_result_size(void) { return sizeof(etm_verify_result_t); }

etm_err_t etm_verify_cycles(etm_verify_t *v, const etm_in_t *in, size_t n)
{
    etm_err_t e = ETM_OK;
    for (size_t i = 0; i < n && e == ETM_OK;) {
        if (i && v->idle_last && !v->ended && !vfy_failed(v)) {
            /* A run of the inputs of an idle cycle: the watching instance's
             * repeat path gives it at once, each cycle seeing what the last
             * one saw, which changes nothing here but the count. */
            size_t k = etm_watch_repeat(v->watch, &in[i], n - i);
            v->r.cycles += k;
            i += k;
            if (k)
                continue;
        }
        e = etm_verify_cycle(v, &in[i]);
        i++;
    }
    return e;
}

int etm_verify_is_v1(const etm_verify_t *v) { return v->v1; }

char *etm_verify_describe(const etm_verify_t *v, char *buf, size_t size)
{
    const etm_verify_first_t *f = &v->r.first;
    if (!v->r.failures)
        snprintf(buf, size, "no failure");
    else
        snprintf(buf, size, "cycle %" PRIu64 ", %s %" PRIu64 ": %s: %s", f->cycle, v->v1 ? "port cycle" : "byte",
                 f->offset, etm_vfail_id(f->rule), f->text);
    return buf;
}
