/* filter.c - stage `filter`: which cycles are traced (TraceEnable), whether a
 * data transfer is traced (ViewData), and when the trigger fires.
 *
 * Each cycle is a list of items in trace order (ETM architecture 2.11.1): the
 * instruction of slot 0, the folded IT or the instruction of slot 1, then the
 * data transfer the data slot announces. Address comparators compare each item
 * of their kind; the start/stop block and the include/exclude regions act item
 * by item; events ("function of resources A and B") are evaluated once per
 * cycle, a resource being active for the whole cycle if any item matched it.
 * docs/filter.md gives every rule and the decisions behind them.
 */
#include <string.h>

#include "filter.h"

enum { IT_INSN, IT_DATA, IT_NONE };

typedef struct item {
    uint8_t kind;     /* IT_INSN, IT_DATA, or IT_NONE: only DWT matches */
    uint8_t exec;     /* instruction: passed its condition */
    uint8_t write;    /* data: a store */
    uint8_t lanes;    /* data: byte lanes of the doubleword at addr & ~7 */
    uint8_t eice;     /* DWT comparator matches that belong to this item */
    uint32_t addr;
} item_t;

#define EV_NEVER 0x406Fu  /* NOT A, A = the hard-wired "always" resource */
#define EV_ALWAYS 0x006Fu /* A */

static unsigned event_resource_a(uint32_t ev) { return ETM_FIELD_GET(ETM_EVENT_RESOURCE_A, ev); }
static unsigned event_resource_b(uint32_t ev) { return ETM_FIELD_GET(ETM_EVENT_RESOURCE_B, ev); }

