#define _POSIX_C_SOURCE 200809L
/* test_vcd.c - VCD reading and writing: round trips of random records, a
 * hand-written VCD in another simulator's style (scopes, _i suffixes, a bus
 * declared [31:1], a bus dumped bit by bit, reset, changes at the edge), and the
 * error cases: missing, ambiguous and unknown signals. */
#include <stdlib.h>
#include <unistd.h>

#include "etm/etm.h"
#include "randrec.h"
#include "test.h"

static char tmpdir[] = "/tmp/etm_vcd_XXXXXX";

static const char *tmp_path(const char *name)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_roundtrip_in(void)
{
    test_rng_t rng = { 7 };
    enum { N = 2000 };
    static etm_in_t sent[N];
    const char *path = tmp_path("rt_in.vcd");
    FILE *f = fopen(path, "w");
    etm_vcd_writer_t *w;
    CHECK_EQ(etm_vcd_writer_open(&w, f, ~0ull, 0, "round trip"), ETM_OK);
    for (int i = 0; i < N; i++) {
        rand_in(&rng, &sent[i]);
        if (i % 7 == 3)
            sent[i] = sent[i - 1]; /* repeated values: nothing changes */
        CHECK_EQ(etm_vcd_write(w, &sent[i], NULL), ETM_OK);
    }
    CHECK_EQ(etm_vcd_writer_close(w), ETM_OK);
    fclose(f);
    etm_vcd_opts_t o;
    etm_vcd_opts_init(&o);
    o.clock = "clk";
    etm_vcd_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (!r) {
        fprintf(stderr, "%s\n", d.msg);
        return;
    }
    CHECK_EQ(etm_vcd_signal_mask(r), (1ull << etm_in_signal_count) - 1);
    int diffs = 0;
    for (int i = 0; i < N; i++) {
        etm_in_t got;
        CHECK_EQ(etm_vcd_read_in(r, &got, &d), ETM_OK);
        for (size_t s = 0; s < etm_in_signal_count; s++)
            if (etm_signal_get(&etm_in_signals[s], &got) != etm_signal_get(&etm_in_signals[s], &sent[i]))
                diffs++;
        CHECK_EQ(etm_vcd_time(r), 10u * (unsigned)i + 5);
    }
    CHECK_EQ(diffs, 0);
    etm_in_t extra;
    CHECK_EQ(etm_vcd_read_in(r, &extra, &d), ETM_END);
    etm_vcd_close(r);
}

static void test_roundtrip_out(void)
{
    test_rng_t rng = { 8 };
    enum { N = 1000 };
    static etm_out_t sent[N];
    const char *path = tmp_path("rt_out.vcd");
    FILE *f = fopen(path, "w");
    etm_vcd_writer_t *w;
    CHECK_EQ(etm_vcd_writer_open(&w, f, 0, ~0ull, NULL), ETM_OK);
    for (int i = 0; i < N; i++) {
        rand_out(&rng, &sent[i]);
        CHECK_EQ(etm_vcd_write(w, NULL, &sent[i]), ETM_OK);
    }
    CHECK_EQ(etm_vcd_writer_close(w), ETM_OK);
    fclose(f);
    etm_vcd_opts_t o;
    etm_vcd_opts_init(&o);
    o.kind = ETM_VEC_EXPECTED;
    etm_vcd_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK); /* "clk" matches the default CLK */
    if (r)
        etm_vcd_close(r);
    o.clock = "clk";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (!r)
        return;
    int diffs = 0;
    for (int i = 0; i < N; i++) {
        etm_out_t got;
        CHECK_EQ(etm_vcd_read_out(r, &got, &d), ETM_OK);
        if (etm_out_diff(&got, &sent[i], ~0ull))
            diffs++;
    }
    CHECK_EQ(diffs, 0);
    etm_out_t extra;
    CHECK_EQ(etm_vcd_read_out(r, &extra, &d), ETM_END);
    etm_vcd_close(r);
}

/* A VCD in another tool's style. HCLK has period 10 with rising edges at 5, 15,
 * 25, 35, 45; reset (active low) is released before the edge at 15. */
