/* vcd.c - interface signals from and to VCD files (rules: etm/vcd.h and
 * vectors/README.md). The reader keeps only the variables it needs, so memory
 * depends on the header, never on the length of the dump. */
#include "etm/vcd.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void etm_vcd_opts_init(etm_vcd_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->kind = ETM_VEC_STIMULUS;
}

/* ---- Tokenizer -------------------------------------------------------------- */

#define TOK_MAX 4096
#define BUF_SIZE 65536

typedef struct tokenizer {
    FILE *f;
    unsigned char buf[BUF_SIZE];
    size_t pos, len;
    int eof;
    unsigned long line;     /* line of the last token */
    unsigned long cur_line; /* line at the read position */
    char tok[TOK_MAX + 1];
    size_t toklen;
} tokenizer_t;

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
static int tk_next(tokenizer_t *t)
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

/* ---- Reader state -------------------------------------------------------------- */

#define MAX_TRACKED 512
#define MAX_PIECES 8 /* pieces per target before falling back to bit-blasted lists */
#define HASH_SIZE 1024
#define MAX_SCOPE 1024

typedef struct var {   /* a $var kept because its name may be wanted */
    char *scope;       /* dot-separated scope path */
    char *leaf;        /* reference without range */
    char *code;        /* id code */
    int width;
    int left, right;   /* declared range; left=-1 when none */
} var_t;

typedef struct tracked { /* an id code whose values are followed */
    char *code;
    int width;
    uint64_t val_c, xz_c; /* committed: in force before the current timestamp */
    uint64_t val_p, xz_p; /* pending: after this timestamp's changes */
    int dirty;
    int next;             /* hash chain */
} tracked_t;

typedef struct piece {
    int tracked;     /* index in tracked[] */
    int left, right; /* declared indices of the variable's left and right bits */
} piece_t;

enum { T_SCALAR, T_V3COUNT, T_V3DATA, T_CLOCK, T_RESET };

typedef struct target {
    int kind;        /* T_* */
    int sig;         /* signal index for T_SCALAR */
    const char *name;
    int npieces;
    piece_t *pieces;
    int found;
} target_t;

struct etm_vcd_reader {
    tokenizer_t tk;
    const char *path;
    etm_vcd_opts_t opts;
    const etm_signal_t *table;
    size_t table_count;

    var_t *vars;
    size_t nvars, capvars;
    tracked_t tracked[MAX_TRACKED];
    int ntracked;
    int hash[HASH_SIZE];
    int dirty_list[MAX_TRACKED];
    int ndirty;

    target_t targets[ETM_VEC_MAX_COLUMNS + 4];
    int ntargets;
    int clock_t, reset_t; /* target indices or -1 */
    uint64_t signal_mask;

    uint64_t time_block;  /* timestamp of the changes being read */
    int have_time;
    uint64_t next_edge;   /* period mode: time of the next virtual edge */

    /* The sample waiting to be returned. */
    union { etm_in_t in; etm_out_t out; } rec;
    uint64_t rec_time;
    uint64_t repeat;      /* copies of rec still to return */
    etm_err_t pending_err;
    etm_diag_t pending_diag;

    uint64_t edges;       /* edges seen (after reset) */
    uint64_t cycle;       /* cycles returned */
    uint64_t last_time;   /* time of the record last returned */
    int at_eof;
    int final_done;
};

static char *dupstr(const char *s, size_t n)
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

static int add_tracked(etm_vcd_reader_t *r, const var_t *v)
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

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static etm_err_t fail_line(etm_vcd_reader_t *r, etm_diag_t *diag, etm_err_t e, const char *fmt, ...)
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

/* ---- Header -------------------------------------------------------------------- */

static int leaf_matches(const char *want, const char *leaf, int allow_suffix)
{
    const char *dot = strrchr(want, '.');
    const char *wl = dot ? dot + 1 : want;
    size_t n = strlen(leaf);
    if (etm_util_strcaseeq(wl, leaf))
        return 1;
    return allow_suffix && n > 2 && leaf[n - 2] == '_' &&
           (leaf[n - 1] == 'i' || leaf[n - 1] == 'o' || leaf[n - 1] == 'I' || leaf[n - 1] == 'O') &&
           etm_util_strncaseeq(wl, leaf, n - 2);
}

