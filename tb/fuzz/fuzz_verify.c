/* fuzz_verify.c - the protocol scoreboard (etm/verify.h) on the model's own
 * trace, edited byte by byte where the fuzzer says, under a configuration the
 * fuzzer chooses among those that validate. Interface records as in
 * fuzz_encoder.c: idle runs, sequential runs, records built signal by signal.
 * Whatever the stimulus and the edits:
 *   - the checker never crashes, and reports at most one failure, with a
 *     rule it knows and a text;
 *   - when nothing was edited, the stimulus broke no interface rule, every
 *     change of the PC came with ETMIBRANCH or an exception entry or return,
 *     and none after an instruction that failed its condition (a flow a core
 *     can have), and the model met nothing its version cannot
 *     express, the checker passes the model's trace (ETMv3 bytes, or the
 *     ETMv1 port). */
#include "fuzz.h"

#include "etm/model.h"
#include "etm/verify.h"

#define MAX_CYCLES 256

static int model_supports(const etm_config_t *cfg) { return etm_model_supports(cfg, NULL) == ETM_OK; }

typedef struct run {
    etm_ctx_t *etm;
    etm_verify_t *v;
    int v1;
    unsigned edits;
    int have_pc, jumped;  /* the PC changed without a branch being signalled */
    int last_failed;      /* the last instruction failed its condition */
    uint32_t last_pc;
} run_t;

/* Does the cycle's first instruction follow the last one, or is the change
 * signalled? */
static void follow_flow(run_t *r, const etm_in_t *in)
{
    if (!in->ivalid)
        return;
    uint32_t a = in->ia & ~1u;
    int exc = in->intstat == ETM_INTSTAT_ENTRY || in->intstat == ETM_INTSTAT_RETURN;
    int signalled = in->ibranch || exc;
    if (r->have_pc && !signalled && a != r->last_pc + 2 && a != r->last_pc + 4)
        r->jumped = 1;
    /* A branch that failed its condition does not branch: a target after it
     * is a flow no core has. */
    if (r->have_pc && r->last_failed && in->ibranch && !exc)
        r->jumped = 1;
    if (in->ivalid1 && !in->fold && !in->ibranch1 && (in->ia1 & ~1u) != a + 2 && (in->ia1 & ~1u) != a + 4)
        r->jumped = 1;
    r->last_pc = in->fold ? a + 2 : in->ivalid1 ? (in->ia1 & ~1u) : a;
    r->last_failed = in->fold ? 0 : in->ivalid1 ? in->iccfail1 != 0 : in->iccfail != 0;
    r->have_pc = 1;
}

/* The design's output of a cycle (the model's, edited where the input says)
 * to the checker. */
static void to_checker(run_t *r, fuzz_in_t *f, etm_out_t *out, int edit)
{
    if (edit && f->n >= 2) {
        unsigned at = fuzz_u8(f), bit = fuzz_u8(f) & 7;
        if (r->v1) {
            out->tracepkt ^= (uint16_t)(1u << (at & 15));
            out->pipestat ^= (uint8_t)((bit >> 1) & 7);
            r->edits++;
        } else if (out->v3_count) {
            out->v3_bytes[at % out->v3_count] ^= (uint8_t)(1u << bit);
            r->edits++;
        }
    }
    if (r->v1)
        etm_verify_port(r->v, out);
    else
        etm_verify_bytes(r->v, out->v3_bytes, out->v3_count, edit & 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t f = { data, size };
    etm_config_t cfg;
    fuzz_config(&f, &cfg, model_supports);
    if (!cfg.port_bytes)
        return 0; /* an external port: its bytes leave at another clock */
    etm_diag_t diag;
    run_t r;
    memset(&r, 0, sizeof r);
    if (etm_create(&r.etm, &cfg, &diag) != ETM_OK)
        fuzz_fail("a validated configuration the model supports was refused");
    if (etm_verify_create(&r.v, &cfg, NULL, &diag) != ETM_OK) {
        if (!diag.msg[0])
            fuzz_fail("the checker refused a configuration without a message");
        etm_destroy(r.etm); /* a configuration the checker does not take: refused with a message */
        return 0;
    }
    r.v1 = etm_verify_is_v1(r.v);
    unsigned edit_every = fuzz_u8(&f); /* 0: never */
    etm_in_t in;
    etm_out_t out;
    memset(&in, 0, sizeof in);
    unsigned cycles = 0;
    uint64_t rules = 0;
    fuzz_vectors_t vec; /* ETM_FUZZ_VECTORS=FILE: the stimulus as a vector file too */
    fuzz_vectors_open(&vec, &cfg, "from a fuzz_verify input");
    while (f.n && cycles < MAX_CYCLES) {
        int sequential;
        unsigned repeat = fuzz_next_records(&f, &in, &sequential);
        for (unsigned k = 0; k < repeat && cycles < MAX_CYCLES; k++, cycles++) {
            fuzz_vectors_write(&vec, &in);
            follow_flow(&r, &in);
            rules += etm_step(r.etm, &in, &out) == ETM_ERR_RULE;
            etm_verify_cycle(r.v, &in);
            to_checker(&r, &f, &out, edit_every && cycles % edit_every == 0);
            if (sequential)
                in.ia += 2;
        }
    }
    fuzz_vectors_close(&vec);
    etm_end(r.etm);
    for (unsigned k = 0; k < 100000 && etm_drain(r.etm, &out) == ETM_OK; k++)
        to_checker(&r, &f, &out, 0);
    etm_verify_end(r.v, etm_untraced_overflow(r.etm));
    const etm_verify_result_t *res = etm_verify_result(r.v);
    if (res->failures > 1)
        fuzz_fail("more than one failure reported");
    if (res->failures && (res->first.rule <= ETM_VFAIL_NONE || res->first.rule >= ETM_VFAIL_COUNT ||
                          !res->first.text[0]))
        fuzz_fail("a failure without a rule or a text");
    const etm_stats_t *st = etm_get_stats(r.etm);
    if (res->failures && !r.edits && !rules && !r.jumped && !st->untraceable && !st->violations) {
        char what[600];
        fprintf(stderr, "fuzz: %s\n", etm_verify_describe(r.v, what, sizeof what));
        fuzz_fail("the checker failed the model's own trace of a legal stimulus");
    }
    etm_verify_destroy(r.v);
    etm_destroy(r.etm);
    return 0;
}