static const char styled_vcd[] =
    "$date today $end\n$version other simulator $end\n$timescale 1ps $end\n"
    "$scope module tb $end\n"
    "$var wire 1 ! HCLK $end\n"
    "$var wire 1 \" rst_n $end\n"
    "$scope module dut $end\n"
    "$var wire 1 # etmivalid_i $end\n"
    "$var wire 1 $ etmibranch_i $end\n"
    "$var wire 1 % etmiindbr_i $end\n"
    "$var wire 1 & etmiccfail_i $end\n"
    "$var wire 1 ' etmfold_i $end\n"
    "$var wire 31 ( etmia_i [31:1] $end\n"
    "$var wire 1 ) etmdvalid_i $end\n"
    "$var wire 1 * etmflush_i $end\n"
    "$var wire 1 + etmfindbr_i $end\n"
    "$var wire 1 , etmcancel_i $end\n"
    "$var wire 1 - etmistall_i $end\n"
    "$var wire 3 . etmintstat_i [2:0] $end\n"
    "$var wire 1 /0 ETMINTNUM [0] $end\n"
    "$var wire 1 /1 ETMINTNUM [1] $end\n"
    "$var wire 1 /2 ETMINTNUM [2] $end\n"
    "$var wire 1 /3 ETMINTNUM [3] $end\n"
    "$var wire 1 /4 ETMINTNUM [4] $end\n"
    "$var wire 1 /5 ETMINTNUM [5] $end\n"
    "$var wire 1 /6 ETMINTNUM [6] $end\n"
    "$var wire 1 /7 ETMINTNUM [7] $end\n"
    "$var wire 1 /8 ETMINTNUM [8] $end\n"
    "$var wire 4 0 etmtrigger_i [3:0] $end\n"
    "$var wire 4 1 etmtriginotd_i [3:0] $end\n"
    "$var wire 8 2 unrelated [7:0] $end\n"
    "$upscope $end\n$upscope $end\n$enddefinitions $end\n"
    "#0\n$dumpvars\n0!\n0\"\nx#\n0$\n0%\n0&\n0'\nbx (\n0)\n0*\n0+\n0,\n0-\nb0 .\n"
    "0/0\n0/1\n0/2\n0/3\n0/4\n0/5\n0/6\n0/7\n0/8\nb0 0\nb0 1\nb0 2\n$end\n"
    "#5\n1!\n"            /* edge 1: in reset (and ivalid is x): skipped */
    "#8\n1\"\n1#\nb10000000 (\n"
    "#10\n0!\nb1 2\n"
    "#15\n1!\n"           /* edge 2: cycle 0: ivalid 1, ia 0x100 */
    "b0 (\n"              /* a change at the edge's timestamp: not seen by it */
    "#20\n0!\n1&\nb1000001 (\n1/0\n1/1\n1/2\n1/3\n1/8\nb011 .\n"
    "#25\n1!\n"           /* edge 3: cycle 1: iccfail 1, ia 0x82, intnum 0x10f, intstat 3 */
    "#30\n0!\n0#\n0&\nb0 .\n1,\n"
    "#35\n1!\n"           /* edge 4: cycle 2: idle, cancel */
    "#40\n0!\n"
    "#45\n1!\n"           /* edge 5: cycle 3: same values */
    "#50\n0!\n";

static void test_styled(void)
{
    const char *path = tmp_path("styled.vcd");
    write_text(path, styled_vcd);
    etm_vcd_opts_t o;
    etm_vcd_opts_init(&o);
    o.reset = "rst_n";
    o.reset_active_low = 1;
    etm_vcd_reader_t *r;
    etm_diag_t d;
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (!r) {
        fprintf(stderr, "%s\n", d.msg);
        return;
    }
    etm_in_t in;
    CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(etm_vcd_time(r), 15);
    CHECK_EQ(in.ivalid, 1);
    CHECK_EQ(in.ia, 0x100);
    CHECK_EQ(in.iccfail, 0);
    CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(etm_vcd_time(r), 25);
    CHECK_EQ(in.ivalid, 1);
    CHECK_EQ(in.iccfail, 1);
    CHECK_EQ(in.ia, 0x82);
    CHECK_EQ(in.intnum, 0x10f);
    CHECK_EQ(in.intstat, 3);
    CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(in.ivalid, 0);
    CHECK_EQ(in.cancel, 1);
    CHECK_EQ(in.intstat, 0);
    CHECK_EQ(in.intnum, 0x10f);
    CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
    CHECK_EQ(in.cancel, 1);
    CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_END);
    etm_vcd_close(r);

    /* Without the reset option the first edge samples an x. */
    etm_vcd_opts_init(&o);
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (r) {
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_ERR_VCD_VALUE);
        CHECK_STR_CONTAINS(d.msg, "ETMIVALID is X or Z at time 5, where it is sampled (it has no qualifier");
        etm_vcd_close(r);
    }

    /* Period mode with the same file: virtual edges at 15, 25, 35, ... */
    etm_vcd_opts_init(&o);
    o.period = 10;
    o.offset = 15;
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (r) {
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
        CHECK_EQ(in.ia, 0x100);
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
        CHECK_EQ(in.ia, 0x82);
        int n = 2;
        while (etm_vcd_read_in(r, &in, &d) == ETM_OK)
            n++;
        CHECK_EQ(n, 4); /* edges at 15, 25, 35, 45; 55 is after the dump */
        etm_vcd_close(r);
    }
}

