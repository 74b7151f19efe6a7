/* check.c - stage `check`: the interface contract (docs/interface.md). */
#include "etm/check.h"

#include <string.h>

#include "etm/dataslot.h"

static const char *const rule_names[ETM_RULE_COUNT] = {
#define ETM_RULE(name, text) #name,
#include "etm/rules.def"
};

static const char *const rule_texts[ETM_RULE_COUNT] = {
#define ETM_RULE(name, text) text,
#include "etm/rules.def"
};

const char *etm_rule_name(etm_rule_t r) { return (unsigned)r < ETM_RULE_COUNT ? rule_names[r] : "UNKNOWN_RULE"; }
const char *etm_rule_text(etm_rule_t r) { return (unsigned)r < ETM_RULE_COUNT ? rule_texts[r] : "unknown rule"; }

void etm_check_init(etm_check_t *c, const etm_config_t *cfg)
{
    memset(c, 0, sizeof *c);
    c->issue_width = cfg ? cfg->issue_width : 1;
    c->first_q = 1;
}

/* Cortex-M3 exception numbers that can be entered: Reset 1 .. UsageFault 6,
 * SVCall 11, DebugMonitor 12, PendSV 14, SysTick 15, external interrupts 16+. */
static int intnum_enterable(unsigned n)
{
    return (n >= 1 && n <= 6) || n == 11 || n == 12 || n >= 14;
}

typedef struct {
    etm_check_t *c;
    etm_rule_t *fired;
    unsigned max, n;
} hits_t;

static void hit(hits_t *h, etm_rule_t r)
{
    if (h->n < h->max)
        h->fired[h->n] = r;
    h->n++;
    h->c->counts[r]++;
    h->c->total++;
}

/* DABLSel of a transfer at da: a contiguous run of lanes that starts at lane
 * da[2:0] and stays within one 32-bit word. */
static int blsel_valid(uint32_t da, unsigned lanes)
{
    unsigned lo = da & 7u;
    if (!lanes || !((lanes >> lo) & 1u) || (lanes & ((1u << lo) - 1u)))
        return 0;
    unsigned run = lanes >> lo;
    if (run & (run + 1u)) /* not of the form 0..01..1 */
        return 0;
    unsigned hi = lo;
    while ((lanes >> (hi + 1)) & 1u)
        hi++;
    return (lo < 4) == (hi < 4);
}

/* Table 16.1 qualifiers of instruction slot 0. */
static void check_slot0(hits_t *h, etm_check_t *c, const etm_in_t *in)
{
    if (in->ibranch && !in->ivalid)
        hit(h, ETM_RULE_IBRANCH_WITHOUT_IVALID);
    if (in->iccfail && !in->ivalid)
        hit(h, ETM_RULE_ICCFAIL_WITHOUT_IVALID);
    if (in->fold && !in->ivalid)
        hit(h, ETM_RULE_FOLD_WITHOUT_IVALID);
    if (in->iindbr && !in->ibranch)
        hit(h, ETM_RULE_IINDBR_WITHOUT_IBRANCH);
    if (in->findbr && !in->flush)
        hit(h, ETM_RULE_FINDBR_WITHOUT_FLUSH);
    if (in->istall && in->ivalid)
        hit(h, ETM_RULE_ISTALL_WITH_IVALID);
    if (in->intstat > ETM_INTSTAT_FETCH)
        hit(h, ETM_RULE_INTSTAT_RESERVED);
    if (in->intstat == ETM_INTSTAT_EXIT && in->ivalid)
        hit(h, ETM_RULE_INTSTAT_EXIT_WITH_IVALID);
    if (in->intstat == ETM_INTSTAT_ENTRY || in->intstat == ETM_INTSTAT_RETURN) {
        if (!in->ivalid)
            hit(h, ETM_RULE_INTSTAT_ENTRY_WITHOUT_IVALID);
        else if (!in->ibranch || !in->iindbr)
            hit(h, ETM_RULE_INTSTAT_ENTRY_NOT_INDIRECT);
    }
    if (in->intstat == ETM_INTSTAT_ENTRY && !intnum_enterable(in->intnum))
        hit(h, ETM_RULE_INTNUM_INVALID);
    if (in->ivalid) {
        if (c->cancel_q && in->intstat != ETM_INTSTAT_ENTRY)
            hit(h, ETM_RULE_CANCEL_WITHOUT_ENTRY);
        c->cancel_q = 0;
    }
    if (in->cancel)
        c->cancel_q = 1;
}

