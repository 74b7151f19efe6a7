/* whatif_study.c - etm-whatif's study file parser (docs/whatif.md): each line
 * split into tokens and handled by its directive (title, text, workloads, sweep,
 * base, config, vary, plot, refs, area), then every sweep checked as a whole.
 * Errors name the file and line.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif.h"

/* ---- Study files ---------------------------------------------------------------------------- */

/* The plot kinds by name, in the order of plot_kind_t. */
static const char *const kPlotKinds[] = { "bars", "lines", "packets", "rate", "area", "knee", NULL };

/* Where the parser is: the file and line (for errors), the study being read, the
 * sweep being read (NULL before the first `sweep` line) and the study's own
 * workloads (the sweeps without a `workloads` line run those). */
typedef struct parser {
    const char *path;
    unsigned long line;
    char err[512];
    study_t *st;
    sweep_t *sw;
    size_t *study_wl, nstudy_wl;
} parser_t;

static int perr(parser_t *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int perr(parser_t *p, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, sizeof p->err, "%s:%lu: %s", p->path, p->line, msg);
    return -1;
}

/* Split a line into tokens: blanks separate, "double quotes" group, '#' starts a
 * comment outside quotes. Returns the number of tokens, -1 for an open quote. */
static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        if (!*s || *s == '#')
            return n;
        if (n == max)
            return n;
        if (*s == '"') {
            tok[n++] = ++s;
            while (*s && *s != '"')
                s++;
            if (!*s)
                return -1;
            *s++ = 0;
        } else {
            tok[n++] = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
                s++;
            if (*s)
                *s++ = 0;
        }
    }
}

static void append_text(char **dst, const char *words)
{
    size_t old = *dst ? strlen(*dst) : 0;
    *dst = (char *)xrealloc(*dst, old + strlen(words) + 2);
    if (old)
        (*dst)[old++] = ' ';
    strcpy(*dst + old, words);
}

