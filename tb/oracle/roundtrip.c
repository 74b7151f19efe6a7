/* roundtrip.c - two decoders judge the model's ETMv3 trace: OpenCSD, written by
 * others (Debian's libopencsd, full decode, Cortex-M profile), and the project's
 * own decoder (etm/decode_v3.h), which shares no code with the encoder.
 *
 * The stimulus generator runs a random Thumb-2 program; its log of what executed
 * (instructions with their E/N outcome and cycle, exception entries and returns,
 * cancels) is the expected answer. The model turns the generator's interface
 * signals into ETMv3 bytes, and both decoders read them with the generator's code
 * image. Each decoder's output must agree with the log: every instruction address
 * and outcome, every exception number, every exception return, the trigger, and
 * in cycle-accurate mode every instruction's cycle (1 + the cycle index: see
 * docs/etmv3-encoder.md). Neither may report an error.
 *
 * OpenCSD attaches cycle counts to the elements it outputs, so when a Cancel
 * makes it withdraw the range of the cancelled atom, the W atoms of that range's
 * P-header vanish from its sums. The cycles did pass; the harness adds that
 * header's count back (seen through OpenCSD's own packet monitor).
 *
 *   roundtrip [--decoder ocsd|own|both] [--preset NAME] [--set REG=0xV]...
 *             [--cycles N] [--seed S] [--issue-width 2] [--irq-period N]
 *             [--sleep N] [--max-intnum N] [--triggers] [--bytes FILE]
 *             [--no-cycles] [--expect-untraceable] [--require KIND]...
 *
 * --require KIND fails the run unless the model emitted at least one packet of
 * that kind: f1 f2 f3 f4 branch exception async isync isync-cc cycle-count
 * trigger exc-return ignore normal-data not-traced placeholder ooo-data
 * store-failed.
 *
 * --data (with ETMCR[3:2] set by --set) drives the data slot interface
 * (--data-mix: varied accesses, failed STREX, imprecise aborts; --data-delay N:
 * values 2 to 2+N cycles after their addresses). The generator says what each transfer was (the
 * register value, built from the memory bytes it placed); the project's
 * decoder must report every traced transfer, in order, with its instruction,
 * address and value, as the rules of docs/data-trace.md say: value not traced
 * for later transfers without ViewData, value 0 and store failed for a failed
 * STREX, no value for an imprecise abort, nothing for a transfer whose value
 * had not come when the trace ended. OpenCSD's full decoder does not take data
 * trace: it decodes the instruction flow from the stream with the data packets
 * taken out (where the project's decoder found them), and its packet processor
 * must find the same packets as the project's decoder in the whole stream:
 * offsets, sizes, kinds, tags, and values where its 1.3.3 parser can read them
 * (docs/data-trace.md section 4; address-only tracing it cannot parse at all).
 *
 * --random-filter S programs a random filter (tb/common/randfilter.h, seed S):
 * comparators on the program's own code, regions, start/stop, counters, DWT
 * inputs, the trigger. What must decode is then what the filter let through:
 * the instructions and exceptions of the cycles the model reports with
 * TraceEnable (etm_out_t.trace_enable), whose rules tb/unit/test_filter.c
 * checks one by one. The run fails unless trace turned on and off at least
 * 10 times.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv3/trc_pkt_types_etmv3.h>

#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "randfilter.h"

enum { X_INSN, X_EXC, X_ERET, X_TRIG, X_RESYNC };

typedef struct xitem {
    uint8_t kind;
    uint8_t exec;
    uint32_t addr;
    uint32_t num;    /* traced exception number */
    uint64_t cycle;  /* 1-based: cycle index + 1 */
} xitem_t;

#define QCAP (1u << 20)

/* One judge: a decoder, the items it still has to report, what it said. */
typedef struct judge {
    const char *name;
    int on;
    xitem_t *q;
    size_t head, len;
    int ca, no_cycles;
    uint64_t cc_sum;        /* OpenCSD: its cycle counts summed in element order */
    uint32_t last_phdr_cc;  /* OpenCSD: count of the last packet, if a P-header */
    uint64_t compared, exceptions, erets, triggers, lost, overflows;
    uint64_t errors;
    const etm_gen_t *img;
    char first_error[512];
    struct djudge *dj;      /* own decoder with data trace: the data judge */
} judge_t;

