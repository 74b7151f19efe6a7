/* stages.h - the stages of the model and the state each keeps (internal).
 *
 * State fields end in _q like the RTL's flip-flops of the same name; a stage's
 * step function reads the _q values and this cycle's inputs and writes the new
 * values, which etm_step commits at the end of the cycle (the C functions may
 * write in place where no later reader of the same cycle needs the old value).
 */
#ifndef ETM_STAGES_H
#define ETM_STAGES_H

#include <stdint.h>
#include <string.h>

#include "etm/check.h"
#include "etm/config.h"
#include "etm/consts.h"
#include "etm/model.h"
#include "etm/regmap.h"
#include "etm/signals.h"

/* A path kept out of line, so that the common path beside it needs no stack
 * frame of its own. */
#if defined(__GNUC__)
#define ETM_NOINLINE __attribute__((noinline))
#else
#define ETM_NOINLINE
#endif
/* A step of the common path, inlined into it. */
#if defined(__GNUC__)
#define ETM_INLINE inline __attribute__((always_inline))
#else
#define ETM_INLINE inline
#endif

/* A pointer through which alone its object is reached in the function (the
 * plain-cycle path's context, inputs and outputs), so that a store to one
 * output byte does not make the compiler read the context again. */
#if defined(__GNUC__)
#define ETM_RESTRICT __restrict__
#else
#define ETM_RESTRICT
#endif

/* Header codes, reasons, PIPESTAT codes and sizes: etm/consts.h (etm/consts.def). */

/* ---- check: what a plain cycle does to it (check.c; the rest is etm/check.h) ---- */

/* A cycle that breaks no rule and carries no data slot activity: an
 * instruction is counted for the data address rules, and the cycle. For the
 * plain-cycle path (etm.c), which knows the cycle breaks none when no cancel
 * waits (etm_check_plain_ok). */
static inline int etm_check_plain_ok(const etm_check_t *c) { return !c->cancel_q; }
static inline void etm_check_plain(etm_check_t *c, uint8_t ivalid)
{
    c->insn_q = (uint8_t)(c->insn_q | (ivalid != 0));
    c->cycle++;
}

/* ---- Version and mode, decoded once from the configuration ------------------ */

typedef struct etm_mode {
    unsigned version;      /* ETM_V() */
    int v3;                /* ETMv3 packet protocol (else ETMv1) */
    int cycle_accurate;    /* ETMCR[12] */
    int branch_broadcast;  /* ETMCR[8] */
    int alt_branch;        /* ETMIDR[20] with ETMv3.4 or later */
    int format4;           /* ETMv3.3 and later */
    int exc_ext;           /* ETMv3.4 and later: the exception-return packet (0x76) and
                              exception byte 1 (exception numbers of 16 and more) */
    int sync_in_bytes;     /* ETMv3.1 and later: ETMSYNCFR counts bytes */
    int enabled;           /* not powered down and not being programmed */
    uint32_t sync_period;  /* ETMSYNCFR; 0 means no periodic sync */
    unsigned fifo_depth, port_bytes;
    unsigned fifo_write;   /* ETMv3: staged bytes entering the FIFO's store per cycle (FIFO_WRITE) */
    unsigned pkt_queue;    /* ETMv3: cycle records waiting for the packet generator (PKT_QUEUE; 0: none) */
    int ph_eager;          /* PH_EAGER: ETMFLUSH closes the atoms gathered (else only a packet or a full header) */
    int branch_full;       /* BRANCH_FULL: branch packets carry the whole address */
    uint8_t trace_id;      /* ETMTRACEIDR[6:0]: ATID */
    uint8_t atb_flush;     /* the ATB master has the flush handshake (PORT_BYTES > 1) */
    unsigned v1_port_bits; /* ETMv1: 4, 8 or 16 (ETMCR port size) */
    int data_addr;         /* ETMCR[3]: data addresses traced */
    int data_value;        /* ETMCR[2]: data values traced */
    unsigned fifofull_level; /* ETMCR[7] ? ETMFFLR : 0: FIFOFULL below this many free bytes */
} etm_mode_t;

