/* etm_e2e.c - end to end on real code: a Cortex-M3 program runs under QEMU, the
 * recorder turns what QEMU executed into instructions, the Cortex-M3 timing model
 * into interface signals, the ETM model into trace, and independent decoders
 * turn the trace back into instructions, which must be QEMU's.
 *
 *   QEMU + etmtrace plugin -> recorder (workloads/recorder) -> etm_cm3 -> etm_step
 *     -> ETMv3 bytes -> OpenCSD (full decode with the ELF's code) and the project's
 *        ETMv3 decoder;  or  -> PIPESTAT/TRACEPKT -> the project's ETMv1 decoder
 *
 * Two comparisons, both instruction by instruction:
 *  1. the timing model against QEMU: the instructions it signals (after those an
 *     exception cancelled) are QEMU's, with the same E/N outcome, and its
 *     exception entries, tail-chains and returns are the recorder's;
 *  2. each decoder against the timing model's log of what it signalled (which by
 *     1 is QEMU's execution): every instruction address and outcome, every
 *     exception number and return (ETMv3), and in cycle-accurate mode the cycle
 *     of every instruction (1 + its cycle index, docs/etmv3-encoder.md).
 * No decoder may report an error; the program itself must exit with status 0.
 * The decoders report to the testbenches' one judge (tb/common/judge.h).
 *
 * --reprogram N (ETMv3): the ETM comes out of reset and is programmed through
 * its debug APB before the program's first cycle, then reprogrammed every N
 * cycles while the program runs, alternately to trace part of it (the first
 * half of the code by an address range; nothing, by ETMTEEVR, on a part
 * without comparators) and everything again, with a new trace ID each time. What the decoders must
 * give back is what each programming traced: the instructions and exceptions
 * of the cycles the model reports with TraceEnable.
 *
 * --tpiu PINS[:DIV] (ETMv3): the ETM's ATB goes into a TPIU (etm/tpiu.h) whose
 * ATREADY holds it back; the decoders get the TPIU's pins, CoreSight-formatted:
 * OpenCSD through its own frame deformatter (frame and half-word syncs), the
 * project's decoder through etm/coresight.h. Too few pins overflow the ETM's
 * FIFO; the judges then accept the gaps the model signals (OVERFLOW).
 *
 *   etm-e2e [options] PROGRAM...      (etm-e2e --help)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/cm3.h"
#include "etm/decode_v1.h"
#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "etm/number.h"
#include "judge.h"
#include "judge_ocsd.h"
#include "qrec.h"
#include "reprog.h"

#define QCAP (1u << 18)

static unsigned insn_size(void *user, uint32_t addr)
{
    uint8_t b[2];
    if (qrec_image_read((const qrec_image_t *)user, addr, b, 2) != 2)
        return 2;
    return etm_cm3_insn_size((uint32_t)(b[0] | b[1] << 8));
}

static int image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    return qrec_image_read((const qrec_image_t *)user, addr, buf, n);
}

/* ---- The timing model against QEMU's records ------------------------------------------------- */

#define RCAP 4096u

typedef struct recq {
    etm_cm3_insn_t r[RCAP];
    size_t head, len;
    int have_pending;        /* an INSN event not yet known to be cancelled */
    etm_gen_event_t pending;
    int ctx_seen;            /* the record at head had its context event */
    uint64_t matched, errors;
    char first_error[512];
} recq_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void rfail(recq_t *q, const char *fmt, ...)
{
    if (q->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(q->first_error, sizeof q->first_error, fmt, ap);
        va_end(ap);
    }
}

static void rq_commit(recq_t *q)
{
    if (!q->have_pending)
        return;
    q->have_pending = 0;
    const etm_gen_event_t *e = &q->pending;
    if (!q->len) {
        rfail(q, "cycle %" PRIu64 ": the timing model signalled 0x%08" PRIx32 " beyond QEMU's instructions", e->cycle,
              e->addr);
        return;
    }
    const etm_cm3_insn_t *r = &q->r[q->head];
    if (r->addr != e->addr || r->executed != e->passed || r->size != e->size)
        rfail(q, "instruction %" PRIu64 ": QEMU executed 0x%08" PRIx32 " %c, the timing model signalled 0x%08" PRIx32
                 " %c in cycle %" PRIu64, q->matched, r->addr, r->executed ? 'E' : 'N', e->addr, e->passed ? 'E' : 'N',
              e->cycle);
    else if (r->ctx != ETM_CM3_CTX_SAME && !q->ctx_seen)
        rfail(q, "instruction %" PRIu64 " at 0x%08" PRIx32 ": the exception before it was not signalled", q->matched,
              r->addr);
    q->matched++;
    q->head = (q->head + 1) % RCAP;
    q->len--;
    q->ctx_seen = 0;
}

static void rq_event(recq_t *q, const etm_gen_event_t *e)
{
    switch (e->kind) {
    case ETM_GEN_EV_INSN:
        rq_commit(q);
        q->pending = *e;
        q->have_pending = 1;
        break;
    case ETM_GEN_EV_CANCEL:
        if (!q->have_pending)
            rfail(q, "cycle %" PRIu64 ": a cancel with no instruction before it", e->cycle);
        q->have_pending = 0;
        break;
    default: {
        rq_commit(q);
        const etm_cm3_insn_t *r = q->len ? &q->r[q->head] : NULL;
        int want = e->kind == ETM_GEN_EV_EXC_RETURN ? ETM_CM3_CTX_RETURN : -1;
        if (!r || (want >= 0 ? r->ctx != want
                             : (r->ctx != ETM_CM3_CTX_ENTRY && r->ctx != ETM_CM3_CTX_TAILCHAIN)) ||
            r->excnum != e->excnum)
            rfail(q, "cycle %" PRIu64 ": the timing model signalled exception %s %u, QEMU's next instruction has %s %u",
                  e->cycle, e->kind == ETM_GEN_EV_EXC_RETURN ? "return to" : "entry", e->excnum,
                  !r ? "nothing" : r->ctx == ETM_CM3_CTX_SAME ? "no exception" : "exception", r ? r->excnum : 0);
        q->ctx_seen = 1;
        break;
    }
    }
}

/* ---- One program ----------------------------------------------------------------------------- */

