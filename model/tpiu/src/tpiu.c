/* tpiu.c - the TPIU and its CoreSight formatter (etm/tpiu.h, docs/tpiu.md).
 *
 * One core clock, in this order (rtl/etm_tpiu.sv does the same):
 *   1. ATREADY from the state: every present source's word fits in the queue.
 *   2. The output side takes pairs present at the start of the cycle: on a
 *      TRACECLK edge the serializer tops its shift register up to PORT_BITS
 *      with pairs (a half-word sync when none is ready) and puts out the low
 *      PORT_BITS; the ETB writes one pair a cycle; SWO's line, at the end of
 *      a character (or idle), starts the next pair's.
 *   3. The formatter makes at most one pair from the queue as it stood at the
 *      start of the cycle, if the pair buffer has room after step 2.
 *   4. The words ATREADY took go into the queue, source 0 first, then a
 *      trigger marker (one waits while the queue is full).
 *   5. An APB write in its access phase takes effect for the next cycle.
 */
#include "etm/tpiu.h"

#include "etm/number.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define HSYNC 0x7FFFu  /* bytes FF 7F */
#define FSYNC0 0xFFFFu /* FF FF, then FF 7F */

struct etm_tpiu {
    etm_tpiu_params_t p;
    /* input queue: trace ID and byte */
    uint8_t qid[ETM_TPIU_QUEUE_MAX], qb[ETM_TPIU_QUEUE_MAX];
    unsigned q_rd, q_level;
    /* formatter */
    uint8_t cur_id, id_valid;
    unsigned pk;          /* half-word of the frame being made: 0..7 (7: byte 14 and the aux byte) */
    uint8_t aux;
    unsigned fcount;      /* frames since the last frame sync */
    unsigned fs_left;     /* half-words of a frame sync still to make */
    int ending;
    /* pairs waiting for the output side */
    uint16_t pair[ETM_TPIU_PAIRS];
    unsigned pr_rd, pr_n;
    /* pins */
    uint64_t sh;
    unsigned nbits, div;
    /* ETB */
    uint8_t *etb;
    uint32_t etb_wr;
    /* SWO: the units (NRZ bits, Manchester half-bits) of the character on the line */
    uint64_t sw_sh;
    unsigned sw_units, sw_cnt;
    /* markers and restatements */
    uint8_t trig_pending, force_id;
    uint8_t trig_hist;     /* TRIGIN of the last clocks, the latest in bit 0 */
    unsigned frames_same;  /* frames completed since the last ID byte */
    uint8_t pair_single[ETM_TPIU_PAIRS];
    etm_tpiu_params_t p0; /* the parameters given: p is them as the registers have changed them */
    unsigned claim;       /* the claim tags */
    etm_tpiu_stats_t st;
};

void etm_tpiu_params_default(etm_tpiu_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->port_bits = 4;
    p->clk_div = 1;
    p->fsync_frames = 64;
    p->queue_bytes = 32;
    p->src_bytes[0] = 1;
    p->protocol = ETM_TPIU_PARALLEL;
    p->ffcr = ETM_TPIU_FFCR_ENFCONT | ETM_TPIU_FFCR_TRIGIN;
    p->id_restate = 8;
    p->trig_delay = 2;
}

/* The number at *s, up to the next ',' or ':' (or the end), within [min,
 * max] (etm/number.h), moving *s past it. what names it in the message. */
static etm_err_t number(const char **s, const char *what, uint64_t min, uint64_t max, unsigned *v, etm_diag_t *diag)
{
    size_t n = strcspn(*s, ",:");
    char buf[48];
    etm_diag_t d;
    uint64_t x = 0;
    if (n >= sizeof buf)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s: '%.*s...' is no number", what, 20, *s);
    memcpy(buf, *s, n);
    buf[n] = 0;
    if (etm_number_parse(buf, min, max, &x, &d) != ETM_OK)
        return etm_util_fail(diag, ETM_ERR_ARG, "%s %s", what, d.msg);
    *v = (unsigned)x;
    *s += n;
    return ETM_OK;
}

/* ",key=N" options after the output side. Returns ETM_OK, ETM_ERR_SYNTAX
 * (not one: the caller says what is wanted) or ETM_ERR_ARG (a value out of
 * its range: in diag). */
