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
} cover_t;

static void run(const etm_gen_params_t *p, uint64_t cycles, cover_t *cv)
{
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

int main(void)
{
    etm_gen_params_t p;
    cover_t cv;

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
    CHECK(cv.dual > 1000);
    CHECK(cv.data > 1000);
    CHECK(cv.unaligned > 10);
    CHECK(cv.triggers > 1000);
    CHECK(cv.big_intnum > 5);
    CHECK(cv.long_gaps > 100);

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