typedef struct opts {
    etm_config_t cfg;
    etm_cm3_params_t params;
    qrec_source_opts_t so;
    int use_ocsd, use_own, use_v1, no_cycles, quiet, table;
    uint64_t reprogram;             /* --reprogram N: cycles between reprogrammings */
    int tpiu;                       /* --tpiu: the trace leaves through a TPIU's pins */
    unsigned hold;                  /* --hold: FIFOFULL holds the timing model's core, this many
                                     * cycles after it rises (0: no loop) */
    etm_tpiu_params_t tpiu_p;
    uint64_t win_start, win_cycles; /* win_cycles 0: the whole program */
    const char *stimulus, *trace, *events, *config_out;
    char require[16][16];
    int nrequire;
} opts_t;

typedef struct result {
    uint64_t insns, cycles, bytes, overflows, window_cycles, window_insns;
    double bpi;
    int ok;
} result_t;

static int count_of(const qrec_stats_t *qs, const etm_cm3_stats_t *ms, const char *what, uint64_t *v)
{
    if (!strcmp(what, "entry")) *v = qs->entries - qs->sync_entries;
    else if (!strcmp(what, "svc")) *v = qs->sync_entries;
    else if (!strcmp(what, "tail")) *v = qs->tail_chains;
    else if (!strcmp(what, "nest")) *v = qs->preemptions;
    else if (!strcmp(what, "return")) *v = qs->returns;
    else if (!strcmp(what, "cancel")) *v = ms->cancels;
    else if (!strcmp(what, "fold")) *v = ms->folds;
    else if (!strcmp(what, "itfail")) *v = qs->failed;
    else if (!strcmp(what, "tb")) *v = ms->kinds[ETM_CM3_K_TB];
    else if (!strcmp(what, "div")) *v = ms->kinds[ETM_CM3_K_DIV];
    else if (!strcmp(what, "blx")) *v = ms->kinds[ETM_CM3_K_BLX];
    else if (!strcmp(what, "mull")) *v = ms->kinds[ETM_CM3_K_MULL] + ms->kinds[ETM_CM3_K_MLAL];
    else if (!strcmp(what, "ldm")) *v = ms->kinds[ETM_CM3_K_LDM] + ms->kinds[ETM_CM3_K_STM];
    else return -1;
    return 0;
}

/* One program's run: the recorder's source, the timing model, the ETM, the
 * judges and their decoders, and the files written. */
typedef struct prun {
    const opts_t *o;
    etm_hold_path_t hp;             /* --hold: FIFOFULL on its way to the core */
    int hold_next;                  /* --hold: the next cycle is a held one */
    const char *program;
    result_t *res;
    int v1, failed;
    qrec_source_t src;
    etm_cm3_t *cm3;
    etm_ctx_t *etm;
    judge_t oj, wj, vj;         /* OpenCSD, the project's ETMv3 decoder, its ETMv1 decoder */
    judge_ocsd_t ocsd;
    etm_v3dec_t *own;
    etm_v1dec_t *v1d;
    FILE *sf, *tf, *ef;
    etm_vec_writer_t *sw;
    recq_t rq;
    uint64_t cycle, traced_cycles;
    int prev_ovf, in_window, window_done, ended, recs_done;
    unsigned version;         /* ETM_V() of the configuration */
    /* --reprogram: the debug APB's driver and what trace the current programming lets through. */
    etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv;
    etm_config_t now;
    uint64_t reprogrammings;
    int te_prev, last_traced;
    uint64_t version_limited; /* exceptions and returns this ETMv3 version cannot express (judge.h) */
    /* --tpiu: the TPIU, the pins' capture, the deformatter for the own decoder. */
    etm_tpiu_t *tp;
    etm_tpiu_cap_t cap;
    etm_cs_deformatter_t *cs;
    uint8_t fbuf[4096];
    size_t nf;
    /* The protocol scoreboard (etm/verify.h): the same trace against the core's
     * signals, with no code image (ETMv3 without reprogramming). */
    etm_verify_t *ver;
} prun_t;

static void on_formatted(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset);

static int open_judges(prun_t *p)
{
    const opts_t *o = p->o;
    etm_diag_t d;
    int ca = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, o->cfg.etmcr) != 0;
    if (judge_init(&p->oj, "OpenCSD", QCAP) != 0 || judge_init(&p->wj, "own ETMv3 decoder", QCAP) != 0 ||
        judge_init(&p->vj, "own ETMv1 decoder", QCAP) != 0) {
        fprintf(stderr, "etm-e2e: out of memory\n");
        return -1;
    }
    p->oj.on = !p->v1 && o->use_ocsd;
    p->wj.on = !p->v1 && o->use_own;
    p->vj.on = p->v1 && o->use_v1;
    judge_t *js[3] = { &p->oj, &p->wj, &p->vj };
    for (int k = 0; k < 3; k++) {
        js[k]->check_cycles = ca && !o->no_cycles && k < 2;
        js[k]->hooks.insn_size = insn_size;
        js[k]->hooks.user = &p->src.img;
    }
    if (p->oj.on) {
        /* The pins: frame and half-word syncs; SWO: frames from the first byte, none. */
        uint32_t fl = !o->tpiu ? 0
                      : o->tpiu_p.protocol == ETM_TPIU_PARALLEL ? OCSD_DFRMTR_HAS_FSYNCS | OCSD_DFRMTR_HAS_HSYNCS
                                                                : OCSD_DFRMTR_FRAME_MEM_ALIGN;
        if (judge_ocsd_open_formatted(&p->ocsd, &o->cfg, &p->oj, fl) != 0)
            return -1;
        for (unsigned s = 0; s < p->src.img.nseg; s++)
            if (p->src.img.seg[s].exec)
                judge_ocsd_add_memory(&p->ocsd, p->src.img.seg[s].addr, p->src.img.seg[s].bytes,
                                      p->src.img.seg[s].size);
    }
    if (p->wj.on) {
        if (etm_v3dec_create(&p->own, &o->cfg, ETM_V3DEC_V7M, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: own decoder: %s\n", d.msg);
            return -1;
        }
        etm_v3dec_on_element(p->own, judge_v3_element, &p->wj);
        etm_v3dec_set_image(p->own, image_read, &p->src.img);
    }
    if (!o->reprogram && etm_verify_create(&p->ver, &o->cfg, NULL, &d) != ETM_OK) {
        fprintf(stderr, "etm-e2e: scoreboard: %s\n", d.msg);
        return -1;
    }
    if (p->vj.on) {
        if (etm_v1dec_create(&p->v1d, &o->cfg, 0, ETM_V1DEC_STRICT, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: ETMv1 decoder: %s\n", d.msg);
            return -1;
        }
        etm_v1dec_on_element(p->v1d, judge_v1_element, &p->vj);
        etm_v1dec_set_image(p->v1d, image_read, &p->src.img);
    }
    return 0;
}

static int open_files(prun_t *p)
{
    const opts_t *o = p->o;
    p->sf = o->stimulus ? fopen(o->stimulus, "w") : NULL;
    p->tf = o->trace ? fopen(o->trace, "wb") : NULL;
    p->ef = o->events ? fopen(o->events, "w") : NULL;
    if ((o->stimulus && !p->sf) || (o->trace && !p->tf) || (o->events && !p->ef)) {
        fprintf(stderr, "etm-e2e: cannot create an output file\n");
        return -1;
    }
    if (p->sf) {
        char comment[1600];
        snprintf(comment, sizeof comment,
                 "%s under qemu-system-arm -icount shift=%u, Cortex-M3 timing model (etm/cm3.h)%s",
                 p->program, o->so.qemu.icount_shift, o->win_cycles ? ", a window of the program" : "");
        /* With a TPIU, its ATREADY too: the stimulus then replays the same back-pressure. */
        uint64_t mask = etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_CORE);
        if (o->tpiu)
            mask |= etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, ETM_SIGF_ATB);
        if (etm_vec_writer_open(&p->sw, p->sf, ETM_VEC_STIMULUS, &o->cfg, mask, comment) != ETM_OK) {
            fprintf(stderr, "etm-e2e: cannot write %s\n", o->stimulus);
            return -1;
        }
    }
    return 0;
}