/* Is leaf a name this reader may want (a column, a --map name, clock, reset)? */
static int name_wanted(const etm_vcd_reader_t *r, const char *leaf)
{
    static const char *const clocks[] = { "CLK", "HCLK", "FCLK", "clk_i", "clock" };
    for (int i = 0; i < r->ntargets; i++)
        if (leaf_matches(r->targets[i].name, leaf, r->targets[i].kind != T_CLOCK && r->targets[i].kind != T_RESET))
            return 1;
    for (int i = 0; i < ETM_VCD_MAX_MAP && r->opts.map[i]; i++) {
        const char *eq = strchr(r->opts.map[i], '=');
        if (eq && leaf_matches(eq + 1, leaf, 0))
            return 1;
    }
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++)
        if (!r->opts.clock && !r->opts.period && leaf_matches(clocks[i], leaf, 0))
            return 1;
    return 0;
}

static int parse_range(const char *s, int *left, int *right)
{
    /* "[a:b]" or "[a]" */
    char *end;
    if (*s != '[')
        return -1;
    long a = strtol(s + 1, &end, 10);
    if (end == s + 1)
        return -1;
    long b = a;
    if (*end == ':') {
        const char *q = end + 1;
        b = strtol(q, &end, 10);
        if (end == q)
            return -1;
    }
    if (*end != ']' || end[1] != '\0' || a < 0 || b < 0 || a > 4095 || b > 4095)
        return -1;
    *left = (int)a;
    *right = (int)b;
    return 0;
}

static etm_err_t read_header(etm_vcd_reader_t *r, etm_diag_t *diag)
{
    char scope[MAX_SCOPE] = "";
    size_t depth_len[64];
    int depth = 0;
    int k;
    for (;;) {
        k = tk_next(&r->tk);
        if (k == 0)
            return fail_line(r, diag, ETM_ERR_SYNTAX, "end of file before $enddefinitions");
        if (k < 0)
            return fail_line(r, diag, ETM_ERR_SYNTAX, "token longer than 4096 characters");
        const char *t = r->tk.tok;
        if (strcmp(t, "$enddefinitions") == 0) {
            while ((k = tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
            }
            return ETM_OK;
        }
        if (strcmp(t, "$scope") == 0) {
            char name[256] = "";
            int n = 0;
            while ((k = tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
                if (n++ == 1)
                    snprintf(name, sizeof name, "%.200s", r->tk.tok);
            }
            if (k <= 0 || depth == 64)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "malformed $scope");
            depth_len[depth++] = strlen(scope);
            size_t len = strlen(scope);
            if (len + strlen(name) + 2 >= sizeof scope)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "scope path too long");
            if (len)
                scope[len++] = '.';
            strcpy(scope + len, name);
            continue;
        }
        if (strcmp(t, "$upscope") == 0) {
            while ((k = tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
            }
            if (depth == 0)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "$upscope without $scope");
            scope[depth_len[--depth]] = '\0';
            continue;
        }
        if (strcmp(t, "$var") == 0) {
            char f[6][256];
            int n = 0;
            while ((k = tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
                if (n < 6)
                    snprintf(f[n], sizeof f[n], "%.200s", r->tk.tok);
                n++;
            }
            /* type size code reference [range] */
            if (k <= 0 || n < 4 || n > 5)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "malformed $var: expected 'type size code name [range]'");
            char *endp;
            long width = strtol(f[1], &endp, 10);
            if (*endp || width <= 0)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: bad size '%.20s'", f[3], f[1]);
            int left = -1, right = -1;
            char *br = strchr(f[3], '[');
            if (n == 5) {
                if (parse_range(f[4], &left, &right) != 0)
                    return fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: bad range '%.20s'", f[3], f[4]);
            } else if (br) {
                if (parse_range(br, &left, &right) != 0)
                    return fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: bad range in the name", f[3]);
                *br = '\0';
            }
            if (!name_wanted(r, f[3]))
                continue;
            if (left >= 0 && abs(left - right) + 1 != width)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: range does not match its size %.20s", f[3], f[1]);
            if (r->nvars == r->capvars) {
                size_t cap = r->capvars ? 2 * r->capvars : 64;
                var_t *nv = (var_t *)realloc(r->vars, cap * sizeof *nv);
                if (!nv)
                    return ETM_ERR_NOMEM;
                r->vars = nv;
                r->capvars = cap;
            }
            var_t *v = &r->vars[r->nvars];
            v->scope = dupstr(scope, strlen(scope));
            v->leaf = dupstr(f[3], strlen(f[3]));
            v->code = dupstr(f[2], strlen(f[2]));
            if (!v->scope || !v->leaf || !v->code) {
                free(v->scope);
                free(v->leaf);
                free(v->code);
                return ETM_ERR_NOMEM;
            }
            v->width = (int)width;
            v->left = left;
            v->right = right;
            r->nvars++;
            continue;
        }
        if (t[0] == '$') { /* $date, $version, $timescale, $comment, ...: skip to $end */
            if (strcmp(t, "$end") == 0)
                continue;
            while ((k = tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
            }
            if (k <= 0)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "%.60s without $end", t);
            continue;
        }
        return fail_line(r, diag, ETM_ERR_SYNTAX, "unexpected '%.60s' in the VCD header", t);
    }
}

