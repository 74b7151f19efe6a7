/* decode_v1.c - the project's own ETMv1 decoder (etm/decode_v1.h, docs/decoder-v1.md).
 *
 * Written from docs/etmv1-encoder.md (the contract), docs/etmv1-protocol.md and
 * IHI 0014 chapter 5, independently of the encoder.
 *
 * The idea in three sentences. Statuses are taken one by one in cycle order; the
 * packets on TRACEPKT are read in FIFO order by one cursor, because every status's
 * packets enter the FIFO in its own cycle and the FIFO drains whenever it holds
 * something (every cycle but TR). So a status's packets start at the later of the
 * cursor and its own cycle, a branch address additionally on a lane-0 / low-nibble
 * boundary flagged by TRACESYNC, and the APO is a cross-check of that position
 * (before synchronisation, the only way to find the address). Each cycle is then
 * checked against what the cursor says the FIFO held: WT drains a packet, TD does
 * not and only with an empty FIFO, TRACESYNC only where an address starts.
 */
#include "etm/decode_v1.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Names ------------------------------------------------------------------------ */

const char *etm_v1_pipestat_name(unsigned pipestat)
{
    static const char *const names[8] = { "IE", "ID", "IN", "WT", "BE", "BD", "TR", "TD" };
    return names[pipestat & 7u];
}

const char *etm_v1el_kind_name(etm_v1el_kind_t kind)
{
    static const char *const names[] = {
#define ETM_V1_X_NAME(name, text) text,
        ETM_V1_EL_LIST(ETM_V1_X_NAME)
#undef ETM_V1_X_NAME
    };
    if ((unsigned)kind >= (unsigned)ETM_V1EL_KIND_COUNT)
        return "?";
    return names[kind];
}

/* ---- Thumb-2 (ARMv7-M) classifier ------------------------------------------------- */

static unsigned popcount16(unsigned v)
{
    unsigned n = 0;
    for (v &= 0xFFFFu; v; v &= v - 1)
        n++;
    return n;
}

/* Sign-extend the low `bits` bits of v. */
static uint32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    v &= (m << 1) - 1;
    return (v ^ m) - m;
}

static void classify16(uint32_t addr, unsigned hw, etm_v1_insn_t *o)
{
    o->size = 2;
    o->opcode = hw;
    if ((hw & 0xF000u) == 0xD000u) { /* B<c> T1; cond 1110 is UDF, 1111 is SVC */
        unsigned cond = (hw >> 8) & 0xFu;
        if (cond < 0xEu) {
            o->flow = ETM_V1_FLOW_DIRECT;
            o->target = addr + 4u + sext((hw & 0xFFu) << 1, 9);
        } else if (cond == 0xEu) {
            o->undefined = 1;
        }
    } else if ((hw & 0xF800u) == 0xE000u) { /* B T2 */
        o->flow = ETM_V1_FLOW_DIRECT;
        o->target = addr + 4u + sext((hw & 0x7FFu) << 1, 12);
    } else if ((hw & 0xF500u) == 0xB100u) { /* CBZ, CBNZ */
        o->flow = ETM_V1_FLOW_DIRECT;
        o->target = addr + 4u + ((((hw >> 9) & 1u) << 6) | (((hw >> 3) & 0x1Fu) << 1));
    } else if ((hw & 0xFF00u) == 0x4700u) { /* BX, BLX register */
        o->flow = ETM_V1_FLOW_INDIRECT;
    } else if ((hw & 0xFD00u) == 0x4400u) { /* ADD, MOV (high registers): Rd = PC? */
        if ((((hw >> 4) & 8u) | (hw & 7u)) == 15u)
            o->flow = ETM_V1_FLOW_INDIRECT;
    } else if ((hw & 0xFE00u) == 0xBC00u) { /* POP */
        unsigned n = popcount16(hw & 0xFFu) + ((hw >> 8) & 1u);
        o->data_bytes = 4u * n;
        if (hw & 0x100u)
            o->flow = ETM_V1_FLOW_INDIRECT;
        if (n == 0)
            o->undefined = 1;
    } else if ((hw & 0xFE00u) == 0xB400u) { /* PUSH */
        unsigned n = popcount16(hw & 0xFFu) + ((hw >> 8) & 1u);
        o->data_bytes = 4u * n;
        o->is_store = 1;
        if (n == 0)
            o->undefined = 1;
    } else if ((hw & 0xF000u) == 0xC000u) { /* STM, LDM */
        unsigned n = popcount16(hw & 0xFFu);
        o->data_bytes = 4u * n;
        o->is_store = !(hw & 0x800u);
        if (n == 0)
            o->undefined = 1;
    } else if ((hw & 0xE000u) == 0x6000u) { /* STR, LDR, STRB, LDRB (immediate) */
        o->data_bytes = (hw & 0x1000u) ? 1u : 4u;
        o->is_store = !(hw & 0x800u);
    } else if ((hw & 0xF000u) == 0x8000u) { /* STRH, LDRH (immediate) */
        o->data_bytes = 2;
        o->is_store = !(hw & 0x800u);
    } else if ((hw & 0xF000u) == 0x9000u) { /* STR, LDR (SP-relative) */
        o->data_bytes = 4;
        o->is_store = !(hw & 0x800u);
    } else if ((hw & 0xF800u) == 0x4800u) { /* LDR (literal) */
        o->data_bytes = 4;
    } else if ((hw & 0xF000u) == 0x5000u) { /* register offset */
        static const unsigned char bytes[8] = { 4, 2, 1, 1, 4, 2, 1, 2 };
        unsigned op = (hw >> 9) & 7u; /* STR STRH STRB LDRSB LDR LDRH LDRB LDRSH */
        o->data_bytes = bytes[op];
        o->is_store = op < 3;
    }
}

