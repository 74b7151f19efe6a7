/* cm3_classify.c - the Cortex-M3 timing model's instruction classifier
 * (etm/cm3.h): the timing kind of an instruction and where it goes, from the
 * project's Thumb-2 decoder (etm/thumb.h); which registers it writes and which
 * form its address, the timing model's own question, here; and condition codes.
 */
#include "etm/cm3.h"

#include <string.h>

#include "etm/thumb.h"

/* ---- Classifier: the kind from etm/thumb.h, the registers here ------------- */

static const char *const kind_names[ETM_CM3_K_COUNT] = {
    "alu", "mul", "mla", "mull", "mlal", "div", "load", "store", "ldrd", "strd", "ldm", "stm", "bcond", "b",
    "bl", "cbz", "bx", "blx", "tb", "it", "svc", "bkpt", "hint", "barrier", "sysreg", "undef"
};

const char *etm_cm3_kind_name(etm_cm3_kind_t k)
{
    return (unsigned)k < ETM_CM3_K_COUNT ? kind_names[k] : "?";
}

/* The timing kind of a decoded instruction. The Cortex-M3 has no coprocessor
 * and none of the ARMv7-A/R instructions. */
static etm_cm3_kind_t kind_of(const etm_thumb_insn_t *t)
{
    if (t->ar_only)
        return ETM_CM3_K_UNDEF;
    switch ((etm_thumb_op_t)t->op) {
    case ETM_THUMB_ALU: return ETM_CM3_K_ALU;
    case ETM_THUMB_MUL: return ETM_CM3_K_MUL;
    case ETM_THUMB_MLA: return ETM_CM3_K_MLA;
    case ETM_THUMB_MULL: return ETM_CM3_K_MULL;
    case ETM_THUMB_MLAL: return ETM_CM3_K_MLAL;
    case ETM_THUMB_DIV: return ETM_CM3_K_DIV;
    case ETM_THUMB_LOAD:
    case ETM_THUMB_LDREX: return ETM_CM3_K_LOAD;
    case ETM_THUMB_STORE:
    case ETM_THUMB_STREX: return ETM_CM3_K_STORE;
    case ETM_THUMB_LDRD: return ETM_CM3_K_LDRD;
    case ETM_THUMB_STRD: return ETM_CM3_K_STRD;
    case ETM_THUMB_LDM:
    case ETM_THUMB_POP: return ETM_CM3_K_LDM;
    case ETM_THUMB_STM:
    case ETM_THUMB_PUSH: return ETM_CM3_K_STM;
    case ETM_THUMB_TB: return ETM_CM3_K_TB;
    case ETM_THUMB_B: return ETM_CM3_K_B;
    case ETM_THUMB_BCOND: return ETM_CM3_K_BCOND;
    case ETM_THUMB_BL: return ETM_CM3_K_BL;
    case ETM_THUMB_CBZ: return ETM_CM3_K_CBZ;
    case ETM_THUMB_BX: return ETM_CM3_K_BX;
    case ETM_THUMB_BLX: return ETM_CM3_K_BLX;
    case ETM_THUMB_IT: return ETM_CM3_K_IT;
    case ETM_THUMB_SVC: return ETM_CM3_K_SVC;
    case ETM_THUMB_BKPT: return ETM_CM3_K_BKPT;
    case ETM_THUMB_PRELOAD:
    case ETM_THUMB_HINT: return ETM_CM3_K_HINT;
    case ETM_THUMB_BARRIER:
    case ETM_THUMB_ISB: return ETM_CM3_K_BARRIER;
    case ETM_THUMB_SYSREG: return ETM_CM3_K_SYSREG;
    default: return ETM_CM3_K_UNDEF; /* coprocessor, UNDEFINED */
    }
}

static uint16_t bit(unsigned r) { return (uint16_t)(1u << (r & 15)); }

/* Registers a 16-bit instruction writes (other than the PC and the link) and
 * those that form its address (A5.2). */
