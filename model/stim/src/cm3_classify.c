/* cm3_classify.c - the Cortex-M3 timing model's instruction classifier
 * (etm/cm3.h): what kind of instruction an opcode is, which registers it writes
 * and reads for an address, where a direct branch goes; and condition codes.
 */
#include "etm/cm3.h"

#include <string.h>

/* ---- Classifier (ARMv7-M ARM, A5.2 16-bit and A5.3 32-bit encodings) -------- */

static const char *const kind_names[ETM_CM3_K_COUNT] = {
    "alu", "mul", "mla", "mull", "mlal", "div", "load", "store", "ldrd", "strd", "ldm", "stm", "bcond", "b",
    "bl", "cbz", "bx", "blx", "tb", "it", "svc", "bkpt", "hint", "barrier", "sysreg", "undef"
};

const char *etm_cm3_kind_name(etm_cm3_kind_t k)
{
    return (unsigned)k < ETM_CM3_K_COUNT ? kind_names[k] : "?";
}

static unsigned popcount16(unsigned v)
{
    unsigned n = 0;
    for (v &= 0xffffu; v; v &= v - 1)
        n++;
    return n;
}

static uint16_t bit(unsigned r) { return (uint16_t)(1u << (r & 15)); }

static void set_branch(etm_cm3_class_t *c, etm_cm3_kind_t k, int indirect, uint32_t target)
{
    c->kind = k;
    c->writes_pc = 1;
    c->indirect = indirect;
    c->target = indirect ? 0 : target;
    c->writes |= bit(15);
}

static void classify16(uint32_t addr, unsigned h, etm_cm3_class_t *c)
{
    unsigned rd8 = (h >> 8) & 7, rlo = h & 7;
    if ((h >> 14) == 0) { /* shift (immediate), add, subtract, move, compare */
        unsigned op = (h >> 11) & 7;
        if (op <= 3)
            c->writes = bit(rlo);
        else if (op != 5) /* MOV, ADD, SUB imm8; CMP writes nothing */
            c->writes = bit(rd8);
    } else if ((h >> 10) == 0x10) { /* data processing, two low registers */
        unsigned op = (h >> 6) & 15;
        if (op != 8 && op != 10 && op != 11) /* TST, CMP, CMN */
            c->writes = bit(rlo);
        if (op == 13)
            c->kind = ETM_CM3_K_MUL;
    } else if ((h >> 10) == 0x11) { /* special data processing, branch and exchange */
        unsigned op = (h >> 6) & 15, rd = ((h >> 4) & 8) | rlo;
        if (op >= 14) {
            set_branch(c, ETM_CM3_K_BLX, 1, 0);
            c->writes |= bit(14);
        } else if (op >= 12) {
            set_branch(c, ETM_CM3_K_BX, 1, 0);
        } else if (op < 4 || op >= 8) { /* ADD, MOV */
            c->writes = bit(rd);
            if (rd == 15)
                set_branch(c, ETM_CM3_K_ALU, 1, 0);
        }
    } else if ((h >> 11) == 0x09) { /* LDR (literal) */
        c->kind = ETM_CM3_K_LOAD;
        c->writes = bit(rd8);
    } else if ((h >> 12) == 0x5) { /* load/store, register offset */
        unsigned op = (h >> 9) & 7;
        c->kind = op < 3 ? ETM_CM3_K_STORE : ETM_CM3_K_LOAD;
        c->addr_regs = (uint16_t)(bit((h >> 3) & 7) | bit((h >> 6) & 7));
        if (op < 3)
            c->reg_offset = 1;
        else
            c->writes = bit(rlo);
    } else if ((h >> 13) == 0x3 || (h >> 12) == 0x8) { /* STR/LDR(B) imm5, STRH/LDRH imm5 */
        int load = (h >> 11) & 1;
        c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
        c->addr_regs = bit((h >> 3) & 7);
        if (load)
            c->writes = bit(rlo);
    } else if ((h >> 12) == 0x9) { /* STR/LDR SP-relative */
        int load = (h >> 11) & 1;
        c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
        c->addr_regs = bit(13);
        if (load)
            c->writes = bit(rd8);
    } else if ((h >> 12) == 0xA) { /* ADR, ADD Rd, SP, #imm */
        c->writes = bit(rd8);
    } else if ((h >> 12) == 0xB) { /* miscellaneous */
        if ((h & 0xFF00) == 0xB000) {
            c->writes = bit(13);
        } else if ((h & 0xF500) == 0xB100) {
            uint32_t off = ((h >> 9) & 1u) << 6 | ((h >> 3) & 0x1fu) << 1;
            set_branch(c, ETM_CM3_K_CBZ, 0, addr + 4 + off);
        } else if ((h & 0xFF00) == 0xB200 || (h & 0xFF00) == 0xBA00) { /* extend, reverse */
            c->writes = bit(rlo);
        } else if ((h & 0xFE00) == 0xB400) { /* PUSH */
            c->kind = ETM_CM3_K_STM;
            c->nregs = popcount16(h & 0xff) + ((h >> 8) & 1);
            c->addr_regs = bit(13);
            c->writes = bit(13);
        } else if ((h & 0xFFE0) == 0xB660) { /* CPS */
            c->kind = ETM_CM3_K_SYSREG;
        } else if ((h & 0xFE00) == 0xBC00) { /* POP */
            c->kind = ETM_CM3_K_LDM;
            c->nregs = popcount16(h & 0xff) + ((h >> 8) & 1);
            c->addr_regs = bit(13);
            c->writes = (uint16_t)((h & 0xff) | bit(13));
            if (h & 0x100)
                set_branch(c, ETM_CM3_K_LDM, 1, 0);
        } else if ((h & 0xFF00) == 0xBE00) {
            c->kind = ETM_CM3_K_BKPT;
        } else if ((h & 0xFF00) == 0xBF00) {
            if (h & 0xf) {
                c->kind = ETM_CM3_K_IT;
                c->it_firstcond = (h >> 4) & 15;
                c->it_mask = h & 15;
            } else {
                c->kind = ETM_CM3_K_HINT;
            }
        } else {
            c->kind = ETM_CM3_K_UNDEF;
        }
    } else if ((h >> 12) == 0xC) { /* STM, LDM */
        unsigned rn = rd8, list = h & 0xff;
        int load = (h >> 11) & 1;
        c->kind = load ? ETM_CM3_K_LDM : ETM_CM3_K_STM;
        c->nregs = popcount16(list);
        c->addr_regs = bit(rn);
        c->writes = load ? (uint16_t)list : 0;
        if (!load || !(list & (1u << rn)))
            c->writes |= bit(rn);
    } else if ((h >> 12) == 0xD) { /* B<c>, SVC, UDF */
        unsigned cond = (h >> 8) & 15;
        if (cond == 15) {
            c->kind = ETM_CM3_K_SVC;
        } else if (cond == 14) {
            c->kind = ETM_CM3_K_UNDEF;
        } else {
            int32_t off = (int32_t)(int8_t)(h & 0xff) * 2;
            set_branch(c, ETM_CM3_K_BCOND, 0, addr + 4 + (uint32_t)off);
            c->cond = cond;
        }
    } else if ((h >> 11) == 0x1C) { /* B */
        int32_t off = (int32_t)(h & 0x7ff);
        if (off & 0x400)
            off -= 0x800;
        set_branch(c, ETM_CM3_K_B, 0, addr + 4 + (uint32_t)(off * 2));
    } else {
        c->kind = ETM_CM3_K_UNDEF;
    }
}