static etm_err_t parse_options(etm_tpiu_params_t *p, const char *c, etm_diag_t *diag)
{
    while (*c == ',') {
        c++;
        static const struct { const char *key, *what; unsigned min, max; } keys[] = {
            {"ffcr=", "ffcr (TPIU_FFCR)", 0, 0xFFFF}, {"fsync=", "fsync (frames)", 0, 0xFFF},
            {"queue=", "queue (bytes)", 4, ETM_TPIU_QUEUE_MAX}, {"restate=", "restate (frames)", 0, 255},
            {"trigdelay=", "trigdelay (clocks)", 0, 7}};
        unsigned *dst[] = {&p->ffcr, &p->fsync_frames, &p->queue_bytes, &p->id_restate, &p->trig_delay};
        unsigned k = 0;
        while (k < 5 && strncmp(c, keys[k].key, strlen(keys[k].key)))
            k++;
        if (k == 5)
            return ETM_ERR_SYNTAX;
        c += strlen(keys[k].key);
        etm_err_t e = number(&c, keys[k].what, keys[k].min, keys[k].max, dst[k], diag);
        if (e != ETM_OK)
            return e;
    }
    return *c == 0 ? ETM_OK : ETM_ERR_SYNTAX;
}

etm_err_t etm_tpiu_params_parse(etm_tpiu_params_t *p, const char *s, int allow_etb, etm_diag_t *diag)
{
    etm_tpiu_params_default(p);
    const char *c = s;
    unsigned a = 0, b = 1;
    etm_err_t e = ETM_ERR_SYNTAX;
    if (allow_etb && !strncmp(c, "etb:", 4)) {
        c += 4;
        e = number(&c, "etb: (bytes)", 16, 1u << 24, &a, diag);
        if (e == ETM_OK) {
            p->port_bits = 0;
            p->etb_bytes = a;
        }
    } else if (!strncmp(c, "nrz", 3) || !strncmp(c, "manchester", 10)) {
        p->protocol = c[0] == 'n' ? ETM_TPIU_NRZ : ETM_TPIU_MANCHESTER;
        c += c[0] == 'n' ? 3 : 10;
        e = *c == ':' ? (++c, number(&c, "ACPR (the SWO prescaler)", 0, ETM_TPIU_ACPR_MAX, &p->acpr, diag))
                      : *c == 0 || *c == ',' ? ETM_OK : ETM_ERR_SYNTAX;
    } else if (*c >= '0' && *c <= '9') {
        e = number(&c, "PINS", 1, 32, &a, diag);
        if (e == ETM_OK && *c == ':') {
            c++;
            e = number(&c, "DIV (TRACECLK divider)", 1, 16, &b, diag);
        }
        if (e == ETM_OK) {
            p->port_bits = a;
            p->clk_div = b;
        }
    }
    if (e == ETM_OK)
        e = parse_options(p, c, diag);
    if (e == ETM_OK || e == ETM_ERR_ARG)
        return e;
    return etm_util_fail(diag, ETM_ERR_ARG,
                         "'%s': want PINS[:DIV], nrz[:ACPR] or manchester[:ACPR]%s, then any of ,ffcr=V ,fsync=N "
                         ",queue=N ,restate=N ,trigdelay=N; e.g. 4, 2:2, nrz:0 or manchester:3,ffcr=0x100",
                         s, allow_etb ? " or etb:BYTES" : "");
}

static int width_ok(unsigned w) { return w == 1 || w == 2 || w == 4 || w == 8; }

