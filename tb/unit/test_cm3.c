/* test_cm3.c - the Cortex-M3 timing model (etm/cm3.h): the Thumb-2 classifier on
 * encodings taken from the ARMv7-M ARM and arm-none-eabi-objdump, condition
 * codes, the record text form, and the cycles and signals of small instruction
 * sequences against the TRM's timings (docs/cm3-timing.md). Every cycle the
 * model produces is run through the interface checker. */
#include <stdlib.h>

#include "etm/cm3.h"
#include "etm/etm.h"
#include "test.h"

static void classify_cases(void)
{
    static const struct {
        uint32_t addr, op;
        unsigned size;
        etm_cm3_kind_t kind;
        int writes_pc, indirect;
        uint32_t target;
        unsigned nregs;
    } t[] = {
        { 0x100, 0x2000, 2, ETM_CM3_K_ALU, 0, 0, 0, 0 },           /* movs r0, #0 */
        { 0x100, 0x4348, 2, ETM_CM3_K_MUL, 0, 0, 0, 0 },           /* muls r0, r1 */
        { 0x100, 0xe7fe, 2, ETM_CM3_K_B, 1, 0, 0x100, 0 },         /* b . */
        { 0x3f8, 0xda33, 2, ETM_CM3_K_BCOND, 1, 0, 0x462, 0 },     /* bge.n 462 (objdump) */
        { 0x3fe, 0xf7ffffa1, 4, ETM_CM3_K_BL, 1, 0, 0x344, 0 },    /* bl 344 (objdump) */
        { 0x2fc, 0xb373, 2, ETM_CM3_K_CBZ, 1, 0, 0x35c, 0 },       /* cbz r3, 35c (objdump) */
        { 0x100, 0x4770, 2, ETM_CM3_K_BX, 1, 1, 0, 0 },            /* bx lr */
        { 0x100, 0x4798, 2, ETM_CM3_K_BLX, 1, 1, 0, 0 },           /* blx r3 */
        { 0x100, 0xbd70, 2, ETM_CM3_K_LDM, 1, 1, 0, 4 },           /* pop {r4, r5, r6, pc} */
        { 0x100, 0xbc30, 2, ETM_CM3_K_LDM, 0, 0, 0, 2 },           /* pop {r4, r5} */
        { 0x100, 0xb508, 2, ETM_CM3_K_STM, 0, 0, 0, 2 },           /* push {r3, lr} */
        { 0x100, 0xcc0f, 2, ETM_CM3_K_LDM, 0, 0, 0, 4 },           /* ldmia r4!, {r0-r3} */
        { 0x100, 0xe8bd8ff0, 4, ETM_CM3_K_LDM, 1, 1, 0, 9 },       /* ldmia.w sp!, {r4-fp, pc} */
        { 0x100, 0xe92d47f0, 4, ETM_CM3_K_STM, 0, 0, 0, 8 },       /* stmdb sp!, {r4-sl, lr} */
        { 0x10a, 0xe8dff003, 4, ETM_CM3_K_TB, 1, 1, 0, 0 },        /* tbb [pc, r3] */
        { 0x34c, 0xe8dff017, 4, ETM_CM3_K_TB, 1, 1, 0, 0 },        /* tbh [pc, r7, lsl #1] */
        { 0x100, 0xf8dff000, 4, ETM_CM3_K_LOAD, 1, 1, 0, 0 },      /* ldr.w pc, [pc] */
        { 0x100, 0x4a17, 2, ETM_CM3_K_LOAD, 0, 0, 0, 0 },          /* ldr r2, [pc, #92] */
        { 0x100, 0x54e9, 2, ETM_CM3_K_STORE, 0, 0, 0, 0 },         /* strb r1, [r5, r3] */
        { 0x100, 0xf857e023, 4, ETM_CM3_K_LOAD, 0, 0, 0, 0 },      /* ldr.w lr, [r7, r3, lsl #2] */
        { 0x100, 0xf8003f01, 4, ETM_CM3_K_STORE, 0, 0, 0, 0 },     /* strb.w r3, [r0, #1]! */
        { 0x100, 0xe9cd4400, 4, ETM_CM3_K_STRD, 0, 0, 0, 0 },      /* strd r4, r4, [sp] */
        { 0x100, 0xe9d42300, 4, ETM_CM3_K_LDRD, 0, 0, 0, 0 },      /* ldrd r2, r3, [r4] */
        { 0x100, 0xfb90f0f1, 4, ETM_CM3_K_DIV, 0, 0, 0, 0 },       /* sdiv r0, r0, r1 */
        { 0x100, 0xfbb0f0f1, 4, ETM_CM3_K_DIV, 0, 0, 0, 0 },       /* udiv r0, r0, r1 */
        { 0x100, 0xfb810203, 4, ETM_CM3_K_MULL, 0, 0, 0, 0 },      /* smull r0, r2, r1, r3 */
        { 0x100, 0xfbc10203, 4, ETM_CM3_K_MLAL, 0, 0, 0, 0 },      /* smlal r0, r2, r1, r3 */
        { 0x100, 0xfb012303, 4, ETM_CM3_K_MLA, 0, 0, 0, 0 },       /* mla r3, r1, r3, r2 */
        { 0x100, 0xfb01f303, 4, ETM_CM3_K_MUL, 0, 0, 0, 0 },       /* mul.w r3, r1, r3 */
        { 0x100, 0xbf14, 2, ETM_CM3_K_IT, 0, 0, 0, 0 },            /* ite ne */
        { 0x100, 0xbf00, 2, ETM_CM3_K_HINT, 0, 0, 0, 0 },          /* nop */
        { 0x100, 0xdf05, 2, ETM_CM3_K_SVC, 0, 0, 0, 0 },           /* svc 5 */
        { 0x100, 0xbeab, 2, ETM_CM3_K_BKPT, 0, 0, 0, 0 },          /* bkpt 0xab */
        { 0x100, 0x46f7, 2, ETM_CM3_K_ALU, 1, 1, 0, 0 },           /* mov pc, lr */
        { 0x100, 0x4487, 2, ETM_CM3_K_ALU, 1, 1, 0, 0 },           /* add pc, r0 */
        { 0x100, 0xf3bf8f5f, 4, ETM_CM3_K_BARRIER, 0, 0, 0, 0 },   /* dmb sy */
        { 0x100, 0xf3ef8009, 4, ETM_CM3_K_SYSREG, 0, 0, 0, 0 },    /* mrs r0, psp */
        { 0x100, 0xf3808809, 4, ETM_CM3_K_SYSREG, 0, 0, 0, 0 },    /* msr psp, r0 */
        { 0x100, 0xb672, 2, ETM_CM3_K_SYSREG, 0, 0, 0, 0 },        /* cpsid i */
        { 0x100, 0xf000b800, 4, ETM_CM3_K_B, 1, 0, 0x104, 0 },     /* b.w 104 */
        { 0x100, 0xf47fafde, 4, ETM_CM3_K_BCOND, 1, 0, 0xc0, 0 },  /* bne.w c0 */
        { 0x100, 0xf0134f80, 4, ETM_CM3_K_ALU, 0, 0, 0, 0 },       /* tst.w r3, #0x40000000 */
        { 0x100, 0xde00, 2, ETM_CM3_K_UNDEF, 0, 0, 0, 0 },         /* udf */
    };
    for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
        etm_cm3_class_t c;
        etm_cm3_classify(t[i].addr, t[i].op, t[i].size, &c);
        if (c.kind != t[i].kind)
            fprintf(stderr, "case %u: opcode %08x is %s, expected %s\n", i, (unsigned)t[i].op,
                    etm_cm3_kind_name(c.kind), etm_cm3_kind_name(t[i].kind));
        CHECK_EQ(c.kind, t[i].kind);
        CHECK_EQ(c.writes_pc, t[i].writes_pc);
        CHECK_EQ(c.indirect, t[i].indirect);
        if (t[i].target)
            CHECK_EQ(c.target, t[i].target);
        if (t[i].nregs)
            CHECK_EQ(c.nregs, t[i].nregs);
        CHECK_EQ(etm_cm3_insn_size(t[i].size == 4 ? t[i].op >> 16 : t[i].op), t[i].size);
    }
    /* Registers for the pipelining and address-dependency rules. */
    etm_cm3_class_t c;
    etm_cm3_classify(0, 0x6808, 2, &c); /* ldr r0, [r1] */
    CHECK_EQ(c.writes, 1u << 0);
    CHECK_EQ(c.addr_regs, 1u << 1);
    etm_cm3_classify(0, 0x3101, 2, &c); /* adds r1, #1 */
    CHECK_EQ(c.writes, 1u << 1);
    etm_cm3_classify(0, 0xbf14, 2, &c);
    CHECK_EQ(c.it_firstcond, 1);
    CHECK_EQ(c.it_mask, 4);
    etm_cm3_classify(0, 0xd105, 2, &c); /* bne */
    CHECK_EQ(c.cond, 1);
}

