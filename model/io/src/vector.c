/* vector.c - reading and writing vector files (format: vectors/README.md). */
#include "etm/vector.h"

#include <stdlib.h>
#include <string.h>

#include "etm/config_text.h"
#include "util.h"

#define MAGIC "etm-vectors"

/* A column of binary stimulus, ready to decode. */
typedef struct bincol {
    uint64_t mask;     /* the bits the value may hold */
    uint64_t inv;      /* what to XOR it with for the field (ETM_SIGF_INV) */
    uint16_t offset;   /* of the field in etm_in_t */
    uint16_t at;       /* of the value in the record */
    uint8_t size;      /* of the field, and of the value in the record */
} bincol_t;

/* Columns whose values lie side by side in the record and whose fields lie
 * side by side in etm_in_t (most 1-byte columns, as the two orders mostly
 * agree), decoded as one little-endian word of up to 8 bytes. */
typedef struct binrun {
    uint16_t at, offset; /* of its first byte in the record and in etm_in_t */
    uint8_t len;         /* bytes, 1 to 8 */
    uint8_t wide;        /* offset + 8 <= sizeof(etm_in_t): a whole word may be read and written */
    uint64_t keep;       /* the word's bytes past len */
    uint64_t mask, inv;  /* the bits its values may hold; what to XOR them with (ETM_SIGF_INV) */
} binrun_t;

struct etm_vec_reader {
    etm_linereader_t lr;
    int owns_file;
    const char *name;
    etm_veckind_t kind;
    etm_config_t cfg;
    const etm_signal_t *table;
    size_t table_count;
    size_t ncol;
    int col[ETM_VEC_MAX_COLUMNS];
    uint64_t signal_mask;
    uint64_t next_cycle;   /* cycle number of the next data line */
    uint64_t cycle;        /* cycle of the record last read */
    unsigned long line;    /* line of the record last read */
    /* The binary form (vectors/README.md, "Binary stimulus"): fixed records. */
    int binary;
    size_t recsize;        /* bytes of a record */
    uint64_t data_at;      /* file offset of the first record; UINT64_MAX when unknown (a pipe) */
    bincol_t bcol[ETM_VEC_MAX_COLUMNS];
    binrun_t run[ETM_VEC_MAX_COLUMNS];      /* the columns as runs, */
    unsigned nrun;                          /*   how many */
    unsigned char *bbuf;   /* records read ahead (and 8 bytes more: a run's word may reach past the last) */
    size_t bpos, blen;
};

#define BIN_BUF 65536 /* bytes of records read at a time (a record is at most 40 x 8 bytes) */

static const char *kind_name(etm_veckind_t k) { return k == ETM_VEC_STIMULUS ? "stimulus" : "expected"; }

