/* ocsd_roundtrip.c - OpenCSD, written by others, judges the model's ETMv3 trace.
 *
 * The stimulus generator runs a random Thumb-2 program; its log of what executed
 * (instructions with their E/N outcome and cycle, exception entries and returns,
 * cancels) is the expected answer. The model turns the generator's interface
 * signals into ETMv3 bytes; Debian's libopencsd decodes them with the generator's
 * code image (full decode, Cortex-M profile). The two sequences must agree:
 * every instruction address and outcome, every exception number, every
 * exception return, the trigger, and in cycle-accurate mode every instruction's
 * cycle. OpenCSD must report no error.
 *
 * OpenCSD attaches cycle counts to the elements it outputs, so when a Cancel
 * makes it withdraw the range of the cancelled atom, the W atoms of that range's
 * P-header vanish from its sums. The cycles did pass; the harness adds that
 * header's count back (seen through OpenCSD's own packet monitor).
 *
 *   ocsd_roundtrip [--preset NAME] [--set REG=0xV]... [--cycles N] [--seed S]
 *                  [--issue-width 2] [--irq-period N] [--sleep N] [--triggers]
 *                  [--bytes FILE] [--no-cycles] [--expect-untraceable]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv3/trc_pkt_types_etmv3.h>

#include "etm/etm.h"

enum { X_INSN, X_EXC, X_ERET, X_TRIG, X_RESYNC };

typedef struct xitem {
    uint8_t kind;
    uint8_t exec;
    uint32_t addr;
    uint32_t num;    /* traced exception number */
    uint64_t cycle;  /* 1-based: cycle index + 1 */
} xitem_t;

#define QCAP (1u << 20)

typedef struct harness {
    xitem_t *q;
    size_t head, len;
    int ca;
    uint64_t cc_sum;   /* OpenCSD's cycle counts summed in element order */
    uint64_t compared, exceptions, erets, triggers, lost, overflows;
    uint64_t errors;
    const etm_gen_t *gen;
    uint32_t last_phdr_cc;  /* cycle count of the last packet, if it was a P-header */
    int no_cycles;          /* --no-cycles: do not compare cycles */
    char first_error[512];
} harness_t;

static const char *kind_name(int k)
{
    static const char *const n[] = { "instruction", "exception", "exception return", "trigger", "resync" };
    return n[k];
}

