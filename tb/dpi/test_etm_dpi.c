/* test_etm_dpi.c - the DPI-C layer on its own, as a SystemVerilog scoreboard
 * would call it. A second instance of the C model plays the design: fed the same
 * stimulus, it gives outputs that must match, and the test corrupts them, delays
 * them by a cycle or marks them X to see the scoreboard react.
 *
 *   test_etm_dpi SOURCE_DIR    (the project's top: tb/data's malformed files, a golden vector's image)
 */
#include <stdlib.h>

#include "etm/etm.h"
#include "etm_dpi.h"
#include "test.h"

static const char *top_dir = ".";

/* ---- Helpers ------------------------------------------------------------------------------ */

static uint64_t v3data_of(const etm_out_t *o)
{
    uint64_t v = 0;
    for (int i = ETM_MAX_PORT_BYTES - 1; i >= 0; i--)
        v = (v << 8) | o->v3_bytes[i];
    return v;
}

static unsigned long long rules_of(const etm_ctx_t *m) { return etm_last_rule_mask(m); }

/* The DPI calls take one argument per port, in the order of etm/signals.def;
 * the argument lists below come from it too, so a new signal needs no edit here. */
static int step(void *h, const etm_in_t *in, unsigned unknown)
{
    return etm_dpi_step(h,
#define ETM_IN(field, name, width, lsb, ctype, part, doc) (ETM_DPI_T_##ctype)((in->field >> (lsb)) ^ ETM_SIG_PORT_XOR(part)),
#include "etm/signals.def"
                        unknown);
}

static int compare(void *h, const etm_out_t *o, unsigned long long violations, unsigned unknown)
{
    return etm_dpi_compare(h,
#define ETM_OUT(field, name, width, ctype, where, doc) o->field,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) o->count, v3data_of(o),
#include "etm/signals.def"
                           violations, unknown);
}

/* A stimulus record as etm_dpi_stim_next fills it: one field per input port. */
enum { /* bits of etm_dpi_step's `unknown` mask */
#define ETM_IN(field, name, width, lsb, ctype, part, doc) IN_##field,
#include "etm/signals.def"
    IN_COUNT
};

typedef struct {
#define ETM_IN(field, name, width, lsb, ctype, part, doc) ETM_DPI_T_##ctype field;
#include "etm/signals.def"
} dpi_in_t;

static int stim_next(void *st, unsigned hold, dpi_in_t *s)
{
    return etm_dpi_stim_next(st, hold
#define ETM_IN(field, name, width, lsb, ctype, part, doc) , &s->field
#include "etm/signals.def"
    );
}