/* Split s (modified in place) into blank-separated tokens, stopping at '#'. */
static size_t tokenize(char *s, char **tok, size_t max, size_t *total)
{
    size_t n = 0, all = 0;
    char *p = s;
    for (;;) {
        while (etm_util_isblank((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            break;
        char *t = p;
        while (*p && !etm_util_isblank((unsigned char)*p) && *p != '#')
            p++;
        if (n < max)
            tok[n++] = t;
        all++;
        if (*p == '#') {
            *p = '\0';
            break;
        }
        if (*p)
            *p++ = '\0';
    }
    if (total)
        *total = all;
    return n;
}

static etm_err_t at_line(etm_vec_reader_t *r, etm_diag_t *diag, etm_err_t e)
{
    if (diag) {
        diag->file = r->name;
        diag->line = r->lr.line;
        diag->code = e;
    }
    return e;
}

/* The first line: magic, format version, kind and, for stimulus, 'binary'. */
static etm_err_t read_first_line(etm_vec_reader_t *r, etm_diag_t *diag)
{
    char *tok[4];
    etm_err_t e = etm_lr_next(&r->lr, diag);
    if (e == ETM_END)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                                              "empty file: a vector file starts with 'etm-vectors 1 stimulus' "
                                              "or 'etm-vectors 1 expected'"));
    if (e != ETM_OK)
        return at_line(r, diag, e);
    size_t total;
    size_t n = tokenize(r->lr.buf, tok, 4, &total);
    if (n < 1 || strcmp(tok[0], MAGIC) != 0)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                                              "missing header: a vector file starts with 'etm-vectors 1 stimulus' "
                                              "or 'etm-vectors 1 expected'"));
    uint64_t fver;
    if (n < 2 || etm_util_parse_dec(tok[1], strlen(tok[1]), &fver) != 0)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX, "expected a format version after 'etm-vectors'"));
    if (fver != ETM_VEC_FORMAT_VERSION)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_FORMAT_VERSION,
                                              "format version %llu; this reader knows version %d",
                                              (unsigned long long)fver, ETM_VEC_FORMAT_VERSION));
    if (n < 3 || (total != 3 && total != 4) || (strcmp(tok[2], "stimulus") != 0 && strcmp(tok[2], "expected") != 0))
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                                              "the first line must end with the kind: 'stimulus' or 'expected' "
                                              "(or 'stimulus binary')"));
    r->kind = strcmp(tok[2], "stimulus") == 0 ? ETM_VEC_STIMULUS : ETM_VEC_EXPECTED;
    if (total == 4) {
        if (n < 4 || strcmp(tok[3], "binary") != 0)
            return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX, "after the kind only 'binary' may follow"));
        if (r->kind != ETM_VEC_STIMULUS)
            return at_line(r, diag, etm_util_fail(diag, ETM_ERR_UNSUPPORTED,
                                                  "only stimulus has a binary form, not expected output"));
        r->binary = 1;
    }
    r->table = r->kind == ETM_VEC_STIMULUS ? etm_in_signals : etm_out_signals;
    r->table_count = r->kind == ETM_VEC_STIMULUS ? etm_in_signal_count : etm_out_signal_count;
    return ETM_OK;
}

/* The configuration lines up to the 'columns' line, which is left in
 * r->lr.buf; the line that set each configuration slot goes to slot_line. */
static etm_err_t read_config_lines(etm_vec_reader_t *r, unsigned long *slot_line, etm_diag_t *diag)
{
    uint8_t seen[ETM_CONFIG_SEEN_BYTES] = { 0 };
    etm_config_default(&r->cfg);
    for (;;) {
        etm_err_t e = etm_lr_next(&r->lr, diag);
        if (e == ETM_END)
            return at_line(r, diag, etm_util_fail(diag, ETM_ERR_MISSING_HEADER,
                                                  "end of file before the 'columns' line"));
        if (e != ETM_OK)
            return at_line(r, diag, e);
        const char *p = r->lr.buf;
        while (etm_util_isblank((unsigned char)*p))
            p++;
        if (strncmp(p, "columns", 7) == 0 && (p[7] == '\0' || etm_util_isblank((unsigned char)p[7])))
            break;
        int slot;
        e = etm_config_parse_line(&r->cfg, r->lr.buf, seen, &slot, diag);
        if (e != ETM_OK)
            return at_line(r, diag, e);
        if (slot >= 0)
            slot_line[slot] = r->lr.line;
    }
    etm_config_imply_seen(&r->cfg, seen);
    return ETM_OK;
}

/* A column name that is not a signal of this kind of file; the other kind's
 * signal is said to be one. */
static etm_err_t unknown_column(etm_vec_reader_t *r, const char *name, etm_diag_t *diag)
{
    int stim = r->kind == ETM_VEC_STIMULUS;
    int other = etm_signal_find(stim ? etm_out_signals : etm_in_signals,
                                stim ? etm_out_signal_count : etm_in_signal_count, name);
    return at_line(r, diag, etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "unknown column '%s'%s%s", name,
                                          other >= 0 ? ": that is a column of " : "",
                                          other >= 0 ? (stim ? "expected files" : "stimulus files") : ""));
}

/* The 'columns' line in r->lr.buf: each column's signal (or CYCLE, which sets
 * *have_cycle), each named once. */
