/* test_tpiu.c - the TPIU and its formatter (etm/tpiu.h): a frame worked out by
 * hand from the formatter rules of docs/tpiu.md; then random traffic from two
 * ATB sources with different IDs, on every pin count, TRACECLK divider and
 * queue size and into an ETB, taken apart again by the project's deformatter
 * (etm/coresight.h, checked against OpenCSD on silicon trace) into exactly
 * the bytes each source sent; parameters out of range are refused with a reason. */
#include <stdlib.h>

#include "etm/coresight.h"
#include "etm/tpiu.h"
#include "test.h"

#define MAXB (1u << 18)

typedef struct streams {
    uint8_t *b[2];
    size_t n[2];
    unsigned ids[2];
    uint64_t other;
} streams_t;

static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    (void)offset;
    streams_t *s = (streams_t *)user;
    for (unsigned k = 0; k < 2; k++)
        if (id == s->ids[k]) {
            for (size_t i = 0; i < n && s->n[k] < MAXB; i++)
                s->b[k][s->n[k]++] = data[i];
            return;
        }
    s->other += n;
}

/* The hand-worked frame: source 0 (ID 0x10) sends 01 02 03 04, one a cycle,
 * into an ETB; then the sources end.
 *   cycle 1: a new ID: 21 (0x10 << 1 | 1), then 01 under it (aux bit 0 = 0)
 *   cycle 2: one byte waits (02): no pressure in an ETB, wait for a second
 *   cycle 3: 02 03 as data (02 has bit 0 clear: aux bit 1 = 0)
 *   after the end: 04 alone: the ID again (21) with aux bit 2 set, 04 still
 *   under the old (same) ID; then padding: ID 0x00 (01) with 00, zeros, and
 *   byte 14 zero; the aux byte holds bit 2: 04. */
static void test_hand_frame(void)
{
    etm_tpiu_params_t p;
    etm_tpiu_params_default(&p);
    p.port_bits = 0;
    p.etb_bytes = 64;
    etm_tpiu_t *t;
    etm_diag_t d;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_OK);
    etm_tpiu_in_t in;
    etm_tpiu_out_t o;
    memset(&in, 0, sizeof in);
    for (unsigned c = 0; c < 4; c++) {
        in.src[0].valid = 1;
        in.src[0].id = 0x10;
        in.src[0].data[0] = (uint8_t)(c + 1);
        etm_tpiu_step(t, &in, &o);
        CHECK_EQ(o.atready[0], 1);
        CHECK_EQ(o.atready[1], 0); /* no source 1 */
    }
    memset(&in, 0, sizeof in);
    etm_tpiu_end(t);
    for (unsigned c = 0; c < 40 && !etm_tpiu_done(t); c++)
        etm_tpiu_step(t, &in, &o);
    CHECK(etm_tpiu_done(t));
    static const uint8_t want[16] = { 0x21, 0x01, 0x02, 0x03, 0x21, 0x04, 0x01, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04 };
    uint8_t got[64];
    size_t n = etm_tpiu_etb_read(t, got, sizeof got);
    CHECK_EQ(n, 16);
    CHECK(n == 16 && memcmp(got, want, 16) == 0);
    CHECK_EQ(etm_tpiu_get_stats(t)->frames, 1);
    etm_tpiu_destroy(t);
}

/* Random traffic: source 0 (ID 0x13) and, when w1 is set, source 1 (ID 0x2C),
 * each valid in bursts, holding its word while ATREADY is low. */