static void cond_cases(void)
{
    /* NZCV = 0b0100 (Z): EQ passes, NE fails, GE passes (N == V), GT fails (Z). */
    CHECK(etm_cm3_cond_pass(0, 4));
    CHECK(!etm_cm3_cond_pass(1, 4));
    CHECK(etm_cm3_cond_pass(10, 4));
    CHECK(!etm_cm3_cond_pass(12, 4));
    CHECK(etm_cm3_cond_pass(13, 4));
    /* N set, V clear: LT passes, GE fails, MI passes. */
    CHECK(etm_cm3_cond_pass(11, 8));
    CHECK(!etm_cm3_cond_pass(10, 8));
    CHECK(etm_cm3_cond_pass(4, 8));
    /* C set, Z clear: HI passes; C and Z set: LS passes. */
    CHECK(etm_cm3_cond_pass(8, 2));
    CHECK(etm_cm3_cond_pass(9, 6));
    CHECK(etm_cm3_cond_pass(14, 0));
}

static void text_cases(void)
{
    etm_cm3_insn_t r, back;
    memset(&r, 0, sizeof r);
    r.addr = 0x40;
    r.opcode = 0xe8bd8ff0;
    r.size = 4;
    r.executed = 1;
    r.taken = 1;
    r.branch = ETM_CM3_BR_INDIRECT;
    r.next = 0xfffffff9;
    r.cond = 14;
    r.ipsr = 15;
    r.ctx = ETM_CM3_CTX_ENTRY;
    r.excnum = 15;
    r.async = 1;
    r.ret_valid = 1;
    r.ret_addr = 0x9a;
    r.ret_size = 2;
    r.ret_opcode = 0xcc0f;
    r.nval = 2;
    r.val[0] = 7;
    r.val[1] = 0x80000000u;
    r.nmem = 2;
    r.mem[0].addr = 0x2000fff0;
    r.mem[0].size = 4;
    r.mem[0].value = 0x1234;
    r.mem[1].addr = 0xe000e010;
    r.mem[1].size = 4;
    r.mem[1].write = 1;
    r.mem[1].io = 1;
    char line[512];
    etm_cm3_insn_format(&r, line, sizeof line);
    CHECK_STR_CONTAINS(line, "00000040 4 e8bd8ff0 E");
    CHECK_STR_CONTAINS(line, "entry=15");
    CHECK_STR_CONTAINS(line, " br=ind ");
    CHECK_STR_CONTAINS(line, "w=e000e010:4:io");
    etm_diag_t d;
    etm_diag_clear(&d);
    CHECK_EQ(etm_cm3_insn_parse(line, &back, &d), ETM_OK);
    CHECK(!memcmp(&r, &back, sizeof r));
    CHECK_EQ(etm_cm3_insn_parse("00000041 2 2000 E", &back, &d), ETM_ERR_BAD_NUMBER);
    CHECK_EQ(etm_cm3_insn_parse("00000040 2 2000 X", &back, &d), ETM_ERR_SYNTAX);
    CHECK_EQ(etm_cm3_insn_parse("00000040 2 2000 E foo=1", &back, &d), ETM_ERR_SYNTAX);
    CHECK_STR_CONTAINS(d.msg, "foo");

    etm_cm3_params_t p;
    etm_cm3_params_default(&p);
    CHECK_EQ(p.refill, 2);
    CHECK_EQ(p.exc_entry, 12);
    CHECK_EQ(etm_cm3_param_set(&p, "refill", 3, &d), ETM_OK);
    CHECK_EQ(p.refill, 3);
    CHECK_EQ(etm_cm3_param_set(&p, "nope", 3, &d), ETM_ERR_UNKNOWN_NAME);
    CHECK_EQ(etm_cm3_param_set(&p, "fold", 2, &d), ETM_ERR_ARG);
}