static const char *kind_name(int k)
{
    static const char *const n[] = { "instruction", "exception", "exception return", "trigger", "resync" };
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

static void push(judge_t *j, const xitem_t *x)
{
    if (!j->on)
        return;
    if (j->len == QCAP) {
        fail(j, "expected-item queue full: %s lags more than %u items", j->name, QCAP);
        return;
    }
    j->q[(j->head + j->len) % QCAP] = *x;
    j->len++;
}

static int last_is_resync(const judge_t *j) { return j->len && j->q[(j->head + j->len - 1) % QCAP].kind == X_RESYNC; }

/* Remove the last expected instruction (cancelled). */
static void pop_last_insn(judge_t *j)
{
    if (!j->on)
        return;
    for (size_t i = j->len; i-- > 0;) {
        if (j->q[(j->head + i) % QCAP].kind == X_INSN) {
            for (size_t k = i; k + 1 < j->len; k++)
                j->q[(j->head + k) % QCAP] = j->q[(j->head + k + 1) % QCAP];
            j->len--;
            return;
        }
    }
    fail(j, "a cancel with no instruction before it");
}

static xitem_t *front(judge_t *j) { return j->len ? &j->q[j->head] : NULL; }
static void pop_front(judge_t *j)
{
    j->head = (j->head + 1) % QCAP;
    j->len--;
}

static void got_insn(judge_t *j, uint32_t addr, int exec, uint64_t cycle)
{
    xitem_t *x = front(j);
    if (!x) {
        fail(j, "%s reports an instruction at 0x%08" PRIx32 " that was not executed (nothing expected)", j->name,
             addr);
        return;
    }
    if (x->kind != X_INSN) {
        fail(j, "expected %s (num %u), %s reports an instruction at 0x%08" PRIx32, kind_name(x->kind), x->num,
             j->name, addr);
        pop_front(j);
        return;
    }
    if (x->addr != addr || x->exec != exec)
        fail(j, "instruction %" PRIu64 ": expected 0x%08" PRIx32 " %c, %s 0x%08" PRIx32 " %c", j->compared, x->addr,
             x->exec ? 'E' : 'N', j->name, addr, exec ? 'E' : 'N');
    else if (j->ca && !j->no_cycles && x->cycle != cycle)
        fail(j, "instruction %" PRIu64 " at 0x%08" PRIx32 ": executed in cycle %" PRIu64 ", %s says %" PRIu64,
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

/* Trace lost before an overflow restart: drop expectations up to the marker. */
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

static unsigned insn_size(const etm_gen_t *img, uint32_t addr)
{
    for (unsigned w = 0; w < 2; w++) {
        uint32_t base, size;
        const uint8_t *m = etm_gen_image(img, w, &base, &size);
        if (addr - base < size - 1)
            return (m[addr - base + 1] >> 3) >= 0x1d ? 4 : 2;
    }
    return 2;
}

/* ---- OpenCSD ------------------------------------------------------------------ */

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
            got_insn(j, a, i + 1 == e->num_instr_range ? (int)e->last_instr_exec : 1, j->cc_sum);
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
    case OCSD_GEN_TRC_ELEM_EVENT:
        if (e->trace_event.ev_type == EVENT_TRIGGER) {
            got_other(j, X_TRIG, 0);
            j->triggers++;
        }
        break;
    case OCSD_GEN_TRC_ELEM_TRACE_ON:
        if (e->trace_on_reason == TRACE_ON_OVERFLOW)
            got_overflow(j);
        break;
    case OCSD_GEN_TRC_ELEM_NO_SYNC:
    case OCSD_GEN_TRC_ELEM_EO_TRACE:
    case OCSD_GEN_TRC_ELEM_TIMESTAMP:
        break;
    default:
        fail(j, "OpenCSD element %d at byte %" PRIu64 " (address 0x%" PRIx64 "): the trace lost its way",
             (int)e->elem_type, (uint64_t)idx, (uint64_t)e->st_addr);
        break;
    }
    return OCSD_RESP_CONT;
}

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

/* ---- The project's decoder -------------------------------------------------------- */

struct djudge;
static void dj_overflow(struct djudge *g);
static void dj_element(struct djudge *g, const etm_v3_data_t *e);

static void own_elem(void *user, const etm_v3el_t *e)
{
    judge_t *j = (judge_t *)user;
    switch (e->kind) {
    case ETM_V3EL_INSN:
        got_insn(j, e->addr, e->executed, e->cycle);
        break;
    case ETM_V3EL_EXCEPTION:
        got_other(j, X_EXC, e->exc_number);
        j->exceptions++;
        break;
    case ETM_V3EL_EXC_RETURN:
        got_other(j, X_ERET, 0);
        j->erets++;
        break;
    case ETM_V3EL_TRIGGER:
        got_other(j, X_TRIG, 0);
        j->triggers++;
        break;
    case ETM_V3EL_OVERFLOW:
        got_overflow(j);
        if (j->dj)
            dj_overflow(j->dj);
        break;
    case ETM_V3EL_DATA:
        if (j->dj)
            dj_element(j->dj, &e->data);
        else
            fail(j, "own decoder: a data element without data trace");
        break;
    case ETM_V3EL_SYNC:
        if (e->addr_mismatch)
            fail(j, "own decoder: periodic I-sync at 0x%08" PRIx32 ", the code said 0x%08" PRIx32, e->addr,
                 e->expected_addr);
        break;
    case ETM_V3EL_CYCLE_COUNT:
    case ETM_V3EL_TIMESTAMP:
    case ETM_V3EL_CONTEXT:
    case ETM_V3EL_BRANCH:
        break;
    default:
        fail(j, "own decoder: element %s at byte %" PRIu64 " (address 0x%08" PRIx32 ")", etm_v3el_kind_name(e->kind),
             e->offset, e->addr);
        break;
    }
}

/* ---- Data: what the project's decoder must report (docs/data-trace.md) ---------------------- */

enum { XD_DATA, XD_NOT_TRACED, XD_RESYNC };

typedef struct xdata {
    uint8_t kind;
    uint8_t first, fail, imprecise;
    uint8_t need;          /* values still to come (2 for an unaligned access) */
    uint32_t insn, addr, value;
    uint64_t id;           /* number of the expected transfer */
} xdata_t;

#define DQCAP (1u << 16)
#define DPH 64

typedef struct djudge {
    judge_t *j;            /* where differences are counted */
    int addr_on, value_on; /* ETMCR[3], ETMCR[2] */
    xdata_t *q;            /* expected transfers in trace order, and resync markers */
    size_t head, len;
    uint64_t next_id;
    struct { int used; unsigned tag; uint64_t seq; xdata_t x; } ph[DPH]; /* reported placeholders */
    uint64_t slot_item[4]; /* the expected transfer (id + 1) whose value the slot waits for */
    uint64_t pair_item;    /* an unaligned access's first half (id + 1) */
    int owner_traced, started;
    uint64_t compared, normal, not_traced, placed, ooo, failed, lost, end_dropped;
} djudge_t;

static xdata_t *dq_at(djudge_t *g, size_t i) { return &g->q[(g->head + i) % DQCAP]; }

static void dq_push(djudge_t *g, const xdata_t *x)
{
    if (g->len == DQCAP) {
        fail(g->j, "expected-transfer queue full");
        return;
    }
    *dq_at(g, g->len++) = *x;
}

/* The expected transfer with this id, still queued or reported as a placeholder. */
static xdata_t *dq_find(djudge_t *g, uint64_t id)
{
    for (size_t i = 0; i < g->len; i++)
        if (dq_at(g, i)->kind != XD_RESYNC && dq_at(g, i)->id == id)
            return dq_at(g, i);
    for (unsigned k = 0; k < DPH; k++)
        if (g->ph[k].used && g->ph[k].x.id == id)
            return &g->ph[k].x;
    return NULL;
}

/* A value on the data slot: the transfer it belongs to has (one more of) its value. */
static void dj_value(djudge_t *g, const etm_in_t *in)
{
    unsigned s = ETM_DDCTL_SLOT(in->ddctl);
    if (!s || !g->slot_item[s])
        return;
    xdata_t *x = dq_find(g, g->slot_item[s] - 1);
    if (x && x->need)
        x->need--;
    g->slot_item[s] = 0;
}

/* The cycle's transfer, as the generator presented it: expected if its
 * instruction was traced and its data started (ViewData on this or an
 * earlier transfer of the instruction). */
static void dj_transfer(djudge_t *g, const etm_in_t *in, const etm_gen_xfer_t *x, int insn_traced, int view)
{
    unsigned s = ETM_DACTL_SLOT(in->dactl);
    if (!s || !x->valid)
        return;
    g->slot_item[s] = 0;
    if (x->half == 2) {
        g->slot_item[s] = g->pair_item;
        g->pair_item = 0;
        return;
    }
    if (x->first) {
        g->owner_traced = insn_traced;
        g->started = 0;
    }
    if (!g->owner_traced || (!g->started && !view))
        return;
    xdata_t e;
    memset(&e, 0, sizeof e);
    e.kind = view ? XD_DATA : XD_NOT_TRACED;
    e.first = (uint8_t)!g->started;
    e.fail = x->fail;
    e.imprecise = x->imprecise;
    e.need = (uint8_t)(x->half == 1 ? 2 : 1);
    e.insn = x->insn;
    e.addr = x->addr;
    e.value = x->value;
    e.id = g->next_id++;
    g->started = 1;
    dq_push(g, &e);
    g->slot_item[s] = e.id + 1;
    if (x->half == 1)
        g->pair_item = e.id + 1;
}

static void dj_resync(djudge_t *g)
{
    xdata_t r;
    memset(&r, 0, sizeof r);
    r.kind = XD_RESYNC;
    dq_push(g, &r);
}

/* An overflow restart: what was expected before it is lost, and so are the
 * values of placeholders still waiting. */
static void dj_overflow(djudge_t *g)
{
    while (g->len && dq_at(g, 0)->kind != XD_RESYNC) {
        g->lost++;
        g->head = (g->head + 1) % DQCAP;
        g->len--;
    }
    if (g->len) {
        g->head = (g->head + 1) % DQCAP;
        g->len--;
    }
    for (unsigned k = 0; k < DPH; k++)
        g->ph[k].used = 0;
}

static void dj_check_value(djudge_t *g, const xdata_t *x, const etm_v3_data_t *e)
{
    uint32_t want = x->fail ? 0 : x->value;
    if (x->imprecise)
        fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": its value came with an imprecise abort and is ignored, "
             "but the decoder reports 0x%08" PRIx32, x->id, x->addr, e->value);
    else if (!e->value_valid || e->value != want || e->store_failed != x->fail)
        fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 " by 0x%08" PRIx32 ": value 0x%08" PRIx32 "%s expected, "
             "decoded %s0x%08" PRIx32 "%s", x->id, x->addr, x->insn, want, x->fail ? " (store failed)" : "",
             e->value_valid ? "" : "no value ", e->value, e->store_failed ? " (store failed)" : "");
    g->failed += x->fail;
}

