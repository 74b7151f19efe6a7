/* thumb.c - the project's Thumb-2 decoder (etm/thumb.h). Each encoding group
 * names its section of the ARMv7-M ARM (DDI 0403E.b); the ARMv7-A/R encodings
 * are those of DDI 0406C A6.3 at the same places.
 *
 * The decoders call this for every instruction they follow, so it is written
 * for speed as well: the encoding groups are told apart by chains of
 * comparisons, not switches (a jump table's one indirect jump is mispredicted
 * more often on real code), and the top of the decoding is inlined into both
 * entry points.
 */
#include "etm/thumb.h"

/* Inlined into etm_thumb_decode and etm_thumb_decode_bytes. */
#if defined(__GNUC__)
#define THUMB_INLINE inline __attribute__((always_inline))
#else
#define THUMB_INLINE inline
#endif

static unsigned popcount16(uint32_t v)
{
    unsigned n = 0;
    for (v &= 0xFFFFu; v; v &= v - 1)
        n++;
    return n;
}

/* v (no bits above `bits`) as a signed number of `bits` bits. */
static uint32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    return (v ^ m) - m;
}

static void direct(etm_thumb_insn_t *t, etm_thumb_op_t op, uint32_t target)
{
    t->op = (uint8_t)op;
    t->branch = ETM_THUMB_BR_DIRECT;
    t->target = target;
}

static void indirect(etm_thumb_insn_t *t, etm_thumb_op_t op)
{
    t->op = (uint8_t)op;
    t->branch = ETM_THUMB_BR_INDIRECT;
}

/* A load or store of `bytes` bytes; load: bit L of the encoding. */
static void transfer(etm_thumb_insn_t *t, unsigned load, unsigned bytes)
{
    t->op = load ? ETM_THUMB_LOAD : ETM_THUMB_STORE;
    t->ls = load ? ETM_THUMB_LS_LOAD : ETM_THUMB_LS_STORE;
    t->data_bytes = (uint8_t)bytes;
}

/* LDM, STM, PUSH, POP of the registers in `list`; with pc loaded, an indirect branch. */
static void multiple(etm_thumb_insn_t *t, etm_thumb_op_t op, unsigned load, uint32_t list)
{
    t->op = (uint8_t)op;
    t->ls = load ? ETM_THUMB_LS_LOAD : ETM_THUMB_LS_STORE;
    t->nregs = (uint8_t)popcount16(list);
    t->data_bytes = (uint8_t)(4u * t->nregs);
    if (load && (list & 0x8000u))
        t->branch = ETM_THUMB_BR_INDIRECT;
}

/* ---- 16-bit (A5.2) ------------------------------------------------------------------ */

/* Special data processing, branch and exchange (A5.2.3): 010001 op[3:0]. */
static void special16(uint32_t h, etm_thumb_insn_t *t)
{
    unsigned op = (h >> 6) & 15u;
    if (op >= 12) {
        indirect(t, (h & 0x80u) ? ETM_THUMB_BLX : ETM_THUMB_BX);
        t->link = (uint8_t)((h >> 7) & 1u);
    } else if ((op < 4 || op >= 8) && ((h & 7u) | ((h >> 4) & 8u)) == 15u) {
        t->branch = ETM_THUMB_BR_INDIRECT; /* ADD pc, Rm; MOV pc, Rm (Rd = D:Rd) */
    }
    /* op 4-7: CMP (high registers) */
}