/* ---- Timing of small sequences ----------------------------------------------------- */

typedef struct run {
    etm_in_t c[512];
    unsigned n;
    etm_gen_event_t ev[512];
    unsigned nev;
    unsigned violations;
} run_t;

static etm_cm3_insn_t I(uint32_t addr, uint32_t op, unsigned size)
{
    etm_cm3_insn_t r;
    memset(&r, 0, sizeof r);
    r.addr = addr;
    r.opcode = op;
    r.size = (uint8_t)size;
    r.executed = 1;
    r.cond = 14;
    r.next = addr + size;
    return r;
}

static void run(const etm_cm3_params_t *p, const etm_cm3_insn_t *rs, unsigned n, run_t *out)
{
    memset(out, 0, sizeof *out);
    etm_cm3_t *m;
    etm_diag_t d;
    CHECK_EQ(etm_cm3_create(&m, p, &d), ETM_OK);
    etm_check_t chk;
    etm_config_t cfg;
    etm_config_default(&cfg);
    etm_check_init(&chk, &cfg);
    for (unsigned i = 0; i <= n; i++) {
        if (i < n)
            CHECK_EQ(etm_cm3_put(m, &rs[i], &d), ETM_OK);
        else
            etm_cm3_finish(m);
        etm_in_t in;
        etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
        unsigned nev;
        while (etm_cm3_cycle(m, &in, ev, &nev) == ETM_OK) {
            etm_rule_t fired[4];
            out->violations += etm_check_step(&chk, &in, fired, 4);
            if (out->n < 512)
                out->c[out->n++] = in;
            for (unsigned k = 0; k < nev && out->nev < 512; k++)
                out->ev[out->nev++] = ev[k];
        }
    }
    etm_cm3_free(m);
    CHECK_EQ(out->violations, 0);
}