static void classify32(uint32_t addr, unsigned hw1, unsigned hw2, etm_v1_insn_t *o)
{
    o->size = 4;
    o->opcode = ((uint32_t)hw1 << 16) | hw2;
    if ((hw1 & 0xF800u) == 0xF000u && (hw2 & 0x8000u)) { /* branches and miscellaneous control */
        uint32_t s = (hw1 >> 10) & 1u, j1 = (hw2 >> 13) & 1u, j2 = (hw2 >> 11) & 1u;
        switch (hw2 & 0x5000u) {
        case 0x0000u: /* B<c>.W T3, or miscellaneous control when cond is 111x */
            if (((hw1 >> 6) & 0xEu) != 0xEu) {
                uint32_t imm = (s << 20) | (j2 << 19) | (j1 << 18) | ((hw1 & 0x3Fu) << 12) | ((hw2 & 0x7FFu) << 1);
                o->flow = ETM_V1_FLOW_DIRECT;
                o->target = addr + 4u + sext(imm, 21);
            }
            break;
        case 0x1000u: /* B.W T4 */
        case 0x5000u: { /* BL */
            uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
            uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | ((hw2 & 0x7FFu) << 1);
            o->flow = ETM_V1_FLOW_DIRECT;
            o->target = addr + 4u + sext(imm, 25);
            break;
        }
        default: /* BLX (immediate): ARM state, not in ARMv7-M */
            o->undefined = 1;
            break;
        }
    } else if ((hw1 & 0xFE40u) == 0xE800u) { /* LDM, STM (IA, DB); SRS/RFE are not ARMv7-M */
        unsigned op = (hw1 >> 7) & 3u, n = popcount16(hw2);
        if (op == 1 || op == 2) {
            o->data_bytes = 4u * n;
            o->is_store = !(hw1 & 0x10u);
            if (!o->is_store && (hw2 & 0x8000u))
                o->flow = ETM_V1_FLOW_INDIRECT;
            if (n == 0)
                o->undefined = 1;
        } else {
            o->undefined = 1;
        }
    } else if ((hw1 & 0xFE40u) == 0xE840u) { /* load/store dual, exclusive; table branch */
        unsigned op1 = (hw1 >> 7) & 3u, op2 = (hw1 >> 4) & 3u, op3 = (hw2 >> 4) & 0xFu;
        if (op1 == 0 && op2 == 0) { /* STREX */
            o->data_bytes = 4;
            o->is_store = 1;
        } else if (op1 == 0 && op2 == 1) { /* LDREX */
            o->data_bytes = 4;
        } else if (((op1 & 2u) == 0 && op2 == 2) || ((op1 & 2u) && !(op2 & 1u))) { /* STRD */
            o->data_bytes = 8;
            o->is_store = 1;
        } else if (((op1 & 2u) == 0 && op2 == 3) || ((op1 & 2u) && (op2 & 1u))) { /* LDRD */
            o->data_bytes = 8;
        } else if (op1 == 1 && op2 == 0 && (op3 == 4 || op3 == 5)) { /* STREXB, STREXH */
            o->data_bytes = op3 == 4 ? 1u : 2u;
            o->is_store = 1;
        } else if (op1 == 1 && op2 == 1 && (op3 == 0 || op3 == 1)) { /* TBB, TBH: a table load into the PC */
            o->data_bytes = op3 == 0 ? 1u : 2u;
            o->flow = ETM_V1_FLOW_INDIRECT;
        } else if (op1 == 1 && op2 == 1 && (op3 == 4 || op3 == 5)) { /* LDREXB, LDREXH */
            o->data_bytes = op3 == 4 ? 1u : 2u;
        } else {
            o->undefined = 1;
        }
    } else if ((hw1 & 0xFE00u) == 0xF800u) { /* load/store single: [6:5] size, [4] load */
        unsigned sz = (hw1 >> 5) & 3u, load = (hw1 >> 4) & 1u, rt = (hw2 >> 12) & 0xFu;
        if (sz == 3 || (!load && (hw1 & 0x100u))) {
            o->undefined = 1;
        } else if (load && rt == 15 && sz < 2) {
            /* PLD, PLI and unallocated hints: no data transfer */
        } else {
            o->data_bytes = 1u << sz;
            o->is_store = !load;
            if (load && rt == 15)
                o->flow = ETM_V1_FLOW_INDIRECT; /* LDR pc */
        }
    }
}

int etm_v1_insn_classify(uint32_t addr, const uint8_t *b, unsigned n, etm_v1_insn_t *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return 1;
    unsigned hw1 = (unsigned)b[0] | ((unsigned)b[1] << 8);
    if ((hw1 >> 11) >= 0x1Du) { /* 11101, 11110, 11111: the first half of a 32-bit instruction */
        if (n < 4)
            return 1;
        classify32(addr, hw1, (unsigned)b[2] | ((unsigned)b[3] << 8), out);
    } else {
        classify16(addr, hw1, out);
    }
    return 0;
}

/* ---- Code image windows ---------------------------------------------------------- */

int etm_v1_image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const etm_v1_image_t *im = (const etm_v1_image_t *)user;
    for (size_t i = 0; i < im->n; i++) {
        const etm_v1_window_t *w = &im->w[i];
        if (addr >= w->base && (uint64_t)addr - w->base < w->size) {
            size_t off = (size_t)(addr - w->base);
            unsigned k = 0;
            for (; k < n && off + k < w->size; k++)
                buf[k] = w->bytes[off + k];
            return (int)k;
        }
    }
    return 0;
}

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

/* ---- Errors ------------------------------------------------------------------------ */

#if defined(__GNUC__)
#define V1_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define V1_PRINTF(a, b)
#endif

static void set_diag(etm_diag_t *diag, uint64_t cycle, const char *fmt, va_list ap) V1_PRINTF(3, 0);
static void set_diag(etm_diag_t *diag, uint64_t cycle, const char *fmt, va_list ap)
{
    if (!diag)
        return;
    etm_diag_clear(diag);
    diag->code = ETM_ERR_DECODE;
    diag->cycle = cycle;
    vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
}

static void lose_sync(etm_v1dec_t *d)
{
    d->synced = 0;
    d->pending_abandon = 0;
    d->empty_wt = 0;
}

/* A status (or an APO cycle of it) broke a rule: report it, forget what the decoder
 * knew, and go on with the status at cycle `resume`. */
static int fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, uint64_t resume, const char *fmt, ...)
    V1_PRINTF(5, 6);
static int fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, uint64_t resume, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_diag(diag, cycle, fmt, ap);
    va_end(ap);
    lose_sync(d);
    if (resume > d->fed)
        resume = d->fed;
    if (resume > d->next)
        d->next = resume;
    if (d->chk < d->next)
        d->chk = d->next;
    d->stats.errors++;
    return P_ERR;
}

/* An error found in a status that was decoded all the same (it is returned after). */
static void soft_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, const char *fmt, ...) V1_PRINTF(4, 5);
static void soft_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, const char *fmt, ...)
{
    if (d->soft_err)
        return; /* the first one is reported */
    va_list ap;
    va_start(ap, fmt);
    set_diag(diag, cycle, fmt, ap);
    va_end(ap);
    d->soft_err = 1;
    d->stats.errors++;
}