etm_err_t etm_tpiu_create(etm_tpiu_t **out, const etm_tpiu_params_t *p, etm_diag_t *diag)
{
    *out = NULL;
    unsigned pb = p->port_bits;
    if (pb && pb != 1 && pb != 2 && pb != 4 && pb != 8 && pb != 16 && pb != 32)
        return etm_util_fail(diag, ETM_ERR_ARG, "TPIU port of %u pins: 1, 2, 4, 8, 16 or 32 (0: ETB)", pb);
    if (p->clk_div < 1 || p->clk_div > 16)
        return etm_util_fail(diag, ETM_ERR_ARG, "TRACECLK divider %u: 1 to 16 core clocks", p->clk_div);
    if (pb > 16 * p->clk_div)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "%u pins at TRACECLK = core clock / %u need more than one half-word a core clock, "
                             "which is what the formatter makes", pb, p->clk_div);
    if (!width_ok(p->src_bytes[0]))
        return etm_util_fail(diag, ETM_ERR_ARG, "ATB source 0 of %u bytes: 1, 2, 4 or 8", p->src_bytes[0]);
    if (p->src_bytes[1] && !width_ok(p->src_bytes[1]))
        return etm_util_fail(diag, ETM_ERR_ARG, "ATB source 1 of %u bytes: 0 (none), 1, 2, 4 or 8",
                             p->src_bytes[1]);
    unsigned words = p->src_bytes[0] + p->src_bytes[1];
    if (p->queue_bytes < 4 || p->queue_bytes > ETM_TPIU_QUEUE_MAX || (p->queue_bytes & (p->queue_bytes - 1)) ||
        p->queue_bytes < words)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "TPIU queue of %u bytes: a power of two from 4 to %u, with room for a word of every "
                             "source (%u)", p->queue_bytes, ETM_TPIU_QUEUE_MAX, words);
    if (!pb && (p->etb_bytes < 16 || p->etb_bytes > (1u << 24) || p->etb_bytes % 16))
        return etm_util_fail(diag, ETM_ERR_ARG, "ETB of %u bytes: a multiple of 16, 16 to 2^24", p->etb_bytes);
    if (p->protocol > ETM_TPIU_NRZ)
        return etm_util_fail(diag, ETM_ERR_ARG, "pin protocol (TPIU_SPPR) %u: 0 trace port, 1 Manchester, 2 NRZ",
                             p->protocol);
    if (p->protocol != ETM_TPIU_PARALLEL && !pb)
        return etm_util_fail(diag, ETM_ERR_ARG, "an ETB has no SWO pin: pin protocol (TPIU_SPPR) 0");
    if (p->acpr > ETM_TPIU_ACPR_MAX)
        return etm_util_fail(diag, ETM_ERR_ARG, "SWO prescaler (TPIU_ACPR) %u: 0 to %u", p->acpr,
                             ETM_TPIU_ACPR_MAX);
    if (p->ffcr & ~(ETM_TPIU_FFCR_ENFCONT | ETM_TPIU_FFCR_TRIGIN))
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "TPIU_FFCR 0x%x: only EnFCont (0x2) and TrigIn (0x100) are implemented", p->ffcr);
    if (p->fsync_frames > 0xFFFu)
        return etm_util_fail(diag, ETM_ERR_ARG, "frame sync period (TPIU_FSCR) %u: 0 to 4095 frames",
                             p->fsync_frames);
    if (p->trig_delay > 7)
        return etm_util_fail(diag, ETM_ERR_ARG, "trigger marker delay of %u clocks: 0 to 7", p->trig_delay);
    if (p->id_restate > 255)
        return etm_util_fail(diag, ETM_ERR_ARG, "ID restatement after %u frames: 0 (never) to 255",
                             p->id_restate);
    etm_tpiu_t *t = (etm_tpiu_t *)calloc(1, sizeof *t);
    if (!t)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    t->p = *p;
    t->p0 = *p;
    if (!pb) {
        t->etb = (uint8_t *)calloc(p->etb_bytes, 1);
        if (!t->etb) {
            free(t);
            return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory for an ETB of %u bytes", p->etb_bytes);
        }
    }
    etm_tpiu_reset(t);
    *out = t;
    return ETM_OK;
}

void etm_tpiu_destroy(etm_tpiu_t *t)
{
    if (t) {
        free(t->etb);
        free(t);
    }
}

void etm_tpiu_reset(etm_tpiu_t *t)
{
    t->p = t->p0;
    t->q_rd = t->q_level = 0;
    t->cur_id = 0;
    t->id_valid = 0;
    t->pk = 0;
    t->aux = 0;
    t->fcount = 0;
    t->fs_left = t->p.port_bits && t->p.protocol == ETM_TPIU_PARALLEL ? 2 : 0; /* the pins start with a frame sync */
    t->ending = 0;
    t->pr_rd = t->pr_n = 0;
    t->sh = 0;
    t->nbits = 0;
    t->div = 0;
    t->etb_wr = 0;
    if (t->etb)
        memset(t->etb, 0, t->p.etb_bytes);
    t->sw_sh = 0;
    t->sw_units = t->sw_cnt = 0;
    t->trig_pending = t->force_id = 0;
    t->trig_hist = 0;
    t->frames_same = 0;
    t->claim = 0;
    memset(&t->st, 0, sizeof t->st);
}

