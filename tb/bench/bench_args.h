/* bench_args.h - what the benchmarks share: their one argument (how many
 * cycles, or --help), a monotonic clock, the peak resident memory and the
 * streaming pass over records. A
 * benchmark defines _POSIX_C_SOURCE 200809L before its first include.
 *
 *     int rc = bench_args(argc, argv, "bench_x", "usage: ...\n", &cycles);
 *     if (rc >= 0)
 *         return rc;
 *
 * Returns -1 to go on with *cycles set (left at its default without an
 * argument), 0 after printing the usage for --help, 2 after naming a bad count
 * (not a whole number from 1 to 2^64-1, or more than one argument). */
#ifndef ETM_TB_BENCH_ARGS_H
#define ETM_TB_BENCH_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "etm/number.h"
#include "etm/signals.h"

/* Seconds on the monotonic clock. */
static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Peak resident memory of the process so far, in KiB. */
static inline long bench_peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* The bound any per-cycle model meets first: the best of 20 passes over the n
 * records at block, each touching every field the interface check reads and
 * nothing else. Prints the line "streaming pass" with its records per second
 * (and a checksum, which keeps the passes from being optimized away). */
static inline void bench_stream_pass(const etm_in_t *block, unsigned n)
{
    double best = 0;
    uint64_t sink = 0;
    for (int pass = 0; pass < 20; pass++) {
        double t0 = bench_now();
        for (unsigned i = 0; i < n; i++) {
            const etm_in_t *r = &block[i];
            sink += r->ia ^ r->ivalid ^ r->ibranch ^ r->dactl ^ r->da ^ r->ddctl ^ (uint32_t)r->dd ^ r->intstat;
        }
        double dt = bench_now() - t0;
        best = best == 0 || dt < best ? dt : best;
    }
    printf("%-45s %12.0f  (a pass over %zu-byte records, no model; checksum %llx)\n", "streaming pass", n / best,
           sizeof(etm_in_t), (unsigned long long)(sink & 0xfff));
}

static inline int bench_args(int argc, char **argv, const char *name, const char *usage, unsigned long long *cycles)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "%s: one argument, CYCLES (--help)\n", name);
        return 2;
    }
    if (argc == 2) {
        uint64_t n = 0;
        etm_diag_t d;
        if (etm_number_parse(argv[1], 1, UINT64_MAX, &n, &d) != ETM_OK) {
            fprintf(stderr, "%s: CYCLES %s (--help)\n", name, d.msg);
            return 2;
        }
        *cycles = n;
    }
    return -1;
}

#endif