/* Timings of the flow: ALU instructions, branches taken and not. */
static void timing_flow(void)
{
    etm_cm3_params_t p;
    etm_cm3_params_default(&p);
    run_t r;

    /* Two ALU instructions: one cycle each. */
    etm_cm3_insn_t alu2[2] = { I(0x100, 0x2000, 2), I(0x102, 0x2101, 2) };
    run(&p, alu2, 2, &r);
    CHECK_EQ(r.n, 2);
    CHECK(r.c[0].ivalid && r.c[1].ivalid && r.c[1].ia == 0x102);

    /* A taken B: 1 + P (P = 2): ETMFLUSH in the first refill cycle, ETMISTALL in the
     * second, then the target with ETMIBRANCH (direct: no ETMIINDBR). */
    etm_cm3_insn_t br[2] = { I(0x100, 0xe004, 2), I(0x10c, 0x2000, 2) };
    br[0].taken = 1;
    br[0].next = 0x10c;
    run(&p, br, 2, &r);
    CHECK_EQ(r.n, 4);
    CHECK(r.c[1].flush && !r.c[1].findbr && !r.c[1].ivalid);
    CHECK(r.c[2].istall && !r.c[2].ivalid);
    CHECK(r.c[3].ivalid && r.c[3].ibranch && !r.c[3].iindbr && r.c[3].ia == 0x10c);

    /* BX LR to a 32-bit instruction at a halfword address: indirect, one more refill cycle. */
    etm_cm3_insn_t bx[2] = { I(0x100, 0x4770, 2), I(0x202, 0xf8d00000, 4) };
    bx[0].taken = 1;
    bx[0].next = 0x202;
    bx[1].nmem = 1;
    run(&p, bx, 2, &r);
    CHECK_EQ(r.n, 1 + 3 + 2);
    CHECK(r.c[1].flush && r.c[1].findbr);
    CHECK(r.c[4].ivalid && r.c[4].ibranch && r.c[4].iindbr);

    /* A B<c> not taken: ETMICCFAIL, one cycle, no flush. */
    etm_cm3_insn_t bn[2] = { I(0x100, 0xd105, 2), I(0x102, 0x2000, 2) };
    bn[0].executed = 0;
    bn[0].cond = 1;
    run(&p, bn, 2, &r);
    CHECK_EQ(r.n, 2);
    CHECK(r.c[0].iccfail && !r.c[1].ibranch);

}

