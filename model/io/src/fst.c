/* fst.c - FST waveforms (etm/vcd.h), through the FST library that Debian's
 * Verilator package ships (fstapi): an FST file is read by turning it into VCD
 * text for the VCD reader, and written by turning the VCD writer's text into
 * FST. Both directions keep scopes, variables with their widths, times and
 * values; real-valued variables are left out (the ETM has none). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/vcd.h"
#include "fstapi.h"
#include "util.h"
#include "vcd_int.h"

int etm_is_fst_path(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n > 4 && !strcmp(path + n - 4, ".fst");
}

/* ---- FST to VCD ------------------------------------------------------------------------------ */

typedef struct to_vcd {
    FILE *out;
    uint32_t *width;  /* per handle; 0: not written (a real) */
    uint64_t time;
    int started;
} to_vcd_t;

static void on_change(void *user, uint64_t time, fstHandle h, const unsigned char *value)
{
    to_vcd_t *t = (to_vcd_t *)user;
    if (!t->width[h])
        return;
    if (!t->started || time != t->time) {
        fprintf(t->out, "#%llu\n", (unsigned long long)time);
        t->time = time;
        t->started = 1;
    }
    char code[12];
    vcd_make_code(code, h);
    if (t->width[h] == 1)
        fprintf(t->out, "%c%s\n", value[0], code);
    else
        fprintf(t->out, "b%s %s\n", (const char *)value, code);
}

etm_err_t etm_fst_to_vcd(const char *path, FILE *out, etm_diag_t *diag)
{
    etm_diag_clear(diag);
    if (diag)
        diag->file = path;
    /* The FST library trusts what it reads: the file's blocks are walked first.
     * Each is a type byte and a big-endian 64-bit length that counts itself and
     * the payload; the first is the header (type 0, length 329). */
    FILE *probe = etm_open_read(path, "cannot open the file", diag);
    if (!probe)
        return ETM_ERR_IO;
    unsigned char head[9];
    static const unsigned char want[9] = { 0, 0, 0, 0, 0, 0, 0, 0x01, 0x49 };
    long size = fseek(probe, 0, SEEK_END) == 0 ? ftell(probe) : -1;
    uint64_t at = 0;
    etm_err_t bad = size < 0 ? etm_util_fail(diag, ETM_ERR_IO, "cannot read the file") : ETM_OK;
    while (bad == ETM_OK && at < (uint64_t)size) {
        if (fseek(probe, (long)at, SEEK_SET) != 0 || fread(head, 1, sizeof head, probe) != sizeof head) {
            bad = etm_util_fail(diag, ETM_ERR_SYNTAX, at ? "byte %llu: a block cut short" :
                                "not an FST file (byte 0: no FST header block)", (unsigned long long)at);
            break;
        }
        if (!at && memcmp(head, want, sizeof head)) {
            bad = etm_util_fail(diag, ETM_ERR_SYNTAX, "not an FST file (byte 0: no FST header block)");
            break;
        }
        uint64_t len = 0;
        for (int k = 1; k < 9; k++)
            len = len << 8 | head[k];
        int known = head[0] <= 8 || head[0] == 254;
        if (!known || len < 8 || len > (uint64_t)size - at - 1) {
            bad = etm_util_fail(diag, ETM_ERR_SYNTAX, "byte %llu: a block of type %u and %llu bytes that %s",
                                (unsigned long long)at, head[0], (unsigned long long)len,
                                known ? "runs past the end of the file (cut short?)" : "no FST writer makes");
            break;
        }
        at += 1 + len;
    }
    if (bad == ETM_OK && size == 0)
        bad = etm_util_fail(diag, ETM_ERR_SYNTAX, "not an FST file (it is empty)");
    fclose(probe);
    if (bad != ETM_OK)
        return bad;
    void *fst = fstReaderOpen(path);
    if (!fst)
        return etm_util_fail(diag, ETM_ERR_SYNTAX, "not an FST file (the FST library cannot read it)");
    fstHandle max = fstReaderGetMaxHandle(fst);
    to_vcd_t t;
    memset(&t, 0, sizeof t);
    t.out = out;
    t.width = (uint32_t *)calloc((size_t)max + 1, sizeof *t.width);
    if (!t.width) {
        fstReaderClose(fst);
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    }
    static const char *const units[] = { "s", "ms", "us", "ns", "ps", "fs" };
    int exp = fstReaderGetTimescale(fst); /* 10^exp seconds */
    int u = exp >= 0 ? 0 : (-exp + 2) / 3;
    if (u > 5)
        u = 5;
    int mult = 1;
    for (int k = exp + 3 * u; k > 0; k--)
        mult *= 10;
    fprintf(out, "$timescale %d%s $end\n", mult, units[u]);
    fstReaderIterateHierRewind(fst);
    struct fstHier *h;
    while ((h = fstReaderIterateHier(fst)) != NULL) {
        if (h->htyp == FST_HT_SCOPE) {
            fprintf(out, "$scope module %s $end\n", h->u.scope.name);
        } else if (h->htyp == FST_HT_UPSCOPE) {
            fprintf(out, "$upscope $end\n");
        } else if (h->htyp == FST_HT_VAR) {
            int real = h->u.var.typ == FST_VT_VCD_REAL || h->u.var.typ == FST_VT_VCD_REALTIME ||
                       h->u.var.typ == FST_VT_SV_SHORTREAL || h->u.var.typ == FST_VT_GEN_STRING;
            if (real || h->u.var.handle > max)
                continue;
            char code[12];
            vcd_make_code(code, h->u.var.handle);
            fprintf(out, "$var wire %u %s %s $end\n", (unsigned)h->u.var.length, code, h->u.var.name);
            t.width[h->u.var.handle] = h->u.var.length ? h->u.var.length : 1;
        }
    }
    fprintf(out, "$enddefinitions $end\n");
    fstReaderSetFacProcessMaskAll(fst);
    fstReaderIterBlocks(fst, on_change, &t, NULL);
    fstReaderClose(fst);
    free(t.width);
    if (fflush(out) != 0 || ferror(out))
        return etm_util_fail(diag, ETM_ERR_IO, "cannot write its VCD text");
    return ETM_OK;
}

