/* decode_v1_insn.c - the ETMv1 decoder's Thumb-2 (ARMv7-M) classifier and its
 * reader of code image windows (etm/decode_v1.h).
 *
 * The statuses (decode_v1_status.c) follow the code with it: where a branch
 * goes, and how many data bytes a load or store moves (its data packets).
 */
#include "etm/decode_v1.h"

#include <string.h>

/* ---- Thumb-2 (ARMv7-M) classifier ------------------------------------------------- */

static unsigned popcount16(unsigned v)
{
    unsigned n = 0;
    for (v &= 0xFFFFu; v; v &= v - 1)
        n++;
    return n;
}

/* Sign-extend the low `bits` bits of v. */
static uint32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    v &= (m << 1) - 1;
    return (v ^ m) - m;
}

static void classify16(uint32_t addr, unsigned hw, etm_v1_insn_t *o)
{
    o->size = 2;
    o->opcode = hw;
    if ((hw & 0xF000u) == 0xD000u) { /* B<c> T1; cond 1110 is UDF, 1111 is SVC */
        unsigned cond = (hw >> 8) & 0xFu;
        if (cond < 0xEu) {
            o->flow = ETM_V1_FLOW_DIRECT;
            o->target = addr + 4u + sext((hw & 0xFFu) << 1, 9);
        } else if (cond == 0xEu) {
            o->undefined = 1;
        }
    } else if ((hw & 0xF800u) == 0xE000u) { /* B T2 */
        o->flow = ETM_V1_FLOW_DIRECT;
        o->target = addr + 4u + sext((hw & 0x7FFu) << 1, 12);
    } else if ((hw & 0xF500u) == 0xB100u) { /* CBZ, CBNZ */
        o->flow = ETM_V1_FLOW_DIRECT;
        o->target = addr + 4u + ((((hw >> 9) & 1u) << 6) | (((hw >> 3) & 0x1Fu) << 1));
    } else if ((hw & 0xFF00u) == 0x4700u) { /* BX, BLX register */
        o->flow = ETM_V1_FLOW_INDIRECT;
    } else if ((hw & 0xFD00u) == 0x4400u) { /* ADD, MOV (high registers): Rd = PC? */
        if ((((hw >> 4) & 8u) | (hw & 7u)) == 15u)
            o->flow = ETM_V1_FLOW_INDIRECT;
    } else if ((hw & 0xFE00u) == 0xBC00u) { /* POP */
        unsigned n = popcount16(hw & 0xFFu) + ((hw >> 8) & 1u);
        o->data_bytes = 4u * n;
        if (hw & 0x100u)
            o->flow = ETM_V1_FLOW_INDIRECT;
        if (n == 0)
            o->undefined = 1;
    } else if ((hw & 0xFE00u) == 0xB400u) { /* PUSH */
        unsigned n = popcount16(hw & 0xFFu) + ((hw >> 8) & 1u);
        o->data_bytes = 4u * n;
        o->is_store = 1;
        if (n == 0)
            o->undefined = 1;
    } else if ((hw & 0xF000u) == 0xC000u) { /* STM, LDM */
        unsigned n = popcount16(hw & 0xFFu);
        o->data_bytes = 4u * n;
        o->is_store = !(hw & 0x800u);
        if (n == 0)
            o->undefined = 1;
    } else if ((hw & 0xE000u) == 0x6000u) { /* STR, LDR, STRB, LDRB (immediate) */
        o->data_bytes = (hw & 0x1000u) ? 1u : 4u;
        o->is_store = !(hw & 0x800u);
    } else if ((hw & 0xF000u) == 0x8000u) { /* STRH, LDRH (immediate) */
        o->data_bytes = 2;
        o->is_store = !(hw & 0x800u);
    } else if ((hw & 0xF000u) == 0x9000u) { /* STR, LDR (SP-relative) */
        o->data_bytes = 4;
        o->is_store = !(hw & 0x800u);
    } else if ((hw & 0xF800u) == 0x4800u) { /* LDR (literal) */
        o->data_bytes = 4;
    } else if ((hw & 0xF000u) == 0x5000u) { /* register offset */
        static const unsigned char bytes[8] = { 4, 2, 1, 1, 4, 2, 1, 2 };
        unsigned op = (hw >> 9) & 7u; /* STR STRH STRB LDRSB LDR LDRH LDRB LDRSH */
        o->data_bytes = bytes[op];
        o->is_store = op < 3;
    }
}