static int open_run(prun_t *p)
{
    etm_diag_t d;
    char err[512];
    unsigned ver = 0;
    etm_config_version(&p->o->cfg, &ver, NULL);
    p->v1 = ETM_V_MAJOR(ver) == 1;
    p->in_window = p->o->win_cycles == 0;
    if (p->v1 && p->o->reprogram) {
        fprintf(stderr, "etm-e2e: --reprogram is for ETMv3 (its decoders follow TraceEnable)\n");
        return -1;
    }
    if (p->o->tpiu) {
        const etm_config_t *c = &p->o->cfg;
        if (p->v1 || p->o->reprogram || c->port_bytes == 0 || c->etmtraceidr < 1 || c->etmtraceidr > 0x6F) {
            fprintf(stderr, "etm-e2e: --tpiu wants an ETMv3 with an ATB (PORT_BYTES 1 to 8) and a trace ID of "
                            "0x01 to 0x6F (ETMTRACEIDR=0x%X), not --reprogram (whose IDs change)\n",
                    (unsigned)c->etmtraceidr);
            return -1;
        }
        etm_tpiu_params_t tpp = p->o->tpiu_p;
        tpp.src_bytes[0] = c->port_bytes;
        if (etm_tpiu_create(&p->tp, &tpp, &d) != ETM_OK ||
            etm_cs_create(&p->cs, tpp.protocol == ETM_TPIU_PARALLEL ? ETM_CS_WAIT_FSYNC : 0, on_formatted, p) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --tpiu: %s\n", d.msg);
            return -1;
        }
        etm_tpiu_cap_init_for(&p->cap, p->tp);
    }
    if (qrec_source_open(&p->src, &p->o->so, p->program, err, sizeof err) != 0) {
        fprintf(stderr, "etm-e2e: %s\n", err);
        return -1;
    }
    if (etm_cm3_create(&p->cm3, &p->o->params, &d) != ETM_OK ||
        (p->o->reprogram ? etm_create_at_reset(&p->etm, &p->o->cfg, &d) : etm_create(&p->etm, &p->o->cfg, &d)) != ETM_OK) {
        fprintf(stderr, "etm-e2e: %s\n", d.msg);
        return -1;
    }
    p->now = p->o->cfg;
    p->te_prev = 1;
    if (p->o->reprogram && reprog_from_reset(p->etm, &p->o->cfg) != 0) { /* before the program runs: no trace */
        fprintf(stderr, "etm-e2e: the programming from reset failed\n");
        return -1;
    }
    return open_judges(p) != 0 || open_files(p) != 0 ? -1 : 0;
}

/* The timing model's next cycle, fed QEMU's instructions as it needs them:
 * ETM_OK (a cycle), ETM_END (the program is over), or another code after an
 * error (p->failed set). */
static etm_err_t next_cycle(prun_t *p, etm_in_t *in, etm_gen_event_t *ev, unsigned *nev)
{
    etm_diag_t d;
    etm_err_t ce = etm_cm3_cycle(p->cm3, in, ev, nev);
    while (ce == ETM_END && !p->recs_done) {
        etm_cm3_insn_t r;
        int k = qrec_next(p->src.q, &r);
        if (k < 0) {
            fprintf(stderr, "etm-e2e: %s: %s\n", p->program, qrec_error(p->src.q));
            p->failed = 2;
            return ETM_ERR_IO;
        }
        if (k == 0) {
            etm_cm3_finish(p->cm3);
            p->recs_done = 1;
        } else {
            if (p->rq.len == RCAP) {
                fprintf(stderr, "etm-e2e: the timing model lags QEMU by more than %u instructions\n", RCAP);
                p->failed = 2;
                return ETM_ERR_STATE;
            }
            p->rq.r[(p->rq.head + p->rq.len) % RCAP] = r;
            p->rq.len++;
            if (etm_cm3_put(p->cm3, &r, &d) != ETM_OK) {
                fprintf(stderr, "etm-e2e: %s: timing model: %s\n", p->program, d.msg);
                p->failed = 2;
                return ETM_ERR_ARG;
            }
        }
        ce = etm_cm3_cycle(p->cm3, in, ev, nev);
    }
    return ce;
}

/* The window starts at an instruction that is neither an exception's first nor
 * one an exception cancels (so the trace starts as it would in hardware). */