static void regs16(unsigned h, etm_cm3_class_t *c)
{
    unsigned rd8 = (h >> 8) & 7, rlo = h & 7, op;
    switch (h >> 12) {
    case 0x0: case 0x1: case 0x2: case 0x3: /* shift (immediate), add, subtract, move, compare */
        op = (h >> 11) & 7;
        if (op <= 3)
            c->writes = bit(rlo);
        else if (op != 5) /* MOV, ADD, SUB imm8; CMP writes nothing */
            c->writes = bit(rd8);
        break;
    case 0x4:
        op = (h >> 6) & 15;
        if ((h >> 10) == 0x10) { /* data processing, two low registers */
            if (op != 8 && op != 10 && op != 11) /* TST, CMP, CMN */
                c->writes = bit(rlo);
        } else if ((h >> 10) == 0x11) { /* special data processing, branch and exchange */
            if (op < 4 || (op >= 8 && op < 12)) /* ADD, MOV: Rd = D:Rd */
                c->writes = bit(((h >> 4) & 8) | rlo);
        } else { /* LDR (literal) */
            c->writes = bit(rd8);
        }
        break;
    case 0x5: /* load/store, register offset */
        c->addr_regs = (uint16_t)(bit((h >> 3) & 7) | bit((h >> 6) & 7));
        if (((h >> 9) & 7) < 3)
            c->reg_offset = 1;
        else
            c->writes = bit(rlo);
        break;
    case 0x6: case 0x7: case 0x8: /* STR/LDR(B) imm5, STRH/LDRH imm5 */
        c->addr_regs = bit((h >> 3) & 7);
        if (h & 0x800)
            c->writes = bit(rlo);
        break;
    case 0x9: /* STR/LDR sp-relative */
        c->addr_regs = bit(13);
        if (h & 0x800)
            c->writes = bit(rd8);
        break;
    case 0xA: /* ADR, ADD Rd, sp, #imm */
        c->writes = bit(rd8);
        break;
    case 0xB: /* miscellaneous */
        if ((h & 0xFF00) == 0xB000) {
            c->writes = bit(13);
        } else if ((h & 0xFF00) == 0xB200 || (h & 0xFF00) == 0xBA00) { /* extend, reverse */
            c->writes = bit(rlo);
        } else if (c->kind == ETM_CM3_K_STM || c->kind == ETM_CM3_K_LDM) { /* PUSH, POP */
            c->addr_regs = bit(13);
            c->writes = (uint16_t)((c->kind == ETM_CM3_K_LDM ? h & 0xff : 0) | bit(13));
        }
        break;
    case 0xC: { /* STM, LDM: writeback unless a load of the base */
        unsigned list = h & 0xff;
        int load = (h >> 11) & 1;
        c->addr_regs = bit(rd8);
        c->writes = load ? (uint16_t)list : 0;
        if (!load || !(list & (1u << rd8)))
            c->writes |= bit(rd8);
        break;
    }
    default: /* branches, SVC */
        break;
    }
}

/* TST, TEQ, CMN, CMP (data processing opcodes 0, 4, 8, 13 with Rd = 15 and S = 1) write nothing. */
static int dp_is_test(unsigned op, unsigned rd, unsigned s)
{
    return rd == 15 && s && (op == 0 || op == 4 || op == 8 || op == 13);
}

/* Load/store single (32-bit): the base unless pc (literal), the offset
 * register, writeback of imm8 forms. */
static void regs32_single(unsigned h1, unsigned h2, int load, etm_cm3_class_t *c)
{
    unsigned rn = h1 & 15;
    if (load)
        c->writes = bit(h2 >> 12);
    if (rn == 15)
        return;
    c->addr_regs = bit(rn);
    if (h1 & 0x80)
        return;
    if (!(h2 & 0x0FC0)) { /* register offset */
        c->addr_regs |= bit(h2 & 15);
        c->reg_offset = !load;
    } else if ((h2 & 0x0900) == 0x0900) { /* imm8 with writeback */
        c->writes |= bit(rn);
    }
}