/* Miscellaneous 16-bit instructions (A5.2.5): 1011 xxxx. */
static void misc16(uint32_t pc, uint32_t h, etm_thumb_insn_t *t)
{
    if ((h & 0xFF00u) == 0xB000u || (h & 0xFF00u) == 0xB200u || (h & 0xFF00u) == 0xBA00u) {
        /* ADD/SUB sp, #imm; extends; reverses: data processing */
    } else if ((h & 0xF500u) == 0xB100u) {
        direct(t, ETM_THUMB_CBZ, pc + ((((h >> 9) & 1u) << 6) | (((h >> 3) & 0x1Fu) << 1))); /* forward only */
    } else if ((h & 0xFE00u) == 0xB400u) {
        multiple(t, ETM_THUMB_PUSH, 0, (h & 0xFFu) | ((h & 0x100u) << 6)); /* M: lr */
    } else if ((h & 0xFE00u) == 0xBC00u) {
        multiple(t, ETM_THUMB_POP, 1, (h & 0xFFu) | ((h & 0x100u) << 7)); /* P: pc */
    } else if ((h & 0xFFE0u) == 0xB660u) {
        t->op = ETM_THUMB_SYSREG; /* CPS */
    } else if ((h & 0xFF00u) == 0xBE00u) {
        t->op = ETM_THUMB_BKPT;
    } else if ((h & 0xFF00u) == 0xBF00u) {
        if (h & 15u) {
            t->op = ETM_THUMB_IT;
            t->it_firstcond = (uint8_t)((h >> 4) & 15u);
            t->it_mask = (uint8_t)(h & 15u);
        } else {
            t->op = ETM_THUMB_HINT;
        }
    } else {
        t->op = ETM_THUMB_UNDEF;
    }
}

static THUMB_INLINE void decode16(uint32_t addr, uint32_t h, etm_thumb_insn_t *t)
{
    static const unsigned char reg_bytes[8] = { 4, 2, 1, 1, 4, 2, 1, 2 }; /* STR STRH STRB LDRSB LDR LDRH LDRB LDRSH */
    uint32_t pc = addr + 4, op = h >> 12;
    if (op < 4 || op == 0xA) {
        /* shift (immediate), add, subtract, move, compare (A5.2.1); ADR, ADD Rd, sp, #imm */
    } else if (op < 0xA) { /* 4-9 */
        if (op == 4) {
            if ((h & 0xFC00u) == 0x4000u) { /* data processing (A5.2.2) */
                if (((h >> 6) & 15u) == 13u)
                    t->op = ETM_THUMB_MUL;
            } else if ((h & 0xFC00u) == 0x4400u) {
                special16(h, t);
            } else {
                transfer(t, 1, 4); /* LDR (literal) */
            }
        } else if (op == 5) { /* load/store, register offset (A5.2.4) */
            unsigned o = (h >> 9) & 7u;
            transfer(t, o >= 3, reg_bytes[o]);
        } else { /* STR, LDR, STRB, LDRB (immediate); STRH, LDRH (immediate); sp-relative */
            transfer(t, (h >> 11) & 1u, op == 8 ? 2u : op == 9 ? 4u : (h & 0x1000u) ? 1u : 4u);
        }
    } else if (op == 0xB) {
        misc16(pc, h, t);
    } else if (op == 0xC) { /* STM, LDM */
        multiple(t, (h & 0x800u) ? ETM_THUMB_LDM : ETM_THUMB_STM, (h >> 11) & 1u, h & 0xFFu);
    } else if (op == 0xD) { /* B<c> T1; cond 1110 is UDF, 1111 is SVC (A5.2.6) */
        unsigned cond = (h >> 8) & 15u;
        if (cond < 14u) {
            direct(t, ETM_THUMB_BCOND, pc + sext((h & 0xFFu) << 1, 9));
            t->cond = (uint8_t)cond;
        } else {
            t->op = cond == 15u ? ETM_THUMB_SVC : ETM_THUMB_UNDEF;
        }
    } else if ((h >> 11) == 0x1Cu) {
        direct(t, ETM_THUMB_B, pc + sext((h & 0x7FFu) << 1, 12)); /* B T2 */
    } else {
        t->op = ETM_THUMB_UNDEF; /* the first halfword of a 32-bit instruction */
    }
}

/* ---- 32-bit (A5.3) ------------------------------------------------------------------ */