static etm_err_t read_columns(etm_vec_reader_t *r, int *have_cycle, etm_diag_t *diag)
{
    char *tok[ETM_VEC_MAX_COLUMNS + 2];
    size_t total;
    size_t n = tokenize(r->lr.buf, tok, ETM_VEC_MAX_COLUMNS + 2, &total);
    if (total > ETM_VEC_MAX_COLUMNS + 1)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX, "too many columns (%zu)", total - 1));
    if (n < 2)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX, "'columns' names no column"));
    r->ncol = 0;
    r->signal_mask = 0;
    *have_cycle = 0;
    for (size_t i = 1; i < n; i++) {
        int idx;
        if (etm_util_strcaseeq(tok[i], "CYCLE")) {
            if (*have_cycle)
                return at_line(r, diag, etm_util_fail(diag, ETM_ERR_DUPLICATE, "column CYCLE is named twice"));
            *have_cycle = 1;
            idx = ETM_VEC_COL_CYCLE;
        } else {
            idx = etm_signal_find(r->table, r->table_count, tok[i]);
            if (idx < 0)
                return unknown_column(r, tok[i], diag);
            if (r->signal_mask & (1ull << idx))
                return at_line(r, diag, etm_util_fail(diag, ETM_ERR_DUPLICATE, "column %s is named twice",
                                                      r->table[idx].name));
            r->signal_mask |= 1ull << idx;
        }
        r->col[r->ncol++] = idx;
    }
    return ETM_OK;
}

/* Column i of a binary file after those before it in the record: its field,
 * and the run it joins, or starts where it cannot join the last. */
static void binary_column(etm_vec_reader_t *r, size_t i)
{
    const etm_signal_t *s = &r->table[r->col[i]];
    bincol_t *c = &r->bcol[i];
    c->at = (uint16_t)r->recsize;
    r->recsize += s->size;
    c->mask = etm_signal_mask(s);
    c->inv = (s->flags & ETM_SIGF_INV) ? c->mask : 0;
    c->offset = s->offset;
    c->size = s->size;
    binrun_t *u = r->nrun ? &r->run[r->nrun - 1] : NULL;
    if (!u || c->at != u->at + u->len || c->offset != u->offset + u->len || u->len + c->size > 8) {
        u = &r->run[r->nrun++]; /* a run of its own */
        memset(u, 0, sizeof *u);
        u->at = c->at;
        u->offset = c->offset;
        u->wide = (uint8_t)(c->offset + 8u <= sizeof(etm_in_t));
    }
    u->mask |= c->mask << (8 * u->len);
    u->inv |= c->inv << (8 * u->len);
    u->len = (uint8_t)(u->len + c->size);
    u->keep = u->len == 8 ? 0 : ~0ull << (8 * u->len);
}

/* A binary file's records: their layout, the buffer they are read into and
 * where the first begins. */
static etm_err_t binary_layout(etm_vec_reader_t *r, int have_cycle, etm_diag_t *diag)
{
    if (have_cycle)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                                              "a binary file has no CYCLE column: its records are cycles 0, 1, ..."));
    r->recsize = 0;
    r->nrun = 0;
    for (size_t i = 0; i < r->ncol; i++)
        binary_column(r, i);
    r->bbuf = (unsigned char *)calloc(1, BIN_BUF + 8);
    if (!r->bbuf)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    long at = ftell(r->lr.f); /* fgets stopped just after the columns line */
    r->data_at = at >= 0 ? (uint64_t)at : UINT64_MAX;
    return ETM_OK;
}

/* The configuration as a whole; an error names the line of the slot at fault
 * when there is one. */
static etm_err_t validate_config(etm_vec_reader_t *r, const unsigned long *slot_line, etm_diag_t *diag)
{
    int bad = -1;
    etm_err_t e = etm_config_validate(&r->cfg, diag, &bad);
    if (e != ETM_OK) {
        at_line(r, diag, e);
        if (diag && bad >= 0 && slot_line[bad])
            diag->line = slot_line[bad];
    }
    return e;
}

