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
 * Both decoders report to the testbenches' one judge (tb/common/judge.h), which
 * compares what they decode with what the generator executed.
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
 *
 * --reprogram N starts the ETM from reset and programs it through its debug
 * APB (etm/program.h: unlock, programming bit, ETMSR[1], every register,
 * ETMCR), then reprograms it every N cycles while the program runs: a new
 * trace ID and, in turn, the first programming and a second one (trace only
 * the first half of the code where the ETM has an address comparator pair,
 * else trace nothing); --reprogram-ca also turns cycle-accurate tracing on and
 * off. Trace stops and restarts with each programming; the decoders are
 * started afresh where the trace mode changes (all the bytes of the last
 * session have left the port once ETMSR[1] reads 1), and must give back what
 * each programming traced. Cycle counts are not compared (each restart counts
 * from its own start; the lockstep harness holds those).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv3/trc_pkt_types_etmv3.h>

#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "judge.h"
#include "judge_ocsd.h"
#include "genopts.h"
#include "reprog.h"
#include "roundtrip_data.h"

#define QCAP (1u << 20)

static const char *const pkt_short[ETM_PKT_ALL_COUNT] = {
    "f1", "f2", "f3", "f4", "branch", "exception", "async", "isync", "isync-cc", "cycle-count", "trigger",
    "exc-return", "ignore", "normal-data", "not-traced", "placeholder", "ooo-data", "store-failed" };

/* ---- Options ------------------------------------------------------------------------ */

typedef struct opts {
    genopts_t g;                /* the register image, the generator, the length, a random filter */
    const char *bytes_path, *which;
    int no_cycles, expect_untraceable;
    int required[ETM_PKT_ALL_COUNT];
    uint64_t reprogram;         /* cycles between reprogrammings (0: programmed once, at create) */
    int reprogram_ca;           /* ... which also toggle cycle-accurate tracing */
} opts_t;

static int usage(void)
{
    fprintf(stderr, "usage: roundtrip [--decoder ocsd|own|both] [--preset NAME] [--set REG=0xV]... [--cycles N]\n"
                    "       [--seed S] [--issue-width 2] [--irq-period N] [--sleep N] [--max-intnum N]\n"
                    "       [--triggers] [--bytes FILE] [--no-cycles] [--expect-untraceable] [--require KIND]...\n"
                    "       [--data] [--data-mix] [--data-delay N] [--random-filter S]\n"
                    "       [--reprogram N [--reprogram-ca]]\n");
    return 2;
}

static int parse_args(opts_t *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    genopts_init(&o->g, "etm-m3");
    o->which = "both";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int r = genopts_parse(&o->g, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!strcmp(a, "--decoder") && v) {
            o->which = argv[++i];
        } else if (!strcmp(a, "--bytes") && v) {
            o->bytes_path = argv[++i];
        } else if (!strcmp(a, "--require") && v) {
            int k = 0;
            while (k < ETM_PKT_ALL_COUNT && strcmp(pkt_short[k], v))
                k++;
            if (k == ETM_PKT_ALL_COUNT)
                return 2;
            o->required[k] = 1;
            i++;
        } else if (!strcmp(a, "--no-cycles")) {
            o->no_cycles = 1;
        } else if (!strcmp(a, "--reprogram") && v) {
            o->reprogram = strtoull(argv[++i], NULL, 0);
            o->no_cycles = 1;
        } else if (!strcmp(a, "--reprogram-ca")) {
            o->reprogram_ca = 1;
        } else if (!strcmp(a, "--expect-untraceable")) {
            o->expect_untraceable = 1;
        } else {
            return 2;
        }
    }
    if (strcmp(o->which, "ocsd") && strcmp(o->which, "own") && strcmp(o->which, "both"))
        return 2;
    return 0;
}

/* ---- The run ------------------------------------------------------------------------------ */

