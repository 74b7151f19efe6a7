/* test_uart.c - the UART (8N1) decoder of etm/uart.h on lines drawn sample by
 * sample (tb/common/uartline.h): every byte value, lines off their nominal
 * rate up to the stated tolerance at every phase of the samples, the rate
 * measured, framing errors and the resynchronisation after them, glitches, an
 * idle or stuck line, a byte cut by the end, input in pieces, the first guess
 * of the rate from the shortest pulses, and the rates refused. */
#include <math.h>
#include <stdlib.h>

#include "etm/uart.h"
#include "test.h"
#include "uartline.h"

#define MAXS 200000
#define MAXB 4096

static uint8_t LV[MAXS];

/* What a decoding gave. */
typedef struct result {
    etm_uart_t u;
    etm_uart_byte_t b[MAXB];
    size_t n;
} result_t;

static result_t R;

static int manchester; /* decode() reads a Manchester line */

/* Decode lv[0..n) fed piece samples at a time, at most max bytes a call. */
static etm_err_t decode(const uint8_t *lv, size_t n, uint64_t rate, uint64_t baud, size_t piece, size_t max)
{
    memset(&R, 0, sizeof R);
    etm_err_t e = manchester ? etm_uart_init_manchester(&R.u, rate, baud, NULL) : etm_uart_init(&R.u, rate, baud, NULL);
    if (e != ETM_OK)
        return e;
    for (size_t i = 0; i < n;) {
        size_t m = n - i < piece ? n - i : piece, got;
        size_t took = etm_uart_feed(&R.u, lv + i, m, R.b + R.n, max < MAXB - R.n ? max : MAXB - R.n, &got);
        R.n += got;
        i += took;
    }
    etm_uart_end(&R.u);
    return ETM_OK;
}

/* The bytes decoded are want[0..count), starting at starts[], no framing error. */
static int same_bytes(const uint8_t *want, const uint64_t *starts, size_t count)
{
    if (R.n != count || R.u.framing_errors || R.u.bytes != count)
        return 0;
    for (size_t k = 0; k < count; k++)
        if (R.b[k].value != want[k] || R.b[k].framing_error || (starts && R.b[k].start != starts[k]))
            return 0;
    return 1;
}

/* Every value, back to back, 3 samples a bit (8 Mbaud at 24 MHz). */
static void test_every_value(void)
{
    uint8_t v[256];
    uint64_t starts[256];
    for (unsigned k = 0; k < 256; k++)
        v[k] = (uint8_t)k;
    uartline_bytes(LV, 10000, 5.3, 3.0, 0, v, 256, starts);
    CHECK_EQ(decode(LV, 10000, 24000000, 8000000, 10000, MAXB), ETM_OK);
    CHECK(same_bytes(v, starts, 256));
    CHECK_EQ(R.b[0].start, 6);
    CHECK_EQ(R.b[0].stop, 6 + 28); /* floor(9.5 * 3) samples after the edge */
    CHECK_EQ(R.u.glitches, 0);
    CHECK_EQ(R.u.cut, UINT64_MAX);
    CHECK(fabs(etm_uart_measured_baud(&R.u) / 8e6 - 1) < 0.005);
    CHECK(fabs(etm_uart_tolerance(&R.u) - (0.5 - 1.0 / 3) / 10) < 1e-12);
}

/* Lines off their nominal rate by up to 0.95 of the tolerance, at ten phases,
 * back to back and with idle gaps: every byte, and the rate measured to 0.5 %. */
static void test_tolerance(void)
{
    static const double spbs[] = { 3, 4, 8, 20 };
    static const double parts[] = { -0.95, -0.5, 0, 0.5, 0.95 };
    uint8_t v[200];
    uint64_t starts[200];
    test_rng_t rng = { 12345 };
    for (unsigned k = 0; k < 200; k++)
        v[k] = (uint8_t)test_rand(&rng);
    for (unsigned a = 0; a < 4; a++) {
        uint64_t rate = (uint64_t)(spbs[a] * 1000000), baud = 1000000;
        etm_uart_t probe;
        etm_uart_init(&probe, rate, baud, NULL);
        double tol = etm_uart_tolerance(&probe);
        for (unsigned p = 0; p < 5; p++)
            for (unsigned ph = 0; ph < 10; ph++)
                for (double gap = 0; gap < 1; gap += 0.37) {
                    double T = spbs[a] / (1 + parts[p] * tol); /* a line faster by parts*tol */
                    size_t n = (size_t)(10 + 200 * (10 + gap) * T + 3 * T);
                    uartline_bytes(LV, n, 10 + ph / 10.0, T, gap, v, 200, starts);
                    decode(LV, n, rate, baud, n, MAXB);
                    CHECK(same_bytes(v, starts, 200));
                    double meas = etm_uart_measured_baud(&R.u), real = (double)rate / T;
                    CHECK(fabs(meas / real - 1) < 0.005);
                }
    }
}

