/* whatif_plot_metric.c - etm-whatif's plots of one metric: bars (one cluster per
 * workload, one bar per configuration, and each configuration's ratio to the
 * first) and lines (the varied key on x, one line per workload, and for
 * overflows the knee where they stop), each with its table in the report.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif.h"

/* The header line of a table with one column per workload after the first. */
static void dat_workload_header(FILE *f, out_t *o, size_t s, const char *first)
{
    fprintf(f, "\"%s\"", first);
    for (size_t j = 0; j < o->st->sw[s].nwl; j++)
        fprintf(f, " \"%s\"", wl_name(o, s, j));
    fprintf(f, "\n");
}

/* Clustered bars: one cluster per workload, one bar per configuration. */
void plot_bars(out_t *o, size_t s, const plot_t *p)
{
    const sweep_t *sw = &o->st->sw[s];
    const metric_t *mt = find_metric(p->metric);
    char name[128];
    snprintf(name, sizeof name, "%s-%s", sw->name, p->metric);
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"workload\"");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(f, " \"%s\"", sw->confs[i].label);
    fprintf(f, "\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(f, "\"%s\"", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            fprintf(f, " %.6g", value_of(o, s, i, j, p->metric));
        fprintf(f, "\n");
    }
    fclose(f);
    /* Workloads on x, configurations in the key. */
    layout_t lay = { 0 };
    for (size_t j = 0; j < sw->nwl; j++)
        layout_x(&lay, wl_name(o, s, j));
    for (size_t i = 0; i < sw->nconfs; i++)
        layout_key(&lay, sw->confs[i].label);
    layout_fit(&lay);
    char extra[400], q[300];
    snprintf(extra, sizeof extra, "set yrange [0:*]\nset ylabel '%s'", gpq(mt->axis, q, sizeof q));
    histogram(o, name, sw->title, 0, extra, sw->nconfs + 1, &lay);

    fprintf(o->md, "### %s\n\n", mt->axis);
    md_image(o, name, mt->axis);
    fprintf(o->md, "| workload");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(o->md, " | %s", sw->confs[i].label);
    fprintf(o->md, " |\n|---");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(o->md, "| %s", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            md_value(o, mt, value_of(o, s, i, j, p->metric));
        fprintf(o->md, " |\n");
    }
    fprintf(o->md, "\n");
    /* Each configuration against the first: the range of the ratio over the workloads. */
    if (mt->ratio && sw->nconfs > 1 && sw->nwl > 0) {
        fprintf(o->md, "Against *%s*, over the workloads:", sw->confs[0].label);
        for (size_t i = 1; i < sw->nconfs; i++) {
            double lo = INFINITY, hi = -INFINITY;
            int any = 0;
            for (size_t j = 0; j < sw->nwl; j++) {
                double a = value_of(o, s, 0, j, p->metric), b = value_of(o, s, i, j, p->metric);
                if (a > 0) {
                    lo = fmin(lo, b / a);
                    hi = fmax(hi, b / a);
                    any = 1;
                }
            }
            if (any)
                fprintf(o->md, "%s *%s* %.2f to %.2f times", i > 1 ? ";" : "", sw->confs[i].label, lo, hi);
            else
                fprintf(o->md, "%s *%s* (no ratio: the first is 0)", i > 1 ? ";" : "", sw->confs[i].label);
        }
        fprintf(o->md, ".\n\n");
    }
}

static const char *key_axis(const char *key)
{
    if (!strcmp(key, "FIFO_DEPTH"))
        return "FIFO depth (bytes)";
    if (!strcmp(key, "tpiu"))
        return "TPIU trace pins (TRACEDATA width)";
    if (!strcmp(key, "atb_stall"))
        return "ATREADY low (% of the cycles)";
    return key;
}

static const char *x_axis(const sweep_t *sw)
{
    if (!strcmp(sw->vary, "port"))
        return "port capacity (bytes per core cycle)";
    if (!strcmp(sw->vary, "FIFO_DEPTH"))
        return "FIFO depth (bytes)";
    if (!strcmp(sw->vary, "stall"))
        return "ETMFFLR (bytes free below which FIFOFULL holds the core)";
    return key_axis(sw->vary);
}

