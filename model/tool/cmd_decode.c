/* cmd_decode.c - `etm decode`: decode an ETMv3 trace (raw or CoreSight-formatted)
 * into packets and instructions with the project's own decoder (etm/decode_v3.h). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/config_text.h"
#include "etm/coresight.h"
#include "etm/decode_v3.h"
#include "etm/sigrok.h"
#include "etm/snapshot.h"
#include "etm/vector.h"
#include "json.h"
#include "source.h"
#include "subcommands.h"

#define MAX_SETS 32
#define PATH_LEN 4096

static void help(FILE *f)
{
    fprintf(f,
            "usage: etm decode [options] TRACE\n"
            "       etm decode [options] --snapshot DIR [--id N]\n\n"
            "Decodes an ETMv3 trace (ETMv3.0-3.5) with the project's own decoder and prints\n"
            "what happened: synchronisation, instructions (with a code image) or atoms,\n"
            "branches, exceptions, timestamps; in cycle-accurate mode each line starts with\n"
            "the cycle number (docs/decoder.md).\n\n"
            "Trace:\n"
            "  --coresight        TRACE is CoreSight formatter frames (ETB/ETR memory dump)\n"
            "  --tpiu             ... a TPIU capture: skip to the first frame sync (implies --coresight)\n"
            "  --swo              ... the SWO line (implies --coresight): a logic analyzer's capture of\n"
            "                     the pin (sigrok session file, decoded as etm swo does; --channel,\n"
            "                     --baud RATE|auto) or the UART bytes a probe delivers; frames from\n"
            "                     the first byte, without syncs; other IDs (the ITM's) are skipped\n"
            "  --manchester       ... a capture of the pin in Manchester mode (implies --swo)\n"
            "  --id N             trace ID to decode from the frames (needed with --coresight)\n"
            "  --snapshot DIR     an OpenCSD snapshot folder: the trace buffer, the register image of\n"
            "                     the ETM whose ETMTRACEIDR is --id (needed when it holds several\n"
            "                     ETMs), and the cores' memory dumps\n"
            "  --snapshot-outside ... whose .ini files may name files outside it (an absolute path,\n"
            "                     '..', a symbolic link out): refused without this\n"
            "Configuration (default: the etm-m3 preset):\n"
            "  --config FILE      register image (NAME=0xVALUE lines) or a vector file (its header)\n"
            "  --set NAME=0xV     override one register (repeatable)\n"
            "  --v7m, --no-v7m    ARMv7-M exception numbers (default: on when the configuration\n"
            "                     uses the alternative branch encoding, as Cortex-M ETMs do)\n"
            "Code:\n"
            "  --image FILE       code image: an ELF file, placed by its program headers, or\n"
            "                     ADDR:FILE, a raw binary loaded at ADDR (hex); repeatable\n"
            "Output:\n"
            "  --packets          list every packet (offset, raw bytes, fields)\n"
            "  --no-elements      do not list instructions and other elements\n"
            "  --stats            print counts at the end\n"
            "  --json             print the counts as one JSON object (docs/json.md), nothing else\n"
            "  --keep-going       after a malformed packet, report it and resynchronise at the next A-sync\n\n"
            "ETMv1 (a configuration with ETMCCR[31] = 0, e.g. the header of TRACE):\n"
            "  TRACE is the port itself, PIPESTAT, TRACEPKT and TRACESYNC per cycle: an expected-output\n"
            "  vector file (its header is the configuration unless --config is given) or a VCD (with\n"
            "  --config and the VCD options of 'etm check'). Each instruction is printed as\n"
            "  CYCLE ADDRESS OPCODE E|N STATUS (docs/decoder-v1.md).\n"
            "  --strict           also require TRACEPKT 0 where no packet leaves, and the fewest\n"
            "                     packets for a compressed branch address\n"
            "  --keep-going       after an error, report it and go on (resynchronising at the next\n"
            "                     full branch address)\n\n"
            "Exit status: 0 decoded; 2 bad usage, unreadable input or malformed trace (the message\n"
            "names the file and the byte offset; for ETMv1 the line and the cycle).\n");
}

/* ---- Code image ---------------------------------------------------------------- */

static int parse_image_opt(etm_image_t *im, const char *arg)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_image_load_arg(im, arg, &d) != ETM_OK) {
        fprintf(stderr, "etm decode: --image %s\n", d.msg);
        return -1;
    }
    return 0;
}