typedef struct run {
    opts_t *o;
    int data_trace, addr_only;
    etm_gen_t *gen, *img;       /* the program running, and a first run of it: the complete code image */
    etm_ctx_t *etm;
    judge_t oj, wj;             /* OpenCSD, the project's decoder */
    judge_ocsd_t ocsd;
    etm_v3dec_t *own;
    djudge_t dj;                /* data trace: the project's decoder's transfers */
    pkcmp_t pk;                 /* ... and OpenCSD's packet processor against it */
    dcd_tree_handle_t pt;
    FILE *bytes;
    uint64_t fed;               /* bytes of the whole stream given to the packet processor */
    /* What the trace is expected to say, as the cycles go by. */
    int prev_ovf, cancel_open, trig_waiting, end_lost;
    unsigned version; /* ETM_V() of the configuration */
    int tailchain_return; /* TAILCHAIN_RETURN: a tail-chained entry's exception return packet */
    int trace_start;      /* TRACE_START=1: a trigger before trace (re)starts follows the first instruction */
    int trig_first;       /* ... and one waits for it */
    uint64_t version_limited; /* exceptions and returns this version cannot express (judge.h) */
    int active;                 /* the packet stage is tracing (an I-sync was sent since trace was last off) */
    int synced;                 /* an I-sync has been sent */
    int last_traced;            /* the last instruction signalled was traced */
    uint64_t te_rises, te_prev, untraced;
    /* --reprogram: the debug APB's driver, the programming under way and the
     * decoders' configuration. */
    etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv;
    etm_config_t now, next, dec_cfg;
    size_t poll_at;             /* the op index after the ETMSR[1] poll */
    uint64_t reprogrammings, sessions, restarts;
    /* The protocol scoreboard (etm/verify.h) on the same trace, against the
     * generator's interface signals, where every event can be traced (no
     * reprogramming, no untraceable events expected). */
    etm_verify_t *ver;
} run_t;

static unsigned insn_size(void *user, uint32_t addr)
{
    const etm_gen_t *img = (const etm_gen_t *)user;
    for (unsigned w = 0; w < 2; w++) {
        uint32_t base, size;
        const uint8_t *m = etm_gen_image(img, w, &base, &size);
        if (addr - base < size - 1)
            return (m[addr - base + 1] >> 3) >= 0x1d ? 4 : 2;
    }
    return 2;
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

static void dj_hook_data(void *user, judge_t *j, const etm_v3_data_t *d)
{
    (void)j;
    dj_element((djudge_t *)user, d);
}

static void dj_hook_overflow(void *user, judge_t *j)
{
    (void)j;
    dj_overflow((djudge_t *)user);
}

/* OpenCSD's packet processor on the whole stream, data packets included. */
static int open_packet_processor(run_t *r)
{
    const etm_config_t *cfg = &r->o->g.cfg;
    ocsd_etmv3_cfg pc;
    memset(&pc, 0, sizeof pc);
    pc.reg_idr = cfg->etmidr;
    pc.reg_ctrl = cfg->etmcr;
    pc.reg_ccer = cfg->etmccer;
    pc.reg_trc_id = cfg->etmtraceidr;
    pc.arch_ver = ARCH_V7;
    pc.core_prof = profile_CortexM;
    unsigned char pid;
    r->pt = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    if (!r->pt || ocsd_dt_create_decoder(r->pt, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_PACKET_PROC, &pc, &pid) !=
                      OCSD_OK) {
        fprintf(stderr, "cannot create OpenCSD's packet processor\n");
        return -1;
    }
    union { FnDefPktDataMon fn; void *p; } cb;
    cb.fn = ocsd_data_pkt;
    ocsd_dt_attach_packet_callback(r->pt, pid, OCSD_C_API_CB_PKT_MON, cb.p, &r->pk);
    return 0;
}

/* The judges and the decoders that report to them. */
static int start_decoders(run_t *r);

static int open_decoders(run_t *r)
{
    const opts_t *o = r->o;
    if (judge_init(&r->oj, "OpenCSD", QCAP) != 0 || judge_init(&r->wj, "own decoder", QCAP) != 0)
        return -1;
    r->oj.on = strcmp(o->which, "own") != 0;
    r->wj.on = strcmp(o->which, "ocsd") != 0;
    judge_t *js[2] = { &r->oj, &r->wj };
    for (int k = 0; k < 2; k++) {
        js[k]->check_cycles = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, o->g.cfg.etmcr) && !o->no_cycles;
        js[k]->triggers = 1;
        js[k]->hooks.insn_size = insn_size;
        js[k]->hooks.user = r->img;
    }
    if (r->data_trace) {
        if (!r->wj.on) {
            fprintf(stderr, "data trace needs the project's decoder (--decoder own or both)\n");
            return -1;
        }
        r->dj.j = &r->wj;
        r->dj.addr_on = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, o->g.cfg.etmcr) & ETM_DATA_ACCESS_ADDR) != 0;
        r->dj.value_on = (ETM_FIELD_GET(ETM_CR_DATA_ACCESS, o->g.cfg.etmcr) & ETM_DATA_ACCESS_VALUE) != 0;
        if (!(r->dj.q = (xdata_t *)calloc(DQCAP, sizeof(xdata_t))))
            return -1;
        r->wj.hooks.user = &r->dj;
        r->wj.hooks.v3_data = dj_hook_data;
        r->wj.hooks.v3_overflow = dj_hook_overflow;
    }
    r->pk.j = r->oj.on ? &r->oj : &r->wj;
    r->pk.on = r->data_trace && r->oj.on && !r->addr_only;
    if (r->pk.on && open_packet_processor(r) != 0)
        return -1;
    r->dec_cfg = o->g.cfg;
    return start_decoders(r);
}

