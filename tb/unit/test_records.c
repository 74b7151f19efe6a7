/* test_records.c - the packet generator's records (PKT_QUEUE > 0,
 * docs/etmv3-encoder.md, "Records"):
 *  - with a queue deep enough and a FIFO that never fills, an ETM with
 *    records makes the same trace bytes as one without, on every ETMv3
 *    preset, cycle-accurate or not, single and dual issue: the phases run
 *    one a cycle give the packets the cycle made at once;
 *  - with a short queue and a stalling ATB, records are lost to overflows,
 *    and the protocol scoreboard (etm verify), which shares no encoder code,
 *    finds the trace right: every instruction traced as executed or lost
 *    behind a signalled overflow;
 *  - ph_idle(n) does what n idle cycle-accurate ph_cycle calls do;
 *  - the parameter's range and the combinations the model refuses. */
#include <stdlib.h>

#include "etm/etm.h"
#include "etm/vector.h"
#include "etm/verify.h"
#include "pheader.h"
#include "test.h"

enum { CYCLES = 60000 };

typedef struct run_opts {
    const char *preset;
    int ca, dual;
    unsigned pkt_queue, fifo_depth, atb_stall, atb_burst;
    uint64_t seed;
} run_opts_t;

typedef struct run_result {
    uint8_t *bytes;
    size_t n;
    etm_stats_t st;
    uint64_t failures, overflows_seen, instructions;
} run_result_t;

static etm_config_t config_of(const run_opts_t *o)
{
    etm_config_t cfg;
    CHECK_EQ(etm_config_preset(&cfg, o->preset), ETM_OK);
    if (o->ca)
        cfg.etmcr |= 1u << 12;
    cfg.pkt_queue = o->pkt_queue;
    cfg.fifo_depth = o->fifo_depth;
    cfg.port_bytes = 1;
    if (cfg.etmsyncfr && cfg.etmsyncfr <= cfg.fifo_depth)
        cfg.etmsyncfr = cfg.fifo_depth + 1;
    return cfg;
}

static void put(run_result_t *r, size_t *cap, const etm_out_t *o)
{
    if (!o->v3_count)
        return;
    if (r->n + o->v3_count > *cap) {
        *cap = *cap * 2 + 64;
        r->bytes = (uint8_t *)realloc(r->bytes, *cap);
        CHECK(r->bytes != NULL);
    }
    memcpy(r->bytes + r->n, o->v3_bytes, o->v3_count);
    r->n += o->v3_count;
}

/* Runs the stimulus of o through an instance, and its trace through the
 * scoreboard. The bytes are given untimed: with their cycles the scoreboard
 * places an overflow restart at the last execution of the I-sync's address
 * before the I-sync left, and behind a stalled ATB a loop may have come round
 * again by then; untimed, it follows every candidate until one alone agrees. */
