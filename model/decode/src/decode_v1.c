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
 *
 * Files (decode_v1_int.h holds what they share): this one has the names, the
 * errors, the public API and the decoding loop; decode_v1_insn.c the Thumb-2
 * classifier, decode_v1_fifo.c the window of cycles and the packet cursor,
 * decode_v1_status.c the statuses and their elements.
 */
#include "etm/decode_v1.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_v1_int.h"

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

/* ---- Errors ------------------------------------------------------------------------ */

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

/* Forget what the decoder knew about the packet cursor. */
void dv1_lose_sync(etm_v1dec_t *d)
{
    d->synced = 0;
    d->pending_abandon = 0;
    d->empty_wt = 0;
}

/* A status (or an APO cycle of it) broke a rule: report it, forget what the decoder
 * knew, and go on with the status at cycle `resume`. */
int dv1_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, uint64_t resume, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_diag(diag, cycle, fmt, ap);
    va_end(ap);
    dv1_lose_sync(d);
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
void dv1_soft_fail(etm_v1dec_t *d, etm_diag_t *diag, uint64_t cycle, const char *fmt, ...)
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
int dv1_need(etm_v1dec_t *d, etm_diag_t *diag, int rd, uint64_t t, const char *what)
{
    if (rd == RD_WAIT) {
        d->wait_what = what;
        return P_WAIT;
    }
    const cyc_t *r = &d->ring[t & (d->cap - 1)];
    unsigned st = r->ps == ETM_V1_PS_TR ? (r->pkt & 7u) : r->ps;
    if (rd == RD_TD)
        return dv1_fail(d, diag, d->td_cycle, t + 1,
                    "TD in cycle %" PRIu64 ", while %s of the %s at cycle %" PRIu64
                    " had still to leave the FIFO: a cycle with something to drain is not TD",
                    d->td_cycle, what, etm_v1_pipestat_name(st), t);
    return dv1_fail(d, diag, t, t + 1, "the trace ended before %s of the %s at cycle %" PRIu64, what,
                etm_v1_pipestat_name(st), t);
}

/* Decode statuses while their cycles are in the window. */
static etm_err_t run(etm_v1dec_t *d, etm_diag_t *diag)
{
    while (d->next < d->fed) {
        d->soft_err = 0;
        int r = dv1_process_one(d, diag);
        if (r == P_WAIT)
            return ETM_OK;
        if (r == P_ERR)
            return ETM_ERR_DECODE;
        if (d->soft_err) {
            etm_diag_t scratch;
            dv1_run_checks(d, &scratch); /* the soft error is the one reported */
            return ETM_ERR_DECODE;
        }
        etm_err_t e = dv1_run_checks(d, diag);
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

void etm_v1dec_set_classifier(etm_v1dec_t *d, etm_v1_classify_fn fn, void *user)
{
    d->cls = fn;
    d->cls_user = user;
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
            dv1_fail(d, dg, t, t + 1,
                 "%s at cycle %" PRIu64 ": %s did not come within %" PRIu64 " cycles (the decoder's window)",
                 etm_v1_pipestat_name(dv1_at(d, t)->ps), t, d->wait_what ? d->wait_what : "what it waits for", d->cap);
            e = ETM_ERR_DECODE;
        }
        if (e != ETM_OK && first == ETM_OK)
            first = e;
    }
    cyc_t *c = dv1_at(d, d->fed);
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
