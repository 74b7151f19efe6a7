/* roundtrip_data.c - the data judge and the packet comparison of the ETMv3
 * round trip (roundtrip_data.h). */
#include "roundtrip_data.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/etmv3/trc_pkt_types_etmv3.h>

/* ---- Data: what the project's decoder must report (docs/data-trace.md) ---------------------- */


static xdata_t *dq_at(djudge_t *g, size_t i) { return &g->q[(g->head + i) % DQCAP]; }

static void dq_push(djudge_t *g, const xdata_t *x)
{
    if (g->len == DQCAP) {
        judge_fail(g->j, "expected-transfer queue full");
        return;
    }
    *dq_at(g, g->len++) = *x;
}

/* The expected transfer with this id, still queued or reported as a placeholder. */
static xdata_t *dq_find(djudge_t *g, uint64_t id)
{
    for (size_t i = 0; i < g->len; i++)
        if (dq_at(g, i)->kind != XD_RESYNC && dq_at(g, i)->id == id)
            return dq_at(g, i);
    for (unsigned k = 0; k < DPH; k++)
        if (g->ph[k].used && g->ph[k].x.id == id)
            return &g->ph[k].x;
    return NULL;
}

/* A value on the data slot: the transfer it belongs to has (one more of) its value. */
void dj_value(djudge_t *g, const etm_in_t *in)
{
    unsigned s = ETM_DDCTL_SLOT(in->ddctl);
    if (!s || !g->slot_item[s])
        return;
    xdata_t *x = dq_find(g, g->slot_item[s] - 1);
    if (x && x->need)
        x->need--;
    g->slot_item[s] = 0;
}

/* The cycle's transfer, as the generator presented it: expected if its
 * instruction was traced and its data started (ViewData on this or an
 * earlier transfer of the instruction). */
void dj_transfer(djudge_t *g, const etm_in_t *in, const etm_gen_xfer_t *x, int insn_traced, int view)
{
    unsigned s = ETM_DACTL_SLOT(in->dactl);
    if (!s || !x->valid)
        return;
    g->slot_item[s] = 0;
    if (x->half == 2) {
        g->slot_item[s] = g->pair_item;
        g->pair_item = 0;
        return;
    }
    if (x->first) {
        g->owner_traced = insn_traced;
        g->started = 0;
    }
    if (!g->owner_traced || (!g->started && !view))
        return;
    xdata_t e;
    memset(&e, 0, sizeof e);
    e.kind = view ? XD_DATA : XD_NOT_TRACED;
    e.first = (uint8_t)!g->started;
    e.fail = x->fail;
    e.imprecise = x->imprecise;
    e.need = (uint8_t)(x->half == 1 ? 2 : 1);
    e.insn = x->insn;
    e.addr = x->addr;
    e.value = x->value;
    e.id = g->next_id++;
    g->started = 1;
    dq_push(g, &e);
    g->slot_item[s] = e.id + 1;
    if (x->half == 1)
        g->pair_item = e.id + 1;
}

void dj_resync(djudge_t *g)
{
    xdata_t r;
    memset(&r, 0, sizeof r);
    r.kind = XD_RESYNC;
    dq_push(g, &r);
}

/* An overflow restart: what was expected before it is lost, and so are the
 * values of placeholders still waiting. */
void dj_overflow(djudge_t *g)
{
    while (g->len && dq_at(g, 0)->kind != XD_RESYNC) {
        g->lost++;
        g->head = (g->head + 1) % DQCAP;
        g->len--;
    }
    if (g->len) {
        g->head = (g->head + 1) % DQCAP;
        g->len--;
    }
    for (unsigned k = 0; k < DPH; k++)
        g->ph[k].used = 0;
}

