/* etm/decode_v1.h - the project's own ETMv1 decoder: PIPESTAT, TRACEPKT and
 * TRACESYNC, one record per core cycle, back to the instructions that executed.
 *
 * It is written from the contract (docs/etmv1-encoder.md) and the protocol notes
 * (docs/etmv1-protocol.md), not from the encoder, so that a round trip through both
 * finds misunderstandings instead of hiding them. docs/decoder-v1.md describes it.
 *
 * What it reports, through a callback, in program order:
 *   INSN      one per traced instruction (IE, ID, IN, BE, BD): address, size,
 *             opcode, executed or not, the cycle whose status gave it, and for a
 *             BE/BD the branch target;
 *   DATA      the data address and value bytes of an ID or BD instruction;
 *   TRACE_ON  a BE that stands for no instruction (full address, reason 1 trace
 *             enabled, 2 overflow, 3 debug exit): execution continues at addr;
 *   SYNC      a real branch that carried a full address: reason 4 (periodic), or
 *             the first full address the decoder synchronised on;
 *   TRIGGER   a TR cycle;
 *   ABANDON   the target of the previous branch did not execute: a BE/BD came in
 *             that branch's APO cycles (the branch itself is an INSN with
 *             `abandoned` set).
 *
 * Streaming: the decoder keeps a window of recent cycles (to find a branch address
 * through the APO and TRACESYNC), no more; memory does not grow with the trace.
 *
 *     etm_v1dec_t *d;
 *     etm_v1dec_create(&d, &cfg, 0, &diag);
 *     etm_v1dec_on_element(d, my_element_fn, my_state);
 *     etm_v1dec_set_windows(d, windows, nwindows);     (or etm_v1dec_set_image)
 *     for each cycle:  etm_v1dec_step(d, &out_record, &diag);
 *     etm_v1dec_end(d, &diag);
 *     etm_v1dec_destroy(d);
 */
#ifndef ETM_DECODE_V1_H
#define ETM_DECODE_V1_H

#include <stddef.h>
#include <stdint.h>

#include "etm/regmap.h"
#include "etm/error.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PIPESTAT codes ETM_V1_PS_* and reason codes ETM_V1_REASON_* are in etm/consts.h. */

/* "IE", "ID", ... "TD". */
const char *etm_v1_pipestat_name(unsigned pipestat);

/* Most value bytes one instruction transfers: LDM/STM of 16 registers. */
#define ETM_V1_MAX_DATA_BYTES 64

/* ---- Thumb-2 instructions, as far as ETMv1 decoding needs them -------------- */

typedef enum etm_v1_flow {
    ETM_V1_FLOW_NEXT,     /* goes on at the next instruction */
    ETM_V1_FLOW_DIRECT,   /* B, B<c>, B.W, BL, CBZ, CBNZ: target in the instruction */
    ETM_V1_FLOW_INDIRECT  /* BX, BLX reg, MOV/ADD pc, LDR pc, POP/LDM with pc, TBB, TBH */
} etm_v1_flow_t;

typedef struct etm_v1_insn {
    unsigned size;        /* 2 or 4 */
    uint32_t opcode;      /* 16-bit: [15:0]; 32-bit: first halfword in [31:16] */
    etm_v1_flow_t flow;
    uint32_t target;      /* ETM_V1_FLOW_DIRECT: the branch target */
    unsigned data_bytes;  /* loads and stores: value bytes transferred (1, 2, 4, 8, 4n); else 0 */
    int is_store;         /* a store (value bytes written) */
    int undefined;        /* not a Thumb-2 instruction of ARMv7-M as far as the decoder knows */
} etm_v1_insn_t;

/* Classify the instruction at addr whose bytes (little-endian, as in memory) are
 * b[0..n-1]. Returns 0 with *out filled, or 1 when n is too small (2 bytes are
 * needed, and 4 when the first halfword starts a 32-bit instruction). */
int etm_v1_insn_classify(uint32_t addr, const uint8_t *b, unsigned n, etm_v1_insn_t *out);

/* ---- Elements ------------------------------------------------------------------ */

