/* bench_args.h - what the benchmarks share: their one argument (how many
 * cycles, or --help), a monotonic clock and the peak resident memory. A
 * benchmark defines _POSIX_C_SOURCE 200809L before its first include.
 *
 *     int rc = bench_args(argc, argv, "bench_x", "usage: ...\n", &cycles);
 *     if (rc >= 0)
 *         return rc;
 *
 * Returns -1 to go on with *cycles set (left at its default without an
 * argument), 0 after printing the usage for --help, 2 after naming a bad count
 * (not a number, 0, or more than one argument). */
#ifndef ETM_TB_BENCH_ARGS_H
#define ETM_TB_BENCH_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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

static inline int bench_args(int argc, char **argv, const char *name, const char *usage, unsigned long long *cycles)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc >= 2) {
        char *end = NULL;
        errno = 0;
        *cycles = strtoull(argv[1], &end, 0);
        if (argc > 2 || !*argv[1] || *end || errno || *cycles == 0) {
            fprintf(stderr, "%s: CYCLES is a number above 0, not '%s' (--help)\n", name, argv[argc - 1]);
            return 2;
        }
    }
    return -1;
}

#endif