static void dj_element(djudge_t *g, const etm_v3_data_t *e)
{
    if (e->kind == ETM_V3_DATA_OOO) {
        unsigned k = 0;
        while (k < DPH && !(g->ph[k].used && g->ph[k].seq == e->seq))
            k++;
        if (k == DPH) {
            fail(g->j, "out-of-order value 0x%08" PRIx32 " (tag %u) for transfer %" PRIu64 ", whose placeholder is not "
                 "waiting", e->value, e->tag, e->seq);
            return;
        }
        g->ooo++;
        if (g->value_on)
            dj_check_value(g, &g->ph[k].x, e);
        g->ph[k].used = 0;
        return;
    }
    if (e->kind == ETM_V3_DATA_SUPPRESSED) {
        fail(g->j, "data suppressed: the model does not suppress data");
        return;
    }
    xdata_t *x = g->len ? dq_at(g, 0) : NULL;
    if (!x || x->kind == XD_RESYNC) {
        fail(g->j, "the decoder reports a transfer at 0x%08" PRIx32 " by 0x%08" PRIx32 " that was not traced%s",
             e->addr, e->insn_addr, x ? " (before an overflow restart)" : "");
        return;
    }
    g->compared++;
    if (!e->insn_valid || e->insn_addr != x->insn)
        fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": of the instruction at 0x%08" PRIx32 ", the decoder gives it "
             "to %s0x%08" PRIx32, x->id, x->addr, x->insn, e->insn_valid ? "" : "no instruction, ", e->insn_addr);
    else if (g->addr_on && (!e->addr_valid || e->addr != x->addr))
        fail(g->j, "transfer %" PRIu64 " by 0x%08" PRIx32 ": address 0x%08" PRIx32 ", decoded %s0x%08" PRIx32, x->id,
             x->insn, x->addr, e->addr_valid ? "" : "none ", e->addr);
    else if (x->first && !e->first)
        fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": the first traced of its instruction, but A=0", x->id,
             x->addr);
    if (x->kind == XD_NOT_TRACED || (x->imprecise && e->kind == ETM_V3_DATA_NOT_TRACED)) {
        if (e->kind != ETM_V3_DATA_NOT_TRACED)
            fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 " has no ViewData: value not traced expected, the "
                 "decoder reports a %s", x->id, x->addr, e->kind == ETM_V3_DATA_NORMAL ? "value" : "placeholder");
        g->not_traced++;
    } else if (e->kind == ETM_V3_DATA_NORMAL) {
        g->normal++;
        if (g->value_on)
            dj_check_value(g, x, e);
        else if (e->value_valid)
            fail(g->j, "transfer %" PRIu64 ": a value while ETMCR[2] is clear", x->id);
    } else if (e->kind == ETM_V3_DATA_PLACEHOLDER) {
        unsigned k = 0;
        while (k < DPH && g->ph[k].used)
            k++;
        if (k == DPH || !g->value_on) {
            fail(g->j, "transfer %" PRIu64 ": a placeholder %s", x->id,
                 g->value_on ? "too many waiting" : "while values are not traced");
        } else {
            /* a placeholder with the tag of one still waiting: that one's value
             * will not come, which only an ignored value (imprecise abort) may do */
            for (unsigned i = 0; i < DPH; i++)
                if (g->ph[i].used && g->ph[i].tag == e->tag) {
                    if (!g->ph[i].x.imprecise)
                        fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": its placeholder's tag %u is used again "
                             "before its value came", g->ph[i].x.id, g->ph[i].x.addr, e->tag);
                    g->ph[i].used = 0;
                }
            g->ph[k].used = 1;
            g->ph[k].seq = e->seq;
            g->ph[k].tag = e->tag;
            g->ph[k].x = *x;
            g->placed++;
        }
    } else {
        fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": value not traced, but it has ViewData", x->id, x->addr);
    }
    g->head = (g->head + 1) % DQCAP;
    g->len--;
}