/* The decoders for the trace of r->dec_cfg (again after a programming that
 * changes the trace mode). */
static int start_decoders(run_t *r)
{
    etm_diag_t d;
    r->sessions++;
    if (r->oj.on) {
        if (judge_ocsd_open(&r->ocsd, &r->dec_cfg, &r->oj) != 0)
            return -1;
        for (unsigned w = 0; w < 2; w++) {
            uint32_t base, size;
            const uint8_t *m = etm_gen_image(r->img, w, &base, &size);
            judge_ocsd_add_memory(&r->ocsd, base, m, size);
        }
    }
    if (r->wj.on) {
        if (etm_v3dec_create(&r->own, &r->dec_cfg, ETM_V3DEC_V7M, &d) != ETM_OK) {
            fprintf(stderr, "own decoder: %s\n", d.msg);
            return -1;
        }
        etm_v3dec_on_element(r->own, judge_v3_element, &r->wj);
        etm_v3dec_set_image(r->own, own_read, r->img);
        if (r->data_trace)
            etm_v3dec_on_packet(r->own, own_pkt, &r->pk);
    }
    return 0;
}

static int setup(run_t *r)
{
    opts_t *o = r->o;
    etm_diag_t d;
    int data = ETM_FIELD_GET(ETM_CR_DATA_ACCESS, o->g.cfg.etmcr);
    if (genopts_filter(&o->g, data != 0) != 0)
        return -1;
    r->data_trace = data != 0;
    r->addr_only = data == ETM_DATA_ACCESS_ADDR;
    if (etm_gen_create(&r->gen, &o->g.gp, &d) != ETM_OK || etm_gen_create(&r->img, &o->g.gp, &d) != ETM_OK) {
        fprintf(stderr, "generator: %s\n", d.msg);
        return -1;
    }
    if (o->reprogram && r->data_trace) {
        fprintf(stderr, "--reprogram: not with data trace\n");
        return -1;
    }
    if (!o->reprogram && !o->expect_untraceable &&
        etm_verify_create(&r->ver, &o->g.cfg, NULL, &d) != ETM_OK) {
        fprintf(stderr, "scoreboard: %s\n", d.msg);
        return -1;
    }
    if ((o->reprogram ? etm_create_at_reset(&r->etm, &o->g.cfg, &d) : etm_create(&r->etm, &o->g.cfg, &d)) != ETM_OK) {
        fprintf(stderr, "model configuration: %s\n", d.msg);
        return -1;
    }
    r->now = o->g.cfg;
    if (o->reprogram && reprog_from_reset(r->etm, &o->g.cfg) != 0) { /* the core idle: no trace */
        fprintf(stderr, "--reprogram: the programming from reset failed\n");
        return -1;
    }
    /* The generator writes its program as it runs, and a decoder may read (and
     * keep) code ahead of where the program has got to: the decoders get the
     * complete image, from a first run of an identical generator. */
    etm_in_t in;
    for (uint64_t k = 0; k < o->g.cycles; k++)
        etm_gen_next(r->img, &in, NULL);
    if (open_decoders(r) != 0)
        return -1;
    r->bytes = o->bytes_path ? fopen(o->bytes_path, "wb") : NULL;
    return 0;
}

/* Push an item to both judges. */
static void expect(run_t *r, const judge_item_t *x)
{
    judge_push(&r->oj, x);
    judge_push(&r->wj, x);
}

