/* etm/model.h - the ETM model: one call per rising clock edge.
 *
 *     etm_ctx_t *etm;
 *     etm_create(&etm, &cfg, &diag);          (or etm_ctx_size() + etm_ctx_init())
 *     for each cycle: etm_step(etm, &in, &out);
 *     etm_end(etm);                           close the packets still being gathered
 *     while (etm_drain(etm, &out) == ETM_OK)  let the FIFO empty through the port
 *         ...
 *     etm_destroy(etm);
 *
 * Stages (one C file and one RTL module each): regs (the programmer's model
 * on the debug APB) beside check -> frontend -> filter -> pheader + packet
 * (ETMv3) or pipestat (ETMv1) -> fifo. docs/etmv3-encoder.md
 * gives the packing policy and the cycle timing the RTL twin matches.
 * No global state: any number of instances.
 */
#ifndef ETM_MODEL_H
#define ETM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "etm/check.h"
#include "etm/config.h"
#include "etm/error.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etm_ctx etm_ctx_t;

/* Statistics kept by an instance (all counts since init or reset). The kinds
 * of instruction trace come first, ETM_PKT_KIND_COUNT of them; the ETMv3 data
 * trace kinds follow, up to ETM_PKT_ALL_COUNT (docs/data-trace.md). */
typedef enum etm_pkt_kind {
    ETM_PKT_PHDR_F1, ETM_PKT_PHDR_F2, ETM_PKT_PHDR_F3, ETM_PKT_PHDR_F4,
    ETM_PKT_BRANCH, ETM_PKT_BRANCH_EXC, ETM_PKT_ASYNC, ETM_PKT_ISYNC, ETM_PKT_ISYNC_CC,
    ETM_PKT_CYCLE_COUNT, ETM_PKT_TRIGGER, ETM_PKT_EXC_RETURN, ETM_PKT_IGNORE,
    ETM_PKT_KIND_COUNT,
    ETM_PKT_NORMAL_DATA = ETM_PKT_KIND_COUNT, /* 00A0SS10: in-order data, [address], [value] */
    ETM_PKT_VALUE_NOT_TRACED,                 /* 011A1010: a transfer whose value is not traced */
    ETM_PKT_OOO_PLACEHOLDER,                  /* 01A1TT00: the place of a value that comes later */
    ETM_PKT_OOO_DATA,                         /* 0TT0SS00: that value */
    ETM_PKT_STORE_FAILED,                     /* 0x50: the last transfer was a failed STREX */
    ETM_PKT_ALL_COUNT
} etm_pkt_kind_t;

/* Name of a packet kind ("P-header format 1", "branch address", ...). */
const char *etm_pkt_kind_name(etm_pkt_kind_t k);

/* The packet kind's identifier as the ETMv3 decoder names packets
 * (etm_v3pkt_kind_name: "P_HDR", "BRANCH", "A_SYNC", ...), the one vocabulary
 * of the JSON results: the four P-header formats are all P_HDR, a branch
 * packet with or without exception information BRANCH (kinds sharing an
 * identifier are neighbours in etm_pkt_kind_t). */
const char *etm_pkt_kind_id(etm_pkt_kind_t k);

typedef struct etm_stats {
    uint64_t cycles;           /* etm_step calls */
    uint64_t instructions;     /* instructions signalled (a folded IT counts) */
    uint64_t atoms;            /* E and N atoms traced */
    uint64_t bytes;            /* trace bytes that entered the FIFO */
    uint64_t port_bytes;       /* bytes that left the port, padding included */
    uint64_t packets[ETM_PKT_ALL_COUNT];
    uint64_t overflows;        /* FIFO overflows (each restarts with an I-sync) */
    uint64_t bytes_lost;       /* bytes that did not fit */
    uint64_t cycles_lost;      /* cycles whose trace was lost to an overflow */
    uint64_t violations;       /* interface rule violations (stage check) */
    uint64_t exceptions;       /* exception entries traced */
    uint64_t triggers;         /* trigger events */
    uint64_t untraceable;      /* inputs this ETM version cannot express (see docs) */
    uint64_t fifofull_cycles;  /* cycles with FIFOFULL asserted (ETMCR[7]) */
    uint64_t staged_cycles;    /* ETMv3: cycles that ended with bytes waiting for the FIFO's write port */
    uint64_t stage_overflows;  /* ETMv3: overflows the staging buffer's bound caused (FIFO_DEPTH had room) */
    /* The filter stage's events, for coverage (docs/filter.md). */
    uint64_t ss_starts;        /* the start/stop block started */
    uint64_t ss_stops;         /* ... and stopped */
    uint64_t counter_reloads;  /* counter reloads, all counters */
    uint64_t include_hits;     /* cycles with an instruction in an include region (ETMTECR1[24] clear) */
    uint64_t exclude_hits;     /* cycles with an instruction in an exclude region (ETMTECR1[24] set) */
    uint64_t reg_writes;       /* register writes that took effect (debug APB) */
    uint64_t restarts;         /* times tracing was enabled again after programming or power-down */
    uint64_t internal_errors;  /* cycles whose packets broke the cycle buffer's bound (never expected;
                                  the cycle is then an overflow and etm_step returns ETM_ERR_INTERNAL) */
} etm_stats_t;