/* ---- Configuration ------------------------------------------------------------- */


/* ---- Printing ---------------------------------------------------------------- */

typedef struct out {
    int packets, elements, cycle_acc, v7m;
    const char *name;          /* trace file, for messages */
} out_t;

static const char *reason_name(unsigned r)
{
    static const char *const names[4] = { "periodic", "trace-on", "overflow", "debug-exit" };
    return names[r & 3u];
}

static void print_packet(void *user, const etm_v3pkt_t *p)
{
    const out_t *o = (const out_t *)user;
    char raw[3 * ETM_V3_RAW_MAX + 8];
    size_t k = 0;
    for (unsigned i = 0; i < p->raw_len; i++)
        k += (size_t)snprintf(raw + k, sizeof raw - k, "%s%02x", i ? " " : "", p->raw[i]);
    if (p->size > p->raw_len)
        snprintf(raw + k, sizeof raw - k, " ..");
    printf("@%-8" PRIu64 " %-16s %-26s", p->offset, etm_v3pkt_kind_name(p->kind), raw);
    switch (p->kind) {
    case ETM_V3PKT_NOSYNC:
        printf(" %" PRIu64 " bytes skipped before A-sync", p->size);
        break;
    case ETM_V3PKT_PHDR:
        printf(" format %u %s", p->format, p->atoms[0] ? p->atoms : "(no atoms)");
        break;
    case ETM_V3PKT_ISYNC:
    case ETM_V3PKT_ISYNC_CC:
        if (p->kind == ETM_V3PKT_ISYNC_CC)
            printf(" cc=%" PRIu32, p->cycle_count);
        if (p->has_addr)
            printf(" addr=0x%08" PRIx32 " %s", p->addr, etm_v3_isa_name(p->isa));
        printf(" %s%s%s", reason_name(p->reason), p->ns ? " NS" : "", p->hyp ? " Hyp" : "");
        if (p->has_context_id)
            printf(" ctxid=0x%" PRIx32, p->context_id);
        if (p->lsip)
            printf(" lsip=0x%08" PRIx32, p->lsip_addr);
        break;
    case ETM_V3PKT_BRANCH:
        printf(" addr=0x%08" PRIx32 " %s (%u bits)", p->addr, etm_v3_isa_name(p->isa), p->addr_bits);
        if (p->exception) {
            char nm[32];
            printf(" exception %u %s%s%s", p->exc_number, etm_v3_exception_name(p->exc_number, o->v7m, nm, sizeof nm),
                   p->cancel ? " cancel" : "", p->ns ? " NS" : "");
            if (p->has_resume)
                printf(" resume=%u", p->resume);
        }
        break;
    case ETM_V3PKT_CYCLE_COUNT:
        printf(" %" PRIu32, p->cycle_count);
        break;
    case ETM_V3PKT_CONTEXT_ID:
        printf(" 0x%" PRIx32, p->context_id);
        break;
    case ETM_V3PKT_VMID:
        printf(" %u", p->vmid);
        break;
    case ETM_V3PKT_TIMESTAMP:
        printf(" %" PRIu64 "%s", p->timestamp, p->ts_rate_changed ? " (clock changed)" : "");
        break;
    case ETM_V3PKT_NORMAL_DATA:
    case ETM_V3PKT_OOO_DATA:
    case ETM_V3PKT_OOO_PLACEHOLDER:
    case ETM_V3PKT_VALUE_NOT_TRACED:
        if (p->has_data_addr)
            printf(" daddr=0x%08" PRIx32, p->data_addr);
        if (p->value_size)
            printf(" value=0x%0*" PRIx32, (int)(2 * p->value_size), p->value);
        if (p->kind == ETM_V3PKT_OOO_DATA || p->kind == ETM_V3PKT_OOO_PLACEHOLDER)
            printf(" tag=%u", p->tag);
        break;
    default:
        break;
    }
    printf("\n");
}

