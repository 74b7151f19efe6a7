/* fuzz_decode_v3.c - the ETMv3 decoder (etm/decode_v3.h) on any bytes, under a
 * configuration the fuzzer chooses among those validation accepts, following
 * code the fuzzer also supplies, fed in pieces of fuzzer-chosen sizes. After an
 * error the decoder goes on (it resynchronises), as a user's tool would.
 * Without code, a second decoder with packets only (ETM_V3DEC_PACKETS) reads
 * the same pieces and must give the same packets and the same errors, and no
 * element. */
#include "fuzz.h"

#include "etm/decode_v3.h"

typedef struct seen {
    unsigned long elements, packets;
    uint64_t h; /* a digest of the packets */
} seen_t;

static void on_element(void *user, const etm_v3el_t *el)
{
    (void)el;
    ((seen_t *)user)->elements++;
}

static void mix(seen_t *s, uint64_t v) { s->h = (s->h ^ v) * 0x100000001b3ull; }

static void on_packet(void *user, const etm_v3pkt_t *p)
{
    seen_t *s = (seen_t *)user;
    if ((unsigned)p->kind >= ETM_V3PKT_KIND_COUNT)
        fuzz_fail("a packet of no known kind");
    s->packets++;
    mix(s, p->kind);
    mix(s, p->offset);
    mix(s, p->size);
    mix(s, p->addr);
    mix(s, p->isa);
    mix(s, p->exc_number);
    mix(s, p->data_addr);
    mix(s, p->value);
    for (const char *a = p->atoms; *a; a++)
        mix(s, (uint8_t)*a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    etm_config_t cfg;
    fuzz_config(&in, &cfg, NULL);
    unsigned opt = fuzz_u8(&in);
    fuzz_image_t im = fuzz_take_image(&in);
    etm_v3dec_t *d = NULL, *pk = NULL;
    etm_diag_t diag, pdiag;
    seen_t sd = { 0, 0, 0 }, sp = { 0, 0, 0 };
    if (etm_v3dec_create(&d, &cfg, (opt & 1) ? ETM_V3DEC_V7M : 0, &diag) != ETM_OK)
        return 0;
    etm_v3dec_on_element(d, on_element, &sd);
    etm_v3dec_on_packet(d, on_packet, &sd);
    if (opt & 2) {
        etm_v3dec_set_image(d, fuzz_image_read, &im);
    } else {
        if (etm_v3dec_create(&pk, &cfg, ((opt & 1) ? ETM_V3DEC_V7M : 0) | ETM_V3DEC_PACKETS, &pdiag) != ETM_OK)
            fuzz_fail("packets only: a configuration the whole decoder takes was refused");
        etm_v3dec_on_element(pk, on_element, &sp);
        etm_v3dec_on_packet(pk, on_packet, &sp);
    }
    size_t piece = 1 + (opt >> 2);
    size_t at = 0;
    while (at < in.n) {
        size_t n = in.n - at < piece ? in.n - at : piece;
        size_t used = 0;
        etm_err_t e = etm_v3dec_feed(d, in.p + at, n, &used, &diag);
        if (used > n)
            fuzz_fail("the decoder used more bytes than it was given");
        if (pk) {
            size_t pused = 0;
            etm_err_t pe = etm_v3dec_feed(pk, in.p + at, n, &pused, &pdiag);
            if (pe != e || pused != used || (e != ETM_OK && (pdiag.offset != diag.offset || strcmp(pdiag.msg, diag.msg))))
                fuzz_fail("packets only: another error, or at another byte, than the whole decoder's");
        }
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
    etm_err_t e = etm_v3dec_end(d, &diag);
    etm_v3dec_destroy(d);
    if (pk) {
        if (etm_v3dec_end(pk, &pdiag) != e)
            fuzz_fail("packets only: the end differs from the whole decoder's");
        etm_v3dec_destroy(pk);
        if (sp.packets != sd.packets || sp.h != sd.h)
            fuzz_fail("packets only: other packets than the whole decoder's");
        if (sp.elements)
            fuzz_fail("packets only: an element");
    }
    return 0;
}