/* The second instruction slot. */
static void check_slot1(hits_t *h, const etm_check_t *c, const etm_in_t *in)
{
    int slot1_used = in->ivalid1 || in->ibranch1 || in->iindbr1 || in->iccfail1;
    if (slot1_used && c->issue_width < 2)
        hit(h, ETM_RULE_SLOT1_DISABLED);
    if (in->ivalid1 && !in->ivalid)
        hit(h, ETM_RULE_SLOT1_WITHOUT_SLOT0);
    if (in->ivalid1 && in->fold)
        hit(h, ETM_RULE_SLOT1_WITH_FOLD);
    if (in->ibranch1 && !in->ivalid1)
        hit(h, ETM_RULE_IBRANCH1_WITHOUT_IVALID1);
    if (in->iccfail1 && !in->ivalid1)
        hit(h, ETM_RULE_ICCFAIL1_WITHOUT_IVALID1);
    if (in->iindbr1 && !in->ibranch1)
        hit(h, ETM_RULE_IINDBR1_WITHOUT_IBRANCH1);
}

/* Data value: belongs to the outstanding address of its slot from an earlier
 * cycle. The value is checked before this cycle's address is recorded. */
static void check_value(hits_t *h, etm_check_t *c, const etm_in_t *in)
{
    unsigned dds = ETM_DDCTL_SLOT(in->ddctl);
    if (!dds)
        return;
    if (!c->pend_q[dds]) {
        hit(h, ETM_DACTL_SLOT(in->dactl) == dds ? ETM_RULE_DD_SAME_CYCLE : ETM_RULE_DD_WITHOUT_ADDRESS);
    } else {
        if (c->cycle - c->pend_cyc_q[dds] < 2)
            hit(h, ETM_RULE_DD_TOO_SOON);
        if (ETM_DDCTL_STREX_FAIL(in->ddctl) && !c->pend_write_q[dds])
            hit(h, ETM_RULE_DD_FAIL_NOT_STORE);
    }
    c->pend_q[dds] = 0;
}

/* The second half of an unaligned access: only DALast is meaningful (table
 * 15-5). Returns the access's DAWrite. */
static uint8_t check_second_half(hits_t *h, etm_check_t *c, const etm_in_t *in, unsigned n, int lanes_ok)
{
    uint32_t ctl = in->dactl;
    unsigned last = ETM_DACTL_LAST(ctl);
    if (ETM_DACTL_UNALIGNED(ctl))
        hit(h, ETM_RULE_DA_UNALIGNED_SECOND_HALF);
    if (last != c->unal_last_q)
        hit(h, ETM_RULE_DA_UNALIGNED_LAST_MISMATCH);
    if (lanes_ok && ((in->da & 3u) || in->da != (c->unal_da_q & ~3u) + 4 || c->unal_n_q + n > 4))
        hit(h, ETM_RULE_DA_UNALIGNED_SPLIT);
    c->unal_q = 0;
    c->first_q = (uint8_t)last;
    return c->unal_write_q;
}

/* A transfer that is not a second half: its place in its instruction, its
 * lanes and rotation, an unaligned first half. Returns its DAWrite. */