/* The lines of a plot with one line per workload, the columns of name.dat
 * after the first, under settings; workloads in the key. */
static void plot_workload_lines(out_t *o, size_t s, const char *name, const char *settings)
{
    const sweep_t *sw = &o->st->sw[s];
    char plot[256];
    snprintf(plot, sizeof plot, "plot for [i=2:%zu] '%s.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 "
             "title columnheader(i)", sw->nwl + 1, name);
    layout_t lay = { 0 };
    for (size_t j = 0; j < sw->nwl; j++)
        layout_key(&lay, wl_name(o, s, j));
    layout_fit(&lay);
    gnuplot(o, name, &lay, settings, plot);
}

/* Lines: the varied value on x, one line per workload. */
void plot_lines(out_t *o, size_t s, const plot_t *p)
{
    const sweep_t *sw = &o->st->sw[s];
    const metric_t *mt = find_metric(p->metric);
    char name[128];
    snprintf(name, sizeof name, "%s-%s", sw->name, p->metric);
    /* Configurations in order of x. */
    size_t *ord = (size_t *)xcalloc(sw->nconfs, sizeof *ord);
    for (size_t i = 0; i < sw->nconfs; i++)
        ord[i] = i;
    for (size_t i = 1; i < sw->nconfs; i++)
        for (size_t k = i; k > 0 && sw->confs[ord[k]].x < sw->confs[ord[k - 1]].x; k--) {
            size_t t = ord[k];
            ord[k] = ord[k - 1];
            ord[k - 1] = t;
        }
    FILE *f = open_dat(o, name);
    if (!f) {
        free(ord);
        return;
    }
    dat_workload_header(f, o, s, "x");
    for (size_t k = 0; k < sw->nconfs; k++) {
        fprintf(f, "%g", sw->confs[ord[k]].x);
        for (size_t j = 0; j < sw->nwl; j++)
            fprintf(f, " %.6g", value_of(o, s, ord[k], j, p->metric));
        fprintf(f, "\n");
    }
    fclose(f);
    char settings[1200], q1[300], q2[300], q3[300];
    snprintf(settings, sizeof settings, "set xlabel '%s'\nset ylabel '%s%s'\nset title '%s'\n%s\n%s",
             gpq(x_axis(sw), q1, sizeof q1), gpq(mt->axis, q2, sizeof q2), p->logy ? " (0 not drawn)" : "",
             gpq(sw->title, q3, sizeof q3), p->logx ? "set logscale x 2" : "",
             p->logy ? "set logscale y 10\nset yrange [0.8:*]" : "set yrange [0:*]");
    plot_workload_lines(o, s, name, settings); /* numbers on x */

    fprintf(o->md, "### %s against %s\n\n", mt->axis, x_axis(sw));
    md_image(o, name, mt->axis);
    fprintf(o->md, "| %s", sw->vary);
    for (size_t j = 0; j < sw->nwl; j++)
        fprintf(o->md, " | %s", wl_name(o, s, j));
    fprintf(o->md, " |\n|---");
    for (size_t j = 0; j < sw->nwl; j++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t k = 0; k < sw->nconfs; k++) {
        const char *lab = strchr(sw->confs[ord[k]].label, '=');
        fprintf(o->md, "| %s", lab ? lab + 1 : sw->confs[ord[k]].label);
        if (!strcmp(sw->vary, "port"))
            fprintf(o->md, " (%g)", sw->confs[ord[k]].x);
        for (size_t j = 0; j < sw->nwl; j++)
            md_value(o, mt, value_of(o, s, ord[k], j, p->metric));
        fprintf(o->md, " |\n");
    }
    fprintf(o->md, "\n");
    /* Where losses stop: the smallest x from which the metric stays 0. */
    if (!strcmp(p->metric, "overflows")) {
        fprintf(o->md, "Knee (the smallest %s from which nothing overflows):", sw->vary);
        for (size_t j = 0; j < sw->nwl; j++) {
            size_t k = sw->nconfs;
            while (k > 0 && value_of(o, s, ord[k - 1], j, p->metric) == 0)
                k--;
            if (k == sw->nconfs)
                fprintf(o->md, "%s %s: still overflows at %g", j ? ";" : "", wl_name(o, s, j),
                        sw->confs[ord[k - 1]].x);
            else
                fprintf(o->md, "%s %s: %g", j ? ";" : "", wl_name(o, s, j), sw->confs[ord[k]].x);
        }
        fprintf(o->md, ".\n\nWhere they fall to a tenth of those at %s=%g:", sw->vary, sw->confs[ord[0]].x);
        for (size_t j = 0; j < sw->nwl; j++) {
            double first = value_of(o, s, ord[0], j, p->metric);
            size_t k = 0;
            while (k < sw->nconfs && value_of(o, s, ord[k], j, p->metric) > first / 10)
                k++;
            if (first == 0)
                fprintf(o->md, "%s %s: none to begin with", j ? ";" : "", wl_name(o, s, j));
            else if (k == sw->nconfs)
                fprintf(o->md, "%s %s: beyond %g", j ? ";" : "", wl_name(o, s, j), sw->confs[ord[k - 1]].x);
            else
                fprintf(o->md, "%s %s: %g", j ? ";" : "", wl_name(o, s, j), sw->confs[ord[k]].x);
        }
        fprintf(o->md, ".\n\n");
    }
    free(ord);
}

