/* etm_whatif.c - `etm-whatif`: architecture what-if studies of the ETM.
 *
 *   etm-whatif STUDY [-o DIR] [-j JOBS] [--area] [--no-plots] [--quiet]
 *   etm-whatif run WORKLOAD [configuration options]
 *
 * A study file (docs/whatif.md, studies/default.study) names workloads (the
 * Cortex-M3 programs under QEMU, random stimulus) and sweeps, each a list of
 * configurations: ETM version and register image, FIFO depth, port width and
 * port clock, FIFOFULL stall, issue width, timing-model parameters. Every
 * configuration runs on every workload of its sweep; the figures go into
 * DIR/results.csv, each sweep's plots into DIR/NAME-METRIC.{dat,gp,png,svg}
 * (gnuplot), and all of it into DIR/report.md.
 *
 * A program runs once under QEMU per work item and its executed instructions
 * feed every configuration of the item side by side: each has its own Cortex-M3
 * timing model (held on its own ETM's FIFOFULL) and its own ETM (libetm keeps no
 * global state). Work items run in JOBS processes.
 *
 * An external trace port (port=W:MODE) takes W bytes from the FIFO on each edge
 * of its clock, counted exactly as sc_system's clocks place them
 * (docs/systemc.md): port edges at 7.5 + k * 10 * DIV / (DDR ? 2 : 1) ns, core
 * rising edges at 10 * (n + 2) ns for cycle n; the edges between two core edges
 * take before the next step.
 *
 * This file holds the command line: main (a study), the `run` subcommand (one
 * configuration on one workload) and the usage text; whatif.h lists the other
 * parts and the files that hold them.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "whatif.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: etm-whatif STUDY [-o DIR] [-j JOBS] [--area] [--no-plots] [--quiet]\n"
            "       etm-whatif STUDY --shard I/N [-o DIR] [-j JOBS] [--quiet]\n"
            "       etm-whatif STUDY --merge SHARD... [-o DIR] [--area] [--no-plots] [--quiet]\n"
            "       etm-whatif run WORKLOAD [KEY=VALUE]...\n\n"
            "Runs a what-if study (docs/whatif.md): every configuration of every sweep on every workload\n"
            "of the sweep, then writes DIR/results.csv, the plots (gnuplot: PNG and SVG) and\n"
            "DIR/report.md. DIR defaults to whatif-NAME for STUDY NAME.study.\n\n"
            "  -o DIR       output folder (created)\n"
            "  -j JOBS      worker processes (default: the processors online)\n"
            "  --area       run the area sweeps' synthesis script (slow; otherwise an earlier\n"
            "               result in DIR is reused)\n"
            "  --no-plots   write the gnuplot scripts and data but do not run gnuplot\n"
            "  --shard I/N  run shard I (0 to N-1) of N: every Nth work item, and write only\n"
            "               DIR/shard.res, its runs' figures (a cluster's job array runs the N shards)\n"
            "  --merge SHARD...  run nothing: read the shards' .res files (all N of them) and write\n"
            "               DIR/results.csv, the plots and the report as a whole run would\n\n"
            "run: one configuration on one workload, one summary line (the format of sc_system's).\n"
            "  WORKLOAD     a program (etm-qemu list), an ELF, random or random:SEED:CYCLES\n"
            "  KEY=VALUE    preset=NAME, a register or FIFO_DEPTH/PORT_BYTES (decimal or 0x hex),\n"
            "               ca=0|1, bb=0|1, port=internal|W:MODE, stall=FFLR, issue=1|2,\n"
            "               param.NAME=N (Cortex-M3 timing)\n\n"
            "Exit status: 0 done; 1 a run failed; 2 bad usage or a bad study file (file and line).\n");
}

static int cmd_run(int argc, char **argv)
{
    if (argc < 3) {
        usage(stderr);
        return 2;
    }
    workload_t w;
    char err[512];
    if (parse_workload(argv[2], &w, err, sizeof err) != 0) {
        fprintf(stderr, "etm-whatif: %s\n", err);
        return 2;
    }
    conf_t c;
    conf_default(&c);
    copy(c.label, sizeof c.label, "run");
    for (int i = 3; i < argc; i++)
        if (apply_setting(&c, argv[i], err, sizeof err) != 0) {
            fprintf(stderr, "etm-whatif: %s\n", err);
            return 2;
        }
    if (conf_finish(&c, err, sizeof err) != 0) {
        fprintf(stderr, "etm-whatif: %s\n", err);
        return 2;
    }
    lane_t *L = (lane_t *)xcalloc(1, sizeof *L);
    int rc = lane_open(L, &c, &w);
    if (rc == 0)
        rc = run_lanes(L, 1, &w, err, sizeof err);
    else
        copy(err, sizeof err, L->err);
    if (rc == 0 && L->err[0]) {
        copy(err, sizeof err, L->err);
        rc = -1;
    }
    if (rc == 0) {
        const metrics_t *m = &L->m;
        printf("summary port=%u:%u:%u cycles=%" PRIu64 " held=%" PRIu64 " instructions=%" PRIu64 " bytes=%" PRIu64
               " port_bytes=%" PRIu64 " overflows=%" PRIu64 " bytes_lost=%" PRIu64 " fifofull_cycles=%" PRIu64
               " atoms=%" PRIu64 "\n",
               c.port.width, c.port.width ? c.port.div : 1, c.port.ddr ? 2 : 1, m->cycles, m->held, m->instructions,
               m->bytes, m->port_bytes, m->overflows, m->bytes_lost, m->fifofull_cycles, m->atoms);
        printf("bits/instruction %.3f, bytes/cycle %.3f (busiest 1024 cycles %.3f; port capacity %g), FIFO peak %u, "
               "held %.2f%%\n",
               metric_value("bits_per_insn", m, &c), metric_value("bytes_per_cycle", m, &c),
               metric_value("peak_rate", m, &c), capacity(&c), m->peak_level, metric_value("held_pct", m, &c));
        char tt[48];
        tpiu_text(&c, tt, sizeof tt);
        if (c.tpiu || c.atb_stall)
            printf("trace path: TPIU %s: formatted %.3f bits/instruction (formatter "
                   "overhead %.1f%%), pins carrying trace %.1f%%; ATVALID waited for ATREADY in %.2f%% of the "
                   "cycles, %" PRIu64 " overflows\n",
                   tt, metric_value("fmt_bits_per_insn", m, &c),
                   metric_value("fmt_overhead_pct", m, &c), metric_value("pin_util", m, &c),
                   metric_value("atb_wait_pct", m, &c), m->overflows);
    } else {
        fprintf(stderr, "etm-whatif: %s\n", err);
    }
    lane_close(L);
    free(L);
    return rc == 0 ? 0 : 1;
}

static void free_all(study_t *st, plan_t *pl)
{
    for (size_t s = 0; s < st->nsw; s++) {
        free(st->sw[s].confs);
        free(st->sw[s].wl);
        free(st->sw[s].notes);
        if (pl)
            free(pl->sweep_runs[s]);
    }
    free(st->sw);
    free(st->wl);
    free(st->intro);
    if (pl) {
        free(pl->sweep_runs);
        free(pl->runs);
    }
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "etm-whatif: %s: cannot create the folder: %s\n", path, strerror(errno));
    return -1;
}

/* The command line of a study. */
typedef struct args {
    const char *study_path, *dir; /* dir: -o, else defdir */
    char defdir[512];
    long jobs;
    int area, plots, quiet;
    unsigned shard, nshards;
    const char **merge; /* --merge's shard files, nmerge of them */
    int nmerge;
} args_t;

