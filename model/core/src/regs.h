/* regs.h - stage `regs` (regs.c): the programmer's model on the debug APB */
#ifndef ETM_REGS_H
#define ETM_REGS_H

#include "mode.h"

typedef struct regs_state {
    uint8_t has_lock;   /* the lock registers exist (ETMv3.2 on) */
    uint8_t locked_q;   /* ETMLSR[1]: software writes are locked out (set at reset) */
    uint8_t claim_q;    /* the claim tags */
    uint8_t setup_q;    /* the last cycle was an APB setup phase (PSEL, no PENABLE) */
    uint8_t stop_q;     /* tracing was stopped at the last edge (ETMCR[10] or [0] set): this
                           cycle closes what the trace stages gathered */
    uint8_t restart_q;  /* tracing was enabled at the last edge: this cycle resets the
                           trace stages, which start again at the next */
} regs_state_t;

/* What the status registers read from the rest of the ETM in this cycle. */
typedef struct regs_live {
    uint8_t overflow;   /* ETMSR[0]: an overflow whose restart is not yet traced */
    uint8_t drained;    /* ETMv3: nothing gathered waits, the FIFO is empty */
    uint8_t ss;         /* ETMSR[2]: the start/stop block's state */
    uint8_t triggered;  /* ETMSR[3]: the trigger has fired since programming */
    uint8_t live_cnt;   /* the counters run: ETMCNTVR reads them, not the register */
    uint16_t cnt[ETM_NUM_COUNTERS];
} regs_live_t;

/* One APB transfer phase: what the cycle's access is, before the edge. */
typedef struct regs_access {
    uint8_t write;      /* a write lands at this edge */
    etm_regloc_t loc;   /* the register it writes */
    uint32_t value;     /* the bits it writes (the write mask applied) */
    uint32_t mask;      /* the bits it changes */
} regs_access_t;

void etm_regs_reset(regs_state_t *r, unsigned version);

/* The cycle's APB: read data into out->prdata (and PREADY), the write (if
 * any, and legal) into *acc for etm_regs_commit, and the broken rules as a
 * bit mask (bit r: etm_rule_t r). */
uint64_t etm_regs_cycle(regs_state_t *r, const etm_config_t *cfg, const regs_live_t *live,
                        const etm_in_t *in, etm_out_t *out, regs_access_t *acc);

/* The edge: the write into cfg (and the lock and claim tags). */
void etm_regs_commit(regs_state_t *r, etm_config_t *cfg, const regs_access_t *acc);


#endif
