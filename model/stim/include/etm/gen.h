/* etm/gen.h - seeded, reproducible, constrained-random stimulus: a Cortex-M3-like
 * core running a random Thumb-2 program that the generator writes as it goes.
 *
 * The program is real code: every executed instruction has a valid Thumb-2
 * encoding in the generator's code image, direct branches go where their
 * encoding says, conditional branches are taken or not at random, indirect
 * branches (BX, BLX, POP {pc}, LDR pc) go to return addresses or random places,
 * IT blocks are followed by their conditional instructions, and 16-bit
 * instructions may fold the IT that follows them. Exceptions arrive at random
 * (with nesting, tail-chaining, cancelled multi-cycle instructions and SVC), and
 * the data slot, DWT triggers and the second issue slot are driven when asked.
 * So a decoder that walks the code image (OpenCSD, the project's own) can follow
 * the trace made from this stimulus. Every cycle is legal for stage `check`.
 *
 * Alongside the signals the generator reports what executed (etm_gen_event_t),
 * independently of the model, so round trips can compare against it.
 */
#ifndef ETM_GEN_H
#define ETM_GEN_H

#include <stdint.h>

#include "etm/error.h"
#include "etm/signals.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etm_gen_params {
    uint64_t seed;
    unsigned issue_width;  /* 2: some cycles retire a second instruction in slot 1 */
    unsigned irq_period;   /* mean cycles between asynchronous exceptions; 0: none */
    unsigned max_intnum;   /* highest external exception number (16..511) */
    unsigned stall_pct;    /* percent of instructions preceded by ETMISTALL cycles */
    unsigned fold_pct;     /* percent of foldable IT instructions that are folded */
    int data;              /* drive the data slot interface for loads and stores */
    int data_mix;          /* ... with byte, halfword and unaligned accesses, big-endian data, STREX
                              that fail, imprecise aborts on stores, POP {pc} loading the PC first */
    unsigned data_delay;   /* values come 2 to 2 + data_delay cycles after their address (0: always 2) */
    int triggers;          /* drive ETMTRIGGER / ETMTRIGINOTD */
    unsigned sleep_pct;    /* per mille of instructions followed by a long idle gap (WFI) */
    uint32_t thread_base;  /* start of the 64 KiB window for thread code */
    uint32_t handler_base; /* start of the 64 KiB window for handlers */
    /* ATB back-pressure: the trace sink holds ATREADY low for about atb_stall_pct
     * percent of the cycles, in bursts of atb_burst cycles on average (1: each
     * cycle on its own). Drawn from a random stream of its own, so that the
     * core's side of the stimulus does not change with it. */
    unsigned atb_stall_pct;
    unsigned atb_burst;
} etm_gen_params_t;

/* Defaults: seed 1, single issue, an exception every ~300 cycles up to IRQ 79,
 * 10% stalls, 50% folds, no data or triggers, thread code at 0x00000000,
 * handlers at 0x20000000, ATREADY always high (bursts of 1 when set). */
void etm_gen_params_default(etm_gen_params_t *p);

/* sizeof(etm_gen_params_t), for bindings that mirror it. */
size_t etm_gen_params_size(void);

/* ATB back-pressure as the generator draws it, for any other driver of
 * ATREADY (a study's lane, a harness): a two-state chain whose bursts of
 * ATREADY low end with probability 1/burst each cycle and start with the
 * probability that keeps the long-run share of such cycles at pct percent. */
typedef struct etm_atb_stall {
    uint64_t rng;
    unsigned pct, burst;
    int stalled;
} etm_atb_stall_t;
/* pct 0 to 99 (0: never), burst at least 1; seed any value. */
void etm_atb_stall_init(etm_atb_stall_t *s, unsigned pct, unsigned burst, uint64_t seed);
/* The next cycle: 1 when ATREADY is held low. */
int etm_atb_stall_next(etm_atb_stall_t *s);

typedef enum etm_gen_evkind {
    ETM_GEN_EV_INSN,      /* an instruction retired (passed or failed its condition) */
    ETM_GEN_EV_CANCEL,    /* the last instruction was cancelled by the exception that follows */
    ETM_GEN_EV_EXC_ENTRY, /* exception entry: excnum, handler address in addr */
    ETM_GEN_EV_EXC_RETURN /* return from an exception to addr (excnum: context returned to) */
} etm_gen_evkind_t;

typedef struct etm_gen_event {
    uint8_t kind;      /* etm_gen_evkind_t */
    uint8_t size;      /* instruction size in bytes (INSN) */
    uint8_t passed;    /* 1 executed, 0 condition failed (INSN) */
    uint8_t is_it;     /* the instruction is an IT (INSN) */
    uint8_t slot;      /* issue slot 0 or 1 (INSN) */
    uint8_t tailchain; /* EXC_ENTRY: a tail-chain (the handler before it ended without a return) */
    uint16_t excnum;   /* exception number (EXC_*) */
    uint32_t addr;     /* instruction address, handler or return address */
    uint64_t cycle;    /* cycle in which it was signalled */
} etm_gen_event_t;

/* Most events one cycle can produce. */
#define ETM_GEN_MAX_EVENTS 4

/* A data transfer's address as the generator presented it, with what it means
 * (the harnesses' expected data, independent of the model's conversion). */
typedef struct etm_gen_xfer {
    uint8_t valid;     /* a transfer's address (DASlot != 0) is in this cycle */
    uint8_t half;      /* 0 a whole access; 1, 2 the halves of an unaligned access */
    uint8_t first;     /* the first transfer of its instruction */
    uint8_t write;     /* a store */
    uint8_t bytes;     /* bytes of the access (both halves) */
    uint8_t be;        /* big-endian */
    uint8_t fail;      /* its value will come with store-exclusive failed */
    uint8_t imprecise; /* its value will come with an imprecise abort */
    uint32_t insn;     /* address of the instruction the transfer belongs to */
    uint32_t addr;     /* address of the access (its first byte) */
    uint32_t value;    /* the register view of the access (both halves) */
} etm_gen_xfer_t;

typedef struct etm_gen etm_gen_t;

/* Create a generator. Returns ETM_OK, ETM_ERR_NOMEM or ETM_ERR_ARG (parameters
 * out of range; diag says which). */
etm_err_t etm_gen_create(etm_gen_t **out, const etm_gen_params_t *p, etm_diag_t *diag);
void etm_gen_free(etm_gen_t *g);

/* The next cycle's inputs; `events` (may be NULL) receives what retired in it,
 * and the return value is how many (at most ETM_GEN_MAX_EVENTS). */
unsigned etm_gen_next(etm_gen_t *g, etm_in_t *in, etm_gen_event_t *events);

/* The next n cycles into in[0..n-1] (for batch callers and bindings). */
void etm_gen_fill(etm_gen_t *g, etm_in_t *in, size_t n);

/* The data transfer whose address is in the cycle etm_gen_next() returned
 * last (x->valid 0 when there is none). */
void etm_gen_last_xfer(const etm_gen_t *g, etm_gen_xfer_t *x);

/* The code image written so far: two windows of 64 KiB. Bytes never written
 * are 0. `window` 0 is thread code, 1 handlers. */
const uint8_t *etm_gen_image(const etm_gen_t *g, unsigned window, uint32_t *base, uint32_t *size);

/* Write the two code windows as binary files (for OpenCSD snapshots and the
 * decoders). Returns ETM_OK or ETM_ERR_IO. */
etm_err_t etm_gen_write_image(const etm_gen_t *g, const char *path_thread, const char *path_handler);

#ifdef __cplusplus
}
#endif
#endif