static etm_err_t read_header(etm_vec_reader_t *r, etm_diag_t *diag)
{
    unsigned long slot_line[ETM_CONFIG_SLOTS] = { 0 };
    int have_cycle = 0;
    etm_err_t e = read_first_line(r, diag);
    if (e == ETM_OK)
        e = read_config_lines(r, slot_line, diag);
    if (e == ETM_OK)
        e = read_columns(r, &have_cycle, diag);
    if (e == ETM_OK && r->binary)
        e = binary_layout(r, have_cycle, diag);
    if (e == ETM_OK)
        e = validate_config(r, slot_line, diag);
    if (e == ETM_OK)
        r->next_cycle = 0;
    return e;
}

static etm_err_t open_common(etm_vec_reader_t **out, FILE *f, int owns, const char *name, etm_diag_t *diag)
{
    etm_vec_reader_t *r = (etm_vec_reader_t *)calloc(1, sizeof *r);
    if (!r) {
        if (owns)
            fclose(f);
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    }
    r->lr.f = f;
    r->owns_file = owns;
    r->name = name;
    etm_err_t e = read_header(r, diag);
    if (e != ETM_OK) {
        etm_vec_close(r);
        return e;
    }
    *out = r;
    return ETM_OK;
}


etm_err_t etm_vec_open(etm_vec_reader_t **out, const char *path, etm_diag_t *diag)
{
    *out = NULL;
    etm_diag_clear(diag);
    if (diag)
        diag->file = path;
    if (strcmp(path, "-") == 0)
        return open_common(out, stdin, 0, "<stdin>", diag);
    FILE *f = etm_open_read(path, "cannot open the file", diag);
    if (!f)
        return ETM_ERR_IO;
    return open_common(out, f, 1, path, diag);
}

etm_err_t etm_vec_open_stream(etm_vec_reader_t **out, FILE *f, const char *name, etm_diag_t *diag)
{
    *out = NULL;
    etm_diag_clear(diag);
    if (diag)
        diag->file = name;
    return open_common(out, f, 0, name, diag);
}

void etm_vec_close(etm_vec_reader_t *r)
{
    if (!r)
        return;
    if (r->owns_file && r->lr.f)
        fclose(r->lr.f);
    free(r->bbuf);
    free(r);
}

etm_veckind_t etm_vec_kind(const etm_vec_reader_t *r) { return r->kind; }
const etm_config_t *etm_vec_config(const etm_vec_reader_t *r) { return &r->cfg; }
const char *etm_vec_name(const etm_vec_reader_t *r) { return r->name; }
size_t etm_vec_column_count(const etm_vec_reader_t *r) { return r->ncol; }
int etm_vec_column(const etm_vec_reader_t *r, size_t i) { return i < r->ncol ? r->col[i] : ETM_VEC_COL_CYCLE; }
uint64_t etm_vec_signal_mask(const etm_vec_reader_t *r) { return r->signal_mask; }
uint64_t etm_vec_cycle(const etm_vec_reader_t *r) { return r->cycle; }
int etm_vec_is_binary(const etm_vec_reader_t *r) { return r->binary; }
unsigned long etm_vec_line(const etm_vec_reader_t *r) { return r->line; }

static etm_err_t parse_bytes(const char *t, etm_out_t *o, etm_diag_t *diag)
{
    size_t n = strlen(t);
    if (strcmp(t, "-") == 0) {
        o->v3_count = 0;
        return ETM_OK;
    }
    if (n % 2 != 0)
        return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "V3BYTES '%s' has an odd number of hex digits", t);
    if (n / 2 > ETM_MAX_PORT_BYTES)
        return etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "V3BYTES '%s' holds %zu bytes; at most %d leave in a cycle", t,
                             n / 2, ETM_MAX_PORT_BYTES);
    for (size_t i = 0; i < n / 2; i++) {
        uint64_t v;
        if (etm_util_parse_hex(t + 2 * i, 2, &v) != 0)
            return etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "V3BYTES '%s' is not a string of hex bytes or '-'", t);
        o->v3_bytes[i] = (uint8_t)v;
    }
    o->v3_count = (uint8_t)(n / 2);
    return ETM_OK;
}

