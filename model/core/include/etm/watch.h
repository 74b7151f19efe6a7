/* etm/watch.h - what the core did, cycle by cycle, as the ETM's front end and
 * filter see it, without the encoder: the reference a protocol checker
 * (etm/verify.h) holds a design's trace against.
 *
 * A watching instance runs the stages that the architecture defines exactly:
 * the programmer's model on the debug APB (programming, power-down, the trace
 * ID), the interface check, the frontend (signals to instructions in program
 * order) and the filter (TraceEnable, ViewData, the trigger event, with the
 * counters and the start/stop block). It stops before the stages where an
 * implementation chooses (P-header packing, branch compression, sync
 * placement, the FIFO and its latency): those never run.
 *
 *     etm_ctx_t *w;
 *     etm_watch_create(&w, &cfg, 0, &diag);     (1: from reset, programmed on its APB)
 *     for each cycle: etm_watch_step(w, &in, &seen);
 *     etm_destroy(w);
 */
#ifndef ETM_WATCH_H
#define ETM_WATCH_H

#include <stdint.h>

#include "etm/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One instruction of a cycle, in program order. */
typedef struct etm_seen_insn {
    uint32_t addr;     /* ETMIA with bit 0 clear */
    uint8_t exec;      /* 1: executed (E), 0: failed its condition (N) */
    uint8_t indirect;  /* the core reached it by a branch whose target the trace must give
                          (ETMIBRANCH with ETMIINDBR, or any branch with ETMCR[8]) */
    uint8_t branch;    /* the core reached it by a branch (ETMIBRANCH) */
} etm_seen_insn_t;

typedef struct etm_seen {
    uint8_t running;      /* tracing runs: not powered down, not being programmed, not the
                             restart cycle after programming */
    uint8_t trace_enable; /* TraceEnable of the cycle */
    uint8_t view_data;    /* ViewData for the cycle's data transfer */
    uint8_t trigger;      /* the trigger event fired */
    uint8_t ninsn;        /* instructions of the cycle: 0, 1 or 2 */
    etm_seen_insn_t insn[2];
    uint8_t fold;         /* insn[1] is an IT folded after insn[0] */
    uint8_t entry;        /* insn[0] is the first instruction of an exception handler */
    uint8_t ret;          /* insn[0] is the first instruction after an exception return */
    uint8_t exit;         /* an exception exited in the cycle (ETMINTSTAT exit, no instruction): an
                             entry before the next return tail-chains */
    uint16_t exc;         /* entry: the traced exception number (Cortex-M3 TRM table 14-8) */
    uint8_t cancel;       /* ETMCANCEL: the last instruction before this cycle's did not complete */
    uint8_t flush;        /* ETMFLUSH */
    uint32_t trace_id;    /* ETMTRACEIDR[6:0] as it stands */
    uint32_t etmcr;       /* ETMCR as it stands */
} etm_seen_t;

/* A watching instance of the ETM that cfg describes (at_reset: as silicon out
 * of reset, programmed through its APB; see etm_create_at_reset). Returns what
 * etm_create returns. etm_destroy frees it; etm_last_rules and etm_get_stats
 * work on it (the trace counts stay 0). */
etm_err_t etm_watch_create(etm_ctx_t **out, const etm_config_t *cfg, int at_reset, etm_diag_t *diag);

/* One rising clock edge. Returns ETM_OK, ETM_ERR_RULE (inputs broke an
 * interface rule; the cycle is still watched) or ETM_ERR_ARG (not a watching
 * instance). */
etm_err_t etm_watch_step(etm_ctx_t *ctx, const etm_in_t *in, etm_seen_t *seen);

/* The cycles in[0..n-1] at once for as long as the repeat path
 * (etm_set_repeat_path) gives them: each has the last cycle's inputs and sees
 * what the last etm_watch_step saw. Returns how many (0: none; step the next
 * one with etm_watch_step). */
size_t etm_watch_repeat(etm_ctx_t *ctx, const etm_in_t *in, size_t n);

#ifdef __cplusplus
}
#endif
#endif