/* Does variable v match target t (by name and scope)? */
static int var_matches(const etm_vcd_reader_t *r, const target_t *t, const var_t *v, const char *want)
{
    const char *dot = strrchr(want, '.');
    if (dot) { /* a full path: scope and leaf must both match */
        size_t slen = (size_t)(dot - want);
        if (strlen(v->scope) != slen || strncmp(v->scope, want, slen) != 0)
            return 0;
        return strcmp(v->leaf, dot + 1) == 0;
    }
    if (r->opts.scope) {
        size_t sl = strlen(r->opts.scope), vl = strlen(v->scope);
        if (vl < sl || strcmp(v->scope + vl - sl, r->opts.scope) != 0 || (vl > sl && v->scope[vl - sl - 1] != '.'))
            return 0;
    }
    return leaf_matches(want, v->leaf, t->kind != T_CLOCK && t->kind != T_RESET);
}

static etm_err_t resolve_target(etm_vcd_reader_t *r, target_t *t, const char *want, int required, etm_diag_t *diag)
{
    /* Group matching variables by scope; one scope must remain. */
    const char *chosen_scope = NULL;
    int count = 0;
    for (size_t i = 0; i < r->nvars; i++) {
        const var_t *v = &r->vars[i];
        if (!var_matches(r, t, v, want))
            continue;
        if (chosen_scope && strcmp(chosen_scope, v->scope) != 0) {
            /* Another scope: fine only when it repeats the same id codes (aliases). */
            int same = 0;
            for (size_t j = 0; j < r->nvars; j++)
                if (strcmp(r->vars[j].scope, chosen_scope) == 0 && var_matches(r, t, &r->vars[j], want) &&
                    strcmp(r->vars[j].code, v->code) == 0)
                    same = 1;
            if (!same) {
                if (diag) {
                    diag->file = r->path;
                    diag->line = 0;
                    diag->code = ETM_ERR_VCD_SIGNAL;
                    snprintf(diag->msg, sizeof diag->msg,
                             "%s matches signals in scopes '%s' and '%s': choose one with --scope or --map", t->name,
                             chosen_scope, v->scope);
                }
                return ETM_ERR_VCD_SIGNAL;
            }
            continue;
        }
        chosen_scope = v->scope;
        count++;
    }
    if (count == 0) {
        if (required && !r->opts.allow_missing) {
            if (diag) {
                diag->file = r->path;
                diag->line = 0;
                diag->code = ETM_ERR_VCD_SIGNAL;
                snprintf(diag->msg, sizeof diag->msg,
                         "signal %s not found%s%s (give --map %s=NAME, or --allow-missing to read it as 0)", want,
                         r->opts.scope ? " in scope " : "", r->opts.scope ? r->opts.scope : "", t->name);
            }
            return ETM_ERR_VCD_SIGNAL;
        }
        return ETM_OK;
    }
    t->pieces = (piece_t *)calloc((size_t)count, sizeof *t->pieces);
    if (!t->pieces)
        return ETM_ERR_NOMEM;
    for (size_t i = 0; i < r->nvars; i++) {
        const var_t *v = &r->vars[i];
        if (strcmp(v->scope, chosen_scope) != 0 || !var_matches(r, t, v, want))
            continue;
        if (v->width > 64) {
            if (diag) {
                diag->file = r->path;
                diag->code = ETM_ERR_VCD_SIGNAL;
                snprintf(diag->msg, sizeof diag->msg, "%s.%s is %d bits wide; at most 64 can be read", v->scope,
                         v->leaf, v->width);
            }
            return ETM_ERR_VCD_SIGNAL;
        }
        int ti = add_tracked(r, v);
        if (ti < 0) {
            if (diag) {
                diag->file = r->path;
                diag->code = ETM_ERR_VCD_SIGNAL;
                snprintf(diag->msg, sizeof diag->msg, "more than %d signal pieces to follow", MAX_TRACKED);
            }
            return ETM_ERR_VCD_SIGNAL;
        }
        piece_t *p = &t->pieces[t->npieces++];
        p->tracked = ti;
        if (v->left >= 0) {
            p->left = v->left;
            p->right = v->right;
        } else {
            /* No range: the variable holds the signal's bits from its lowest one,
             * unless it is wide enough to start at bit 0. */
            int lo = 0;
            if (t->kind == T_SCALAR && v->width == r->table[t->sig].width)
                lo = r->table[t->sig].lsb;
            p->right = lo;
            p->left = lo + v->width - 1;
        }
    }
    t->found = 1;
    /* Check the pieces fit the signal. */
    if (t->kind == T_SCALAR || t->kind == T_V3COUNT || t->kind == T_V3DATA) {
        int msb = t->kind == T_V3COUNT ? 3 : t->kind == T_V3DATA ? 63
                                                                  : r->table[t->sig].lsb + r->table[t->sig].width - 1;
        for (int i = 0; i < t->npieces; i++) {
            int hi = t->pieces[i].left > t->pieces[i].right ? t->pieces[i].left : t->pieces[i].right;
            if (hi > msb) {
                if (diag) {
                    diag->file = r->path;
                    diag->code = ETM_ERR_VCD_SIGNAL;
                    snprintf(diag->msg, sizeof diag->msg, "%s: the VCD variable has bit %d, but the signal ends at bit %d",
                             t->name, hi, msb);
                }
                return ETM_ERR_VCD_SIGNAL;
            }
        }
        uint64_t need = t->kind == T_V3COUNT ? 0xf : t->kind == T_V3DATA ? ~0ull : etm_signal_mask(&r->table[t->sig]);
        uint64_t have = 0;
        for (int i = 0; i < t->npieces; i++) {
            int w = r->tracked[t->pieces[i].tracked].width;
            for (int b = 0; b < w; b++) {
                int idx = t->pieces[i].left >= t->pieces[i].right ? t->pieces[i].right + b : t->pieces[i].right - b;
                if (idx < 64)
                    have |= 1ull << idx;
            }
        }
        if ((need & ~have) && !r->opts.allow_missing) {
            int lo = 0, hi = 63;
            while (!(((need & ~have) >> lo) & 1))
                lo++;
            while (!(((need & ~have) >> hi) & 1))
                hi--;
            if (diag) {
                diag->file = r->path;
                diag->code = ETM_ERR_VCD_SIGNAL;
                snprintf(diag->msg, sizeof diag->msg,
                         "%s: bits %d to %d are not in the VCD (--allow-missing reads them as 0)", t->name, hi, lo);
            }
            return ETM_ERR_VCD_SIGNAL;
        }
    } else if (t->npieces != 1 || r->tracked[t->pieces[0].tracked].width != 1) {
        if (diag) {
            diag->file = r->path;
            diag->code = ETM_ERR_VCD_SIGNAL;
            snprintf(diag->msg, sizeof diag->msg, "%s must be a single 1-bit signal", t->name);
        }
        return ETM_ERR_VCD_SIGNAL;
    }
    return ETM_OK;
}