int etm_tpiu_ready(const etm_tpiu_t *t, unsigned src)
{
    return src < ETM_TPIU_SOURCES && t->p.src_bytes[src] != 0 &&
           t->p.queue_bytes - t->q_level >= t->p.src_bytes[0] + t->p.src_bytes[1];
}

static uint16_t pair_pop(etm_tpiu_t *t, int *single)
{
    uint16_t v = t->pair[t->pr_rd];
    *single = t->pair_single[t->pr_rd];
    t->pr_rd = (t->pr_rd + 1) % ETM_TPIU_PAIRS;
    t->pr_n--;
    return v;
}

static int swo(const etm_tpiu_t *t) { return t->p.port_bits && t->p.protocol != ETM_TPIU_PARALLEL; }

/* SWO's character for a pair (or one byte): its units, first in bit 0.
 * NRZ: per byte a start bit (0), eight data bits least significant first, a
 * stop bit (1). Manchester: a start bit (1), the data bits least significant
 * first, each as two half-bits (1: high then low; 0: low then high), then
 * one bit time low (the stop, not a Manchester symbol). */
static void swo_load(etm_tpiu_t *t, uint16_t v, int single)
{
    unsigned nbytes = single ? 1 : 2;
    uint64_t sh = 0;
    unsigned n = 0;
    if (t->p.protocol == ETM_TPIU_NRZ) {
        for (unsigned b = 0; b < nbytes; b++) {
            uint64_t ch = (uint64_t)((v >> (8 * b)) & 0xFFu) << 1 | 1u << 9; /* start 0, data, stop 1 */
            sh |= ch << n;
            n += 10;
        }
    } else {
        sh = 1; /* the start bit: high, then low */
        n = 2;
        for (unsigned i = 0; i < 8 * nbytes; i++, n += 2)
            sh |= (uint64_t)((v >> i) & 1u ? 1u : 2u) << n;
        n += 2; /* the stop: low */
    }
    t->sw_sh = sh;
    t->sw_units = n;
    t->sw_cnt = 0;
    t->st.swo_bytes += nbytes;
}

/* SWO: the line's level this cycle; a new character starts when the last
 * one has ended. */
static void swo_side(etm_tpiu_t *t, etm_tpiu_out_t *out)
{
    if (!t->sw_units && t->pr_n) {
        int single;
        uint16_t v = pair_pop(t, &single);
        swo_load(t, v, single);
    }
    if (!t->sw_units) {
        out->swo = t->p.protocol == ETM_TPIU_NRZ;
        return;
    }
    out->swo = (uint8_t)(t->sw_sh & 1u);
    t->st.swo_busy++;
    if (++t->sw_cnt > t->p.acpr) {
        t->sw_cnt = 0;
        t->sw_sh >>= 1;
        t->sw_units--;
    }
}

/* Step 2: the pins, SWO or the ETB. */
static void output_side(etm_tpiu_t *t, etm_tpiu_out_t *out)
{
    int single;
    if (!t->p.port_bits) {
        if (t->pr_n) {
            uint16_t v = pair_pop(t, &single);
            out->etb_wr = 1;
            out->etb_addr = t->etb_wr;
            t->etb[t->etb_wr] = (uint8_t)v;
            t->etb[t->etb_wr + 1] = (uint8_t)(v >> 8);
            t->etb_wr += 2;
            if (t->etb_wr == t->p.etb_bytes) {
                t->etb_wr = 0;
                t->st.etb_wraps++;
            }
        }
        return;
    }
    if (swo(t)) {
        swo_side(t, out);
        return;
    }
    if (t->div + 1 < t->p.clk_div) {
        t->div++;
        return;
    }
    t->div = 0;
    out->tclk = 1;
    while (t->nbits < t->p.port_bits) {
        uint16_t v;
        if (t->pr_n) {
            v = pair_pop(t, &single);
        } else {
            v = HSYNC;
            t->st.hsyncs++;
        }
        t->sh |= (uint64_t)v << t->nbits;
        t->nbits += 16;
    }
    uint64_t mask = t->p.port_bits == 32 ? 0xFFFFFFFFull : (1ull << t->p.port_bits) - 1;
    out->tracedata = (uint32_t)(t->sh & mask);
    t->sh >>= t->p.port_bits;
    t->nbits -= t->p.port_bits;
}