/* Something needed is not in the window yet: wait, or fail if the trace has ended. */
static int need(etm_v1dec_t *d, etm_diag_t *diag, int rd, uint64_t t, const char *what)
{
    if (rd == RD_WAIT) {
        d->wait_what = what;
        return P_WAIT;
    }
    const cyc_t *r = &d->ring[t & (d->cap - 1)];
    unsigned st = r->ps == ETM_V1_PS_TR ? (r->pkt & 7u) : r->ps;
    if (rd == RD_TD)
        return fail(d, diag, d->td_cycle, t + 1,
                    "TD in cycle %" PRIu64 ", while %s of the %s at cycle %" PRIu64
                    " had still to leave the FIFO: a cycle with something to drain is not TD",
                    d->td_cycle, what, etm_v1_pipestat_name(st), t);
    return fail(d, diag, t, t + 1, "the trace ended before %s of the %s at cycle %" PRIu64, what,
                etm_v1_pipestat_name(st), t);
}

/* ---- The window of cycles ------------------------------------------------------------ */

static cyc_t *at(etm_v1dec_t *d, uint64_t c) { return &d->ring[c & (d->cap - 1)]; }

static int have(const etm_v1dec_t *d, uint64_t c)
{
    if (c < d->fed)
        return RD_OK;
    return d->ended ? RD_END : RD_WAIT;
}

/* Does a cycle drain the FIFO? Every cycle but TR does; TD does not by definition
 * (nothing left the port). */
static int drains(const cyc_t *c) { return c->ps != ETM_V1_PS_TR && c->ps != ETM_V1_PS_TD; }

/* The later of p and the first slot of cycle t: a status's packets enter the FIFO
 * in its own cycle and can leave in it, never earlier. */
static pos_t from_cycle(pos_t p, uint64_t t)
{
    if (p.cyc < t) {
        p.cyc = t;
        p.lane = 0;
    }
    return p;
}

/* Move p to the next slot that can carry a packet, past TR cycles. It is only
 * called while a packet is owed (it entered the FIFO at or before p), so a TD
 * cycle on the way is an error: RD_TD, with the cycle in d->td_cycle. */
static int norm(etm_v1dec_t *d, pos_t *p)
{
    for (;;) {
        int h = have(d, p->cyc);
        if (h != RD_OK)
            return h;
        const cyc_t *c = at(d, p->cyc);
        if (drains(c))
            return RD_OK;
        if (c->ps == ETM_V1_PS_TD) {
            d->td_cycle = p->cyc;
            return RD_TD;
        }
        p->cyc++;
        p->lane = 0;
    }
}

/* Read one packet at p (moving p past it). With mark, record the slots as used.
 * *first gets the cycle of its first slot. */
static int read_packet(etm_v1dec_t *d, pos_t *p, int mark, uint8_t *byte, uint64_t *first)
{
    int h = norm(d, p);
    if (h != RD_OK)
        return h;
    cyc_t *c = at(d, p->cyc);
    if (first)
        *first = p->cyc;
    if (d->port == 8) {
        *byte = (uint8_t)(c->pkt & 0xFFu);
        if (mark)
            c->flags |= F_USED0;
        p->cyc++;
    } else if (d->port == 16) {
        if (p->lane == 0) {
            *byte = (uint8_t)(c->pkt & 0xFFu);
            if (mark)
                c->flags |= F_USED0;
            p->lane = 1;
        } else {
            *byte = (uint8_t)(c->pkt >> 8);
            if (mark)
                c->flags |= F_USED1;
            p->cyc++;
            p->lane = 0;
        }
    } else { /* 4-bit: low nibble, then the high nibble in the next draining cycle */
        unsigned lo = c->pkt & 0xFu;
        p->cyc++;
        h = norm(d, p);
        if (h != RD_OK)
            return h;
        cyc_t *c2 = at(d, p->cyc);
        *byte = (uint8_t)(lo | ((c2->pkt & 0xFu) << 4));
        if (mark) {
            c->flags |= F_USED0;
            c2->flags |= F_USED0;
        }
        p->cyc++;
    }
    if (mark)
        d->stats.packets++;
    return RD_OK;
}

/* Read an address of 1-5 packets (bit 7 = another follows; the fifth is the last). */
static int read_address(etm_v1dec_t *d, pos_t *p, int mark, uint8_t pk[5], unsigned *n)
{
    *n = 0;
    for (;;) {
        int h = read_packet(d, p, mark, &pk[*n], NULL);
        if (h != RD_OK)
            return h;
        (*n)++;
        if (*n == 5 || !(pk[*n - 1] & 0x80u))
            return RD_OK;
    }
}

/* Replace the bits of ref that n packets carry. */
static uint32_t merge_address(uint32_t ref, const uint8_t *pk, unsigned n)
{
    uint32_t v = 0, mask = 0;
    for (unsigned i = 0; i < n && i < 4; i++) {
        v |= (uint32_t)(pk[i] & 0x7Fu) << (7 * i);
        mask |= 0x7Fu << (7 * i);
    }
    if (n == 5) {
        v |= (uint32_t)(pk[4] & 0xFu) << 28;
        mask = 0xFFFFFFFFu;
    }
    return (ref & ~mask) | v;
}

/* Fewest packets that cover every bit in which a and b differ (1 if none). */
static unsigned packets_needed(uint32_t a, uint32_t b)
{
    uint32_t x = a ^ b;
    unsigned hi = 0;
    while (x >> hi > 1)
        hi++;
    if (!x || hi < 7)
        return 1;
    return hi < 14 ? 2 : hi < 21 ? 3 : hi < 28 ? 4 : 5;
}

/* ---- Data packets -------------------------------------------------------------------- */

typedef struct dplan {
    uint8_t apk[5];
    unsigned an;          /* address packets */
    unsigned nbytes;
    uint8_t bytes[ETM_V1_MAX_DATA_BYTES];
} dplan_t;

/* Read the data packets of one ID/BD instruction at p. */
static int read_data(etm_v1dec_t *d, pos_t *p, int mark, const etm_v1_insn_t *in, dplan_t *dp)
{
    int h;
    memset(dp, 0, sizeof *dp);
    if (d->data_mode & 2u) {
        h = read_address(d, p, mark, dp->apk, &dp->an);
        if (h != RD_OK)
            return h;
    }
    if (d->data_mode & 1u) {
        unsigned n = in->data_bytes > ETM_V1_MAX_DATA_BYTES ? ETM_V1_MAX_DATA_BYTES : in->data_bytes;
        for (unsigned i = 0; i < n; i++) {
            h = read_packet(d, p, mark, &dp->bytes[i], NULL);
            if (h != RD_OK)
                return h;
        }
        dp->nbytes = n;
    }
    return RD_OK;
}

