/* etm/thumb.h - the Thumb-2 instruction set, as the project's decoders and its
 * stimulus need it: one decoder of T16 and T32 encodings (ARMv7-M ARM, DDI 0403,
 * A5.2 and A5.3), with the few ARMv7-A/R encodings that change the flow or touch
 * memory (ARMv7-A/R ARM, DDI 0406, A6.3).
 *
 * It holds facts of the instruction set and nothing of the ETM: how long an
 * instruction is, what kind it is, where it goes (a direct target, an indirect
 * branch, a link), what an IT says, and what it does to memory. The ETMv1 and
 * ETMv3 decoders (model/decode) follow the code with it; the Cortex-M3 timing
 * model and the random program generator (model/stim) time and execute
 * instructions with it. It never encodes: the generator writes its own
 * encodings, and this decoder reads them back.
 *
 *     etm_thumb_insn_t t;
 *     etm_thumb_decode(addr, opcode, size, &t);     or from the bytes in memory:
 *     if (!etm_thumb_decode_bytes(addr, bytes, n, &t)) ... n is too small
 *     if (t.branch == ETM_THUMB_BR_DIRECT) ... t.target ...
 *
 * Opcodes are written as everywhere in the project: a 16-bit instruction in
 * [15:0], a 32-bit one with its first halfword in [31:16]. No state; no errors:
 * what the decoder does not know is ETM_THUMB_UNDEF.
 */
#ifndef ETM_THUMB_H
#define ETM_THUMB_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an instruction is, as far as its flow, its timing and its memory
 * transfers tell instructions apart. */
typedef enum etm_thumb_op {
    ETM_THUMB_UNDEF,    /* UNDEFINED or unallocated in ARMv7-M (UDF; the DSP multiplies of ARMv7E-M;
                           the rest of the encodings below that are not listed) */
    ETM_THUMB_ALU,      /* data processing, moves, shifts, extends, bit fields, ADR; MOV/ADD pc
                           (16-bit, high registers) are indirect branches */
    ETM_THUMB_MUL,      /* MULS, MUL (32-bit result) */
    ETM_THUMB_MLA,      /* MLA, MLS */
    ETM_THUMB_MULL,     /* SMULL, UMULL */
    ETM_THUMB_MLAL,     /* SMLAL, UMLAL */
    ETM_THUMB_DIV,      /* SDIV, UDIV */
    ETM_THUMB_LOAD,     /* LDR, LDRB, LDRH, LDRSB, LDRSH in every addressing form; LDR pc is an
                           indirect branch */
    ETM_THUMB_STORE,    /* STR, STRB, STRH */
    ETM_THUMB_LDREX,    /* LDREX, LDREXB, LDREXH (LDREXD: ARMv7-A/R) */
    ETM_THUMB_STREX,    /* STREX, STREXB, STREXH (STREXD: ARMv7-A/R) */
    ETM_THUMB_LDRD,     /* LDRD */
    ETM_THUMB_STRD,     /* STRD */
    ETM_THUMB_LDM,      /* LDM, LDMDB; with pc an indirect branch (LDM to PUSH: the four multiples) */
    ETM_THUMB_STM,      /* STM, STMDB */
    ETM_THUMB_POP,      /* POP (16-bit), POP.W (LDMIA sp!); with pc an indirect branch */
    ETM_THUMB_PUSH,     /* PUSH (16-bit), PUSH.W (STMDB sp!) */
    ETM_THUMB_PRELOAD,  /* PLD, PLI and the unallocated memory hints: no transfer */
    ETM_THUMB_TB,       /* TBB, TBH: a table load into the PC */
    ETM_THUMB_B,        /* B, B.W */
    ETM_THUMB_BCOND,    /* B<c>, B<c>.W */
    ETM_THUMB_BL,       /* BL */
    ETM_THUMB_BLX_IMM,  /* BLX (immediate): to A32 code (ARMv7-A/R) */
    ETM_THUMB_CBZ,      /* CBZ, CBNZ */
    ETM_THUMB_BX,       /* BX */
    ETM_THUMB_BLX,      /* BLX (register) */
    ETM_THUMB_IT,       /* IT */
    ETM_THUMB_SVC,      /* SVC */
    ETM_THUMB_BKPT,     /* BKPT */
    ETM_THUMB_HINT,     /* NOP, YIELD, WFE, WFI, SEV (16- and 32-bit), DBG; CLREX and the rest of
                           its group */
    ETM_THUMB_BARRIER,  /* DSB, DMB */
    ETM_THUMB_ISB,      /* ISB */
    ETM_THUMB_SYSREG,   /* MSR, MRS, CPS */
    ETM_THUMB_COPROC,   /* coprocessor instructions: LDC, STC, MCR, MRC, MCRR, MRRC, CDP (and the
                           floating-point and Advanced SIMD ones in their space) */
    ETM_THUMB_ERET,     /* SUBS pc, lr, #imm and ERET (ARMv7-A/R): indirect */
    ETM_THUMB_BXJ,      /* BXJ (ARMv7-A/R): indirect */
    ETM_THUMB_RFE,      /* RFE (ARMv7-A/R): indirect */
    ETM_THUMB_SRS,      /* SRS (ARMv7-A/R) */
    ETM_THUMB_OP_COUNT
} etm_thumb_op_t;

