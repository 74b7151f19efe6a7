/* judge.c - the testbenches' one judge of executed flow against decoded flow
 * (judge.h). */
#include "judge.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(int k)
{
    static const char *const n[] = { "instruction", "exception", "exception return", "trigger", "resync" };
    return k >= 0 && k <= JX_RESYNC ? n[k] : "?";
}

int judge_init(judge_t *j, const char *name, size_t cap)
{
    memset(j, 0, sizeof *j);
    j->name = name;
    j->on = 1;
    j->cap = cap;
    j->q = (judge_item_t *)calloc(cap, sizeof *j->q);
    return j->q ? 0 : -1;
}

void judge_free(judge_t *j)
{
    free(j->q);
    j->q = NULL;
}

void judge_fail(judge_t *j, const char *fmt, ...)
{
    if (j->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->first_error, sizeof j->first_error, fmt, ap);
        va_end(ap);
    }
}

/* ---- The queue of what executed -------------------------------------------------------- */

static judge_item_t *at(const judge_t *j, size_t i) { return &j->q[(j->head + i) % j->cap]; }

uint64_t judge_push(judge_t *j, const judge_item_t *x)
{
    if (!j->on)
        return 0;
    if (j->len == j->cap) {
        judge_fail(j, "expected-item queue full: %s lags more than %zu items", j->name, j->cap);
        return 0;
    }
    *at(j, j->len) = *x;
    j->len++;
    if (x->kind == JX_INSN || x->kind == JX_EXC)
        j->has_cancelled = 0; /* a cancel is settled by the next instruction or exception */
    return j->seq_head + j->len - 1;
}

judge_item_t *judge_at_seq(judge_t *j, uint64_t seq)
{
    if (!j->on || seq < j->seq_head || seq >= j->seq_head + j->len)
        return NULL;
    return at(j, (size_t)(seq - j->seq_head));
}

judge_item_t *judge_front(judge_t *j) { return j->len ? at(j, 0) : NULL; }

void judge_pop(judge_t *j)
{
    if (!j->len)
        return;
    j->head = (j->head + 1) % j->cap;
    j->len--;
    j->seq_head++;
}

judge_item_t *judge_last_insn(judge_t *j)
{
    for (size_t i = j->len; i-- > 0;) {
        if (at(j, i)->kind == JX_INSN)
            return at(j, i);
        if (at(j, i)->kind == JX_RESYNC)
            return NULL;
    }
    return NULL;
}

void judge_cancel_last(judge_t *j)
{
    if (!j->on)
        return;
    for (size_t i = j->len; i-- > 0;) {
        if (at(j, i)->kind == JX_INSN) {
            j->cancelled = *at(j, i);
            j->cancelled_seq = j->seq_head + i;
            j->has_cancelled = 1;
            if (j->kept_ok) {
                if (j->nwithdrawn == JUDGE_WITHDRAWN) { /* the oldest are long passed */
                    memmove(j->withdrawn, j->withdrawn + 1, sizeof j->withdrawn - sizeof j->withdrawn[0]);
                    j->nwithdrawn--;
                }
                j->withdrawn[j->nwithdrawn].seq = j->cancelled_seq;
                j->withdrawn[j->nwithdrawn].addr = j->cancelled.addr;
                j->nwithdrawn++;
            }
            for (size_t k = i; k + 1 < j->len; k++)
                *at(j, k) = *at(j, k + 1);
            j->len--;
            return;
        }
    }
    judge_fail(j, "a cancel with no instruction before it");
}

void judge_keep_cancels(judge_t *j) { j->kept_ok = 1; }

/* Is the decoder's instruction at addr one a cancel withdrew from where the
 * oldest item waits (judge_keep_cancels)? Withdrawn instructions already
 * passed are forgotten. */
static int kept_cancel(judge_t *j, uint32_t addr)
{
    unsigned k = 0;
    while (k < j->nwithdrawn && j->withdrawn[k].seq < j->seq_head)
        k++;
    memmove(j->withdrawn, j->withdrawn + k, (j->nwithdrawn - k) * sizeof j->withdrawn[0]);
    j->nwithdrawn -= k;
    if (!j->nwithdrawn || j->withdrawn[0].seq != j->seq_head || j->withdrawn[0].addr != addr)
        return 0;
    memmove(j->withdrawn, j->withdrawn + 1, (j->nwithdrawn - 1) * sizeof j->withdrawn[0]);
    j->nwithdrawn--;
    j->cancels_kept++;
    return 1;
}