static int bypassed(const etm_tpiu_t *t) { return swo(t) && !(t->p.ffcr & ETM_TPIU_FFCR_ENFCONT); }

static void consume(etm_tpiu_t *t, unsigned n)
{
    t->q_rd = (t->q_rd + n) % t->p.queue_bytes;
    t->q_level -= n;
}

/* An ID byte: the frames without one start again from here. */
static uint8_t id_byte(etm_tpiu_t *t, uint8_t id)
{
    t->cur_id = id;
    t->id_valid = 1;
    t->force_id = 0;
    t->frames_same = 0;
    t->st.id_bytes++;
    return (uint8_t)(id << 1 | 1);
}

/* Step 3: one half-word of the frame, or of a frame sync (or, the formatter
 * bypassed, one byte). Returns 1 and the half-word in *v when one is made.
 * n: queue level at the start of the cycle. */
static int format_pair(etm_tpiu_t *t, unsigned n, uint16_t *v, uint8_t *single)
{
    *single = 0;
    if (bypassed(t)) {
        if (!n)
            return 0;
        *v = t->qb[t->q_rd];
        *single = 1;
        consume(t, 1);
        return 1;
    }
    if (t->fs_left) {
        *v = t->fs_left == 2 ? FSYNC0 : HSYNC;
        if (--t->fs_left == 0)
            t->st.fsyncs++;
        return 1;
    }
    unsigned qs = t->p.queue_bytes;
    uint8_t id0 = t->qid[t->q_rd], b0 = t->qb[t->q_rd];
    uint8_t id1 = t->qid[(t->q_rd + 1) % qs], b1 = t->qb[(t->q_rd + 1) % qs];
    int change0 = n >= 1 && (!t->id_valid || id0 != t->cur_id || t->force_id);
    /* The open frame is finished with what there is: the sources have ended,
     * or SWO's line has run dry (the pin has no syncs to fill it with). */
    int flush = t->ending || (swo(t) && !t->sw_units && !t->pr_n);
    uint8_t even, odd;
    unsigned k = t->pk;
    if (n == 0) {
        if (!flush || k == 0)
            return 0;
        /* Padding to the end of the frame: ID 0x00, then zero bytes. */
        if (!t->id_valid || t->cur_id != ETM_TPIU_ID_NULL) {
            even = id_byte(t, ETM_TPIU_ID_NULL);
        } else {
            even = 0;
            t->st.pad_bytes++;
        }
        odd = 0;
        t->st.pad_bytes += k < 7;
    } else if (change0) {
        if (t->id_valid && id0 == t->cur_id)
            t->st.restates++;
        even = id_byte(t, id0); /* the new ID (or the same, stated again); its first byte follows (aux 0) */
        odd = b0;
        if (k < 7)
            consume(t, 1);
    } else if (k == 7) {
        even = (uint8_t)(b0 & 0xFE);
        t->aux |= (uint8_t)((b0 & 1) << 7);
        odd = 0;
        consume(t, 1);
    } else if (n >= 2 && id1 == t->cur_id) {
        even = (uint8_t)(b0 & 0xFE);
        t->aux |= (uint8_t)((b0 & 1) << k);
        odd = b1;
        consume(t, 2);
    } else if (n >= 2 || flush) {
        /* An ID byte with the auxiliary bit set: the data byte after it still
         * belongs to the current ID. The ID is the next byte's (a change), or,
         * when the frame is being finished and one byte is left, the current
         * one again. */
        uint8_t cur = t->cur_id;
        even = id_byte(t, n >= 2 ? id1 : cur);
        t->aux |= (uint8_t)(1u << k);
        odd = b0;
        consume(t, 1);
    } else {
        return 0; /* one byte: wait for a second (the pins send syncs meanwhile) */
    }
    if (k == 7) {
        *v = (uint16_t)(even | t->aux << 8);
        t->aux = 0;
        t->pk = 0;
        t->st.frames++;
        if (t->p.id_restate && ++t->frames_same >= t->p.id_restate)
            t->force_id = 1;
        if (t->p.port_bits && !swo(t) && t->p.fsync_frames && ++t->fcount >= t->p.fsync_frames) {
            t->fcount = 0;
            t->fs_left = 2;
        }
    } else {
        *v = (uint16_t)(even | odd << 8);
        t->pk++;
    }
    return 1;
}

