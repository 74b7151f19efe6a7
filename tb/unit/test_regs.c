/* test_regs.c - the programmer's model through the debug APB, against a table
 * written by hand from the specifications (not from regs.def):
 *
 *   IHI 0014Q chapter 3 (ETM registers: offsets, fields per version, reset
 *   values of ETMCR and ETMSR), IHI 0029 (CoreSight management registers: lock,
 *   claim, authentication, device type, peripheral and component IDs), and the
 *   values an ETM-M3 reports (Cortex-M3 TRM r2p1 and the ETM-M3 TRM: ETMSCR,
 *   ETMIDR, ETMCCR, PIDR0-4); the ETMCR bits the model leaves out are those
 *   docs/registers.md lists.
 *
 * Every register is read after reset (its reset value), written with all ones
 * and read back (the bits it implements), written with zero; the read-only ones
 * keep their value and raise APB_READ_ONLY; offsets with no register read zero
 * and raise APB_UNMAPPED. Then the access rules: the lock (software locked out,
 * the debugger not), writes with ETMCR[10] clear, ETMSR[1] following the FIFO,
 * the claim tags. The RTL twin runs the same walk in lockstep (etm_cosim
 * --walk), so its register file is held to this table too. */
#include <stdio.h>
#include <string.h>

#include "etm/etm.h"
#include "test.h"

typedef struct row {
    uint16_t offset;
    const char *name;
    char access;        /* 'W' read-write, 'R' read-only, 'L' ETMLAR (write-only) */
    uint32_t reset;     /* value read after reset (software access) */
    uint32_t implemented; /* 'W': the bits a write of all ones sets */
} row_t;

/* The ETM-M3 (preset etm-m3: ETMv3.4, no address comparators, one counter,
 * start/stop block, FIFOFULL, four DWT inputs). */
static const row_t m3[] = {
    /* ETMCR: IHI 0014 3.4.2. Reset 0x411: power down [0], port size 001 [6:4],
     * programming [10]. The ETM-M3 implements [0], [7:4], [11:8], [13], [17:16],
     * [22:21], [28] (0x10632FF1; [28] is ETMv3.5, this is ETMv3.4); the model
     * leaves out [9] (debug request) and [22] (debugger write disable). */
    { 0x000, "ETMCR", 'W', 0x00000411, 0x00232DF1 },
    { 0x004, "ETMCCR", 'R', 0x8C802000, 0 },
    /* ETMTRIGGER, ETMTEEVR: the part traces and triggers unprogrammed (its
     * silicon, docs/silicon.md): both reset to 0x6F, always (EVENT_RESET). */
    { 0x008, "ETMTRIGGER", 'W', 0x6F, 0x0001FFFF },   /* event: [16:0] */
    /* ETMSR (3.4.4): programming bit set after reset, the FIFO empty. */
    { 0x010, "ETMSR", 'R', 0x00000002, 0 },
    { 0x014, "ETMSCR", 'R', 0x00020D09, 0 },
    { 0x018, "ETMTSSCR", 'W', 0, 0xFFFFFFFF },        /* start [15:0], stop [31:16] */
    { 0x01C, "ETMTECR2", 'W', 0, 0x0000FFFF },
    { 0x020, "ETMTEEVR", 'W', 0x6F, 0x0001FFFF },
    { 0x024, "ETMTECR1", 'W', 0, 0x03FFFFFF },        /* [7:0], [23:8], [24], [25] */
    { 0x028, "ETMFFRR", 'W', 0, 0x01FFFFFF },         /* FIFOFULL region: [7:0], [23:8], [24] (3.5.14) */
    { 0x02C, "ETMFFLR", 'W', 0, 0x000000FF },
    { 0x030, "ETMVDEVR", 'W', 0, 0x0001FFFF },
    { 0x034, "ETMVDCR1", 'W', 0, 0xFFFFFFFF },
    { 0x03C, "ETMVDCR3", 'W', 0, 0x0001FFFF },        /* [7:0], [15:8], [16] */
    { 0x140, "ETMCNTRLDVR1", 'W', 0, 0x0000FFFF },
    { 0x150, "ETMCNTENR1", 'W', 0, 0x0001FFFF },      /* [17] is ETMv1 only */
    { 0x160, "ETMCNTRLDEVR1", 'W', 0, 0x0001FFFF },
    { 0x170, "ETMCNTVR1", 'W', 0, 0x0000FFFF },
    { 0x1E0, "ETMSYNCFR", 'W', 0x00000400, 0x00000FFF },
    { 0x1E4, "ETMIDR", 'R', 0x4114F240, 0 },
    { 0x1E8, "ETMCCER", 'R', 0x00141800, 0 },
    { 0x1F0, "ETMTESSEICR", 'W', 0, 0x00FF00FF },     /* start [7:0], stop [23:16] */
    { 0x200, "ETMTRACEIDR", 'W', 0, 0x0000007F },
    { 0x314, "ETMPDSR", 'R', 0x00000001, 0 },
    { 0xFA0, "ETMCLAIMSET", 'R', 0x0000000F, 0 },     /* reads the tags implemented */
    { 0xFB0, "ETMLAR", 'L', 0, 0 },
    { 0xFB4, "ETMLSR", 'R', 0x00000003, 0 },          /* lock present, locked */
    { 0xFB8, "ETMAUTHSTATUS", 'R', 0x000000C0, 0 },
    { 0xFCC, "ETMDEVTYPE", 'R', 0x00000013, 0 },
    { 0xFD0, "ETMPIDR4", 'R', 0x00000004, 0 },
    { 0xFD4, "ETMPIDR5", 'R', 0, 0 },
    { 0xFE0, "ETMPIDR0", 'R', 0x00000024, 0 },
    { 0xFE4, "ETMPIDR1", 'R', 0x000000B9, 0 },
    { 0xFE8, "ETMPIDR2", 'R', 0x0000003B, 0 },
    { 0xFEC, "ETMPIDR3", 'R', 0x00000000, 0 },
    { 0xFF0, "ETMCIDR0", 'R', 0x0000000D, 0 },
    { 0xFF4, "ETMCIDR1", 'R', 0x00000090, 0 },
    { 0xFF8, "ETMCIDR2", 'R', 0x00000005, 0 },
    { 0xFFC, "ETMCIDR3", 'R', 0x000000B1, 0 },
};

