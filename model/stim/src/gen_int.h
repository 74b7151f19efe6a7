/* gen_int.h - what the files of the random stimulus generator share (internal).
 *
 *   gen.c       parameters, the cycle queue, execution (exceptions, branches,
 *               timing) and etm_gen_next()
 *   gen_code.c  the code image: Thumb-2 encodings, decoding, synthesis
 *   gen_data.c  data transfers (ETMDA, ETMDACTL, ETMDD)
 */
#ifndef ETM_GEN_INT_H
#define ETM_GEN_INT_H

#include <stdint.h>

#include "etm/gen.h"

#define WIN 0x10000u
#define QCAP 128u
#define MAX_NEST 4
#define MAX_CALLS 64
#define MAX_ENTRIES 256
#define MAX_DDS 16

/* Halfword tags in the code image. */
enum { H_FREE = 0, H_START = 1, H_SECOND = 2, H_ITBODY = 3 };

enum kind {
    K_ALU16, K_ALU32, K_LDR, K_STR, K_LDRW, K_LDM, K_STM, K_PUSH, K_DIV,
    K_BCOND, K_B, K_BW, K_BL, K_CBZ, K_BX, K_BLX, K_POPPC, K_LDRPC, K_IT, K_SVC, K_STREX
};

typedef struct insn {
    enum kind kind;
    unsigned size;
    uint32_t target;  /* direct branches */
    unsigned nregs;   /* LDM/STM/PUSH/POP: registers transferred */
    int is_return;    /* BX LR, POP {pc} */
    unsigned it_count; /* IT: instructions in the block */
    unsigned msize;   /* LDR/STR: bytes accessed (1, 2 or 4) */
} insn_t;

typedef struct qent {
    etm_in_t in;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    unsigned nev;
    etm_gen_xfer_t x;  /* the transfer whose address is in this cycle */
} qent_t;

typedef struct exc_frame {
    uint32_t ret;
    uint16_t prev_num;
    int call_base;
    unsigned it_left;
} exc_frame_t;

struct etm_gen {
    etm_gen_params_t p;
    uint64_t rng;
    etm_atb_stall_t atb;           /* ATB back-pressure, its own random stream */
    uint8_t mem[2][WIN];
    uint8_t tag[2][WIN / 2];
    uint32_t pc;
    uint16_t cur_num;              /* exception number of the current context, 0 thread */
    exc_frame_t exc[MAX_NEST];
    int nexc;
    uint32_t calls[MAX_CALLS];
    int ncalls;
    uint32_t entries[MAX_ENTRIES]; /* known function entries / indirect targets */
    unsigned nentries;
    unsigned it_left;              /* conditional instructions left in the IT block */
    /* Flags for the next instruction signalled. */
    int next_ibranch, next_iindbr;
    uint8_t next_intstat;
    uint16_t next_intnum;
    etm_gen_event_t next_event;    /* exception event to attach to it */
    int has_next_event;
    /* Cycle queue. */
    qent_t q[QCAP];
    unsigned qhead, qlen;
    uint64_t cycle;                /* absolute number of q[qhead] */
    /* Data values scheduled for future cycles (acycle: their address's). */
    struct { uint64_t cycle, acycle; uint8_t slot, flags; uint64_t value; } dd[MAX_DDS];
    unsigned ndd;
    etm_gen_xfer_t last_x;         /* the transfer of the cycle returned last */
    unsigned next_slot;
    uint64_t next_irq;
    uint64_t sleep_left;           /* idle cycles of a WFI still to come */
};

/* ---- Random numbers ------------------------------------------------------------ */

static inline uint64_t gen_rnd(etm_gen_t *g)
{
    g->rng ^= g->rng >> 12;
    g->rng ^= g->rng << 25;
    g->rng ^= g->rng >> 27;
    return g->rng * 2685821657736338717ull;
}
static inline unsigned gen_below(etm_gen_t *g, unsigned n) { return n ? (unsigned)((gen_rnd(g) >> 16) % n) : 0; }
static inline int gen_pct(etm_gen_t *g, unsigned p) { return gen_below(g, 100) < p; }

/* ---- Code image (gen_code.c) -------------------------------------------------------- */

/* Tag of the halfword at a (H_SECOND outside the windows: never usable). */
unsigned gen_tag_at(const etm_gen_t *g, uint32_t a);

/* Are n bytes from a free, inside one window, away from its last 64 bytes? */
int gen_space_free(const etm_gen_t *g, uint32_t a, unsigned n);

/* A random destination for an indirect branch that is not a return. */
uint32_t gen_indirect_target(etm_gen_t *g, uint32_t from);

/* Decode an instruction the synthesizer wrote. */
insn_t gen_decode(const etm_gen_t *g, uint32_t a);

/* Write an ALU instruction at a (32-bit only if allow32 and there is room). */
void gen_synth_alu(etm_gen_t *g, uint32_t a, int allow32, unsigned tag);

/* Write a new instruction at a (a is free). */
void gen_synthesize(etm_gen_t *g, uint32_t a);

/* Make sure a place a branch may come back to holds an instruction. */
void gen_reserve(etm_gen_t *g, uint32_t a);

/* ---- Cycle queue (gen.c) ------------------------------------------------------------ */

/* A new cycle at the end of the queue, in the current context. */
qent_t *gen_push_cycle(etm_gen_t *g);

/* ---- Data transfers (gen_data.c) ------------------------------------------------------ */

/* What an instruction's transfers are. */
typedef struct xspec {
    unsigned n;           /* registers (words); 1 for a single access */
    unsigned size;        /* bytes of a single access: 1, 2 or 4 */
    int write;
    int allow_unaligned;
    int strex;            /* STREX: its value may say the store failed */
    int pc_first;         /* POP {.., pc}: the PC may be loaded first */
    uint32_t insn;        /* the instruction's address */
} xspec_t;

/* Transfers of an instruction whose IVALID cycle is queue entry first_idx. */
void gen_data_transfers(etm_gen_t *g, unsigned first_idx, const xspec_t *xs);

#endif