/* DATA  #seq  load|store|swap|data  address  = value | not traced | value to come (tag) */
static void print_data(const etm_v3_data_t *x)
{
    static const char *const ls[] = { "data", "load", "store", "swap" };
    if (x->kind == ETM_V3_DATA_SUPPRESSED) {
        printf("DATA SUPPRESSED: data packets were dropped from here");
        return;
    }
    printf("DATA #%" PRIu64 " %s", x->seq, ls[x->ls & 3]);
    if (x->addr_valid)
        printf(" %08" PRIx32, x->addr);
    else
        printf(" ????????");
    if (x->kind == ETM_V3_DATA_NOT_TRACED)
        printf(" value not traced");
    else if (x->kind == ETM_V3_DATA_PLACEHOLDER)
        printf(" value to come (tag %u)", x->tag);
    else if (x->value_valid)
        printf(" = 0x%08" PRIx32, x->value);
    if (x->kind == ETM_V3_DATA_OOO)
        printf(" (out of order, tag %u)", x->tag);
    if (x->store_failed)
        printf(" store failed");
    if (x->insn_valid)
        printf("  by %08" PRIx32, x->insn_addr);
}

static void print_element(void *user, const etm_v3el_t *e)
{
    const out_t *o = (const out_t *)user;
    char nm[32];
    if (o->cycle_acc)
        printf("%10" PRIu64 "  ", e->cycle);
    switch (e->kind) {
    case ETM_V3EL_INSN:
        if (e->insn.size == 4 && e->isa != ETM_V3_ISA_ARM)
            printf("%08" PRIx32 "  %s  %04" PRIx32 " %04" PRIx32 "  %c", e->addr, etm_v3_isa_name(e->isa),
                   e->insn.opcode >> 16, e->insn.opcode & 0xFFFFu, e->executed ? 'E' : 'N');
        else if (e->insn.size == 4)
            printf("%08" PRIx32 "  %s  %08" PRIx32 "   %c", e->addr, etm_v3_isa_name(e->isa), e->insn.opcode,
                   e->executed ? 'E' : 'N');
        else
            printf("%08" PRIx32 "  %s  %04" PRIx32 "        %c", e->addr, etm_v3_isa_name(e->isa), e->insn.opcode,
                   e->executed ? 'E' : 'N');
        if (e->insn.branch == ETM_V3_BR_DIRECT)
            printf("  branch -> %08" PRIx32, e->insn.target);
        else if (e->insn.branch == ETM_V3_BR_INDIRECT)
            printf("  indirect branch");
        if (e->lsip)
            printf("  (load/store in progress at I-sync)");
        break;
    case ETM_V3EL_ATOM:
        if (e->addr_valid)
            printf("%08" PRIx32 "  atom %c", e->addr, e->executed ? 'E' : 'N');
        else
            printf("????????  atom %c", e->executed ? 'E' : 'N');
        break;
    case ETM_V3EL_SYNC:
        printf("SYNC %s", reason_name(e->reason));
        if (e->addr_valid)
            printf(" at %08" PRIx32 " %s", e->addr, etm_v3_isa_name(e->isa));
        if (e->has_cycle_count)
            printf(" (%" PRIu32 " cycles since the last P-header)", e->cycle_count);
        if (e->has_context_id)
            printf(" context 0x%" PRIx32, e->context_id);
        if (e->addr_mismatch)
            printf("  WARNING: the code led to %08" PRIx32, e->expected_addr);
        break;
    case ETM_V3EL_OVERFLOW:
        printf("OVERFLOW: trace was lost here");
        break;
    case ETM_V3EL_BRANCH:
        printf("BRANCH -> %08" PRIx32 " %s", e->addr, etm_v3_isa_name(e->isa));
        break;
    case ETM_V3EL_EXCEPTION:
        printf("EXCEPTION %s (%u) -> %08" PRIx32 " %s", etm_v3_exception_name(e->exc_number, o->v7m, nm, sizeof nm),
               e->exc_number, e->addr, etm_v3_isa_name(e->isa));
        if (e->cancel)
            printf("  cancel: %d withdrawn", e->withdrawn);
        if (e->has_resume)
            printf("  resume %u", e->resume);
        break;
    case ETM_V3EL_EXC_RETURN:
        printf("EXCEPTION RETURN");
        break;
    case ETM_V3EL_TRIGGER:
        printf("TRIGGER");
        break;
    case ETM_V3EL_CYCLE_COUNT:
        printf("CYCLE COUNT %" PRIu32, e->cycle_count);
        break;
    case ETM_V3EL_TIMESTAMP:
        printf("TIMESTAMP %" PRIu64, e->timestamp);
        break;
    case ETM_V3EL_CONTEXT:
        if (e->has_context_id)
            printf("CONTEXT ID 0x%" PRIx32, e->context_id);
        else
            printf("VMID %u", e->vmid);
        break;
    case ETM_V3EL_NO_IMAGE:
        printf("NO IMAGE at %08" PRIx32 ": the code image has no instruction there", e->addr);
        break;
    case ETM_V3EL_DATA:
        print_data(&e->data);
        break;
    default:
        printf("%s", etm_v3el_kind_name(e->kind));
        break;
    }
    printf("\n");
}