/* Bytes of caller memory for one instance (alignment: that of uint64_t). */
size_t etm_ctx_size(void);
/* sizeof(etm_stats_t), for bindings that mirror it. */
size_t etm_stats_size(void);

/* Initialise an instance in caller memory. Checks the configuration
 * (etm_config_validate) and that the model implements everything it selects.
 * Returns ETM_OK, ETM_ERR_RESERVED_BITS, ETM_ERR_FIELD_WIDTH, ETM_ERR_UNSUPPORTED. */
etm_err_t etm_ctx_init(etm_ctx_t *ctx, const etm_config_t *cfg, etm_diag_t *diag);

/* The same with memory from malloc. Also returns ETM_ERR_NOMEM. */
etm_err_t etm_create(etm_ctx_t **out, const etm_config_t *cfg, etm_diag_t *diag);

/* An instance as silicon comes out of reset: the implementation is that of
 * `impl` (ETMCCR, ETMSCR, ETMIDR, ETMCCER and the model parameters; impl must
 * pass etm_ctx_init), every other register holds its reset value
 * (etm_config_at_reset): ETMCR has the programming and power-down bits set,
 * the lock is set, and nothing is traced until the ETM is programmed through
 * the debug APB (the PSEL.. inputs of etm_in_t; etm/program.h drives them).
 * etm_reset returns to this state. */
etm_err_t etm_ctx_init_at_reset(etm_ctx_t *ctx, const etm_config_t *impl, etm_diag_t *diag);
etm_err_t etm_create_at_reset(etm_ctx_t **out, const etm_config_t *impl, etm_diag_t *diag);

/* The value a read of the register at byte offset `offset` would return in
 * the next cycle's access phase (debugger: PADDRDBG31), without a cycle and
 * without a rule being counted: 0 where there is no register. */
uint32_t etm_reg_peek(const etm_ctx_t *ctx, unsigned offset, int debugger);

/* ETMSR[0], the untraced overflow flag, as a debugger would read it now: 1
 * while an overflow's restart has not gone into the trace. At the end of a
 * run it says the last instructions were lost, not left out (etm_verify_end). */
int etm_untraced_overflow(const etm_ctx_t *ctx);
void etm_destroy(etm_ctx_t *ctx);

/* Does the model implement everything cfg selects? ETM_OK or ETM_ERR_UNSUPPORTED
 * with the feature named in diag. */
etm_err_t etm_model_supports(const etm_config_t *cfg, etm_diag_t *diag);

/* One rising clock edge: the core interface and the debug APB of etm_in_t.
 * A register read returns its value in the access phase (out->prdata); a
 * write takes effect at this edge. Setting ETMCR[10] (programming) or ETMCR[0]
 * (power down) stops tracing: the next cycle closes what was gathered, and
 * ETMSR[1] reads 1 once the FIFO is empty; clearing both starts tracing again
 * from reset state one cycle later (docs/registers.md). Returns ETM_OK, ETM_ERR_RULE if the inputs broke an
 * interface rule in this cycle (the cycle is still modelled; the rules are in
 * etm_stats and etm_last_rules), ETM_ERR_STATE after etm_end(), or
 * ETM_ERR_INTERNAL if the cycle's packets broke the cycle buffer's bound (a
 * bug: the cycle is treated as an overflow, counted in internal_errors). */
etm_err_t etm_step(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);

/* The repeat path (on by default): a cycle whose inputs are the same bytes as
 * the last cycle's, from a state that cycle left unchanged (but for the cycle
 * counters), gives the same outputs without running the stages. Outputs,
 * statistics and state are the same either way (docs/performance.md); off
 * serves to measure it and to prove that. */
void etm_set_repeat_path(etm_ctx_t *ctx, int on);
/* Cycles the repeat path gave since the instance was made or reset. */
uint64_t etm_repeated_cycles(const etm_ctx_t *ctx);

/* The repeat path for callers that hold a block of cycles: the leading cycles
 * of in[0..n-1] that the repeat path gives, stepped at once. Each has the last
 * cycle's inputs byte for byte and gives the outputs *out holds (the same for
 * all of them: bytes in out->v3_bytes leave the port in each). Returns how
 * many (0: none, out untouched; step the next one with etm_step). Outputs,
 * statistics and state are as if etm_step had stepped each; a cycle that
 * breaks an interface rule is never one of them. A watching instance
 * (etm_watch_create) has etm_watch_repeat instead: 0 here. */
size_t etm_step_repeat(etm_ctx_t *ctx, const etm_in_t *in, size_t n, etm_out_t *out);

