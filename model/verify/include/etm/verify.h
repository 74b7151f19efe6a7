/* etm/verify.h - a protocol scoreboard for any ETMv3: does a design's trace
 * say exactly what the core did, whatever legal packing, compression, sync
 * placement and latency the design chose? docs/scoreboard.md.
 *
 * What the core did comes from its interface signals, cycle by cycle, through
 * a watching instance of the model's front end and filter (etm/watch.h: the
 * stages the architecture defines exactly; the encoder never runs). What the
 * design said comes from its trace bytes, through the project's ETMv3 decoder
 * (etm/decode_v3.h, which shares no code with the encoder), without a code
 * image: every atom is held against an instruction the core executed.
 *
 *     etm_verify_t *v;
 *     etm_verify_create(&v, &cfg, NULL, &diag);
 *     each cycle:               etm_verify_cycle(v, &in);
 *     the design's bytes:       etm_verify_bytes(v, buf, n);   (any time after the cycles they
 *                                                               can speak of, any grouping)
 *     at the end:               etm_verify_end(v, ETMSR[0] of the design);
 *     the verdict:              etm_verify_result(v)->failures, ->first
 *     etm_verify_destroy(v);
 *
 * The first divergence is kept in words, with the cycle of the instruction,
 * the byte offset in the design's trace and the rule (etm_vfail_t); the
 * checker then stops comparing (what follows a divergence would only echo
 * it). Memory is bounded by the lag allowed (etm_verify_opts_t.max_lag), not
 * by the length of the run.
 */
#ifndef ETM_VERIFY_H
#define ETM_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "etm/config.h"
#include "etm/error.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rules a trace can break: X(name, id, text). The id names the rule in
 * reports, in docs/scoreboard.md and in the mutation test. */
#define ETM_VFAIL_LIST(X)                                                                                   \
    X(NONE, "none", "no failure")                                                                           \
    X(GRAMMAR, "grammar", "a byte the configured version and mode do not allow")                            \
    X(EXTRA_ATOM, "extra-atom", "an atom for an instruction the core did not execute")                      \
    X(MISSING_ATOM, "missing-atom", "an executed instruction without its atom")                             \
    X(ATOM_EN, "atom-e-n", "an atom that says E where the instruction failed its condition, or N where it " \
                           "executed")                                                                      \
    X(BRANCH_TARGET, "branch-target", "an address (branch, exception, I-sync) that is not where the core "  \
                                      "went")                                                               \
    X(BRANCH_MISSING, "branch-missing", "an indirect branch without its target address")                    \
    X(EXC_NUMBER, "exception-number", "an exception packet with another number than the core took")        \
    X(EXC_MISSING, "exception-missing", "an exception the core took without its packet, or a packet for "   \
                                        "one it did not take")                                              \
    X(CANCEL, "cancel", "the Cancel bit wrong: a cancelled instruction traced as completed, or the reverse") \
    X(EXC_RETURN, "exception-return", "an exception return without its packet, or a packet without one")    \
    X(CYCLE, "cycle", "cycle-accurate: an instruction in another cycle than the core executed it")          \
    X(FILTER, "filter", "an instruction traced outside TraceEnable")                                        \
    X(GAP, "unsignalled-gap", "instructions lost without an overflow signalled (I-sync reason 2)")          \
    X(DATA_VALUE, "data-value", "a data value (or a failed store) other than the core's, or a value the "    \
                                "core did not give")                                                        \
    X(DATA_ADDR, "data-address", "a data address other than the core's transfer")                           \
    X(DATA_MISSING, "data-missing", "a traced transfer without its data packet, or a value never traced")  \
    X(DATA_EXTRA, "data-extra", "a data packet for no traced transfer, or a value traced outside ViewData") \
    X(DATA_ORDER, "data-order", "a data packet after the atom of a later data instruction, or before its "  \
                                "own instruction's atom")                                                   \
    X(SYNC_PERIOD, "sync-period", "no A-sync within twice ETMSYNCFR bytes")                                 \
    X(TRIGGER, "trigger", "a trigger packet without a trigger event, or the reverse")                       \
    X(LATENCY, "latency", "an instruction traced later than the bound allows")                              \
    X(UNTRACED, "untraced-at-end", "instructions executed and traced by no byte when the trace ended")

typedef enum etm_vfail {
#define ETM_VFAIL_ENUM(name, id, text) ETM_VFAIL_##name,
    ETM_VFAIL_LIST(ETM_VFAIL_ENUM)
#undef ETM_VFAIL_ENUM
    ETM_VFAIL_COUNT
} etm_vfail_t;

/* "branch-target"; and the rule in words. */
const char *etm_vfail_id(etm_vfail_t f);
const char *etm_vfail_text(etm_vfail_t f);

typedef struct etm_vopts {
    int at_reset;          /* the ETM starts from reset and is programmed through its APB
                              (the records' PSEL.. fields): as etm_create_at_reset */
    uint64_t max_lag;      /* instructions executed and not yet traced that the checker may
                              hold (0: 1 << 18); more is an etm_vfail_t LATENCY failure */
    uint64_t max_latency;  /* cycles from an instruction to the bytes that trace it, when the
                              bytes are given with their cycle (etm_verify_bytes after the
                              cycle's etm_verify_cycle); 0: not checked */
} etm_verify_opts_t;