/* ---- Elements ----------------------------------------------------------------------- */

static void emit(etm_v1dec_t *d, const etm_v1el_t *e)
{
    switch (e->kind) {
    case ETM_V1EL_INSN:
        d->stats.insns++;
        d->stats.executed += e->executed ? 1u : 0u;
        break;
    case ETM_V1EL_DATA:
        d->stats.data++;
        break;
    case ETM_V1EL_TRACE_ON:
        d->stats.restarts++;
        break;
    case ETM_V1EL_TRIGGER:
        d->stats.triggers++;
        break;
    default:
        break;
    }
    if (d->el_fn)
        d->el_fn(d->el_user, e);
}

static void emit_trigger(etm_v1dec_t *d, uint64_t t, etm_diag_t *diag)
{
    etm_v1el_t e;
    memset(&e, 0, sizeof e);
    e.kind = ETM_V1EL_TRIGGER;
    e.cycle = t;
    if (++d->triggers > 1)
        soft_fail(d, diag, t, "a second TR (cycle %" PRIu64 "): the trigger fires once", t);
    emit(d, &e);
}

static void emit_data(etm_v1dec_t *d, uint64_t t, uint32_t iaddr, const etm_v1_insn_t *in, const dplan_t *dp)
{
    etm_v1el_t e;
    memset(&e, 0, sizeof e);
    e.kind = ETM_V1EL_DATA;
    e.cycle = t;
    e.addr = iaddr;
    e.insn = *in;
    e.is_store = in->is_store;
    if (d->data_mode & 2u) {
        e.has_data_addr = 1;
        e.data_addr_packets = dp->an;
        if (dp->an == 5)
            d->dref_state = DREF_VALID;
        d->dref = merge_address(d->dref, dp->apk, dp->an);
        e.data_addr = d->dref;
        e.data_addr_valid = d->dref_state == DREF_VALID;
    }
    e.nbytes = dp->nbytes;
    memcpy(e.bytes, dp->bytes, dp->nbytes);
    emit(d, &e);
}

/* Fetch and classify the instruction at addr. */
static int fetch(etm_v1dec_t *d, uint32_t addr, etm_v1_insn_t *in)
{
    uint8_t b[4];
    if (!d->rd)
        return 0;
    int n = d->rd(d->rd_user, addr, b, 4);
    if (n < 2)
        return 0;
    return etm_v1_insn_classify(addr, b, (unsigned)n, in) == 0;
}

/* Checks shared by ID and BD before their data is read. With ETMCR[3:2] = 0 an
 * ID or BD owns no data packets (table 5.2: they depend on ETMCR[3:2]); table 5.1
 * gives BD to every load into the PC, traced data or not. */
static int data_insn_ok(etm_v1dec_t *d, etm_diag_t *diag, uint64_t t, unsigned st, const etm_v1_insn_t *in)
{
    if (!in->data_bytes)
        return fail(d, diag, t, t + 1,
                    "%s at cycle %" PRIu64 " for the instruction at 0x%08" PRIx32 " (opcode 0x%0*" PRIx32
                    "), which is not a load or store the decoder knows",
                    etm_v1_pipestat_name(st), t, d->pc, in->size == 4 ? 8 : 4, in->opcode);
    return P_DONE;
}

/* Run the checks of the cycles [chk, next): all statuses up to next-1 are decoded,
 * so the cursor says exactly which slots carried packets and whether the FIFO
 * held anything. */
static etm_err_t run_checks(etm_v1dec_t *d, etm_diag_t *diag)
{
    for (; d->chk < d->next; d->chk++) {
        uint64_t c = d->chk;
        if (!d->synced)
            continue;
        cyc_t *r = at(d, c);
        const char *bad = NULL;
        char buf[200];
        if (c >= d->td_from && r->ps == ETM_V1_PS_TD && d->cur.cyc > c) {
            snprintf(buf, sizeof buf,
                     "TD in cycle %" PRIu64 ", but the FIFO still held packets (the last one read so far "
                     "left in cycle %" PRIu64 "): a cycle with something to drain is WT, not TD",
                     c, d->cur.lane ? d->cur.cyc : d->cur.cyc - 1);
            bad = buf;
        } else if (c < d->idle_from) {
            /* before synchronisation: packets of unknown owners */
        } else if (r->ps == ETM_V1_PS_WT && !(r->flags & F_APO) && !(r->flags & F_USED0)) {
            /* Table 5.1 makes such a cycle TD, but 5.9 turns the status of the cycle
             * that overflows into WT: accepted if the overflow restart comes next. */
            if (!d->empty_wt)
                d->empty_wt = c + 1;
        } else if ((r->flags & F_SYNC) && !(r->flags & F_ADDR)) {
            snprintf(buf, sizeof buf,
                     "TRACESYNC in cycle %" PRIu64 ", where no branch address starts (FIFO order puts %s there)",
                     c, (r->flags & F_USED0) ? "a data packet or a later address packet" : "no packet");
            bad = buf;
        } else if (d->flags & ETM_V1DEC_STRICT) {
            unsigned pkt = r->pkt;
            if (r->ps == ETM_V1_PS_TR) {
                if (pkt >> 3) {
                    snprintf(buf, sizeof buf, "TR in cycle %" PRIu64 " with TRACEPKT[15:3] = 0x%x, not 0", c, pkt >> 3);
                    bad = buf;
                }
            } else if (r->ps == ETM_V1_PS_TD) {
                if (pkt & ~(d->cycle_acc ? 1u : 0u)) {
                    snprintf(buf, sizeof buf,
                             "TD in cycle %" PRIu64 " with TRACEPKT = 0x%04x: only TRACEPKT[0], and only in "
                             "cycle-accurate mode, may be 1",
                             c, pkt);
                    bad = buf;
                }
            } else {
                unsigned lane0 = d->port == 4 ? 0xFu : 0xFFu;
                unsigned idle = 0;
                if (!(r->flags & F_USED0))
                    idle |= lane0;
                if (d->port != 16 || !(r->flags & F_USED1))
                    idle |= 0xFFFFu & ~lane0;
                if (pkt & idle) {
                    snprintf(buf, sizeof buf,
                             "TRACEPKT = 0x%04x in cycle %" PRIu64 ": bits 0x%04x carry no packet and must be 0",
                             pkt, c, pkt & idle);
                    bad = buf;
                }
            }
        }
        if (bad) {
            if (diag) {
                etm_diag_clear(diag);
                diag->code = ETM_ERR_DECODE;
                diag->cycle = c;
                snprintf(diag->msg, sizeof diag->msg, "%s", bad);
            }
            d->stats.errors++;
            lose_sync(d);
            d->chk = c + 1;
            return ETM_ERR_DECODE;
        }
    }
    return ETM_OK;
}