/* The rest of the line after the directive, as written. */
static const char *rest_of(const char *line, const char *directive)
{
    const char *s = strstr(line, directive) + strlen(directive);
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int add_conf(parser_t *p, sweep_t *sw, const char *label, char **kv, int nkv, const char *vary_value)
{
    conf_t c = sw->base;
    copy(c.label, sizeof c.label, label);
    char err[400];
    for (int i = 0; i < nkv; i++)
        if (apply_setting(&c, kv[i], err, sizeof err) != 0)
            return perr(p, "%s", err);
    if (vary_value) {
        char kvbuf[128];
        snprintf(kvbuf, sizeof kvbuf, "%s=%s", sw->vary, vary_value);
        if (apply_setting(&c, kvbuf, err, sizeof err) != 0)
            return perr(p, "%s", err);
    }
    if (conf_finish(&c, err, sizeof err) != 0)
        return perr(p, "configuration \"%s\": %s", label, err);
    if (vary_value) {
        c.has_x = 1;
        if (!strcmp(sw->vary, "port"))
            c.x = capacity(&c);
        else
            c.x = strtod(vary_value, NULL);
    }
    sw->confs = (conf_t *)xrealloc(sw->confs, (sw->nconfs + 1) * sizeof *sw->confs);
    sw->confs[sw->nconfs++] = c;
    return 0;
}

static int find_workload(study_t *st, const char *name, parser_t *p, size_t *idx)
{
    workload_t w;
    char err[300];
    if (parse_workload(name, &w, err, sizeof err) != 0)
        return perr(p, "%s", err);
    for (size_t i = 0; i < st->nwl; i++)
        if (!strcmp(st->wl[i].name, w.name) && st->wl[i].seed == w.seed && st->wl[i].cycles == w.cycles) {
            *idx = i;
            return 0;
        }
    st->wl = (workload_t *)xrealloc(st->wl, (st->nwl + 1) * sizeof *st->wl);
    st->wl[st->nwl] = w;
    *idx = st->nwl++;
    return 0;
}


/* ---- The directives ---------------------------------------------------------------------------- */

/* title WORDS, text WORDS: the study's or the sweep's title, or words added to
 * its introduction or notes (as written on the line). */
static int dir_text(parser_t *p, const char *line, const char *d)
{
    study_t *st = p->st;
    sweep_t *sw = p->sw;
    const char *r = rest_of(line, d);
    char t[4096];
    copy(t, sizeof t, r);
    t[strcspn(t, "\r\n")] = 0;
    if (!t[0])
        return perr(p, "%s needs some words", d);
    if (d[1] == 'i')
        copy(sw ? sw->title : st->title, sizeof st->title, t);
    else
        append_text(sw ? &sw->notes : &st->intro, t);
    return 0;
}

/* workloads NAME...: the study's (before the first sweep) or the sweep's. */
static int dir_workloads(parser_t *p, char **tok, int n)
{
    sweep_t *sw = p->sw;
    if (n < 2)
        return perr(p, "workloads needs at least one name");
    int rc = 0;
    for (int i = 1; rc == 0 && i < n; i++) {
        size_t idx = 0;
        rc = find_workload(p->st, tok[i], p, &idx);
        if (rc)
            break;
        size_t **list = sw ? &sw->wl : &p->study_wl;
        size_t *count = sw ? &sw->nwl : &p->nstudy_wl;
        *list = (size_t *)xrealloc(*list, (*count + 1) * sizeof **list);
        (*list)[(*count)++] = idx;
    }
    if (sw)
        sw->wl_given = 1;
    return rc;
}

/* sweep NAME: a new sweep, the one the following lines describe. */
static int dir_sweep(parser_t *p, char **tok, int n)
{
    study_t *st = p->st;
    if (n != 2)
        return perr(p, "sweep wants one name");
    for (const char *c = tok[1]; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
            return perr(p, "sweep name '%s': use a-z, 0-9, '_' and '-' (it names files)", tok[1]);
    for (size_t i = 0; i < st->nsw; i++)
        if (!strcmp(st->sw[i].name, tok[1]))
            return perr(p, "sweep '%s' is defined twice (first on line %lu)", tok[1], st->sw[i].line);
    st->sw = (sweep_t *)xrealloc(st->sw, (st->nsw + 1) * sizeof *st->sw);
    sweep_t *sw = &st->sw[st->nsw++];
    memset(sw, 0, sizeof *sw);
    copy(sw->name, sizeof sw->name, tok[1]);
    copy(sw->title, sizeof sw->title, tok[1]);
    conf_default(&sw->base);
    sw->line = p->line;
    p->sw = sw;
    return 0;
}

/* base KEY=VALUE...: the settings every configuration of the sweep starts from. */
static int dir_base(parser_t *p, char **tok, int n)
{
    if (p->sw->nconfs)
        return perr(p, "base must come before the sweep's configurations");
    char e[400];
    for (int i = 1; i < n; i++)
        if (apply_setting(&p->sw->base, tok[i], e, sizeof e) != 0)
            return perr(p, "%s", e);
    return 0;
}

/* vary KEY VALUE...: one configuration per value, labelled KEY=VALUE. */
static int dir_vary(parser_t *p, char **tok, int n)
{
    sweep_t *sw = p->sw;
    if (n < 3)
        return perr(p, "vary wants a key and its values: vary FIFO_DEPTH 24 32 64");
    if (sw->vary[0])
        return perr(p, "a sweep varies one key");
    copy(sw->vary, sizeof sw->vary, tok[1]);
    int rc = 0;
    for (int i = 2; rc == 0 && i < n; i++) {
        char label[96];
        snprintf(label, sizeof label, "%s=%s", tok[1], tok[i]);
        rc = add_conf(p, sw, label, NULL, 0, tok[i]);
    }
    return rc;
}

/* grid KEY VALUE...: every configuration of the vary line once per value (the
 * cross product), labelled "KEY1=V1 KEY2=V2"; knee plots read it. */
static int dir_grid(parser_t *p, char **tok, int n)
{
    sweep_t *sw = p->sw;
    if (n < 3)
        return perr(p, "grid wants a key and its values: grid tpiu 1 2 4 8");
    if (!sw->vary[0] || sw->grid[0])
        return perr(p, "a grid line comes once, after the sweep's vary line");
    copy(sw->grid, sizeof sw->grid, tok[1]);
    conf_t *rows = sw->confs;
    size_t nrows = sw->nconfs;
    sw->confs = NULL;
    sw->nconfs = 0;
    int rc = 0;
    for (int i = 2; rc == 0 && i < n; i++)
        for (size_t r = 0; rc == 0 && r < nrows; r++) {
            conf_t c = rows[r];
            char kv[128], err[400];
            snprintf(kv, sizeof kv, "%s=%s", tok[1], tok[i]);
            if (apply_setting(&c, kv, err, sizeof err) != 0 || conf_finish(&c, err, sizeof err) != 0) {
                rc = perr(p, "%s: %s", kv, err);
                break;
            }
            char label[300];
            snprintf(label, sizeof label, "%s %s", rows[r].label, kv);
            copy(c.label, sizeof c.label, label);
            c.has_y = 1;
            c.y = strtod(tok[i], NULL);
            sw->confs = (conf_t *)xrealloc(sw->confs, (sw->nconfs + 1) * sizeof *sw->confs);
            sw->confs[sw->nconfs++] = c;
        }
    free(rows);
    return rc;
}

/* plot KIND [METRIC] [logx] [logy]. */
static int dir_plot(parser_t *p, char **tok, int n)
{
    sweep_t *sw = p->sw;
    if (n < 2 || n > 5)
        return perr(p, "plot wants a kind (bars, lines, packets, rate, area, knee) and a metric");
    if (sw->nplots == MAX_PLOTS)
        return perr(p, "at most %d plots per sweep", MAX_PLOTS);
    plot_t *pl = &sw->plots[sw->nplots];
    memset(pl, 0, sizeof *pl);
    int k = 0;
    while (kPlotKinds[k] && strcmp(kPlotKinds[k], tok[1]))
        k++;
    if (!kPlotKinds[k])
        return perr(p, "unknown plot kind '%s' (bars, lines, packets, rate, area, knee)", tok[1]);
    pl->kind = (plot_kind_t)k;
    int need_metric = pl->kind == PLOT_BARS || pl->kind == PLOT_LINES || pl->kind == PLOT_KNEE;
    if (need_metric && n < 3)
        return perr(p, "plot %s wants a metric", tok[1]);
    if (n >= 3) {
        if (!find_metric(tok[2])) {
            char names[512] = "";
            for (int i = 0; kMetrics[i].name; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                         kMetrics[i].name);
            return perr(p, "unknown metric '%s' (%s)", tok[2], names);
        }
        copy(pl->metric, sizeof pl->metric, tok[2]);
    }
    for (int k2 = 3; k2 < n; k2++) {
        if (!strcmp(tok[k2], "logx"))
            pl->logx = 1;
        else if (!strcmp(tok[k2], "logy"))
            pl->logy = 1;
        else
            return perr(p, "'%s': plot options are logx and logy", tok[k2]);
    }
    sw->nplots++;
    return 0;
}

/* refs PORT...: the ports a rate plot draws as lines. */
static int dir_refs(parser_t *p, char **tok, int n)
{
    sweep_t *sw = p->sw;
    for (int i = 1; i < n; i++) {
        if (sw->nrefs == MAX_REFS || !parse_port(tok[i], &sw->refs[sw->nrefs]) || !sw->refs[sw->nrefs].width)
            return perr(p, "refs wants up to %d ports WIDTH:MODE ('%s')", MAX_REFS, tok[i]);
        sw->nrefs++;
    }
    return 0;
}

/* area SCRIPT: the synthesis script of an area sweep. */
static int dir_area(parser_t *p, char **tok, int n)
{
    if (n != 2)
        return perr(p, "area wants the synthesis script (scripts/yosys-area)");
    copy(p->sw->area_script, sizeof p->sw->area_script, tok[1]);
    return 0;
}

/* ---- The file ---------------------------------------------------------------------------------- */

/* One line of the study file, to its directive. Returns 0, or -1 with the
 * message in p->err. */
static int parse_line(parser_t *p, const char *line)
{
    char buf[4096];
    copy(buf, sizeof buf, line);
    char *tok[256];
    int n = tokenize(buf, tok, 256);
    if (n < 0)
        return perr(p, "a quote is not closed");
    if (n == 0)
        return 0;
    const char *d = tok[0];
    if (!strcmp(d, "title") || !strcmp(d, "text"))
        return dir_text(p, line, d);
    if (!strcmp(d, "workloads"))
        return dir_workloads(p, tok, n);
    if (!strcmp(d, "sweep"))
        return dir_sweep(p, tok, n);
    if (!p->sw)
        return perr(p, "'%s' belongs inside a sweep (a line 'sweep NAME' first)", d);
    if (!strcmp(d, "base"))
        return dir_base(p, tok, n);
    if (!strcmp(d, "config"))
        return n < 2 ? perr(p, "config wants a label, then KEY=VALUE settings")
                     : add_conf(p, p->sw, tok[1], tok + 2, n - 2, NULL);
    if (!strcmp(d, "vary"))
        return dir_vary(p, tok, n);
    if (!strcmp(d, "grid"))
        return dir_grid(p, tok, n);
    if (!strcmp(d, "plot"))
        return dir_plot(p, tok, n);
    if (!strcmp(d, "refs"))
        return dir_refs(p, tok, n);
    if (!strcmp(d, "area"))
        return dir_area(p, tok, n);
    return perr(p, "unknown directive '%s' (title, text, workloads, sweep, base, config, vary, grid, plot, "
                   "refs, area)", d);
}

/* After the last line: the study has a sweep, and each sweep its workloads (the
 * study's if it names none), configurations and plots, the plots fitting it. */
static int check_study(parser_t *p)
{
    study_t *st = p->st;
    if (!st->nsw) {
        p->line = 0;
        snprintf(p->err, sizeof p->err, "%s: no sweep", p->path);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < st->nsw; i++) {
        sweep_t *s = &st->sw[i];
        p->line = s->line;
        if (!s->wl_given) {
            s->wl = (size_t *)xcalloc(p->nstudy_wl, sizeof *s->wl);
            memcpy(s->wl, p->study_wl, p->nstudy_wl * sizeof *s->wl);
            s->nwl = p->nstudy_wl;
        }
        if (!s->area_script[0] && (!s->nconfs || !s->nwl))
            rc = perr(p, "sweep '%s' has no %s", s->name, s->nconfs ? "workloads" : "configurations");
        else if (!s->nplots)
            rc = perr(p, "sweep '%s' has no plot", s->name);
        for (int k = 0; rc == 0 && k < s->nplots; k++) {
            if (s->plots[k].kind == PLOT_LINES && !s->vary[0])
                rc = perr(p, "sweep '%s': a lines plot needs a vary line (its x axis)", s->name);
            if ((s->plots[k].kind == PLOT_KNEE) != (s->grid[0] != 0))
                rc = perr(p, "sweep '%s': knee plots go with a grid line, and a grid sweep has only knee plots",
                          s->name);
            if ((s->plots[k].kind == PLOT_AREA) != (s->area_script[0] != 0))
                rc = perr(p, "sweep '%s': area plots go with an area line, and only with it", s->name);
        }
    }
    return rc;
}

int parse_study(study_t *st, const char *path, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    st->path = path;
    parser_t p = { path, 0, "", st, NULL, NULL, 0 };
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the study file", path);
        return -1;
    }
    char line[4096];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        p.line++;
        if (!strchr(line, '\n') && !feof(f))
            rc = perr(&p, "line too long (more than %zu characters)", sizeof line - 2);
        else
            rc = parse_line(&p, line);
    }
    fclose(f);
    if (rc == 0)
        rc = check_study(&p);
    free(p.study_wl);
    if (rc)
        copy(err, errlen, p.err);
    return rc;
}
