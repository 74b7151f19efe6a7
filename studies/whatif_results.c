/* whatif_results.c - etm-whatif's figures: the metrics a study plots (the
 * kMetrics table and each one's value from a run's counts) and DIR/results.csv,
 * one row per sweep, configuration and workload with the counts, the metrics and
 * the packets by kind.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "whatif.h"

/* ---- Figures -------------------------------------------------------------------------------- */

const metric_t kMetrics[] = {
    { "bits_per_insn", "bits per instruction", 3, 1 },
    { "bytes_per_cycle", "trace bytes per core cycle", 3, 1 },
    { "peak_rate", "trace bytes per core cycle, busiest 1024 cycles", 3, 1 },
    { "overflows", "FIFO overflows", 0, 0 },
    { "lost_pct", "trace bytes lost to overflows (%)", 2, 0 },
    { "lost_cycles_pct", "core cycles whose trace was lost to overflows (%)", 2, 0 },
    { "held_pct", "core cycles held on FIFOFULL (% of the unheld run)", 2, 0 },
    { "cpi", "core cycles per instruction", 3, 1 },
    { "peak_level", "FIFO peak (bytes)", 0, 0 },
    { "utilisation", "port bytes used (% of the port's capacity)", 1, 0 },
    { "fmt_bits_per_insn", "formatted bits per instruction (TPIU frames and frame syncs)", 3, 1 },
    { "fmt_overhead_pct", "formatter overhead (% of the ETM's bytes)", 1, 0 },
    { "pin_util", "TPIU pins carrying trace (% of their bandwidth)", 1, 0 },
    { "atb_wait_pct", "cycles ATVALID waited for ATREADY (% of core cycles)", 2, 0 },
    { NULL, NULL, 0, 0 },
};

const metric_t *find_metric(const char *name)
{
    for (int i = 0; kMetrics[i].name; i++)
        if (!strcmp(kMetrics[i].name, name))
            return &kMetrics[i];
    return NULL;
}

/* ETMv1 sends PIPESTAT (3 bits) every cycle besides the packet bytes. */
double metric_value(const char *name, const metrics_t *m, const conf_t *c)
{
    double insn = m->instructions ? (double)m->instructions : 1, cyc = m->cycles ? (double)m->cycles : 1;
    int v1 = ETM_V_MAJOR(version_of(&c->cfg)) == 1;
    if (!strcmp(name, "bits_per_insn"))
        return (8.0 * (double)m->bytes + (v1 ? 3.0 * (double)m->cycles : 0)) / insn;
    if (!strcmp(name, "bytes_per_cycle"))
        return (double)m->bytes / cyc;
    if (!strcmp(name, "peak_rate"))
        return (double)m->peak_window / WINDOW;
    if (!strcmp(name, "overflows"))
        return (double)m->overflows;
    if (!strcmp(name, "lost_pct"))
        return m->bytes + m->bytes_lost ? 100.0 * (double)m->bytes_lost / (double)(m->bytes + m->bytes_lost) : 0;
    if (!strcmp(name, "lost_cycles_pct"))
        return 100.0 * (double)m->cycles_lost / cyc;
    if (!strcmp(name, "held_pct"))
        return m->cycles > m->held ? 100.0 * (double)m->held / (double)(m->cycles - m->held) : 0;
    if (!strcmp(name, "cpi"))
        return (double)m->cycles / insn;
    if (!strcmp(name, "peak_level"))
        return m->peak_level;
    if (!strcmp(name, "fmt_bits_per_insn"))
        return 8.0 * (double)m->fmt_bytes / insn;
    if (!strcmp(name, "fmt_overhead_pct"))
        return m->port_bytes && m->fmt_bytes ? 100.0 * ((double)m->fmt_bytes - (double)m->port_bytes) /
                                                   (double)m->port_bytes
                                             : 0;
    if (!strcmp(name, "pin_util"))
        return m->pin_bytes ? 100.0 * (double)m->fmt_bytes / (double)m->pin_bytes : 0;
    if (!strcmp(name, "atb_wait_pct"))
        return 100.0 * (double)m->atb_wait / cyc;
    if (!strcmp(name, "utilisation")) {
        double cap = capacity(c) * (double)(m->port_cycles ? m->port_cycles : 1);
        return cap > 0 ? 100.0 * (double)m->port_bytes / cap : 0;
    }
    return 0;
}