/* Step 5: the APB's access phase. */
static void apb(etm_tpiu_t *t, const etm_tpiu_in_t *in, etm_tpiu_out_t *out)
{
    if (!in->psel || !in->penable)
        return;
    if (in->pwrite) {
        t->st.apb_writes++;
        etm_tpiu_reg_write(t, in->paddr, in->pwdata);
    } else {
        out->prdata = etm_tpiu_reg_read(t, in->paddr);
    }
}

void etm_tpiu_step(etm_tpiu_t *t, const etm_tpiu_in_t *in, etm_tpiu_out_t *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned s = 0; s < ETM_TPIU_SOURCES; s++)
        out->atready[s] = (uint8_t)etm_tpiu_ready(t, s);
    unsigned n = t->q_level;
    output_side(t, out);
    uint16_t v;
    uint8_t single;
    if (t->pr_n < ETM_TPIU_PAIRS && format_pair(t, n, &v, &single)) {
        unsigned w = (t->pr_rd + t->pr_n) % ETM_TPIU_PAIRS;
        t->pair[w] = v;
        t->pair_single[w] = single;
        t->pr_n++;
        out->pair = v;
        out->paired = 1;
        out->single = single;
    }
    int bypass = bypassed(t);
    for (unsigned s = 0; s < ETM_TPIU_SOURCES; s++) {
        if (!in->src[s].valid || !t->p.src_bytes[s])
            continue;
        if (!out->atready[s]) {
            t->st.stall_cycles[s]++;
            continue;
        }
        t->st.words[s]++;
        t->st.bytes_in += t->p.src_bytes[s];
        if (bypass && s) {
            t->st.bypass_dropped += t->p.src_bytes[s]; /* the one source bypass passes is port 0 */
            continue;
        }
        for (unsigned i = 0; i < t->p.src_bytes[s]; i++) {
            unsigned w = (t->q_rd + t->q_level) % t->p.queue_bytes;
            t->qid[w] = (uint8_t)(in->src[s].id & 0x7F);
            t->qb[w] = in->src[s].data[i];
            t->q_level++;
        }
    }
    /* TRIGIN through its synchroniser: trig_delay clocks late. */
    unsigned d = t->p.trig_delay;
    int trig = d ? (t->trig_hist >> (d - 1)) & 1u : in->trigin != 0;
    t->trig_hist = (uint8_t)(t->trig_hist << 1 | (in->trigin != 0));
    if (trig && (t->p.ffcr & ETM_TPIU_FFCR_TRIGIN) && !bypass)
        t->trig_pending = 1;
    if (t->trig_pending && t->q_level < t->p.queue_bytes) {
        unsigned w = (t->q_rd + t->q_level) % t->p.queue_bytes;
        t->qid[w] = ETM_TPIU_ID_TRIGGER;
        t->qb[w] = 0;
        t->q_level++;
        t->trig_pending = 0;
        t->st.triggers++;
    }
    apb(t, in, out);
    t->st.cycles++;
}

void etm_tpiu_in_from_etm(etm_tpiu_in_t *in, const etm_out_t *out, int stalled)
{
    memset(in, 0, sizeof *in);
    if (!out)
        return;
    in->src[0].valid = (uint8_t)(out->atvalid && !stalled);
    in->src[0].id = out->atid;
    memcpy(in->src[0].data, out->v3_bytes, sizeof in->src[0].data);
    in->trigin = out->trigger;
}

void etm_tpiu_in_apb(etm_tpiu_in_t *in, const etm_in_t *stim)
{
    int sel = stim && stim->pseltpiu;
    in->psel = (uint8_t)sel;
    in->penable = (uint8_t)(sel && stim->penable);
    in->pwrite = (uint8_t)(sel && stim->pwrite);
    in->paddr = sel ? stim->paddr : 0;
    in->pwdata = sel ? stim->pwdata : 0;
}

void etm_tpiu_end(etm_tpiu_t *t) { t->ending = 1; }

int etm_tpiu_done(const etm_tpiu_t *t)
{
    return t->q_level == 0 && (t->pk == 0 || bypassed(t)) && t->fs_left == 0 && t->pr_n == 0 && t->nbits == 0 &&
           t->sw_units == 0 && !t->trig_pending && !t->trig_hist;
}

