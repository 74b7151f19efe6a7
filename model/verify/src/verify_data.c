/* verify_data.c - the protocol scoreboard's ETMv3 data trace: every data
 * packet of the design held to a transfer on the core's data slot
 * (docs/scoreboard.md, "Data trace").
 *
 * The core's side follows the data slot as the architecture defines it
 * (ARM1176 TRM table 15-5, docs/data-trace.md): the first transfer after a
 * DALast starts a data instruction, the newest instruction signalled; a value
 * on DDSlot s belongs to the last address on slot s; the halves of an
 * unaligned access give one register value. A traced instruction's transfers
 * must be traced from the first with ViewData on: with ViewData, its value
 * (when ETMCR[2] asks for values); without, as value not traced.
 *
 * The trace's side takes the decoder's data elements in order: data packets
 * keep the order of the addresses (out-of-order placeholders hold the place
 * of values that come later), so the n-th normal, value-not-traced or
 * placeholder packet is the n-th transfer to trace. Each is held to its
 * transfer: address, value (register view; 0 and Store failed for a failed
 * STREX), ViewData, and the instruction a decoder gives it to (the most
 * recent data instruction whose atom the trace has given). Out-of-order data
 * finds its placeholder by the decoder's link.
 *
 * After an overflow the transfers lost with it are skipped: the next data
 * packet takes the first transfer since the restart that agrees with it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/dataslot.h"
#include "etm/regmap.h"
#include "util.h"
#include "verify_int.h"

enum { DX_WAITING, DX_DONE, DX_NONE }; /* dxfer_t.state */

#define DX_LOOKAHEAD 4 /* transfers a dropped packet may hide behind */

/* A data failure is held (vfy_hold into dpend) until the instruction flow
 * agrees at the next address point (vfy_data_confirm): data packets are held
 * to transfers through the atoms, and when the atoms are wrong (a filter
 * ignored, atoms dropped) the flow's own rule is the one to report. No data
 * packet is compared meanwhile. */
#define dfail(v, ...) vfy_hold(v, &(v)->dpend, __VA_ARGS__)

static dxfer_t *dx_at(const etm_verify_t *v, size_t i) { return &v->dx[(v->dx_head + i) & (v->dx_cap - 1)]; }

/* The transfer numbered num (from the first), if it is still held. */
static dxfer_t *dx_num(const etm_verify_t *v, uint64_t num)
{
    if (num < v->dx_base || num - v->dx_base >= v->dx_len)
        return NULL;
    return dx_at(v, (size_t)(num - v->dx_base));
}

int vfy_ring_grow(void **ring, size_t elem, size_t *cap, size_t *head, size_t len, size_t limit)
{
    size_t ncap = *cap * 2;
    if (ncap > limit)
        return -1;
    unsigned char *n = (unsigned char *)malloc(ncap * elem);
    if (!n)
        return -1;
    for (size_t i = 0; i < len; i++)
        memcpy(n + i * elem, (unsigned char *)*ring + ((*head + i) & (*cap - 1)) * elem, elem);
    free(*ring);
    *ring = n;
    *cap = ncap;
    *head = 0;
    return 0;
}

etm_err_t vfy_data_open(etm_verify_t *v, etm_diag_t *diag)
{
    v->dx_cap = v->dl_cap = 256;
    v->dx = (dxfer_t *)calloc(v->dx_cap, sizeof *v->dx);
    v->dlist = (uint64_t *)calloc(v->dl_cap, sizeof *v->dlist);
    v->dlist_addr = (uint32_t *)calloc(v->dl_cap, sizeof *v->dlist_addr);
    if (!v->dx || !v->dlist || !v->dlist_addr)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    v->dfirst = 1;
    return ETM_OK;
}

void vfy_data_close(etm_verify_t *v)
{
    free(v->dx);
    free(v->dlist);
    free(v->dlist_addr);
}

/* ---- The core's side -------------------------------------------------------------------------- */

void vfy_data_newest(etm_verify_t *v, const etm_seen_t *s, int traced)
{
    if (!v->data || !s->ninsn)
        return;
    v->dnewest_traced = (uint8_t)traced;
    if (!traced)
        return;
    /* With ETMFOLD the data instruction is the one at ETMIA: the folded IT
     * after it moves no data. */
    unsigned k = s->fold ? 0 : s->ninsn - 1u;
    v->dnewest = v->released + v->len - s->ninsn + k;
    v->dnewest_addr = s->insn[k].addr;
}

