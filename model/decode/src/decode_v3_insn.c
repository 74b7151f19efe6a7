/* decode_v3_insn.c - the ETMv3 decoder's instruction classifier (A32, T32) and
 * the names of instruction sets and exceptions (etm/decode_v3.h).
 *
 * The trace layer (decode_v3_trace.c) follows the code with it; the ARM ARM
 * section each encoding comes from is named beside it.
 */
#include "etm/decode_v3.h"

#include <stdio.h>
#include <string.h>

#include "decode_v3_int.h"

static uint32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    return (v ^ m) - m;
}

const char *etm_v3_isa_name(etm_v3_isa_t isa)
{
    switch (isa) {
    case ETM_V3_ISA_ARM: return "A32";
    case ETM_V3_ISA_THUMB: return "T32";
    case ETM_V3_ISA_THUMBEE: return "TEE";
    case ETM_V3_ISA_JAZELLE: return "JAZ";
    }
    return "?";
}

/* =========================================================================== */
/* Instruction classifier                                                      */
/* =========================================================================== */

/* 16-bit Thumb (ARM ARM A6.2). */
static void classify_t16(uint32_t hw, uint32_t addr, etm_v3_insn_t *o)
{
    uint32_t pc = addr + 4;
    if ((hw & 0xF000u) == 0xD000u) {
        /* B<c> T1; cond 1110 is UDF, 1111 is SVC */
        if (((hw >> 8) & 0xFu) < 0xEu) {
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + sext((hw & 0xFFu) << 1, 9);
        }
    } else if ((hw & 0xF800u) == 0xE000u) {
        o->branch = ETM_V3_BR_DIRECT; /* B T2 */
        o->target = pc + sext((hw & 0x7FFu) << 1, 12);
    } else if ((hw & 0xF500u) == 0xB100u) {
        o->branch = ETM_V3_BR_DIRECT; /* CBZ, CBNZ: forward only */
        o->target = pc + ((((hw >> 9) & 1u) << 6) | (((hw >> 3) & 0x1Fu) << 1));
    } else if ((hw & 0xFF00u) == 0x4700u) {
        o->branch = ETM_V3_BR_INDIRECT; /* BX Rm, BLX Rm */
        o->is_link = (int)((hw >> 7) & 1u);
    } else if ((hw & 0xFF00u) == 0x4400u || (hw & 0xFF00u) == 0x4600u) {
        /* ADD Rdn,Rm / MOV Rd,Rm with high registers: Rd = D:Rd */
        if (((hw & 7u) | ((hw >> 4) & 8u)) == 15u)
            o->branch = ETM_V3_BR_INDIRECT;
    } else if ((hw & 0xFF00u) == 0xBD00u) {
        o->branch = ETM_V3_BR_INDIRECT; /* POP {..., PC} */
    } else if ((hw & 0xFF00u) == 0xBF00u && (hw & 0xFu) != 0) {
        o->is_it = 1; /* IT: an instruction of its own in the trace */
    }
}

/* 32-bit Thumb (ARM ARM A6.3). */
static void classify_t32(uint32_t hw1, uint32_t hw2, uint32_t addr, etm_v3_insn_t *o)
{
    uint32_t pc = addr + 4;
    if ((hw1 & 0xF800u) == 0xF000u && (hw2 & 0x8000u)) {
        /* Branches and miscellaneous control (A6.3.4) */
        uint32_t s = (hw1 >> 10) & 1u, j1 = (hw2 >> 13) & 1u, j2 = (hw2 >> 11) & 1u;
        uint32_t i1 = ~(j1 ^ s) & 1u, i2 = ~(j2 ^ s) & 1u;
        uint32_t op = hw2 & 0x5000u;
        if (op == 0x1000u || op == 0x5000u) {
            /* B.W T4, BL */
            uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | ((hw2 & 0x7FFu) << 1);
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + sext(imm, 25);
            o->is_link = op == 0x5000u;
        } else if (op == 0x4000u) {
            /* BLX imm: to A32, target word-aligned */
            uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | (((hw2 >> 1) & 0x3FFu) << 2);
            o->branch = ETM_V3_BR_DIRECT;
            o->target = (pc & ~3u) + sext(imm, 25);
            o->target_isa = ETM_V3_ISA_ARM;
            o->is_link = 1;
        } else if (((hw1 >> 6) & 0xEu) != 0xEu) {
            /* B<c>.W T3 */
            uint32_t imm = (s << 20) | (j2 << 19) | (j1 << 18) | ((hw1 & 0x3Fu) << 12) | ((hw2 & 0x7FFu) << 1);
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + sext(imm, 21);
        } else if (hw1 == 0xF3DEu && (hw2 & 0xFF00u) == 0x8F00u) {
            o->branch = ETM_V3_BR_INDIRECT; /* SUBS PC, LR, #imm (and ERET) */
        } else if ((hw1 & 0xFFF0u) == 0xF3C0u && hw2 == 0x8F00u) {
            o->branch = ETM_V3_BR_INDIRECT; /* BXJ */
        }
        /* everything else here (MSR, MRS, hints, barriers, SMC, HVC, UDF) falls through */
    } else if ((hw1 & 0xFE00u) == 0xE800u) {
        /* Load/store multiple, dual, exclusive, table branch (A6.3.5, A6.3.6) */
        if ((hw1 & 0x0040u) == 0) {
            uint32_t op = (hw1 >> 7) & 3u, load = (hw1 >> 4) & 1u;
            if (op == 1u || op == 2u) {
                if (load && (hw2 & 0x8000u))
                    o->branch = ETM_V3_BR_INDIRECT; /* LDM, LDMDB, POP.W with PC */
            } else if (load) {
                o->branch = ETM_V3_BR_INDIRECT; /* RFE */
            }
        } else if ((hw1 & 0xFFF0u) == 0xE8D0u && (hw2 & 0xFFE0u) == 0xF000u) {
            o->branch = ETM_V3_BR_INDIRECT; /* TBB, TBH */
        }
    } else if ((hw1 & 0xFF70u) == 0xF850u && (hw2 >> 12) == 15u) {
        o->branch = ETM_V3_BR_INDIRECT; /* LDR PC (immediate, register, literal) */
    }
}

