/* roundtrip_v1.c - the project's ETMv1 decoder (etm/decode_v1.h), which shares
 * no code with the encoder, judges the model's ETMv1 port output.
 *
 * The stimulus generator's log of what executed is the expected answer, changed
 * only where ETMv1 cannot say more (docs/etmv1-encoder.md): an exception shows
 * as a branch of the instruction before it, so that instruction is reported as
 * executed even if it failed its condition or was cancelled; exception numbers
 * and returns are not traced. The data slot traffic of the stimulus gives the
 * expected data of each load and store: the first transfer's address and the
 * bytes its byte lanes select. The decoder must report every instruction
 * (address, size, E/N), every traced data transfer, the trigger, and the
 * restarts after overflows, with no error.
 *
 *   roundtrip_v1 [--preset NAME] [--set REG=0xV]... [--cycles N] [--seed S]
 *                [--data] [--data-mix] [--data-delay N] [--triggers] [--irq-period N]
 *                [--issue-width 2] [--random-filter S] [--expect overflow|trigger|data]...
 *
 * --data-mix and --data-delay vary the slot traffic as for the ETMv3 round trip
 * (etm/gen.h): byte, halfword, unaligned and big-endian accesses, POP {pc} with
 * the PC first, failed STREX and imprecise aborts (ETMv1 traces the bytes of
 * the lanes either way), values late and out of order.
 *
 * With a filter (--random-filter, tb/common/randfilter.h), what must decode is
 * what the model reports it let through: the instructions of cycles with
 * TraceEnable, and the data of those whose first transfer had ViewData
 * (etm_out_t.trace_enable, .view_data; the rules are tested one by one in
 * tb/unit/test_filter.c).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/decode_v1.h"
#include "etm/etm.h"
#include "randfilter.h"

enum { X_INSN, X_TRIG, X_RESYNC };

typedef struct xitem {
    uint8_t kind;
    uint8_t exec;
    uint8_t size;
    uint8_t data;       /* a transfer belongs to it */
    uint8_t nbytes;
    uint32_t addr;
    uint32_t daddr;
    uint8_t bytes[ETM_V1_MAX_DATA_BYTES];
} xitem_t;

#define QCAP (1u << 18)

typedef struct judge {
    xitem_t *q;
    size_t head, len;
    uint64_t seq_head;       /* sequence number of q[head] */
    int data_addr, data_value;
    uint64_t compared, data, triggers, restarts, lost, errors;
    char first_error[512];
} judge_t;

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

/* Push and return the sequence number of the new item. */
static uint64_t push(judge_t *j, const xitem_t *x)
{
    if (j->len == QCAP) {
        fail(j, "expected-item queue full");
        return 0;
    }
    *at(j, j->len) = *x;
    j->len++;
    return j->seq_head + j->len - 1;
}

static xitem_t *by_seq(judge_t *j, uint64_t seq)
{
    if (seq < j->seq_head || seq >= j->seq_head + j->len)
        return NULL;
    return at(j, (size_t)(seq - j->seq_head));
}

static void pop(judge_t *j)
{
    j->head = (j->head + 1) % QCAP;
    j->len--;
    j->seq_head++;
}

static xitem_t *front(judge_t *j) { return j->len ? at(j, 0) : NULL; }

/* The last expected instruction (for the exception rule). */
static xitem_t *last_insn(judge_t *j)
{
    for (size_t i = j->len; i-- > 0;)
        if (at(j, i)->kind == X_INSN)
            return at(j, i);
        else if (at(j, i)->kind == X_RESYNC)
            return NULL;
    return NULL;
}