/* ---- Feeding --------------------------------------------------------------------- */

typedef struct run {
    etm_v3dec_t *dec;
    const char *name;
    int coresight;
    unsigned id;
    int keep_going;
    int errors;
    int stop;
} run_t;

static void report(run_t *r, const etm_diag_t *d, uint64_t file_off)
{
    if (r->coresight)
        fprintf(stderr, "etm decode: %s: offset %" PRIu64 " of the ID 0x%02x stream (file offset %" PRIu64 "): %s\n",
                r->name, d->offset, r->id, file_off, d->msg);
    else
        fprintf(stderr, "etm decode: %s: offset %" PRIu64 ": %s\n", r->name, d->offset, d->msg);
}

/* Feed bytes; file_off is the file offset of data[0] (CoreSight: of this run). */
static void feed(run_t *r, const uint8_t *data, size_t n, uint64_t file_off)
{
    size_t done = 0;
    while (done < n && !r->stop) {
        size_t used = 0;
        etm_diag_t d;
        etm_diag_clear(&d);
        if (etm_v3dec_feed(r->dec, data + done, n - done, &used, &d) != ETM_OK) {
            report(r, &d, file_off + done + used - 1);
            r->errors++;
            if (!r->keep_going)
                r->stop = 1;
        }
        done += used;
    }
}

static void on_frames(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    run_t *r = (run_t *)user;
    if (id == r->id)
        feed(r, data, n, offset);
}

static void json_stats(const etm_v3dec_t *dec, int cycle_acc, const char *path, unsigned long errors)
{
    const etm_v3dec_stats_t *s = etm_v3dec_get_stats(dec);
    json_t j;
    json_begin(&j, stdout, "decode", errors ? 2 : 0);
    json_str(&j, "trace", path);
    json_str(&j, "protocol", "etmv3");
    json_object(&j, "stats");
    json_u64(&j, "bytes", s->bytes);
    json_u64(&j, "instructions", s->insns);
    json_u64(&j, "atoms", s->atoms);
    json_u64(&j, "withdrawn", s->withdrawn);
    if (cycle_acc)
        json_u64(&j, "cycles", s->cycles);
    json_object(&j, "packets");
    for (int k = 0; k < ETM_V3PKT_KIND_COUNT; k++)
        if (s->packets[k])
            json_u64(&j, etm_v3pkt_kind_name((etm_v3pkt_kind_t)k), s->packets[k]);
    json_end(&j);
    json_end(&j);
    json_u64(&j, "errors", errors);
    json_finish(&j);
}

static void print_stats(const etm_v3dec_t *dec, int cycle_acc)
{
    const etm_v3dec_stats_t *s = etm_v3dec_get_stats(dec);
    printf("bytes %" PRIu64 ", instructions %" PRIu64 ", atoms %" PRIu64 ", withdrawn by cancel %" PRIu64, s->bytes,
           s->insns, s->atoms, s->withdrawn);
    if (cycle_acc)
        printf(", cycles %" PRIu64, s->cycles);
    printf("\npackets:");
    for (int k = 0; k < ETM_V3PKT_KIND_COUNT; k++)
        if (s->packets[k])
            printf(" %s %" PRIu64 ";", etm_v3pkt_kind_name((etm_v3pkt_kind_t)k), s->packets[k]);
    printf("\n");
}

/* ---- The command ---------------------------------------------------------------- */

typedef struct decode_opts {
    const char *path, *config_path, *snapshot;
    const char *sets[MAX_SETS];
    int nsets, coresight, tpiu, have_id, v7m, stats, json, keep_going, v1_strict;
    int swo;             /* --swo: TRACE is the SWO line (a sigrok capture, or its bytes) */
    int manchester;      /* --manchester: ... a capture of the pin in Manchester mode */
    int snapshot_outside; /* --snapshot-outside: a snapshot's .ini may name files outside its folder */
    const char *channel; /* ... its probe */
    uint64_t baud;       /* ... its rate (0: measured) */
    unsigned id;
    source_opts_t so;    /* VCD options, for an ETMv1 port recording */
    out_t o;
    etm_image_t *image;
} decode_opts_t;

