/* test_thumb.c - the project's Thumb-2 decoder (etm/thumb.h) on encodings
 * assembled by arm-none-eabi-as and read back by arm-none-eabi-objdump (the
 * addresses and targets are objdump's), the ARMv7-A/R forms the ETMv3 decoder
 * meets, instructions read from bytes, and rules every encoding keeps. */
#include "etm/thumb.h"
#include "test.h"

#define N ETM_THUMB_BR_NONE
#define D ETM_THUMB_BR_DIRECT
#define I ETM_THUMB_BR_INDIRECT
#define LS_N ETM_THUMB_LS_NONE
#define LS_L ETM_THUMB_LS_LOAD
#define LS_S ETM_THUMB_LS_STORE

static void decode_cases(void)
{
    static const struct {
        uint32_t addr, op;
        unsigned size;
        etm_thumb_op_t kind;
        unsigned branch;
        uint32_t target;
        unsigned link, ls, bytes, nregs;
    } t[] = {
        { 0x100, 0x2000, 2, ETM_THUMB_ALU, N, 0, 0, LS_N, 0, 0 },                /* movs r0, #0 */
        { 0x102, 0x4348, 2, ETM_THUMB_MUL, N, 0, 0, LS_N, 0, 0 },                /* muls r0, r1 */
        { 0x106, 0xe7fb, 2, ETM_THUMB_B, D, 0x100, 0, LS_N, 0, 0 },              /* b.n 100 */
        { 0x108, 0xd0fa, 2, ETM_THUMB_BCOND, D, 0x100, 0, LS_N, 0, 0 },          /* beq.n 100 */
        { 0x10a, 0xf47faff9, 4, ETM_THUMB_BCOND, D, 0x100, 0, LS_N, 0, 0 },      /* bne.w 100 */
        { 0x10e, 0xf000b8f7, 4, ETM_THUMB_B, D, 0x300, 0, LS_N, 0, 0 },          /* b.w 300 */
        { 0x112, 0xf000f8f5, 4, ETM_THUMB_BL, D, 0x300, 1, LS_N, 0, 0 },         /* bl 300 */
        { 0xc004f6a6, 0xf7ffffe5, 4, ETM_THUMB_BL, D, 0xc004f674, 1, LS_N, 0, 0 }, /* bl (backward, DS-5) */
        { 0x116, 0xb19b, 2, ETM_THUMB_CBZ, D, 0x140, 0, LS_N, 0, 0 },            /* cbz r3, 140 */
        { 0x118, 0xb992, 2, ETM_THUMB_CBZ, D, 0x140, 0, LS_N, 0, 0 },            /* cbnz r2, 140 */
        { 0x11a, 0x4770, 2, ETM_THUMB_BX, I, 0, 0, LS_N, 0, 0 },                 /* bx lr */
        { 0x11c, 0x4798, 2, ETM_THUMB_BLX, I, 0, 1, LS_N, 0, 0 },                /* blx r3 */
        { 0x11e, 0x46f7, 2, ETM_THUMB_ALU, I, 0, 0, LS_N, 0, 0 },                /* mov pc, lr */
        { 0x120, 0x4487, 2, ETM_THUMB_ALU, I, 0, 0, LS_N, 0, 0 },                /* add pc, r0 */
        { 0x122, 0x4680, 2, ETM_THUMB_ALU, N, 0, 0, LS_N, 0, 0 },                /* mov r8, r0 */
        { 0x124, 0x4287, 2, ETM_THUMB_ALU, N, 0, 0, LS_N, 0, 0 },                /* cmp r7, r0 */
        { 0x126, 0xbd70, 2, ETM_THUMB_POP, I, 0, 0, LS_L, 16, 4 },               /* pop {r4, r5, r6, pc} */
        { 0x128, 0xbc10, 2, ETM_THUMB_POP, N, 0, 0, LS_L, 4, 1 },                /* pop {r4} */
        { 0x12a, 0xb508, 2, ETM_THUMB_PUSH, N, 0, 0, LS_S, 8, 2 },               /* push {r3, lr} */
        { 0x12c, 0xcc0f, 2, ETM_THUMB_LDM, N, 0, 0, LS_L, 16, 4 },               /* ldmia r4!, {r0-r3} */
        { 0x12e, 0xc007, 2, ETM_THUMB_STM, N, 0, 0, LS_S, 12, 3 },               /* stmia r0!, {r0-r2} */
        { 0x130, 0x4a17, 2, ETM_THUMB_LOAD, N, 0, 0, LS_L, 4, 0 },               /* ldr r2, [pc, #92] */
        { 0x132, 0x6808, 2, ETM_THUMB_LOAD, N, 0, 0, LS_L, 4, 0 },               /* ldr r0, [r1, #0] */
        { 0x134, 0x54e9, 2, ETM_THUMB_STORE, N, 0, 0, LS_S, 1, 0 },              /* strb r1, [r5, r3] */
        { 0x136, 0x5e08, 2, ETM_THUMB_LOAD, N, 0, 0, LS_L, 2, 0 },               /* ldrsh r0, [r1, r0] */
        { 0x138, 0x8048, 2, ETM_THUMB_STORE, N, 0, 0, LS_S, 2, 0 },              /* strh r0, [r1, #2] */
        { 0x13a, 0x9001, 2, ETM_THUMB_STORE, N, 0, 0, LS_S, 4, 0 },              /* str r0, [sp, #4] */
        { 0x13c, 0xbf08, 2, ETM_THUMB_IT, N, 0, 0, LS_N, 0, 0 },                 /* it eq */
        { 0x13e, 0xbf00, 2, ETM_THUMB_HINT, N, 0, 0, LS_N, 0, 0 },               /* nop */
        { 0x140, 0xdf05, 2, ETM_THUMB_SVC, N, 0, 0, LS_N, 0, 0 },                /* svc 5 */
        { 0x142, 0xbeab, 2, ETM_THUMB_BKPT, N, 0, 0, LS_N, 0, 0 },               /* bkpt 0x00ab */
        { 0x144, 0xde00, 2, ETM_THUMB_UNDEF, N, 0, 0, LS_N, 0, 0 },              /* udf #0 */
        { 0x146, 0xb672, 2, ETM_THUMB_SYSREG, N, 0, 0, LS_N, 0, 0 },             /* cpsid i */
        { 0x148, 0xe8bd8ff0, 4, ETM_THUMB_POP, I, 0, 0, LS_L, 36, 9 },           /* ldmia.w sp!, {r4-fp, pc} */
        { 0x14c, 0xe92d47f0, 4, ETM_THUMB_PUSH, N, 0, 0, LS_S, 32, 8 },          /* stmdb sp!, {r4-sl, lr} */
        { 0x150, 0xe891000f, 4, ETM_THUMB_LDM, N, 0, 0, LS_L, 16, 4 },           /* ldmia.w r1, {r0-r3} */
        { 0x154, 0xe911000f, 4, ETM_THUMB_LDM, N, 0, 0, LS_L, 16, 4 },           /* ldmdb r1, {r0-r3} */
        { 0x158, 0xe8dff003, 4, ETM_THUMB_TB, I, 0, 0, LS_L, 1, 0 },             /* tbb [pc, r3] */
        { 0x15c, 0xe8dff017, 4, ETM_THUMB_TB, I, 0, 0, LS_L, 2, 0 },             /* tbh [pc, r7, lsl #1] */
        { 0x160, 0xf8dff000, 4, ETM_THUMB_LOAD, I, 0, 0, LS_L, 4, 0 },           /* ldr.w pc, [pc] */
        { 0x164, 0xf85dfb04, 4, ETM_THUMB_LOAD, I, 0, 0, LS_L, 4, 0 },           /* ldr.w pc, [sp], #4 */
        { 0x168, 0xf857e023, 4, ETM_THUMB_LOAD, N, 0, 0, LS_L, 4, 0 },           /* ldr.w lr, [r7, r3, lsl #2] */
        { 0x16c, 0xf8003f01, 4, ETM_THUMB_STORE, N, 0, 0, LS_S, 1, 0 },          /* strb.w r3, [r0, #1]! */
        { 0x170, 0xf9b10004, 4, ETM_THUMB_LOAD, N, 0, 0, LS_L, 2, 0 },           /* ldrsh.w r0, [r1, #4] */
        { 0x174, 0xf891f004, 4, ETM_THUMB_PRELOAD, N, 0, 0, LS_L, 0, 0 },        /* pld [r1, #4] */
        { 0x178, 0xe9cd4400, 4, ETM_THUMB_STRD, N, 0, 0, LS_S, 8, 0 },           /* strd r4, r4, [sp] */
        { 0x17c, 0xe9d42300, 4, ETM_THUMB_LDRD, N, 0, 0, LS_L, 8, 0 },           /* ldrd r2, r3, [r4] */
        { 0x180, 0xe8510f00, 4, ETM_THUMB_LDREX, N, 0, 0, LS_L, 4, 0 },          /* ldrex r0, [r1] */
        { 0x184, 0xe8410200, 4, ETM_THUMB_STREX, N, 0, 0, LS_S, 4, 0 },          /* strex r2, r0, [r1] */
        { 0x188, 0xe8c10f42, 4, ETM_THUMB_STREX, N, 0, 0, LS_S, 1, 0 },          /* strexb r2, r0, [r1] */
        { 0x18c, 0xe8d10f5f, 4, ETM_THUMB_LDREX, N, 0, 0, LS_L, 2, 0 },          /* ldrexh r0, [r1] */
        { 0x190, 0xfb90f0f1, 4, ETM_THUMB_DIV, N, 0, 0, LS_N, 0, 0 },            /* sdiv r0, r0, r1 */
        { 0x194, 0xfbb0f0f1, 4, ETM_THUMB_DIV, N, 0, 0, LS_N, 0, 0 },            /* udiv r0, r0, r1 */
        { 0x198, 0xfb810203, 4, ETM_THUMB_MULL, N, 0, 0, LS_N, 0, 0 },           /* smull r0, r2, r1, r3 */
        { 0x19c, 0xfbe10203, 4, ETM_THUMB_MLAL, N, 0, 0, LS_N, 0, 0 },           /* umlal r0, r2, r1, r3 */
        { 0x1a0, 0xfb012303, 4, ETM_THUMB_MLA, N, 0, 0, LS_N, 0, 0 },            /* mla r3, r1, r3, r2 */
        { 0x1a4, 0xfb012313, 4, ETM_THUMB_MLA, N, 0, 0, LS_N, 0, 0 },            /* mls r3, r1, r3, r2 */
        { 0x1a8, 0xfb01f303, 4, ETM_THUMB_MUL, N, 0, 0, LS_N, 0, 0 },            /* mul.w r3, r1, r3 */
        { 0x1ac, 0xf3bf8f5f, 4, ETM_THUMB_BARRIER, N, 0, 0, LS_N, 0, 0 },        /* dmb sy */
        { 0x1b0, 0xf3bf8f6f, 4, ETM_THUMB_ISB, N, 0, 0, LS_N, 0, 0 },            /* isb sy */
        { 0x1b4, 0xf3bf8f2f, 4, ETM_THUMB_HINT, N, 0, 0, LS_N, 0, 0 },           /* clrex */
        { 0x1b8, 0xf3af8003, 4, ETM_THUMB_HINT, N, 0, 0, LS_N, 0, 0 },           /* wfi.w */
        { 0x1bc, 0xf3ef8009, 4, ETM_THUMB_SYSREG, N, 0, 0, LS_N, 0, 0 },         /* mrs r0, PSP */
        { 0x1c0, 0xf3808809, 4, ETM_THUMB_SYSREG, N, 0, 0, LS_N, 0, 0 },         /* msr PSP, r0 */
        { 0x1c4, 0xf0134f80, 4, ETM_THUMB_ALU, N, 0, 0, LS_N, 0, 0 },            /* tst.w r3, #0x40000000 */
        { 0x1c8, 0xeb010002, 4, ETM_THUMB_ALU, N, 0, 0, LS_N, 0, 0 },            /* add.w r0, r1, r2 */
        { 0x1cc, 0xee010f10, 4, ETM_THUMB_COPROC, N, 0, 0, LS_N, 0, 0 },         /* mcr 15, 0, r0, cr1, cr0, {0} */
        { 0x1d0, 0xed910e00, 4, ETM_THUMB_COPROC, N, 0, 0, LS_L, 0, 0 },         /* ldc 14, cr0, [r1] */
        { 0x1d4, 0xec410f00, 4, ETM_THUMB_COPROC, N, 0, 0, LS_N, 0, 0 },         /* mcrr 15, 0, r0, r1, cr0 */
        /* ARMv7-A/R (-march=armv7-a) */
        { 0x102, 0xf000e97e, 4, ETM_THUMB_BLX_IMM, D, 0x400, 1, LS_N, 0, 0 },    /* blx 400 (A32) */
        { 0x106, 0xf3de8f00, 4, ETM_THUMB_ERET, I, 0, 0, LS_N, 0, 0 },           /* subs pc, lr, #0 */
        { 0x10a, 0xf3c38f00, 4, ETM_THUMB_BXJ, I, 0, 0, LS_N, 0, 0 },            /* bxj r3 */
        { 0x10e, 0xe99dc000, 4, ETM_THUMB_RFE, I, 0, 0, LS_L, 8, 0 },            /* rfeia sp */
        { 0x112, 0xe82dc013, 4, ETM_THUMB_SRS, N, 0, 0, LS_S, 8, 0 },            /* srsdb sp!, #19 */
        { 0x116, 0xe8d2017f, 4, ETM_THUMB_LDREX, N, 0, 0, LS_L, 8, 0 },          /* ldrexd r0, r1, [r2] */
    };
    for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
        etm_thumb_insn_t d;
        etm_thumb_decode(t[i].addr, t[i].op, t[i].size, &d);
        if (d.op != t[i].kind || d.branch != t[i].branch || d.link != t[i].link || d.ls != t[i].ls ||
            d.data_bytes != t[i].bytes || d.nregs != t[i].nregs)
            fprintf(stderr, "case %u: %08x is %s branch %u link %u ls %u bytes %u nregs %u, expected %s\n", i,
                    (unsigned)t[i].op, etm_thumb_op_name((etm_thumb_op_t)d.op), d.branch, d.link, d.ls,
                    d.data_bytes, d.nregs, etm_thumb_op_name(t[i].kind));
        CHECK_EQ(d.op, t[i].kind);
        CHECK_EQ(d.size, t[i].size);
        CHECK_EQ(d.opcode, t[i].op);
        CHECK_EQ(d.branch, t[i].branch);
        if (t[i].branch == D)
            CHECK_EQ(d.target, t[i].target);
        CHECK_EQ(d.link, t[i].link);
        CHECK_EQ(d.ls, t[i].ls);
        CHECK_EQ(d.data_bytes, t[i].bytes);
        CHECK_EQ(d.nregs, t[i].nregs);
        CHECK_EQ(d.ar_only, i >= sizeof t / sizeof t[0] - 6);
        CHECK_EQ(d.to_arm, t[i].kind == ETM_THUMB_BLX_IMM);
        CHECK_EQ(etm_thumb_size(t[i].size == 4 ? t[i].op >> 16 : t[i].op), t[i].size);
    }
}

