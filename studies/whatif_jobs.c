/* whatif_jobs.c - etm-whatif's runs and workers: the plan (one run per workload
 * and distinct configuration, shared by the sweeps that have it), the work items
 * (a workload's runs in groups of LANES_PER_ITEM, the longest programs first),
 * and the JOBS worker processes, each running an item and handing its figures
 * back in a file of the work folder.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "whatif.h"

static size_t plan_run(plan_t *pl, size_t wl, const conf_t *c)
{
    char key[1024];
    conf_key(c, key, sizeof key);
    for (size_t i = 0; i < pl->nruns; i++)
        if (pl->runs[i].wl == wl && !strcmp(pl->runs[i].key, key))
            return i;
    pl->runs = (run_t *)xrealloc(pl->runs, (pl->nruns + 1) * sizeof *pl->runs);
    run_t *r = &pl->runs[pl->nruns];
    memset(r, 0, sizeof *r);
    r->wl = wl;
    r->c = c;
    copy(r->key, sizeof r->key, key);
    return pl->nruns++;
}

void make_plan(const study_t *st, plan_t *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->sweep_runs = (size_t **)xcalloc(st->nsw, sizeof *pl->sweep_runs);
    for (size_t s = 0; s < st->nsw; s++) {
        const sweep_t *sw = &st->sw[s];
        pl->sweep_runs[s] = (size_t *)xcalloc(sw->nconfs * sw->nwl, sizeof(size_t));
        for (size_t i = 0; i < sw->nconfs; i++)
            for (size_t j = 0; j < sw->nwl; j++)
                pl->sweep_runs[s][i * sw->nwl + j] = plan_run(pl, sw->wl[j], &sw->confs[i]);
    }
}

#define LANES_PER_ITEM 16

typedef struct item {
    size_t wl;
    size_t runs[LANES_PER_ITEM];
    size_t n;
} item_t;

/* Work items: each workload's runs in groups, the longest programs first. */
static item_t *make_items(const study_t *st, const plan_t *pl, size_t *nitems)
{
    static const char *const first[] = { "mix", "exceptions", "random", "fir", "fsm", NULL };
    size_t *order = (size_t *)xcalloc(st->nwl, sizeof *order), no = 0;
    for (int k = 0; first[k]; k++)
        for (size_t w = 0; w < st->nwl; w++)
            if (!strcmp(st->wl[w].name, first[k]))
                order[no++] = w;
    for (size_t w = 0; w < st->nwl; w++) {
        int seen = 0;
        for (size_t k = 0; k < no; k++)
            seen |= order[k] == w;
        if (!seen)
            order[no++] = w;
    }
    item_t *items = NULL;
    size_t n = 0;
    for (size_t k = 0; k < no; k++) {
        size_t w = order[k];
        item_t *cur = NULL;
        for (size_t r = 0; r < pl->nruns; r++) {
            if (pl->runs[r].wl != w)
                continue;
            if (!cur || cur->n == LANES_PER_ITEM) {
                items = (item_t *)xrealloc(items, (n + 1) * sizeof *items);
                cur = &items[n++];
                memset(cur, 0, sizeof *cur);
                cur->wl = w;
            }
            cur->runs[cur->n++] = r;
        }
    }
    free(order);
    *nitems = n;
    return items;
}

/* A run's figures as one line: its index, the counts, the packets by kind. */
static void print_run(FILE *f, size_t r, const metrics_t *m)
{
    fprintf(f, "%zu %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
               " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRIu64,
            r, m->cycles, m->held, m->instructions, m->bytes, m->port_bytes, m->port_cycles, m->overflows,
            m->bytes_lost, m->cycles_lost, m->fifofull_cycles, m->atoms, m->exceptions, m->untraceable,
            m->peak_level, m->peak_window);
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        fprintf(f, " %" PRIu64, m->packets[k]);
    fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", m->atb_wait, m->fmt_bytes, m->pin_bytes);
}

/* One work item, in a worker process: one line per run into f. */
static int run_item(const study_t *st, const plan_t *pl, const item_t *it, FILE *f)
{
    lane_t *lanes = (lane_t *)xcalloc(it->n, sizeof *lanes);
    char err[1024] = "";
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < it->n; i++)
        if (lane_open(&lanes[i], pl->runs[it->runs[i]].c, &st->wl[it->wl]) != 0) {
            copy(err, sizeof err, lanes[i].err);
            rc = -1;
        }
    if (rc == 0)
        rc = run_lanes(lanes, it->n, &st->wl[it->wl], err, sizeof err);
    for (size_t i = 0; rc == 0 && i < it->n; i++) {
        if (lanes[i].err[0]) {
            snprintf(err, sizeof err, "%s, %s: %s", st->wl[it->wl].name, lanes[i].c->label, lanes[i].err);
            rc = -1;
            break;
        }
        print_run(f, it->runs[i], &lanes[i].m);
    }
    for (size_t i = 0; i < it->n; i++)
        lane_close(&lanes[i]);
    free(lanes);
    if (rc)
        fprintf(stderr, "etm-whatif: %s\n", err);
    return rc;
}

/* Lines of print_run into the plan's runs ('#' lines are comments); 0, or -1
 * at a line that names no run of the plan. */
