/* mutants.c - the protocol scoreboard (etm/verify.h) must catch every kind of
 * wrong trace, each under its own rule.
 *
 * From a stimulus (vector file), the model makes a trace, which the checker
 * must pass. Then each mutant class makes one wrong trace, the way a faulty
 * design would: an edit of one packet of the model's bytes (an atom dropped,
 * added or turned from E to N, a branch target changed, a branch packet or an
 * exception-return packet or an A-sync removed, a cycle added, a reserved
 * header, an overflow restart that does not say so), or the model run on
 * inputs that differ from the core's (another exception number, a cancel the
 * design missed, the TraceEnable filter ignored). The checker, given the
 * core's true inputs, must fail, under the rule the class names:
 * docs/scoreboard.md's table, which --table reads and holds the run to.
 *
 *   etm-mutants [--set REG=0xV]... [--table FILE] [--require CLASS]... STIMULUS
 *
 * A class that the stimulus and configuration cannot show (no cycle-accurate
 * mode, no overflow, no address comparators, an ETM before 3.4) is listed as
 * not applicable; --require fails the run unless CLASS was applicable.
 * Exit status: 0 every applicable mutant caught under its rule, 1 otherwise,
 * 2 usage or input.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/etm.h"

/* ---- Growable buffers ---------------------------------------------------------------------- */

typedef struct bytes {
    uint8_t *b;
    size_t n, cap;
} bytes_t;

static void put(bytes_t *t, uint8_t v)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1 << 16;
        t->b = (uint8_t *)realloc(t->b, t->cap);
        if (!t->b) {
            fprintf(stderr, "etm-mutants: out of memory\n");
            exit(2);
        }
    }
    t->b[t->n++] = v;
}

typedef struct stim {
    etm_in_t *in;
    size_t n, cap;
} stim_t;

static int load(const char *path, stim_t *s, etm_config_t *cfg)
{
    etm_vec_reader_t *r;
    etm_diag_t d;
    if (etm_vec_open(&r, path, &d) != ETM_OK) {
        fprintf(stderr, "etm-mutants: %s: %s\n", path, d.msg);
        return -1;
    }
    *cfg = *etm_vec_config(r);
    etm_in_t in;
    etm_err_t e;
    while ((e = etm_vec_read_in(r, &in, &d)) == ETM_OK) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 1 << 16;
            s->in = (etm_in_t *)realloc(s->in, s->cap * sizeof *s->in);
            if (!s->in) {
                fprintf(stderr, "etm-mutants: out of memory\n");
                exit(2);
            }
        }
        s->in[s->n++] = in;
    }
    etm_vec_close(r);
    if (e != ETM_END) {
        fprintf(stderr, "etm-mutants: %s: %s\n", path, d.msg);
        return -1;
    }
    return 0;
}

/* ---- The design (the model) and the checker ---------------------------------------------- */

/* The model over the stimulus, then its drain: take() gets every cycle's
 * outputs; *ovf_end (may be NULL) its ETMSR[0] at the end (an overflow not
 * yet signalled). */
static int run_model(const etm_config_t *cfg, const stim_t *s, void (*take)(void *, const etm_out_t *), void *user,
                     int *ovf_end)
{
    etm_ctx_t *etm;
    etm_diag_t d;
    if (etm_create(&etm, cfg, &d) != ETM_OK) {
        fprintf(stderr, "etm-mutants: configuration: %s\n", d.msg);
        return -1;
    }
    etm_out_t o;
    for (size_t k = 0; k < s->n; k++) {
        etm_step(etm, &s->in[k], &o);
        take(user, &o);
    }
    etm_end(etm);
    while (etm_drain(etm, &o) == ETM_OK)
        take(user, &o);
    if (ovf_end)
        *ovf_end = etm_untraced_overflow(etm);
    etm_destroy(etm);
    return 0;
}

static void take_bytes(void *user, const etm_out_t *o)
{
    for (unsigned b = 0; b < o->v3_count; b++)
        put((bytes_t *)user, o->v3_bytes[b]);
}

/* The model's trace of the stimulus: every byte that leaves the port. */
static int model_trace(const etm_config_t *cfg, const stim_t *s, bytes_t *out, int *ovf_end)
{
    return run_model(cfg, s, take_bytes, out, ovf_end);
}

/* A checker for cfg, or NULL (said on stderr). */
static etm_verify_t *new_checker(const etm_config_t *cfg)
{
    etm_verify_t *v;
    etm_diag_t d;
    if (etm_verify_create(&v, cfg, NULL, &d) != ETM_OK) {
        fprintf(stderr, "etm-mutants: checker: %s\n", d.msg);
        return NULL;
    }
    return v;
}

/* The checker over the core's stimulus and a trace; *r gets its result. */
static int check(const etm_config_t *cfg, const stim_t *s, const bytes_t *t, int ovf_end, etm_verify_result_t *r)
{
    etm_verify_t *v = new_checker(cfg);
    if (!v)
        return -1;
    size_t k = 0, at = 0;
    while (at < t->n || k < s->n) {
        while (k < s->n && etm_verify_waiting(v) < ETM_VERIFY_AHEAD)
            etm_verify_cycle(v, &s->in[k++]);
        size_t n = t->n - at < 16 ? t->n - at : 16;
        if (n) {
            etm_verify_bytes(v, t->b + at, n, 0);
            at += n;
        } else {
            while (k < s->n)
                etm_verify_cycle(v, &s->in[k++]);
        }
    }
    etm_verify_end(v, ovf_end);
    *r = *etm_verify_result(v);
    etm_verify_destroy(v);
    return 0;
}

