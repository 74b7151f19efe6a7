/* etm/decode_v3.h - a streaming decoder of the ETMv3 trace protocol (ETMv3.0-3.5).
 *
 * The decoder is written from the architecture (IHI 0014, chapter 7) and does not
 * share code or tables with the model's encoder, so that a round trip cannot hide
 * a misunderstanding common to both. docs/decoder.md describes it.
 *
 * Two levels, both delivered through callbacks while bytes are fed in:
 *   packets   every packet with its byte offset, raw bytes and decoded fields;
 *   elements  what the trace says happened: synchronisation, instructions (with a
 *             code image) or bare atoms (without one), branches, exceptions,
 *             cycle counts, timestamps, triggers.
 *
 * Streaming: memory does not grow with the length of the trace. Feed any number
 * of bytes at a time; packets may straddle calls. End with etm_v3dec_end().
 *
 *     etm_v3dec_t *d;
 *     etm_v3dec_create(&d, &cfg, 0, &diag);
 *     etm_v3dec_on_element(d, my_element_fn, my_state);
 *     etm_v3dec_set_image(d, my_read_fn, my_image);      (optional)
 *     while ((n = fread(buf, 1, sizeof buf, f)) > 0)
 *         if (etm_v3dec_feed(d, buf, n, NULL, &diag) != ETM_OK) ...
 *     etm_v3dec_end(d, &diag);
 *     etm_v3dec_destroy(d);
 */
#ifndef ETM_DECODE_V3_H
#define ETM_DECODE_V3_H

#include <stddef.h>
#include <stdint.h>

#include "etm/regmap.h"
#include "etm/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Instruction sets ------------------------------------------------------ */

typedef enum etm_v3_isa {
    ETM_V3_ISA_ARM,     /* A32 */
    ETM_V3_ISA_THUMB,   /* T32 (Thumb and Thumb-2) */
    ETM_V3_ISA_THUMBEE, /* ThumbEE: Thumb with AltISA set */
    ETM_V3_ISA_JAZELLE  /* Java bytecode; the decoder does not follow it */
} etm_v3_isa_t;

/* "A32", "T32", "TEE", "JAZ". */
const char *etm_v3_isa_name(etm_v3_isa_t isa);

/* ---- Instruction classifier ------------------------------------------------ */

/* What an instruction does to the flow of control, as far as trace decoding
 * needs to know. */
typedef enum etm_v3_brkind {
    ETM_V3_BR_NONE,     /* falls through to the next instruction */
    ETM_V3_BR_DIRECT,   /* target encoded in the instruction (B, B<c>, BL, BLX imm, CBZ, CBNZ) */
    ETM_V3_BR_INDIRECT  /* target from a register or memory: the trace gives it */
} etm_v3_brkind_t;

typedef struct etm_v3_insn {
    unsigned size;             /* 2 or 4 bytes */
    uint32_t opcode;           /* A32 word; T32: first halfword in [31:16] for 32-bit, else [15:0] */
    etm_v3_brkind_t branch;
    uint32_t target;           /* ETM_V3_BR_DIRECT: the target address */
    etm_v3_isa_t target_isa;   /* ETM_V3_BR_DIRECT: instruction set at the target (BLX imm changes it) */
    int is_link;               /* BL, BLX */
    int is_it;                 /* the Thumb IT instruction */
    int ls;                    /* data instruction: ETM_V3_LS_* (loads and stores of memory) */
} etm_v3_insn_t;

/* etm_v3_insn_t.ls: what a data instruction does to memory. */
#define ETM_V3_LS_NONE 0
#define ETM_V3_LS_LOAD 1
#define ETM_V3_LS_STORE 2
#define ETM_V3_LS_SWAP 3 /* SWP, SWPB: a load, then a store */

/* Classify the instruction whose first bytes (little-endian, as in memory) are
 * b[0..n-1], at address addr, in instruction set isa (ARM, Thumb or ThumbEE).
 * Returns 0 with *out filled; 1 when n is too small (A32 needs 4 bytes, T32 needs 2
 * and then 4 when the first halfword starts a 32-bit instruction); -1 for Jazelle. */
