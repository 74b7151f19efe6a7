/* fuzz_decode_v1.c - the ETMv1 decoder (etm/decode_v1.h): any PIPESTAT,
 * TRACEPKT and TRACESYNC per cycle (three bytes a cycle: PIPESTAT in [2:0] and
 * TRACESYNC in [3] of the first, then TRACEPKT's low and high byte) under an ETMv1
 * configuration the fuzzer chooses among those validation accepts, following
 * code the fuzzer supplies. Errors are reported and decoding goes on, as a
 * user's tool would. */
#include "fuzz.h"

#include "etm/decode_v1.h"

static void on_element(void *user, const etm_v1el_t *el)
{
    (void)user;
    if ((unsigned)el->kind >= ETM_V1EL_KIND_COUNT)
        fuzz_fail("an element of no known kind");
}

static int is_v1(const etm_config_t *cfg)
{
    unsigned v = 0;
    return etm_config_version(cfg, &v, NULL) == ETM_OK && v < ETM_V(2, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    etm_config_t cfg;
    fuzz_config(&in, &cfg, is_v1);
    unsigned opt = fuzz_u8(&in);
    fuzz_image_t im = fuzz_take_image(&in);
    etm_v1dec_t *d = NULL;
    etm_diag_t diag;
    if (etm_v1dec_create(&d, &cfg, (opt >> 1) & 63, (opt & 1) ? ETM_V1DEC_STRICT : 0, &diag) != ETM_OK)
        return 0;
    etm_v1dec_on_element(d, on_element, NULL);
    etm_v1dec_set_image(d, fuzz_image_read, &im);
    uint64_t cycle = 0;
    while (in.n) {
        unsigned a = fuzz_u8(&in), lo = fuzz_u8(&in), hi = fuzz_u8(&in);
        etm_err_t e = etm_v1dec_feed(d, a & 7, lo | hi << 8, (a >> 3) & 1, &diag);
        if (e != ETM_OK && (!diag.msg[0] || diag.cycle > cycle))
            fuzz_fail("a decode error without a message, or placed in a later cycle");
        cycle++;
    }
    etm_v1dec_end(d, &diag);
    etm_v1dec_destroy(d);
    return 0;
}