void etm_filter_setup(const etm_config_t *c, unsigned version, filter_setup_t *f)
{
    memset(f, 0, sizeof *f);
    f->v31 = version >= ETM_V(3, 1);
    f->v1 = ETM_V_MAJOR(version) == 1;
    unsigned pairs = ETM_FIELD_GET(ETM_CCR_PAIRS, c->etmccr);
    for (unsigned n = 0; n < 2 * pairs && n < ETM_NUM_ADDR_COMP; n++) {
        unsigned type = ETM_FIELD_GET(ETM_ACTR_TYPE, c->etmactr[n]), size = ETM_FIELD_GET(ETM_ACTR_SIZE, c->etmactr[n]);
        f->acvr[n] = c->etmacvr[n];
        f->atype[n] = (uint8_t)type;
        f->amask[n] = size == 3 ? ~3u : size == 1 ? ~1u : ~0u;
        f->asize[n] = (uint8_t)(size == 3 ? 4 : size == 1 ? 2 : 1);
        int exact = (int)ETM_FIELD_GET(ETM_ACTR_EXACT, c->etmactr[n]);
        if (type >= 1 && type <= 3) {
            f->s_instr |= (uint16_t)(1u << n);
            f->s_exact |= (uint16_t)(exact << n);
        } else if (type >= 4 && type <= 6) {
            f->s_data |= (uint16_t)(1u << n);
        }
    }
    for (unsigned k = 0; k < pairs && k < 8; k++) {
        /* A pair is programmed alike (etm_model_supports checks): its low comparator decides. */
        if ((f->s_instr >> (2 * k)) & 1) {
            f->r_instr |= (uint8_t)(1u << k);
            f->r_exact |= (uint8_t)(((f->s_exact >> (2 * k)) & 1) << k);
        }
        if ((f->s_data >> (2 * k)) & 1)
            f->r_data |= (uint8_t)(1u << k);
    }
    f->ie_always = pairs == 0 && ETM_FIELD_GET(ETM_CCR_DECODERS, c->etmccr) == 0;
    f->exclude = (uint8_t)ETM_FIELD_GET(ETM_TECR1_EXCLUDE, c->etmtecr1);
    f->use_ss = (uint8_t)ETM_FIELD_GET(ETM_TECR1_START_STOP, c->etmtecr1);
    f->te_range = (uint8_t)ETM_FIELD_GET(ETM_TECR1_RANGE, c->etmtecr1);
    f->te_single = (uint16_t)ETM_FIELD_GET(ETM_TECR2_SINGLE, c->etmtecr2);
    f->ss_start = (uint16_t)ETM_FIELD_GET(ETM_TSSCR_START, c->etmtsscr);
    f->ss_stop = (uint16_t)ETM_FIELD_GET(ETM_TSSCR_STOP, c->etmtsscr);
    f->eice_start = (uint8_t)ETM_FIELD_GET(ETM_TESSEICR_START, c->etmtesseicr);
    f->eice_stop = (uint8_t)ETM_FIELD_GET(ETM_TESSEICR_STOP, c->etmtesseicr);
    f->vd_in_s = (uint16_t)ETM_FIELD_GET(ETM_VDCR1_INCLUDE, c->etmvdcr1);
    f->vd_ex_s = (uint16_t)ETM_FIELD_GET(ETM_VDCR1_EXCLUDE, c->etmvdcr1);
    f->vd_in_r = (uint8_t)ETM_FIELD_GET(ETM_VDCR3_INCLUDE, c->etmvdcr3);
    f->vd_ex_r = (uint8_t)ETM_FIELD_GET(ETM_VDCR3_EXCLUDE, c->etmvdcr3);
    f->vd_exonly = (uint8_t)ETM_FIELD_GET(ETM_VDCR3_EXCLUDE_ONLY, c->etmvdcr3);
    f->ncnt = (uint8_t)ETM_FIELD_GET(ETM_CCR_COUNTERS, c->etmccr);
    f->reduced1 = version >= ETM_V(3, 5) && ETM_FIELD_GET(ETM_CCER_REDUCED_COUNTER, c->etmccer);
    f->teevr = c->etmteevr & 0x1ffff;
    f->trigger = c->etmtrigger & 0x1ffff;
    f->vdevr = c->etmvdevr & 0x1ffff;
    f->no_compare = !(f->s_instr | f->s_data | f->r_instr | f->r_data) && !(f->eice_start | f->eice_stop);
    for (unsigned i = 0; i < ETM_NUM_COUNTERS; i++) {
        int present = i < f->ncnt;
        /* ETMv1: ETMCNTENR[17] = 0 counts every cycle; the event is then 0x6F. */
        f->cntenr[i] = !present ? EV_NEVER : f->v1 && !ETM_FIELD_GET(ETM_CNTENR_SOURCE, c->etmcntenr[i]) ? 0x6Fu : c->etmcntenr[i] & 0x1ffff;
        f->cntrldevr[i] = present ? c->etmcntrldevr[i] & 0x1ffff : EV_NEVER;
        f->cntrldvr[i] = (uint16_t)c->etmcntrldvr[i];
        f->cntvr[i] = (uint16_t)c->etmcntvr[i];
    }
    if (f->reduced1) {
        f->cntenr[0] = 0x6F;
        f->cntrldevr[0] = EV_NEVER;
    }
    /* Counters that neither count nor reload, but for a reduced-function
     * counter 1, which counts every cycle (etm_filter_plain follows it). */
    f->plain_count1 = f->reduced1 && f->ncnt > 0;
    int counters_still = 1;
    for (unsigned i = f->plain_count1; i < ETM_NUM_COUNTERS; i++)
        counters_still &= f->cntenr[i] == EV_NEVER && f->cntrldevr[i] == EV_NEVER;
    f->trigger_never = f->trigger == EV_NEVER;
    f->plain = f->no_compare && !f->v1 && f->teevr == EV_ALWAYS && (f->ie_always || f->exclude) && !f->use_ss &&
               counters_still;
}

void etm_filter_reset(filter_state_t *s, const filter_setup_t *f)
{
    memset(s, 0, sizeof *s);
    /* Before any instruction the include/exclude term is that of an item that
     * matches nothing. */
    s->ie_q = (uint8_t)(f->ie_always || f->exclude);
    for (unsigned i = 0; i < ETM_NUM_COUNTERS; i++)
        s->cnt_q[i] = i < f->ncnt ? (f->reduced1 && i == 0 ? f->cntrldvr[0] : f->cntvr[i]) : 0;
}

/* ---- Comparators ---------------------------------------------------------------------- */