static void update_window(prun_t *p, const etm_in_t *in, const etm_gen_event_t *ev, unsigned nev)
{
    const opts_t *o = p->o;
    if (!p->in_window && !p->window_done && p->cycle >= o->win_start && in->ivalid && !in->intstat && !in->ibranch) {
        int cancelled_next = 0;
        for (unsigned k = 0; k < nev; k++)
            cancelled_next |= ev[k].kind == ETM_GEN_EV_CANCEL;
        if (!cancelled_next) {
            p->in_window = 1;
            p->res->window_cycles = 0;
        }
    }
    if (p->in_window && o->win_cycles && p->traced_cycles == o->win_cycles) {
        p->in_window = 0;
        p->window_done = 1;
    }
}

/* What a traced cycle executed, for the judges: with --reprogram, what the
 * programming let through (TraceEnable), trace that restarts giving its
 * address by I-sync (no exception return packet). */
static void expect_events(prun_t *p, const etm_gen_event_t *ev, unsigned nev, int te)
{
    judge_t *js[3] = { &p->oj, &p->wj, &p->vj };
    int restart = te && !p->te_prev;
    p->te_prev = te;
    for (unsigned k = 0; k < nev; k++) {
        judge_item_t x;
        memset(&x, 0, sizeof x);
        if (!te && ev[k].kind != ETM_GEN_EV_CANCEL) {
            p->last_traced = 0;
            continue;
        }
        if (ev[k].kind == ETM_GEN_EV_CANCEL && !p->last_traced)
            continue; /* the cancelled instruction was not traced */
        if (ev[k].kind == ETM_GEN_EV_EXC_RETURN && restart)
            continue; /* the restart's I-sync gives the address */
        if (ev[k].kind == ETM_GEN_EV_INSN)
            p->last_traced = 1;
        switch (ev[k].kind) {
        case ETM_GEN_EV_INSN:
            x.kind = JX_INSN;
            x.addr = ev[k].addr;
            x.exec = ev[k].passed;
            x.size = ev[k].size;
            x.cycle = p->traced_cycles; /* 1-based cycle of the traced stream */
            for (int j = 0; j < 3; j++)
                judge_push(js[j], &x);
            p->res->window_insns++;
            break;
        case ETM_GEN_EV_CANCEL:
            /* ETMv3: the cancelled instruction is withdrawn; ETMv1: it stays,
             * shown as executed (docs/etmv1-encoder.md). */
            judge_cancel_last(&p->oj);
            judge_cancel_last(&p->wj);
            break;
        case ETM_GEN_EV_EXC_ENTRY: {
            x.kind = JX_EXC;
            x.num = judge_m3_exception(ev[k].excnum);
            judge_item_t *last = p->vj.on ? judge_last_insn(&p->vj) : NULL;
            if (last)
                last->exec = 1; /* ETMv1 has no exception packets: shown as a branch to the handler */
            if (!p->v1 && !judge_v3_exception_traced(p->version, x.num)) {
                p->version_limited++; /* a plain branch; a cancel went with the exception's bytes */
                judge_uncancel(&p->oj);
                judge_uncancel(&p->wj);
                break;
            }
            if (ev[k].tailchain && p->o->cfg.tailchain_return && !p->v1 && judge_v3_return_traced(p->version) &&
                !(p->oj.on ? judge_last_is_resync(&p->oj) : p->wj.on ? judge_last_is_resync(&p->wj) : 0)) {
                judge_item_t r = x; /* TAILCHAIN_RETURN: the handler left returns first */
                r.kind = JX_ERET;
                r.num = 0;
                judge_push(&p->oj, &r);
                judge_push(&p->wj, &r);
            }
            judge_push(&p->oj, &x);
            judge_push(&p->wj, &x);
            break;
        }
        case ETM_GEN_EV_EXC_RETURN:
            x.kind = JX_ERET;
            /* First thing traced after an overflow restart: the I-sync says where. */
            if (!(p->oj.on ? judge_last_is_resync(&p->oj) : p->wj.on ? judge_last_is_resync(&p->wj) : 0)) {
                if (!p->v1 && !judge_v3_return_traced(p->version)) {
                    p->version_limited++; /* a plain branch */
                    break;
                }
                judge_push(&p->oj, &x);
                judge_push(&p->wj, &x);
            }
            break;
        }
    }
}

static void start_reprogramming(prun_t *p);

/* ---- --tpiu ---------------------------------------------------------------------------------- */

static void feed(prun_t *p, const uint8_t *buf, const uint64_t *cycles, size_t n);

/* The TPIU's cycle after the ETM's (out NULL: the ETM has ended; stim NULL:
 * nothing on the TPIU's APB, else the program's accesses to it): the bytes its
 * pins complete go to the decoders. */
static void tpiu_cycle(prun_t *p, const etm_in_t *stim, const etm_out_t *out)
{
    if (!p->tp)
        return;
    etm_tpiu_in_t tin;
    etm_tpiu_out_t to;
    etm_tpiu_in_from_etm(&tin, out, 0);
    etm_tpiu_in_apb(&tin, stim);
    etm_tpiu_step(p->tp, &tin, &to);
    uint8_t b[4];
    unsigned n = etm_tpiu_cap_step(&p->cap, &to, b);
    etm_tpiu_cap_follow(&p->cap, p->tp);
    for (unsigned i = 0; i < n; i++) {
        p->fbuf[p->nf++] = b[i];
        if (p->nf == sizeof p->fbuf) {
            feed(p, p->fbuf, NULL, p->nf);
            p->nf = 0;
        }
    }
}

/* The deformatter's output for the project's decoder: the ETM's ID only. */
static void on_formatted(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    (void)offset;
    prun_t *p = (prun_t *)user;
    if (id != p->o->cfg.etmtraceidr)
        return;
    if (p->ver)
        etm_verify_bytes(p->ver, data, n, 0);
    if (p->wj.on)
        judge_v3_feed(&p->wj, p->own, data, n);
}