static const char *mapped_name(const etm_vcd_opts_t *o, const char *column)
{
    for (int i = 0; i < ETM_VCD_MAX_MAP && o->map[i]; i++) {
        const char *eq = strchr(o->map[i], '=');
        if (eq && etm_util_strncaseeq(column, o->map[i], (size_t)(eq - o->map[i])))
            return eq + 1;
    }
    return NULL;
}

static int is_required(etm_veckind_t kind, const etm_signal_t *s)
{
    if (kind == ETM_VEC_EXPECTED)
        return 1;
    /* Table 16.1 signals are required; slot 1 and the data slot are optional. */
    static const char *const optional[] = { "ETMIVALID1", "ETMIBRANCH1", "ETMIINDBR1", "ETMICCFAIL1", "ETMIA1",
                                            "ETMDACTL",   "ETMDA",       "ETMDDCTL",   "ETMDD" };
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (strcmp(optional[i], s->name) == 0)
            return 0;
    return 1;
}

static etm_err_t setup_targets(etm_vcd_reader_t *r, etm_diag_t *diag)
{
    /* Validate the map entries first: each names a column. */
    for (int i = 0; i < ETM_VCD_MAX_MAP && r->opts.map[i]; i++) {
        const char *m = r->opts.map[i];
        const char *eq = strchr(m, '=');
        char col[64];
        if (!eq || eq == m || !eq[1] || (size_t)(eq - m) >= sizeof col)
            return etm_util_fail(diag, ETM_ERR_SYNTAX, "--map '%s': expected COLUMN=vcdname", m);
        memcpy(col, m, (size_t)(eq - m));
        col[eq - m] = '\0';
        int ok = etm_signal_find(r->table, r->table_count, col) >= 0 || etm_util_strcaseeq(col, "V3COUNT") ||
                 etm_util_strcaseeq(col, "V3DATA");
        if (!ok)
            return etm_util_fail(diag, ETM_ERR_UNKNOWN_NAME, "--map '%s': '%s' is not a column", m, col);
    }
    r->ntargets = 0;
    for (size_t i = 0; i < r->table_count; i++) {
        const etm_signal_t *s = &r->table[i];
        if (s->kind == ETM_SIG_BYTES) {
            target_t *a = &r->targets[r->ntargets++];
            a->kind = T_V3COUNT;
            a->sig = (int)i;
            a->name = "V3COUNT";
            target_t *b = &r->targets[r->ntargets++];
            b->kind = T_V3DATA;
            b->sig = (int)i;
            b->name = "V3DATA";
            continue;
        }
        target_t *t = &r->targets[r->ntargets++];
        t->kind = T_SCALAR;
        t->sig = (int)i;
        t->name = s->name;
    }
    r->clock_t = r->reset_t = -1;
    if (!r->opts.period) {
        r->clock_t = r->ntargets;
        target_t *t = &r->targets[r->ntargets++];
        t->kind = T_CLOCK;
        t->name = r->opts.clock ? r->opts.clock : "CLK";
    }
    if (r->opts.reset) {
        r->reset_t = r->ntargets;
        target_t *t = &r->targets[r->ntargets++];
        t->kind = T_RESET;
        t->name = r->opts.reset;
    }
    return ETM_OK;
}

