/* test_filter.c - the filter stage, rule by rule: TraceEnable (event,
 * include/exclude regions, start/stop block), the resources (address
 * comparators, DWT inputs, counters), the trigger, ViewData and the parallel
 * execution rules of IHI 0014 section 2.11.1 (seed 002) with example 2.2.
 * Every expected value is worked out by hand from the rule named beside it;
 * docs/filter.md states the rules and the decisions the model took. */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

#define MAXC 64

static etm_ctx_t *E;
static etm_out_t O[MAXC];
static unsigned N;
static int rule_errors;

/* A context from a preset and "NAME=0xV" settings (NULL-terminated). */
static etm_err_t make(const char *preset, const char *const *sets, etm_diag_t *d)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, preset);
    for (unsigned i = 0; sets && sets[i]; i++)
        if (etm_config_parse_line(&cfg, sets[i], NULL, NULL, d) != ETM_OK) {
            fprintf(stderr, "setting %s: %s\n", sets[i], d->msg);
            return ETM_ERR_SYNTAX;
        }
    N = 0;
    rule_errors = 0;
    return etm_create(&E, &cfg, d);
}

static void start(const char *preset, const char *const *sets)
{
    etm_diag_t d;
    etm_err_t e = make(preset, sets, &d);
    if (e != ETM_OK)
        fprintf(stderr, "%s: %s\n", preset, d.msg);
    CHECK_EQ(e, ETM_OK);
}

static void stop(void)
{
    CHECK_EQ(rule_errors, 0); /* the stimulus keeps the interface rules */
    etm_destroy(E);
    E = NULL;
}

static void step(const etm_in_t *in)
{
    if (E && N < MAXC && etm_step(E, in, &O[N++]) == ETM_ERR_RULE) {
        etm_rule_t r[4];
        unsigned k = etm_last_rules(E, r, 4);
        fprintf(stderr, "cycle %u: interface rule %s\n", N - 1, k ? etm_rule_name(r[0]) : "?");
        rule_errors++;
    }
}

static etm_in_t idle(void)
{
    etm_in_t in;
    memset(&in, 0, sizeof in);
    return in;
}

static etm_in_t insn(uint32_t a)
{
    etm_in_t in = idle();
    in.ivalid = 1;
    in.ia = a;
    return in;
}

/* Two instructions in one cycle (ISSUE_WIDTH=2). */
static etm_in_t dual(uint32_t a0, uint32_t a1)
{
    etm_in_t in = insn(a0);
    in.ivalid1 = 1;
    in.ia1 = a1;
    return in;
}

/* A DWT comparator match on input n: a PC match (ETMTRIGINOTD=1) or a data match. */
static etm_in_t dwt(etm_in_t in, unsigned n, int pc)
{
    in.trigger = (uint8_t)(in.trigger | 1u << n);
    if (pc)
        in.triginotd = (uint8_t)(in.triginotd | 1u << n);
    return in;
}

/* A data transfer on the data slot interface: the bytes [da, da+bytes) within
 * one word, little-endian (DARot = da[1:0]); first: DANSeq, last: DALast. */
static etm_in_t xfer(etm_in_t in, uint32_t da, unsigned bytes, int write, int first, int last)
{
    static unsigned slot;
    slot = slot % 3 + 1;
    unsigned lanes = ((1u << bytes) - 1u) << (da & 7);
    in.dactl = slot | (unsigned)write << 2 | (lanes & 0xff) << 3 | (da & 3u) << 12 | (unsigned)last << 16 |
               (unsigned)first << 17;
    in.da = da;
    in.dvalid = 1;
    return in;
}

/* TraceEnable of cycles [from, from+n) against a string of '0'/'1'. */
static void expect_te(unsigned from, const char *want, const char *what)
{
    int ok = 1;
    for (unsigned i = 0; want[i]; i++)
        ok &= from + i < N && O[from + i].trace_enable == (want[i] == '1');
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s: TraceEnable from cycle %u: want %s, got ", what, from, want);
        for (unsigned i = 0; want[i] && from + i < N; i++)
            fputc(O[from + i].trace_enable ? '1' : '0', stderr);
        fputc('\n', stderr);
    }
}

static int trigger_cycle(void)
{
    for (unsigned i = 0; i < N; i++)
        if (O[i].trigger)
            return (int)i;
    return -1;
}

/* ---- Events ------------------------------------------------------------------------ */

/* All eight functions of resources A (DWT 0) and B (DWT 1), IHI 0014 3.6.2: one
 * instruction per cycle with the four combinations of A and B. */
