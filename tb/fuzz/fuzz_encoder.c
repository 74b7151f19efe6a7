/* fuzz_encoder.c - the ETM itself: interface records the fuzzer chooses, legal
 * or not, under a configuration the fuzzer chooses among those that validate and
 * that the model implements. Nothing a validated configuration allows may crash
 * the model or its checker stage, and every cycle must keep the invariants:
 *   - the FIFO level never exceeds its depth;
 *   - bytes are lost only in a cycle that raises OVERFLOW;
 *   - a cycle's buffer bound holds (etm_step never returns ETM_ERR_INTERNAL);
 *   - at most the port's width of bytes leaves per cycle;
 *   - ETMv3: every byte that leaves the port parses (the project's decoder, no
 *     code image): no reserved header, no broken packet, ever;
 *   - the speed engine changes nothing (model/core/src/fast.h): a twin
 *     instance without it (the reference cycle alone) returns the same, gives
 *     the same outputs and the same external-port bytes every cycle, and has
 *     the same statistics and state (etm_state_diff).
 * The debug APB is fuzzed too, short of writes to ETMCR (fuzz_full_record).
 * Records cost few bytes: per cycle one byte chooses an idle run, a run of
 * sequential instructions, or a full record built signal by signal from the
 * signal table (etm/signals.def). */
#include "fuzz.h"

#include "etm/decode_v3.h"
#include "etm/model.h"
#include "etm/signals.h"

#define MAX_CYCLES 256 /* enough to fill the FIFO (64 bytes in some 40 cycles) */

static int model_supports(const etm_config_t *cfg)
{
    return etm_model_supports(cfg, NULL) == ETM_OK;
}

typedef struct run {
    etm_ctx_t *etm;
    etm_ctx_t *twin; /* the same, without the speed paths */
    const etm_config_t *cfg;
    etm_v3dec_t *dec;
    uint64_t lost;
    uint64_t cycle;
    uint8_t port[256];
} run_t;

/* The configuration and the cycle, then abort. */
static void encoder_fail(const run_t *r, const char *what)
{
    fprintf(stderr, "fuzz: cycle %llu; the configuration:\n", (unsigned long long)r->cycle);
    for (size_t i = 0; i < etm_register_count; i++) {
        const etm_regdesc_t *d = &etm_registers[i];
        for (unsigned k = 0; k < d->count; k++)
            if (d->count == 1 || etm_register_get(r->cfg, d, k))
                fprintf(stderr, "  %s%.0u=0x%08X\n", d->name, d->count > 1 ? k + 1 : 0,
                        (unsigned)etm_register_get(r->cfg, d, k));
    }
    fuzz_fail(what);
}

/* The twin's cycle (its return e2 and outputs o2) against the instance's. */
static void check_twin(const run_t *r, etm_err_t e, const etm_out_t *out, etm_err_t e2, const etm_out_t *o2)
{
    if (e != e2)
        encoder_fail(r, "the speed paths changed etm_step's return value");
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        const etm_signal_t *s = &etm_out_signals[i];
        int same = s->kind == ETM_SIG_BYTES
                       ? out->v3_count == o2->v3_count && !memcmp(out->v3_bytes, o2->v3_bytes, out->v3_count)
                       : etm_signal_get(s, out) == etm_signal_get(s, o2);
        if (!same) {
            fprintf(stderr, "fuzz: %s differs\n", s->name);
            encoder_fail(r, "the speed paths changed an output");
        }
    }
    if (memcmp(etm_get_stats(r->etm), etm_get_stats(r->twin), sizeof(etm_stats_t)))
        encoder_fail(r, "the speed paths changed the statistics");
    char part[64];
    if (etm_state_diff(r->etm, r->twin, part, sizeof part)) {
        fprintf(stderr, "fuzz: the state differs: %s\n", part);
        encoder_fail(r, "the speed paths changed the state");
    }
}