/* ---- frontend ------------------------------------------------------------------ */

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

/* ---- filter ---------------------------------------------------------------------- */

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
/* The plain-cycle path (etm.c): with this setup and state, a cycle whose
 * inputs have no ETMCANCEL, no DWT match (ETMTRIGGER), no data transfer and no
 * second instruction leaves TraceEnable on, fires no trigger and reloads no
 * counter; etm_filter_plain is then all that etm_filter does. */
static inline int etm_filter_plain_ok(const filter_setup_t *f, const filter_state_t *s)
{
    /* TraceEnable is on after an instruction and, with a plain setup, stays on;
     * the trigger is never or has fired (it fires once). */
    return f->plain && s->seen_insn_q && s->te_insn_q && (s->triggered_q || f->trigger_never);
}
/* What etm_filter changes in such a cycle: nothing compares, so only the DWT
 * inputs' latch (a comparison without a match: an instruction for the PC
 * comparators, ETMDVALID for the others), the instruction's
 * include/exclude term (true) and a reduced-function counter 1 move.
 * Returns filter_out_t's cnt_reload. */
static inline uint8_t etm_filter_plain(filter_state_t *s, const filter_setup_t *f, const etm_in_t *in)
{
    uint8_t reload = 0;
    if (f->plain_count1) { /* as count() */
        if (s->cnt_q[0] == 0) {
            s->cnt_q[0] = f->cntrldvr[0];
            reload = 1;
        } else {
            s->cnt_q[0]--;
        }
    }
    uint8_t e_cmp = (uint8_t)(((in->ivalid ? s->eice_pc_q : 0) | (in->dvalid ? ~s->eice_pc_q : 0)) & 0xf);
    s->eice_latch_q = (uint8_t)(s->eice_latch_q & ~e_cmp);
    s->ie_q = (uint8_t)(s->ie_q | (in->ivalid != 0)); /* an instruction's term is true */
    return reload;
}

/* ---- cbuf: the cycle buffer, one cycle's ETMv3 packets (cbuf.c) ----------------------- */

struct cycle_buf;
typedef void (*cbuf_hook_fn)(void *user, struct cycle_buf *c);

typedef struct cycle_buf {
    uint8_t b[ETM_CYCLE_BYTES_MAX];
    unsigned n;
    unsigned overrun;     /* bytes that did not fit (never expected: an internal error) */
    uint32_t w;           /* W atoms (and counts) these bytes carry */
    uint8_t kinds[ETM_PKT_ALL_COUNT]; /* packets by kind, for the statistics (a cycle's bytes make
                                         fewer than 256 packets) */
    uint32_t kmask;       /* the kinds counted (bit k: kinds[k] is not 0) */
    uint8_t last_single;  /* the last P-header or other non-data packet is a P-header holding exactly one atom */
    unsigned atoms;       /* atoms of this cycle that were traced */
    uint64_t ends[(ETM_CYCLE_BYTES_MAX + 63) / 64]; /* bit i: byte i is the last of its packet */
    /* Called before a P-header with atoms goes out: with data trace, the
     * transfers waiting for their values get their placeholders first. */
    cbuf_hook_fn hook;
    void *hook_user;
} cycle_buf_t;