/* The trace ended: what was not reported, or is still a placeholder, must be a
 * transfer whose value had not come (or was to be ignored). */
static void dj_end(djudge_t *g)
{
    for (size_t i = 0; i < g->len; i++) {
        const xdata_t *x = dq_at(g, i);
        if (x->kind == XD_RESYNC)
            continue;
        if (!x->need && x->kind == XD_DATA && g->value_on) {
            fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 " by 0x%08" PRIx32 " was never reported", x->id, x->addr,
                 x->insn);
            break;
        }
        g->end_dropped++;
    }
    for (unsigned k = 0; k < DPH; k++)
        if (g->ph[k].used && !g->ph[k].x.need && !g->ph[k].x.imprecise) {
            fail(g->j, "transfer %" PRIu64 " at 0x%08" PRIx32 ": its placeholder never got its value", g->ph[k].x.id,
                 g->ph[k].x.addr);
            break;
        }
}

/* ---- OpenCSD's packet processor against the project's decoder, packet by packet ------------ */

typedef struct pkrec {
    int kind;              /* ocsd_etmv3_pkt_type (the project's kinds are mapped to it) */
    uint64_t offset, size;
    unsigned tag, addr_bytes;
    uint32_t value, addr7;
    int has_value, has_addr;
} pkrec_t;

#define PKCAP 4096

typedef struct pkcmp {
    pkrec_t own[PKCAP], ocsd[PKCAP];
    unsigned nown, nocsd;
    int on;
    uint64_t compared, data_compared;
    judge_t *j;
    uint8_t *strip;        /* the stream without its data packets, for OpenCSD's full decoder */
    size_t nstrip, cap;
} pkcmp_t;

static int own_to_ocsd(etm_v3pkt_kind_t k)
{
    switch (k) {
    case ETM_V3PKT_ASYNC: return ETM3_PKT_A_SYNC;
    case ETM_V3PKT_ISYNC: return ETM3_PKT_I_SYNC;
    case ETM_V3PKT_ISYNC_CC: return ETM3_PKT_I_SYNC_CYCLE;
    case ETM_V3PKT_PHDR: return ETM3_PKT_P_HDR;
    case ETM_V3PKT_BRANCH: return ETM3_PKT_BRANCH_ADDRESS;
    case ETM_V3PKT_CYCLE_COUNT: return ETM3_PKT_CYCLE_COUNT;
    case ETM_V3PKT_TRIGGER: return ETM3_PKT_TRIGGER;
    case ETM_V3PKT_IGNORE: return ETM3_PKT_IGNORE;
    case ETM_V3PKT_EXC_RETURN: return ETM3_PKT_EXCEPTION_EXIT;
    case ETM_V3PKT_STORE_FAILED: return ETM3_PKT_STORE_FAIL;
    case ETM_V3PKT_NORMAL_DATA: return ETM3_PKT_NORM_DATA;
    case ETM_V3PKT_OOO_DATA: return ETM3_PKT_OOO_DATA;
    case ETM_V3PKT_OOO_PLACEHOLDER: return ETM3_PKT_OOO_ADDR_PLC;
    case ETM_V3PKT_VALUE_NOT_TRACED: return ETM3_PKT_VAL_NOT_TRACED;
    case ETM_V3PKT_DATA_SUPPRESSED: return ETM3_PKT_DATA_SUPPRESSED;
    default: return -1;
    }
}

static int is_data_pkt(etm_v3pkt_kind_t k)
{
    return k == ETM_V3PKT_NORMAL_DATA || k == ETM_V3PKT_OOO_DATA || k == ETM_V3PKT_OOO_PLACEHOLDER ||
           k == ETM_V3PKT_VALUE_NOT_TRACED || k == ETM_V3PKT_STORE_FAILED || k == ETM_V3PKT_DATA_SUPPRESSED;
}

static void own_pkt(void *user, const etm_v3pkt_t *p)
{
    pkcmp_t *c = (pkcmp_t *)user;
    if (!is_data_pkt(p->kind)) { /* to OpenCSD's full decoder */
        if (c->nstrip + p->size > c->cap) {
            c->cap = 2 * (c->nstrip + p->size);
            c->strip = (uint8_t *)realloc(c->strip, c->cap);
        }
        if (p->raw_len != p->size)
            fail(c->j, "packet at %" PRIu64 " longer than its raw bytes", p->offset);
        memcpy(c->strip + c->nstrip, p->raw, p->raw_len);
        c->nstrip += p->raw_len;
    }
    if (!c->on || c->nown == PKCAP)
        return;
    pkrec_t *r = &c->own[c->nown++];
    memset(r, 0, sizeof *r);
    r->kind = own_to_ocsd(p->kind);
    r->offset = p->offset;
    r->size = p->size;
    r->tag = p->tag;
    r->has_addr = p->has_data_addr;
    r->addr_bytes = p->has_data_addr ? (p->data_addr_bits + 6) / 7 : 0;
    r->addr7 = p->data_addr & 0x7Fu;
    r->has_value = p->kind == ETM_V3PKT_NORMAL_DATA || p->kind == ETM_V3PKT_OOO_DATA;
    r->value = p->value;
}

