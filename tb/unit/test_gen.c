/* test_gen.c - the stimulus generator: every cycle is legal for stage check;
 * the signalled program flow agrees with the code image, read back here with a
 * small Thumb-2 decoder of this test's own; each feature the generator promises
 * appears; the same seed gives the same stream. */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

typedef struct image {
    const uint8_t *mem[2];
    uint32_t base[2];
} image_t;

static int img_hw(const image_t *im, uint32_t a, uint16_t *hw)
{
    for (int w = 0; w < 2; w++) {
        if (a - im->base[w] < 0x10000 - 1) {
            uint32_t o = a - im->base[w];
            *hw = (uint16_t)(im->mem[w][o] | im->mem[w][o + 1] << 8);
            return 1;
        }
    }
    return 0;
}

enum cls { C_OTHER, C_DIRECT, C_INDIRECT, C_IT };

/* Size and branch class of the Thumb-2 instruction at a (ARMv7-M encodings). */
static enum cls classify(const image_t *im, uint32_t a, unsigned *size, uint32_t *target)
{
    uint16_t h, h2 = 0;
    *size = 2;
    if (!img_hw(im, a, &h))
        return C_OTHER;
    if ((h >> 11) == 0x1d || (h >> 11) == 0x1e || (h >> 11) == 0x1f) {
        *size = 4;
        img_hw(im, a + 2, &h2);
        if ((h >> 11) == 0x1e && (h2 & 0x8000)) { /* branches and misc control */
            unsigned op1 = (h2 >> 12) & 5;
            if (op1 == 1 || op1 == 5) { /* B.W T4, BL */
                unsigned s = (h >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
                uint32_t imm = s << 24 | ((~(j1 ^ s)) & 1) << 23 | ((~(j2 ^ s)) & 1) << 22 |
                               (uint32_t)(h & 0x3ff) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
                if (s)
                    imm |= 0xFE000000u;
                *target = a + 4 + imm;
                return C_DIRECT;
            }
        }
        if ((h & 0xFFF0) == 0xF8D0 && (h2 >> 12) == 0xF) /* LDR.W pc */
            return C_INDIRECT;
        return C_OTHER;
    }
    if ((h & 0xF000) == 0xD000 && ((h >> 8) & 0xF) < 14) {
        *target = a + 4 + (uint32_t)((int32_t)(int8_t)(h & 0xff) * 2);
        return C_DIRECT;
    }
    if ((h & 0xF800) == 0xE000) {
        int32_t off = h & 0x7ff;
        if (off & 0x400)
            off -= 0x800;
        *target = a + 4 + (uint32_t)(off * 2);
        return C_DIRECT;
    }
    if ((h & 0xF500) == 0xB100) {
        *target = a + 4 + (((h >> 9) & 1u) << 6 | ((h >> 3) & 0x1fu) << 1);
        return C_DIRECT;
    }
    if ((h & 0xFF00) == 0x4700 || (h & 0xFF00) == 0xBD00) /* BX, BLX (reg), POP {pc} */
        return C_INDIRECT;
    if ((h & 0xFF00) == 0xBF00 && (h & 0xf))
        return C_IT;
    return C_OTHER;
}

typedef struct cover {
    uint64_t entries, returns, cancels, folds, dual, it, istall, indirect, direct_taken, not_taken;
    uint64_t tail_chains, nested, big_intnum, unaligned, data, triggers, long_gaps;
    /* data_mix, data_delay */
    uint64_t big_endian, narrow, pc_first, fails, imprecise, late, reordered, xfer_errors;
} cover_t;

/* What the data slot carries against what the generator says it presented:
 * the register value rebuilt here from the memory bytes in their lanes, in
 * address order (not by the model's rotation), and the order of the values. */
static struct {
    int valid[4];
    uint64_t acycle[4], seq[4];
    etm_gen_xfer_t x[4];
    uint32_t lanes[4];
    uint64_t next_seq;
    /* unaligned accesses: the halves' bytes, in either order; pr[slot] is the
     * record of the access whose half waits on the slot */
    struct { uint64_t bytes[2]; unsigned n[2], got; etm_gen_xfer_t x; } pair[8];
    unsigned pr[4], last_pair;
} DS;

static void data_cover(etm_gen_t *g, const etm_in_t *in, uint64_t c, cover_t *cv)
{
    unsigned dds = ETM_DDCTL_SLOT(in->ddctl);
    if (dds && DS.valid[dds]) {
        const etm_gen_xfer_t *x = &DS.x[dds];
        cv->late += c - DS.acycle[dds] > 2;
        for (unsigned s = 1; s < 4; s++)
            cv->reordered += DS.valid[s] && s != dds && DS.seq[s] < DS.seq[dds];
        cv->fails += ETM_DDCTL_STREX_FAIL(in->ddctl);
        cv->imprecise += ETM_DDCTL_IMPRECISE(in->ddctl);
        if (x->fail != ETM_DDCTL_STREX_FAIL(in->ddctl) || x->imprecise != ETM_DDCTL_IMPRECISE(in->ddctl))
            cv->xfer_errors++;
        /* Bytes of the lanes in address order. */
        uint64_t bytes = 0;
        unsigned n = 0;
        for (unsigned l = 0; l < 8; l++)
            if ((DS.lanes[dds] >> l) & 1)
                bytes |= ((in->dd >> (8 * l)) & 0xFFu) << (8 * n++);
        if (x->half) { /* the halves' values may come in either order */
            unsigned h = x->half - 1, r = DS.pr[dds];
            DS.pair[r].bytes[h] = bytes;
            DS.pair[r].n[h] = n;
            DS.pair[r].got |= 1u << h;
            x = &DS.pair[r].x;
            n = 0;
            if (DS.pair[r].got == 3) {
                bytes = DS.pair[r].bytes[0] | DS.pair[r].bytes[1] << (8 * DS.pair[r].n[0]);
                n = DS.pair[r].n[0] + DS.pair[r].n[1];
            }
        }
        if (n) {
            uint32_t v = 0;
            for (unsigned k = 0; k < n; k++)
                v |= (uint32_t)((bytes >> (8 * k)) & 0xFFu) << (8 * (x->be ? n - 1 - k : k));
            if (n != x->bytes || v != x->value)
                cv->xfer_errors++;
        }
        DS.valid[dds] = 0;
    }
    etm_gen_xfer_t x;
    etm_gen_last_xfer(g, &x);
    unsigned das = ETM_DACTL_SLOT(in->dactl);
    if (!!das != x.valid)
        cv->xfer_errors++;
    if (!das)
        return;
    cv->big_endian += x.be && x.half < 2;
    cv->narrow += x.bytes < 4 && x.half < 2;
    cv->pc_first += !x.first && ETM_DACTL_NSEQ(in->dactl);
    if (x.half == 1) {
        DS.last_pair = (DS.last_pair + 1) % 8;
        memset(&DS.pair[DS.last_pair], 0, sizeof DS.pair[0]);
        DS.pair[DS.last_pair].x = x;
    }
    if (x.half)
        DS.pr[das] = DS.last_pair;
    DS.valid[das] = 1;
    DS.acycle[das] = c;
    DS.seq[das] = DS.next_seq++;
    DS.x[das] = x;
    DS.lanes[das] = ETM_DACTL_BLSEL(in->dactl);
}

static void run(const etm_gen_params_t *p, uint64_t cycles, cover_t *cv)
{
    memset(&DS, 0, sizeof DS);
    etm_gen_t *g;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, p, &d), ETM_OK);
    if (!g)
        return;
    etm_config_t cfg;
    etm_config_default(&cfg);
    cfg.issue_width = p->issue_width;
    etm_check_t chk;
    etm_check_init(&chk, &cfg);
    image_t im;
    im.mem[0] = etm_gen_image(g, 0, &im.base[0], NULL);
    im.mem[1] = etm_gen_image(g, 1, &im.base[1], NULL);
    memset(cv, 0, sizeof *cv);
    uint32_t expect = 0, prev_addr = 0;
    enum cls prev_cls = C_OTHER;
    uint32_t prev_target = 0;
    int have_prev = 0, flow_errors = 0, class_errors = 0, size_errors = 0, exc_between = 0;
    int depth = 0, last_was_exit = 0;
    unsigned idle_run = 0;
    for (uint64_t c = 0; c < cycles; c++) {
        etm_in_t in;
        etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
        unsigned n = etm_gen_next(g, &in, ev);
        etm_rule_t fired[4];
        if (etm_check_step(&chk, &in, fired, 4) && chk.total < 5)
            fprintf(stderr, "cycle %llu: %s\n", (unsigned long long)c, etm_rule_name(fired[0]));
        cv->istall += in.istall;
        cv->folds += in.fold;
        cv->dual += in.ivalid1;
        cv->triggers += in.trigger != 0;
        cv->data += ETM_DACTL_SLOT(in.dactl) != 0;
        cv->unaligned += ETM_DACTL_UNALIGNED(in.dactl);
        data_cover(g, &in, c, cv);
        idle_run = in.ivalid ? 0 : idle_run + 1;
        if (idle_run == 50)
            cv->long_gaps++;
        if (in.intstat == ETM_INTSTAT_EXIT)
            last_was_exit = 1;
        for (unsigned k = 0; k < n; k++) {
            const etm_gen_event_t *e = &ev[k];
            if (e->kind == ETM_GEN_EV_EXC_ENTRY) {
                cv->entries++;
                cv->big_intnum += e->excnum > 255;
                if (last_was_exit)
                    cv->tail_chains++;
                else
                    depth++;
                if (depth >= 2)
                    cv->nested++;
                exc_between = 1;
                last_was_exit = 0;
                continue;
            }
            if (e->kind == ETM_GEN_EV_EXC_RETURN) {
                cv->returns++;
                depth--;
                exc_between = 1;
                last_was_exit = 0;
                continue;
            }
            if (e->kind == ETM_GEN_EV_CANCEL) {
                cv->cancels++;
                continue;
            }
            /* An instruction: is it where the flow says, and what the image holds? */
            unsigned size;
            uint32_t target = 0;
            enum cls cl = classify(&im, e->addr, &size, &target);
            if (size != e->size)
                size_errors++;
            int ibranch = e->slot ? in.ibranch1 : in.ibranch;
            int iindbr = e->slot ? in.iindbr1 : in.iindbr;
            int second_of_fold = in.fold && e->is_it && e->addr == in.ia + 2;
            if (have_prev && !second_of_fold) {
                if (!ibranch && e->addr != expect)
                    flow_errors++;
                if (ibranch && !exc_between) {
                    /* Reached by a branch: the previous instruction's class must say so. */
                    if (prev_cls == C_DIRECT && (iindbr || e->addr != prev_target))
                        class_errors++;
                    if (prev_cls == C_INDIRECT && !iindbr)
                        class_errors++;
                    if (prev_cls == C_OTHER || prev_cls == C_IT)
                        class_errors++;
                    if (prev_cls == C_DIRECT)
                        cv->direct_taken++;
                    else
                        cv->indirect++;
                }
                if (prev_cls == C_DIRECT && !ibranch && !exc_between)
                    cv->not_taken++;
            }
            cv->it += cl == C_IT;
            expect = e->addr + e->size;
            prev_addr = e->addr;
            prev_cls = cl;
            prev_target = target;
            have_prev = 1;
            exc_between = 0;
        }
    }
    (void)prev_addr;
    CHECK_EQ(chk.total, 0);
    CHECK_EQ(flow_errors, 0);
    CHECK_EQ(class_errors, 0);
    CHECK_EQ(size_errors, 0);
    etm_gen_free(g);
}