static int type_accepts(unsigned type, const item_t *it)
{
    switch (type) {
    case 1: return it->kind == IT_INSN;
    case 2: return it->kind == IT_INSN && it->exec;
    case 3: return it->kind == IT_INSN && !it->exec;
    case 4: return it->kind == IT_DATA;
    case 5: return it->kind == IT_DATA && !it->write;
    case 6: return it->kind == IT_DATA && it->write;
    default: return 0;
    }
}

/* Does a data transfer touch a byte in [lo, hi)? (64-bit arithmetic: hi may be 2^32.) */
static int data_touches(const item_t *it, uint64_t lo, uint64_t hi)
{
    uint32_t base = it->addr & ~7u;
    for (unsigned l = 0; l < 8; l++)
        if ((it->lanes >> l) & 1) {
            uint64_t b = (uint64_t)base + l;
            if (b >= lo && b < hi)
                return 1;
        }
    return 0;
}

static int single_matches(const filter_setup_t *f, unsigned n, const item_t *it)
{
    if (!type_accepts(f->atype[n], it))
        return 0;
    if (it->kind == IT_DATA && f->v31) /* the byte, halfword or word at the comparator's address */
        return data_touches(it, f->acvr[n], (uint64_t)f->acvr[n] + f->asize[n]);
    if (it->kind == IT_INSN && f->v31)
        return it->addr == f->acvr[n];
    return ((it->addr ^ f->acvr[n]) & f->amask[n]) == 0;
}

static int range_matches(const filter_setup_t *f, unsigned k, const item_t *it)
{
    if (!type_accepts(f->atype[2 * k], it))
        return 0;
    uint32_t lo = f->acvr[2 * k], hi = f->acvr[2 * k + 1];
    if (it->kind == IT_DATA)
        return data_touches(it, lo, hi);
    return it->addr >= lo && it->addr < hi;
}

/* The comparators an item matches. Exact-match instruction comparators report
 * the match of the instruction before (if it was not cancelled), so they act
 * one instruction late. */
static void compare_item(filter_state_t *s, const filter_setup_t *f, const item_t *it, uint16_t *single,
                         uint8_t *range)
{
    uint16_t sm = 0;
    uint8_t rm = 0;
    uint16_t cand = it->kind == IT_INSN ? f->s_instr : it->kind == IT_DATA ? f->s_data : 0;
    uint8_t rcand = it->kind == IT_INSN ? f->r_instr : it->kind == IT_DATA ? f->r_data : 0;
    for (unsigned n = 0; cand >> n; n++)
        if (((cand >> n) & 1) && single_matches(f, n, it))
            sm |= (uint16_t)(1u << n);
    for (unsigned k = 0; rcand >> k; k++)
        if (((rcand >> k) & 1) && range_matches(f, k, it))
            rm |= (uint8_t)(1u << k);
    if (it->kind == IT_INSN) {
        uint16_t se = (uint16_t)((sm & ~f->s_exact) | (s->s_pend_q & f->s_exact));
        uint8_t re = (uint8_t)((rm & ~f->r_exact) | (s->r_pend_q & f->r_exact));
        s->s_pend_q = sm & f->s_exact;
        s->r_pend_q = rm & f->r_exact;
        sm = se;
        rm = re;
    }
    *single = sm;
    *range = rm;
}

/* ---- Events -------------------------------------------------------------------------------- */

/* Resource values of one cycle, in the two views an event can take
 * (EmbeddedICE inputs, IHI 0014 7.9: latched for TraceEnable and ViewData,
 * pulsed for the trigger, counters and start/stop; docs/filter.md applies the
 * same to address comparators). */
typedef struct resources {
    uint16_t single[2];
    uint8_t range[2];
    uint8_t eice[2];
    uint8_t zero;   /* counters at zero */
    uint8_t ss;     /* start/stop resource */
} resources_t;

enum { VIEW_PULSE, VIEW_LATCH };

static int resource(const resources_t *r, int view, unsigned id)
{
    unsigned type = id >> 4, idx = id & 0xf;
    switch (type) {
    case 0: return (r->single[view] >> idx) & 1;
    case 1: return idx < 8 && ((r->range[view] >> idx) & 1);
    case 2: return idx < 8 && ((r->eice[view] >> idx) & 1);
    case 4: return idx < 4 && ((r->zero >> idx) & 1);
    case 5: return idx == 15 && r->ss;
    case 6: return idx == 15;
    default: return 0; /* etm_model_supports rejects every other resource */
    }
}

