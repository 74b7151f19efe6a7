/* tpiu.c - the TPIU and its CoreSight formatter (etm/tpiu.h, docs/tpiu.md).
 *
 * One core clock, in this order (rtl/etm_tpiu.sv does the same):
 *   1. ATREADY from the state: every present source's word fits in the queue.
 *   2. The output side takes pairs present at the start of the cycle: on a
 *      TRACECLK edge the serializer tops its shift register up to PORT_BITS
 *      with pairs (a half-word sync when none is ready) and puts out the low
 *      PORT_BITS; the ETB writes one pair a cycle.
 *   3. The formatter makes at most one pair from the queue as it stood at the
 *      start of the cycle, if the pair buffer has room after step 2.
 *   4. The words ATREADY took go into the queue, source 0 first.
 */
#include "etm/tpiu.h"

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
}

/* A decimal number at *s, moving *s past it; 0 when there is none. */
static int number(const char **s, unsigned *v)
{
    char *end;
    if (**s < '0' || **s > '9')
        return 0;
    unsigned long n = strtoul(*s, &end, 10);
    *v = n > 0xFFFFFFFFul ? 0xFFFFFFFFu : (unsigned)n;
    *s = end;
    return 1;
}

etm_err_t etm_tpiu_params_parse(etm_tpiu_params_t *p, const char *s, int allow_etb, etm_diag_t *diag)
{
    etm_tpiu_params_default(p);
    const char *c = s;
    unsigned a = 0, b = 1;
    if (allow_etb && !strncmp(c, "etb:", 4)) {
        c += 4;
        if (number(&c, &a) && !*c) {
            p->port_bits = 0;
            p->etb_bytes = a;
            return ETM_OK;
        }
    } else if (number(&c, &a) && a && (!*c || (*c == ':' && (++c, number(&c, &b)))) && !*c) {
        p->port_bits = a;
        p->clk_div = b;
        return ETM_OK;
    }
    return etm_util_fail(diag, ETM_ERR_ARG, "'%s': want PINS[:DIV]%s, e.g. 4 or 2:2", s,
                         allow_etb ? " or etb:BYTES" : "");
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
    if (p->queue_bytes < 8 || p->queue_bytes > ETM_TPIU_QUEUE_MAX || (p->queue_bytes & (p->queue_bytes - 1)) ||
        p->queue_bytes < words)
        return etm_util_fail(diag, ETM_ERR_ARG,
                             "TPIU queue of %u bytes: a power of two from 8 to %u, with room for a word of every "
                             "source (%u)", p->queue_bytes, ETM_TPIU_QUEUE_MAX, words);
    if (!pb && (p->etb_bytes < 16 || p->etb_bytes > (1u << 24) || p->etb_bytes % 16))
        return etm_util_fail(diag, ETM_ERR_ARG, "ETB of %u bytes: a multiple of 16, 16 to 2^24", p->etb_bytes);
    etm_tpiu_t *t = (etm_tpiu_t *)calloc(1, sizeof *t);
    if (!t)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    t->p = *p;
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
    t->q_rd = t->q_level = 0;
    t->cur_id = 0;
    t->id_valid = 0;
    t->pk = 0;
    t->aux = 0;
    t->fcount = 0;
    t->fs_left = t->p.port_bits ? 2 : 0; /* the pins start with a frame sync */
    t->ending = 0;
    t->pr_rd = t->pr_n = 0;
    t->sh = 0;
    t->nbits = 0;
    t->div = 0;
    t->etb_wr = 0;
    if (t->etb)
        memset(t->etb, 0, t->p.etb_bytes);
    memset(&t->st, 0, sizeof t->st);
}

int etm_tpiu_ready(const etm_tpiu_t *t, unsigned src)
{
    return src < ETM_TPIU_SOURCES && t->p.src_bytes[src] != 0 &&
           t->p.queue_bytes - t->q_level >= t->p.src_bytes[0] + t->p.src_bytes[1];
}

static uint16_t pair_pop(etm_tpiu_t *t)
{
    uint16_t v = t->pair[t->pr_rd];
    t->pr_rd = (t->pr_rd + 1) % ETM_TPIU_PAIRS;
    t->pr_n--;
    return v;
}

