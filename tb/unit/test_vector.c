/* test_vector.c - vector files: hand-written files read as the format says,
 * round trips of random records, and every malformed-input case with its line. */
#include <stdlib.h>

#include "etm/etm.h"
#include "randrec.h"
#include "test.h"

static FILE *text_file(const char *text)
{
    FILE *f = tmpfile();
    if (f) {
        fputs(text, f);
        rewind(f);
    }
    return f;
}

/* A file written by hand, read field by field. */
static void test_handwritten(void)
{
    FILE *f = text_file("etm-vectors 1 stimulus\n"
                        "# a comment\n"
                        "ETMCR_IMPL=0x10633FF1   # the ETM-M3 with cycle-accurate tracing added\n"
                        "ETMCR=0x00001810   # cycle-accurate\n"
                        "columns CYCLE ETMIVALID ETMIA ETMINTSTAT ETMINTNUM ETMDD\n"
                        "0 1 00000100 0 000 0\n"
                        "\n"
                        "# between cycles\n"
                        "1 1 fffffffe 1 1ff 0123456789abcdef  # trailing\n"
                        "2 0 2 4 010 FFFFFFFFFFFFFFFF\n");
    etm_vec_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vec_open_stream(&r, f, "hand.vec", &d), ETM_OK);
    if (!r)
        return;
    CHECK_EQ(etm_vec_kind(r), ETM_VEC_STIMULUS);
    CHECK_EQ(etm_vec_config(r)->etmcr, 0x1810);
    CHECK_EQ(etm_vec_config(r)->etmidr, 0x4114F240); /* default kept */
    CHECK_EQ(etm_vec_column_count(r), 6);
    etm_in_t in;
    CHECK_EQ(etm_vec_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(in.ivalid, 1);
    CHECK_EQ(in.ia, 0x100);
    CHECK_EQ(etm_vec_line(r), 6);
    CHECK_EQ(etm_vec_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(in.ia, 0xfffffffe);
    CHECK_EQ(in.intstat, 1);
    CHECK_EQ(in.intnum, 0x1ff);
    CHECK_EQ(in.dd, 0x0123456789abcdefull);
    CHECK_EQ(etm_vec_line(r), 9);
    CHECK_EQ(etm_vec_cycle(r), 1);
    CHECK_EQ(etm_vec_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(in.ivalid, 0);
    CHECK_EQ(in.ia, 2);
    CHECK_EQ(in.intstat, 4);
    CHECK_EQ(in.dd, ~0ull);
    CHECK_EQ(in.iccfail, 0); /* not a column: 0 */
    CHECK_EQ(etm_vec_read_in(r, &in, &d), ETM_END);
    etm_out_t out;
    CHECK_EQ(etm_vec_read_out(r, &out, &d), ETM_ERR_STATE);
    etm_vec_close(r);
    fclose(f);

    f = text_file("etm-vectors 1 expected\ncolumns PIPESTAT TRACEPKT V3BYTES OVERFLOW\n"
                  "4 00ab - 0\n"
                  "7 0000 000000000080 1\n");
    CHECK_EQ(etm_vec_open_stream(&r, f, "exp.vec", &d), ETM_OK);
    if (!r)
        return;
    CHECK_EQ(etm_vec_read_out(r, &out, &d), ETM_OK);
    CHECK_EQ(out.pipestat, 4);
    CHECK_EQ(out.tracepkt, 0xab);
    CHECK_EQ(out.v3_count, 0);
    CHECK_EQ(etm_vec_read_out(r, &out, &d), ETM_OK);
    CHECK_EQ(out.v3_count, 6);
    CHECK_EQ(out.v3_bytes[5], 0x80);
    CHECK_EQ(out.v3_bytes[0], 0x00);
    CHECK_EQ(out.overflow, 1);
    CHECK_EQ(etm_vec_read_out(r, &out, &d), ETM_END);
    etm_vec_close(r);
    fclose(f);
}

static void test_roundtrip(void)
{
    test_rng_t rng = { 99 };
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv3.5");
    cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
    for (int pass = 0; pass < 4; pass++) {
        /* All columns, then every other one; as text, then binary. */
        uint64_t mask = pass % 2 == 0 ? 0 : 0x155555;
        int binary = pass >= 2;
        FILE *f = tmpfile();
        etm_vec_writer_t *w;
        CHECK_EQ(binary ? etm_vec_writer_open_binary(&w, f, &cfg, mask, "random\nsecond line")
                        : etm_vec_writer_open(&w, f, ETM_VEC_STIMULUS, &cfg, mask, "random\nsecond line"),
                 ETM_OK);
        enum { N = 3000 };
        etm_in_t *sent = (etm_in_t *)calloc(N, sizeof *sent);
        for (int i = 0; i < N; i++) {
            rand_in(&rng, &sent[i]);
            CHECK_EQ(etm_vec_write_in(w, &sent[i]), ETM_OK);
        }
        CHECK_EQ(etm_vec_writer_close(w), ETM_OK);
        rewind(f);
        etm_vec_reader_t *r;
        etm_diag_t d;
        CHECK_EQ(etm_vec_open_stream(&r, f, "rt.vec", &d), ETM_OK);
        if (!r) {
            fprintf(stderr, "%s\n", d.msg);
            free(sent);
            return;
        }
        CHECK(etm_config_equal(etm_vec_config(r), &cfg));
        CHECK_EQ(etm_vec_is_binary(r), binary);
        int diffs = 0;
        for (int i = 0; i < N; i++) {
            etm_in_t got, want = sent[i];
            CHECK_EQ(etm_vec_read_in(r, &got, &d), ETM_OK);
            if (mask)
                for (size_t s = 0; s < etm_in_signal_count; s++)
                    if (!(mask & (1ull << s))) /* absent: the field reads 0 (ATREADY 1) */
                        etm_signal_set(&etm_in_signals[s], &want,
                                       ETM_SIG_PORT_XOR(etm_in_signals[s].flags) << etm_in_signals[s].lsb);
            for (size_t s = 0; s < etm_in_signal_count; s++)
                if (etm_signal_get(&etm_in_signals[s], &got) != etm_signal_get(&etm_in_signals[s], &want))
                    diffs++;
        }
        CHECK_EQ(diffs, 0);
        etm_in_t extra;
        CHECK_EQ(etm_vec_read_in(r, &extra, &d), ETM_END);
        etm_vec_close(r);
        fclose(f);
        free(sent);
    }
    /* Expected output. */
    FILE *f = tmpfile();
    etm_vec_writer_t *w;
    CHECK_EQ(etm_vec_writer_open(&w, f, ETM_VEC_EXPECTED, &cfg, 0, NULL), ETM_OK);
    etm_out_t sent[500];
    for (int i = 0; i < 500; i++) {
        rand_out(&rng, &sent[i]);
        etm_vec_write_out(w, &sent[i]);
    }
    CHECK_EQ(etm_vec_writer_close(w), ETM_OK);
    rewind(f);
    etm_vec_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vec_open_stream(&r, f, "rt.vec", &d), ETM_OK);
    if (r) {
        CHECK_EQ(etm_vec_signal_mask(r), (1ull << etm_out_signal_count) - 1);
        int diffs = 0;
        for (int i = 0; i < 500; i++) {
            etm_out_t got;
            CHECK_EQ(etm_vec_read_out(r, &got, &d), ETM_OK);
            if (etm_out_diff(&got, &sent[i], ~0ull))
                diffs++;
        }
        CHECK_EQ(diffs, 0);
        etm_vec_close(r);
    }
    fclose(f);
}

typedef struct bad_case {
    const char *text;
    etm_err_t err;
    unsigned long line;
    const char *msg;
} bad_case_t;

static const bad_case_t bad_cases[] = {
    { "", ETM_ERR_MISSING_HEADER, 0, "empty file" },
    { "columns ETMIVALID\n1\n", ETM_ERR_MISSING_HEADER, 1, "missing header" },
    { "etm-vectors 2 stimulus\ncolumns ETMIVALID\n", ETM_ERR_FORMAT_VERSION, 1, "format version 2" },
    { "etm-vectors one stimulus\n", ETM_ERR_SYNTAX, 1, "format version" },
    { "etm-vectors 1 stimuli\n", ETM_ERR_SYNTAX, 1, "kind" },
    { "etm-vectors 1 stimulus\nETMCR=0x0\n", ETM_ERR_MISSING_HEADER, 2, "'columns'" },
    { "etm-vectors 1 stimulus\nETMFOO=0x0\ncolumns ETMIVALID\n", ETM_ERR_UNKNOWN_NAME, 2, "ETMFOO" },
    { "etm-vectors 1 stimulus\nETMCR=0x10000810\ncolumns ETMIVALID\n", ETM_ERR_RESERVED_BITS, 2, "ETMCR[28]" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID BOGUS\n", ETM_ERR_UNKNOWN_NAME, 2, "unknown column 'BOGUS'" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID PIPESTAT\n", ETM_ERR_UNKNOWN_NAME, 2, "column of expected" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID ETMIVALID\n", ETM_ERR_DUPLICATE, 2, "twice" },
    { "etm-vectors 1 stimulus\ncolumns\n", ETM_ERR_SYNTAX, 2, "no column" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID ETMIA\n1 100\n1\n", ETM_ERR_TRUNCATED, 4, "1 of 2 values" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID ETMIA\n1 100 0\n", ETM_ERR_SYNTAX, 3, "3 values for 2" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID ETMIA\n1 10g\n", ETM_ERR_BAD_NUMBER, 3, "not a hex number" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID ETMIA\n1 0x100\n", ETM_ERR_BAD_NUMBER, 3, "not a hex number" },
    { "etm-vectors 1 stimulus\ncolumns ETMIVALID ETMIA\n2 100\n", ETM_ERR_FIELD_WIDTH, 3, "wider than ETMIVALID" },
    { "etm-vectors 1 stimulus\ncolumns ETMINTSTAT\n8\n", ETM_ERR_FIELD_WIDTH, 3, "ETMINTSTAT[2:0]" },
    { "etm-vectors 1 stimulus\ncolumns ETMIA\n101\n", ETM_ERR_FIELD_WIDTH, 3, "must be even" },
    { "etm-vectors 1 stimulus\ncolumns ETMIA\n100000000\n", ETM_ERR_FIELD_WIDTH, 3, "wider than ETMIA[31:1]" },
    { "etm-vectors 1 stimulus\ncolumns ETMDD\n10000000000000000\n", ETM_ERR_FIELD_WIDTH, 3, "wider" },
    { "etm-vectors 1 stimulus\ncolumns CYCLE ETMIVALID\n0 1\n2 1\n", ETM_ERR_SYNTAX, 4, "out of sequence" },
    { "etm-vectors 1 stimulus\ncolumns CYCLE ETMIVALID\nx 1\n", ETM_ERR_BAD_NUMBER, 3, "decimal" },
    { "etm-vectors 1 expected\ncolumns V3BYTES\n080\n", ETM_ERR_BAD_NUMBER, 3, "odd number" },
    { "etm-vectors 1 expected\ncolumns V3BYTES\n000000000000000000\n", ETM_ERR_FIELD_WIDTH, 3, "9 bytes" },
    { "etm-vectors 1 expected\ncolumns V3BYTES\nzz\n", ETM_ERR_BAD_NUMBER, 3, "hex bytes" },
};

static void test_malformed(void)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case_t *c = &bad_cases[i];
        FILE *f = text_file(c->text);
        etm_vec_reader_t *r;
        etm_diag_t d;
        etm_err_t e = etm_vec_open_stream(&r, f, "bad.vec", &d);
        if (e == ETM_OK) {
            etm_in_t in;
            etm_out_t out;
            do
                e = etm_vec_kind(r) == ETM_VEC_STIMULUS ? etm_vec_read_in(r, &in, &d) : etm_vec_read_out(r, &out, &d);
            while (e == ETM_OK);
            etm_vec_close(r);
        }
        fclose(f);
        if (e != c->err || d.line != c->line || !strstr(d.msg, c->msg)) {
            fprintf(stderr, "case %zu: got %s line %lu '%s'; want %s line %lu '%s'\n", i, etm_errname(e), d.line,
                    d.msg, etm_errname(c->err), c->line, c->msg);
        }
        CHECK_EQ(e, c->err);
        CHECK_EQ(d.line, c->line);
        CHECK_STR_CONTAINS(d.msg, c->msg);
        CHECK_STR_CONTAINS(d.file, "bad.vec");
    }
    /* A line too long for the reader. */
    FILE *f = tmpfile();
    fputs("etm-vectors 1 stimulus\ncolumns ETMIVALID\n", f);
    for (int i = 0; i < 9000; i++)
        fputc('1', f);
    fputc('\n', f);
    rewind(f);
    etm_vec_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vec_open_stream(&r, f, "long.vec", &d), ETM_OK);
    if (r) {
        etm_in_t in;
        CHECK_EQ(etm_vec_read_in(r, &in, &d), ETM_ERR_TOO_LONG);
        CHECK_EQ(d.line, 3);
        etm_vec_close(r);
    }
    fclose(f);
    CHECK_EQ(etm_vec_open(&r, "/nonexistent/x.vec", &d), ETM_ERR_IO);
    CHECK(r == NULL);
}