static int event(uint32_t ev, const resources_t *r, int view)
{
    /* The usual programming: hard-wired "always" (A = 0x6F), or its inverse. */
    if (ev == EV_ALWAYS)
        return 1;
    if (ev == EV_NEVER)
        return 0;
    int a = resource(r, view, event_resource_a(ev)), b = resource(r, view, event_resource_b(ev));
    switch ((ev >> 14) & 7) {
    case 0: return a;
    case 1: return !a;
    case 2: return a && b;
    case 3: return !a && b;
    case 4: return !a && !b;
    case 5: return a || b;
    case 6: return !a || b;
    default: return !a || !b;
    }
}

/* ---- The cycle ------------------------------------------------------------------------------- */

/* The cycle's items in trace order; a DWT match goes with the first
 * instruction (PC match) or with the data transfer (data match), or stands
 * alone. Returns how many (at most 4). */
static unsigned make_items(const etm_in_t *in, const fe_cycle_t *fe, item_t *items)
{
    unsigned n = 0;
    uint8_t imatch = (uint8_t)(in->trigger & in->triginotd & 0xf);  /* instruction matches */
    uint8_t dmatch = (uint8_t)(in->trigger & ~in->triginotd & 0xf); /* data matches */
    if (imatch && !fe->natoms) {
        memset(&items[n], 0, sizeof items[n]);
        items[n].kind = IT_NONE;
        items[n++].eice = imatch;
    }
    for (unsigned i = 0; i < fe->natoms; i++) {
        memset(&items[n], 0, sizeof items[n]);
        items[n].kind = IT_INSN;
        items[n].exec = fe->atom[i].exec;
        items[n].addr = fe->atom[i].addr;
        items[n++].eice = i == 0 ? imatch : 0;
    }
    if (ETM_DACTL_SLOT(in->dactl) != 0) {
        memset(&items[n], 0, sizeof items[n]);
        items[n].kind = IT_DATA;
        items[n].addr = in->da;
        items[n].write = (uint8_t)ETM_DACTL_WRITE(in->dactl);
        items[n].lanes = (uint8_t)ETM_DACTL_BLSEL(in->dactl);
        if (!items[n].lanes)
            items[n].lanes = (uint8_t)(1u << (in->da & 7));
        items[n++].eice = dmatch;
    } else if (dmatch) {
        memset(&items[n], 0, sizeof items[n]);
        items[n].kind = IT_NONE;
        items[n++].eice = dmatch;
    }
    return n;
}

/* What the items of a cycle matched. */
typedef struct walk {
    uint16_t cyc_single, data_single; /* single comparators matched: by any item, by the data item */
    uint8_t cyc_range, data_range;    /* range comparators, the same */
    int ss;                           /* the start/stop block after the cycle */
    int ss_cycle;                     /* ... active for the cycle */
    int ie_any, any_insn, any_data;
} walk_t;

/* Item by item: comparators, start/stop, include/exclude. */
static void walk_items(filter_state_t *s, const filter_setup_t *f, const item_t *items, unsigned n, walk_t *w,
                       filter_out_t *out)
{
    memset(w, 0, sizeof *w);
    w->ss = s->ss_q;
    for (unsigned i = 0; i < n; i++) {
        const item_t *it = &items[i];
        uint16_t sm = 0;
        uint8_t rm = 0;
        compare_item(s, f, it, &sm, &rm);
        w->cyc_single |= sm;
        w->cyc_range |= rm;
        int start = (sm & f->ss_start) || (it->eice & f->eice_start);
        int stop = (sm & f->ss_stop) || (it->eice & f->eice_stop);
        /* The block is active for the cycle if it is active for any of its
         * items: a start item is, a stop item is not; an item that is both
         * starts (docs/filter.md). */
        int active = start || (w->ss && !stop);
        if (start && !w->ss)
            out->ss_change |= 1;
        if (!start && stop && w->ss)
            out->ss_change |= 2;
        w->ss = start ? 1 : stop ? 0 : w->ss;
        w->ss_cycle |= active;
        if (it->kind == IT_INSN) {
            int m = (sm & f->te_single) || (rm & f->te_range);
            int ie = f->ie_always || (f->exclude ? !m : m);
            if (m && !f->ie_always)
                out->ie_hit |= (uint8_t)(f->exclude ? 2 : 1);
            s->ie_q = (uint8_t)ie;
            w->ie_any |= ie;
            w->any_insn = 1;
        } else if (it->kind == IT_DATA) {
            w->data_single = sm;
            w->data_range = rm;
            w->any_data = 1;
        }
    }
    if (!n)
        w->ss_cycle = w->ss;
}