/* Timings of loads, stores, divides, multiplies and folded ITs. */
static void timing_data(void)
{
    etm_cm3_params_t p;
    etm_cm3_params_default(&p);
    run_t r;

    /* LDR r0,[r1]; LDR r2,[r3]: 2 + 1 (pipelined). LDR r0,[r1]; LDR r2,[r0]: 2 + 2. */
    etm_cm3_insn_t ld[3] = { I(0x100, 0x6808, 2), I(0x102, 0x681a, 2), I(0x104, 0x6802, 2) };
    run(&p, ld, 2, &r);
    CHECK_EQ(r.n, 3);
    etm_cm3_insn_t ld2[2] = { I(0x100, 0x6808, 2), I(0x102, 0x6802, 2) };
    run(&p, ld2, 2, &r);
    CHECK_EQ(r.n, 4);
    /* ADDS r1, #1; LDR r0, [r1]: the address waits a cycle (ETMISTALL before the load). */
    etm_cm3_insn_t agu[2] = { I(0x100, 0x3101, 2), I(0x102, 0x6808, 2) };
    run(&p, agu, 2, &r);
    CHECK_EQ(r.n, 1 + 1 + 2);
    CHECK(r.c[1].istall && !r.c[1].ivalid);
    p.agu_stall = 0;
    run(&p, agu, 2, &r);
    CHECK_EQ(r.n, 3);
    etm_cm3_params_default(&p);

    /* PUSH {r3, lr}: 1 + N = 3. LDM of 4: 5. */
    etm_cm3_insn_t pu[1] = { I(0x100, 0xb508, 2) };
    run(&p, pu, 1, &r);
    CHECK_EQ(r.n, 3);

    /* UDIV: 2 cycles when the quotient is 0, 12 for a 32-bit quotient, in between by
     * quotient bits; no operands known: the middle. */
    etm_cm3_insn_t dv[1] = { I(0x100, 0xfbb0f0f1, 4) };
    dv[0].nval = 2;
    dv[0].val[0] = 5;
    dv[0].val[1] = 7;
    run(&p, dv, 1, &r);
    CHECK_EQ(r.n, 2);
    dv[0].val[0] = 0xffffffffu;
    dv[0].val[1] = 1;
    run(&p, dv, 1, &r);
    CHECK_EQ(r.n, 12);
    dv[0].val[0] = 1000;
    dv[0].val[1] = 10; /* 7 quotient bits: 2 + ceil(10*7/32) = 5 */
    run(&p, dv, 1, &r);
    CHECK_EQ(r.n, 5);
    dv[0].nval = 0;
    run(&p, dv, 1, &r);
    CHECK_EQ(r.n, 7);
    /* SDIV on magnitudes: -1000 / 10 like 1000 / 10. */
    etm_cm3_insn_t sd[1] = { I(0x100, 0xfb90f0f1, 4) };
    sd[0].nval = 2;
    sd[0].val[0] = (uint32_t)-1000;
    sd[0].val[1] = 10;
    run(&p, sd, 1, &r);
    CHECK_EQ(r.n, 5);

    /* SMULL with small operands: 3; both wide: 5. */
    etm_cm3_insn_t ml[1] = { I(0x100, 0xfb810203, 4) };
    ml[0].nval = 2;
    ml[0].val[0] = 3;
    ml[0].val[1] = (uint32_t)-4;
    run(&p, ml, 1, &r);
    CHECK_EQ(r.n, 3);
    ml[0].val[0] = 0x12345678;
    ml[0].val[1] = 0x80000000u;
    run(&p, ml, 1, &r);
    CHECK_EQ(r.n, 5);

    /* MOVS then ITE folds: one cycle with ETMFOLD, the IT counted as an instruction. */
    etm_cm3_insn_t fo[3] = { I(0x100, 0x2000, 2), I(0x102, 0xbf14, 2), I(0x104, 0x2101, 2) };
    fo[2].in_it = 1;
    fo[2].cond = 1;
    run(&p, fo, 3, &r);
    CHECK_EQ(r.n, 2);
    CHECK(r.c[0].fold && r.c[0].ia == 0x100 && r.c[1].ia == 0x104);
    CHECK_EQ(r.nev, 3);
    CHECK(r.ev[1].is_it && r.ev[1].addr == 0x102);
    p.fold = 0;
    run(&p, fo, 3, &r);
    CHECK_EQ(r.n, 3);
    etm_cm3_params_default(&p);

}