typedef struct etm_vfirst {
    etm_vfail_t rule;
    uint64_t cycle;        /* the cycle (from 0) of the instruction concerned, or of the input */
    uint64_t offset;       /* byte offset in the design's trace */
    char text[400];        /* what the core did and what the trace says */
} etm_verify_first_t;

typedef struct etm_vresult {
    uint64_t cycles;           /* cycles given */
    uint64_t bytes;            /* trace bytes given (ETMv1: port cycles) */
    uint64_t instructions;     /* instructions matched with the core's */
    uint64_t traced_expected;  /* instructions the core executed with TraceEnable */
    uint64_t untraced;         /* instructions the core executed without TraceEnable */
    uint64_t exceptions, returns, cancels, branches, isyncs, asyncs, triggers;
    uint64_t transfers;        /* data trace: transfers the trace gave (ETMv3: normal, value not traced and
                                  placeholder packets; ETMv1: the transfers of ID and BD statuses) */
    uint64_t data_checked;     /* ... held to a transfer of the core's (address, value, failed store,
                                  ViewData); the others came after an overflow, before trace found its
                                  place again */
    uint64_t data_lost;        /* transfers of the core's lost to overflows */
    uint64_t overflows;        /* overflow restarts in the trace */
    uint64_t lost;             /* instructions lost to them */
    uint64_t cycles_checked;   /* cycle-accurate: instructions whose cycle was compared */
    uint64_t max_sync_gap;     /* most bytes between two A-syncs (Ignore left out) */
    uint64_t max_lag;          /* most instructions waiting for their trace */
    uint64_t max_latency;      /* most cycles from an instruction to its bytes (timed bytes) */
    uint64_t failures;         /* 0 or 1: the checker stops at the first */
    etm_verify_first_t first;
} etm_verify_result_t;

typedef struct etm_verify etm_verify_t;

/* A checker for the ETM that cfg describes: ETMv3 trace (bytes,
 * etm_verify_bytes) or ETMv1 instruction trace (the port, etm_verify_port).
 * With data trace every data packet is also held to the core's data slot:
 * the transfer's address, its value (ETMv3: the register view, a failed
 * store; ETMv1: the lanes' bytes), ViewData, and the instruction a decoder
 * gives it to. opts may be NULL.
 * Returns ETM_OK, ETM_ERR_NOMEM, ETM_ERR_UNSUPPORTED, or what etm_create
 * returns for the configuration. */
etm_err_t etm_verify_create(etm_verify_t **out, const etm_config_t *cfg, const etm_verify_opts_t *opts,
                            etm_diag_t *diag);
void etm_verify_destroy(etm_verify_t *v);

/* What the core did in the next cycle. Returns ETM_OK (a failure found is in
 * the result, not an error), or ETM_ERR_STATE after etm_verify_end. */
etm_err_t etm_verify_cycle(etm_verify_t *v, const etm_in_t *in);

/* The next n bytes of the design's trace (ETMv3, not formatted), as they
 * left it: in the cycle last given to etm_verify_cycle when timed is set.
 * Returns ETM_OK or ETM_ERR_STATE. */
etm_err_t etm_verify_bytes(etm_verify_t *v, const uint8_t *buf, size_t n, int timed);

/* ETMv1: the next cycle of the design's port (rec->pipestat, tracepkt,
 * tracesync; the rest is ignored), one per core cycle as it leaves the design,
 * then the cycles it drains in after the core's last. Returns ETM_OK or
 * ETM_ERR_STATE (an ETMv3 checker, or after etm_verify_end). */
etm_err_t etm_verify_port(etm_verify_t *v, const etm_out_t *rec);

/* Instructions executed and not yet matched: a caller reading the core's
 * cycles and the design's bytes from two files keeps this above
 * ETM_VERIFY_AHEAD before it gives more bytes (an atom never waits for its
 * instruction). */
size_t etm_verify_waiting(const etm_verify_t *v);
#define ETM_VERIFY_AHEAD 4096u /* 16 bytes of trace hold at most about 256 atoms */

/* End of both streams: whatever the core executed with TraceEnable must have
 * been traced, or lost to an overflow the trace signalled. untraced_overflow:
 * the design's ETMSR[0] reads 1 at the end (an overflow whose restart I-sync
 * never came, IHI 0014 3.5.4): what followed the last instruction traced was
 * lost, not left out. Returns ETM_OK. */
etm_err_t etm_verify_end(etm_verify_t *v, int untraced_overflow);

const etm_verify_result_t *etm_verify_result(const etm_verify_t *v);

/* sizeof(etm_verify_result_t), for bindings that mirror it. */
size_t etm_verify_result_size(void);

/* etm_verify_cycle for each of n records in turn. Returns what the last call
 * returned (ETM_OK, or ETM_ERR_STATE after etm_verify_end). */
etm_err_t etm_verify_cycles(etm_verify_t *v, const etm_in_t *in, size_t n);

/* 1 for an ETMv1 checker (etm_verify_port), 0 for ETMv3 (etm_verify_bytes). */
int etm_verify_is_v1(const etm_verify_t *v);

/* The first failure in one line, into buf: "cycle C, byte B: RULE-ID: what"
 * (ETMv1: "port cycle B"), or "no failure". Returns buf. */
char *etm_verify_describe(const etm_verify_t *v, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