/* An option with a value: 1 taken, 0 not one of these, -1 bad. */
static int decode_valued(decode_opts_t *d, const char *a, const char *v)
{
    if (!strcmp(a, "--id")) {
        uint64_t n = 0;
        if (opt_number("decode", "--id (a trace ID, 0x01-0x6f)", v, 1, 0x6F, &n))
            return -1;
        d->id = (unsigned)n;
        d->have_id = 1;
    } else if (!strcmp(a, "--snapshot")) {
        d->snapshot = v;
    } else if (!strcmp(a, "--channel")) {
        d->channel = v;
    } else if (!strcmp(a, "--baud")) {
        if (strcmp(v, "auto") && etm_sigrok_parse_rate(v, &d->baud) != 0) {
            fprintf(stderr, "etm decode: --baud '%s' is not a rate (8000000, 8M, 115200) or auto\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--config")) {
        d->config_path = v;
    } else if (!strcmp(a, "--set")) {
        if (d->nsets == MAX_SETS) {
            fprintf(stderr, "etm decode: at most %d --set options\n", MAX_SETS);
            return -1;
        }
        d->sets[d->nsets++] = v;
    } else if (!strcmp(a, "--image")) {
        return parse_image_opt(d->image, v) != 0 ? -1 : 1;
    } else {
        return 0;
    }
    return 1;
}

/* A flag: 1 taken, 0 not one of these. */
static int decode_flag(decode_opts_t *d, const char *a)
{
    if (!strcmp(a, "--coresight"))
        d->coresight = 1;
    else if (!strcmp(a, "--tpiu"))
        d->coresight = d->tpiu = 1;
    else if (!strcmp(a, "--swo"))
        d->coresight = d->swo = 1;
    else if (!strcmp(a, "--manchester"))
        d->coresight = d->swo = d->manchester = 1;
    else if (!strcmp(a, "--snapshot-outside"))
        d->snapshot_outside = 1;
    else if (!strcmp(a, "--v7m"))
        d->v7m = 1;
    else if (!strcmp(a, "--no-v7m"))
        d->v7m = 0;
    else if (!strcmp(a, "--packets"))
        d->o.packets = 1;
    else if (!strcmp(a, "--no-elements"))
        d->o.elements = 0;
    else if (!strcmp(a, "--stats"))
        d->stats = 1;
    else if (!strcmp(a, "--json"))
        d->json = 1;
    else if (!strcmp(a, "--keep-going"))
        d->keep_going = 1;
    else if (!strcmp(a, "--strict"))
        d->v1_strict = 1;
    else
        return 0;
    return 1;
}

/* Returns -1 to go on, else the exit status. */
static int decode_args(decode_opts_t *d, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int k;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return 0;
        }
        if (decode_flag(d, a))
            continue;
        if (i + 1 < argc && (k = decode_valued(d, a, argv[i + 1])) != 0) {
            if (k < 0)
                return 2;
            i++;
        } else if ((k = source_opts_parse(&d->so, argc, argv, &i)) != 0) {
            if (k < 0)
                return 2;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "etm decode: unknown option or missing value '%s' (try --help)\n", a);
            return 2;
        } else if (d->path) {
            fprintf(stderr, "etm decode: one trace file only\n");
            return 2;
        } else {
            d->path = a;
        }
    }
    return -1;
}

/* The trace to read and its configuration: a snapshot's, a file's (a vector
 * file carries its own), the default, then --set on top. */
