/* whatif_report.c - etm-whatif's output: the helpers every plot uses (a run's
 * figures by sweep, configuration and workload; the .dat files; the gnuplot
 * script around a plot command, run into PNG and SVG; histograms; the report's
 * image and number cells) and DIR/report.md itself, which calls each sweep's
 * plots by kind (whatif_plot_*.c).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif.h"

const metrics_t *metrics_of(const out_t *o, size_t s, size_t conf, size_t wl)
{
    return &o->pl->runs[o->pl->sweep_runs[s][conf * o->st->sw[s].nwl + wl]].m;
}

double value_of(const out_t *o, size_t s, size_t conf, size_t wl, const char *metric)
{
    return metric_value(metric, metrics_of(o, s, conf, wl), &o->st->sw[s].confs[conf]);
}

const char *wl_name(const out_t *o, size_t s, size_t wl) { return o->st->wl[o->st->sw[s].wl[wl]].name; }

/* s as the inside of a gnuplot '...' string (a quote doubled). */
const char *gpq(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; *s && n + 2 < size; s++) {
        if (*s == '\'')
            buf[n++] = '\'';
        buf[n++] = *s;
    }
    buf[n] = 0;
    return buf;
}

/* Sixteen colours that stay apart (gnuplot's own repeat after eight). */
static const char kPalette[] =
    "set linetype 1 lc rgb '#1f77b4'\nset linetype 2 lc rgb '#ff7f0e'\nset linetype 3 lc rgb '#2ca02c'\n"
    "set linetype 4 lc rgb '#d62728'\nset linetype 5 lc rgb '#9467bd'\nset linetype 6 lc rgb '#8c564b'\n"
    "set linetype 7 lc rgb '#e377c2'\nset linetype 8 lc rgb '#7f7f7f'\nset linetype 9 lc rgb '#bcbd22'\n"
    "set linetype 10 lc rgb '#17becf'\nset linetype 11 lc rgb '#000000'\nset linetype 12 lc rgb '#aec7e8'\n"
    "set linetype 13 lc rgb '#ffbb78'\nset linetype 14 lc rgb '#98df8a'\nset linetype 15 lc rgb '#ff9896'\n"
    "set linetype 16 lc rgb '#c5b0d5'\nset linetype cycle 16\n";

/* Write NAME.gp around the plot command and run gnuplot: NAME.png and NAME.svg, on
 * the canvas and with the margins of the fitted layout. */
void gnuplot(out_t *o, const char *name, const layout_t *lay, const char *settings, const char *plot)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gp", o->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        o->failed = 1;
        return;
    }
    fprintf(f,
            "# %s: written by etm-whatif from %s.dat; gnuplot %s.gp makes %s.png and %s.svg\n"
            "set terminal pngcairo size %d,%d font 'sans,10' noenhanced\n"
            "set output '%s.png'\n"
            "set grid ytics\nset key outside right top vertical\nset border 3\nset xtics nomirror\nset ytics nomirror\n"
            "%s%s%s\n%s\n"
            "set terminal svg size %d,%d dynamic font 'sans,10' background '#ffffff' noenhanced\n"
            "set output '%s.svg'\nreplot\n",
            name, name, name, name, name, lay->width, lay->height, name, kPalette, lay->settings, settings, plot,
            lay->width, lay->height, name);
    fclose(f);
    if (!o->plots)
        return;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s.gp' 2> '%s.gnuplot.log'", o->dir, name, name);
    if (system(cmd) != 0) {
        fprintf(stderr, "etm-whatif: gnuplot failed on %s/%s.gp (see %s.gnuplot.log)\n", o->dir, name, name);
        o->failed = 1;
        return;
    }
    snprintf(cmd, sizeof cmd, "%s/%s.gnuplot.log", o->dir, name);
    remove(cmd);
}

FILE *open_dat(out_t *o, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.dat", o->dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        o->failed = 1;
    return f;
}

void md_image(out_t *o, const char *name, const char *alt)
{
    fprintf(o->md, "![%s](%s.png)\n\n([SVG](%s.svg), data `%s.dat`, script `%s.gp`)\n\n", alt, name, name, name, name);
}

void md_value(out_t *o, const metric_t *mt, double v)
{
    fprintf(o->md, " | %.*f", mt->decimals, v);
}

/* A histogram of NAME.dat (column 1: the labels on x; columns 2 to last_col:
 * the series), clustered or stacked, with more settings after the common ones,
 * laid out by lay (fitted). */
void histogram(out_t *o, const char *name, const char *title, int stacked, const char *extra, size_t last_col,
               const layout_t *lay)
{
    char settings[2560], plot[256], q[300];
    snprintf(settings, sizeof settings,
             "set style data histograms\nset style histogram %s\nset style fill solid 0.85 border -1\n"
             "set boxwidth %s\nset title '%s'\n%s",
             stacked ? "rowstacked" : "clustered gap 1", stacked ? "0.75" : "0.9", gpq(title, q, sizeof q), extra);
    snprintf(plot, sizeof plot, "plot for [i=2:%zu] '%s.dat' using i:xtic(1) title columnheader(i)", last_col, name);
    gnuplot(o, name, lay, settings, plot);
}

/* The report: the study's text, the workloads, then every sweep with its plots,
 * tables and what they show. */
