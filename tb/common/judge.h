/* judge.h - the one judge of the testbenches: the flow that executed (what a
 * program or the generator ran, as the model was told it) against the flow a
 * decoder gives back from the trace (OpenCSD, the project's ETMv3 and ETMv1
 * decoders). Used by the round trips (tb/oracle), the end-to-end runs on real
 * programs and the golden vectors they make (tb/e2e).
 *
 *     judge_t j;
 *     judge_init(&j, "OpenCSD", 1 << 20);
 *     each executed instruction, exception, return, trigger:  judge_push(&j, &item)
 *     a cancelled instruction:                                judge_cancel_last(&j)
 *     trace restarts after an overflow:                       judge_push(&j, resync item)
 *     the decoder's output, through an adapter:               judge_v3_element, judge_v1_element,
 *                                                             judge_ocsd_element (judge_ocsd.h)
 *     at the end:   judge_finish(&j, lost_at_end, min_compared); judge_print(&j, stdout, prefix)
 *
 * Items wait in a queue until the decoder reports them; each report is
 * compared with the oldest item: address, E/N, size where known, and in
 * cycle-accurate mode the cycle (1 + the cycle index, docs/etmv3-encoder.md).
 * An overflow restart drops what was expected up to the resync marker the
 * caller pushed where the model's OVERFLOW output fell. The first difference
 * is kept in words, the rest counted.
 */
#ifndef ETM_TB_JUDGE_H
#define ETM_TB_JUDGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/decode_v1.h"
#include "etm/decode_v3.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { JX_INSN, JX_EXC, JX_ERET, JX_TRIG, JX_RESYNC };

#define JUDGE_WITHDRAWN 16 /* cancels remembered for judge_keep_cancels */

typedef struct judge_item {
    uint8_t kind;     /* JX_* */
    uint8_t exec;     /* JX_INSN: passed (E) or failed its condition (N) */
    uint8_t size;     /* JX_INSN: 2 or 4; 0 when not compared */
    uint32_t addr;    /* JX_INSN */
    uint32_t num;     /* JX_EXC: the traced exception number */
    uint64_t cycle;   /* JX_INSN: 1-based cycle */
    uint64_t ref;     /* the caller's own record of the item, 0 for none (ETMv1 data) */
} judge_item_t;

typedef struct judge judge_t;

/* Optional hooks of a caller that judges more than the instruction flow. */
typedef struct judge_hooks {
    void *user;
    /* Instruction size at addr, for decoders that report ranges (OpenCSD). */
    unsigned (*insn_size)(void *user, uint32_t addr);
    /* ETMv3 data elements, and overflow restarts that lose the data waiting. */
    void (*v3_data)(void *user, judge_t *j, const etm_v3_data_t *d);
    void (*v3_overflow)(void *user, judge_t *j);
    /* ETMv1: does the instruction x expect its data next; and the data element for it. */
    int (*v1_wants_data)(void *user, const judge_item_t *x);
    void (*v1_data)(void *user, judge_t *j, const judge_item_t *x, const etm_v1el_t *e);
} judge_hooks_t;

struct judge {
    const char *name;     /* "OpenCSD", "own ETMv3 decoder", ... */
    int on;               /* 0: pushes and reports are ignored */
    int check_cycles;     /* compare the cycle of every instruction */
    int triggers;         /* triggers are items (else trigger reports are only counted) */
    judge_hooks_t hooks;
    judge_item_t *q;
    size_t cap, head, len;
    uint64_t seq_head;    /* sequence number of the item at head */
    /* OpenCSD: its cycle counts summed in element order; the last P-header's count. */
    uint64_t cc_sum;
    uint32_t last_phdr_cc;
    uint64_t compared, exceptions, erets, triggers_seen, overflows, lost, errors;
    /* Latency: the cycle the byte a decoder reports an instruction from left
     * the port (now, when have_now), less the cycle the instruction executed. */
    uint64_t now;
    int have_now;
    uint64_t lat_n, lat_sum, lat_max;
    char first_error[512];
    /* The instruction the last cancel withdrew and where it was, for judge_uncancel. */
    judge_item_t cancelled;
    uint64_t cancelled_seq;
    int has_cancelled;
    /* A decoder that keeps a withdrawn atom (kept_ok, judge_keep_cancels):
     * the withdrawn instructions not yet passed, each with the sequence number
     * of the item that took its place. */
    int kept_ok;
    struct { uint64_t seq; uint32_t addr; } withdrawn[JUDGE_WITHDRAWN];
    unsigned nwithdrawn;
    uint64_t cancels_kept;
};