/* Timings of exception entry, return and tail-chain, cancel. */
static void timing_exceptions(void)
{
    etm_cm3_params_t p;
    etm_cm3_params_default(&p);
    run_t r;

    /* Exception entry (SysTick) between two ALU instructions: the entry sequence
     * (vector fetch and stack push with ETMFLUSH, ETMFINDBR) of exc_entry cycles,
     * then the handler's first instruction with ETMINTSTAT entry. Then its return
     * (exit + exc_return cycles) and a tail-chain (exit + tail_chain cycles). */
    etm_cm3_insn_t ex[5] = { I(0x100, 0x2000, 2), I(0x40, 0x2001, 2), I(0x42, 0x4770, 2), I(0x60, 0x4770, 2),
                             I(0x102, 0x2101, 2) };
    ex[1].ctx = ETM_CM3_CTX_ENTRY;
    ex[1].excnum = 15;
    ex[1].ipsr = 15;
    ex[1].async = 1;
    ex[2].ipsr = 15;
    ex[2].taken = 1;
    ex[2].next = 0xfffffff9u;
    ex[3].ctx = ETM_CM3_CTX_TAILCHAIN;
    ex[3].excnum = 14;
    ex[3].ipsr = 14;
    ex[3].taken = 1;
    ex[3].next = 0xfffffff9u;
    ex[4].ctx = ETM_CM3_CTX_RETURN;
    ex[4].excnum = 0;
    run(&p, ex, 5, &r);
    CHECK_EQ(r.n, 1 + 12 + 1 + 1 + 6 + 1 + 10 + 1);
    CHECK(r.c[1].intstat == ETM_INTSTAT_FETCH && r.c[1].flush && r.c[1].findbr && !r.c[1].cancel);
    CHECK(r.c[13].ivalid && r.c[13].intstat == ETM_INTSTAT_ENTRY && r.c[13].intnum == 15 && r.c[13].iindbr);
    CHECK(r.c[15].intstat == ETM_INTSTAT_EXIT && r.c[15].flush && r.c[15].intnum == 15);
    CHECK(r.c[21].ivalid && r.c[21].intstat == ETM_INTSTAT_ENTRY && r.c[21].intnum == 14);
    CHECK(r.c[22].intstat == ETM_INTSTAT_EXIT && r.c[22].intnum == 14);
    CHECK(r.c[32].ivalid && r.c[32].intstat == ETM_INTSTAT_RETURN && r.c[32].intnum == 0 && r.c[32].ia == 0x102);
    CHECK(r.c[5].intnum == 0); /* the entry sequence belongs to the interrupted context */

    /* The same entry in front of an LDM (the return address): the LDM enters execute,
     * the exception cancels it in its second cycle, and it runs again after the return. */
    etm_cm3_insn_t cx[3] = { I(0x100, 0x2000, 2), I(0x40, 0x4770, 2), I(0x102, 0xcc0f, 2) };
    cx[1].ctx = ETM_CM3_CTX_ENTRY;
    cx[1].excnum = 15;
    cx[1].ipsr = 15;
    cx[1].async = 1;
    cx[1].ret_valid = 1;
    cx[1].ret_addr = 0x102;
    cx[1].ret_size = 2;
    cx[1].ret_opcode = 0xcc0f;
    cx[1].taken = 1;
    cx[1].next = 0xfffffff9u;
    cx[2].ctx = ETM_CM3_CTX_RETURN;
    cx[2].nmem = 4;
    run(&p, cx, 3, &r);
    CHECK(r.c[1].ivalid && r.c[1].ia == 0x102 && !r.c[1].intstat);
    CHECK(r.c[2].cancel && r.c[2].intstat == ETM_INTSTAT_FETCH);
    CHECK_EQ(r.ev[1].kind, ETM_GEN_EV_INSN);
    CHECK_EQ(r.ev[2].kind, ETM_GEN_EV_CANCEL);
    /* Not for SVC (synchronous) or with cancel off. */
    cx[1].async = 0;
    run(&p, cx, 3, &r);
    CHECK(!r.c[1].ivalid && !r.c[1].cancel);
}