static void test_event_functions(void)
{
    static const char *const want[8] = { "0101", "1010", "0001", "0010", "1000", "0111", "1011", "1110" };
    for (unsigned fn = 0; fn < 8; fn++) {
        char ev[32];
        snprintf(ev, sizeof ev, "ETMTEEVR=0x%X", fn << 14 | 0x21u << 7 | 0x20u);
        const char *sets[] = { ev, NULL };
        start("etm-m3", sets);
        for (unsigned ab = 0; ab < 4; ab++) {
            etm_in_t in = insn(0x100 + 2 * ab);
            if (ab & 1)
                in = dwt(in, 0, 1);
            if (ab & 2)
                in = dwt(in, 1, 1);
            step(&in);
        }
        expect_te(0, want[fn], ev);
        stop();
    }
}

/* A DWT input is latched for TraceEnable (held until the comparator compares
 * again: the next instruction for a PC comparator, the next data access for a
 * data comparator) and pulsed for counters (IHI 0014 3.5.39). */
static void test_latch_and_pulse(void)
{
    const char *pc[] = { "ETMTEEVR=0x20", NULL };
    start("etm-m3", pc);
    etm_in_t a = dwt(insn(0x100), 0, 1), i = idle(), b = insn(0x102);
    step(&a); /* 0: match */
    step(&i); /* 1, 2: stalled, still latched */
    step(&i);
    step(&b); /* 3: the next instruction does not match */
    step(&i);
    expect_te(0, "11100", "PC comparator latched until the next instruction");
    stop();

    start("etm-m3", pc);
    etm_in_t d = dwt(insn(0x100), 0, 0), n = insn(0x102), acc = insn(0x104);
    acc.dvalid = 1; /* a data access the DWT compares: no match */
    step(&d);   /* 0: data match */
    step(&n);   /* 1: an instruction is no data comparison: held */
    step(&acc); /* 2: the next data access clears it */
    step(&n);
    expect_te(0, "1100", "data comparator latched until the next data access");
    stop();

    /* Counter 1 counts pulses, not the cycles in between: 3 pulses take it from
     * 3 to 0, and the trigger (counter 1 at zero) sees the registered zero in
     * the cycle after the third pulse. */
    const char *cnt[] = { "ETMCNTENR1=0x20", "ETMCNTRLDVR1=0x3", "ETMCNTVR1=0x3", "ETMTRIGGER=0x40", NULL };
    start("etm-m3", cnt);
    etm_in_t p = dwt(insn(0x100), 0, 1);
    step(&p); /* 0: 3 -> 2 */
    step(&i);
    step(&i);
    step(&p); /* 3: 2 -> 1 */
    step(&p); /* 4: 1 -> 0 */
    step(&i); /* 5: at zero */
    step(&i);
    CHECK_EQ(trigger_cycle(), 5);
    stop();
}

/* The trigger fires once, in the first cycle its event is true (ETMSR[3]). */
static void test_trigger_once(void)
{
    const char *sets[] = { "ETMTRIGGER=0x20", NULL };
    start("etm-m3", sets);
    etm_in_t i = insn(0x100), t = dwt(insn(0x102), 0, 1);
    step(&i);
    step(&t);
    step(&i);
    step(&t);
    CHECK_EQ(trigger_cycle(), 1);
    CHECK_EQ(O[3].trigger, 0);
    CHECK_EQ(etm_get_stats(E)->triggers, 1);
    stop();
}

/* ---- Include/exclude regions ---------------------------------------------------------- */

#define CMP_EXEC_HALF "0x9" /* ETMACTR: instruction executed, halfword (Thumb) */

