/* whatif_plot_trace.c - etm-whatif's plots of the trace itself: the mix of
 * packets by kind (stacked, per workload and configuration) and the trace rate
 * (mean and busiest window) against the capacities of reference ports, each with
 * its table in the report.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "whatif.h"

/* The mix of packets: percent of all packets by kind, stacked, per workload and configuration. */
void plot_packets(out_t *o, size_t s)
{
    const sweep_t *sw = &o->st->sw[s];
    char name[128];
    snprintf(name, sizeof name, "%s-packets", sw->name);
    int used[ETM_PKT_KIND_COUNT] = { 0 }, nused = 0;
    for (size_t i = 0; i < sw->nconfs; i++)
        for (size_t j = 0; j < sw->nwl; j++)
            for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                used[k] |= metrics_of(o, s, i, j)->packets[k] != 0;
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        nused += used[k];
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"run\"");
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        if (used[k])
            fprintf(f, " \"%s\"", etm_pkt_kind_name((etm_pkt_kind_t)k));
    fprintf(f, "\n");
    fprintf(o->md, "### Packets by kind (%% of all packets)\n\n");
    md_image(o, name, "packets by kind");
    fprintf(o->md, "| workload | configuration | packets | bytes/packet");
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        if (used[k])
            fprintf(o->md, " | %s", etm_pkt_kind_name((etm_pkt_kind_t)k));
    fprintf(o->md, " |\n|---|---|---:|---:");
    for (int k = 0; k < nused; k++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++)
        for (size_t i = 0; i < sw->nconfs; i++) {
            const metrics_t *m = metrics_of(o, s, i, j);
            uint64_t total = 0;
            for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                total += m->packets[k];
            fprintf(f, "\"%s, %s\"", wl_name(o, s, j), sw->confs[i].label);
            fprintf(o->md, "| %s | %s | %" PRIu64 " | %.2f", wl_name(o, s, j), sw->confs[i].label, total,
                    total ? (double)m->bytes / (double)total : 0.0);
            for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                if (used[k]) {
                    double pct = total ? 100.0 * (double)m->packets[k] / (double)total : 0;
                    fprintf(f, " %.4f", pct);
                    fprintf(o->md, " | %.1f", pct);
                }
            fprintf(f, "\n");
            fprintf(o->md, " |\n");
        }
    fprintf(o->md, "\n");
    fclose(f);
    /* A bar per workload and configuration, the kinds in the key. */
    layout_t lay = { 0 };
    for (size_t j = 0; j < sw->nwl; j++)
        for (size_t i = 0; i < sw->nconfs; i++) {
            char bar[300];
            snprintf(bar, sizeof bar, "%s, %s", wl_name(o, s, j), sw->confs[i].label);
            layout_x(&lay, bar);
        }
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        if (used[k])
            layout_key(&lay, etm_pkt_kind_name((etm_pkt_kind_t)k));
    layout_fit(&lay);
    histogram(o, name, sw->title, 1, "set yrange [0:100]\nset ylabel 'packets (%)'", (size_t)nused + 1, &lay);
}

/* A reference port drawn on the rate plot: its capacity and its label, which
 * stands at height y beside the graph. */
typedef struct ref_line {
    double cap, y;
    char text[64];
} ref_line_t;

/* The top of the rate plot's y axis: the first reference above the data, so
 * that it shows. */
static double rate_ymax(out_t *o, size_t s)
{
    const sweep_t *sw = &o->st->sw[s];
    double top = 0, ytop;
    for (size_t j = 0; j < sw->nwl; j++)
        for (size_t i = 0; i < sw->nconfs; i++)
            top = fmax(top, value_of(o, s, i, j, "peak_rate"));
    ytop = top;
    for (int r = 0; r < sw->nrefs; r++) {
        conf_t c;
        conf_default(&c);
        c.port = sw->refs[r];
        double cap = capacity(&c);
        if (cap >= top && (ytop == top || cap < ytop))
            ytop = cap;
    }
    return ytop * 1.08;
}

/* The reference ports at or below ymax, by capacity; how many. */
static size_t shown_refs(const sweep_t *sw, double ymax, ref_line_t *refs)
{
    size_t n = 0;
    for (int r = 0; r < sw->nrefs; r++) {
        conf_t c;
        conf_default(&c);
        c.port = sw->refs[r];
        double cap = capacity(&c);
        if (cap > ymax)
            continue;
        size_t k = n++;
        for (; k > 0 && refs[k - 1].cap > cap; k--)
            refs[k] = refs[k - 1];
        char pt[32];
        port_text(&c.port, pt, sizeof pt);
        refs[k].cap = refs[k].y = cap;
        snprintf(refs[k].text, sizeof refs[k].text, "%s port (%g)", pt, cap);
    }
    return n;
}

