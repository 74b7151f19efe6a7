/* test_encoder.c - the ETMv3 bytes for small hand-made stimuli, against the
 * spec's examples (IHI 0014 examples 7.1 and 7.2, table 7.4) and byte strings
 * OpenCSD 1.3.3 was seen to decode to the intended meaning
 * (docs/etmv3-protocol.md): P-header formats, branch address packets in both
 * encodings, exception bytes, A-sync, I-sync with and without cycle count,
 * cycle count packets, exception return, trigger, cancel, periodic sync,
 * overflow restart and port padding, with the what-if choices (the fewest
 * P-headers; ideal_choices). */
#include <stdlib.h>

#include "etm/etm.h"
#include "test.h"

#define MAXB 4096

typedef struct run {
    etm_ctx_t *etm;
    uint8_t bytes[MAXB];
    size_t n;
    etm_out_t last;
} run_t;

/* The what-if choices these examples were written for (the fewest P-headers,
 * the trigger first, A-sync and I-sync together, the cancelled atom isolated):
 * the ETM-M3's own are test_silicon_choices'. */
static void ideal_choices(etm_config_t *cfg)
{
    cfg->ph_packing = 0;
    cfg->trace_start = 0;
    cfg->isync_info = 0;
    cfg->sync_placement = 0;
    cfg->tailchain_return = 0;
    cfg->cancel_form = 0;
}

static void start(run_t *r, const char *preset, uint32_t etmcr)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_preset(&cfg, preset);
    ideal_choices(&cfg);
    cfg.etmcr = etmcr;
    memset(r, 0, sizeof *r);
    if (etm_create(&r->etm, &cfg, &d) != ETM_OK) {
        fprintf(stderr, "config: %s\n", d.msg);
        CHECK(0);
    }
}

static void collect(run_t *r, const etm_out_t *o)
{
    for (unsigned i = 0; i < o->v3_count && r->n < MAXB; i++)
        r->bytes[r->n++] = o->v3_bytes[i];
    r->last = *o;
}

static void step(run_t *r, const etm_in_t *in)
{
    etm_out_t o;
    CHECK_EQ(etm_step(r->etm, in, &o), ETM_OK);
    collect(r, &o);
}

/* The ETM-M3 as it is (its own choices), not cycle-accurate. */
static void start_m3(run_t *r)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_preset(&cfg, "etm-m3");
    cfg.etmcr = 0x810;
    memset(r, 0, sizeof *r);
    CHECK_EQ(etm_create(&r->etm, &cfg, &d), ETM_OK);
}

static void finish(run_t *r)
{
    etm_out_t o;
    etm_end(r->etm);
    while (etm_drain(r->etm, &o) == ETM_OK)
        collect(r, &o);
}

static etm_in_t idle(void)
{
    etm_in_t in;
    memset(&in, 0, sizeof in);
    return in;
}

static etm_in_t insn(uint32_t a, int passed)
{
    etm_in_t in = idle();
    in.ivalid = 1;
    in.ia = a;
    in.iccfail = (uint8_t)!passed;
    return in;
}

static etm_in_t target(uint32_t a)
{
    etm_in_t in = insn(a, 1);
    in.ibranch = in.iindbr = 1;
    return in;
}

/* Compare the stream with a hex string ("00 00 ..."), bytes separated by blanks. */
static void expect(const run_t *r, const char *hex, const char *what)
{
    uint8_t want[MAXB];
    size_t n = 0;
    for (const char *p = hex; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        want[n++] = (uint8_t)strtoul(p, NULL, 16);
        p += 2;
    }
    int ok = n == r->n && memcmp(want, r->bytes, n) == 0;
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "%s:\n  want:", what);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %02x", want[i]);
        fprintf(stderr, "\n  got: ");
        for (size_t i = 0; i < r->n; i++)
            fprintf(stderr, " %02x", r->bytes[i]);
        fprintf(stderr, "\n");
    }
}

