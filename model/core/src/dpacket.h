/* dpacket.h - stage `packet`, data part (dpacket.c): ETMv3 data packets */
#ifndef ETM_DPACKET_H
#define ETM_DPACKET_H

#include "cbuf.h"
#include "filter.h"

enum { DP_FREE, DP_NEW, DP_PLACED };

typedef struct dp_entry {
    uint8_t state;      /* DP_FREE, DP_NEW (nothing output yet), DP_PLACED (placeholder out, tag = index + 1) */
    uint8_t a;          /* A bit: the first packet of the instruction, or not the word after the last */
    uint8_t unal;       /* the two halves of an unaligned access */
    uint8_t need;       /* values still to come: bit 0 the first half's, bit 1 the second's */
    uint8_t slot1, slot2; /* the halves' slots (slot2 0 until the second half's address) */
    uint8_t fail, imp;  /* DDFail, DDImpAbort seen on a value */
    uint16_t seq;       /* order of the addresses */
    uint32_t addr;      /* ETMDA of the (first half's) transfer */
    uint32_t ctl1, ctl2;/* ETMDACTL of the halves */
    uint64_t dd1, dd2;  /* their values */
} dp_entry_t;

typedef struct dpacket_state {
    dp_entry_t ent_q[ETM_DP_ENTRIES];
    uint8_t owner_q[4];     /* slot s waits for a value of entry owner_q[s] - 1 (0: none) */
    uint16_t seq_q;
    uint8_t first_q;        /* the next transfer is the first of an instruction */
    uint8_t unal_q;         /* the next transfer is the second half of an unaligned access, */
    uint8_t unal_ent_q;     /*   of entry unal_ent_q - 1 (0: that access is not traced) */
    uint8_t newest_q;       /* the newest instruction was traced */
    uint8_t ins_traced_q;   /* the current data instruction is traced */
    uint8_t ins_started_q;  /* one of its transfers has been traced */
    uint8_t dfull_q;        /* D-sync: the next data address goes out in full */
    uint32_t last_daddr_q;  /* the last data address output */
} dpacket_state_t;

void dp_reset(dpacket_state_t *d);
/* The cycle's value (before its instructions' packets). */
void dp_values(dpacket_state_t *d, const etm_mode_t *m, const fe_cycle_t *fe, cycle_buf_t *c);
/* Where the cycle's transfer stands in its instruction: follows the interface
 * in every cycle, traced or not, and is kept when an overflow discards the
 * cycle (first_q, unal_q). */
enum { DP_XFER_NONE, DP_XFER_FIRST, DP_XFER_LATER, DP_XFER_SECOND_HALF };
unsigned dp_sequence(dpacket_state_t *d, const fe_cycle_t *fe);
/* The cycle's transfer (after its instructions' packets), in two steps. The
 * first abandons a value still waiting on its slot and follows the
 * instruction's transfers; it returns DP_ADDR_NONE when the transfer puts no
 * packet, DP_ADDR_FIRST when it is the instruction's first traced transfer
 * (the atoms gathered, its own among them, go out before it: the packet stage
 * closes them), DP_ADDR_NEXT for a later one. dp_address_put then puts it. */
enum { DP_ADDR_NONE, DP_ADDR_FIRST, DP_ADDR_NEXT };
unsigned dp_address_begin(dpacket_state_t *d, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                          unsigned kind, cycle_buf_t *c);
void dp_address_put(dpacket_state_t *d, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                    cycle_buf_t *c);
/* Transfers still waiting for their values get placeholders now, oldest first:
 * before a P-header with atoms, and before a non-periodic I-sync. */
void dp_place_all(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c);
/* The same placeholders put into c before its byte at (where a P-header with
 * atoms begins: cbuf.h, atoms_at). */
void dp_place_at(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c, unsigned at);
/* Trace lost (overflow) or ended: the waiting transfers are dropped. */
void dp_drop(dpacket_state_t *d);

#endif