/* One traced cycle through the model. */
static void step_cycle(prun_t *p, const etm_in_t *core, const etm_gen_event_t *ev, unsigned nev, etm_out_t *out)
{
    etm_in_t apb = *core;
    const etm_in_t *in = core;
    if (p->tp) {
        apb.atstall = (uint8_t)!etm_tpiu_ready(p->tp, 0);
        in = &apb;
    }
    if (p->o->reprogram) { /* the debugger reprograms the ETM while the program runs */
        if (!etm_apb_busy(&p->drv) && p->traced_cycles && p->traced_cycles % p->o->reprogram == 0)
            start_reprogramming(p);
        etm_apb_drive(&p->drv, &apb);
        in = &apb;
    }
    etm_err_t se = etm_step(p->etm, in, out);
    if (p->ver)
        etm_verify_cycle(p->ver, in);
    if (p->o->reprogram)
        etm_apb_observe(&p->drv, out);
    tpiu_cycle(p, in, out);
    if (se == ETM_ERR_RULE) {
        etm_rule_t rules[4];
        unsigned n = etm_last_rules(p->etm, rules, 4);
        fprintf(stderr, "etm-e2e: %s: cycle %" PRIu64 ": the timing model broke interface rule %s\n", p->program,
                p->cycle, n ? etm_rule_name(rules[0]) : "?");
        p->failed = 1;
    }
    if (p->sw)
        etm_vec_write_in(p->sw, in);
    p->traced_cycles++;
    if (p->prev_ovf && !out->overflow) {
        judge_resync(&p->oj);
        judge_resync(&p->wj);
        judge_resync(&p->vj);
    }
    p->prev_ovf = out->overflow;
    expect_events(p, ev, nev, !p->o->reprogram || out->trace_enable);
}

/* --reprogram: a new trace ID, and in turn trace a part (the first half of the
 * program's code, where the ETM has an address comparator pair; else nothing)
 * or everything. */
static void start_reprogramming(prun_t *p)
{
    const qrec_image_t *img = &p->src.img;
    unsigned s = 0;
    while (s < img->nseg && !img->seg[s].exec)
        s++;
    etm_config_t t;
    reprog_target(&t, &p->o->cfg, 1 + (unsigned)(p->reprogrammings % 0x6F), !(p->reprogrammings & 1),
                  s < img->nseg ? img->seg[s].addr : 0, s < img->nseg ? img->seg[s].size : 0);
    p->reprogrammings++;
    etm_apb_driver_start(&p->drv, p->ops, etm_program_ops(&t, &p->now, p->ops, ETM_PROGRAM_MAX_OPS));
    p->now = t;
}

/* The next n bytes of trace, and the cycle each left the port (NULL: unknown). */
static void feed(prun_t *p, const uint8_t *buf, const uint64_t *cycles, size_t n)
{
    if (p->tf)
        fwrite(buf, 1, n, p->tf);
    if (p->oj.on && cycles)
        judge_ocsd_feed_timed(&p->ocsd, buf, cycles, n);
    else if (p->oj.on)
        judge_ocsd_feed(&p->ocsd, buf, n);
    if (p->tp) {
        etm_diag_t d;
        if (etm_cs_feed(p->cs, buf, n, &d) != ETM_OK)
            judge_fail(&p->wj, "deformatter at byte %" PRIu64 ": %s", d.offset, d.msg);
    } else {
        if (p->wj.on)
            judge_v3_feed(&p->wj, p->own, buf, n);
        if (p->ver)
            etm_verify_bytes(p->ver, buf, n, 0);
    }
}

static void run_cycles(prun_t *p)
{
    uint8_t buf[4096];
    uint64_t bcycle[4096]; /* the cycle each byte of buf left the port */
    size_t nbuf = 0;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_in_t in;
    etm_out_t out;
    etm_diag_t d;
    unsigned nev;
    for (;;) {
        if (p->o->hold && p->hold_next) /* the closed loop: the core waits this cycle */
            etm_cm3_stall(p->cm3);
        etm_err_t ce = next_cycle(p, &in, ev, &nev);
        if (p->failed)
            break;
        int more = ce == ETM_OK;
        for (unsigned k = 0; more && k < nev; k++)
            rq_event(&p->rq, &ev[k]);
        for (unsigned k = 0; more && p->ef && k < nev; k++)
            fprintf(p->ef, "%" PRIu64 " %d %08" PRIx32 " %u %u\n", ev[k].cycle, ev[k].kind, ev[k].addr, ev[k].passed,
                    ev[k].excnum);
        if (more)
            update_window(p, &in, ev, nev);
        etm_err_t de = ETM_OK;
        int step = more && p->in_window;
        if (step) {
            step_cycle(p, &in, ev, nev, &out);
            p->hold_next = etm_hold_path_step(&p->hp, out.fifofull);
        } else if (!more) {
            if (!p->ended) {
                etm_end(p->etm);
                p->ended = 1;
            }
            etm_in_t din;
            memset(&din, 0, sizeof din);
            if (p->tp)
                din.atstall = (uint8_t)!etm_tpiu_ready(p->tp, 0);
            de = etm_drain_in(p->etm, &din, &out);
            p->prev_ovf |= out.overflow;
            if (de == ETM_OK)
                tpiu_cycle(p, NULL, &out);
        }
        if ((step || !more) && !p->tp) {
            for (unsigned b = 0; b < out.v3_count; b++) {
                bcycle[nbuf] = p->traced_cycles;
                buf[nbuf++] = out.v3_bytes[b];
            }
            if (p->v1d && etm_v1dec_step(p->v1d, &out, &d) != ETM_OK)
                judge_fail(&p->vj, "ETMv1 decoder, cycle %" PRIu64 ": %s", d.cycle, d.msg);
            if (p->v1 && p->ver)
                etm_verify_port(p->ver, &out);
        }
        if (nbuf > sizeof buf - 16 || (!more && de == ETM_END)) {
            feed(p, buf, bcycle, nbuf);
            nbuf = 0;
        }
        if (more)
            p->cycle++;
        if (!more && de == ETM_END)
            break;
    }
    if (p->tp) { /* the TPIU empties its frame and pins */
        etm_tpiu_end(p->tp);
        for (unsigned k = 0; k < 1000000 && !etm_tpiu_done(p->tp); k++)
            tpiu_cycle(p, NULL, NULL);
        feed(p, p->fbuf, NULL, p->nf);
        p->nf = 0;
        if (!etm_tpiu_done(p->tp))
            judge_fail(&p->wj, "the TPIU did not empty within 10^6 cycles");
    }
}