/* ---- The packets of the model's trace ------------------------------------------------------ */

typedef struct pk {
    etm_v3pkt_kind_t kind;
    uint64_t offset, size;
    unsigned format, reason;
    int exception;
    uint8_t raw[8];
} pk_t;

typedef struct pklist {
    pk_t *p;
    size_t n, cap;
} pklist_t;

static void on_packet(void *user, const etm_v3pkt_t *p)
{
    pklist_t *l = (pklist_t *)user;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1 << 14;
        l->p = (pk_t *)realloc(l->p, l->cap * sizeof *l->p);
        if (!l->p) {
            fprintf(stderr, "etm-mutants: out of memory\n");
            exit(2);
        }
    }
    pk_t *q = &l->p[l->n++];
    memset(q, 0, sizeof *q);
    q->kind = p->kind;
    q->offset = p->offset;
    q->size = p->size;
    q->format = p->format;
    q->reason = p->reason;
    q->exception = p->exception;
    memcpy(q->raw, p->raw, p->raw_len < sizeof q->raw ? p->raw_len : sizeof q->raw);
}

static int packets(const etm_config_t *cfg, const bytes_t *t, pklist_t *l)
{
    etm_v3dec_t *dec;
    etm_diag_t d;
    if (etm_v3dec_create(&dec, cfg, ETM_V3DEC_V7M, &d) != ETM_OK) {
        fprintf(stderr, "etm-mutants: decoder: %s\n", d.msg);
        return -1;
    }
    etm_v3dec_on_packet(dec, on_packet, l);
    int rc = etm_v3dec_feed(dec, t->b, t->n, NULL, &d) == ETM_OK && etm_v3dec_end(dec, &d) == ETM_OK ? 0 : -1;
    if (rc)
        fprintf(stderr, "etm-mutants: the model's own trace does not decode: %s\n", d.msg);
    etm_v3dec_destroy(dec);
    return rc;
}

/* ---- Mutants ----------------------------------------------------------------------------------- */

typedef struct ctx {
    etm_config_t cfg;
    int ovf_end;  /* the model's ETMSR[0] at the end of its trace */
    stim_t stim;
    bytes_t trace;
    pklist_t pk;
    int ca;
    size_t from;  /* first packet considered: 40 % into the trace, past the start */
} ctx_t;

/* A mutant: the trace a faulty design gives (and, for the filter, the
 * configuration the checker is told). Returns 0 made, 1 not applicable. */
typedef int (*mutate_fn)(const ctx_t *c, bytes_t *t, etm_config_t *chk_cfg, char *what, size_t size);

static void copy_trace(const ctx_t *c, bytes_t *t)
{
    for (size_t i = 0; i < c->trace.n; i++)
        put(t, c->trace.b[i]);
}

/* The trace with the n bytes at off replaced by the m bytes of rep. */
static void splice(const ctx_t *c, bytes_t *t, uint64_t off, size_t n, const uint8_t *rep, size_t m)
{
    for (size_t i = 0; i < off; i++)
        put(t, c->trace.b[i]);
    for (size_t i = 0; i < m; i++)
        put(t, rep[i]);
    for (size_t i = (size_t)off + n; i < c->trace.n; i++)
        put(t, c->trace.b[i]);
}

static const pk_t *next_pk(const ctx_t *c, size_t i) { return i + 1 < c->pk.n ? &c->pk.p[i + 1] : NULL; }

static int is_plain_branch(const pk_t *p) { return p && p->kind == ETM_V3PKT_BRANCH && !p->exception; }

/* Format 1 P-header: E count and its field's largest value. */
static unsigned f1_e(const ctx_t *c, uint8_t h) { return c->ca ? (h >> 2) & 7u : (h >> 2) & 15u; }
static unsigned f1_max(const ctx_t *c) { return c->ca ? 7u : 15u; }
static uint8_t f1_with(const ctx_t *c, uint8_t h, unsigned e, int n)
{
    uint8_t mask = c->ca ? 0x1C : 0x3C;
    return (uint8_t)((h & ~mask & ~0x40u) | ((e << 2) & mask) | (n ? 0x40u : 0));
}

/* A format 1 P-header followed by a plain branch packet (so that the next
 * address point comes at once), for which ok(E count, N) holds. */
static long f1_before_branch(const ctx_t *c, int (*ok)(const ctx_t *, unsigned, int))
{
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind == ETM_V3PKT_PHDR && p->format == 1 && is_plain_branch(next_pk(c, i)) &&
            ok(c, f1_e(c, p->raw[0]), (p->raw[0] >> 6) & 1))
            return (long)i;
    }
    return -1;
}

static int can_drop(const ctx_t *c, unsigned e, int n) { return (void)c, e >= 2 || (e >= 1 && n); }
static int can_add(const ctx_t *c, unsigned e, int n) { return (void)n, e >= 1 && e < f1_max(c); }
static int can_swap(const ctx_t *c, unsigned e, int n) { return (void)c, e >= 1 && !n; }