/* B.W (T4) and BL: S:I1:I2:imm10:imm11:'0', I1 = NOT(J1 XOR S), I2 = NOT(J2 XOR S). */
static uint32_t target_t4(uint32_t addr, unsigned h1, unsigned h2)
{
    unsigned s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
    unsigned i1 = (~(j1 ^ s)) & 1, i2 = (~(j2 ^ s)) & 1;
    uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(h1 & 0x3ff) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
    if (s)
        imm |= 0xFE000000u;
    return addr + 4 + imm;
}

/* B<c>.W (T3): S:J2:J1:imm6:imm11:'0'. */
static uint32_t target_t3(uint32_t addr, unsigned h1, unsigned h2)
{
    unsigned s = (h1 >> 10) & 1, j1 = (h2 >> 13) & 1, j2 = (h2 >> 11) & 1;
    uint32_t imm = s << 20 | j2 << 19 | j1 << 18 | (uint32_t)(h1 & 0x3f) << 12 | (uint32_t)(h2 & 0x7ff) << 1;
    if (s)
        imm |= 0xFFE00000u;
    return addr + 4 + imm;
}

/* TST, TEQ, CMN, CMP (data processing opcodes 0, 4, 8, 13 with Rd = 15 and S = 1) write nothing. */
static int dp_is_test(unsigned op, unsigned rd, unsigned s)
{
    return rd == 15 && s && (op == 0 || op == 4 || op == 8 || op == 13);
}

/* 32-bit, op1 = 01: load/store multiple, dual, exclusive, table branch; data
 * processing (shifted register); coprocessor. */
