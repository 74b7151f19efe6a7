/* decode_v1_int.h - what the files of the ETMv1 decoder share (internal).
 *
 *   decode_v1.c         names, errors, the public API, the decoding loop
 *   decode_v1_insn.c    Thumb-2 (ARMv7-M) classifier, code image windows, the
 *                       fetch of an instruction
 *   decode_v1_fifo.c    the window of cycles, the packet cursor (FIFO order),
 *                       the per-cycle checks against it
 *   decode_v1_status.c  statuses: instructions (IE, ID, IN), branches (BE, BD),
 *                       and the elements they give
 */
#ifndef ETM_DECODE_V1_INT_H
#define ETM_DECODE_V1_INT_H

#include <stdint.h>

#include "etm/decode_v1.h"

/* ---- Decoder state ------------------------------------------------------------------ */

/* Per-cycle flags kept in the window. */
#define F_SYNC 0x01u  /* TRACESYNC was 1 */
#define F_APO 0x02u   /* an APO cycle of a branch */
#define F_ADDR 0x04u  /* a branch address starts here (found by the decoder) */
#define F_USED0 0x08u /* TRACEPKT[7:0] (or the nibble) carried a packet the decoder read */
#define F_USED1 0x10u /* TRACEPKT[15:8] carried a packet the decoder read */

typedef struct cyc {
    uint16_t pkt;
    uint8_t ps;
    uint8_t flags;
} cyc_t;

/* A packet position: cycle and lane (16-bit port: 0 = [7:0], 1 = [15:8]; else 0). */
typedef struct pos {
    uint64_t cyc;
    unsigned lane;
} pos_t;

/* Data reference state */
enum { DREF_UNKNOWN, DREF_NEED_FULL, DREF_VALID };

/* Results of the internal steps. */
enum { RD_OK = 0, RD_WAIT = 1, RD_END = 2, RD_TD = 3 };
enum { P_DONE, P_WAIT, P_ERR };

struct etm_v1dec {
    /* configuration */
    unsigned version;     /* ETM_V(1, minor) */
    unsigned port;        /* 4, 8 or 16 */
    unsigned data_mode;   /* ETMCR[3:2] */
    int branch_output;    /* ETMCR[8] */
    int cycle_acc;        /* ETMCR[12] */
    unsigned ctxid_bytes; /* 0, 1, 2 or 4 */
    unsigned flags;       /* ETM_V1DEC_* */

    etm_v1el_fn el_fn;
    void *el_user;
    etm_v1_read_fn rd;
    void *rd_user;
    etm_v1_classify_fn cls; /* etm_v1dec_set_classifier: instead of rd */
    void *cls_user;
    etm_v1_window_t *win;
    etm_v1_image_t img;

    /* window of cycles [chk, fed) */
    cyc_t *ring;
    uint64_t cap;         /* a power of two */
    uint64_t fed;         /* cycles given */
    uint64_t next;        /* cycle of the next status to decode */
    uint64_t chk;         /* next cycle to check against the FIFO model */
    int ended;

    /* decoding */
    int synced;           /* the packet cursor is known (and the PC, if pc_valid) */
    int pc_valid;         /* 0 after an executed branch that had no BE (trace went off) */
    uint64_t pc_lost;     /* ... the cycle of that branch */
    uint32_t pc;
    pos_t cur;            /* first packet slot not yet read */
    uint32_t bref;        /* last branch address as traced (bit 0 = Thumb) */
    uint32_t dref;        /* last data address */
    int dref_state;
    uint64_t idle_from;   /* WT/TD/TRACESYNC/idle-byte checks apply from this cycle */
    uint64_t td_from;     /* the TD check applies from this cycle */
    int pending_abandon;  /* the next BE/BD stands for the abandoned target, which did not run */
    uint64_t empty_wt;    /* 1 + the first WT cycle in which nothing left the port, while the
                             decoder waits to see whether an overflow restart follows; 0 none */
    unsigned triggers;
    int soft_err;         /* an error found while committing a status that was still decoded */

