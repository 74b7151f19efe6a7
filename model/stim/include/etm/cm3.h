/* etm/cm3.h - a Cortex-M3 timing model: executed instructions in, the ETM
 * interface signals of every core clock out (etm_in_t, Cortex-M3 TRM table 16.1).
 *
 * An instruction-set simulator (QEMU, through workloads/recorder) says *what*
 * executed: one etm_cm3_insn_t per instruction, in program order, with its
 * condition outcome, whether it changed the PC, and the exception entries,
 * returns and tail-chains between instructions. This model says *when*: it gives
 * each instruction the cycles of the Cortex-M3 TRM's instruction timings
 * (DDI 0337, "Instruction timings", table 3-1 and its notes), adds pipeline
 * refills after PC changes, exception entry, return and tail-chain latencies,
 * and drives ETMIVALID, ETMIBRANCH, ETMIINDBR, ETMICCFAIL, ETMFOLD, ETMFLUSH,
 * ETMFINDBR, ETMCANCEL, ETMISTALL, ETMINTSTAT and ETMINTNUM so that every cycle
 * obeys the interface rules (docs/interface.md, stage `check`). The parameters
 * are a what-if knob; docs/cm3-timing.md gives the defaults and their sources.
 *
 *     etm_cm3_t *m;
 *     etm_cm3_create(&m, &params, &diag);
 *     for each executed instruction r:
 *         etm_cm3_put(m, &r, &diag);
 *         while (etm_cm3_cycle(m, &in, ev, &nev) == ETM_OK)   -> one core clock
 *             ...
 *     etm_cm3_finish(m);
 *     while (etm_cm3_cycle(m, &in, ev, &nev) == ETM_OK) ...
 *     etm_cm3_free(m);
 *
 * Streaming: the model looks one instruction ahead (an IT may fold into the
 * instruction before it; what follows an instruction decides its refill), so
 * the cycles of an instruction come out once the next one has been put.
 * No global state; the library never prints.
 */
#ifndef ETM_CM3_H
#define ETM_CM3_H

#include <stddef.h>
#include <stdint.h>

#include "etm/error.h"
#include "etm/gen.h"
#include "etm/signals.h"
#include "etm/thumb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Thumb-2 instructions of ARMv7-M, as far as timing and flow need them -- */

typedef enum etm_cm3_kind {
    ETM_CM3_K_ALU,      /* data processing, moves, shifts, extends, bit fields, saturation, ADR */
    ETM_CM3_K_MUL,      /* MUL (32-bit result): 1 cycle */
    ETM_CM3_K_MLA,      /* MLA, MLS: 2 cycles */
    ETM_CM3_K_MULL,     /* SMULL, UMULL: 3-5 cycles */
    ETM_CM3_K_MLAL,     /* SMLAL, UMLAL: 4-7 cycles */
    ETM_CM3_K_DIV,      /* SDIV, UDIV: 2-12 cycles */
    ETM_CM3_K_LOAD,     /* LDR, LDRB, LDRH, LDRSB, LDRSH, LDREX*, literal loads */
    ETM_CM3_K_STORE,    /* STR, STRB, STRH, STREX* */
    ETM_CM3_K_LDRD,     /* LDRD */
    ETM_CM3_K_STRD,     /* STRD */
    ETM_CM3_K_LDM,      /* LDM, POP */
    ETM_CM3_K_STM,      /* STM, PUSH */
    ETM_CM3_K_BCOND,    /* B<c> (16- and 32-bit) */
    ETM_CM3_K_B,        /* B, B.W */
    ETM_CM3_K_BL,       /* BL */
    ETM_CM3_K_CBZ,      /* CBZ, CBNZ */
    ETM_CM3_K_BX,       /* BX */
    ETM_CM3_K_BLX,      /* BLX register */
    ETM_CM3_K_TB,       /* TBB, TBH */
    ETM_CM3_K_IT,       /* IT */
    ETM_CM3_K_SVC,      /* SVC */
    ETM_CM3_K_BKPT,     /* BKPT (also the semihosting call) */
    ETM_CM3_K_HINT,     /* NOP, YIELD, WFE, WFI, SEV, PLD, PLI */
    ETM_CM3_K_BARRIER,  /* DMB, DSB, ISB */
    ETM_CM3_K_SYSREG,   /* MRS, MSR, CPS */
    ETM_CM3_K_UNDEF,    /* not an ARMv7-M instruction the classifier knows */
    ETM_CM3_K_COUNT
} etm_cm3_kind_t;