/* Load/store multiple (A5.3.5): 1110 100 op[1:0] 0 W L Rn. */
static void multiple32(uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    unsigned op = (h1 >> 7) & 3u, load = (h1 >> 4) & 1u;
    if (op == 1 || op == 2) {
        etm_thumb_op_t k = load ? ETM_THUMB_LDM : ETM_THUMB_STM;
        if (h1 == 0xE8BDu)
            k = ETM_THUMB_POP; /* LDMIA sp! */
        else if (h1 == 0xE92Du)
            k = ETM_THUMB_PUSH; /* STMDB sp! */
        multiple(t, k, load, h2);
    } else {
        t->op = load ? ETM_THUMB_RFE : ETM_THUMB_SRS;
        t->ar_only = 1;
        t->data_bytes = 8; /* the PC and the CPSR */
        if (load)
            t->branch = ETM_THUMB_BR_INDIRECT;
    }
}

/* Load/store dual or exclusive, table branch (A5.3.6): 1110 100 P U 1 W L Rn;
 * op1 = P:U, op2 = W:L, op3 = hw2[7:4]. */
static void dual32(uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    unsigned op1 = (h1 >> 7) & 3u, op2 = (h1 >> 4) & 3u, op3 = (h2 >> 4) & 15u, load = op2 & 1u;
    t->data_bytes = 4;
    if ((op1 & 2u) || (op2 & 2u)) { /* P = 1 or W = 1 */
        t->op = load ? ETM_THUMB_LDRD : ETM_THUMB_STRD;
        t->data_bytes = 8;
    } else if (op1 == 0) {
        t->op = load ? ETM_THUMB_LDREX : ETM_THUMB_STREX;
    } else if (op3 <= 1) { /* TBB, TBH; the stores are unallocated */
        if (load) {
            indirect(t, ETM_THUMB_TB);
            t->data_bytes = (uint8_t)(1u + op3);
        } else {
            t->op = ETM_THUMB_UNDEF;
        }
    } else if (op3 == 4 || op3 == 5) { /* LDREXB, LDREXH, STREXB, STREXH */
        t->op = load ? ETM_THUMB_LDREX : ETM_THUMB_STREX;
        t->data_bytes = (uint8_t)(op3 - 3u);
    } else if (op3 == 7) { /* LDREXD, STREXD */
        t->op = load ? ETM_THUMB_LDREX : ETM_THUMB_STREX;
        t->ar_only = 1;
        t->data_bytes = 8;
    } else {
        t->op = ETM_THUMB_UNDEF;
    }
    if (t->op == ETM_THUMB_UNDEF)
        t->data_bytes = 0;
}

/* Coprocessor instructions (A5.3.18): LDC and STC (not MCRR, MRRC) are loads and stores. */
static void coproc32(uint32_t h1, etm_thumb_insn_t *t)
{
    t->op = ETM_THUMB_COPROC;
    if ((h1 & 0xEE00u) == 0xEC00u && (h1 & 0xEFE0u) != 0xEC40u)
        t->ls = (h1 & 0x10u) ? ETM_THUMB_LS_LOAD : ETM_THUMB_LS_STORE;
}

/* Miscellaneous control (A5.3.4, op1 0x0 with op 0111xxx, and the A/R forms). */
static void misc32(uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    if ((h1 & 0xFFE0u) == 0xF380u || (h1 & 0xFFE0u) == 0xF3E0u) {
        t->op = ETM_THUMB_SYSREG; /* MSR, MRS */
    } else if ((h1 & 0xFFF0u) == 0xF3A0u) {
        t->op = ETM_THUMB_HINT; /* NOP.W, YIELD.W, WFE.W, WFI.W, SEV.W, DBG */
    } else if ((h1 & 0xFFF0u) == 0xF3B0u) { /* CLREX, DSB, DMB, ISB */
        unsigned op = (h2 >> 4) & 15u;
        t->op = op == 6 ? ETM_THUMB_ISB : op == 4 || op == 5 ? ETM_THUMB_BARRIER : ETM_THUMB_HINT;
    } else if (h1 == 0xF3DEu && (h2 & 0xFF00u) == 0x8F00u) {
        indirect(t, ETM_THUMB_ERET); /* SUBS pc, lr, #imm8 */
        t->ar_only = 1;
    } else if ((h1 & 0xFFF0u) == 0xF3C0u && h2 == 0x8F00u) {
        indirect(t, ETM_THUMB_BXJ);
        t->ar_only = 1;
    } else {
        t->op = ETM_THUMB_UNDEF;
    }
}

