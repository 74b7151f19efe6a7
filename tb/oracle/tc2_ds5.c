/* tc2_ds5.c - oracle: decode a real ETMv3.5 capture and compare it, instruction
 * by instruction, with Arm DS-5's decode of the same capture.
 *
 * Data (third-party, see its README.md): DIR/cstrace.bin is a 32 KiB ETB buffer
 * of CoreSight formatter frames holding three Cortex-A7 ETMv3.5 streams (trace IDs
 * 0x10, 0x11, 0x12) and others; DIR/kernel_dump.bin is the code at 0xC0008000;
 * DIR/ds5-dumps/etmv3_0xNN.txt is DS-5's decode of trace ID NN.
 *
 * Compared, for every instruction, in order: the address, whether it failed its
 * condition, whether it is a branch (DS-5 "Branch" column against our classifier),
 * and its cycle count. DS-5's "Cycles" of an instruction is the number of cycles
 * since the previous instruction; a "Cycle Count" record between two instructions
 * holds cycles of a gap in the trace and is added to the next instruction's share.
 * So: our cycle(i) - cycle(i-1) == DS-5 cycles(i) + Cycle Count records between.
 * For the first instruction the reference point is the first I-sync.
 * Timestamps are compared in order too, from the first I-sync on (DS-5 starts
 * there; the capture has a timestamp between the A-sync and the first I-sync).
 * Records skipped on purpose: "Debug stop" (start of the capture), "Function"
 * (symbol information), "Info" (DS-5's notes: "Tracing enabled", "Return from
 * exception"), which have no counterpart in the trace stream.
 *
 * usage: tc2_ds5 SHARED_DIR   (SHARED_DIR/data/opencsd-tc2-etmv3 must exist)
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etm/config.h"
#include "etm/coresight.h"
#include "etm/decode_v3.h"
#include "readfile.h"

#define IMAGE_BASE 0xC0008000u
#define MAX_REPORT 10

typedef struct ds5_rec {
    int kind;         /* 'I' instruction, 'C' cycle count, 'T' timestamp */
    uint32_t addr;
    uint64_t cycles;  /* I: cycles; C: count; T: timestamp */
    int fail;
    int branch;
    unsigned line;
} ds5_rec_t;

typedef struct image {
    uint8_t *bytes;
    size_t size;
} image_t;

typedef struct stream {
    unsigned id;
    etm_v3dec_t *dec;
    ds5_rec_t *ref;
    size_t nref, next;
    int started;          /* first I-sync seen */
    uint64_t base_cycle;  /* cycle of the previous instruction (or the first I-sync) */
    uint64_t gap;         /* Cycle Count records since the previous instruction */
    size_t insns, timestamps, diffs, mismatched_syncs;
    int decode_errors;
} stream_t;

static int read_code(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const image_t *im = (const image_t *)user;
    if (addr < IMAGE_BASE || addr - IMAGE_BASE >= im->size)
        return 0;
    size_t off = addr - IMAGE_BASE;
    unsigned k = 0;
    for (; k < n && off + k < im->size; k++)
        buf[k] = im->bytes[off + k];
    return (int)k;
}

/* Split a line at tabs into at most 8 fields. */
static int split(char *line, char **field, int max)
{
    int n = 0;
    field[n++] = line;
    for (char *p = line; *p && n < max; p++) {
        if (*p == '\t') {
            *p = '\0';
            field[n++] = p + 1;
        }
    }
    return n;
}

static int load_ds5(const char *path, ds5_rec_t **out, size_t *count)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1024];
    size_t cap = 1024, n = 0;
    unsigned lineno = 0;
    ds5_rec_t *r = (ds5_rec_t *)malloc(cap * sizeof *r);
    while (r && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *fld[8];
        int nf = split(line, fld, 8);
        ds5_rec_t rec;
        memset(&rec, 0, sizeof rec);
        rec.line = lineno;
        if (!strcmp(fld[0], "Instruction") && nf >= 7) {
            const char *a = strstr(fld[2], "0x");
            rec.kind = 'I';
            rec.addr = a ? (uint32_t)strtoul(a, NULL, 16) : 0;
            rec.cycles = strtoull(fld[4], NULL, 10);
            rec.branch = !strcmp(fld[6], "true");
            rec.fail = nf >= 8 && !strcmp(fld[7], "fail");
        } else if (!strcmp(fld[0], "Cycle Count") && nf >= 5) {
            rec.kind = 'C';
            rec.cycles = strtoull(fld[4], NULL, 10);
        } else if (!strcmp(fld[0], "Timestamp") && nf >= 6) {
            const char *t = strstr(fld[5], ": ");
            rec.kind = 'T';
            rec.cycles = t ? strtoull(t + 2, NULL, 10) : 0;
        } else {
            continue; /* header, Debug stop, Function, Info */
        }
        if (n == cap) {
            ds5_rec_t *nr = (ds5_rec_t *)realloc(r, cap * 2 * sizeof *r);
            if (!nr) {
                free(r);
                r = NULL;
                break;
            }
            r = nr;
            cap *= 2;
        }
        r[n++] = rec;
    }
    fclose(f);
    if (!r)
        return -1;
    *out = r;
    *count = n;
    return 0;
}

