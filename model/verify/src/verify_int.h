/* verify_int.h - the protocol scoreboard's state and the helpers its ETMv3
 * (verify.c) and ETMv1 (verify_v1.c) halves share. */
#ifndef ETM_VERIFY_INT_H
#define ETM_VERIFY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "etm/decode_v1.h"
#include "etm/decode_v3.h"
#include "etm/verify.h"
#include "etm/watch.h"

#define NEAR 16        /* atoms one P-header can drop or add: a gap beyond is lost trace */
#define MAX_CANDIDATES 256 /* places an overflow restart may be taken at, looked at together */
#define MAX_HELD 65536     /* elements held while they are told apart (a long loop's remaining turns) */
#define UNTRACED_KEPT 4096 /* untraced instructions remembered, to name a filter ignored */

/* An instruction the core executed with TraceEnable. */
typedef struct vitem {
    uint64_t cycle;
    uint32_t addr;
    uint32_t untraced_before; /* instructions executed without TraceEnable just before it */
    uint16_t exc;             /* entry: the traced exception number */
    uint8_t exec;
    uint8_t indirect;         /* an address must precede its atom */
    uint8_t entry;            /* the first instruction of a handler: an exception packet precedes it */
    uint8_t ret;              /* the first after an exception return: a return packet precedes it */
    uint8_t tailchain;        /* entry after an exit without a return: a return packet may precede it */
    uint8_t cancelled;        /* it did not complete (ETMCANCEL): its atom must be withdrawn */
    uint8_t restart;          /* the first after trace (re)started: an I-sync gives its address */
    uint8_t be;               /* ETMv1: its status is a branch (BE) to target: the next instruction
                                 is a traced branch target, an exception's or a return's */
    uint32_t target;
    uint32_t next;            /* ETMv1: the address of the instruction the core executed next, traced
                                 or not (has_next) */
    uint8_t has_next;
} vitem_t;

/* An element held while an overflow restart's place is worked out: what the
 * matching reads of it, in 32 bytes instead of a whole etm_v3el_t. */
typedef struct held {
    uint64_t offset, cycle;
    uint32_t addr;
    uint16_t exc_number;
    uint8_t kind, executed, addr_valid, lsip, cancel, withdrawn, reason, has_cycle_count;
} held_t;

/* ETMv3 data trace (verify_data.c): a transfer of a traced instruction that
 * the trace must show, from its address on the data slot to its packet(s). */
typedef struct dxfer {
    uint64_t insn;             /* the data instruction's number (released + queue index) */
    uint64_t cycle;            /* the cycle of its address */
    uint64_t dd1, dd2;         /* the values that came for its halves */
    uint32_t addr;             /* ETMDA of its (first half's) address */
    uint32_t ctl1, ctl2;       /* ETMDACTL of its halves */
    uint32_t insn_addr;        /* the data instruction's address */
    uint64_t dec_seq;          /* the decoder's number of its placeholder */
    uint8_t view;              /* ViewData: its value is traced (else: value not traced) */
    uint8_t need;              /* halves whose value has not come (bit 0 first, bit 1 second) */
    uint8_t fail, imp;         /* a failed STREX; an imprecise abort (the value is ignored) */
    uint8_t state;             /* DX_WAITING, DX_DONE (every value came), DX_NONE (none will) */
    uint8_t matched;           /* the trace has given its packet (normal, not traced, placeholder) */
    uint8_t placeholder;       /* ... a placeholder: its value is owed as out-of-order data */
    uint8_t vnt;               /* ... value not traced while its value was still awaited */
    uint8_t owed;              /* a placeholder's value came: out-of-order data must follow */
    uint8_t closed;            /* nothing more to compare */
    uint8_t tag;               /* its placeholder's tag */
    uint8_t head;              /* the first transfer traced of its instruction */
} dxfer_t;

/* ETMv1 data trace (verify_v1.c): the transfers of a traced instruction. */
#define V1_MAX_XFER 16
typedef struct v1rec {
    uint64_t insn;             /* the instruction's number */
    uint64_t cycle;            /* the cycle of its first transfer */
    uint32_t daddr;            /* the first transfer's address */
    uint32_t insn_addr;
    uint8_t view;              /* ViewData at the first transfer, trace on: its data must be traced */
    uint8_t optional;          /* ViewData, but TraceEnable off in that cycle: traced or not */
    uint8_t nxfer, nwait;      /* transfers; values still to come */
    uint8_t done;              /* its last transfer (DALast) came */
    uint8_t store;             /* DAWrite of the first transfer */
    uint8_t lanes[V1_MAX_XFER];
    uint8_t got[V1_MAX_XFER];
    uint64_t value[V1_MAX_XFER];
} v1rec_t;