#define ASYNC "00 00 00 00 00 80 "
#define ISYNC_100 "08 20 01 01 00 00 "     /* I-sync, trace on, 0x100 Thumb (OpenCSD: Addr=0x100 T32) */

static void test_pheaders_noncycle(void)
{
    run_t r;
    /* Example 7.1: b11001000 = E E N. */
    start(&r, "etm-m3", 0x810);
    etm_in_t a = insn(0x100, 1), b = insn(0x102, 1), c = insn(0x104, 0);
    step(&r, &a);
    step(&r, &b);
    step(&r, &c);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "c8", "example 7.1, EEN");
    etm_destroy(r.etm);
    /* Example 7.1: b10001010 = N E. */
    start(&r, "etm-m3", 0x810);
    a = insn(0x100, 0);
    b = insn(0x102, 1);
    step(&r, &a);
    step(&r, &b);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "8a", "example 7.1, NE");
    etm_destroy(r.etm);
    /* Format 1 holds at most 15 E and a final N; 17 E then N: 15 E (0xbc), then EE N (0xc8). */
    start(&r, "etm-m3", 0x810);
    for (int i = 0; i < 17; i++) {
        a = insn(0x100 + 2u * (unsigned)i, 1);
        step(&r, &a);
    }
    a = insn(0x122, 0);
    step(&r, &a);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "bc c8", "15 E, then E E N");
    etm_destroy(r.etm);
    /* N N N: a pair (0x8e: both N) then a lone N (0xc0). */
    start(&r, "etm-m3", 0x810);
    for (int i = 0; i < 3; i++) {
        a = insn(0x100 + 2u * (unsigned)i, 0);
        step(&r, &a);
    }
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "8e c0", "N N N");
    etm_destroy(r.etm);
}

#define ISYNC_CC0_100 "70 00 20 01 01 00 00 " /* I-sync with cycle count 0 */

static void test_pheaders_cycle(void)
{
    run_t r;
    /* Example 7.2: b11001000 = W E W E W N, one instruction per cycle. */
    start(&r, "cm3-ca-whatif", 0x1810);
    etm_in_t a = insn(0x100, 1), b = insn(0x102, 1), c = insn(0x104, 0);
    step(&r, &a);
    step(&r, &b);
    step(&r, &c);
    finish(&r);
    expect(&r, ASYNC ISYNC_CC0_100 "c8", "example 7.2, WEWEWN");
    etm_destroy(r.etm);
    /* Example 7.2: b10001010 = W N E, two instructions in one cycle: a failed
     * instruction folding the IT after it. */
    start(&r, "cm3-ca-whatif", 0x1810);
    a = insn(0x100, 0);
    a.fold = 1;
    step(&r, &a);
    finish(&r);
    expect(&r, ASYNC ISYNC_CC0_100 "8a", "example 7.2, WNE");
    etm_destroy(r.etm);
    /* Example 7.2: b11101000 = W W W E: two idle cycles then an instruction. */
    start(&r, "cm3-ca-whatif", 0x1810);
    etm_in_t i0 = idle();
    a = insn(0x100, 1);
    b = insn(0x102, 1);
    step(&r, &a);
    step(&r, &i0);
    step(&r, &i0);
    step(&r, &b);
    finish(&r);
    expect(&r, ASYNC ISYNC_CC0_100 "84 e8", "example 7.2, W E then W W W E");
    etm_destroy(r.etm);
    /* Table 7.4: two instructions in one cycle, the first needing a packet
     * after it: format 1 (b10000100) then format 4 (b10010010). Here the
     * packet is the branch address of slot 1 (the target of slot 0). */
    {
        etm_config_t cfg;
        etm_diag_t d;
        etm_config_preset(&cfg, "cm3-ca-whatif");
        ideal_choices(&cfg);
        cfg.etmcr = 0x1810;
        cfg.issue_width = 2;
        memset(&r, 0, sizeof r);
        CHECK_EQ(etm_create(&r.etm, &cfg, &d), ETM_OK);
        a = insn(0x100, 1);
        step(&r, &a);
        a = insn(0x102, 1); /* BX: its target 0x200 retires in slot 1 of the same cycle */
        a.ivalid1 = 1;
        a.ia1 = 0x200;
        a.ibranch1 = a.iindbr1 = 1;
        step(&r, &a);
        finish(&r);
        /* 88: W E W E; then the branch to 0x200 (OpenCSD: 81 04 -> 0x200); then 92: E, no W. */
        expect(&r, ASYNC ISYNC_CC0_100 "88 81 04 92", "table 7.4, format 4");
        etm_destroy(r.etm);
    }
    /* A run of 484 idle cycles: cycle count packet 04 e4 03 (OpenCSD: 484). */
    start(&r, "cm3-ca-whatif", 0x1810);
    a = insn(0x100, 1);
    step(&r, &a);
    for (int k = 0; k < 484; k++)
        step(&r, &i0);
    b = insn(0x102, 1);
    step(&r, &b);
    finish(&r);
    expect(&r, ASYNC ISYNC_CC0_100 "84 04 e4 03 84", "long gap as a cycle count");
    etm_destroy(r.etm);
    /* 9 idle cycles, then an instruction: 8 W (0xbc), then W W E (0xe4). */
    start(&r, "cm3-ca-whatif", 0x1810);
    a = insn(0x100, 1);
    step(&r, &a);
    for (int k = 0; k < 9; k++)
        step(&r, &i0);
    step(&r, &b);
    finish(&r);
    expect(&r, ASYNC ISYNC_CC0_100 "84 bc e4", "format 3 runs");
    etm_destroy(r.etm);
    /* First instruction at cycle 133: I-sync count 133 = 85 01 (OpenCSD: 133). */
    start(&r, "cm3-ca-whatif", 0x1810);
    for (int k = 0; k < 133; k++)
        step(&r, &i0);
    step(&r, &a);
    finish(&r);
    expect(&r, ASYNC "70 85 01 20 01 01 00 00 84", "I-sync cycle count 133");
    etm_destroy(r.etm);
}