static etm_err_t resolve_all(etm_vcd_reader_t *r, etm_diag_t *diag)
{
    etm_err_t e;
    for (int i = 0; i < r->ntargets; i++) {
        target_t *t = &r->targets[i];
        if (t->kind == T_CLOCK) {
            if (r->opts.clock) {
                e = resolve_target(r, t, r->opts.clock, 1, diag);
                if (e == ETM_ERR_VCD_SIGNAL && !t->found && diag)
                    snprintf(diag->msg, sizeof diag->msg, "clock signal '%s' not found", r->opts.clock);
                if (e != ETM_OK)
                    return e;
                if (!t->found)
                    return etm_util_fail(diag, ETM_ERR_VCD_SIGNAL, "clock signal '%s' not found", r->opts.clock);
            } else {
                static const char *const names[] = { "CLK", "HCLK", "FCLK", "clk_i", "clock" };
                for (size_t k = 0; k < sizeof names / sizeof names[0] && !t->found; k++) {
                    t->name = names[k];
                    if ((e = resolve_target(r, t, names[k], 0, diag)) != ETM_OK)
                        return e;
                }
                if (!t->found) {
                    if (diag)
                        diag->file = r->path;
                    return etm_util_fail(diag, ETM_ERR_VCD_SIGNAL,
                                         "no clock signal (looked for CLK, HCLK, FCLK, clk_i, clock): name it with "
                                         "--clock, or sample every P time units with --period P");
                }
            }
            continue;
        }
        if (t->kind == T_RESET) {
            if ((e = resolve_target(r, t, t->name, 1, diag)) != ETM_OK)
                return e;
            if (!t->found)
                return etm_util_fail(diag, ETM_ERR_VCD_SIGNAL, "reset signal '%s' not found", t->name);
            continue;
        }
        const char *m = mapped_name(&r->opts, t->name);
        int required = t->kind == T_SCALAR ? is_required(r->opts.kind, &r->table[t->sig]) : 1;
        if ((e = resolve_target(r, t, m ? m : t->name, m ? 1 : required, diag)) != ETM_OK)
            return e;
        if (t->found && t->kind == T_SCALAR)
            r->signal_mask |= 1ull << t->sig;
    }
    /* V3BYTES needs both halves. */
    for (int i = 0; i + 1 < r->ntargets; i++) {
        if (r->targets[i].kind == T_V3COUNT) {
            if (r->targets[i].found != r->targets[i + 1].found)
                return etm_util_fail(diag, ETM_ERR_VCD_SIGNAL, "V3COUNT and V3DATA must both be present");
            if (r->targets[i].found)
                r->signal_mask |= 1ull << r->targets[i].sig;
        }
    }
    return ETM_OK;
}

