/* cmd_decode_v1.c - `etm decode` on an ETMv1 port: the configuration says ETMv1
 * (ETMCCR[31] = 0), and the input is the port itself, PIPESTAT, TRACEPKT and
 * TRACESYNC per cycle, from an expected-output vector file or a VCD. Decoded with
 * the project's own ETMv1 decoder (etm/decode_v1.h, docs/decoder-v1.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/decode_v1.h"
#include "json.h"
#include "subcommands.h"

/* File lines of recent cycles, so that an error about an earlier cycle can name its
 * line. Cycles older than this are reported without one. */
#define LINE_RING 65536u

typedef struct v1out {
    int elements;
    int cycle_acc;
} v1out_t;

static const char *reason_text(unsigned r)
{
    static const char *const names[8] = { "normal", "trace enabled", "overflow", "debug exit",
                                          "periodic", "reserved 5", "reserved 6", "reserved 7" };
    return names[r & 7u];
}

static void print_opcode(const etm_v1_insn_t *in)
{
    if (in->size == 4)
        printf("%04" PRIx32 " %04" PRIx32, in->opcode >> 16, in->opcode & 0xFFFFu);
    else
        printf("%04" PRIx32 "     ", in->opcode);
}

static void print_el(void *user, const etm_v1el_t *e)
{
    const v1out_t *o = (const v1out_t *)user;
    if (!o->elements)
        return;
    printf("%10" PRIu64 "  ", e->cycle);
    switch (e->kind) {
    case ETM_V1EL_INSN:
        printf("%08" PRIx32 "  ", e->addr);
        print_opcode(&e->insn);
        printf("  %c  %s", e->executed ? 'E' : 'N', etm_v1_pipestat_name(e->status));
        if (e->status == ETM_V1_PS_BE || e->status == ETM_V1_PS_BD)
            printf(" -> %08" PRIx32, e->target);
        else if (e->insn.flow == ETM_V1_FLOW_DIRECT && e->executed)
            printf("    branch -> %08" PRIx32, e->insn.target);
        if (e->abandoned)
            printf("  (abandoned: its target did not execute)");
        break;
    case ETM_V1EL_DATA:
        printf("DATA %s", e->is_store ? "store" : "load ");
        if (e->has_data_addr) {
            if (e->data_addr_valid)
                printf(" address %08" PRIx32, e->data_addr);
            else
                printf(" address ????%04" PRIx32 " (no full data address yet)", e->data_addr & 0xFFFFu);
        }
        if (e->nbytes) {
            printf(" value");
            for (unsigned i = 0; i < e->nbytes; i++)
                printf(" %02x", e->bytes[i]);
        }
        break;
    case ETM_V1EL_TRACE_ON:
        printf("TRACE ON at %08" PRIx32 " (%s)", e->addr, reason_text(e->reason));
        break;
    case ETM_V1EL_SYNC:
        printf("SYNC at %08" PRIx32 " (full address, %s)", e->addr, reason_text(e->reason));
        break;
    case ETM_V1EL_TRIGGER:
        printf("TRIGGER");
        break;
    case ETM_V1EL_ABANDON:
        printf("ABANDON %08" PRIx32 " did not execute; execution went to %08" PRIx32, e->addr, e->target);
        break;
    default:
        printf("%s", etm_v1el_kind_name(e->kind));
        break;
    }
    if ((e->kind == ETM_V1EL_TRACE_ON || e->kind == ETM_V1EL_SYNC) && e->has_context_id)
        printf("  context 0x%" PRIx32, e->context_id);
    printf("\n");
}

static void report(const char *path, const unsigned long *lines, uint64_t fed, const etm_diag_t *d)
{
    unsigned long line = 0;
    if (lines && d->cycle != UINT64_MAX && d->cycle < fed && fed - d->cycle <= LINE_RING)
        line = lines[d->cycle % LINE_RING];
    fflush(stdout);
    if (line)
        fprintf(stderr, "etm decode: %s:%lu: cycle %" PRIu64 ": %s\n", path, line, d->cycle, d->msg);
    else if (d->cycle != UINT64_MAX)
        fprintf(stderr, "etm decode: %s: cycle %" PRIu64 ": %s\n", path, d->cycle, d->msg);
    else
        fprintf(stderr, "etm decode: %s: %s\n", path, d->msg);
}

