/* vcd.c - interface signals from and to VCD files (rules: etm/vcd.h and
 * vectors/README.md). The reader keeps only the variables it needs, so memory
 * depends on the header, never on the length of the dump.
 *
 * This file has the tokenizer, the followed id codes and the value changes;
 * vcd_header.c the header and the choice of variables, vcd_write.c the writer.
 */
#include "etm/vcd.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vcd_int.h"

void etm_vcd_opts_init(etm_vcd_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->kind = ETM_VEC_STIMULUS;
}

/* ---- Tokenizer -------------------------------------------------------------- */

static int tk_getc(tokenizer_t *t)
{
    if (t->pos == t->len) {
        if (t->eof)
            return EOF;
        t->len = fread(t->buf, 1, sizeof t->buf, t->f);
        t->pos = 0;
        if (t->len == 0) {
            t->eof = 1;
            return EOF;
        }
    }
    return t->buf[t->pos++];
}

/* Next whitespace-separated token into t->tok. Returns 1, 0 at end of file, -1 if too long. */
int vcd_tk_next(tokenizer_t *t)
{
    int c;
    do {
        c = tk_getc(t);
        if (c == '\n')
            t->cur_line++;
    } while (c == ' ' || c == '\t' || c == '\r' || c == '\n');
    if (c == EOF)
        return 0;
    t->line = t->cur_line;
    t->toklen = 0;
    while (c != EOF && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        if (t->toklen == TOK_MAX)
            return -1;
        t->tok[t->toklen++] = (char)c;
        c = tk_getc(t);
    }
    if (c == '\n')
        t->cur_line++;
    t->tok[t->toklen] = '\0';
    return 1;
}

/* ---- Followed id codes ------------------------------------------------------------ */