static void close_decoders(prun_t *p)
{
    etm_diag_t d;
    if (p->cs) {
        if (etm_cs_end(p->cs, &d) != ETM_OK)
            judge_fail(&p->wj, "deformatter at the end: %s", d.msg);
        etm_cs_destroy(p->cs);
        p->cs = NULL;
    }
    if (p->oj.on)
        judge_ocsd_close(&p->ocsd);
    if (p->own)
        judge_v3_close(&p->wj, p->own);
    if (p->v1d) {
        if (etm_v1dec_end(p->v1d, &d) != ETM_OK)
            judge_fail(&p->vj, "ETMv1 decoder at the end: %s", d.msg);
        etm_v1dec_destroy(p->v1d);
    }
    if (p->sw && etm_vec_writer_close(p->sw) != ETM_OK)
        p->failed = 2;
    if ((p->sf && fclose(p->sf) != 0) || (p->tf && fclose(p->tf) != 0) || (p->ef && fclose(p->ef) != 0))
        p->failed = 2;
}

static void print_run(const prun_t *p)
{
    const opts_t *o = p->o;
    const etm_stats_t *st = etm_get_stats(p->etm);
    const etm_cm3_stats_t *ms = etm_cm3_get_stats(p->cm3);
    const qrec_stats_t *qs = qrec_get_stats(p->src.q);
    printf("%s: QEMU %" PRIu64 " instructions (%" PRIu64 " failed their condition, %" PRIu64 " in IT blocks); "
           "%" PRIu64 " exception entries (%" PRIu64 " SVC, %" PRIu64 " nested), %" PRIu64 " tail-chains, %" PRIu64
           " returns\n",
           p->program, qs->insns, qs->failed, qs->in_it, qs->entries, qs->sync_entries, qs->preemptions,
           qs->tail_chains, qs->returns);
    printf("%s: timing model %" PRIu64 " cycles (%.3f CPI), %" PRIu64 " folded IT, %" PRIu64 " cancelled; "
           "%" PRIu64 " of QEMU's instructions signalled in order: %s\n",
           p->program, ms->cycles, qs->insns ? (double)ms->cycles / (double)qs->insns : 0.0, ms->folds, ms->cancels,
           p->rq.matched, p->rq.errors ? p->rq.first_error : "same as QEMU");
    if (o->hold)
        printf("%s: closed loop: the core held by FIFOFULL in %" PRIu64 " cycles (%.1f %% more than without)\n",
               p->program, ms->held_cycles,
               ms->cycles > ms->held_cycles ? 100.0 * (double)ms->held_cycles / (double)(ms->cycles - ms->held_cycles)
                                            : 0.0);
    printf("%s: ETMCR=0x%08" PRIx32 " ETMIDR=0x%08" PRIx32 ": %" PRIu64 " cycles traced, %" PRIu64
           " trace bytes, %.3f bits/instruction, %" PRIu64 " overflows, %" PRIu64 " untraceable\n",
           p->program, o->cfg.etmcr, o->cfg.etmidr, p->traced_cycles, st->bytes, p->res->bpi, st->overflows,
           st->untraceable);
    if (p->oj.on) {
        char prefix[300];
        snprintf(prefix, sizeof prefix, "%s: ", p->program);
        judge_ocsd_print_packing(&p->ocsd, stdout, prefix);
    }
}

/* The judges' verdicts, and what the program had to exercise. */
static void judge_run(prun_t *p)
{
    const opts_t *o = p->o;
    const etm_stats_t *st = etm_get_stats(p->etm);
    if (p->rq.errors)
        p->failed = p->failed ? p->failed : 1;
    judge_t *js[3] = { &p->oj, &p->wj, &p->vj };
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s: ", p->program);
    for (int k = 0; k < 3; k++) {
        if (!js[k]->on)
            continue;
        /* Exact without overflows; with them, events in the cycles an overflow lost are not traced at all. */
        if (!p->v1 && (st->overflows ? st->untraceable > p->version_limited : st->untraceable != p->version_limited))
            judge_fail(js[k], "%" PRIu64 " untraceable events, %" PRIu64 " expected (exceptions and returns this "
                       "ETMv3 version cannot express)", st->untraceable, p->version_limited);
        judge_finish(js[k], p->prev_ovf, 1);
        int bad = o->quiet ? js[k]->errors != 0 : judge_print(js[k], stdout, prefix, p->v1);
        if (bad)
            p->failed = p->failed ? p->failed : 1;
    }
    if (p->ver) {
        /* The scoreboard needs no code image and no model of the trace's bytes. */
        etm_verify_end(p->ver, etm_untraced_overflow(p->etm)); /* an overflow whose restart never came */
        const etm_verify_result_t *r = etm_verify_result(p->ver);
        if (r->failures) {
            char what[600];
            printf("%sscoreboard: FAILED: %s\n", prefix, etm_verify_describe(p->ver, what, sizeof what));
            p->failed = p->failed ? p->failed : 1;
        } else if (!o->quiet) {
            char sync[80] = "";
            if (!p->v1)
                snprintf(sync, sizeof sync, ", A-syncs at most %" PRIu64 " bytes apart", r->max_sync_gap);
            printf("%sscoreboard: %" PRIu64 " instructions%s, %" PRIu64 " exceptions, %" PRIu64 " cancels, %" PRIu64
                   " overflow restarts (%" PRIu64 " instructions lost)%s: the trace is right\n",
                   prefix, r->instructions, r->cycles_checked ? " with their cycles" : "", r->exceptions, r->cancels,
                   r->overflows, r->lost, sync);
        }
    }
    for (int k = 0; k < o->nrequire; k++) {
        uint64_t v = 0;
        if (!strcmp(o->require[k], "overflow")) {
            v = st->overflows;
        } else if (count_of(qrec_get_stats(p->src.q), etm_cm3_get_stats(p->cm3), o->require[k], &v) != 0) {
            fprintf(stderr, "etm-e2e: --require %s: unknown\n", o->require[k]);
            p->failed = 2;
            continue;
        }
        if (!v) {
            printf("%s: FAILED: the program has no %s\n", p->program, o->require[k]);
            p->failed = p->failed ? p->failed : 1;
        }
    }
}

static void close_run(prun_t *p)
{
    char err[512];
    judge_free(&p->oj);
    judge_free(&p->wj);
    judge_free(&p->vj);
    etm_cm3_free(p->cm3);
    etm_destroy(p->etm);
    etm_tpiu_destroy(p->tp);
    etm_verify_destroy(p->ver);
    int st_q = qrec_source_close(&p->src, err, sizeof err);
    if (st_q < 0) {
        fprintf(stderr, "etm-e2e: %s: %s\n", p->program, err);
        p->failed = 2;
    } else if (st_q != 0) {
        printf("%s: FAILED: the program's own checks failed (QEMU exit status %d)\n", p->program, st_q);
        p->failed = p->failed ? p->failed : 1;
    }
}

