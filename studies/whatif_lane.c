/* whatif_lane.c - etm-whatif's lanes: one configuration on one workload, its own
 * ETM and its own Cortex-M3 timing model (or random stimulus), stepped a core
 * cycle at a time with the external port's edges counted as sc_system places
 * them, and its figures (metrics_t) taken at the end of trace; run_lanes feeds
 * one program's executed instructions, run once under QEMU, to every lane of a
 * work item.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qrec.h"
#include "whatif.h"

/* Port edges (external port) before the time T, in units of 2.5 ns: edges at
 * 3 + k * s, s = 4 * div / (ddr ? 2 : 1). */
static uint64_t edges_before(const port_t *p, uint64_t t)
{
    uint64_t s = 4u * p->div / (p->ddr ? 2u : 1u);
    return t > 3 ? (t - 3 + s - 1) / s : 0;
}

/* The external port's edges between the rising edges of cycles n-1 and n (at
 * 4 (n + 1) and 4 (n + 2)): the port takes before the step. */
static void port_edges(lane_t *L, uint64_t n)
{
    const port_t *p = &L->c->port;
    uint64_t k = edges_before(p, 4 * (n + 2)) - edges_before(p, 4 * (n + 1));
    uint8_t buf[8];
    for (uint64_t i = 0; i < k; i++)
        etm_port_take(L->etm, buf, p->width);
}

int lane_open(lane_t *L, const conf_t *c, const workload_t *w)
{
    memset(L, 0, sizeof *L);
    L->c = c;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_create(&L->etm, &c->cfg, &d) != ETM_OK) {
        snprintf(L->err, sizeof L->err, "%s: configuration: %s", c->label, d.msg);
        return -1;
    }
    if (c->tpiu) {
        etm_tpiu_params_t tp;
        conf_tpiu_params(c, &tp);
        if (etm_tpiu_create(&L->tp, &tp, &d) != ETM_OK) {
            snprintf(L->err, sizeof L->err, "%s: TPIU: %s", c->label, d.msg);
            return -1;
        }
    }
    etm_atb_stall_init(&L->stall, c->atb_stall, c->atb_burst, w->seed ^ 0x5157u);
    if (w->random) {
        etm_gen_params_t gp;
        etm_gen_params_default(&gp);
        gp.seed = w->seed;
        gp.issue_width = c->issue;
        if (etm_stim_open_gen(&L->stim, &gp, w->cycles, &d) != ETM_OK) {
            snprintf(L->err, sizeof L->err, "random stimulus: %s", d.msg);
            return -1;
        }
    } else if (etm_cm3_create(&L->cm3, &c->params, &d) != ETM_OK) {
        snprintf(L->err, sizeof L->err, "%s: timing model: %s", c->label, d.msg);
        return -1;
    }
    return 0;
}

void lane_close(lane_t *L)
{
    if (L->etm)
        etm_destroy(L->etm);
    if (L->cm3)
        etm_cm3_free(L->cm3);
    etm_tpiu_destroy(L->tp);
    L->tp = NULL;
    if (L->stim)
        etm_stim_close(L->stim);
    L->etm = NULL;
    L->cm3 = NULL;
    L->stim = NULL;
}

/* ATREADY of the coming cycle: the TPIU's, and the interconnect's (1: stalled). */
static int lane_atstall(lane_t *L, int *ic)
{
    *ic = etm_atb_stall_next(&L->stall);
    return *ic || (L->tp && !etm_tpiu_ready(L->tp, 0));
}

/* The TPIU's cycle after the ETM's (out NULL: nothing on ATB). */
static void lane_tpiu(lane_t *L, const etm_out_t *out, int ic)
{
    if (!L->tp)
        return;
    etm_tpiu_in_t tin;
    etm_tpiu_out_t to;
    etm_tpiu_in_from_etm(&tin, out, ic);
    etm_tpiu_step(L->tp, &tin, &to);
}

/* One core cycle. */
static void lane_step(lane_t *L, const etm_in_t *core)
{
    if (L->c->port.width)
        port_edges(L, L->n);
    etm_in_t in1 = *core;
    const etm_in_t *in = &in1;
    int ic = 0;
    in1.atstall = (uint8_t)lane_atstall(L, &ic);
    if (etm_step(L->etm, in, &L->out) == ETM_ERR_RULE && !L->err[0]) {
        etm_rule_t r;
        etm_last_rules(L->etm, &r, 1);
        snprintf(L->err, sizeof L->err, "cycle %" PRIu64 ": the stimulus broke interface rule %s", L->n,
                 etm_rule_name(r));
    }
    L->m.atb_wait += L->out.atvalid && in1.atstall;
    lane_tpiu(L, &L->out, ic);
    if (L->out.fifo_level > L->m.peak_level)
        L->m.peak_level = L->out.fifo_level;
    uint64_t b = etm_get_stats(L->etm)->bytes, now = b - L->last_bytes;
    L->last_bytes = b;
    unsigned slot = (unsigned)(L->n % WINDOW);
    L->win_sum += now - L->win[slot];
    L->win[slot] = (uint16_t)now;
    if (L->win_sum > L->m.peak_window)
        L->m.peak_window = L->win_sum;
    L->n++;
}

