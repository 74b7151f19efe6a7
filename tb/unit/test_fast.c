/* test_fast.c - the speed engine changes nothing (model/core/src/fast.h, its
 * contract): the repeat path (a cycle that leaves the state as it found it,
 * repeated) and the plain-cycle path (a cycle that sends no packet of its own,
 * run through the stages' plain steps). Two instances of every preset, one
 * with the engine (the default) and one without it (the reference cycle
 * alone), step the same stimulus: the golden vectors' real programs (QEMU
 * runs of vectors/, given as arguments), and generated stimulus (idle
 * stretches, busy code, ATB back-pressure with overflows, data, triggers, branch
 * broadcast, PH_EAGER, a trigger that fires at once, reprogramming through the
 * APB, an external port taken between cycles, a reset half way); every cycle's
 * return value, outputs and rules, the statistics, the FIFO level and the
 * untraced-overflow flag must agree, and at the end every register reads the
 * same and the drained trace is the same. Both paths must also be taken: idle
 * stimulus repeats most of its cycles, and an ETMv3 instance without data trace
 * runs most cycles as plain ones. The watching instance's path (etm_watch_step,
 * etm_watch_repeat) is held to a watching instance without it, and the
 * scoreboard fed whole slices (etm_verify_cycles, which repeats idle runs at
 * once) to one fed cycle by cycle, on the model's trace and on a trace with a
 * byte taken out. The same with records (PKT_QUEUE), whose plain-cycle path
 * has a form of its own. */
#include <stddef.h>
#include <stdlib.h>

#include "etm/etm.h"
#include "etm/vector.h"
#include "etm/verify.h"
#include "etm/watch.h"
#include "test.h"

enum { CYCLES = 30000 };

typedef struct variant {
    const char *name;
    unsigned sleep, atb_stall, atb_burst, stall_pct, irq_period;
    int data, triggers, cycle_accurate, external_port, reprogram, reset;
    uint32_t etmcr_or;   /* more ETMCR bits (branch broadcast) */
    int ph_eager;        /* PH_EAGER=1 */
    uint32_t trigger;    /* ETMTRIGGER when nonzero */
    unsigned fifo_depth; /* FIFO_DEPTH when nonzero (PORT_BYTES 1) */
    int rule_breaks;     /* now and then ETMFINDBR without ETMFLUSH, ETMIINDBR without ETMIBRANCH */
    int reduced1;        /* ETMv3.5's reduced-function counter 1 (ETMCCER[27]), counting every cycle */
} variant_t;

