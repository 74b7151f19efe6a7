/* test_coresight.c - CoreSight formatter frames into per-ID streams: ID bytes and
 * the auxiliary byte, delayed ID changes, frame and half-word syncs, truncation,
 * chunked input. Frames are written out by hand from the formatter rules. */
#include <stdlib.h>

#include "etm/coresight.h"
#include "test.h"

typedef struct got {
    uint8_t bytes[8][256];  /* per ID 0x10..0x17 */
    uint64_t offs[8][256];
    unsigned n[8];
    unsigned other;         /* bytes for IDs outside 0x10..0x17 */
    unsigned calls;
} got_t;

static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    got_t *g = (got_t *)user;
    g->calls++;
    for (size_t k = 0; k < n; k++) {
        if (id >= 0x10 && id < 0x18 && g->n[id - 0x10] < 256) {
            unsigned i = id - 0x10;
            g->bytes[i][g->n[i]] = data[k];
            g->offs[i][g->n[i]] = offset + k;
            g->n[i]++;
        } else {
            g->other++;
        }
    }
}

static got_t G;
static etm_diag_t D;

static etm_err_t run(unsigned flags, const uint8_t *b, size_t n, size_t chunk)
{
    etm_cs_deformatter_t *f;
    memset(&G, 0, sizeof G);
    etm_diag_clear(&D);
    if (etm_cs_create(&f, flags, on_data, &G) != ETM_OK)
        return ETM_ERR_NOMEM;
    etm_err_t first = ETM_OK;
    for (size_t k = 0; k < n; k += chunk) {
        size_t m = n - k < chunk ? n - k : chunk;
        etm_err_t e = etm_cs_feed(f, b + k, m, &D);
        if (e != ETM_OK && first == ETM_OK)
            first = e;
    }
    etm_err_t e = etm_cs_end(f, &D);
    if (first == ETM_OK)
        first = e;
    etm_cs_destroy(f);
    return first;
}

/* Frame 1: ID 0x10 (byte 1 new ID); data 0x43 (bit 0 from aux bit 1) and 0x55;
 * ID 0x11 in byte 4 with aux bit 2 set: byte 5 (0x66) still belongs to 0x10;
 * then 0x11 data 0x70 0x71 0x02..0x07; byte 14 announces ID 0x12 for the next
 * frame. Frame 2: data for 0x12: 0x20, 0x21, ..., then aux. */
static const uint8_t frames[] = {
    0x21, 0xAA, 0x42, 0x55, 0x23, 0x66, 0x70, 0x71, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x25, 0x06,
    0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x00,
};

static void check_frames(void)
{
    static const uint8_t want10[] = { 0xAA, 0x43, 0x55, 0x66 };
    static const uint8_t want11[] = { 0x70, 0x71, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07 };
    CHECK_EQ(G.n[0], sizeof want10);
    CHECK(!memcmp(G.bytes[0], want10, sizeof want10));
    CHECK_EQ(G.n[1], sizeof want11);
    CHECK(!memcmp(G.bytes[1], want11, sizeof want11));
    CHECK_EQ(G.n[2], 15);
    for (unsigned k = 0; k < 15 && k < G.n[2]; k++)
        CHECK_EQ(G.bytes[2][k], 0x20 + k);
    CHECK_EQ(G.other, 0);
}