/* Offsets where the ETM-M3 has nothing: address comparators (none), counter 2,
 * the sequencer, external outputs, context ID comparators, data comparators,
 * ETMVDCR2, the integration registers. */
static const uint16_t m3_absent[] = { 0x040, 0x080, 0x144, 0x174, 0x180, 0x1A0, 0x1B0, 0x0C0, 0x038, 0xF00, 0xEF8 };

/* One APB transfer through the model: setup then access; the access phase's
 * PRDATA and rules. */
static uint32_t apb(etm_ctx_t *etm, int write, unsigned offset, uint32_t value, int dbg, uint64_t *rules)
{
    etm_in_t in;
    etm_out_t out;
    memset(&in, 0, sizeof in);
    in.psel = 1;
    in.pwrite = (uint8_t)write;
    in.paddr = (uint16_t)offset;
    in.pwdata = write ? value : 0;
    in.paddrdbg31 = (uint8_t)dbg;
    etm_step(etm, &in, &out);
    in.penable = 1;
    etm_step(etm, &in, &out);
    if (rules)
        *rules = etm_last_rule_mask(etm);
    return out.prdata;
}

#define RULE(r) (1ull << ETM_RULE_##r)

static void walk(void)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_ctx_t *etm;
    etm_config_preset(&cfg, "etm-m3");
    CHECK_EQ(etm_create_at_reset(&etm, &cfg, &d), ETM_OK);
    uint64_t r;
    /* Reset values, as software reads them. */
    for (size_t i = 0; i < sizeof m3 / sizeof m3[0]; i++) {
        uint32_t v = apb(etm, 0, m3[i].offset, 0, 0, &r);
        if (v != m3[i].reset)
            fprintf(stderr, "%s (0x%03X) after reset: 0x%08X, the table says 0x%08X\n", m3[i].name,
                    m3[i].offset, v, m3[i].reset);
        CHECK_EQ(v, m3[i].reset);
        CHECK_EQ(r, 0);
    }
    /* The debugger sees no lock. */
    CHECK_EQ(apb(etm, 0, 0xFB4, 0, 1, &r), 0);
    /* Software writes are locked out until ETMLAR gets the key. */
    apb(etm, 1, 0x200, 0x12, 0, &r);
    CHECK_EQ(r, RULE(APB_LOCKED));
    CHECK_EQ(apb(etm, 0, 0x200, 0, 0, NULL), 0);
    apb(etm, 1, 0xFB0, 0x12345678, 0, &r); /* a wrong key: still locked */
    CHECK_EQ(apb(etm, 0, 0xFB4, 0, 0, NULL), 3);
    apb(etm, 1, 0xFB0, 0xC5ACCE55, 1, &r); /* the debugger's write to ETMLAR is ignored */
    CHECK_EQ(apb(etm, 0, 0xFB4, 0, 0, NULL), 3);
    apb(etm, 1, 0xFB0, 0xC5ACCE55, 0, &r);
    CHECK_EQ(r, 0);
    CHECK_EQ(apb(etm, 0, 0xFB4, 0, 0, NULL), 1);
    /* Every register: all ones, then zero (ETMCR keeps its programming bit). */
    for (size_t i = 0; i < sizeof m3 / sizeof m3[0]; i++) {
        const row_t *w = &m3[i];
        if (w->access == 'L' || w->offset == 0xFA0)
            continue;
        apb(etm, 1, w->offset, 0xFFFFFFFFu, 0, &r);
        uint32_t v = apb(etm, 0, w->offset, 0, 0, NULL);
        if (w->access == 'W') {
            if (v != w->implemented)
                fprintf(stderr, "%s (0x%03X) written with all ones reads 0x%08X, the table says 0x%08X\n", w->name,
                        w->offset, v, w->implemented);
            CHECK_EQ(v, w->implemented);
            CHECK_EQ(r, 0);
            apb(etm, 1, w->offset, w->offset == 0 ? 0x400 : 0, 0, &r);
            CHECK_EQ(apb(etm, 0, w->offset, 0, 0, NULL), w->offset == 0 ? 0x400u : 0u);
        } else {
            CHECK_EQ(r, RULE(APB_READ_ONLY));
            if (w->offset != 0x010 && w->offset != 0xFB4) /* ETMSR and ETMLSR follow the state */
                CHECK_EQ(v, w->reset);
        }
    }
    for (size_t i = 0; i < sizeof m3_absent / sizeof m3_absent[0]; i++) {
        CHECK_EQ(apb(etm, 0, m3_absent[i], 0, 0, &r), 0);
        CHECK_EQ(r, RULE(APB_UNMAPPED));
        apb(etm, 1, m3_absent[i], 0xFFFFFFFF, 0, &r);
        CHECK_EQ(r, RULE(APB_UNMAPPED));
    }
    /* Claim tags: set, read through ETMCLAIMCLR, clear. */
    apb(etm, 1, 0xFA0, 0x5, 0, &r);
    CHECK_EQ(apb(etm, 0, 0xFA4, 0, 0, NULL), 0x5);
    apb(etm, 1, 0xFA4, 0x1, 0, &r);
    CHECK_EQ(apb(etm, 0, 0xFA4, 0, 0, NULL), 0x4);
    CHECK_EQ(apb(etm, 0, 0xFA0, 0, 0, NULL), 0xF);
    /* With ETMCR[10] clear a write is UNPREDICTABLE (IHI 0014 3.4.3): the
     * ETM-M3 takes it as written and says nothing, as its firmware expects
     * (docs/silicon.md; APB_UNPRED=1, APB_STRICT=0). */
    apb(etm, 1, 0x000, 0x810, 0, &r);
    CHECK_EQ(r, 0);
    apb(etm, 1, 0x200, 0x33, 0, &r);
    CHECK_EQ(r, 0);
    CHECK_EQ(apb(etm, 0, 0x200, 0, 0, NULL), 0x33);
    apb(etm, 1, 0x000, 0x910, 0, &r);
    CHECK_EQ(r, 0);
    CHECK_EQ(apb(etm, 0, 0x000, 0, 0, NULL), 0x910);
    apb(etm, 1, 0x000, 0x810, 0, &r);
    apb(etm, 1, 0x000, 0xC10, 0, &r); /* the programming bit: allowed */
    CHECK_EQ(r, 0);
    CHECK_EQ(apb(etm, 0, 0x010, 0, 0, NULL) & 2, 2);
    /* An access phase without a setup phase. */
    {
        etm_in_t in;
        etm_out_t out;
        memset(&in, 0, sizeof in);
        in.psel = in.penable = 1;
        in.paddr = 0x1E4;
        etm_step(etm, &in, &out);
        CHECK_EQ(etm_last_rule_mask(etm), RULE(APB_NO_SETUP));
    }
    etm_destroy(etm);
}

