/* dpacket.c - stage `packet`, data part: ETMv3 data packets from the data slot
 * interface (IHI 0014 section 7.4; docs/data-trace.md and the timing in
 * docs/etmv3-encoder.md).
 *
 * A transfer's packet has to sit after the atom of its instruction and before
 * the atom of any later data instruction: a decoder gives a data packet to the
 * most recent data instruction in the trace. So:
 *
 *  - at the first traced transfer of an instruction, the atoms gathered so far
 *    are sent (its own atom is among them);
 *  - a transfer whose value is traced waits for the value (at least two cycles)
 *    as a NEW entry; the value turns it into a normal data packet;
 *  - if, before the value comes, a P-header with atoms must go out (a later
 *    instruction, which may be a data instruction) or a non-periodic I-sync,
 *    every NEW entry first gets an out-of-order placeholder, in order; its value
 *    then comes as out-of-order data with the placeholder's tag;
 *  - a NEW entry is also placed when an older one's packet must go out first:
 *    packets keep the order of the addresses.
 *
 * Tags are the entry numbers 1-3: a slot has one address waiting at a time, so
 * three entries always suffice.
 */
#include <string.h>

#include "etm/dataslot.h"
#include "dpacket.h"

void dp_reset(dpacket_state_t *d)
{
    memset(d, 0, sizeof *d);
    d->first_q = 1;
    d->dfull_q = 1;
}

/* ---- Packets ------------------------------------------------------------------------------ */

/* Data bytes go into the cycle without changing last_single: that flag is
 * about the P-headers around a cancel, which data packets do not separate for a
 * decoder (docs/etmv3-encoder.md, Cancel). */
static void put(cycle_buf_t *c, uint8_t b) { cbuf_put(c, b); }

/* Data address, compressed against the last one output: 7 bits a byte, bit 7
 * says another follows; the fifth byte carries A[31:28] (IHI 0014 7.4.2). */
static void put_daddr(dpacket_state_t *d, cycle_buf_t *c, uint32_t a)
{
    uint32_t x = a ^ d->last_daddr_q;
    unsigned n = d->dfull_q ? 5 : x < (1u << 7) ? 1 : x < (1u << 14) ? 2 : x < (1u << 21) ? 3 : x < (1u << 28) ? 4 : 5;
    for (unsigned k = 0; k < n && k < 4; k++)
        put(c, (uint8_t)(((a >> (7 * k)) & 0x7Fu) | (k + 1 < n ? 0x80u : 0)));
    if (n == 5)
        put(c, (uint8_t)((a >> 28) & 0x0Fu));
    d->last_daddr_q = a;
    d->dfull_q = 0;
}

/* Bytes of a value with its leading zero bytes left out: 0, 1, 2 or 4. */
static unsigned value_size(uint32_t v) { return !v ? 0 : v < 0x100u ? 1 : v < 0x10000u ? 2 : 4; }

static unsigned size_field(unsigned bytes) { return bytes == 4 ? 3 : bytes; }

static void put_value(cycle_buf_t *c, uint32_t v, unsigned bytes)
{
    for (unsigned k = 0; k < bytes; k++)
        put(c, (uint8_t)(v >> (8 * k)));
}

/* Does a packet with A set carry address bytes? */
static int addr_out(const etm_mode_t *m, int a) { return a && m->data_addr; }

static void put_normal(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, int a, uint32_t addr, int valued,
                       uint32_t v)
{
    unsigned bytes = valued ? value_size(v) : 0;
    if (valued && !bytes && addr_out(m, a))
        bytes = 1; /* a value of 0 as one byte after an address (see docs/data-trace.md) */
    put(c, (uint8_t)(ETMV3_HDR_NORMAL_DATA | (unsigned)a << 5 | size_field(bytes) << 2));
    if (addr_out(m, a))
        put_daddr(d, c, addr);
    put_value(c, v, bytes);
    cbuf_kind(c, ETM_PKT_NORMAL_DATA);
}

static void put_vnt(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, int a, uint32_t addr)
{
    /* With address tracing on, the address always goes with it (docs/data-trace.md). */
    a = a || m->data_addr;
    put(c, (uint8_t)(ETMV3_HDR_VALUE_NOT_TRACED | (unsigned)a << 4));
    if (addr_out(m, a))
        put_daddr(d, c, addr);
    cbuf_kind(c, ETM_PKT_VALUE_NOT_TRACED);
}