static uint32_t dx_value(const dxfer_t *x)
{
    if (x->fail) /* a failed STREX traces the value 0 (IHI 0014 7.4.7) */
        return 0;
    return ETM_DACTL_UNALIGNED(x->ctl1) ? etm_dslot_register_view2(x->ctl1, x->dd1, x->ctl2, x->dd2)
                                        : etm_dslot_register_view(x->ctl1, x->dd1);
}

static void dx_pop(etm_verify_t *v)
{
    while (v->dx_len && v->dx_next && dx_at(v, 0)->closed) {
        v->dx_head = (v->dx_head + 1) & (v->dx_cap - 1);
        v->dx_len--;
        v->dx_next--;
        v->dx_base++;
    }
}

/* What the trace gave for x, now that the core has said all it will. */
static void settle(etm_verify_t *v, dxfer_t *x)
{
    if (!x->matched || x->closed || x->state == DX_WAITING)
        return;
    if (x->vnt && x->state == DX_DONE) {
        dfail(v, ETM_VFAIL_DATA_MISSING, x->cycle, v->r.bytes,
             "the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ") got its value 0x%" PRIx32 ", but the trace never "
             "gives it (value not traced, or its placeholder's tag taken by another)", x->addr, x->cycle,
             dx_value(x));
        return;
    }
    if (x->placeholder && !x->vnt && x->state == DX_DONE && x->view && v->dvalues) {
        x->owed = 1; /* out-of-order data must follow */
        return;
    }
    x->closed = 1;
}

/* A transfer's value came, or (none) will never come. */
static void value_in(etm_verify_t *v, dxfer_t *x, unsigned slot, uint32_t ddctl, uint64_t dd, int none)
{
    if (none) {
        x->need = 0;
    } else if (slot == ETM_DACTL_SLOT(x->ctl1) && (x->need & 1u)) {
        x->dd1 = dd;
        x->need &= (uint8_t)~1u;
    } else {
        x->dd2 = dd;
        x->need &= (uint8_t)~2u;
    }
    x->fail |= (uint8_t)ETM_DDCTL_STREX_FAIL(ddctl);
    x->imp |= (uint8_t)ETM_DDCTL_IMPRECISE(ddctl);
    if (x->need)
        return;
    /* An imprecise abort: "Data is ignored" (ARM1176 TRM table 15-7). */
    x->state = (uint8_t)(none || x->imp ? DX_NONE : DX_DONE);
    settle(v, x);
    dx_pop(v);
}

static dxfer_t *dx_push(etm_verify_t *v, uint64_t cyc)
{
    if (v->dx_len == v->dx_cap &&
        vfy_ring_grow((void **)&v->dx, sizeof *v->dx, &v->dx_cap, &v->dx_head, v->dx_len, 4 * v->lag_max) != 0) {
        vfy_fail(v, ETM_VFAIL_LATENCY, cyc, v->r.bytes,
             "the trace lags more than %zu data transfers behind the core (cycle %" PRIu64 ")", v->dx_len, cyc);
        return NULL;
    }
    dxfer_t *x = dx_at(v, v->dx_len++);
    memset(x, 0, sizeof *x);
    return x;
}

static void dlist_push(etm_verify_t *v, uint64_t insn, uint32_t addr)
{
    if (v->dl_len == v->dl_cap) {
        size_t cap = v->dl_cap, head = v->dl_head;
        if (vfy_ring_grow((void **)&v->dlist, sizeof *v->dlist, &cap, &head, v->dl_len, 4 * v->lag_max) != 0 ||
            vfy_ring_grow((void **)&v->dlist_addr, sizeof *v->dlist_addr, &v->dl_cap, &v->dl_head, v->dl_len,
                      4 * v->lag_max) != 0) {
            vfy_fail(v, ETM_VFAIL_LATENCY, 0, v->r.bytes, "the trace lags more than %zu data instructions behind "
                 "the core", v->dl_len);
            return;
        }
    }
    size_t i = (v->dl_head + v->dl_len++) & (v->dl_cap - 1);
    v->dlist[i] = insn;
    v->dlist_addr[i] = addr;
}