/* Branches and miscellaneous control (A5.3.4): 11110 S op[9:0] | 1 op1[2:0] ... */
static void branch32(uint32_t addr, uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    uint32_t pc = addr + 4;
    uint32_t s = (h1 >> 10) & 1u, j1 = (h2 >> 13) & 1u, j2 = (h2 >> 11) & 1u;
    uint32_t i1 = ~(j1 ^ s) & 1u, i2 = ~(j2 ^ s) & 1u;
    uint32_t hi = (s << 24) | (i1 << 23) | (i2 << 22) | ((h1 & 0x3FFu) << 12); /* S:I1:I2:imm10 */
    switch (h2 & 0x5000u) {
    case 0x1000u: /* B.W T4 */
        direct(t, ETM_THUMB_B, pc + sext(hi | ((h2 & 0x7FFu) << 1), 25));
        break;
    case 0x5000u: /* BL */
        direct(t, ETM_THUMB_BL, pc + sext(hi | ((h2 & 0x7FFu) << 1), 25));
        t->link = 1;
        break;
    case 0x4000u: /* BLX (immediate): to A32, from the word-aligned PC */
        direct(t, ETM_THUMB_BLX_IMM, (pc & ~3u) + sext(hi | (((h2 >> 1) & 0x3FFu) << 2), 25));
        t->link = 1;
        t->to_arm = 1;
        t->ar_only = 1;
        break;
    default: { /* B<c>.W T3: S:J2:J1:imm6:imm11:'0'; cond 111x is miscellaneous control */
        unsigned cond = (h1 >> 6) & 15u;
        if ((cond & 0xEu) == 0xEu) {
            misc32(h1, h2, t);
        } else {
            uint32_t imm = (s << 20) | (j2 << 19) | (j1 << 18) | ((h1 & 0x3Fu) << 12) | ((h2 & 0x7FFu) << 1);
            direct(t, ETM_THUMB_BCOND, pc + sext(imm, 21));
            t->cond = (uint8_t)cond;
        }
        break;
    }
    }
}

/* Load/store single (A5.3.7 - A5.3.10): 1111 100 S size[1:0] L Rn | Rt ... */
static void single32(uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    unsigned sz = (h1 >> 5) & 3u, load = (h1 >> 4) & 1u, rt = (h2 >> 12) & 15u;
    t->ls = load ? ETM_THUMB_LS_LOAD : ETM_THUMB_LS_STORE;
    if (sz == 3 || ((h1 & 0x100u) && (!load || sz == 2))) {
        t->op = ETM_THUMB_UNDEF; /* no size 3; no signed store or word (the store space is Advanced SIMD) */
    } else if (load && rt == 15 && sz < 2) {
        t->op = ETM_THUMB_PRELOAD; /* PLD, PLI, unallocated memory hints */
    } else {
        transfer(t, load, 1u << sz);
        if (load && rt == 15)
            t->branch = ETM_THUMB_BR_INDIRECT; /* LDR pc */
    }
}

/* Multiply, multiply accumulate (A5.3.16) and long multiply, divide (A5.3.17);
 * the others of both groups are the DSP forms of ARMv7E-M. */
static void multiply32(uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    unsigned op = (h1 >> 4) & 7u;
    if (!(h1 & 0x80u)) {
        unsigned op2 = (h2 >> 4) & 3u;
        if (op == 0 && op2 == 0)
            t->op = (h2 >> 12) == 15u ? ETM_THUMB_MUL : ETM_THUMB_MLA; /* Ra = 15: MUL */
        else if (op == 0 && op2 == 1)
            t->op = ETM_THUMB_MLA; /* MLS */
        else
            t->op = ETM_THUMB_UNDEF;
    } else if (op == 1 || op == 3) {
        t->op = ETM_THUMB_DIV;
    } else if (op == 0 || op == 2) {
        t->op = ETM_THUMB_MULL;
    } else if (op == 4 || op == 6) {
        t->op = ETM_THUMB_MLAL;
    } else {
        t->op = ETM_THUMB_UNDEF;
    }
}