static void diff(stream_t *s, const ds5_rec_t *ref, const char *what, uint64_t ours, uint64_t theirs)
{
    s->diffs++;
    if (s->diffs <= MAX_REPORT)
        fprintf(stderr, "ID 0x%02x: ds5 line %u (0x%08" PRIx32 "): %s: decoder 0x%" PRIx64 " (%" PRIu64
                        "), DS-5 0x%" PRIx64 " (%" PRIu64 ")\n",
                s->id, ref ? ref->line : 0, ref ? ref->addr : 0, what, ours, ours, theirs, theirs);
}

static void on_element(void *user, const etm_v3el_t *el)
{
    stream_t *s = (stream_t *)user;
    if (el->kind == ETM_V3EL_SYNC) {
        if (!s->started) {
            s->started = 1;
            s->base_cycle = el->cycle;
        }
        if (el->addr_mismatch) {
            s->mismatched_syncs++;
            fprintf(stderr, "ID 0x%02x: periodic I-sync at 0x%08" PRIx32 " but the code led to 0x%08" PRIx32 "\n",
                    s->id, el->addr, el->expected_addr);
        }
        return;
    }
    if (!s->started)
        return; /* before the first I-sync DS-5 reports nothing (a timestamp, W atoms) */
    /* consume DS-5 gap records in front of the next instruction */
    while (s->next < s->nref && s->ref[s->next].kind != 'I') {
        const ds5_rec_t *r = &s->ref[s->next];
        if (r->kind == 'C') {
            s->gap += r->cycles;
            s->next++;
        } else if (r->kind == 'T' && el->kind == ETM_V3EL_TIMESTAMP) {
            if (el->timestamp != r->cycles)
                diff(s, r, "timestamp", el->timestamp, r->cycles);
            s->timestamps++;
            s->next++;
            return;
        } else {
            break;
        }
    }
    if (el->kind == ETM_V3EL_TIMESTAMP) {
        diff(s, s->next < s->nref ? &s->ref[s->next] : NULL, "timestamp where DS-5 has none", el->timestamp, 0);
        return;
    }
    if (el->kind == ETM_V3EL_ATOM) {
        diff(s, s->next < s->nref ? &s->ref[s->next] : NULL, "atom without a known instruction", el->addr, 0);
        return;
    }
    if (el->kind == ETM_V3EL_NO_IMAGE) {
        diff(s, s->next < s->nref ? &s->ref[s->next] : NULL, "address outside the image", el->addr, 0);
        return;
    }
    if (el->kind != ETM_V3EL_INSN)
        return;
    if (s->next >= s->nref || s->ref[s->next].kind != 'I') {
        diff(s, NULL, "instruction after the end of the DS-5 decode", el->addr, 0);
        return;
    }
    const ds5_rec_t *r = &s->ref[s->next++];
    s->insns++;
    if (el->addr != r->addr)
        diff(s, r, "address", el->addr, r->addr);
    if (el->executed != !r->fail)
        diff(s, r, "executed (1) or failed its condition (0)", (uint64_t)el->executed, (uint64_t)!r->fail);
    if ((el->insn.branch != ETM_V3_BR_NONE) != r->branch)
        diff(s, r, "is a branch", (uint64_t)(el->insn.branch != ETM_V3_BR_NONE), (uint64_t)r->branch);
    uint64_t delta = el->cycle - s->base_cycle;
    if (delta != r->cycles + s->gap)
        diff(s, r, "cycles since the previous instruction (incl. gaps)", delta, r->cycles + s->gap);
    s->base_cycle = el->cycle;
    s->gap = 0;
}

typedef struct ctx {
    stream_t *streams;
    size_t nstreams;
    int failed;
} ctx_t;