etm_err_t etm_vcd_open(etm_vcd_reader_t **out, const char *path, const etm_vcd_opts_t *opts, etm_diag_t *diag)
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
    etm_err_t e = setup_targets(r, diag);
    if (e == ETM_OK) {
        r->tk.f = fopen(path, "r");
        if (!r->tk.f)
            e = etm_util_fail(diag, ETM_ERR_IO, "cannot open the file");
    }
    if (e == ETM_OK)
        e = read_header(r, diag);
    if (e == ETM_OK)
        e = resolve_all(r, diag);
    if (e != ETM_OK) {
        if (diag)
            diag->file = path;
        etm_vcd_close(r);
        return e;
    }
    /* The header's variables are no longer needed, only the tracked codes. */
    for (int i = 0; i < r->ntracked; i++)
        r->tracked[i].code = dupstr(r->tracked[i].code, strlen(r->tracked[i].code));
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
    if (r->tk.f)
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

static etm_err_t build_record(etm_vcd_reader_t *r, uint64_t time)
{
    char tbuf[32];
    memset(&r->rec, 0, sizeof r->rec);
    for (int i = 0; i < r->ntargets; i++) {
        const target_t *t = &r->targets[i];
        if (!t->found || t->kind == T_CLOCK || t->kind == T_RESET)
            continue;
        uint64_t xz, v = target_value(r, t, &xz);
        uint64_t need = t->kind == T_SCALAR ? etm_signal_mask(&r->table[t->sig]) : t->kind == T_V3COUNT ? 0xf : ~0ull;
        if (xz & need) {
            snprintf(tbuf, sizeof tbuf, "%llu", (unsigned long long)time);
            r->pending_err = ETM_ERR_VCD_VALUE;
            etm_diag_clear(&r->pending_diag);
            r->pending_diag.code = ETM_ERR_VCD_VALUE;
            snprintf(r->pending_diag.msg, sizeof r->pending_diag.msg, "%s is x or z at time %s, where it is sampled",
                     t->name, tbuf);
            return ETM_ERR_VCD_VALUE;
        }
        if (t->kind == T_SCALAR) {
            etm_signal_set(&r->table[t->sig], &r->rec, v & etm_signal_mask(&r->table[t->sig]));
        } else if (t->kind == T_V3COUNT) {
            if (v > ETM_MAX_PORT_BYTES) {
                r->pending_err = ETM_ERR_FIELD_WIDTH;
                etm_diag_clear(&r->pending_diag);
                r->pending_diag.code = ETM_ERR_FIELD_WIDTH;
                snprintf(r->pending_diag.msg, sizeof r->pending_diag.msg, "V3COUNT=%u at time %llu: at most %d",
                         (unsigned)v, (unsigned long long)time, ETM_MAX_PORT_BYTES);
                return ETM_ERR_FIELD_WIDTH;
            }
            r->rec.out.v3_count = (uint8_t)v;
        } else {
            for (int b = 0; b < ETM_MAX_PORT_BYTES; b++)
                r->rec.out.v3_bytes[b] = (uint8_t)(v >> (8 * b));
        }
    }
    if (r->opts.kind == ETM_VEC_EXPECTED) /* bytes beyond the count are not part of the record */
        for (int b = r->rec.out.v3_count; b < ETM_MAX_PORT_BYTES; b++)
            r->rec.out.v3_bytes[b] = 0;
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
            return fail_line(r, diag, ETM_ERR_SYNTAX, "bad value '%.70s' for id %.20s", val, code);
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
        int k = tk_next(&r->tk);
        if (k < 0)
            return fail_line(r, diag, ETM_ERR_SYNTAX, "token longer than 4096 characters");
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
                return fail_line(r, diag, ETM_ERR_SYNTAX, "bad timestamp '%.60s'", t);
            if (r->have_time && tm < r->time_block)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "time goes backwards at '%.60s'", t);
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
                return fail_line(r, diag, ETM_ERR_SYNTAX, "value '%.60s' without an id code", t);
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
            k = tk_next(&r->tk);
            if (k <= 0)
                return fail_line(r, diag, ETM_ERR_SYNTAX, "value '%.60s' without an id code", val);
            if (real) {
                if (find_tracked(r, r->tk.tok) >= 0)
                    return fail_line(r, diag, ETM_ERR_SYNTAX, "real value for signal id %.20s", r->tk.tok);
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
                while ((k = tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
                }
            }
            break;
        default:
            return fail_line(r, diag, ETM_ERR_SYNTAX, "unexpected '%.60s' in value changes", t);
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
    return read_record(r, in, sizeof *in, diag);
}