/* The rate histogram: workloads on x, and each reference a dashed line with its
 * label at the right, a line from the next (the key goes above the graph). */
static void rate_plot(out_t *o, size_t s, const char *name)
{
    const sweep_t *sw = &o->st->sw[s];
    double ymax = rate_ymax(o, s);
    ref_line_t refs[MAX_REFS];
    size_t nrefs = shown_refs(sw, ymax, refs);
    layout_t lay = { 0 };
    for (size_t j = 0; j < sw->nwl; j++)
        layout_x(&lay, wl_name(o, s, j));
    for (size_t i = 0; i < sw->nconfs; i++) {
        char entry[200];
        snprintf(entry, sizeof entry, "%s: mean", sw->confs[i].label);
        layout_key(&lay, entry);
        snprintf(entry, sizeof entry, "%s: busiest 1024 cycles", sw->confs[i].label);
        layout_key(&lay, entry);
    }
    for (size_t r = 0; r < nrefs; r++)
        layout_side(&lay, refs[r].text);
    layout_fit(&lay);
    double y[MAX_REFS];
    for (size_t r = 0; r < nrefs; r++)
        y[r] = refs[r].cap;
    layout_spread(&lay, ymax, y, nrefs);

    char settings[2048], q[200];
    size_t n = (size_t)snprintf(settings, sizeof settings,
                                "set ylabel 'trace bytes per core cycle'\nset yrange [0:%g]\n", ymax);
    for (size_t r = 0; r < nrefs && n < sizeof settings; r++)
        n += (size_t)snprintf(settings + n, sizeof settings - n,
                              "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lw 1.5 lc rgb '#444444'\n"
                              "set label '%s' at graph 1.01, first %g left textcolor rgb '#444444'\n",
                              refs[r].cap, refs[r].cap, gpq(refs[r].text, q, sizeof q), y[r]);
    histogram(o, name, sw->title, 0, settings, 2 * sw->nconfs + 1, &lay);
}

/* Trace bytes per cycle (mean and busiest window) per workload, against the
 * capacities of the reference ports. */
void plot_rate(out_t *o, size_t s)
{
    const sweep_t *sw = &o->st->sw[s];
    char name[128];
    snprintf(name, sizeof name, "%s-rate", sw->name);
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"workload\"");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(f, " \"%s: mean\" \"%s: busiest 1024 cycles\"", sw->confs[i].label, sw->confs[i].label);
    fprintf(f, "\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(f, "\"%s\"", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            fprintf(f, " %.6g %.6g", value_of(o, s, i, j, "bytes_per_cycle"), value_of(o, s, i, j, "peak_rate"));
        fprintf(f, "\n");
    }
    fclose(f);
    rate_plot(o, s, name);

    fprintf(o->md, "### Trace bytes per core cycle against port capacity\n\n");
    md_image(o, name, "trace rate against port capacity");
    fprintf(o->md, "| workload");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(o->md, " | %s: mean | busiest 1024 cycles", sw->confs[i].label);
    fprintf(o->md, " |\n|---");
    for (size_t i = 0; i < 2 * sw->nconfs; i++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(o->md, "| %s", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            fprintf(o->md, " | %.3f | %.3f", value_of(o, s, i, j, "bytes_per_cycle"), value_of(o, s, i, j, "peak_rate"));
        fprintf(o->md, " |\n");
    }
    fprintf(o->md, "\n");
    for (int r = 0; r < sw->nrefs; r++) {
        conf_t c;
        conf_default(&c);
        c.port = sw->refs[r];
        char pt[32];
        port_text(&c.port, pt, sizeof pt);
        double cap = capacity(&c);
        fprintf(o->md, "- Port %s (%g bytes per cycle):", pt, cap);
        for (size_t i = 0; i < sw->nconfs; i++) {
            int mean_over = 0, peak_over = 0;
            for (size_t j = 0; j < sw->nwl; j++) {
                mean_over += value_of(o, s, i, j, "bytes_per_cycle") > cap;
                peak_over += value_of(o, s, i, j, "peak_rate") > cap;
            }
            fprintf(o->md, "%s %s: the mean exceeds it on %d of %zu workloads, the busiest window on %d",
                    i ? ";" : "", sw->confs[i].label, mean_over, sw->nwl, peak_over);
        }
        fprintf(o->md, ".\n");
    }
    fprintf(o->md, "\n");
}