/* etm_cm3_stall: the cycles of a sequence with entry, tail-chain, return, a
 * cancelled LDM and a refill, held at every position in turn (and in runs).
 * Without the held cycles the stream is the unheld one, cycle for cycle; a held
 * cycle is ETMISTALL alone with the ETMINTNUM of the cycle before it; events
 * keep their order and move by the held cycles before them; every cycle is
 * legal. */
typedef struct held_run {
    run_t r;
    uint8_t held[512];
    uint64_t stat_held, stat_cycles;
    int end_after_finish; /* etm_cm3_cycle after finish and a stall, with nothing left */
} held_run_t;

static void run_held(const etm_cm3_params_t *p, const etm_cm3_insn_t *rs, unsigned n, unsigned first,
                     unsigned count, unsigned every, held_run_t *out)
{
    memset(out, 0, sizeof *out);
    etm_cm3_t *m;
    etm_diag_t d;
    CHECK_EQ(etm_cm3_create(&m, p, &d), ETM_OK);
    etm_check_t chk;
    etm_config_t cfg;
    etm_config_default(&cfg);
    etm_check_init(&chk, &cfg);
    for (unsigned i = 0; i <= n; i++) {
        if (i < n)
            CHECK_EQ(etm_cm3_put(m, &rs[i], &d), ETM_OK);
        else
            etm_cm3_finish(m);
        for (;;) {
            unsigned k = out->r.n;
            int hold = k >= first && k < first + count && (every <= 1 || (k - first) % every == 0);
            if (hold)
                etm_cm3_stall(m);
            etm_in_t in;
            etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
            unsigned nev = 99;
            if (etm_cm3_cycle(m, &in, ev, &nev) != ETM_OK)
                break;
            etm_rule_t fired[4];
            out->r.violations += etm_check_step(&chk, &in, fired, 4);
            if (hold)
                CHECK_EQ(nev, 0);
            if (out->r.n < 512) {
                out->held[out->r.n] = (uint8_t)hold;
                out->r.c[out->r.n++] = in;
            }
            for (unsigned e = 0; e < nev && out->r.nev < 512; e++)
                out->r.ev[out->r.nev++] = ev[e];
        }
    }
    etm_cm3_stall(m);
    etm_in_t in;
    out->end_after_finish = etm_cm3_cycle(m, &in, NULL, NULL) == ETM_END;
    out->stat_held = etm_cm3_get_stats(m)->held_cycles;
    out->stat_cycles = etm_cm3_get_stats(m)->cycles;
    etm_cm3_free(m);
}