static int decode_config(decode_opts_t *d, etm_config_t *cfg)
{
    static char snap_trace[PATH_LEN];
    etm_config_default(cfg);
    if (d->snapshot) {
        if (d->path) {
            fprintf(stderr, "etm decode: give a TRACE file or --snapshot, not both\n");
            return -1;
        }
        etm_diag_t sd;
        etm_diag_clear(&sd);
        etm_err_t e = etm_snapshot_load_flags(d->snapshot, d->have_id ? d->id : 0,
                                              d->snapshot_outside ? ETM_SNAPSHOT_ALLOW_OUTSIDE : 0u, cfg, d->image,
                                              snap_trace, sizeof snap_trace, &d->coresight, &sd);
        if (e != ETM_OK) {
            fprintf(stderr, "etm decode: %s%s\n", sd.msg, e == ETM_ERR_ARG ? " with --id" : "");
            return -1;
        }
        d->path = snap_trace;
        d->id = ETM_FIELD_GET(ETM_TRACEIDR_ID, cfg->etmtraceidr); /* the one ETM, when --id was not given */
        d->have_id = 1;
    }
    if (!d->path) {
        help(stderr);
        return -1;
    }
    if (d->coresight && !d->have_id) {
        fprintf(stderr, "etm decode: --coresight needs --id N to choose the trace source\n");
        return -1;
    }
    if (!d->config_path && !d->snapshot) { /* a vector file carries its configuration */
        FILE *vf = fopen(d->path, "r");
        char first[16] = "";
        if (vf) {
            if (!fgets(first, sizeof first, vf))
                first[0] = '\0';
            fclose(vf);
        }
        if (!strncmp(first, "etm-vectors", 11))
            d->config_path = d->path;
    }
    if (d->config_path && config_load_file("decode", d->config_path, cfg) != 0)
        return -1;
    for (int i = 0; i < d->nsets; i++) {
        etm_diag_t e;
        etm_diag_clear(&e);
        if (etm_config_parse_line(cfg, d->sets[i], NULL, NULL, &e) != ETM_OK) {
            fprintf(stderr, "etm decode: --set %s: %s\n", d->sets[i], e.msg);
            return -1;
        }
    }
    return 0;
}

/* ETMv1: the port, cycle by cycle (cmd_decode_v1.c). */
static int decode_v1(const decode_opts_t *d, const etm_config_t *cfg)
{
    etm_v1_window_t win[ETM_IMAGE_MAX_REGIONS];
    decode_v1_args_t v1;
    memset(&v1, 0, sizeof v1);
    for (unsigned i = 0; i < d->image->n; i++) {
        win[i].base = d->image->r[i].addr;
        win[i].bytes = d->image->r[i].bytes;
        win[i].size = d->image->r[i].size;
    }
    v1.path = d->path;
    v1.cfg = cfg;
    v1.so = &d->so;
    v1.windows = win;
    v1.nwindows = d->image->n;
    v1.elements = d->o.elements;
    v1.strict = d->v1_strict;
    v1.stats = d->stats;
    v1.json = d->json;
    v1.keep_going = d->keep_going;
    return decode_v1_run(&v1);
}

/* Read the whole file through the deformatter (if any) into the decoder. */
static void decode_file(run_t *r, FILE *f, etm_cs_deformatter_t *cs)
{
    static uint8_t buf[1 << 16];
    size_t n;
    uint64_t file_off = 0;
    etm_diag_t d;
    while (!r->stop && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (cs) {
            etm_diag_clear(&d);
            if (etm_cs_feed(cs, buf, n, &d) != ETM_OK) {
                fprintf(stderr, "etm decode: %s: offset %" PRIu64 ": %s\n", r->name, d.offset, d.msg);
                r->errors++;
                if (!r->keep_going)
                    r->stop = 1;
            }
        } else {
            feed(r, buf, n, file_off);
        }
        file_off += n;
    }
    if (ferror(f)) {
        fprintf(stderr, "etm decode: %s: read error\n", r->name);
        r->errors++;
    }
    if (!r->stop) {
        etm_diag_clear(&d);
        if (cs && etm_cs_end(cs, &d) != ETM_OK) {
            fprintf(stderr, "etm decode: %s: offset %" PRIu64 ": %s\n", r->name, d.offset, d.msg);
            r->errors++;
        }
        etm_diag_clear(&d);
        if (etm_v3dec_end(r->dec, &d) != ETM_OK) {
            report(r, &d, file_off);
            r->errors++;
        }
    }
}