static void test_errors(void)
{
    const char *path = tmp_path("styled.vcd");
    etm_vcd_opts_t o;
    etm_vcd_reader_t *r;
    etm_diag_t d;

    /* Scope that does not hold the signals. */
    etm_vcd_opts_init(&o);
    o.scope = "tb";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_ERR_VCD_SIGNAL);
    CHECK_STR_CONTAINS(d.msg, "not found in scope tb");
    o.scope = "tb.dut";
    o.clock = "tb.HCLK";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    etm_vcd_close(r);

    /* --map to a name that exists, and one that does not. */
    etm_vcd_opts_init(&o);
    o.map[0] = "ETMIA=unrelated";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_ERR_VCD_SIGNAL); /* covers only ETMIA[7:1] */
    CHECK_STR_CONTAINS(d.msg, "ETMIA: bits 31 to 8 are not in the VCD");
    o.map[0] = "ETMIA=nosuch";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_ERR_VCD_SIGNAL);
    CHECK_STR_CONTAINS(d.msg, "nosuch not found");
    o.map[0] = "NOTACOLUMN=x";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_ERR_UNKNOWN_NAME);
    o.map[0] = "ETMIA";
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_ERR_SYNTAX);

    /* A missing required signal, then allowed. */
    const char *p2 = tmp_path("missing.vcd");
    write_text(p2, "$scope module t $end\n$var wire 1 ! CLK $end\n$var wire 1 \" ETMIVALID $end\n"
                   "$upscope $end\n$enddefinitions $end\n#0\n0!\n1\"\n#5\n1!\n#10\n0!\n");
    etm_vcd_opts_init(&o);
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_VCD_SIGNAL);
    CHECK_STR_CONTAINS(d.msg, "signal ETMIBRANCH not found");
    CHECK_STR_CONTAINS(d.file, "missing.vcd");
    o.allow_missing = 1;
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_OK);
    if (r) {
        etm_in_t in;
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
        CHECK_EQ(in.ivalid, 1);
        CHECK_EQ(etm_vcd_signal_mask(r), 1); /* only ETMIVALID */
        CHECK_STR_CONTAINS(etm_vcd_notes(r), "ETMIBRANCH is not in the VCD: read as 0 (--allow-missing)");
        etm_vcd_close(r);
    }

    /* A bus numbered from 0 with the signal's width is the signal (SystemC's
     * ETMIA [30:0] for ETMIA[31:1]); a narrower one is missing bits, which
     * --allow-missing reads as 0 and says so. */
    write_text(p2, "$scope module t $end\n$var wire 1 ! CLK $end\n$var wire 1 \" ETMIVALID $end\n"
                   "$var wire 31 # ETMIA [30:0] $end\n$var wire 8 $ ETMINTNUM [7:0] $end\n"
                   "$upscope $end\n$enddefinitions $end\n#0\n0!\n1\"\nb1000000000000000000000000000001 #\n"
                   "b11111111 $\n#5\n1!\n#10\n0!\n");
    etm_vcd_opts_init(&o);
    o.allow_missing = 1;
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_OK);
    if (r) {
        etm_in_t in;
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
        CHECK_EQ(in.ia, 0x80000002u);
        CHECK_EQ(in.intnum, 0xFF);
        CHECK(strstr(etm_vcd_notes(r), "ETMIA") == NULL);
        CHECK_STR_CONTAINS(etm_vcd_notes(r), "ETMINTNUM: bits 8 to 8 are not in the VCD: read as 0 (--allow-missing)");
        etm_vcd_close(r);
    }
    o.allow_missing = 0;
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_VCD_SIGNAL);
    CHECK_STR_CONTAINS(d.msg, "ETMIBRANCH not found");

    /* No clock. */
    write_text(p2, "$scope module t $end\n$var wire 1 \" ETMIVALID $end\n$upscope $end\n$enddefinitions $end\n");
    etm_vcd_opts_init(&o);
    o.allow_missing = 1;
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_VCD_SIGNAL);
    CHECK_STR_CONTAINS(d.msg, "no clock signal");

    /* Two scopes with different nets of one name; the same net twice is fine. */
    write_text(p2, "$scope module a $end\n$var wire 1 ! CLK $end\n$var wire 1 \" ETMIVALID $end\n$upscope $end\n"
                   "$scope module b $end\n$var wire 1 # ETMIVALID $end\n$upscope $end\n$enddefinitions $end\n");
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_VCD_SIGNAL);
    CHECK_STR_CONTAINS(d.msg, "scopes 'a' and 'b'");
    write_text(p2, "$scope module a $end\n$var wire 1 ! CLK $end\n$var wire 1 \" ETMIVALID $end\n$upscope $end\n"
                   "$scope module b $end\n$var wire 1 \" ETMIVALID $end\n$upscope $end\n$enddefinitions $end\n");
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_OK);
    etm_vcd_close(r);

    /* Syntax errors with their line. */
    write_text(p2, "$scope module a $end\n$var wire 1 ! CLK $end\n$upscope $end\n$enddefinitions $end\n"
                   "#10\n1!\n#5\n0!\n");
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_OK);
    if (r) {
        etm_in_t in;
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_ERR_SYNTAX);
        CHECK_STR_CONTAINS(d.msg, "time goes backwards");
        CHECK_EQ(d.line, 7);
        etm_vcd_close(r);
    }
    write_text(p2, "$scope module a $end\n$var wire one ! CLK $end\n");
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_SYNTAX);
    CHECK_EQ(d.line, 2);
    write_text(p2, "$scope module a $end\n$var wire 4 ! ETMTRIGGER [2:0] $end\n");
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "range does not match");
    write_text(p2, "$scope module a $end\n$var wire 1 ! CLK $end\n");
    CHECK_EQ(etm_vcd_open(&r, p2, &o, &d), ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "end of file before $enddefinitions");
    CHECK_EQ(etm_vcd_open(&r, tmp_path("nonexistent.vcd"), &o, &d), ETM_ERR_IO);
    remove(p2);
}