/* An empty buffer; last_single: the packet before it is a P-header with one atom. */
static inline void cbuf_init(cycle_buf_t *c, uint8_t last_single)
{
    /* The bytes past n are never read: only the counts are cleared. */
    c->n = 0;
    c->overrun = 0;
    c->w = 0;
    memset(c->kinds, 0, sizeof c->kinds);
    c->kmask = 0;
    c->last_single = last_single;
    c->atoms = 0;
    memset(c->ends, 0, sizeof c->ends);
    c->hook = NULL;
    c->hook_user = NULL;
}
/* The index of the lowest set bit of m (m not 0). */
static inline unsigned etm_lowest_bit(uint32_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned k = 0;
    while (!(m & 1u)) {
        m >>= 1;
        k++;
    }
    return k;
#endif
}
/* kmask has a bit for every kind. */
typedef char cbuf_kinds_fit_mask[ETM_PKT_ALL_COUNT <= 32 ? 1 : -1];
/* One more packet of kind k (etm_pkt_kind_t), whose last byte is the last put. */
static inline void cbuf_kind(cycle_buf_t *c, unsigned k)
{
    c->kinds[k]++;
    c->kmask |= 1u << k;
    if (c->n)
        c->ends[(c->n - 1) / 64] |= 1ull << ((c->n - 1) % 64);
}
static inline void cbuf_put(cycle_buf_t *c, uint8_t byte)
{
    if (c->n < ETM_CYCLE_BYTES_MAX)
        c->b[c->n++] = byte;
    else
        c->overrun++;
}
void cbuf_put_bytes(cycle_buf_t *c, const uint8_t *b, unsigned n);
void cbuf_on_atoms(cycle_buf_t *c, cbuf_hook_fn fn, void *user);
/* A P-header with atoms is about to be put. */
void cbuf_before_atoms(cycle_buf_t *c);

/* ---- pheader ------------------------------------------------------------------------------ */

typedef struct pheader_state {
    uint8_t open_q;        /* PH_OPEN_*: the header being built */
    uint8_t open_e_q;      /* its E atoms (format 1) */
    uint8_t held_q;        /* a closed header not yet sent: its byte, 0 when none */
    uint8_t held_atoms_q;  /* atoms in the held header */
    uint8_t held_w_q;      /* W atoms in the held header */
    uint32_t wrun_q;       /* cycle-accurate: W atoms of a run of idle cycles not yet sent */
    uint8_t wdebt_q;       /* W atoms sent early, to be taken back from the next idle cycles */
} pheader_state_t;

enum { PH_OPEN_NONE, PH_OPEN_F1, PH_OPEN_N };

void ph_reset(pheader_state_t *p);
/* One cycle: W (cycle-accurate) followed by its atoms. */
void ph_cycle(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, const uint8_t *exec, cycle_buf_t *c);
/* The commonest cycles, done where ph_cycle would do just that and put no
 * byte; returns 0, having changed nothing, for any other (ph_cycle's). With no
 * header held back, one E that joins an open format 1 header
 * with room for it (15 E atoms, 7 cycle-accurate, after no idle run); without
 * cycle accuracy, no atom; cycle-accurate, an idle cycle with no header open
 * and no W owed, which lengthens the idle run. */
static inline int ph_cycle_quick(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, uint8_t exec0)
{
    if (p->held_q)
        return 0;
    if (!m->cycle_accurate) {
        if (natoms == 0)
            return 1;
        if (natoms == 1 && exec0 && p->open_q == PH_OPEN_F1 && p->open_e_q < 15) {
            p->open_e_q++;
            return 1;
        }
    } else if (natoms == 0) {
        if (!p->wdebt_q && p->open_q == PH_OPEN_NONE && !p->open_e_q && p->wrun_q != 0xFFFFFFFFu) {
            p->wrun_q++;
            return 1;
        }
    } else if (natoms == 1 && exec0 && !p->wrun_q && p->open_q == PH_OPEN_F1 && p->open_e_q < 7) {
        p->open_e_q++;
        return 1;
    }
    return 0;
}
/* ph_cycle with the commonest cycles done here. */
static inline void ph_cycle_inline(pheader_state_t *p, const etm_mode_t *m, unsigned natoms, const uint8_t *exec,
                                   cycle_buf_t *c)
{
    if (!ph_cycle_quick(p, m, natoms, exec[0]))
        ph_cycle(p, m, natoms, exec, c);
}
/* An atom without a W: the second of a cycle after a packet between the two.
 * Before ETMv3.3 (no format 4) in cycle-accurate mode it gets a W of its own,
 * which the next idle cycle gives back; returns 0 then (the timing of the
 * instructions in between is one cycle late). */