static void test_include_exclude(void)
{
    /* Range 1 = [0x1000, 0x1010): the high address is outside. */
    const char *incl[] = { "ETMACVR1=0x1000", "ETMACVR2=0x1010", "ETMACTR1=" CMP_EXEC_HALF,
                           "ETMACTR2=" CMP_EXEC_HALF, "ETMTECR1=0x1", NULL };
    start("etmv3.4", incl);
    const uint32_t addr[] = { 0x0FFE, 0x1000, 0x100E, 0x1010 };
    for (unsigned k = 0; k < 4; k++) {
        etm_in_t in = insn(addr[k]);
        step(&in);
    }
    expect_te(0, "0110", "include range [0x1000, 0x1010)");
    CHECK_EQ(etm_get_stats(E)->include_hits, 2);
    CHECK_EQ(etm_get_stats(E)->exclude_hits, 0);
    stop();

    const char *excl[] = { "ETMACVR1=0x1000", "ETMACVR2=0x1010", "ETMACTR1=" CMP_EXEC_HALF,
                           "ETMACTR2=" CMP_EXEC_HALF, "ETMTECR1=0x1000001", NULL };
    start("etmv3.4", excl);
    for (unsigned k = 0; k < 4; k++) {
        etm_in_t in = insn(addr[k]);
        step(&in);
    }
    expect_te(0, "1001", "exclude range [0x1000, 0x1010)");
    CHECK_EQ(etm_get_stats(E)->include_hits, 0);
    CHECK_EQ(etm_get_stats(E)->exclude_hits, 2);
    stop();

    /* Held between instructions (ETMv3.3: "stays low until the next instruction"). */
    start("etmv3.4", incl);
    etm_in_t in1 = insn(0x1000), out1 = insn(0x1010), i = idle();
    step(&in1);
    step(&i);
    step(&i);
    step(&out1);
    step(&i);
    step(&i);
    expect_te(0, "111000", "include result held through cycles without instructions");
    stop();

    /* Single comparator 3 through ETMTECR2. */
    const char *single[] = { "ETMACVR3=0x2000", "ETMACTR3=" CMP_EXEC_HALF, "ETMTECR2=0x4", "ETMTECR1=0x0", NULL };
    start("etmv3.4", single);
    etm_in_t s0 = insn(0x2000), s1 = insn(0x2002);
    step(&s0);
    step(&s1);
    expect_te(0, "10", "include single comparator 3");
    stop();

    /* Include with nothing selected traces nothing on an ETM with comparators... */
    const char *none[] = { "ETMTECR1=0x0", NULL };
    start("etmv3.4", none);
    step(&s0);
    step(&s1);
    expect_te(0, "00", "include nothing, ETM with comparators");
    stop();
    /* ...and everything on the ETM-M3, which has nothing to select (docs/filter.md). */
    start("etm-m3", none);
    step(&s0);
    step(&s1);
    expect_te(0, "11", "include nothing, ETM-M3");
    stop();

    /* Condition-qualified types: 0b010 passed, 0b011 failed. */
    const char *passed[] = { "ETMACVR1=0x2000", "ETMACTR1=0xA", "ETMTECR2=0x1", "ETMTECR1=0x0", NULL };
    start("etmv3.4", passed);
    etm_in_t f = insn(0x2000);
    f.iccfail = 1;
    step(&f);
    step(&s0);
    expect_te(0, "01", "type 0b010 ignores an instruction that failed its condition");
    stop();
    const char *failed[] = { "ETMACVR1=0x2000", "ETMACTR1=0xB", "ETMTECR2=0x1", "ETMTECR1=0x0", NULL };
    start("etmv3.4", failed);
    step(&f);
    step(&s0);
    expect_te(0, "10", "type 0b011 matches only an instruction that failed");
    stop();
}

/* Comparison size: up to ETMv3.0 it masks the low address bits (a word
 * comparator at A matches the Thumb instruction at A+2); from ETMv3.1 the
 * instruction's address must equal the comparator's (IHI 0014 2.7.1, 2.7.3). */
static void test_size_rules(void)
{
    const char *word[] = { "ETMACVR1=0x2000", "ETMACTR1=0x19", "ETMTECR2=0x1", "ETMTECR1=0x0", NULL };
    etm_in_t a = insn(0x2000), b = insn(0x2002), c = insn(0x2004);
    start("etmv3.0", word);
    step(&a);
    step(&b);
    step(&c);
    expect_te(0, "110", "ETMv3.0 word comparator");
    stop();
    start("etmv3.1", word);
    step(&a);
    step(&b);
    step(&c);
    expect_te(0, "100", "ETMv3.1 word comparator");
    stop();

    /* Data: ETMv3.1 matches any access touching the halfword at 0x20000102;
     * ETMv3.0 compares the access address with bit 0 masked. */
    const char *half[] = { "ETMACVR1=0x20000102", "ETMACTR1=0xC", "ETMTSSCR=0x1", "ETMTECR1=0x3000000", NULL };
    etm_in_t w = xfer(insn(0x100), 0x20000100, 4, 0, 1, 1), i = insn(0x102);
    start("etmv3.1", half);
    step(&w);
    step(&i);
    expect_te(0, "11", "ETMv3.1: a word access over the comparator's halfword starts");
    stop();
    start("etmv3.0", half);
    step(&w);
    step(&i);
    expect_te(0, "00", "ETMv3.0: the access address 0x20000100 is not 0x20000102");
    stop();
    etm_in_t w2 = xfer(insn(0x100), 0x20000104, 4, 0, 1, 1);
    start("etmv3.1", half);
    step(&w2);
    step(&i);
    expect_te(0, "00", "ETMv3.1: a word at 0x20000104 does not touch 0x20000102");
    stop();

    /* Load-only comparator: a store does not match. */
    const char *load[] = { "ETMACVR1=0x20000100", "ETMACTR1=0x1D", "ETMTSSCR=0x1", "ETMTECR1=0x3000000", NULL };
    etm_in_t st = xfer(insn(0x100), 0x20000100, 4, 1, 1, 1), ld = xfer(insn(0x102), 0x20000100, 4, 0, 1, 1);
    start("etmv3.4", load);
    step(&st);
    step(&i);
    step(&ld);
    expect_te(0, "001", "type 0b101 starts on the load, not the store");
    stop();
}