static void check_held(const run_t *ref, const held_run_t *h)
{
    unsigned j = 0, nheld = 0;
    uint16_t prev_num = 0;
    for (unsigned k = 0; k < h->r.n; k++) {
        const etm_in_t *c = &h->r.c[k];
        if (h->held[k]) {
            etm_in_t want;
            memset(&want, 0, sizeof want);
            want.istall = 1;
            want.intnum = prev_num;
            CHECK(memcmp(c, &want, sizeof want) == 0);
            nheld++;
        } else {
            CHECK(j < ref->n && memcmp(c, &ref->c[j], sizeof *c) == 0);
            j++;
        }
        prev_num = c->intnum;
    }
    CHECK_EQ(j, ref->n);
    CHECK_EQ(h->stat_held, nheld);
    CHECK_EQ(h->stat_cycles, ref->n + nheld);
    CHECK_EQ(h->r.violations, 0);
    CHECK(h->end_after_finish);
    /* Events: the same, each moved by the held cycles before it. */
    CHECK_EQ(h->r.nev, ref->nev);
    for (unsigned e = 0; e < ref->nev && e < h->r.nev; e++) {
        etm_gen_event_t a = ref->ev[e], b = h->r.ev[e];
        unsigned before = 0;
        for (unsigned k = 0; k < b.cycle && k < h->r.n; k++)
            before += h->held[k];
        CHECK_EQ(b.cycle, a.cycle + before);
        b.cycle = a.cycle;
        CHECK(memcmp(&a, &b, sizeof a) == 0);
    }
}

static void stall_cases(void)
{
    etm_cm3_params_t p;
    etm_cm3_params_default(&p);
    /* movs; SysTick entry in front of an LDM it cancels; its bx lr tail-chains
     * into PendSV, whose bx lr returns to the LDM; the LDM runs again; a taken
     * B and its target. */
    etm_cm3_insn_t s[7] = { I(0x100, 0x2000, 2), I(0x40, 0x4770, 2), I(0x60, 0x4770, 2), I(0x102, 0xcc0f, 2),
                            I(0x104, 0xe004, 2), I(0x110, 0x2101, 2), I(0x112, 0x2102, 2) };
    s[1].ctx = ETM_CM3_CTX_ENTRY;
    s[1].excnum = 15;
    s[1].ipsr = 15;
    s[1].async = 1;
    s[1].ret_valid = 1;
    s[1].ret_addr = 0x102;
    s[1].ret_size = 2;
    s[1].ret_opcode = 0xcc0f;
    s[1].taken = 1;
    s[1].next = 0xfffffff9u;
    s[2].ctx = ETM_CM3_CTX_TAILCHAIN;
    s[2].excnum = 14;
    s[2].ipsr = 14;
    s[2].taken = 1;
    s[2].next = 0xfffffff9u;
    s[3].ctx = ETM_CM3_CTX_RETURN;
    s[3].nmem = 4;
    s[4].taken = 1;
    s[4].next = 0x110;
    run_t ref;
    run(&p, s, 7, &ref);
    CHECK(ref.n > 30);
    held_run_t h;
    /* No holds at all: the same stream. */
    run_held(&p, s, 7, 0, 0, 1, &h);
    check_held(&ref, &h);
    CHECK_EQ(h.stat_held, 0);
    /* One held cycle at every position; after the last cycle there is no core
     * left to hold. */
    for (unsigned k = 0; k <= ref.n; k++) {
        run_held(&p, s, 7, k, 1, 1, &h);
        check_held(&ref, &h);
        CHECK_EQ(h.stat_held, k < ref.n);
    }
    /* Runs of held cycles, and every other cycle held. */
    run_held(&p, s, 7, 0, 40, 1, &h);
    check_held(&ref, &h);
    CHECK_EQ(h.stat_held, 40);
    run_held(&p, s, 7, 3, 60, 2, &h);
    check_held(&ref, &h);
    CHECK_EQ(h.stat_held, 30);
    /* A held cycle inside the entry sequence carries the interrupted context's
     * number; one just after the handler's first instruction, the handler's. */
    unsigned entry = 0;
    while (entry < ref.n && ref.c[entry].intstat != ETM_INTSTAT_ENTRY)
        entry++;
    CHECK(entry < ref.n);
    run_held(&p, s, 7, entry, 1, 1, &h);
    CHECK(h.held[entry] && h.r.c[entry].intnum == 0 && h.r.c[entry + 1].intnum == 15);
    run_held(&p, s, 7, entry + 1, 1, 1, &h);
    CHECK(h.held[entry + 1] && h.r.c[entry + 1].intnum == 15);
}

int main(void)
{
    classify_cases();
    cond_cases();
    text_cases();
    timing_flow();
    timing_data();
    timing_exceptions();
    stall_cases();
    return test_report("test_cm3");
}