void judge_uncancel(judge_t *j)
{
    if (!j->on)
        return;
    if (!j->has_cancelled)
        return; /* no cancel waiting for its exception */
    if (j->cancelled_seq < j->seq_head || j->cancelled_seq > j->seq_head + j->len) {
        judge_fail(j, "%s: a cancel to take back, but the instruction is gone", j->name);
        return;
    }
    size_t i = (size_t)(j->cancelled_seq - j->seq_head);
    if (j->len == j->cap) {
        judge_fail(j, "expected-item queue full: %s lags more than %zu items", j->name, j->cap);
        return;
    }
    judge_item_t back = j->cancelled;
    judge_push(j, &back);
    for (size_t k = j->len - 1; k > i; k--)
        *at(j, k) = *at(j, k - 1);
    *at(j, i) = back;
}

int judge_v3_exception_traced(unsigned version, unsigned traced_number)
{
    return traced_number < 16 || version >= ETM_V(3, 4);
}

int judge_v3_return_traced(unsigned version) { return version >= ETM_V(3, 4); }

int judge_last_is_resync(const judge_t *j) { return j->len && at(j, j->len - 1)->kind == JX_RESYNC; }

void judge_resync(judge_t *j)
{
    judge_item_t r;
    memset(&r, 0, sizeof r);
    r.kind = JX_RESYNC;
    judge_push(j, &r);
}

/* ---- What the decoder reports ------------------------------------------------------------- */

/* Compare an instruction with the oldest item; returns the item (not removed),
 * or NULL when there was no instruction to compare it with. */
static judge_item_t *compare_insn(judge_t *j, uint32_t addr, int exec, unsigned size, uint64_t cycle, int have_cycle)
{
    judge_item_t *x = judge_front(j);
    if (j->kept_ok && j->nwithdrawn && (!x || x->kind != JX_INSN || x->addr != addr) && kept_cancel(j, addr))
        return NULL; /* the withdrawn atom, kept: counted, not compared */
    if (!x) {
        judge_fail(j, "%s reports an instruction at 0x%08" PRIx32 " that was not executed (nothing expected)",
                   j->name, addr);
        return NULL;
    }
    if (x->kind != JX_INSN) {
        judge_fail(j, "expected %s (number %" PRIu32 "), %s reports an instruction at 0x%08" PRIx32,
                   kind_name(x->kind), x->num, j->name, addr);
        judge_pop(j);
        return NULL;
    }
    if (x->addr != addr || x->exec != exec || (size && x->size && x->size != size))
        judge_fail(j, "instruction %" PRIu64 ": executed 0x%08" PRIx32 " %c (size %u), %s decoded 0x%08" PRIx32
                   " %c (size %u)", j->compared, x->addr, x->exec ? 'E' : 'N', x->size, j->name, addr,
                   exec ? 'E' : 'N', size);
    else if (j->check_cycles && have_cycle && x->cycle != cycle)
        judge_fail(j, "instruction %" PRIu64 " at 0x%08" PRIx32 ": executed in cycle %" PRIu64 ", %s says %" PRIu64,
                   j->compared, addr, x->cycle, j->name, cycle);
    if (j->have_now && x->cycle && j->now >= x->cycle) {
        uint64_t lat = j->now - x->cycle;
        j->lat_n++;
        j->lat_sum += lat;
        j->lat_max = lat > j->lat_max ? lat : j->lat_max;
    }
    j->compared++;
    return x;
}

void judge_got_insn(judge_t *j, uint32_t addr, int exec, unsigned size, uint64_t cycle, int have_cycle)
{
    if (compare_insn(j, addr, exec, size, cycle, have_cycle))
        judge_pop(j);
}