/* ETMSR[1] reads 1 only once the FIFO is empty: programming waits for the trace
 * already made to leave. In-cycle (queue 0) and with records (the ETM-M3's),
 * whose generator writes a packet a cycle and so fills the store less. */
static void prog_waits_for_fifo_queue(unsigned queue, unsigned fill)
{
    etm_config_t cfg;
    etm_diag_t d;
    etm_ctx_t *etm;
    etm_config_preset(&cfg, "etm-m3");
    cfg.pkt_queue = queue;
    cfg.etmcr |= 0x100; /* branch broadcast: the FIFO fills */
    CHECK_EQ(etm_create(&etm, &cfg, &d), ETM_OK); /* programmed, tracing */
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.atb_stall_pct = 30; /* the sink holds ATREADY low now and then: the FIFO fills */
    gp.atb_burst = 16;
    etm_gen_t *g;
    CHECK_EQ(etm_gen_create(&g, &gp, &d), ETM_OK);
    etm_in_t in;
    etm_out_t out;
    for (int i = 0; i < 100000 && etm_fifo_level(etm) < fill; i++) {
        etm_gen_next(g, &in, NULL);
        etm_step(etm, &in, &out);
    }
    CHECK(etm_fifo_level(etm) >= fill);
    uint64_t r;
    apb(etm, 1, 0xFB0, 0xC5ACCE55, 0, &r);
    apb(etm, 1, 0x000, cfg.etmcr | 0x400, 0, &r);
    CHECK_EQ(r, 0);
    unsigned polls = 0, level_at_first = etm_fifo_level(etm);
    while (!(apb(etm, 0, 0x010, 0, 0, NULL) & 2) && polls < 1000)
        polls++;
    CHECK(level_at_first > 2);
    CHECK(polls > 0 && polls < 1000);
    CHECK_EQ(etm_fifo_level(etm), 0);
    /* Nothing more is traced while programming. */
    uint64_t bytes = etm_get_stats(etm)->bytes;
    for (int i = 0; i < 500; i++) {
        etm_gen_next(g, &in, NULL);
        etm_step(etm, &in, &out);
    }
    CHECK_EQ(etm_get_stats(etm)->bytes, bytes);
    /* Clearing it: one cycle later trace starts again, with an A-sync. */
    apb(etm, 1, 0x000, cfg.etmcr, 0, &r);
    CHECK_EQ(etm_get_stats(etm)->restarts, 1);
    uint64_t async = etm_get_stats(etm)->packets[ETM_PKT_ASYNC];
    for (int i = 0; i < 500; i++) {
        etm_gen_next(g, &in, NULL);
        etm_step(etm, &in, &out);
    }
    CHECK_EQ(etm_get_stats(etm)->packets[ETM_PKT_ASYNC], async + 1);
    etm_gen_free(g);
    etm_destroy(etm);
}