static void ocsd_data_pkt(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx, const void *pkt,
                          const uint32_t size, const uint8_t *data)
{
    pkcmp_t *c = (pkcmp_t *)(uintptr_t)ctx;
    const ocsd_etmv3_pkt *p = (const ocsd_etmv3_pkt *)pkt;
    (void)data;
    if (op != OCSD_OP_DATA || !p || c->nocsd == PKCAP)
        return;
    pkrec_t *r = &c->ocsd[c->nocsd++];
    memset(r, 0, sizeof *r);
    r->kind = (int)p->type;
    r->offset = idx;
    r->size = size;
    r->tag = p->data.ooo_tag;
    r->has_addr = p->data.update_addr;
    r->addr7 = (uint32_t)p->addr.val & 0x7Fu; /* 1.3.3 puts a data address into the instruction address field */
    r->value = p->data.value;
}

/* Both parsers have seen the same bytes: the same packets. */
static void pk_compare(pkcmp_t *c)
{
    unsigned n = c->nown < c->nocsd ? c->nown : c->nocsd;
    for (unsigned i = 0; i < n && c->on; i++) {
        const pkrec_t *w = &c->own[i], *o = &c->ocsd[i];
        int data = w->kind >= ETM3_PKT_STORE_FAIL && w->kind <= ETM3_PKT_VAL_NOT_TRACED;
        if (w->kind != o->kind || w->offset != o->offset || w->size != o->size) {
            fail(c->j, "OpenCSD's packet processor: packet at byte %" PRIu64 " (%" PRIu64 " bytes, type %d), the "
                 "project's decoder: byte %" PRIu64 " (%" PRIu64 " bytes, type %d)", (uint64_t)o->offset, o->size,
                 o->kind, w->offset, w->size, w->kind);
            c->on = 0; /* out of step from here */
            break;
        }
        c->compared++;
        if (!data)
            continue;
        c->data_compared++;
        if ((w->kind == ETM3_PKT_OOO_DATA || w->kind == ETM3_PKT_OOO_ADDR_PLC) && w->tag != o->tag)
            fail(c->j, "OpenCSD: packet at byte %" PRIu64 " has tag %u, the project's decoder %u", w->offset, o->tag,
                 w->tag);
        if (w->has_addr && (!o->has_addr || o->addr7 != w->addr7))
            fail(c->j, "OpenCSD: data address of the packet at byte %" PRIu64 " ends in 0x%02x, the project's "
                 "decoder 0x%02x", w->offset, o->addr7, w->addr7);
        if (w->has_value && w->addr_bytes <= 1 && o->value != w->value)
            fail(c->j, "OpenCSD: value of the packet at byte %" PRIu64 " is 0x%08x, the project's decoder 0x%08x",
                 w->offset, o->value, w->value);
    }
    if (c->on && c->nown != c->nocsd) {
        fail(c->j, "OpenCSD's packet processor found %u packets, the project's decoder %u, in the same bytes",
             c->nocsd, c->nown);
        c->on = 0;
    }
    c->nown = c->nocsd = 0;
}

static int own_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const etm_gen_t *img = (const etm_gen_t *)user;
    for (unsigned w = 0; w < 2; w++) {
        uint32_t base, size;
        const uint8_t *m = etm_gen_image(img, w, &base, &size);
        if (addr - base < size) {
            uint32_t off = addr - base, k = n;
            if (off + k > size)
                k = size - off;
            memcpy(buf, m + off, k);
            return (int)k;
        }
    }
    return 0;
}