static int m_drop_atom(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    long i = f1_before_branch(c, can_drop);
    if (i < 0)
        return 1;
    const pk_t *p = &c->pk.p[i];
    uint8_t h = f1_with(c, p->raw[0], f1_e(c, p->raw[0]) - 1, (p->raw[0] >> 6) & 1);
    splice(c, t, p->offset, 1, &h, 1);
    snprintf(what, size, "P-header at byte %" PRIu64 ": 0x%02x -> 0x%02x (one E atom fewer)", p->offset, p->raw[0], h);
    return 0;
}

static int m_add_atom(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    long i = f1_before_branch(c, can_add);
    if (i < 0)
        return 1;
    const pk_t *p = &c->pk.p[i];
    uint8_t h = f1_with(c, p->raw[0], f1_e(c, p->raw[0]) + 1, (p->raw[0] >> 6) & 1);
    splice(c, t, p->offset, 1, &h, 1);
    snprintf(what, size, "P-header at byte %" PRIu64 ": 0x%02x -> 0x%02x (one E atom more)", p->offset, p->raw[0], h);
    return 0;
}

static int m_swap_atom(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    long i = f1_before_branch(c, can_swap);
    if (i < 0)
        return 1;
    const pk_t *p = &c->pk.p[i];
    uint8_t h = f1_with(c, p->raw[0], f1_e(c, p->raw[0]) - 1, 1);
    splice(c, t, p->offset, 1, &h, 1);
    snprintf(what, size, "P-header at byte %" PRIu64 ": 0x%02x -> 0x%02x (the last E atom becomes N)", p->offset,
             p->raw[0], h);
    return 0;
}

static int m_branch_target(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (!is_plain_branch(p))
            continue;
        uint8_t b = (uint8_t)(p->raw[0] ^ 0x40u); /* address byte 0 is C A[6:1] 1: A[6] changes */
        splice(c, t, p->offset, 1, &b, 1);
        snprintf(what, size, "branch packet at byte %" PRIu64 ": address bit 6 changed", p->offset);
        return 0;
    }
    return 1;
}

/* A branch packet before an atom, whose address bits the next branch packet
 * gives again (a plain one at least as long, or an I-sync first), so that the
 * rest decodes as before: removed. */
static int later_covers(const ctx_t *c, size_t i)
{
    for (size_t k = i + 1; k < c->pk.n; k++) {
        const pk_t *q = &c->pk.p[k];
        if (q->kind == ETM_V3PKT_ISYNC || q->kind == ETM_V3PKT_ISYNC_CC)
            return 1;
        if (q->kind == ETM_V3PKT_BRANCH)
            return !q->exception && q->size >= c->pk.p[i].size;
    }
    return 0;
}

static int m_branch_dropped(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    for (size_t i = c->from; i + 1 < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (is_plain_branch(p) && c->pk.p[i + 1].kind == ETM_V3PKT_PHDR && later_covers(c, i)) {
            splice(c, t, p->offset, (size_t)p->size, NULL, 0);
            snprintf(what, size, "branch packet at byte %" PRIu64 " (%" PRIu64 " bytes) removed", p->offset, p->size);
            return 0;
        }
    }
    return 1;
}

static int m_return_dropped(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    for (size_t i = c->from; i + 2 < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind == ETM_V3PKT_EXC_RETURN && is_plain_branch(&c->pk.p[i + 1]) &&
            c->pk.p[i + 2].kind == ETM_V3PKT_PHDR) {
            splice(c, t, p->offset, 1, NULL, 0);
            snprintf(what, size, "exception-return packet at byte %" PRIu64 " removed", p->offset);
            return 0;
        }
    }
    return 1;
}

static int m_cycle(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    if (!c->ca)
        return 1;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind == ETM_V3PKT_PHDR && p->format == 3 && ((p->raw[0] >> 2) & 7u) < 7u) {
            uint8_t h = (uint8_t)(p->raw[0] + 4u); /* 1E1WWW00: one W more */
            splice(c, t, p->offset, 1, &h, 1);
            snprintf(what, size, "P-header format 3 at byte %" PRIu64 ": 0x%02x -> 0x%02x (one cycle more)",
                     p->offset, p->raw[0], h);
            return 0;
        }
    }
    return 1;
}

static int m_reserved(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind == ETM_V3PKT_PHDR) {
            uint8_t h = 0xC2; /* 11xxxx10: reserved in both modes (IHI 0014 tables 7.2 and 7.3) */
            splice(c, t, p->offset, 1, &h, 1);
            snprintf(what, size, "P-header at byte %" PRIu64 " replaced by 0xc2", p->offset);
            return 0;
        }
    }
    return 1;
}

static int m_overflow_unsignalled(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    if (ETM_FIELD_GET(ETM_CR_CTXID_SIZE, c->cfg.etmcr))
        return 1;
    for (size_t i = 0; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if ((p->kind != ETM_V3PKT_ISYNC && p->kind != ETM_V3PKT_ISYNC_CC) || p->reason != ETM_V3_REASON_OVERFLOW)
            continue;
        size_t info = 1; /* header [cycle count] info */
        if (p->kind == ETM_V3PKT_ISYNC_CC)
            while (info < sizeof p->raw && (p->raw[info] & 0x80u) && info < 5)
                info++, (void)0;
        if (p->kind == ETM_V3PKT_ISYNC_CC)
            info++;
        uint8_t b = (uint8_t)(p->raw[info] & ~0x60u); /* reason 10 (overflow) -> 00 (periodic) */
        copy_trace(c, t);
        t->b[p->offset + info] = b;
        snprintf(what, size, "the overflow restart's I-sync at byte %" PRIu64 " says periodic", p->offset);
        return 0;
    }
    return 1;
}