int etm_v3_insn_classify(etm_v3_isa_t isa, uint32_t addr, const uint8_t *b, unsigned n, etm_v3_insn_t *out);

/* ---- Exception numbers ------------------------------------------------------ */

/* Name of a traced exception number: the ARMv7-M table (traced value, not the
 * exception number of the NVIC: 8 is IRQ0, 24 and up are IRQ8 and up) when v7m is
 * non-zero, else the A/R table. Writes into buf (at least 16 bytes), returns buf. */
const char *etm_v3_exception_name(unsigned number, int v7m, char *buf, size_t size);

/* ---- Packets ------------------------------------------------------------------ */

/* X(name, text) */
#define ETM_V3_PKT_LIST(X)                                                          \
    X(NOSYNC, "NOSYNC")                /* bytes skipped while looking for A-sync */ \
    X(ASYNC, "A_SYNC")                                                              \
    X(ISYNC, "I_SYNC")                                                              \
    X(ISYNC_CC, "I_SYNC_CC")           /* I-sync with cycle count */                \
    X(PHDR, "P_HDR")                                                                \
    X(BRANCH, "BRANCH")                                                             \
    X(CYCLE_COUNT, "CYCLE_COUNT")                                                   \
    X(TRIGGER, "TRIGGER")                                                           \
    X(CONTEXT_ID, "CONTEXT_ID")                                                     \
    X(VMID, "VMID")                                                                 \
    X(TIMESTAMP, "TIMESTAMP")                                                       \
    X(EXC_RETURN, "EXC_RETURN")        /* 0x76 */                                   \
    X(EXC_ENTRY, "EXC_ENTRY")          /* 0x7E */                                   \
    X(IGNORE, "IGNORE")                /* 0x66 */                                   \
    X(STORE_FAILED, "STORE_FAILED")                                                 \
    X(NORMAL_DATA, "NORMAL_DATA")                                                   \
    X(OOO_DATA, "OOO_DATA")            /* out-of-order data */                      \
    X(OOO_PLACEHOLDER, "OOO_PLACEHOLDER")                                           \
    X(DATA_SUPPRESSED, "DATA_SUPPRESSED")                                           \
    X(VALUE_NOT_TRACED, "VALUE_NOT_TRACED")

typedef enum etm_v3pkt_kind {
#define ETM_V3_X_ENUM(name, text) ETM_V3PKT_##name,
    ETM_V3_PKT_LIST(ETM_V3_X_ENUM)
#undef ETM_V3_X_ENUM
    ETM_V3PKT_KIND_COUNT
} etm_v3pkt_kind_t;

const char *etm_v3pkt_kind_name(etm_v3pkt_kind_t kind);

#define ETM_V3_RAW_MAX 32   /* raw bytes kept per packet (long NOSYNC/A-sync runs are cut) */
#define ETM_V3_MAX_ATOMS 16 /* most atoms one P-header holds */

/* I-sync reason codes (information byte [6:5]). */
#define ETM_V3_REASON_PERIODIC 0
#define ETM_V3_REASON_TRACE_ON 1
#define ETM_V3_REASON_OVERFLOW 2
#define ETM_V3_REASON_DEBUG_EXIT 3