/* Far beyond the tolerance (10 % fast at 3 samples a bit, back to back) the
 * stop bit is read in the next start bit. */
static void test_beyond(void)
{
    uint8_t v[100];
    memset(v, 0x55, sizeof v);
    uartline_bytes(LV, 4000, 10, 3.0 / 1.1, 0, v, 100, NULL);
    decode(LV, 4000, 24000000, 8000000, 4000, MAXB);
    CHECK(R.u.framing_errors > 0);
}

/* A break (the line low for 15 bits) is a framing error where its stop bit
 * was read; the byte after the line is high again decodes. */
static void test_framing(void)
{
    const double T = 8;
    uint8_t v[2] = { 0xA5, 0x3C };
    memset(LV, 1, 2000);
    uint64_t s0 = uartline_byte(LV, 2000, 20, T, v[0]);
    memset(LV + 200, 0, 15 * 8);                  /* the break: 200 .. 319 */
    uint64_t s1 = uartline_byte(LV, 2000, 400, T, v[1]);
    decode(LV, 2000, 8000000, 1000000, 2000, MAXB);
    CHECK_EQ(R.n, 3);
    CHECK_EQ(R.b[0].start, s0);
    CHECK_EQ(R.b[0].value, v[0]);
    CHECK_EQ(R.b[1].framing_error, 1);
    CHECK_EQ(R.b[1].start, 200);
    CHECK_EQ(R.b[1].stop, 200 + 76);              /* floor(9.5 * 8) */
    CHECK_EQ(R.b[1].value, 0);
    CHECK_EQ(R.b[2].start, s1);
    CHECK_EQ(R.b[2].value, v[1]);
    CHECK_EQ(R.b[2].framing_error, 0);
    CHECK_EQ(R.u.bytes, 2);
    CHECK_EQ(R.u.framing_errors, 1);
}

/* A glitch (one sample low) is no byte; an idle line and a stuck-low line
 * give none; a line low from the start gives its first byte only after it
 * was high. */
static void test_glitch_idle(void)
{
    memset(LV, 1, 1000);
    LV[100] = 0;
    decode(LV, 1000, 8000000, 1000000, 1000, MAXB);
    CHECK_EQ(R.n, 0);
    CHECK_EQ(R.u.glitches, 1);
    memset(LV, 1, 1000);
    decode(LV, 1000, 8000000, 1000000, 1000, MAXB);
    CHECK_EQ(R.n + R.u.glitches + R.u.framing_errors, 0);
    memset(LV, 0, 1000);
    decode(LV, 1000, 8000000, 1000000, 1000, MAXB);
    CHECK_EQ(R.n + R.u.glitches + R.u.framing_errors, 0);
    uint8_t v = 0x81;
    uartline_bytes(LV, 1000, 300, 8, 0, &v, 1, NULL);
    memset(LV, 0, 50);                            /* low from the start, high at 50 */
    decode(LV, 1000, 8000000, 1000000, 1000, MAXB);
    CHECK_EQ(R.n, 1);
    CHECK_EQ(R.b[0].value, 0x81);
    CHECK_EQ(R.b[0].start, 300);
}

/* The samples end inside the last byte: it is not reported, its start is. */
static void test_cut(void)
{
    uint8_t v[3] = { 1, 2, 3 };
    uint64_t starts[3];
    uartline_bytes(LV, 1000, 10, 3, 1, v, 3, starts);
    size_t n = (size_t)starts[2] + 20;             /* before the last stop bit */
    decode(LV, n, 24000000, 8000000, n, MAXB);
    CHECK(same_bytes(v, starts, 2));
    CHECK_EQ(R.u.cut, starts[2]);
}

/* The same bytes whatever the pieces the samples come in and however few
 * bytes a call may return. */
static void test_pieces(void)
{
    uint8_t v[64];
    uint64_t starts[64];
    for (unsigned k = 0; k < 64; k++)
        v[k] = (uint8_t)(k * 37 + 1);
    uartline_bytes(LV, 3000, 7.7, 2.98, 0.2, v, 64, starts);
    static const size_t pieces[] = { 1, 7, 29, 64, 3000 };
    static const size_t maxes[] = { 1, 2, MAXB };
    for (unsigned p = 0; p < 5; p++)
        for (unsigned m = 0; m < 3; m++) {
            decode(LV, 3000, 24000000, 8000000, pieces[p], maxes[m]);
            CHECK(same_bytes(v, starts, 64));
        }
}