/* An E/N difference waiting for the next address point to be classified. */
typedef struct suspect_state {
    int on;
    etm_vfail_t rule;
    uint64_t cycle, offset;
    char text[300];
} suspect_t;

struct etm_verify {
    etm_config_t cfg;
    etm_verify_opts_t o;
    unsigned version;
    int ca, exc_ext;
    int data;                  /* ETMCR[3:2] != 0: data packets are allowed (ETMv3) */
    int daddrs, dvalues;       /* ETMCR[3]: data addresses traced; ETMCR[2]: values */
    uint32_t sync_period;      /* bytes (ETMv3.1 and later); 0: not checked */
    etm_ctx_t *watch;
    etm_v3dec_t *dec;
    etm_verify_result_t r;
    int ended;

    /* The core's side. */
    vitem_t *q;
    size_t cap, head, len;     /* q[head] is the oldest instruction still held; cap a power of two */
    size_t lag_max;            /* instructions the queue may hold (etm_verify_opts_t.max_lag) */
    uint64_t released;         /* instructions that have left the queue: q's index + released counts
                                  every instruction queued since the start */
    int cancel_pending;        /* ETMCANCEL came: is an exception next? */
    uint64_t cancel_seq;       /* ... for the instruction numbered so */
    size_t cur;                /* index (from head) of the next instruction an atom will match */
    int active;                /* the last instruction seen was traced */
    int exited;                /* an exception exited since the last instruction (etm_seen_t.exit) */
    int idle_last;             /* the last cycle had no instruction, trigger or cancel (etm_verify_cycles) */
    int last_pushed;           /* ... and is the newest item of the queue */
    uint32_t untraced_run;
    uint32_t untraced_addr[UNTRACED_KEPT];
    uint64_t untraced_cycle[UNTRACED_KEPT];
    unsigned untraced_n, untraced_at;
    uint64_t triggers_fired;

    /* The trace's side. */
    int addr_given;            /* an address point came since the last atom */
    int have_branch;           /* a branch packet waits for what follows it (verify.c, flush_branch) */
    int cc_pending;            /* cycle-accurate: a non-periodic I-sync without its count; the count
                                * packet has not come yet (7.3.4) */
    uint64_t cc_pending_at;    /* ... that I-sync's byte */
    etm_v3el_t branch_held;
    int exc_given, ret_given;
    int overflow_pending;
    int have_offset;           /* cycle-accurate: decoded cycle - executed cycle is known */
    int64_t offset;
    uint64_t now;              /* the cycle of the bytes being fed (timed) */
    int timed;
    uint64_t since_async;      /* bytes since the last A-sync, Ignore left out */
    int seen_async;
    suspect_t sus;

    /* An overflow restart whose place is not yet known ("Overflow restarts" below). */
    int resolving;
    size_t ncand;                    /* candidates still agreeing (the others are dropped) */
    size_t cand_first;               /* the first candidate, taken when none agrees */
    size_t cand[MAX_CANDIDATES];     /* indices (from head) of the instructions at the address */
    size_t cpos[MAX_CANDIDATES];     /* how far each has matched the elements held */
    uint8_t cok[MAX_CANDIDATES];     /* still agrees with them */
    held_t *held;                    /* the elements since the restart's I-sync */
    size_t nheld, held_cap;

    /* ETMv3 data trace (verify_data.c). */
    dxfer_t *dx;
    size_t dx_cap, dx_head, dx_len;  /* dx[dx_head] is the oldest transfer not yet closed */
    size_t dx_next;            /* index (from dx_head) of the next transfer a data packet is for */
    uint64_t dx_base;          /* transfers closed and gone: the number of dx[dx_head] */
    uint8_t dfirst, dunal;     /* the data slot's sequence: the next transfer starts an instruction; a
                                  second half is next */
    uint8_t dins_traced, dins_started; /* the data instruction is traced; its data has started */
    uint64_t dins;             /* its number */
    uint32_t dins_addr;
    uint64_t dnewest;          /* the newest instruction signalled: its number, address, traced */
    uint32_t dnewest_addr;
    uint8_t dnewest_traced;
    uint64_t downer[4];        /* per slot: 1 + the number of the transfer its next value is for */
    uint64_t dunal_x;          /* 1 + the number of the transfer whose second half comes next */
    uint64_t *dlist;           /* the numbers of traced data instructions (ring), oldest first */
    uint32_t *dlist_addr;
    size_t dl_cap, dl_head, dl_len;
    int dresync;               /* an overflow: the next data packet finds its transfer again */
    uint64_t dfloor;           /* ... at an instruction not before the restart's */
    uint64_t dseq_resume;      /* the decoder's number of the data packet that found it */
    suspect_t dpend;           /* a data failure held until the instruction flow agrees */