/* One packet. Fields that do not belong to the kind are 0. */
typedef struct etm_v3pkt {
    etm_v3pkt_kind_t kind;
    uint64_t offset;         /* byte offset of the first byte in the stream fed */
    uint64_t size;           /* bytes in the packet */
    const uint8_t *raw;      /* the first raw_len bytes (valid during the callback only) */
    unsigned raw_len;        /* min(size, ETM_V3_RAW_MAX) */

    /* PHDR */
    unsigned format;                      /* 0..4 */
    char atoms[ETM_V3_MAX_ATOMS + 1];     /* 'W', 'E', 'N' in trace order, NUL-terminated */

    /* BRANCH, ISYNC, ISYNC_CC: the full address after decompression (bit 0 clear) */
    uint32_t addr;
    unsigned addr_bits;      /* BRANCH: low address bits the packet replaced; I-sync: 32 */
    etm_v3_isa_t isa;        /* instruction set at addr */
    int isa_given;           /* the packet states the instruction set (I-sync, 5-byte branch,
                                AltISA in an exception byte) */

    /* BRANCH with exception information bytes */
    int exception;           /* exception bytes present */
    unsigned exc_number;     /* traced exception number (9 bits with v7-M numbering, else 4) */
    int cancel;              /* the most recent atom did not complete */
    int has_resume;
    unsigned resume;         /* exception byte 2 [3:0] */
    int deprecated_exc;      /* original encoding's ARM-only exception form in byte 4 */

    /* BRANCH exception bytes and I-sync information byte: security and state */
    int ns, hyp, altisa, jazelle;

    /* ISYNC, ISYNC_CC */
    unsigned reason;         /* ETM_V3_REASON_* */
    int lsip;                /* load/store in progress: lsip_addr follows */
    uint32_t lsip_addr;
    int has_addr;            /* 0 in data-only mode */

    /* ISYNC_CC, CYCLE_COUNT */
    uint32_t cycle_count;    /* 0 means "unknown" (the counter overflowed) */

    /* ISYNC*, CONTEXT_ID */
    int has_context_id;
    uint32_t context_id;

    /* VMID */
    unsigned vmid;

    /* TIMESTAMP: value after decompression (and Gray decoding if ETMCCER says so) */
    uint64_t timestamp;
    unsigned ts_bits;        /* low bits the packet replaced */
    int ts_rate_changed;     /* header bit 2 (R): the clock frequency changed */

    /* Data packets */
    int data_first;          /* A bit of normal data, value not traced, placeholder */
    int has_data_addr;
    uint32_t data_addr;
    unsigned data_addr_bits;
    unsigned value_size;     /* bytes of value: 0, 1, 2 or 4 */
    uint32_t value;
    unsigned tag;            /* out-of-order tag */
} etm_v3pkt_t;

/* ---- Elements ------------------------------------------------------------------ */

#define ETM_V3_EL_LIST(X)                                                                   \
    X(SYNC, "SYNC")               /* I-sync: address, instruction set, reason */            \
    X(OVERFLOW, "OVERFLOW")       /* trace was lost (I-sync reason "overflow") */           \
    X(INSN, "INSN")               /* one instruction, executed (E) or failed its condition (N) */ \
    X(ATOM, "ATOM")               /* an E or N atom whose instruction is not known */       \
    X(BRANCH, "BRANCH")           /* a branch packet: the next instruction is at addr */    \
    X(EXCEPTION, "EXCEPTION")     /* exception entry: number, cancel, handler address */    \
    X(EXC_RETURN, "EXC_RETURN")   /* exception return */                                    \
    X(TRIGGER, "TRIGGER")                                                                   \
    X(CYCLE_COUNT, "CYCLE_COUNT") /* a cycle-count packet */                                \
    X(TIMESTAMP, "TIMESTAMP")                                                               \
    X(CONTEXT, "CONTEXT")         /* context ID or VMID packet */                           \
    X(NO_IMAGE, "NO_IMAGE")       /* the code image has no instruction at addr */           \
    X(DATA, "DATA")               /* a data transfer (data packets), see etm_v3_data_t */

typedef enum etm_v3el_kind {
#define ETM_V3_X_ENUM(name, text) ETM_V3EL_##name,
    ETM_V3_EL_LIST(ETM_V3_X_ENUM)
#undef ETM_V3_X_ENUM
    ETM_V3EL_KIND_COUNT
} etm_v3el_kind_t;

const char *etm_v3el_kind_name(etm_v3el_kind_t kind);