static void classify32_op1(unsigned h1, unsigned h2, etm_cm3_class_t *c)
{
    unsigned rn = h1 & 15, rd = (h2 >> 8) & 15, rt = h2 >> 12;
    if ((h1 & 0xFE40) == 0xE800) { /* load/store multiple */
        unsigned op = (h1 >> 7) & 3, w = (h1 >> 5) & 1, load = (h1 >> 4) & 1;
        if (op != 1 && op != 2) {
            c->kind = ETM_CM3_K_UNDEF;
            return;
        }
        c->kind = load ? ETM_CM3_K_LDM : ETM_CM3_K_STM;
        c->nregs = popcount16(h2);
        c->addr_regs = bit(rn);
        c->writes = (uint16_t)((load ? h2 : 0) | (w ? bit(rn) : 0));
        if (load && (h2 & 0x8000))
            set_branch(c, ETM_CM3_K_LDM, 1, 0);
    } else if ((h1 & 0xFE40) == 0xE840) { /* dual, exclusive, table branch */
        unsigned p = (h1 >> 8) & 1, u = (h1 >> 7) & 1, w = (h1 >> 5) & 1, load = (h1 >> 4) & 1;
        c->addr_regs = bit(rn);
        if (!p && !w) {
            unsigned op3 = (h2 >> 4) & 15;
            if (!u) { /* LDREX, STREX */
                c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
                c->writes = load ? bit(rt) : bit(rd);
            } else if (load && op3 <= 1) { /* TBB, TBH */
                set_branch(c, ETM_CM3_K_TB, 1, 0);
                c->addr_regs |= bit(h2 & 15);
            } else if (op3 == 4 || op3 == 5) { /* LDREXB/H, STREXB/H */
                c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
                c->writes = load ? bit(rt) : bit(h2 & 15);
            } else {
                c->kind = ETM_CM3_K_UNDEF;
            }
        } else { /* LDRD, STRD */
            c->kind = load ? ETM_CM3_K_LDRD : ETM_CM3_K_STRD;
            c->writes = (uint16_t)((load ? bit(rt) | bit(rd) : 0) | (w ? bit(rn) : 0));
        }
    } else if ((h1 & 0xFE00) == 0xEA00) { /* data processing, shifted register */
        if (!dp_is_test((h1 >> 5) & 15, rd, (h1 >> 4) & 1))
            c->writes = bit(rd);
    } else {
        c->kind = ETM_CM3_K_UNDEF; /* coprocessor */
    }
}

/* 32-bit, op1 = 10: data processing (immediate), branches and miscellaneous control. */
static void classify32_op2(uint32_t addr, unsigned h1, unsigned h2, etm_cm3_class_t *c)
{
    unsigned rd = (h2 >> 8) & 15;
    if (!(h2 & 0x8000)) { /* data processing, modified or plain immediate */
        if ((h1 & 0x0200) || !dp_is_test((h1 >> 5) & 15, rd, (h1 >> 4) & 1))
            c->writes = bit(rd);
        return;
    }
    unsigned t = h2 & 0xD000;
    if (t == 0x9000) {
        set_branch(c, ETM_CM3_K_B, 0, target_t4(addr, h1, h2));
    } else if (t == 0xD000) {
        set_branch(c, ETM_CM3_K_BL, 0, target_t4(addr, h1, h2));
        c->writes |= bit(14);
    } else if (t == 0x8000) {
        unsigned cond = (h1 >> 6) & 15;
        if ((cond & 0xE) != 0xE) {
            set_branch(c, ETM_CM3_K_BCOND, 0, target_t3(addr, h1, h2));
            c->cond = cond;
        } else if ((h1 & 0xFFE0) == 0xF380) { /* MSR */
            c->kind = ETM_CM3_K_SYSREG;
        } else if ((h1 & 0xFFF0) == 0xF3A0) { /* hints */
            c->kind = ETM_CM3_K_HINT;
        } else if ((h1 & 0xFFF0) == 0xF3B0) { /* CLREX, DSB, DMB, ISB */
            unsigned op = (h2 >> 4) & 15;
            c->kind = op >= 4 && op <= 6 ? ETM_CM3_K_BARRIER : ETM_CM3_K_HINT;
            c->wide_hint = op == 6;
        } else if ((h1 & 0xFFE0) == 0xF3E0) { /* MRS */
            c->kind = ETM_CM3_K_SYSREG;
            c->writes = bit(rd);
        } else {
            c->kind = ETM_CM3_K_UNDEF;
        }
    } else {
        c->kind = ETM_CM3_K_UNDEF; /* BLX (immediate) and UDF do not exist on ARMv7-M */
    }
}

/* 32-bit, op1 = 11: load/store single, data processing (register), multiply,
 * divide; coprocessor. */