/* ---- Statuses ------------------------------------------------------------------------- */

static unsigned effective(etm_v1dec_t *d, uint64_t c, int *tr);

/* The status of cycle c: PIPESTAT, or TRACEPKT[2:0] of a TR cycle. */
static unsigned effective_status(etm_v1dec_t *d, uint64_t c)
{
    int tr;
    return effective(d, c, &tr);
}
/* An instruction status (or a branch that is no overflow restart) came after a WT in
 * which nothing left the port: that WT broke table 5.1. */
static int empty_wt_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t t, uint64_t resume)
{
    uint64_t c = d->empty_wt - 1;
    d->empty_wt = 0;
    return fail(d, diag, c, resume,
                "WT in cycle %" PRIu64 ", but no packet of a decoded status leaves in it: a wait cycle with "
                "nothing to drain is TD (only the cycle of an overflow, followed by the overflow restart, may "
                "be WT; the %s at cycle %" PRIu64 " is not that restart)",
                c, etm_v1_pipestat_name(effective_status(d, t)), t);
}

/* IE, ID, IN at cycle t (tr: it came on TRACEPKT[2:0] of a TR cycle). */
static int do_insn(etm_v1dec_t *d, uint64_t t, unsigned st, int tr, etm_diag_t *diag)
{
    etm_v1_insn_t in;
    dplan_t dp;
    pos_t p = d->cur;
    if (!d->synced) {
        if (tr)
            emit_trigger(d, t, diag);
        d->stats.unsynced_statuses++;
        d->next = t + 1;
        return P_DONE;
    }
    if (d->empty_wt)
        return empty_wt_fail(d, diag, t, t + 1);
    if (!d->pc_valid)
        return fail(d, diag, t, t + 1,
                    "%s at cycle %" PRIu64 ": the branch at cycle %" PRIu64 " left no BE to say where execution "
                    "went, so only a trace restart (a BE with a full address) may follow it",
                    etm_v1_pipestat_name(st), t, d->pc_lost);
    if (!fetch(d, d->pc, &in))
        return fail(d, diag, t, t + 1, "%s at cycle %" PRIu64 ": the code image has no instruction at 0x%08" PRIx32,
                    etm_v1_pipestat_name(st), t, d->pc);
    if (st == ETM_V1_PS_ID) {
        if (data_insn_ok(d, diag, t, st, &in) == P_ERR)
            return P_ERR;
        p = from_cycle(p, t);
        int h = read_data(d, &p, 0, &in, &dp);
        if (h != RD_OK)
            return need(d, diag, h, t, "the data packets");
    }

    /* commit */
    if (st == ETM_V1_PS_ID) {
        p = from_cycle(d->cur, t);
        read_data(d, &p, 1, &in, &dp);
        d->cur = p;
    }
    if (tr)
        emit_trigger(d, t, diag);
    etm_v1el_t e;
    memset(&e, 0, sizeof e);
    e.kind = ETM_V1EL_INSN;
    e.cycle = t;
    e.addr = d->pc;
    e.status = st;
    e.executed = st != ETM_V1_PS_IN;
    e.insn = in;
    e.trigger = tr;
    emit(d, &e);
    if (st == ETM_V1_PS_ID) {
        if ((d->data_mode & 2u) && dp.an < 5 && d->dref_state == DREF_NEED_FULL)
            soft_fail(d, diag, t,
                      "ID at cycle %" PRIu64 ": the first data address after trace (re)started has %u packets; "
                      "it must be full (5)",
                      t, dp.an);
        if (d->data_mode)
            emit_data(d, t, d->pc, &in, &dp);
    }
    /* An executed indirect branch without a BE (or, with branch output, a taken direct
     * branch without one) is the last instruction before trace turned off or ended:
     * the contract resolves a status as IE/ID when no traced target follows. Only a
     * restart can come next. */
    if (st != ETM_V1_PS_IN &&
        (in.flow == ETM_V1_FLOW_INDIRECT || (in.flow == ETM_V1_FLOW_DIRECT && d->branch_output))) {
        d->pc_valid = 0;
        d->pc_lost = t;
    } else if (st == ETM_V1_PS_IE && in.flow == ETM_V1_FLOW_DIRECT) {
        d->pc = in.target;
    } else {
        d->pc += in.size;
    }
    d->next = t + 1;
    return P_DONE;
}

/* The effective status of cycle c: PIPESTAT, or TRACEPKT[2:0] of a TR cycle. */
static unsigned effective(etm_v1dec_t *d, uint64_t c, int *tr)
{
    cyc_t *r = at(d, c);
    *tr = r->ps == ETM_V1_PS_TR;
    return *tr ? (r->pkt & 7u) : r->ps;
}