/* h1 is E800-FFFF: hw1[12:11] op1 != 00 (A5.3). */
static THUMB_INLINE void decode32(uint32_t addr, uint32_t h1, uint32_t h2, etm_thumb_insn_t *t)
{
    if (h1 >= 0xF800u) {
        if (h1 < 0xFA00u) {
            single32(h1, h2, t); /* load/store single */
        } else if (h1 < 0xFC00u) {
            if (h1 & 0x100u)
                multiply32(h1, h2, t); /* FB00-FBFF: multiplies, divide */
            /* FA00-FAFF: data processing (register) */
        } else {
            coproc32(h1, t);
        }
    } else if (h1 >= 0xF000u) {
        if (h2 & 0x8000u)
            branch32(addr, h1, h2, t);
        /* else data processing (modified or plain immediate) */
    } else if (h1 < 0xEA00u) { /* E800-E9FF: load/store multiple, dual, exclusive, table branch */
        if (h1 & 0x40u)
            dual32(h1, h2, t);
        else
            multiple32(h1, h2, t);
        t->ls = (h1 & 0x10u) ? ETM_THUMB_LS_LOAD : ETM_THUMB_LS_STORE;
    } else if (h1 >= 0xEC00u) {
        coproc32(h1, t);
    }
    /* EA00-EBFF: data processing (shifted register) */
}

/* Both entry points end here; returns size. */
static THUMB_INLINE unsigned decode(uint32_t addr, uint32_t opcode, unsigned size, etm_thumb_insn_t *t)
{
    static const etm_thumb_insn_t zero = { 0, 0, 0, ETM_THUMB_ALU, ETM_THUMB_BR_NONE, 0, 0, 0, 14, 0, 0,
                                           ETM_THUMB_LS_NONE, 0, 0 };
    *t = zero;
    t->opcode = opcode;
    t->size = (uint8_t)size;
    if (size == 2)
        decode16(addr, opcode & 0xFFFFu, t);
    else if (size == 4 && etm_thumb_size(opcode >> 16) == 4)
        decode32(addr, (opcode >> 16) & 0xFFFFu, opcode & 0xFFFFu, t);
    else
        t->op = ETM_THUMB_UNDEF;
    return size;
}

void etm_thumb_decode(uint32_t addr, uint32_t opcode, unsigned size, etm_thumb_insn_t *t)
{
    decode(addr, opcode, size, t);
}

unsigned etm_thumb_decode_bytes(uint32_t addr, const uint8_t *b, unsigned n, etm_thumb_insn_t *t)
{
    if (n < 2)
        return 0;
    uint32_t opcode = (uint32_t)b[0] | ((uint32_t)b[1] << 8);
    if (etm_thumb_size(opcode) == 2)
        return decode(addr, opcode, 2, t);
    if (n < 4)
        return 0;
    opcode = (opcode << 16) | (uint32_t)b[2] | ((uint32_t)b[3] << 8);
    return decode(addr, opcode, 4, t);
}

const char *etm_thumb_op_name(etm_thumb_op_t op)
{
    static const char *const names[ETM_THUMB_OP_COUNT] = {
        "undef", "alu",   "mul", "mla",  "mull", "mlal",   "div",     "load",    "store",  "ldrex",
        "strex", "ldrd",  "strd", "ldm", "stm",  "pop",    "push",    "preload", "tb",     "b",
        "bcond", "bl",    "blx_imm", "cbz", "bx", "blx",   "it",      "svc",     "bkpt",   "hint",
        "barrier", "isb", "sysreg", "coproc", "eret", "bxj", "rfe",   "srs",
    };
    return (unsigned)op < ETM_THUMB_OP_COUNT ? names[op] : "?";
}