void vfy_data_core(etm_verify_t *v, const etm_in_t *in, const etm_seen_t *s, uint64_t cyc)
{
    /* The slot's sequence (docs/data-trace.md): first transfer, later one,
     * second half of an unaligned access. */
    enum { NONE, FIRST, LATER, SECOND } kind = NONE;
    uint32_t ctl = in->dactl;
    if (ETM_DACTL_SLOT(ctl)) {
        if (v->dunal) {
            v->dunal = 0;
            v->dfirst = (uint8_t)ETM_DACTL_LAST(ctl);
            kind = SECOND;
        } else {
            kind = v->dfirst ? FIRST : LATER;
            v->dunal = (uint8_t)ETM_DACTL_UNALIGNED(ctl);
            v->dfirst = (uint8_t)(v->dunal ? 0 : ETM_DACTL_LAST(ctl));
        }
    }
    if (!s->running)
        return;

    /* The cycle's value: for the last address on its slot from an earlier cycle. */
    unsigned ds = ETM_DDCTL_SLOT(in->ddctl);
    if (ds && v->downer[ds]) {
        dxfer_t *x = dx_num(v, v->downer[ds] - 1);
        v->downer[ds] = 0;
        if (x)
            value_in(v, x, ds, in->ddctl, in->dd, 0);
    }
    if (kind == NONE)
        return;
    unsigned slot = ETM_DACTL_SLOT(ctl);
    /* A new address on a slot: the one waiting there gets no value (it aborted). */
    if (v->downer[slot]) {
        dxfer_t *x = dx_num(v, v->downer[slot] - 1);
        v->downer[slot] = 0;
        if (x)
            value_in(v, x, slot, 0, 0, 1);
    }
    if (kind == SECOND) {
        dxfer_t *x = v->dunal_x ? dx_num(v, v->dunal_x - 1) : NULL;
        if (x && x->state == DX_WAITING) {
            x->ctl2 = ctl;
            v->downer[slot] = v->dunal_x;
        }
        v->dunal_x = 0;
        return;
    }
    v->dunal_x = 0;
    if (kind == FIRST) {
        v->dins_traced = v->dnewest_traced;
        v->dins = v->dnewest;
        v->dins_addr = v->dnewest_addr;
        v->dins_started = 0;
        if (v->dins_traced)
            dlist_push(v, v->dins, v->dins_addr);
    }
    /* CPRTs are traced only with ETMCR[1] (not taken); an instruction's data
     * starts at its first transfer with ViewData (IHI 0014 7.4, tracing LSMs). */
    if (ETM_DACTL_CPRT(ctl) || !v->dins_traced || (!v->dins_started && !s->view_data))
        return;
    dxfer_t *x = dx_push(v, cyc);
    if (!x)
        return;
    x->head = (uint8_t)!v->dins_started;
    v->dins_started = 1;
    x->insn = v->dins;
    x->insn_addr = v->dins_addr;
    x->cycle = cyc;
    x->addr = in->da;
    x->ctl1 = ctl;
    x->view = (uint8_t)s->view_data;
    if (!x->view || !v->dvalues) {
        x->state = DX_DONE; /* no value to wait for */
        return;
    }
    x->state = DX_WAITING;
    x->need = (uint8_t)(ETM_DACTL_UNALIGNED(ctl) ? 3u : 1u);
    uint64_t num = v->dx_base + v->dx_len - 1;
    v->downer[slot] = num + 1;
    if (ETM_DACTL_UNALIGNED(ctl))
        v->dunal_x = num + 1;
}

/* ---- The trace's side ------------------------------------------------------------------------- */

static const char *kind_words(etm_v3_data_kind_t k)
{
    switch (k) {
    case ETM_V3_DATA_NORMAL:
        return "normal data packet";
    case ETM_V3_DATA_NOT_TRACED:
        return "value-not-traced packet";
    case ETM_V3_DATA_PLACEHOLDER:
        return "out-of-order placeholder";
    case ETM_V3_DATA_OOO:
        return "out-of-order data packet";
    default:
        return "data-suppressed packet";
    }
}