static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    ctx_t *c = (ctx_t *)user;
    for (size_t k = 0; k < c->nstreams; k++) {
        stream_t *s = &c->streams[k];
        if (s->id != id)
            continue;
        size_t done = 0;
        while (done < n) {
            size_t used = 0;
            etm_diag_t d;
            etm_diag_clear(&d);
            if (etm_v3dec_feed(s->dec, data + done, n - done, &used, &d) != ETM_OK) {
                fprintf(stderr, "ID 0x%02x: decode error at stream offset %" PRIu64 " (cstrace.bin offset %" PRIu64
                                "): %s\n", id, d.offset, offset + done + used - 1, d.msg);
                s->decode_errors++;
            }
            done += used;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tc2_ds5 SHARED_DIR\n");
        return 2;
    }
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/data/opencsd-tc2-etmv3", argv[1]);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "tc2_ds5: FAIL: the TC2 capture folder '%s' is missing.\n"
                "  The oracle needs the shared data folder beside the clone (../shared); configure with\n"
                "  -DETM_SHARED_DIR=/path/to/shared if it lives elsewhere.\n",
                dir);
        return 1;
    }

    image_t im;
    uint8_t *trace;
    size_t trace_size;
    char err[4400];
    snprintf(path, sizeof path, "%s/kernel_dump.bin", dir);
    if (readfile(path, &im.bytes, &im.size, err, sizeof err) != 0) {
        fprintf(stderr, "tc2_ds5: FAIL: %s\n", err);
        return 1;
    }
    snprintf(path, sizeof path, "%s/cstrace.bin", dir);
    if (readfile(path, &trace, &trace_size, err, sizeof err) != 0) {
        fprintf(stderr, "tc2_ds5: FAIL: %s\n", err);
        return 1;
    }

    /* The ETM register images of device_5..7.ini: ETMv3.5, cycle-accurate with
     * timestamps, original branch encoding, 64-bit binary timestamps. */
    etm_config_t cfg;
    etm_config_default(&cfg);
    cfg.etmcr = 0x10001860u;
    cfg.etmidr = 0x410CF250u;
    cfg.etmccer = 0x344008F2u;

    static const unsigned ids[] = { 0x10, 0x11, 0x12 };
    stream_t streams[3];
    memset(streams, 0, sizeof streams);
    int rc = 0;
    for (size_t k = 0; k < 3; k++) {
        stream_t *s = &streams[k];
        etm_diag_t d;
        etm_diag_clear(&d);
        s->id = ids[k];
        snprintf(path, sizeof path, "%s/ds5-dumps/etmv3_0x%02x.txt", dir, ids[k]);
        if (load_ds5(path, &s->ref, &s->nref) != 0) {
            fprintf(stderr, "tc2_ds5: FAIL: cannot read %s\n", path);
            return 1;
        }
        if (etm_v3dec_create(&s->dec, &cfg, 0, &d) != ETM_OK) {
            fprintf(stderr, "tc2_ds5: FAIL: %s\n", d.msg);
            return 1;
        }
        etm_v3dec_on_element(s->dec, on_element, s);
        etm_v3dec_set_image(s->dec, read_code, &im);
    }

    ctx_t c;
    c.streams = streams;
    c.nstreams = 3;
    c.failed = 0;
    etm_cs_deformatter_t *cs;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_cs_create(&cs, 0, on_data, &c) != ETM_OK) {
        fprintf(stderr, "tc2_ds5: FAIL: cannot create the deformatter\n");
        return 1;
    }
    if (etm_cs_feed(cs, trace, trace_size, &d) != ETM_OK || etm_cs_end(cs, &d) != ETM_OK) {
        fprintf(stderr, "tc2_ds5: FAIL: cstrace.bin offset %" PRIu64 ": %s\n", d.offset, d.msg);
        rc = 1;
    }
    etm_cs_destroy(cs);

    for (size_t k = 0; k < 3; k++) {
        stream_t *s = &streams[k];
        etm_diag_clear(&d);
        if (etm_v3dec_end(s->dec, &d) != ETM_OK) {
            /* An ETB buffer is cut where the capture stopped: a packet cut at the
             * end is expected and not a difference. */
            printf("ID 0x%02x: note: %s (stream offset %" PRIu64 ")\n", s->id, d.msg, d.offset);
        }
        size_t left = 0;
        for (size_t j = s->next; j < s->nref; j++)
            left += s->ref[j].kind == 'I';
        if (left) {
            fprintf(stderr, "ID 0x%02x: %zu DS-5 instructions were not decoded (first at line %u)\n", s->id, left,
                    s->ref[s->next].line);
            s->diffs += left;
        }
        size_t ds5_insns = 0;
        for (size_t j = 0; j < s->nref; j++)
            ds5_insns += s->ref[j].kind == 'I';
        printf("ID 0x%02x: %zu instructions compared with DS-5 (DS-5 has %zu), %zu timestamps, %zu differences, "
               "%d decode errors, %zu periodic I-syncs off the followed path\n",
               s->id, s->insns, ds5_insns, s->timestamps, s->diffs, s->decode_errors, s->mismatched_syncs);
        if (s->diffs || s->decode_errors || s->mismatched_syncs || s->insns != ds5_insns || s->insns == 0)
            rc = 1;
        etm_v3dec_destroy(s->dec);
        free(s->ref);
    }
    free(im.bytes);
    free(trace);
    printf("tc2_ds5: %s\n", rc ? "FAIL" : "PASS");
    return rc;
}