/* What a DATA element says about a data transfer (docs/decoder.md, Data). */
typedef enum etm_v3_data_kind {
    ETM_V3_DATA_NORMAL,      /* normal data packet: the transfer, with its value if values are traced */
    ETM_V3_DATA_NOT_TRACED,  /* value not traced packet: a transfer whose value is not traced */
    ETM_V3_DATA_PLACEHOLDER, /* out-of-order placeholder: a transfer whose value comes later */
    ETM_V3_DATA_OOO,         /* out-of-order data: the value of an earlier placeholder (same seq) */
    ETM_V3_DATA_SUPPRESSED   /* data suppressed packet: data packets were dropped from here on */
} etm_v3_data_kind_t;

typedef struct etm_v3_data {
    etm_v3_data_kind_t kind;
    uint64_t seq;            /* number of the transfer in the trace (from 1); OOO: its placeholder's, 0 when
                                the placeholder was not seen */
    int first;               /* A bit: the first packet of an instruction's data, or an address given again */
    int addr_valid;          /* addr is known: given in the packet, or the word after the last transfer */
    uint32_t addr;
    int addr_given;          /* the packet carried address bytes */
    int value_valid;         /* NORMAL, OOO with values traced */
    uint32_t value;          /* the register view, leading zero bytes not sent */
    unsigned value_bytes;    /* bytes the packet carried (0, 1, 2, 4) */
    unsigned tag;            /* PLACEHOLDER, OOO: 1-3 */
    int store_failed;        /* NORMAL, OOO: a store-failed packet followed (the STREX failed) */
    int insn_valid;          /* the data instruction is known (code image): the most recent one executed */
    uint32_t insn_addr;
    int ls;                  /* its ETM_V3_LS_* */
} etm_v3_data_t;

typedef struct etm_v3el {
    etm_v3el_kind_t kind;
    uint64_t offset;      /* byte offset of the packet that produced the element */
    uint64_t cycle;       /* cycle-accurate mode: the running cycle number (docs/decoder.md);
                             otherwise 0 */
    uint32_t addr;        /* INSN, ATOM (if addr_valid), SYNC, BRANCH, EXCEPTION (handler),
                             NO_IMAGE */
    int addr_valid;
    etm_v3_isa_t isa;

    /* INSN, ATOM */
    int executed;         /* 1: E atom, 0: N atom */
    etm_v3_insn_t insn;   /* INSN: size, opcode, branch kind */
    int lsip;             /* INSN implied by an LSiP I-sync (no atom) */

    /* SYNC */
    unsigned reason;      /* ETM_V3_REASON_* */
    int trace_on;         /* first I-sync after A-sync, or a non-periodic one */
    int addr_mismatch;    /* periodic I-sync at an address other than the one the decoder
                             expected from following the code */
    uint32_t expected_addr; /* with addr_mismatch */
    int has_cycle_count;  /* SYNC from an I-sync with cycle count; CYCLE_COUNT */
    uint32_t cycle_count; /* its value, already added into cycle */

    /* EXCEPTION */
    unsigned exc_number;
    int cancel;           /* Cancel bit of the packet */
    int withdrawn;        /* number of elements the cancel removed (0, 1 or 2) */
    uint32_t withdrawn_addr; /* address of the withdrawn instruction, if any */
    int has_resume;
    unsigned resume;

    /* SYNC, EXCEPTION: state from the packet */
    int ns, hyp;

    /* CONTEXT, SYNC */
    int has_context_id;
    uint32_t context_id;
    int has_vmid;
    unsigned vmid;

    /* TIMESTAMP */
    uint64_t timestamp;

    /* DATA */
    etm_v3_data_t data;
} etm_v3el_t;

/* ---- Decoder -------------------------------------------------------------------- */

typedef struct etm_v3dec etm_v3dec_t;

/* Options for etm_v3dec_create(). */
#define ETM_V3DEC_V7M (1u << 0) /* ARMv7-M exception numbers: 9 bits, byte 1 carries [8:4];
                                   and 0x76 means the return completed (a later cancel
                                   withdraws only the return, not the instruction) */