static void put_placeholder(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, int a, uint32_t addr,
                            unsigned tag)
{
    put(c, (uint8_t)(ETMV3_HDR_OOO_PLACEHOLDER | (unsigned)a << 5 | tag << 2));
    if (addr_out(m, a))
        put_daddr(d, c, addr);
    cbuf_kind(c, ETM_PKT_OOO_PLACEHOLDER);
}

static void put_ooo(cycle_buf_t *c, unsigned tag, uint32_t v)
{
    unsigned bytes = value_size(v);
    put(c, (uint8_t)(ETMV3_HDR_OOO_DATA | tag << 5 | size_field(bytes) << 2));
    put_value(c, v, bytes);
    cbuf_kind(c, ETM_PKT_OOO_DATA);
}

static void put_store_failed(cycle_buf_t *c)
{
    put(c, ETMV3_HDR_STORE_FAILED);
    cbuf_kind(c, ETM_PKT_STORE_FAILED);
}

/* ---- Entries ------------------------------------------------------------------------------ */

static int older(const dp_entry_t *x, const dp_entry_t *y) { return (int16_t)(uint16_t)(x->seq - y->seq) < 0; }

/* Placeholders for the NEW entries older than `before` (all of them when
 * before is NULL), oldest first. */
static void place_older(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, const dp_entry_t *before)
{
    for (;;) {
        dp_entry_t *o = NULL;
        for (unsigned i = 0; i < ETM_DP_ENTRIES; i++) {
            dp_entry_t *e = &d->ent_q[i];
            if (e->state == DP_NEW && e != before && (!before || older(e, before)) && (!o || older(e, o)))
                o = e;
        }
        if (!o)
            return;
        put_placeholder(d, m, c, o->a, o->addr, (unsigned)(o - d->ent_q) + 1);
        o->state = DP_PLACED;
    }
}

void dp_place_all(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c) { place_older(d, m, c, NULL); }

void dp_place_at(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, unsigned at)
{
    cycle_buf_t p;
    cbuf_init(&p, 0);
    place_older(d, m, &p, NULL);
    if (p.n)
        cbuf_insert(c, at, &p);
}

static void free_entry(dpacket_state_t *d, dp_entry_t *e)
{
    unsigned k = (unsigned)(e - d->ent_q) + 1;
    for (unsigned s = 1; s < 4; s++)
        if (d->owner_q[s] == k)
            d->owner_q[s] = 0;
    if (d->unal_ent_q == k)
        d->unal_ent_q = 0;
    memset(e, 0, sizeof *e);
}

/* A transfer whose value will not be traced: value not traced if nothing of it
 * went out yet; a placeholder already out stays without its value. */
static void not_traced(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, dp_entry_t *e)
{
    if (e->state == DP_NEW) {
        place_older(d, m, c, e);
        put_vnt(d, m, c, e->a, e->addr);
    }
    free_entry(d, e);
}

/* Every value of an entry has come. */
static void resolve(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, dp_entry_t *e)
{
    if (e->imp) { /* imprecise abort: "Data is ignored" */
        not_traced(d, m, c, e);
        return;
    }
    uint32_t v = e->unal ? etm_dslot_register_view2(e->ctl1, e->dd1, e->ctl2, e->dd2)
                         : etm_dslot_register_view(e->ctl1, e->dd1);
    if (e->fail) /* a failed STREX traces the value 0, then Store failed (IHI 0014 7.4.7) */
        v = 0;
    if (e->state == DP_NEW) {
        place_older(d, m, c, e);
        put_normal(d, m, c, e->a, e->addr, 1, v);
    } else {
        put_ooo(c, (unsigned)(e - d->ent_q) + 1, v);
    }
    if (e->fail)
        put_store_failed(c);
    free_entry(d, e);
}

void dp_values(dpacket_state_t *d, const etm_mode_t *m, const fe_cycle_t *fe, cycle_buf_t *c)
{
    unsigned s = ETM_DDCTL_SLOT(fe->ddctl);
    if (!s || !d->owner_q[s])
        return; /* no value, or one for an address that is not traced */
    dp_entry_t *e = &d->ent_q[d->owner_q[s] - 1];
    d->owner_q[s] = 0;
    if (s == e->slot1 && (e->need & 1)) {
        e->dd1 = fe->dd;
        e->need &= (uint8_t)~1u;
    } else {
        e->dd2 = fe->dd;
        e->need &= (uint8_t)~2u;
    }
    e->fail |= (uint8_t)ETM_DDCTL_STREX_FAIL(fe->ddctl);
    e->imp |= (uint8_t)ETM_DDCTL_IMPRECISE(fe->ddctl);
    if (!e->need)
        resolve(d, m, c, e);
}