static etm_err_t read_record(etm_vec_reader_t *r, void *rec, size_t recsize, etm_diag_t *diag)
{
    char *tok[ETM_VEC_MAX_COLUMNS + 1];
    etm_err_t e;
    size_t n, total;
    for (;;) {
        e = etm_lr_next(&r->lr, diag);
        if (e == ETM_END)
            return ETM_END;
        if (e != ETM_OK)
            return at_line(r, diag, e);
        n = tokenize(r->lr.buf, tok, ETM_VEC_MAX_COLUMNS + 1, &total);
        if (total > 0)
            break;
    }
    r->cycle = r->next_cycle;
    r->line = r->lr.line;
    if (diag)
        diag->cycle = r->cycle;
    if (total < r->ncol)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_TRUNCATED, "truncated line: %zu of %zu values", total,
                                              r->ncol));
    if (total > r->ncol)
        return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX, "%zu values for %zu columns", total, r->ncol));
    memset(rec, 0, recsize);
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        int c = r->col[i];
        uint64_t v;
        if (c == ETM_VEC_COL_CYCLE) {
            int pr = etm_util_parse_dec(t, strlen(t), &v);
            if (pr != 0)
                return at_line(r, diag, etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "CYCLE '%s' is not a decimal number",
                                                      t));
            if (v != r->cycle)
                return at_line(r, diag, etm_util_fail(diag, ETM_ERR_SYNTAX,
                                                      "CYCLE %llu out of sequence: this line is cycle %llu",
                                                      (unsigned long long)v, (unsigned long long)r->cycle));
            continue;
        }
        const etm_signal_t *s = &r->table[c];
        if (s->kind == ETM_SIG_BYTES) {
            e = parse_bytes(t, (etm_out_t *)rec, diag);
            if (e != ETM_OK)
                return at_line(r, diag, e);
            continue;
        }
        int pr = etm_util_parse_hex(t, strlen(t), &v);
        if (pr == -1)
            return at_line(r, diag, etm_util_fail(diag, ETM_ERR_BAD_NUMBER, "%s: '%s' is not a hex number", s->name, t));
        uint64_t mask = etm_signal_mask(s);
        uint64_t bad = v & ~mask;
        if (pr == 0 && s->lsb && bad && !(bad >> s->lsb))
            return at_line(r, diag, etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                                  "%s: '%s' has bit 0 set; the signal is %s[%u:%u], so the "
                                                  "address must be even", s->name, t, s->name,
                                                  s->lsb + s->width - 1, s->lsb));
        if (pr == -2 || bad)
            return at_line(r, diag, etm_util_fail(diag, ETM_ERR_FIELD_WIDTH, "%s: '%s' is wider than %s[%u:%u]",
                                                  s->name, t, s->name, s->lsb + s->width - 1, s->lsb));
        etm_signal_set(s, rec, v);
    }
    r->next_cycle++;
    return ETM_OK;
}

/* A binary record's failure: the file, the cycle and the byte offset of what is wrong. */
static etm_err_t at_byte(etm_vec_reader_t *r, etm_diag_t *diag, uint64_t within, etm_err_t e)
{
    if (diag) {
        diag->file = r->name;
        diag->line = 0;
        diag->cycle = r->next_cycle;
        diag->offset = r->data_at == UINT64_MAX ? UINT64_MAX : r->data_at + r->next_cycle * r->recsize + within;
    }
    return e;
}

/* Little-endian words of the records and of etm_in_t, on any host. */
static inline uint64_t load_le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void store_le64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* One record's runs into the fields at f (etm_in_t, cleared); returns the
 * bits of values wider than their signals (0 when all fit). */
static inline uint64_t decode_runs(const binrun_t *run, unsigned nrun, const unsigned char *p, unsigned char *f)
{
    uint64_t bad = 0;
    for (unsigned k = 0; k < nrun; k++) {
        const binrun_t *u = &run[k];
        uint64_t v = load_le64(p + u->at) & ~u->keep;
        bad |= v & ~u->mask;
        v ^= u->inv;
        if (u->wide) {
            store_le64(f + u->offset, (load_le64(f + u->offset) & u->keep) | v);
        } else {
            for (unsigned b = 0; b < u->len; b++)
                f[u->offset + b] = (unsigned char)(v >> (8 * b));
        }
    }
    return bad;
}

/* The next record of a binary file: each column's value in the size of its
 * etm_in_t field, little-endian, checked against the signal's width as a
 * text value is. */