static const variant_t variants[] = {
    { "idle", 60, 0, 1, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "idle, cycle-accurate", 60, 0, 1, 10, 300, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "idle, bursty ATREADY", 60, 40, 16, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "stalls, triggers", 20, 0, 1, 60, 100, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "data", 40, 10, 4, 10, 300, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "external port", 60, 0, 1, 10, 300, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "reprogrammed, reset", 60, 0, 1, 10, 300, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0 },
    { "busy", 0, 0, 1, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "busy, cycle-accurate", 0, 0, 1, 10, 300, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    { "busy, branch broadcast, PH_EAGER", 0, 0, 1, 30, 200, 0, 0, 0, 0, 0, 0, 1u << 8, 1, 0, 0, 0, 0 },
    { "busy, cycle-accurate, PH_EAGER", 0, 0, 1, 30, 200, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0 },
    { "busy, trigger at once", 0, 0, 1, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0x6F, 0, 0, 0 },
    { "busy, overflowing", 0, 70, 8, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 24, 0, 0 },
    { "busy, cycle-accurate, overflowing", 0, 70, 8, 10, 300, 0, 0, 1, 0, 0, 0, 0, 0, 0, 24, 0, 0 },
    { "busy, rules broken", 0, 0, 1, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
    { "busy, reduced counter 1", 0, 0, 1, 10, 300, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
    { "idle, reduced counter 1, cycle-accurate", 60, 0, 1, 10, 300, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
};

static unsigned long long repeated_total, plain_total, cycles_total;

/* PKT_QUEUE of the instances run() makes (records: the plain-cycle path and
 * the repeat path have forms of their own). */
static unsigned records_q;

static void same_out(const etm_out_t *a, const etm_out_t *b, const char *what, unsigned long cyc)
{
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        const etm_signal_t *s = &etm_out_signals[i];
        if (s->kind == ETM_SIG_BYTES) {
            int same = a->v3_count == b->v3_count && !memcmp(a->v3_bytes, b->v3_bytes, a->v3_count);
            if (!same)
                fprintf(stderr, "%s, cycle %lu: port bytes differ (%u, %u)\n", what, cyc, a->v3_count, b->v3_count);
            CHECK(same);
        } else if (etm_signal_get(s, a) != etm_signal_get(s, b)) {
            fprintf(stderr, "%s, cycle %lu: %s %llx with the repeat path, %llx without\n", what, cyc, s->name,
                    (unsigned long long)etm_signal_get(s, a), (unsigned long long)etm_signal_get(s, b));
            CHECK(0);
        }
    }
}

static int same_state(etm_ctx_t *a, etm_ctx_t *b, const char *what, unsigned long cyc)
{
    int ok = !memcmp(etm_get_stats(a), etm_get_stats(b), sizeof(etm_stats_t)) &&
             etm_last_rule_mask(a) == etm_last_rule_mask(b) && etm_fifo_level(a) == etm_fifo_level(b) &&
             etm_untraced_overflow(a) == etm_untraced_overflow(b);
    if (!ok)
        fprintf(stderr, "%s, cycle %lu: statistics, rules, FIFO level or ETMSR[0] differ\n", what, cyc);
    char part[64];
    if (ok && etm_state_diff(a, b, part, sizeof part)) {
        fprintf(stderr, "%s, cycle %lu: the state differs with the speed engine: %s\n", what, cyc, part);
        ok = 0;
    }
    CHECK(ok);
    return ok;
}

/* The variant's configuration of the preset; 0 when the preset cannot have it. */
static int variant_config(const char *preset, const variant_t *v, etm_config_t *cfg)
{
    CHECK_EQ(etm_config_preset(cfg, preset), ETM_OK);
    if (v->cycle_accurate)
        cfg->etmcr |= 1u << 12;
    if (v->data)
        cfg->etmcr |= 3u << 2;
    if (v->external_port)
        cfg->port_bytes = 0;
    cfg->etmcr |= v->etmcr_or;
    if (v->ph_eager)
        cfg->ph_eager = 1;
    if (v->trigger)
        cfg->etmtrigger = v->trigger;
    if (v->fifo_depth) {
        cfg->fifo_depth = v->fifo_depth;
        cfg->port_bytes = 1;
    }
    cfg->pkt_queue = records_q;
    if (v->reduced1) {
        unsigned version = 0;
        etm_config_version(cfg, &version, NULL);
        if (version < ETM_V(3, 5) || !ETM_FIELD_GET(ETM_CCR_COUNTERS, cfg->etmccr))
            return 0; /* only ETMv3.5 has it */
        cfg->etmccer |= 1u << 27;
        cfg->etmcntrldvr[0] = 37; /* it reloads every 38 cycles */
    }
    return 1;
}

/* The variant's generator of stimulus. */
static etm_gen_t *variant_gen(const variant_t *v)
{
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.seed = 7 + (uint64_t)(v - variants);
    gp.sleep_pct = v->sleep;
    gp.atb_stall_pct = v->atb_stall;
    gp.atb_burst = v->atb_burst;
    gp.stall_pct = v->stall_pct;
    gp.irq_period = v->irq_period;
    gp.data = v->data;
    gp.triggers = v->triggers;
    etm_gen_t *g = NULL;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, &gp, &d), ETM_OK);
    return g;
}

/* Cycle cyc's inputs as the variant makes them: generated, with the rules it
 * breaks, and the APB transfers of a reprogramming under way. */
static void variant_inputs(const variant_t *v, etm_gen_t *g, etm_ctx_t *a, etm_apb_driver_t *drv, int *programming,
                           unsigned long cyc, etm_in_t *in)
{
    etm_gen_next(g, in, NULL);
    if (v->rule_breaks && cyc % 97 == 50) { /* a rule the plain path must not miss */
        in->findbr = 1;
        in->flush = 0;
    }
    if (v->rule_breaks && cyc % 89 == 20 && in->ivalid) {
        in->ibranch = 0;
        in->iindbr = 1;
    }
    if (v->reprogram && cyc % 7000 == 3000 && !*programming) {
        static etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS]; /* the driver reads them on later cycles */
        size_t n = etm_program_ops(etm_get_config(a), etm_get_config(a), ops, ETM_PROGRAM_MAX_OPS);
        CHECK(n > 0);
        etm_apb_driver_start(drv, ops, n);
        *programming = 1;
    }
    if (*programming)
        etm_apb_drive(drv, in);
}