/* The model's expected outputs, field by field, as a design would show them. */
static void expected_out(void *h, etm_out_t *o)
{
    memset(o, 0, sizeof *o);
#define ETM_OUT(field, name, width, ctype, where, doc) o->field = (ctype)etm_dpi_expected(h, #name);
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc)     \
    o->count = (uint8_t)etm_dpi_expected(h, #countname);                     \
    for (int i = 0; i < (n); i++)                                            \
        o->bytes[i] = (uint8_t)(etm_dpi_expected(h, #dataname) >> (8 * i));
#include "etm/signals.def"
    /* Names are matched without regard to case. */
    CHECK_EQ(etm_dpi_expected(h, "traceenable"), o->trace_enable);
    CHECK_EQ(etm_dpi_expected(h, "ViewData"), o->view_data);
}

static void *started(const char *name, const char *preset, const char *settings)
{
    void *h = etm_dpi_new(name);
    CHECK(h != NULL);
    CHECK_EQ(etm_dpi_preset(h, preset), 0);
    CHECK_EQ(etm_dpi_set(h, settings), 0);
    CHECK_EQ(etm_dpi_start(h), 0);
    return h;
}

/* The scoreboard's register image, register by register. */
static void image_of(void *h, etm_config_t *cfg)
{
    etm_config_default(cfg);
    for (size_t i = 0; i < etm_register_count; i++)
        for (unsigned k = 0; k < etm_registers[i].count; k++) {
            char name[32];
            unsigned v = 0;
            if (etm_registers[i].count > 1)
                snprintf(name, sizeof name, "%s%u", etm_registers[i].name, k + 1);
            else
                snprintf(name, sizeof name, "%s", etm_registers[i].name);
            CHECK_EQ(etm_dpi_reg(h, name, &v), 0);
            *etm_register_ptr(cfg, &etm_registers[i], k) = v;
        }
}

/* The design: a second model with the scoreboard's implementation, out of reset
 * unprogrammed, as the scoreboard's model is. */
static etm_ctx_t *design_for(void *h)
{
    etm_config_t cfg;
    image_of(h, &cfg);
    etm_ctx_t *m = NULL;
    etm_diag_t d;
    CHECK_EQ(etm_create_at_reset(&m, &cfg, &d), ETM_OK);
    return m;
}

/* After a reset: the programming sequence through the APB, into both, compared
 * cycle by cycle like the trace. Returns the mismatching compares; *cycles gets
 * the cycles it took. */
static unsigned program_both(void *h, etm_ctx_t *dut, unsigned *cycles)
{
    etm_config_t cfg;
    image_of(h, &cfg);
    etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv;
    etm_apb_driver_start(&drv, ops, etm_program_ops(&cfg, NULL, ops, ETM_PROGRAM_MAX_OPS));
    unsigned bad = 0;
    while (etm_apb_busy(&drv) && drv.cycles < 10000) {
        etm_in_t in;
        etm_out_t o;
        memset(&in, 0, sizeof in);
        etm_apb_drive(&drv, &in);
        CHECK_EQ(step(h, &in, 0), 0);
        etm_step(dut, &in, &o);
        bad += compare(h, &o, rules_of(dut), 0) != 0;
        etm_apb_observe(&drv, &o);
    }
    CHECK(!etm_apb_busy(&drv));
    *cycles = (unsigned)drv.cycles;
    return bad;
}

static etm_gen_t *generator(uint64_t seed, int data)
{
    etm_gen_params_t p;
    etm_gen_params_default(&p);
    p.seed = seed;
    p.data = data;
    p.triggers = 1;
    etm_gen_t *g = NULL;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, &p, &d), ETM_OK);
    return g;
}

/* ---- The register image and its errors ---------------------------------------------------- */