const etm_tpiu_stats_t *etm_tpiu_get_stats(const etm_tpiu_t *t) { return &t->st; }

size_t etm_tpiu_etb_read(const etm_tpiu_t *t, uint8_t *buf, size_t max)
{
    if (!t->etb)
        return 0;
    size_t n = 0;
    uint32_t start = t->st.etb_wraps ? t->etb_wr : 0;
    uint32_t len = t->st.etb_wraps ? t->p.etb_bytes : t->etb_wr;
    for (uint32_t i = 0; i < len && n < max; i++)
        buf[n++] = t->etb[(start + i) % t->p.etb_bytes];
    return n;
}

unsigned etm_tpiu_protocol(const etm_tpiu_t *t) { return t->p.port_bits ? t->p.protocol : (unsigned)ETM_TPIU_PARALLEL; }
unsigned etm_tpiu_acpr(const etm_tpiu_t *t) { return t->p.acpr; }
unsigned etm_tpiu_ffcr(const etm_tpiu_t *t)
{
    /* On the trace port the formatter is always on: FFCR reads EnFCont set. */
    return t->p.ffcr | (swo(t) ? 0u : ETM_TPIU_FFCR_ENFCONT);
}

/* The Cortex-M3 TPIU's identification (DDI 0337 chapter 11; part 0x923). */
static const struct {
    uint16_t off;
    uint8_t v;
} tpiu_ids[] = {
    {0xFCC, 0x11}, /* DEVTYPE: a trace sink, a port */
    {0xFD0, 0x04}, {0xFE0, 0x23}, {0xFE4, 0xB9}, {0xFE8, 0x0B}, {0xFEC, 0x00},
    {0xFF0, 0x0D}, {0xFF4, 0x90}, {0xFF8, 0x05}, {0xFFC, 0xB1},
};

/* TPIU_SSPSR: the sizes the model's port has (bit N-1 for N pins). */
#define SSPSR 0x8000808Bu

uint32_t etm_tpiu_reg_read(const etm_tpiu_t *t, unsigned off)
{
    switch (off) {
    case 0x000: return SSPSR;
    case 0x004: return t->p.port_bits ? 1u << (t->p.port_bits - 1) : 0u;
    case 0x010: return t->p.acpr;
    case 0x0F0: return t->p.protocol;
    case 0x300: return 0x8u; /* FtNonStop: the formatter cannot be stopped */
    case 0x304: return etm_tpiu_ffcr(t);
    case 0x308: return t->p.fsync_frames;
    case 0xFA0: return 0xFu;
    case 0xFA4: return t->claim;
    case 0xFB4: return 0u; /* no lock: the core's stores are taken as they come */
    case 0xFC8: return 0xCA0u | (t->p.src_bytes[1] ? 1u : 0u); /* NRZ, Manchester, 4-byte buffer, async clock */
    default: break;
    }
    for (size_t i = 0; i < sizeof tpiu_ids / sizeof tpiu_ids[0]; i++)
        if (tpiu_ids[i].off == off)
            return tpiu_ids[i].v;
    return 0;
}

int etm_tpiu_reg_write(etm_tpiu_t *t, unsigned off, uint32_t v)
{
    int took = 0;
    int pins = t->p.port_bits != 0; /* an ETB has no port to program */
    switch (off) {
    case 0x004: /* one size the port has, and one the formatter can feed */
        if (pins && v && !(v & (v - 1)) && (v & SSPSR)) {
            unsigned pb = 1;
            while (!(v & 1u << (pb - 1)))
                pb++;
            if (pb <= 16 * t->p.clk_div) {
                t->p.port_bits = pb;
                took = 1;
            }
        }
        break;
    case 0x010:
        t->p.acpr = v & ETM_TPIU_ACPR_MAX;
        took = 1;
        break;
    case 0x0F0:
        if (pins && (v & 3u) != 3u) {
            t->p.protocol = v & 3u;
            took = 1;
        }
        break;
    case 0x304: /* EnFCont; TrigIn is the part's (reads as one on the Cortex-M3) */
        t->p.ffcr = (t->p.ffcr & ETM_TPIU_FFCR_TRIGIN) | (v & ETM_TPIU_FFCR_ENFCONT);
        took = 1;
        break;
    case 0x308:
        t->p.fsync_frames = v & 0xFFFu;
        took = 1;
        break;
    case 0xFA0: t->claim |= v & 0xFu; took = 1; break;
    case 0xFA4: t->claim &= ~v & 0xFu; took = 1; break;
    case 0xFB0: took = 1; break; /* the lock access register: nothing to unlock */
    default: break;
    }
    if (!took)
        t->st.apb_ignored++;
    return took;
}