/* ---- Start/stop block ----------------------------------------------------------------- */

#define SS_COMPARATORS "ETMACVR1=0x1000", "ETMACVR2=0x2000", "ETMACVR3=0x3000", "ETMACTR1=" CMP_EXEC_HALF, \
                       "ETMACTR2=" CMP_EXEC_HALF, "ETMACTR3=" CMP_EXEC_HALF
/* Start on comparators 1 and 3, stop on 2 and 3; exclude nothing, start/stop on. */
#define SS_SETUP SS_COMPARATORS, "ETMTSSCR=0x60005", "ETMTECR1=0x3000000"

static void test_start_stop(void)
{
    const char *sets[] = { SS_SETUP, NULL };
    start("etmv3.4", sets);
    const uint32_t seq[] = { 0x0100, 0x1000, 0x1002, 0, 0x2000, 0x2002, 0x1000 };
    for (unsigned k = 0; k < 7; k++) {
        etm_in_t in = seq[k] ? insn(seq[k]) : idle();
        step(&in);
    }
    /* The start instruction is traced, the stop instruction is not; the state
     * holds in between (SEED2 cases 1 and 2, one instruction per cycle). */
    expect_te(0, "0111001", "start at 0x1000, stop at 0x2000");
    /* Started at 0x1000 twice (cycles 1 and 6), stopped once; 0x1002 restarts nothing. */
    CHECK_EQ(etm_get_stats(E)->ss_starts, 2);
    CHECK_EQ(etm_get_stats(E)->ss_stops, 1);
    stop();

    /* ETM-M3: the DWT inputs start (bit 0) and stop (bit 16) the block. */
    const char *m3[] = { "ETMTESSEICR=0x20001", "ETMTECR1=0x2000000", NULL };
    start("etm-m3", m3);
    etm_in_t a = insn(0x100), s = dwt(insn(0x102), 0, 1), b = insn(0x104), e = dwt(insn(0x106), 1, 1);
    step(&a);
    step(&s);
    step(&b);
    step(&e);
    step(&b);
    expect_te(0, "01100", "DWT start/stop");
    stop();
}