/* The command line into *a. Returns -1 to go on, else the exit status (--help,
 * a bad option: printed). */
static int parse_args(args_t *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->jobs = sysconf(_SC_NPROCESSORS_ONLN);
    a->plots = 1;
    a->nshards = 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "-o") && i + 1 < argc) {
            a->dir = argv[++i];
        } else if (!strcmp(o, "-j") && i + 1 < argc) {
            char *end;
            a->jobs = strtol(argv[++i], &end, 10);
            if (*end || a->jobs < 1 || a->jobs > 256) {
                fprintf(stderr, "etm-whatif: -j wants 1 to 256\n");
                return 2;
            }
        } else if (!strcmp(o, "--area")) {
            a->area = 1;
        } else if (!strcmp(o, "--no-plots")) {
            a->plots = 0;
        } else if (!strcmp(o, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(o, "--shard") && i + 1 < argc) {
            char extra;
            if (sscanf(argv[++i], "%u/%u%c", &a->shard, &a->nshards, &extra) != 2 || a->nshards < 1 ||
                a->shard >= a->nshards) {
                fprintf(stderr, "etm-whatif: --shard wants I/N with 0 <= I < N, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(o, "--merge")) {
            a->merge = (const char **)(argv + i + 1);
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                i++;
                a->nmerge++;
            }
            if (!a->nmerge) {
                fprintf(stderr, "etm-whatif: --merge wants the shards' .res files\n");
                return 2;
            }
        } else if (o[0] != '-' && !a->study_path) {
            a->study_path = o;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!a->study_path) {
        usage(stderr);
        return 2;
    }
    if (a->jobs < 1)
        a->jobs = 1;
    return -1;
}

/* The output folder (whatif-NAME for NAME.study without -o) and its work
 * folder, work (of size bytes), created. Returns 0, or -1 (printed). */
static int make_dirs(args_t *a, char *work, size_t size)
{
    if (!a->dir) {
        const char *base = strrchr(a->study_path, '/');
        base = base ? base + 1 : a->study_path;
        snprintf(a->defdir, sizeof a->defdir, "whatif-%.*s", (int)strcspn(base, "."), base);
        a->dir = a->defdir;
    }
    snprintf(work, size, "%s/.work", a->dir);
    return make_dir(a->dir) || make_dir(work) ? -1 : 0;
}

/* --merge: the shards' figures, every run of the plan from one of them.
 * Returns 0, or 1 (printed). */
static int merge_shards(const study_t *st, plan_t *pl, const args_t *a)
{
    char err[600];
    for (int k = 0; k < a->nmerge; k++)
        if (read_shard(pl, a->merge[k], err, sizeof err) != 0) {
            fprintf(stderr, "etm-whatif: --merge %s\n", err);
            return 1;
        }
    for (size_t r = 0; r < pl->nruns; r++)
        if (!pl->runs[r].done) {
            fprintf(stderr, "etm-whatif: --merge: no shard has run %zu (%s on %s): a shard is missing\n", r,
                    pl->runs[r].c->label, st->wl[pl->runs[r].wl].name);
            return 1;
        }
    return 0;
}

/* The runs of the plan (of this shard), or the shards' figures with --merge.
 * Returns 0, or 1 (printed). */
static int run_plan(const study_t *st, plan_t *pl, const args_t *a, const char *work)
{
    if (a->merge)
        return merge_shards(st, pl, a);
    if (run_all(st, pl, work, (unsigned)a->jobs, a->quiet, a->shard, a->nshards) != 0) {
        fprintf(stderr, "etm-whatif: a run failed (above); no report written\n");
        return 1;
    }
    return 0;
}

/* A shard's figures into DIR/shard.res. Returns 0, or 1 (printed). */
static int write_shard_res(const plan_t *pl, const args_t *a)
{
    char res[1024];
    snprintf(res, sizeof res, "%s/shard.res", a->dir);
    if (write_shard(pl, a->study_path, a->shard, a->nshards, res) != 0) {
        fprintf(stderr, "etm-whatif: %s: cannot write\n", res);
        return 1;
    }
    if (!a->quiet)
        printf("etm-whatif: shard %u/%u; %s\n", a->shard, a->nshards, res);
    return 0;
}

/* DIR/results.csv, the plots and DIR/report.md; seconds: how long the runs
 * took. Returns 0, or 1 (printed). */
static int write_results(const study_t *st, const plan_t *pl, const args_t *a, double seconds)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/results.csv", a->dir);
    const char *base = strrchr(a->study_path, '/');
    out_t o = { st, pl, a->dir, a->plots, NULL, 0 };
    if (write_csv(st, pl, path) != 0) {
        fprintf(stderr, "etm-whatif: %s: cannot write\n", path);
        return 1;
    }
    if (write_report(&o, base ? base + 1 : a->study_path, a->area, seconds, (unsigned)a->jobs) != 0) {
        fprintf(stderr, "etm-whatif: %s: the report or a plot could not be written\n", a->dir);
        return 1;
    }
    if (!a->quiet)
        printf("etm-whatif: %zu runs; %s/report.md, %s/results.csv\n", pl->nruns, a->dir, a->dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "run"))
        return cmd_run(argc, argv);
    args_t a;
    int rc = parse_args(&a, argc, argv);
    if (rc >= 0)
        return rc;
    study_t st;
    char err[600], work[1024];
    if (parse_study(&st, a.study_path, err, sizeof err) != 0) {
        fprintf(stderr, "etm-whatif: %s\n", err);
        free_all(&st, NULL);
        return 2;
    }
    if (make_dirs(&a, work, sizeof work)) {
        free_all(&st, NULL);
        return 2;
    }
    plan_t pl;
    make_plan(&st, &pl);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = run_plan(&st, &pl, &a, work);
    if (rc == 0) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        rmdir(work);
        if (a.nshards > 1)
            rc = write_shard_res(&pl, &a);
        else
            rc = write_results(&st, &pl, &a,
                               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    }
    free_all(&st, &pl);
    return rc;
}