static void on_elem(void *user, const etm_v1el_t *e)
{
    judge_t *j = (judge_t *)user;
    xitem_t *x = front(j);
    switch (e->kind) {
    case ETM_V1EL_INSN:
        if (!x || x->kind != X_INSN) {
            fail(j, "cycle %" PRIu64 ": the decoder reports an instruction at 0x%08" PRIx32 ", expected %s", e->cycle,
                 e->addr, !x ? "nothing" : x->kind == X_TRIG ? "the trigger" : "a restart");
            if (x)
                pop(j);
            return;
        }
        if (x->addr != e->addr || x->exec != e->executed || x->size != e->insn.size)
            fail(j, "instruction %" PRIu64 " (status cycle %" PRIu64 "): expected 0x%08" PRIx32 " %c size %u, decoded "
                 "0x%08" PRIx32 " %c size %u", j->compared, e->cycle, x->addr, x->exec ? 'E' : 'N', x->size, e->addr,
                 e->executed ? 'E' : 'N', e->insn.size);
        j->compared++;
        /* Its data comes as a DATA element next; keep the item if data is expected. */
        if (!(x->data && (j->data_addr || j->data_value)))
            pop(j);
        return;
    case ETM_V1EL_DATA:
        if (!x || x->kind != X_INSN || !x->data || x->addr != e->addr) {
            fail(j, "cycle %" PRIu64 ": data for 0x%08" PRIx32 " that was not expected", e->cycle, e->addr);
            return;
        }
        if (j->data_addr && (!e->has_data_addr || (e->data_addr_valid && e->data_addr != x->daddr)))
            fail(j, "instruction at 0x%08" PRIx32 ": data address 0x%08" PRIx32 ", decoded 0x%08" PRIx32, x->addr,
                 x->daddr, e->data_addr);
        if (j->data_value && (e->nbytes != x->nbytes || memcmp(e->bytes, x->bytes, x->nbytes)))
            fail(j, "cycle %" PRIu64 ": instruction at 0x%08" PRIx32 ": %u data bytes expected, %u decoded (or different "
                 "values)", e->cycle, x->addr, x->nbytes, e->nbytes);
        j->data++;
        pop(j);
        return;
    case ETM_V1EL_TRIGGER:
        j->triggers++;
        /* The trigger is not ordered against the instructions (its status goes
         * out when the event fires); it is counted. */
        return;
    case ETM_V1EL_TRACE_ON:
        if (e->reason == ETM_V1_REASON_OVERFLOW) {
            j->restarts++;
            while (j->len && front(j)->kind != X_RESYNC) {
                j->lost++;
                pop(j);
            }
            if (j->len)
                pop(j);
            else
                fail(j, "the decoder reports an overflow restart the model did not make");
        }
        return;
    case ETM_V1EL_SYNC:
        return;
    default:
        fail(j, "cycle %" PRIu64 ": unexpected %s element at 0x%08" PRIx32, e->cycle, etm_v1el_kind_name(e->kind),
             e->addr);
        return;
    }
}

/* Data slot tracking: which expected instruction a transfer belongs to. */
typedef struct dtrack {
    int cand_valid;
    uint64_t cand;       /* the newest traced instruction (not an IT folded after another) */
    int owner_valid;     /* transfers go to owner until its last one */
    uint64_t owner;      /* sequence number of the instruction */
    int xfer_open;       /* the last transfer was not its instruction's last: no DAFirst */
    int slot_valid[4];
    uint64_t slot_owner[4];
    uint8_t slot_lanes[4];
    uint8_t slot_off[4];  /* where the transfer's bytes go in its instruction's: values may come out of order */
} dtrack_t;

