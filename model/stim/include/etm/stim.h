/* etm/stim.h - one stream of core cycles (etm_in_t) from any stimulus source of
 * the project, for harnesses that clock the model cycle by cycle and hold the
 * core while the ETM asserts FIFOFULL (ETMCR[7]): the SystemC source module and
 * the what-if tool.
 *
 *   source                          a held cycle
 *   vector file (etm/vector.h)      impossible: a recording replays as it was;
 *                                   with etm_stim_set_delay, the recording is
 *                                   delayed: a held cycle in place of its next
 *   VCD (etm/vcd.h)                 likewise
 *   generator (etm/gen.h)           ETMISTALL alone; the generator does not advance
 *   Cortex-M3 timing model          etm_cm3_stall (etm/cm3.h); the executed
 *   (etm/cm3.h) on executed         instructions come from a records file (the
 *   instructions                    text form of etm_cm3_insn_t that `etm-qemu
 *                                   record` writes) or from a callback (the QEMU
 *                                   recorder, a core model)
 *
 *     etm_stim_t *s;
 *     etm_stim_open_records(&s, "mix.rec", NULL, &diag);
 *     etm_out_t out = {0};
 *     while (etm_stim_next(s, out.fifofull, &in, &diag) == ETM_OK)
 *         etm_step(etm, &in, &out);
 *     etm_stim_close(s);
 *
 * A held cycle carries the ETMINTNUM of the cycle before it and nothing else
 * but ETMISTALL, so it keeps every interface rule wherever it falls. No global
 * state; the library never prints.
 */
#ifndef ETM_STIM_H
#define ETM_STIM_H

#include <stdint.h>

#include "etm/cm3.h"
#include "etm/config.h"
#include "etm/error.h"
#include "etm/gen.h"
#include "etm/signals.h"
#include "etm/vcd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etm_stim etm_stim_t;

typedef enum etm_stim_kind {
    ETM_STIM_VECTORS, ETM_STIM_VCD, ETM_STIM_GEN, ETM_STIM_CM3
} etm_stim_kind_t;

/* The next executed instruction for the timing model: returns 1 with *r filled,
 * 0 at the end of the program, -1 on an error (said in diag). */
typedef int (*etm_stim_insn_fn)(void *user, etm_cm3_insn_t *r, etm_diag_t *diag);

/* Open a source. Each returns ETM_OK, or the error of the layer below with diag
 * naming the file and line (vector file, VCD, records file) or the parameter
 * (generator, timing model), and *out NULL. `cycles` (generator) is how many
 * cycles it gives, held ones not counted. p (timing model) may be NULL for the
 * defaults. */
etm_err_t etm_stim_open_vectors(etm_stim_t **out, const char *path, etm_diag_t *diag);
etm_err_t etm_stim_open_vcd(etm_stim_t **out, const char *path, const etm_vcd_opts_t *opts, etm_diag_t *diag);
etm_err_t etm_stim_open_gen(etm_stim_t **out, const etm_gen_params_t *p, uint64_t cycles, etm_diag_t *diag);
etm_err_t etm_stim_open_records(etm_stim_t **out, const char *path, const etm_cm3_params_t *p,
                                etm_diag_t *diag);
etm_err_t etm_stim_open_insns(etm_stim_t **out, etm_stim_insn_fn fn, void *user, const etm_cm3_params_t *p,
                              etm_diag_t *diag);
void etm_stim_close(etm_stim_t *s);

etm_stim_kind_t etm_stim_kind(const etm_stim_t *s);

/* 1 when the source can hold the core (generator, timing model; a vector file
 * or VCD after etm_stim_set_delay). */
int etm_stim_can_hold(const etm_stim_t *s);
/* A vector file or VCD: a hold delays the recording (its next cycle comes
 * after the held one) instead of being ignored. */
void etm_stim_set_delay(etm_stim_t *s, int on);

/* The held cycle that follows prev: ETMISTALL, prev's ETMINTNUM, prev's
 * AFVALID (a flush request stays until AFREADY), ATREADY high (a recorded
 * sink's stalls belong to the recording's cycles, which are delayed; a sink
 * in the loop, such as a TPIU, still holds ATREADY low itself), nothing
 * else. Returns 0, and leaves *in alone, where no cycle can be held: prev
 * was the setup phase of an APB transfer (the ETM's or the TPIU's), whose
 * access phase must come next.
 * In may be prev. */
int etm_stim_held_cycle(etm_in_t *in, const etm_in_t *prev);

/* The path from the ETM's FIFOFULL to the core's stall. FIFOFULL at the end
 * of cycle n holds cycle n + latency: 1, the next cycle (the default, the
 * shortest a registered FIFOFULL allows), up to ETM_HOLD_LATENCY_MAX. The
 * STM32F105 capture fits 3 [I] (docs/silicon.md): its core runs on for the
 * instructions of a few cycles after FIFOFULL rises. */
#define ETM_HOLD_LATENCY_MAX 16u
typedef struct etm_hold_path {
    uint32_t fifofull; /* FIFOFULL of the last cycles, the latest in bit 0 */
    unsigned latency;
} etm_hold_path_t;

/* latency 1 to ETM_HOLD_LATENCY_MAX; nothing in flight. */
void etm_hold_path_init(etm_hold_path_t *h, unsigned latency);
/* One cycle's FIFOFULL in; returns 1 when the next cycle is a held one. */
int etm_hold_path_step(etm_hold_path_t *h, int fifofull);
/* A command line's hold option: "--hold" (latency 1) or "--hold=N" (N of 1
 * to ETM_HOLD_LATENCY_MAX, decimal digits only). Returns 0 with *latency, or
 * -1 with the reason in diag. */
int etm_hold_option(const char *arg, unsigned *latency, etm_diag_t *diag);

/* The next core cycle. hold: FIFOFULL of the cycle before (1: the core waits);
 * a source that cannot hold gives its next cycle anyway and counts the request
 * in holds_ignored. Returns ETM_OK with *in filled, ETM_END when the source has
 * no more cycles, or an error: a malformed line of a vector file, VCD or records
 * file (diag: file, line, cycle), a record the timing model cannot time
 * (ETM_ERR_ARG, diag: file and line of the record), the callback's error. */
etm_err_t etm_stim_next(etm_stim_t *s, int hold, etm_in_t *in, etm_diag_t *diag);

typedef struct etm_stim_stats {
    uint64_t cycles;        /* cycles given, held ones included */
    uint64_t held;          /* held cycles */
    uint64_t holds_ignored; /* hold requests a replayed source could not honour */
    uint64_t insns;         /* instructions given to the timing model */
} etm_stim_stats_t;

const etm_stim_stats_t *etm_stim_get_stats(const etm_stim_t *s);

/* The configuration in a vector file's header, else NULL. */
const etm_config_t *etm_stim_config(const etm_stim_t *s);

/* The timing model of a records or callback source (for its statistics), else NULL. */
const etm_cm3_t *etm_stim_cm3(const etm_stim_t *s);

#ifdef __cplusplus
}
#endif
#endif