/* A grid sweep's knees: the distinct varied values (x) and grid values (y),
 * ascending, and for grid value g and workload j the smallest x from which the
 * metric stays 0, at knee[g * nwl + j] (0: none within the range). */
typedef struct knee_grid {
    double xs[64], ys[64];
    size_t nx, ny;
    double *knee;
} knee_grid_t;

/* x into v (n values, room for 64) unless it is there already. */
static void add_distinct(double *v, size_t *n, double x)
{
    size_t k;
    for (k = 0; k < *n && v[k] != x; k++) {
    }
    if (k == *n && *n < 64)
        v[(*n)++] = x;
}

static void sort_ascending(double *v, size_t n)
{
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && v[b] < v[b - 1]; b--) {
            double t = v[b]; v[b] = v[b - 1]; v[b - 1] = t;
        }
}

/* The configuration of a grid sweep at (x, y), or nconfs. */
static size_t conf_at(const sweep_t *sw, double x, double y)
{
    size_t at = sw->nconfs;
    for (size_t i = 0; i < sw->nconfs; i++)
        if (sw->confs[i].x == x && sw->confs[i].y == y)
            at = i;
    return at;
}

/* The grid's values and knees (k->knee allocated: the caller frees it). */
static void knee_grid(out_t *o, size_t s, const plot_t *p, knee_grid_t *k)
{
    const sweep_t *sw = &o->st->sw[s];
    k->nx = k->ny = 0;
    for (size_t i = 0; i < sw->nconfs; i++) {
        add_distinct(k->xs, &k->nx, sw->confs[i].x);
        add_distinct(k->ys, &k->ny, sw->confs[i].y);
    }
    sort_ascending(k->xs, k->nx);
    sort_ascending(k->ys, k->ny);
    k->knee = (double *)xcalloc(k->ny * sw->nwl, sizeof *k->knee);
    for (size_t g = 0; g < k->ny; g++)
        for (size_t j = 0; j < sw->nwl; j++) {
            size_t x = k->nx;
            while (x > 0) {
                size_t ci = conf_at(sw, k->xs[x - 1], k->ys[g]);
                if (ci == sw->nconfs || value_of(o, s, ci, j, p->metric) != 0)
                    break;
                x--;
            }
            k->knee[g * sw->nwl + j] = x < k->nx ? k->xs[x] : 0;
        }
}

/* name.dat: a row per grid value, a column of knees per workload (NaN: none).
 * Returns 0, or -1 when it cannot be opened. */
static int knee_dat(out_t *o, size_t s, const char *name, const knee_grid_t *k)
{
    const sweep_t *sw = &o->st->sw[s];
    FILE *f = open_dat(o, name);
    if (!f)
        return -1;
    dat_workload_header(f, o, s, "y");
    for (size_t g = 0; g < k->ny; g++) {
        fprintf(f, "%g", k->ys[g]);
        for (size_t j = 0; j < sw->nwl; j++) {
            double v = k->knee[g * sw->nwl + j];
            if (v > 0)
                fprintf(f, " %g", v);
            else
                fprintf(f, " NaN");
        }
        fprintf(f, "\n");
    }
    fclose(f);
    return 0;
}