int main(void)
{
    /* memory dump: frames from byte 0 */
    CHECK_EQ(run(0, frames, sizeof frames, sizeof frames), ETM_OK);
    check_frames();
    CHECK_EQ(G.offs[0][0], 1);   /* 0xAA is byte 1 of the input */
    CHECK_EQ(G.offs[0][3], 5);   /* 0x66: byte 5 */
    CHECK_EQ(G.offs[2][0], 16);  /* first byte of frame 2 */
    /* the same, one byte at a time */
    CHECK_EQ(run(0, frames, sizeof frames, 1), ETM_OK);
    check_frames();

    /* frame syncs between frames and half-word syncs inside are removed */
    {
        uint8_t b[64];
        size_t n = 0;
        static const uint8_t fsync[] = { 0xFF, 0xFF, 0xFF, 0x7F };
        memcpy(b + n, fsync, 4), n += 4;
        memcpy(b + n, frames, 6), n += 6;
        b[n++] = 0xFF, b[n++] = 0x7F; /* half-word sync at an even position */
        memcpy(b + n, frames + 6, 10), n += 10;
        memcpy(b + n, fsync, 4), n += 4;
        memcpy(b + n, fsync, 4), n += 4;
        memcpy(b + n, frames + 16, 16), n += 16;
        CHECK_EQ(run(0, b, n, n), ETM_OK);
        check_frames();
        CHECK_EQ(G.offs[0][0], 5);
        CHECK_EQ(G.offs[1][0], 12); /* 0x70 came after the half-word sync */
        CHECK_EQ(run(0, b, n, 3), ETM_OK);
        check_frames();

        /* a TPIU capture starting mid-frame: skip to the first frame sync */
        uint8_t t[80];
        static const uint8_t junk[] = { 0x13, 0x37, 0xFF, 0x7F, 0x00 };
        memcpy(t, junk, sizeof junk);
        memcpy(t + sizeof junk, b, n);
        CHECK_EQ(run(ETM_CS_WAIT_FSYNC, t, sizeof junk + n, 7), ETM_OK);
        check_frames();
    }

    /* ID 0 (null source) data is dropped; data before any ID is dropped */
    {
        static const uint8_t f[] = { 0x44, 0x45, 0x01, 0x46, 0x48, 0x49, 0x21, 0x50,
                                     0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x00 };
        CHECK_EQ(run(0, f, sizeof f, sizeof f), ETM_OK);
        CHECK_EQ(G.n[0], 1 + 7); /* 0x50, then 0x52..0x58 (bytes 8-14) */
        CHECK_EQ(G.bytes[0][0], 0x50);
        CHECK_EQ(G.other, 0);
    }

    /* errors: a reserved trace ID; a broken frame sync; input ending mid-frame */
    {
        uint8_t f[16];
        memcpy(f, frames, 16);
        f[4] = (0x7A << 1) | 1;
        CHECK_EQ(run(0, f, sizeof f, sizeof f), ETM_ERR_DECODE);
        CHECK_EQ(D.offset, 4);
        CHECK_STR_CONTAINS(D.msg, "0x7a");
        /* 0x7D, the trigger marker: no error, its data byte counted, not passed on */
        f[4] = (0x7D << 1) | 1;
        etm_cs_deformatter_t *t = NULL;
        CHECK_EQ(etm_cs_create(&t, 0, on_data, &G), ETM_OK);
        memset(&G, 0, sizeof G);
        CHECK_EQ(etm_cs_feed(t, f, sizeof f, &D), ETM_OK);
        uint64_t at = 0;
        CHECK_EQ(etm_cs_triggers(t, &at), 8); /* bytes 6 to 13 (byte 5 is still 0x10's: aux bit 2) */
        CHECK_EQ(at, 13);
        CHECK_EQ(G.n[0], 4);                  /* 0x10's bytes as before */
        CHECK_EQ(G.n[1], 0);                  /* no stream of 0x7D */
        etm_cs_destroy(t);
        static const uint8_t bad_sync[] = { 0xFF, 0xFF, 0x12, 0x34 };
        CHECK_EQ(run(0, bad_sync, sizeof bad_sync, 4), ETM_ERR_DECODE);
        CHECK_EQ(D.offset, 2);
        CHECK_EQ(run(0, frames, 21, 21), ETM_ERR_DECODE);
        CHECK_EQ(D.offset, 16);
        CHECK_STR_CONTAINS(D.msg, "5 of 16");
    }

    /* random input never crashes and stays within the input */
    {
        test_rng_t rng = { 12345 };
        static uint8_t b[2048];
        for (int round = 0; round < 200; round++) {
            size_t n = (size_t)(test_rand(&rng) % sizeof b);
            for (size_t k = 0; k < n; k++)
                b[k] = (uint8_t)test_rand(&rng);
            (void)run(round & 1 ? ETM_CS_WAIT_FSYNC : 0, b, n, 1 + (size_t)(test_rand(&rng) % 40));
            for (unsigned i = 0; i < 8; i++)
                for (unsigned k = 0; k < G.n[i]; k++)
                    CHECK(G.offs[i][k] < n);
        }
    }
    return test_report("test_coresight");
}
