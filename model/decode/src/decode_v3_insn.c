/* decode_v3_insn.c - the ETMv3 decoder's instruction classifier (A32 here; T32
 * from the project's Thumb-2 decoder, etm/thumb.h) and the names of instruction
 * sets and exceptions (etm/decode_v3.h).
 *
 * The trace layer (decode_v3_trace.c) follows the code with it; the ARM ARM
 * section each encoding comes from is named beside it.
 */
#include "etm/decode_v3.h"

#include <stdio.h>
#include <string.h>

#include "decode_v3_int.h"
#include "etm/thumb.h"

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

/* Loads and stores of memory in A32 (ARM ARM A5.3, A5.5; T32: etm_thumb_insn_t.ls,
 * where PLD and PLI count as loads). Coprocessor register transfers (MCR, MRC)
 * do not touch memory and are not data instructions here. */
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
    static const etm_v3_brkind_t branch[3] = { ETM_V3_BR_NONE, ETM_V3_BR_DIRECT, ETM_V3_BR_INDIRECT };
    static const int ls[3] = { ETM_V3_LS_NONE, ETM_V3_LS_LOAD, ETM_V3_LS_STORE }; /* by etm_thumb_ls_t */
    etm_thumb_insn_t t;
    if (isa == ETM_V3_ISA_THUMB || isa == ETM_V3_ISA_THUMBEE) {
        if (!etm_thumb_decode_bytes(addr, b, n, &t)) {
            memset(out, 0, sizeof *out);
            out->target_isa = isa;
            return 1;
        }
        out->size = t.size;
        out->opcode = t.opcode;
        out->branch = branch[t.branch];
        out->target = t.target; /* 0 unless direct */
        out->target_isa = t.to_arm ? ETM_V3_ISA_ARM : isa;
        out->is_link = t.link;
        out->is_it = t.op == ETM_THUMB_IT;
        out->ls = ls[t.ls];
        return 0;
    }
    memset(out, 0, sizeof *out);
    out->target_isa = isa;
    if (isa != ETM_V3_ISA_ARM)
        return -1; /* Jazelle */
    if (n < 4)
        return 1;
    out->size = 4;
    out->opcode = dv3_le32(b);
    classify_a32(out->opcode, addr, out);
    out->ls = ls_a32(out->opcode);
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