/* Two instructions in one cycle: the three cases of IHI 0014 2.11.1. */
static void test_parallel_start_stop(void)
{
    const char *sets[] = { SS_SETUP, "ISSUE_WIDTH=0x2", NULL };
    struct { const char *what; uint32_t pre; uint32_t a0, a1; uint32_t post; const char *te; } c[] = {
        /* pre 0x1000 turns the block on first; 0x0100 leaves it off */
        { "case 1: only a start, second item", 0x0100, 0x0FFC, 0x1000, 0x1002, "011" },
        { "case 2: stop is the first item", 0x1000, 0x2000, 0x2002, 0x2004, "100" },
        { "case 2: stop is not the first item", 0x1000, 0x1FFE, 0x2000, 0x2002, "110" },
        { "case 3: start before stop", 0x0100, 0x1000, 0x2000, 0x2002, "010" },
        { "case 3: stop before start, block on", 0x1000, 0x2000, 0x1000, 0x1002, "111" },
        { "case 3: stop before start, block off", 0x0100, 0x2000, 0x1000, 0x1002, "011" },
        { "one item both starts and stops", 0x0100, 0x3000, 0x3002, 0x3004, "011" },
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        start("etmv3.4", sets);
        etm_in_t p = insn(c[k].pre), d = dual(c[k].a0, c[k].a1), q = insn(c[k].post);
        step(&p);
        step(&d);
        step(&q);
        expect_te(0, c[k].te, c[k].what);
        stop();
    }

    /* Include/exclude: a pair is traced if either instruction must be. */
    const char *incl[] = { "ETMACVR1=0x2002", "ETMACTR1=" CMP_EXEC_HALF, "ETMTECR2=0x1", "ETMTECR1=0x0",
                           "ISSUE_WIDTH=0x2", NULL };
    start("etmv3.4", incl);
    etm_in_t d1 = dual(0x2000, 0x2002), d2 = dual(0x2004, 0x2006);
    step(&d1);
    step(&d2);
    expect_te(0, "10", "include: the second instruction matches");
    stop();
    const char *excl[] = { "ETMACVR1=0x2000", "ETMACTR1=" CMP_EXEC_HALF, "ETMTECR2=0x1", "ETMTECR1=0x1000000",
                           "ISSUE_WIDTH=0x2", NULL };
    start("etmv3.4", excl);
    etm_in_t d3 = dual(0x2000, 0x2002), d4 = insn(0x2000);
    step(&d3);
    step(&d4);
    expect_te(0, "10", "exclude: only the first is excluded, the second must be traced");
    stop();

    /* A resource used as an event is active for the whole cycle if any item
     * matched: the trigger on single comparator 1 fires for a match in slot 1,
     * and counter 1 counts the cycle once although both items match. */
    const char *ev2[] = { "ETMACVR2=0x2000", "ETMACTR2=" CMP_EXEC_HALF, "ETMACVR3=0x2004", "ETMACTR3=" CMP_EXEC_HALF,
                          "ETMTRIGGER=0x1", "ETMCNTENR1=0x14101", "ETMCNTVR1=0x3", "ETMTEEVR=0x40",
                          "ISSUE_WIDTH=0x2", NULL };
    /* ETMTRIGGER = comparator 2; ETMCNTENR1 = comparator 2 OR comparator 3. */
    start("etmv3.4", ev2);
    etm_in_t e1 = dual(0x1FFE, 0x2000), e2 = dual(0x2000, 0x2004), e3 = insn(0x2004), e4 = insn(0x100);
    step(&e1); /* 0: comparator 2 in slot 1: the trigger fires; counter 3 -> 2 */
    step(&e2); /* 1: both comparators match in one cycle: 2 -> 1, once */
    step(&e3); /* 2: 1 -> 0 */
    step(&e4); /* 3: at zero: TraceEnable (counter 1 at zero) */
    step(&e4);
    CHECK_EQ(trigger_cycle(), 0);
    expect_te(0, "00011", "one decrement per cycle, however many items match");
    stop();
}

/* Example 2.2: LDRD r4,[r1] and LDR r10,[r2] in one cycle. The order is
 * Instruction(LDRD), its two data items, Instruction(LDR), its data item. A
 * stop on the data address r1+4 leaves the block active for the instruction
 * items before it; the instruction in the stop item's own cycle comes before
 * the data item and is traced. */
static void test_example_2_2(void)
{
    const char *sets[] = { "ETMACVR1=0x1000", "ETMACTR1=" CMP_EXEC_HALF, "ETMACVR2=0x20000104", "ETMACTR2=0x1C",
                           "ETMTSSCR=0x20001", "ETMTECR1=0x3000000", "ISSUE_WIDTH=0x2", NULL };
    start("etmv3.4", sets);
    etm_in_t s = insn(0x1000);
    etm_in_t pair = dual(0x1002, 0x1006);                            /* LDRD, LDR */
    etm_in_t x1 = xfer(insn(0x100A), 0x20000100, 4, 0, 1, 0);         /* LDRD first word */
    etm_in_t x2 = xfer(insn(0x100C), 0x20000104, 4, 0, 0, 1);         /* LDRD second word: stop */
    etm_in_t x3 = xfer(insn(0x100E), 0x20000200, 4, 0, 1, 1);         /* LDR */
    etm_in_t t = insn(0x1010);
    step(&s);
    step(&pair);
    step(&x1);
    step(&x2);
    step(&x3);
    step(&t);
    expect_te(0, "111100", "example 2.2: stop on the LDRD's second data address");
    stop();

    /* The same stop with no instruction in its cycle: nothing after it is
     * traced (the cycle itself keeps the last instruction's TraceEnable). */
    start("etmv3.4", sets);
    etm_in_t y2 = xfer(idle(), 0x20000104, 4, 0, 0, 1);
    step(&s);
    step(&pair);
    step(&x1);
    step(&y2);
    step(&x3);
    expect_te(0, "11110", "a data stop alone in its cycle");
    stop();
}