/* Two A-syncs in a row removed, between two others with no overflow in
 * between: a sync may wait as long again as ETMSYNCFR says (one missing is
 * what a legal design may give), not twice as long. */
static int is_overflow_isync(const pk_t *p)
{
    return (p->kind == ETM_V3PKT_ISYNC || p->kind == ETM_V3PKT_ISYNC_CC) && p->reason == ETM_V3_REASON_OVERFLOW;
}

static int m_async_dropped(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    if (!c->cfg.etmsyncfr)
        return 1;
    size_t as[4];
    unsigned n = 0;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (is_overflow_isync(p))
            n = 0;
        if (p->kind != ETM_V3PKT_ASYNC)
            continue;
        if (n == 4) {
            memmove(as, as + 1, 3 * sizeof as[0]);
            n = 3;
        }
        as[n++] = i;
        if (n < 4)
            continue;
        const pk_t *q = &c->pk.p[as[1]], *r = &c->pk.p[as[2]];
        for (size_t k = 0; k < q->offset; k++)
            put(t, c->trace.b[k]);
        for (size_t k = (size_t)(q->offset + q->size); k < r->offset; k++)
            put(t, c->trace.b[k]);
        for (size_t k = (size_t)(r->offset + r->size); k < c->trace.n; k++)
            put(t, c->trace.b[k]);
        snprintf(what, size, "the A-syncs at bytes %" PRIu64 " and %" PRIu64 " removed", q->offset, r->offset);
        return 0;
    }
    return 1;
}

/* The model on other inputs: the cycle k of the stimulus changed by edit.
 * Returns 0, 1 when the design's trace is the model's own (the change cannot
 * be seen: trace lost to an overflow there), -1 on error. */
static int model_on(const ctx_t *c, const etm_config_t *cfg, size_t k, void (*edit)(etm_in_t *), bytes_t *t)
{
    stim_t s = c->stim;
    etm_in_t keep = s.in[k];
    if (edit)
        edit(&s.in[k]);
    t->n = 0;
    int rc = model_trace(cfg, &s, t, NULL);
    s.in[k] = keep;
    if (rc)
        return -1;
    return t->n == c->trace.n && !memcmp(t->b, c->trace.b, t->n);
}

/* The first of the cycles from 40 % into the stimulus for which want() holds
 * and whose change by edit the trace shows. Returns the cycle, or SIZE_MAX
 * (with *err set on an error). */
static size_t mutate_stim(const ctx_t *c, int (*want)(const etm_in_t *), void (*edit)(etm_in_t *), bytes_t *t,
                          int *err)
{
    unsigned tries = 0;
    for (size_t k = c->stim.n * 2 / 5; k < c->stim.n && tries < 20; k++) {
        if (!want(&c->stim.in[k]))
            continue;
        tries++;
        int m = model_on(c, &c->cfg, k, edit, t);
        if (m < 0) {
            *err = 1;
            return SIZE_MAX;
        }
        if (m == 0)
            return k;
    }
    return SIZE_MAX;
}

static int is_entry(const etm_in_t *in) { return in->ivalid && in->intstat == ETM_INTSTAT_ENTRY; }
static int is_cancel(const etm_in_t *in) { return in->cancel; }
static void other_irq(etm_in_t *in)
{
    /* Another exception of the same kind, traced under another number: an IRQ
     * (ETMINTNUM 16 and up) for an IRQ, PendSV and SysTick, SVCall and
     * DebugMonitor the one for the other. */
    unsigned n = in->intnum;
    if (n >= 16)
        n = (n ^ 1u) < 16 ? 17 : n ^ 1u;
    else
        n = n == 14 ? 15 : n == 15 ? 14 : n == 11 ? 12 : n == 12 ? 11 : 15;
    in->intnum = (uint16_t)n;
}

static void no_cancel(etm_in_t *in) { in->cancel = 0; }

static int m_exc_number(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    int err = 0;
    size_t k = mutate_stim(c, is_entry, other_irq, t, &err);
    if (k == SIZE_MAX)
        return err ? -1 : 1;
    etm_in_t x = c->stim.in[k];
    other_irq(&x);
    snprintf(what, size, "the design saw ETMINTNUM %u instead of %u in cycle %zu", x.intnum, c->stim.in[k].intnum, k);
    return 0;
}

static int m_cancel(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    int err = 0;
    size_t k = mutate_stim(c, is_cancel, no_cancel, t, &err);
    if (k == SIZE_MAX)
        return err ? -1 : 1;
    snprintf(what, size, "the design missed ETMCANCEL in cycle %zu", k);
    return 0;
}

/* The design ignores the filter: it traces everything, where the checker is
 * told TraceEnable covers the lower half of the code only. */