static void round_trip(unsigned port_bits, unsigned clk_div, unsigned queue, unsigned w0, unsigned w1,
                       unsigned etb_bytes, uint64_t seed)
{
    etm_tpiu_params_t p;
    etm_tpiu_params_default(&p);
    p.port_bits = port_bits;
    p.clk_div = clk_div;
    p.queue_bytes = queue;
    p.src_bytes[0] = w0;
    p.src_bytes[1] = w1;
    p.etb_bytes = etb_bytes;
    p.fsync_frames = 5;
    etm_tpiu_t *t;
    etm_diag_t d;
    if (etm_tpiu_create(&t, &p, &d) != ETM_OK) {
        fprintf(stderr, "%s\n", d.msg);
        CHECK(0);
        return;
    }
    streams_t sent, got;
    memset(&sent, 0, sizeof sent);
    memset(&got, 0, sizeof got);
    sent.ids[0] = got.ids[0] = 0x13;
    sent.ids[1] = got.ids[1] = 0x2C;
    for (unsigned k = 0; k < 2; k++) {
        sent.b[k] = (uint8_t *)malloc(MAXB);
        got.b[k] = (uint8_t *)malloc(MAXB);
    }
    size_t cap = 1u << 20, nout = 0;
    uint8_t *out = (uint8_t *)malloc(cap);
    test_rng_t r = { seed };
    etm_tpiu_in_t in;
    memset(&in, 0, sizeof in);
    unsigned burst[2] = { 0, 0 };
    etm_tpiu_cap_t cap_pins;
    etm_tpiu_cap_init(&cap_pins, port_bits);
    int stable = 1;
    etm_tpiu_in_t prev = in;
    uint8_t prev_wait[2] = { 0, 0 };
    for (unsigned c = 0; c < 30000 + 4000; c++) {
        int feeding = c < 30000;
        for (unsigned s = 0; s < 2; s++) {
            unsigned w = s ? w1 : w0;
            if (!w || in.src[s].valid)
                continue; /* a word shown stays until taken */
            if (!burst[s] && feeding && test_rand(&r) % 8 == 0)
                burst[s] = 1 + (unsigned)(test_rand(&r) % 40);
            if (burst[s]) {
                burst[s]--;
                in.src[s].valid = 1;
                in.src[s].id = (uint8_t)sent.ids[s];
                for (unsigned i = 0; i < w; i++)
                    in.src[s].data[i] = (uint8_t)test_rand(&r);
            }
        }
        etm_tpiu_out_t o;
        uint8_t rdy[2] = { (uint8_t)etm_tpiu_ready(t, 0), (uint8_t)etm_tpiu_ready(t, 1) };
        etm_tpiu_step(t, &in, &o);
        for (unsigned s = 0; s < 2; s++) {
            if (o.atready[s] != rdy[s])
                stable = 0;
            if (prev_wait[s] && memcmp(&prev.src[s], &in.src[s], sizeof in.src[s]))
                stable = 0;
            prev_wait[s] = in.src[s].valid && !o.atready[s];
        }
        prev = in;
        for (unsigned s = 0; s < 2; s++)
            if (in.src[s].valid && o.atready[s]) {
                unsigned w = s ? w1 : w0;
                for (unsigned i = 0; i < w && sent.n[s] < MAXB; i++)
                    sent.b[s][sent.n[s]++] = in.src[s].data[i];
                in.src[s].valid = 0;
            }
        if (port_bits) {
            uint8_t b[4];
            unsigned nb = etm_tpiu_cap_step(&cap_pins, &o, b);
            for (unsigned i = 0; i < nb && nout < cap; i++)
                out[nout++] = b[i];
        }
        if (c == 30000 + 100)
            etm_tpiu_end(t); /* the sources have stopped */
        if (c > 30000 + 100 && etm_tpiu_done(t))
            break;
    }
    CHECK(stable);
    CHECK(etm_tpiu_done(t));
    if (!port_bits)
        nout = etm_tpiu_etb_read(t, out, cap);
    etm_cs_deformatter_t *f;
    CHECK_EQ(etm_cs_create(&f, port_bits ? ETM_CS_WAIT_FSYNC : 0, on_data, &got), ETM_OK);
    CHECK_EQ(etm_cs_feed(f, out, nout, &d), ETM_OK);
    CHECK_EQ(etm_cs_end(f, &d), ETM_OK);
    etm_cs_destroy(f);
    const etm_tpiu_stats_t *st = etm_tpiu_get_stats(t);
    int wrapped = st->etb_wraps != 0;
    for (unsigned s = 0; s < 2; s++) {
        if (!wrapped) {
            CHECK_EQ(got.n[s], sent.n[s]);
            CHECK(got.n[s] == sent.n[s] && memcmp(got.b[s], sent.b[s], sent.n[s]) == 0);
        } else {
            /* A wrapped ETB holds the end of each stream. */
            CHECK(got.n[s] <= sent.n[s]);
            CHECK(memcmp(got.b[s], sent.b[s] + (sent.n[s] - got.n[s]), got.n[s]) == 0);
        }
    }
    CHECK_EQ(got.other, 0);
    CHECK(sent.n[0] > 200); /* one pin at half the core clock carries 1875 bytes in 30000 cycles */
    if (w1)
        CHECK(sent.n[1] > 200);
    if (port_bits) {
        CHECK(st->fsyncs > 1);
        CHECK_EQ(st->frames * 16 + st->fsyncs * 4 + st->hsyncs * 2, nout);
    }
    for (unsigned k = 0; k < 2; k++) {
        free(sent.b[k]);
        free(got.b[k]);
    }
    free(out);
    etm_tpiu_destroy(t);
}

