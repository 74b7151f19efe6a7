/* vcd_header.c - the VCD reader's header: $scope and $var, and which variables
 * each signal (column), the clock and the reset are read from (rules: etm/vcd.h
 * and vectors/README.md). Only the variables whose names may be wanted are kept.
 */
#include "etm/vcd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vcd_int.h"

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

/* The header up to $enddefinitions: scopes, and the variables that may be wanted. */
etm_err_t vcd_read_header(etm_vcd_reader_t *r, etm_diag_t *diag)
{
    char scope[MAX_SCOPE] = "";
    size_t depth_len[64];
    int depth = 0;
    int k;
    for (;;) {
        k = vcd_tk_next(&r->tk);
        if (k == 0)
            return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "end of file before $enddefinitions");
        if (k < 0)
            return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "token longer than 4096 characters");
        const char *t = r->tk.tok;
        if (strcmp(t, "$enddefinitions") == 0) {
            while ((k = vcd_tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
            }
            return ETM_OK;
        }
        if (strcmp(t, "$scope") == 0) {
            char name[256] = "";
            int n = 0;
            while ((k = vcd_tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
                if (n++ == 1)
                    snprintf(name, sizeof name, "%.200s", r->tk.tok);
            }
            if (k <= 0 || depth == 64)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "malformed $scope");
            depth_len[depth++] = strlen(scope);
            size_t len = strlen(scope);
            if (len + strlen(name) + 2 >= sizeof scope)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "scope path too long");
            if (len)
                scope[len++] = '.';
            strcpy(scope + len, name);
            continue;
        }
        if (strcmp(t, "$upscope") == 0) {
            while ((k = vcd_tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
            }
            if (depth == 0)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "$upscope without $scope");
            scope[depth_len[--depth]] = '\0';
            continue;
        }
        if (strcmp(t, "$var") == 0) {
            char f[6][256];
            int n = 0;
            while ((k = vcd_tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
                if (n < 6)
                    snprintf(f[n], sizeof f[n], "%.200s", r->tk.tok);
                n++;
            }
            /* type size code reference [range] */
            if (k <= 0 || n < 4 || n > 5)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "malformed $var: expected 'type size code name [range]'");
            char *endp;
            long width = strtol(f[1], &endp, 10);
            if (*endp || width <= 0)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: bad size '%.20s'", f[3], f[1]);
            if (width > 4096) /* as wide as a range may be (parse_range) */
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: size %.20s is above 4096 bits", f[3],
                                     f[1]);
            int left = -1, right = -1;
            char *br = strchr(f[3], '[');
            if (n == 5) {
                if (parse_range(f[4], &left, &right) != 0)
                    return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: bad range '%.20s'", f[3], f[4]);
            } else if (br) {
                if (parse_range(br, &left, &right) != 0)
                    return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: bad range in the name", f[3]);
                *br = '\0';
            }
            if (!name_wanted(r, f[3]))
                continue;
            if (left >= 0 && abs(left - right) + 1 != width)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "$var %.60s: range does not match its size %.20s", f[3], f[1]);
            if (r->nvars == r->capvars) {
                size_t cap = r->capvars ? 2 * r->capvars : 64;
                var_t *nv = (var_t *)realloc(r->vars, cap * sizeof *nv);
                if (!nv)
                    return ETM_ERR_NOMEM;
                r->vars = nv;
                r->capvars = cap;
            }
            var_t *v = &r->vars[r->nvars];
            v->scope = vcd_dupstr(scope, strlen(scope));
            v->leaf = vcd_dupstr(f[3], strlen(f[3]));
            v->code = vcd_dupstr(f[2], strlen(f[2]));
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
            while ((k = vcd_tk_next(&r->tk)) > 0 && strcmp(r->tk.tok, "$end") != 0) {
            }
            if (k <= 0)
                return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "%.60s without $end", t);
            continue;
        }
        return vcd_fail_line(r, diag, ETM_ERR_SYNTAX, "unexpected '%.60s' in the VCD header", t);
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

/* Group the variables that match target t by scope; one scope must remain (another
 * scope is fine only when it repeats the same id codes: aliases). */
static etm_err_t choose_scope(const etm_vcd_reader_t *r, const target_t *t, const char *want, const char **scope,
                              int *count, etm_diag_t *diag)
{
    const char *chosen_scope = NULL;
    int n = 0;
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
        n++;
    }
    *scope = chosen_scope;
    *count = n;
    return ETM_OK;
}