/* The first guess of a bit's time from the shortest pulses, idle times of
 * whole bits (a transmitter clocked at the bit rate) or, from 10 samples a
 * bit, half bits; the rate a decoding at the guess measures. */
static void test_runs(void)
{
    static const double Ts[] = { 2.98, 3.0, 3.4, 4.4, 10.3, 50 };
    static const double gaps[] = { 0, 1, 0, 1, 0.5, 0.5 };
    uint8_t v[300];
    test_rng_t rng = { 99 };
    for (unsigned k = 0; k < 300; k++)
        v[k] = (uint8_t)test_rand(&rng);
    for (unsigned t = 0; t < 6; t++) {
        size_t n = (size_t)(300 * 12 * Ts[t] + 100);
        uartline_bytes(LV, n, 5.5, Ts[t], gaps[t], v, 300, NULL);
        etm_uart_runs_t r;
        etm_uart_runs_init(&r);
        for (size_t i = 0; i < n; i += 1000)
            etm_uart_runs_feed(&r, LV + i, n - i < 1000 ? n - i : 1000);
        double bit = etm_uart_runs_bit(&r);
        CHECK(fabs(bit / Ts[t] - 1) < 0.03);
        /* a decoding at the guess measures the rate */
        decode(LV, n, 24000000, (uint64_t)(24000000 / bit + 0.5), n, MAXB);
        CHECK(fabs(etm_uart_measured_baud(&R.u) * Ts[t] / 24000000 - 1) < 0.005);
    }
    etm_uart_runs_t r;
    etm_uart_runs_init(&r);
    memset(LV, 1, 100);
    LV[50] = 0;
    etm_uart_runs_feed(&r, LV, 100);
    CHECK(etm_uart_runs_bit(&r) == 0.0); /* two pulses: too few */
}