static void check_cycle(run_t *r, etm_err_t e, const etm_out_t *out)
{
    if (e == ETM_ERR_INTERNAL)
        encoder_fail(r, "a cycle broke the cycle buffer's bound");
    if (e != ETM_OK && e != ETM_ERR_RULE)
        encoder_fail(r, "etm_step failed");
    /* (With records the level counts the store alone; without, store and
     * staging, which FIFO_DEPTH bounds together.) */
    if (out->fifo_level > r->cfg->fifo_depth)
        encoder_fail(r, "FIFO level above its depth");
    r->cycle++;
    const etm_stats_t *st = etm_get_stats(r->etm);
    if (st->bytes_lost != r->lost && !out->overflow)
        encoder_fail(r, "bytes lost in a cycle without OVERFLOW");
    r->lost = st->bytes_lost;
    if (out->v3_count > ETM_MAX_PORT_BYTES || (r->cfg->port_bytes && out->v3_count > r->cfg->port_bytes))
        encoder_fail(r, "more bytes left the port than it is wide");
    unsigned n = out->v3_count;
    const uint8_t *bytes = out->v3_bytes;
    if (r->dec && !r->cfg->port_bytes) {
        n = etm_port_take(r->etm, r->port, sizeof r->port);
        bytes = r->port;
        uint8_t twin[sizeof r->port];
        if (etm_port_take(r->twin, twin, sizeof twin) != n || memcmp(twin, r->port, n))
            encoder_fail(r, "the speed paths changed the external port's bytes");
    }
    if (r->dec && n) {
        etm_diag_t diag;
        if (etm_v3dec_feed(r->dec, bytes, n, NULL, &diag) != ETM_OK) {
            fprintf(stderr, "fuzz: decoder: %s (offset %llu)\n", diag.msg, (unsigned long long)diag.offset);
            encoder_fail(r, "the port's bytes do not parse");
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t f = { data, size };
    etm_config_t cfg;
    fuzz_config(&f, &cfg, model_supports);
    etm_diag_t diag;
    run_t r;
    memset(&r, 0, sizeof r);
    r.cfg = &cfg;
    if (etm_create(&r.etm, &cfg, &diag) != ETM_OK || etm_create(&r.twin, &cfg, &diag) != ETM_OK)
        fuzz_fail("a validated configuration the model supports was refused");
    etm_set_repeat_path(r.twin, 0);
    etm_set_plain_path(r.twin, 0);
    unsigned version = 0;
    etm_config_version(&cfg, &version, NULL);
    if (version >= ETM_V(3, 0)) {
        unsigned v7m = ETM_FIELD_GET(ETM_IDR_MINOR, cfg.etmidr) >= 4 && ETM_FIELD_GET(ETM_IDR_ALT_BRANCH, cfg.etmidr);
        if (etm_v3dec_create(&r.dec, &cfg, v7m ? ETM_V3DEC_V7M : 0, &diag) != ETM_OK)
            fuzz_fail("the decoder refuses a configuration the model runs");
    }
    etm_in_t in;
    etm_out_t out;
    memset(&in, 0, sizeof in);
    unsigned cycles = 0;
    fuzz_vectors_t vec; /* ETM_FUZZ_VECTORS=FILE: the stimulus as a vector file too, for the lockstep or `etm run` */
    fuzz_vectors_open(&vec, &cfg, "from a fuzz_encoder input");
    while (f.n && cycles < MAX_CYCLES) {
        int sequential;
        unsigned repeat = fuzz_next_records(&f, &in, &sequential);
        for (unsigned k = 0; k < repeat && cycles < MAX_CYCLES; k++, cycles++) {
            fuzz_vectors_write(&vec, &in);
            etm_err_t e = etm_step(r.etm, &in, &out);
            etm_out_t o2;
            check_twin(&r, e, &out, etm_step(r.twin, &in, &o2), &o2);
            check_cycle(&r, e, &out);
            if (sequential)
                in.ia += 2;
        }
    }
    fuzz_vectors_close(&vec);
    etm_err_t ended = etm_end(r.etm);
    if (ended != etm_end(r.twin))
        fuzz_fail("the speed paths changed etm_end's return value");
    if (ended == ETM_ERR_INTERNAL)
        fuzz_fail("the end broke the cycle buffer's bound");
    if (etm_get_stats(r.etm)->bytes_lost != r.lost)
        encoder_fail(&r, "bytes lost at the end of trace, with no cycle to signal the overflow");
    for (unsigned k = 0; k < 100000; k++) {
        etm_err_t e = etm_drain(r.etm, &out);
        etm_out_t o2;
        check_twin(&r, e, &out, etm_drain(r.twin, &o2), &o2);
        if (e == ETM_END)
            break;
        check_cycle(&r, e, &out);
    }
    if (r.dec && !cfg.port_bytes) { /* an external port: what is left, taken until none is (with records */
        for (unsigned k = 0; k < 100000; k++) { /* the generator writes the rest as takes make room) */
            memset(&out, 0, sizeof out);
            check_cycle(&r, ETM_OK, &out);
            if (!etm_fifo_level(r.etm))
                break;
        }
    }
    if (etm_fifo_level(r.etm) && cfg.port_bytes)
        fuzz_fail("bytes left in the FIFO after draining");
    if (r.dec && etm_v3dec_end(r.dec, &diag) != ETM_OK) {
        fprintf(stderr, "fuzz: decoder: %s\n", diag.msg);
        fuzz_fail("the trace ends inside a packet");
    }
    etm_v3dec_destroy(r.dec);
    etm_destroy(r.etm);
    etm_destroy(r.twin);
    return 0;
}
