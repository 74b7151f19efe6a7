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
 *
 *   etm-e2e [options] PROGRAM...      (etm-e2e --help)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv3/trc_pkt_types_etmv3.h>

#include "etm/cm3.h"
#include "etm/decode_v1.h"
#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "qrec.h"

/* ---- Expected items and judges (after tb/oracle/roundtrip.c) ------------------------ */

enum { X_INSN, X_EXC, X_ERET, X_RESYNC };

typedef struct xitem {
    uint8_t kind, exec, size;
    uint32_t addr;
    uint32_t num;   /* traced exception number */
    uint64_t cycle; /* 1-based: cycle index + 1 */
} xitem_t;

#define QCAP (1u << 18)

typedef struct judge {
    const char *name;
    int on, v1;
    xitem_t *q;
    size_t head, len;
    int ca, no_cycles;
    uint64_t cc_sum;
    uint32_t last_phdr_cc;
    uint64_t compared, exceptions, erets, lost, overflows, errors;
    const qrec_image_t *img;
    char first_error[512];
} judge_t;

static const char *kind_name(int k)
{
    static const char *const n[] = { "instruction", "exception", "exception return", "resync" };
    return n[k];
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(judge_t *j, const char *fmt, ...)
{
    if (j->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->first_error, sizeof j->first_error, fmt, ap);
        va_end(ap);
    }
}

static xitem_t *at(judge_t *j, size_t i) { return &j->q[(j->head + i) % QCAP]; }
static xitem_t *front(judge_t *j) { return j->len ? at(j, 0) : NULL; }
static void pop_front(judge_t *j)
{
    j->head = (j->head + 1) % QCAP;
    j->len--;
}

static void push(judge_t *j, const xitem_t *x)
{
    if (!j->on)
        return;
    if (j->v1 && (x->kind == X_EXC || x->kind == X_ERET))
        return; /* ETMv1 has no exception packets */
    if (j->len == QCAP) {
        fail(j, "expected-item queue full: %s lags more than %u items", j->name, QCAP);
        return;
    }
    *at(j, j->len) = *x;
    j->len++;
}

static int last_is_resync(judge_t *j) { return j->len && at(j, j->len - 1)->kind == X_RESYNC; }

/* The newest expected instruction (not past a restart marker). */
static xitem_t *last_insn(judge_t *j)
{
    for (size_t i = j->len; i-- > 0;) {
        if (at(j, i)->kind == X_INSN)
            return at(j, i);
        if (at(j, i)->kind == X_RESYNC)
            return NULL;
    }
    return NULL;
}

static void pop_last_insn(judge_t *j)
{
    for (size_t i = j->len; i-- > 0;) {
        if (at(j, i)->kind == X_INSN) {
            for (size_t k = i; k + 1 < j->len; k++)
                *at(j, k) = *at(j, k + 1);
            j->len--;
            return;
        }
    }
    fail(j, "a cancel with no instruction before it");
}

static void got_insn(judge_t *j, uint32_t addr, int exec, uint64_t cycle, int check_cycle)
{
    xitem_t *x = front(j);
    if (!x) {
        fail(j, "%s reports an instruction at 0x%08" PRIx32 " that was not executed (nothing expected)", j->name, addr);
        return;
    }
    if (x->kind != X_INSN) {
        fail(j, "expected %s (number %u), %s reports an instruction at 0x%08" PRIx32, kind_name(x->kind), x->num,
             j->name, addr);
        pop_front(j);
        return;
    }
    if (x->addr != addr || x->exec != exec)
        fail(j, "instruction %" PRIu64 ": QEMU executed 0x%08" PRIx32 " %c, %s decoded 0x%08" PRIx32 " %c", j->compared,
             x->addr, x->exec ? 'E' : 'N', j->name, addr, exec ? 'E' : 'N');
    else if (check_cycle && j->ca && !j->no_cycles && x->cycle != cycle)
        fail(j, "instruction %" PRIu64 " at 0x%08" PRIx32 ": signalled in cycle %" PRIu64 ", %s says %" PRIu64,
             j->compared, addr, x->cycle, j->name, cycle);
    j->compared++;
    pop_front(j);
}