static int run_program(const opts_t *o, const char *program, result_t *res)
{
    static prun_t p; /* large (the record queue); one program at a time */
    memset(&p, 0, sizeof p);
    memset(res, 0, sizeof *res);
    p.o = o;
    etm_hold_path_init(&p.hp, o->hold);
    etm_config_version(&o->cfg, &p.version, NULL);
    p.program = program;
    p.res = res;
    if (open_run(&p) != 0)
        return 2;
    run_cycles(&p);
    rq_commit(&p.rq);
    if (!p.failed && p.rq.len)
        rfail(&p.rq, "%zu of QEMU's instructions were never signalled (first at 0x%08" PRIx32 ")", p.rq.len,
              p.rq.r[p.rq.head].addr);
    close_decoders(&p);
    const etm_stats_t *st = etm_get_stats(p.etm);
    res->insns = qrec_get_stats(p.src.q)->insns;
    res->cycles = etm_cm3_get_stats(p.cm3)->cycles;
    res->window_cycles = p.traced_cycles;
    res->bytes = st->bytes;
    res->overflows = st->overflows;
    res->bpi = st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0;
    if (!o->quiet)
        print_run(&p);
    judge_run(&p);
    close_run(&p);
    res->ok = p.failed == 0;
    if (!o->quiet)
        printf("%s: %s\n", program, p.failed ? "FAILED" : "passed");
    return p.failed;
}

/* ---- Command line ---------------------------------------------------------------------------- */

static void help(FILE *f)
{
    fprintf(f,
            "usage: etm-e2e [options] PROGRAM...\n\n"
            "Runs each Cortex-M3 PROGRAM (a built-in name: sort crc fir fsm fnptr itblock divide\n"
            "exceptions mix, or an ELF path) under QEMU, records it, times it with the Cortex-M3\n"
            "model, traces it with the ETM model and decodes the trace with OpenCSD and the\n"
            "project's ETMv3 decoder (or, for an ETMv1 configuration, the project's ETMv1\n"
            "decoder); every decoded instruction must be the one QEMU executed.\n\n"
            "  --preset NAME      ETM configuration (default etm-m3: ETMv3.4)\n"
            "  --set REG=0xV      a register or parameter, repeatable\n"
            "  --param NAME=N     a timing parameter (etm-qemu params), repeatable\n"
            "  --decoders LIST    ocsd,own,v1 (default: all that apply)\n"
            "  --no-cycles        do not compare cycle counts\n"
            "  --hold[=N]         the closed loop: while the ETM's FIFOFULL is high (ETMCR[7], ETMFFLR)\n"
            "                     the timing model's core waits, cycle by cycle; N: FIFOFULL reaches\n"
            "                     the core N cycles later (1 to 16, default 1)\n"
            "  --tpiu PINS[:DIV]  the trace leaves through a TPIU: PINS pins at the core clock / DIV,\n"
            "                     CoreSight-formatted, with back-pressure on the ETM (ETMv3)\n"
            "  --reprogram N      program the ETM from reset through its debug APB, then every N\n"
            "                     cycles again: trace half the code (or nothing without address\n"
            "                     comparators), then everything (ETMv3; no cycles)\n"
            "  --require WHAT     fail unless the run has WHAT: entry svc tail nest return cancel\n"
            "                     fold itfail tb div blx mull ldm overflow (repeatable)\n"
            "  --window S:N       trace only N cycles, from the first plain instruction at or\n"
            "                     after cycle S (golden vectors)\n"
            "  --stimulus FILE    write the traced cycles' interface signals (vector file; with --tpiu,\n"
            "                     its ATREADY too)\n"
            "  --trace FILE       write the ETMv3 bytes\n"
            "  --config-out FILE  write the ETM's register image (NAME=0xVALUE lines)\n"
            "  --table            one Markdown table row per program (with CA on and off; on a part\n"
            "                     without cycle-accurate mode, the \"on\" column adds it: a what-if)\n"
            "  --icount N, --qemu PATH, --plugin PATH, --raw FILE, --log FILE, --max-insns N\n"
            "                     as etm-qemu\n"
            "  --quiet            only the verdict\n\n"
            "Exit status: 0 all agree; 1 a difference or a failed program; 2 usage or setup error.\n");
}

static int file_option(opts_t *o, const char *a, const char *v);

