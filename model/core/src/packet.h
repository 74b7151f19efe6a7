/* packet.h - stage `packet` (packet.c): the ETMv3 packet stream around the P-headers */
#ifndef ETM_PACKET_H
#define ETM_PACKET_H

#include "dpacket.h"
#include "pheader.h"

typedef struct packet_state {
    uint8_t started_q;     /* an A-sync has been sent */
    uint8_t active_q;      /* an I-sync has been sent and trace is on */
    uint8_t isync_reason_q;/* reason for the I-sync at the next traced instruction */
    uint8_t sync_due_q;    /* periodic synchronisation requested */
    uint8_t cancel_q;      /* the next exception packet carries Cancel */
    uint8_t trig_pend_q;   /* a trigger packet waits behind a cancel */
    uint8_t ovf_q;         /* overflow: trace lost until the FIFO is empty */
    uint8_t single_q;      /* the last packet sent is a P-header holding exactly one atom */
    uint8_t first_q;       /* TRACE_START=1: the next atom is the first after a restart (a header alone) */
    uint8_t exited_q;      /* an exception exited since the last instruction: an entry now tail-chains */
    uint8_t isync_wait_q;  /* SYNC_PLACEMENT=1: a periodic A-sync went out, its I-sync not yet */
    uint8_t isync_due_q;   /*   and half a sync period has passed since: the I-sync is due */
    uint32_t last_addr_q;  /* address of the last I-sync or branch packet */
    uint32_t sync_count_q; /* bytes (v3.1+) or cycles (v3.0) since the last A-sync */
    uint32_t wtotal_q;     /* cycles since reset (cycle-accurate time) */
    uint32_t wsent_q;      /* of those, cycles sent as W atoms or counts */
    pheader_state_t ph;
    dpacket_state_t dp;
} packet_state_t;

void etm_packet_reset(packet_state_t *s);
/* One cycle of ETMv3 trace generation into c. fifo_empty: the FIFO was empty at
 * the start of the cycle. */
void etm_packet_cycle(packet_state_t *s, const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt,
                      int fifo_empty, cycle_buf_t *c, etm_stats_t *st);
/* After every cycle, whatever happened to its bytes. */
/* SYNC_PLACEMENT=1: the I-sync of a periodic A-sync falls due half a sync
 * period after it. */
static inline void etm_packet_isync_count(packet_state_t *s, const etm_mode_t *m)
{
    if (s->isync_wait_q && s->sync_count_q >= m->sync_period / 2)
        s->isync_due_q = 1;
}
static inline void etm_packet_tick(packet_state_t *s, const etm_mode_t *m)
{
    /* Counted after the cycle: an I-sync's count covers the cycles before the
     * instruction that follows it. */
    s->wtotal_q++;
    if (!m->sync_in_bytes && m->sync_period && s->started_q) {
        if (++s->sync_count_q >= m->sync_period)
            s->sync_due_q = 1;
        etm_packet_isync_count(s, m);
    }
}
/* ---- The packet generator's records (PKT_QUEUE > 0; docs/etmv3-encoder.md, "Records") ---- */

/* A cycle's steps in phases (packet.c), tested and run in this order. */
enum { PK_PHASE_EVENTS, PK_PHASE_FIRST, PK_PHASE_PERIODIC, PK_PHASE_ATOMS, PK_PHASE_DONE };

/* What a cycle hands the packet generator. */
typedef struct pk_record {
    fe_cycle_t fe;
    filter_out_t flt;
    uint32_t cycle;        /* its cycle (the stage's cycle count, wtotal_q, when it was made) */
} pk_record_t;

/* The record being generated, a phase a cycle. */
typedef struct pk_gen {
    pk_record_t rec;
    uint8_t phase;         /* PK_PHASE_*: the next phase that applies */
    uint8_t branch_done;   /* phase first or periodic ran */
    uint32_t bytes;        /* bytes of its phases so far */
} pk_gen_t;

/* Whether a cycle makes a record: anything for this stage but, with trace on
 * and nothing else, the W of a cycle-accurate idle cycle (the cycle count
 * carries it). te_last: TraceEnable of the cycle before (updated); only the
 * first cycle with TraceEnable off does something. */
