/* whatif_plot_area.c - etm-whatif's area plot: the table of the synthesis script
 * (scripts/yosys-area: Yosys cells and flip-flops of the RTL per configuration),
 * run again with --area or else kept from an earlier run in DIR, plotted and
 * tabled in the report.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif.h"

typedef struct area_row {
    char name[64], desc[256];
    double cells, flops, seconds;
} area_row_t;

typedef struct area {
    area_row_t *rows;
    size_t n;
    int from_cache;
} area_t;

/* Lines "NAME CELLS FLOPS SECONDS DESCRIPTION..." after the script's header. */
static int parse_area(FILE *f, area_t *a)
{
    char line[1024];
    int header = 0;
    while (fgets(line, sizeof line, f)) {
        if (!header) {
            header = strncmp(line, "configuration", 13) == 0;
            continue;
        }
        area_row_t r;
        memset(&r, 0, sizeof r);
        int used = 0;
        if (sscanf(line, "%63s %lf %lf %lf %n", r.name, &r.cells, &r.flops, &r.seconds, &used) != 4)
            continue;
        copy(r.desc, sizeof r.desc, line + used);
        r.desc[strcspn(r.desc, "\r\n")] = 0;
        a->rows = (area_row_t *)xrealloc(a->rows, (a->n + 1) * sizeof *a->rows);
        a->rows[a->n++] = r;
    }
    return header ? 0 : -1;
}

static int run_area(const sweep_t *sw, const char *dir, int rerun, area_t *a)
{
    char cache[1024], cmd[4096];
    snprintf(cache, sizeof cache, "%s/%s-area.txt", dir, sw->name);
    memset(a, 0, sizeof *a);
    if (!rerun) {
        FILE *f = fopen(cache, "r");
        if (!f)
            return 1; /* nothing to show */
        int rc = parse_area(f, a);
        fclose(f);
        a->from_cache = 1;
        return rc;
    }
    const char *script = sw->area_script;
    char path[1024];
    if (script[0] == '/')
        copy(path, sizeof path, script);
    else
        snprintf(path, sizeof path, "%s/%s", ETM_SOURCE_DIR, script);
    fprintf(stderr, "etm-whatif: synthesizing with %s (slow) ...\n", path);
    snprintf(cmd, sizeof cmd, "ETM='%s' bash '%s' > '%s.tmp'", ETM_TOOL, path, cache);
    if (system(cmd) != 0) {
        fprintf(stderr, "etm-whatif: %s failed; its output is in %s.tmp\n", path, cache);
        return -1;
    }
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", cache);
    if (rename(tmp, cache) != 0)
        return -1;
    FILE *f = fopen(cache, "r");
    if (!f)
        return -1;
    int rc = parse_area(f, a);
    fclose(f);
    return rc;
}

/* The plot and the report's table, or why there are none. */
static void area_table(out_t *o, size_t s, const area_t *a)
{
    const sweep_t *sw = &o->st->sw[s];
    char name[128];
    snprintf(name, sizeof name, "%s-area", sw->name);
    if (!a->n) {
        fprintf(o->md, "Not synthesized: `%s` runs only with `--area` (slow), and the folder holds no earlier "
                       "result.\n\n", sw->area_script);
        return;
    }
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"configuration\" \"cells\" \"flip-flops\"\n");
    for (size_t i = 0; i < a->n; i++)
        fprintf(f, "\"%s\" %g %g\n", a->rows[i].name, a->rows[i].cells, a->rows[i].flops);
    fclose(f);
    layout_t lay = { 0 }; /* configurations on x */
    for (size_t i = 0; i < a->n; i++)
        layout_x(&lay, a->rows[i].name);
    layout_key(&lay, "cells");
    layout_key(&lay, "flip-flops");
    layout_fit(&lay);
    histogram(o, name, sw->title, 0,
              "set logscale y 10\nset yrange [100:*]\nset ylabel 'Yosys generic cells, flip-flops'", 3, &lay);
    fprintf(o->md, "### Cells and flip-flops (Yosys)\n\n");
    md_image(o, name, "cells and flip-flops");
    fprintf(o->md, "| configuration | cells | flip-flops | synthesis (s) | settings |\n|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < a->n; i++)
        fprintf(o->md, "| %s | %.0f | %.0f | %.0f | `%s` |\n", a->rows[i].name, a->rows[i].cells, a->rows[i].flops,
                a->rows[i].seconds, a->rows[i].desc);
    fprintf(o->md, "\n%s\n\n", a->from_cache ? "(Kept from an earlier run of the script: `--area` runs it again.)" : "");
}

void plot_area(out_t *o, size_t s, int rerun)
{
    area_t a;
    int rc = run_area(&o->st->sw[s], o->dir, rerun, &a);
    if (rc < 0)
        o->failed = 1;
    area_table(o, s, &a);
    free(a.rows);
}