static void got_other(judge_t *j, int kind, uint32_t num)
{
    xitem_t *x = front(j);
    if (!x || x->kind != kind || (kind == X_EXC && x->num != num)) {
        if (x && x->kind == X_INSN)
            fail(j, "expected the instruction at 0x%08" PRIx32 ", %s reports %s %u", x->addr, j->name,
                 kind_name(kind), num);
        else
            fail(j, "expected %s %u, %s reports %s %u", x ? kind_name(x->kind) : "nothing", x ? x->num : 0, j->name,
                 kind_name(kind), num);
        if (x)
            pop_front(j);
        return;
    }
    pop_front(j);
}

static void got_overflow(judge_t *j)
{
    j->overflows++;
    while (j->len && front(j)->kind != X_RESYNC) {
        j->lost++;
        pop_front(j);
    }
    if (j->len)
        pop_front(j);
    else
        fail(j, "%s reports an overflow restart the model did not make", j->name);
}

static unsigned insn_size(const qrec_image_t *img, uint32_t addr)
{
    uint8_t b[2];
    if (qrec_image_read(img, addr, b, 2) != 2)
        return 2;
    return etm_cm3_insn_size((uint32_t)(b[0] | b[1] << 8));
}

/* ---- OpenCSD ------------------------------------------------------------------------------ */

static ocsd_datapath_resp_t ocsd_elem(const void *ctx, const ocsd_trc_index_t idx, const uint8_t id,
                                      const ocsd_generic_trace_elem *e)
{
    judge_t *j = (judge_t *)(uintptr_t)ctx;
    (void)id;
    switch (e->elem_type) {
    case OCSD_GEN_TRC_ELEM_INSTR_RANGE: {
        uint32_t a = (uint32_t)e->st_addr;
        if (e->has_cc)
            j->cc_sum += e->cycle_count;
        for (uint32_t i = 0; i < e->num_instr_range; i++) {
            got_insn(j, a, i + 1 == e->num_instr_range ? (int)e->last_instr_exec : 1, j->cc_sum, 1);
            a += insn_size(j->img, a);
        }
        break;
    }
    case OCSD_GEN_TRC_ELEM_CYCLE_COUNT:
        j->cc_sum += e->cycle_count;
        break;
    case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
        if (e->has_cc)
            j->cc_sum += e->cycle_count;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION:
        got_other(j, X_EXC, e->exception_number);
        j->exceptions++;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
        got_other(j, X_ERET, 0);
        j->erets++;
        break;
    case OCSD_GEN_TRC_ELEM_TRACE_ON:
        if (e->trace_on_reason == TRACE_ON_OVERFLOW)
            got_overflow(j);
        break;
    case OCSD_GEN_TRC_ELEM_NO_SYNC:
    case OCSD_GEN_TRC_ELEM_EO_TRACE:
    case OCSD_GEN_TRC_ELEM_TIMESTAMP:
    case OCSD_GEN_TRC_ELEM_EVENT:
        break;
    default:
        fail(j, "OpenCSD element %d at byte %" PRIu64 " (address 0x%" PRIx64 "): the trace lost its way",
             (int)e->elem_type, (uint64_t)idx, (uint64_t)e->st_addr);
        break;
    }
    return OCSD_RESP_CONT;
}

/* OpenCSD drops the cycle count of a P-header whose atom a Cancel withdraws: add it back. */
static void ocsd_packet(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx, const void *pkt,
                        const uint32_t size, const uint8_t *data)
{
    judge_t *j = (judge_t *)(uintptr_t)ctx;
    const ocsd_etmv3_pkt *p = (const ocsd_etmv3_pkt *)pkt;
    (void)idx;
    (void)size;
    (void)data;
    if (op != OCSD_OP_DATA || !p)
        return;
    if (p->type == ETM3_PKT_BRANCH_ADDRESS && p->exception.bits.present && p->exception.bits.cancel)
        j->cc_sum += j->last_phdr_cc;
    j->last_phdr_cc = p->type == ETM3_PKT_P_HDR ? p->cycle_count : 0;
}

/* ---- The project's decoders ------------------------------------------------------------------ */