unsigned dp_sequence(dpacket_state_t *d, const fe_cycle_t *fe)
{
    uint32_t ctl = fe->dactl;
    if (!ETM_DACTL_SLOT(ctl))
        return DP_XFER_NONE;
    if (d->unal_q) {
        d->unal_q = 0;
        d->first_q = (uint8_t)ETM_DACTL_LAST(ctl);
        return DP_XFER_SECOND_HALF;
    }
    unsigned kind = d->first_q ? DP_XFER_FIRST : DP_XFER_LATER;
    d->unal_q = (uint8_t)ETM_DACTL_UNALIGNED(ctl);
    d->first_q = (uint8_t)(d->unal_q ? 0 : ETM_DACTL_LAST(ctl));
    return kind;
}

unsigned dp_address_begin(dpacket_state_t *d, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                          unsigned kind, cycle_buf_t *c)
{
    uint32_t ctl = fe->dactl;
    unsigned s = ETM_DACTL_SLOT(ctl);
    if (kind == DP_XFER_NONE)
        return DP_ADDR_NONE;
    /* A new address on a slot abandons the one still waiting there (an access
     * that aborted returns no value). */
    if (d->owner_q[s])
        not_traced(d, m, c, &d->ent_q[d->owner_q[s] - 1]);

    if (kind == DP_XFER_SECOND_HALF) {
        if (d->unal_ent_q) {
            dp_entry_t *e = &d->ent_q[d->unal_ent_q - 1];
            e->slot2 = (uint8_t)s;
            e->ctl2 = ctl;
            d->owner_q[s] = d->unal_ent_q;
            d->unal_ent_q = 0;
        }
        return DP_ADDR_NONE;
    }
    d->unal_ent_q = 0;
    if (kind == DP_XFER_FIRST) { /* a new data instruction: the newest instruction */
        d->ins_traced_q = d->newest_q;
        d->ins_started_q = 0;
    }
    /* CPRTs are traced only with ETMCR[1], which the model does not implement;
     * an untraced instruction's transfers are not traced; an instruction's data
     * starts at its first transfer with ViewData (IHI 0014 7.4, Tracing LSMs). */
    if (ETM_DACTL_CPRT(ctl) || !d->ins_traced_q || (!d->ins_started_q && !flt->view_data))
        return DP_ADDR_NONE;
    return d->ins_started_q ? DP_ADDR_NEXT : DP_ADDR_FIRST;
}

void dp_address_put(dpacket_state_t *d, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                    cycle_buf_t *c)
{
    uint32_t ctl = fe->dactl;
    unsigned s = ETM_DACTL_SLOT(ctl);
    int unal = (int)ETM_DACTL_UNALIGNED(ctl);
    int a = !d->ins_started_q || ETM_DACTL_NSEQ(ctl);
    d->ins_started_q = 1;
    if (!flt->view_data || !m->data_value) {
        /* Complete now: value not traced, or the address alone. */
        place_older(d, m, c, NULL);
        if (flt->view_data)
            put_normal(d, m, c, a, fe->da, 0, 0);
        else
            put_vnt(d, m, c, a, fe->da);
        return;
    }
    dp_entry_t *e = NULL;
    for (unsigned i = 0; i < ETM_DP_ENTRIES && !e; i++)
        if (d->ent_q[i].state == DP_FREE)
            e = &d->ent_q[i];
    if (!e) /* not reached: every entry waits on a slot of its own */
        return;
    e->state = DP_NEW;
    e->a = (uint8_t)a;
    e->unal = (uint8_t)unal;
    e->need = (uint8_t)(unal ? 3 : 1);
    e->slot1 = (uint8_t)s;
    e->seq = d->seq_q++;
    e->addr = fe->da;
    e->ctl1 = ctl;
    unsigned k = (unsigned)(e - d->ent_q) + 1;
    d->owner_q[s] = (uint8_t)k;
    if (unal)
        d->unal_ent_q = (uint8_t)k;
}

void dp_drop(dpacket_state_t *d)
{
    memset(d->ent_q, 0, sizeof d->ent_q);
    memset(d->owner_q, 0, sizeof d->owner_q);
    d->unal_ent_q = 0;
    d->ins_traced_q = 0;
    d->newest_q = 0;
    d->dfull_q = 1;
}