/* BE, BD at cycle t. */
static int do_branch(etm_v1dec_t *d, uint64_t t, unsigned st, int tr, etm_diag_t *diag)
{
    const char *bname = etm_v1_pipestat_name(st);
    unsigned apo = 0, abandoned = 0;
    int trk[3] = { tr, 0, 0 };

    /* the two APO cycles, or a BE/BD in one of them (the branch is abandoned) */
    for (unsigned k = 1; k <= 2; k++) {
        int h = have(d, t + k);
        if (h != RD_OK)
            return need(d, diag, h, t, k == 1 ? "the first APO cycle" : "the second APO cycle");
        unsigned s = effective(d, t + k, &trk[k]);
        if (trk[k] && (s == ETM_V1_PS_TR || s == ETM_V1_PS_TD))
            return fail(d, diag, t + k, t + k + 1, "TR in cycle %" PRIu64 " carries %s on TRACEPKT[2:0]; the replaced status is never TR or TD",
                        t + k, etm_v1_pipestat_name(s));
        if (s == ETM_V1_PS_BE || s == ETM_V1_PS_BD) {
            abandoned = k;
            break;
        }
        if (s == ETM_V1_PS_TD || s == ETM_V1_PS_TR)
            return fail(d, diag, t + k, t + k + 1,
                        "%s in cycle %" PRIu64 ", APO cycle %u of the %s at cycle %" PRIu64
                        ": an APO cycle carries {0, APO bits}",
                        etm_v1_pipestat_name(s), t + k, k, bname, t);
        apo |= (s & 3u) << (2 * (k - 1));
    }
    uint64_t after = t + (abandoned ? abandoned : 3u); /* the next status */

    etm_v1_insn_t in;
    int have_insn = 0;
    int no_insn = 0; /* the status stands for the target of an abandoned branch */
    int restart = 0;  /* a full address with reason 1-3: no instruction */
    uint32_t traced = 0;
    dplan_t dp;
    pos_t p0 = d->cur, e, q;
    uint8_t apk[5], cpk[4];
    unsigned an = 0, reason = 0;
    uint32_t ctx = 0;
    int h;
    memset(&dp, 0, sizeof dp);
    memset(&in, 0, sizeof in);

    if (!d->synced) {
        if (abandoned || apo == 15) /* the address cannot be found without the FIFO's contents */
            goto skip;
        /* the branch's address starts at the (APO+1)-th TRACESYNC from cycle t */
        uint64_t c = t;
        unsigned seen = 0;
        for (;; c++) {
            h = have(d, c);
            if (h != RD_OK)
                return need(d, diag, h, t, "the branch address (TRACESYNC) the APO points to");
            if (at(d, c)->flags & F_SYNC) {
                if (seen == apo)
                    break;
                seen++;
            }
        }
        e.cyc = c;
        e.lane = 0;
        p0 = e; /* nothing before the address is known */
        if (!drains(at(d, c)))
            return fail(d, diag, c, after, "TRACESYNC in cycle %" PRIu64 ", a %s cycle, which drains nothing", c,
                        etm_v1_pipestat_name(at(d, c)->ps));
    } else {
        have_insn = d->pc_valid && fetch(d, d->pc, &in);
        no_insn = d->pending_abandon;
        if (!d->pc_valid && st == ETM_V1_PS_BD)
            return fail(d, diag, t, after,
                        "BD at cycle %" PRIu64 ": the branch at cycle %" PRIu64 " left no BE to say where execution "
                        "went, so only a trace restart (a BE with a full address) may follow it",
                        t, d->pc_lost);
        p0 = from_cycle(p0, t);
        e = p0;
        if (st == ETM_V1_PS_BD) {
            if (!have_insn)
                return fail(d, diag, t, after,
                            "BD at cycle %" PRIu64 ": the code image has no instruction at 0x%08" PRIx32
                            " to count its data packets",
                            t, d->pc);
            if (data_insn_ok(d, diag, t, st, &in) == P_ERR)
                return P_ERR;
            h = read_data(d, &e, 0, &in, &dp);
            if (h != RD_OK)
                return need(d, diag, h, t, "the data packets");
        }
        /* the address starts on [7:0] (16-bit port) of a cycle with TRACESYNC */
        if (d->port == 16 && e.lane)
            e.cyc++, e.lane = 0;
        h = norm(d, &e);
        if (h != RD_OK)
            return need(d, diag, h, t, "the branch address");
        if (!(at(d, e.cyc)->flags & F_SYNC))
            return fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 ": FIFO order puts its branch address in cycle %" PRIu64
                        ", but TRACESYNC is 0 there",
                        bname, t, e.cyc);
        unsigned ns = 0;
        for (uint64_t c = t; c < e.cyc; c++)
            ns += (at(d, c)->flags & F_SYNC) ? 1u : 0u;
        if (!abandoned && (apo < 15 ? ns != apo : ns < 15))
            return fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 ": APO %u, but %u branch addresses start between it and its own "
                        "(cycle %" PRIu64 ")%s",
                        bname, t, apo, ns, e.cyc, apo == 15 ? ": 15 stands for more than 14" : "");
        if (abandoned == 2 && (apo & 3u) != ((ns > 14 ? 15u : ns) & 3u))
            return fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 " (abandoned): APO[1:0] = %u, but %u branch addresses start between "
                        "it and its own",
                        bname, t, apo & 3u, ns);
    }

    /* the address itself (and a context ID) */
    q = e;
    h = read_address(d, &q, 0, apk, &an);
    if (h != RD_OK)
        return need(d, diag, h, t, "the branch address");
    if (!(apk[0] & 1u))
        return fail(d, diag, t, after,
                    "%s at cycle %" PRIu64 ": branch address bit 0 is 0 (ARM state), but the core only runs Thumb",
                    bname, t);
    if (an == 5) {
        reason = (apk[4] >> 4) & 7u;
        if (apk[4] & 0x80u)
            return fail(d, diag, t, after,
                        "%s at cycle %" PRIu64 ": bit 7 of address packet 5 is %s",
                        bname, t, d->version >= ETM_V(1, 3) ? "the J bit (Jazelle), which a Cortex-M3 never sets"
                                                           : "1; it is 0 before ETMv1.3");
        if (reason > 4 || (reason == 4 && d->version < ETM_V(1, 2)))
            return fail(d, diag, t, after, "%s at cycle %" PRIu64 ": reason code %u is reserved in ETMv1.%u", bname,
                        t, reason, ETM_V_MINOR(d->version));
        if (reason != 0 && d->ctxid_bytes) {
            for (unsigned i = 0; i < d->ctxid_bytes; i++) {
                h = read_packet(d, &q, 0, &cpk[i], NULL);
                if (h != RD_OK)
                    return need(d, diag, h, t, "the context ID");
                ctx |= (uint32_t)cpk[i] << (8 * i);
            }
        }
    } else if (!d->synced) {
        goto skip; /* a compressed address needs the reference */
    }
    restart = an == 5 && reason >= 1 && reason <= 3;
    traced = merge_address(d->bref, apk, an);
    if (d->synced && d->empty_wt && !(restart && reason == ETM_V1_REASON_OVERFLOW))
        return empty_wt_fail(d, diag, t, after);
    if (restart && st == ETM_V1_PS_BD)
        return fail(d, diag, t, after,
                    "BD at cycle %" PRIu64 " with reason %u: a trace (re)start stands for no instruction and has "
                    "no data",
                    t, reason);
    if (d->synced && !restart && !d->pc_valid)
        return fail(d, diag, t, after,
                    "%s at cycle %" PRIu64 " with %s: the branch at cycle %" PRIu64 " left no BE to say where "
                    "execution went, so only a trace restart (a full address, reason 1-3) may follow it",
                    bname, t, an == 5 ? "a reason 0/4 full address" : "a compressed address", d->pc_lost);
    if (d->synced && !restart && !no_insn && !have_insn)
        return fail(d, diag, t, after, "%s at cycle %" PRIu64 ": the code image has no instruction at 0x%08" PRIx32,
                    bname, t, d->pc);
    if (d->synced && an < 5 && (d->flags & ETM_V1DEC_STRICT) && packets_needed(traced, d->bref) < an)
        return fail(d, diag, t, after,
                    "%s at cycle %" PRIu64 ": address 0x%08" PRIx32 " sent in %u packets; %u cover every bit "
                    "that changed",
                    bname, t, traced & ~1u, an, packets_needed(traced, d->bref));

    /* ---- commit ---- */
    if (d->synced && st == ETM_V1_PS_BD) {
        pos_t pd = p0;
        read_data(d, &pd, 1, &in, &dp);
    }
    q = e;
    read_address(d, &q, 1, apk, &an);
    if (an == 5 && reason != 0)
        for (unsigned i = 0; i < d->ctxid_bytes; i++)
            read_packet(d, &q, 1, &cpk[i], NULL);
    at(d, e.cyc)->flags |= F_ADDR;
    d->cur = q;
    d->stats.branches++;
    if (tr)
        emit_trigger(d, t, diag);
    {
        etm_v1el_t el;
        memset(&el, 0, sizeof el);
        el.cycle = t;
        el.target = traced & ~1u;
        el.addr_packets = an;
        el.reason = reason;
        el.has_context_id = an == 5 && reason != 0 && d->ctxid_bytes != 0;
        el.context_id = ctx;
        el.abandoned = abandoned != 0;
        el.trigger = tr;
        if (!d->synced || restart) {
            el.kind = restart ? ETM_V1EL_TRACE_ON : ETM_V1EL_SYNC;
            el.addr = el.target;
            emit(d, &el);
            if (!d->synced) {
                d->synced = 1;
                d->td_from = t;
                d->idle_from = e.cyc;
                d->dref_state = restart ? DREF_NEED_FULL : DREF_UNKNOWN;
            } else {
                d->dref_state = DREF_NEED_FULL;
            }
        } else if (no_insn) {
            el.kind = ETM_V1EL_ABANDON;
            el.addr = d->pc;
            emit(d, &el);
        } else {
            el.kind = ETM_V1EL_INSN;
            el.addr = d->pc;
            el.status = st;
            el.executed = 1;
            el.insn = in;
            emit(d, &el);
            if (st == ETM_V1_PS_BD) {
                if ((d->data_mode & 2u) && dp.an < 5 && d->dref_state == DREF_NEED_FULL)
                    soft_fail(d, diag, t,
                              "BD at cycle %" PRIu64 ": the first data address after trace (re)started has %u "
                              "packets; it must be full (5)",
                              t, dp.an);
                if (d->data_mode)
                    emit_data(d, t, d->pc, &in, &dp);
            }
            if (an == 5) {
                el.kind = ETM_V1EL_SYNC;
                el.addr = el.target;
                el.status = 0;
                el.executed = 0;
                memset(&el.insn, 0, sizeof el.insn);
                emit(d, &el);
            }
        }
    }
    d->bref = traced;
    d->pc = traced & ~1u;
    d->pc_valid = 1;
    d->empty_wt = 0;
    d->pending_abandon = abandoned != 0;
    for (unsigned k = 1; k <= 2 && t + k < after; k++) {
        at(d, t + k)->flags |= F_APO;
        if (trk[k])
            emit_trigger(d, t + k, diag);
    }
    d->next = after;
    return P_DONE;