/* Exact match (ETMACTR[7]): the match counts when the next instruction shows
 * that the matching one completed, and not at all if it was cancelled. */
static void test_exact_match(void)
{
    const char *sets[] = { "ETMACVR1=0x1000", "ETMACTR1=0x89", "ETMTSSCR=0x1", "ETMTECR1=0x3000000", NULL };
    start("etmv3.4", sets);
    etm_in_t a = insn(0x1000), b = insn(0x1002), c = insn(0x1004);
    step(&a);
    step(&b);
    step(&c);
    expect_te(0, "011", "exact match starts one instruction late");
    stop();

    start("etmv3.4", sets);
    etm_in_t cancel = idle(), h = insn(0x20000000);
    cancel.cancel = 1;
    h.ibranch = h.iindbr = 1;
    h.intstat = ETM_INTSTAT_ENTRY;
    h.intnum = 16;
    step(&a);
    step(&cancel);
    step(&h);
    step(&c);
    expect_te(0, "0000", "a cancelled instruction does not match exactly");
    stop();
}

/* ---- Counters ------------------------------------------------------------------------------ */

static void test_counters(void)
{
    /* Decrement every cycle from 2; the trigger sees zero two cycles later. */
    const char *down[] = { "ETMCNTENR1=0x6F", "ETMCNTVR1=0x2", "ETMCNTRLDVR1=0x4", "ETMTRIGGER=0x40", NULL };
    start("etmv3.4", down);
    etm_in_t i = insn(0x100);
    for (int k = 0; k < 5; k++)
        step(&i);
    CHECK_EQ(trigger_cycle(), 2);
    stop();

    /* Reload wins over decrement: in cycle 0 both events are true and the
     * counter becomes 1, not 4; it reaches 0 after cycle 1. */
    const char *rld[] = { "ETMACVR1=0x1000", "ETMACTR1=" CMP_EXEC_HALF, "ETMCNTENR1=0x6F", "ETMCNTVR1=0x5",
                          "ETMCNTRLDVR1=0x1", "ETMCNTRLDEVR1=0x0", "ETMTRIGGER=0x40", NULL };
    start("etmv3.4", rld);
    etm_in_t r = insn(0x1000);
    step(&r);
    for (int k = 0; k < 4; k++)
        step(&i);
    CHECK_EQ(trigger_cycle(), 2);
    stop();

    /* Counter 2 at zero as TraceEnable event; a reload on comparator 1 leaves zero. */
    const char *two[] = { "ETMACVR1=0x1000", "ETMACTR1=" CMP_EXEC_HALF, "ETMCNTENR2=0x6F", "ETMCNTVR2=0x1",
                          "ETMCNTRLDVR2=0x2", "ETMCNTRLDEVR2=0x0", "ETMTEEVR=0x41", NULL };
    start("etmv3.4", two);
    step(&i); /* 0: 1 -> 0 */
    step(&i); /* 1: zero */
    step(&r); /* 2: zero (registered); reload to 2 */
    step(&i); /* 3: 2 -> 1 */
    step(&i); /* 4: 1 -> 0 */
    step(&i); /* 5: zero */
    expect_te(0, "011001", "counter 2 at zero");
    CHECK_EQ(etm_get_stats(E)->counter_reloads, 1);
    stop();

    /* ETMv1: ETMCNTENR[17] = 0 counts every cycle whatever the event says. */
    const char *v1[] = { "ETMCNTENR2=0x406F", "ETMCNTVR2=0x3", "ETMTRIGGER=0x41", NULL };
    start("etmv1.3", v1);
    for (int k = 0; k < 5; k++)
        step(&i);
    CHECK_EQ(trigger_cycle(), 3);
    stop();
    const char *v1e[] = { "ETMCNTENR2=0x2406F", "ETMCNTVR2=0x3", "ETMTRIGGER=0x41", NULL };
    start("etmv1.3", v1e);
    for (int k = 0; k < 5; k++)
        step(&i);
    CHECK_EQ(trigger_cycle(), -1);
    stop();

    /* ETMv3.5 reduced-function counter 1: starts at the reload value, counts
     * every cycle, is zero for one cycle and reloads: period RLDVR + 1. */
    const char *red[] = { "ETMCNTRLDVR1=0x3", "ETMTEEVR=0x40", NULL };
    start("etm-m3-r2", red);
    for (int k = 0; k < 12; k++)
        step(&i);
    expect_te(0, "000100010001", "reduced-function counter, period 4");
    CHECK_EQ(etm_get_stats(E)->counter_reloads, 3); /* at zero in cycles 3, 7 and 11 */
    stop();

    /* TraceEnable changes only with an instruction: cycles 4 and 5 have none
     * and keep cycle 3's value although the counter has left zero. */
    start("etm-m3-r2", red);
    etm_in_t z = idle();
    for (int k = 0; k < 4; k++)
        step(&i);
    step(&z);
    step(&z);
    step(&i);
    expect_te(0, "0001110", "cycles without instructions keep TraceEnable");
    stop();
}

