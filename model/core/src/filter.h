/* filter.h - stage `filter` (filter.c): TraceEnable, ViewData, the trigger, the counters */
#ifndef ETM_FILTER_H
#define ETM_FILTER_H

#include "frontend.h"

/* What the configuration selects, decoded once (docs/filter.md). */
typedef struct filter_setup {
    uint32_t acvr[ETM_NUM_ADDR_COMP];
    uint32_t amask[ETM_NUM_ADDR_COMP]; /* ETMv3.0 and earlier: address bits compared */
    uint8_t asize[ETM_NUM_ADDR_COMP];  /* ETMv3.1 and later, data: bytes covered (1, 2, 4) */
    uint8_t atype[ETM_NUM_ADDR_COMP];  /* ETMACTR[2:0] */
    uint16_t s_instr, s_data;  /* single comparators comparing instructions / data transfers */
    uint8_t r_instr, r_data;   /* the same for range comparators (pairs) */
    uint16_t s_exact;          /* instruction comparators with the exact-match bit */
    uint8_t r_exact;
    uint8_t v31;               /* ETMv3.1 comparison rules */
    uint8_t v1;                /* ETMv1.x (ETMCNTENR[17]) */
    uint8_t ie_always;         /* no comparator or decoder exists: include/exclude is true */
    uint8_t no_compare;        /* no comparator compares and no DWT input starts or stops: the
                                  cycle's items need not be walked */
    uint8_t plain;             /* no_compare, TraceEnable "always", include/exclude true for
                                  every instruction, no start/stop, no counter counts or reloads:
                                  once on, TraceEnable stays on (etm_filter_plain_ok) */
    uint8_t plain_count1;      /* ... but for a reduced-function counter 1, counting every cycle */
    uint8_t trigger_never;     /* ETMTRIGGER is "never" */
    uint8_t exclude;           /* ETMTECR1[24] */
    uint8_t use_ss;            /* ETMTECR1[25] */
    uint8_t te_range;          /* ETMTECR1[7:0] */
    uint16_t te_single;        /* ETMTECR2[15:0] */
    uint16_t ss_start, ss_stop;     /* ETMTSSCR */
    uint8_t eice_start, eice_stop;  /* ETMTESSEICR */
    uint16_t vd_in_s, vd_ex_s;      /* ETMVDCR1 */
    uint8_t vd_in_r, vd_ex_r, vd_exonly; /* ETMVDCR3 */
    uint8_t ncnt;              /* counters */
    uint8_t reduced1;          /* counter 1 is reduced-function (ETMv3.5, ETMCCER[27]) */
    uint32_t teevr, trigger, vdevr;
    uint32_t cntenr[ETM_NUM_COUNTERS], cntrldevr[ETM_NUM_COUNTERS];
    uint16_t cntrldvr[ETM_NUM_COUNTERS], cntvr[ETM_NUM_COUNTERS];
} filter_setup_t;

void etm_filter_setup(const etm_config_t *cfg, unsigned version, filter_setup_t *f);

typedef struct filter_state {
    uint8_t triggered_q;   /* the trigger event has fired (once per programming) */
    uint8_t ss_q;          /* start/stop block: started */
    uint8_t ie_q;          /* include/exclude result of the last instruction */
    uint8_t te_insn_q;     /* TraceEnable in the last cycle with instructions */
    uint8_t seen_insn_q;   /* an instruction has been seen */
    uint16_t s_latch_q;    /* single comparators: result of their last comparison */
    uint8_t r_latch_q;     /* range comparators: the same */
    uint8_t eice_latch_q;  /* EmbeddedICE (DWT) inputs: the same */
    uint8_t eice_pc_q;     /* DWT comparators whose last match was a PC match */
    uint16_t s_pend_q;     /* exact-match comparators whose instruction matched, */
    uint8_t r_pend_q;      /*   waiting for the next instruction */
    uint16_t cnt_q[ETM_NUM_COUNTERS];
} filter_state_t;

typedef struct filter_out {
    uint8_t trace_enable;  /* TraceEnable in this cycle */
    uint8_t trigger;       /* the trigger event fires in this cycle */
    uint8_t view_data;     /* ViewData for this cycle's data transfer (DASlot != 0) */
    uint8_t ss_change;     /* coverage: bit 0 started, bit 1 stopped in this cycle */
    uint8_t cnt_reload;    /* coverage: counters reloaded in this cycle (bit n: counter n+1) */
    uint8_t ie_hit;        /* coverage: bit 0 an instruction in an include region, bit 1 in an exclude region */
} filter_out_t;

void etm_filter_reset(filter_state_t *s, const filter_setup_t *f);
void etm_filter(filter_state_t *s, const filter_setup_t *f, const etm_in_t *in, const fe_cycle_t *fe,
                filter_out_t *out);


#endif
