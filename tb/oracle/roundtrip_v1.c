/* roundtrip_v1.c - the project's ETMv1 decoder (etm/decode_v1.h), which shares
 * no code with the encoder, judges the model's ETMv1 port output.
 *
 * The stimulus generator's log of what executed is the expected answer, changed
 * only where ETMv1 cannot say more (docs/etmv1-encoder.md): an exception shows
 * as a branch of the instruction before it, so that instruction is reported as
 * executed even if it failed its condition or was cancelled; exception numbers
 * and returns are not traced. The data slot traffic of the stimulus gives the
 * expected data of each load and store: the first transfer's address and the
 * bytes its byte lanes select. The decoder must report every instruction
 * (address, size, E/N), every traced data transfer, the trigger, and the
 * restarts after overflows, with no error.
 *
 *   roundtrip_v1 [--preset NAME] [--set REG=0xV]... [--cycles N] [--seed S]
 *                [--data] [--data-mix] [--data-delay N] [--triggers] [--irq-period N]
 *                [--issue-width 2] [--random-filter S] [--expect overflow|trigger|data]...
 *
 * --data-mix and --data-delay vary the slot traffic as for the ETMv3 round trip
 * (etm/gen.h): byte, halfword, unaligned and big-endian accesses, POP {pc} with
 * the PC first, failed STREX and imprecise aborts (ETMv1 traces the bytes of
 * the lanes either way), values late and out of order.
 *
 * With a filter (--random-filter, tb/common/randfilter.h), what must decode is
 * what the model reports it let through: the instructions of cycles with
 * TraceEnable, and the data of those whose first transfer had ViewData
 * (etm_out_t.trace_enable, .view_data; the rules are tested one by one in
 * tb/unit/test_filter.c).
 *
 * The decoder reports to the testbenches' one judge (tb/common/judge.h); the
 * data of each instruction is checked through the judge's ETMv1 data hooks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/decode_v1.h"
#include "etm/etm.h"
#include "judge.h"
#include "genopts.h"

#define QCAP (1u << 18)

/* ---- Options ------------------------------------------------------------------------ */

typedef struct opts {
    genopts_t g;          /* the register image, the generator, the length, a random filter */
    int want_overflow, want_trigger, want_data;
} opts_t;

static int usage(void)
{
    fprintf(stderr, "usage: roundtrip_v1 [--preset NAME] [--set REG=0xV]... [--cycles N] [--seed S] [--data]\n"
                    "       [--data-mix] [--data-delay N] [--triggers] [--irq-period N] [--issue-width 2]\n"
                    "       [--random-filter S]\n"
                    "       [--expect overflow|trigger|data]...\n");
    return 2;
}