int etm_packet_wants(const etm_mode_t *m, const fe_cycle_t *fe, const filter_out_t *flt, uint8_t *te_last);
/* The cycles before cycle that made no record pass: cycle-accurate with trace
 * on, their W atoms into c (ph_idle), and the cycle counts move. */
void etm_packet_catch_up(packet_state_t *s, const etm_mode_t *m, uint32_t cycle, cycle_buf_t *c);
/* g->rec becomes the record being generated: the cycles since the last
 * record's pass (their W atoms into c), and its first phase is found. */
void etm_packet_begin(packet_state_t *s, const etm_mode_t *m, pk_gen_t *g, cycle_buf_t *c);
/* Runs the record's next phase into c; returns 1 when no phase is left. */
int etm_packet_phase(packet_state_t *s, const etm_mode_t *m, pk_gen_t *g, cycle_buf_t *c, etm_stats_t *st);
/* After its last phase: the record's cycle passes (etm_packet_tick) and its
 * bytes (of all its phases) count towards a periodic sync. */
void etm_packet_record_end(packet_state_t *s, const etm_mode_t *m, uint32_t bytes);
/* Records were lost to an overflow after the last one generated: what was
 * gathered is dropped (etm_packet_overflow), trace restarts with an I-sync. */
void etm_packet_gap(packet_state_t *s);

/* An overflow not traced yet (ETMSR[0]): from the overflow until its restart
 * I-sync (reason overflow) is made, that is while the FIFO drains and then
 * until the next traced instruction. */
static inline int etm_packet_untraced(const packet_state_t *s)
{
    return s->ovf_q || (!s->active_q && s->isync_reason_q == ETMV3_ISYNC_REASON_OVERFLOW);
}

/* The cycle's bytes did not fit in the FIFO: what was gathered is dropped
 * (no roll-back: the rest of the state is the cycle's), and trace is lost
 * until the FIFO drains. */
void etm_packet_overflow(packet_state_t *s);
/* n bytes carrying w W atoms went into the FIFO. */
static inline void etm_packet_accepted_n(packet_state_t *s, const etm_mode_t *m, unsigned n, uint32_t w)
{
    s->wsent_q += w;
    if (m->sync_in_bytes && m->sync_period && s->started_q) {
        s->sync_count_q += n;
        if (s->sync_count_q >= m->sync_period)
            s->sync_due_q = 1;
        etm_packet_isync_count(s, m);
    }
}
/* The cycle's bytes went into the FIFO. */
static inline void etm_packet_accepted(packet_state_t *s, const etm_mode_t *m, const cycle_buf_t *c)
{
    etm_packet_accepted_n(s, m, c->n, c->w);
}
/* End of trace: send everything gathered. */
void etm_packet_end(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c);
/* A plain branch target's packet (its instruction is the target, at to): the
 * atoms gathered, then the branch address packet (instr_cycle's step 5 when no
 * other packet goes with it). */
void etm_packet_plain_branch(packet_state_t *s, const etm_mode_t *m, uint32_t to, cycle_buf_t *c);

/* ETMv3.0 counts its sync period in cycles: n more cycles (that many
 * etm_packet_tick calls) bring a sync due. */
static inline int etm_packet_cycles_bring_sync(const packet_state_t *s, const etm_mode_t *m, uint32_t n)
{
    if (m->sync_in_bytes || !m->sync_period || !s->started_q || !n)
        return 0;
    uint32_t sum = s->sync_count_q + n;
    return sum < s->sync_count_q || sum >= m->sync_period;
}
/* n cycles pass (etm_packet_tick n times, but for the W atoms). */
static inline void etm_packet_tick_n(packet_state_t *s, const etm_mode_t *m, uint32_t n)
{
    s->wtotal_q += n;
    if (!m->sync_in_bytes && m->sync_period && s->started_q) {
        s->sync_due_q = (uint8_t)(s->sync_due_q | etm_packet_cycles_bring_sync(s, m, n));
        s->sync_count_q += n;
        etm_packet_isync_count(s, m);
    }
}


#endif