static int m_filter(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    if (ETM_FIELD_GET(ETM_CCR_PAIRS, c->cfg.etmccr) == 0)
        return 1;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t k = 0; k < c->stim.n; k++)
        if (c->stim.in[k].ivalid) {
            uint32_t a = c->stim.in[k].ia & ~1u;
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
    if (lo >= hi)
        return 1;
    *cc = c->cfg;
    cc->etmacvr[0] = lo;
    cc->etmacvr[1] = lo + (hi - lo) / 2;
    cc->etmactr[0] = cc->etmactr[1] = 0x1; /* instruction execute */
    cc->etmtecr1 = 0x1;                    /* include address range 1 */
    cc->etmteevr = 0x6F;                   /* always */
    etm_diag_t d;
    if (etm_config_validate(cc, &d, NULL) != ETM_OK) {
        fprintf(stderr, "etm-mutants: the filter's configuration: %s\n", d.msg);
        return -1;
    }
    copy_trace(c, t);
    snprintf(what, size, "the design traces everything; TraceEnable is 0x%08" PRIx32 "-0x%08" PRIx32, lo,
             cc->etmacvr[1]);
    return 0;
}

/* ---- ETMv3 data trace -------------------------------------------------------------------------- */

/* Does the data packet at i carry a value (its size field SS, bits [3:2], not 0)? */
static int has_value(const pk_t *p) { return ((p->raw[0] >> 2) & 3u) != 0; }

/* A normal data packet's last value byte changed. */
static int m_data_value(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    if (!(ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->cfg.etmcr) & 1u))
        return 1;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind != ETM_V3PKT_NORMAL_DATA || !has_value(p))
            continue;
        uint64_t at = p->offset + p->size - 1;
        uint8_t b = (uint8_t)(c->trace.b[at] ^ 0x01u);
        splice(c, t, at, 1, &b, 1);
        snprintf(what, size, "normal data packet at byte %" PRIu64 ": its value's last byte 0x%02x -> 0x%02x",
                 p->offset, c->trace.b[at], b);
        return 0;
    }
    return 1;
}

/* A normal data packet's first address byte changed by one. */
static int m_data_addr(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    if (!(ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->cfg.etmcr) & 2u))
        return 1;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind != ETM_V3PKT_NORMAL_DATA || !(p->raw[0] & 0x20u) || p->size < 2)
            continue; /* A set: the address follows the header */
        uint8_t b = (uint8_t)(p->raw[1] ^ 0x01u);
        splice(c, t, p->offset + 1, 1, &b, 1);
        snprintf(what, size, "normal data packet at byte %" PRIu64 ": data address bit 0 changed", p->offset);
        return 0;
    }
    return 1;
}

/* An out-of-order data packet left out: its placeholder's value is never given. */
static int m_ooo_dropped(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    for (size_t i = c->from; i < c->pk.n; i++) {
        const pk_t *p = &c->pk.p[i];
        if (p->kind != ETM_V3PKT_OOO_DATA)
            continue;
        splice(c, t, p->offset, (size_t)p->size, NULL, 0);
        snprintf(what, size, "out-of-order data packet at byte %" PRIu64 " (tag %u) removed", p->offset,
                 (p->raw[0] >> 5) & 3u);
        return 0;
    }
    return 1;
}

/* The design ignores ViewData: it traces data where the checker is told
 * ViewData is never on. */
static int m_data_view(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size)
{
    if (!ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->cfg.etmcr))
        return 1;
    int any = 0;
    for (size_t i = 0; i < c->pk.n && !any; i++)
        any = c->pk.p[i].kind == ETM_V3PKT_NORMAL_DATA;
    if (!any)
        return 1;
    *cc = c->cfg;
    cc->etmvdevr = 0x406F; /* NOT always: never */
    copy_trace(c, t);
    snprintf(what, size, "the design traces data; ViewData (ETMVDEVR) is never");
    return 0;
}

/* ---- ETMv1: the port, cycle by cycle ------------------------------------------------------------ */

typedef struct ports {
    etm_out_t *o;
    size_t n, cap;
} ports_t;

static void put_port(ports_t *p, const etm_out_t *o)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 1 << 16;
        p->o = (etm_out_t *)realloc(p->o, p->cap * sizeof *p->o);
        if (!p->o) {
            fprintf(stderr, "etm-mutants: out of memory\n");
            exit(2);
        }
    }
    p->o[p->n++] = *o;
}

static void take_port(void *user, const etm_out_t *o) { put_port((ports_t *)user, o); }

/* The model's port of every cycle, the drain's too. */
static int model_port(const etm_config_t *cfg, const stim_t *s, ports_t *out, int *ovf_end)
{
    return run_model(cfg, s, take_port, out, ovf_end);
}

static int check_port(const etm_config_t *cfg, const stim_t *s, const ports_t *p, int ovf_end, etm_verify_result_t *r)
{
    etm_verify_t *v = new_checker(cfg);
    if (!v)
        return -1;
    for (size_t k = 0; k < s->n || k < p->n; k++) {
        if (k < s->n)
            etm_verify_cycle(v, &s->in[k]);
        if (k < p->n)
            etm_verify_port(v, &p->o[k]);
    }
    etm_verify_end(v, ovf_end);
    *r = *etm_verify_result(v);
    etm_verify_destroy(v);
    return 0;
}

/* An ETMv1 mutant: the port a faulty design gives (and the checker's
 * configuration). Returns 0 made, 1 not applicable. */
typedef int (*mutate_v1_fn)(const ctx_t *c, const ports_t *base, ports_t *t, etm_config_t *cc, char *what,
                            size_t size);