#define ETM_V1_EL_LIST(X)  \
    X(INSN, "INSN")         \
    X(DATA, "DATA")         \
    X(TRACE_ON, "TRACE_ON") \
    X(SYNC, "SYNC")         \
    X(TRIGGER, "TRIGGER")   \
    X(ABANDON, "ABANDON")

typedef enum etm_v1el_kind {
#define ETM_V1_X_ENUM(name, text) ETM_V1EL_##name,
    ETM_V1_EL_LIST(ETM_V1_X_ENUM)
#undef ETM_V1_X_ENUM
    ETM_V1EL_KIND_COUNT
} etm_v1el_kind_t;

const char *etm_v1el_kind_name(etm_v1el_kind_t kind);

/* One element. Fields that do not belong to the kind are 0. */
typedef struct etm_v1el {
    etm_v1el_kind_t kind;
    uint64_t cycle;        /* the cycle (0-based record number) of the status that gave the
                              element: the IE/ID/IN/BE/BD, the TR, or the BE of TRACE_ON/SYNC */
    uint32_t addr;         /* INSN, DATA: the instruction; TRACE_ON, SYNC: the full address;
                              ABANDON: the instruction that did not execute */

    /* INSN */
    unsigned status;       /* ETM_V1_PS_IE, _ID, _IN, _BE or _BD */
    int executed;          /* 0 for IN, else 1 */
    etm_v1_insn_t insn;    /* size, opcode, flow */
    uint32_t target;       /* BE, BD: the branch address (bit 0 clear); ABANDON: where
                              execution went instead */
    unsigned addr_packets; /* BE, BD, TRACE_ON, SYNC, ABANDON: branch address packets (1-5) */
    int abandoned;         /* BE, BD: a BE/BD came in its APO cycles; its target did not execute */
    int trigger;           /* the status came on TRACEPKT[2:0] of a TR cycle */

    /* TRACE_ON, SYNC, and BE/BD with a 5-packet address */
    unsigned reason;       /* ETM_V1_REASON_* */
    int has_context_id;    /* ETMv1.2+ with ETMCR[15:14] != 0: after a full address with reason != 0 */
    uint32_t context_id;

    /* DATA */
    int is_store;
    int has_data_addr;     /* ETMCR[3]: the address was traced */
    int data_addr_valid;   /* all 32 bits known (a full address since the decoder synchronised) */
    uint32_t data_addr;    /* the first transfer's address (low bits only when not valid) */
    unsigned data_addr_packets;
    unsigned nbytes;       /* ETMCR[2]: value bytes traced, in address order; else 0 */
    uint8_t bytes[ETM_V1_MAX_DATA_BYTES];
} etm_v1el_t;

/* ---- Code image ------------------------------------------------------------------- */

/* Read n bytes of code at addr into buf; return how many were read (0 if none). */
typedef int (*etm_v1_read_fn)(void *user, uint32_t addr, uint8_t *buf, unsigned n);

/* A window of code: size bytes at base. The bytes are not copied. */
typedef struct etm_v1_window {
    uint32_t base;
    const uint8_t *bytes;
    size_t size;
} etm_v1_window_t;

/* ---- Decoder ---------------------------------------------------------------------- */

typedef struct etm_v1dec etm_v1dec_t;

/* Options for etm_v1dec_create(). */
#define ETM_V1DEC_STRICT (1u << 0) /* also require what the contract drives but the
                                      architecture leaves open: TRACEPKT 0 wherever no
                                      packet leaves (TRACEPKT[0] of TD only in
                                      cycle-accurate mode), TRACEPKT[15:3] 0 in TR
                                      cycles, and compressed branch addresses of the
                                      fewest packets */

typedef void (*etm_v1el_fn)(void *user, const etm_v1el_t *el);

/* Create a decoder for the ETMv1 that cfg describes: ETMCCR[31] must be 0 and
 * ETMCCR[30:28] gives the protocol version; ETMCR port size [6:4] (0 4-bit, 1 8-bit,
 * 2 16-bit), data trace [3:2], branch output [8], cycle-accurate [12], context ID
 * size [15:14]. history: cycles kept to look ahead for a branch address (0: a default
 * of 16 times FIFO_DEPTH, at least 4096). flags: ETM_V1DEC_*.
 * Returns ETM_OK, ETM_ERR_ARG, ETM_ERR_NOMEM, ETM_ERR_UNSUPPORTED (not an ETMv1, or a
 * port size, port mode, half-rate clocking or CPRT tracing it does not decode). */