/* CYCLES cycles of the variant through a (with the engine) and b (without):
 * every cycle the same return value, outputs, external-port bytes and state. */
static void variant_cycles(const variant_t *v, etm_gen_t *g, etm_ctx_t *a, etm_ctx_t *b, const char *what)
{
    etm_apb_driver_t drv;
    memset(&drv, 0, sizeof drv);
    int programming = 0;
    for (unsigned long cyc = 0; cyc < CYCLES; cyc++) {
        etm_in_t in;
        variant_inputs(v, g, a, &drv, &programming, cyc, &in);
        if (v->reset && cyc == CYCLES / 2) {
            etm_reset(a);
            etm_reset(b);
        }
        etm_out_t oa, ob;
        etm_err_t ea = etm_step(a, &in, &oa), eb = etm_step(b, &in, &ob);
        if (ea != eb)
            fprintf(stderr, "%s, cycle %lu: etm_step returned %d with the repeat path, %d without\n", what, cyc,
                    (int)ea, (int)eb);
        CHECK_EQ(ea, eb);
        same_out(&oa, &ob, what, cyc);
        if (programming) {
            etm_apb_observe(&drv, &oa);
            programming = etm_apb_busy(&drv);
        }
        if (v->external_port && cyc % 3 == 0) {
            uint8_t ba[64], bb[64];
            unsigned na = etm_port_take(a, ba, 5), nb = etm_port_take(b, bb, 5);
            CHECK(na == nb && !memcmp(ba, bb, na));
        }
        if (!same_state(a, b, what, cyc))
            break;
    }
}

/* The end of trace and the drain alike, and every register reads the same. */
static void same_end(const variant_t *v, etm_ctx_t *a, etm_ctx_t *b, const char *what)
{
    CHECK_EQ(etm_end(a), etm_end(b));
    for (int k = 0; k < 100000; k++) {
        etm_out_t oa, ob;
        etm_err_t ea = etm_drain(a, &oa), eb = etm_drain(b, &ob);
        CHECK_EQ(ea, eb);
        same_out(&oa, &ob, what, CYCLES + (unsigned long)k);
        if (ea != ETM_OK)
            break;
    }
    if (v->external_port) {
        uint8_t ba[4096], bb[4096];
        unsigned na = etm_port_take(a, ba, sizeof ba), nb = etm_port_take(b, bb, sizeof bb);
        CHECK(na == nb && !memcmp(ba, bb, na));
    }
    same_state(a, b, what, CYCLES);
    for (unsigned off = 0; off < 0x1000; off += 4)
        for (int dbg = 0; dbg < 2; dbg++)
            if (etm_reg_peek(a, off, dbg) != etm_reg_peek(b, off, dbg)) {
                fprintf(stderr, "%s: register 0x%03x reads differently\n", what, off);
                CHECK(0);
            }
}

/* The engine took its share: without data trace, busy code runs most of its
 * cycles as plain ones (ETMv3); with idle stretches of 60 per mille of
 * instructions, the repeat path takes most of them, with records or without. */
static void engine_took_its_share(const etm_config_t *cfg, const variant_t *v, etm_ctx_t *a, etm_ctx_t *b,
                                  const char *what)
{
    unsigned long rep0 = (unsigned long)etm_repeated_cycles(a);
    unsigned long plain = (unsigned long)etm_plain_cycles(a);
    CHECK_EQ(etm_repeated_cycles(b), 0);
    CHECK_EQ(etm_plain_cycles(b), 0);
    unsigned version = 0;
    etm_config_version(cfg, &version, NULL);
    int v3 = ETM_V_MAJOR(version) == 3;
    unsigned long want = v->sleep || v->fifo_depth || records_q ? CYCLES / 20 : CYCLES / 2;
    if (v3 && !v->data && (plain <= want || getenv("REPEAT_VERBOSE")))
        fprintf(stderr, "%s: %lu of %u plain\n", what, plain, (unsigned)CYCLES);
    if (v3 && !v->data)
        CHECK(plain > want);
    if (!v3 || v->data)
        CHECK_EQ(plain, 0);
    int repeats = v->sleep >= 60 && !v->atb_stall && !v->reduced1; /* a counter counting every cycle moves */
    if (repeats && (rep0 <= CYCLES / 4 || getenv("REPEAT_VERBOSE")))
        fprintf(stderr, "%s: %lu of %u repeated\n", what, rep0, (unsigned)CYCLES);
    if (repeats)
        CHECK(rep0 > CYCLES / 4);
    repeated_total += rep0;
    plain_total += plain;
    cycles_total += CYCLES;
}