static void copy_ports(const ports_t *base, ports_t *t)
{
    for (size_t k = 0; k < base->n; k++)
        put_port(t, &base->o[k]);
}

/* The first cycle from 40 % on with an instruction status IE: not one of the
 * two APO cycles after a BE or BD (whose PIPESTAT codes look like IE..WT),
 * nor a TR. */
static size_t v1_ie_cycle(const ports_t *p)
{
    unsigned apo = 0;
    for (size_t k = 0; k < p->n; k++) {
        unsigned ps = p->o[k].pipestat;
        if (apo) {
            apo--;
            continue;
        }
        if (ps == ETM_V1_PS_BE || ps == ETM_V1_PS_BD)
            apo = 2;
        else if (ps == ETM_V1_PS_IE && k >= p->n * 2 / 5)
            return k;
    }
    return SIZE_MAX;
}

static int m1_e_for_n(const ctx_t *c, const ports_t *base, ports_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)c;
    (void)cc;
    size_t k = v1_ie_cycle(base);
    if (k == SIZE_MAX)
        return 1;
    copy_ports(base, t);
    t->o[k].pipestat = ETM_V1_PS_IN;
    snprintf(what, size, "PIPESTAT of cycle %zu: IE -> IN", k);
    return 0;
}

static int m1_branch_target(const ctx_t *c, const ports_t *base, ports_t *t, etm_config_t *cc, char *what,
                            size_t size)
{
    (void)cc;
    if (ETM_FIELD_GET(ETM_CR_PORTSIZE, c->cfg.etmcr) != 1)
        return 1; /* an 8-bit port: one packet per cycle */
    for (size_t k = base->n * 2 / 5; k < base->n; k++)
        if (base->o[k].tracesync) {
            copy_ports(base, t);
            t->o[k].tracepkt ^= 0x08; /* the first address packet's A[3] */
            snprintf(what, size, "the branch address starting in cycle %zu: bit 3 changed", k);
            return 0;
        }
    return 1;
}

static int m_filter(const ctx_t *c, bytes_t *t, etm_config_t *cc, char *what, size_t size);

static int m1_filter(const ctx_t *c, const ports_t *base, ports_t *t, etm_config_t *cc, char *what, size_t size)
{
    bytes_t unused;
    memset(&unused, 0, sizeof unused);
    int m = m_filter(c, &unused, cc, what, size);
    free(unused.b);
    if (m == 0)
        copy_ports(base, t);
    return m;
}

/* Do two ports differ in PIPESTAT, TRACEPKT or TRACESYNC? */
static int ports_differ(const ports_t *a, const ports_t *b)
{
    if (a->n != b->n)
        return 1;
    for (size_t k = 0; k < a->n; k++)
        if (a->o[k].pipestat != b->o[k].pipestat || a->o[k].tracepkt != b->o[k].tracepkt ||
            a->o[k].tracesync != b->o[k].tracesync)
            return 1;
    return 0;
}

/* ETMv1 data trace: the design took another value (every byte's bit 0
 * flipped) in the first cycle from 40 % on with a value whose change its
 * port shows. */
static int m1_data_value(const ctx_t *c, const ports_t *base, ports_t *t, etm_config_t *cc, char *what, size_t size)
{
    (void)cc;
    if (!(ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->cfg.etmcr) & 1u))
        return 1;
    stim_t s = c->stim;
    unsigned tries = 0;
    for (size_t k = s.n * 2 / 5; k < s.n && tries < 20; k++) {
        if (!ETM_DDCTL_SLOT(s.in[k].ddctl))
            continue;
        tries++;
        etm_in_t keep = s.in[k];
        s.in[k].dd ^= 0x0101010101010101ull;
        t->n = 0;
        int rc = model_port(&c->cfg, &s, t, NULL);
        s.in[k] = keep;
        if (rc)
            return -1;
        if (ports_differ(t, base)) {
            snprintf(what, size, "the design saw ETMDD 0x%016" PRIx64 " instead of 0x%016" PRIx64 " in cycle %zu",
                     (uint64_t)(keep.dd ^ 0x0101010101010101ull), (uint64_t)keep.dd, k);
            return 0;
        }
    }
    return 1;
}

/* ETMv1: the design ignores ViewData (the checker is told it is never on). */
static int m1_data_view(const ctx_t *c, const ports_t *base, ports_t *t, etm_config_t *cc, char *what, size_t size)
{
    if (!ETM_FIELD_GET(ETM_CR_DATA_ACCESS, c->cfg.etmcr))
        return 1;
    *cc = c->cfg;
    cc->etmvdevr = 0x406F; /* NOT always: never */
    copy_ports(base, t);
    snprintf(what, size, "the design traces data; ViewData (ETMVDEVR) is never");
    return 0;
}

static const struct mclass_v1 {
    const char *name;
    etm_vfail_t rule;
    mutate_v1_fn fn;
} v1classes[] = {
    { "v1-e-for-n", ETM_VFAIL_ATOM_EN, m1_e_for_n },
    { "v1-wrong-branch-target", ETM_VFAIL_BRANCH_TARGET, m1_branch_target },
    { "v1-traced-outside-filter", ETM_VFAIL_FILTER, m1_filter },
    { "v1-wrong-data-value", ETM_VFAIL_DATA_VALUE, m1_data_value },
    { "v1-data-outside-viewdata", ETM_VFAIL_DATA_EXTRA, m1_data_view },
};
#define NV1CLASSES (sizeof v1classes / sizeof v1classes[0])