/* Copy of the n bytes at s, NUL-terminated. */
char *vcd_dupstr(const char *s, size_t n)
{
    char *p = (char *)malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static unsigned hash_code(const char *s)
{
    unsigned h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h % HASH_SIZE;
}

static int find_tracked(const etm_vcd_reader_t *r, const char *code)
{
    for (int i = r->hash[hash_code(code)]; i >= 0; i = r->tracked[i].next)
        if (strcmp(r->tracked[i].code, code) == 0)
            return i;
    return -1;
}

/* Follow variable v's id code (see vcd_int.h). */
int vcd_add_tracked(etm_vcd_reader_t *r, const var_t *v)
{
    int i = find_tracked(r, v->code);
    if (i >= 0)
        return i;
    if (r->ntracked == MAX_TRACKED)
        return -1;
    i = r->ntracked++;
    tracked_t *t = &r->tracked[i];
    memset(t, 0, sizeof *t);
    t->code = v->code;
    t->width = v->width;
    t->xz_c = t->xz_p = v->width >= 64 ? ~0ull : ((1ull << v->width) - 1); /* unknown until dumped */
    unsigned h = hash_code(v->code);
    t->next = r->hash[h];
    r->hash[h] = i;
    return i;
}

/* An error at the line of the last token (see vcd_int.h). */
etm_err_t vcd_fail_line(etm_vcd_reader_t *r, etm_diag_t *diag, etm_err_t e, const char *fmt, ...)
{
    if (diag) {
        va_list ap;
        diag->file = r->path;
        diag->line = r->tk.line;
        diag->code = e;
        va_start(ap, fmt);
        vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
        va_end(ap);
    }
    return e;
}

/* ---- Opening and closing ------------------------------------------------------------ */

static etm_err_t vcd_open_common(etm_vcd_reader_t **out, FILE *f, int owns, const char *path,
                                 const etm_vcd_opts_t *opts, etm_diag_t *diag);

etm_err_t etm_vcd_open(etm_vcd_reader_t **out, const char *path, const etm_vcd_opts_t *opts, etm_diag_t *diag)
{
    if (!etm_is_fst_path(path))
        return vcd_open_common(out, NULL, 1, path, opts, diag);
    /* An FST file: read as the VCD text of its contents. */
    *out = NULL;
    FILE *tmp = tmpfile();
    if (!tmp)
        return etm_util_fail(diag, ETM_ERR_IO, "%s: no temporary file for its VCD text", path);
    etm_err_t e = etm_fst_to_vcd(path, tmp, diag);
    if (e == ETM_OK)
        rewind(tmp);
    if (e == ETM_OK)
        e = vcd_open_common(out, tmp, 1, path, opts, diag);
    else
        fclose(tmp);
    if (e == ETM_OK)
        (*out)->from_fst = 1;
    else if (diag)
        diag->line = 0;
    return e;
}

etm_err_t etm_vcd_open_stream(etm_vcd_reader_t **out, FILE *f, const char *name, const etm_vcd_opts_t *opts,
                              etm_diag_t *diag)
{
    return vcd_open_common(out, f, 0, name, opts, diag);
}

/* f NULL: open path (and close it with the reader); otherwise read f, named path. */
static etm_err_t vcd_open_common(etm_vcd_reader_t **out, FILE *f, int owns, const char *path,
                                 const etm_vcd_opts_t *opts, etm_diag_t *diag)
{
    *out = NULL;
    etm_diag_clear(diag);
    if (diag)
        diag->file = path;
    etm_vcd_reader_t *r = (etm_vcd_reader_t *)calloc(1, sizeof *r);
    if (!r)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    r->path = path;
    r->opts = *opts;
    r->table = opts->kind == ETM_VEC_STIMULUS ? etm_in_signals : etm_out_signals;
    r->table_count = opts->kind == ETM_VEC_STIMULUS ? etm_in_signal_count : etm_out_signal_count;
    for (int i = 0; i < HASH_SIZE; i++)
        r->hash[i] = -1;
    r->tk.cur_line = 1;
    etm_err_t e = vcd_setup_targets(r, diag);
    r->owns_file = owns;
    if (e == ETM_OK) {
        r->tk.f = f ? f : etm_open_read(path, "cannot open the file", diag);
        if (!r->tk.f)
            e = ETM_ERR_IO;
    }
    if (e == ETM_OK)
        e = vcd_read_header(r, diag);
    if (e == ETM_OK)
        e = vcd_resolve_all(r, diag);
    if (e != ETM_OK) {
        if (diag)
            diag->file = path;
        etm_vcd_close(r);
        return e;
    }
    /* The header's variables are no longer needed, only the tracked codes. */
    for (int i = 0; i < r->ntracked; i++)
        r->tracked[i].code = vcd_dupstr(r->tracked[i].code, strlen(r->tracked[i].code));
    for (size_t i = 0; i < r->nvars; i++) {
        free(r->vars[i].scope);
        free(r->vars[i].leaf);
        free(r->vars[i].code);
    }
    free(r->vars);
    r->vars = NULL;
    r->nvars = r->capvars = 0;
    for (int i = 0; i < r->ntracked; i++)
        if (!r->tracked[i].code) {
            etm_vcd_close(r);
            return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
        }
    r->next_edge = opts->period ? (opts->offset ? opts->offset : opts->period) : 0;
    *out = r;
    return ETM_OK;
}

void etm_vcd_close(etm_vcd_reader_t *r)
{
    if (!r)
        return;
    if (r->tk.f && r->owns_file)
        fclose(r->tk.f);
    for (size_t i = 0; i < r->nvars; i++) {
        free(r->vars[i].scope);
        free(r->vars[i].leaf);
        free(r->vars[i].code);
    }
    free(r->vars);
    if (!r->vars) /* after open succeeded the tracked codes are own copies */
        for (int i = 0; i < r->ntracked; i++)
            free(r->tracked[i].code);
    for (int i = 0; i < r->ntargets; i++)
        free(r->targets[i].pieces);
    free(r);
}

uint64_t etm_vcd_signal_mask(const etm_vcd_reader_t *r) { return r->signal_mask; }
uint64_t etm_vcd_time(const etm_vcd_reader_t *r) { return r->last_time; }
const char *etm_vcd_notes(const etm_vcd_reader_t *r) { return r->notes; }

/* ---- Values ------------------------------------------------------------------------ */

/* Value of target t assembled from the committed values; *xz gets unknown bits. */
static uint64_t target_value(const etm_vcd_reader_t *r, const target_t *t, uint64_t *xz)
{
    uint64_t v = 0, x = 0;
    for (int i = 0; i < t->npieces; i++) {
        const piece_t *p = &t->pieces[i];
        const tracked_t *tr = &r->tracked[p->tracked];
        int w = tr->width;
        for (int b = 0; b < w; b++) {
            int idx = p->left >= p->right ? p->right + b : p->right - b;
            if (idx >= 64)
                continue;
            if ((tr->val_c >> b) & 1)
                v |= 1ull << idx;
            if ((tr->xz_c >> b) & 1)
                x |= 1ull << idx;
        }
    }
    *xz = x;
    return v;
}

/* The sample can not be used: say why at `time`. */
static etm_err_t pending_fail(etm_vcd_reader_t *r, etm_err_t e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static etm_err_t pending_fail(etm_vcd_reader_t *r, etm_err_t e, const char *fmt, ...)
{
    va_list ap;
    r->pending_err = e;
    etm_diag_clear(&r->pending_diag);
    r->pending_diag.code = e;
    va_start(ap, fmt);
    vsnprintf(r->pending_diag.msg, sizeof r->pending_diag.msg, fmt, ap);
    va_end(ap);
    return e;
}

/* Unknown inputs of a stimulus sample: harmless where a qualifier is known off. */
static etm_err_t check_unknown_inputs(etm_vcd_reader_t *r, uint64_t unknown, uint64_t time)
{
    uint64_t harmful = etm_in_unknown_harmful(&r->rec.in, unknown, r->opts.issue_width);
    if (!harmful)
        return ETM_OK;
    int i = 0;
    while (!(harmful >> i & 1))
        i++;
    char q[96];
    if (*etm_in_qualifiers((size_t)i, q, sizeof q))
        return pending_fail(r, ETM_ERR_VCD_VALUE, "%s is X or Z at time %llu, where it is sampled and not every "
                            "qualifier (%s) is 0", etm_in_signals[i].name, (unsigned long long)time, q);
    return pending_fail(r, ETM_ERR_VCD_VALUE, "%s is X or Z at time %llu, where it is sampled (it has no qualifier "
                        "that could make it harmless; only a reset may hide it)", etm_in_signals[i].name,
                        (unsigned long long)time);
}

static etm_err_t build_record(etm_vcd_reader_t *r, uint64_t time)
{
    uint64_t unknown = 0, data_xz = 0;
    memset(&r->rec, 0, sizeof r->rec);
    for (int i = 0; i < r->ntargets; i++) {
        const target_t *t = &r->targets[i];
        if (!t->found || t->kind == T_CLOCK || t->kind == T_RESET)
            continue;
        uint64_t xz, v = target_value(r, t, &xz);
        uint64_t need = t->kind == T_SCALAR ? etm_signal_mask(&r->table[t->sig]) : t->kind == T_V3COUNT ? 0xf : ~0ull;
        xz &= need;
        v &= ~xz;
        if (xz && t->kind == T_SCALAR && r->opts.kind == ETM_VEC_STIMULUS)
            unknown |= 1ull << t->sig; /* decided below, when the qualifiers are known */
        else if (xz && t->kind == T_V3DATA)
            data_xz = xz; /* harmless in the byte lanes past V3COUNT */
        else if (xz)
            return pending_fail(r, ETM_ERR_VCD_VALUE, "%s is X or Z at time %llu, where it is sampled", t->name,
                                (unsigned long long)time);
        if (t->kind == T_SCALAR) {
            etm_signal_set(&r->table[t->sig], &r->rec, v & etm_signal_mask(&r->table[t->sig]));
        } else if (t->kind == T_V3COUNT) {
            if (v > ETM_MAX_PORT_BYTES)
                return pending_fail(r, ETM_ERR_FIELD_WIDTH, "V3COUNT=%u at time %llu: at most %d", (unsigned)v,
                                    (unsigned long long)time, ETM_MAX_PORT_BYTES);
            r->rec.out.v3_count = (uint8_t)v;
        } else {
            for (int b = 0; b < ETM_MAX_PORT_BYTES; b++)
                r->rec.out.v3_bytes[b] = (uint8_t)(v >> (8 * b));
        }
    }
    if (unknown && check_unknown_inputs(r, unknown, time) != ETM_OK)
        return r->pending_err;
    if (r->opts.kind == ETM_VEC_EXPECTED) { /* bytes beyond the count are not part of the record */
        unsigned n = r->rec.out.v3_count;
        uint64_t valid = n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
        if (data_xz & valid)
            return pending_fail(r, ETM_ERR_VCD_VALUE, "V3DATA is X or Z at time %llu in one of the %u bytes that "
                                "V3COUNT makes valid", (unsigned long long)time, n);
        for (int b = r->rec.out.v3_count; b < ETM_MAX_PORT_BYTES; b++)
            r->rec.out.v3_bytes[b] = 0;
    }
    r->rec_time = time;
    return ETM_OK;
}

static int reset_active(const etm_vcd_reader_t *r)
{
    if (r->reset_t < 0)
        return 0;
    const tracked_t *tr = &r->tracked[r->targets[r->reset_t].pieces[0].tracked];
    if (tr->xz_c & 1)
        return 1; /* unknown reset: treat as in reset */
    return (int)(tr->val_c & 1) == (r->opts.reset_active_low ? 0 : 1);
}

/* A sample in the committed state at `time`: queue it `n` times. */
static void sample(etm_vcd_reader_t *r, uint64_t time, uint64_t n)
{
    if (n == 0 || reset_active(r))
        return;
    if (r->opts.kind == ETM_VEC_EXPECTED && r->edges == 0) {
        /* The first edge's sample shows outputs from before cycle 0. */
        r->edges++;
        n--;
        if (n == 0)
            return;
    }
    r->edges += n;
    if (build_record(r, time) != ETM_OK) {
        r->repeat = 1;
        return;
    }
    r->repeat = n;
}

static void commit(etm_vcd_reader_t *r)
{
    for (int i = 0; i < r->ndirty; i++) {
        tracked_t *t = &r->tracked[r->dirty_list[i]];
        t->val_c = t->val_p;
        t->xz_c = t->xz_p;
        t->dirty = 0;
    }
    r->ndirty = 0;
}

/* The changes of the timestamp being read are complete; the next one is `next`
 * (or none at end of file). Queue the samples this produces. */
static void end_block(etm_vcd_reader_t *r, int have_next, uint64_t next)
{
    if (r->clock_t >= 0) {
        const tracked_t *c = &r->tracked[r->targets[r->clock_t].pieces[0].tracked];
        int rose = c->dirty && !(c->xz_c & 1) && !(c->val_c & 1) && !(c->xz_p & 1) && (c->val_p & 1);
        if (rose && r->have_time)
            sample(r, r->time_block, 1); /* committed = values just before the edge */
        commit(r);
        return;
    }
    commit(r);
    if (!have_next || r->opts.period == 0)
        return;
    if (r->next_edge <= next) {
        uint64_t n = (next - r->next_edge) / r->opts.period + 1;
        uint64_t first = r->next_edge;
        r->next_edge += n * r->opts.period;
        sample(r, first, n);
    }
}

static etm_err_t apply_change(etm_vcd_reader_t *r, const char *val, size_t vlen, const char *code, etm_diag_t *diag)
{
    int ti = find_tracked(r, code);
    if (ti < 0)
        return ETM_OK;
    tracked_t *t = &r->tracked[ti];
    uint64_t v = 0, x = 0;
    int w = t->width;
    /* val holds bits MSB first; extend on the left with 0, or x/z if the first is x/z. */
    char ext = (vlen && (val[0] == 'x' || val[0] == 'X' || val[0] == 'z' || val[0] == 'Z')) ? 'x' : '0';
    for (int b = 0; b < w; b++) {
        char c = (size_t)b < vlen ? val[vlen - 1 - (size_t)b] : ext;
        switch (c) {
        case '0': break;
        case '1': v |= 1ull << b; break;
        case 'x': case 'X': case 'z': case 'Z': x |= 1ull << b; break;
        default:
            return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "bad value '%.70s' for id %.20s", val, code);
        }
    }
    if (!t->dirty) {
        t->dirty = 1;
        r->dirty_list[r->ndirty++] = ti;
    }
    t->val_p = v;
    t->xz_p = x;
    return ETM_OK;
}

/* Read value changes until a sample is queued or the file ends. */
static etm_err_t advance(etm_vcd_reader_t *r, etm_diag_t *diag)
{
    while (r->repeat == 0 && !r->at_eof) {
        int k = vcd_tk_next(&r->tk);
        if (k < 0)
            return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "token longer than 4096 characters");
        if (k == 0) {
            end_block(r, 0, 0);
            r->at_eof = 1;
            break;
        }
        char *t = r->tk.tok;
        switch (t[0]) {
        case '#': {
            uint64_t tm;
            if (etm_util_parse_dec(t + 1, r->tk.toklen - 1, &tm) != 0)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "bad timestamp '%.60s'", t);
            if (r->have_time && tm < r->time_block)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "time goes backwards at '%.60s'", t);
            if (r->have_time)
                end_block(r, 1, tm);
            else
                commit(r); /* changes before the first timestamp */
            r->time_block = tm;
            r->have_time = 1;
            break;
        }
        case '0': case '1': case 'x': case 'X': case 'z': case 'Z':
            if (r->tk.toklen < 2)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "value '%.60s' without an id code", t);
            {
                etm_err_t e = apply_change(r, t, 1, t + 1, diag);
                if (e != ETM_OK)
                    return e;
            }
            break;
        case 'b': case 'B': case 'r': case 'R': {
            char val[TOK_MAX + 1];
            size_t vlen = r->tk.toklen - 1;
            memcpy(val, t + 1, vlen);
            val[vlen] = '\0';
            int real = t[0] == 'r' || t[0] == 'R';
            k = vcd_tk_next(&r->tk);
            if (k <= 0)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "value '%.60s' without an id code", val);
            if (real) {
                if (find_tracked(r, r->tk.tok) >= 0)
                    return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "real value for signal id %.20s", r->tk.tok);
                break;
            }
            etm_err_t e = apply_change(r, val, vlen, r->tk.tok, diag);
            if (e != ETM_OK)
                return e;
            break;
        }
        case '$':
            /* $dumpvars, $dumpall, $dumpon, $dumpoff, $end: the changes inside count. */
            if (strcmp(t, "$comment") == 0) {
                while ((k = vcd_tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
                }
            }
            break;
        default:
            return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "unexpected '%.60s' in value changes", t);
        }
    }
    if (r->repeat == 0 && r->at_eof && !r->final_done) {
        r->final_done = 1;
        /* Outputs of the last cycle are the values in force at the end of the dump. */
        if (r->opts.kind == ETM_VEC_EXPECTED && r->edges > 0)
            sample(r, r->time_block, 1);
    }
    return ETM_OK;
}