static void run(const char *preset, const variant_t *v)
{
    char what[160];
    snprintf(what, sizeof what, "%s, %s%s", preset, v->name, records_q ? ", records" : "");
    etm_config_t cfg;
    etm_diag_t d;
    if (!variant_config(preset, v, &cfg))
        return;
    etm_ctx_t *a = NULL, *b = NULL;
    if (etm_create(&a, &cfg, &d) != ETM_OK)
        return; /* the part does not have it (an ETMv1 port with PORT_BYTES 0, ETM-M3 cycle accuracy ...) */
    CHECK_EQ(etm_create(&b, &cfg, &d), ETM_OK);
    etm_gen_t *g = variant_gen(v);
    if (b && g) {
        etm_set_repeat_path(b, 0);
        etm_set_plain_path(b, 0);
        variant_cycles(v, g, a, b, what);
        engine_took_its_share(&cfg, v, a, b, what);
        same_end(v, a, b, what);
    }
    etm_gen_free(g);
    etm_destroy(a);
    etm_destroy(b);
}

/* A preset, cycle-accurate if ca. */
/* The preset, cycle-accurate or not; records (PKT_QUEUE) as the preset has
 * them when records is set, else none. */
static etm_config_t preset_config(const char *preset, int ca, int records)
{
    etm_config_t cfg;
    CHECK_EQ(etm_config_preset(&cfg, preset), ETM_OK);
    if (ca)
        cfg.etmcr |= 1u << 12;
    if (!records)
        cfg.pkt_queue = 0;
    return cfg;
}

/* n records of generated stimulus with WFI gaps after one instruction in
 * five; with the sink holding ATREADY low atb_stall percent of the cycles, in
 * long bursts. */