static const struct mclass {
    const char *name;
    etm_vfail_t rule;
    mutate_fn fn;
} classes[] = {
    { "dropped-atom", ETM_VFAIL_MISSING_ATOM, m_drop_atom },
    { "added-atom", ETM_VFAIL_EXTRA_ATOM, m_add_atom },
    { "e-for-n", ETM_VFAIL_ATOM_EN, m_swap_atom },
    { "wrong-branch-target", ETM_VFAIL_BRANCH_TARGET, m_branch_target },
    { "dropped-branch-packet", ETM_VFAIL_BRANCH_MISSING, m_branch_dropped },
    { "wrong-exception-number", ETM_VFAIL_EXC_NUMBER, m_exc_number },
    { "missing-cancel", ETM_VFAIL_CANCEL, m_cancel },
    { "dropped-exception-return", ETM_VFAIL_EXC_RETURN, m_return_dropped },
    { "cycle-count-off-by-one", ETM_VFAIL_CYCLE, m_cycle },
    { "illegal-header", ETM_VFAIL_GRAMMAR, m_reserved },
    { "overflow-isync-missing", ETM_VFAIL_GAP, m_overflow_unsignalled },
    { "dropped-async", ETM_VFAIL_SYNC_PERIOD, m_async_dropped },
    { "traced-outside-filter", ETM_VFAIL_FILTER, m_filter },
    { "wrong-data-value", ETM_VFAIL_DATA_VALUE, m_data_value },
    { "wrong-data-address", ETM_VFAIL_DATA_ADDR, m_data_addr },
    { "dropped-ooo-data", ETM_VFAIL_DATA_MISSING, m_ooo_dropped },
    { "data-outside-viewdata", ETM_VFAIL_DATA_EXTRA, m_data_view },
};
#define NCLASSES (sizeof classes / sizeof classes[0])

/* docs/scoreboard.md's table: rows "| `class` | `rule` | ..." must agree. */
static int check_table(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "etm-mutants: %s: cannot open\n", path);
        return -1;
    }
    char line[1024];
    int rows = 0, bad = 0;
    int seen[NCLASSES] = { 0 }, seen_v1[NV1CLASSES] = { 0 };
    while (fgets(line, sizeof line, f)) {
        char cls[64], rule[64];
        if (sscanf(line, "| `%63[a-z0-9-]` | `%63[a-z0-9-]` |", cls, rule) != 2)
            continue;
        size_t i;
        for (i = 0; i < NCLASSES && strcmp(classes[i].name, cls); i++)
            ;
        if (i == NCLASSES) {
            size_t k;
            for (k = 0; k < NV1CLASSES && strcmp(v1classes[k].name, cls); k++)
                ;
            if (k == NV1CLASSES)
                continue; /* another table of the page */
            rows++;
            seen_v1[k] = 1;
            if (strcmp(etm_vfail_id(v1classes[k].rule), rule)) {
                printf("FAILED: %s says mutant %s is caught as %s; the checker's rule is %s\n", path, cls, rule,
                       etm_vfail_id(v1classes[k].rule));
                bad = 1;
            }
            continue;
        }
        rows++;
        seen[i] = 1;
        if (strcmp(etm_vfail_id(classes[i].rule), rule)) {
            printf("FAILED: %s says mutant %s is caught as %s; the checker's rule is %s\n", path, cls, rule,
                   etm_vfail_id(classes[i].rule));
            bad = 1;
        }
    }
    fclose(f);
    for (size_t i = 0; i < NCLASSES; i++)
        if (!seen[i]) {
            printf("FAILED: %s has no row for mutant %s\n", path, classes[i].name);
            bad = 1;
        }
    for (size_t i = 0; i < NV1CLASSES; i++)
        if (!seen_v1[i]) {
            printf("FAILED: %s has no row for mutant %s\n", path, v1classes[i].name);
            bad = 1;
        }
    return bad ? -1 : rows;
}

/* One mutant's verdict, printed: caught under its rule (1), or not (0). */
static int report(const char *name, etm_vfail_t rule, const char *what, const char *where,
                  const etm_verify_result_t *r)
{
    int ok = r->failures && r->first.rule == rule;
    printf("%-26s %s: %s\n%-26s   -> %s (cycle %" PRIu64 ", %s %" PRIu64 "): %s\n", name, ok ? "caught" : "FAILED", what,
           "", r->failures ? etm_vfail_id(r->first.rule) : "passed", r->first.cycle, where, r->first.offset,
           r->failures ? r->first.text : "the checker found nothing");
    if (!ok)
        printf("%-26s   expected rule %s\n", "", etm_vfail_id(rule));
    return ok;
}

/* --require: each named class (names[0..n-1]) was applicable. Returns 0, 1
 * (one was not) or 2 (no such class). */
static int check_required(const char *const *require, int nreq, const char *const *names, const int *applied,
                          size_t n)
{
    int bad = 0;
    for (int k = 0; k < nreq; k++) {
        size_t i;
        for (i = 0; i < n && strcmp(names[i], require[k]); i++)
            ;
        if (i == n) {
            fprintf(stderr, "etm-mutants: --require %s: no such class for this protocol\n", require[k]);
            return 2;
        }
        if (!applied[i]) {
            printf("FAILED: mutant %s was required but is not applicable to this stimulus\n", require[k]);
            bad = 1;
        }
    }
    return bad;
}

