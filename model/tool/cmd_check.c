/* cmd_check.c - `etm check`: run the interface checker over a stimulus file. */
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
               "(docs/interface.md). Each violation is reported as\n"
               "  FILE:LINE: cycle N: RULE: what the rule says\n\n"
               "  --warn         report every violation and continue (default: stop at the first)\n"
               "  --max-report N in --warn mode, print at most N violations (default 100); all are counted\n"
               "  --json         the counts and the violations reported as one JSON object (docs/json.md),\n"
               "                 on stdout, instead of the text\n"
               "  --rules        list the rules and exit\n\n%s\n"
               "Exit status: 0 no violation, 1 violations (with --warn too, after the counts), 2 bad usage or input.\n",
            source_opts_help);
}

int cmd_check(int argc, char **argv)
{
    source_opts_t so;
    source_opts_init(&so);
    int warn = 0, json = 0;
    unsigned long max_report = 100;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--warn")) {
            warn = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--rules")) {
            for (int r = 0; r < ETM_RULE_COUNT; r++)
                printf("%-28s %s\n", etm_rule_name((etm_rule_t)r), etm_rule_text((etm_rule_t)r));
            return 0;
        } else if (!strcmp(argv[i], "--max-report")) {
            char *end;
            if (i + 1 >= argc || (max_report = strtoul(argv[++i], &end, 10), *end)) {
                fprintf(stderr, "etm check: --max-report needs a number\n");
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "etm check: unknown option '%s' (try --help)\n", argv[i]);
            return 2;
        } else if (path) {
            fprintf(stderr, "etm check: one input file only\n");
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        help(stderr);
        return 2;
    }
    source_t src;
    if (source_open(&src, path, &so, ETM_VEC_STIMULUS))
        return 2;
    etm_check_t chk;
    etm_check_init(&chk, &src.cfg);
    etm_in_t in;
    etm_err_t e;
    unsigned long reported = 0;
    int stopped = 0;
    /* --json: the violations reported, kept for the object at the end. */
    typedef struct seen_rule {
        uint64_t cycle;
        unsigned long line;
        etm_rule_t rule;
    } seen_rule_t;
    seen_rule_t *seen = json ? (seen_rule_t *)calloc(warn ? max_report + 1 : 1, sizeof *seen) : NULL;
    if (json && !seen) {
        fprintf(stderr, "etm check: out of memory\n");
        source_close(&src);
        return 2;
    }
    while ((e = source_read_in(&src, &in)) == ETM_OK) {
        etm_rule_t fired[ETM_RULE_COUNT];
        uint64_t cycle = chk.cycle;
        progress("check", cycle);
        unsigned n = etm_check_step(&chk, &in, fired, ETM_RULE_COUNT);
        for (unsigned k = 0; k < n; k++) {
            if (json && (!warn || reported < max_report)) {
                seen[reported].cycle = cycle;
                seen[reported].line = source_line(&src);
                seen[reported].rule = fired[k];
            } else if (!warn || reported < max_report) {
                progress_done();
                if (src.is_vcd)
                    fprintf(stderr, "%s: cycle %llu (time %llu): %s: %s\n", path, (unsigned long long)cycle,
                            (unsigned long long)etm_vcd_time(src.vcd), etm_rule_name(fired[k]),
                            etm_rule_text(fired[k]));
                else {
                    char at[600];
                    fprintf(stderr, "%s: cycle %llu: %s: %s\n", source_where(&src, path, 1, at, sizeof at),
                            (unsigned long long)cycle, etm_rule_name(fired[k]), etm_rule_text(fired[k]));
                }
            }
            reported++;
        }
        if (n && !warn) {
            stopped = 1;
            break;
        }
    }
    progress_done();
    source_close(&src);
    if (e != ETM_OK && e != ETM_END) {
        free(seen);
        return 2;
    }
    int status = chk.total ? 1 : 0;
    if (json) {
        json_t j;
        json_begin(&j, stdout, "check", status);
        json_str(&j, "stimulus", path);
        json_u64(&j, "cycles", chk.cycle);
        json_u64(&j, "violations", chk.total);
        json_bool(&j, "stopped_at_first", stopped);
        json_object(&j, "rules");
        for (int r = 0; r < ETM_RULE_COUNT; r++)
            if (chk.counts[r])
                json_u64(&j, etm_rule_name((etm_rule_t)r), chk.counts[r]);
        json_end(&j);
        json_array(&j, "reported");
        for (unsigned long k = 0; k < reported && k < (warn ? max_report : 1); k++) {
            json_object(&j, NULL);
            json_u64(&j, "cycle", seen[k].cycle);
            if (seen[k].line)
                json_u64(&j, "line", seen[k].line);
            json_str(&j, "rule", etm_rule_name(seen[k].rule));
            json_str(&j, "text", etm_rule_text(seen[k].rule));
            json_end(&j);
        }
        json_end(&j);
        json_finish(&j);
        free(seen);
        return status;
    }
    if (stopped) {
        fprintf(stderr, "etm check: stopped at the first violation (--warn continues)\n");
        return 1;
    }
    printf("%llu cycles checked, %llu violations\n", (unsigned long long)chk.cycle, (unsigned long long)chk.total);
    for (int r = 0; r < ETM_RULE_COUNT; r++)
        if (chk.counts[r])
            printf("  %-28s %llu\n", etm_rule_name((etm_rule_t)r), (unsigned long long)chk.counts[r]);
    return chk.total ? 1 : 0;
}