/* X and Z where they cannot matter: an input whose qualifier is 0 in that cycle,
 * slot 1 when the configuration has one slot, V3DATA bytes past V3COUNT. */
static const char unknown_in_vcd[] =
    "$timescale 1ns $end\n$scope module tb $end\n"
    "$var wire 1 ! CLK $end\n$var wire 1 a ETMIVALID $end\n$var wire 1 b ETMIBRANCH $end\n"
    "$var wire 1 c ETMIINDBR $end\n$var wire 1 d ETMICCFAIL $end\n$var wire 1 e ETMFOLD $end\n"
    "$var wire 31 f ETMIA [31:1] $end\n$var wire 1 g ETMDVALID $end\n$var wire 1 h ETMFLUSH $end\n"
    "$var wire 1 i ETMFINDBR $end\n$var wire 1 j ETMCANCEL $end\n$var wire 1 k ETMISTALL $end\n"
    "$var wire 3 l ETMINTSTAT [2:0] $end\n$var wire 9 m ETMINTNUM [8:0] $end\n"
    "$var wire 4 n ETMTRIGGER [3:0] $end\n$var wire 4 o ETMTRIGINOTD [3:0] $end\n"
    "$var wire 1 p ETMIVALID1 $end\n$var wire 31 q ETMIA1 [31:1] $end\n"
    "$var wire 4 r ETMDDCTL [3:0] $end\n$var wire 64 s ETMDD [63:0] $end\n"
    "$upscope $end\n$enddefinitions $end\n"
    "#0\n$dumpvars\n0!\n0a\n0b\n0c\n0d\n0e\nbx f\n0g\n0h\nxi\n0j\n0k\nb0 l\nb0 m\nb0 n\nbx o\n"
    "xp\nbx q\nb0 r\nbx s\n$end\n"
    "#1\n1!\n"                            /* cycle 0: ETMIA, ETMFINDBR, ETMTRIGINOTD, ETMDD unknown, qualified off */
    "#2\n0!\n1a\nb10000000 f\nxc\n"       /* ETMIVALID=1, ETMIA=0x100, ETMIINDBR unknown while ETMIBRANCH=0 */
    "#3\n1!\n"                            /* cycle 1 */
    "#4\n0!\nbx f\n"                      /* ETMIA unknown while ETMIVALID=1 */
    "#5\n1!\n"                            /* cycle 2: the error */
    "#6\n0!\n";