/* Conditions, IT's fields, sizes that do not fit, names. */
static void field_cases(void)
{
    /* Conditions: B<c> only; IT's fields. */
    etm_thumb_insn_t d;
    etm_thumb_decode(0x108, 0xd0fa, 2, &d);
    CHECK_EQ(d.cond, 0);
    etm_thumb_decode(0x10a, 0xf47faff9, 4, &d);
    CHECK_EQ(d.cond, 1);
    etm_thumb_decode(0x106, 0xe7fb, 2, &d);
    CHECK_EQ(d.cond, 14);
    etm_thumb_decode(0x100, 0xbf14, 2, &d); /* ite ne */
    CHECK_EQ(d.op, ETM_THUMB_IT);
    CHECK_EQ(d.it_firstcond, 1);
    CHECK_EQ(d.it_mask, 4);
    /* A size that does not match the first halfword, or no size at all. */
    etm_thumb_decode(0, 0x6808, 4, &d);
    CHECK_EQ(d.op, ETM_THUMB_UNDEF);
    etm_thumb_decode(0, 0xf000, 2, &d);
    CHECK_EQ(d.op, ETM_THUMB_UNDEF);
    etm_thumb_decode(0, 0x2000, 3, &d);
    CHECK_EQ(d.op, ETM_THUMB_UNDEF);
    CHECK_EQ(d.branch, N);
    CHECK(!strcmp(etm_thumb_op_name(ETM_THUMB_TB), "tb"));
    CHECK(!strcmp(etm_thumb_op_name(ETM_THUMB_OP_COUNT), "?"));
}

