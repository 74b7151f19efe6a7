/* test_sigrok.c - the sigrok session file reader (etm/sigrok.h) on captures
 * this test writes itself: a zip writer of its own (stored entries, deflated
 * ones through zlib's deflate, zip64 end records and extra fields), the
 * metadata and the sample chunks as libsigrok lays them out. Covers the
 * probes by name and number, several chunks, samples of two bytes, the old
 * single-entry layout, a UART line read through it whose bytes cross chunk
 * boundaries, and every error: not a zip, cut short, another compression,
 * encryption, a broken CRC or deflate stream, no metadata, no sample rate, a
 * unitsize too large, a probe not there, a chunk missing or twice. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* fmemopen */
#endif
#include <stdio.h>
#include <stdlib.h>

#include <zlib.h>

#include "etm/sigrok.h"
#include "etm/uart.h"
#include "test.h"
#include "uartline.h"

/* ---- A zip writer ------------------------------------------------------------ */

#define ZMAX (1u << 22)
#define ZENT 32

typedef struct zent {
    char name[64];
    unsigned method;
    uint32_t crc;
    size_t csize, usize, lho;
    size_t cdh;      /* where its central directory header is */
} zent_t;

typedef struct zipw {
    uint8_t *p;      /* the archive */
    size_t n;
    size_t cd;       /* where the central directory is */
    zent_t e[ZENT];
    unsigned ne;
    int zip64;       /* write zip64 end records and extra fields */
} zipw_t;

static void put(zipw_t *z, const void *b, size_t n)
{
    if (z->n + n <= ZMAX)
        memcpy(z->p + z->n, b, n);
    z->n += n;
}
static void put16(zipw_t *z, unsigned v) { uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) }; put(z, b, 2); }
static void put32(zipw_t *z, uint32_t v) { put16(z, v & 0xFFFFu); put16(z, v >> 16); }
static void put64(zipw_t *z, uint64_t v) { put32(z, (uint32_t)v); put32(z, (uint32_t)(v >> 32)); }

static void zw_init(zipw_t *z, int zip64)
{
    memset(z, 0, sizeof *z);
    z->p = (uint8_t *)malloc(ZMAX);
    z->zip64 = zip64;
}

/* An entry: stored (method 0), deflated (8) or marked with another method
 * (its bytes stored). */