static void classify32_op3(unsigned h1, unsigned h2, etm_cm3_class_t *c)
{
    unsigned rn = h1 & 15, rd = (h2 >> 8) & 15, rt = h2 >> 12;
    if ((h1 & 0xFF10) == 0xF800 || (h1 & 0xFE10) == 0xF810) { /* store single, load single */
        int load = (h1 >> 4) & 1;
        unsigned size = (h1 >> 5) & 3;
        if (size == 3 || (!load && (h1 & 0x0100))) {
            c->kind = ETM_CM3_K_UNDEF;
            return;
        }
        if (load && rt == 15 && size != 2) { /* PLD, PLI */
            c->kind = ETM_CM3_K_HINT;
            return;
        }
        c->kind = load ? ETM_CM3_K_LOAD : ETM_CM3_K_STORE;
        if (load)
            c->writes = bit(rt);
        if (rn != 15) {
            c->addr_regs = bit(rn);
            if (!(h1 & 0x80)) {
                if (!(h2 & 0x0FC0)) { /* register offset */
                    c->addr_regs |= bit(h2 & 15);
                    c->reg_offset = !load;
                } else if ((h2 & 0x0900) == 0x0900) { /* imm8 with writeback */
                    c->writes |= bit(rn);
                }
            }
        }
        if (load && rt == 15)
            set_branch(c, ETM_CM3_K_LOAD, 1, 0);
    } else if ((h1 & 0xFF00) == 0xFA00) { /* data processing, register */
        c->writes = bit(rd);
    } else if ((h1 & 0xFF80) == 0xFB00) { /* MUL, MLA, MLS */
        unsigned op = (h1 >> 4) & 7, op2 = (h2 >> 4) & 3;
        if (op == 0 && op2 == 0)
            c->kind = rt == 15 ? ETM_CM3_K_MUL : ETM_CM3_K_MLA;
        else if (op == 0 && op2 == 1)
            c->kind = ETM_CM3_K_MLA;
        else
            c->kind = ETM_CM3_K_UNDEF;
        c->writes = bit(rd);
    } else if ((h1 & 0xFF80) == 0xFB80) { /* long multiply, divide */
        unsigned op = (h1 >> 4) & 7;
        if (op == 1 || op == 3) {
            c->kind = ETM_CM3_K_DIV;
            c->writes = bit(rd);
        } else if (op == 0 || op == 2 || op == 4 || op == 6) {
            c->kind = op < 4 ? ETM_CM3_K_MULL : ETM_CM3_K_MLAL;
            c->writes = (uint16_t)(bit(rt) | bit(rd));
        } else {
            c->kind = ETM_CM3_K_UNDEF;
        }
    } else {
        c->kind = ETM_CM3_K_UNDEF; /* coprocessor */
    }
}

/* 32-bit (A5.3): by op1 = hw1[12:11]. */
static void classify32(uint32_t addr, unsigned h1, unsigned h2, etm_cm3_class_t *c)
{
    unsigned op1 = (h1 >> 11) & 3;
    if (op1 == 1) {
        classify32_op1(h1, h2, c);
        return;
    }
    if (op1 == 2) {
        classify32_op2(addr, h1, h2, c);
        return;
    }
    /* op1 == 3 */
    classify32_op3(h1, h2, c);
}

void etm_cm3_classify(uint32_t addr, uint32_t opcode, unsigned size, etm_cm3_class_t *c)
{
    memset(c, 0, sizeof *c);
    c->kind = ETM_CM3_K_ALU;
    c->size = size;
    c->cond = 14;
    if (size == 2)
        classify16(addr, opcode & 0xffff, c);
    else if (size == 4)
        classify32(addr, (opcode >> 16) & 0xffff, opcode & 0xffff, c);
    else
        c->kind = ETM_CM3_K_UNDEF;
}

int etm_cm3_cond_pass(unsigned cond, unsigned nzcv)
{
    unsigned n = (nzcv >> 3) & 1, z = (nzcv >> 2) & 1, cf = (nzcv >> 1) & 1, v = nzcv & 1;
    int r;
    switch ((cond >> 1) & 7) {
    case 0: r = z; break;            /* EQ / NE */
    case 1: r = cf; break;           /* CS / CC */
    case 2: r = n; break;            /* MI / PL */
    case 3: r = v; break;            /* VS / VC */
    case 4: r = cf && !z; break;     /* HI / LS */
    case 5: r = n == v; break;       /* GE / LT */
    case 6: r = n == v && !z; break; /* GT / LE */
    default: return 1;               /* AL (and 15, treated as always) */
    }
    return (cond & 1) ? !r : r;
}