static void test_branch_packets(void)
{
    uint8_t b[8];
    unsigned n;
    /* Alternative encoding (ETMv3.4, Cortex-M3), base 0x100. */
    n = etm_v3_branch_packet(b, 0x100, 0x2100, 1, -1, 0);
    CHECK(n == 3 && b[0] == 0x81 && b[1] == 0xc2 && b[2] == 0x00);
    n = etm_v3_branch_packet(b, 0x100, 0x10000000, 1, -1, 0);
    CHECK(n == 5 && b[0] == 0x81 && b[1] == 0x80 && b[2] == 0x80 && b[3] == 0x80 && b[4] == 0x11);
    n = etm_v3_branch_packet(b, 0x10000000, 0x12000000, 1, -1, 0);
    CHECK(n == 4 && b[0] == 0x81 && b[1] == 0x80 && b[2] == 0x80 && b[3] == 0x10);
    n = etm_v3_branch_packet(b, 0x100, 0x200, 1, -1, 0);
    CHECK(n == 2 && b[0] == 0x81 && b[1] == 0x04);
    n = etm_v3_branch_packet(b, 0x100, 0x17e, 1, -1, 0); /* 1 byte: A[6:1] only */
    CHECK(n == 1 && b[0] == 0x7f);
    /* Original encoding: byte 1 carries 7 bits. */
    n = etm_v3_branch_packet(b, 0x100, 0x2100, 0, -1, 0);
    CHECK(n == 2 && b[0] == 0x81 && b[1] == 0x42);
    /* Exception packets (alternative encoding), handler 0x200 from 0x100. */
    n = etm_v3_branch_packet(b, 0x100, 0x200, 1, 8, 0); /* IRQ0 */
    CHECK(n == 3 && b[0] == 0x81 && b[1] == 0x44 && b[2] == 0x10);
    n = etm_v3_branch_packet(b, 0x100, 0x200, 1, 11, 0); /* SVC */
    CHECK(n == 3 && b[2] == 0x16);
    n = etm_v3_branch_packet(b, 0x100, 0x200, 1, 19, 1); /* HardFault, cancel */
    CHECK(n == 4 && b[2] == 0xa6 && b[3] == 0x01);
    n = etm_v3_branch_packet(b, 0x100, 0x200, 1, 24, 0); /* IRQ8 */
    CHECK(n == 4 && b[2] == 0x90 && b[3] == 0x01);
    n = etm_v3_branch_packet(b, 0x100, 0x102, 1, 8, 0); /* exception bytes need 2 address bytes */
    CHECK(n == 3 && b[0] == 0x83 && b[1] == 0x42);
    n = etm_v3_branch_packet(b, 0x100, 0x200, 1, 511, 0); /* largest number */
    CHECK(n == 4 && b[2] == 0x9e && b[3] == 0x1f);
    /* Original encoding: exception bytes only after 5 address bytes. */
    n = etm_v3_branch_packet(b, 0x100, 0x200, 0, 8, 0);
    CHECK(n == 6 && b[0] == 0x81 && b[1] == 0x84 && b[2] == 0x80 && b[3] == 0x80 && b[4] == 0x50 && b[5] == 0x10);
    /* Cortex-M3 table 14-8. */
    CHECK_EQ(etm_m3_traced_exception(16), 8);  /* IRQ0 */
    CHECK_EQ(etm_m3_traced_exception(17), 1);  /* IRQ1 */
    CHECK_EQ(etm_m3_traced_exception(23), 7);  /* IRQ7 */
    CHECK_EQ(etm_m3_traced_exception(24), 24); /* IRQ8 */
    CHECK_EQ(etm_m3_traced_exception(2), 10);  /* NMI */
    CHECK_EQ(etm_m3_traced_exception(3), 19);  /* HardFault */
    CHECK_EQ(etm_m3_traced_exception(4), 13);  /* MemManage */
    CHECK_EQ(etm_m3_traced_exception(5), 21);  /* BusFault */
    CHECK_EQ(etm_m3_traced_exception(6), 9);   /* UsageFault */
    CHECK_EQ(etm_m3_traced_exception(11), 11); /* SVC */
    CHECK_EQ(etm_m3_traced_exception(12), 12); /* DebugMon */
    CHECK_EQ(etm_m3_traced_exception(14), 14); /* PendSV */
    CHECK_EQ(etm_m3_traced_exception(15), 15); /* SysTick */
    CHECK_EQ(etm_m3_traced_exception(1), 17);  /* Reset */
    CHECK_EQ(etm_m3_traced_exception(255), 255);
}