/* walk_items when nothing compares (no_compare): no comparator matches, the
 * start/stop block holds, and every instruction's include/exclude term is that
 * of an item matching nothing (true without comparators, or when excluding). */
static void plain_walk(filter_state_t *s, const filter_setup_t *f, const etm_in_t *in, const fe_cycle_t *fe,
                       walk_t *w)
{
    memset(w, 0, sizeof *w);
    w->ss = s->ss_q;
    w->ss_cycle = s->ss_q;
    w->any_data = ETM_DACTL_SLOT(in->dactl) != 0;
    if (fe->natoms) {
        w->any_insn = 1;
        s->ie_q = (uint8_t)(f->ie_always || f->exclude);
        w->ie_any = s->ie_q;
    }
}

/* The counters at zero, a bit each. */
static uint8_t counters_at_zero(const filter_state_t *s, const filter_setup_t *f)
{
    uint8_t z = 0;
    for (unsigned i = 0; i < f->ncnt; i++)
        z |= (uint8_t)((s->cnt_q[i] == 0) << i);
    return z;
}

/* Resources: pulse (this cycle) and latch (last comparison of its kind). */
static void gather_resources(filter_state_t *s, const filter_setup_t *f, const etm_in_t *in, const walk_t *w,
                             resources_t *r)
{
    r->single[VIEW_PULSE] = w->cyc_single;
    r->range[VIEW_PULSE] = w->cyc_range;
    uint16_t s_cmp = (uint16_t)((w->any_insn ? f->s_instr : 0) | (w->any_data ? f->s_data : 0));
    uint8_t r_cmp = (uint8_t)((w->any_insn ? f->r_instr : 0) | (w->any_data ? f->r_data : 0));
    s->s_latch_q = (uint16_t)((s->s_latch_q & ~s_cmp) | (w->cyc_single & s_cmp));
    s->r_latch_q = (uint8_t)((s->r_latch_q & ~r_cmp) | (w->cyc_range & r_cmp));
    r->single[VIEW_LATCH] = s->s_latch_q;
    r->range[VIEW_LATCH] = s->r_latch_q;
    /* A DWT comparator compares every instruction (PC comparator) or every data
     * access (data comparator, ETMDVALID); which kind it is, ETMTRIGINOTD says
     * with each match. A match is a comparison too. */
    s->eice_pc_q = (uint8_t)((s->eice_pc_q & ~in->trigger) | (in->trigger & in->triginotd));
    uint8_t e_cmp = (uint8_t)(in->trigger | (in->ivalid ? s->eice_pc_q : 0) |
                              ((in->dvalid || ETM_DACTL_SLOT(in->dactl) != 0) ? ~s->eice_pc_q : 0));
    e_cmp &= 0xf;
    r->eice[VIEW_PULSE] = (uint8_t)(in->trigger & 0xf);
    s->eice_latch_q = (uint8_t)((s->eice_latch_q & ~e_cmp) | (in->trigger & e_cmp));
    r->eice[VIEW_LATCH] = s->eice_latch_q;
    r->zero = counters_at_zero(s, f);
    r->ss = (uint8_t)w->ss_cycle;
}

/* Counters: reload wins over decrement; at zero a counter stays there. */
static void count(filter_state_t *s, const filter_setup_t *f, const resources_t *r, filter_out_t *out)
{
    for (unsigned i = 0; i < f->ncnt; i++) {
        if (f->reduced1 && i == 0) {
            if (s->cnt_q[0] == 0) {
                s->cnt_q[0] = f->cntrldvr[0];
                out->cnt_reload |= 1;
            } else {
                s->cnt_q[0]--;
            }
        } else if (event(f->cntrldevr[i], r, VIEW_PULSE)) {
            s->cnt_q[i] = f->cntrldvr[i];
            out->cnt_reload |= (uint8_t)(1u << i);
        } else if (s->cnt_q[i] && event(f->cntenr[i], r, VIEW_PULSE)) {
            s->cnt_q[i]--;
        }
    }
}