static uint64_t stream_hash(const etm_gen_params_t *p, uint64_t cycles)
{
    etm_gen_t *g;
    etm_diag_t d;
    if (etm_gen_create(&g, p, &d) != ETM_OK)
        return 0;
    uint64_t h = 1469598103934665603ull;
    for (uint64_t c = 0; c < cycles; c++) {
        etm_in_t in;
        etm_gen_next(g, &in, NULL);
        for (size_t s = 0; s < etm_in_signal_count; s++)
            h = (h ^ etm_signal_get(&etm_in_signals[s], &in)) * 1099511628211ull;
    }
    etm_gen_free(g);
    return h;
}

/* ATB back-pressure: over 10^6 cycles the share of cycles with ATREADY low is
 * the asked percentage and bursts last the asked mean, within a few percent;
 * the core's side of the stimulus is the same as without it; 0 never stalls. */
static void test_atb_stall(void)
{
    static const struct { unsigned pct, burst; } cases[] = { { 20, 1 }, { 40, 16 }, { 70, 200 } };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        etm_atb_stall_t st;
        etm_atb_stall_init(&st, cases[k].pct, cases[k].burst, 1234 + k);
        uint64_t low = 0, bursts = 0, n = 1000000;
        int prev = 0;
        for (uint64_t c = 0; c < n; c++) {
            int s = etm_atb_stall_next(&st);
            low += (uint64_t)s;
            bursts += (uint64_t)(s && !prev);
            prev = s;
        }
        double share = 100.0 * (double)low / (double)n, mean = bursts ? (double)low / (double)bursts : 0;
        CHECK(share > cases[k].pct * 0.93 && share < cases[k].pct * 1.07);
        CHECK(mean > cases[k].burst * 0.9 && mean < cases[k].burst * 1.1);
    }
    etm_atb_stall_t none;
    etm_atb_stall_init(&none, 0, 1, 5);
    int any = 0;
    for (int c = 0; c < 100000; c++)
        any |= etm_atb_stall_next(&none);
    CHECK_EQ(any, 0);
    /* The generator: only ATREADY differs with back-pressure on. */
    etm_gen_params_t a, b;
    etm_gen_params_default(&a);
    a.seed = 9;
    b = a;
    b.atb_stall_pct = 50;
    b.atb_burst = 4;
    etm_gen_t *ga, *gb;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&ga, &a, &d), ETM_OK);
    CHECK_EQ(etm_gen_create(&gb, &b, &d), ETM_OK);
    uint64_t stalled = 0, differ = 0;
    for (int c = 0; c < 100000; c++) {
        etm_in_t ia, ib;
        etm_gen_next(ga, &ia, NULL);
        etm_gen_next(gb, &ib, NULL);
        CHECK_EQ(ia.atstall, 0);
        stalled += ib.atstall;
        ib.atstall = 0;
        for (size_t k = 0; k < etm_in_signal_count; k++)
            differ += etm_signal_get(&etm_in_signals[k], &ia) != etm_signal_get(&etm_in_signals[k], &ib);
    }
    CHECK_EQ(differ, 0);
    CHECK(stalled > 40000 && stalled < 60000);
    etm_gen_free(ga);
    etm_gen_free(gb);
    b.atb_stall_pct = 100;
    CHECK_EQ(etm_gen_create(&gb, &b, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "at most 99");
}