static const char unknown_out_vcd[] =
    "$scope module tb $end\n$var wire 1 ! CLK $end\n$var wire 3 a PIPESTAT [2:0] $end\n"
    "$var wire 16 b TRACEPKT [15:0] $end\n$var wire 1 c TRACESYNC $end\n$var wire 4 d V3COUNT [3:0] $end\n"
    "$var wire 64 e V3DATA [63:0] $end\n$var wire 16 f FIFOLEVEL [15:0] $end\n$var wire 1 g OVERFLOW $end\n"
    "$var wire 1 h TRIGGER $end\n$var wire 1 i FIFOFULL $end\n$upscope $end\n$enddefinitions $end\n"
    "#0\n$dumpvars\n0!\nb0 a\nb0 b\n0c\nb1 d\nbx01100110 e\nb0 f\n0g\n0h\n0i\n$end\n"
    "#1\n1!\n"               /* the first edge shows outputs from before cycle 0 */
    "#2\n0!\n#3\n1!\n"       /* cycle 0: one byte 0x66, the other seven lanes unknown */
    "#4\n0!\nb10 d\n#5\n1!\n" /* cycle 1: two bytes, the second unknown: the error */
    "#6\n0!\n";

static void test_unknown(void)
{
    const char *path = tmp_path("unknown_in.vcd");
    write_text(path, unknown_in_vcd);
    etm_vcd_opts_t o;
    etm_vcd_reader_t *r;
    etm_diag_t d;
    etm_in_t in;
    /* One issue slot: the unknown ETMIVALID1 and ETMIA1 cannot matter. */
    etm_vcd_opts_init(&o);
    o.issue_width = 1;
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (r) {
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
        CHECK_EQ(in.ia, 0);
        CHECK_EQ(in.dd, 0);
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_OK);
        CHECK_EQ(in.ivalid, 1);
        CHECK_EQ(in.ia, 0x100);
        CHECK_EQ(in.iindbr, 0);
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_ERR_VCD_VALUE);
        CHECK_STR_CONTAINS(d.msg, "ETMIA is X or Z at time 5, where it is sampled and not every qualifier "
                                  "(ETMIVALID) is 0");
        CHECK_EQ(d.cycle, 2);
        CHECK_STR_CONTAINS(d.file, "unknown_in.vcd");
        etm_vcd_close(r);
    }
    /* Slot 1 possibly in use: ETMIVALID1, which nothing qualifies, must be known. */
    etm_vcd_opts_init(&o);
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (r) {
        CHECK_EQ(etm_vcd_read_in(r, &in, &d), ETM_ERR_VCD_VALUE);
        CHECK_STR_CONTAINS(d.msg, "ETMIVALID1 is X or Z at time 1, where it is sampled (it has no qualifier");
        CHECK_EQ(d.cycle, 0);
        etm_vcd_close(r);
    }
    /* Expected outputs: V3DATA may be unknown only past V3COUNT. */
    path = tmp_path("unknown_out.vcd");
    write_text(path, unknown_out_vcd);
    etm_vcd_opts_init(&o);
    o.kind = ETM_VEC_EXPECTED;
    etm_out_t out;
    CHECK_EQ(etm_vcd_open(&r, path, &o, &d), ETM_OK);
    if (r) {
        CHECK_EQ(etm_vcd_read_out(r, &out, &d), ETM_OK);
        CHECK_EQ(out.v3_count, 1);
        CHECK_EQ(out.v3_bytes[0], 0x66);
        CHECK_EQ(out.v3_bytes[1], 0);
        CHECK_EQ(etm_vcd_read_out(r, &out, &d), ETM_ERR_VCD_VALUE);
        CHECK_STR_CONTAINS(d.msg, "V3DATA is X or Z at time 5 in one of the 2 bytes that V3COUNT makes valid");
        CHECK_EQ(d.cycle, 1);
        etm_vcd_close(r);
    }
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_roundtrip_in();
    test_roundtrip_out();
    test_styled();
    test_errors();
    test_unknown();
    remove(tmp_path("unknown_in.vcd"));
    remove(tmp_path("unknown_out.vcd"));
    remove(tmp_path("rt_in.vcd"));
    remove(tmp_path("rt_out.vcd"));
    remove(tmp_path("styled.vcd"));
    rmdir(tmpdir);
    return test_report("test_vcd");
}