/* The parts of the interface (signals.def) against the TRMs' tables: Cortex-M3
 * table 16.1 has 15 input signals, slot 1 mirrors ETMIVALID..ETMICCFAIL and
 * ETMIA, the ARM1176 data slot has ETMDACTL, ETMDA, ETMDDCTL, ETMDD, and the
 * debug APB has AMBA 3 APB's PSEL, PENABLE, PWRITE, PADDR, PWDATA,
 * CoreSight's PADDRDBG31 and the TPIU's select on the same bus. */
static void test_signal_parts(void)
{
    static const char *const slot1[] = { "ETMIVALID1", "ETMIBRANCH1", "ETMIINDBR1", "ETMICCFAIL1", "ETMIA1" };
    static const char *const data[] = { "ETMDACTL", "ETMDA", "ETMDDCTL", "ETMDD" };
    static const char *const apb[] = { "PSEL", "PENABLE", "PWRITE", "PADDR", "PWDATA", "PADDRDBG31", "PSELTPIU" };
    uint64_t core = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_CORE);
    uint64_t s1 = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_SLOT1);
    uint64_t d = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_DATA);
    uint64_t a = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_APB);
    uint64_t atb = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_ATB);
    CHECK_EQ(__builtin_popcountll(core), 15);
    CHECK_EQ(core & s1, 0);
    CHECK_EQ((core | s1) & d, 0);
    CHECK_EQ((core | s1 | d) & a, 0);
    CHECK_EQ((core | s1 | d | a) & atb, 0);
    CHECK_EQ(core | s1 | d | a | atb, (1ull << etm_in_signal_count) - 1);
    /* The trace sink's side of ATB: ATREADY and AFVALID; ATREADY is the only
     * input whose field is its complement, so that a zero record is idle. */
    CHECK_EQ(atb, (1ull << etm_signal_find(etm_in_signals, etm_in_signal_count, "ATREADY")) |
                      (1ull << etm_signal_find(etm_in_signals, etm_in_signal_count, "AFVALID")));
    CHECK_EQ(etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_INV),
             1ull << etm_signal_find(etm_in_signals, etm_in_signal_count, "ATREADY"));
    {
        etm_in_t idle;
        memset(&idle, 0, sizeof idle);
        const etm_signal_t *rdy = &etm_in_signals[etm_signal_find(etm_in_signals, etm_in_signal_count, "ATREADY")];
        CHECK_EQ(etm_signal_get(rdy, &idle), 1);
        etm_signal_set(rdy, &idle, 0);
        CHECK_EQ(idle.atstall, 1);
    }
    uint64_t want_apb = 0;
    for (size_t i = 0; i < sizeof apb / sizeof apb[0]; i++)
        want_apb |= 1ull << etm_signal_find(etm_in_signals, etm_in_signal_count, apb[i]);
    CHECK_EQ(a, want_apb);
    const etm_signal_t *paddr = &etm_in_signals[etm_signal_find(etm_in_signals, etm_in_signal_count, "PADDR")];
    CHECK_EQ(paddr->lsb, 2); /* PADDR[11:2]: a word's byte offset */
    CHECK_EQ(paddr->width, 10);
    uint64_t want = 0;
    for (size_t i = 0; i < sizeof slot1 / sizeof slot1[0]; i++)
        want |= 1ull << etm_signal_find(etm_in_signals, etm_in_signal_count, slot1[i]);
    CHECK_EQ(s1, want);
    want = 0;
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        want |= 1ull << etm_signal_find(etm_in_signals, etm_in_signal_count, data[i]);
    CHECK_EQ(d, want);
    CHECK(core >> etm_signal_find(etm_in_signals, etm_in_signal_count, "ETMTRIGINOTD") & 1);
    /* Outputs carry their place instead. */
    CHECK_EQ(etm_signal_flag_mask(etm_out_signals, etm_out_signal_count, ETM_SIGF_CORE), 0);
    CHECK_EQ(etm_signal_flag_mask(etm_out_signals, etm_out_signal_count, ETM_SIGF_FILE),
             (1ull << etm_out_signal_count) - 1);
}

