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
        if (c.tpiu_pins || c.atb_stall)
            printf("trace path: TPIU %u pins at the core clock / %u: formatted %.3f bits/instruction (formatter "
                   "overhead %.1f%%), pins carrying trace %.1f%%; ATVALID waited for ATREADY in %.2f%% of the "
                   "cycles, %" PRIu64 " overflows\n",
                   c.tpiu_pins, c.tpiu_div, metric_value("fmt_bits_per_insn", m, &c),
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

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "run"))
        return cmd_run(argc, argv);
    const char *study_path = NULL, *dir = NULL;
    long jobs = sysconf(_SC_NPROCESSORS_ONLN);
    int area = 0, plots = 1, quiet = 0;
    unsigned shard = 0, nshards = 1;
    const char **merge = NULL;
    int nmerge = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            dir = argv[++i];
        } else if (!strcmp(a, "-j") && i + 1 < argc) {
            char *end;
            jobs = strtol(argv[++i], &end, 10);
            if (*end || jobs < 1 || jobs > 256) {
                fprintf(stderr, "etm-whatif: -j wants 1 to 256\n");
                return 2;
            }
        } else if (!strcmp(a, "--area")) {
            area = 1;
        } else if (!strcmp(a, "--no-plots")) {
            plots = 0;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--shard") && i + 1 < argc) {
            char extra;
            if (sscanf(argv[++i], "%u/%u%c", &shard, &nshards, &extra) != 2 || nshards < 1 || shard >= nshards) {
                fprintf(stderr, "etm-whatif: --shard wants I/N with 0 <= I < N, not '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--merge")) {
            merge = (const char **)(argv + i + 1);
            while (i + 1 < argc && argv[i + 1][0] != '-') {
                i++;
                nmerge++;
            }
            if (!nmerge) {
                fprintf(stderr, "etm-whatif: --merge wants the shards' .res files\n");
                return 2;
            }
        } else if (a[0] != '-' && !study_path) {
            study_path = a;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!study_path) {
        usage(stderr);
        return 2;
    }
    if (jobs < 1)
        jobs = 1;
    study_t st;
    char err[600];
    if (parse_study(&st, study_path, err, sizeof err) != 0) {
        fprintf(stderr, "etm-whatif: %s\n", err);
        free_all(&st, NULL);
        return 2;
    }
    char defdir[512];
    if (!dir) {
        const char *base = strrchr(study_path, '/');
        base = base ? base + 1 : study_path;
        snprintf(defdir, sizeof defdir, "whatif-%.*s", (int)strcspn(base, "."), base);
        dir = defdir;
    }
    char work[1024];
    snprintf(work, sizeof work, "%s/.work", dir);
    if (make_dir(dir) || make_dir(work)) {
        free_all(&st, NULL);
        return 2;
    }
    plan_t pl;
    make_plan(&st, &pl);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    if (merge) {
        /* The shards' figures, every run of the plan from one of them. */
        for (int k = 0; k < nmerge; k++)
            if (read_shard(&pl, merge[k], err, sizeof err) != 0) {
                fprintf(stderr, "etm-whatif: --merge %s\n", err);
                free_all(&st, &pl);
                return 1;
            }
        for (size_t r = 0; r < pl.nruns; r++)
            if (!pl.runs[r].done) {
                fprintf(stderr, "etm-whatif: --merge: no shard has run %zu (%s on %s): a shard is missing\n", r,
                        pl.runs[r].c->label, st.wl[pl.runs[r].wl].name);
                free_all(&st, &pl);
                return 1;
            }
    } else if (run_all(&st, &pl, work, (unsigned)jobs, quiet, shard, nshards) != 0) {
        fprintf(stderr, "etm-whatif: a run failed (above); no report written\n");
        free_all(&st, &pl);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rmdir(work);
    if (nshards > 1) {
        char res[1024];
        snprintf(res, sizeof res, "%s/shard.res", dir);
        if (write_shard(&pl, study_path, shard, nshards, res) != 0) {
            fprintf(stderr, "etm-whatif: %s: cannot write\n", res);
            rc = 1;
        } else if (!quiet) {
            printf("etm-whatif: shard %u/%u; %s\n", shard, nshards, res);
        }
        free_all(&st, &pl);
        return rc;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    const char *base = strrchr(study_path, '/');
    out_t o = { &st, &pl, dir, plots, NULL, 0 };
    if (write_csv(&st, &pl, path) != 0) {
        fprintf(stderr, "etm-whatif: %s: cannot write\n", path);
        rc = 1;
    } else if (write_report(&o, base ? base + 1 : study_path, area,
                            (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
                            (unsigned)jobs) != 0) {
        fprintf(stderr, "etm-whatif: %s: the report or a plot could not be written\n", dir);
        rc = 1;
    } else if (!quiet) {
        printf("etm-whatif: %zu runs; %s/report.md, %s/results.csv\n", pl.nruns, dir, dir);
    }
    free_all(&st, &pl);
    return rc;
}
