/* cmd_check.c - `etm check`: run the interface checker over a stimulus file. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/etm.h"
#include "json.h"
#include "source.h"
#include "subcommands.h"

static void help(FILE *f)
{
    fprintf(f, "usage: etm check [options] STIMULUS\n\n"
               "Checks every cycle of STIMULUS (vector file or VCD) against the ETM interface rules\n"
               "(docs/interface.md), the programmer's model's among them (APB_*: the model runs,\n"
               "programmed as the file's header says, so the verdict is etm run's). Each violation\n"
               "is reported as\n"
               "  FILE:LINE: cycle N: RULE: what the rule says\n\n"
               "  --warn         report every violation and continue (default: stop at the first)\n"
               "  --max-report N in --warn mode, print at most N violations (default 100); all are counted\n"
               "  --json         the counts and the violations reported as one JSON object (docs/json.md),\n"
               "                 on stdout, instead of the text\n"
               "  --rules        list the rules and exit\n\n%s\n"
               "Exit status: 0 no violation, 1 violations (with --warn too, after the counts), 2 bad usage or input.\n",
            source_opts_help);
}

/* The command line of etm check. */
typedef struct check_args {
    source_opts_t so;
    int warn, json;
    unsigned long max_report;
    const char *path;
} check_args_t;

/* The command line into *a. Returns -1 to go on, else the exit status (--help,
 * --rules, a bad option: printed). */
static int parse_args(check_args_t *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    source_opts_init(&a->so);
    a->max_report = 100;
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&a->so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--warn")) {
            a->warn = 1;
        } else if (!strcmp(argv[i], "--json")) {
            a->json = 1;
        } else if (!strcmp(argv[i], "--rules")) {
            for (int r = 0; r < ETM_RULE_COUNT; r++)
                printf("%-28s %s\n", etm_rule_name((etm_rule_t)r), etm_rule_text((etm_rule_t)r));
            return 0;
        } else if (!strcmp(argv[i], "--max-report")) {
            uint64_t n = 0;
            if (i + 1 >= argc) {
                fprintf(stderr, "etm check: --max-report needs a number\n");
                return 2;
            }
            if (opt_number("check", "--max-report", argv[++i], 0, ULONG_MAX, &n))
                return 2;
            a->max_report = (unsigned long)n;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "etm check: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        } else if (a->path) {
            fprintf(stderr, "etm check: one input file only\n");
            return 2;
        } else {
            a->path = argv[i];
        }
    }
    if (!a->path) {
        help(stderr);
        return 2;
    }
    return -1;
}

/* A violation reported, kept for --json's object at the end. */
typedef struct seen_rule {
    uint64_t cycle;
    unsigned long line;
    etm_rule_t rule;
} seen_rule_t;

/* A check over a stimulus: the checker and what it has reported. */
typedef struct check_run {
    const check_args_t *a;
    source_t src;
    etm_check_t chk;        /* the counts (cycle, total, counts[]) of what the model reported */
    etm_ctx_t *etm;         /* the model: the interface checker and the programmer's model's rules (APB_*) */
    seen_rule_t *seen;      /* --json: the violations reported */
    unsigned long reported; /* violations reported (or, past --max-report, not) */
    int stopped;            /* stopped at the first violation */
} check_run_t;

/* One violation of the given cycle: kept for --json (room for --max-report of
 * them with --warn, else for the first), else printed on stderr where it is
 * (the VCD's time, or the file's line); past --max-report, counted only. */
static void report_violation(check_run_t *c, uint64_t cycle, etm_rule_t rule)
{
    const check_args_t *a = c->a;
    if (a->json) {
        if (c->reported < (a->warn ? a->max_report : 1)) {
            c->seen[c->reported].cycle = cycle;
            c->seen[c->reported].line = source_line(&c->src);
            c->seen[c->reported].rule = rule;
        }
    } else if (!a->warn || c->reported < a->max_report) {
        progress_done();
        if (c->src.is_vcd) {
            fprintf(stderr, "%s: cycle %llu (time %llu): %s: %s\n", a->path, (unsigned long long)cycle,
                    (unsigned long long)etm_vcd_time(c->src.vcd), etm_rule_name(rule), etm_rule_text(rule));
        } else {
            char at[600];
            fprintf(stderr, "%s: cycle %llu: %s: %s\n", source_where(&c->src, a->path, 1, at, sizeof at),
                    (unsigned long long)cycle, etm_rule_name(rule), etm_rule_text(rule));
        }
    }
    c->reported++;
}