int write_report(out_t *o, const char *study_arg, int area_rerun, double seconds, unsigned jobs)
{
    const study_t *st = o->st;
    char path[1024];
    snprintf(path, sizeof path, "%s/report.md", o->dir);
    o->md = fopen(path, "w");
    if (!o->md)
        return -1;
    FILE *md = o->md;
    fprintf(md, "# %s\n\n", st->title[0] ? st->title : "What-if study");
    if (st->intro)
        fprintf(md, "%s\n\n", st->intro);
    fprintf(md, "Made by `etm-whatif %s` (%zu runs of the models in %.0f s with %u processes); every figure is in "
                "`results.csv`, one row per sweep, configuration and workload. `docs/whatif.md` explains the tool, "
                "the study file and the figures.\n\n",
            study_arg, o->pl->nruns, seconds, jobs);
    /* Workloads, from the first sweep that runs each with the default timing. */
    fprintf(md, "## Workloads\n\n| workload | instructions | cycles | CPI | exceptions traced |\n|---|---:|---:|---:|---:|\n");
    for (size_t w = 0; w < st->nwl; w++) {
        const run_t *best = NULL;
        for (size_t r = 0; r < o->pl->nruns; r++) {
            const run_t *run = &o->pl->runs[r];
            char t[256];
            timing_text(&run->c->params, t, sizeof t);
            if (run->wl == w && !run->m.held && !strcmp(t, "default") && run->c->issue == 1) {
                best = run;
                break;
            }
        }
        if (!best)
            continue;
        fprintf(md, "| %s | %" PRIu64 " | %" PRIu64 " | %.3f | %" PRIu64 " |\n", st->wl[w].name, best->m.instructions,
                best->m.cycles, best->m.instructions ? (double)best->m.cycles / (double)best->m.instructions : 0.0,
                best->m.exceptions);
    }
    fprintf(md, "\nPrograms run under `qemu-system-arm` and are timed by the Cortex-M3 model (`docs/cm3-timing.md`); "
                "`random` is the constrained-random generator (`etm/gen.h`). Instructions are those the core "
                "signalled to the ETM.\n\n");
    for (size_t s = 0; s < st->nsw; s++) {
        const sweep_t *sw = &st->sw[s];
        fprintf(md, "## %s\n\n", sw->title);
        if (sw->notes)
            fprintf(md, "%s\n\n", sw->notes);
        if (sw->nconfs) {
            fprintf(md, "Configurations (sweep `%s`):\n\n| label | ETM | ETMCR | FIFO | port | capacity (bytes/cycle) | "
                        "FIFOFULL stall | issue | timing |\n|---|---|---|---:|---|---:|---|---:|---|\n", sw->name);
            for (size_t i = 0; i < sw->nconfs; i++) {
                const conf_t *c = &sw->confs[i];
                char ver[16], pt[32], t[256], stall[32];
                version_text(&c->cfg, ver, sizeof ver);
                port_text(&c->port, pt, sizeof pt);
                char pt2[160];
                if (!c->port.width)
                    snprintf(pt, sizeof pt, "ETM's own, %u byte%s", (unsigned)c->cfg.port_bytes,
                             c->cfg.port_bytes == 1 ? "" : "s");
                copy(pt2, sizeof pt2, pt);
                if (c->tpiu && c->tpiu_p.protocol == ETM_TPIU_PARALLEL)
                    snprintf(pt2, sizeof pt2, "ATB %u byte%s into a TPIU of %u pin%s, TRACECLK /%u",
                             (unsigned)c->cfg.port_bytes, c->cfg.port_bytes == 1 ? "" : "s", c->tpiu_p.port_bits,
                             c->tpiu_p.port_bits == 1 ? "" : "s", c->tpiu_p.clk_div);
                else if (c->tpiu)
                    snprintf(pt2, sizeof pt2, "ATB %u byte%s into a TPIU on SWO, %s at the core clock /%u%s",
                             (unsigned)c->cfg.port_bytes, c->cfg.port_bytes == 1 ? "" : "s",
                             c->tpiu_p.protocol == ETM_TPIU_NRZ ? "NRZ" : "Manchester", c->tpiu_p.acpr + 1,
                             c->tpiu_p.ffcr & ETM_TPIU_FFCR_ENFCONT ? "" : ", formatter bypassed");
                if (c->atb_stall)
                    snprintf(pt2 + strlen(pt2), sizeof pt2 - strlen(pt2), "; ATREADY low %u%% (bursts of %u)",
                             c->atb_stall, c->atb_burst);
                timing_text(&c->params, t, sizeof t);
                if (c->stall)
                    snprintf(stall, sizeof stall, "ETMFFLR=%u", c->stall);
                else
                    copy(stall, sizeof stall, "no");
                fprintf(md, "| %s | v%s | 0x%x | %u | %s | %g | %s | %u | %s |\n", c->label, ver, (unsigned)c->cfg.etmcr,
                        (unsigned)c->cfg.fifo_depth, pt2, capacity(c), stall, c->issue, t);
            }
            fprintf(md, "\n");
        }
        for (int k = 0; k < sw->nplots; k++) {
            const plot_t *p = &sw->plots[k];
            switch (p->kind) {
            case PLOT_BARS: plot_bars(o, s, p); break;
            case PLOT_LINES: plot_lines(o, s, p); break;
            case PLOT_PACKETS: plot_packets(o, s); break;
            case PLOT_RATE: plot_rate(o, s); break;
            case PLOT_AREA: plot_area(o, s, area_rerun); break;
            case PLOT_KNEE: plot_knee(o, s, p); break;
            }
        }
    }
    return fclose(md) == 0 && !o->failed ? 0 : -1;
}