/* A value the trace gives (normal or out-of-order data) against x's. */
static void check_value(etm_verify_t *v, const dxfer_t *x, const etm_v3el_t *e)
{
    const etm_v3_data_t *d = &e->data;
    const char *what = kind_words(d->kind);
    if (x->state == DX_WAITING) {
        dfail(v, ETM_VFAIL_DATA_VALUE, x->cycle, e->offset,
             "the %s at byte %" PRIu64 " gives a value for the transfer at 0x%08" PRIx32 " (cycle %" PRIu64
             "), whose value the core has not given", what, e->offset, x->addr, x->cycle);
        return;
    }
    if (x->state == DX_NONE) {
        dfail(v, ETM_VFAIL_DATA_VALUE, x->cycle, e->offset,
             "the %s at byte %" PRIu64 " gives 0x%" PRIx32 " for the transfer at 0x%08" PRIx32 " (cycle %" PRIu64
             "), whose value the core %s", what, e->offset, d->value, x->addr, x->cycle,
             x->imp ? "ignored (imprecise abort)" : "never gave (its slot took a new address)");
        return;
    }
    uint32_t want = dx_value(x);
    if (d->value_valid && d->value != want) {
        dfail(v, ETM_VFAIL_DATA_VALUE, x->cycle, e->offset,
             "the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ", instruction 0x%08" PRIx32 ") has the value 0x%"
             PRIx32 "%s, the %s at byte %" PRIu64 " says 0x%" PRIx32, x->addr, x->cycle, x->insn_addr, want,
             x->fail ? " (a failed STREX)" : "", what, e->offset, d->value);
        return;
    }
    if (!d->store_failed != !x->fail)
        dfail(v, ETM_VFAIL_DATA_VALUE, x->cycle, e->offset,
             "the store at 0x%08" PRIx32 " (cycle %" PRIu64 ") %s, but the %s at byte %" PRIu64 " is %s a "
             "store-failed packet", x->addr, x->cycle, x->fail ? "failed (STREX)" : "did not fail", what, e->offset,
             d->store_failed ? "followed by" : "not followed by");
}

/* After an overflow: the packet is for the most recent data instruction
 * whose atom the trace has given (the one a decoder gives it to); among that
 * instruction's transfers, the first that agrees with it: by its address, or
 * without one, the instruction's first transfer for a packet with A set. The
 * transfers before it are lost. NULL: none (the packet is not held). */
static dxfer_t *resync(etm_verify_t *v, const etm_v3el_t *e, uint64_t matched)
{
    const etm_v3_data_t *d = &e->data;
    uint64_t insn = UINT64_MAX;
    for (size_t j = 0; j < v->dl_len; j++) {
        uint64_t n = v->dlist[(v->dl_head + j) & (v->dl_cap - 1)];
        if (n >= matched)
            break;
        insn = n;
    }
    for (size_t i = v->dx_next; insn != UINT64_MAX && insn >= v->dfloor && i < v->dx_len; i++) {
        dxfer_t *x = dx_at(v, i);
        if (x->insn > insn)
            break;
        /* Without an address only the instruction's first packet (A set) tells its transfer. */
        if (x->insn < insn || (d->addr_valid && x->addr != d->addr) || (!d->addr_valid && !(d->first && x->head)) ||
            (d->value_valid && x->view && x->state == DX_DONE && dx_value(x) != d->value))
            continue;
        for (size_t k = v->dx_next; k < i; k++) {
            dx_at(v, k)->closed = 1;
            v->r.data_lost++;
        }
        v->dx_next = i;
        v->dresync = 0;
        v->dseq_resume = d->seq; /* out-of-order data for earlier placeholders: not held */
        return x;
    }
    if (d->addr_valid)
        dfail(v, ETM_VFAIL_DATA_ADDR, 0, e->offset,
             "the %s at byte %" PRIu64 " gives 0x%08" PRIx32 ", an address no traced transfer of the data "
             "instruction it belongs to has had since the overflow restart", kind_words(d->kind), e->offset,
             d->addr);
    return NULL;
}

/* The next data instruction after insn, by number, if the core has had one. */
static int next_data_insn(etm_verify_t *v, uint64_t insn, uint64_t *num, uint32_t *addr)
{
    while (v->dl_len && v->dlist[v->dl_head] <= insn) {
        v->dl_head = (v->dl_head + 1) & (v->dl_cap - 1);
        v->dl_len--;
    }
    if (!v->dl_len)
        return 0;
    *num = v->dlist[v->dl_head];
    *addr = v->dlist_addr[v->dl_head];
    return 1;
}