static int read_runs(plan_t *pl, FILE *f)
{
    char line[2048];
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        metrics_t m;
        memset(&m, 0, sizeof m);
        size_t r;
        char *s = line, *end;
        r = (size_t)strtoull(s, &end, 10);
        uint64_t *fields[] = { &m.cycles, &m.held, &m.instructions, &m.bytes, &m.port_bytes, &m.port_cycles,
                               &m.overflows, &m.bytes_lost, &m.cycles_lost, &m.fifofull_cycles, &m.atoms,
                               &m.exceptions, &m.untraceable };
        for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
            *fields[k] = strtoull(s = end, &end, 10);
        m.peak_level = (unsigned)strtoul(s = end, &end, 10);
        m.peak_window = strtoull(s = end, &end, 10);
        for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
            m.packets[k] = strtoull(s = end, &end, 10);
        m.atb_wait = strtoull(s = end, &end, 10);
        m.fmt_bytes = strtoull(s = end, &end, 10);
        m.pin_bytes = strtoull(s = end, &end, 10);
        if (r >= pl->nruns) {
            rc = -1;
            break;
        }
        pl->runs[r].m = m;
        pl->runs[r].done = 1;
    }
    return rc;
}

static int read_item_results(plan_t *pl, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int rc = read_runs(pl, f);
    fclose(f);
    return rc;
}

int write_shard(const plan_t *pl, const char *study, unsigned shard, unsigned nshards, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# etm-whatif shard %u/%u of %s: %zu runs in the plan\n", shard, nshards, study, pl->nruns);
    for (size_t r = 0; r < pl->nruns; r++)
        if (pl->runs[r].done)
            print_run(f, r, &pl->runs[r].m);
    return fclose(f) == 0 ? 0 : -1;
}

int read_shard(plan_t *pl, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read", path);
        return -1;
    }
    char head[512];
    size_t nruns = 0;
    const char *p = fgets(head, sizeof head, f) ? strstr(head, ": ") : NULL;
    if (!p || strncmp(head, "# etm-whatif shard ", 19) || sscanf(p, ": %zu runs", &nruns) != 1 ||
        nruns != pl->nruns) {
        snprintf(err, errlen, "%s: not a shard of this study (%zu runs in its plan, %zu here)", path, nruns,
                 pl->nruns);
        fclose(f);
        return -1;
    }
    int rc = read_runs(pl, f);
    fclose(f);
    if (rc)
        snprintf(err, errlen, "%s: a line names no run of this study", path);
    return rc;
}

/* Run every item in up to `jobs` worker processes. */
int run_all(const study_t *st, plan_t *pl, const char *workdir, unsigned jobs, int quiet, unsigned shard,
            unsigned nshards)
{
    size_t nitems;
    item_t *items = make_items(st, pl, &nitems);
    /* A shard runs every nshards-th work item, from its own. */
    unsigned char *want = (unsigned char *)xcalloc(pl->nruns ? pl->nruns : 1, 1);
    size_t kept = 0;
    for (size_t k = 0; k < nitems; k++)
        if (nshards <= 1 || k % nshards == shard) {
            for (size_t i = 0; i < items[k].n; i++)
                want[items[k].runs[i]] = 1;
            items[kept++] = items[k];
        }
    nitems = kept;
    pid_t *pids = (pid_t *)xcalloc(jobs, sizeof *pids);
    size_t *which = (size_t *)xcalloc(jobs, sizeof *which);
    size_t next = 0, done = 0;
    int failed = 0;
    char path[2048];
    fflush(NULL);
    while (done < nitems) {
        for (unsigned j = 0; j < jobs && next < nitems && !failed; j++) {
            if (pids[j])
                continue;
            snprintf(path, sizeof path, "%s/item-%zu.txt", workdir, next);
            pid_t pid = fork();
            if (pid < 0) {
                fprintf(stderr, "etm-whatif: fork: %s\n", strerror(errno));
                failed = 1;
                break;
            }
            if (pid == 0) {
                FILE *f = fopen(path, "w");
                if (!f) {
                    fprintf(stderr, "etm-whatif: %s: cannot write\n", path);
                    _exit(2);
                }
                int rc = run_item(st, pl, &items[next], f);
                _exit(fclose(f) == 0 && rc == 0 ? 0 : 2);
            }
            pids[j] = pid;
            which[j] = next++;
        }
        int status;
        pid_t pid = wait(&status);
        if (pid < 0)
            break;
        for (unsigned j = 0; j < jobs; j++) {
            if (pids[j] != pid)
                continue;
            pids[j] = 0;
            done++;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                failed = 1;
            } else {
                snprintf(path, sizeof path, "%s/item-%zu.txt", workdir, which[j]);
                if (read_item_results(pl, path) != 0) {
                    fprintf(stderr, "etm-whatif: %s: unreadable results\n", path);
                    failed = 1;
                }
                remove(path);
                if (!quiet)
                    fprintf(stderr, "\retm-whatif: %zu of %zu work items done", done, nitems);
            }
        }
        if (failed && next < nitems)
            nitems = next; /* start nothing more; wait for the running ones */
    }
    if (!quiet)
        fprintf(stderr, "\n");
    free(pids);
    free(which);
    free(items);
    for (size_t r = 0; !failed && r < pl->nruns; r++)
        if (want[r] && !pl->runs[r].done)
            failed = 1;
    free(want);
    return failed ? -1 : 0;
}
