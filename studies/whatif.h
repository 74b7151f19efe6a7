/* whatif.h - the parts of `etm-whatif` (etm_whatif.c) and what they share
 * (internal to the tool).
 *
 * The tool reads a study file (whatif_study.c) into sweeps of configurations
 * (whatif_conf.c), plans the runs and runs them in work items, one worker process
 * each (whatif_jobs.c), every configuration of an item a lane on the same
 * executed instructions (whatif_lane.c); then it writes the figures
 * (whatif_results.c: the metrics and results.csv) and the report with its plots
 * (whatif_report.c and, by kind, whatif_plot_metric.c, whatif_plot_trace.c,
 * whatif_plot_area.c, each laid out by whatif_plot_layout.c). Each section
 * below names the file that defines it.
 */
#ifndef ETM_WHATIF_H
#define ETM_WHATIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "etm/cm3.h"
#include "etm/etm.h"
#include "etm/stim.h"

/* ---- Small helpers (whatif_conf.c) ------------------------------------------------ */

/* calloc and realloc that print and exit(2) when memory runs out. */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* src into dst, cut to size (always terminated). */
void copy(char *dst, size_t size, const char *src);

/* ---- Configurations and workloads (whatif_conf.c) ---------------------------------- */

/* How trace leaves the FIFO. */
typedef struct port {
    unsigned width; /* bytes per edge; 0: the ETM's own port (PORT_BYTES) at the core clock */
    unsigned div;   /* port clock period in core clock periods: 1, 2, 4 */
    unsigned ddr;   /* 1: both edges */
} port_t;

typedef struct conf {
    char label[96];
    double x;               /* the varied value (lines plots) */
    int has_x;
    double y;               /* the grid's value (knee plots) */
    int has_y;
    etm_config_t cfg;       /* PORT_BYTES=0 with an external port */
    port_t port;
    unsigned stall;         /* ETMFFLR with ETMCR[7]; 0: no stall */
    unsigned issue;         /* generator issue width */
    etm_cm3_params_t params;
    int tpiu;               /* the ETM's ATB into a TPIU (0: none) ... */
    etm_tpiu_params_t tpiu_p; /*   as tpiu= gives it: pins and TRACECLK, or SWO; queue, FFCR */
    unsigned atb_stall;     /* ATREADY held low this percent of the cycles (an interconnect) */
    unsigned atb_burst;     /*   in bursts of this many cycles on average */
} conf_t;

typedef struct workload {
    char name[256];   /* a program (etm-qemu list), an ELF path, or "random" */
    int random;
    uint64_t seed, cycles;
} workload_t;

/* "internal" or WIDTH:MODE into *p; 0 if s is neither. */
int parse_port(const char *s, port_t *p);
/* The port as parse_port reads it. */
void port_text(const port_t *p, char *buf, size_t size);
/* Bytes the port can move per core cycle. */
double capacity(const conf_t *c);
/* ETM_V() of the configuration, and as "MAJOR.MINOR". */
unsigned version_of(const etm_config_t *cfg);
void version_text(const etm_config_t *cfg, char *buf, size_t size);
/* The timing parameters that differ from the defaults, "default" if none. */
void timing_text(const etm_cm3_params_t *p, char *buf, size_t size);
/* A key that is equal for two configurations exactly when they run the same. */
void conf_key(const conf_t *c, char *buf, size_t size);
/* Apply one KEY=VALUE setting of a study file or the command line. Returns 0, or
 * -1 with a sentence in err. */
int apply_setting(conf_t *c, const char *kv, char *err, size_t errlen);
void conf_default(conf_t *c);
/* The TPIU of tpiu=PINS:DIV on the configuration's ATB. */
/* The TPIU of tpiu= as a study's files show it: "PINS:DIV", "nrz:ACPR",
 * "manchester:ACPR" (" bypassed" with the formatter off), or "none". */
void tpiu_text(const conf_t *c, char *buf, size_t size);
/* The TPIU's parameters (c->tpiu set): tpiu_p with the ETM's ATB width. */
void conf_tpiu_params(const conf_t *c, etm_tpiu_params_t *p);
/* The configuration as the model runs it; 0, or -1 with a sentence in err. */
int conf_finish(conf_t *c, char *err, size_t errlen);
/* "random" or "random:SEED:CYCLES"; anything else is a program. */
int parse_workload(const char *s, workload_t *w, char *err, size_t errlen);

/* ---- One configuration on one workload: a lane (whatif_lane.c) ---------------------- */