/* An option with a value; returns 0, or the exit status. */
static int valued_option(opts_t *o, const char *a, const char *v)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    if (!strcmp(a, "--preset")) {
        if (etm_config_preset(&o->cfg, v) != ETM_OK) {
            fprintf(stderr, "etm-e2e: unknown preset '%s'\n", v);
            return 2;
        }
    } else if (!strcmp(a, "--set")) {
        if (etm_config_parse_line(&o->cfg, v, NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --set %s: %s\n", v, d.msg);
            return 2;
        }
    } else if (!strcmp(a, "--param")) {
        char name[64];
        const char *eq = strchr(v, '=');
        if (!eq || (size_t)(eq - v) >= sizeof name) {
            fprintf(stderr, "etm-e2e: --param wants NAME=N\n");
            return 2;
        }
        memcpy(name, v, (size_t)(eq - v));
        name[eq - v] = 0;
        unsigned n = 0;
        if (etm_number_parse_u32(eq + 1, 0, UINT32_MAX, &n, &d) != ETM_OK ||
            etm_cm3_param_set(&o->params, name, n, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --param %s: %s\n", v, d.msg);
            return 2;
        }
    } else if (!strcmp(a, "--decoders")) {
        o->use_ocsd = strstr(v, "ocsd") != NULL;
        o->use_own = strstr(v, "own") != NULL;
        o->use_v1 = strstr(v, "v1") != NULL;
    } else if (!strcmp(a, "--require")) {
        if (o->nrequire == 16 || strlen(v) >= 16) {
            fprintf(stderr, "etm-e2e: --require: too many or too long\n");
            return 2;
        }
        strcpy(o->require[o->nrequire++], v);
    } else if (!strcmp(a, "--reprogram")) {
        if (etm_number_parse(v, 1, UINT64_MAX, &o->reprogram, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --reprogram (cycles) %s\n", d.msg);
            return 2;
        }
        o->no_cycles = 1;
    } else if (!strcmp(a, "--tpiu")) {
        if (etm_tpiu_params_parse(&o->tpiu_p, v, 0, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --tpiu %s\n", d.msg);
            return 2;
        }
        o->tpiu = 1;
    } else if (!strcmp(a, "--window")) {
        unsigned long long s, n;
        if (sscanf(v, "%llu:%llu", &s, &n) != 2 || n == 0) {
            fprintf(stderr, "etm-e2e: --window wants START:CYCLES\n");
            return 2;
        }
        o->win_start = s;
        o->win_cycles = n;
    } else {
        return file_option(o, a, v);
    }
    return 0;
}

/* An option naming a file or a QEMU setting; returns 0, or 2 (unknown). */
static int file_option(opts_t *o, const char *a, const char *v)
{
    if (!strcmp(a, "--stimulus"))
        o->stimulus = v;
    else if (!strcmp(a, "--trace"))
        o->trace = v;
    else if (!strcmp(a, "--config-out"))
        o->config_out = v;
    else if (!strcmp(a, "--events"))
        o->events = v;
    else if (!strcmp(a, "--icount")) {
        etm_diag_t d;
        if (etm_number_parse_u32(v, 0, 10, &o->so.qemu.icount_shift, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --icount (QEMU's shift) %s\n", d.msg);
            return 2;
        }
    }
    else if (!strcmp(a, "--qemu"))
        o->so.qemu.qemu = v;
    else if (!strcmp(a, "--plugin"))
        o->so.qemu.plugin = v;
    else if (!strcmp(a, "--raw"))
        o->so.raw = v;
    else if (!strcmp(a, "--log"))
        o->so.qemu.log_path = v;
    else if (!strcmp(a, "--max-insns")) {
        etm_diag_t d;
        if (etm_number_parse(v, 0, UINT64_MAX, &o->so.max_insns, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: --max-insns %s\n", d.msg);
            return 2;
        }
    }
    else {
        fprintf(stderr, "etm-e2e: unknown option '%s' (try --help)\n", a);
        return 2;
    }
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(opts_t *o, const char **progs, int *nprogs, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(a, "--no-cycles")) {
            o->no_cycles = 1;
        } else if (!strcmp(a, "--hold") || !strncmp(a, "--hold=", 7)) {
            etm_diag_t d;
            if (etm_hold_option(a, &o->hold, &d)) {
                fprintf(stderr, "etm-e2e: %s\n", d.msg);
                return 2;
            }
        } else if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--table")) {
            o->table = 1;
        } else if (!v || a[0] != '-') {
            if (a[0] == '-' || *nprogs == 64) {
                fprintf(stderr, "etm-e2e: unknown option or missing value '%s' (try --help)\n", a);
                return 2;
            }
            progs[(*nprogs)++] = a;
        } else {
            i++;
            int rc = valued_option(o, a, v);
            if (rc)
                return rc;
        }
    }
    if (!*nprogs) {
        help(stderr);
        return 2;
    }
    return -1;
}

/* --table: one row per program, with cycle accuracy on and off; returns the worst status. */
static int table_row(const opts_t *o, const char *program)
{
    /* Both cycle-accurate settings of the same configuration; a part without
     * the mode (the ETM-M3) gets it added for the "on" column, as the
     * cm3-ca-whatif preset does. */
    opts_t on = *o, off = *o;
    on.cfg.etmcr_impl |= ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
    on.cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
    off.cfg.etmcr &= ~ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
    on.quiet = off.quiet = 1;
    result_t ron, roff;
    int r1 = run_program(&on, program, &ron);
    int r2 = run_program(&off, program, &roff);
    int rc = r1 > r2 ? r1 : r2;
    /* Exceptions: from a recorder pass (cheap). */
    qrec_source_t src;
    char err[512];
    uint64_t exc = 0;
    if (qrec_source_open(&src, &o->so, program, err, sizeof err) == 0) {
        etm_cm3_insn_t r;
        while (qrec_next(src.q, &r) > 0) {
        }
        exc = qrec_get_stats(src.q)->entries + qrec_get_stats(src.q)->tail_chains;
        qrec_source_close(&src, NULL, 0);
    }
    printf("| %s | %" PRIu64 " | %" PRIu64 " | %.3f | %" PRIu64 " | %" PRIu64 " | %.3f | %" PRIu64 " | %.3f | %"
           PRIu64 " | %s |\n",
           program, ron.insns, ron.cycles, ron.insns ? (double)ron.cycles / (double)ron.insns : 0.0, exc,
           ron.bytes, ron.bpi, roff.bytes, roff.bpi, ron.overflows + roff.overflows,
           rc ? "**DIFFERENCES**" : "agree with QEMU");
    fflush(stdout);
    return rc;
}

int main(int argc, char **argv)
{
    static opts_t o;
    memset(&o, 0, sizeof o);
    etm_config_preset(&o.cfg, "etm-m3");
    etm_cm3_params_default(&o.params);
    o.so.workload_dir = ETM_WORKLOAD_DIR;
    o.so.qemu.qemu = ETM_QEMU_BIN;
    o.so.qemu.plugin = ETM_QEMU_PLUGIN;
    o.so.qemu.icount_shift = 3;
    o.use_ocsd = o.use_own = o.use_v1 = 1;
    const char *progs[64];
    int nprogs = 0;
    int rc = parse_args(&o, progs, &nprogs, argc, argv);
    if (rc >= 0)
        return rc;
    if (o.config_out) {
        FILE *f = fopen(o.config_out, "w");
        if (!f || etm_config_write(&o.cfg, f, "") != ETM_OK || fclose(f) != 0) {
            fprintf(stderr, "etm-e2e: cannot write %s\n", o.config_out);
            return 2;
        }
    }
    if (nprogs > 1 && (o.stimulus || o.trace || o.events || o.so.raw)) {
        fprintf(stderr, "etm-e2e: --stimulus, --trace, --events and --raw take one program\n");
        return 2;
    }
    int worst = 0;
    if (o.table) {
        printf("| program | instructions | cycles | CPI | exceptions | CA on: bytes | bits/insn | CA off: bytes | "
               "bits/insn | overflows | decoders |\n");
        printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    }
    for (int p = 0; p < nprogs; p++) {
        int r = o.table ? table_row(&o, progs[p]) : run_program(&o, progs[p], &(result_t){ 0 });
        worst = r > worst ? r : worst;
    }
    return worst;
}