/* Binary stimulus: each malformation is named with the cycle and the byte
 * offset of the value at fault (the header here is 54 bytes: records start
 * there, 5 bytes each: ETMIVALID 1, ETMIA 4). */
static void test_binary_malformed(void)
{
    static const char head[] = "etm-vectors 1 stimulus binary\ncolumns ETMIVALID ETMIA\n";
    CHECK_EQ(strlen(head), 54);
    struct {
        const unsigned char rec[10];
        size_t n;
        etm_err_t err;
        uint64_t cycle, offset;
        const char *msg;
    } cases[] = {
        { { 1, 0x00, 0x01, 0, 0, 1, 0x02, 0x01, 0, 0 }, 10, ETM_OK, 0, 0, "" },
        { { 1, 0x00, 0x01, 0, 0, 2, 0x02, 0x01, 0, 0 }, 10, ETM_ERR_FIELD_WIDTH, 1, 59, "ETMIVALID 0x2 is wider than ETMIVALID[0:0]" },
        { { 1, 0x01, 0x01, 0, 0 }, 5, ETM_ERR_FIELD_WIDTH, 0, 55, "bit 0 set: the address must be even" },
        { { 1, 0x00, 0x01, 0, 0, 1, 0x02 }, 7, ETM_ERR_TRUNCATED, 1, 59, "truncated record: 2 of its 5 bytes" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = tmpfile();
        fputs(head, f);
        fwrite(cases[i].rec, 1, cases[i].n, f);
        rewind(f);
        etm_vec_reader_t *r;
        etm_diag_t d;
        CHECK_EQ(etm_vec_open_stream(&r, f, "bad.bin", &d), ETM_OK);
        if (!r) {
            fclose(f);
            continue;
        }
        etm_in_t in;
        etm_err_t e;
        do
            e = etm_vec_read_in(r, &in, &d);
        while (e == ETM_OK);
        etm_vec_close(r);
        fclose(f);
        if (cases[i].err == ETM_OK) {
            CHECK_EQ(e, ETM_END);
            continue;
        }
        CHECK_EQ(e, cases[i].err);
        CHECK_EQ(d.cycle, cases[i].cycle);
        CHECK_EQ(d.offset, cases[i].offset);
        CHECK_STR_CONTAINS(d.msg, cases[i].msg);
        CHECK_STR_CONTAINS(d.file, "bad.bin");
    }
    /* Headers a binary file cannot have. */
    static const struct { const char *text; const char *msg; } heads[] = {
        { "etm-vectors 1 expected binary\ncolumns FIFOLEVEL\n", "only stimulus has a binary form" },
        { "etm-vectors 1 stimulus binary\ncolumns CYCLE ETMIVALID\n", "a binary file has no CYCLE column" },
        { "etm-vectors 1 stimulus fast\ncolumns ETMIVALID\n", "after the kind only 'binary' may follow" },
    };
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        FILE *f = text_file(heads[i].text);
        etm_vec_reader_t *r;
        etm_diag_t d;
        CHECK(etm_vec_open_stream(&r, f, "bad.bin", &d) != ETM_OK);
        CHECK(r == NULL);
        CHECK_STR_CONTAINS(d.msg, heads[i].msg);
        CHECK_EQ(d.line, 1 + (i == 1));
        fclose(f);
    }
}