static void fail(harness_t *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#include <stdarg.h>
static void fail(harness_t *h, const char *fmt, ...)
{
    if (h->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(h->first_error, sizeof h->first_error, fmt, ap);
        va_end(ap);
    }
}

static void push(harness_t *h, const xitem_t *x)
{
    if (h->len == QCAP) {
        fail(h, "expected-item queue full: OpenCSD lags more than %u items", QCAP);
        return;
    }
    h->q[(h->head + h->len) % QCAP] = *x;
    h->len++;
}

/* Remove the last expected instruction (cancelled). */
static void pop_last_insn(harness_t *h)
{
    for (size_t i = h->len; i-- > 0;) {
        xitem_t *x = &h->q[(h->head + i) % QCAP];
        if (x->kind == X_INSN) {
            for (size_t j = i; j + 1 < h->len; j++)
                h->q[(h->head + j) % QCAP] = h->q[(h->head + j + 1) % QCAP];
            h->len--;
            return;
        }
    }
    fail(h, "a cancel with no instruction before it");
}

static xitem_t *front(harness_t *h) { return h->len ? &h->q[h->head] : NULL; }
static void pop_front(harness_t *h)
{
    h->head = (h->head + 1) % QCAP;
    h->len--;
}

static unsigned insn_size(const harness_t *h, uint32_t addr)
{
    for (unsigned w = 0; w < 2; w++) {
        uint32_t base, size;
        const uint8_t *m = etm_gen_image(h->gen, w, &base, &size);
        if (addr - base < size - 1) {
            unsigned hw = m[addr - base + 1];
            return (hw >> 3) >= 0x1d ? 4 : 2;
        }
    }
    return 2;
}

static void got_insn(harness_t *h, uint32_t addr, int exec, uint64_t cycle)
{
    xitem_t *x = front(h);
    if (!x) {
        fail(h, "OpenCSD reports an instruction at 0x%08" PRIx32 " that was not executed (nothing expected)", addr);
        return;
    }
    if (x->kind != X_INSN) {
        fail(h, "expected %s (num %u), OpenCSD reports an instruction at 0x%08" PRIx32, kind_name(x->kind), x->num,
             addr);
        pop_front(h);
        return;
    }
    if (x->addr != addr || x->exec != exec)
        fail(h, "instruction %" PRIu64 ": expected 0x%08" PRIx32 " %c, OpenCSD 0x%08" PRIx32 " %c", h->compared,
             x->addr, x->exec ? 'E' : 'N', addr, exec ? 'E' : 'N');
    else if (h->ca && !h->no_cycles && x->cycle != cycle)
        fail(h, "instruction %" PRIu64 " at 0x%08" PRIx32 ": executed in cycle %" PRIu64 ", OpenCSD's cycle counts "
             "give %" PRIu64, h->compared, addr, x->cycle, cycle);
    h->compared++;
    pop_front(h);
}

static void got_other(harness_t *h, int kind, uint32_t num)
{
    xitem_t *x = front(h);
    if (!x || x->kind != kind || (kind == X_EXC && x->num != num)) {
        if (x && x->kind == X_INSN)
            fail(h, "expected the instruction at 0x%08" PRIx32 ", OpenCSD reports %s %u", x->addr, kind_name(kind), num);
        else
            fail(h, "expected %s %u, OpenCSD reports %s %u", x ? kind_name(x->kind) : "nothing", x ? x->num : 0,
                 kind_name(kind), num);
        if (x)
            pop_front(h);
        return;
    }
    pop_front(h);
}

static ocsd_datapath_resp_t on_elem(const void *ctx, const ocsd_trc_index_t idx, const uint8_t id,
                                    const ocsd_generic_trace_elem *e)
{
    harness_t *h = (harness_t *)ctx;
    (void)id;
    switch (e->elem_type) {
    case OCSD_GEN_TRC_ELEM_INSTR_RANGE: {
        uint32_t a = (uint32_t)e->st_addr;
        if (e->has_cc)
            h->cc_sum += e->cycle_count;
        for (uint32_t i = 0; i < e->num_instr_range; i++) {
            int last = i + 1 == e->num_instr_range;
            got_insn(h, a, last ? (int)e->last_instr_exec : 1, h->cc_sum);
            a += insn_size(h, a);
        }
        break;
    }
    case OCSD_GEN_TRC_ELEM_CYCLE_COUNT:
        h->cc_sum += e->cycle_count;
        break;
    case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
        if (e->has_cc)
            h->cc_sum += e->cycle_count;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION:
        got_other(h, X_EXC, e->exception_number);
        h->exceptions++;
        break;
    case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
        got_other(h, X_ERET, 0);
        h->erets++;
        break;
    case OCSD_GEN_TRC_ELEM_EVENT:
        if (e->trace_event.ev_type == EVENT_TRIGGER) {
            got_other(h, X_TRIG, 0);
            h->triggers++;
        }
        break;
    case OCSD_GEN_TRC_ELEM_TRACE_ON:
        if (e->trace_on_reason == TRACE_ON_OVERFLOW) {
            /* Trace before the restart is lost: drop expectations up to the marker. */
            h->overflows++;
            while (h->len && front(h)->kind != X_RESYNC) {
                h->lost++;
                pop_front(h);
            }
            if (h->len)
                pop_front(h);
            else
                fail(h, "OpenCSD reports an overflow restart the model did not make");
        }
        break;
    case OCSD_GEN_TRC_ELEM_NO_SYNC:
    case OCSD_GEN_TRC_ELEM_EO_TRACE:
    case OCSD_GEN_TRC_ELEM_TIMESTAMP:
        break;
    default:
        fail(h, "OpenCSD element %d at byte %" PRIu64 " (address 0x%" PRIx64 "): the trace lost its way", (int)e->elem_type,
             (uint64_t)idx, (uint64_t)e->st_addr);
        break;
    }
    return OCSD_RESP_CONT;
}

static void on_packet(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx, const void *pkt,
                      const uint32_t size, const uint8_t *data)
{
    harness_t *h = (harness_t *)(uintptr_t)ctx;
    const ocsd_etmv3_pkt *p = (const ocsd_etmv3_pkt *)pkt;
    (void)idx;
    (void)size;
    (void)data;
    if (op != OCSD_OP_DATA || !p)
        return;
    if (p->type == ETM3_PKT_BRANCH_ADDRESS && p->exception.bits.present && p->exception.bits.cancel)
        h->cc_sum += h->last_phdr_cc;
    h->last_phdr_cc = p->type == ETM3_PKT_P_HDR ? p->cycle_count : 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: ocsd_roundtrip [--preset NAME] [--set REG=0xV]... [--cycles N] [--seed S]\n"
                    "       [--issue-width 2] [--irq-period N] [--sleep N] [--triggers] [--bytes FILE]\n"
                    "       [--no-cycles] [--expect-untraceable]\n");
    return 2;
}