/* Registers a 32-bit instruction writes (other than the PC and the link) and
 * those that form its address (A5.3), by the kind etm/thumb.h gave it. */
static void regs32(const etm_thumb_insn_t *t, unsigned h1, unsigned h2, etm_cm3_class_t *c)
{
    unsigned rn = h1 & 15, rd = (h2 >> 8) & 15, rt = h2 >> 12, w = (h1 >> 5) & 1;
    int load = (h1 >> 4) & 1;
    switch ((etm_thumb_op_t)t->op) {
    case ETM_THUMB_LDM: case ETM_THUMB_STM: case ETM_THUMB_POP: case ETM_THUMB_PUSH:
        c->addr_regs = bit(rn);
        c->writes = (uint16_t)((load ? h2 : 0) | (w ? bit(rn) : 0));
        break;
    case ETM_THUMB_LDRD: case ETM_THUMB_STRD:
        c->addr_regs = bit(rn);
        c->writes = (uint16_t)((load ? bit(rt) | bit(rd) : 0) | (w ? bit(rn) : 0));
        break;
    case ETM_THUMB_LDREX: case ETM_THUMB_STREX: /* STREX: Rd = hw2[11:8]; STREXB/H: hw2[3:0] */
        c->addr_regs = bit(rn);
        c->writes = load ? bit(rt) : (h1 & 0x80) ? bit(h2 & 15) : bit(rd);
        break;
    case ETM_THUMB_TB:
        c->addr_regs = (uint16_t)(bit(rn) | bit(h2 & 15));
        break;
    case ETM_THUMB_LOAD: case ETM_THUMB_STORE:
        regs32_single(h1, h2, load, c);
        break;
    case ETM_THUMB_ALU:
        if ((h1 & 0xFE00) == 0xEA00 || ((h1 & 0xF800) == 0xF000 && !(h1 & 0x0200))) { /* shifted register; modified immediate */
            if (!dp_is_test((h1 >> 5) & 15, rd, (h1 >> 4) & 1))
                c->writes = bit(rd);
        } else { /* plain binary immediate; register */
            c->writes = bit(rd);
        }
        break;
    case ETM_THUMB_SYSREG:
        if ((h1 & 0xFFE0) == 0xF3E0) /* MRS */
            c->writes = bit(rd);
        break;
    case ETM_THUMB_MUL: case ETM_THUMB_MLA: case ETM_THUMB_DIV:
        c->writes = bit(rd);
        break;
    case ETM_THUMB_MULL: case ETM_THUMB_MLAL:
        c->writes = (uint16_t)(bit(rt) | bit(rd));
        break;
    default: /* branches, hints, barriers */
        break;
    }
}

void etm_cm3_classify(uint32_t addr, uint32_t opcode, unsigned size, etm_cm3_class_t *c)
{
    etm_thumb_insn_t t;
    memset(c, 0, sizeof *c);
    etm_thumb_decode(addr, opcode, size, &t);
    c->kind = kind_of(&t);
    c->size = size;
    c->cond = t.cond;
    if (c->kind == ETM_CM3_K_UNDEF)
        return;
    c->nregs = t.nregs;
    c->it_firstcond = t.it_firstcond;
    c->it_mask = t.it_mask;
    c->wide_hint = t.op == ETM_THUMB_ISB;
    if (size == 2)
        regs16(opcode & 0xffff, c);
    else
        regs32(&t, (opcode >> 16) & 0xffff, opcode & 0xffff, c);
    if (t.branch != ETM_THUMB_BR_NONE) {
        c->writes_pc = 1;
        c->indirect = t.branch == ETM_THUMB_BR_INDIRECT;
        c->target = c->indirect ? 0 : t.target;
        c->writes |= bit(15);
    }
    if (t.link)
        c->writes |= bit(14);
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