/* Short name of a kind ("alu", "load", "bcond", ...). */
const char *etm_cm3_kind_name(etm_cm3_kind_t k);

typedef struct etm_cm3_class {
    etm_cm3_kind_t kind;
    unsigned size;        /* 2 or 4 */
    int writes_pc;        /* can change the PC: branches, loads and moves to the PC, POP/LDM with PC */
    int indirect;         /* ... and the destination is not in the instruction (ETMIINDBR) */
    uint32_t target;      /* direct branches: the destination (needs the address) */
    unsigned cond;        /* B<c>: its condition; otherwise 14 (always) */
    unsigned nregs;       /* LDM/STM/PUSH/POP: registers transferred, PC included */
    unsigned it_firstcond, it_mask; /* IT: firstcond[3:0], mask[3:0] */
    uint16_t writes;      /* registers written (bit n = Rn; bit 15 = PC) */
    uint16_t addr_regs;   /* loads and stores: registers that form the address */
    int reg_offset;       /* a store with a register offset (nothing pipelines after it) */
    int wide_hint;        /* ISB: the pipeline is refilled */
} etm_cm3_class_t;

/* Classify the instruction at addr: opcode as in etm_cm3_insn_t (16-bit in [15:0],
 * 32-bit with its first halfword in [31:16]), size 2 or 4. Never fails: what it
 * does not know is ETM_CM3_K_UNDEF. */
void etm_cm3_classify(uint32_t addr, uint32_t opcode, unsigned size, etm_cm3_class_t *c);

/* Size of the instruction whose first halfword is hw1: 4 for a 32-bit encoding
 * (etm_thumb_size). */
static inline unsigned etm_cm3_insn_size(uint32_t hw1)
{
    return etm_thumb_size(hw1);
}

/* Does condition cond (0-15) pass with flags nzcv (xPSR[31:28])? */
int etm_cm3_cond_pass(unsigned cond, unsigned nzcv);

/* ---- Executed instructions ------------------------------------------------- */

#define ETM_CM3_MAX_MEM 16  /* memory accesses one instruction makes (LDM/STM of 16 words) */

typedef struct etm_cm3_mem {
    uint32_t addr;
    uint8_t size;   /* bytes */
    uint8_t write;  /* 1 store, 0 load */
    uint8_t io;     /* device memory: the value is not known (but value_known) */
    uint8_t value_known; /* io: value is known all the same (a single store's register) */
    uint64_t value;
} etm_cm3_mem_t;

/* Branch kind of an instruction (from its opcode). */
typedef enum etm_cm3_branch {
    ETM_CM3_BR_NONE,     /* does not write the PC */
    ETM_CM3_BR_DIRECT,   /* B, B<c>, BL, CBZ/CBNZ: the target is in the instruction */
    ETM_CM3_BR_INDIRECT  /* BX, BLX, loads to the PC, POP/LDM with PC, TBB/TBH, MOV/ADD pc */
} etm_cm3_branch_t;

/* What happened between the previous instruction and this one. */
typedef enum etm_cm3_ctx {
    ETM_CM3_CTX_SAME,      /* nothing: same execution context */
    ETM_CM3_CTX_ENTRY,     /* exception entry: this is the handler's first instruction */
    ETM_CM3_CTX_RETURN,    /* exception return: first instruction back in the interrupted context */
    ETM_CM3_CTX_TAILCHAIN  /* a handler returned straight into another: this is its first instruction */
} etm_cm3_ctx_t;