/* Short names of the packet kinds (CSV columns, plot keys). */
static const char *const kPktShort[ETM_PKT_KIND_COUNT] = {
    "f1", "f2", "f3", "f4", "branch", "branch_exc", "async", "isync", "isync_cc", "cycle_count", "trigger",
    "exc_return", "ignore"
};

/* ---- Results: CSV ------------------------------------------------------------------------------ */

/* A CSV field, quoted when it needs to be. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static const char *const kCsvMetrics[] = { "bits_per_insn", "bytes_per_cycle", "peak_rate", "lost_pct", "lost_cycles_pct",
                                           "held_pct", "cpi", "utilisation", NULL };
/* The trace path after the ETM (TPIU, ATB back-pressure): columns after the packets. */
static const char *const kCsvPathMetrics[] = { "fmt_bits_per_insn", "fmt_overhead_pct", "pin_util", "atb_wait_pct",
                                               NULL };

int write_csv(const study_t *st, const plan_t *pl, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "sweep,config,workload,x,version,ca,bb,etmcr,fifo_depth,port,capacity,stall,issue_width,timing,"
               "cycles,held,instructions,bytes,port_bytes,port_cycles,overflows,bytes_lost,cycles_lost,"
               "fifofull_cycles,atoms,exceptions,untraceable,peak_level,peak_window");
    for (int k = 0; kCsvMetrics[k]; k++)
        fprintf(f, ",%s", kCsvMetrics[k]);
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        fprintf(f, ",pkt_%s", kPktShort[k]);
    fprintf(f, ",tpiu,atb_stall,atb_wait,fmt_bytes,pin_bytes");
    for (int k = 0; kCsvPathMetrics[k]; k++)
        fprintf(f, ",%s", kCsvPathMetrics[k]);
    fprintf(f, "\n");
    for (size_t s = 0; s < st->nsw; s++) {
        const sweep_t *sw = &st->sw[s];
        for (size_t i = 0; i < sw->nconfs; i++)
            for (size_t j = 0; j < sw->nwl; j++) {
                const conf_t *c = &sw->confs[i];
                const metrics_t *m = &pl->runs[pl->sweep_runs[s][i * sw->nwl + j]].m;
                char ver[16], pt[32], t[256], x[32];
                version_text(&c->cfg, ver, sizeof ver);
                port_text(&c->port, pt, sizeof pt);
                timing_text(&c->params, t, sizeof t);
                if (c->has_x)
                    snprintf(x, sizeof x, "%g", c->x);
                else
                    x[0] = 0;
                csv_field(f, sw->name);
                fputc(',', f);
                csv_field(f, c->label);
                fputc(',', f);
                csv_field(f, st->wl[sw->wl[j]].name);
                fprintf(f, ",%s,%s,%u,%u,0x%x,%u,%s,%g,%u,%u,", x, ver, !!(c->cfg.etmcr & ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE)),
                        !!(c->cfg.etmcr & ETM_FIELD_MASK(ETM_CR_BRANCH_OUTPUT)), (unsigned)c->cfg.etmcr, (unsigned)c->cfg.fifo_depth,
                        pt, capacity(c), c->stall, c->issue);
                csv_field(f, t);
                fprintf(f,
                        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64,
                        m->cycles, m->held, m->instructions, m->bytes, m->port_bytes, m->port_cycles, m->overflows,
                        m->bytes_lost, m->cycles_lost, m->fifofull_cycles, m->atoms, m->exceptions, m->untraceable,
                        m->peak_level, m->peak_window);
                for (int k = 0; kCsvMetrics[k]; k++)
                    fprintf(f, ",%.6g", metric_value(kCsvMetrics[k], m, c));
                for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                    fprintf(f, ",%" PRIu64, m->packets[k]);
                char tt[48];
                tpiu_text(c, tt, sizeof tt);
                fprintf(f, ",%s", tt);
                fprintf(f, ",%u:%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64, c->atb_stall, c->atb_burst, m->atb_wait,
                        m->fmt_bytes, m->pin_bytes);
                for (int k = 0; kCsvPathMetrics[k]; k++)
                    fprintf(f, ",%.6g", metric_value(kCsvPathMetrics[k], m, c));
                fprintf(f, "\n");
            }
    }
    return fclose(f) == 0 ? 0 : -1;
}