static void dj_check_value(djudge_t *g, const xdata_t *x, const etm_v3_data_t *e)
{
    uint32_t want = x->fail ? 0 : x->value;
    if (x->imprecise)
        judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": its value came with an imprecise abort and is ignored, "
                   "but the decoder reports 0x%08" PRIx32, x->id, x->addr, e->value);
    else if (!e->value_valid || e->value != want || e->store_failed != x->fail)
        judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 " by 0x%08" PRIx32 ": value 0x%08" PRIx32 "%s expected, "
                   "decoded %s0x%08" PRIx32 "%s", x->id, x->addr, x->insn, want, x->fail ? " (store failed)" : "",
                   e->value_valid ? "" : "no value ", e->value, e->store_failed ? " (store failed)" : "");
    g->failed += x->fail;
}

void dj_element(djudge_t *g, const etm_v3_data_t *e)
{
    if (e->kind == ETM_V3_DATA_OOO) {
        unsigned k = 0;
        while (k < DPH && !(g->ph[k].used && g->ph[k].seq == e->seq))
            k++;
        if (k == DPH) {
            judge_fail(g->j, "out-of-order value 0x%08" PRIx32 " (tag %u) for transfer %" PRIu64 ", whose placeholder is not "
                       "waiting", e->value, e->tag, e->seq);
            return;
        }
        g->ooo++;
        if (g->value_on)
            dj_check_value(g, &g->ph[k].x, e);
        g->ph[k].used = 0;
        return;
    }
    if (e->kind == ETM_V3_DATA_SUPPRESSED) {
        judge_fail(g->j, "data suppressed: the model does not suppress data");
        return;
    }
    xdata_t *x = g->len ? dq_at(g, 0) : NULL;
    if (!x || x->kind == XD_RESYNC) {
        judge_fail(g->j, "the decoder reports a transfer at 0x%08" PRIx32 " by 0x%08" PRIx32 " that was not traced%s",
                   e->addr, e->insn_addr, x ? " (before an overflow restart)" : "");
        return;
    }
    g->compared++;
    if (!e->insn_valid || e->insn_addr != x->insn)
        judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": of the instruction at 0x%08" PRIx32 ", the decoder gives it "
                   "to %s0x%08" PRIx32, x->id, x->addr, x->insn, e->insn_valid ? "" : "no instruction, ", e->insn_addr);
    else if (g->addr_on && (!e->addr_valid || e->addr != x->addr))
        judge_fail(g->j, "transfer %" PRIu64 " by 0x%08" PRIx32 ": address 0x%08" PRIx32 ", decoded %s0x%08" PRIx32, x->id,
                   x->insn, x->addr, e->addr_valid ? "" : "none ", e->addr);
    else if (x->first && !e->first)
        judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": the first traced of its instruction, but A=0", x->id,
                   x->addr);
    if (x->kind == XD_NOT_TRACED || (x->imprecise && e->kind == ETM_V3_DATA_NOT_TRACED)) {
        if (e->kind != ETM_V3_DATA_NOT_TRACED)
            judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 " has no ViewData: value not traced expected, the "
                       "decoder reports a %s", x->id, x->addr, e->kind == ETM_V3_DATA_NORMAL ? "value" : "placeholder");
        g->not_traced++;
    } else if (e->kind == ETM_V3_DATA_NORMAL) {
        g->normal++;
        if (g->value_on)
            dj_check_value(g, x, e);
        else if (e->value_valid)
            judge_fail(g->j, "transfer %" PRIu64 ": a value while ETMCR[2] is clear", x->id);
    } else if (e->kind == ETM_V3_DATA_PLACEHOLDER) {
        unsigned k = 0;
        while (k < DPH && g->ph[k].used)
            k++;
        if (k == DPH || !g->value_on) {
            judge_fail(g->j, "transfer %" PRIu64 ": a placeholder %s", x->id,
                       g->value_on ? "too many waiting" : "while values are not traced");
        } else {
            /* a placeholder with the tag of one still waiting: that one's value
             * will not come, which only an ignored value (imprecise abort) may do */
            for (unsigned i = 0; i < DPH; i++)
                if (g->ph[i].used && g->ph[i].tag == e->tag) {
                    if (!g->ph[i].x.imprecise)
                        judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": its placeholder's tag %u is used again "
                                   "before its value came", g->ph[i].x.id, g->ph[i].x.addr, e->tag);
                    g->ph[i].used = 0;
                }
            g->ph[k].used = 1;
            g->ph[k].seq = e->seq;
            g->ph[k].tag = e->tag;
            g->ph[k].x = *x;
            g->placed++;
        }
    } else {
        judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": value not traced, but it has ViewData", x->id, x->addr);
    }
    g->head = (g->head + 1) % DQCAP;
    g->len--;
}