typedef struct etm_cm3_insn {
    uint32_t addr;
    uint32_t opcode;     /* 16-bit: [15:0]; 32-bit: first halfword in [31:16] */
    uint8_t size;        /* 2 or 4 */
    uint8_t executed;    /* 0: failed its condition (an IT-block instruction, a B<c> or
                            CBZ/CBNZ not taken): ETMICCFAIL */
    uint8_t branch;      /* etm_cm3_branch_t: can the instruction change the PC, and how */
    uint8_t taken;       /* the instruction changed the PC */
    uint8_t in_it;       /* it is inside an IT block */
    uint8_t cond;        /* condition it was executed under (IT or B<c>); 14 always */
    uint8_t ctx;         /* etm_cm3_ctx_t */
    uint16_t excnum;     /* ENTRY, TAILCHAIN: the exception entered; RETURN: the one returned to */
    uint16_t ipsr;       /* exception number of the context it runs in (0 thread mode) */
    uint32_t next;       /* where execution goes on in this context: the target when taken, else
                            addr + size; 0xFFFFFFFx for an exception return */
    uint8_t async;       /* ENTRY: asynchronous (not caused by the instruction before it) */
    uint8_t ret_valid;   /* ENTRY: the instruction the handler returns to is known: */
    uint8_t ret_in_it;   /*   ... it is inside an IT block */
    uint8_t ret_size;
    uint32_t ret_addr, ret_opcode;
    uint8_t nval;        /* operand values read before the instruction: SDIV/UDIV, SMULL/UMULL/ */
    uint32_t val[2];     /*   SMLAL/UMLAL: Rn, Rm; CBZ/CBNZ: Rn; BX/BLX/MOV pc: Rm */
    uint8_t nmem;        /* memory accesses, in the order they were made */
    etm_cm3_mem_t mem[ETM_CM3_MAX_MEM];
} etm_cm3_insn_t;

/* One line of text for a record (no newline): "ADDR SIZE OPCODE E|N [br=dir|ind] [key=value]...",
 * docs/cm3-timing.md gives the keys. Returns buf. */
char *etm_cm3_insn_format(const etm_cm3_insn_t *r, char *buf, size_t size);

/* Parse such a line. Returns ETM_OK, ETM_ERR_SYNTAX or ETM_ERR_BAD_NUMBER (diag->msg
 * names the field; the caller sets file and line). */
etm_err_t etm_cm3_insn_parse(const char *line, etm_cm3_insn_t *r, etm_diag_t *diag);

/* ---- Timing parameters ------------------------------------------------------- */

typedef struct etm_cm3_params {
    unsigned refill;           /* P: refill cycles after a PC change */
    unsigned refill_unaligned; /* more when the target is a 32-bit instruction not on a word boundary */
    unsigned load;             /* LDR/STR single */
    unsigned ldst_pipeline;    /* 1: a load or store single after a load single, not using its result
                                  for the address, takes 1 cycle */
    unsigned agu_stall;        /* extra cycle for a load/store whose address register the instruction
                                  just before wrote */
    unsigned mla;              /* MLA, MLS */
    unsigned mull;             /* SMULL, UMULL: the fewest cycles (early termination adds up to 2) */
    unsigned mlal;             /* SMLAL, UMLAL: the fewest cycles (adds up to 3) */
    unsigned div_min, div_max; /* SDIV, UDIV: bounds of the early-terminating divider */
    unsigned exc_entry;        /* cycles from the start of exception entry to the handler's first instruction */
    unsigned exc_return;       /* from the end of the returning instruction to the interrupted context */
    unsigned tail_chain;       /* from the end of a handler to the next handler */
    unsigned fold;             /* 1: an IT after a 16-bit single-cycle instruction is folded into it */
    unsigned cancel;           /* 1: an asynchronous exception taken before a multi-cycle instruction
                                  interrupts it in its second cycle: ETMCANCEL, re-executed on return */
    unsigned mmio_wait;        /* wait states of a load/store to device memory */
    unsigned ppb_apb;          /* cycles a load/store to the debug APB (external PPB) holds the core
                                  after its own; its accesses to the ETM drive the ETM's APB */
} etm_cm3_params_t;

/* The defaults (docs/cm3-timing.md). */
void etm_cm3_params_default(etm_cm3_params_t *p);

/* Set one parameter by name ("refill", "exc_entry", ...). Returns ETM_OK,
 * ETM_ERR_UNKNOWN_NAME or ETM_ERR_ARG (value out of range); diag says why. */