/* The plain-cycle path (on by default): a cycle with no instruction or one
 * that is no exception entry or return (it sends no packet of its own but a
 * branch address), traced without data or filtering while nothing waits, runs
 * only what such a cycle changes. Outputs, statistics and state are the same
 * either way (docs/performance.md); off serves to measure it and to prove that. */
void etm_set_plain_path(etm_ctx_t *ctx, int on);
/* Cycles the plain-cycle path gave since the instance was made or reset. */
uint64_t etm_plain_cycles(const etm_ctx_t *ctx);

/* Do two instances' states differ? The registers, every stage's flip-flops,
 * the bytes the FIFO holds, the records waiting, the statistics and the last
 * cycle's rules are compared; the speed paths' own bookkeeping is not. Returns
 * 0 when they are the same, else 1 with the first part that differs named in
 * what (size bytes; may be NULL). For differential tests (the speed paths on
 * and off: tb/unit/test_fast.c). */
int etm_state_diff(const etm_ctx_t *a, const etm_ctx_t *b, char *what, size_t size);

/* Rules broken in the last cycle: writes up to max, returns how many. */
unsigned etm_last_rules(const etm_ctx_t *ctx, etm_rule_t *rules, unsigned max);

/* The same as a mask, bit r for etm_rule_t r (the RTL's VIOLATIONS). */
uint64_t etm_last_rule_mask(const etm_ctx_t *ctx);

/* End of trace: close everything still being gathered (pending atoms, a run
 * of W atoms) into the FIFO. After it only etm_drain and etm_reset are allowed.
 * Returns ETM_OK (ETM_ERR_STATE if called twice; ETM_ERR_INTERNAL as etm_step). */
etm_err_t etm_end(etm_ctx_t *ctx);

/* One more clock edge with no core activity, for what is left to leave the
 * port. Returns ETM_OK when it modelled a cycle (out holds its outputs), ETM_END
 * when nothing was left (out is an idle cycle; no cycle was modelled). With an
 * external port (PORT_BYTES=0) there is no port to drain through: ETM_END at
 * once; take the bytes with etm_port_take (with records, PKT_QUEUE, the records
 * still queued at etm_end are written into the FIFO then and as etm_port_take
 * makes room). */
etm_err_t etm_drain(etm_ctx_t *ctx, etm_out_t *out);

/* For batch callers and bindings: etm_step over n records, the bytes that
 * left the port appended to bytes (at most cap). It stops before a cycle
 * whose bytes might not fit (ETM_MAX_PORT_BYTES a cycle), or at an error
 * other than ETM_ERR_RULE (rules broken are counted in the statistics).
 * *done: records stepped; *nbytes: bytes written. With finish set, once all
 * n are stepped, etm_end and etm_drain follow until the port is empty (or
 * bytes is full: call again with n 0 and finish set). Returns ETM_OK or the
 * error that stopped it. */
etm_err_t etm_run_records(etm_ctx_t *ctx, const etm_in_t *in, size_t n, int finish, uint8_t *bytes, size_t cap,
                          size_t *nbytes, size_t *done);

/* The same, with the trace sink's ATB inputs of the edge from in (ATREADY as
 * in->atstall, AFVALID; the other fields are ignored): a sink that applies
 * back-pressure while the FIFO drains. etm_drain is etm_drain_in with in NULL:
 * the sink ready, no flush. */
etm_err_t etm_drain_in(etm_ctx_t *ctx, const etm_in_t *in, etm_out_t *out);

/* External port (ETMv3 with PORT_BYTES=0): etm_step puts bytes into the FIFO but
 * nothing leaves it; the caller's port takes up to max bytes, oldest first, at
 * its own clock (between two etm_step calls, or after etm_end). Bytes a cycle
 * wrote can be taken as soon as its etm_step has returned. Returns how many were
 * written to buf (0 when the FIFO is empty, or the port is not external). */
unsigned etm_port_take(etm_ctx_t *ctx, uint8_t *buf, unsigned max);

/* Bytes held in the FIFO now. */
unsigned etm_fifo_level(const etm_ctx_t *ctx);

/* Back to the state after etm_ctx_init (statistics cleared; the registers as
 * they were at init, whatever the debug APB wrote since). */
void etm_reset(etm_ctx_t *ctx);

const etm_stats_t *etm_get_stats(const etm_ctx_t *ctx);
const etm_config_t *etm_get_config(const etm_ctx_t *ctx);

/* The ETMv3 branch address packet for Thumb address `to`, compressed against
 * `from` (the last address sent): alt selects the alternative encoding; exc < 0
 * means no exception bytes, else the traced exception number (0-511) with the
 * Cancel bit. Writes at most 7 bytes to out and returns how many. */
unsigned etm_v3_branch_packet(uint8_t *out, uint32_t from, uint32_t to, int alt, int exc, int cancel);

/* Cortex-M3 TRM table 14-8: the exception number traced for an ETMINTNUM value. */
unsigned etm_m3_traced_exception(unsigned intnum);

#ifdef __cplusplus
}
#endif
#endif