static etm_err_t read_binary(etm_vec_reader_t *r, etm_in_t *in, etm_diag_t *diag)
{
    if (r->blen - r->bpos < r->recsize) {
        size_t rem = r->blen - r->bpos;
        memmove(r->bbuf, r->bbuf + r->bpos, rem);
        r->blen = rem + fread(r->bbuf + rem, 1, BIN_BUF - rem, r->lr.f);
        r->bpos = 0;
        if (ferror(r->lr.f))
            return at_byte(r, diag, 0, etm_util_fail(diag, ETM_ERR_IO, "read error"));
        if (r->blen == 0)
            return ETM_END;
        if (r->blen < r->recsize)
            return at_byte(r, diag, 0, etm_util_fail(diag, ETM_ERR_TRUNCATED, "truncated record: %zu of its %zu bytes",
                                                     r->blen, r->recsize));
    }
    const unsigned char *p = r->bbuf + r->bpos;
    memset(in, 0, sizeof *in);
    /* The runs, each value checked against its width; a value too wide is
     * reported in column order below. */
    uint64_t bad = decode_runs(r->run, r->nrun, p, (unsigned char *)in);
    for (size_t i = 0; bad && i < r->ncol; i++) {
        const bincol_t *c = &r->bcol[i];
        uint64_t v = 0;
        for (unsigned b = 0; b < c->size; b++)
            v |= (uint64_t)p[c->at + b] << (8 * b);
        uint64_t over = v & ~c->mask;
        if (!over)
            continue;
        const etm_signal_t *s = &r->table[r->col[i]];
        int low_only = (over >> s->lsb) == 0; /* only bits below the signal's lsb: an odd address */
        return at_byte(r, diag, c->at, etm_util_fail(diag, ETM_ERR_FIELD_WIDTH,
                                                     "%s 0x%llx is wider than %s[%u:%u]%s", s->name,
                                                     (unsigned long long)v, s->name, s->lsb + s->width - 1, s->lsb,
                                                     low_only ? " (bit 0 set: the address must be even)" : ""));
    }
    r->bpos += r->recsize;
    r->cycle = r->next_cycle++;
    if (diag)
        diag->cycle = r->cycle;
    return ETM_OK;
}

/* Up to max whole records of a binary file, from its read-ahead; a value too
 * wide sends the block back to read_binary, record by record, which reports
 * it where it is. */
static etm_err_t read_binary_block(etm_vec_reader_t *r, etm_in_t *in, size_t max, size_t *got, etm_diag_t *diag)
{
    size_t n = (r->blen - r->bpos) / r->recsize;
    if (n == 0) { /* the buffer ends inside a record: read_binary refills it */
        etm_err_t e = read_binary(r, in, diag);
        *got = e == ETM_OK;
        return e;
    }
    if (n > max)
        n = max;
    const unsigned char *p = r->bbuf + r->bpos;
    uint64_t bad = 0;
    for (size_t i = 0; i < n; i++, p += r->recsize) {
        /* Cleared record by record, as it is decoded: the stores of the
         * clearing and of the values meet each line once. */
        memset(&in[i], 0, sizeof in[i]);
        bad |= decode_runs(r->run, r->nrun, p, (unsigned char *)&in[i]);
    }
    if (bad) { /* somewhere in the block: found again in order */
        for (*got = 0; *got < n; ++*got) {
            etm_err_t e = read_binary(r, &in[*got], diag);
            if (e != ETM_OK)
                return e;
        }
        return ETM_OK;
    }
    r->bpos += n * r->recsize;
    r->next_cycle += n;
    r->cycle = r->next_cycle - 1;
    if (diag)
        diag->cycle = r->cycle;
    *got = n;
    return ETM_OK;
}

etm_err_t etm_vec_read_block(etm_vec_reader_t *r, etm_in_t *in, size_t max, size_t *got, etm_diag_t *diag)
{
    *got = 0;
    if (r->kind != ETM_VEC_STIMULUS)
        return etm_util_fail(diag, ETM_ERR_STATE, "%s is an expected-output file, not stimulus", r->name);
    if (max == 0)
        return ETM_OK;
    if (r->binary)
        return read_binary_block(r, in, max, got, diag);
    /* Text: one record, so that the line of the record last read is its line. */
    etm_err_t e = read_record(r, in, sizeof *in, diag);
    *got = e == ETM_OK;
    return e;
}