/* A piece of target t for each matching variable of the chosen scope, with the
 * signal bits it holds. */
static etm_err_t add_pieces(etm_vcd_reader_t *r, target_t *t, const char *want, const char *chosen_scope,
                            etm_diag_t *diag)
{
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
        int ti = vcd_add_tracked(r, v);
        if (ti < 0) {
            if (diag) {
                diag->file = r->path;
                diag->code = ETM_ERR_VCD_SIGNAL;
                snprintf(diag->msg, sizeof diag->msg, "more than %d signal pieces to follow", MAX_TRACKED);
            }
            return ETM_ERR_VCD_SIGNAL;
        }
        if (r->tracked[ti].width != v->width) {
            if (diag) {
                diag->file = r->path;
                diag->code = ETM_ERR_VCD_SIGNAL;
                snprintf(diag->msg, sizeof diag->msg, "%s: its id code '%.20s' is also a variable of %d bits, not %d",
                         v->leaf, v->code, r->tracked[ti].width, v->width);
            }
            return ETM_ERR_VCD_SIGNAL;
        }
        piece_t *p = &t->pieces[t->npieces++];
        p->tracked = ti;
        int lsb = t->kind == T_SCALAR ? r->table[t->sig].lsb : 0;
        if (v->left >= 0 && lsb && v->width == r->table[t->sig].width && (v->left == 0 || v->right == 0)) {
            /* The port numbered from 0, as SystemC and many RTL tops declare it
             * (ETMIA [30:0] for ETMIA[31:1]): its bit 0 is the signal's lowest. */
            p->left = v->left + lsb;
            p->right = v->right + lsb;
        } else if (v->left >= 0) {
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
    return ETM_OK;
}

/* Check the pieces of target t fit the signal and (unless --allow-missing) cover it;
 * a clock or a reset is a single 1-bit signal. */
static etm_err_t check_pieces(etm_vcd_reader_t *r, const target_t *t, etm_diag_t *diag)
{
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
                if (idx >= 0 && idx < 64)
                    have |= 1ull << idx;
            }
        }
        if (need & ~have) {
            int lo = 0, hi = 63;
            while (!(((need & ~have) >> lo) & 1))
                lo++;
            while (!(((need & ~have) >> hi) & 1))
                hi--;
            if (r->opts.allow_missing) { /* allowed, never silently */
                size_t len = strlen(r->notes);
                snprintf(r->notes + len, sizeof r->notes - len, "%s: bits %d to %d are not in the VCD: read as 0 "
                         "(--allow-missing)\n", t->name, hi, lo);
                return ETM_OK;
            }
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

/* Find the variables of target t under the name `want` (required: it must exist). */
static etm_err_t resolve_target(etm_vcd_reader_t *r, target_t *t, const char *want, int required, etm_diag_t *diag)
{
    /* Group matching variables by scope; one scope must remain. */
    const char *chosen_scope = NULL;
    int count = 0;
    etm_err_t e = choose_scope(r, t, want, &chosen_scope, &count, diag);
    if (e != ETM_OK)
        return e;
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
        if (required) { /* allowed, never silently */
            size_t len = strlen(r->notes);
            snprintf(r->notes + len, sizeof r->notes - len, "%s is not in the VCD: read as 0 (--allow-missing)\n",
                     t->name);
        }
        return ETM_OK;
    }
    t->pieces = (piece_t *)calloc((size_t)count, sizeof *t->pieces);
    if (!t->pieces)
        return ETM_ERR_NOMEM;
    e = add_pieces(r, t, want, chosen_scope, diag);
    if (e != ETM_OK)
        return e;
    t->found = 1;
    /* Check the pieces fit the signal. */
    return check_pieces(r, t, diag);
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
    /* signals.def says: table 16.1's signals are required, slot 1 and the data slot optional. */
    return (s->flags & ETM_SIGF_CORE) != 0;
}

/* The targets the reader looks for (see vcd_int.h). */
etm_err_t vcd_setup_targets(etm_vcd_reader_t *r, etm_diag_t *diag)
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

/* The variables of every target: clock, reset, columns (with --map). */
etm_err_t vcd_resolve_all(etm_vcd_reader_t *r, etm_diag_t *diag)
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