void judge_got(judge_t *j, int kind, uint32_t num)
{
    judge_item_t *x = judge_front(j);
    j->exceptions += kind == JX_EXC;
    j->erets += kind == JX_ERET;
    j->triggers_seen += kind == JX_TRIG;
    if (!x || x->kind != kind || (kind == JX_EXC && x->num != num)) {
        if (x && x->kind == JX_INSN)
            judge_fail(j, "expected the instruction at 0x%08" PRIx32 ", %s reports %s %" PRIu32, x->addr, j->name,
                       kind_name(kind), num);
        else
            judge_fail(j, "expected %s %" PRIu32 ", %s reports %s %" PRIu32, x ? kind_name(x->kind) : "nothing",
                       x ? x->num : 0, j->name, kind_name(kind), num);
    }
    if (x)
        judge_pop(j);
}

void judge_got_overflow(judge_t *j)
{
    j->overflows++;
    while (j->len && judge_front(j)->kind != JX_RESYNC) {
        j->lost++;
        judge_pop(j);
    }
    if (j->len)
        judge_pop(j);
    else
        judge_fail(j, "%s reports an overflow restart the model did not make", j->name);
}

void judge_v3_element(void *user, const etm_v3el_t *e)
{
    judge_t *j = (judge_t *)user;
    switch (e->kind) {
    case ETM_V3EL_INSN:
        judge_got_insn(j, e->addr, e->executed, 0, e->cycle, 1);
        break;
    case ETM_V3EL_EXCEPTION:
        judge_got(j, JX_EXC, e->exc_number);
        break;
    case ETM_V3EL_EXC_RETURN:
        judge_got(j, JX_ERET, 0);
        break;
    case ETM_V3EL_TRIGGER:
        if (j->triggers)
            judge_got(j, JX_TRIG, 0);
        else
            j->triggers_seen++;
        break;
    case ETM_V3EL_OVERFLOW:
        judge_got_overflow(j);
        if (j->hooks.v3_overflow)
            j->hooks.v3_overflow(j->hooks.user, j);
        break;
    case ETM_V3EL_DATA:
        if (j->hooks.v3_data)
            j->hooks.v3_data(j->hooks.user, j, &e->data);
        else
            judge_fail(j, "%s: a data element without data trace", j->name);
        break;
    case ETM_V3EL_SYNC:
        if (e->addr_mismatch)
            judge_fail(j, "%s: periodic I-sync at 0x%08" PRIx32 ", the code said 0x%08" PRIx32, j->name, e->addr,
                       e->expected_addr);
        break;
    case ETM_V3EL_CYCLE_COUNT:
    case ETM_V3EL_TIMESTAMP:
    case ETM_V3EL_CONTEXT:
    case ETM_V3EL_BRANCH:
        break;
    default:
        judge_fail(j, "%s: element %s at byte %" PRIu64 " (address 0x%08" PRIx32 ")", j->name,
                   etm_v3el_kind_name(e->kind), e->offset, e->addr);
        break;
    }
}

void judge_v3_feed(judge_t *j, etm_v3dec_t *dec, const uint8_t *buf, size_t n)
{
    etm_diag_t d;
    size_t used = 0;
    if (n && etm_v3dec_feed(dec, buf, n, &used, &d) != ETM_OK)
        judge_fail(j, "%s: byte offset %" PRIu64 ": %s", j->name, d.offset, d.msg);
}

void judge_v3_close(judge_t *j, etm_v3dec_t *dec)
{
    etm_diag_t d;
    if (etm_v3dec_end(dec, &d) != ETM_OK)
        judge_fail(j, "%s at the end: %s", j->name, d.msg);
    etm_v3dec_destroy(dec);
}

void judge_v1_element(void *user, const etm_v1el_t *e)
{
    judge_t *j = (judge_t *)user;
    const judge_hooks_t *h = &j->hooks;
    judge_item_t *x;
    switch (e->kind) {
    case ETM_V1EL_INSN:
        x = compare_insn(j, e->addr, e->executed, e->insn.size, 0, 0);
        /* Its data comes as a DATA element next: keep the item if data is expected. */
        if (x && !(h->v1_wants_data && h->v1_wants_data(h->user, x)))
            judge_pop(j);
        break;
    case ETM_V1EL_DATA:
        if (!h->v1_data)
            break;
        x = judge_front(j);
        if (!x || x->kind != JX_INSN || !h->v1_wants_data(h->user, x) || x->addr != e->addr) {
            judge_fail(j, "cycle %" PRIu64 ": %s reports data for 0x%08" PRIx32 " that was not expected", e->cycle,
                       j->name, e->addr);
            break;
        }
        h->v1_data(h->user, j, x, e);
        judge_pop(j);
        break;
    case ETM_V1EL_TRIGGER:
        /* Not ordered against the instructions (its status goes out when the
         * event fires): counted. */
        j->triggers_seen++;
        break;
    case ETM_V1EL_TRACE_ON:
        if (e->reason == ETM_V1_REASON_OVERFLOW)
            judge_got_overflow(j);
        break;
    case ETM_V1EL_SYNC:
        break;
    default:
        judge_fail(j, "%s: unexpected %s element in cycle %" PRIu64 " at 0x%08" PRIx32, j->name,
                   etm_v1el_kind_name(e->kind), e->cycle, e->addr);
        break;
    }
}