/* ETMv1: the model's port passes; each ETMv1 mutant class fails under its rule. */
static int run_v1(ctx_t *c, const char *const *require, int nreq)
{
    ports_t base;
    memset(&base, 0, sizeof base);
    etm_verify_result_t r;
    if (model_port(&c->cfg, &c->stim, &base, &c->ovf_end) || check_port(&c->cfg, &c->stim, &base, c->ovf_end, &r))
        return 2;
    int bad = 0;
    if (r.failures) {
        printf("FAILED: the model's own port: %s: %s\n", etm_vfail_id(r.first.rule), r.first.text);
        bad = 1;
    } else {
        printf("the model's port (%zu cycles, %zu port cycles, %" PRIu64 " instructions, %" PRIu64
               " overflows): passes\n", c->stim.n, base.n, r.instructions, r.overflows);
    }
    int applied[NV1CLASSES] = { 0 };
    for (size_t i = 0; i < NV1CLASSES; i++) {
        ports_t t;
        memset(&t, 0, sizeof t);
        etm_config_t cc = c->cfg;
        char what[300];
        int m = v1classes[i].fn(c, &base, &t, &cc, what, sizeof what);
        if (m < 0)
            return 2;
        if (m > 0) {
            printf("%-26s not applicable here\n", v1classes[i].name);
            free(t.o);
            continue;
        }
        applied[i] = 1;
        if (check_port(&cc, &c->stim, &t, c->ovf_end, &r))
            return 2;
        free(t.o);
        if (!report(v1classes[i].name, v1classes[i].rule, what, "port cycle", &r))
            bad = 1;
    }
    const char *names[NV1CLASSES];
    for (size_t i = 0; i < NV1CLASSES; i++)
        names[i] = v1classes[i].name;
    int rq = check_required(require, nreq, names, applied, NV1CLASSES);
    free(base.o);
    return rq == 2 ? 2 : bad || rq;
}

int main(int argc, char **argv)
{
    static ctx_t c;
    const char *path = NULL, *table = NULL;
    const char *sets[32], *require[NCLASSES + NV1CLASSES];
    int nsets = 0, nreq = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--set") && i + 1 < argc && nsets < 32)
            sets[nsets++] = argv[++i];
        else if (!strcmp(argv[i], "--table") && i + 1 < argc)
            table = argv[++i];
        else if (!strcmp(argv[i], "--require") && i + 1 < argc && nreq < (int)(NCLASSES + NV1CLASSES))
            require[nreq++] = argv[++i];
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: etm-mutants [--set REG=0xV]... [--table FILE] [--require CLASS]... STIMULUS\n");
            return 2;
        }
    }
    if (!path || load(path, &c.stim, &c.cfg))
        return 2;
    etm_diag_t d;
    for (int i = 0; i < nsets; i++)
        if (etm_config_parse_line(&c.cfg, sets[i], NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "etm-mutants: --set %s: %s\n", sets[i], d.msg);
            return 2;
        }
    c.ca = (int)ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, c.cfg.etmcr);
    if (table && check_table(table) < 0)
        return 1;
    unsigned version = 0;
    etm_config_version(&c.cfg, &version, NULL);
    if (ETM_V_MAJOR(version) == 1)
        return run_v1(&c, require, nreq);
    if (model_trace(&c.cfg, &c.stim, &c.trace, &c.ovf_end) || packets(&c.cfg, &c.trace, &c.pk))
        return 2;
    for (c.from = 0; c.from < c.pk.n && c.pk.p[c.from].offset < c.trace.n * 2 / 5; c.from++)
        ;
    etm_verify_result_t r;
    if (check(&c.cfg, &c.stim, &c.trace, c.ovf_end, &r))
        return 2;
    int bad = 0;
    if (r.failures) {
        printf("FAILED: the model's own trace: %s: %s\n", etm_vfail_id(r.first.rule), r.first.text);
        bad = 1;
    } else {
        printf("the model's trace (%zu cycles, %zu bytes, %" PRIu64 " instructions, %" PRIu64 " overflows): passes\n",
               c.stim.n, c.trace.n, r.instructions, r.overflows);
    }
    int applied[NCLASSES] = { 0 };
    for (size_t i = 0; i < NCLASSES; i++) {
        bytes_t t;
        memset(&t, 0, sizeof t);
        etm_config_t cc = c.cfg;
        char what[300];
        int m = classes[i].fn(&c, &t, &cc, what, sizeof what);
        if (m < 0)
            return 2;
        if (m > 0) {
            printf("%-26s not applicable here\n", classes[i].name);
            free(t.b);
            continue;
        }
        applied[i] = 1;
        if (check(&cc, &c.stim, &t, c.ovf_end, &r))
            return 2;
        free(t.b);
        if (!report(classes[i].name, classes[i].rule, what, "byte", &r))
            bad = 1;
    }
    const char *names[NCLASSES];
    for (size_t i = 0; i < NCLASSES; i++)
        names[i] = classes[i].name;
    int rq = check_required(require, nreq, names, applied, NCLASSES);
    free(c.trace.b);
    free(c.pk.p);
    free(c.stim.in);
    return rq == 2 ? 2 : bad || rq;
}