static void classify32(uint32_t addr, unsigned hw1, unsigned hw2, etm_v1_insn_t *o)
{
    o->size = 4;
    o->opcode = ((uint32_t)hw1 << 16) | hw2;
    if ((hw1 & 0xF800u) == 0xF000u && (hw2 & 0x8000u)) { /* branches and miscellaneous control */
        uint32_t s = (hw1 >> 10) & 1u, j1 = (hw2 >> 13) & 1u, j2 = (hw2 >> 11) & 1u;
        switch (hw2 & 0x5000u) {
        case 0x0000u: /* B<c>.W T3, or miscellaneous control when cond is 111x */
            if (((hw1 >> 6) & 0xEu) != 0xEu) {
                uint32_t imm = (s << 20) | (j2 << 19) | (j1 << 18) | ((hw1 & 0x3Fu) << 12) | ((hw2 & 0x7FFu) << 1);
                o->flow = ETM_V1_FLOW_DIRECT;
                o->target = addr + 4u + sext(imm, 21);
            }
            break;
        case 0x1000u: /* B.W T4 */
        case 0x5000u: { /* BL */
            uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
            uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | ((hw2 & 0x7FFu) << 1);
            o->flow = ETM_V1_FLOW_DIRECT;
            o->target = addr + 4u + sext(imm, 25);
            break;
        }
        default: /* BLX (immediate): ARM state, not in ARMv7-M */
            o->undefined = 1;
            break;
        }
    } else if ((hw1 & 0xFE40u) == 0xE800u) { /* LDM, STM (IA, DB); SRS/RFE are not ARMv7-M */
        unsigned op = (hw1 >> 7) & 3u, n = popcount16(hw2);
        if (op == 1 || op == 2) {
            o->data_bytes = 4u * n;
            o->is_store = !(hw1 & 0x10u);
            if (!o->is_store && (hw2 & 0x8000u))
                o->flow = ETM_V1_FLOW_INDIRECT;
            if (n == 0)
                o->undefined = 1;
        } else {
            o->undefined = 1;
        }
    } else if ((hw1 & 0xFE40u) == 0xE840u) { /* load/store dual, exclusive; table branch */
        unsigned op1 = (hw1 >> 7) & 3u, op2 = (hw1 >> 4) & 3u, op3 = (hw2 >> 4) & 0xFu;
        if (op1 == 0 && op2 == 0) { /* STREX */
            o->data_bytes = 4;
            o->is_store = 1;
        } else if (op1 == 0 && op2 == 1) { /* LDREX */
            o->data_bytes = 4;
        } else if (((op1 & 2u) == 0 && op2 == 2) || ((op1 & 2u) && !(op2 & 1u))) { /* STRD */
            o->data_bytes = 8;
            o->is_store = 1;
        } else if (((op1 & 2u) == 0 && op2 == 3) || ((op1 & 2u) && (op2 & 1u))) { /* LDRD */
            o->data_bytes = 8;
        } else if (op1 == 1 && op2 == 0 && (op3 == 4 || op3 == 5)) { /* STREXB, STREXH */
            o->data_bytes = op3 == 4 ? 1u : 2u;
            o->is_store = 1;
        } else if (op1 == 1 && op2 == 1 && (op3 == 0 || op3 == 1)) { /* TBB, TBH: a table load into the PC */
            o->data_bytes = op3 == 0 ? 1u : 2u;
            o->flow = ETM_V1_FLOW_INDIRECT;
        } else if (op1 == 1 && op2 == 1 && (op3 == 4 || op3 == 5)) { /* LDREXB, LDREXH */
            o->data_bytes = op3 == 4 ? 1u : 2u;
        } else {
            o->undefined = 1;
        }
    } else if ((hw1 & 0xFE00u) == 0xF800u) { /* load/store single: [6:5] size, [4] load */
        unsigned sz = (hw1 >> 5) & 3u, load = (hw1 >> 4) & 1u, rt = (hw2 >> 12) & 0xFu;
        if (sz == 3 || (!load && (hw1 & 0x100u))) {
            o->undefined = 1;
        } else if (load && rt == 15 && sz < 2) {
            /* PLD, PLI and unallocated hints: no data transfer */
        } else {
            o->data_bytes = 1u << sz;
            o->is_store = !load;
            if (load && rt == 15)
                o->flow = ETM_V1_FLOW_INDIRECT; /* LDR pc */
        }
    }
}

int etm_v1_insn_classify(uint32_t addr, const uint8_t *b, unsigned n, etm_v1_insn_t *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return 1;
    unsigned hw1 = (unsigned)b[0] | ((unsigned)b[1] << 8);
    if ((hw1 >> 11) >= 0x1Du) { /* 11101, 11110, 11111: the first half of a 32-bit instruction */
        if (n < 4)
            return 1;
        classify32(addr, hw1, (unsigned)b[2] | ((unsigned)b[3] << 8), out);
    } else {
        classify16(addr, hw1, out);
    }
    return 0;
}

/* ---- Code image windows ---------------------------------------------------------- */

int etm_v1_image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const etm_v1_image_t *im = (const etm_v1_image_t *)user;
    for (size_t i = 0; i < im->n; i++) {
        const etm_v1_window_t *w = &im->w[i];
        if (addr >= w->base && (uint64_t)addr - w->base < w->size) {
            size_t off = (size_t)(addr - w->base);
            unsigned k = 0;
            for (; k < n && off + k < w->size; k++)
                buf[k] = w->bytes[off + k];
            return (int)k;
        }
    }
    return 0;
}