static void test_exceptions(void)
{
    run_t r;
    /* Exception entry and return, non-cycle-accurate. */
    start(&r, "etm-m3", 0x810);
    etm_in_t a = insn(0x100, 1), i0 = idle();
    step(&r, &a);
    etm_in_t h = target(0x200);
    h.intstat = ETM_INTSTAT_ENTRY;
    h.intnum = 16; /* IRQ0 */
    step(&r, &h);
    etm_in_t ret = insn(0x202, 1); /* BX LR */
    step(&r, &ret);
    etm_in_t ex = i0;
    ex.intstat = ETM_INTSTAT_EXIT;
    step(&r, &ex);
    etm_in_t back = target(0x102);
    back.intstat = ETM_INTSTAT_RETURN;
    step(&r, &back);
    finish(&r);
    /* 84: E; 81 44 10: IRQ0 at 0x200; 88: E E (handler, BX LR); 76: exception
     * return; 83 02: branch to 0x102 (bits 9 and 8 changed); 84: E. */
    expect(&r, ASYNC ISYNC_100 "84 81 44 10 88 76 83 02 84", "entry and return");
    etm_destroy(r.etm);

    /* Before ETMv3.4 (IHI 0014Q 7.5.1, 7.6): no exception byte 1, no 0x76. IRQ8
     * (traced as 24) becomes a plain branch to its handler, its return a plain
     * branch back; both are counted as untraceable. With IRQ0 (traced as 8) the
     * exception byte is there. Original encoding: 81 04 is the branch to 0x200. */
    start(&r, "etmv3.3", 0x810);
    step(&r, &a);
    h.intnum = 24; /* IRQ8 */
    step(&r, &h);
    step(&r, &ret);
    step(&r, &ex);
    step(&r, &back);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "84 81 04 88 83 02 84", "ETMv3.3: IRQ8 and its return as plain branches");
    CHECK_EQ(etm_get_stats(r.etm)->untraceable, 2);
    CHECK_EQ(etm_get_stats(r.etm)->packets[ETM_PKT_EXC_RETURN], 0);
    etm_destroy(r.etm);
    start(&r, "etmv3.3", 0x810);
    step(&r, &a);
    h.intnum = 16; /* IRQ0: traced as 8, one exception byte */
    step(&r, &h);
    step(&r, &ret);
    step(&r, &ex);
    step(&r, &back);
    finish(&r);
    CHECK_EQ(etm_get_stats(r.etm)->untraceable, 1); /* the return */
    CHECK_EQ(etm_get_stats(r.etm)->packets[ETM_PKT_BRANCH_EXC], 1);
    etm_destroy(r.etm);

    /* Cancel: the cancelled atom alone before the cancelling packet; after a
     * one-atom header an Ignore keeps the two apart. */
    start(&r, "etm-m3", 0x810);
    etm_in_t ldm = insn(0x102, 1);
    step(&r, &a);
    step(&r, &ldm);
    etm_in_t cn = i0;
    cn.cancel = 1;
    cn.flush = cn.findbr = 1;
    step(&r, &cn);
    h.intnum = 3; /* HardFault */
    step(&r, &h);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "84 66 84 81 44 a6 01 84", "cancel after a one-atom header");
    etm_destroy(r.etm);

    start(&r, "etm-m3", 0x810);
    etm_in_t b = insn(0x102, 1), c = insn(0x104, 1);
    step(&r, &a);
    step(&r, &b);
    step(&r, &c);
    step(&r, &cn);
    step(&r, &h);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "88 84 81 44 a6 01 84", "cancel after a two-atom header");
    etm_destroy(r.etm);

    /* Cycle-accurate cancel: the stacking cycles' W go after the exception packet. */
    start(&r, "cm3-ca-whatif", 0x1810);
    step(&r, &a);
    step(&r, &b);
    step(&r, &c);
    step(&r, &cn);
    step(&r, &i0);
    step(&r, &h);
    finish(&r);
    /* 88: W E W E; 84: W E (cancelled); branch; e4: W W W E (cancel cycle, idle, handler). */
    expect(&r, ASYNC ISYNC_CC0_100 "88 84 81 44 a6 01 e8", "cycle-accurate cancel");
    etm_destroy(r.etm);
}

