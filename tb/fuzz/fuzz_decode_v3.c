/* fuzz_decode_v3.c - the ETMv3 decoder (etm/decode_v3.h) on any bytes, under a
 * configuration the fuzzer chooses among those validation accepts, following
 * code the fuzzer also supplies, fed in pieces of fuzzer-chosen sizes. After an
 * error the decoder goes on (it resynchronises), as a user's tool would. */
#include "fuzz.h"

#include "etm/decode_v3.h"

static unsigned long elements;

static void on_element(void *user, const etm_v3el_t *el)
{
    (void)user;
    (void)el;
    elements++;
}

static void on_packet(void *user, const etm_v3pkt_t *p)
{
    (void)user;
    if ((unsigned)p->kind >= ETM_V3PKT_KIND_COUNT)
        fuzz_fail("a packet of no known kind");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    etm_config_t cfg;
    fuzz_config(&in, &cfg, NULL);
    unsigned opt = fuzz_u8(&in);
    fuzz_image_t im = fuzz_take_image(&in);
    etm_v3dec_t *d = NULL;
    etm_diag_t diag;
    if (etm_v3dec_create(&d, &cfg, (opt & 1) ? ETM_V3DEC_V7M : 0, &diag) != ETM_OK)
        return 0;
    etm_v3dec_on_element(d, on_element, NULL);
    etm_v3dec_on_packet(d, on_packet, NULL);
    if (opt & 2)
        etm_v3dec_set_image(d, fuzz_image_read, &im);
    size_t piece = 1 + (opt >> 2);
    size_t at = 0;
    while (at < in.n) {
        size_t n = in.n - at < piece ? in.n - at : piece;
        size_t used = 0;
        etm_err_t e = etm_v3dec_feed(d, in.p + at, n, &used, &diag);
        if (used > n)
            fuzz_fail("the decoder used more bytes than it was given");
        if (e != ETM_OK) {
            if (!diag.msg[0])
                fuzz_fail("a decode error without a message");
            if (diag.offset != UINT64_MAX && diag.offset >= at + n)
                fuzz_fail("a decode error placed past the bytes given");
            if (used == 0)
                fuzz_fail("a decode error that used no byte");
            n = used; /* go on after the offending byte */
        }
        at += n;
    }
    etm_v3dec_end(d, &diag);
    etm_v3dec_destroy(d);
    return 0;
}