/* The trace ended: what was not reported, or is still a placeholder, must be a
 * transfer whose value had not come (or was to be ignored). */
void dj_end(djudge_t *g)
{
    for (size_t i = 0; i < g->len; i++) {
        const xdata_t *x = dq_at(g, i);
        if (x->kind == XD_RESYNC)
            continue;
        if (!x->need && x->kind == XD_DATA && g->value_on) {
            judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 " by 0x%08" PRIx32 " was never reported", x->id, x->addr,
                       x->insn);
            break;
        }
        g->end_dropped++;
    }
    for (unsigned k = 0; k < DPH; k++)
        if (g->ph[k].used && !g->ph[k].x.need && !g->ph[k].x.imprecise) {
            judge_fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": its placeholder never got its value", g->ph[k].x.id,
                       g->ph[k].x.addr);
            break;
        }
}

/* ---- OpenCSD's packet processor against the project's decoder, packet by packet ------------ */

static int own_to_ocsd(etm_v3pkt_kind_t k)
{
    switch (k) {
    case ETM_V3PKT_ASYNC: return ETM3_PKT_A_SYNC;
    case ETM_V3PKT_ISYNC: return ETM3_PKT_I_SYNC;
    case ETM_V3PKT_ISYNC_CC: return ETM3_PKT_I_SYNC_CYCLE;
    case ETM_V3PKT_PHDR: return ETM3_PKT_P_HDR;
    case ETM_V3PKT_BRANCH: return ETM3_PKT_BRANCH_ADDRESS;
    case ETM_V3PKT_CYCLE_COUNT: return ETM3_PKT_CYCLE_COUNT;
    case ETM_V3PKT_TRIGGER: return ETM3_PKT_TRIGGER;
    case ETM_V3PKT_IGNORE: return ETM3_PKT_IGNORE;
    case ETM_V3PKT_EXC_RETURN: return ETM3_PKT_EXCEPTION_EXIT;
    case ETM_V3PKT_STORE_FAILED: return ETM3_PKT_STORE_FAIL;
    case ETM_V3PKT_NORMAL_DATA: return ETM3_PKT_NORM_DATA;
    case ETM_V3PKT_OOO_DATA: return ETM3_PKT_OOO_DATA;
    case ETM_V3PKT_OOO_PLACEHOLDER: return ETM3_PKT_OOO_ADDR_PLC;
    case ETM_V3PKT_VALUE_NOT_TRACED: return ETM3_PKT_VAL_NOT_TRACED;
    case ETM_V3PKT_DATA_SUPPRESSED: return ETM3_PKT_DATA_SUPPRESSED;
    default: return -1;
    }
}

static int is_data_pkt(etm_v3pkt_kind_t k)
{
    return k == ETM_V3PKT_NORMAL_DATA || k == ETM_V3PKT_OOO_DATA || k == ETM_V3PKT_OOO_PLACEHOLDER ||
           k == ETM_V3PKT_VALUE_NOT_TRACED || k == ETM_V3PKT_STORE_FAILED || k == ETM_V3PKT_DATA_SUPPRESSED;
}