static void out_of_order(etm_verify_t *v, const etm_v3el_t *e)
{
    const etm_v3_data_t *d = &e->data;
    dxfer_t *x = NULL;
    for (size_t i = 0; d->seq && i < v->dx_next && !x; i++)
        if (dx_at(v, i)->placeholder && dx_at(v, i)->dec_seq == d->seq && !dx_at(v, i)->closed)
            x = dx_at(v, i);
    if (!x) {
        if (v->r.overflows && (v->dresync || d->seq < v->dseq_resume))
            return; /* its placeholder went out before an overflow's restart was placed: nothing to hold it to */
        dfail(v, ETM_VFAIL_DATA_EXTRA, 0, e->offset,
             "out-of-order data (tag %u) at byte %" PRIu64 " for no placeholder waiting for its value", d->tag,
             e->offset);
        return;
    }
    if (!x->view || !v->dvalues) {
        dfail(v, ETM_VFAIL_DATA_EXTRA, x->cycle, e->offset,
             "out-of-order data at byte %" PRIu64 " traces the value of the transfer at 0x%08" PRIx32 " (cycle %"
             PRIu64 "), %s", e->offset, x->addr, x->cycle, x->view ? "but ETMCR[2] traces no values" :
             "which was outside ViewData");
        return;
    }
    check_value(v, x, e);
    x->owed = 0;
    x->closed = 1;
    dx_pop(v);
}

void vfy_data_element(etm_verify_t *v, const etm_v3el_t *e)
{
    const etm_v3_data_t *d = &e->data;
    if (v->dpend.on)
        return;
    if (d->kind == ETM_V3_DATA_SUPPRESSED) {
        /* Only with ETMCR[18], which the model does not take: what follows
         * cannot be held to the transfers. */
        vfy_fail(v, ETM_VFAIL_GRAMMAR, 0, e->offset,
             "byte %" PRIu64 ": data-suppressed packet, but ETMCR[18] (data suppression) is clear", e->offset);
        return;
    }
    if (d->kind == ETM_V3_DATA_OOO) {
        out_of_order(v, e);
        return;
    }
    uint64_t matched = v->released + v->cur; /* instructions whose atoms the trace has given */
    dxfer_t *x;
    if (v->dresync) {
        x = resync(v, e, matched);
        if (!x)
            return;
    } else if (v->dx_next < v->dx_len) {
        x = dx_at(v, v->dx_next);
    } else {
        dfail(v, ETM_VFAIL_DATA_EXTRA, 0, e->offset,
             "data packet (%s) at byte %" PRIu64 ", but the core has made no traced transfer that is not traced already",
             kind_words(d->kind), e->offset);
        return;
    }

    /* Which instruction a decoder gives it to: the most recent data
     * instruction whose atom it has read. */
    uint64_t later;
    uint32_t later_addr;
    if (x->insn >= matched) {
        dfail(v, ETM_VFAIL_DATA_ORDER, x->cycle, e->offset,
              "the %s at byte %" PRIu64 " (transfer at 0x%08" PRIx32 ", cycle %" PRIu64 ") comes before the atom "
              "of its instruction at 0x%08" PRIx32, kind_words(d->kind), e->offset, x->addr, x->cycle,
              x->insn_addr);
        return;
    }
    if (next_data_insn(v, x->insn, &later, &later_addr) && later < matched) {
        dfail(v, ETM_VFAIL_DATA_ORDER, x->cycle, e->offset,
             "the %s at byte %" PRIu64 " is for the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ") of the "
             "instruction at 0x%08" PRIx32 ", but it comes after the atom of the later data instruction at 0x%08"
             PRIx32 ", to which a decoder gives it", kind_words(d->kind), e->offset, x->addr, x->cycle,
             x->insn_addr, later_addr);
        return;
    }
    if (d->addr_valid && d->addr != x->addr) {
        for (size_t k = 1; k <= DX_LOOKAHEAD && v->dx_next + k < v->dx_len; k++)
            if (dx_at(v, v->dx_next + k)->addr == d->addr) {
                dfail(v, ETM_VFAIL_DATA_MISSING, x->cycle, e->offset,
                     "the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ", instruction 0x%08" PRIx32 ") has no data "
                     "packet: the %s at byte %" PRIu64 " is for the one at 0x%08" PRIx32 " after it", x->addr,
                     x->cycle, x->insn_addr, kind_words(d->kind), e->offset, d->addr);
                return;
            }
        dfail(v, ETM_VFAIL_DATA_ADDR, x->cycle, e->offset,
             "the transfer of the instruction at 0x%08" PRIx32 " (cycle %" PRIu64 ") is at 0x%08" PRIx32
             ", the %s at byte %" PRIu64 " says 0x%08" PRIx32, x->insn_addr, x->cycle, x->addr,
             kind_words(d->kind), e->offset, d->addr);
        return;
    }

    switch (d->kind) {
    case ETM_V3_DATA_NOT_TRACED:
        /* Legal for a transfer outside ViewData, with values off, and for one
         * whose value is ignored or never comes. */
        if (x->view && v->dvalues)
            x->vnt = 1; /* judged when the core says whether the value comes */
        break;
    case ETM_V3_DATA_NORMAL:
        if (!x->view) {
            dfail(v, ETM_VFAIL_DATA_EXTRA, x->cycle, e->offset,
                 "the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ") was outside ViewData, but the normal data "
                 "packet at byte %" PRIu64 " traces it: its value is not traced", x->addr, x->cycle, e->offset);
            return;
        }
        if (v->dvalues)
            check_value(v, x, e);
        break;
    case ETM_V3_DATA_PLACEHOLDER:
        /* A later placeholder with the same tag: the older one's value can no
         * longer be given. */
        for (size_t i = 0; i < v->dx_next; i++) {
            dxfer_t *o = dx_at(v, i);
            if (!o->placeholder || o->closed || o->tag != d->tag)
                continue;
            if (o->owed) {
                dfail(v, ETM_VFAIL_DATA_MISSING, o->cycle, e->offset,
                     "the value 0x%" PRIx32 " of the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ") is never "
                     "traced: its tag %u goes to another placeholder at byte %" PRIu64, dx_value(o), o->addr,
                     o->cycle, d->tag, e->offset);
                return;
            }
            o->vnt = 1; /* if its value still comes, it was not traced */
        }
        x->placeholder = 1;
        x->tag = (uint8_t)d->tag;
        x->dec_seq = d->seq;
        break;
    default:
        break;
    }
    if (v->dpend.on)
        return;
    x->matched = 1;
    v->dx_next++;
    v->r.data_checked++;
    settle(v, x);
    dx_pop(v);
}

