/* genopts.c - the generator-driven testbenches' common options (genopts.h). */
#include "genopts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/number.h"
#include "randfilter.h"

void genopts_init(genopts_t *g, const char *preset)
{
    memset(g, 0, sizeof *g);
    etm_config_preset(&g->cfg, preset);
    etm_gen_params_default(&g->gp);
    g->cycles = 1000000;
    g->preset = preset;
}

/* A numeric option's value within [min, max] (etm/number.h). Returns 0, or -1 printed. */
static int num(const char *a, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
    etm_diag_t d;
    if (etm_number_parse(v, min, max, out, &d) == ETM_OK)
        return 0;
    fprintf(stderr, "%s %s\n", a, d.msg);
    return -1;
}

static int parse_valued(genopts_t *g, const char *a, const char *v)
{
    etm_diag_t d;
    uint64_t n = 0;
    if (!strcmp(a, "--preset")) {
        g->preset = v;
        if (etm_config_preset(&g->cfg, v) != ETM_OK) {
            fprintf(stderr, "--preset %s: unknown\n", v);
            return -1;
        }
    } else if (!strcmp(a, "--set")) {
        if (etm_config_parse_line(&g->cfg, v, NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "--set %s: %s\n", v, d.msg);
            return -1;
        }
    } else if (!strcmp(a, "--cycles")) {
        if (num(a, v, 0, UINT64_MAX, &g->cycles))
            return -1;
    } else if (!strcmp(a, "--seed")) {
        if (num(a, v, 0, UINT64_MAX, &g->gp.seed))
            return -1;
    } else if (!strcmp(a, "--issue-width")) {
        if (num(a, v, 1, 2, &n))
            return -1;
        g->gp.issue_width = (unsigned)n;
        g->cfg.issue_width = g->gp.issue_width;
    } else if (!strcmp(a, "--irq-period")) {
        if (num(a, v, 0, UINT32_MAX, &n))
            return -1;
        g->gp.irq_period = (unsigned)n;
    } else if (!strcmp(a, "--sleep")) {
        if (num(a, v, 0, 1000, &n))
            return -1;
        g->gp.sleep_pct = (unsigned)n;
    } else if (!strcmp(a, "--max-intnum")) {
        if (num(a, v, 16, 511, &n))
            return -1;
        g->gp.max_intnum = (unsigned)n;
    } else if (!strcmp(a, "--data-delay")) {
        if (num(a, v, 0, 16, &n))
            return -1;
        g->gp.data = 1;
        g->gp.data_delay = (unsigned)n;
    } else if (!strcmp(a, "--random-filter")) {
        g->random_filter = 1;
        if (num(a, v, 0, UINT64_MAX, &g->filter_seed))
            return -1;
    } else {
        return 0;
    }
    return 1;
}

int genopts_parse(genopts_t *g, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--triggers"))
        g->gp.triggers = 1;
    else if (!strcmp(a, "--data"))
        g->gp.data = 1;
    else if (!strcmp(a, "--data-mix"))
        g->gp.data = g->gp.data_mix = 1;
    else if (*i + 1 < argc) {
        int r = parse_valued(g, a, argv[*i + 1]);
        if (r == 1)
            (*i)++;
        return r;
    } else
        return 0;
    return 1;
}

int genopts_filter(genopts_t *g, int data)
{
    if (!g->random_filter)
        return 0;
    char desc[2048];
    etm_diag_t d;
    if (rf_choose(&g->cfg, &g->gp, g->filter_seed, g->cycles, data, desc, sizeof desc, &d) != 0) {
        fprintf(stderr, "random filter %" PRIu64 " refused: %s\n", g->filter_seed, d.msg);
        return -1;
    }
    printf("filter %" PRIu64 ": %s\n", g->filter_seed, desc);
    return 0;
}