skip: /* before synchronisation: a branch whose address cannot be used */
    if (tr)
        emit_trigger(d, t, diag);
    for (unsigned k = 1; k <= 2 && t + k < after; k++) {
        at(d, t + k)->flags |= F_APO;
        if (trk[k])
            emit_trigger(d, t + k, diag);
    }
    d->stats.unsynced_statuses++;
    d->next = after;
    return P_DONE;
}

static int process_one(etm_v1dec_t *d, etm_diag_t *diag)
{
    uint64_t t = d->next;
    int tr;
    unsigned st = effective(d, t, &tr);
    d->wait_what = NULL;
    if (tr && (st == ETM_V1_PS_TR || st == ETM_V1_PS_TD))
        return fail(d, diag, t, t + 1, "TR in cycle %" PRIu64 " carries %s on TRACEPKT[2:0]; the replaced status is never TR or TD",
                    t, etm_v1_pipestat_name(st));
    switch (st) {
    case ETM_V1_PS_IE:
    case ETM_V1_PS_ID:
    case ETM_V1_PS_IN:
        return do_insn(d, t, st, tr, diag);
    case ETM_V1_PS_BE:
    case ETM_V1_PS_BD:
        return do_branch(d, t, st, tr, diag);
    default: /* WT, TD */
        if (tr)
            emit_trigger(d, t, diag);
        d->next = t + 1;
        return P_DONE;
    }
}

/* Decode statuses while their cycles are in the window. */
static etm_err_t run(etm_v1dec_t *d, etm_diag_t *diag)
{
    while (d->next < d->fed) {
        d->soft_err = 0;
        int r = process_one(d, diag);
        if (r == P_WAIT)
            return ETM_OK;
        if (r == P_ERR)
            return ETM_ERR_DECODE;
        if (d->soft_err) {
            etm_diag_t scratch;
            run_checks(d, &scratch); /* the soft error is the one reported */
            return ETM_ERR_DECODE;
        }
        etm_err_t e = run_checks(d, diag);
        if (e != ETM_OK)
            return e;
    }
    return ETM_OK;
}

/* ---- Public API ---------------------------------------------------------------------- */