etm_err_t etm_v1dec_create(etm_v1dec_t **out, const etm_config_t *cfg, size_t history, unsigned flags,
                           etm_diag_t *diag);
void etm_v1dec_destroy(etm_v1dec_t *d);

/* Callback for elements (may be NULL); set it before the first step. */
void etm_v1dec_on_element(etm_v1dec_t *d, etm_v1el_fn fn, void *user);

/* The code image: a read function, or a list of windows (the list is copied, the
 * bytes are not). Without one, the decoder can only synchronise: every status after
 * the first full address is an error. etm_v1dec_set_windows returns ETM_OK,
 * ETM_ERR_ARG or ETM_ERR_NOMEM. */
void etm_v1dec_set_image(etm_v1dec_t *d, etm_v1_read_fn fn, void *user);
etm_err_t etm_v1dec_set_windows(etm_v1dec_t *d, const etm_v1_window_t *w, size_t n);

/* Instead of a code image: a function that says what the instruction at addr
 * is (1 with *out filled, 0 when it cannot). For a caller that knows what
 * executed but not the code's bytes: the protocol scoreboard (etm/verify.h)
 * answers from the core's own flow. It replaces the image when set. */
typedef int (*etm_v1_classify_fn)(void *user, uint32_t addr, etm_v1_insn_t *out);
void etm_v1dec_set_classifier(etm_v1dec_t *d, etm_v1_classify_fn fn, void *user);

/* The read function etm_v1dec_set_windows() uses; user is an etm_v1_image_t. Handy
 * for callers that want the same lookup. */
typedef struct etm_v1_image {
    const etm_v1_window_t *w;
    size_t n;
} etm_v1_image_t;
int etm_v1_image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n);

/* One cycle of the port: rec->pipestat, rec->tracepkt, rec->tracesync (the other
 * fields are ignored). Cycles are numbered from 0 in the order they are given.
 * Elements come out as soon as they are known (a branch's may wait for its address).
 * Returns ETM_OK or ETM_ERR_DECODE with diag->cycle the cycle of the status (or of
 * the idle cycle) that broke a rule and diag->msg naming the rule. After an error
 * the decoder has dropped what it could not explain and lost synchronisation; it
 * synchronises again at the next full branch address, so the caller may go on. */
etm_err_t etm_v1dec_step(etm_v1dec_t *d, const etm_out_t *rec, etm_diag_t *diag);

/* The same with the three port signals given separately. */
etm_err_t etm_v1dec_feed(etm_v1dec_t *d, unsigned pipestat, unsigned tracepkt, unsigned tracesync,
                         etm_diag_t *diag);

/* End of the trace: decode what is left. Returns ETM_OK, or ETM_ERR_DECODE when the
 * trace ended before something it owed (the APO cycles or the address of a branch,
 * the packets of a data transfer) or another rule was broken. Call it again after an
 * error to go on to the end. */
etm_err_t etm_v1dec_end(etm_v1dec_t *d, etm_diag_t *diag);

/* Forget the trace (not the configuration, callback or image): a new stream from cycle 0. */
void etm_v1dec_reset(etm_v1dec_t *d);

typedef struct etm_v1dec_stats {
    uint64_t cycles;        /* records given */
    uint64_t insns;         /* INSN elements */
    uint64_t executed;      /* ... that executed */
    uint64_t branches;      /* BE and BD statuses with a decoded address */
    uint64_t data;          /* DATA elements */
    uint64_t restarts;      /* TRACE_ON elements */
    uint64_t triggers;
    uint64_t packets;       /* packets read from TRACEPKT */
    uint64_t errors;        /* errors returned */
    uint64_t unsynced_statuses; /* instruction statuses skipped before synchronisation */
} etm_v1dec_stats_t;

const etm_v1dec_stats_t *etm_v1dec_get_stats(const etm_v1dec_t *d);

#ifdef __cplusplus
}
#endif
#endif