void own_pkt(void *user, const etm_v3pkt_t *p)
{
    pkcmp_t *c = (pkcmp_t *)user;
    if (!is_data_pkt(p->kind)) { /* to OpenCSD's full decoder */
        if (c->nstrip + p->size > c->cap) {
            c->cap = 2 * (c->nstrip + p->size);
            c->strip = (uint8_t *)realloc(c->strip, c->cap);
        }
        if (p->raw_len != p->size)
            judge_fail(c->j, "packet at %" PRIu64 " longer than its raw bytes", p->offset);
        memcpy(c->strip + c->nstrip, p->raw, p->raw_len);
        c->nstrip += p->raw_len;
    }
    if (!c->on || c->nown == PKCAP)
        return;
    pkrec_t *r = &c->own[c->nown++];
    memset(r, 0, sizeof *r);
    r->kind = own_to_ocsd(p->kind);
    r->offset = p->offset;
    r->size = p->size;
    r->tag = p->tag;
    r->has_addr = p->has_data_addr;
    r->addr_bytes = p->has_data_addr ? (p->data_addr_bits + 6) / 7 : 0;
    r->addr7 = p->data_addr & 0x7Fu;
    r->has_value = p->kind == ETM_V3PKT_NORMAL_DATA || p->kind == ETM_V3PKT_OOO_DATA;
    r->value = p->value;
}

void ocsd_data_pkt(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx, const void *pkt,
                          const uint32_t size, const uint8_t *data)
{
    pkcmp_t *c = (pkcmp_t *)(uintptr_t)ctx;
    const ocsd_etmv3_pkt *p = (const ocsd_etmv3_pkt *)pkt;
    (void)data;
    if (op != OCSD_OP_DATA || !p || c->nocsd == PKCAP)
        return;
    pkrec_t *r = &c->ocsd[c->nocsd++];
    memset(r, 0, sizeof *r);
    r->kind = (int)p->type;
    r->offset = idx;
    r->size = size;
    r->tag = p->data.ooo_tag;
    r->has_addr = p->data.update_addr;
    r->addr7 = (uint32_t)p->addr.val & 0x7Fu; /* 1.3.3 puts a data address into the instruction address field */
    r->value = p->data.value;
}

/* Both parsers have seen the same bytes: the same packets. */
void pk_compare(pkcmp_t *c)
{
    unsigned n = c->nown < c->nocsd ? c->nown : c->nocsd;
    for (unsigned i = 0; i < n && c->on; i++) {
        const pkrec_t *w = &c->own[i], *o = &c->ocsd[i];
        int data = w->kind >= ETM3_PKT_STORE_FAIL && w->kind <= ETM3_PKT_VAL_NOT_TRACED;
        if (w->kind != o->kind || w->offset != o->offset || w->size != o->size) {
            judge_fail(c->j, "OpenCSD's packet processor: packet at byte %" PRIu64 " (%" PRIu64 " bytes, type %d), the "
                       "project's decoder: byte %" PRIu64 " (%" PRIu64 " bytes, type %d)", (uint64_t)o->offset, o->size,
                       o->kind, w->offset, w->size, w->kind);
            c->on = 0; /* out of step from here */
            break;
        }
        c->compared++;
        if (!data)
            continue;
        c->data_compared++;
        if ((w->kind == ETM3_PKT_OOO_DATA || w->kind == ETM3_PKT_OOO_ADDR_PLC) && w->tag != o->tag)
            judge_fail(c->j, "OpenCSD: packet at byte %" PRIu64 " has tag %u, the project's decoder %u", w->offset, o->tag,
                       w->tag);
        if (w->has_addr && (!o->has_addr || o->addr7 != w->addr7))
            judge_fail(c->j, "OpenCSD: data address of the packet at byte %" PRIu64 " ends in 0x%02x, the project's "
                       "decoder 0x%02x", w->offset, o->addr7, w->addr7);
        if (w->has_value && w->addr_bytes <= 1 && o->value != w->value)
            judge_fail(c->j, "OpenCSD: value of the packet at byte %" PRIu64 " is 0x%08x, the project's decoder 0x%08x",
                       w->offset, o->value, w->value);
    }
    if (c->on && c->nown != c->nocsd) {
        judge_fail(c->j, "OpenCSD's packet processor found %u packets, the project's decoder %u, in the same bytes",
                   c->nocsd, c->nown);
        c->on = 0;
    }
    c->nown = c->nocsd = 0;
}