etm_err_t etm_vcd_read_out(etm_vcd_reader_t *r, etm_out_t *out, etm_diag_t *diag)
{
    if (r->opts.kind != ETM_VEC_EXPECTED)
        return etm_util_fail(diag, ETM_ERR_STATE, "reader was opened for input signals");
    return read_record(r, out, sizeof *out, diag);
}

/* ---- Writer --------------------------------------------------------------------------- */

typedef struct wsig {
    char code[8];
    int width;
    int is_out;
    int sig;      /* signal index; for V3BYTES: -1 count, -2 data */
    uint64_t last;
    int written;
} wsig_t;

struct etm_vcd_writer {
    FILE *f;
    wsig_t sigs[ETM_VEC_MAX_COLUMNS + 4];
    int nsigs;
    uint64_t cycle;
    char clk_code[8];
};

static void make_code(char *buf, int n)
{
    /* Printable identifiers from '!' (33) to '~' (126). */
    int k = 0;
    do {
        buf[k++] = (char)('!' + n % 94);
        n /= 94;
    } while (n && k < 6);
    buf[k] = '\0';
}

etm_err_t etm_vcd_writer_open(etm_vcd_writer_t **out, FILE *f, uint64_t in_mask, uint64_t out_mask,
                              const char *comment)
{
    *out = NULL;
    etm_vcd_writer_t *w = (etm_vcd_writer_t *)calloc(1, sizeof *w);
    if (!w)
        return ETM_ERR_NOMEM;
    w->f = f;
    int n = 0;
    make_code(w->clk_code, n++);
    fprintf(f, "$version etm-model $end\n");
    if (comment)
        fprintf(f, "$comment %s $end\n", comment);
    fprintf(f, "$timescale 1ns $end\n$scope module etm $end\n");
    fprintf(f, "$var wire 1 %s clk $end\n", w->clk_code);
    for (size_t i = 0; i < etm_in_signal_count; i++) {
        if (!(in_mask & (1ull << i)))
            continue;
        const etm_signal_t *s = &etm_in_signals[i];
        wsig_t *g = &w->sigs[w->nsigs++];
        make_code(g->code, n++);
        g->width = s->width;
        g->sig = (int)i;
        if (s->width == 1)
            fprintf(f, "$var wire 1 %s %s $end\n", g->code, s->name);
        else
            fprintf(f, "$var wire %d %s %s [%d:%d] $end\n", s->width, g->code, s->name, s->lsb + s->width - 1, s->lsb);
    }
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        if (!(out_mask & (1ull << i)))
            continue;
        const etm_signal_t *s = &etm_out_signals[i];
        if (s->kind == ETM_SIG_BYTES) {
            wsig_t *g = &w->sigs[w->nsigs++];
            make_code(g->code, n++);
            g->width = 4;
            g->is_out = 1;
            g->sig = -1;
            fprintf(f, "$var wire 4 %s V3COUNT [3:0] $end\n", g->code);
            g = &w->sigs[w->nsigs++];
            make_code(g->code, n++);
            g->width = 64;
            g->is_out = 1;
            g->sig = -2;
            fprintf(f, "$var wire 64 %s V3DATA [63:0] $end\n", g->code);
            continue;
        }
        wsig_t *g = &w->sigs[w->nsigs++];
        make_code(g->code, n++);
        g->width = s->width;
        g->is_out = 1;
        g->sig = (int)i;
        if (s->width == 1)
            fprintf(f, "$var wire 1 %s %s $end\n", g->code, s->name);
        else
            fprintf(f, "$var wire %d %s %s [%d:0] $end\n", s->width, g->code, s->name, s->width - 1);
    }
    fprintf(f, "$upscope $end\n$enddefinitions $end\n");
    *out = w;
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