/* ---- VCD to FST ------------------------------------------------------------------------------ */

#define CODE_HASH 4096

typedef struct code_map {
    char *code;
    fstHandle h;
    uint32_t width;
    int next; /* chain in the hash */
} code_map_t;

typedef struct to_fst {
    code_map_t *m;
    int n, cap;
    int head[CODE_HASH];
} to_fst_t;

static unsigned hash(const char *s)
{
    unsigned v = 2166136261u;
    for (; *s; s++)
        v = (v ^ (unsigned char)*s) * 16777619u;
    return v % CODE_HASH;
}

static code_map_t *find_code(to_fst_t *t, const char *code)
{
    for (int i = t->head[hash(code)]; i >= 0; i = t->m[i].next)
        if (!strcmp(t->m[i].code, code))
            return &t->m[i];
    return NULL;
}

static int add_code(to_fst_t *t, const char *code, fstHandle h, uint32_t width)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 256;
        code_map_t *m = (code_map_t *)realloc(t->m, (size_t)cap * sizeof *m);
        if (!m)
            return -1;
        t->m = m;
        t->cap = cap;
    }
    code_map_t *c = &t->m[t->n];
    c->code = strdup(code);
    if (!c->code)
        return -1;
    c->h = h;
    c->width = width;
    unsigned k = hash(code);
    c->next = t->head[k];
    t->head[k] = t->n++;
    return 0;
}