static void test_image_errors(void)
{
    void *h = etm_dpi_new("tb.u_sb");
    unsigned v = 0;

    CHECK_EQ(etm_dpi_preset(h, "etm-m9"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "tb.u_sb: unknown preset 'etm-m9': one of etm-m3, ");
    CHECK_STR_CONTAINS(etm_dpi_error(h), "etmv1.3");

    CHECK_EQ(etm_dpi_load(h, "no/such/config.txt"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "no/such/config.txt");
    CHECK_STR_CONTAINS(etm_dpi_error(h), "cannot open");

    /* Configuration text: the error names file and line. */
    const char *path = "test_etm_dpi_bad.txt";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("# a comment\nETMCR=0x00001810\nETMSYNCFR=0x1zz\n", f);
    fclose(f);
    CHECK_EQ(etm_dpi_load(h, path), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "test_etm_dpi_bad.txt:3:");
    remove(path);

    /* A vector file's header is an image too; its errors name the line. */
    char vec[512];
    snprintf(vec, sizeof vec, "%s/tb/data/bad/duplicate_register.vec", top_dir);
    CHECK_EQ(etm_dpi_load(h, vec), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "duplicate_register.vec:3:");

    /* Settings: the bad item is named, and the image is left as it was. */
    unsigned before = 0;
    CHECK_EQ(etm_dpi_reg(h, "ETMCR", &before), 0);
    CHECK_EQ(etm_dpi_set(h, "ETMCR=0x1810, ETMSYNCFR=0xQ"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "settings item 2 'ETMSYNCFR=0xQ'");
    CHECK_EQ(etm_dpi_reg(h, "ETMCR", &v), 0);
    CHECK_EQ(v, before);
    CHECK(v != 0x1810);
    CHECK_EQ(etm_dpi_set(h, "ETMCR=0x1810;ETMCR=0x1000"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "settings item 2");
    CHECK_EQ(etm_dpi_set(h, "NOSUCHREG=0x1"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "'NOSUCHREG=0x1'");
    CHECK_EQ(etm_dpi_reg(h, "ETMNOPE", &v), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "no register or parameter named 'ETMNOPE'");

    CHECK_EQ(etm_dpi_ignore(h, "VIEWDATA,TRACEPKTS"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "unknown output field 'TRACEPKTS': one of PIPESTAT, TRACEPKT,");
    CHECK_EQ(etm_dpi_rule_bits(h, 65), -1);

    /* Calls that need a started model. */
    CHECK_EQ(etm_dpi_reset(h), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "reset before etm_dpi_start");
    etm_in_t in;
    memset(&in, 0, sizeof in);
    CHECK_EQ(step(h, &in, 0), -1);

    /* An image the architecture refuses, and one the scoreboard refuses. */
    CHECK_EQ(etm_dpi_set(h, "ETMCCER=0x00400000"), 0);
    CHECK_EQ(etm_dpi_start(h), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "register image not accepted");
    CHECK_EQ(etm_dpi_preset(h, "etm-m3"), 0);
    CHECK_EQ(etm_dpi_set(h, "PORT_BYTES=0x0"), 0);
    CHECK_EQ(etm_dpi_start(h), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "PORT_BYTES=0");

    /* Once started, the image is fixed. */
    CHECK_EQ(etm_dpi_preset(h, "etmv3.5"), 0);
    CHECK_EQ(etm_dpi_start(h), 0);
    CHECK_EQ(etm_dpi_error(h)[0], 0);
    CHECK_EQ(etm_dpi_set(h, "ETMCR=0x1810"), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "fixed once the scoreboard has started");
    CHECK_EQ(etm_dpi_start(h), -1);

    /* The design's configuration against the image. */
    CHECK_EQ(etm_dpi_reg(h, "ETMIDR", &v), 0);
    CHECK_EQ(etm_dpi_check_reg(h, "ETMIDR", v), 0);
    CHECK_EQ(etm_dpi_check_reg(h, "ETMIDR", v ^ 0x10), 1);
    CHECK_STR_CONTAINS(etm_dpi_report(h), "tb.u_sb: configuration: the design's ETMIDR is");
    CHECK_EQ(etm_dpi_check_reg(h, "ETMIDRX", 0), -1);
    CHECK_EQ(etm_dpi_failures(h), 1);
    etm_dpi_free(h);

    /* A loaded file is the whole image; settings go on top. */
    h = etm_dpi_new(NULL);
    snprintf(vec, sizeof vec, "%s/vectors/qemu-fir-ca/config.txt", top_dir);
    CHECK_EQ(etm_dpi_preset(h, "etmv1.3"), 0);
    CHECK_EQ(etm_dpi_load(h, vec), 0);
    CHECK_EQ(etm_dpi_set(h, "FIFO_DEPTH=0x20"), 0);
    CHECK_EQ(etm_dpi_reg(h, "ETMIDR", &v), 0);
    CHECK_EQ(v, 0x4114F240);
    CHECK_EQ(etm_dpi_reg(h, "FIFO_DEPTH", &v), 0);
    CHECK_EQ(v, 0x20);
    CHECK_EQ(etm_dpi_start(h), 0);
    CHECK_STR_CONTAINS(etm_dpi_summary(h), "etm: FAIL: no cycle was compared");
    etm_dpi_free(h);
}

/* ---- Lockstep against a second model ------------------------------------------------------ */

typedef enum fault { FAULT_NONE, FAULT_FLIP, FAULT_LATE, FAULT_X } fault_t;

/* Runs `cycles` generated cycles, the end and the drain; the design's outputs
 * get `fault` at cycle `at` (FAULT_LATE: from then on). Returns the number of
 * mismatching compares; `report` gets the first report that contains `prefer`,
 * or else the first report. */
static unsigned lockstep(void *h, etm_ctx_t *dut, uint64_t seed, unsigned cycles, fault_t fault, unsigned at,
                         char *report, size_t size, const char *prefer)
{
    int kept_preferred = 0;
    etm_gen_t *g = generator(seed, 0);
    etm_in_t in;
    etm_out_t o, prev;
    memset(&prev, 0, sizeof prev);
    unsigned bad = 0;
    unsigned long long prev_rules = 0, rules;
    unsigned off = 0; /* `at` counts the cycles since the reset, programming included */
    if (etm_get_config(dut)->etmcr & ETM_FIELD_MASK(ETM_CR_PROGRAMMING)) /* out of reset: program both */
        bad += program_both(h, dut, &off);
    for (unsigned c = off; c < off + cycles; c++) {
        etm_gen_next(g, &in, NULL);
        CHECK_EQ(step(h, &in, 0), 0);
        etm_step(dut, &in, &o);
        unsigned unknown = 0;
        rules = rules_of(dut);
        etm_out_t shown = o;
        if (c >= at && fault == FAULT_LATE) {
            shown = prev;
            rules = prev_rules;
        }
        if (c == at && fault == FAULT_FLIP)
            shown.fifo_level ^= 4;
        if (c == at && fault == FAULT_X)
            unknown = 1u << ETM_DPI_FIELD_OVERFLOW;
        int n = compare(h, &shown, rules, unknown);
        CHECK(n >= 0);
        if (n > 0 && report && !kept_preferred && (bad == 0 || (prefer && strstr(etm_dpi_report(h), prefer)))) {
            snprintf(report, size, "%s", etm_dpi_report(h));
            kept_preferred = prefer && strstr(report, prefer);
        }
        if (n > 0)
            bad++;
        prev = o;
        prev_rules = rules_of(dut);
    }
    etm_gen_free(g);
    CHECK_EQ(etm_dpi_end(h), 0);
    CHECK_EQ(etm_end(dut), ETM_OK);
    CHECK_EQ(compare(h, &o, 0, 0), -1); /* the end edge has nothing to compare */
    unsigned drained = 0;
    for (;;) {
        int k = etm_dpi_drain(h);
        etm_err_t e = etm_drain(dut, &o);
        CHECK_EQ(k, e == ETM_OK ? 1 : 0);
        if (k != 1)
            break;
        drained++;
        if (compare(h, &o, 0, 0) > 0)
            bad++;
    }
    CHECK_EQ(etm_dpi_drain(h), 0); /* drained stays drained */
    CHECK_EQ(compare(h, &o, 0, 0), -1);
    return bad;
}

static void test_lockstep(void)
{
    char rep[4096];

    /* The same model on both sides: no mismatch, ETMv3 and ETMv1. */
    static const char *const setups[][2] = {
        { "cm3-ca-whatif", "ETMCR=0x1810" },
        { "etmv3.5", "ETMCR=0x1910,PORT_BYTES=0x2,FIFO_DEPTH=0x18" },
        { "etmv1.3", "ETMCR=0x81C,FIFO_DEPTH=0x18" },
    };
    for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++) {
        void *h = started("sb", setups[i][0], setups[i][1]);
        etm_ctx_t *dut = design_for(h);
        CHECK_EQ(lockstep(h, dut, 7 + i, 20000, FAULT_NONE, 0, NULL, 0, NULL), 0);
        CHECK_EQ(etm_dpi_failures(h), 0);
        CHECK(etm_dpi_compared(h) > 20000);
        CHECK_STR_CONTAINS(etm_dpi_summary(h), "sb: PASS: ");
        CHECK(strstr(etm_dpi_summary(h), "never ended") == NULL);
        etm_destroy(dut);
        etm_dpi_free(h);
    }

    /* One field corrupted in one cycle: that cycle, that field, both values. */
    void *h = started("tb.u_sb", "etm-m3", "");
    etm_ctx_t *dut = design_for(h);
    CHECK_EQ(lockstep(h, dut, 3, 5000, FAULT_FLIP, 1234, rep, sizeof rep, NULL), 1);
    CHECK_STR_CONTAINS(rep, "tb.u_sb: cycle 1234: mismatch\n  FIFOLEVEL    expected 0x");
    CHECK(strstr(rep, "one cycle late") == NULL);
    CHECK_EQ(etm_dpi_failures(h), 1);
    CHECK_STR_CONTAINS(etm_dpi_summary(h), "tb.u_sb: FAIL: ");
    CHECK_STR_CONTAINS(etm_dpi_summary(h), "first mismatch at cycle 1234, last at cycle 1234; per field: FIFOLEVEL 1");

    /* After a reset both start again; the counts go on. */
    CHECK_EQ(etm_dpi_reset(h), 0);
    etm_reset(dut);
    CHECK_EQ(lockstep(h, dut, 4, 3000, FAULT_NONE, 0, NULL, 0, NULL), 0);
    CHECK_EQ(etm_dpi_failures(h), 1);
    etm_destroy(dut);
    etm_dpi_free(h);

    /* A design one cycle late: every compare from there on can fail; the report
     * says what it looks like. */
    h = started("late", "cm3-ca-whatif", "ETMCR=0x1810");
    dut = design_for(h);
    CHECK(lockstep(h, dut, 5, 3000, FAULT_LATE, 100, rep, sizeof rep, "one cycle late") > 0);
    CHECK_STR_CONTAINS(rep, "the design's outputs are the model's of cycle ");
    CHECK_STR_CONTAINS(rep, "one cycle late");
    CHECK_STR_CONTAINS(etm_dpi_summary(h), "a design one cycle late?");
    etm_destroy(dut);
    etm_dpi_free(h);

    /* X or Z on an output is a mismatch even when its 2-state value is right. */
    h = started("x", "etm-m3", "");
    dut = design_for(h);
    CHECK_EQ(lockstep(h, dut, 6, 1000, FAULT_X, 500, rep, sizeof rep, NULL), 1);
    CHECK_STR_CONTAINS(rep, "x: cycle 500: mismatch\n  OVERFLOW     expected 0x0                      got X or Z");
    etm_destroy(dut);
    etm_dpi_free(h);

    /* Ignored fields are not compared, and the summary says so. */
    h = started("ign", "etm-m3", "");
    CHECK_EQ(etm_dpi_ignore(h, "fifolevel"), 0);
    dut = design_for(h);
    CHECK_EQ(lockstep(h, dut, 3, 2000, FAULT_FLIP, 1234, NULL, 0, NULL), 0);
    CHECK_STR_CONTAINS(etm_dpi_summary(h), "not compared: FIFOLEVEL");
    etm_destroy(dut);
    etm_dpi_free(h);
}

/* ---- Single cycles --------------------------------------------------------------------------- */

static void test_cycles(void)
{
    void *h = started("sb", "etm-m3", "");
    etm_in_t in;
    etm_out_t zero;
    memset(&in, 0, sizeof in);
    memset(&zero, 0, sizeof zero);

    CHECK_EQ(compare(h, &zero, 0, 0), -1); /* nothing stepped yet */
    CHECK_STR_CONTAINS(etm_dpi_error(h), "no modelled edge to compare");

    /* A value wider than its port. */
    in.intstat = 9;
    CHECK_EQ(step(h, &in, 0), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "ETMINTSTAT value 0x9 is wider than its 3 bits");
    in.intstat = 0;

    /* X on ETMIA while ETMIVALID=0 is harmless; while ETMIVALID=1 it is a failure. */
    const unsigned x_ia = 1u << IN_ia, x_dd = 1u << IN_dd;
    CHECK_EQ(step(h, &in, x_ia | x_dd), 0);
    CHECK_EQ(etm_dpi_report(h)[0], 0);
    CHECK_EQ(etm_dpi_failures(h), 0);
    CHECK_EQ(etm_dpi_cycle(h), 0);
    in.ivalid = in.ibranch = in.iindbr = 1;
    in.ia = 0x1000;
    CHECK_EQ(step(h, &in, x_ia), ETM_DPI_NOTE_UNKNOWN);
    CHECK_STR_CONTAINS(etm_dpi_report(h), "sb: cycle 1: input ETMIA is X or Z while it is qualified");
    CHECK_EQ(etm_dpi_failures(h), 1);
    CHECK_EQ(etm_dpi_cycle(h), 1);
    if (IN_COUNT < 32) /* a bit above the inputs, while the 32-bit mask has one */
        CHECK_EQ(step(h, &in, (unsigned)(1ull << IN_COUNT)), -1);

    /* An interface rule broken: noted, and the rule's bit is expected on VIOLATIONS. */
    memset(&in, 0, sizeof in);
    in.ibranch = 1;
    CHECK_EQ(step(h, &in, 0), ETM_DPI_NOTE_RULE);
    CHECK_STR_CONTAINS(etm_dpi_report(h), "interface rule IBRANCH_WITHOUT_IVALID");
    const unsigned bit = 1u << ETM_RULE_IBRANCH_WITHOUT_IVALID;
    CHECK_EQ(etm_dpi_expected(h, "VIOLATIONS"), bit);
    etm_out_t o;
    expected_out(h, &o);
    CHECK_EQ(etm_dpi_expected(h, "NOPE"), 0);
    CHECK_STR_CONTAINS(etm_dpi_error(h), "unknown output field 'NOPE'");
    CHECK_EQ(compare(h, &o, 0, 0), 1);
    CHECK_STR_CONTAINS(etm_dpi_report(h), "VIOLATIONS   expected 0x00000001 IBRANCH_WITHOUT_IVALID");
    CHECK_EQ(compare(h, &o, 0, 0), -1); /* one compare per edge */
    CHECK_EQ(step(h, &in, 0), ETM_DPI_NOTE_RULE);
    expected_out(h, &o);
    CHECK_EQ(compare(h, &o, bit, 1u << ETM_DPI_FIELD_COUNT), -1); /* a mask bit beyond the fields */
    CHECK_EQ(compare(h, &o, bit, 0), 0);

    /* A design whose checker knows fewer rules is compared on those only. */
    void *h2 = started("sb2", "etm-m3", "");
    CHECK_EQ(etm_dpi_rule_bits(h2, ETM_RULE_IBRANCH_WITHOUT_IVALID), 0);
    CHECK_EQ(step(h2, &in, 0), ETM_DPI_NOTE_RULE);
    CHECK_EQ(etm_dpi_expected(h2, "VIOLATIONS"), 0);
    expected_out(h2, &o);
    CHECK_EQ(compare(h2, &o, bit, 0), 0);

    /* End, drain, and what is not allowed after the end. */
    CHECK_EQ(etm_dpi_drain(h2), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h2), "before the end of trace");
    CHECK_EQ(etm_dpi_end(h2), 0);
    CHECK_EQ(etm_dpi_end(h2), -1);
    CHECK_EQ(step(h2, &in, 0), -1);
    CHECK_STR_CONTAINS(etm_dpi_error(h2), "after the end of trace");
    CHECK_EQ(etm_dpi_reset(h2), 0);
    CHECK_EQ(etm_dpi_cycle(h2), 0);
    CHECK_EQ(step(h2, &in, 0), ETM_DPI_NOTE_RULE);
    CHECK_STR_CONTAINS(etm_dpi_summary(h2), "sb2: PASS: 1 cycles compared");
    CHECK_STR_CONTAINS(etm_dpi_summary(h2), "cycles of stimulus broke an interface rule");
    etm_dpi_free(h2);
    etm_dpi_free(h);

    /* Null handles are refused, not dereferenced. */
    CHECK_EQ(etm_dpi_start(NULL), -1);
    CHECK_EQ(etm_dpi_failures(NULL), 0);
    CHECK_STR_CONTAINS(etm_dpi_error(NULL), "no scoreboard handle");
    etm_dpi_free(NULL);
}

/* ---- Stimulus sources -------------------------------------------------------------------------- */

static void test_stimulus(void)
{
    dpi_in_t s;
    void *st = etm_dpi_stim_new();
    CHECK_EQ(stim_next(st, 0, &s), 0); /* nothing opened: an idle record */
    CHECK_EQ(s.dd, 0);

    CHECK_EQ(etm_dpi_stim_vectors(st, "no/such.vec"), -1);
    CHECK_STR_CONTAINS(etm_dpi_stim_error(st), "no/such.vec");
    CHECK_EQ(etm_dpi_stim_vcd(st, "no/such.vcd"), -1);
    CHECK_STR_CONTAINS(etm_dpi_stim_error(st), "no/such.vcd");
    CHECK_EQ(etm_dpi_stim_records(st, "no/such.rec"), -1);
    CHECK_STR_CONTAINS(etm_dpi_stim_error(st), "no/such.rec");
    CHECK_EQ(stim_next(st, 0, &s), 0); /* a failed open leaves nothing open */
    char path[512];
    snprintf(path, sizeof path, "%s/tb/data/bad/bad_hex.vec", top_dir);
    CHECK_EQ(etm_dpi_stim_vectors(st, path), 0);
    CHECK_EQ(stim_next(st, 0, &s), 1);
    CHECK_EQ(s.ivalid, 1);
    CHECK_EQ(s.ia, 0x100 >> 1);
    CHECK_EQ(stim_next(st, 0, &s), -1);
    CHECK_STR_CONTAINS(etm_dpi_stim_error(st), "bad_hex.vec:4:");

    /* The generator gives what etm_gen gives, for the number of cycles asked. */
    CHECK_EQ(etm_dpi_stim_generate(st, 9, 500, 1, 1, 1, 200), 0);
    etm_gen_params_t p;
    etm_gen_params_default(&p);
    p.seed = 9;
    p.data = p.triggers = 1;
    p.irq_period = 200;
    etm_gen_t *g = NULL;
    etm_diag_t d;
    CHECK_EQ(etm_gen_create(&g, &p, &d), ETM_OK);
    unsigned same = 0;
    for (int c = 0; c < 500; c++) {
        etm_in_t in;
        etm_gen_next(g, &in, NULL);
        CHECK_EQ(stim_next(st, 0, &s), 1);
        same += s.ivalid == in.ivalid && s.ia == in.ia >> 1 && s.intstat == in.intstat && s.intnum == in.intnum &&
                s.dactl == in.dactl && s.da == in.da && s.dd == in.dd;
    }
    CHECK_EQ(same, 500);
    CHECK_EQ(stim_next(st, 0, &s), 0);

    /* A held cycle: the generator waits with ETMISTALL alone. */
    CHECK_EQ(etm_dpi_stim_generate(st, 9, 10, 1, 0, 0, 0), 0);
    CHECK_EQ(stim_next(st, 1, &s), 1);
    CHECK_EQ(s.ivalid, 0);
    CHECK_EQ(s.istall, 1);
    etm_gen_free(g);
    CHECK_EQ(etm_dpi_stim_generate(st, 1, 10, 3, 0, 0, 0), -1); /* issue width 3 */
    CHECK(etm_dpi_stim_error(st)[0] != 0);
    etm_dpi_stim_free(st);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        top_dir = argv[1];
    test_image_errors();
    test_lockstep();
    test_cycles();
    test_stimulus();
    return test_report("test_etm_dpi");
}