static void prog_waits_for_fifo(void)
{
    prog_waits_for_fifo_queue(0, 16);
    prog_waits_for_fifo_queue(8, 12);
}

/* The programming sequence from reset gives the image etm_create takes at once. */
static void program_sequence(void)
{
    static const char *const presets[] = { "etm-m3", "etmv3.0", "etmv3.5", "etmv1.3", "etmv1.0" };
    for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++) {
        etm_config_t cfg;
        etm_diag_t d;
        etm_ctx_t *etm;
        etm_config_preset(&cfg, presets[p]);
        cfg.etmcr |= 0x100; /* branch broadcast, to see ETMCR taken */
        CHECK_EQ(etm_create_at_reset(&etm, &cfg, &d), ETM_OK);
        etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
        size_t n = etm_program_ops(&cfg, NULL, ops, ETM_PROGRAM_MAX_OPS);
        CHECK(n > 3);
        etm_apb_driver_t drv;
        etm_apb_driver_start(&drv, ops, n);
        etm_in_t in;
        etm_out_t out;
        while (etm_apb_busy(&drv) && drv.cycles < 1000) {
            memset(&in, 0, sizeof in);
            etm_apb_drive(&drv, &in);
            CHECK_EQ(etm_step(etm, &in, &out), ETM_OK);
            etm_apb_observe(&drv, &out);
        }
        CHECK(!etm_apb_busy(&drv));
        if (!etm_config_equal(etm_get_config(etm), &cfg))
            fprintf(stderr, "preset %s: the programmed registers differ from the image\n", presets[p]);
        CHECK(etm_config_equal(etm_get_config(etm), &cfg));
        CHECK_EQ(etm_get_stats(etm)->violations, 0);
        /* ... and it traces as the instance etm_create makes from the image:
         * every output of every cycle of a random program. */
        etm_ctx_t *direct;
        CHECK_EQ(etm_create(&direct, &cfg, &d), ETM_OK);
        etm_gen_params_t gp;
        etm_gen_params_default(&gp);
        gp.seed = 40 + p;
        etm_gen_t *g;
        CHECK_EQ(etm_gen_create(&g, &gp, &d), ETM_OK);
        unsigned differ = 0;
        for (int c = 0; c < 20000; c++) {
            etm_out_t o2;
            etm_gen_next(g, &in, NULL);
            etm_step(etm, &in, &out);
            etm_step(direct, &in, &o2);
            differ += etm_out_diff(&out, &o2, ~(uint64_t)0) != 0;
        }
        CHECK_EQ(differ, 0);
        CHECK(etm_get_stats(direct)->bytes > 0);
        CHECK_EQ(etm_reg_peek(etm, 0xFB4, 0), etm_reg_peek(direct, 0xFB4, 0)); /* locked again, as at create */
        etm_gen_free(g);
        etm_destroy(direct);
        etm_destroy(etm);
    }
}