/* ---- The run ---------------------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: roundtrip [--decoder ocsd|own|both] [--preset NAME] [--set REG=0xV]... [--cycles N]\n"
                    "       [--seed S] [--issue-width 2] [--irq-period N] [--sleep N] [--max-intnum N]\n"
                    "       [--triggers] [--bytes FILE] [--no-cycles] [--expect-untraceable] [--require KIND]...\n"
                    "       [--data] [--data-mix] [--data-delay N] [--random-filter S]\n");
    return 2;
}

int main(int argc, char **argv)
{
    etm_config_t cfg;
    etm_config_default(&cfg);
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    uint64_t cycles = 1000000;
    const char *bytes_path = NULL, *preset = "etm-m3", *which = "both";
    int no_cycles = 0, expect_untraceable = 0, random_filter = 0;
    uint64_t filter_seed = 0;
    static const char *const pkt_short[ETM_PKT_ALL_COUNT] = {
        "f1", "f2", "f3", "f4", "branch", "exception", "async", "isync", "isync-cc", "cycle-count", "trigger",
        "exc-return", "ignore", "normal-data", "not-traced", "placeholder", "ooo-data", "store-failed" };
    int required[ETM_PKT_ALL_COUNT] = { 0 };
    etm_diag_t d;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = v != NULL;
        if (!strcmp(a, "--decoder") && takes)
            which = v;
        else if (!strcmp(a, "--preset") && takes) {
            preset = v;
            if (etm_config_preset(&cfg, v) != ETM_OK)
                return usage();
        } else if (!strcmp(a, "--set") && takes) {
            if (etm_config_parse_line(&cfg, v, NULL, NULL, &d) != ETM_OK) {
                fprintf(stderr, "--set %s: %s\n", v, d.msg);
                return 2;
            }
        } else if (!strcmp(a, "--cycles") && takes)
            cycles = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seed") && takes)
            gp.seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--issue-width") && takes) {
            gp.issue_width = (unsigned)strtoul(v, NULL, 0);
            cfg.issue_width = gp.issue_width;
        } else if (!strcmp(a, "--irq-period") && takes)
            gp.irq_period = (unsigned)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--sleep") && takes)
            gp.sleep_pct = (unsigned)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--max-intnum") && takes)
            gp.max_intnum = (unsigned)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--bytes") && takes)
            bytes_path = v;
        else if (!strcmp(a, "--data-delay") && takes) {
            gp.data = 1;
            gp.data_delay = (unsigned)strtoul(v, NULL, 0);
        } else if (!strcmp(a, "--random-filter") && takes) {
            random_filter = 1;
            filter_seed = strtoull(v, NULL, 0);
        }
        else if (!strcmp(a, "--require") && takes) {
            int k = 0;
            while (k < ETM_PKT_ALL_COUNT && strcmp(pkt_short[k], v))
                k++;
            if (k == ETM_PKT_ALL_COUNT)
                return usage();
            required[k] = 1;
        }
        else {
            if (!strcmp(a, "--triggers"))
                gp.triggers = 1;
            else if (!strcmp(a, "--data"))
                gp.data = 1;
            else if (!strcmp(a, "--data-mix"))
                gp.data = gp.data_mix = 1;
            else if (!strcmp(a, "--no-cycles"))
                no_cycles = 1;
            else if (!strcmp(a, "--expect-untraceable"))
                expect_untraceable = 1;
            else
                return usage();
            continue;
        }
        i++;
    }
    if (strcmp(which, "ocsd") && strcmp(which, "own") && strcmp(which, "both"))
        return usage();

    if (random_filter) {
        char desc[2048];
        if (rf_choose(&cfg, &gp, filter_seed, cycles, (cfg.etmcr & (ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR) | ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE))) != 0, desc,
                      sizeof desc, &d) != 0) {
            fprintf(stderr, "random filter %" PRIu64 " refused: %s\n", filter_seed, d.msg);
            return 2;
        }
        printf("filter %" PRIu64 ": %s\n", filter_seed, desc);
    }
    etm_gen_t *gen, *img;
    etm_ctx_t *etm;
    etm_in_t in;
    if (etm_gen_create(&gen, &gp, &d) != ETM_OK || etm_gen_create(&img, &gp, &d) != ETM_OK) {
        fprintf(stderr, "generator: %s\n", d.msg);
        return 2;
    }
    if (etm_create(&etm, &cfg, &d) != ETM_OK) {
        fprintf(stderr, "model configuration: %s\n", d.msg);
        return 2;
    }
    /* The generator writes its program as it runs, and a decoder may read (and
     * keep) code ahead of where the program has got to: the decoders get the
     * complete image, from a first run of an identical generator. */
    for (uint64_t k = 0; k < cycles; k++)
        etm_gen_next(img, &in, NULL);

    judge_t judges[2];
    memset(judges, 0, sizeof judges);
    judges[0].name = "OpenCSD";
    judges[1].name = "own decoder";
    judges[0].on = strcmp(which, "own") != 0;
    judges[1].on = strcmp(which, "ocsd") != 0;
    for (int k = 0; k < 2; k++) {
        judges[k].q = judges[k].on ? (xitem_t *)calloc(QCAP, sizeof(xitem_t)) : NULL;
        judges[k].ca = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg.etmcr) != 0;
        judges[k].no_cycles = no_cycles;
        judges[k].img = img;
        if (judges[k].on && !judges[k].q)
            return 2;
    }
    judge_t *oj = &judges[0], *wj = &judges[1];

    /* Data trace: the project's decoder reports the transfers (the data judge);
     * OpenCSD decodes the instruction flow of the stream without its data packets
     * and parses every packet of the whole stream (pk). */
    int data_trace = (cfg.etmcr & (ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR) | ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE))) != 0;
    int addr_only = (cfg.etmcr & (ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR) | ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE))) == ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR);
    static djudge_t dj;
    static pkcmp_t pk;
    if (data_trace && !wj->on) {
        fprintf(stderr, "data trace needs the project's decoder (--decoder own or both)\n");
        return 2;
    }
    memset(&dj, 0, sizeof dj);
    dj.j = wj;
    dj.addr_on = (cfg.etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR)) != 0;
    dj.value_on = (cfg.etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE)) != 0;
    dj.q = data_trace ? (xdata_t *)calloc(DQCAP, sizeof(xdata_t)) : NULL;
    if (data_trace && !dj.q)
        return 2;
    wj->dj = data_trace ? &dj : NULL;
    memset(&pk, 0, sizeof pk);
    pk.j = oj->on ? oj : wj;
    pk.on = data_trace && oj->on && !addr_only;
    dcd_tree_handle_t pt = 0;
    if (pk.on) {
        ocsd_etmv3_cfg pc;
        memset(&pc, 0, sizeof pc);
        pc.reg_idr = cfg.etmidr;
        pc.reg_ctrl = cfg.etmcr;
        pc.reg_ccer = cfg.etmccer;
        pc.reg_trc_id = cfg.etmtraceidr;
        pc.arch_ver = ARCH_V7;
        pc.core_prof = profile_CortexM;
        unsigned char pid;
        pt = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
        if (!pt || ocsd_dt_create_decoder(pt, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_PACKET_PROC, &pc, &pid) != OCSD_OK) {
            fprintf(stderr, "cannot create OpenCSD's packet processor\n");
            return 2;
        }
        union { FnDefPktDataMon fn; void *p; } cb;
        cb.fn = ocsd_data_pkt;
        ocsd_dt_attach_packet_callback(pt, pid, OCSD_C_API_CB_PKT_MON, cb.p, &pk);
    }

    dcd_tree_handle_t dt = 0;
    if (oj->on) {
        ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0);
        dt = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
        ocsd_etmv3_cfg oc;
        memset(&oc, 0, sizeof oc);
        oc.reg_idr = cfg.etmidr;
        oc.reg_ctrl = cfg.etmcr & ~(ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR) | ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE)); /* it gets no data packets */
        oc.reg_ccer = cfg.etmccer;
        oc.reg_trc_id = cfg.etmtraceidr;
        oc.arch_ver = ARCH_V7;
        oc.core_prof = profile_CortexM;
        unsigned char csid;
        if (!dt || ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_FULL_DECODER, &oc, &csid) !=
                       OCSD_OK) {
            fprintf(stderr, "cannot create the OpenCSD decoder\n");
            return 2;
        }
        ocsd_dt_set_gen_elem_outfn(dt, ocsd_elem, oj);
        if (oj->ca) {
            union { FnDefPktDataMon fn; void *p; } cb; /* the C API takes the callback as void * */
            cb.fn = ocsd_packet;
            ocsd_dt_attach_packet_callback(dt, csid, OCSD_C_API_CB_PKT_MON, cb.p, oj);
        }
        for (unsigned w = 0; w < 2; w++) {
            uint32_t base, size;
            const uint8_t *m = etm_gen_image(img, w, &base, &size);
            ocsd_dt_add_buffer_mem_acc(dt, base, OCSD_MEM_SPACE_ANY, m, size);
        }
    }
    etm_v3dec_t *own = NULL;
    if (wj->on) {
        if (etm_v3dec_create(&own, &cfg, ETM_V3DEC_V7M, &d) != ETM_OK) {
            fprintf(stderr, "own decoder: %s\n", d.msg);
            return 2;
        }
        etm_v3dec_on_element(own, own_elem, wj);
        etm_v3dec_set_image(own, own_read, img);
        if (data_trace)
            etm_v3dec_on_packet(own, own_pkt, &pk);
    }
    FILE *bf = bytes_path ? fopen(bytes_path, "wb") : NULL;

    uint8_t buf[4096];
    size_t nbuf = 0;
    uint64_t fed = 0, sfed = 0;
    int fatal = 0, prev_ovf = 0, cancel_open = 0, trig_waiting = 0, end_lost = 0;
    int active = 0;         /* the packet stage is tracing (an I-sync was sent since trace was last off) */
    int synced = 0;         /* an I-sync has been sent */
    int last_traced = 0;    /* the last instruction signalled was traced */
    uint64_t te_rises = 0, te_prev = 0, untraced = 0;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_out_t out;
    for (uint64_t c = 0;; c++) {
        int more = c < cycles;
        etm_err_t de = ETM_OK;
        unsigned n = 0;
        if (more) {
            n = etm_gen_next(gen, &in, ev);
            if (etm_step(etm, &in, &out) == ETM_ERR_RULE)
                for (int k = 0; k < 2; k++)
                    fail(&judges[k], "cycle %" PRIu64 ": the generator broke an interface rule", c);
        } else {
            if (c == cycles) {
                /* Trace that ends while lost to an overflow (waiting for the FIFO
                 * to drain, or its last bytes not fitting) has no restart to say so. */
                uint64_t ov = etm_get_stats(etm)->overflows;
                etm_end(etm);
                end_lost = prev_ovf || etm_get_stats(etm)->overflows != ov;
            }
            de = etm_drain(etm, &out);
        }
        /* What this cycle executed, in the order the packets carry it. */
        if (more) {
            if (prev_ovf && !out.overflow) {
                xitem_t r = { X_RESYNC, 0, 0, 0, 0 };
                push(oj, &r);
                push(wj, &r);
                if (data_trace)
                    dj_resync(&dj);
            }
            prev_ovf = out.overflow;
            xitem_t t = { X_TRIG, 0, 0, 0, 0 };
            if (out.trigger && !synced) {
                /* Trace has not started: the trigger packet follows an A-sync
                 * only. OpenCSD ignores everything before its first I-sync. */
                push(wj, &t);
            } else if (out.trigger) {
                if (cancel_open)
                    trig_waiting = 1; /* the trigger packet waits for the cancelling exception */
                else {
                    push(oj, &t);
                    push(wj, &t);
                }
            }
            /* What the filter let through: the cycle's instructions and the
             * exception they start, if TraceEnable; trace that restarts gives
             * its address by I-sync, with no exception return packet. */
            int te = out.trace_enable, restart = 0, insn_traced = 0;
            te_rises += te && !te_prev;
            te_prev = (uint64_t)te;
            if (!te)
                active = 0;
            else if (in.ivalid) {
                restart = !active;
                active = 1;
            }
            if (out.overflow)
                active = 0;
            synced |= active;
            for (unsigned k = 0; k < n; k++) {
                xitem_t x;
                memset(&x, 0, sizeof x);
                if (!te && (ev[k].kind == ETM_GEN_EV_INSN || ev[k].kind == ETM_GEN_EV_EXC_ENTRY ||
                            ev[k].kind == ETM_GEN_EV_EXC_RETURN)) {
                    untraced += ev[k].kind == ETM_GEN_EV_INSN;
                    last_traced = 0;
                    continue;
                }
                if (ev[k].kind == ETM_GEN_EV_CANCEL && !last_traced)
                    continue; /* the cancelled instruction was not traced */
                switch (ev[k].kind) {
                case ETM_GEN_EV_INSN:
                    last_traced = 1;
                    insn_traced |= ev[k].slot == 0;
                    x.kind = X_INSN;
                    x.addr = ev[k].addr;
                    x.exec = ev[k].passed;
                    x.cycle = ev[k].cycle + 1;
                    push(oj, &x);
                    push(wj, &x);
                    break;
                case ETM_GEN_EV_CANCEL:
                    pop_last_insn(oj);
                    pop_last_insn(wj);
                    cancel_open = 1;
                    break;
                case ETM_GEN_EV_EXC_ENTRY:
                    x.kind = X_EXC;
                    x.num = etm_m3_traced_exception(ev[k].excnum);
                    push(oj, &x);
                    push(wj, &x);
                    cancel_open = 0;
                    if (trig_waiting) {
                        push(oj, &t);
                        push(wj, &t);
                        trig_waiting = 0;
                    }
                    break;
                case ETM_GEN_EV_EXC_RETURN:
                    /* A return that is the first thing traced after an overflow
                     * restart has no 0x76: the I-sync gives the address. */
                    x.kind = X_ERET;
                    if (!restart && !(oj->on ? last_is_resync(oj) : last_is_resync(wj))) {
                        push(oj, &x);
                        push(wj, &x);
                    }
                    break;
                }
            }
            if (data_trace) {
                /* The value of the cycle belongs to an earlier address; then the
                 * cycle's transfer: its instruction (the cycle's, for a first
                 * transfer) traced unless trace was lost in this cycle. */
                etm_gen_xfer_t gx;
                etm_gen_last_xfer(gen, &gx);
                dj_value(&dj, &in);
                if (out.overflow)
                    dj.owner_traced = 0;
                dj_transfer(&dj, &in, &gx, insn_traced && !out.overflow, out.view_data);
            }
        }
        for (unsigned b = 0; b < out.v3_count; b++)
            buf[nbuf++] = out.v3_bytes[b];
        if (nbuf > sizeof buf - 16 || (!more && de == ETM_END)) {
            if (bf)
                fwrite(buf, 1, nbuf, bf);
            if (wj->on) {
                size_t used = 0;
                if (etm_v3dec_feed(own, buf, nbuf, &used, &d) != ETM_OK)
                    fail(wj, "own decoder: byte offset %" PRIu64 ": %s", d.offset, d.msg);
            }
            /* Without data trace OpenCSD decodes the stream; with it, the stream
             * without its data packets (as the project's decoder found them). */
            const uint8_t *ob = data_trace ? pk.strip : buf;
            size_t on = data_trace ? pk.nstrip : nbuf;
            if (oj->on && !fatal && on) {
                uint32_t used = 0;
                ocsd_datapath_resp_t r = ocsd_dt_process_data(dt, OCSD_OP_DATA, sfed, (uint32_t)on, ob, &used);
                if (OCSD_DATA_RESP_IS_FATAL(r) || used != on) {
                    fail(oj, "OpenCSD: fatal response %d at byte %" PRIu64 "%s", (int)r, sfed + used,
                         data_trace ? " of the stream without data packets" : "");
                    fatal = 1;
                }
            }
            sfed += on;
            pk.nstrip = 0;
            if (pk.on) {
                uint32_t used = 0;
                ocsd_datapath_resp_t r = ocsd_dt_process_data(pt, OCSD_OP_DATA, fed, (uint32_t)nbuf, buf, &used);
                if (OCSD_DATA_RESP_IS_FATAL(r) || used != nbuf) {
                    fail(pk.j, "OpenCSD's packet processor: fatal response %d at byte %" PRIu64, (int)r, fed + used);
                    pk.on = 0;
                }
                pk_compare(&pk);
            }
            fed += nbuf;
            nbuf = 0;
        }
        if (!more && de == ETM_END)
            break;
    }
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
    if (wj->on) {
        if (etm_v3dec_end(own, &d) != ETM_OK)
            fail(wj, "own decoder at the end: %s", d.msg);
        etm_v3dec_destroy(own);
        if (data_trace && end_lost)
            dj_overflow(&dj); /* lost as the instructions are */
        if (data_trace)
            dj_end(&dj);
    }
    if (pt) {
        ocsd_dt_process_data(pt, OCSD_OP_EOT, 0, 0, NULL, NULL);
        pk_compare(&pk);
        ocsd_destroy_dcd_tree(pt);
    }

    const etm_stats_t *st = etm_get_stats(etm);
    printf("%s ETMCR=0x%08" PRIx32 " ETMIDR=0x%08" PRIx32 " issue %u: %" PRIu64 " cycles, %" PRIu64
           " bytes, %.3f bits/instruction, %" PRIu64 " overflows\n",
           preset, cfg.etmcr, cfg.etmidr, gp.issue_width, st->cycles, st->bytes,
           st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0, st->overflows);
    printf("packets:");
    for (int k = 0; k < (data_trace ? ETM_PKT_ALL_COUNT : ETM_PKT_KIND_COUNT); k++)
        printf(" %s %" PRIu64 ";", etm_pkt_kind_name((etm_pkt_kind_t)k), st->packets[k]);
    printf("\n");
    if (data_trace) {
        printf("data: %" PRIu64 " transfers (%" PRIu64 " values in order, %" PRIu64 " placed and %" PRIu64
               " out of order, %" PRIu64 " not traced, %" PRIu64 " failed stores), %" PRIu64 " lost to overflows, %"
               PRIu64 " without their value at the end; OpenCSD: %" PRIu64 " packets compared (%" PRIu64 " data)%s\n",
               dj.compared, dj.normal, dj.placed, dj.ooo, dj.not_traced, dj.failed, dj.lost, dj.end_dropped,
               pk.compared, pk.data_compared,
               addr_only ? "; not its packet processor, which cannot parse address-only data packets" : "");
        /* A random filter may keep trace (and ViewData) off most of the run. */
        uint64_t min_compared = random_filter ? cycles / 10000 + 1 : cycles / 100;
        if (dj.compared < min_compared)
            fail(wj, "only %" PRIu64 " data transfers compared (at least %" PRIu64 " expected)", dj.compared,
                 min_compared);
        free(dj.q);
        free(pk.strip);
    }
    int failed = 0;
    if (random_filter || te_rises > 1)
        printf("filter: trace turned on %" PRIu64 " times, %" PRIu64 " of %" PRIu64 " instructions filtered out\n",
               te_rises, untraced, st->instructions);
    if (random_filter && te_rises < 10) {
        printf("FAILED: the filter turned trace on only %" PRIu64 " times\n", te_rises);
        failed = 1;
    }
    for (int k = 0; k < ETM_PKT_ALL_COUNT; k++)
        if (required[k] && !st->packets[k]) {
            printf("FAILED: no %s packet was emitted\n", etm_pkt_kind_name((etm_pkt_kind_t)k));
            failed = 1;
        }
    for (int k = 0; k < 2; k++) {
        judge_t *j = &judges[k];
        if (!j->on)
            continue;
        size_t left = 0;
        for (size_t i = 0; i < j->len; i++)
            left += j->q[(j->head + i) % QCAP].kind != X_RESYNC;
        if (end_lost) { /* what the trace had not told when it was lost */
            j->lost += left;
            left = 0;
        }
        if (left)
            fail(j, "%zu expected items never came out of %s (first: %s at 0x%08" PRIx32 ")", left, j->name,
                 kind_name(front(j)->kind), front(j)->addr);
        if (st->untraceable && !expect_untraceable)
            fail(j, "%" PRIu64 " untraceable events", st->untraceable);
        if (!st->untraceable && expect_untraceable)
            fail(j, "no untraceable event, though this configuration was expected to have some");
        if (j->compared < (random_filter ? cycles / 40 : cycles / 4))
            fail(j, "only %" PRIu64 " instructions compared", j->compared);
        printf("%-11s %" PRIu64 " instructions%s, %" PRIu64 " exceptions, %" PRIu64 " returns, %" PRIu64
               " triggers, %" PRIu64 " overflow restarts (%" PRIu64 " items lost): ",
               j->name, j->compared, j->ca && !j->no_cycles ? " with cycles" : "", j->exceptions, j->erets,
               j->triggers, j->overflows, j->lost);
        if (j->errors) {
            printf("%" PRIu64 " differences; first: %s\n", j->errors, j->first_error);
            failed = 1;
        } else {
            printf("zero differences\n");
        }
        free(j->q);
    }
    if (bf)
        fclose(bf);
    etm_destroy(etm);
    etm_gen_free(gen);
    etm_gen_free(img);
    return failed;
}