/* Rates that cannot be decoded are refused with a reason. */
static void test_init(void)
{
    etm_uart_t u;
    etm_diag_t d;
    etm_diag_clear(&d);
    CHECK_EQ(etm_uart_init(&u, 0, 9600, &d), ETM_ERR_ARG);
    CHECK_EQ(etm_uart_init(&u, 24000000, 12000001, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "a bit needs at least 2 samples");
    CHECK_EQ(etm_uart_init(&u, 24000000, 12000000, &d), ETM_OK);
    CHECK_EQ(etm_uart_init(&u, 1000000000, 1, &d), ETM_ERR_ARG);
    CHECK_STR_CONTAINS(d.msg, "samples a bit");
}

/* Manchester: every value in packets of 1, 2 and 3 bytes at 5, 10 and 24
 * samples a bit, lines off their rate by up to 0.95 of the tolerance at ten
 * phases, fed whole or in pieces: every byte, each packet's first byte at its
 * start, the rate measured; a bit without its middle and a packet that ends
 * high are framing errors, the packets after them still read; a pulse that is
 * no start bit a glitch; a line that starts high; fewer than 4 samples a bit
 * refused. */
static void test_manchester(void)
{
    manchester = 1;
    uint8_t v[256];
    uint64_t starts[256];
    for (unsigned k = 0; k < 256; k++)
        v[k] = (uint8_t)(k * 37 + 11);
    static const double spbs[] = { 5, 10, 24 };
    static const double parts[] = { -0.95, 0, 0.95 };
    for (unsigned a = 0; a < 3; a++) {
        uint64_t rate = (uint64_t)(spbs[a] * 1000000), baud = 1000000;
        etm_uart_t probe;
        CHECK_EQ(etm_uart_init_manchester(&probe, rate, baud, NULL), ETM_OK);
        double tol = etm_uart_tolerance(&probe);
        CHECK(fabs(tol - (0.25 - 1 / spbs[a])) < 1e-12);
        for (unsigned p = 0; p < 3; p++)
            for (unsigned ph = 0; ph < 10; ph++)
                for (unsigned per = 1; per <= 3; per++) {
                    double T = spbs[a] / (1 + parts[p] * tol), gap = 1 + 0.37 * per;
                    size_t n = (size_t)(10 + 256 * 9 * T + 256 * (1 + gap) * T + 3 * T);
                    manchline_bytes(LV, n, 10 + ph / 10.0, T, gap, v, 256, per, starts);
                    decode(LV, n, rate, baud, p == 1 ? 97 : n, p == 2 ? 3 : MAXB);
                    CHECK(same_bytes(v, NULL, 256));
                    CHECK_EQ(R.u.glitches, 0);
                    unsigned wrong = 0;
                    for (unsigned k = 0; k < 256; k += per)
                        wrong += R.n == 256 && R.b[k].start != starts[k / per];
                    CHECK_EQ(wrong, 0);
                    double meas = etm_uart_measured_baud(&R.u), real = (double)rate / T;
                    CHECK(fabs(meas / real - 1) < 0.01);
                }
    }
    /* The fewest samples a bit, 4, on the nominal rate. */
    manchline_bytes(LV, 20000, 10.5, 4.0, 1, v, 256, 2, NULL);
    decode(LV, 20000, 4000000, 1000000, 20000, MAXB);
    CHECK(same_bytes(v, NULL, 256));
    CHECK_EQ(etm_uart_tolerance(&R.u), 0.0);
    /* A bit without its middle, then a packet whose end is high: framing
     * errors; the packets after each are read. */
    static const uint8_t w[4] = { 0xA5, 0x3C, 0x0F, 0x81 };
    double t = 10;
    memset(LV, 0, 2000);
    t = manchline_packet(LV, 2000, t, 10.0, &w[0], 1);
    for (size_t i = 10 + 30; i < 10 + 40; i++)
        LV[i] = 1; /* 0xA5's bit 2 (a 1): high in both halves */
    t = manchline_packet(LV, 2000, t + 30, 10.0, &w[1], 1);
    double t2 = t + 30;
    t = manchline_packet(LV, 2000, t2, 10.0, &w[2], 1);
    for (size_t i = (size_t)t; i < (size_t)t + 20; i++)
        LV[i] = 1; /* 0x0F's end: high */
    manchline_packet(LV, 2000, t + 50, 10.0, &w[3], 1);
    decode(LV, 2000, 10000000, 1000000, 2000, MAXB);
    CHECK(R.u.framing_errors >= 2);
    CHECK(R.n >= 4 && R.b[0].framing_error);
    int seen3c = 0, seen81 = 0, bad0f = 0;
    for (size_t k = 0; k < R.n; k++) {
        seen3c += !R.b[k].framing_error && R.b[k].value == 0x3C && R.b[k].start == 10 + 90 + 30;
        seen81 += !R.b[k].framing_error && R.b[k].value == 0x81;
        bad0f += R.b[k].framing_error && R.b[k].value == 0x0F && R.b[k].start == (uint64_t)t2;
    }
    CHECK(seen3c == 1 && seen81 == 1 && bad0f == 1);
    /* A pulse that is no start bit (high for a whole bit): a glitch. */
    memset(LV, 0, 400);
    for (size_t i = 50; i < 60; i++)
        LV[i] = 1;
    manchline_packet(LV, 400, 200, 10.0, &w[1], 1);
    decode(LV, 400, 10000000, 1000000, 400, MAXB);
    CHECK_EQ(R.u.glitches, 1);
    CHECK(R.n == 1 && R.b[0].value == 0x3C && !R.b[0].framing_error);
    /* A line that starts high finds its first packet after it was low. */
    memset(LV, 0, 400);
    memset(LV, 1, 30);
    manchline_packet(LV, 400, 100, 10.0, &w[3], 1);
    decode(LV, 400, 10000000, 1000000, 400, MAXB);
    CHECK(R.n == 1 && R.b[0].value == 0x81 && R.u.glitches == 0);
    /* The capture ends before a packet's end: its last byte is cut. */
    memset(LV, 0, 400);
    manchline_packet(LV, 400, 100, 10.0, w, 2);
    decode(LV, 100 + 170 + 5, 10000000, 1000000, 400, MAXB);
    CHECK(R.n == 1 && R.b[0].value == 0xA5 && R.u.cut == 100 + 90);
    etm_diag_t d;
    CHECK_EQ(etm_uart_init_manchester(&R.u, 3999999, 1000000, &d), ETM_ERR_ARG);
    CHECK(strstr(d.msg, "at least 4 samples") != NULL);
    CHECK_EQ(etm_uart_init_manchester(&R.u, 4000000, 1000000, &d), ETM_OK);
    manchester = 0;
}

int main(void)
{
    test_every_value();
    test_tolerance();
    test_beyond();
    test_framing();
    test_glitch_idle();
    test_cut();
    test_pieces();
    test_runs();
    test_init();
    test_manchester();
    return test_report("test_uart");
}