/* An empty judge with room for cap items waiting; on = 1. Returns 0, or -1 out of memory. */
int judge_init(judge_t *j, const char *name, size_t cap);
void judge_free(judge_t *j);

/* Count a difference; the first one's text is kept. */
void judge_fail(judge_t *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- What executed ------------------------------------------------------------------ */

/* Queue an item; returns its sequence number (items keep theirs until reported). */
uint64_t judge_push(judge_t *j, const judge_item_t *x);
judge_item_t *judge_at_seq(judge_t *j, uint64_t seq);
judge_item_t *judge_front(judge_t *j);
/* The newest instruction not older than the last resync marker, or NULL. */
judge_item_t *judge_last_insn(judge_t *j);
/* Withdraw the newest instruction (a cancel). */
void judge_cancel_last(judge_t *j);
/* The decoder may report an instruction a cancel withdrew, where it was, when
 * the Cancel bit withdraws the last atom of a header that holds others
 * (CANCEL_FORM=1, IHI 0014Q 7.5.1: Cancel drops the last atom traced).
 * OpenCSD 1.3.3 takes such an atom back only when its header gave one range
 * and nothing else waited (pendLastNElem; ../shared/spec/opencsd-oracle.md,
 * "Cancel bug"). Each such report is counted (cancels_kept) and checked to
 * be the withdrawn instruction at its place, not a difference. */
void judge_keep_cancels(judge_t *j);
/* Put back the instruction the last cancel withdrew, where it was: the cancel
 * cannot be traced (its exception is one an ETM before v3.4 cannot express).
 * Nothing happens when no cancel waits (the next instruction or exception
 * pushed settles a cancel). */
void judge_uncancel(judge_t *j);

/* What an ETMv3 of version `version` (ETM_V()) can say about a Cortex-M
 * exception (IHI 0014Q 7.5.1 and 7.6): an exception byte 1, for traced numbers
 * of 16 and more, and the exception-return packet 0x76 came with ETMv3.4.
 * Before it such an exception is a plain branch to the handler, its cancel is
 * lost with it, and a return is a plain branch. */
int judge_v3_exception_traced(unsigned version, unsigned traced_number);
int judge_v3_return_traced(unsigned version);
/* Is the newest item a resync marker? */
int judge_last_is_resync(const judge_t *j);
/* A resync marker: the model's OVERFLOW output fell here. */
void judge_resync(judge_t *j);

/* ---- What a decoder reports --------------------------------------------------------- */

/* An instruction; size 0: not compared; cycle compared when check_cycles and have_cycle. */
void judge_got_insn(judge_t *j, uint32_t addr, int exec, unsigned size, uint64_t cycle, int have_cycle);
/* An exception (kind JX_EXC, number num), a return (JX_ERET) or a trigger (JX_TRIG). */
void judge_got(judge_t *j, int kind, uint32_t num);
/* An overflow restart: what was expected up to the resync marker was lost. */
void judge_got_overflow(judge_t *j);
/* Remove the oldest item (a caller that compared it itself). */
void judge_pop(judge_t *j);

/* Element callbacks for the project's decoders (user: the judge_t). */
void judge_v3_element(void *user, const etm_v3el_t *e);
void judge_v1_element(void *user, const etm_v1el_t *e);

/* The project's ETMv3 decoder fed n bytes, and ended and destroyed: a decode
 * error is a difference of j. */
void judge_v3_feed(judge_t *j, etm_v3dec_t *dec, const uint8_t *buf, size_t n);
void judge_v3_close(judge_t *j, etm_v3dec_t *dec);

/* ---- The verdict ---------------------------------------------------------------------- */

/* Items never reported are differences, unless the trace ended lost to an
 * overflow (lost_at_end: no restart tells of them); fewer than min_compared
 * instructions compared is one. */
void judge_finish(judge_t *j, int lost_at_end, uint64_t min_compared);

/* "NAME: N instructions [with their cycles], E exceptions, R returns, ..., O overflow
 * restarts (L items lost): zero differences" (or the first difference); returns
 * 1 when the judge found differences. Exceptions and returns are left out with
 * no_exceptions (ETMv1). */
int judge_print(const judge_t *j, FILE *f, const char *prefix, int no_exceptions);

/* ---- The oracles' own tables ------------------------------------------------------------ */

/* The exception number a Cortex-M3 ETM traces for ETMINTNUM (Cortex-M3 TRM
 * DDI 0337G table 14-8), written here from the table, independently of the
 * model's etm_m3_traced_exception(). */
unsigned judge_m3_exception(unsigned intnum);

#ifdef __cplusplus
}
#endif
#endif