/* ETMv3: the project's decoder on the trace file, raw or in CoreSight frames. */
static int decode_v3(decode_opts_t *d, const etm_config_t *cfg)
{
    if (d->v7m < 0)
        d->v7m = ETM_FIELD_GET(ETM_IDR_MINOR, cfg->etmidr) >= 4 && ETM_FIELD_GET(ETM_IDR_ALT_BRANCH, cfg->etmidr) != 0;
    etm_v3dec_t *dec;
    etm_diag_t e;
    etm_diag_clear(&e);
    /* Packets alone (a listing without elements or statistics): the trace layer need not run. */
    unsigned flags = (d->v7m ? ETM_V3DEC_V7M : 0u) | (!d->o.elements && !d->stats && !d->json ? ETM_V3DEC_PACKETS : 0u);
    if (etm_v3dec_create(&dec, cfg, flags, &e) != ETM_OK) {
        fprintf(stderr, "etm decode: configuration: %s\n", e.msg);
        return 2;
    }
    d->o.cycle_acc = ETM_FIELD_GET(ETM_CR_CYCLE_ACCURATE, cfg->etmcr) != 0;
    d->o.v7m = d->v7m;
    d->o.name = d->path;
    if (d->o.packets)
        etm_v3dec_on_packet(dec, print_packet, &d->o);
    if (d->o.elements)
        etm_v3dec_on_element(dec, print_element, &d->o);
    if (d->image->n)
        etm_v3dec_set_image(dec, etm_image_read, d->image);
    etm_diag_t od;
    FILE *f = etm_open_read(d->path, "cannot open the trace file", &od);
    if (!f) {
        fprintf(stderr, "etm decode: %s: %s\n", d->path, od.msg);
        etm_v3dec_destroy(dec);
        return 2;
    }
    const char *kind = not_trace_kind(f, d->swo);
    if (kind) {
        fprintf(stderr, "etm decode: %s: %s\n", d->path, kind);
        fclose(f);
        etm_v3dec_destroy(dec);
        return 2;
    }
    if (d->swo && swo_open_trace(&f, d->path, d->channel, d->baud, d->manchester)) {
        etm_v3dec_destroy(dec);
        return 2;
    }
    run_t r;
    memset(&r, 0, sizeof r);
    r.dec = dec;
    r.name = d->path;
    r.coresight = d->coresight;
    r.id = d->id;
    r.keep_going = d->keep_going;
    etm_cs_deformatter_t *cs = NULL;
    if (d->coresight && etm_cs_create(&cs, d->tpiu ? ETM_CS_WAIT_FSYNC : 0u, on_frames, &r) != ETM_OK) {
        fprintf(stderr, "etm decode: out of memory\n");
        fclose(f);
        etm_v3dec_destroy(dec);
        return 2;
    }
    decode_file(&r, f, cs);
    fclose(f);
    fflush(stdout);
    /* Trace the decoder never synchronised on is no success. */
    const etm_v3dec_stats_t *dst = etm_v3dec_get_stats(dec);
    if (!r.errors && !dst->bytes) {
        if (d->coresight)
            fprintf(stderr, "etm decode: %s: no byte of trace ID 0x%02x in the frames (is it the ETM's ID?)\n",
                    d->path, d->id);
        else
            fprintf(stderr, "etm decode: %s: the file is empty: no trace\n", d->path);
        r.errors++;
    } else if (!r.errors && !dst->packets[ETM_V3PKT_ASYNC]) {
        fprintf(stderr, "etm decode: %s: %" PRIu64 " bytes and no A-sync: the decoder never synchronised (not ETMv3 "
                        "trace, or formatted: --coresight, --swo)\n", d->path, dst->bytes);
        r.errors++;
    }
    if (d->json)
        json_stats(dec, d->o.cycle_acc, d->path, (unsigned long)r.errors);
    else if (d->stats)
        print_stats(dec, d->o.cycle_acc);
    etm_cs_destroy(cs);
    etm_v3dec_destroy(dec);
    return r.errors ? 2 : 0;
}

int cmd_decode(int argc, char **argv)
{
    static etm_image_t image; /* the tool runs one decode */
    static decode_opts_t d;
    memset(&d, 0, sizeof d);
    memset(&image, 0, sizeof image);
    source_opts_init(&d.so);
    d.v7m = -1;
    d.o.elements = 1;
    d.image = &image;
    int rc = decode_args(&d, argc, argv);
    if (d.json) /* stdout holds the JSON object alone */
        d.o.elements = d.o.packets = 0;
    if (rc < 0) {
        etm_config_t cfg;
        if (decode_config(&d, &cfg) != 0)
            rc = 2;
        else if (!ETM_FIELD_GET(ETM_CCR_ETMIDR, cfg.etmccr))
            rc = decode_v1(&d, &cfg);
        else
            rc = decode_v3(&d, &cfg);
    }
    etm_image_free(&image);
    return rc;
}