static void own_elem(void *user, const etm_v3el_t *e)
{
    judge_t *j = (judge_t *)user;
    switch (e->kind) {
    case ETM_V3EL_INSN: got_insn(j, e->addr, e->executed, e->cycle, 1); break;
    case ETM_V3EL_EXCEPTION:
        got_other(j, X_EXC, e->exc_number);
        j->exceptions++;
        break;
    case ETM_V3EL_EXC_RETURN:
        got_other(j, X_ERET, 0);
        j->erets++;
        break;
    case ETM_V3EL_OVERFLOW: got_overflow(j); break;
    case ETM_V3EL_SYNC:
        if (e->addr_mismatch)
            fail(j, "own decoder: periodic I-sync at 0x%08" PRIx32 ", the code said 0x%08" PRIx32, e->addr,
                 e->expected_addr);
        break;
    case ETM_V3EL_CYCLE_COUNT: case ETM_V3EL_TIMESTAMP: case ETM_V3EL_CONTEXT: case ETM_V3EL_BRANCH:
    case ETM_V3EL_TRIGGER:
        break;
    default:
        fail(j, "own decoder: element %s at byte %" PRIu64 " (address 0x%08" PRIx32 ")", etm_v3el_kind_name(e->kind),
             e->offset, e->addr);
        break;
    }
}

static int image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    return qrec_image_read((const qrec_image_t *)user, addr, buf, n);
}