/* The trigger of this cycle, in the order its packet takes. */
static void expect_trigger(run_t *r, const etm_out_t *out, const judge_item_t *t)
{
    if (!out->trigger)
        return;
    if (r->trace_start && !r->active)
        r->trig_first = 1;     /* after the restart's first instruction, both judges */
    else if (!r->synced)
        judge_push(&r->wj, t); /* before trace starts, after an A-sync only: OpenCSD ignores it */
    else if (r->cancel_open)
        r->trig_waiting = 1;   /* the trigger packet waits for the cancelling exception */
    else
        expect(r, t);
}

/* One generator event of a traced cycle. */
static void expect_event(run_t *r, const etm_gen_event_t *e, int restart, const judge_item_t *t)
{
    judge_item_t x;
    memset(&x, 0, sizeof x);
    switch (e->kind) {
    case ETM_GEN_EV_INSN:
        r->last_traced = 1;
        x.kind = JX_INSN;
        x.addr = e->addr;
        x.exec = e->passed;
        x.cycle = e->cycle + 1;
        expect(r, &x);
        if (r->trig_first) {
            expect(r, t);
            r->trig_first = 0;
        }
        break;
    case ETM_GEN_EV_CANCEL:
        judge_cancel_last(&r->oj);
        judge_cancel_last(&r->wj);
        r->cancel_open = 1;
        break;
    case ETM_GEN_EV_EXC_ENTRY:
        x.kind = JX_EXC;
        x.num = judge_m3_exception(e->excnum);
        if (judge_v3_exception_traced(r->version, x.num)) {
            if (e->tailchain && r->tailchain_return && !restart && judge_v3_return_traced(r->version) &&
                !judge_last_is_resync(r->oj.on ? &r->oj : &r->wj)) {
                judge_item_t ret = x; /* TAILCHAIN_RETURN: the handler left returns first */
                ret.kind = JX_ERET;
                ret.num = 0;
                expect(r, &ret);
            }
            expect(r, &x);
        } else { /* a plain branch; a cancel went with the exception's bytes */
            r->version_limited++;
            judge_uncancel(&r->oj);
            judge_uncancel(&r->wj);
        }
        r->cancel_open = 0;
        if (r->trig_waiting) {
            expect(r, t);
            r->trig_waiting = 0;
        }
        break;
    case ETM_GEN_EV_EXC_RETURN:
        /* A return that is the first thing traced after an overflow restart
         * has no 0x76: the I-sync gives the address. */
        x.kind = JX_ERET;
        if (restart || judge_last_is_resync(r->oj.on ? &r->oj : &r->wj))
            break;
        if (judge_v3_return_traced(r->version))
            expect(r, &x);
        else
            r->version_limited++; /* a plain branch */
        break;
    }
}

/* What this cycle executed, in the order the packets carry it: what the
 * filter let through (the cycle's instructions and the exception they start,
 * if TraceEnable; trace that restarts gives its address by I-sync, with no
 * exception return packet), the trigger, and the data slot's traffic. */
static void expect_cycle(run_t *r, const etm_in_t *in, const etm_out_t *out, const etm_gen_event_t *ev, unsigned n)
{
    if (r->prev_ovf && !out->overflow) {
        judge_resync(&r->oj);
        judge_resync(&r->wj);
        if (r->data_trace)
            dj_resync(&r->dj);
    }
    r->prev_ovf = out->overflow;
    judge_item_t t;
    memset(&t, 0, sizeof t);
    t.kind = JX_TRIG;
    expect_trigger(r, out, &t);
    int te = out->trace_enable, restart = 0, insn_traced = 0;
    r->te_rises += te && !r->te_prev;
    r->te_prev = (uint64_t)te;
    if (!te)
        r->active = 0;
    else if (in->ivalid) {
        restart = !r->active;
        r->active = 1;
    }
    if (out->overflow)
        r->active = 0;
    r->synced |= r->active;
    for (unsigned k = 0; k < n; k++) {
        const etm_gen_event_t *e = &ev[k];
        if (!te && (e->kind == ETM_GEN_EV_INSN || e->kind == ETM_GEN_EV_EXC_ENTRY || e->kind == ETM_GEN_EV_EXC_RETURN)) {
            r->untraced += e->kind == ETM_GEN_EV_INSN;
            r->last_traced = 0;
            continue;
        }
        if (e->kind == ETM_GEN_EV_CANCEL && !r->last_traced)
            continue; /* the cancelled instruction was not traced */
        insn_traced |= e->kind == ETM_GEN_EV_INSN && e->slot == 0;
        expect_event(r, e, restart, &t);
    }
    if (r->data_trace) {
        /* The value of the cycle belongs to an earlier address; then the
         * cycle's transfer: its instruction (the cycle's, for a first
         * transfer) traced unless trace was lost in this cycle. */
        etm_gen_xfer_t gx;
        etm_gen_last_xfer(r->gen, &gx);
        dj_value(&r->dj, in);
        if (out->overflow)
            r->dj.owner_traced = 0;
        dj_transfer(&r->dj, in, &gx, insn_traced && !out->overflow, out->view_data);
    }
}