int decode_v1_run(const decode_v1_args_t *a)
{
    etm_diag_t d;
    etm_v1dec_t *dec = NULL;
    source_t src;
    source_opts_t so = *a->so;
    int rc = 2, errors = 0, stop = 0;
    unsigned long *lines = NULL;
    uint64_t fed = 0;
    v1out_t o;

    etm_diag_clear(&d);
    if (etm_v1dec_create(&dec, a->cfg, 0, a->strict ? ETM_V1DEC_STRICT : 0u, &d) != ETM_OK) {
        fprintf(stderr, "etm decode: configuration: %s\n", d.msg);
        return 2;
    }
    if (a->nwindows && etm_v1dec_set_windows(dec, a->windows, a->nwindows) != ETM_OK) {
        fprintf(stderr, "etm decode: out of memory\n");
        etm_v1dec_destroy(dec);
        return 2;
    }
    if (!a->nwindows)
        fprintf(stderr, "etm decode: no --image: the ETMv1 decoder follows the program through the code "
                        "image and stops at the first instruction\n");
    o.elements = a->elements;
    o.cycle_acc = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, a->cfg->etmcr) != 0;
    etm_v1dec_on_element(dec, print_el, &o);

    /* The configuration was taken from the file (vector header) or given for a VCD;
     * of the outputs only the three port signals are needed (checked below). */
    so.config_path = NULL;
    so.vcd.allow_missing = 1;
    if (source_open(&src, a->path, &so, ETM_VEC_EXPECTED) != 0) {
        etm_v1dec_destroy(dec);
        return 2;
    }
    uint64_t have = source_signal_mask(&src);
    static const char *const needed[3] = { "PIPESTAT", "TRACEPKT", "TRACESYNC" };
    for (int k = 0; k < 3; k++) {
        int i = etm_signal_find(etm_out_signals, etm_out_signal_count, needed[k]);
        if (i < 0 || !(have & (1ull << i))) {
            fprintf(stderr, "etm decode: %s: no %s column or signal: an ETMv1 trace needs PIPESTAT, TRACEPKT "
                            "and TRACESYNC\n", a->path, needed[k]);
            goto done;
        }
    }
    lines = src.is_vcd ? NULL : (unsigned long *)calloc(LINE_RING, sizeof *lines);
    if (!src.is_vcd && !lines) {
        fprintf(stderr, "etm decode: out of memory\n");
        goto done;
    }

    for (;;) {
        etm_out_t rec;
        etm_err_t e = source_read_out(&src, &rec);
        if (e == ETM_END)
            break;
        if (e != ETM_OK) /* printed by source_read_out */
            goto done;
        if (lines)
            lines[fed % LINE_RING] = source_line(&src);
        fed++;
        etm_diag_clear(&d);
        if (etm_v1dec_step(dec, &rec, &d) != ETM_OK) {
            report(a->path, lines, fed, &d);
            errors++;
            if (!a->keep_going) {
                stop = 1;
                break;
            }
        }
    }
    /* End of the trace (after an error too, unless stopping: what is pending). */
    while (!stop) {
        etm_diag_clear(&d);
        if (etm_v1dec_end(dec, &d) == ETM_OK)
            break;
        report(a->path, lines, fed, &d);
        errors++;
        if (!a->keep_going)
            break;
    }
    fflush(stdout);
    rc = errors ? 2 : 0;
    if (a->json) {
        const etm_v1dec_stats_t *s = etm_v1dec_get_stats(dec);
        json_t j;
        json_begin(&j, stdout, "decode", rc);
        json_str(&j, "trace", a->path);
        json_str(&j, "protocol", "etmv1");
        json_object(&j, "stats");
        json_u64(&j, "cycles", s->cycles);
        json_u64(&j, "instructions", s->insns);
        json_u64(&j, "executed", s->executed);
        json_u64(&j, "branches", s->branches);
        json_u64(&j, "data_transfers", s->data);
        json_u64(&j, "restarts", s->restarts);
        json_u64(&j, "triggers", s->triggers);
        json_u64(&j, "packets", s->packets);
        json_u64(&j, "unsynced_statuses", s->unsynced_statuses);
        json_end(&j);
        json_u64(&j, "errors", s->errors);
        json_finish(&j);
    } else if (a->stats) {
        const etm_v1dec_stats_t *s = etm_v1dec_get_stats(dec);
        printf("cycles %" PRIu64 ", instructions %" PRIu64 " (%" PRIu64 " executed), branches %" PRIu64
               ", data transfers %" PRIu64 ", trace restarts %" PRIu64 ", triggers %" PRIu64 ", packets %" PRIu64
               ", statuses before synchronisation %" PRIu64 ", errors %" PRIu64 "\n",
               s->cycles, s->insns, s->executed, s->branches, s->data, s->restarts, s->triggers, s->packets,
               s->unsynced_statuses, s->errors);
    }
done:
    free(lines);
    source_close(&src);
    etm_v1dec_destroy(dec);
    return rc;
}