/* Step 2: the pins or the ETB. */
static void output_side(etm_tpiu_t *t, etm_tpiu_out_t *out)
{
    if (!t->p.port_bits) {
        if (t->pr_n) {
            uint16_t v = pair_pop(t);
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
    if (t->div + 1 < t->p.clk_div) {
        t->div++;
        return;
    }
    t->div = 0;
    out->tclk = 1;
    while (t->nbits < t->p.port_bits) {
        uint16_t v;
        if (t->pr_n) {
            v = pair_pop(t);
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

static void consume(etm_tpiu_t *t, unsigned n)
{
    t->q_rd = (t->q_rd + n) % t->p.queue_bytes;
    t->q_level -= n;
}

/* Step 3: one half-word of the frame, or of a frame sync. Returns 1 and the
 * half-word in *v when one is made. n: queue level at the start of the cycle. */
static int format_pair(etm_tpiu_t *t, unsigned n, uint16_t *v)
{
    if (t->fs_left) {
        *v = t->fs_left == 2 ? FSYNC0 : HSYNC;
        if (--t->fs_left == 0)
            t->st.fsyncs++;
        return 1;
    }
    unsigned qs = t->p.queue_bytes;
    uint8_t id0 = t->qid[t->q_rd], b0 = t->qb[t->q_rd];
    uint8_t id1 = t->qid[(t->q_rd + 1) % qs], b1 = t->qb[(t->q_rd + 1) % qs];
    int change0 = n >= 1 && (!t->id_valid || id0 != t->cur_id);
    uint8_t even, odd;
    unsigned k = t->pk;
    if (n == 0) {
        if (!t->ending || k == 0)
            return 0;
        /* Padding to the end of the frame: ID 0x00, then zero bytes. */
        if (!t->id_valid || t->cur_id != ETM_TPIU_ID_NULL) {
            even = (uint8_t)(ETM_TPIU_ID_NULL << 1 | 1);
            t->cur_id = ETM_TPIU_ID_NULL;
            t->id_valid = 1;
            t->st.id_bytes++;
        } else {
            even = 0;
            t->st.pad_bytes++;
        }
        odd = 0;
        t->st.pad_bytes += k < 7;
    } else if (change0) {
        even = (uint8_t)(id0 << 1 | 1); /* the new ID; its first byte follows (aux 0) */
        t->cur_id = id0;
        t->id_valid = 1;
        t->st.id_bytes++;
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
    } else if (n >= 2 || t->ending) {
        /* An ID byte with the auxiliary bit set: the data byte after it still
         * belongs to the current ID. The ID is the next byte's (a change), or,
         * when the sources have ended and one byte is left, the current one
         * again. */
        uint8_t nid = n >= 2 ? id1 : t->cur_id;
        even = (uint8_t)(nid << 1 | 1);
        t->aux |= (uint8_t)(1u << k);
        odd = b0;
        t->cur_id = nid;
        t->st.id_bytes++;
        consume(t, 1);
    } else {
        return 0; /* one byte: wait for a second (the pins send syncs meanwhile) */
    }
    if (k == 7) {
        *v = (uint16_t)(even | t->aux << 8);
        t->aux = 0;
        t->pk = 0;
        t->st.frames++;
        if (t->p.port_bits && t->p.fsync_frames && ++t->fcount == t->p.fsync_frames) {
            t->fcount = 0;
            t->fs_left = 2;
        }
    } else {
        *v = (uint16_t)(even | odd << 8);
        t->pk++;
    }
    return 1;
}

void etm_tpiu_step(etm_tpiu_t *t, const etm_tpiu_in_t *in, etm_tpiu_out_t *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned s = 0; s < ETM_TPIU_SOURCES; s++)
        out->atready[s] = (uint8_t)etm_tpiu_ready(t, s);
    unsigned n = t->q_level;
    output_side(t, out);
    uint16_t v;
    if (t->pr_n < ETM_TPIU_PAIRS && format_pair(t, n, &v)) {
        t->pair[(t->pr_rd + t->pr_n) % ETM_TPIU_PAIRS] = v;
        t->pr_n++;
        out->pair = v;
        out->paired = 1;
    }
    for (unsigned s = 0; s < ETM_TPIU_SOURCES; s++) {
        if (!in->src[s].valid || !t->p.src_bytes[s])
            continue;
        if (!out->atready[s]) {
            t->st.stall_cycles[s]++;
            continue;
        }
        for (unsigned i = 0; i < t->p.src_bytes[s]; i++) {
            unsigned w = (t->q_rd + t->q_level) % t->p.queue_bytes;
            t->qid[w] = (uint8_t)(in->src[s].id & 0x7F);
            t->qb[w] = in->src[s].data[i];
            t->q_level++;
        }
        t->st.words[s]++;
        t->st.bytes_in += t->p.src_bytes[s];
    }
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
}

void etm_tpiu_end(etm_tpiu_t *t) { t->ending = 1; }

int etm_tpiu_done(const etm_tpiu_t *t)
{
    return t->q_level == 0 && t->pk == 0 && t->fs_left == 0 && t->pr_n == 0 && t->nbits == 0;
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

void etm_tpiu_cap_init(etm_tpiu_cap_t *c, unsigned port_bits)
{
    c->port_bits = port_bits;
    c->acc = 0;
    c->nbits = 0;
}

unsigned etm_tpiu_cap_step(etm_tpiu_cap_t *c, const etm_tpiu_out_t *o, uint8_t bytes[4])
{
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