static uint8_t check_transfer(hits_t *h, etm_check_t *c, const etm_in_t *in, unsigned n, int lanes_ok)
{
    uint32_t ctl = in->dactl;
    unsigned last = ETM_DACTL_LAST(ctl), nseq = ETM_DACTL_NSEQ(ctl), unal = ETM_DACTL_UNALIGNED(ctl);
    int cprt = (int)ETM_DACTL_CPRT(ctl);
    if (c->first_q) {
        if (!nseq)
            hit(h, ETM_RULE_DA_FIRST_WITHOUT_NSEQ);
        if (!c->insn_q)
            hit(h, ETM_RULE_DA_FIRST_WITHOUT_INSN);
        c->insn_q = 0;
    } else if (!nseq && in->da != c->prev_da_q + 4) {
        hit(h, ETM_RULE_DA_NOT_SEQUENTIAL);
    }
    if (cprt && (!c->first_q || !nseq || !last || unal))
        hit(h, ETM_RULE_DA_CPRT_NOT_SINGLE);
    if (!cprt && lanes_ok && ETM_DACTL_ROT(ctl) != etm_dslot_rotation(in->da, n, (int)ETM_DACTL_SWIZZLE(ctl)))
        hit(h, ETM_RULE_DA_ROT_MISMATCH);
    uint8_t write = (uint8_t)ETM_DACTL_WRITE(ctl);
    if (unal) {
        /* The first half runs to the end of its word, and is not all of it. */
        if (lanes_ok && !cprt && ((in->da & 3u) == 0 || (in->da & 3u) + n != 4))
            hit(h, ETM_RULE_DA_UNALIGNED_SPLIT);
        c->unal_q = 1;
        c->unal_last_q = (uint8_t)last;
        c->unal_da_q = in->da;
        c->unal_n_q = (uint8_t)n;
        c->unal_write_q = write;
        c->first_q = 0;
    } else {
        c->first_q = (uint8_t)last;
    }
    return write;
}

/* Data address sequencing. */
static void check_address(hits_t *h, etm_check_t *c, const etm_in_t *in)
{
    unsigned das = ETM_DACTL_SLOT(in->dactl);
    if (!das)
        return;
    uint32_t ctl = in->dactl;
    unsigned n = etm_dslot_lanes(ctl);
    int lanes_ok = ETM_DACTL_CPRT(ctl) || blsel_valid(in->da, ETM_DACTL_BLSEL(ctl));
    if (!lanes_ok)
        hit(h, ETM_RULE_DA_BLSEL_INVALID);
    uint8_t write = c->unal_q ? check_second_half(h, c, in, n, lanes_ok) : check_transfer(h, c, in, n, lanes_ok);
    c->prev_da_q = in->da;
    c->pend_q[das] = 1;
    c->pend_cyc_q[das] = c->cycle;
    c->pend_write_q[das] = write;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static unsigned check_full(etm_check_t *c, const etm_in_t *in, etm_rule_t *fired, unsigned max)
{
    hits_t h = { c, fired, max, 0 };
    check_slot0(&h, c, in);
    check_slot1(&h, c, in);
    if (in->ivalid)
        c->insn_q = 1; /* an instruction comes before its transfer in the same cycle */
    check_value(&h, c, in);
    check_address(&h, c, in);
    c->cycle++;
    return h.n;
}

unsigned etm_check_step(etm_check_t *c, const etm_in_t *in, etm_rule_t *fired, unsigned max)
{
    /* A cycle with none of the signals a rule or the state above looks at
     * (ETMISTALL and ETMFLUSH alone break none): nothing to check. A rule on a
     * new signal adds it here. */
    if (!(in->ivalid | in->ibranch | in->iccfail | in->fold | in->iindbr | in->findbr | in->intstat | in->cancel |
          in->ivalid1 | in->ibranch1 | in->iindbr1 | in->iccfail1 | ETM_DDCTL_SLOT(in->ddctl) |
          ETM_DACTL_SLOT(in->dactl))) {
        c->cycle++;
        return 0;
    }
    return check_full(c, in, fired, max);
}