/* The next whitespace-separated token of f into buf; 0 at the end. */
static int token(FILE *f, char *buf, size_t size)
{
    int c;
    while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r'))
        ;
    if (c == EOF)
        return 0;
    size_t n = 0;
    do {
        if (n + 1 < size)
            buf[n++] = (char)c;
    } while ((c = fgetc(f)) != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r');
    buf[n] = '\0';
    return 1;
}

/* Tokens up to $end (a $comment, $date, $version ...); the text after the
 * first into out when given. */
static void skip_to_end(FILE *f, char *out, size_t size)
{
    char tok[4096];
    if (out)
        out[0] = '\0';
    while (token(f, tok, sizeof tok) && strcmp(tok, "$end"))
        if (out && strlen(out) + strlen(tok) + 1 < size)
            strcat(out, tok);
}

/* A VCD vector value for a variable of `width` bits: left-extended as the VCD
 * rules say (with 0, or with x or z when that is the leftmost bit). */
static const char *extend(const char *bits, uint32_t width, char *buf, size_t size)
{
    size_t n = strlen(bits);
    if (n >= width || width + 1 > size)
        return bits + (n > width ? n - width : 0);
    char fill = bits[0] == 'x' || bits[0] == 'X' ? 'x' : bits[0] == 'z' || bits[0] == 'Z' ? 'z' : '0';
    memset(buf, fill, width - n);
    memcpy(buf + (width - n), bits, n + 1);
    return buf;
}

etm_err_t etm_vcd_to_fst(FILE *vcd, const char *path, etm_diag_t *diag)
{
    void *fst = fstWriterCreate(path, 1);
    if (!fst)
        return etm_util_fail(diag, ETM_ERR_IO, "%s: cannot create the FST file", path);
    to_fst_t t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < CODE_HASH; i++)
        t.head[i] = -1;
    char tok[4096], name[4096], code[256], range[256], *value = (char *)malloc(1 << 16);
    etm_err_t e = value ? ETM_OK : etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    int body = 0;
    while (e == ETM_OK && token(vcd, tok, sizeof tok)) {
        if (!body) {
            if (!strcmp(tok, "$timescale")) {
                skip_to_end(vcd, name, sizeof name);
                fstWriterSetTimescaleFromString(fst, name);
            } else if (!strcmp(tok, "$scope")) {
                char kind[64];
                if (!token(vcd, kind, sizeof kind) || !token(vcd, name, sizeof name))
                    break;
                skip_to_end(vcd, NULL, 0);
                fstWriterSetScope(fst, FST_ST_VCD_MODULE, name, NULL);
            } else if (!strcmp(tok, "$upscope")) {
                skip_to_end(vcd, NULL, 0);
                fstWriterSetUpscope(fst);
            } else if (!strcmp(tok, "$var")) {
                char kind[64], width[32];
                if (!token(vcd, kind, sizeof kind) || !token(vcd, width, sizeof width) ||
                    !token(vcd, code, sizeof code) || !token(vcd, name, sizeof name))
                    break;
                skip_to_end(vcd, range, sizeof range);
                if (!strcmp(kind, "real") || !strcmp(kind, "realtime"))
                    continue;
                if (range[0] && strlen(name) + strlen(range) + 2 < sizeof name) {
                    strcat(name, " ");
                    strcat(name, range);
                }
                uint32_t w = (uint32_t)strtoul(width, NULL, 10);
                if (!w)
                    w = 1;
                code_map_t *prev = find_code(&t, code);
                fstHandle h = fstWriterCreateVar(fst, FST_VT_VCD_WIRE, FST_VD_IMPLICIT, w, name, prev ? prev->h : 0);
                if (!prev && add_code(&t, code, h, w) != 0)
                    e = etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
            } else if (!strcmp(tok, "$enddefinitions")) {
                skip_to_end(vcd, NULL, 0);
                body = 1;
            } else if (tok[0] == '$') {
                skip_to_end(vcd, NULL, 0);
            }
            continue;
        }
        if (tok[0] == '#') {
            fstWriterEmitTimeChange(fst, strtoull(tok + 1, NULL, 10));
        } else if (tok[0] == 'b' || tok[0] == 'B') {
            if (!token(vcd, code, sizeof code))
                break;
            code_map_t *c = find_code(&t, code);
            if (c)
                fstWriterEmitValueChange(fst, c->h, extend(tok + 1, c->width, value, 1 << 16));
        } else if (tok[0] == 'r' || tok[0] == 'R') {
            token(vcd, code, sizeof code); /* reals are left out */
        } else if (strchr("01xXzZ", tok[0])) {
            code_map_t *c = find_code(&t, tok + 1);
            if (c) {
                char v[2] = { (char)(tok[0] == 'X' ? 'x' : tok[0] == 'Z' ? 'z' : tok[0]), '\0' };
                fstWriterEmitValueChange(fst, c->h, c->width == 1 ? v : extend(v, c->width, value, 1 << 16));
            }
        }
        /* $dumpvars, $dumpall, $dumpon, $dumpoff, $end: values follow or nothing to do */
    }
    if (e == ETM_OK && ferror(vcd))
        e = etm_util_fail(diag, ETM_ERR_IO, "%s: cannot read the VCD text", path);
    fstWriterClose(fst);
    for (int i = 0; i < t.n; i++)
        free(t.m[i].code);
    free(t.m);
    free(value);
    return e;
}