static void test_sync_trigger_overflow(void)
{
    run_t r;
    etm_config_t cfg;
    etm_diag_t d;
    etm_in_t i0 = idle();

    /* Trigger on DWT comparator 1: 0x0C after what came before. */
    etm_config_preset(&cfg, "etm-m3");
    ideal_choices(&cfg);
    cfg.etmtrigger = 0x20;
    memset(&r, 0, sizeof r);
    CHECK_EQ(etm_create(&r.etm, &cfg, &d), ETM_OK);
    etm_in_t a = insn(0x100, 1), b = insn(0x102, 1);
    step(&r, &a);
    b.trigger = 1;
    step(&r, &b);
    CHECK_EQ(r.last.trigger, 1);
    etm_in_t c = insn(0x104, 1);
    c.trigger = 1; /* once only */
    step(&r, &c);
    CHECK_EQ(r.last.trigger, 0);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "84 0c 88", "trigger packet");
    etm_destroy(r.etm);

    /* Periodic synchronisation every 0x41 bytes (FIFO 64): A-sync and a periodic
     * I-sync (info 0x00) at the next instruction. */
    etm_config_preset(&cfg, "etm-m3");
    ideal_choices(&cfg);
    cfg.etmsyncfr = 0x41;
    memset(&r, 0, sizeof r);
    CHECK_EQ(etm_create(&r.etm, &cfg, &d), ETM_OK);
    step(&r, &a);
    for (int k = 0; k < 30; k++) {
        etm_in_t t = target(k & 1 ? 0x100 : 0x4000); /* 3-byte branch packets */
        step(&r, &t);
        for (int j = 0; j < 4; j++) /* time to drain: no overflow */
            step(&r, &i0);
    }
    CHECK_EQ(etm_get_stats(r.etm)->overflows, 0);
    finish(&r);
    int found = 0;
    for (size_t i = 12; i + 12 <= r.n; i++)
        if (!memcmp(r.bytes + i, "\0\0\0\0\0\x80\x08\x00", 8))
            found = 1;
    CHECK(found);
    etm_destroy(r.etm);

    /* Overflow: a 24-byte FIFO, one byte per cycle, a burst of 5-byte branches.
     * Trace restarts with I-sync reason overflow (info 0x40). In-cycle (PKT_QUEUE
     * 0) the cycle whose packets do not fit loses them (bytes_lost); with
     * records (the ETM-M3's) the record that finds the queue full is lost
     * before any packet of it is made (cycles_lost, bytes_lost 0). */
    for (unsigned queue = 0; queue <= 8; queue += 8) {
        etm_config_preset(&cfg, "etm-m3");
        ideal_choices(&cfg);
        cfg.fifo_depth = 24;
        cfg.pkt_queue = queue;
        memset(&r, 0, sizeof r);
        CHECK_EQ(etm_create(&r.etm, &cfg, &d), ETM_OK);
        step(&r, &a);
        int saw_overflow = 0;
        for (int k = 0; k < 40; k++) {
            etm_in_t t = target(k & 1 ? 0x00000100 : 0x80000100);
            step(&r, &t);
            saw_overflow |= r.last.overflow;
        }
        for (int k = 0; k < 40; k++)
            step(&r, &i0);
        etm_in_t z = insn(0x300, 1);
        step(&r, &z);
        finish(&r);
        CHECK(saw_overflow);
        CHECK(etm_get_stats(r.etm)->overflows > 0);
        CHECK(queue ? etm_get_stats(r.etm)->bytes_lost == 0 : etm_get_stats(r.etm)->bytes_lost > 0);
        CHECK(etm_get_stats(r.etm)->cycles_lost > 0);
        found = 0;
        for (size_t i = 0; i + 6 <= r.n; i++)
            if (r.bytes[i] == 0x08 && r.bytes[i + 1] == 0x40)
                found = 1;
        CHECK(found);
        etm_destroy(r.etm);
    }

    /* A 4-byte port: Ignore packets fill the width after the last byte. */
    etm_config_preset(&cfg, "etm-m3");
    ideal_choices(&cfg);
    cfg.port_bytes = 4;
    memset(&r, 0, sizeof r);
    CHECK_EQ(etm_create(&r.etm, &cfg, &d), ETM_OK);
    step(&r, &a);
    finish(&r);
    expect(&r, ASYNC ISYNC_100 "84 66 66 66", "port padding");
    etm_destroy(r.etm);
}