/* The bytes gathered go to the decoders. */
static void feed(run_t *r, const uint8_t *buf, size_t n)
{
    if (r->ver)
        etm_verify_bytes(r->ver, buf, n, 0);
    if (r->bytes)
        fwrite(buf, 1, n, r->bytes);
    if (r->wj.on)
        judge_v3_feed(&r->wj, r->own, buf, n);
    /* Without data trace OpenCSD decodes the stream; with it, the stream
     * without its data packets (as the project's decoder found them). */
    if (r->oj.on)
        judge_ocsd_feed(&r->ocsd, r->data_trace ? r->pk.strip : buf, r->data_trace ? r->pk.nstrip : n);
    r->pk.nstrip = 0;
    if (r->pk.on) {
        uint32_t used = 0;
        ocsd_datapath_resp_t resp = ocsd_dt_process_data(r->pt, OCSD_OP_DATA, r->fed, (uint32_t)n, buf, &used);
        if (OCSD_DATA_RESP_IS_FATAL(resp) || used != n) {
            judge_fail(r->pk.j, "OpenCSD's packet processor: fatal response %d at byte %" PRIu64, (int)resp,
                       r->fed + used);
            r->pk.on = 0;
        }
        pk_compare(&r->pk);
    }
    r->fed += n;
}

/* A reprogramming (--reprogram): a new trace ID, and in turn the first
 * programming and the second (half the code, or nothing). */
static void start_reprogramming(run_t *r)
{
    int second = (r->reprogrammings++ & 1) == 0;
    uint32_t base = 0, size = 0;
    if (second)
        etm_gen_image(r->img, 0, &base, &size);
    unsigned id = ETM_V_MAJOR(r->version) == 3 ? 1 + (unsigned)(r->reprogrammings % 0x6F) : 0;
    etm_config_t t;
    reprog_target(&t, &r->o->g.cfg, id, second, base, size);
    if (second && r->o->reprogram_ca)
        t.etmcr ^= ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE);
    size_t n = etm_program_ops(&t, &r->now, r->ops, ETM_PROGRAM_MAX_OPS);
    r->poll_at = 0;
    for (size_t k = 0; k < n; k++)
        if (r->ops[k].kind == ETM_APB_POLL)
            r->poll_at = k + 1;
    etm_apb_driver_start(&r->drv, r->ops, n);
    r->next = t;
    r->now = t;
}

/* The decoders of the last session end; new ones start for cfg's trace. */
static void restart_decoders(run_t *r, const etm_config_t *cfg)
{
    if (r->oj.on)
        judge_ocsd_close(&r->ocsd);
    if (r->wj.on)
        judge_v3_close(&r->wj, r->own);
    r->own = NULL;
    r->dec_cfg = *cfg;
    if (start_decoders(r) != 0) {
        judge_fail(&r->oj, "the decoders could not start again");
        judge_fail(&r->wj, "the decoders could not start again");
    }
}

