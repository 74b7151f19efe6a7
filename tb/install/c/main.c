/* main.c - an installed etm-model used from outside: the ETM-M3 preset traces
 * 200 000 cycles of generated stimulus, the decoder reads the bytes, and the
 * protocol scoreboard holds them to the stimulus. Prints what it found; exits
 * 0 only when the trace decodes and the scoreboard passes it. */
#include <stdio.h>

#include "etm/etm.h"

static unsigned long long atoms;

static void on_element(void *user, const etm_v3el_t *e)
{
    (void)user;
    atoms += e->kind == ETM_V3EL_ATOM;
}

int main(void)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_gen_params_t gp;
    etm_gen_t *gen;
    etm_ctx_t *etm;
    etm_v3dec_t *dec;
    etm_verify_t *v;
    if (etm_config_preset(&cfg, "etm-m3") != ETM_OK)
        return 1;
    etm_gen_params_default(&gp);
    if (etm_gen_create(&gen, &gp, &d) != ETM_OK || etm_create(&etm, &cfg, &d) != ETM_OK ||
        etm_v3dec_create(&dec, &cfg, ETM_V3DEC_V7M, &d) != ETM_OK || etm_verify_create(&v, &cfg, NULL, &d) != ETM_OK) {
        fprintf(stderr, "consumer: %s\n", d.msg);
        return 1;
    }
    etm_v3dec_on_element(dec, on_element, NULL);
    etm_in_t in;
    etm_out_t out;
    int bad = 0;
    for (unsigned k = 0; k < 200000; k++) {
        etm_gen_next(gen, &in, NULL);
        etm_step(etm, &in, &out);
        etm_verify_cycle(v, &in);
        etm_verify_bytes(v, out.v3_bytes, out.v3_count, 1);
        bad |= etm_v3dec_feed(dec, out.v3_bytes, out.v3_count, NULL, &d) != ETM_OK;
    }
    etm_end(etm);
    while (etm_drain(etm, &out) == ETM_OK) {
        etm_verify_bytes(v, out.v3_bytes, out.v3_count, 0);
        bad |= etm_v3dec_feed(dec, out.v3_bytes, out.v3_count, NULL, &d) != ETM_OK;
    }
    bad |= etm_v3dec_end(dec, &d) != ETM_OK;
    etm_verify_end(v, etm_untraced_overflow(etm));
    char what[600];
    printf("etm %s: %llu trace bytes, %llu atoms decoded; scoreboard: %s\n", etm_version_string(),
           (unsigned long long)etm_get_stats(etm)->bytes, atoms, etm_verify_describe(v, what, sizeof what));
    int rc = bad || atoms == 0 || etm_verify_result(v)->failures;
    etm_verify_destroy(v);
    etm_v3dec_destroy(dec);
    etm_destroy(etm);
    etm_gen_free(gen);
    return rc;
}
