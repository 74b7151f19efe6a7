/* test_tpiu.c - the TPIU and its formatter (etm/tpiu.h): a frame worked out by
 * hand from the formatter rules of docs/tpiu.md; then random traffic from two
 * ATB sources with different IDs, on every pin count, TRACECLK divider and
 * queue size and into an ETB, taken apart again by the project's deformatter
 * (etm/coresight.h, checked against OpenCSD on silicon trace) into exactly
 * the bytes each source sent; parameters out of range are refused with a reason. */
#include <stdlib.h>

#include "etm/coresight.h"
#include "etm/tpiu.h"
#include "etm/uart.h"
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
static void round_trip_swo(unsigned port_bits, unsigned clk_div, unsigned queue, unsigned w0, unsigned w1,
                           unsigned etb_bytes, uint64_t seed, unsigned protocol, unsigned acpr)
{
    etm_tpiu_params_t p;
    etm_tpiu_params_default(&p);
    p.protocol = protocol;
    p.acpr = acpr;
    int swo = protocol != ETM_TPIU_PARALLEL;
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
    etm_tpiu_cap_init_for(&cap_pins, t);
    /* The SWO tool's line decoder (model/decode/src/uart.c) reads the pin
     * too, two samples a core clock, as a logic analyzer would: NRZ (a bit of
     * ACPR + 1 clocks), and Manchester (a bit of two halves of ACPR + 1). */
    etm_uart_t uart;
    uint8_t *uout = (uint8_t *)malloc(cap);
    size_t nu = 0;
    int read_line = protocol == ETM_TPIU_NRZ || protocol == ETM_TPIU_MANCHESTER;
    if (protocol == ETM_TPIU_NRZ)
        CHECK_EQ(etm_uart_init(&uart, 2000000ull * (acpr + 1), 1000000, &d), ETM_OK);
    else if (read_line)
        CHECK_EQ(etm_uart_init_manchester(&uart, 2000000ull * (acpr + 1), 500000, &d), ETM_OK);
    int stable = 1;
    etm_tpiu_in_t prev = in;
    uint8_t prev_wait[2] = { 0, 0 };
    for (unsigned c = 0; c < 30000 + 40000; c++) {
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
        in.trigin = feeding && test_rand(&r) % 997 == 0;
        etm_tpiu_step(t, &in, &o);
        if (read_line) {
            etm_uart_byte_t ub[2];
            uint8_t lv[2] = { o.swo, o.swo };
            size_t k = 0;
            etm_uart_feed(&uart, lv, 2, ub, 2, &k);
            for (size_t i = 0; i < k && nu < cap; i++)
                if (!ub[i].framing_error)
                    uout[nu++] = ub[i].value;
        }
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
        if (port_bits || swo) {
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
    CHECK_EQ(etm_cs_create(&f, port_bits && !swo ? ETM_CS_WAIT_FSYNC : 0, on_data, &got), ETM_OK);
    CHECK_EQ(etm_cs_feed(f, out, nout, &d), ETM_OK);
    CHECK_EQ(etm_cs_end(f, &d), ETM_OK);
    const etm_tpiu_stats_t *st = etm_tpiu_get_stats(t);
    if (!st->etb_wraps) /* every marker reached the output, as a marker */
        CHECK_EQ(etm_cs_triggers(f, NULL), st->triggers);
    CHECK(st->triggers > 5);
    etm_cs_destroy(f);
    if (swo) {
        CHECK_EQ(cap_pins.framing_errors, 0);
        CHECK_EQ(st->fsyncs + st->hsyncs, 0); /* SWO sends no syncs */
        CHECK_EQ(st->frames * 16, nout);
        CHECK_EQ(st->swo_bytes, nout);
    }
    if (read_line) {
        /* The analyzer samples on a little after the line has gone idle:
         * a Manchester packet ends where a bit without its middle shows. */
        uint8_t idle[64];
        memset(idle, protocol == ETM_TPIU_NRZ, sizeof idle);
        etm_uart_byte_t ub[2];
        size_t k = 0;
        etm_uart_feed(&uart, idle, 8u * (acpr + 1), ub, 2, &k);
        for (size_t i = 0; i < k && nu < cap; i++)
            if (!ub[i].framing_error)
                uout[nu++] = ub[i].value;
        etm_uart_end(&uart);
        CHECK_EQ(uart.framing_errors, 0);
        CHECK_EQ(uart.glitches, 0);
        CHECK_EQ(nu, nout);
        CHECK(nu == nout && memcmp(uout, out, nout) == 0);
    }
    free(uout);
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
    /* one pin at half the core clock carries 1875 bytes in 30000 cycles; SWO
     * in Manchester at a third of it, 2 bits a character more than 16 half-bits
     * a byte, about 300 */
    size_t least = swo ? 40 : 200;
    CHECK(sent.n[0] > least);
    if (w1)
        CHECK(sent.n[1] > least);
    if (port_bits && !swo) {
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

static void round_trip(unsigned port_bits, unsigned clk_div, unsigned queue, unsigned w0, unsigned w1,
                       unsigned etb_bytes, uint64_t seed)
{
    round_trip_swo(port_bits, clk_div, queue, w0, w1, etb_bytes, seed, ETM_TPIU_PARALLEL, 0);
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
    /* SWO: NRZ at the core clock and slower, Manchester; markers on TRIGIN. */
    for (unsigned acpr = 0; acpr < 3; acpr++) {
        round_trip_swo(4, 1, 32, 1, 1, 0, seed++, ETM_TPIU_NRZ, acpr);
        round_trip_swo(4, 1, 16, 2, 1, 0, seed++, ETM_TPIU_MANCHESTER, acpr);
    }
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
    /* Refused: the form (what is wanted), or a number (which, and why: etm/number.h). */
    static const struct { const char *s, *says; } bad[] = {
        { "4x", "PINS '4x' is no number" }, { "2:", "DIV (TRACECLK divider) '' is no number" },
        { ":2", "want PINS[:DIV]" }, { "0", "PINS '0' is out of range: 1 to 32" }, { "4:2:1", "want PINS[:DIV]" },
        { "", "want PINS[:DIV]" }, { "etb:64", "want PINS[:DIV]" },
        { "4294967297", "PINS '4294967297' is out of range: 1 to 32" },
        { "nrz:-1", "ACPR (the SWO prescaler) '-1' has a sign" },
        { "nrz:0,queue=4294967300", "queue (bytes) '4294967300' is out of range: 4 to 256" },
        { "nrz:0,trigdelay=18446744073709551617", "trigdelay (clocks) '18446744073709551617' is above 2^64-1" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(etm_tpiu_params_parse(&p, bad[i].s, 0, &d), ETM_ERR_ARG);
        CHECK_STR_CONTAINS(d.msg, bad[i].says);
    }
    CHECK_EQ(etm_tpiu_params_parse(&p, "nrz:0", 0, &d), ETM_OK);
    CHECK(p.protocol == ETM_TPIU_NRZ && p.acpr == 0);
    CHECK_EQ(etm_tpiu_params_parse(&p, "manchester:3,ffcr=0x100,restate=4", 0, &d), ETM_OK);
    CHECK(p.protocol == ETM_TPIU_MANCHESTER && p.acpr == 3 && p.ffcr == 0x100 && p.id_restate == 4);
    CHECK_EQ(etm_tpiu_params_parse(&p, "nrz:0,speed=3", 0, &d), ETM_ERR_ARG);
    CHECK_EQ(etm_tpiu_params_parse(&p, "nrz:", 0, &d), ETM_ERR_ARG);
    p.acpr = 8192;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "0 to 8191");
    CHECK_EQ(etm_tpiu_params_parse(&p, "etb:4096", 1, &d), ETM_OK);
    CHECK(p.port_bits == 0 && p.etb_bytes == 4096);
    CHECK_EQ(etm_tpiu_params_parse(&p, "etb:4k", 1, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "etb: (bytes) '4k' is no number");
    CHECK_EQ(etm_tpiu_params_parse(&p, "etb", 1, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "or etb:BYTES");
    etm_tpiu_params_default(&p);
    p.port_bits = 0;
    p.etb_bytes = 100;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "multiple of 16");
}

/* The programmer's model: the Cortex-M3 TPIU's identification, what each
 * register takes and what it ignores (DDI 0337 chapter 11), and the output
 * side following the registers. */
static void test_registers(void)
{
    etm_tpiu_params_t p;
    etm_tpiu_t *t;
    etm_diag_t d;
    etm_tpiu_params_default(&p);
    p.protocol = ETM_TPIU_MANCHESTER; /* the part's reset value */
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_OK);
    CHECK_EQ(etm_tpiu_reg_read(t, 0xFE0) | etm_tpiu_reg_read(t, 0xFE4) << 8, 0xB923); /* part 0x923, ARM */
    CHECK_EQ(etm_tpiu_reg_read(t, 0xFFC) << 24 | etm_tpiu_reg_read(t, 0xFF8) << 16 |
                 etm_tpiu_reg_read(t, 0xFF4) << 8 | etm_tpiu_reg_read(t, 0xFF0), 0xB105900Du);
    CHECK_EQ(etm_tpiu_reg_read(t, 0xFCC), 0x11);
    CHECK_EQ(etm_tpiu_reg_read(t, 0xFC8), 0xCA0);
    CHECK_EQ(etm_tpiu_reg_read(t, 0x004), 0x8); /* 4 pins */
    CHECK_EQ(etm_tpiu_reg_read(t, 0x0F0), 1);
    CHECK_EQ(etm_tpiu_reg_read(t, 0x304), 0x102);
    /* The firmware's sequence: ACPR 0, SPPR 2, FFCR 0x102. */
    CHECK(etm_tpiu_reg_write(t, 0x010, 0));
    CHECK(etm_tpiu_reg_write(t, 0x0F0, 2));
    CHECK(etm_tpiu_reg_write(t, 0x304, 0x102));
    CHECK_EQ(etm_tpiu_protocol(t), ETM_TPIU_NRZ);
    /* Bypassed (EnFCont clear) on SWO; TrigIn stays as the part has it. */
    CHECK(etm_tpiu_reg_write(t, 0x304, 0x000));
    CHECK_EQ(etm_tpiu_reg_read(t, 0x304), 0x100);
    /* Ignored: a size the port lacks or two at once, SPPR 3, a read-only register. */
    CHECK(!etm_tpiu_reg_write(t, 0x004, 0x4));
    CHECK(!etm_tpiu_reg_write(t, 0x004, 0x3));
    CHECK(!etm_tpiu_reg_write(t, 0x0F0, 3));
    CHECK(!etm_tpiu_reg_write(t, 0x300, 0));
    CHECK_EQ(etm_tpiu_get_stats(t)->apb_ignored, 4);
    CHECK(etm_tpiu_reg_write(t, 0x004, 0x80)); /* 8 pins */
    CHECK_EQ(etm_tpiu_reg_read(t, 0x004), 0x80);
    CHECK(etm_tpiu_reg_write(t, 0x010, 0xFFFF));
    CHECK_EQ(etm_tpiu_reg_read(t, 0x010), 0x1FFF); /* 13 bits */
    CHECK(etm_tpiu_reg_write(t, 0xFA0, 0x5));
    CHECK(etm_tpiu_reg_write(t, 0xFA4, 0x1));
    CHECK_EQ(etm_tpiu_reg_read(t, 0xFA4), 0x4);
    /* The trace port: the formatter cannot be bypassed, FFCR reads EnFCont. */
    CHECK(etm_tpiu_reg_write(t, 0x0F0, 0));
    CHECK_EQ(etm_tpiu_reg_read(t, 0x304), 0x102);
    /* The same through the APB: a write in its access phase, a read's data. */
    etm_tpiu_in_t in;
    etm_tpiu_out_t o;
    memset(&in, 0, sizeof in);
    in.psel = 1;
    in.pwrite = 1;
    in.paddr = 0x0F0;
    in.pwdata = 2;
    etm_tpiu_step(t, &in, &o); /* setup */
    CHECK_EQ(etm_tpiu_protocol(t), ETM_TPIU_PARALLEL);
    in.penable = 1;
    etm_tpiu_step(t, &in, &o); /* access */
    CHECK_EQ(etm_tpiu_protocol(t), ETM_TPIU_NRZ);
    in.pwrite = 0;
    etm_tpiu_step(t, &in, &o);
    CHECK_EQ(o.prdata, 2);
    CHECK_EQ(o.swo, 1); /* NRZ idles high */
    etm_tpiu_reset(t); /* the registers' reset values again */
    CHECK_EQ(etm_tpiu_protocol(t), ETM_TPIU_MANCHESTER);
    etm_tpiu_destroy(t);
    /* An ETB has no port to program. */
    etm_tpiu_params_default(&p);
    p.port_bits = 0;
    p.etb_bytes = 64;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_OK);
    CHECK(!etm_tpiu_reg_write(t, 0x0F0, 2));
    CHECK(!etm_tpiu_reg_write(t, 0x004, 1));
    etm_tpiu_destroy(t);
}

/* One source that never changes: its ID is stated again at the start of the
 * frame after every id_restate frames without an ID byte (the CoreSight
 * TPIU's rule, so that a capture starting late finds it), and never with 0. */
static void test_restate(unsigned every)
{
    etm_tpiu_params_t p;
    etm_tpiu_t *t;
    etm_diag_t d;
    etm_tpiu_params_default(&p);
    p.port_bits = 0;
    p.etb_bytes = 16 * 64;
    p.id_restate = every;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_OK);
    etm_tpiu_in_t in;
    etm_tpiu_out_t o;
    memset(&in, 0, sizeof in);
    for (unsigned c = 0; c < 15 * 40; c++) {
        in.src[0].valid = 1;
        in.src[0].id = 0x22;
        in.src[0].data[0] = (uint8_t)(c * 2); /* even: no ID-looking byte */
        etm_tpiu_step(t, &in, &o);
    }
    uint8_t buf[16 * 64];
    size_t n = etm_tpiu_etb_read(t, buf, sizeof buf);
    CHECK(n >= 16 * 30);
    unsigned ids = 0, since = 0, worst = 0;
    for (size_t f = 0; f < n; f += 16) { /* the last frame may be open */
        int id = 0;
        for (unsigned k = 0; k < 8 && f + 2 * k < n; k++)
            id |= buf[f + 2 * k] & 1;
        ids += (unsigned)id;
        since = id ? 0 : since + 1;
        worst = since > worst ? since : worst;
        if (f && every)
            CHECK(id == (since == 0) && (!id || buf[f] == (0x22 << 1 | 1)));
    }
    if (every) {
        CHECK_EQ(worst, every - 1);
        CHECK_EQ(etm_tpiu_get_stats(t)->restates, ids - 1);
    } else {
        CHECK_EQ(ids, 1);
    }
    etm_tpiu_destroy(t);
}

/* The resynchronisation a capture relies on: one source (ID 0x10) through
 * a 4-pin port with the defaults (a frame sync every 64 frames, the ID named
 * again after 8 frames without one). Read from the start of any frame, with
 * ETM_CS_WAIT_FSYNC, or with one byte lost anywhere, the deformatter gives a
 * run of the source's bytes that ends with the whole rest of the stream, and
 * what it misses after the cut or the loss is at most the bytes of 64 + 8 + 1
 * frames: the distance to the next frame sync, then to the next frame naming
 * the ID (and the frame the loss broke). */
static void test_resync(void)
{
    etm_tpiu_params_t p;
    etm_tpiu_t *t;
    etm_diag_t d;
    etm_tpiu_params_default(&p);
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_OK);
    size_t cap = 1u << 18, nout = 0, nsent = 0;
    uint8_t *out = (uint8_t *)malloc(cap), *sent = (uint8_t *)malloc(cap);
    etm_tpiu_cap_t pins;
    etm_tpiu_cap_init_for(&pins, t);
    etm_tpiu_in_t in;
    memset(&in, 0, sizeof in);
    test_rng_t r = { 77 };
    for (unsigned c = 0; c < 60000; c++) {
        if (!in.src[0].valid && c < 50000 && test_rand(&r) % 4) {
            in.src[0].valid = 1;
            in.src[0].id = 0x10;
            in.src[0].data[0] = (uint8_t)test_rand(&r);
        }
        etm_tpiu_out_t o;
        etm_tpiu_step(t, &in, &o);
        if (in.src[0].valid && o.atready[0]) {
            sent[nsent++] = in.src[0].data[0];
            in.src[0].valid = 0;
        }
        uint8_t b[4];
        unsigned nb = etm_tpiu_cap_step(&pins, &o, b);
        for (unsigned i = 0; i < nb && nout < cap; i++)
            out[nout++] = b[i];
        if (c == 50000)
            etm_tpiu_end(t);
    }
    CHECK(etm_tpiu_done(t));
    const size_t bound = (64 + 8 + 1) * 15; /* source bytes in 73 frames */
    uint8_t *cut = (uint8_t *)malloc(cap);
    unsigned worst_start = 0, worst_loss = 0, tried = 0;
    for (size_t at = 0; at + 2000 < nout; at += 97) {
        /* (a) from a frame's start: find frame starts by the frames the TPIU
         *     counted, i.e. any offset the first pass put a frame at; here:
         *     every offset, with the frame sync search. (b) one byte lost. */
        for (int lose = 0; lose < 2; lose++) {
            size_t n = 0;
            if (lose) {
                memcpy(cut, out, at);
                memcpy(cut + at, out + at + 1, nout - at - 1);
                n = nout - 1;
            } else {
                memcpy(cut, out + at, nout - at);
                n = nout - at;
            }
            streams_t got;
            memset(&got, 0, sizeof got);
            got.ids[0] = 0x10;
            got.ids[1] = 0x7E; /* none */
            got.b[0] = (uint8_t *)malloc(MAXB);
            got.b[1] = NULL;
            etm_cs_deformatter_t *f;
            CHECK_EQ(etm_cs_create(&f, lose ? 0 : ETM_CS_WAIT_FSYNC, on_data, &got), ETM_OK);
            etm_cs_feed(f, cut, n, &d);
            etm_cs_end(f, &d);
            if (lose)
                CHECK(etm_cs_realigns(f) <= 1);
            etm_cs_destroy(f);
            /* The bytes got end with sent's tail; the part of sent they lack
             * (beyond what came before the cut or the loss) is bounded. */
            size_t k = 0; /* how many of got's last bytes match sent's last */
            while (k < got.n[0] && k < nsent && got.b[0][got.n[0] - 1 - k] == sent[nsent - 1 - k])
                k++;
            size_t missing = nsent - k;
            if (lose) {
                /* got = sent up to the frame the loss broke, then bytes of
                 * misaligned frames until the next frame sync shows the loss
                 * (nothing can tell them apart before it), then sent's tail */
                streams_t ref;
                memset(&ref, 0, sizeof ref);
                ref.ids[0] = 0x10;
                ref.ids[1] = 0x7E;
                ref.b[0] = (uint8_t *)malloc(MAXB);
                CHECK_EQ(etm_cs_create(&f, 0, on_data, &ref), ETM_OK);
                etm_cs_feed(f, out, at, &d);
                etm_cs_destroy(f);
                size_t pre = ref.n[0] > 16 ? ref.n[0] - 16 : 0;
                CHECK(pre <= got.n[0] && memcmp(got.b[0], sent, pre) == 0);
                free(ref.b[0]);
                missing = missing > pre ? missing - pre : 0;
                worst_loss = missing > worst_loss ? (unsigned)missing : worst_loss;
            } else {
                size_t before = at * 15 / 16; /* the source's bytes before the cut, about */
                missing = missing > before ? missing - before : 0;
                worst_start = missing > worst_start ? (unsigned)missing : worst_start;
            }
            CHECK(missing <= bound + 30);
            free(got.b[0]);
            tried++;
        }
    }
    CHECK(tried > 100);
    CHECK(worst_start > 0 && worst_loss > 0); /* the cuts did cost something */
    printf("resync: %u cuts and losses; the most missed: %u bytes from a cut, %u from a lost byte (bound %u)\n",
           tried, worst_start, worst_loss, (unsigned)bound);
    free(cut);
    free(out);
    free(sent);
    etm_tpiu_destroy(t);
}

/* Firmware's setup through the stimulus: an interface record's PSELTPIU
 * transfer programs the TPIU, the ETM's own (PSEL) does not reach it; a
 * receiver set up for the reset line (Manchester) follows the line to NRZ at
 * a third of the clock and reads the ETM's bytes back. */
static void test_stimulus_apb(void)
{
    etm_tpiu_params_t p;
    etm_tpiu_t *t;
    etm_diag_t d;
    etm_tpiu_params_default(&p);
    p.port_bits = 1;
    p.protocol = ETM_TPIU_MANCHESTER; /* the part's reset values */
    p.queue_bytes = 4;
    CHECK_EQ(etm_tpiu_create(&t, &p, &d), ETM_OK);
    etm_tpiu_cap_t cap;
    etm_tpiu_cap_init_for(&cap, t);
    static const struct { uint8_t tpiu; uint16_t off; uint32_t v; } wr[] = {
        {0, 0x0F0, 2}, {1, 0x010, 2}, {1, 0x0F0, 2}, {1, 0x304, 0x102}};
    etm_in_t rec;
    etm_tpiu_in_t in;
    etm_tpiu_out_t o;
    uint8_t b[4];
    unsigned got_bytes = 0;
    uint8_t line[256];
    for (unsigned k = 0; k < sizeof wr / sizeof wr[0]; k++) {
        for (unsigned ph = 0; ph < 2; ph++) {
            memset(&rec, 0, sizeof rec);
            rec.psel = (uint8_t)!wr[k].tpiu;
            rec.pseltpiu = wr[k].tpiu;
            rec.penable = (uint8_t)ph;
            rec.pwrite = 1;
            rec.paddr = wr[k].off;
            rec.pwdata = wr[k].v;
            etm_tpiu_in_from_etm(&in, NULL, 0);
            etm_tpiu_in_apb(&in, &rec);
            CHECK_EQ(in.psel, wr[k].tpiu);
            etm_tpiu_step(t, &in, &o);
            got_bytes += etm_tpiu_cap_step(&cap, &o, b);
            etm_tpiu_cap_follow(&cap, t);
        }
        if (k == 0)
            CHECK_EQ(etm_tpiu_protocol(t), ETM_TPIU_MANCHESTER); /* the ETM's transfer */
    }
    CHECK_EQ(etm_tpiu_protocol(t), ETM_TPIU_NRZ);
    CHECK_EQ(etm_tpiu_acpr(t), 2);
    CHECK_EQ(got_bytes, 0);
    /* The ETM's bytes (ID 0x10) over the line as programmed. */
    etm_out_t eo;
    unsigned sent = 0, n = 0;
    for (unsigned cyc = 0; cyc < 20000 && !(sent == 40 && etm_tpiu_done(t)); cyc++) {
        memset(&eo, 0, sizeof eo);
        if (sent < 40 && etm_tpiu_ready(t, 0)) {
            eo.atvalid = 1;
            eo.atid = 0x10;
            eo.v3_count = 1;
            eo.v3_bytes[0] = (uint8_t)(0x40 + sent++);
        }
        if (sent == 40)
            etm_tpiu_end(t);
        etm_tpiu_in_from_etm(&in, &eo, 0);
        etm_tpiu_in_apb(&in, NULL);
        etm_tpiu_step(t, &in, &o);
        unsigned k = etm_tpiu_cap_step(&cap, &o, b);
        for (unsigned i = 0; i < k && n < sizeof line; i++)
            line[n++] = b[i];
        etm_tpiu_cap_follow(&cap, t);
    }
    CHECK_EQ(cap.framing_errors, 0);
    streams_t got;
    memset(&got, 0, sizeof got);
    got.ids[0] = 0x10;
    got.ids[1] = 0x7F;
    got.b[0] = (uint8_t *)malloc(MAXB);
    got.b[1] = (uint8_t *)malloc(MAXB);
    etm_cs_deformatter_t *f;
    CHECK_EQ(etm_cs_create(&f, 0, on_data, &got), ETM_OK);
    CHECK_EQ(etm_cs_feed(f, line, n, &d), ETM_OK);
    CHECK_EQ(etm_cs_end(f, &d), ETM_OK);
    etm_cs_destroy(f);
    CHECK_EQ(got.n[0], 40);
    unsigned wrong = 0;
    for (unsigned i = 0; i < got.n[0]; i++)
        wrong += got.b[0][i] != 0x40 + i;
    CHECK_EQ(wrong, 0);
    free(got.b[0]);
    free(got.b[1]);
    etm_tpiu_destroy(t);
}

int main(void)
{
    test_resync();
    test_stimulus_apb();
    test_hand_frame();
    test_registers();
    test_restate(8);
    test_restate(3);
    test_restate(0);
    test_round_trips();
    test_params();
    return test_report("test_tpiu");
}