etm_err_t etm_cm3_param_set(etm_cm3_params_t *p, const char *name, unsigned value, etm_diag_t *diag);

/* The i-th parameter: name, one line of documentation, current value in p.
 * Returns 0 past the last one. */
int etm_cm3_param_get(const etm_cm3_params_t *p, unsigned i, const char **name, const char **doc,
                      unsigned *value);

/* ---- The model ------------------------------------------------------------------ */

typedef struct etm_cm3 etm_cm3_t;

/* Returns ETM_OK, ETM_ERR_NOMEM or ETM_ERR_ARG (parameters out of range). */
etm_err_t etm_cm3_create(etm_cm3_t **out, const etm_cm3_params_t *p, etm_diag_t *diag);
void etm_cm3_free(etm_cm3_t *m);

/* The next executed instruction. Returns ETM_OK; ETM_ERR_STATE if the cycles of
 * the instructions put so far were not taken out first (call etm_cm3_cycle until
 * it returns ETM_END) or after etm_cm3_finish; ETM_ERR_ARG for a record the model
 * cannot time (a size other than 2 or 4, an exception entry with number 0...);
 * diag says which instruction (diag->cycle is its index, 0-based). */
etm_err_t etm_cm3_put(etm_cm3_t *m, const etm_cm3_insn_t *r, etm_diag_t *diag);

/* No more instructions: the last one's cycles can come out. */
void etm_cm3_finish(etm_cm3_t *m);

/* The next core clock: fills *in and returns ETM_OK, or ETM_END when the model
 * needs the next instruction (or, after etm_cm3_finish, has no more cycles).
 * ev (may be NULL) receives up to ETM_GEN_MAX_EVENTS events saying what retired
 * in the cycle, as etm_gen_next() reports them: INSN (with its cycle), CANCEL,
 * EXC_ENTRY, EXC_RETURN (for a tail-chain: EXC_ENTRY only); *nev their number. */
etm_err_t etm_cm3_cycle(etm_cm3_t *m, etm_in_t *in, etm_gen_event_t *ev, unsigned *nev);

/* Hold the core for one clock, as a core does while the ETM asserts FIFOFULL
 * (ETMCR[7]): the next etm_cm3_cycle gives a held cycle, ETMISTALL with nothing
 * else but the ETMINTNUM of the cycle before it; no instruction, no event, and
 * the cycles that were due come after it unchanged. Call it before each
 * etm_cm3_cycle that is to be held (two calls before one etm_cm3_cycle still
 * hold one cycle). It applies whether or not the model is waiting for its next
 * instruction; after etm_cm3_finish, once no cycles are left, there is no core
 * to hold and etm_cm3_cycle returns ETM_END. Held cycles keep every interface
 * rule, count in cycles and in held_cycles, and move the cycle numbers of later
 * events. */
void etm_cm3_stall(etm_cm3_t *m);

typedef struct etm_cm3_stats {
    uint64_t cycles;            /* cycles given out */
    uint64_t insns;             /* instructions put */
    uint64_t executed;          /* ... that passed their condition */
    uint64_t kinds[ETM_CM3_K_COUNT];
    uint64_t taken;             /* PC changes by instructions */
    uint64_t entries, returns, tail_chains, cancels, folds;
    uint64_t refill_cycles, stall_cycles, exception_cycles;
    uint64_t held_cycles;       /* cycles held by etm_cm3_stall (in cycles too) */
    uint64_t etm_accesses;      /* loads and stores to the ETM's registers, driven on its APB (PSEL) */
    uint64_t tpiu_accesses;     /* loads and stores to the TPIU's, driven on the same APB (PSELTPIU) */
    uint64_t etm_unknown_stores; /* ... stores among both whose value the record does not hold (not driven) */
    uint64_t etm_undriven;      /* ... accesses of one cycle: no room for an APB transfer (not driven) */
} etm_cm3_stats_t;

const etm_cm3_stats_t *etm_cm3_get_stats(const etm_cm3_t *m);

#ifdef __cplusplus
}
#endif
#endif