/* From bytes in memory order: 2 bytes, then 4 for a 32-bit instruction. */
static void bytes_cases(void)
{
    const uint8_t b16[2] = { 0x08, 0x68 }, b32[4] = { 0x00, 0xf0, 0xf5, 0xf8 };
    etm_thumb_insn_t d;
    CHECK_EQ(etm_thumb_decode_bytes(0x132, b16, 1, &d), 0);
    CHECK_EQ(etm_thumb_decode_bytes(0x132, b16, 2, &d), 2);
    CHECK_EQ(d.opcode, 0x6808);
    CHECK_EQ(d.op, ETM_THUMB_LOAD);
    CHECK_EQ(etm_thumb_decode_bytes(0x112, b32, 2, &d), 0);
    CHECK_EQ(etm_thumb_decode_bytes(0x112, b32, 3, &d), 0);
    CHECK_EQ(etm_thumb_decode_bytes(0x112, b32, 4, &d), 4);
    CHECK_EQ(d.opcode, 0xf000f8f5);
    CHECK_EQ(d.target, 0x300);
}

/* What holds for every 16-bit encoding and for 32-bit ones across the space. */
static void check_rules(const etm_thumb_insn_t *d, uint32_t addr)
{
    int direct_op = d->op == ETM_THUMB_B || d->op == ETM_THUMB_BCOND || d->op == ETM_THUMB_BL ||
                    d->op == ETM_THUMB_BLX_IMM || d->op == ETM_THUMB_CBZ;
    int indirect_op = d->op == ETM_THUMB_BX || d->op == ETM_THUMB_BLX || d->op == ETM_THUMB_TB ||
                      d->op == ETM_THUMB_ERET || d->op == ETM_THUMB_BXJ || d->op == ETM_THUMB_RFE;
    CHECK(d->op < ETM_THUMB_OP_COUNT);
    CHECK_EQ(d->branch == D, direct_op);
    if (indirect_op)
        CHECK_EQ(d->branch, I);
    CHECK_EQ(d->link, d->op == ETM_THUMB_BL || d->op == ETM_THUMB_BLX || d->op == ETM_THUMB_BLX_IMM);
    CHECK_EQ(d->cond != 14, d->op == ETM_THUMB_BCOND);
    CHECK_EQ(d->it_mask != 0, d->op == ETM_THUMB_IT);
    if (d->branch == D)
        CHECK_EQ(d->target & (d->to_arm ? 3u : 1u), 0);
    if (d->op == ETM_THUMB_CBZ)
        CHECK(d->target - addr >= 4 && d->target - addr <= 4 + 126);
    if (d->op == ETM_THUMB_UNDEF)
        CHECK(d->branch == N && d->data_bytes == 0 && d->nregs == 0 && !d->ar_only);
    if (d->data_bytes)
        CHECK(d->ls != LS_N);
    if (d->nregs)
        CHECK_EQ(d->data_bytes, 4u * d->nregs);
}

static void rule_cases(void)
{
    etm_thumb_insn_t d;
    for (uint32_t h = 0; h < 0x10000; h++) {
        if (etm_thumb_size(h) == 4)
            continue;
        etm_thumb_decode(0x1000, h, 2, &d);
        check_rules(&d, 0x1000);
    }
    test_rng_t r = { 0x7468756d62ull };
    for (uint32_t h1 = 0xe800; h1 < 0x10000; h1++) {
        for (int k = 0; k < 64; k++) {
            uint32_t op = h1 << 16 | (uint32_t)(test_rand(&r) & 0xffff);
            etm_thumb_decode(0x2000, op, 4, &d);
            check_rules(&d, 0x2000);
        }
    }
}

int main(void)
{
    decode_cases();
    field_cases();
    bytes_cases();
    rule_cases();
    return test_report("test_thumb");
}