static int usage(void)
{
    fprintf(stderr, "usage: roundtrip_v1 [--preset NAME] [--set REG=0xV]... [--cycles N] [--seed S] [--data]\n"
                    "       [--data-mix] [--data-delay N] [--triggers] [--irq-period N] [--issue-width 2]\n"
                    "       [--random-filter S]\n"
                    "       [--expect overflow|trigger|data]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, "etmv1.3");
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    uint64_t cycles = 1000000;
    const char *preset = "etmv1.3";
    int want_overflow = 0, want_trigger = 0, want_data = 0, random_filter = 0;
    uint64_t filter_seed = 0;
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
        } else if (!strcmp(a, "--irq-period") && v) {
            gp.irq_period = (unsigned)strtoul(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--issue-width") && v) {
            gp.issue_width = (unsigned)strtoul(v, NULL, 0);
            cfg.issue_width = gp.issue_width;
            i++;
        } else if (!strcmp(a, "--random-filter") && v) {
            random_filter = 1;
            filter_seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--expect") && v) {
            if (!strcmp(v, "overflow"))
                want_overflow = 1;
            else if (!strcmp(v, "trigger"))
                want_trigger = 1;
            else if (!strcmp(v, "data"))
                want_data = 1;
            else
                return usage();
            i++;
        } else if (!strcmp(a, "--data-delay") && v) {
            gp.data = 1;
            gp.data_delay = (unsigned)strtoul(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--data")) {
            gp.data = 1;
        } else if (!strcmp(a, "--data-mix")) {
            gp.data = gp.data_mix = 1;
        } else if (!strcmp(a, "--triggers")) {
            gp.triggers = 1;
        } else {
            return usage();
        }
    }
    if (random_filter) {
        char desc[2048];
        if (rf_choose(&cfg, &gp, filter_seed, cycles, gp.data, desc, sizeof desc, &d) != 0) {
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
    for (uint64_t k = 0; k < cycles; k++) /* the complete code image */
        etm_gen_next(img, &in, NULL);
    etm_v1_window_t win[2];
    for (unsigned w = 0; w < 2; w++) {
        uint32_t size;
        win[w].bytes = etm_gen_image(img, w, &win[w].base, &size);
        win[w].size = size;
    }
    etm_v1dec_t *dec;
    if (etm_v1dec_create(&dec, &cfg, 0, ETM_V1DEC_STRICT, &d) != ETM_OK) {
        fprintf(stderr, "decoder: %s\n", d.msg);
        return 2;
    }
    judge_t j;
    memset(&j, 0, sizeof j);
    j.q = (xitem_t *)calloc(QCAP, sizeof *j.q);
    if (!j.q)
        return 2;
    j.data_addr = (cfg.etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_ADDR)) != 0;
    j.data_value = (cfg.etmcr & ETM_FIELD_PUT(ETM_CR_DATA_ACCESS, ETM_DATA_ACCESS_VALUE)) != 0;
    etm_v1dec_on_element(dec, on_elem, &j);
    etm_v1dec_set_windows(dec, win, 2);

    dtrack_t dt;
    memset(&dt, 0, sizeof dt);
    uint64_t triggers = 0, te_rises = 0, untraced = 0, unviewed = 0;
    int prev_ovf = 0, te_prev = 0, last_traced = 0;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    etm_out_t out;
    for (uint64_t c = 0;; c++) {
        int more = c < cycles;
        etm_err_t de = ETM_OK;
        if (more) {
            unsigned n = etm_gen_next(gen, &in, ev);
            if (etm_step(etm, &in, &out) == ETM_ERR_RULE)
                fail(&j, "cycle %" PRIu64 ": the generator broke an interface rule", c);
            if (prev_ovf && !out.overflow) {
                xitem_t r;
                memset(&r, 0, sizeof r);
                r.kind = X_RESYNC;
                push(&j, &r);
            }
            prev_ovf = out.overflow;
            triggers += out.trigger;
            /* Data values of earlier addresses. */
            unsigned dds = ETM_DDCTL_SLOT(in.ddctl);
            if (dds && dt.slot_valid[dds]) {
                xitem_t *x = by_seq(&j, dt.slot_owner[dds]);
                unsigned off = dt.slot_off[dds];
                if (x)
                    for (unsigned lane = 0; lane < 8; lane++)
                        if (((dt.slot_lanes[dds] >> lane) & 1) && off < ETM_V1_MAX_DATA_BYTES)
                            x->bytes[off++] = (uint8_t)(in.dd >> (8 * lane));
                dt.slot_valid[dds] = 0;
            }
            int te = out.trace_enable;
            te_rises += te && !te_prev;
            te_prev = te;
            unsigned ninsn = 0;
            for (unsigned k = 0; k < n; k++) {
                if (ev[k].kind == ETM_GEN_EV_EXC_ENTRY && te && last_traced) {
                    xitem_t *p = last_insn(&j); /* shown as the branch to the handler */
                    if (p)
                        p->exec = 1;
                }
                if (ev[k].kind != ETM_GEN_EV_INSN)
                    continue;
                if (!te) {
                    untraced++;
                    last_traced = 0;
                    continue;
                }
                last_traced = 1;
                xitem_t x;
                memset(&x, 0, sizeof x);
                x.kind = X_INSN;
                x.addr = ev[k].addr;
                x.exec = ev[k].passed;
                x.size = ev[k].size;
                uint64_t seq = push(&j, &x);
                if (!(in.fold && ninsn == 1)) { /* a folded IT never owns data */
                    dt.cand = seq;
                    dt.cand_valid = 1;
                }
                ninsn++;
            }
            /* The cycle's transfer: the first of an instruction (DANSeq after a
             * DALast) belongs to the newest traced instruction if trace is on
             * and ViewData too; later ones, a second DANSeq included, to the
             * same instruction. */
            unsigned das = ETM_DACTL_SLOT(in.dactl);
            int first = das && ETM_DACTL_NSEQ(in.dactl) && !dt.xfer_open;
            if (das)
                dt.xfer_open = !(ETM_DACTL_LAST(in.dactl) && !ETM_DACTL_UNALIGNED(in.dactl));
            if (first) {
                dt.owner_valid = te && out.view_data && dt.cand_valid;
                dt.owner = dt.cand;
                unviewed += te && !out.view_data && dt.cand_valid;
                xitem_t *x = dt.owner_valid ? by_seq(&j, dt.owner) : NULL;
                if (x) {
                    x->data = 1;
                    x->daddr = in.da;
                }
            }
            if (das && dt.owner_valid) {
                xitem_t *x = by_seq(&j, dt.owner);
                if (!dt.xfer_open)
                    dt.owner_valid = 0; /* its last transfer */
                dt.slot_valid[das] = 1;
                dt.slot_owner[das] = dt.owner;
                dt.slot_lanes[das] = (uint8_t)ETM_DACTL_BLSEL(in.dactl);
                dt.slot_off[das] = x ? x->nbytes : 0; /* the transfer's bytes follow the earlier transfers' */
                for (unsigned lane = 0; x && lane < 8; lane++)
                    if (((dt.slot_lanes[das] >> lane) & 1) && x->nbytes < ETM_V1_MAX_DATA_BYTES)
                        x->nbytes++;
            }
        } else {
            if (c == cycles) {
                /* A load or store whose transfers or values the run ended
                 * before goes out without data (docs/etmv1-encoder.md). */
                for (unsigned k = 1; k < 4 && j.data_value; k++) {
                    xitem_t *x = dt.slot_valid[k] ? by_seq(&j, dt.slot_owner[k]) : NULL;
                    if (x)
                        x->data = 0;
                }
                xitem_t *o = dt.owner_valid ? by_seq(&j, dt.owner) : NULL;
                if (o)
                    o->data = 0;
                etm_end(etm);
            }
            de = etm_drain(etm, &out);
            prev_ovf |= out.overflow;
        }
        if (etm_v1dec_step(dec, &out, &d) != ETM_OK)
            fail(&j, "decoder, cycle %" PRIu64 ": %s", c, d.msg);
        if (!more && de == ETM_END)
            break;
    }
    if (etm_v1dec_end(dec, &d) != ETM_OK)
        fail(&j, "decoder at the end: %s", d.msg);
    size_t left = 0;
    for (size_t i = 0; i < j.len; i++)
        left += at(&j, i)->kind == X_INSN;
    if (prev_ovf) { /* the trace ended while lost to an overflow: no restart tells */
        j.lost += left;
        left = 0;
    }
    if (left)
        fail(&j, "%zu expected instructions never decoded (first at 0x%08" PRIx32 ")", left, front(&j)->addr);
    if (j.triggers != triggers)
        fail(&j, "%" PRIu64 " triggers fired, %" PRIu64 " decoded", triggers, j.triggers);
    if (j.compared < (random_filter ? cycles / 40 : cycles / 4))
        fail(&j, "only %" PRIu64 " instructions compared", j.compared);
    if (want_overflow && !j.restarts)
        fail(&j, "no overflow restart, though this configuration is meant to have some");
    if (want_trigger && !j.triggers)
        fail(&j, "no trigger decoded, though this configuration is meant to have one");
    if (want_data && !j.data)
        fail(&j, "no data decoded, though this configuration traces data");
    if (random_filter && te_rises < 10)
        fail(&j, "the filter turned trace on only %" PRIu64 " times", te_rises);

    const etm_stats_t *st = etm_get_stats(etm);
    printf("%s ETMCR=0x%08" PRIx32 ": %" PRIu64 " cycles, %" PRIu64 " trace bytes, %.3f bits/instruction, %" PRIu64
           " overflows, %" PRIu64 " untraceable\n",
           preset, cfg.etmcr, st->cycles, st->bytes,
           st->instructions ? 8.0 * (double)st->bytes / (double)st->instructions : 0.0, st->overflows,
           st->untraceable);
    if (random_filter)
        printf("filter: trace turned on %" PRIu64 " times, %" PRIu64 " instructions filtered out, %" PRIu64
               " loads and stores without ViewData\n", te_rises, untraced, unviewed);
    printf("decoder: %" PRIu64 " instructions, %" PRIu64 " with data, %" PRIu64 " triggers, %" PRIu64
           " overflow restarts (%" PRIu64 " items lost): ",
           j.compared, j.data, j.triggers, j.restarts, j.lost);
    int failed = j.errors != 0;
    if (failed)
        printf("%" PRIu64 " differences; first: %s\n", j.errors, j.first_error);
    else
        printf("zero differences\n");
    etm_v1dec_destroy(dec);
    etm_destroy(etm);
    etm_gen_free(gen);
    etm_gen_free(img);
    free(j.q);
    return failed;
}