/* ---- ViewData ------------------------------------------------------------------------------ */

static int vd(unsigned c) { return c < N ? O[c].view_data : -1; }

static void test_view_data(void)
{
    etm_in_t a = xfer(insn(0x100), 0x20000100, 4, 0, 1, 1), b = xfer(insn(0x102), 0x20000200, 4, 1, 1, 1);
    etm_in_t u1 = xfer(insn(0x104), 0x200000FE, 2, 0, 1, 1), u2 = xfer(idle(), 0x20000100, 2, 0, 0, 1);
    /* The generic presets trace data throughout memory. */
    start("etmv3.4", NULL);
    step(&a);
    step(&b);
    CHECK_EQ(vd(0), 1);
    CHECK_EQ(vd(1), 1);
    stop();

    const char *never[] = { "ETMVDEVR=0x406F", NULL };
    start("etmv3.4", never);
    step(&a);
    CHECK_EQ(vd(0), 0);
    stop();

    const char *incl[] = { "ETMACVR1=0x20000100", "ETMACTR1=0x1C", "ETMVDCR1=0x1", "ETMVDCR3=0x0", NULL };
    start("etmv3.4", incl);
    step(&a);
    step(&b);
    CHECK_EQ(vd(0), 1);
    CHECK_EQ(vd(1), 0);
    stop();

    const char *excl[] = { "ETMACVR1=0x20000100", "ETMACTR1=0x1C", "ETMVDCR1=0x10000", "ETMVDCR3=0x10000", NULL };
    start("etmv3.4", excl);
    step(&a);
    step(&b);
    CHECK_EQ(vd(0), 0);
    CHECK_EQ(vd(1), 1);
    stop();

    /* Range 1 = [0x20000100, 0x20000108), data type: the first half of an
     * unaligned access (bytes 0xFE-0xFF) is outside, the second inside. */
    const char *range[] = { "ETMACVR1=0x20000100", "ETMACVR2=0x20000108", "ETMACTR1=0xC", "ETMACTR2=0xC",
                            "ETMVDCR3=0x1", NULL };
    start("etmv3.4", range);
    u1.dactl |= 1u << 11; /* DAUnaligned on the first half */
    step(&u1);
    step(&u2);
    CHECK_EQ(vd(0), 0);
    CHECK_EQ(vd(1), 1);
    stop();

    /* ETMv1: a load whose first transfer is not viewed is IE, not ID. */
    const char *v1[] = { "ETMCR=0x81C", "ETMACVR1=0x20000100", "ETMACTR1=0x1C", "ETMVDCR1=0x1", "ETMVDCR3=0x0", NULL };
    for (int viewed = 0; viewed < 2; viewed++) {
        start("etmv1.3", v1);
        etm_in_t l = xfer(insn(0x100), viewed ? 0x20000100 : 0x20000200, 4, 0, 1, 1), z = idle(), v = idle(),
                 n = insn(0x102);
        v.ddctl = (uint8_t)ETM_DACTL_SLOT(l.dactl);
        v.dd = 0x11223344;
        step(&l);
        step(&z);
        step(&v);
        step(&n);
        etm_end(E);
        while (N < MAXC && etm_drain(E, &O[N]) == ETM_OK)
            N++;
        int ids = 0;
        for (unsigned k = 0; k < N; k++)
            ids += O[k].pipestat == 1;
        CHECK_EQ(ids, viewed);
        stop();
    }
}

/* ---- Cortex-M3: trace stays on for the exception that ends it ------------------------------------ */