#define ETM_V3DEC_PACKETS (1u << 1) /* packets only: the trace layer does not run and no
                                       element is made (a packet lister's decoder); the
                                       packets and their checks are the same */

typedef void (*etm_v3pkt_fn)(void *user, const etm_v3pkt_t *pkt);
typedef void (*etm_v3el_fn)(void *user, const etm_v3el_t *el);
/* Read n bytes of code at addr into buf; return how many were read (0 if none). */
typedef int (*etm_v3_read_fn)(void *user, uint32_t addr, uint8_t *buf, unsigned n);

/* Create a decoder for the ETM that cfg describes. It uses ETMCR (cycle-accurate
 * [12], context ID size [15:14], timestamps [28], VMID [30], data trace [3:2] and
 * [20]), ETMIDR (version [11:8] must be 2, minor [7:4]; alternative branch encoding
 * [20] from ETMv3.4), ETMCCER (64-bit timestamps [29], binary timestamps [28],
 * virtualisation [26]). flags: ETM_V3DEC_*.
 * Returns ETM_OK, ETM_ERR_ARG, ETM_ERR_NOMEM, ETM_ERR_UNSUPPORTED (not an ETMv3). */
etm_err_t etm_v3dec_create(etm_v3dec_t **out, const etm_config_t *cfg, unsigned flags, etm_diag_t *diag);
void etm_v3dec_destroy(etm_v3dec_t *d);

/* Callbacks (any may be NULL); set them before the first etm_v3dec_feed(). */
void etm_v3dec_on_packet(etm_v3dec_t *d, etm_v3pkt_fn fn, void *user);
void etm_v3dec_on_element(etm_v3dec_t *d, etm_v3el_fn fn, void *user);
/* With a code image the decoder follows the program and reports INSN elements;
 * without one, every E or N atom is an ATOM element. */
void etm_v3dec_set_image(etm_v3dec_t *d, etm_v3_read_fn fn, void *user);

/* Decode n more bytes. *used (may be NULL) gets the number of bytes consumed: n,
 * or on error up to and including the byte where the error was found.
 * Returns ETM_OK or ETM_ERR_DECODE; diag->offset is the offset of the offending
 * byte (for a reserved header, the header) and diag->msg names the rule. After an
 * error the decoder has lost synchronisation: it skips bytes until the next A-sync,
 * so the caller may go on feeding from data + *used. */
etm_err_t etm_v3dec_feed(etm_v3dec_t *d, const uint8_t *data, size_t n, size_t *used, etm_diag_t *diag);

/* End of the trace: delivers the instruction held back for a possible cancel.
 * Returns ETM_OK, or ETM_ERR_DECODE if the data ended inside a packet (diag->offset
 * is the start of that packet). */
etm_err_t etm_v3dec_end(etm_v3dec_t *d, etm_diag_t *diag);

/* Forget everything but the configuration and callbacks: back to looking for A-sync
 * at offset 0 (a new stream). */
void etm_v3dec_reset(etm_v3dec_t *d);

typedef struct etm_v3dec_stats {
    uint64_t bytes;         /* bytes fed */
    uint64_t packets[ETM_V3PKT_KIND_COUNT];
    uint64_t insns;         /* INSN elements */
    uint64_t atoms;         /* E and N atoms */
    uint64_t withdrawn;     /* elements withdrawn by a cancel */
    uint64_t unknown_atoms; /* ATOM elements while a code image was given */
    uint64_t cycles;        /* the running cycle number */
    uint64_t transfers;     /* data transfers (normal data, value not traced, placeholders) */
    uint64_t unresolved;    /* placeholders whose value never came (tag reused, overflow, end) */
} etm_v3dec_stats_t;

/* sizeof(etm_v3dec_stats_t), for bindings that mirror it. */
size_t etm_v3dec_stats_size(void);

const etm_v3dec_stats_t *etm_v3dec_get_stats(const etm_v3dec_t *d);

#ifdef __cplusplus
}
#endif
#endif