static void test_api(void)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_config_default(&cfg);
    /* Caller memory. */
    void *mem = malloc(etm_ctx_size());
    etm_ctx_t *ctx = (etm_ctx_t *)mem;
    CHECK_EQ(etm_ctx_init(ctx, &cfg, &d), ETM_OK);
    etm_in_t a = insn(0x100, 1);
    etm_out_t o;
    CHECK_EQ(etm_step(ctx, &a, &o), ETM_OK);
    CHECK_EQ(o.v3_count, 0); /* bytes of cycle 0 leave from cycle 1 */
    /* A-sync and I-sync, 12 bytes: all in cycle 0 in-cycle; with records (the
     * default) FIFO_WRITE bytes of the A-sync (docs/etmv3-encoder.md, "Records"). */
    CHECK_EQ(cfg.pkt_queue, 8);
    CHECK_EQ(o.fifo_level, cfg.fifo_write);
    CHECK_EQ(etm_end(ctx), ETM_OK);
    CHECK_EQ(etm_end(ctx), ETM_ERR_STATE);
    CHECK_EQ(etm_step(ctx, &a, &o), ETM_ERR_STATE);
    unsigned n = 0;
    while (etm_drain(ctx, &o) == ETM_OK)
        n++;
    CHECK_EQ(n, 13); /* one byte per port cycle */
    CHECK_EQ(etm_drain(ctx, &o), ETM_END);
    CHECK_EQ(o.v3_count, 0);
    etm_reset(ctx);
    CHECK_EQ(etm_get_stats(ctx)->cycles, 0);
    CHECK_EQ(etm_step(ctx, &a, &o), ETM_OK);
    etm_destroy(ctx); /* not owned: no free */
    free(mem);
    /* An interface violation is reported and the cycle still modelled. */
    etm_ctx_t *e2;
    CHECK_EQ(etm_create(&e2, &cfg, &d), ETM_OK);
    etm_in_t bad = a;
    bad.iindbr = 1;
    CHECK_EQ(etm_step(e2, &bad, &o), ETM_ERR_RULE);
    etm_rule_t rules[4];
    CHECK_EQ(etm_last_rules(e2, rules, 4), 1);
    CHECK_EQ(rules[0], ETM_RULE_IINDBR_WITHOUT_IBRANCH);
    CHECK_EQ(etm_get_stats(e2)->violations, 1);
    etm_destroy(e2);
    /* Unsupported features are refused with a reason: data trace, which an
     * ETMv3.4 part may have (the ETM-M3 does not), needs a larger FIFO. */
    etm_config_preset(&cfg, "etmv3.4");
    cfg.etmcr |= ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE);
    cfg.fifo_depth = 64;
    CHECK_EQ(etm_create(&e2, &cfg, &d), ETM_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(d.msg, "data trace");
    etm_config_default(&cfg);
    cfg.etmcr |= ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE);
    CHECK_EQ(etm_create(&e2, &cfg, &d), ETM_ERR_RESERVED_BITS); /* the ETM-M3 has none */
    CHECK_STR_CONTAINS(d.msg, "ETMCR[3:2] (data access) is set, but this part does not implement it");
    etm_config_default(&cfg);
    cfg.fifo_depth = 16;
    cfg.etmsyncfr = 0x400;
    CHECK_EQ(etm_create(&e2, &cfg, &d), ETM_ERR_FIELD_WIDTH); /* the configuration's range says it, as the model's */
    CHECK_STR_CONTAINS(d.msg, "FIFO_DEPTH=16: the model needs 24 to 65535 bytes");
    /* Programming bit set: no trace at all. */
    etm_config_default(&cfg);
    cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_PROGRAMMING);
    CHECK_EQ(etm_create(&e2, &cfg, &d), ETM_OK);
    for (int k = 0; k < 10; k++)
        etm_step(e2, &a, &o);
    CHECK_EQ(etm_get_stats(e2)->bytes, 0);
    etm_destroy(e2);
}