etm_err_t etm_v1dec_create(etm_v1dec_t **out, const etm_config_t *cfg, size_t history, unsigned flags,
                           etm_diag_t *diag)
{
    unsigned version;
    etm_err_t e;
    if (!out || !cfg)
        return ETM_ERR_ARG;
    *out = NULL;
    if (ETM_FIELD_GET(ETM_CCR_ETMIDR, cfg->etmccr)) {
        if (diag) {
            etm_diag_clear(diag);
            diag->code = ETM_ERR_UNSUPPORTED;
            snprintf(diag->msg, sizeof diag->msg,
                     "ETMCCR[31] is 1: this ETM has an ETMIDR and is not an ETMv1; the ETMv1 decoder needs ETMCCR[31] = 0");
        }
        return ETM_ERR_UNSUPPORTED;
    }
    if ((e = etm_config_version(cfg, &version, diag)) != ETM_OK)
        return e;
    uint32_t cr = cfg->etmcr;
    unsigned ps = ETM_FIELD_GET(ETM_CR_PORTSIZE, cr) | (ETM_FIELD_GET(ETM_CR_PORTSIZE3, cr) ? 8u : 0u);
    const char *why = NULL;
    char buf[160];
    if (ps > 2) {
        snprintf(buf, sizeof buf, "ETMCR port size %u: an ETMv1 port is 4 (0), 8 (1) or 16 (2) bits", ps);
        why = buf;
    } else if ETM_FIELD_GET(ETM_CR_HALF_RATE, cr) {
        why = "ETMCR[13] half-rate clocking is not decoded";
    } else if ETM_FIELD_GET(ETM_CR_PORT_MODE, cr) {
        why = "ETMCR[17:16] multiplexed/demultiplexed port modes are not decoded";
    } else if ETM_FIELD_GET(ETM_CR_MONITOR_CPRT, cr) {
        why = "ETMCR[1] CPRT tracing is not decoded";
    } else if (ETM_FIELD_GET(ETM_CR_CTXID_SIZE, cr) && version < ETM_V(1, 2)) {
        why = "ETMCR[15:14] context ID exists from ETMv1.2";
    }
    if (why) {
        if (diag) {
            etm_diag_clear(diag);
            diag->code = ETM_ERR_UNSUPPORTED;
            snprintf(diag->msg, sizeof diag->msg, "%s", why);
        }
        return ETM_ERR_UNSUPPORTED;
    }
    etm_v1dec_t *d = (etm_v1dec_t *)calloc(1, sizeof *d);
    if (!d)
        return ETM_ERR_NOMEM;
    d->version = version;
    d->port = ps == 0 ? 4u : ps == 1 ? 8u : 16u;
    d->data_mode = (cr >> 2) & 3u;
    d->branch_output = ETM_FIELD_GET(ETM_CR_BRANCH_OUTPUT, cr) != 0;
    d->cycle_acc = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cr) != 0;
    {
        static const unsigned char ctx_bytes[4] = { 0, 1, 2, 4 };
        d->ctxid_bytes = ctx_bytes[ETM_FIELD_GET(ETM_CR_CTXID_SIZE, cr)];
    }
    d->flags = flags;
    if (!history) {
        history = (size_t)cfg->fifo_depth * 16u;
        if (history < 4096)
            history = 4096;
    }
    if (history > ((size_t)1 << 26))
        history = (size_t)1 << 26;
    d->cap = 8;
    while (d->cap < history)
        d->cap <<= 1;
    d->ring = (cyc_t *)calloc((size_t)d->cap, sizeof *d->ring);
    if (!d->ring) {
        free(d);
        return ETM_ERR_NOMEM;
    }
    etm_v1dec_reset(d);
    *out = d;
    return ETM_OK;
}

void etm_v1dec_destroy(etm_v1dec_t *d)
{
    if (!d)
        return;
    free(d->ring);
    free(d->win);
    free(d);
}

void etm_v1dec_on_element(etm_v1dec_t *d, etm_v1el_fn fn, void *user)
{
    d->el_fn = fn;
    d->el_user = user;
}

void etm_v1dec_set_image(etm_v1dec_t *d, etm_v1_read_fn fn, void *user)
{
    d->rd = fn;
    d->rd_user = user;
}

etm_err_t etm_v1dec_set_windows(etm_v1dec_t *d, const etm_v1_window_t *w, size_t n)
{
    if (!d || (n && !w))
        return ETM_ERR_ARG;
    etm_v1_window_t *copy = NULL;
    if (n) {
        copy = (etm_v1_window_t *)malloc(n * sizeof *copy);
        if (!copy)
            return ETM_ERR_NOMEM;
        memcpy(copy, w, n * sizeof *copy);
    }
    free(d->win);
    d->win = copy;
    d->img.w = copy;
    d->img.n = n;
    d->rd = etm_v1_image_read;
    d->rd_user = &d->img;
    return ETM_OK;
}

void etm_v1dec_reset(etm_v1dec_t *d)
{
    d->fed = d->next = d->chk = 0;
    d->ended = 0;
    d->synced = 0;
    d->pc_valid = 0;
    d->pc_lost = 0;
    d->pc = 0;
    d->cur.cyc = 0;
    d->cur.lane = 0;
    d->bref = 0;
    d->dref = 0;
    d->dref_state = DREF_UNKNOWN;
    d->idle_from = d->td_from = 0;
    d->pending_abandon = 0;
    d->empty_wt = 0;
    d->triggers = 0;
    d->soft_err = 0;
    d->wait_what = NULL;
    memset(&d->stats, 0, sizeof d->stats);
}

etm_err_t etm_v1dec_feed(etm_v1dec_t *d, unsigned pipestat, unsigned tracepkt, unsigned tracesync, etm_diag_t *diag)
{
    etm_err_t first = ETM_OK;
    etm_diag_t scratch;
    if (d->ended)
        return ETM_ERR_STATE;
    /* The window is full: decode; if the oldest status still waits, what it waits
     * for lies beyond the window. */
    while (d->fed - d->chk >= d->cap) {
        etm_diag_t *dg = first == ETM_OK ? diag : &scratch;
        etm_err_t e = run(d, dg);
        if (e == ETM_OK && d->fed - d->chk >= d->cap) {
            uint64_t t = d->next;
            fail(d, dg, t, t + 1,
                 "%s at cycle %" PRIu64 ": %s did not come within %" PRIu64 " cycles (the decoder's window)",
                 etm_v1_pipestat_name(at(d, t)->ps), t, d->wait_what ? d->wait_what : "what it waits for", d->cap);
            e = ETM_ERR_DECODE;
        }
        if (e != ETM_OK && first == ETM_OK)
            first = e;
    }
    cyc_t *c = at(d, d->fed);
    c->ps = (uint8_t)(pipestat & 7u);
    c->pkt = (uint16_t)tracepkt;
    c->flags = tracesync ? F_SYNC : 0u;
    d->fed++;
    d->stats.cycles++;
    if (first != ETM_OK)
        return first;
    return run(d, diag);
}

etm_err_t etm_v1dec_step(etm_v1dec_t *d, const etm_out_t *rec, etm_diag_t *diag)
{
    return etm_v1dec_feed(d, rec->pipestat, rec->tracepkt, rec->tracesync, diag);
}

etm_err_t etm_v1dec_end(etm_v1dec_t *d, etm_diag_t *diag)
{
    d->ended = 1;
    etm_err_t e = run(d, diag);
    if (e != ETM_OK)
        return e;
    return ETM_OK;
}

const etm_v1dec_stats_t *etm_v1dec_get_stats(const etm_v1dec_t *d) { return &d->stats; }