static etm_in_t *stalled_idle_stimulus(uint64_t seed, size_t n, unsigned atb_stall)
{
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.sleep_pct = 200;
    gp.seed = seed;
    gp.atb_stall_pct = atb_stall;
    gp.atb_burst = 200;
    etm_gen_t *g = NULL;
    etm_diag_t d;
    etm_in_t *rec = (etm_in_t *)calloc(n, sizeof *rec);
    CHECK_EQ(etm_gen_create(&g, &gp, &d), ETM_OK);
    if (!g || !rec) {
        free(rec);
        etm_gen_free(g);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        etm_gen_next(g, &rec[i], NULL);
    etm_gen_free(g);
    return rec;
}

static etm_in_t *idle_stimulus(uint64_t seed, size_t n) { return stalled_idle_stimulus(seed, n, 0); }

/* Watching instances with and without the speed paths, cycle by cycle and in
 * runs (etm_watch_repeat): the same seen records, rules and statistics. */
static void test_watch(const char *preset, int ca, int records)
{
    etm_config_t cfg = preset_config(preset, ca, records);
    etm_diag_t d;
    etm_ctx_t *a = NULL, *b = NULL;
    CHECK_EQ(etm_watch_create(&a, &cfg, 0, &d), ETM_OK);
    CHECK_EQ(etm_watch_create(&b, &cfg, 0, &d), ETM_OK);
    enum { N = 40000, SLICE = 512 };
    etm_in_t *rec = idle_stimulus(11, N);
    if (!a || !b || !rec)
        return;
    etm_set_repeat_path(b, 0);
    etm_set_plain_path(b, 0);
    etm_seen_t sa, sb;
    memset(&sa, 0, sizeof sa);
    unsigned long runs = 0;
    for (unsigned i = 0; i < N;) {
        size_t left = N - i < SLICE - i % SLICE ? N - i : SLICE - i % SLICE; /* to the slice's end or the last */
        size_t k = (i % SLICE) ? etm_watch_repeat(a, &rec[i], left) : 0;
        for (size_t j = 0; j < k; j++) { /* each repeated cycle saw what the last one saw */
            CHECK_EQ(etm_watch_step(b, &rec[i + j], &sb), ETM_OK);
            CHECK(!memcmp(&sa, &sb, sizeof sa));
        }
        runs += k;
        i += (unsigned)k;
        if (k)
            continue;
        etm_err_t ea = etm_watch_step(a, &rec[i], &sa), eb = etm_watch_step(b, &rec[i], &sb);
        CHECK_EQ(ea, eb);
        CHECK(!memcmp(&sa, &sb, sizeof sa));
        i++;
    }
    CHECK(!memcmp(etm_get_stats(a), etm_get_stats(b), sizeof(etm_stats_t)));
    CHECK(runs > N / 2);
    CHECK(etm_plain_cycles(a) > N / 20); /* the instructions between the idle stretches */
    CHECK_EQ(etm_repeated_cycles(b), 0);
    CHECK_EQ(etm_plain_cycles(b), 0);
    free(rec);
    etm_destroy(a);
    etm_destroy(b);
}

/* The scoreboard over the model's trace of idle stimulus, fed cycle by cycle
 * and in slices: the same result, passing; and with the byte at `cut` taken
 * out of the trace, the same first failure. */
static void test_verify_slices(const char *preset, int ca, int records, size_t cut)
{
    etm_config_t cfg = preset_config(preset, ca, records);
    etm_diag_t d;
    etm_ctx_t *etm = NULL;
    CHECK_EQ(etm_create(&etm, &cfg, &d), ETM_OK);
    enum { N = 60000, SLICE = 4096 };
    etm_in_t *rec = idle_stimulus(12, N);
    if (!etm || !rec)
        return;
    uint8_t *bytes = (uint8_t *)malloc((size_t)N * 4 + 4096);
    size_t mark[N / SLICE + 2], nb = 0;
    etm_out_t out;
    for (unsigned i = 0; i < N; i++) {
        etm_step(etm, &rec[i], &out);
        memcpy(bytes + nb, out.v3_bytes, out.v3_count);
        nb += out.v3_count;
        if (i % SLICE == SLICE - 1 || i + 1 == N)
            mark[i / SLICE] = nb;
    }
    etm_end(etm);
    while (etm_drain(etm, &out) == ETM_OK) {
        memcpy(bytes + nb, out.v3_bytes, out.v3_count);
        nb += out.v3_count;
    }
    if (cut < nb) { /* the byte at cut taken out */
        memmove(bytes + cut, bytes + cut + 1, nb - cut - 1);
        nb--;
        for (unsigned k = 0; k < N / SLICE + 1; k++)
            if (mark[k] > cut)
                mark[k]--;
    }
    etm_verify_t *v[2];
    for (int m = 0; m < 2; m++) {
        CHECK_EQ(etm_verify_create(&v[m], &cfg, NULL, &d), ETM_OK);
        if (!v[m])
            return;
        size_t fed = 0;
        for (unsigned i = 0; i < N; i += SLICE) {
            unsigned n = N - i < SLICE ? N - i : SLICE;
            if (m)
                etm_verify_cycles(v[m], &rec[i], n);
            else
                for (unsigned j = 0; j < n; j++)
                    etm_verify_cycle(v[m], &rec[i + j]);
            etm_verify_bytes(v[m], bytes + fed, mark[i / SLICE] - fed, 0);
            fed = mark[i / SLICE];
        }
        etm_verify_bytes(v[m], bytes + fed, nb - fed, 0);
        etm_verify_end(v[m], etm_untraced_overflow(etm));
    }
    const etm_verify_result_t *ra = etm_verify_result(v[0]), *rb = etm_verify_result(v[1]);
    CHECK(!memcmp(ra, rb, offsetof(etm_verify_result_t, first)));
    CHECK_EQ(ra->cycles, (uint64_t)N);
    CHECK_EQ(ra->failures, (uint64_t)(cut < nb + 1));
    if (ra->failures && rb->failures) {
        CHECK_EQ(ra->first.rule, rb->first.rule);
        CHECK_EQ(ra->first.cycle, rb->first.cycle);
        CHECK_EQ(ra->first.offset, rb->first.offset);
        CHECK(!strcmp(ra->first.text, rb->first.text));
    }
    etm_verify_destroy(v[0]);
    etm_verify_destroy(v[1]);
    free(bytes);
    free(rec);
    etm_destroy(etm);
}

/* Two instances of cfg, the second without the speed paths (the twin the
 * first is held to). Returns 0 when either could not be made. */
static int pair_with_twin(const etm_config_t *cfg, etm_ctx_t **a, etm_ctx_t **b)
{
    etm_diag_t d;
    CHECK_EQ(etm_create(a, cfg, &d), ETM_OK);
    CHECK_EQ(etm_create(b, cfg, &d), ETM_OK);
    if (!*a || !*b)
        return 0;
    etm_set_repeat_path(*b, 0);
    etm_set_plain_path(*b, 0);
    return 1;
}

/* etm_run_records (which repeats runs at once) against etm_step without the
 * repeat path: the same bytes and statistics, in pieces of every size. */
static void test_run_records(const char *preset, int ca, int records)
{
    etm_config_t cfg = preset_config(preset, ca, records);
    etm_ctx_t *a = NULL, *b = NULL;
    enum { N = 50000 };
    etm_in_t *rec = idle_stimulus(13, N);
    if (!pair_with_twin(&cfg, &a, &b) || !rec)
        return;
    uint8_t *ba = (uint8_t *)malloc((size_t)N * 4 + 8192), *bb = (uint8_t *)malloc((size_t)N * 4 + 8192);
    size_t na = 0, nbb = 0, done = 0, piece = 1;
    while (done < N) {
        size_t n = N - done < piece ? N - done : piece, got = 0, used = 0;
        CHECK_EQ(etm_run_records(a, rec + done, n, done + n == N, ba + na, (size_t)N * 4 + 8192 - na, &got, &used),
                 ETM_OK);
        CHECK_EQ(used, n);
        na += got;
        done += n;
        piece = piece * 3 + 1; /* 1, 4, 13, 40 ... */
    }
    etm_out_t out;
    for (unsigned i = 0; i < N; i++) {
        etm_step(b, &rec[i], &out);
        memcpy(bb + nbb, out.v3_bytes, out.v3_count);
        nbb += out.v3_count;
    }
    etm_end(b);
    while (etm_drain(b, &out) == ETM_OK) {
        memcpy(bb + nbb, out.v3_bytes, out.v3_count);
        nbb += out.v3_count;
    }
    CHECK(na == nbb && !memcmp(ba, bb, na));
    CHECK(!memcmp(etm_get_stats(a), etm_get_stats(b), sizeof(etm_stats_t)));
    CHECK(etm_repeated_cycles(a) > N / 2);
    free(ba);
    free(bb);
    free(rec);
    etm_destroy(a);
    etm_destroy(b);
}

/* etm_step_repeat (a run of repeated cycles at once, the rest with etm_step)
 * against etm_step without the speed paths: every cycle's outputs, the
 * repeated ones included, and the statistics. */
static void test_step_repeat(const char *preset, int ca, int records, unsigned atb_stall)
{
    char what[120];
    snprintf(what, sizeof what, "etm_step_repeat, %s%s%s, ATREADY low %u%%", preset, ca ? ", cycle-accurate" : "",
             records ? ", records" : "", atb_stall);
    etm_config_t cfg = preset_config(preset, ca, records);
    etm_diag_t d;
    etm_ctx_t *a = NULL, *b = NULL;
    enum { N = 50000 };
    etm_in_t *rec = stalled_idle_stimulus(29, N, atb_stall);
    if (!pair_with_twin(&cfg, &a, &b) || !rec)
        return;
    size_t runs = 0, longest = 0, held = 0; /* held: repeated cycles with a word waiting on the bus */
    etm_out_t oa, ob;
    for (size_t i = 0; i < N;) {
        size_t r = etm_step_repeat(a, &rec[i], N - i, &oa);
        if (r) {
            CHECK(r <= N - i);
            runs++;
            longest = r > longest ? r : longest;
            held += oa.atvalid ? r : 0;
        } else {
            CHECK(etm_step(a, &rec[i], &oa) != ETM_ERR_STATE);
            r = 1;
        }
        for (size_t j = 0; j < r; j++) {
            etm_step(b, &rec[i + j], &ob);
            same_out(&oa, &ob, what, (unsigned long)(i + j));
        }
        i += r;
        if (!same_state(a, b, what, (unsigned long)i))
            break;
    }
    CHECK(etm_repeated_cycles(a) > N / 2);
    CHECK(runs > 10 && longest > 100);
    if (atb_stall)
        CHECK(held > 100); /* runs whose outputs are not those of an idle port */
    /* Nothing to repeat after a cycle with an instruction; none on a watching instance. */
    etm_in_t busy = rec[0];
    busy.ivalid = 1;
    CHECK(etm_step(a, &busy, &oa) != ETM_ERR_STATE);
    CHECK_EQ(etm_step_repeat(a, &busy, 1, &oa), (size_t)0);
    etm_ctx_t *w = NULL;
    CHECK_EQ(etm_watch_create(&w, &cfg, 0, &d), ETM_OK);
    etm_seen_t seen;
    for (size_t i = 0; w && i < 2000; i++) {
        CHECK(etm_watch_step(w, &rec[i], &seen) != ETM_ERR_ARG);
        CHECK_EQ(etm_step_repeat(w, &rec[i + 1], 1, &oa), (size_t)0);
    }
    etm_destroy(w);
    free(rec);
    etm_destroy(a);
    etm_destroy(b);
}

/* A golden vector's stimulus (a real program under QEMU), read whole. */
static etm_in_t *read_stimulus(const char *dir, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/stimulus.vec", dir);
    etm_vec_reader_t *r = NULL;
    etm_diag_t d;
    *n = 0;
    CHECK_EQ(etm_vec_open(&r, path, &d), ETM_OK);
    if (!r)
        return NULL;
    size_t cap = 4096;
    etm_in_t *rec = (etm_in_t *)malloc(cap * sizeof *rec);
    etm_err_t e;
    while (rec && (e = etm_vec_read_in(r, &rec[*n], &d)) == ETM_OK)
        if (++*n == cap)
            rec = (etm_in_t *)realloc(rec, (cap *= 2) * sizeof *rec);
    etm_vec_close(r);
    CHECK(*n > 1000);
    return rec;
}

/* A real program's stimulus through an instance of cfg with the engine and
 * one without it: every cycle's return value, outputs and state, the end and
 * the drain. Returns the cycles the engine gave (repeated or plain). */
static unsigned long real_pair(const etm_config_t *cfg, const etm_in_t *rec, size_t n, const char *what)
{
    etm_ctx_t *a = NULL, *b = NULL;
    etm_diag_t d;
    if (etm_create(&a, cfg, &d) != ETM_OK)
        return 0; /* the part does not have it (cycle accuracy on the ETM-M3, records on ETMv1 ...) */
    CHECK_EQ(etm_create(&b, cfg, &d), ETM_OK);
    if (!b) {
        etm_destroy(a);
        return 0;
    }
    etm_set_repeat_path(b, 0);
    etm_set_plain_path(b, 0);
    etm_out_t oa, ob;
    for (size_t i = 0; i < n; i++) {
        etm_err_t ea = etm_step(a, &rec[i], &oa), eb = etm_step(b, &rec[i], &ob);
        CHECK_EQ(ea, eb);
        same_out(&oa, &ob, what, (unsigned long)i);
        if (!same_state(a, b, what, (unsigned long)i))
            break;
    }
    CHECK_EQ(etm_end(a), etm_end(b));
    for (int k = 0; k < 100000; k++) {
        etm_err_t ea = etm_drain(a, &oa), eb = etm_drain(b, &ob);
        CHECK_EQ(ea, eb);
        same_out(&oa, &ob, what, (unsigned long)(n + (size_t)k));
        if (ea != ETM_OK)
            break;
    }
    same_state(a, b, what, (unsigned long)n);
    unsigned long given = (unsigned long)(etm_repeated_cycles(a) + etm_plain_cycles(a));
    etm_destroy(a);
    etm_destroy(b);
    return given;
}

/* Every golden vector's program in every preset, cycle-accurate or not,
 * with records or not: the engine must give most of a program's cycles in
 * the ETMv3 presets that allow it, and change nothing. */
static void test_real(int argc, char **argv)
{
    unsigned long given = 0, cycles = 0;
    for (int i = 1; i < argc; i++) {
        size_t n = 0;
        etm_in_t *rec = read_stimulus(argv[i], &n);
        if (!rec)
            continue;
        const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        for (size_t p = 0; etm_config_preset_names[p]; p++)
            for (int ca = 0; ca <= 1; ca++)
                for (int records = 0; records <= 1; records++) {
                    char what[200];
                    snprintf(what, sizeof what, "%s in %s%s%s", name, etm_config_preset_names[p],
                             ca ? ", cycle-accurate" : "", records ? ", records" : "");
                    etm_config_t cfg = preset_config(etm_config_preset_names[p], ca, records);
                    given += real_pair(&cfg, rec, n, what);
                    cycles += n;
                }
        free(rec);
    }
    printf("real programs: %d, %lu of %lu cycles given by the speed engine\n", argc - 1, given, cycles);
    CHECK(argc < 2 || given > cycles / 4);
}

int main(int argc, char **argv)
{
    test_real(argc, argv);
    for (int records = 0; records <= 1; records++) {
        test_step_repeat("etm-m3", 0, records, 0);
        test_step_repeat("cm3-ca-whatif", 1, records, 0);
        test_step_repeat("etm-m3", 0, records, 40);
        test_step_repeat("cm3-ca-whatif", 1, records, 40);
        test_run_records("etm-m3", 0, records);
        test_run_records("cm3-ca-whatif", 1, records);
        test_watch("etm-m3", 0, records);
        test_watch("cm3-ca-whatif", 1, records);
        test_verify_slices("etm-m3", 0, records, (size_t)-1);
        test_verify_slices("cm3-ca-whatif", 1, records, (size_t)-1);
        test_verify_slices("etm-m3", 0, records, 700);
        test_verify_slices("cm3-ca-whatif", 1, records, 1500);
    }
    test_step_repeat("etmv3.0", 1, 0, 0);
    test_watch("etmv3.0", 1, 0);
    test_verify_slices("etmv3.5", 1, 0, (size_t)-1);
    for (size_t p = 0; etm_config_preset_names[p]; p++)
        for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++)
            run(etm_config_preset_names[p], &variants[k]);
    /* With records (an ETMv1 part or data trace refuses them: run() skips
     * what etm_create refuses); a queue of 2 overflows where the FIFO is small,
     * one of 1 whenever a record waits while the next is made. */
    static const unsigned queues[] = { 1, 2, 8 };
    for (size_t qi = 0; qi < sizeof queues / sizeof queues[0]; qi++) {
        records_q = queues[qi];
        for (size_t p = 0; etm_config_preset_names[p]; p++)
            for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++)
                run(etm_config_preset_names[p], &variants[k]);
    }
    records_q = 0;
    /* Repeating one cycle is not a fixed point when the FIFO has bytes to move. */
    etm_config_t cfg;
    etm_diag_t d;
    CHECK_EQ(etm_config_preset(&cfg, "etm-m3"), ETM_OK);
    cfg.port_bytes = 1;
    cfg.pkt_queue = 0; /* the repeat path is off with records */
    etm_ctx_t *e = NULL;
    CHECK_EQ(etm_create(&e, &cfg, &d), ETM_OK);
    etm_in_t in, idle;
    memset(&in, 0, sizeof in);
    memset(&idle, 0, sizeof idle);
    in.ivalid = 1;
    in.ia = 0x100;
    etm_out_t o;
    /* A-sync, I-sync and the first atom's header of its own (TRACE_START=1):
     * 13 bytes leave one a cycle */
    etm_step(e, &in, &o);
    unsigned left = 0;
    for (int k = 0; k < 20; k++) {
        etm_step(e, &idle, &o);
        left += o.v3_count;
    }
    CHECK_EQ(left, 13);
    CHECK(etm_repeated_cycles(e) > 0 && etm_repeated_cycles(e) < 20 - 13);
    etm_destroy(e);
    printf("repeat path: %llu of %llu cycles repeated; plain-cycle path: %llu\n", repeated_total, cycles_total,
           plain_total);
    return test_report("fast");
}