static void zw_add(zipw_t *z, const char *name, const void *data, size_t n, unsigned method)
{
    zent_t *e = &z->e[z->ne++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->method = method;
    e->crc = (uint32_t)crc32(0L, (const Bytef *)data, (uInt)n);
    e->usize = n;
    e->lho = z->n;
    uint8_t *c = (uint8_t *)malloc(compressBound((uLong)n) + 64);
    size_t cn = n;
    if (method == 8) {
        z_stream s;
        memset(&s, 0, sizeof s);
        deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        s.next_in = (Bytef *)data;
        s.avail_in = (uInt)n;
        s.next_out = c;
        s.avail_out = (uInt)(compressBound((uLong)n) + 64);
        deflate(&s, Z_FINISH);
        cn = s.total_out;
        deflateEnd(&s);
    } else {
        memcpy(c, data, n);
    }
    e->csize = cn;
    put32(z, 0x04034b50u);
    put16(z, 20), put16(z, 0), put16(z, method), put32(z, 0), put32(z, e->crc);
    put32(z, (uint32_t)cn), put32(z, (uint32_t)n), put16(z, (unsigned)strlen(e->name)), put16(z, 0);
    put(z, e->name, strlen(e->name));
    put(z, c, cn);
    free(c);
}

/* The central directory and the end record(s). */
static void zw_finish(zipw_t *z)
{
    size_t cd = z->cd = z->n;
    for (unsigned k = 0; k < z->ne; k++) {
        zent_t *e = &z->e[k];
        e->cdh = z->n;
        uint32_t wide = z->zip64 ? 0xFFFFFFFFu : 0;
        put32(z, 0x02014b50u);
        put16(z, 45), put16(z, 45), put16(z, 0), put16(z, e->method), put32(z, 0), put32(z, e->crc);
        put32(z, wide ? wide : (uint32_t)e->csize), put32(z, wide ? wide : (uint32_t)e->usize);
        put16(z, (unsigned)strlen(e->name)), put16(z, z->zip64 ? 28 : 0), put16(z, 0);
        put16(z, 0), put16(z, 0), put32(z, 0), put32(z, wide ? wide : (uint32_t)e->lho);
        put(z, e->name, strlen(e->name));
        if (z->zip64) {
            put16(z, 1), put16(z, 24), put64(z, e->usize), put64(z, e->csize), put64(z, e->lho);
        }
    }
    size_t cd_size = z->n - cd, end64 = z->n;
    if (z->zip64) {
        put32(z, 0x06064b50u), put64(z, 44), put16(z, 45), put16(z, 45), put32(z, 0), put32(z, 0);
        put64(z, z->ne), put64(z, z->ne), put64(z, cd_size), put64(z, cd);
        put32(z, 0x07064b50u), put32(z, 0), put64(z, end64), put32(z, 1);
    }
    put32(z, 0x06054b50u);
    put16(z, 0), put16(z, 0);
    put16(z, z->zip64 ? 0xFFFFu : z->ne), put16(z, z->zip64 ? 0xFFFFu : z->ne);
    put32(z, z->zip64 ? 0xFFFFFFFFu : (uint32_t)cd_size), put32(z, z->zip64 ? 0xFFFFFFFFu : (uint32_t)cd);
    put16(z, 0);
}

/* ---- Captures ----------------------------------------------------------------- */

static const char META_SWO[] = "[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\n"
                               "total probes=8\nsamplerate=24 MHz\ntotal analog=0\nprobe3=PC9\n"
                               "probe5=SWO\nprobe7=PC8\nunitsize=1\n";

/* A capture of version 2 with the metadata meta and the samples cut into
 * chunks of chunk bytes, all entries with method. */
static void capture(zipw_t *z, const char *meta, const uint8_t *samples, size_t n, size_t chunk, unsigned method)
{
    zw_add(z, "version", "2", 1, 0);
    zw_add(z, "metadata", meta, strlen(meta), method);
    for (size_t k = 0, i = 1; k < n; k += chunk, i++) {
        char name[32];
        snprintf(name, sizeof name, "logic-1-%zu", i);
        zw_add(z, name, samples + k, n - k < chunk ? n - k : chunk, method);
    }
    zw_finish(z);
}

static etm_sigrok_t *S;
static etm_diag_t D;
static FILE *F;

/* Open the archive z was writing. */
static etm_err_t open_zip(const zipw_t *z)
{
    etm_sigrok_close(S);
    S = NULL;
    if (F)
        fclose(F);
    F = fmemopen(z->p, z->n, "rb");
    etm_diag_clear(&D);
    return etm_sigrok_open_stream(&S, F, "mem.sr", &D);
}

/* Every sample of the probe named name into lv (at most max), read piece at a
 * time. Returns what the last read returned; *n the samples. */
static etm_err_t read_probe(const char *name, uint8_t *lv, size_t max, size_t piece, size_t *n)
{
    unsigned bit;
    *n = 0;
    etm_err_t e = etm_sigrok_find_probe(S, name, &bit, &D);
    if (e == ETM_OK)
        e = etm_sigrok_start(S, bit, &D);
    size_t got;
    while (e == ETM_OK && *n < max && (e = etm_sigrok_read(S, lv + *n, piece < max - *n ? piece : max - *n, &got,
                                                           &D)) == ETM_OK)
        *n += got;
    return e;
}

#define NS 30000
static uint8_t RAW[2 * NS], LV[NS], GOT[NS + 1]; /* GOT: room for one more, so that a read sees the end */

/* A line on bit 4 (SWO) and a square wave on bit 2 (PC9): unitsize 1. */
static void make_samples(const uint8_t *line, size_t n)
{
    for (size_t i = 0; i < n; i++)
        RAW[i] = (uint8_t)(line[i] << 4 | ((i / 7) & 1) << 2 | 0x80);
}

/* Probes, several chunks, stored and deflated, read in pieces of all sizes. */
static void test_read(void)
{
    for (size_t i = 0; i < NS; i++)
        LV[i] = (uint8_t)((i * 2654435761u) >> 31 & 1);
    make_samples(LV, NS);
    static const unsigned methods[] = { 0, 8 };
    static const size_t chunks[] = { NS, 4096, 1001 };
    static const size_t pieces[] = { 1, 333, NS };
    for (unsigned m = 0; m < 2; m++)
        for (unsigned c = 0; c < 3; c++) {
            zipw_t z;
            zw_init(&z, c == 2);
            capture(&z, META_SWO, RAW, NS, chunks[c], methods[m]);
            CHECK_EQ(open_zip(&z), ETM_OK);
            const etm_sigrok_info_t *in = etm_sigrok_get_info(S);
            CHECK_EQ(in->samplerate, 24000000);
            CHECK_EQ(in->samples, NS);
            CHECK_EQ(in->probes, 8);
            CHECK_EQ(in->unitsize, 1);
            CHECK_EQ(in->version, 2);
            CHECK_EQ(in->chunks, (NS + chunks[c] - 1) / chunks[c]);
            CHECK(!strcmp(in->probe_name[4], "SWO") && !in->probe_name[3][0]);
            for (unsigned p = 0; p < 3; p++) {
                size_t n;
                CHECK_EQ(read_probe("SWO", GOT, sizeof GOT, pieces[p], &n), ETM_END);
                CHECK(n == NS && !memcmp(GOT, LV, NS));
                CHECK_EQ(etm_sigrok_position(S), NS);
            }
            size_t n;
            CHECK_EQ(read_probe("3", GOT, sizeof GOT, 4000, &n), ETM_END); /* PC9 by its number */
            CHECK(n == NS && GOT[6] == 0 && GOT[7] == 1 && GOT[14] == 0);
            CHECK_EQ(read_probe("swo", GOT, 10, 10, &n), ETM_OK);  /* the one name but for case */
            CHECK_EQ(read_probe("8", GOT, sizeof GOT, NS, &n), ETM_END);    /* a probe without a name */
            CHECK(n == NS && GOT[0] == 1 && GOT[NS - 1] == 1);
            free(z.p);
        }
}

/* Samples of two bytes, probe 12 (bit 11), and the old layout: one entry
 * named after capturefile, no version entry. */
static void test_wide_and_old(void)
{
    static const char meta[] = "[device 1]\ncapturefile=logic-1\ntotal probes=16\nsamplerate=500 kHz\n"
                               "probe12=TRACESWO\nunitsize=2\n";
    for (size_t i = 0; i < 5000; i++) {
        LV[i] = (uint8_t)(i % 3 == 0);
        RAW[2 * i] = 0xFF;
        RAW[2 * i + 1] = (uint8_t)(LV[i] << 3 | 0x04);
    }
    zipw_t z;
    zw_init(&z, 0);
    zw_add(&z, "metadata", meta, strlen(meta), 8);
    zw_add(&z, "logic-1", RAW, 10000, 8);
    zw_finish(&z);
    CHECK_EQ(open_zip(&z), ETM_OK);
    CHECK_EQ(etm_sigrok_get_info(S)->version, 0);
    CHECK_EQ(etm_sigrok_get_info(S)->samplerate, 500000);
    CHECK_EQ(etm_sigrok_get_info(S)->chunks, 1);
    size_t n;
    CHECK_EQ(read_probe("TRACESWO", GOT, sizeof GOT, 777, &n), ETM_END);
    CHECK(n == 5000 && !memcmp(GOT, LV, 5000));
    free(z.p);
}

/* A UART line through the reader: bytes across chunk boundaries (chunks of
 * 1000 samples, bytes of 30), the last byte cut by the capture's end. */
static void test_uart_through(void)
{
    uint8_t v[100];
    uint64_t starts[100];
    for (unsigned k = 0; k < 100; k++)
        v[k] = (uint8_t)(0x5A ^ k * 11);
    size_t n = (size_t)uartline_bytes(LV, NS, 100.4, 2.98, 0, v, 100, starts) - 10; /* the last stop bit cut */
    make_samples(LV, n);
    zipw_t z;
    zw_init(&z, 0);
    capture(&z, META_SWO, RAW, n, 1000, 8);
    CHECK_EQ(open_zip(&z), ETM_OK);
    unsigned bit;
    CHECK_EQ(etm_sigrok_find_probe(S, "SWO", &bit, &D), ETM_OK);
    CHECK_EQ(etm_sigrok_start(S, bit, &D), ETM_OK);
    etm_uart_t u;
    etm_uart_byte_t b[128];
    size_t nb = 0, got, m;
    CHECK_EQ(etm_uart_init(&u, 24000000, 8000000, &D), ETM_OK);
    while (etm_sigrok_read(S, GOT, 500, &m, &D) == ETM_OK)
        for (size_t i = 0; i < m;) {
            i += etm_uart_feed(&u, GOT + i, m - i, b + nb, 128 - nb, &got);
            nb += got;
        }
    etm_uart_end(&u);
    CHECK_EQ(nb, 99);
    int same = 1;
    for (unsigned k = 0; k < 99 && k < nb; k++)
        same &= b[k].value == v[k] && b[k].start == starts[k] && !b[k].framing_error;
    CHECK(same);
    CHECK_EQ(u.cut, starts[99]);
    CHECK(starts[30] / 1000 != (starts[30] + 28) / 1000); /* a byte across a boundary */
    free(z.p);
}

/* Change the archive: patch bytes at an offset. */
static void patch(zipw_t *z, size_t at, const void *b, size_t n) { memcpy(z->p + at, b, n); }

/* Open fails with code and a message holding text. */
#define OPEN_FAILS(z, code, text)                                                                   \
    do {                                                                                             \
        CHECK_EQ(open_zip(z), code);                                                                 \
        CHECK(S == NULL);                                                                            \
        CHECK_STR_CONTAINS(D.msg, text);                                                             \
        CHECK(D.file && !strcmp(D.file, "mem.sr"));                                                  \
    } while (0)

/* A good capture of 2000 samples, stored, into z. */
static void good(zipw_t *z, const char *meta)
{
    memset(RAW, 0x10, 2000);
    zw_init(z, 0);
    capture(z, meta, RAW, 2000, 1000, 0);
}

/* Archives that are not zips or are broken. */
static void test_zip_errors(void)
{
    zipw_t z;
    zw_init(&z, 0);
    put(&z, META_SWO, strlen(META_SWO));
    OPEN_FAILS(&z, ETM_ERR_SYNTAX, "not a zip file, or one cut short");
    z.n = 10;
    OPEN_FAILS(&z, ETM_ERR_SYNTAX, "fewer than a zip's end record");
    free(z.p);
    good(&z, META_SWO);
    z.n -= 30; /* the end record cut */
    OPEN_FAILS(&z, ETM_ERR_SYNTAX, "not a zip file, or one cut short");
    free(z.p);
    good(&z, META_SWO);
    uint8_t zero4[4] = { 0, 0, 0, 0 };
    patch(&z, z.n - 6, zero4, 4);                            /* the central directory's offset: 0 */
    OPEN_FAILS(&z, ETM_ERR_SYNTAX, "no directory header here");
    free(z.p);
    good(&z, META_SWO);
    patch(&z, z.e[2].cdh + 10, "\x0c", 1);                    /* logic-1-1's method: bzip2 */
    CHECK_EQ(open_zip(&z), ETM_OK);
    size_t n;
    CHECK_EQ(read_probe("SWO", GOT, sizeof GOT, NS, &n), ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(D.msg, "entry 'logic-1-1' is compressed with method 12 (bzip2): only stored (0) and deflated");
    patch(&z, z.e[2].cdh + 8, "\x01", 1);                     /* and encrypted */
    OPEN_FAILS(&z, ETM_ERR_UNSUPPORTED, "entry 'logic-1-1' is encrypted");
    free(z.p);
    good(&z, META_SWO);
    z.p[z.e[3].lho + 30 + 9 + 500] ^= 1;                     /* a sample of logic-1-2 */
    CHECK_EQ(open_zip(&z), ETM_OK);
    CHECK_EQ(read_probe("SWO", GOT, sizeof GOT, 300, &n), ETM_ERR_DECODE);
    CHECK_STR_CONTAINS(D.msg, "entry 'logic-1-2': the CRC-32 of its 1000 bytes is");
    CHECK_EQ(n, 1000); /* logic-1-1's samples, none of logic-1-2's */
    free(z.p);
}

/* Deflate data broken or cut short. */
static void test_deflate_errors(void)
{
    zipw_t z;
    for (size_t i = 0; i < 4000; i++)
        RAW[i] = (uint8_t)(i * 7 >> 3);
    zw_init(&z, 0);
    capture(&z, META_SWO, RAW, 4000, 4000, 8);
    memset(z.p + z.e[2].lho + 30 + 9, 0xFF, 4);              /* logic-1-1's first deflate block */
    CHECK_EQ(open_zip(&z), ETM_OK);
    size_t n;
    CHECK_EQ(read_probe("SWO", GOT, sizeof GOT, NS, &n), ETM_ERR_DECODE);
    CHECK_STR_CONTAINS(D.msg, "entry 'logic-1-1': its deflate data is broken after");
    CHECK_EQ(D.offset, z.e[2].lho + 30 + 9);
    free(z.p);
    zw_init(&z, 0);
    capture(&z, META_SWO, RAW, 4000, 4000, 8);
    static const uint8_t big[4] = { 0xB0, 0x0F, 0, 0 };      /* logic-1-1 holds 4000 bytes: say 4016 */
    patch(&z, z.e[2].cdh + 24, big, 4);
    CHECK_EQ(open_zip(&z), ETM_OK);
    CHECK_EQ(read_probe("SWO", GOT, sizeof GOT, NS, &n), ETM_ERR_TRUNCATED);
    CHECK_STR_CONTAINS(D.msg, "entry 'logic-1-1': its deflate data ends after 4000 of its 4016 bytes");
    free(z.p);
}

/* Metadata that is missing, incomplete or wrong. */
static void test_meta_errors(void)
{
    static const struct {
        const char *meta;
        etm_err_t code;
        const char *text;
    } cases[] = {
        { "[device 1]\ncapturefile=logic-1\nunitsize=1\n", ETM_ERR_MISSING_HEADER, "[device 1] has no samplerate" },
        { "[device 1]\nsamplerate=1 MHz\nunitsize=1\n", ETM_ERR_MISSING_HEADER, "has no capturefile" },
        { "[device 1]\ncapturefile=logic-1\nsamplerate=24 Mz\nunitsize=1\n", ETM_ERR_SYNTAX,
          "line 3: samplerate '24 Mz' is not a rate" },
        { "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=9\n", ETM_ERR_UNSUPPORTED,
          "unitsize 9: samples of at most 8 bytes (64 probes) are read" },
        { "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=1\ntotal probes=9\n", ETM_ERR_SYNTAX,
          "total probes 9 do not fit in samples of unitsize 1" },
        { "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\ntotal probes=4\nprobe5=X\n", ETM_ERR_SYNTAX,
          "probe5 is named, but total probes is 4" },
        { "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=one\n", ETM_ERR_SYNTAX,
          "line 4: unitsize 'one' is not a whole number" },
        { "[device 1\n", ETM_ERR_SYNTAX, "line 1: a section header without ']'" },
        { "[device 1]\nsamplerate\n", ETM_ERR_SYNTAX, "line 2: neither a [section] nor a key=value line" },
        { "[device 1]\ncapturefile=logic-2\nsamplerate=1 MHz\nunitsize=1\n", ETM_ERR_MISSING_HEADER,
          "no samples: the zip holds neither 'logic-2-1' nor 'logic-2'" },
        { "[device 1]\ncapturefile=logic-1\nsamplerate=1 MHz\nunitsize=3\n", ETM_ERR_SYNTAX,
          "entry 'logic-1-1' holds 1000 bytes: not a whole number of samples of 3 bytes" },
    };
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        zipw_t z;
        good(&z, cases[k].meta);
        OPEN_FAILS(&z, cases[k].code, cases[k].text);
        free(z.p);
    }
    zipw_t z;
    zw_init(&z, 0);
    zw_add(&z, "version", "2", 1, 0);
    zw_add(&z, "logic-1-1", RAW, 100, 0);
    zw_finish(&z);
    OPEN_FAILS(&z, ETM_ERR_MISSING_HEADER, "a zip file without a 'metadata' entry: not a sigrok session file");
    free(z.p);
    zw_init(&z, 0);
    zw_add(&z, "version", "3\n", 2, 0);
    zw_add(&z, "metadata", META_SWO, strlen(META_SWO), 0);
    zw_finish(&z);
    OPEN_FAILS(&z, ETM_ERR_FORMAT_VERSION, "entry 'version' says '3': sigrok session files of versions 1 and 2");
    free(z.p);
}

/* A capture whose two chunks of 100 samples are named first and second. */
static void two_chunks(zipw_t *z, const char *first, const char *second)
{
    zw_init(z, 0);
    zw_add(z, "metadata", META_SWO, strlen(META_SWO), 0);
    zw_add(z, first, RAW, 100, 0);
    zw_add(z, second, RAW, 100, 0);
    zw_finish(z);
}

/* Chunks missing or twice; a probe not there. */
static void test_chunk_probe_errors(void)
{
    zipw_t z;
    two_chunks(&z, "logic-1-1", "logic-1-3");
    OPEN_FAILS(&z, ETM_ERR_MISSING_HEADER, "entry 'logic-1-3': 2 chunks of samples, but this one is number 3");
    free(z.p);
    two_chunks(&z, "logic-1-1", "logic-1-1");
    OPEN_FAILS(&z, ETM_ERR_DUPLICATE, "entry 'logic-1-1' is in the zip twice");
    free(z.p);
    good(&z, META_SWO);
    CHECK_EQ(open_zip(&z), ETM_OK);
    unsigned bit;
    CHECK_EQ(etm_sigrok_find_probe(S, "TRACESWO", &bit, &D), ETM_ERR_UNKNOWN_NAME);
    CHECK_STR_CONTAINS(D.msg, "no probe 'TRACESWO': the probes are named 3 PC9, 5 SWO, 7 PC8, or numbered 1 to 8");
    CHECK_EQ(etm_sigrok_find_probe(S, "9", &bit, &D), ETM_ERR_UNKNOWN_NAME);
    size_t n;
    CHECK_EQ(etm_sigrok_read(S, GOT, 10, &n, &D), ETM_ERR_STATE);
    CHECK_EQ(etm_sigrok_start(S, 8, &D), ETM_ERR_ARG);
    free(z.p);
    etm_sigrok_close(S);
    S = NULL;
    CHECK_EQ(etm_sigrok_open(&S, "no/such/capture.sr", &D), ETM_ERR_IO);
    CHECK(S == NULL && !strcmp(D.file, "no/such/capture.sr"));
    CHECK_STR_CONTAINS(D.msg, "cannot open the capture");
}

/* Rates as libsigrok writes them and as a user types them. */
static void test_rates(void)
{
    static const struct {
        const char *s;
        uint64_t hz;
    } good_rates[] = { { "24 MHz", 24000000 }, { "1 GHz", 1000000000 }, { "500 kHz", 500000 }, { "200 Hz", 200 },
                       { "8M", 8000000 }, { "8.051M", 8051000 }, { "115200", 115200 }, { "2.25 MHz", 2250000 } };
    static const char *const bad_rates[] = { "", "MHz", "24 MHz x", "0", "1.5", "-3", "24 mHz", "1e6" };
    for (unsigned k = 0; k < sizeof good_rates / sizeof good_rates[0]; k++) {
        uint64_t hz = 0;
        CHECK_EQ(etm_sigrok_parse_rate(good_rates[k].s, &hz), 0);
        CHECK_EQ(hz, good_rates[k].hz);
    }
    for (unsigned k = 0; k < sizeof bad_rates / sizeof bad_rates[0]; k++) {
        uint64_t hz;
        CHECK_EQ(etm_sigrok_parse_rate(bad_rates[k], &hz), -1);
    }
}

int main(void)
{
    test_read();
    test_wide_and_old();
    test_uart_through();
    test_zip_errors();
    test_deflate_errors();
    test_meta_errors();
    test_chunk_probe_errors();
    test_rates();
    etm_sigrok_close(S);
    if (F)
        fclose(F);
    return test_report("test_sigrok");
}