    /* ETMv1 (verify_v1.c): the port's decoder, told the code by the core's flow. */
    int v1;
    int next_open;             /* the newest instruction queued does not know its successor yet */
    etm_v1dec_t *v1dec;
    v1rec_t *v1r;              /* ring of data records, in instruction order */
    size_t v1r_cap, v1r_head, v1r_len;
    uint64_t v1r_base;         /* the number of v1r[v1r_head] among all records */
    uint64_t v1_owner;         /* 1 + the number of the record later transfers go to */
    uint64_t v1_slot[4];       /* per slot: 1 + the record its next value is for ... */
    uint8_t v1_slot_x[4];      /* ... and the transfer */
    uint64_t v1_matched;       /* 1 + the number of the instruction the last status was for */
};

/* ---- Shared helpers (verify.c) ---------------------------------------------------------------- */

static inline int vfy_failed(const etm_verify_t *v) { return v->r.failures != 0; }
/* The first failure is kept; later ones are ignored. */
void vfy_fail(etm_verify_t *v, etm_vfail_t rule, uint64_t cycle, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* A failure held (an E/N difference until the next address point, a data
 * failure until the flow agrees): the first is kept in *held; vfy_fail makes
 * it the run's when it stands. */
void vfy_hold(etm_verify_t *v, suspect_t *held, etm_vfail_t rule, uint64_t cycle, uint64_t offset, const char *fmt,
              ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* The i-th instruction waiting (from the oldest still held); cap is a power of two. */
static inline vitem_t *vfy_item(const etm_verify_t *v, size_t i) { return &v->q[(v->head + i) & (v->cap - 1)]; }
void vfy_push(etm_verify_t *v, const vitem_t *x);
/* Instructions before cur are matched: they leave the queue. */
void vfy_release(etm_verify_t *v);
/* A cycle without TraceEnable (or not running): its instructions are remembered
 * as untraced, and the next traced one starts trace again. */
void vfy_untraced_cycle(etm_verify_t *v, const etm_seen_t *s, uint64_t cyc);
/* Was addr executed without TraceEnable lately? Its cycle, or UINT64_MAX. */
uint64_t vfy_untraced_at(const etm_verify_t *v, uint32_t addr);

/* ---- ETMv3 data trace (verify_data.c) ------------------------------------------------------- */

/* Grow a ring of elem-byte elements (len of them from *head) to twice its
 * capacity, oldest first at index 0; not beyond limit. 0, or -1 (no room). */
int vfy_ring_grow(void **ring, size_t elem, size_t *cap, size_t *head, size_t len, size_t limit);

etm_err_t vfy_data_open(etm_verify_t *v, etm_diag_t *diag);
void vfy_data_close(etm_verify_t *v);
/* The data slot of a cycle, after core_cycle has queued its instructions. */
void vfy_data_core(etm_verify_t *v, const etm_in_t *in, const etm_seen_t *s, uint64_t cyc);
/* The cycle's instructions (core_cycle): the newest is the one a first transfer is for. */
void vfy_data_newest(etm_verify_t *v, const etm_seen_t *s, int traced);
/* A DATA element of the design's trace. */
void vfy_data_element(etm_verify_t *v, const etm_v3el_t *e);
/* The instruction flow agrees at an address point: a data failure held stands. */
void vfy_data_confirm(etm_verify_t *v);
/* An overflow (the element), and where trace went on after it (restart_from). */
void vfy_data_overflow(etm_verify_t *v);
void vfy_data_restart(etm_verify_t *v);
void vfy_data_end(etm_verify_t *v, int untraced_overflow);

/* ---- ETMv1 (verify_v1.c) ----------------------------------------------------------------------- */

/* Open the port's decoder. Returns ETM_OK or what etm_v1dec_create returns. */
etm_err_t vfy_v1_open(etm_verify_t *v, etm_diag_t *diag);
void vfy_v1_close(etm_verify_t *v);
/* What the core did in a cycle, as the ETMv1 statuses will tell it. */
void vfy_v1_core(etm_verify_t *v, const etm_seen_t *s, uint64_t cyc);
/* End of the port: the decoder's end (etm_verify_end does the rest). */
void vfy_v1_end(etm_verify_t *v);
/* ETMv1 data trace: the data slot of a cycle, after vfy_v1_core. */
void vfy_v1_data(etm_verify_t *v, const etm_in_t *in, const etm_seen_t *s, uint64_t cyc);

#endif