/* The report's table: a row per workload, a column per grid value. */
static void knee_table(out_t *o, size_t s, const knee_grid_t *k)
{
    const sweep_t *sw = &o->st->sw[s];
    fprintf(o->md, "| workload");
    for (size_t g = 0; g < k->ny; g++)
        fprintf(o->md, " | %s=%g", sw->grid, k->ys[g]);
    fprintf(o->md, " |\n|---");
    for (size_t g = 0; g < k->ny; g++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(o->md, "| %s", wl_name(o, s, j));
        for (size_t g = 0; g < k->ny; g++) {
            double v = k->knee[g * sw->nwl + j];
            if (v > 0)
                fprintf(o->md, " | %g", v);
            else
                fprintf(o->md, " | > %g", k->xs[k->nx - 1]);
        }
        fprintf(o->md, " |\n");
    }
}

/* The report's sentence: for each workload, the fewest of the grid with no
 * metric at the smallest and at the largest varied value. */
static void knee_summary(out_t *o, size_t s, const metric_t *mt, const knee_grid_t *k)
{
    const sweep_t *sw = &o->st->sw[s];
    fprintf(o->md, "\nThe fewest %s with no %s, at the smallest and the largest %s:", sw->grid, mt->axis, sw->vary);
    for (size_t j = 0; j < sw->nwl; j++) {
        double at_min = 0, at_max = 0;
        for (size_t g = k->ny; g-- > 0;) {
            double v = k->knee[g * sw->nwl + j];
            if (v > 0 && v <= k->xs[0])
                at_min = k->ys[g];
            if (v > 0)
                at_max = k->ys[g];
        }
        fprintf(o->md, "%s %s: ", j ? ";" : "", wl_name(o, s, j));
        if (at_min > 0)
            fprintf(o->md, "%g", at_min);
        else
            fprintf(o->md, "more than %g", k->ys[k->ny - 1]);
        fprintf(o->md, " at %s=%g, ", sw->vary, k->xs[0]);
        if (at_max > 0)
            fprintf(o->md, "%g", at_max);
        else
            fprintf(o->md, "more than %g", k->ys[k->ny - 1]);
        fprintf(o->md, " at %g", k->xs[k->nx - 1]);
    }
    fprintf(o->md, ".\n\n");
}

/* Knee over a grid: for grid value g and workload j, the smallest varied value
 * from which the metric stays 0 (the configurations of a grid sweep are the
 * vary values for each grid value in turn). */
void plot_knee(out_t *o, size_t s, const plot_t *p)
{
    const sweep_t *sw = &o->st->sw[s];
    const metric_t *mt = find_metric(p->metric);
    knee_grid_t k;
    knee_grid(o, s, p, &k);
    char name[128];
    snprintf(name, sizeof name, "%s-%s-knee", sw->name, p->metric);
    if (knee_dat(o, s, name, &k) != 0) {
        free(k.knee);
        return;
    }
    char ylab[200];
    snprintf(ylab, sizeof ylab, "smallest %s with no %s", key_axis(sw->vary), mt->axis);
    char settings[1400], q1[300], q2[300], q3[300];
    snprintf(settings, sizeof settings,
             "set xlabel '%s'\nset ylabel '%s'\nset title '%s'\nset logscale x 2\nset logscale y 2\nset datafile "
             "missing 'NaN'",
             gpq(key_axis(sw->grid), q1, sizeof q1), gpq(ylab, q2, sizeof q2), gpq(sw->title, q3, sizeof q3));
    plot_workload_lines(o, s, name, settings);

    fprintf(o->md, "### The smallest %s with no %s, by %s\n\n", key_axis(sw->vary), mt->axis, key_axis(sw->grid));
    md_image(o, name, ylab);
    knee_table(o, s, &k);
    knee_summary(o, s, mt, &k);
    free(k.knee);
}