/* The other choice for a write while tracing (APB_UNPRED=0, a generic part's):
 * ignored, ETMCR's trace controls kept, and reported; and APB_STRICT=1 on the
 * ETM-M3: taken, and reported. */
static void unpredictable_writes(void)
{
    for (int unpred = 0; unpred <= 1; unpred++) {
        etm_config_t cfg;
        etm_diag_t d;
        etm_ctx_t *etm;
        etm_config_preset(&cfg, "etm-m3");
        cfg.apb_unpred = (uint32_t)unpred;
        cfg.apb_strict = 1;
        CHECK_EQ(etm_create(&etm, &cfg, &d), ETM_OK); /* programmed, tracing: ETMCR 0x810 */
        uint64_t r;
        apb(etm, 1, 0xFB0, 0xC5ACCE55, 0, &r);
        apb(etm, 1, 0x200, 0x33, 0, &r);
        CHECK_EQ(r, RULE(APB_NOT_PROGRAMMING));
        CHECK_EQ(apb(etm, 0, 0x200, 0, 0, NULL), unpred ? 0x33u : cfg.etmtraceidr);
        apb(etm, 1, 0x000, 0x910, 0, &r);
        CHECK_EQ(r, RULE(APB_NOT_PROGRAMMING));
        CHECK_EQ(apb(etm, 0, 0x000, 0, 0, NULL), unpred ? 0x910u : 0x810u);
        apb(etm, 1, 0x000, unpred ? 0x910 : 0x810, 0, &r); /* nothing but the trace controls as they stand */
        CHECK_EQ(r, 0);
        etm_destroy(etm);
    }
}

int main(void)
{
    walk();
    unpredictable_writes();
    prog_waits_for_fifo();
    program_sequence();
    return test_report("test_regs");
}