int ph_atom_nowait(pheader_state_t *p, const etm_mode_t *m, uint8_t exec, cycle_buf_t *c);
/* Send every atom gathered (the W run stays, it carries no atom). */
void ph_close_atoms(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c);
/* Send everything: atoms and the W run (as format 3 headers or a cycle count). */
void ph_close_all(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c);
/* n cycle-accurate idle cycles: what ph_cycle with no atom does n times. */
void ph_idle(pheader_state_t *p, const etm_mode_t *m, uint32_t n, cycle_buf_t *c);
/* Take the W run out without sending it (it goes into an I-sync's count). */
uint32_t ph_take_wrun(pheader_state_t *p);
/* Make the most recent atom the only atom of the last header sent, as a
 * cancelling exception packet needs; returns 0 when that atom was already sent
 * with others and cannot be separated. */
int ph_isolate_last(pheader_state_t *p, const etm_mode_t *m, cycle_buf_t *c);
/* Anything gathered or held? */
int ph_pending(const pheader_state_t *p);

/* ---- dpacket (ETMv3 data packets, part of stage packet) ------------------------------------- */

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
/* The cycle's transfer (after its instructions' packets). */
void dp_address(dpacket_state_t *d, const etm_mode_t *m, pheader_state_t *ph, const fe_cycle_t *fe,
                const filter_out_t *flt, unsigned kind, cycle_buf_t *c);
/* Transfers still waiting for their values get placeholders now, oldest first:
 * before a P-header with atoms, and before a non-periodic I-sync. */
void dp_place_all(dpacket_state_t *d, const etm_mode_t *m, cycle_buf_t *c);
/* Trace lost (overflow) or ended: the waiting transfers are dropped. */
void dp_drop(dpacket_state_t *d);

/* ---- packet (ETMv3) -------------------------------------------------------------------------- */

typedef struct packet_state {
    uint8_t started_q;     /* an A-sync has been sent */
    uint8_t active_q;      /* an I-sync has been sent and trace is on */
    uint8_t isync_reason_q;/* reason for the I-sync at the next traced instruction */
    uint8_t sync_due_q;    /* periodic synchronisation requested */
    uint8_t cancel_q;      /* the next exception packet carries Cancel */
    uint8_t trig_pend_q;   /* a trigger packet waits behind a cancel */
    uint8_t ovf_q;         /* overflow: trace lost until the FIFO is empty */
    uint8_t single_q;      /* the last packet sent is a P-header holding exactly one atom */
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
static inline void etm_packet_tick(packet_state_t *s, const etm_mode_t *m)
{
    /* Counted after the cycle: an I-sync's count covers the cycles before the
     * instruction that follows it. */
    s->wtotal_q++;
    if (!m->sync_in_bytes && m->sync_period && s->started_q && ++s->sync_count_q >= m->sync_period)
        s->sync_due_q = 1;
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
    }
}
/* The cycle's bytes went into the FIFO. */
static inline void etm_packet_accepted(packet_state_t *s, const etm_mode_t *m, const cycle_buf_t *c)
{
    etm_packet_accepted_n(s, m, c->n, c->w);
}
/* End of trace: send everything gathered. */
void etm_packet_end(packet_state_t *s, const etm_mode_t *m, cycle_buf_t *c);
/* The plain-cycle path (etm.c): trace is on and nothing waits (no overflow,
 * cancel, trigger or periodic sync). A cycle with TraceEnable on and only
 * instructions that are not exception entries or returns (natoms of them,
 * exec their E/N; the first may be a traced branch's target), no trigger, no
 * cancel and no flush that closes headers is then all etm_packet_plain does:
 * the branch packet, if any, and the atoms (or an idle cycle's W) into the
 * P-headers. Without data trace only. */
static inline int etm_packet_plain_ok(const packet_state_t *s)
{
    return s->active_q && !(s->ovf_q | s->cancel_q | s->trig_pend_q | s->sync_due_q);
}
/* A plain cycle's traced branch (its instruction is the target, at to): the
 * atoms gathered, then the branch address packet. */
void etm_packet_plain_branch(packet_state_t *s, const etm_mode_t *m, uint32_t to, cycle_buf_t *c);
/* instr_cycle's steps 5 and 6 for such a cycle: a branch packet when the
 * instruction is a traced branch's target (target), no other packet before
 * the atoms. Without atoms, ph_cycle does nothing unless cycle-accurate (a W):
 * it is called anyway, rather than branching on the inputs. */