/* A32 (ARM ARM A5). */
static void classify_a32(uint32_t w, uint32_t addr, etm_v3_insn_t *o)
{
    uint32_t pc = addr + 8;
    if ((w >> 28) == 0xFu) {
        if ((w & 0xFE000000u) == 0xFA000000u) {
            /* BLX imm: to T32 */
            o->branch = ETM_V3_BR_DIRECT;
            o->target = pc + (sext((w & 0xFFFFFFu) << 2, 26) | (((w >> 24) & 1u) << 1));
            o->target_isa = ETM_V3_ISA_THUMB;
            o->is_link = 1;
        } else if ((w & 0xFE500000u) == 0xF8100000u) {
            o->branch = ETM_V3_BR_INDIRECT; /* RFE */
        }
        return;
    }
    if ((w & 0x0E000000u) == 0x0A000000u) {
        o->branch = ETM_V3_BR_DIRECT; /* B, BL */
        o->target = pc + sext((w & 0xFFFFFFu) << 2, 26);
        o->is_link = (int)((w >> 24) & 1u);
    } else if ((w & 0x0FFFFFD0u) == 0x012FFF10u) {
        o->branch = ETM_V3_BR_INDIRECT; /* BX, BLX register */
        o->is_link = (int)((w >> 5) & 1u);
    } else if ((w & 0x0FFFFFF0u) == 0x012FFF20u) {
        o->branch = ETM_V3_BR_INDIRECT; /* BXJ */
    } else if ((w & 0x0E108000u) == 0x08108000u) {
        o->branch = ETM_V3_BR_INDIRECT; /* LDM with PC in the list */
    } else if ((w & 0x0C500000u) == 0x04100000u && ((w >> 12) & 0xFu) == 15u &&
               (w & 0x02000010u) != 0x02000010u) {
        o->branch = ETM_V3_BR_INDIRECT; /* LDR PC (not the media space) */
    } else if ((w & 0x0C000000u) == 0) {
        uint32_t op = (w >> 21) & 0xFu;
        int is_test = op >= 8u && op <= 11u; /* TST TEQ CMP CMN, or misc when S=0 */
        if ((w & 0x02000090u) == 0x00000090u)
            return; /* multiplies, extra loads/stores */
        if (!is_test && ((w >> 12) & 0xFu) == 15u)
            o->branch = ETM_V3_BR_INDIRECT; /* data processing to PC (MOV PC, SUBS PC,LR, ...) */
    }
}

/* Loads and stores of memory (ARM ARM A6.2.4, A6.3.5-A6.3.11, A5.3, A5.5). PLD
 * and PLI count as loads; coprocessor register transfers (MCR, MRC) do not
 * touch memory and are not data instructions here. */