static void test_round_trips(void)
{
    static const unsigned pins[] = { 1, 2, 4, 8, 16 };
    uint64_t seed = 1;
    for (unsigned i = 0; i < 5; i++)
        for (unsigned div = 1; div <= 2; div++) {
            round_trip(pins[i], div, 32, 1, 1, 0, seed++);
            round_trip(pins[i], div, 8, 1, 0, 0, seed++);
        }
    round_trip(32, 2, 64, 4, 4, 0, seed++);
    round_trip(16, 1, 16, 4, 2, 0, seed++);
    round_trip(0, 1, 32, 1, 1, 1u << 20, seed++); /* an ETB that does not wrap */
    round_trip(0, 1, 32, 8, 1, 4096, seed++);     /* one that does */
}

static void test_params(void)
{
    etm_tpiu_params_t p;
    etm_tpiu_t *t;
    etm_diag_t d;
    etm_tpiu_params_default(&p);
    p.port_bits = 3;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "1, 2, 4, 8, 16 or 32");
    etm_tpiu_params_default(&p);
    p.port_bits = 32;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "one half-word a core clock");
    etm_tpiu_params_default(&p);
    p.queue_bytes = 8;
    p.src_bytes[0] = p.src_bytes[1] = 8;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "room for a word of every source (16)");
    /* The command lines' PINS[:DIV] and etb:BYTES. */
    CHECK_EQ(etm_tpiu_params_parse(&p, "4", 0, &d), ETM_OK);
    CHECK(p.port_bits == 4 && p.clk_div == 1);
    CHECK_EQ(etm_tpiu_params_parse(&p, "16:2", 0, &d), ETM_OK);
    CHECK(p.port_bits == 16 && p.clk_div == 2);
    static const char *const bad[] = { "4x", "2:", ":2", "0", "4:2:1", "", "etb:64" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(etm_tpiu_params_parse(&p, bad[i], 0, &d), ETM_ERR_ARG);
        CHECK_STR_CONTAINS(d.msg, "want PINS[:DIV]");
    }
    CHECK_EQ(etm_tpiu_params_parse(&p, "etb:4096", 1, &d), ETM_OK);
    CHECK(p.port_bits == 0 && p.etb_bytes == 4096);
    CHECK_EQ(etm_tpiu_params_parse(&p, "etb:4k", 1, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "or etb:BYTES");
    etm_tpiu_params_default(&p);
    p.port_bits = 0;
    p.etb_bytes = 100;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "multiple of 16");
}

int main(void)
{
    test_hand_frame();
    test_round_trips();
    test_params();
    return test_report("test_tpiu");
}