etm_err_t etm_vec_read_in(etm_vec_reader_t *r, etm_in_t *in, etm_diag_t *diag)
{
    if (r->kind != ETM_VEC_STIMULUS)
        return etm_util_fail(diag, ETM_ERR_STATE, "%s is an expected-output file, not stimulus", r->name);
    if (r->binary)
        return read_binary(r, in, diag);
    return read_record(r, in, sizeof *in, diag);
}

etm_err_t etm_vec_read_out(etm_vec_reader_t *r, etm_out_t *out, etm_diag_t *diag)
{
    if (r->kind != ETM_VEC_EXPECTED)
        return etm_util_fail(diag, ETM_ERR_STATE, "%s is a stimulus file, not expected output", r->name);
    return read_record(r, out, sizeof *out, diag);
}

/* ---- Writer ----------------------------------------------------------------- */

struct etm_vec_writer {
    FILE *f;
    int binary;
    etm_veckind_t kind;
    const etm_signal_t *table;
    size_t ncol;
    int col[ETM_VEC_MAX_COLUMNS];
    uint64_t cycle;
    int failed;
    char line[ETM_LINE_MAX];
};

static unsigned hex_digits(const etm_signal_t *s) { return (unsigned)(s->width + s->lsb + 3) / 4; }

static etm_err_t writer_open(etm_vec_writer_t **out, FILE *f, etm_veckind_t kind, int binary,
                             const etm_config_t *cfg, uint64_t signal_mask, const char *comment)
{
    *out = NULL;
    etm_vec_writer_t *w = (etm_vec_writer_t *)calloc(1, sizeof *w);
    if (!w)
        return ETM_ERR_NOMEM;
    w->f = f;
    w->kind = kind;
    w->binary = binary;
    w->table = kind == ETM_VEC_STIMULUS ? etm_in_signals : etm_out_signals;
    size_t count = kind == ETM_VEC_STIMULUS ? etm_in_signal_count : etm_out_signal_count;
    fprintf(f, "%s %d %s%s\n", MAGIC, ETM_VEC_FORMAT_VERSION, kind_name(kind), binary ? " binary" : "");
    if (comment) {
        const char *p = comment;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            fprintf(f, "# %.*s\n", (int)len, p);
            p += len + (e ? 1 : 0);
        }
    }
    etm_config_write(cfg, f, "");
    fputs("columns", f);
    if (!binary) {
        fputs(" CYCLE", f);
        w->col[w->ncol++] = ETM_VEC_COL_CYCLE;
    }
    for (size_t i = 0; i < count; i++) {
        if (signal_mask && !(signal_mask & (1ull << i)))
            continue;
        fprintf(f, " %s", w->table[i].name);
        w->col[w->ncol++] = (int)i;
    }
    fputc('\n', f);
    *out = w;
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

etm_err_t etm_vec_writer_open(etm_vec_writer_t **out, FILE *f, etm_veckind_t kind, const etm_config_t *cfg,
                              uint64_t signal_mask, const char *comment)
{
    return writer_open(out, f, kind, 0, cfg, signal_mask, comment);
}

etm_err_t etm_vec_writer_open_binary(etm_vec_writer_t **out, FILE *f, const etm_config_t *cfg, uint64_t signal_mask,
                                     const char *comment)
{
    return writer_open(out, f, ETM_VEC_STIMULUS, 1, cfg, signal_mask, comment);
}

/* A binary record: each column's value in its field's size, little-endian. */
static etm_err_t write_binary(etm_vec_writer_t *w, const etm_in_t *in)
{
    unsigned char *p = (unsigned char *)w->line;
    for (size_t i = 0; i < w->ncol; i++) {
        const etm_signal_t *s = &w->table[w->col[i]];
        uint64_t v = etm_signal_get(s, in);
        for (unsigned k = 0; k < s->size; k++)
            *p++ = (unsigned char)(v >> (8 * k));
    }
    size_t n = (size_t)(p - (unsigned char *)w->line);
    if (fwrite(w->line, 1, n, w->f) != n)
        w->failed = 1;
    w->cycle++;
    return w->failed ? ETM_ERR_IO : ETM_OK;
}