static etm_err_t read_record(etm_vcd_reader_t *r, void *rec, size_t size, etm_diag_t *diag)
{
    etm_err_t e = advance(r, diag);
    if (e != ETM_OK) {
        if (diag) {
            diag->file = r->path;
            diag->cycle = r->cycle;
        }
        return e;
    }
    if (r->repeat == 0)
        return ETM_END;
    if (r->pending_err != ETM_OK) {
        if (diag) {
            *diag = r->pending_diag;
            diag->file = r->path;
            diag->line = r->tk.line;
            diag->cycle = r->cycle;
        }
        return r->pending_err;
    }
    memcpy(rec, &r->rec, size);
    r->repeat--;
    r->last_time = r->rec_time;
    r->cycle++;
    return ETM_OK;
}

etm_err_t etm_vcd_read_in(etm_vcd_reader_t *r, etm_in_t *in, etm_diag_t *diag)
{
    if (r->opts.kind != ETM_VEC_STIMULUS)
        return etm_util_fail(diag, ETM_ERR_STATE, "reader was opened for output signals");
    etm_err_t e = read_record(r, in, sizeof *in, diag);
    if (e != ETM_OK && r->from_fst && diag)
        diag->line = 0; /* the cycle and time say where */
    return e;
}

etm_err_t etm_vcd_read_out(etm_vcd_reader_t *r, etm_out_t *out, etm_diag_t *diag)
{
    if (r->opts.kind != ETM_VEC_EXPECTED)
        return etm_util_fail(diag, ETM_ERR_STATE, "reader was opened for input signals");
    etm_err_t e = read_record(r, out, sizeof *out, diag);
    if (e != ETM_OK && r->from_fst && diag)
        diag->line = 0;
    return e;
}