/* The trigger and the counters, on the cycle's resources. */
static void events_of_cycle(filter_state_t *s, const filter_setup_t *f, const resources_t *r, filter_out_t *out)
{
    if (!s->triggered_q && event(f->trigger, r, VIEW_PULSE)) {
        out->trigger = 1;
        s->triggered_q = 1;
    }
    count(s, f, r, out);
}

/* A cycle with nothing to compare after an instruction has been seen: no
 * instruction, no data transfer, no DWT input, no cancel. Every comparator's
 * pulse is 0, no latch changes, the start/stop block and the include/exclude
 * result hold, TraceEnable is the last instruction's: what etm_filter would
 * find, without building the cycle's items. */
static int quiet_cycle(const filter_state_t *s, const etm_in_t *in, const fe_cycle_t *fe)
{
    return s->seen_insn_q && !fe->natoms && !in->dvalid && !in->cancel && !(in->trigger & 0xf) &&
           ETM_DACTL_SLOT(in->dactl) == 0;
}

static void quiet(filter_state_t *s, const filter_setup_t *f, filter_out_t *out)
{
    resources_t r;
    memset(&r, 0, sizeof r);
    r.single[VIEW_LATCH] = s->s_latch_q;
    r.range[VIEW_LATCH] = s->r_latch_q;
    r.eice[VIEW_LATCH] = s->eice_latch_q;
    r.zero = counters_at_zero(s, f);
    r.ss = s->ss_q;
    out->trace_enable = s->te_insn_q;
    events_of_cycle(s, f, &r, out);
}

void etm_filter(filter_state_t *s, const filter_setup_t *f, const etm_in_t *in, const fe_cycle_t *fe,
                filter_out_t *out)
{
    memset(out, 0, sizeof *out);
    if (quiet_cycle(s, in, fe)) {
        quiet(s, f, out);
        return;
    }
    /* ETMCANCEL: the last instruction did not complete; an exact match waiting
     * for it is dropped. */
    if (in->cancel) {
        s->s_pend_q = 0;
        s->r_pend_q = 0;
    }
    walk_t w;
    if (f->no_compare) {
        plain_walk(s, f, in, fe, &w);
    } else {
        item_t items[4];
        unsigned n = make_items(in, fe, items);
        walk_items(s, f, items, n, &w, out);
    }
    /* Without an instruction the last one's include/exclude result holds. Two
     * instructions of a cycle are traced together if either must be. */
    int te_addr = (w.any_insn ? w.ie_any : s->ie_q) && (!f->use_ss || w.ss_cycle);
    resources_t r;
    gather_resources(s, f, in, &w, &r);

    /* TraceEnable changes only with an instruction: a cycle without one keeps
     * the last instruction's (docs/filter.md). Cortex-M3: when trace turns off
     * just as an exception is taken, the ETM stays enabled until the
     * exception's branch packet is out (DDI 0337G 15.4): the handler's first
     * instruction is traced if the instruction before it was. */
    int te = s->te_insn_q;
    if (fe->natoms || !s->seen_insn_q) /* before the first instruction: every cycle */
        te = (event(f->teevr, &r, VIEW_LATCH) && te_addr) || (fe->entry && s->te_insn_q);
    if (fe->natoms) {
        s->te_insn_q = (uint8_t)te;
        s->seen_insn_q = 1;
    }
    out->trace_enable = (uint8_t)te;

    if (ETM_DACTL_SLOT(in->dactl) != 0) {
        int in_sel = (w.data_single & f->vd_in_s) || (w.data_range & f->vd_in_r);
        int ex_sel = (w.data_single & f->vd_ex_s) || (w.data_range & f->vd_ex_r);
        out->view_data = (uint8_t)(event(f->vdevr, &r, VIEW_LATCH) && !ex_sel && (f->vd_exonly || in_sel));
    }
    events_of_cycle(s, f, &r, out);
    s->ss_q = (uint8_t)w.ss;
}