static void put_value(FILE *f, const wsig_t *g, uint64_t v)
{
    if (g->width == 1) {
        fprintf(f, "%c%s\n", (v & 1) ? '1' : '0', g->code);
        return;
    }
    char bits[70];
    int k = 0, top = g->width - 1;
    while (top > 0 && !((v >> top) & 1)) /* shortest form: leading zeros dropped */
        top--;
    for (int b = top; b >= 0; b--)
        bits[k++] = (char)('0' + ((v >> b) & 1));
    bits[k] = '\0';
    fprintf(f, "b%s %s\n", bits, g->code);
}

static uint64_t wsig_value(const wsig_t *g, const etm_in_t *in, const etm_out_t *out)
{
    if (!g->is_out) {
        const etm_signal_t *s = &etm_in_signals[g->sig];
        return etm_signal_get(s, in) >> s->lsb;
    }
    if (g->sig == -1)
        return out->v3_count;
    if (g->sig == -2) {
        uint64_t v = 0;
        for (int b = 0; b < out->v3_count && b < ETM_MAX_PORT_BYTES; b++)
            v |= (uint64_t)out->v3_bytes[b] << (8 * b);
        return v;
    }
    return etm_signal_get(&etm_out_signals[g->sig], out);
}

etm_err_t etm_vcd_write(etm_vcd_writer_t *w, const etm_in_t *in, const etm_out_t *out)
{
    FILE *f = w->f;
    uint64_t t = w->cycle * 10;
    fprintf(f, "#%llu\n", (unsigned long long)t);
    if (w->cycle == 0)
        fprintf(f, "$dumpvars\n");
    fprintf(f, "0%s\n", w->clk_code);
    for (int i = 0; i < w->nsigs; i++) {
        wsig_t *g = &w->sigs[i];
        if (g->is_out || !in)
            continue;
        uint64_t v = wsig_value(g, in, out);
        if (!g->written || v != g->last) {
            put_value(f, g, v);
            g->last = v;
            g->written = 1;
        }
    }
    int outs_pending = 0;
    for (int i = 0; i < w->nsigs; i++)
        if (w->sigs[i].is_out && !w->sigs[i].written)
            put_value(f, &w->sigs[i], 0), w->sigs[i].written = 1, outs_pending = 1;
    if (w->cycle == 0)
        fprintf(f, "$end\n");
    (void)outs_pending;
    fprintf(f, "#%llu\n1%s\n", (unsigned long long)(t + 5), w->clk_code);
    for (int i = 0; i < w->nsigs; i++) {
        wsig_t *g = &w->sigs[i];
        if (!g->is_out || !out)
            continue;
        uint64_t v = wsig_value(g, in, out);
        if (v != g->last) {
            put_value(f, g, v);
            g->last = v;
        }
    }
    w->cycle++;
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

etm_err_t etm_vcd_writer_close(etm_vcd_writer_t *w)
{
    if (!w)
        return ETM_OK;
    fprintf(w->f, "#%llu\n0%s\n", (unsigned long long)(w->cycle * 10), w->clk_code);
    int bad = fflush(w->f) != 0 || ferror(w->f);
    free(w);
    return bad ? ETM_ERR_IO : ETM_OK;
}