static inline void etm_packet_plain(packet_state_t *s, const etm_mode_t *m, unsigned natoms, const uint8_t *exec,
                                    int target, uint32_t addr, cycle_buf_t *c)
{
    if (target)
        etm_packet_plain_branch(s, m, addr, c);
    s->dp.newest_q = (uint8_t)(s->dp.newest_q | (natoms != 0));
    c->atoms = natoms;
    ph_cycle_inline(&s->ph, m, natoms, exec, c);
}
/* The same for a cycle that puts no byte, done without a cycle buffer: no
 * branch packet and atoms that ph_cycle_quick takes. Returns 0, having changed
 * nothing, for any other cycle (etm_packet_plain's). */
static inline int etm_packet_plain_quick(packet_state_t *s, const etm_mode_t *m, unsigned natoms, uint8_t exec0,
                                         int target)
{
    if (target || !ph_cycle_quick(&s->ph, m, natoms, exec0))
        return 0;
    s->dp.newest_q = (uint8_t)(s->dp.newest_q | (natoms != 0));
    return 1;
}

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
    }
}
/* The idle cycles before a record at cycle would bring a periodic sync due
 * (ETMv3.0 counts cycles), or one is due already: the record then has a
 * periodic phase. */
static inline int etm_packet_sync_due_at(const packet_state_t *s, const etm_mode_t *m, uint32_t cycle)
{
    return s->sync_due_q || etm_packet_cycles_bring_sync(s, m, cycle - s->wtotal_q);
}
/* A plain cycle's record (etm.c, step_plain_records) that puts no byte:
 * etm_packet_catch_up up to cycle and etm_packet_plain_quick, done without a
 * cycle buffer. Returns 0, having changed nothing, when either would put a
 * byte (a branch packet, a P-header closed, the W atoms of the idle cycles
 * before it); the caller then takes the path with the cycle buffer. */
static inline int etm_packet_record_quick(packet_state_t *s, const etm_mode_t *m, uint32_t cycle, unsigned natoms,
                                          uint8_t exec0, int target)
{
    uint32_t n = cycle - s->wtotal_q;
    if (n && s->active_q && m->cycle_accurate)
        return 0; /* the idle cycles before it have W atoms to send */
    if (!etm_packet_plain_quick(s, m, natoms, exec0, target))
        return 0;
    /* (The P-headers do not read the cycle counts: the order does not matter.) */
    etm_packet_tick_n(s, m, n);
    return 1;
}

/* ---- fifo -------------------------------------------------------------------------------------- */

#define ETM_FIFO_MAX 65536

typedef struct fifo_state {
    uint32_t rd_q, level_q;
    uint32_t nflags_q;            /* bytes with their flag set (ETMv1: branch address starts) */
    uint8_t held_q;               /* ATB: bytes of the word on ATDATA that ATREADY has not
                                     taken yet (0: no word waits); they stay at the head */
    uint8_t held_id_q;            /*   and the ATID it was first shown with */
    uint8_t flush_q;              /* ATB flush under way: AFVALID seen, AFREADY not yet given */
    uint32_t flush_rem_q;         /*   bytes of the FIFO still to leave before AFREADY */
    uint32_t srd_q, slevel_q;     /* ETMv3 staging buffer: bytes made but not yet in the store */
    uint8_t stage_full;           /* the last write refused was refused by ETM_STAGE_BYTES alone */
    uint8_t part_q;               /* records: the store ends inside a packet (its rest is staged) */
    uint8_t wrote_q;              /* records: bytes entered the store in the last cycle */
    uint8_t stage[ETM_STAGE_BYTES];
    uint8_t stage_end[ETM_STAGE_BYTES]; /* records: the staged byte is the last of its packet */
    uint8_t mem[ETM_FIFO_MAX];
    uint8_t flag[ETM_FIFO_MAX / 8];
} fifo_state_t;