static void test_exception_keeps_trace(void)
{
    const char *sets[] = { "ETMTEEVR=0x20", NULL };
    start("etm-m3", sets);
    etm_in_t a = dwt(insn(0x100), 0, 1), stack = idle(), h = insn(0x20000000), n = insn(0x20000002);
    stack.intstat = 4; /* stacking */
    h.ibranch = h.iindbr = 1;
    h.intstat = ETM_INTSTAT_ENTRY;
    h.intnum = 16;
    step(&a);
    step(&stack);
    step(&h);
    step(&n);
    /* 0: match; 1: stacking, still latched; 2: the handler: no match, but
     * traced with its exception; 3: off. */
    expect_te(0, "1110", "the handler's first instruction is traced with its exception");
    stop();

    /* The block stops during the vector fetch (a data match, cancelling the
     * instruction in execute): trace holds until the handler's first
     * instruction is out, then turns off. Cycles without instructions keep
     * the last instruction's TraceEnable. */
    const char *ss[] = { "ETMTESSEICR=0x20001", "ETMTECR1=0x2000000", NULL };
    start("etm-m3", ss);
    etm_in_t go = dwt(insn(0x100), 0, 1), b = insn(0x102), fetch = dwt(idle(), 1, 0);
    fetch.intstat = ETM_INTSTAT_FETCH;
    fetch.flush = fetch.findbr = 1;
    fetch.cancel = 1;
    step(&go);
    step(&b);
    step(&fetch);
    step(&stack);
    step(&h);
    step(&n);
    expect_te(0, "111110", "trace held from the vector fetch to the handler");
    stop();
}

/* ---- What the model refuses ------------------------------------------------------------------------ */

static void expect_refused(const char *preset, const char *const *sets, etm_err_t err, const char *msg)
{
    etm_diag_t d;
    memset(&d, 0, sizeof d);
    etm_err_t e = make(preset, sets, &d);
    CHECK_EQ(e, err);
    CHECK_STR_CONTAINS(d.msg, msg);
    if (e == ETM_OK)
        etm_destroy(E);
    E = NULL;
}

static void test_refused(void)
{
    const char *fetch[] = { "ETMACVR1=0x1000", "ETMACTR1=0x8", "ETMTECR2=0x1", NULL };
    expect_refused("etmv3.4", fetch, ETM_ERR_UNSUPPORTED, "instruction fetch");
    const char *unused_fetch[] = { "ETMACVR1=0x1000", "ETMACTR1=0x8", NULL };
    expect_refused("etmv3.4", unused_fetch, ETM_OK, "");
    const char *sec[] = { "ETMACVR1=0x1000", "ETMACTR1=0x409", "ETMTECR2=0x1", NULL };
    expect_refused("etmv3.4", sec, ETM_ERR_UNSUPPORTED, "security");
    const char *pair[] = { "ETMACVR1=0x1000", "ETMACVR2=0x2000", "ETMACTR1=0x9", "ETMACTR2=0xA", "ETMTECR1=0x1",
                           NULL };
    expect_refused("etmv3.4", pair, ETM_ERR_UNSUPPORTED, "programmed alike");
    const char *mix[] = { "ETMACVR1=0x20000000", "ETMACTR1=0x1C", "ETMTECR2=0x1", NULL };
    expect_refused("etmv3.4", mix, ETM_ERR_UNSUPPORTED, "include/exclude");
    const char *mix2[] = { "ETMACVR1=0x1000", "ETMACTR1=0x9", "ETMVDCR1=0x1", NULL };
    expect_refused("etmv3.4", mix2, ETM_ERR_UNSUPPORTED, "ViewData");
    const char *seq[] = { "ETMCCR=0x8C814004", "ETMTEEVR=0x50", NULL };
    expect_refused("etmv3.4", seq, ETM_ERR_UNSUPPORTED, "sequencer");
    const char *mmd[] = { "ETMCCR=0x8C804104", "ETMTECR1=0x100", NULL };
    expect_refused("etmv3.4", mmd, ETM_ERR_UNSUPPORTED, "memory map decoder");
    const char *align[] = { "ETMACVR1=0x1001", "ETMACTR1=0x9", NULL };
    expect_refused("etmv3.4", align, ETM_ERR_RESERVED_BITS, "aligned");
}

int main(void)
{
    test_event_functions();
    test_latch_and_pulse();
    test_trigger_once();
    test_include_exclude();
    test_size_rules();
    test_start_stop();
    test_parallel_start_stop();
    test_example_2_2();
    test_exact_match();
    test_counters();
    test_view_data();
    test_exception_keeps_trace();
    test_refused();
    return test_report("test_filter");
}