void etm_tpiu_cap_init(etm_tpiu_cap_t *c, unsigned port_bits)
{
    memset(c, 0, sizeof *c);
    c->port_bits = port_bits;
}

void etm_tpiu_cap_init_for(etm_tpiu_cap_t *c, const etm_tpiu_t *t)
{
    etm_tpiu_cap_init(c, t->p.port_bits);
    if (swo(t)) {
        c->protocol = t->p.protocol;
        c->unit = t->p.acpr + 1;
        c->prev = t->p.protocol == ETM_TPIU_NRZ;
    }
}

void etm_tpiu_cap_follow(etm_tpiu_cap_t *c, const etm_tpiu_t *t)
{
    if (!swo(t) || c->phase || (c->protocol == t->p.protocol && c->unit == t->p.acpr + 1))
        return;
    c->protocol = t->p.protocol;
    c->unit = t->p.acpr + 1;
    /* No false start from the old line's idle level: NRZ starts at a fall
     * after a high, Manchester at a rise after a low. */
    c->prev = t->p.protocol == ETM_TPIU_MANCHESTER;
}

/* SWO as a receiver sees it, one sample a core clock. NRZ: a falling edge
 * starts a character; each bit is read in the middle of its time; the stop
 * bit must be 1. Manchester: a rising edge starts the start bit; each later
 * bit time is read in the middle of both halves: high-low is 1, low-high 0,
 * low-low after a whole byte the stop (elsewhere, like high-high, an error). */
static unsigned cap_swo(etm_tpiu_cap_t *c, unsigned x, uint8_t *out)
{
    unsigned u = c->unit, n = 0;
    if (!c->phase) {
        int edge = c->protocol == ETM_TPIU_NRZ ? (c->prev && !x) : (!c->prev && x);
        c->prev = x;
        if (edge) {
            c->phase = 1;
            c->cnt = 0;
            c->bit = 0;
            c->sh = 0;
        }
        return 0;
    }
    c->prev = x;
    c->cnt++;
    if (c->protocol == ETM_TPIU_NRZ) {
        /* bit b (0: the start bit) is read at u * b + u / 2 */
        if (c->cnt != u * (c->bit + 1) + u / 2)
            return 0;
        if (c->bit < 8) {
            c->sh |= (uint32_t)x << c->bit;
            c->bit++;
            return 0;
        }
        if (x)
            out[n++] = (uint8_t)c->sh;
        else
            c->framing_errors++;
        c->phase = 0;
        return n;
    }
    /* bit time b (0: the start bit) spans [2u b, 2u b + 2u) */
    unsigned b0 = 2 * u * (c->bit + 1);
    if (c->cnt == b0 + u / 2) {
        c->in_byte = x;
        return 0;
    }
    if (c->cnt != b0 + u + u / 2)
        return 0;
    unsigned first = c->in_byte;
    if (first != x) {
        c->sh |= (uint32_t)first << (c->bit % 8);
        if (++c->bit % 8 == 0) {
            out[n++] = (uint8_t)c->sh;
            c->sh = 0;
        }
        return n;
    }
    if (first || c->bit % 8 || !c->bit)
        c->framing_errors++;
    c->phase = 0;
    return n;
}

unsigned etm_tpiu_cap_step(etm_tpiu_cap_t *c, const etm_tpiu_out_t *o, uint8_t bytes[4])
{
    if (c->unit)
        return cap_swo(c, o->swo, bytes);
    if (!o->tclk)
        return 0;
    unsigned n = 0;
    uint64_t acc = c->acc | (uint64_t)o->tracedata << c->nbits;
    unsigned nbits = c->nbits + c->port_bits;
    while (nbits >= 8) {
        bytes[n++] = (uint8_t)acc;
        acc >>= 8;
        nbits -= 8;
    }
    c->acc = (uint32_t)acc;
    c->nbits = nbits;
    return n;
}