int main(void)
{
    etm_gen_params_t p;
    cover_t cv;
    test_atb_stall();
    etm_gen_t *g0;
    etm_diag_t d0;

    etm_gen_params_default(&p);
    run(&p, 1000000, &cv);
    CHECK(cv.entries > 100);
    CHECK(cv.returns > 100);
    CHECK(cv.cancels > 5);
    CHECK(cv.tail_chains > 5);
    CHECK(cv.nested > 5);
    CHECK(cv.folds > 100);
    CHECK(cv.it > 1000);
    CHECK(cv.istall > 1000);
    CHECK(cv.indirect > 1000);
    CHECK(cv.direct_taken > 1000);
    CHECK(cv.not_taken > 1000);
    CHECK_EQ(cv.dual, 0);
    CHECK_EQ(cv.data, 0);
    CHECK_EQ(cv.triggers, 0);
    printf("default: %llu entries, %llu returns, %llu cancels, %llu tail-chains, %llu folds, %llu IT, "
           "%llu indirect, %llu direct taken, %llu not taken\n",
           (unsigned long long)cv.entries, (unsigned long long)cv.returns, (unsigned long long)cv.cancels,
           (unsigned long long)cv.tail_chains, (unsigned long long)cv.folds, (unsigned long long)cv.it,
           (unsigned long long)cv.indirect, (unsigned long long)cv.direct_taken, (unsigned long long)cv.not_taken);

    etm_gen_params_default(&p);
    p.seed = 77;
    p.issue_width = 2;
    p.data = 1;
    p.triggers = 1;
    p.sleep_pct = 3;
    p.max_intnum = 511;
    p.thread_base = 0xF0010000;
    p.handler_base = 0x00000000;
    run(&p, 1000000, &cv);
    CHECK_EQ(cv.xfer_errors, 0); /* each transfer's register view is its lanes' bytes */
    CHECK(cv.dual > 1000);
    CHECK(cv.data > 1000);
    CHECK(cv.unaligned > 10);
    CHECK(cv.triggers > 1000);
    CHECK(cv.big_intnum > 5);
    CHECK(cv.long_gaps > 100);

    /* Varied data transfers with late values: legal, as the generator says,
     * and every kind there. */
    etm_gen_params_default(&p);
    p.seed = 78;
    p.data = 1;
    p.data_mix = 1;
    p.data_delay = 4;
    run(&p, 500000, &cv);
    CHECK_EQ(cv.xfer_errors, 0);
    CHECK(cv.data > 1000);
    CHECK(cv.unaligned > 10);
    CHECK(cv.big_endian > 100);
    CHECK(cv.narrow > 100);
    CHECK(cv.pc_first > 10);
    CHECK(cv.fails > 10);
    CHECK(cv.imprecise > 10);
    CHECK(cv.late > 1000);
    CHECK(cv.reordered > 100);
    printf("data mix: %llu transfers, %llu unaligned, %llu big-endian, %llu byte/halfword, %llu PC first, "
           "%llu failed STREX, %llu imprecise aborts, %llu late values, %llu values passing an earlier address\n",
           (unsigned long long)cv.data, (unsigned long long)cv.unaligned, (unsigned long long)cv.big_endian,
           (unsigned long long)cv.narrow, (unsigned long long)cv.pc_first, (unsigned long long)cv.fails,
           (unsigned long long)cv.imprecise, (unsigned long long)cv.late, (unsigned long long)cv.reordered);
    p.data_delay = 17;
    CHECK_EQ(etm_gen_create(&g0, &p, &d0), ETM_ERR_ARG);

    etm_gen_params_default(&p);
    p.seed = 5;
    CHECK_EQ(stream_hash(&p, 100000), stream_hash(&p, 100000));
    uint64_t h5 = stream_hash(&p, 100000);
    p.seed = 6;
    CHECK(stream_hash(&p, 100000) != h5);

    etm_gen_params_default(&p);
    p.max_intnum = 600;
    etm_gen_t *g;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, &p, &d), ETM_ERR_ARG);
    p.max_intnum = 100;
    p.thread_base = 0x1234;
    CHECK_EQ(etm_gen_create(&g, &p, &d), ETM_ERR_ARG);
    return test_report("test_gen");
}