void etm_fifo_reset(fifo_state_t *f);
/* Bytes the FIFO holds: its store and (ETMv3) its staging buffer. */
static inline unsigned etm_fifo_held(const fifo_state_t *f) { return f->level_q + f->slevel_q; }
/* The bytes FIFOLEVEL, FIFOFULL and the flush count: with records
 * (PKT_QUEUE) those of the store alone, since the generator writes a phase
 * packet by packet (docs/etmv3-encoder.md, "Records"); otherwise every byte held. */
static inline unsigned etm_fifo_counted(const fifo_state_t *f, const etm_mode_t *m)
{
    return m->pkt_queue ? f->level_q : etm_fifo_held(f);
}
/* ETMv3: the n bytes at b into the staging buffer if they all fit (in
 * FIFO_DEPTH with everything held, and in ETM_STAGE_BYTES with what is staged);
 * then up to m->fifo_write staged bytes, oldest first, into the store. Returns
 * 1 when they fitted (or n is 0). */
int etm_fifo_stage(fifo_state_t *f, const etm_mode_t *m, const uint8_t *b, unsigned n);
/* Every staged byte into the store at once (an external port's end of trace). */
void etm_fifo_settle(fifo_state_t *f);
/* ETMv1: push n bytes with their flags (flags may be NULL: none) if they fit in depth. */
int etm_fifo_push(fifo_state_t *f, unsigned depth, const uint8_t *b, const uint8_t *flags, unsigned n);
/* Take up to max bytes from the store's head into out; returns how many. */
unsigned etm_fifo_take(fifo_state_t *f, uint8_t *out, unsigned max);
/* Byte i from the head and its flag; 0 when there is no such byte. */
int etm_fifo_peek(const fifo_state_t *f, unsigned i, uint8_t *b, uint8_t *flag);
void etm_fifo_pop(fifo_state_t *f);
/* One port cycle: the ATB master shows up to m->port_bytes bytes present at
 * the start of the cycle on ATDATA (padding an incomplete word with Ignore
 * packets), or the word still waiting for ATREADY; ATREADY (in->atstall clear;
 * in NULL: a drain edge, ready, no flush) takes it. Then etm_fifo_stage: the n
 * bytes at b go in if they all fit. Returns 1 when they fitted (or n is 0). */
int etm_fifo_cycle_full(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b, unsigned n,
                        etm_out_t *out);
/* The same with records: a phase's n bytes (ends: bit i, byte i ends a
 * packet) into the empty staging buffer; then at most m->fifo_write bytes of
 * the packet at its head, as the store has room, into the store. */
void etm_fifo_cycle_rec(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b, unsigned n,
                        const uint64_t *ends, etm_out_t *out);
/* The FIFO holds nothing, staged or stored, and no flush is under way. */
static inline int etm_fifo_idle(const fifo_state_t *f) { return !(f->level_q | f->slevel_q | f->held_q | f->flush_q); }
/* An idle FIFO's cycle when nothing comes: no word, and a flush asked for now
 * is done at once (what the general case comes to). Writes AFREADY; the
 * caller gives the other outputs, all 0. */
static inline void etm_fifo_idle_cycle(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, etm_out_t *out)
{
    out->afready = (uint8_t)(m->atb_flush ? in && in->afvalid : 1);
    if (m->atb_flush) {
        f->flush_rem_q = 0;
        f->flush_q = 0;
    }
    f->held_id_q = 0;
    f->stage_full = 0;
    f->wrote_q = 0;
}
static inline int etm_fifo_cycle(fifo_state_t *f, const etm_mode_t *m, const etm_in_t *in, const uint8_t *b,
                                 unsigned n, etm_out_t *out)
{
    if (!etm_fifo_idle(f) || n)
        return etm_fifo_cycle_full(f, m, in, b, n, out);
    memset(out->v3_bytes, 0, sizeof out->v3_bytes);
    out->v3_count = 0;
    out->atvalid = 0;
    out->atid = 0;
    out->fifo_level = 0;
    etm_fifo_idle_cycle(f, m, in, out);
    return 1;
}

/* ---- pipestat (ETMv1) --------------------------------------------------------------------------- */


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

/* ---- regs: the programmer's model on the debug APB (regs.c) ------------------------ */

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