static int run(const run_opts_t *o, run_result_t *r)
{
    memset(r, 0, sizeof *r);
    etm_config_t cfg = config_of(o);
    etm_diag_t d;
    etm_ctx_t *etm = NULL;
    if (etm_create(&etm, &cfg, &d) != ETM_OK)
        return 0; /* not this part (ETM-M3 cycle accuracy) */
    etm_verify_t *v = NULL;
    CHECK_EQ(etm_verify_create(&v, &cfg, NULL, &d), ETM_OK);
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.seed = o->seed;
    gp.issue_width = o->dual ? 2 : 1;
    gp.triggers = 1;
    gp.sleep_pct = 20;
    gp.atb_stall_pct = o->atb_stall;
    gp.atb_burst = o->atb_burst ? o->atb_burst : 1;
    etm_gen_t *g = NULL;
    CHECK_EQ(etm_gen_create(&g, &gp, &d), ETM_OK);
    size_t cap = 0;
    FILE *dump = NULL;
    etm_vec_writer_t *w = NULL;
    const char *want = getenv("RECORDS_DUMP"); /* PRESET:CA:QUEUE: write that run's stimulus to records.vec */
    char tag[64];
    snprintf(tag, sizeof tag, "%s:%d:%u", o->preset, o->ca, o->pkt_queue);
    if (want && !strcmp(want, tag) && (dump = fopen("records.vec", "w")) != NULL)
        etm_vec_writer_open(&w, dump, ETM_VEC_STIMULUS, &cfg, 0, tag);
    for (unsigned long cyc = 0; cyc < CYCLES && g && v; cyc++) {
        etm_in_t in;
        etm_out_t out;
        etm_gen_next(g, &in, NULL);
        if (w)
            etm_vec_write_in(w, &in);
        etm_err_t e = etm_step(etm, &in, &out);
        CHECK(e == ETM_OK || e == ETM_ERR_RULE);
        etm_verify_cycle(v, &in);
        etm_verify_bytes(v, out.v3_bytes, out.v3_count, 0);
        put(r, &cap, &out);
    }
    if (w)
        etm_vec_writer_close(w);
    if (dump)
        fclose(dump);
    CHECK_EQ(etm_end(etm), ETM_OK);
    for (int k = 0; k < 1000000; k++) {
        etm_out_t out;
        etm_err_t e = etm_drain(etm, &out);
        if (e != ETM_OK)
            break;
        etm_verify_bytes(v, out.v3_bytes, out.v3_count, 0);
        put(r, &cap, &out);
    }
    if (v) {
        etm_verify_end(v, etm_untraced_overflow(etm));
        const etm_verify_result_t *vr = etm_verify_result(v);
        r->failures = vr->failures;
        r->overflows_seen = vr->overflows;
        r->instructions = vr->instructions;
        if (vr->failures) {
            char line[600];
            fprintf(stderr, "%s%s, PKT_QUEUE=%u: %s\n", o->preset, o->ca ? " (cycle-accurate)" : "", o->pkt_queue,
                    etm_verify_describe(v, line, sizeof line));
        }
    }
    r->st = *etm_get_stats(etm);
    etm_verify_destroy(v);
    etm_gen_free(g);
    etm_destroy(etm);
    return 1;
}

static const char *const presets[] = { "etm-m3", "etmv3.0", "etmv3.1", "etmv3.3", "etmv3.4", "etmv3.5" };

/* Records with room to spare give the bytes of the ETM without them. */
static void test_same_bytes(void)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        for (int ca = 0; ca < 2; ca++) {
            run_opts_t o = { presets[i], ca, !strcmp(presets[i], "etmv3.5"), 0, 1024, 0, 1, 100 + i };
            run_result_t a, b;
            if (!run(&o, &a))
                continue;
            o.pkt_queue = ETM_MAX_PKT_QUEUE;
            CHECK(run(&o, &b));
            CHECK_EQ(a.st.overflows, 0);
            CHECK_EQ(b.st.overflows, 0);
            CHECK(a.n > 1000);
            int same = a.n == b.n && !memcmp(a.bytes, b.bytes, a.n);
            if (!same)
                fprintf(stderr, "%s%s: %zu bytes without records, %zu with, not the same\n", presets[i],
                        ca ? " (cycle-accurate)" : "", a.n, b.n);
            CHECK(same);
            CHECK_EQ(a.failures, 0);
            CHECK_EQ(b.failures, 0);
            free(a.bytes);
            free(b.bytes);
        }
}

/* A short queue behind a stalling ATB: records lost, the trace still right. */
static void test_overflows(void)
{
    static const unsigned queues[] = { 1, 2, 4 };
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        for (int ca = 0; ca < 2; ca++)
            for (size_t q = 0; q < sizeof queues / sizeof *queues; q++) {
                run_opts_t o = { presets[i], ca, !strcmp(presets[i], "etmv3.5"), queues[q], 24, 60, 16, 200 + i };
                run_result_t r;
                if (!run(&o, &r))
                    continue;
                CHECK(r.st.overflows > 0);          /* the case is exercised */
                CHECK_EQ(r.failures, 0);            /* and the trace is right */
                CHECK(r.overflows_seen > 0);        /* the trace signals them */
                CHECK_EQ(r.st.internal_errors, 0);
                CHECK(r.instructions > CYCLES / 50);
                free(r.bytes);
            }
}

/* ph_idle(n) against n calls of ph_cycle with no atom, from states reached
 * by random cycles (atoms, idle runs, W atoms owed). */