    /* why the status at `next` waits, for the message if the window fills up */
    const char *wait_what;
    uint64_t td_cycle;    /* RD_TD: the TD cycle met while packets were owed */

    etm_v1dec_stats_t stats;
};

/* The data packets of one ID/BD instruction. */
typedef struct dplan {
    uint8_t apk[5];
    unsigned an;          /* address packets */
    unsigned nbytes;
    uint8_t bytes[ETM_V1_MAX_DATA_BYTES];
} dplan_t;

#if defined(__GNUC__)
#define V1_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define V1_PRINTF(a, b)
#endif

/* ---- Errors (decode_v1.c) ------------------------------------------------------------ */

/* Forget what the decoder knew about the packet cursor. */
void dv1_lose_sync(etm_v1dec_t *d);

/* A status (or an APO cycle of it) broke a rule: report it, forget what the decoder
 * knew, and go on with the status at cycle `resume`. Returns P_ERR. */
int dv1_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, uint64_t resume, const char *fmt, ...)
    V1_PRINTF(5, 6);

/* An error found in a status that was decoded all the same (it is returned after). */
void dv1_soft_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, const char *fmt, ...) V1_PRINTF(4, 5);

/* Something needed is not in the window yet: wait (P_WAIT), or fail if the trace has
 * ended (P_ERR). */
int dv1_need(etm_v1dec_t *d, etm_diag_t *diag, int rd, uint64_t t, const char *what);

/* ---- The window of cycles (decode_v1_fifo.c) ------------------------------------------- */

static inline cyc_t *dv1_at(etm_v1dec_t *d, uint64_t c) { return &d->ring[c & (d->cap - 1)]; }

/* Is cycle c in the window? RD_OK, RD_WAIT or (the trace has ended) RD_END. */
static inline int dv1_have(const etm_v1dec_t *d, uint64_t c)
{
    if (c < d->fed)
        return RD_OK;
    return d->ended ? RD_END : RD_WAIT;
}

/* Does a cycle drain the FIFO? Every cycle but TR does; TD does not by definition
 * (nothing left the port). */
static inline int dv1_drains(const cyc_t *c) { return c->ps != ETM_V1_PS_TR && c->ps != ETM_V1_PS_TD; }

/* The later of p and the first slot of cycle t. */
pos_t dv1_from_cycle(pos_t p, uint64_t t);

/* Move p to the next slot that can carry a packet, past TR cycles (RD_TD at a TD). */
int dv1_norm(etm_v1dec_t *d, pos_t *p);

/* Read one packet at p (moving p past it). With mark, record the slots as used.
 * *first (if not NULL) gets the cycle of its first slot. */
int dv1_read_packet(etm_v1dec_t *d, pos_t *p, int mark, uint8_t *byte, uint64_t *first);

/* Read an address of 1-5 packets (bit 7 = another follows; the fifth is the last). */
int dv1_read_address(etm_v1dec_t *d, pos_t *p, int mark, uint8_t pk[5], unsigned *n);

/* Replace the bits of ref that n packets carry. */
uint32_t dv1_merge_address(uint32_t ref, const uint8_t *pk, unsigned n);

/* Fewest packets that cover every bit in which a and b differ (1 if none). */
unsigned dv1_packets_needed(uint32_t a, uint32_t b);

/* Read the data packets of one ID/BD instruction at p. */
int dv1_read_data(etm_v1dec_t *d, pos_t *p, int mark, const etm_v1_insn_t *in, dplan_t *dp);

/* Run the checks of the cycles [chk, next) against the packet cursor. */
etm_err_t dv1_run_checks(etm_v1dec_t *d, etm_diag_t *diag);

/* ---- Instructions (decode_v1_insn.c) ---------------------------------------------------- */

/* Fetch and classify the instruction at addr: 1, or 0 when it is not in the image. */
int dv1_fetch(etm_v1dec_t *d, uint32_t addr, etm_v1_insn_t *in);

/* ---- Statuses (decode_v1_status.c) ------------------------------------------------------ */

/* Decode the status at d->next: P_DONE, P_WAIT or P_ERR. */
int dv1_process_one(etm_v1dec_t *d, etm_diag_t *diag);

#endif