int main(int argc, char **argv)
{
    etm_config_t cfg;
    etm_config_default(&cfg);
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    uint64_t cycles = 1000000;
    const char *bytes_path = NULL;
    const char *preset = "etm-m3";
    int no_cycles = 0, expect_untraceable = 0;
    etm_diag_t d;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--preset") && v) {
            preset = v;
            if (etm_config_preset(&cfg, v) != ETM_OK)
                return usage();
            i++;
        } else if (!strcmp(a, "--set") && v) {
            if (etm_config_parse_line(&cfg, v, NULL, NULL, &d) != ETM_OK) {
                fprintf(stderr, "--set %s: %s\n", v, d.msg);
                return 2;
            }
            i++;
        } else if (!strcmp(a, "--cycles") && v) {
            cycles = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            gp.seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--issue-width") && v) {
            gp.issue_width = (unsigned)strtoul(v, NULL, 0);
            cfg.issue_width = gp.issue_width;
            i++;
        } else if (!strcmp(a, "--irq-period") && v) {
            gp.irq_period = (unsigned)strtoul(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--sleep") && v) {
            gp.sleep_pct = (unsigned)strtoul(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--max-intnum") && v) {
            gp.max_intnum = (unsigned)strtoul(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--no-cycles")) {
            no_cycles = 1;
        } else if (!strcmp(a, "--expect-untraceable")) {
            expect_untraceable = 1;
        } else if (!strcmp(a, "--triggers")) {
            gp.triggers = 1;
        } else if (!strcmp(a, "--bytes") && v) {
            bytes_path = v;
            i++;
        } else {
            return usage();
        }
    }

    harness_t h;
    memset(&h, 0, sizeof h);
    h.q = (xitem_t *)calloc(QCAP, sizeof *h.q);
    etm_gen_t *gen;
    etm_ctx_t *etm;
    etm_in_t in0;
    if (!h.q || etm_gen_create(&gen, &gp, &d) != ETM_OK) {
        fprintf(stderr, "generator: %s\n", d.msg);
        return 2;
    }
    if (etm_create(&etm, &cfg, &d) != ETM_OK) {
        fprintf(stderr, "model configuration: %s\n", d.msg);
        return 2;
    }
    /* The generator writes its program as it runs, and OpenCSD may read (and
     * keep) code ahead of where the program has got to: give it the complete
     * image, from a first run of an identical generator. */
    etm_gen_t *img;
    if (etm_gen_create(&img, &gp, &d) != ETM_OK)
        return 2;
    for (uint64_t k = 0; k < cycles; k++)
        etm_gen_next(img, &in0, NULL);
    h.gen = img;
    h.ca = (cfg.etmcr & ETM_CR_CYCLE_ACCURATE) != 0;
    h.no_cycles = no_cycles;

    /* OpenCSD: single raw source, full decoder, Cortex-M profile. */
    ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0);
    dcd_tree_handle_t dt = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    ocsd_etmv3_cfg oc;
    memset(&oc, 0, sizeof oc);
    oc.reg_idr = cfg.etmidr;
    oc.reg_ctrl = cfg.etmcr;
    oc.reg_ccer = cfg.etmccer;
    oc.reg_trc_id = cfg.etmtraceidr;
    oc.arch_ver = ARCH_V7;
    oc.core_prof = profile_CortexM;
    unsigned char csid;
    if (!dt || ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_FULL_DECODER, &oc, &csid) != OCSD_OK) {
        fprintf(stderr, "cannot create the OpenCSD decoder\n");
        return 2;
    }
    ocsd_dt_set_gen_elem_outfn(dt, on_elem, &h);
    if (h.ca)
    {
        /* The C API passes the callback as a void pointer. */
        union { FnDefPktDataMon fn; void *p; } cb;
        cb.fn = on_packet;
        ocsd_dt_attach_packet_callback(dt, csid, OCSD_C_API_CB_PKT_MON, cb.p, &h);
    }
    for (unsigned w = 0; w < 2; w++) {
        uint32_t base, size;
        const uint8_t *m = etm_gen_image(img, w, &base, &size);
        ocsd_dt_add_buffer_mem_acc(dt, base, OCSD_MEM_SPACE_ANY, m, size);
    }
    FILE *bf = bytes_path ? fopen(bytes_path, "wb") : NULL;

    uint8_t buf[4096];
    size_t nbuf = 0;
    uint64_t fed = 0;
    int fatal = 0, prev_ovf = 0, cancel_open = 0, trig_waiting = 0;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_in_t in;
    etm_out_t out;
    uint64_t c = 0;
    for (;; c++) {
        int more = c < cycles;
        etm_err_t de = ETM_OK;
        unsigned n = 0;
        if (more) {
            n = etm_gen_next(gen, &in, ev);
            if (etm_step(etm, &in, &out) == ETM_ERR_RULE)
                fail(&h, "cycle %" PRIu64 ": the generator broke an interface rule", c);
        } else {
            if (c == cycles)
                etm_end(etm);
            de = etm_drain(etm, &out);
        }
        /* Expectations for this cycle, in the order the packets carry them. */
        if (more) {
            if (prev_ovf && !out.overflow) {
                xitem_t r = { X_RESYNC, 0, 0, 0, 0 };
                push(&h, &r);
            }
            prev_ovf = out.overflow;
            if (out.trigger) {
                xitem_t t = { X_TRIG, 0, 0, 0, 0 };
                if (cancel_open)
                    trig_waiting = 1;
                else
                    push(&h, &t);
            }
            for (unsigned k = 0; k < n; k++) {
                xitem_t x;
                memset(&x, 0, sizeof x);
                switch (ev[k].kind) {
                case ETM_GEN_EV_INSN:
                    x.kind = X_INSN;
                    x.addr = ev[k].addr;
                    x.exec = ev[k].passed;
                    x.cycle = ev[k].cycle + 1;
                    push(&h, &x);
                    break;
                case ETM_GEN_EV_CANCEL:
                    pop_last_insn(&h);
                    cancel_open = 1;
                    break;
                case ETM_GEN_EV_EXC_ENTRY:
                    x.kind = X_EXC;
                    x.num = etm_m3_traced_exception(ev[k].excnum);
                    push(&h, &x);
                    cancel_open = 0;
                    if (trig_waiting) {
                        xitem_t t = { X_TRIG, 0, 0, 0, 0 };
                        push(&h, &t);
                        trig_waiting = 0;
                    }
                    break;
                case ETM_GEN_EV_EXC_RETURN:
                    /* A return that is the first thing traced after an overflow
                     * restart has no 0x76: the I-sync gives the address. */
                    if (h.len && h.q[(h.head + h.len - 1) % QCAP].kind == X_RESYNC)
                        break;
                    x.kind = X_ERET;
                    push(&h, &x);
                    break;
                }
            }
        }
        for (unsigned b = 0; b < out.v3_count; b++)
            buf[nbuf++] = out.v3_bytes[b];
        if (nbuf > sizeof buf - 16 || (!more && de == ETM_END)) {
            if (bf)
                fwrite(buf, 1, nbuf, bf);
            uint32_t used = 0;
            ocsd_datapath_resp_t r = ocsd_dt_process_data(dt, OCSD_OP_DATA, fed, (uint32_t)nbuf, buf, &used);
            if (OCSD_DATA_RESP_IS_FATAL(r) || used != nbuf) {
                fail(&h, "OpenCSD: fatal response %d at byte %" PRIu64, (int)r, fed + used);
                fatal = 1;
            }
            fed += nbuf;
            nbuf = 0;
        }
        if (fatal || (!more && de == ETM_END))
            break;
        if (h.errors && c > cycles)
            break;
    }
    ocsd_dt_process_data(dt, OCSD_OP_EOT, 0, 0, NULL, NULL);
    ocsd_trc_index_t eidx = 0;
    uint8_t echan = 0;
    char emsg[256] = "";
    ocsd_err_t last = ocsd_get_last_err(&eidx, &echan, emsg, (int)sizeof emsg);
    if (last != OCSD_OK)
        fail(&h, "OpenCSD reported error %d at byte %" PRIu64 ": %s", (int)last, (uint64_t)eidx, emsg);
    /* Whatever is still expected was executed and never decoded. */
    size_t left_insns = 0;
    for (size_t i = 0; i < h.len; i++)
        left_insns += h.q[(h.head + i) % QCAP].kind != X_RESYNC;
    if (left_insns)
        fail(&h, "%zu expected items never came out of OpenCSD (first: %s at 0x%08" PRIx32 ")", left_insns,
             kind_name(front(&h)->kind), front(&h)->addr);

    const etm_stats_t *st = etm_get_stats(etm);
    printf("%s ETMCR=0x%08" PRIx32 " ETMIDR=0x%08" PRIx32 " issue %u: %" PRIu64 " cycles, %" PRIu64
           " bytes, %.3f bits/instruction; OpenCSD: %" PRIu64 " instructions%s, %" PRIu64 " exceptions, %" PRIu64
           " returns, %" PRIu64 " triggers, %" PRIu64 " overflows (%" PRIu64 " items lost)\n",
           preset, cfg.etmcr, cfg.etmidr, gp.issue_width, st->cycles, st->bytes,
           st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0, h.compared,
           h.ca ? " with cycles" : "", h.exceptions, h.erets, h.triggers, h.overflows, h.lost);
    printf("packets:");
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        printf(" %s %" PRIu64 ";", etm_pkt_kind_name((etm_pkt_kind_t)k), st->packets[k]);
    printf("\n");
    if (st->untraceable && !expect_untraceable)
        fail(&h, "%" PRIu64 " untraceable events", st->untraceable);
    if (!st->untraceable && expect_untraceable)
        fail(&h, "no untraceable event, though this configuration was expected to have some");
    if (bf)
        fclose(bf);
    ocsd_destroy_dcd_tree(dt);
    etm_destroy(etm);
    etm_gen_free(gen);
    etm_gen_free(img);
    free(h.q);
    if (h.errors) {
        fprintf(stderr, "FAILED: %" PRIu64 " differences; first: %s\n", h.errors, h.first_error);
        return 1;
    }
    if (h.compared < cycles / 4) {
        fprintf(stderr, "FAILED: only %" PRIu64 " instructions compared\n", h.compared);
        return 1;
    }
    printf("zero differences\n");
    return 0;
}