/* etm_vec_read_block against etm_vec_read_in on the same binary file of
 * random records (every column): the same records, byte for byte, in blocks
 * of every size; and a value too wide in the middle of a block (record BAD)
 * reported as record by record, after the good records before it. */
static void test_read_block(void)
{
    test_rng_t rng = { 7 };
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv3.5");
    enum { N = 9000, BAD = 6101 };
    etm_in_t *ref = (etm_in_t *)calloc(N, sizeof *ref), *got = (etm_in_t *)calloc(N, sizeof *got);
    FILE *f = tmpfile();
    etm_vec_writer_t *w;
    CHECK_EQ(etm_vec_writer_open_binary(&w, f, &cfg, 0, NULL), ETM_OK);
    for (int i = 0; i < N; i++) {
        etm_in_t in;
        rand_in(&rng, &in);
        CHECK_EQ(etm_vec_write_in(w, &in), ETM_OK);
    }
    CHECK_EQ(etm_vec_writer_close(w), ETM_OK);
    long end = ftell(f);
    size_t rec = 0; /* bytes of a record: every column in the size of its field */
    for (size_t s = 0; s < etm_in_signal_count; s++)
        rec += etm_in_signals[s].size;
    for (int bad = 0; bad < 2; bad++) {
        if (bad) { /* ETMIVALID, the first column, of record BAD: 2 */
            CHECK(fseek(f, end - (long)(rec * (N - BAD)), SEEK_SET) == 0);
            fputc(2, f);
        }
        /* Record by record: the reference. */
        rewind(f);
        etm_vec_reader_t *r;
        etm_diag_t d, want_d;
        memset(&want_d, 0, sizeof want_d);
        CHECK_EQ(etm_vec_open_stream(&r, f, "blk.bin", &d), ETM_OK);
        if (!r)
            break;
        etm_err_t want_err = ETM_END;
        size_t want_n = N;
        for (size_t i = 0; i < N; i++) {
            etm_err_t e = etm_vec_read_in(r, &ref[i], &d);
            if (e != ETM_OK) {
                want_err = e;
                want_d = d;
                want_n = i;
                break;
            }
        }
        if (want_err == ETM_END) {
            etm_in_t extra;
            CHECK_EQ(etm_vec_read_in(r, &extra, &d), ETM_END);
        }
        etm_vec_close(r);
        CHECK_EQ(want_n, bad ? (size_t)BAD : (size_t)N);
        CHECK_EQ(want_err, bad ? ETM_ERR_FIELD_WIDTH : ETM_END);
        static const size_t sizes[] = { 1, 7, 1000, 4096, N };
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            rewind(f);
            CHECK_EQ(etm_vec_open_stream(&r, f, "blk.bin", &d), ETM_OK);
            if (!r)
                break;
            memset(got, 0xA5, N * sizeof *got); /* what a block does not write shows */
            size_t n = 0, blocks = 0, g = 0;
            etm_err_t e = ETM_OK;
            while (n < N && (e = etm_vec_read_block(r, got + n, sizes[k] < N - n ? sizes[k] : N - n, &g, &d)) == ETM_OK) {
                CHECK(g >= 1 && g <= sizes[k]);
                n += g;
                blocks++;
            }
            if (e == ETM_OK) { /* all N read: the next call ends */
                etm_in_t extra;
                e = etm_vec_read_block(r, &extra, 1, &g, &d);
                CHECK_EQ(g, 0);
            } else {
                n += g;
            }
            CHECK_EQ(e, want_err);
            CHECK_EQ(n, want_n);
            CHECK(!memcmp(got, ref, want_n * sizeof *got));
            if (bad) {
                CHECK_EQ(d.cycle, want_d.cycle);
                CHECK_EQ(d.offset, want_d.offset);
                CHECK(!strcmp(d.msg, want_d.msg));
            }
            if (sizes[k] > 1) /* whole blocks, not records one by one */
                CHECK(sizes[k] >= 1000 ? blocks * 100 < n : blocks < n);
            etm_vec_close(r);
        }
    }
    fclose(f);
    free(ref);
    free(got);
}

int main(void)
{
    test_read_block();
    test_signal_parts();
    test_handwritten();
    test_roundtrip();
    test_malformed();
    test_binary_malformed();
    return test_report("test_vector");
}