static void run_cycles(run_t *r)
{
    const uint64_t cycles = r->o->g.cycles;
    uint8_t buf[4096];
    size_t nbuf = 0;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_in_t in;
    etm_out_t out;
    for (uint64_t c = 0;; c++) {
        int more = c < cycles;
        etm_err_t de = ETM_OK;
        if (more) {
            unsigned n = etm_gen_next(r->gen, &in, ev);
            if (r->o->reprogram) {
                if (!etm_apb_busy(&r->drv) && c && c % r->o->reprogram == 0)
                    start_reprogramming(r);
                if (etm_apb_busy(&r->drv))
                    etm_apb_drive(&r->drv, &in);
            }
            if (r->ver)
                etm_verify_cycle(r->ver, &in);
            if (etm_step(r->etm, &in, &out) == ETM_ERR_RULE) {
                judge_fail(&r->oj, "cycle %" PRIu64 ": the generator broke an interface rule", c);
                judge_fail(&r->wj, "cycle %" PRIu64 ": the generator broke an interface rule", c);
            }
            expect_cycle(r, &in, &out, ev, n);
            if (etm_get_stats(r->etm)->restarts != r->restarts) {
                /* Programmed again: trace starts over, A-sync first; a trigger
                 * before its I-sync is one OpenCSD does not see. */
                r->restarts = etm_get_stats(r->etm)->restarts;
                r->synced = 0;
                r->active = 0;
            }
            if (r->o->reprogram && etm_apb_busy(&r->drv)) {
                etm_apb_observe(&r->drv, &out);
                if (r->drv.pc == r->poll_at && r->drv.access == 0 && !etm_config_equal(&r->next, &r->dec_cfg) &&
                    (r->next.etmcr ^ r->dec_cfg.etmcr) & ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE)) {
                    /* ETMSR[1] read 1: the last session's bytes have all left. */
                    for (unsigned b = 0; b < out.v3_count; b++)
                        buf[nbuf++] = out.v3_bytes[b];
                    out.v3_count = 0;
                    feed(r, buf, nbuf);
                    nbuf = 0;
                    restart_decoders(r, &r->next);
                }
            }
        } else {
            if (c == cycles) {
                /* Trace that ends while lost to an overflow (waiting for the FIFO
                 * to drain, or its last bytes not fitting) has no restart to say so. */
                uint64_t ov = etm_get_stats(r->etm)->overflows;
                etm_end(r->etm);
                r->end_lost = r->prev_ovf || etm_get_stats(r->etm)->overflows != ov;
            }
            de = etm_drain(r->etm, &out);
        }
        for (unsigned b = 0; b < out.v3_count; b++)
            buf[nbuf++] = out.v3_bytes[b];
        if (nbuf > sizeof buf - 16 || (!more && de == ETM_END)) {
            feed(r, buf, nbuf);
            nbuf = 0;
        }
        if (!more && de == ETM_END)
            break;
    }
}

/* ---- The verdict --------------------------------------------------------------------------- */

static void finish_decoders(run_t *r)
{
    if (r->oj.on)
        judge_ocsd_close(&r->ocsd);
    if (r->wj.on) {
        judge_v3_close(&r->wj, r->own);
        if (r->data_trace && r->end_lost)
            dj_overflow(&r->dj); /* lost as the instructions are */
        if (r->data_trace)
            dj_end(&r->dj);
    }
    if (r->pt) {
        ocsd_dt_process_data(r->pt, OCSD_OP_EOT, 0, 0, NULL, NULL);
        pk_compare(&r->pk);
        ocsd_destroy_dcd_tree(r->pt);
    }
}

static void print_model(const run_t *r)
{
    const opts_t *o = r->o;
    const etm_stats_t *st = etm_get_stats(r->etm);
    printf("%s ETMCR=0x%08" PRIx32 " ETMIDR=0x%08" PRIx32 " issue %u: %" PRIu64 " cycles, %" PRIu64
           " bytes, %.3f bits/instruction, %" PRIu64 " overflows\n",
           o->g.preset, o->g.cfg.etmcr, o->g.cfg.etmidr, o->g.gp.issue_width, st->cycles, st->bytes,
           st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0, st->overflows);
    printf("packets:");
    for (int k = 0; k < (r->data_trace ? ETM_PKT_ALL_COUNT : ETM_PKT_KIND_COUNT); k++)
        printf(" %s %" PRIu64 ";", etm_pkt_kind_name((etm_pkt_kind_t)k), st->packets[k]);
    printf("\n");
}

static void print_data(run_t *r)
{
    const djudge_t *dj = &r->dj;
    printf("data: %" PRIu64 " transfers (%" PRIu64 " values in order, %" PRIu64 " placed and %" PRIu64
           " out of order, %" PRIu64 " not traced, %" PRIu64 " failed stores), %" PRIu64 " lost to overflows, %"
           PRIu64 " without their value at the end; OpenCSD: %" PRIu64 " packets compared (%" PRIu64 " data)%s\n",
           dj->compared, dj->normal, dj->placed, dj->ooo, dj->not_traced, dj->failed, dj->lost, dj->end_dropped,
           r->pk.compared, r->pk.data_compared,
           r->addr_only ? "; not its packet processor, which cannot parse address-only data packets" : "");
    /* A random filter may keep trace (and ViewData) off most of the run. */
    uint64_t min_compared = r->o->g.random_filter ? r->o->g.cycles / 10000 + 1 : r->o->g.cycles / 100;
    if (dj->compared < min_compared)
        judge_fail(&r->wj, "only %" PRIu64 " data transfers compared (at least %" PRIu64 " expected)", dj->compared,
                   min_compared);
}

