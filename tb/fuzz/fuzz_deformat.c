/* fuzz_deformat.c - the CoreSight deformatter (etm/coresight.h) in its three
 * uses: raw trace (no frames: straight to the ETMv3 decoder), an ETB or ETR
 * memory dump (frames from the first byte) and a TPIU capture (bytes skipped up
 * to the first full frame sync). The data of each trace ID goes to an ETMv3
 * decoder, as `etm decode --formatted` does; the input is fed in pieces of a
 * fuzzer-chosen size. */
#include "fuzz.h"

#include "etm/coresight.h"
#include "etm/decode_v3.h"

typedef struct sink {
    etm_v3dec_t *dec;
    unsigned id;
    uint64_t fed;      /* bytes given to the deformatter so far */
    uint64_t last_end; /* end of the last data delivered */
} sink_t;

static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    sink_t *s = (sink_t *)user;
    if (id == 0 || id >= 0x70)
        fuzz_fail("data delivered for a reserved or null trace ID");
    if (n == 0 || n > ETM_CS_FRAME_BYTES)
        fuzz_fail("data delivered in a piece larger than a frame, or empty");
    if (offset >= s->fed)
        fuzz_fail("data delivered from past the bytes given");
    s->last_end = offset + n;
    if (id == s->id) {
        etm_diag_t diag;
        size_t used = 0;
        while (n) {
            if (etm_v3dec_feed(s->dec, data, n, &used, &diag) == ETM_OK)
                break;
            data += used;
            n -= used;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_in_t in = { data, size };
    unsigned mode = fuzz_u8(&in), piece = 1 + fuzz_u8(&in);
    etm_config_t cfg;
    etm_config_preset(&cfg, "etm-m3");
    sink_t s = { NULL, 1 + (mode >> 2) % 0x6f, 0, 0 };
    etm_diag_t diag;
    if (etm_v3dec_create(&s.dec, &cfg, ETM_V3DEC_V7M, &diag) != ETM_OK)
        return 0;
    if ((mode & 3) == 0) { /* raw */
        for (size_t at = 0; at < in.n; at += piece) {
            s.fed = at + piece < in.n ? at + piece : in.n;
            size_t n = (size_t)s.fed - at;
            for (size_t k = 0; k < n; k += ETM_CS_FRAME_BYTES)
                on_data(&s, s.id, in.p + at + k, n - k < ETM_CS_FRAME_BYTES ? n - k : ETM_CS_FRAME_BYTES, at + k);
        }
    } else {
        etm_cs_deformatter_t *cs = NULL;
        if (etm_cs_create(&cs, (mode & 3) == 2 ? ETM_CS_WAIT_FSYNC : 0, on_data, &s) != ETM_OK) {
            etm_v3dec_destroy(s.dec);
            return 0;
        }
        size_t at = 0;
        while (at < in.n) {
            size_t n = in.n - at < piece ? in.n - at : piece;
            s.fed += n;
            if (etm_cs_feed(cs, in.p + at, n, &diag) != ETM_OK &&
                (!diag.msg[0] || diag.offset == UINT64_MAX || diag.offset >= s.fed))
                fuzz_fail("a deformatter error without a message or a place within the input");
            at += n;
        }
        if (etm_cs_end(cs, &diag) != ETM_OK && !diag.msg[0])
            fuzz_fail("an end error without a message");
        if ((uint64_t)etm_cs_frames(cs) * ETM_CS_FRAME_BYTES > s.fed)
            fuzz_fail("more frames than the bytes hold");
        etm_cs_destroy(cs);
    }
    etm_v3dec_end(s.dec, &diag);
    etm_v3dec_destroy(s.dec);
    return 0;
}