static int parse_args(opts_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    genopts_init(&o->g, "etmv1.3");
    for (int i = 1; i < argc; i++) {
        int r = genopts_parse(&o->g, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--expect") || i + 1 == argc)
            return 2;
        const char *v = argv[++i];
        if (!strcmp(v, "overflow"))
            o->want_overflow = 1;
        else if (!strcmp(v, "trigger"))
            o->want_trigger = 1;
        else if (!strcmp(v, "data"))
            o->want_data = 1;
        else
            return 2;
    }
    return 0;
}

/* ---- Expected data, one record per judge item (item.ref - 1 = its sequence number) ---- */

typedef struct xdata {
    uint8_t data;        /* a transfer belongs to the instruction */
    uint8_t nbytes;
    uint32_t daddr;
    uint8_t bytes[ETM_V1_MAX_DATA_BYTES];
} xdata_t;

/* Data slot tracking: which expected instruction a transfer belongs to. */
typedef struct dtrack {
    int cand_valid;
    uint64_t cand;       /* the newest traced instruction (not an IT folded after another) */
    int owner_valid;     /* transfers go to owner until its last one */
    uint64_t owner;      /* sequence number of the instruction */
    int xfer_open;       /* the last transfer was not its instruction's last: no DAFirst */
    int slot_valid[4];
    uint64_t slot_owner[4];
    uint8_t slot_lanes[4];
    uint8_t slot_off[4];  /* where the transfer's bytes go in its instruction's: values may come out of order */
} dtrack_t;

typedef struct run {
    opts_t *o;
    int data_addr, data_value;
    judge_t j;
    xdata_t *xd;          /* QCAP records, by sequence number */
    dtrack_t dt;
    uint64_t data, triggers, te_rises, untraced, unviewed;
    int prev_ovf, te_prev, last_traced;
} run_t;

/* The data record of a queued item, or NULL when it has been reported. */
static xdata_t *xdata(run_t *r, uint64_t seq)
{
    return judge_at_seq(&r->j, seq) ? &r->xd[seq % QCAP] : NULL;
}

static int wants_data(void *user, const judge_item_t *x)
{
    run_t *r = (run_t *)user;
    return x->ref && r->xd[(x->ref - 1) % QCAP].data && (r->data_addr || r->data_value);
}

static void check_data(void *user, judge_t *j, const judge_item_t *x, const etm_v1el_t *e)
{
    run_t *r = (run_t *)user;
    const xdata_t *w = &r->xd[(x->ref - 1) % QCAP];
    if (r->data_addr && (!e->has_data_addr || (e->data_addr_valid && e->data_addr != w->daddr)))
        judge_fail(j, "instruction at 0x%08" PRIx32 ": data address 0x%08" PRIx32 ", decoded 0x%08" PRIx32, x->addr,
                   w->daddr, e->data_addr);
    if (r->data_value && (e->nbytes != w->nbytes || memcmp(e->bytes, w->bytes, w->nbytes)))
        judge_fail(j, "cycle %" PRIu64 ": instruction at 0x%08" PRIx32 ": %u data bytes expected, %u decoded (or "
                   "different values)", e->cycle, x->addr, w->nbytes, e->nbytes);
    r->data++;
}

/* Values of earlier addresses. */
static void track_value(run_t *r, const etm_in_t *in)
{
    dtrack_t *dt = &r->dt;
    unsigned dds = ETM_DDCTL_SLOT(in->ddctl);
    if (!dds || !dt->slot_valid[dds])
        return;
    xdata_t *x = xdata(r, dt->slot_owner[dds]);
    unsigned off = dt->slot_off[dds];
    if (x)
        for (unsigned lane = 0; lane < 8; lane++)
            if (((dt->slot_lanes[dds] >> lane) & 1) && off < ETM_V1_MAX_DATA_BYTES)
                x->bytes[off++] = (uint8_t)(in->dd >> (8 * lane));
    dt->slot_valid[dds] = 0;
}

/* The cycle's transfer: the first of an instruction (DANSeq after a DALast)
 * belongs to the newest traced instruction if trace is on and ViewData too;
 * later ones, a second DANSeq included, to the same instruction. */
static void track_transfer(run_t *r, const etm_in_t *in, const etm_out_t *out, int te)
{
    dtrack_t *dt = &r->dt;
    unsigned das = ETM_DACTL_SLOT(in->dactl);
    int first = das && ETM_DACTL_NSEQ(in->dactl) && !dt->xfer_open;
    if (das)
        dt->xfer_open = !(ETM_DACTL_LAST(in->dactl) && !ETM_DACTL_UNALIGNED(in->dactl));
    if (first) {
        dt->owner_valid = te && out->view_data && dt->cand_valid;
        dt->owner = dt->cand;
        r->unviewed += te && !out->view_data && dt->cand_valid;
        xdata_t *x = dt->owner_valid ? xdata(r, dt->owner) : NULL;
        if (x) {
            x->data = 1;
            x->daddr = in->da;
        }
    }
    if (das && dt->owner_valid) {
        xdata_t *x = xdata(r, dt->owner);
        if (!dt->xfer_open)
            dt->owner_valid = 0; /* its last transfer */
        dt->slot_valid[das] = 1;
        dt->slot_owner[das] = dt->owner;
        dt->slot_lanes[das] = (uint8_t)ETM_DACTL_BLSEL(in->dactl);
        dt->slot_off[das] = x ? x->nbytes : 0; /* the transfer's bytes follow the earlier transfers' */
        for (unsigned lane = 0; x && lane < 8; lane++)
            if (((dt->slot_lanes[das] >> lane) & 1) && x->nbytes < ETM_V1_MAX_DATA_BYTES)
                x->nbytes++;
    }
}

/* What a cycle executed: its traced instructions (an exception shows as the
 * branch of the instruction before it), then its data slot traffic. */
static void expect_cycle(run_t *r, const etm_in_t *in, const etm_out_t *out, const etm_gen_event_t *ev, unsigned n)
{
    if (r->prev_ovf && !out->overflow)
        judge_resync(&r->j);
    r->prev_ovf = out->overflow;
    r->triggers += out->trigger;
    track_value(r, in);
    int te = out->trace_enable;
    r->te_rises += te && !r->te_prev;
    r->te_prev = te;
    unsigned ninsn = 0;
    for (unsigned k = 0; k < n; k++) {
        if (ev[k].kind == ETM_GEN_EV_EXC_ENTRY && te && r->last_traced) {
            judge_item_t *p = judge_last_insn(&r->j); /* shown as the branch to the handler */
            if (p)
                p->exec = 1;
        }
        if (ev[k].kind != ETM_GEN_EV_INSN)
            continue;
        if (!te) {
            r->untraced++;
            r->last_traced = 0;
            continue;
        }
        r->last_traced = 1;
        judge_item_t x;
        memset(&x, 0, sizeof x);
        x.kind = JX_INSN;
        x.addr = ev[k].addr;
        x.exec = ev[k].passed;
        x.size = ev[k].size;
        uint64_t seq = judge_push(&r->j, &x);
        judge_at_seq(&r->j, seq)->ref = seq + 1;
        memset(&r->xd[seq % QCAP], 0, sizeof r->xd[0]);
        if (!(in->fold && ninsn == 1)) { /* a folded IT never owns data */
            r->dt.cand = seq;
            r->dt.cand_valid = 1;
        }
        ninsn++;
    }
    track_transfer(r, in, out, te);
}

/* A load or store whose transfers or values the run ended before goes out
 * without data (docs/etmv1-encoder.md). */
static void end_data(run_t *r)
{
    for (unsigned k = 1; k < 4 && r->data_value; k++) {
        xdata_t *x = r->dt.slot_valid[k] ? xdata(r, r->dt.slot_owner[k]) : NULL;
        if (x)
            x->data = 0;
    }
    xdata_t *o = r->dt.owner_valid ? xdata(r, r->dt.owner) : NULL;
    if (o)
        o->data = 0;
}

static void run_cycles(run_t *r, etm_ctx_t *etm, etm_gen_t *gen, etm_v1dec_t *dec)
{
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_in_t in;
    etm_out_t out;
    etm_diag_t d;
    for (uint64_t c = 0;; c++) {
        int more = c < r->o->g.cycles;
        etm_err_t de = ETM_OK;
        if (more) {
            unsigned n = etm_gen_next(gen, &in, ev);
            if (etm_step(etm, &in, &out) == ETM_ERR_RULE)
                judge_fail(&r->j, "cycle %" PRIu64 ": the generator broke an interface rule", c);
            expect_cycle(r, &in, &out, ev, n);
        } else {
            if (c == r->o->g.cycles) {
                end_data(r);
                etm_end(etm);
            }
            de = etm_drain(etm, &out);
            r->prev_ovf |= out.overflow;
        }
        if (etm_v1dec_step(dec, &out, &d) != ETM_OK)
            judge_fail(&r->j, "decoder, cycle %" PRIu64 ": %s", c, d.msg);
        if (!more && de == ETM_END)
            break;
    }
    if (etm_v1dec_end(dec, &d) != ETM_OK)
        judge_fail(&r->j, "decoder at the end: %s", d.msg);
}

static int verdict(run_t *r, const etm_stats_t *st)
{
    const opts_t *o = r->o;
    judge_t *j = &r->j;
    /* The trace may end while lost to an overflow: no restart tells. */
    judge_finish(j, r->prev_ovf, o->g.random_filter ? o->g.cycles / 40 : o->g.cycles / 4);
    if (j->triggers_seen != r->triggers)
        judge_fail(j, "%" PRIu64 " triggers fired, %" PRIu64 " decoded", r->triggers, j->triggers_seen);
    if (o->want_overflow && !j->overflows)
        judge_fail(j, "no overflow restart, though this configuration is meant to have some");
    if (o->want_trigger && !j->triggers_seen)
        judge_fail(j, "no trigger decoded, though this configuration is meant to have one");
    if (o->want_data && !r->data)
        judge_fail(j, "no data decoded, though this configuration traces data");
    if (o->g.random_filter && r->te_rises < 10)
        judge_fail(j, "the filter turned trace on only %" PRIu64 " times", r->te_rises);
    printf("%s ETMCR=0x%08" PRIx32 ": %" PRIu64 " cycles, %" PRIu64 " trace bytes, %.3f bits/instruction, %" PRIu64
           " overflows, %" PRIu64 " untraceable\n",
           o->g.preset, o->g.cfg.etmcr, st->cycles, st->bytes,
           st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0, st->overflows,
           st->untraceable);
    if (o->g.random_filter)
        printf("filter: trace turned on %" PRIu64 " times, %" PRIu64 " instructions filtered out, %" PRIu64
               " loads and stores without ViewData\n", r->te_rises, r->untraced, r->unviewed);
    printf("data: %" PRIu64 " instructions with their data\n", r->data);
    return judge_print(j, stdout, "", 1);
}

int main(int argc, char **argv)
{
    static opts_t o;
    static run_t r;
    etm_diag_t d;
    if (parse_args(&o, argc, argv) != 0)
        return usage();
    r.o = &o;
    if (genopts_filter(&o.g, o.g.gp.data) != 0)
        return 2;
    etm_gen_t *gen, *img;
    etm_ctx_t *etm;
    etm_in_t in;
    if (etm_gen_create(&gen, &o.g.gp, &d) != ETM_OK || etm_gen_create(&img, &o.g.gp, &d) != ETM_OK) {
        fprintf(stderr, "generator: %s\n", d.msg);
        return 2;
    }
    if (etm_create(&etm, &o.g.cfg, &d) != ETM_OK) {
        fprintf(stderr, "model configuration: %s\n", d.msg);
        return 2;
    }
    for (uint64_t k = 0; k < o.g.cycles; k++) /* the complete code image */
        etm_gen_next(img, &in, NULL);
    etm_v1_window_t win[2];
    for (unsigned w = 0; w < 2; w++) {
        uint32_t size;
        win[w].bytes = etm_gen_image(img, w, &win[w].base, &size);
        win[w].size = size;
    }
    etm_v1dec_t *dec;
    if (etm_v1dec_create(&dec, &o.g.cfg, 0, ETM_V1DEC_STRICT, &d) != ETM_OK) {
        fprintf(stderr, "decoder: %s\n", d.msg);
        return 2;
    }
    if (judge_init(&r.j, "decoder", QCAP) != 0 || !(r.xd = (xdata_t *)calloc(QCAP, sizeof *r.xd)))
        return 2;
    r.data_addr = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, o.g.cfg.etmcr) & ETM_DATA_ACCESS_ADDR) != 0;
    r.data_value = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, o.g.cfg.etmcr) & ETM_DATA_ACCESS_VALUE) != 0;
    r.j.hooks.user = &r;
    r.j.hooks.v1_wants_data = wants_data;
    r.j.hooks.v1_data = check_data;
    etm_v1dec_on_element(dec, judge_v1_element, &r.j);
    etm_v1dec_set_windows(dec, win, 2);
    run_cycles(&r, etm, gen, dec);
    int failed = verdict(&r, etm_get_stats(etm));
    etm_v1dec_destroy(dec);
    etm_destroy(etm);
    etm_gen_free(gen);
    etm_gen_free(img);
    judge_free(&r.j);
    free(r.xd);
    return failed;
}