typedef enum etm_thumb_branch {
    ETM_THUMB_BR_NONE,     /* does not write the PC: goes on at the next instruction */
    ETM_THUMB_BR_DIRECT,   /* the target is in the instruction: B, B<c>, BL, BLX imm, CBZ, CBNZ */
    ETM_THUMB_BR_INDIRECT  /* from a register or memory: BX, BLX reg, MOV/ADD pc, LDR pc, POP/LDM
                              with pc, TBB, TBH (and ERET, BXJ, RFE) */
} etm_thumb_branch_t;

/* etm_thumb_insn_t.ls */
typedef enum etm_thumb_ls {
    ETM_THUMB_LS_NONE,
    ETM_THUMB_LS_LOAD,
    ETM_THUMB_LS_STORE
} etm_thumb_ls_t;

typedef struct etm_thumb_insn {
    uint32_t opcode;      /* as given */
    uint32_t target;      /* ETM_THUMB_BR_DIRECT: the destination (address + 4 + offset; BLX imm:
                             from the word-aligned PC) */
    uint8_t size;         /* 2 or 4, as given */
    uint8_t op;           /* etm_thumb_op_t */
    uint8_t branch;       /* etm_thumb_branch_t */
    uint8_t link;         /* BL, BLX: the return address goes to LR */
    uint8_t to_arm;       /* BLX imm: the target is A32 code */
    uint8_t ar_only;      /* an instruction of ARMv7-A/R that ARMv7-M does not have (UNDEFINED
                             there): BLX imm, ERET, BXJ, RFE, SRS, LDREXD, STREXD */
    uint8_t cond;         /* B<c>: its condition; otherwise 14 (always) */
    uint8_t it_firstcond; /* IT: firstcond[3:0] */
    uint8_t it_mask;      /* IT: mask[3:0] */
    uint8_t ls;           /* etm_thumb_ls_t: the encoding is in one of the load and store groups
                             (16-bit A5.2.4, LDM/STM, PUSH/POP; 32-bit E800-E9FF, F800-F9FF, LDC/STC),
                             by its L bit, whatever it is inside the group (PLD and PLI are
                             loads, and so is an unallocated encoding of a load group) */
    uint8_t data_bytes;   /* bytes a load or store moves: 1, 2, 4, 8 (LDRD, STRD), 4 per register
                             (LDM, STM, PUSH, POP), 1 or 2 (TBB, TBH), 8 (RFE, SRS, LDREXD,
                             STREXD); 0 for everything else, PLD, PLI and LDC/STC among it */
    uint8_t nregs;        /* LDM, STM, PUSH, POP: registers in the list, PC and LR included */
} etm_thumb_insn_t;

/* Size of the instruction whose first halfword is hw1: 4 when hw1[15:11] is
 * 0b11101, 0b11110 or 0b11111, else 2. */
static inline unsigned etm_thumb_size(uint32_t hw1)
{
    return ((hw1 >> 11) & 0x1Fu) >= 0x1Du ? 4u : 2u;
}

/* Decode the instruction at addr: opcode as above, size 2 or 4 (a first
 * halfword of a 32-bit instruction given as 16-bit, or the other way round, or
 * another size, is ETM_THUMB_UNDEF). Never fails. */
void etm_thumb_decode(uint32_t addr, uint32_t opcode, unsigned size, etm_thumb_insn_t *t);

/* Decode the instruction at addr whose bytes (little-endian, as in memory) are
 * b[0..n-1]. Returns its size with *t filled, or 0 when n is too small (2 bytes
 * are needed, and 4 when the first halfword starts a 32-bit instruction). */
unsigned etm_thumb_decode_bytes(uint32_t addr, const uint8_t *b, unsigned n, etm_thumb_insn_t *t);

/* Short name of an op ("alu", "ldm", "bcond", ...), "?" for another value. */
const char *etm_thumb_op_name(etm_thumb_op_t op);

#ifdef __cplusplus
}
#endif
#endif
