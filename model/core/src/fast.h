/* fast.h - the speed engine (internal): its contract, its state, its calls.
 *
 * THE CONTRACT. The reference cycle (etm.c, etm_step: check, frontend,
 * filter, packet or pipestat, FIFO) defines the model. The engine may give a
 * cycle in its place only where it produces exactly the outputs, the state of
 * every stage and the statistics the reference cycle would produce; it may
 * keep state of its own (fast_state_t) but no stage reads it. It acts in
 * three ways:
 *
 *  - The repeat path (fast_repeat.c). etm_step is a function of the state and
 *    the inputs: a cycle that left every stage's state as it found it, but
 *    for counters nothing in such a cycle reads, does the same again for the
 *    same input bytes. Such a cycle is found by trying it (a snapshot of the
 *    state before, compared after); the cycles after it with the same inputs
 *    are given its outputs, their counters moved on. It may act for any
 *    inputs and state, since it compares them.
 *  - The plain-cycle path (fast_plain.c). A cycle whose inputs have none of
 *    the signals the plain list forbids (signals.def, ETM_FAST: every input
 *    says what a plain cycle may carry of it) in a state where the stages
 *    wait for nothing (plain_state, fast_plain.c: trace on and staying on, no
 *    programming stop or restart, no cancel, trigger, overflow or periodic
 *    sync waiting, no end of trace; ETMv3 without data trace and without
 *    address filtering) is run through each stage's plain step
 *    (fast_steps.h) instead of its reference function.
 *  - Its forms for records (PKT_QUEUE): a plain cycle's record generated in
 *    the cycle it is made, or queued behind the one waiting, as the records'
 *    reference (records.c) would.
 *
 * unit.fast (tb/unit/test_fast.c) and the fuzz harness fuzz_encoder step
 * generated and real stimulus through instances with the engine and without
 * it (etm_set_repeat_path(ctx, 0) and etm_set_plain_path(ctx, 0) give the
 * reference alone) and require the same outputs, rules, statistics and state
 * (etm_state_diff) every cycle, in every preset. */
#ifndef ETM_FAST_H
#define ETM_FAST_H

#include <stddef.h>

#include "etm/check.h"
#include "etm/watch.h"
#include "fifo.h"
#include "filter.h"
#include "packet.h"
#include "pipestat.h"
#include "records.h"
#include "regs.h"

#define RP_MAX_STATS 6 /* the repeat path's statistics a cycle may move */
/* The state counters a repeated cycle may move (fast_repeat.c). */
enum { RP_WTOTAL, RP_WRUN, RP_SINCE_FULL, RP_SYNC, RP_PQ_NOW, RP_NCOUNT };

/* What a cycle may change, less the FIFO's store (written only where its level
 * or read pointer moves, which the header holds). */
typedef struct rp_snap {
    regs_state_t rg;
    etm_check_t chk;
    filter_state_t flt;
    packet_state_t pk;
    etm_stats_t st;
    int end_wait;
    uint8_t fifo[offsetof(fifo_state_t, mem)];
    pipestat_state_t ps;
    pq_state_t pq; /* with records */
} rp_snap_t;

typedef struct fast_state {
    /* The repeat path. */
    uint8_t rp_on;      /* the state is a fixed point of rp_in: the next cycle with rp_in gives rp_out */
    uint8_t rp_off;     /* etm_set_repeat_path(ctx, 0) */
    uint8_t rp_have;    /* rp_in holds the last cycle's inputs (it had no instruction, no APB access) */
    uint8_t rp_run;     /*   the cycles before it with the same (up to RP_TRY_AFTER) */
    uint8_t rp_wait;    /* cycles before the next try, */
    uint8_t rp_backoff; /*   and the wait after a try that fails */
    uint8_t rp_miss;    /* quiet cycles since one that made a run long enough to be tried */
    uint8_t rp_pause;   /* cycles left before quiet cycles' inputs are compared again */
    uint8_t rp_ncount;  /* counters the cycle moves by one (RP_*), */
    uint32_t rp_count_off[RP_NCOUNT]; /*   each as its offset in the context */
    uint32_t rp_budget; /* cycles it may repeat before one of them reaches its limit */
    uint8_t rp_nst;     /* statistics it moves: which (a uint64_t's index), */
    uint8_t rp_st_idx[RP_MAX_STATS];
    uint64_t rp_st_add[RP_MAX_STATS]; /*   by how much */
    uint64_t rp_count;  /* cycles it gave */
    etm_in_t rp_in;     /* the last cycle's inputs, if rp_have */
    etm_out_t rp_out;   /* what they gave, once rp_on */
    etm_seen_t rp_seen; /*   (a watching instance: what it saw) */
    /* A reference cycle between etm_fast_step and etm_fast_after. */
    uint8_t around;     /* etm_fast_after has something to do */
    uint8_t trying;     /*   the cycle is tried as a fixed point: snap holds the state before it */
    uint8_t quiet;      /*   it had no instruction and no APB access (rp_after) */
    rp_snap_t snap;
    /* The plain-cycle path. */
    uint8_t plain_cfg;   /* the configuration allows it (etm_fast_configure) */
    uint64_t plain_forbid[2][sizeof(etm_in_t) / 8]; /* the input bits a plain cycle has none of: [ETMIVALID] */
    uint8_t plain_off;   /* etm_set_plain_path(ctx, 0) */
    etm_out_t plain_out; /* a plain cycle's outputs before its FIFO cycle: all of them while
                            the FIFO is idle (etm_fast_configure) */
    uint8_t plain_go;    /* plain_state() as the last cycle left it (0: not known, as after
                            anything outside etm_step changed the state: etm_fast_leave) */
    uint8_t tail_plain;  /* with records: the record at the queue's tail is the plain cycle's of
                            cycle tail_cycle (pq_lone_plain) */
    uint32_t tail_cycle;
    uint64_t plain_count; /* cycles it gave */
} fast_state_t;

struct etm_ctx;

/* The engine's state at init and reset: nothing known, nothing given. */
void etm_fast_reset(struct etm_ctx *ctx);
/* The registers changed (etm_refresh): what the plain-cycle path may do. */
void etm_fast_configure(struct etm_ctx *ctx);
/* Anything that changes the state outside etm_step ends a fixed point and
 * what the engine knew of the state. */
void etm_fast_leave(struct etm_ctx *ctx);

#endif