typedef struct metrics {
    uint64_t cycles, held, instructions, bytes, port_bytes, port_cycles, overflows, bytes_lost, cycles_lost;
    uint64_t fifofull_cycles, atoms, exceptions, untraceable;
    uint64_t packets[ETM_PKT_KIND_COUNT];
    unsigned peak_level;
    uint64_t peak_window; /* most bytes that entered the FIFO in WINDOW consecutive cycles */
    uint64_t atb_wait;    /* cycles with ATVALID and ATREADY low */
    uint64_t fmt_bytes;   /* TPIU: frames and frame syncs (the formatted trace, idle syncs aside) */
    uint64_t pin_bytes;   /* TPIU: everything the pins carried, half-word syncs too */
} metrics_t;

#define WINDOW 1024u

typedef struct lane {
    const conf_t *c;
    etm_ctx_t *etm;
    etm_tpiu_t *tp;   /* tpiu=: the ETM's ATB sink */
    etm_atb_stall_t stall; /* atb_stall=: an interconnect's back-pressure */
    etm_cm3_t *cm3;   /* a program: its own timing model */
    etm_stim_t *stim; /* random stimulus */
    etm_out_t out;
    uint64_t n;       /* cycles stepped */
    uint64_t last_bytes, win_sum;
    uint16_t win[WINDOW];
    metrics_t m;
    char err[512];
} lane_t;

/* Returns 0, or -1 with a message in L->err. */
int lane_open(lane_t *L, const conf_t *c, const workload_t *w);
void lane_close(lane_t *L);
/* Every lane on one workload; 0, or -1 with a message in err. */
int run_lanes(lane_t *lanes, size_t n, const workload_t *w, char *err, size_t errlen);

/* ---- Metrics (whatif_results.c) ------------------------------------------------------ */

typedef struct metric {
    const char *name;   /* in study files and CSV */
    const char *axis;   /* axis label */
    int decimals;       /* in tables */
    int ratio;          /* a rate: the report compares configurations by ratio */
} metric_t;

/* Every metric, ending in a NULL name. */
extern const metric_t kMetrics[];

const metric_t *find_metric(const char *name);
double metric_value(const char *name, const metrics_t *m, const conf_t *c);

/* ---- Study files (whatif_study.c) ------------------------------------------------------ */

typedef enum plot_kind { PLOT_BARS, PLOT_LINES, PLOT_PACKETS, PLOT_RATE, PLOT_AREA, PLOT_KNEE } plot_kind_t;

typedef struct plot {
    plot_kind_t kind;
    char metric[32];
    int logx, logy;
} plot_t;

#define MAX_PLOTS 8
#define MAX_REFS 8

typedef struct sweep {
    char name[48];
    char title[256];
    char *notes;             /* `text` lines */
    conf_t base;
    conf_t *confs;
    size_t nconfs;
    char vary[64];           /* the varied key, "" for none */
    char grid[64];           /* a second varied key across the first (knee plots), "" for none */
    plot_t plots[MAX_PLOTS];
    int nplots;
    size_t *wl;              /* workloads (indices into the study's) */
    size_t nwl;
    int wl_given;
    port_t refs[MAX_REFS];   /* rate plots: port capacities drawn as lines */
    int nrefs;
    char area_script[256];   /* area sweeps: the synthesis script */
    unsigned long line;
} sweep_t;

typedef struct study {
    const char *path;
    char title[256];
    char *intro;
    workload_t *wl;
    size_t nwl;
    sweep_t *sw;
    size_t nsw;
} study_t;

/* Returns 0, or -1 with "FILE:LINE: message" in err (st is to be freed either way). */
int parse_study(study_t *st, const char *path, char *err, size_t errlen);

/* ---- Runs, work items and workers (whatif_jobs.c) ---------------------------------------- */

typedef struct run {
    size_t wl;          /* workload */
    const conf_t *c;    /* the first configuration with this key */
    char key[1024];
    metrics_t m;
    int done;
} run_t;

typedef struct plan {
    run_t *runs;
    size_t nruns;
    size_t **sweep_runs; /* per sweep: run index of (conf i, workload j) at i * nwl + j */
} plan_t;

/* One run per workload and distinct configuration. */
void make_plan(const study_t *st, plan_t *pl);
/* Run every run of the plan (of shard `shard` of `nshards`: every nshards-th work
 * item; nshards 1: all) in up to `jobs` worker processes; 0, or -1 if one failed. */
int run_all(const study_t *st, plan_t *pl, const char *workdir, unsigned jobs, int quiet, unsigned shard,
            unsigned nshards);
/* A shard's runs (those done) to path, with a first line naming the shard, the
 * study and its number of runs; 0, or -1. */
