/* frontend.h - stage `frontend` (frontend.c): the cycle's interface signals as trace items */
#ifndef ETM_FRONTEND_H
#define ETM_FRONTEND_H

#include "mode.h"

typedef struct fe_atom {
    uint32_t addr;     /* instruction address */
    uint8_t exec;      /* 1 E (passed), 0 N (condition failed) */
    uint8_t target;    /* the instruction is where a traced branch went: its address is sent before its atom */
} fe_atom_t;

typedef struct fe_cycle {
    uint8_t natoms;    /* 0, 1 or 2 */
    fe_atom_t atom[2];
    uint8_t entry;     /* atom 0 is the first instruction of an exception handler */
    uint8_t ret;       /* atom 0 is the first instruction back after an exception return */
    uint8_t exit;      /* an exception exits in this cycle (ETMINTSTAT exit, without an instruction) */
    uint16_t exc;      /* traced exception number for an entry (Cortex-M3 TRM table 14-8) */
    uint8_t cancel;    /* ETMCANCEL: the last instruction did not complete */
    uint8_t flush;     /* ETMFLUSH: a PC change is under way */
    uint8_t fold;      /* atom 1 is an IT folded after atom 0 */
    /* The data slot interface, after the cycle's instructions in trace order. */
    uint32_t dactl;    /* ETMDACTL: a transfer when DASlot != 0 */
    uint32_t da;       /* ETMDA */
    uint8_t ddctl;     /* ETMDDCTL: a value when DDSlot != 0 */
    uint64_t dd;       /* ETMDD (memory view) */
} fe_cycle_t;

void etm_frontend(const etm_mode_t *m, const etm_in_t *in, fe_cycle_t *fe);

#endif