/* The ETM-M3's own choices (the etm-m3 preset as it is; docs/silicon.md), each
 * against what the part sent: the expected bytes are the silicon capture's
 * (data/stm32f105-etm-m3, session 1, bytes 0 to 16) or follow from its
 * measured rules, not from this encoder. */
static void test_silicon_choices(void)
{
    run_t r;
    etm_config_t cfg;
    etm_diag_t d;
    /* Trace start (ETMTRIGGER always, as the part resets it): the I-sync's
     * information byte with bit 0 set, the first instruction's atom alone, the
     * trigger after it; branch broadcast; the capture's first 17 bytes. */
    etm_config_preset(&cfg, "etm-m3");
    cfg.etmcr = 0x910;
    cfg.etmtrigger = 0x6F;
    memset(&r, 0, sizeof r);
    CHECK_EQ(etm_create(&r.etm, &cfg, &d), ETM_OK);
    static const uint32_t pcs[6] = { 0x08000306, 0x08000308, 0x0800030c, 0x0800030e, 0x08000310, 0x08000312 };
    for (int i = 0; i < 6; i++) {
        etm_in_t x = insn(pcs[i], 1);
        step(&r, &x);
    }
    etm_in_t bl = insn(0x080002b4, 1);
    bl.ibranch = 1; /* a direct branch's target: traced with ETMCR[8] */
    step(&r, &bl);
    finish(&r);
    expect(&r, "00 00 00 00 00 80 08 21 07 03 00 08 84 0c 94 b5 05 84", "trace start as the part: capture bytes 0-16");
    etm_destroy(r.etm);

    /* Format 1 only: a header closes at its N or at 15 E; N alone is 0xc0. */
    start_m3(&r);
    etm_in_t e = insn(0x100, 1), n = insn(0x100, 0);
    step(&r, &e); /* the first atom, alone */
    for (int i = 0; i < 16; i++)
        step(&r, &e);
    step(&r, &n);
    step(&r, &e);
    step(&r, &n);
    step(&r, &n);
    finish(&r);
    expect(&r, "00 00 00 00 00 80 08 21 01 01 00 00 84 bc c4 c4 c0", "format 1: 15 E, E N, E N, N");
    CHECK_EQ(etm_get_stats(r.etm)->packets[ETM_PKT_PHDR_F2], 0);
    etm_destroy(r.etm);

    /* A tail-chain: an exception-return packet before the second entry. */
    start_m3(&r);
    etm_in_t a = insn(0x100, 1), i0 = idle();
    step(&r, &a);
    etm_in_t h = target(0x200);
    h.intstat = ETM_INTSTAT_ENTRY;
    h.intnum = 16; /* IRQ0, traced as 8 */
    step(&r, &h);
    etm_in_t ret = insn(0x202, 1);
    step(&r, &ret);
    etm_in_t ex = i0;
    ex.intstat = ETM_INTSTAT_EXIT;
    step(&r, &ex);
    etm_in_t h2 = target(0x300);
    h2.intstat = ETM_INTSTAT_ENTRY;
    h2.intnum = 17; /* IRQ1, traced as 1 */
    step(&r, &h2);
    finish(&r);
    expect(&r, "00 00 00 00 00 80 08 21 01 01 00 00 84 81 44 10 88 76 81 46 02 84", "tail-chain: 0x76 first");
    etm_destroy(r.etm);

    /* A cancel: the cancelled atom stays in its header; the Cancel bit of the
     * exception packet (0xa6: HardFault, Cancel) withdraws it. */
    start_m3(&r);
    etm_in_t b = insn(0x102, 1), c = insn(0x104, 1), cn = i0;
    cn.cancel = 1;
    cn.flush = cn.findbr = 1;
    step(&r, &a);
    step(&r, &b);
    step(&r, &c);
    step(&r, &cn);
    h.intnum = 3; /* HardFault */
    step(&r, &h);
    finish(&r);
    expect(&r, "00 00 00 00 00 80 08 21 01 01 00 00 84 88 81 44 a6 01 84", "cancel: the atom withdrawn by the Cancel bit");
    CHECK_EQ(etm_get_stats(r.etm)->packets[ETM_PKT_IGNORE], 0);
    etm_destroy(r.etm);
}

int main(void)
{
    test_silicon_choices();
    test_pheaders_noncycle();
    test_pheaders_cycle();
    test_branch_packets();
    test_exceptions();
    test_sync_trigger_overflow();
    test_api();
    return test_report("test_encoder");
}