void vfy_data_confirm(etm_verify_t *v)
{
    if (v->dpend.on) {
        v->dpend.on = 0;
        vfy_fail(v, v->dpend.rule, v->dpend.cycle, v->dpend.offset, "%s", v->dpend.text);
    }
}

void vfy_data_overflow(etm_verify_t *v)
{
    if (!v->data)
        return;
    /* Values owed to placeholders before it are lost with it. */
    for (size_t i = 0; i < v->dx_next; i++)
        dx_at(v, i)->closed = 1;
    dx_pop(v);
    v->dresync = 1;
    v->dseq_resume = UINT64_MAX;
    v->dfloor = v->released + v->len; /* until the restart is placed */
}

void vfy_data_restart(etm_verify_t *v)
{
    if (v->data)
        v->dfloor = v->released;
}

void vfy_data_end(etm_verify_t *v, int untraced_overflow)
{
    if (!v->data || vfy_failed(v))
        return;
    vfy_data_confirm(v);
    uint64_t matched = v->released + v->cur;
    for (size_t i = 0; i < v->dx_len && !v->dpend.on; i++) {
        dxfer_t *x = dx_at(v, i);
        if (x->closed)
            continue;
        if (untraced_overflow || v->dresync) {
            v->r.data_lost += !x->matched;
            continue;
        }
        if (x->owed)
            dfail(v, ETM_VFAIL_DATA_MISSING, x->cycle, v->r.bytes,
                 "the value 0x%" PRIx32 " of the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ") has a placeholder "
                 "but never came in the trace", dx_value(x), x->addr, x->cycle);
        else if (!x->matched && x->state != DX_WAITING && x->insn < matched)
            dfail(v, ETM_VFAIL_DATA_MISSING, x->cycle, v->r.bytes,
                 "the transfer at 0x%08" PRIx32 " (cycle %" PRIu64 ", instruction 0x%08" PRIx32 ") has no data "
                 "packet when the trace ends", x->addr, x->cycle, x->insn_addr);
    }
    vfy_data_confirm(v);
}