static void test_ph_idle(void)
{
    etm_config_t cfg;
    CHECK_EQ(etm_config_preset(&cfg, "etmv3.5"), ETM_OK);
    static const uint32_t lengths[] = { 0, 1, 2, 3, 7, 8, 23, 24, 25, 26, 300 };
    uint64_t rng = 12345;
    for (int f4 = 0; f4 < 2; f4++)
        for (int trial = 0; trial < 3000; trial++) {
            etm_mode_t m;
            memset(&m, 0, sizeof m);
            m.cycle_accurate = 1;
            m.format4 = f4;
            pheader_state_t p;
            ph_reset(&p);
            cycle_buf_t c;
            cbuf_init(&c, 0);
            for (int k = (int)(rng % 12); k > 0; k--) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                unsigned r = (unsigned)(rng >> 33);
                uint8_t ex[2] = { (uint8_t)(r & 1), (uint8_t)((r >> 1) & 1) };
                cbuf_init(&c, 0);
                if (r % 5 == 0)
                    ph_atom_nowait(&p, &m, ex[0], &c);
                else
                    ph_cycle(&p, &m, (r >> 2) % 3, ex, &c);
            }
            if (trial % 100 == 0)
                p.wrun_q = 0xFFFFFFFFu - (uint32_t)(trial % 7); /* near the count field's limit */
            uint32_t n = lengths[trial % (sizeof lengths / sizeof *lengths)];
            pheader_state_t pa = p, pb = p;
            cycle_buf_t ca, cb;
            cbuf_init(&ca, 0);
            cbuf_init(&cb, 0);
            ph_idle(&pa, &m, n, &ca);
            for (uint32_t k = 0; k < n; k++)
                ph_cycle(&pb, &m, 0, NULL, &cb);
            CHECK(!memcmp(&pa, &pb, sizeof pa));
            CHECK(ca.n == cb.n && !memcmp(ca.b, cb.b, ca.n) && ca.w == cb.w);
        }
}

/* The parameter: 0 to ETM_MAX_PKT_QUEUE, ETMv3 only, instruction trace only
 * (either port; test_port.c runs the external one). The ETM-M3's presets have
 * records, the generic ones not (test_config.c: what a text without PKT_QUEUE
 * implies). */
static void test_config(void)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_ctx_t *etm = NULL;
    CHECK_EQ(etm_config_preset(&cfg, "etmv3.4"), ETM_OK);
    cfg.pkt_queue = ETM_MAX_PKT_QUEUE;
    CHECK_EQ(etm_create(&etm, &cfg, &d), ETM_OK);
    etm_destroy(etm);
    cfg.pkt_queue = ETM_MAX_PKT_QUEUE + 1;
    CHECK(etm_create(&etm, &cfg, &d) != ETM_OK);
    CHECK(strstr(d.msg, "PKT_QUEUE") != NULL);
    cfg.pkt_queue = 4;
    cfg.etmcr |= 3u << 2; /* data trace */
    cfg.fifo_depth = 128;
    CHECK_EQ(etm_model_supports(&cfg, &d), ETM_ERR_UNSUPPORTED);
    CHECK(strstr(d.msg, "PKT_QUEUE") != NULL);
    CHECK_EQ(etm_config_preset(&cfg, "etmv3.4"), ETM_OK);
    cfg.pkt_queue = 4;
    cfg.port_bytes = 0;
    CHECK_EQ(etm_model_supports(&cfg, &d), ETM_OK);
    static const char *const m3[] = { "etm-m3", "etm-m3-r2", "cm3-ca-whatif" };
    for (size_t i = 0; i < sizeof m3 / sizeof m3[0]; i++) {
        CHECK_EQ(etm_config_preset(&cfg, m3[i]), ETM_OK);
        CHECK_EQ(cfg.pkt_queue, 8);
    }
    for (size_t i = 0; etm_config_preset_names[i]; i++)
        if (strncmp(etm_config_preset_names[i], "etmv", 4) == 0) {
            CHECK_EQ(etm_config_preset(&cfg, etm_config_preset_names[i]), ETM_OK);
            CHECK_EQ(cfg.pkt_queue, 0);
        }
    CHECK_EQ(etm_config_preset(&cfg, "etmv1.3"), ETM_OK);
    cfg.pkt_queue = 4;
    CHECK(etm_create(&etm, &cfg, &d) != ETM_OK);
    CHECK(strstr(d.msg, "PKT_QUEUE") != NULL);
}

int main(void)
{
    test_config();
    test_ph_idle();
    test_same_bytes();
    test_overflows();
    return test_report("records");
}