static void v1_elem(void *user, const etm_v1el_t *e)
{
    judge_t *j = (judge_t *)user;
    switch (e->kind) {
    case ETM_V1EL_INSN: got_insn(j, e->addr, e->executed, 0, 0); break;
    case ETM_V1EL_TRACE_ON:
        if (e->reason == ETM_V1_REASON_OVERFLOW)
            got_overflow(j);
        break;
    case ETM_V1EL_SYNC: case ETM_V1EL_TRIGGER: case ETM_V1EL_DATA: break;
    default:
        fail(j, "ETMv1 decoder: unexpected %s element in cycle %" PRIu64 " at 0x%08" PRIx32,
             etm_v1el_kind_name(e->kind), e->cycle, e->addr);
        break;
    }
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

static int run_program(const opts_t *o, const char *program, result_t *res)
{
    memset(res, 0, sizeof *res);
    etm_diag_t d;
    etm_diag_clear(&d);
    char err[512];
    unsigned ver = 0;
    etm_config_version(&o->cfg, &ver, NULL);
    int v1 = ETM_V_MAJOR(ver) == 1;
    int ca = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, o->cfg.etmcr) != 0;

    qrec_source_t src;
    if (qrec_source_open(&src, &o->so, program, err, sizeof err) != 0) {
        fprintf(stderr, "etm-e2e: %s\n", err);
        return 2;
    }
    etm_cm3_t *cm3 = NULL;
    etm_ctx_t *etm = NULL;
    if (etm_cm3_create(&cm3, &o->params, &d) != ETM_OK || etm_create(&etm, &o->cfg, &d) != ETM_OK) {
        fprintf(stderr, "etm-e2e: %s\n", d.msg);
        qrec_source_close(&src, NULL, 0);
        return 2;
    }
    judge_t judges[3];
    memset(judges, 0, sizeof judges);
    judges[0].name = "OpenCSD";
    judges[1].name = "own ETMv3 decoder";
    judges[2].name = "own ETMv1 decoder";
    judges[0].on = !v1 && o->use_ocsd;
    judges[1].on = !v1 && o->use_own;
    judges[2].on = v1 && o->use_v1;
    judges[2].v1 = 1;
    int failed = 0;
    for (int k = 0; k < 3; k++) {
        judges[k].ca = ca;
        judges[k].no_cycles = o->no_cycles;
        judges[k].img = &src.img;
        if (judges[k].on && !(judges[k].q = (xitem_t *)calloc(QCAP, sizeof(xitem_t)))) {
            fprintf(stderr, "etm-e2e: out of memory\n");
            return 2;
        }
    }
    judge_t *oj = &judges[0], *wj = &judges[1], *vj = &judges[2];

    dcd_tree_handle_t dt = 0;
    if (oj->on) {
        ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0);
        dt = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
        ocsd_etmv3_cfg oc;
        memset(&oc, 0, sizeof oc);
        oc.reg_idr = o->cfg.etmidr;
        oc.reg_ctrl = o->cfg.etmcr;
        oc.reg_ccer = o->cfg.etmccer;
        oc.reg_trc_id = o->cfg.etmtraceidr;
        oc.arch_ver = ARCH_V7;
        oc.core_prof = profile_CortexM;
        unsigned char csid;
        if (!dt || ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_FULL_DECODER, &oc, &csid) !=
                       OCSD_OK) {
            fprintf(stderr, "etm-e2e: cannot create the OpenCSD decoder\n");
            return 2;
        }
        ocsd_dt_set_gen_elem_outfn(dt, ocsd_elem, oj);
        if (oj->ca) {
            union { FnDefPktDataMon fn; void *p; } cb; /* the C API takes the callback as void * */
            cb.fn = ocsd_packet;
            ocsd_dt_attach_packet_callback(dt, csid, OCSD_C_API_CB_PKT_MON, cb.p, oj);
        }
        for (unsigned s = 0; s < src.img.nseg; s++)
            if (src.img.seg[s].exec)
                ocsd_dt_add_buffer_mem_acc(dt, src.img.seg[s].addr, OCSD_MEM_SPACE_ANY, src.img.seg[s].bytes,
                                           src.img.seg[s].size);
    }
    etm_v3dec_t *own = NULL;
    if (wj->on) {
        if (etm_v3dec_create(&own, &o->cfg, ETM_V3DEC_V7M, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: own decoder: %s\n", d.msg);
            return 2;
        }
        etm_v3dec_on_element(own, own_elem, wj);
        etm_v3dec_set_image(own, image_read, &src.img);
    }
    etm_v1dec_t *v1d = NULL;
    if (vj->on) {
        if (etm_v1dec_create(&v1d, &o->cfg, 0, ETM_V1DEC_STRICT, &d) != ETM_OK) {
            fprintf(stderr, "etm-e2e: ETMv1 decoder: %s\n", d.msg);
            return 2;
        }
        etm_v1dec_on_element(v1d, v1_elem, vj);
        etm_v1dec_set_image(v1d, image_read, &src.img);
    }

    FILE *sf = o->stimulus ? fopen(o->stimulus, "w") : NULL;
    FILE *tf = o->trace ? fopen(o->trace, "wb") : NULL;
    FILE *ef = o->events ? fopen(o->events, "w") : NULL;
    etm_vec_writer_t *sw = NULL;
    if ((o->stimulus && !sf) || (o->trace && !tf) || (o->events && !ef)) {
        fprintf(stderr, "etm-e2e: cannot create an output file\n");
        return 2;
    }
    if (sf) {
        char comment[1600];
        snprintf(comment, sizeof comment,
                 "%s under qemu-system-arm -icount shift=%u, Cortex-M3 timing model (etm/cm3.h)%s",
                 program, o->so.qemu.icount_shift, o->win_cycles ? ", a window of the program" : "");
        if (etm_vec_writer_open(&sw, sf, ETM_VEC_STIMULUS, &o->cfg, (1u << 15) - 1, comment) != ETM_OK) {
            fprintf(stderr, "etm-e2e: cannot write %s\n", o->stimulus);
            return 2;
        }
    }

    static recq_t rq;
    memset(&rq, 0, sizeof rq);
    uint8_t buf[4096];
    size_t nbuf = 0;
    uint64_t fed = 0, cycle = 0, traced_cycles = 0;
    int fatal = 0, prev_ovf = 0, in_window = o->win_cycles == 0, window_done = 0, ended = 0, recs_done = 0;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_in_t in;
    etm_out_t out;
    unsigned nev;
    for (;;) {
        /* Feed the timing model until it has a cycle. */
        etm_err_t ce = etm_cm3_cycle(cm3, &in, ev, &nev);
        while (ce == ETM_END && !recs_done) {
            etm_cm3_insn_t r;
            int k = qrec_next(src.q, &r);
            if (k < 0) {
                fprintf(stderr, "etm-e2e: %s: %s\n", program, qrec_error(src.q));
                failed = 2;
                break;
            }
            if (k == 0) {
                etm_cm3_finish(cm3);
                recs_done = 1;
            } else {
                if (rq.len == RCAP) {
                    fprintf(stderr, "etm-e2e: the timing model lags QEMU by more than %u instructions\n", RCAP);
                    failed = 2;
                    break;
                }
                rq.r[(rq.head + rq.len) % RCAP] = r;
                rq.len++;
                if (etm_cm3_put(cm3, &r, &d) != ETM_OK) {
                    fprintf(stderr, "etm-e2e: %s: timing model: %s\n", program, d.msg);
                    failed = 2;
                    break;
                }
            }
            ce = etm_cm3_cycle(cm3, &in, ev, &nev);
        }
        if (failed)
            break;
        int more = ce == ETM_OK;
        for (unsigned k = 0; more && k < nev; k++)
            rq_event(&rq, &ev[k]);
        if (more && ef) {
            for (unsigned k = 0; k < nev; k++)
                fprintf(ef, "%" PRIu64 " %d %08" PRIx32 " %u %u\n", ev[k].cycle, ev[k].kind, ev[k].addr, ev[k].passed,
                        ev[k].excnum);
        }
        /* The window starts at an instruction that is neither an exception's first
         * nor one an exception cancels (so the trace starts as it would in hardware). */
        if (more && !in_window && !window_done && cycle >= o->win_start && in.ivalid && !in.intstat &&
            !in.ibranch) {
            int cancelled_next = 0;
            for (unsigned k = 0; k < nev; k++)
                cancelled_next |= ev[k].kind == ETM_GEN_EV_CANCEL;
            if (!cancelled_next) {
                in_window = 1;
                res->window_cycles = 0;
            }
        }
        if (more && in_window && o->win_cycles && traced_cycles == o->win_cycles) {
            in_window = 0;
            window_done = 1;
        }
        etm_err_t de = ETM_OK;
        int step = more && in_window;
        if (step) {
            if (etm_step(etm, &in, &out) == ETM_ERR_RULE) {
                etm_rule_t rules[4];
                unsigned n = etm_last_rules(etm, rules, 4);
                fprintf(stderr, "etm-e2e: %s: cycle %" PRIu64 ": the timing model broke interface rule %s\n", program,
                        cycle, n ? etm_rule_name(rules[0]) : "?");
                failed = 1;
            }
            if (sw)
                etm_vec_write_in(sw, &in);
            traced_cycles++;
            if (prev_ovf && !out.overflow) {
                xitem_t r = { X_RESYNC, 0, 0, 0, 0, 0 };
                for (int k = 0; k < 3; k++)
                    push(&judges[k], &r);
            }
            prev_ovf = out.overflow;
            for (unsigned k = 0; k < nev; k++) {
                xitem_t x;
                memset(&x, 0, sizeof x);
                switch (ev[k].kind) {
                case ETM_GEN_EV_INSN:
                    x.kind = X_INSN;
                    x.addr = ev[k].addr;
                    x.exec = ev[k].passed;
                    x.size = ev[k].size;
                    x.cycle = traced_cycles; /* 1-based cycle of the traced stream */
                    for (int j = 0; j < 3; j++)
                        push(&judges[j], &x);
                    res->window_insns++;
                    break;
                case ETM_GEN_EV_CANCEL:
                    /* ETMv3: the cancelled instruction is withdrawn; ETMv1: it stays,
                     * shown as executed (docs/etmv1-encoder.md). */
                    if (oj->on)
                        pop_last_insn(oj);
                    if (wj->on)
                        pop_last_insn(wj);
                    break;
                case ETM_GEN_EV_EXC_ENTRY:
                    x.kind = X_EXC;
                    x.num = etm_m3_traced_exception(ev[k].excnum);
                    if (vj->on) {
                        xitem_t *p = last_insn(vj); /* ETMv1: shown as a branch to the handler */
                        if (p)
                            p->exec = 1;
                    }
                    for (int j = 0; j < 3; j++)
                        push(&judges[j], &x);
                    break;
                case ETM_GEN_EV_EXC_RETURN:
                    x.kind = X_ERET;
                    /* First thing traced after an overflow restart: the I-sync says where. */
                    if (!(oj->on ? last_is_resync(oj) : wj->on ? last_is_resync(wj) : 0))
                        for (int j = 0; j < 3; j++)
                            push(&judges[j], &x);
                    break;
                }
            }
        } else if (!more) {
            if (!ended) {
                etm_end(etm);
                ended = 1;
            }
            de = etm_drain(etm, &out);
            prev_ovf |= out.overflow;
        }
        if (step || !more) {
            for (unsigned b = 0; b < out.v3_count; b++)
                buf[nbuf++] = out.v3_bytes[b];
            if (v1d && etm_v1dec_step(v1d, &out, &d) != ETM_OK)
                fail(vj, "ETMv1 decoder, cycle %" PRIu64 ": %s", d.cycle, d.msg);
        }
        if (nbuf > sizeof buf - 16 || (!more && de == ETM_END)) {
            if (tf)
                fwrite(buf, 1, nbuf, tf);
            if (oj->on && !fatal && nbuf) {
                uint32_t used = 0;
                ocsd_datapath_resp_t r = ocsd_dt_process_data(dt, OCSD_OP_DATA, fed, (uint32_t)nbuf, buf, &used);
                if (OCSD_DATA_RESP_IS_FATAL(r) || used != nbuf) {
                    fail(oj, "OpenCSD: fatal response %d at byte %" PRIu64, (int)r, fed + used);
                    fatal = 1;
                }
            }
            if (wj->on && nbuf) {
                size_t used = 0;
                if (etm_v3dec_feed(own, buf, nbuf, &used, &d) != ETM_OK)
                    fail(wj, "own decoder: byte offset %" PRIu64 ": %s", d.offset, d.msg);
            }
            fed += nbuf;
            nbuf = 0;
        }
        if (more)
            cycle++;
        if (!more && de == ETM_END)
            break;
    }
    rq_commit(&rq);
    if (!failed && rq.len)
        rfail(&rq, "%zu of QEMU's instructions were never signalled (first at 0x%08" PRIx32 ")", rq.len,
              rq.r[rq.head].addr);
    if (oj->on) {
        ocsd_dt_process_data(dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
        ocsd_trc_index_t eidx = 0;
        uint8_t echan = 0;
        char emsg[256] = "";
        ocsd_err_t last = ocsd_get_last_err(&eidx, &echan, emsg, (int)sizeof emsg);
        if (last != OCSD_OK)
            fail(oj, "OpenCSD reported error %d at byte %" PRIu64 ": %s", (int)last, (uint64_t)eidx, emsg);
        ocsd_destroy_dcd_tree(dt);
    }
    if (own) {
        if (etm_v3dec_end(own, &d) != ETM_OK)
            fail(wj, "own decoder at the end: %s", d.msg);
        etm_v3dec_destroy(own);
    }
    if (v1d) {
        if (etm_v1dec_end(v1d, &d) != ETM_OK)
            fail(vj, "ETMv1 decoder at the end: %s", d.msg);
        etm_v1dec_destroy(v1d);
    }
    if (sw && etm_vec_writer_close(sw) != ETM_OK)
        failed = 2;
    if ((sf && fclose(sf) != 0) || (tf && fclose(tf) != 0) || (ef && fclose(ef) != 0))
        failed = 2;

    const etm_stats_t *st = etm_get_stats(etm);
    const etm_cm3_stats_t *ms = etm_cm3_get_stats(cm3);
    const qrec_stats_t *qs = qrec_get_stats(src.q);
    res->insns = qs->insns;
    res->cycles = ms->cycles;
    res->window_cycles = traced_cycles;
    res->bytes = st->bytes;
    res->overflows = st->overflows;
    res->bpi = st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0;
    if (!o->quiet) {
        printf("%s: QEMU %" PRIu64 " instructions (%" PRIu64 " failed their condition, %" PRIu64 " in IT blocks); "
               "%" PRIu64 " exception entries (%" PRIu64 " SVC, %" PRIu64 " nested), %" PRIu64 " tail-chains, %" PRIu64
               " returns\n",
               program, qs->insns, qs->failed, qs->in_it, qs->entries, qs->sync_entries, qs->preemptions,
               qs->tail_chains, qs->returns);
        printf("%s: timing model %" PRIu64 " cycles (%.3f CPI), %" PRIu64 " folded IT, %" PRIu64 " cancelled; "
               "%" PRIu64 " of QEMU's instructions signalled in order: %s\n",
               program, ms->cycles, qs->insns ? (double)ms->cycles / (double)qs->insns : 0.0, ms->folds, ms->cancels,
               rq.matched, rq.errors ? rq.first_error : "same as QEMU");
        printf("%s: ETMCR=0x%08" PRIx32 " ETMIDR=0x%08" PRIx32 ": %" PRIu64 " cycles traced, %" PRIu64
               " trace bytes, %.3f bits/instruction, %" PRIu64 " overflows, %" PRIu64 " untraceable\n",
               program, o->cfg.etmcr, o->cfg.etmidr, traced_cycles, st->bytes, res->bpi, st->overflows, st->untraceable);
    }
    if (rq.errors)
        failed = failed ? failed : 1;
    if (st->untraceable && !v1)
        for (int k = 0; k < 3; k++)
            if (judges[k].on)
                fail(&judges[k], "%" PRIu64 " untraceable events", st->untraceable);
    for (int k = 0; k < 3; k++) {
        judge_t *j = &judges[k];
        if (!j->on)
            continue;
        size_t left = 0;
        for (size_t i = 0; i < j->len; i++)
            left += at(j, i)->kind != X_RESYNC;
        if (prev_ovf) {
            j->lost += left;
            left = 0;
        }
        if (left)
            fail(j, "%zu expected items never came out of %s (first: %s at 0x%08" PRIx32 ")", left, j->name,
                 kind_name(front(j)->kind), front(j)->addr);
        if (j->compared == 0)
            fail(j, "no instruction compared");
        if (!o->quiet) {
            printf("%s: %s: %" PRIu64 " instructions%s", program, j->name, j->compared,
                   j->ca && !j->no_cycles && !j->v1 ? " with their cycles" : "");
            if (!j->v1)
                printf(", %" PRIu64 " exceptions, %" PRIu64 " returns", j->exceptions, j->erets);
            printf(", %" PRIu64 " overflow restarts: ", j->overflows);
            if (j->errors)
                printf("%" PRIu64 " differences; first: %s\n", j->errors, j->first_error);
            else
                printf("zero differences\n");
        }
        if (j->errors)
            failed = failed ? failed : 1;
        free(j->q);
    }
    for (int k = 0; k < o->nrequire; k++) {
        uint64_t v = 0;
        if (!strcmp(o->require[k], "overflow"))
            v = st->overflows;
        else if (count_of(qs, ms, o->require[k], &v) != 0) {
            fprintf(stderr, "etm-e2e: --require %s: unknown\n", o->require[k]);
            failed = 2;
        } else if (!v) {
            printf("%s: FAILED: the program has no %s\n", program, o->require[k]);
            failed = failed ? failed : 1;
        }
    }
    etm_cm3_free(cm3);
    etm_destroy(etm);
    int st_q = qrec_source_close(&src, err, sizeof err);
    if (st_q < 0) {
        fprintf(stderr, "etm-e2e: %s: %s\n", program, err);
        failed = 2;
    } else if (st_q != 0) {
        printf("%s: FAILED: the program's own checks failed (QEMU exit status %d)\n", program, st_q);
        failed = failed ? failed : 1;
    }
    res->ok = failed == 0;
    if (!o->quiet)
        printf("%s: %s\n", program, failed ? "FAILED" : "passed");
    return failed;
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
            "  --require WHAT     fail unless the run has WHAT: entry svc tail nest return cancel\n"
            "                     fold itfail tb div blx mull ldm overflow (repeatable)\n"
            "  --window S:N       trace only N cycles, from the first plain instruction at or\n"
            "                     after cycle S (golden vectors)\n"
            "  --stimulus FILE    write the traced cycles' interface signals (vector file)\n"
            "  --trace FILE       write the ETMv3 bytes\n"
            "  --config-out FILE  write the ETM's register image (NAME=0xVALUE lines)\n"
            "  --table            one Markdown table row per program (with CA on and off)\n"
            "  --icount N, --qemu PATH, --plugin PATH, --raw FILE, --log FILE, --max-insns N\n"
            "                     as etm-qemu\n"
            "  --quiet            only the verdict\n\n"
            "Exit status: 0 all agree; 1 a difference or a failed program; 2 usage or setup error.\n");
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
    etm_diag_t d;
    etm_diag_clear(&d);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(a, "--no-cycles")) {
            o.no_cycles = 1;
        } else if (!strcmp(a, "--quiet")) {
            o.quiet = 1;
        } else if (!strcmp(a, "--table")) {
            o.table = 1;
        } else if (!v || a[0] != '-') {
            if (a[0] == '-' || nprogs == 64) {
                fprintf(stderr, "etm-e2e: unknown option or missing value '%s' (try --help)\n", a);
                return 2;
            }
            progs[nprogs++] = a;
        } else {
            i++;
            if (!strcmp(a, "--preset")) {
                if (etm_config_preset(&o.cfg, v) != ETM_OK) {
                    fprintf(stderr, "etm-e2e: unknown preset '%s'\n", v);
                    return 2;
                }
            } else if (!strcmp(a, "--set")) {
                if (etm_config_parse_line(&o.cfg, v, NULL, NULL, &d) != ETM_OK) {
                    fprintf(stderr, "etm-e2e: --set %s: %s\n", v, d.msg);
                    return 2;
                }
            } else if (!strcmp(a, "--param")) {
                char name[64];
                const char *eq = strchr(v, '=');
                char *end;
                if (!eq || (size_t)(eq - v) >= sizeof name) {
                    fprintf(stderr, "etm-e2e: --param wants NAME=N\n");
                    return 2;
                }
                memcpy(name, v, (size_t)(eq - v));
                name[eq - v] = 0;
                unsigned long n = strtoul(eq + 1, &end, 0);
                if (!eq[1] || *end || etm_cm3_param_set(&o.params, name, (unsigned)n, &d) != ETM_OK) {
                    fprintf(stderr, "etm-e2e: --param %s: %s\n", v, d.msg[0] ? d.msg : "not a number");
                    return 2;
                }
            } else if (!strcmp(a, "--decoders")) {
                o.use_ocsd = strstr(v, "ocsd") != NULL;
                o.use_own = strstr(v, "own") != NULL;
                o.use_v1 = strstr(v, "v1") != NULL;
            } else if (!strcmp(a, "--require")) {
                if (o.nrequire == 16 || strlen(v) >= 16) {
                    fprintf(stderr, "etm-e2e: --require: too many or too long\n");
                    return 2;
                }
                strcpy(o.require[o.nrequire++], v);
            } else if (!strcmp(a, "--window")) {
                unsigned long long s, n;
                if (sscanf(v, "%llu:%llu", &s, &n) != 2 || n == 0) {
                    fprintf(stderr, "etm-e2e: --window wants START:CYCLES\n");
                    return 2;
                }
                o.win_start = s;
                o.win_cycles = n;
            } else if (!strcmp(a, "--stimulus")) {
                o.stimulus = v;
            } else if (!strcmp(a, "--trace")) {
                o.trace = v;
            } else if (!strcmp(a, "--config-out")) {
                o.config_out = v;
            } else if (!strcmp(a, "--events")) {
                o.events = v;
            } else if (!strcmp(a, "--icount")) {
                o.so.qemu.icount_shift = (unsigned)strtoul(v, NULL, 10);
            } else if (!strcmp(a, "--qemu")) {
                o.so.qemu.qemu = v;
            } else if (!strcmp(a, "--plugin")) {
                o.so.qemu.plugin = v;
            } else if (!strcmp(a, "--raw")) {
                o.so.raw = v;
            } else if (!strcmp(a, "--log")) {
                o.so.qemu.log_path = v;
            } else if (!strcmp(a, "--max-insns")) {
                o.so.max_insns = strtoull(v, NULL, 0);
            } else {
                fprintf(stderr, "etm-e2e: unknown option '%s' (try --help)\n", a);
                return 2;
            }
        }
    }
    if (!nprogs) {
        help(stderr);
        return 2;
    }
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
        if (!o.table) {
            int rc = run_program(&o, progs[p], &(result_t){ 0 });
            worst = rc > worst ? rc : worst;
            continue;
        }
        /* Both cycle-accurate settings of the same configuration. */
        opts_t on = o, off = o;
        on.cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
        off.cfg.etmcr &= ~ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
        on.quiet = off.quiet = 1;
        result_t ron, roff;
        int r1 = run_program(&on, progs[p], &ron);
        int r2 = run_program(&off, progs[p], &roff);
        int rc = r1 > r2 ? r1 : r2;
        worst = rc > worst ? rc : worst;
        /* Exceptions: from a recorder pass (cheap). */
        qrec_source_t src;
        char err[512];
        uint64_t exc = 0;
        if (qrec_source_open(&src, &o.so, progs[p], err, sizeof err) == 0) {
            etm_cm3_insn_t r;
            while (qrec_next(src.q, &r) > 0) {
            }
            exc = qrec_get_stats(src.q)->entries + qrec_get_stats(src.q)->tail_chains;
            qrec_source_close(&src, NULL, 0);
        }
        printf("| %s | %" PRIu64 " | %" PRIu64 " | %.3f | %" PRIu64 " | %" PRIu64 " | %.3f | %" PRIu64 " | %.3f | %"
               PRIu64 " | %s |\n",
               progs[p], ron.insns, ron.cycles, ron.insns ? (double)ron.cycles / (double)ron.insns : 0.0, exc,
               ron.bytes, ron.bpi, roff.bytes, roff.bpi, ron.overflows + roff.overflows,
               rc ? "**DIFFERENCES**" : "agree with QEMU");
        fflush(stdout);
    }
    return worst;
}