static int ls_t16(uint32_t hw)
{
    if ((hw & 0xF800u) == 0x4800u)
        return ETM_V3_LS_LOAD; /* LDR (literal) */
    if ((hw & 0xF000u) == 0x5000u)
        return ((hw >> 9) & 7u) >= 3u ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* register offset */
    if ((hw & 0xE000u) == 0x6000u || (hw & 0xF000u) == 0x8000u || (hw & 0xF000u) == 0x9000u ||
        (hw & 0xF000u) == 0xC000u)
        return (hw & 0x0800u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* immediate, SP-relative, LDM/STM */
    if ((hw & 0xFE00u) == 0xB400u)
        return ETM_V3_LS_STORE; /* PUSH */
    if ((hw & 0xFE00u) == 0xBC00u)
        return ETM_V3_LS_LOAD; /* POP */
    return ETM_V3_LS_NONE;
}

static int ls_t32(uint32_t hw1)
{
    if ((hw1 & 0xEE00u) == 0xEC00u && (hw1 & 0xEFE0u) == 0xEC40u)
        return ETM_V3_LS_NONE; /* MCRR, MRRC */
    if ((hw1 & 0xFE00u) == 0xE800u || (hw1 & 0xFE00u) == 0xF800u || (hw1 & 0xEE00u) == 0xEC00u)
        return (hw1 & 0x0010u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* multiple, dual, exclusive, single, LDC/STC */
    return ETM_V3_LS_NONE;
}

static int ls_a32(uint32_t w)
{
    if ((w >> 28) == 0xFu)
        return ETM_V3_LS_NONE;
    if ((w & 0x0FB00FF0u) == 0x01000090u)
        return ETM_V3_LS_SWAP; /* SWP, SWPB */
    if ((w & 0x0C000000u) == 0x04000000u && (w & 0x02000010u) != 0x02000010u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDR, STR, LDRB, STRB */
    if ((w & 0x0E000000u) == 0x08000000u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDM, STM */
    if ((w & 0x0E000090u) == 0x00000090u && (w & 0x60u)) { /* halfword, signed byte, dual */
        if (w & 0x00100000u)
            return ETM_V3_LS_LOAD;
        return (w & 0x60u) == 0x40u ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDRD has L=0 */
    }
    if ((w & 0x0F8000F0u) == 0x01800090u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDREX, STREX */
    if ((w & 0x0E000000u) == 0x0C000000u && (w & 0x0FE00000u) != 0x0C400000u)
        return (w & 0x00100000u) ? ETM_V3_LS_LOAD : ETM_V3_LS_STORE; /* LDC, STC */
    return ETM_V3_LS_NONE;
}

int etm_v3_insn_classify(etm_v3_isa_t isa, uint32_t addr, const uint8_t *b, unsigned n, etm_v3_insn_t *out)
{
    memset(out, 0, sizeof *out);
    out->target_isa = isa;
    if (isa == ETM_V3_ISA_JAZELLE)
        return -1;
    if (isa == ETM_V3_ISA_ARM) {
        if (n < 4)
            return 1;
        out->size = 4;
        out->opcode = dv3_le32(b);
        classify_a32(out->opcode, addr, out);
        out->ls = ls_a32(out->opcode);
        return 0;
    }
    if (n < 2)
        return 1;
    uint32_t hw1 = dv3_le16(b);
    if ((hw1 >> 11) >= 0x1Du) {
        if (n < 4)
            return 1;
        uint32_t hw2 = dv3_le16(b + 2);
        out->size = 4;
        out->opcode = (hw1 << 16) | hw2;
        classify_t32(hw1, hw2, addr, out);
        out->ls = ls_t32(hw1);
    } else {
        out->size = 2;
        out->opcode = hw1;
        classify_t16(hw1, addr, out);
        out->ls = ls_t16(hw1);
    }
    return 0;
}

/* ---- Exception names ----------------------------------------------------------- */

const char *etm_v3_exception_name(unsigned number, int v7m, char *buf, size_t size)
{
    /* ARMv7-M traced numbers (Cortex-M3 TRM table "exception tracing mapping") */
    static const char *const m_names[24] = {
        "none",      "IRQ1",     "IRQ2",  "IRQ3",     "IRQ4",      "IRQ5",   "IRQ6",     "IRQ7",
        "IRQ0",      "UsageFault", "NMI", "SVC",      "DebugMon",  "MemManage", "PendSV", "SysTick",
        "reserved16", "Reset",   "reserved18", "HardFault", "reserved20", "BusFault", "reserved22", "reserved23",
    };
    /* ARMv7-A/R (IHI 0014 exception information byte 0) */
    static const char *const ar_names[16] = {
        "none",  "DebugHalt", "SMC",       "Hyp",       "AsyncDataAbort", "Jazelle", "reserved6", "reserved7",
        "Reset", "Undef",     "SVC",       "PrefetchAbort", "DataAbort", "Generic", "IRQ",       "FIQ",
    };
    if (!buf || size == 0)
        return "";
    if (v7m) {
        if (number < 24)
            snprintf(buf, size, "%s", m_names[number]);
        else
            snprintf(buf, size, "IRQ%u", number - 16);
    } else if (number < 16) {
        snprintf(buf, size, "%s", ar_names[number]);
    } else {
        snprintf(buf, size, "exception%u", number);
    }
    return buf;
}