static int verdict(run_t *r)
{
    const opts_t *o = r->o;
    const etm_stats_t *st = etm_get_stats(r->etm);
    int failed = 0;
    print_model(r);
    if (r->data_trace)
        print_data(r);
    if (o->g.random_filter || r->te_rises > 1)
        printf("filter: trace turned on %" PRIu64 " times, %" PRIu64 " of %" PRIu64 " instructions filtered out\n",
               r->te_rises, r->untraced, st->instructions);
    if (o->g.random_filter && r->te_rises < 10) {
        printf("FAILED: the filter turned trace on only %" PRIu64 " times\n", r->te_rises);
        failed = 1;
    }
    if (o->reprogram) {
        printf("programming: %" PRIu64 " reprogrammings through the debug APB, %" PRIu64 " restarts, %" PRIu64
               " decoder sessions, %" PRIu64 " register writes\n",
               r->reprogrammings, st->restarts, r->sessions, st->reg_writes);
        if (!r->reprogrammings || st->restarts < r->reprogrammings + 1 || (o->reprogram_ca && r->sessions < 2) ||
            st->violations) {
            printf("FAILED: the reprogramming did not happen as it should (or broke a rule)\n");
            failed = 1;
        }
    }
    for (int k = 0; k < ETM_PKT_ALL_COUNT; k++)
        if (o->required[k] && !st->packets[k]) {
            printf("FAILED: no %s packet was emitted\n", etm_pkt_kind_name((etm_pkt_kind_t)k));
            failed = 1;
        }
    if (r->ver) {
        etm_verify_end(r->ver, etm_untraced_overflow(r->etm));
        const etm_verify_result_t *vr = etm_verify_result(r->ver);
        if (vr->failures) {
            char what[600];
            printf("scoreboard: FAILED: %s\n", etm_verify_describe(r->ver, what, sizeof what));
            failed = 1;
        } else {
            printf("scoreboard: %" PRIu64 " instructions, %" PRIu64 " outside TraceEnable, %" PRIu64
                   " overflow restarts: the trace is right\n", vr->instructions, vr->untraced, vr->overflows);
        }
        etm_verify_destroy(r->ver);
        r->ver = NULL;
    }
    judge_t *js[2] = { &r->oj, &r->wj };
    for (int k = 0; k < 2; k++) {
        judge_t *j = js[k];
        if (!j->on)
            continue;
        /* Exact without overflows; with them, events in the cycles an overflow lost are not traced at all. */
        if (!o->expect_untraceable && (st->overflows ? st->untraceable > r->version_limited
                                                     : st->untraceable != r->version_limited))
            judge_fail(j, "%" PRIu64 " untraceable events, %" PRIu64 " expected (exceptions and returns ETMv%u.%u "
                       "cannot express)", st->untraceable, r->version_limited, ETM_V_MAJOR(r->version),
                       ETM_V_MINOR(r->version));
        if (!st->untraceable && o->expect_untraceable)
            judge_fail(j, "no untraceable event, though this configuration was expected to have some");
        judge_finish(j, r->end_lost, o->g.random_filter || o->reprogram ? o->g.cycles / 40 : o->g.cycles / 4);
        failed |= judge_print(j, stdout, "", 0);
    }
    if (r->oj.on)
        judge_ocsd_print_packing(&r->ocsd, stdout, "");
    return failed;
}

int main(int argc, char **argv)
{
    static opts_t o;
    static run_t r;
    if (parse_args(&o, argc, argv) != 0)
        return usage();
    r.o = &o;
    etm_config_version(&o.g.cfg, &r.version, NULL);
    r.tailchain_return = o.g.cfg.tailchain_return != 0;
    r.trace_start = o.g.cfg.trace_start != 0;
    if (setup(&r) != 0)
        return 2;
    run_cycles(&r);
    finish_decoders(&r);
    int failed = verdict(&r);
    judge_free(&r.oj);
    judge_free(&r.wj);
    free(r.dj.q);
    free(r.pk.strip);
    if (r.bytes)
        fclose(r.bytes);
    etm_destroy(r.etm);
    etm_gen_free(r.gen);
    etm_gen_free(r.img);
    return failed;
}