static const char hexchars[] = "0123456789abcdef";

static etm_err_t write_record(etm_vec_writer_t *w, const void *rec)
{
    char *p = w->line;
    for (size_t i = 0; i < w->ncol; i++) {
        if (i)
            *p++ = ' ';
        int c = w->col[i];
        if (c == ETM_VEC_COL_CYCLE) {
            char tmp[24];
            int k = 0;
            uint64_t v = w->cycle;
            do {
                tmp[k++] = (char)('0' + v % 10);
                v /= 10;
            } while (v);
            while (k)
                *p++ = tmp[--k];
            continue;
        }
        const etm_signal_t *s = &w->table[c];
        if (s->kind == ETM_SIG_BYTES) {
            const etm_out_t *o = (const etm_out_t *)rec;
            if (o->v3_count == 0)
                *p++ = '-';
            for (unsigned b = 0; b < o->v3_count && b < ETM_MAX_PORT_BYTES; b++) {
                *p++ = hexchars[o->v3_bytes[b] >> 4];
                *p++ = hexchars[o->v3_bytes[b] & 15];
            }
            continue;
        }
        uint64_t v = etm_signal_get(s, rec);
        for (int d = (int)hex_digits(s) - 1; d >= 0; d--)
            *p++ = hexchars[(v >> (4 * d)) & 15];
    }
    *p++ = '\n';
    if (fwrite(w->line, 1, (size_t)(p - w->line), w->f) != (size_t)(p - w->line))
        w->failed = 1;
    w->cycle++;
    return w->failed ? ETM_ERR_IO : ETM_OK;
}

etm_err_t etm_vec_write_in(etm_vec_writer_t *w, const etm_in_t *in)
{
    if (w->kind != ETM_VEC_STIMULUS)
        return ETM_ERR_STATE;
    return w->binary ? write_binary(w, in) : write_record(w, in);
}

etm_err_t etm_vec_write_out(etm_vec_writer_t *w, const etm_out_t *out)
{
    if (w->kind != ETM_VEC_EXPECTED)
        return ETM_ERR_STATE;
    return write_record(w, out);
}

etm_err_t etm_vec_writer_close(etm_vec_writer_t *w)
{
    if (!w)
        return ETM_OK;
    int bad = w->failed || fflush(w->f) != 0 || ferror(w->f);
    free(w);
    return bad ? ETM_ERR_IO : ETM_OK;
}

/* ---- Output comparison ---------------------------------------------------------- */

uint64_t etm_out_diff(const etm_out_t *a, const etm_out_t *b, uint64_t mask)
{
    uint64_t d = 0;
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        if (!(mask & (1ull << i)))
            continue;
        const etm_signal_t *s = &etm_out_signals[i];
        if (s->kind == ETM_SIG_BYTES) {
            if (a->v3_count != b->v3_count || memcmp(a->v3_bytes, b->v3_bytes, a->v3_count) != 0)
                d |= 1ull << i;
        } else if (etm_signal_get(s, a) != etm_signal_get(s, b)) {
            d |= 1ull << i;
        }
    }
    return d;
}

char *etm_out_format(const etm_out_t *o, size_t i, char *buf, size_t size)
{
    const etm_signal_t *s = &etm_out_signals[i];
    if (size == 0)
        return buf;
    if (s->kind == ETM_SIG_BYTES) {
        size_t k = 0;
        if (o->v3_count == 0 && size > 1)
            buf[k++] = '-';
        for (unsigned b = 0; b < o->v3_count && k + 2 < size; b++) {
            buf[k++] = hexchars[o->v3_bytes[b] >> 4];
            buf[k++] = hexchars[o->v3_bytes[b] & 15];
        }
        buf[k] = '\0';
        return buf;
    }
    snprintf(buf, size, "%llx", (unsigned long long)etm_signal_get(s, o));
    return buf;
}
