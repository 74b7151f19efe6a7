/* pipestat.h - stage `pipestat` (pipestat.c): the ETMv1 port */
#ifndef ETM_PIPESTAT_H
#define ETM_PIPESTAT_H

#include "fifo.h"
#include "filter.h"

typedef struct v1_entry {
    uint16_t seq;         /* identity, for matching data values */
    uint8_t restart;      /* a restart BE (no instruction), reason below */
    uint8_t reason;
    uint8_t resolved;     /* whether it branched is known */
    uint8_t exec;         /* E (1) or N (0) */
    uint8_t branch;       /* BE/BD: its address is target */
    uint32_t target;
    uint8_t fold_it;      /* a folded IT: never the owner of data */
    uint8_t has_data;     /* a transfer belongs to it */
    uint8_t data_done;    /* its last transfer was seen */
    uint8_t nxfer;
    uint8_t nwait;        /* values still to come */
    uint8_t nvbytes;      /* value bytes of its transfers (their lanes) */
    uint32_t daddr;
    uint8_t lanes[ETM_V1_MAX_XFER];
    uint8_t got[ETM_V1_MAX_XFER];
    uint64_t value[ETM_V1_MAX_XFER];
} v1_entry_t;

typedef struct pipestat_state {
    v1_entry_t q[ETM_V1_QUEUE];
    uint8_t head_q, len_q;
    uint8_t open_q;       /* the newest entry is an instruction not yet resolved */
    uint16_t seq_q;
    uint8_t owner_valid_q;/* data transfers go to entry owner_q */
    uint8_t xfer_open_q;  /* the last transfer was not its instruction's last */
    uint16_t owner_q;
    uint8_t slot_valid_q[4];
    uint16_t slot_seq_q[4];
    uint8_t slot_idx_q[4];
    uint8_t active_q;     /* trace has (re)started */
    uint8_t reason_q;     /* reason of the next restart BE */
    uint8_t ovf_q;        /* overflow: lost until the FIFO is empty */
    uint8_t apo_cnt_q, apo_val_q;
    uint8_t nib_q;        /* 4-bit port: the head byte's low nibble has left */
    uint8_t full_daddr_q; /* the next data address goes out in full */
    uint32_t last_baddr_q, last_daddr_q;
    uint32_t since_full_q;/* cycles since the last full branch address */
    /* The writer: a status whose values span transfers has its bytes written a
     * transfer a cycle, after the status left (docs/etmv1-encoder.md). */
    uint8_t gen_left_q;   /* transfers still to write (0: idle) */
    uint8_t gen_k_q;      /* the queue slot they are in (kept from reuse while writing) */
    uint8_t gen_t_q;      /* the next of them */
    uint8_t gen_bn_q;     /* the branch address's packets, written with the last (0: none) */
    uint8_t gen_b_q[5];
} pipestat_state_t;

void etm_pipestat_reset(pipestat_state_t *s);
/* One cycle of ETMv1 output (PIPESTAT, TRACEPKT, TRACESYNC) from this cycle's
 * items, the data slot inputs, TraceEnable and the trigger. */
void etm_pipestat_cycle(pipestat_state_t *s, const etm_mode_t *m, const etm_in_t *in, const fe_cycle_t *fe,
                        const filter_out_t *flt, fifo_state_t *fifo, etm_out_t *out, etm_stats_t *st);
/* End of trace: the last instruction is resolved; queued statuses still drain. */
void etm_pipestat_end(pipestat_state_t *s);
/* Anything left to output (statuses, APO cycles or bytes still to write)? */
int etm_pipestat_busy(const pipestat_state_t *s);

#endif