/* Every cycle of the stimulus through the checker, up to the first violation
 * without --warn. Returns what the last read returned. */
static etm_err_t check_cycles(check_run_t *c)
{
    etm_in_t in;
    etm_out_t out;
    etm_err_t e;
    while ((e = source_read_in(&c->src, &in)) == ETM_OK) {
        etm_rule_t fired[ETM_RULE_COUNT];
        uint64_t cycle = c->chk.cycle++;
        progress("check", cycle);
        /* The model itself: every rule `etm run` reports, with the same state
         * behind the programmer's model's (the programming bit, the lock). */
        unsigned n = etm_step(c->etm, &in, &out) == ETM_ERR_RULE ? etm_last_rules(c->etm, fired, ETM_RULE_COUNT) : 0;
        for (unsigned k = 0; k < n; k++) {
            c->chk.counts[fired[k]]++;
            c->chk.total++;
            report_violation(c, cycle, fired[k]);
        }
        if (n && !c->a->warn) {
            c->stopped = 1;
            break;
        }
    }
    progress_done();
    return e;
}

/* The counts and the violations reported as one JSON object. */
static void check_json(const check_run_t *c, int status)
{
    const check_args_t *a = c->a;
    json_t j;
    json_begin(&j, stdout, "check", status);
    json_str(&j, "stimulus", a->path);
    json_u64(&j, "cycles", c->chk.cycle);
    json_u64(&j, "violations", c->chk.total);
    json_bool(&j, "stopped_at_first", c->stopped);
    json_object(&j, "rules");
    for (int r = 0; r < ETM_RULE_COUNT; r++)
        if (c->chk.counts[r])
            json_u64(&j, etm_rule_name((etm_rule_t)r), c->chk.counts[r]);
    json_end(&j);
    json_array(&j, "reported");
    for (unsigned long k = 0; k < c->reported && k < (a->warn ? a->max_report : 1); k++) {
        const seen_rule_t *s = &c->seen[k];
        json_object(&j, NULL);
        json_u64(&j, "cycle", s->cycle);
        if (s->line)
            json_u64(&j, "line", s->line);
        json_str(&j, "rule", etm_rule_name(s->rule));
        json_str(&j, "text", etm_rule_text(s->rule));
        json_end(&j);
    }
    json_end(&j);
    json_finish(&j);
}

/* The counts as text (after the violations printed); returns the exit status. */
static int check_summary(const check_run_t *c)
{
    if (c->stopped) {
        fprintf(stderr, "etm check: stopped at the first violation (--warn continues)\n");
        return 1;
    }
    printf("%llu cycles checked, %llu violations\n", (unsigned long long)c->chk.cycle,
           (unsigned long long)c->chk.total);
    for (int r = 0; r < ETM_RULE_COUNT; r++)
        if (c->chk.counts[r])
            printf("  %-28s %llu\n", etm_rule_name((etm_rule_t)r), (unsigned long long)c->chk.counts[r]);
    return c->chk.total ? 1 : 0;
}

int cmd_check(int argc, char **argv)
{
    check_args_t a;
    int status = parse_args(&a, argc, argv);
    if (status >= 0)
        return status;
    check_run_t c;
    memset(&c, 0, sizeof c);
    c.a = &a;
    if (source_open(&c.src, a.path, &a.so, ETM_VEC_STIMULUS))
        return 2;
    etm_check_init(&c.chk, &c.src.cfg);
    etm_diag_t d;
    if (etm_create(&c.etm, &c.src.cfg, &d) != ETM_OK) {
        fprintf(stderr, "etm check: %s: %s\n", a.path, d.msg);
        source_close(&c.src);
        return 2;
    }
    c.seen = a.json ? (seen_rule_t *)calloc(a.warn ? a.max_report + 1 : 1, sizeof *c.seen) : NULL;
    if (a.json && !c.seen) {
        fprintf(stderr, "etm check: out of memory\n");
        etm_destroy(c.etm);
        source_close(&c.src);
        return 2;
    }
    etm_err_t e = check_cycles(&c);
    etm_destroy(c.etm);
    source_close(&c.src);
    if (e != ETM_OK && e != ETM_END) {
        free(c.seen);
        return 2;
    }
    status = c.chk.total ? 1 : 0;
    if (a.json)
        check_json(&c, status);
    else
        status = check_summary(&c);
    free(c.seen);
    return status;
}