int write_shard(const plan_t *pl, const char *study, unsigned shard, unsigned nshards, const char *path);
/* A shard's file into the plan; 0, or -1 with the reason in err (another study's, unreadable). */
int read_shard(plan_t *pl, const char *path, char *err, size_t errlen);

/* ---- Results: CSV (whatif_results.c) ------------------------------------------------------ */

int write_csv(const study_t *st, const plan_t *pl, const char *path);

/* ---- Plots (gnuplot) and the report (whatif_report.c) --------------------------------------- */

typedef struct out {
    const study_t *st;
    const plan_t *pl;
    const char *dir;
    int plots;      /* run gnuplot */
    FILE *md;       /* report.md */
    int failed;
} out_t;

/* Room for a plot's text (whatif_plot_layout.c): what the plot shows, given by
 * layout_x, layout_key and layout_side on a zeroed layout, then the canvas and
 * the settings that keep the text apart, set by layout_fit. Sizes in gnuplot's
 * character cells. */
typedef struct layout {
    size_t nx;          /* categories on x (histograms), each with a tic label */
    double x_cells;     /* the widest tic label */
    double x_pair;      /* the most two neighbouring tic labels take, level: half of each */
    double x_last;      /* the last tic label given */
    size_t nkey;        /* key entries */
    size_t key_len;     /* the longest, in characters */
    int key_on_top;     /* the key above the graph, across (with side labels), not at the right */
    double side_cells;  /* the widest label beside the graph, at its right */
    /* Set by layout_fit: */
    int width, height;  /* the canvas, pixels */
    int angle;          /* the x tic labels turned down by this many degrees, 0: level */
    double graph_h;     /* the graph's height, pixels (at least) */
    char settings[256]; /* the margins and the turn of the x tics */
} layout_t;

/* A tic label on x, an entry of the key, a label beside the graph at its right. */
void layout_x(layout_t *l, const char *label);
void layout_key(layout_t *l, const char *entry);
void layout_side(layout_t *l, const char *label);
/* The canvas, the turn of the x tic labels and the margins, into settings. */
void layout_fit(layout_t *l);
/* Labels at heights y[0..n) (ascending) of a graph showing 0 to ymax, moved
 * apart until each is a line from the next, staying below ymax if they can. */
void layout_spread(const layout_t *l, double ymax, double *y, size_t n);

const metrics_t *metrics_of(const out_t *o, size_t s, size_t conf, size_t wl);
double value_of(const out_t *o, size_t s, size_t conf, size_t wl, const char *metric);
const char *wl_name(const out_t *o, size_t s, size_t wl);
/* s as the inside of a gnuplot '...' string (a quote doubled). */
const char *gpq(const char *s, char *buf, size_t size);
/* Write NAME.gp around the plot command and run gnuplot: NAME.png and NAME.svg, on
 * the canvas and with the margins of the fitted layout. */
void gnuplot(out_t *o, const char *name, const layout_t *lay, const char *settings, const char *plot);
/* DIR/NAME.dat opened for writing; NULL (o->failed set) if it cannot be. */
FILE *open_dat(out_t *o, const char *name);
void md_image(out_t *o, const char *name, const char *alt);
void md_value(out_t *o, const metric_t *mt, double v);
/* A histogram of NAME.dat (column 1: the labels on x; columns 2 to last_col:
 * the series), clustered or stacked, with more settings after the common ones,
 * laid out by lay (fitted). */
void histogram(out_t *o, const char *name, const char *title, int stacked, const char *extra, size_t last_col,
               const layout_t *lay);
/* DIR/report.md with every sweep's plots; 0, or -1 if it or a plot failed. */
int write_report(out_t *o, const char *study_arg, int area_rerun, double seconds, unsigned jobs);

/* ---- The plots by kind: one sweep's plot and its part of the report ------------------------- */

/* whatif_plot_metric.c: one metric, as bars per workload or as lines against the varied key. */
void plot_bars(out_t *o, size_t s, const plot_t *p);
void plot_lines(out_t *o, size_t s, const plot_t *p);
/* A grid sweep (vary x grid): for each grid value and workload, the smallest
 * varied value from which the metric stays 0 (the knee), as lines and a table. */
void plot_knee(out_t *o, size_t s, const plot_t *p);
/* whatif_plot_trace.c: the packet mix, and the trace rate against port capacities. */
void plot_packets(out_t *o, size_t s);
void plot_rate(out_t *o, size_t s);
/* whatif_plot_area.c: the synthesis script's table (run again with rerun, else the
 * one kept in DIR). */
void plot_area(out_t *o, size_t s, int rerun);

#endif