/* ---- The verdict -------------------------------------------------------------------------- */

void judge_finish(judge_t *j, int lost_at_end, uint64_t min_compared)
{
    if (!j->on)
        return;
    size_t left = 0;
    const judge_item_t *first = NULL;
    for (size_t i = 0; i < j->len; i++)
        if (at(j, i)->kind != JX_RESYNC) {
            left++;
            if (!first)
                first = at(j, i);
        }
    if (lost_at_end) {
        j->lost += left;
        left = 0;
    }
    if (left)
        judge_fail(j, "%zu expected items never came out of %s (first: %s at 0x%08" PRIx32 ")", left, j->name,
                   kind_name(first->kind), first->addr);
    if (j->compared < min_compared)
        judge_fail(j, "only %" PRIu64 " instructions compared (at least %" PRIu64 " expected)", j->compared,
                   min_compared);
}

int judge_print(const judge_t *j, FILE *f, const char *prefix, int no_exceptions)
{
    if (!j->on)
        return 0;
    fprintf(f, "%s%s: %" PRIu64 " instructions%s", prefix, j->name, j->compared,
            j->check_cycles ? " with their cycles" : "");
    if (!no_exceptions)
        fprintf(f, ", %" PRIu64 " exceptions, %" PRIu64 " returns", j->exceptions, j->erets);
    if (j->triggers_seen)
        fprintf(f, ", %" PRIu64 " triggers", j->triggers_seen);
    fprintf(f, ", %" PRIu64 " overflow restarts", j->overflows);
    if (j->lost)
        fprintf(f, " (%" PRIu64 " items lost)", j->lost);
    if (j->cancels_kept)
        fprintf(f, ", %" PRIu64 " cancelled instructions reported (kept atoms its Cancel withdrew: "
                   "docs/silicon.md, \"Cancel\")", j->cancels_kept);
    if (j->errors)
        fprintf(f, ": %" PRIu64 " differences; first: %s\n", j->errors, j->first_error);
    else
        fprintf(f, ": zero differences\n");
    return j->errors != 0;
}

/* ---- The oracles' own tables -------------------------------------------------------------- */

unsigned judge_m3_exception(unsigned intnum)
{
    /* Cortex-M3 TRM table 14-8, as the TRM lists it: traced value, then the
     * exception (by its ETMINTNUM) traced with it. */
    static const struct { uint8_t traced, intnum; } table[] = {
        { 0, 0 },   /* none (thread mode) */
        { 1, 17 }, { 2, 18 }, { 3, 19 }, { 4, 20 }, { 5, 21 }, { 6, 22 }, { 7, 23 }, /* IRQ1-IRQ7 */
        { 8, 16 },  /* IRQ0 */
        { 9, 6 },   /* UsageFault */
        { 10, 2 },  /* NMI */
        { 11, 11 }, /* SVCall */
        { 12, 12 }, /* DebugMonitor */
        { 13, 4 },  /* MemManage */
        { 14, 14 }, /* PendSV */
        { 15, 15 }, /* SysTick */
        { 16, 8 }, { 18, 10 }, { 20, 9 }, { 22, 7 }, { 23, 13 }, /* reserved */
        { 17, 1 },  /* Reset */
        { 19, 3 },  /* HardFault */
        { 21, 5 },  /* BusFault */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].intnum == intnum)
            return table[i].traced;
    return intnum; /* IRQ8 and up (ETMINTNUM 24-511): the number itself */
}