/* The cycles the timing model has for the instructions put so far, the core held
 * while FIFOFULL is 1 (the loop of docs/cm3-timing.md). */
static void lane_cycles(lane_t *L)
{
    etm_in_t in;
    for (;;) {
        if (L->out.fifofull)
            etm_cm3_stall(L->cm3);
        if (etm_cm3_cycle(L->cm3, &in, NULL, NULL) != ETM_OK)
            break;
        lane_step(L, &in);
    }
}

/* Random stimulus: the whole run. */
static void lane_run_random(lane_t *L)
{
    etm_in_t in;
    etm_diag_t d;
    etm_diag_clear(&d);
    while (etm_stim_next(L->stim, L->out.fifofull, &in, &d) == ETM_OK)
        lane_step(L, &in);
}

/* End of trace, the FIFO emptied, the figures taken. */
static void lane_end(lane_t *L)
{
    etm_end(L->etm);
    uint64_t t = L->n;
    etm_out_t o;
    if (L->c->port.width) {
        while (etm_fifo_level(L->etm))
            port_edges(L, t++);
    } else {
        lane_tpiu(L, NULL, 0); /* the end's edge: no port cycle */
        for (;;) {
            etm_in_t din;
            int ic = 0;
            memset(&din, 0, sizeof din);
            din.atstall = (uint8_t)lane_atstall(L, &ic);
            if (etm_drain_in(L->etm, &din, &o) != ETM_OK)
                break;
            L->m.atb_wait += o.atvalid && din.atstall;
            lane_tpiu(L, &o, ic);
            t++;
        }
    }
    if (L->tp) {
        etm_tpiu_end(L->tp);
        for (unsigned k = 0; k < 10000000 && !etm_tpiu_done(L->tp); k++)
            lane_tpiu(L, NULL, 0);
        const etm_tpiu_stats_t *ts = etm_tpiu_get_stats(L->tp);
        if (etm_tpiu_protocol(L->tp) == ETM_TPIU_PARALLEL) {
            L->m.fmt_bytes = 16 * ts->frames + 4 * ts->fsyncs;
            L->m.pin_bytes = L->m.fmt_bytes + 2 * ts->hsyncs;
        } else { /* SWO: what the line sent, and what it could have sent in the run */
            L->m.fmt_bytes = ts->swo_bytes;
            L->m.pin_bytes = ts->swo_busy ? (uint64_t)((double)ts->swo_bytes * (double)ts->cycles / (double)ts->swo_busy)
                                          : ts->swo_bytes;
        }
    }
    const etm_stats_t *st = etm_get_stats(L->etm);
    metrics_t *m = &L->m;
    m->cycles = L->n;
    m->held = L->cm3 ? etm_cm3_get_stats(L->cm3)->held_cycles : etm_stim_get_stats(L->stim)->held;
    m->instructions = st->instructions;
    m->bytes = st->bytes;
    m->port_bytes = st->port_bytes;
    m->port_cycles = t;
    m->overflows = st->overflows;
    m->bytes_lost = st->bytes_lost;
    m->cycles_lost = st->cycles_lost;
    m->fifofull_cycles = st->fifofull_cycles;
    m->atoms = st->atoms;
    m->exceptions = st->exceptions;
    m->untraceable = st->untraceable;
    memcpy(m->packets, st->packets, sizeof m->packets);
}

/* Every lane on one workload. A program runs once under QEMU; each of its
 * executed instructions goes to every lane's timing model in turn. Returns 0, or
 * -1 with a message in err. */
int run_lanes(lane_t *lanes, size_t n, const workload_t *w, char *err, size_t errlen)
{
    if (w->random) {
        for (size_t i = 0; i < n; i++) {
            lane_run_random(&lanes[i]);
            lane_end(&lanes[i]);
        }
        return 0;
    }
    qrec_source_opts_t so;
    memset(&so, 0, sizeof so);
    so.workload_dir = ETM_WORKLOAD_DIR;
    so.qemu.qemu = ETM_QEMU_BIN;
    so.qemu.plugin = ETM_QEMU_PLUGIN;
    so.qemu.icount_shift = 3;
    qrec_source_t src;
    if (qrec_source_open(&src, &so, w->name, err, errlen) != 0)
        return -1;
    etm_cm3_insn_t r;
    etm_diag_t d;
    etm_diag_clear(&d);
    int k, bad = 0;
    while (!bad && (k = qrec_next(src.q, &r)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (etm_cm3_put(lanes[i].cm3, &r, &d) != ETM_OK) {
                snprintf(err, errlen, "%s: timing model: %s", w->name, d.msg);
                bad = 1;
                break;
            }
            lane_cycles(&lanes[i]);
        }
    }
    if (!bad && k < 0) {
        snprintf(err, errlen, "%s: %s", w->name, qrec_error(src.q));
        bad = 1;
    }
    char qerr[512] = "";
    int status = qrec_source_close(&src, qerr, sizeof qerr);
    if (bad)
        return -1;
    if (status != 0) {
        snprintf(err, errlen, "%s: %s", w->name,
                 status < 0 ? qerr : "the program reported a failure of its own checks (QEMU exit status not 0)");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        etm_cm3_finish(lanes[i].cm3);
        lane_cycles(&lanes[i]);
        lane_end(&lanes[i]);
    }
    return 0;
}
