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
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "etm/cm3.h"
#include "etm/etm.h"
#include "etm/stim.h"
#include "qrec.h"

/* ---- Small helpers ------------------------------------------------------------- */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "etm-whatif: out of memory\n");
        exit(2);
    }
    return p;
}

static void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p) {
        fprintf(stderr, "etm-whatif: out of memory\n");
        exit(2);
    }
    return p;
}

static void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src);
}

/* ---- Configurations ---------------------------------------------------------------- */

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
    etm_config_t cfg;       /* PORT_BYTES=0 with an external port */
    port_t port;
    unsigned stall;         /* ETMFFLR with ETMCR[7]; 0: no stall */
    unsigned issue;         /* generator issue width */
    etm_cm3_params_t params;
} conf_t;

static const char *const kPortModes[] = { "full", "half", "quarter", "ddr", "half-ddr", NULL };

static int parse_port(const char *s, port_t *p)
{
    memset(p, 0, sizeof *p);
    if (!strcmp(s, "internal"))
        return 1;
    if ((s[0] != '1' && s[0] != '2' && s[0] != '4') || s[1] != ':')
        return 0;
    p->width = (unsigned)(s[0] - '0');
    const char *m = s + 2;
    static const unsigned div[] = { 1, 2, 4, 1, 2 }, ddr[] = { 0, 0, 0, 1, 1 };
    for (int i = 0; kPortModes[i]; i++)
        if (!strcmp(m, kPortModes[i])) {
            p->div = div[i];
            p->ddr = ddr[i];
            return 1;
        }
    return 0;
}

static void port_text(const port_t *p, char *buf, size_t size)
{
    if (!p->width) {
        copy(buf, size, "internal");
        return;
    }
    const char *m = p->ddr ? (p->div == 1 ? "ddr" : "half-ddr") : p->div == 1 ? "full" : p->div == 2 ? "half" : "quarter";
    snprintf(buf, size, "%u:%s", p->width, m);
}

/* Bytes the port can move per core cycle. */
static double capacity(const conf_t *c)
{
    if (!c->port.width)
        return c->cfg.port_bytes;
    return (double)c->port.width * (c->port.ddr ? 2 : 1) / c->port.div;
}

static unsigned version_of(const etm_config_t *cfg)
{
    unsigned v = 0;
    etm_config_version(cfg, &v, NULL);
    return v;
}

/* The timing parameters that differ from the defaults, "default" if none. */
static void timing_text(const etm_cm3_params_t *p, char *buf, size_t size)
{
    etm_cm3_params_t d;
    etm_cm3_params_default(&d);
    size_t n = 0;
    buf[0] = 0;
    const char *name, *doc;
    unsigned v, dv;
    for (unsigned i = 0; etm_cm3_param_get(p, i, &name, &doc, &v); i++) {
        etm_cm3_param_get(&d, i, &name, &doc, &dv);
        if (v != dv && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s=%u", n ? ";" : "", name, v);
    }
    if (!buf[0])
        copy(buf, size, "default");
}

/* A key that is equal for two configurations exactly when they run the same. */
static void conf_key(const conf_t *c, char *buf, size_t size)
{
    char t[256], pt[32];
    timing_text(&c->params, t, sizeof t);
    port_text(&c->port, pt, sizeof pt);
    size_t n = (size_t)snprintf(buf, size, "%s|%u|%u|%s|", pt, c->stall, c->issue, t);
    for (size_t r = 0; r < etm_register_count && n < size; r++)
        for (unsigned k = 0; k < etm_registers[r].count && n < size; k++)
            n += (size_t)snprintf(buf + n, size - n, "%x,", etm_register_get(&c->cfg, &etm_registers[r], k));
}

/* Apply one KEY=VALUE setting of a study file or the command line. Returns 0, or
 * -1 with a sentence in err. */
static int apply_setting(conf_t *c, const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        snprintf(err, errlen, "'%s' is not KEY=VALUE", kv);
        return -1;
    }
    char key[64];
    size_t kl = (size_t)(eq - kv);
    if (kl >= sizeof key) {
        snprintf(err, errlen, "key too long in '%s'", kv);
        return -1;
    }
    memcpy(key, kv, kl);
    key[kl] = 0;
    const char *val = eq + 1;
    char *end = NULL;
    unsigned long num = strtoul(val, &end, 0);
    int is_num = *val && end && !*end;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (!strcmp(key, "preset")) {
        if (etm_config_preset(&c->cfg, val) != ETM_OK) {
            snprintf(err, errlen, "unknown preset '%s'", val);
            return -1;
        }
    } else if (!strcmp(key, "ca") || !strcmp(key, "bb")) {
        uint32_t bit = key[0] == 'c' ? ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE) : ETM_FIELD_MASK(ETM_CR_BRANCH_OUTPUT);
        if (!is_num || num > 1) {
            snprintf(err, errlen, "%s wants 0 or 1", key);
            return -1;
        }
        c->cfg.etmcr = num ? c->cfg.etmcr | bit : c->cfg.etmcr & ~bit;
    } else if (!strcmp(key, "port")) {
        if (!parse_port(val, &c->port)) {
            snprintf(err, errlen, "port=%s: want internal or WIDTH:MODE (WIDTH 1, 2, 4; MODE full, half, quarter, "
                     "ddr, half-ddr)", val);
            return -1;
        }
    } else if (!strcmp(key, "stall")) {
        if (!is_num || num > 255) {
            snprintf(err, errlen, "stall wants an ETMFFLR of 1 to 255, or 0 for none");
            return -1;
        }
        c->stall = (unsigned)num;
    } else if (!strcmp(key, "issue")) {
        if (!is_num || num < 1 || num > 2) {
            snprintf(err, errlen, "issue wants 1 or 2");
            return -1;
        }
        c->issue = (unsigned)num;
    } else if (!strncmp(key, "param.", 6)) {
        if (!is_num || etm_cm3_param_set(&c->params, key + 6, (unsigned)num, &d) != ETM_OK) {
            snprintf(err, errlen, "%s: %s", kv, d.msg[0] ? d.msg : "wants a number");
            return -1;
        }
    } else {
        /* A register or model parameter: decimal or 0x hex. */
        char line[128];
        if (is_num)
            snprintf(line, sizeof line, "%s=0x%lx", key, num);
        else
            copy(line, sizeof line, kv);
        if (etm_config_parse_line(&c->cfg, line, NULL, NULL, &d) != ETM_OK) {
            snprintf(err, errlen, "%s: %s", kv, d.msg);
            return -1;
        }
    }
    return 0;
}

static void conf_default(conf_t *c)
{
    memset(c, 0, sizeof *c);
    etm_config_default(&c->cfg);
    etm_cm3_params_default(&c->params);
    c->issue = 1;
}

/* The configuration as the model runs it: an external port means PORT_BYTES=0,
 * a stall sets ETMCR[7] and ETMFFLR, dual issue sets ISSUE_WIDTH. */
static int conf_finish(conf_t *c, char *err, size_t errlen)
{
    if (c->port.width)
        c->cfg.port_bytes = 0;
    if (c->stall) {
        c->cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_STALL);
        c->cfg.etmfflr = c->stall;
    }
    if (c->issue == 2)
        c->cfg.issue_width = 2;
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_ctx_t *ctx;
    if (etm_create(&ctx, &c->cfg, &d) != ETM_OK) {
        snprintf(err, errlen, "the ETM refuses this configuration: %s", d.msg);
        return -1;
    }
    etm_destroy(ctx);
    if (c->port.width && ETM_V_MAJOR(version_of(&c->cfg)) != 3) {
        snprintf(err, errlen, "an external port (port=%u:...) needs ETMv3; ETMv1's port runs at the core clock",
                 c->port.width);
        return -1;
    }
    return 0;
}

/* ---- Workloads ------------------------------------------------------------------------ */

typedef struct workload {
    char name[256];   /* a program (etm-qemu list), an ELF path, or "random" */
    int random;
    uint64_t seed, cycles;
} workload_t;

/* "random" or "random:SEED:CYCLES"; anything else is a program. */
static int parse_workload(const char *s, workload_t *w, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    copy(w->name, sizeof w->name, s);
    if (strncmp(s, "random", 6) != 0 || (s[6] && s[6] != ':'))
        return 0;
    w->random = 1;
    w->seed = 1;
    w->cycles = 1000000;
    copy(w->name, sizeof w->name, "random");
    if (!s[6])
        return 0;
    char *end;
    w->seed = strtoull(s + 7, &end, 0);
    if (*end != ':' || !end[1]) {
        snprintf(err, errlen, "'%s': want random or random:SEED:CYCLES", s);
        return -1;
    }
    w->cycles = strtoull(end + 1, &end, 0);
    if (*end || !w->cycles) {
        snprintf(err, errlen, "'%s': want random or random:SEED:CYCLES", s);
        return -1;
    }
    return 0;
}

/* ---- One configuration on one workload: a lane ------------------------------------------ */

typedef struct metrics {
    uint64_t cycles, held, instructions, bytes, port_bytes, port_cycles, overflows, bytes_lost, cycles_lost;
    uint64_t fifofull_cycles, atoms, exceptions, untraceable;
    uint64_t packets[ETM_PKT_KIND_COUNT];
    unsigned peak_level;
    uint64_t peak_window; /* most bytes that entered the FIFO in WINDOW consecutive cycles */
} metrics_t;

#define WINDOW 1024u

typedef struct lane {
    const conf_t *c;
    etm_ctx_t *etm;
    etm_cm3_t *cm3;   /* a program: its own timing model */
    etm_stim_t *stim; /* random stimulus */
    etm_out_t out;
    uint64_t n;       /* cycles stepped */
    uint64_t last_bytes, win_sum;
    uint16_t win[WINDOW];
    metrics_t m;
    char err[512];
} lane_t;

/* Port edges (external port) before the time T, in units of 2.5 ns: edges at
 * 3 + k * s, s = 4 * div / (ddr ? 2 : 1). */
static uint64_t edges_before(const port_t *p, uint64_t t)
{
    uint64_t s = 4u * p->div / (p->ddr ? 2u : 1u);
    return t > 3 ? (t - 3 + s - 1) / s : 0;
}

/* The external port's edges between the rising edges of cycles n-1 and n (at
 * 4 (n + 1) and 4 (n + 2)): the port takes before the step. */
static void port_edges(lane_t *L, uint64_t n)
{
    const port_t *p = &L->c->port;
    uint64_t k = edges_before(p, 4 * (n + 2)) - edges_before(p, 4 * (n + 1));
    uint8_t buf[8];
    for (uint64_t i = 0; i < k; i++)
        etm_port_take(L->etm, buf, p->width);
}

static int lane_open(lane_t *L, const conf_t *c, const workload_t *w)
{
    memset(L, 0, sizeof *L);
    L->c = c;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_create(&L->etm, &c->cfg, &d) != ETM_OK) {
        snprintf(L->err, sizeof L->err, "%s: configuration: %s", c->label, d.msg);
        return -1;
    }
    if (w->random) {
        etm_gen_params_t gp;
        etm_gen_params_default(&gp);
        gp.seed = w->seed;
        gp.issue_width = c->issue;
        if (etm_stim_open_gen(&L->stim, &gp, w->cycles, &d) != ETM_OK) {
            snprintf(L->err, sizeof L->err, "random stimulus: %s", d.msg);
            return -1;
        }
    } else if (etm_cm3_create(&L->cm3, &c->params, &d) != ETM_OK) {
        snprintf(L->err, sizeof L->err, "%s: timing model: %s", c->label, d.msg);
        return -1;
    }
    return 0;
}

static void lane_close(lane_t *L)
{
    if (L->etm)
        etm_destroy(L->etm);
    if (L->cm3)
        etm_cm3_free(L->cm3);
    if (L->stim)
        etm_stim_close(L->stim);
    L->etm = NULL;
    L->cm3 = NULL;
    L->stim = NULL;
}

/* One core cycle. */
static void lane_step(lane_t *L, const etm_in_t *in)
{
    if (L->c->port.width)
        port_edges(L, L->n);
    if (etm_step(L->etm, in, &L->out) == ETM_ERR_RULE && !L->err[0]) {
        etm_rule_t r;
        etm_last_rules(L->etm, &r, 1);
        snprintf(L->err, sizeof L->err, "cycle %" PRIu64 ": the stimulus broke interface rule %s", L->n,
                 etm_rule_name(r));
    }
    if (L->out.fifo_level > L->m.peak_level)
        L->m.peak_level = L->out.fifo_level;
    uint64_t b = etm_get_stats(L->etm)->bytes, now = b - L->last_bytes;
    L->last_bytes = b;
    unsigned slot = (unsigned)(L->n % WINDOW);
    L->win_sum += now - L->win[slot];
    L->win[slot] = (uint16_t)now;
    if (L->win_sum > L->m.peak_window)
        L->m.peak_window = L->win_sum;
    L->n++;
}

/* The cycles the timing model has for the instructions put so far, the core held
 * while FIFOFULL is 1 (the loop of docs/cm3-timing.md). */
static void lane_cycles(lane_t *L)
{
    etm_in_t in;
    for (;;) {
        if (L->out.fifofull)
            etm_cm3_stall(L->cm3);
        if (etm_cm3_cycle(L->cm3, &in, NULL, NULL) != ETM_OK)
            break;
        lane_step(L, &in);
    }
}

/* Random stimulus: the whole run. */
static void lane_run_random(lane_t *L)
{
    etm_in_t in;
    etm_diag_t d;
    etm_diag_clear(&d);
    while (etm_stim_next(L->stim, L->out.fifofull, &in, &d) == ETM_OK)
        lane_step(L, &in);
}

/* End of trace, the FIFO emptied, the figures taken. */
static void lane_end(lane_t *L)
{
    etm_end(L->etm);
    uint64_t t = L->n;
    etm_out_t o;
    if (L->c->port.width) {
        while (etm_fifo_level(L->etm))
            port_edges(L, t++);
    } else {
        while (etm_drain(L->etm, &o) == ETM_OK)
            t++;
    }
    const etm_stats_t *st = etm_get_stats(L->etm);
    metrics_t *m = &L->m;
    m->cycles = L->n;
    m->held = L->cm3 ? etm_cm3_get_stats(L->cm3)->held_cycles : etm_stim_get_stats(L->stim)->held;
    m->instructions = st->instructions;
    m->bytes = st->bytes;
    m->port_bytes = st->port_bytes;
    m->port_cycles = t;
    m->overflows = st->overflows;
    m->bytes_lost = st->bytes_lost;
    m->cycles_lost = st->cycles_lost;
    m->fifofull_cycles = st->fifofull_cycles;
    m->atoms = st->atoms;
    m->exceptions = st->exceptions;
    m->untraceable = st->untraceable;
    memcpy(m->packets, st->packets, sizeof m->packets);
}

/* Every lane on one workload. A program runs once under QEMU; each of its
 * executed instructions goes to every lane's timing model in turn. Returns 0, or
 * -1 with a message in err. */
static int run_lanes(lane_t *lanes, size_t n, const workload_t *w, char *err, size_t errlen)
{
    if (w->random) {
        for (size_t i = 0; i < n; i++) {
            lane_run_random(&lanes[i]);
            lane_end(&lanes[i]);
        }
        return 0;
    }
    qrec_source_opts_t so;
    memset(&so, 0, sizeof so);
    so.workload_dir = ETM_WORKLOAD_DIR;
    so.qemu.qemu = ETM_QEMU_BIN;
    so.qemu.plugin = ETM_QEMU_PLUGIN;
    so.qemu.icount_shift = 3;
    qrec_source_t src;
    if (qrec_source_open(&src, &so, w->name, err, errlen) != 0)
        return -1;
    etm_cm3_insn_t r;
    etm_diag_t d;
    etm_diag_clear(&d);
    int k, bad = 0;
    while (!bad && (k = qrec_next(src.q, &r)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (etm_cm3_put(lanes[i].cm3, &r, &d) != ETM_OK) {
                snprintf(err, errlen, "%s: timing model: %s", w->name, d.msg);
                bad = 1;
                break;
            }
            lane_cycles(&lanes[i]);
        }
    }
    if (!bad && k < 0) {
        snprintf(err, errlen, "%s: %s", w->name, qrec_error(src.q));
        bad = 1;
    }
    char qerr[512] = "";
    int status = qrec_source_close(&src, qerr, sizeof qerr);
    if (bad)
        return -1;
    if (status != 0) {
        snprintf(err, errlen, "%s: %s", w->name,
                 status < 0 ? qerr : "the program reported a failure of its own checks (QEMU exit status not 0)");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        etm_cm3_finish(lanes[i].cm3);
        lane_cycles(&lanes[i]);
        lane_end(&lanes[i]);
    }
    return 0;
}

/* ---- Figures -------------------------------------------------------------------------------- */

typedef struct metric {
    const char *name;   /* in study files and CSV */
    const char *axis;   /* axis label */
    int decimals;       /* in tables */
    int ratio;          /* a rate: the report compares configurations by ratio */
} metric_t;

static const metric_t kMetrics[] = {
    { "bits_per_insn", "bits per instruction", 3, 1 },
    { "bytes_per_cycle", "trace bytes per core cycle", 3, 1 },
    { "peak_rate", "trace bytes per core cycle, busiest 1024 cycles", 3, 1 },
    { "overflows", "FIFO overflows", 0, 0 },
    { "lost_pct", "trace bytes lost to overflows (%)", 2, 0 },
    { "held_pct", "core cycles held on FIFOFULL (% of the unheld run)", 2, 0 },
    { "cpi", "core cycles per instruction", 3, 1 },
    { "peak_level", "FIFO peak (bytes)", 0, 0 },
    { "utilisation", "port bytes used (% of the port's capacity)", 1, 0 },
    { NULL, NULL, 0, 0 },
};

static const metric_t *find_metric(const char *name)
{
    for (int i = 0; kMetrics[i].name; i++)
        if (!strcmp(kMetrics[i].name, name))
            return &kMetrics[i];
    return NULL;
}

/* ETMv1 sends PIPESTAT (3 bits) every cycle besides the packet bytes. */
static double metric_value(const char *name, const metrics_t *m, const conf_t *c)
{
    double insn = m->instructions ? (double)m->instructions : 1, cyc = m->cycles ? (double)m->cycles : 1;
    int v1 = ETM_V_MAJOR(version_of(&c->cfg)) == 1;
    if (!strcmp(name, "bits_per_insn"))
        return (8.0 * (double)m->bytes + (v1 ? 3.0 * (double)m->cycles : 0)) / insn;
    if (!strcmp(name, "bytes_per_cycle"))
        return (double)m->bytes / cyc;
    if (!strcmp(name, "peak_rate"))
        return (double)m->peak_window / WINDOW;
    if (!strcmp(name, "overflows"))
        return (double)m->overflows;
    if (!strcmp(name, "lost_pct"))
        return m->bytes + m->bytes_lost ? 100.0 * (double)m->bytes_lost / (double)(m->bytes + m->bytes_lost) : 0;
    if (!strcmp(name, "held_pct"))
        return m->cycles > m->held ? 100.0 * (double)m->held / (double)(m->cycles - m->held) : 0;
    if (!strcmp(name, "cpi"))
        return (double)m->cycles / insn;
    if (!strcmp(name, "peak_level"))
        return m->peak_level;
    if (!strcmp(name, "utilisation")) {
        double cap = capacity(c) * (double)(m->port_cycles ? m->port_cycles : 1);
        return cap > 0 ? 100.0 * (double)m->port_bytes / cap : 0;
    }
    return 0;
}

/* Short names of the packet kinds (CSV columns, plot keys). */
static const char *const kPktShort[ETM_PKT_KIND_COUNT] = {
    "f1", "f2", "f3", "f4", "branch", "branch_exc", "async", "isync", "isync_cc", "cycle_count", "trigger",
    "exc_return", "ignore"
};

/* ---- Study files ---------------------------------------------------------------------------- */

typedef enum plot_kind { PLOT_BARS, PLOT_LINES, PLOT_PACKETS, PLOT_RATE, PLOT_AREA } plot_kind_t;
static const char *const kPlotKinds[] = { "bars", "lines", "packets", "rate", "area", NULL };

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

typedef struct parser {
    const char *path;
    unsigned long line;
    char err[512];
} parser_t;

static int perr(parser_t *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int perr(parser_t *p, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, sizeof p->err, "%s:%lu: %s", p->path, p->line, msg);
    return -1;
}

/* Split a line into tokens: blanks separate, "double quotes" group, '#' starts a
 * comment outside quotes. Returns the number of tokens, -1 for an open quote. */
static int tokenize(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        if (!*s || *s == '#')
            return n;
        if (n == max)
            return n;
        if (*s == '"') {
            tok[n++] = ++s;
            while (*s && *s != '"')
                s++;
            if (!*s)
                return -1;
            *s++ = 0;
        } else {
            tok[n++] = s;
            while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
                s++;
            if (*s)
                *s++ = 0;
        }
    }
}

static void append_text(char **dst, const char *words)
{
    size_t old = *dst ? strlen(*dst) : 0;
    *dst = (char *)xrealloc(*dst, old + strlen(words) + 2);
    if (old)
        (*dst)[old++] = ' ';
    strcpy(*dst + old, words);
}

/* The rest of the line after the directive, as written. */
static const char *rest_of(const char *line, const char *directive)
{
    const char *s = strstr(line, directive) + strlen(directive);
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int add_conf(parser_t *p, sweep_t *sw, const char *label, char **kv, int nkv, const char *vary_value)
{
    conf_t c = sw->base;
    copy(c.label, sizeof c.label, label);
    char err[400];
    for (int i = 0; i < nkv; i++)
        if (apply_setting(&c, kv[i], err, sizeof err) != 0)
            return perr(p, "%s", err);
    if (vary_value) {
        char kvbuf[128];
        snprintf(kvbuf, sizeof kvbuf, "%s=%s", sw->vary, vary_value);
        if (apply_setting(&c, kvbuf, err, sizeof err) != 0)
            return perr(p, "%s", err);
    }
    if (conf_finish(&c, err, sizeof err) != 0)
        return perr(p, "configuration \"%s\": %s", label, err);
    if (vary_value) {
        c.has_x = 1;
        if (!strcmp(sw->vary, "port"))
            c.x = capacity(&c);
        else
            c.x = strtod(vary_value, NULL);
    }
    sw->confs = (conf_t *)xrealloc(sw->confs, (sw->nconfs + 1) * sizeof *sw->confs);
    sw->confs[sw->nconfs++] = c;
    return 0;
}

static int find_workload(study_t *st, const char *name, parser_t *p, size_t *idx)
{
    workload_t w;
    char err[300];
    if (parse_workload(name, &w, err, sizeof err) != 0)
        return perr(p, "%s", err);
    for (size_t i = 0; i < st->nwl; i++)
        if (!strcmp(st->wl[i].name, w.name) && st->wl[i].seed == w.seed && st->wl[i].cycles == w.cycles) {
            *idx = i;
            return 0;
        }
    st->wl = (workload_t *)xrealloc(st->wl, (st->nwl + 1) * sizeof *st->wl);
    st->wl[st->nwl] = w;
    *idx = st->nwl++;
    return 0;
}

static int parse_study(study_t *st, const char *path, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    st->path = path;
    parser_t p = { path, 0, "" };
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open the study file", path);
        return -1;
    }
    char line[4096], buf[4096];
    sweep_t *sw = NULL;
    size_t *study_wl = NULL, nstudy_wl = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        p.line++;
        if (!strchr(line, '\n') && !feof(f)) {
            rc = perr(&p, "line too long (more than %zu characters)", sizeof line - 2);
            break;
        }
        copy(buf, sizeof buf, line);
        char *tok[256];
        int n = tokenize(buf, tok, 256);
        if (n < 0) {
            rc = perr(&p, "a quote is not closed");
            break;
        }
        if (n == 0)
            continue;
        const char *d = tok[0];
        if (!strcmp(d, "title") || !strcmp(d, "text")) {
            const char *r = rest_of(line, d);
            char t[4096];
            copy(t, sizeof t, r);
            t[strcspn(t, "\r\n")] = 0;
            if (!t[0]) {
                rc = perr(&p, "%s needs some words", d);
            } else if (d[1] == 'i') {
                copy(sw ? sw->title : st->title, sizeof st->title, t);
            } else {
                append_text(sw ? &sw->notes : &st->intro, t);
            }
        } else if (!strcmp(d, "workloads")) {
            if (n < 2) {
                rc = perr(&p, "workloads needs at least one name");
                break;
            }
            for (int i = 1; rc == 0 && i < n; i++) {
                size_t idx = 0;
                rc = find_workload(st, tok[i], &p, &idx);
                if (rc)
                    break;
                size_t **list = sw ? &sw->wl : &study_wl;
                size_t *count = sw ? &sw->nwl : &nstudy_wl;
                *list = (size_t *)xrealloc(*list, (*count + 1) * sizeof **list);
                (*list)[(*count)++] = idx;
            }
            if (sw)
                sw->wl_given = 1;
        } else if (!strcmp(d, "sweep")) {
            if (n != 2) {
                rc = perr(&p, "sweep wants one name");
                break;
            }
            for (const char *c = tok[1]; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-')) {
                    rc = perr(&p, "sweep name '%s': use a-z, 0-9, '_' and '-' (it names files)", tok[1]);
                    break;
                }
            for (size_t i = 0; rc == 0 && i < st->nsw; i++)
                if (!strcmp(st->sw[i].name, tok[1]))
                    rc = perr(&p, "sweep '%s' is defined twice (first on line %lu)", tok[1], st->sw[i].line);
            if (rc)
                break;
            st->sw = (sweep_t *)xrealloc(st->sw, (st->nsw + 1) * sizeof *st->sw);
            sw = &st->sw[st->nsw++];
            memset(sw, 0, sizeof *sw);
            copy(sw->name, sizeof sw->name, tok[1]);
            copy(sw->title, sizeof sw->title, tok[1]);
            conf_default(&sw->base);
            sw->line = p.line;
        } else if (!sw) {
            rc = perr(&p, "'%s' belongs inside a sweep (a line 'sweep NAME' first)", d);
        } else if (!strcmp(d, "base")) {
            if (sw->nconfs) {
                rc = perr(&p, "base must come before the sweep's configurations");
                break;
            }
            char e[400];
            for (int i = 1; rc == 0 && i < n; i++)
                if (apply_setting(&sw->base, tok[i], e, sizeof e) != 0)
                    rc = perr(&p, "%s", e);
        } else if (!strcmp(d, "config")) {
            if (n < 2)
                rc = perr(&p, "config wants a label, then KEY=VALUE settings");
            else
                rc = add_conf(&p, sw, tok[1], tok + 2, n - 2, NULL);
        } else if (!strcmp(d, "vary")) {
            if (n < 3) {
                rc = perr(&p, "vary wants a key and its values: vary FIFO_DEPTH 24 32 64");
                break;
            }
            if (sw->vary[0]) {
                rc = perr(&p, "a sweep varies one key");
                break;
            }
            copy(sw->vary, sizeof sw->vary, tok[1]);
            for (int i = 2; rc == 0 && i < n; i++) {
                char label[96];
                snprintf(label, sizeof label, "%s=%s", tok[1], tok[i]);
                rc = add_conf(&p, sw, label, NULL, 0, tok[i]);
            }
        } else if (!strcmp(d, "plot")) {
            if (n < 2 || n > 5) {
                rc = perr(&p, "plot wants a kind (bars, lines, packets, rate, area) and a metric");
                break;
            }
            if (sw->nplots == MAX_PLOTS) {
                rc = perr(&p, "at most %d plots per sweep", MAX_PLOTS);
                break;
            }
            plot_t *pl = &sw->plots[sw->nplots];
            memset(pl, 0, sizeof *pl);
            int k = 0;
            while (kPlotKinds[k] && strcmp(kPlotKinds[k], tok[1]))
                k++;
            if (!kPlotKinds[k]) {
                rc = perr(&p, "unknown plot kind '%s' (bars, lines, packets, rate, area)", tok[1]);
                break;
            }
            pl->kind = (plot_kind_t)k;
            int need_metric = pl->kind == PLOT_BARS || pl->kind == PLOT_LINES;
            if (need_metric && n < 3) {
                rc = perr(&p, "plot %s wants a metric", tok[1]);
                break;
            }
            if (n >= 3) {
                if (!find_metric(tok[2])) {
                    char names[512] = "";
                    for (int i = 0; kMetrics[i].name; i++)
                        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                                 kMetrics[i].name);
                    rc = perr(&p, "unknown metric '%s' (%s)", tok[2], names);
                    break;
                }
                copy(pl->metric, sizeof pl->metric, tok[2]);
            }
            for (int k2 = 3; rc == 0 && k2 < n; k2++) {
                if (!strcmp(tok[k2], "logx"))
                    pl->logx = 1;
                else if (!strcmp(tok[k2], "logy"))
                    pl->logy = 1;
                else
                    rc = perr(&p, "'%s': plot options are logx and logy", tok[k2]);
            }
            if (rc)
                break;
            sw->nplots++;
        } else if (!strcmp(d, "refs")) {
            for (int i = 1; rc == 0 && i < n; i++) {
                if (sw->nrefs == MAX_REFS || !parse_port(tok[i], &sw->refs[sw->nrefs]) || !sw->refs[sw->nrefs].width)
                    rc = perr(&p, "refs wants up to %d ports WIDTH:MODE ('%s')", MAX_REFS, tok[i]);
                else
                    sw->nrefs++;
            }
        } else if (!strcmp(d, "area")) {
            if (n != 2) {
                rc = perr(&p, "area wants the synthesis script (scripts/yosys-area)");
                break;
            }
            copy(sw->area_script, sizeof sw->area_script, tok[1]);
        } else {
            rc = perr(&p, "unknown directive '%s' (title, text, workloads, sweep, base, config, vary, plot, refs, "
                          "area)", d);
        }
    }
    fclose(f);
    if (rc == 0 && !st->nsw) {
        p.line = 0;
        snprintf(p.err, sizeof p.err, "%s: no sweep", path);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < st->nsw; i++) {
        sweep_t *s = &st->sw[i];
        p.line = s->line;
        if (!s->wl_given) {
            s->wl = (size_t *)xcalloc(nstudy_wl, sizeof *s->wl);
            memcpy(s->wl, study_wl, nstudy_wl * sizeof *s->wl);
            s->nwl = nstudy_wl;
        }
        if (!s->area_script[0] && (!s->nconfs || !s->nwl))
            rc = perr(&p, "sweep '%s' has no %s", s->name, s->nconfs ? "workloads" : "configurations");
        else if (!s->nplots)
            rc = perr(&p, "sweep '%s' has no plot", s->name);
        for (int k = 0; rc == 0 && k < s->nplots; k++) {
            if (s->plots[k].kind == PLOT_LINES && !s->vary[0])
                rc = perr(&p, "sweep '%s': a lines plot needs a vary line (its x axis)", s->name);
            if ((s->plots[k].kind == PLOT_AREA) != (s->area_script[0] != 0))
                rc = perr(&p, "sweep '%s': area plots go with an area line, and only with it", s->name);
        }
    }
    free(study_wl);
    if (rc)
        copy(err, errlen, p.err);
    return rc;
}

/* ---- Runs, work items and workers ------------------------------------------------------------ */

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

static void make_plan(const study_t *st, plan_t *pl)
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
        const metrics_t *m = &lanes[i].m;
        fprintf(f, "%zu %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                   " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %" PRIu64,
                it->runs[i], m->cycles, m->held, m->instructions, m->bytes, m->port_bytes, m->port_cycles,
                m->overflows, m->bytes_lost, m->cycles_lost, m->fifofull_cycles, m->atoms, m->exceptions,
                m->untraceable, m->peak_level, m->peak_window);
        for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
            fprintf(f, " %" PRIu64, m->packets[k]);
        fprintf(f, "\n");
    }
    for (size_t i = 0; i < it->n; i++)
        lane_close(&lanes[i]);
    free(lanes);
    if (rc)
        fprintf(stderr, "etm-whatif: %s\n", err);
    return rc;
}

static int read_item_results(plan_t *pl, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[2048];
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
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
        if (r >= pl->nruns) {
            rc = -1;
            break;
        }
        pl->runs[r].m = m;
        pl->runs[r].done = 1;
    }
    fclose(f);
    return rc;
}

/* Run every item in up to `jobs` worker processes. */
static int run_all(const study_t *st, plan_t *pl, const char *workdir, unsigned jobs, int quiet)
{
    size_t nitems;
    item_t *items = make_items(st, pl, &nitems);
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
        if (!pl->runs[r].done)
            failed = 1;
    return failed ? -1 : 0;
}

/* ---- Results: CSV ------------------------------------------------------------------------------ */

/* A CSV field, quoted when it needs to be. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void version_text(const etm_config_t *cfg, char *buf, size_t size)
{
    unsigned v = version_of(cfg);
    snprintf(buf, size, "%u.%u", ETM_V_MAJOR(v), ETM_V_MINOR(v));
}

static const char *const kCsvMetrics[] = { "bits_per_insn", "bytes_per_cycle", "peak_rate", "lost_pct", "held_pct",
                                           "cpi", "utilisation", NULL };

static int write_csv(const study_t *st, const plan_t *pl, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "sweep,config,workload,x,version,ca,bb,etmcr,fifo_depth,port,capacity,stall,issue_width,timing,"
               "cycles,held,instructions,bytes,port_bytes,port_cycles,overflows,bytes_lost,cycles_lost,"
               "fifofull_cycles,atoms,exceptions,untraceable,peak_level,peak_window");
    for (int k = 0; kCsvMetrics[k]; k++)
        fprintf(f, ",%s", kCsvMetrics[k]);
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        fprintf(f, ",pkt_%s", kPktShort[k]);
    fprintf(f, "\n");
    for (size_t s = 0; s < st->nsw; s++) {
        const sweep_t *sw = &st->sw[s];
        for (size_t i = 0; i < sw->nconfs; i++)
            for (size_t j = 0; j < sw->nwl; j++) {
                const conf_t *c = &sw->confs[i];
                const metrics_t *m = &pl->runs[pl->sweep_runs[s][i * sw->nwl + j]].m;
                char ver[16], pt[32], t[256], x[32];
                version_text(&c->cfg, ver, sizeof ver);
                port_text(&c->port, pt, sizeof pt);
                timing_text(&c->params, t, sizeof t);
                if (c->has_x)
                    snprintf(x, sizeof x, "%g", c->x);
                else
                    x[0] = 0;
                csv_field(f, sw->name);
                fputc(',', f);
                csv_field(f, c->label);
                fputc(',', f);
                csv_field(f, st->wl[sw->wl[j]].name);
                fprintf(f, ",%s,%s,%u,%u,0x%x,%u,%s,%g,%u,%u,", x, ver, !!(c->cfg.etmcr & ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE)),
                        !!(c->cfg.etmcr & ETM_FIELD_MASK(ETM_CR_BRANCH_OUTPUT)), (unsigned)c->cfg.etmcr, (unsigned)c->cfg.fifo_depth,
                        pt, capacity(c), c->stall, c->issue);
                csv_field(f, t);
                fprintf(f,
                        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                        ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64,
                        m->cycles, m->held, m->instructions, m->bytes, m->port_bytes, m->port_cycles, m->overflows,
                        m->bytes_lost, m->cycles_lost, m->fifofull_cycles, m->atoms, m->exceptions, m->untraceable,
                        m->peak_level, m->peak_window);
                for (int k = 0; kCsvMetrics[k]; k++)
                    fprintf(f, ",%.6g", metric_value(kCsvMetrics[k], m, c));
                for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                    fprintf(f, ",%" PRIu64, m->packets[k]);
                fprintf(f, "\n");
            }
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- Area: the RTL synthesized by Yosys (the script's table) ------------------------------------- */

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

/* ---- Plots (gnuplot) and the report ------------------------------------------------------------ */

typedef struct out {
    const study_t *st;
    const plan_t *pl;
    const char *dir;
    int plots;      /* run gnuplot */
    FILE *md;       /* report.md */
    int failed;
} out_t;

static const metrics_t *metrics_of(const out_t *o, size_t s, size_t conf, size_t wl)
{
    return &o->pl->runs[o->pl->sweep_runs[s][conf * o->st->sw[s].nwl + wl]].m;
}

static double value_of(const out_t *o, size_t s, size_t conf, size_t wl, const char *metric)
{
    return metric_value(metric, metrics_of(o, s, conf, wl), &o->st->sw[s].confs[conf]);
}

static const char *wl_name(const out_t *o, size_t s, size_t wl) { return o->st->wl[o->st->sw[s].wl[wl]].name; }

/* s as the inside of a gnuplot '...' string (a quote doubled). */
static const char *gpq(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    for (; *s && n + 2 < size; s++) {
        if (*s == '\'')
            buf[n++] = '\'';
        buf[n++] = *s;
    }
    buf[n] = 0;
    return buf;
}

/* Sixteen colours that stay apart (gnuplot's own repeat after eight). */
static const char kPalette[] =
    "set linetype 1 lc rgb '#1f77b4'\nset linetype 2 lc rgb '#ff7f0e'\nset linetype 3 lc rgb '#2ca02c'\n"
    "set linetype 4 lc rgb '#d62728'\nset linetype 5 lc rgb '#9467bd'\nset linetype 6 lc rgb '#8c564b'\n"
    "set linetype 7 lc rgb '#e377c2'\nset linetype 8 lc rgb '#7f7f7f'\nset linetype 9 lc rgb '#bcbd22'\n"
    "set linetype 10 lc rgb '#17becf'\nset linetype 11 lc rgb '#000000'\nset linetype 12 lc rgb '#aec7e8'\n"
    "set linetype 13 lc rgb '#ffbb78'\nset linetype 14 lc rgb '#98df8a'\nset linetype 15 lc rgb '#ff9896'\n"
    "set linetype 16 lc rgb '#c5b0d5'\nset linetype cycle 16\n";

/* Write NAME.gp around the plot command and run gnuplot: NAME.png and NAME.svg. */
static void gnuplot(out_t *o, const char *name, const char *settings, const char *plot)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.gp", o->dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        o->failed = 1;
        return;
    }
    fprintf(f,
            "# %s: written by etm-whatif from %s.dat; gnuplot %s.gp makes %s.png and %s.svg\n"
            "set terminal pngcairo size 1100,560 font 'sans,10' noenhanced\n"
            "set output '%s.png'\n"
            "set grid ytics\nset key outside right top vertical\nset border 3\nset xtics nomirror\nset ytics nomirror\n"
            "%s%s\n%s\n"
            "set terminal svg size 1100,560 dynamic font 'sans,10' background '#ffffff' noenhanced\n"
            "set output '%s.svg'\nreplot\n",
            name, name, name, name, name, name, kPalette, settings, plot, name);
    fclose(f);
    if (!o->plots)
        return;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s.gp' 2> '%s.gnuplot.log'", o->dir, name, name);
    if (system(cmd) != 0) {
        fprintf(stderr, "etm-whatif: gnuplot failed on %s/%s.gp (see %s.gnuplot.log)\n", o->dir, name, name);
        o->failed = 1;
        return;
    }
    snprintf(cmd, sizeof cmd, "%s/%s.gnuplot.log", o->dir, name);
    remove(cmd);
}

static FILE *open_dat(out_t *o, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.dat", o->dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        o->failed = 1;
    return f;
}

static void md_image(out_t *o, const char *name, const char *alt)
{
    fprintf(o->md, "![%s](%s.png)\n\n([SVG](%s.svg), data `%s.dat`, script `%s.gp`)\n\n", alt, name, name, name, name);
}

static void md_value(out_t *o, const metric_t *mt, double v)
{
    fprintf(o->md, " | %.*f", mt->decimals, v);
}

/* A histogram of NAME.dat (column 1: the labels on x; columns 2 to last_col:
 * the series), clustered or stacked, with more settings after the common ones. */
static void histogram(out_t *o, const char *name, const char *title, int stacked, const char *extra, size_t last_col)
{
    char settings[2560], plot[256], q[300];
    snprintf(settings, sizeof settings,
             "set style data histograms\nset style histogram %s\nset style fill solid 0.85 border -1\n"
             "set boxwidth %s\nset title '%s'\n%s",
             stacked ? "rowstacked" : "clustered gap 1", stacked ? "0.75" : "0.9", gpq(title, q, sizeof q), extra);
    snprintf(plot, sizeof plot, "plot for [i=2:%zu] '%s.dat' using i:xtic(1) title columnheader(i)", last_col, name);
    gnuplot(o, name, settings, plot);
}

/* Clustered bars: one cluster per workload, one bar per configuration. */
static void plot_bars(out_t *o, size_t s, const plot_t *p)
{
    const sweep_t *sw = &o->st->sw[s];
    const metric_t *mt = find_metric(p->metric);
    char name[128];
    snprintf(name, sizeof name, "%s-%s", sw->name, p->metric);
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"workload\"");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(f, " \"%s\"", sw->confs[i].label);
    fprintf(f, "\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(f, "\"%s\"", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            fprintf(f, " %.6g", value_of(o, s, i, j, p->metric));
        fprintf(f, "\n");
    }
    fclose(f);
    char extra[400], q[300];
    snprintf(extra, sizeof extra, "set yrange [0:*]\nset ylabel '%s'", gpq(mt->axis, q, sizeof q));
    histogram(o, name, sw->title, 0, extra, sw->nconfs + 1);

    fprintf(o->md, "### %s\n\n", mt->axis);
    md_image(o, name, mt->axis);
    fprintf(o->md, "| workload");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(o->md, " | %s", sw->confs[i].label);
    fprintf(o->md, " |\n|---");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(o->md, "| %s", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            md_value(o, mt, value_of(o, s, i, j, p->metric));
        fprintf(o->md, " |\n");
    }
    fprintf(o->md, "\n");
    /* Each configuration against the first: the range of the ratio over the workloads. */
    if (mt->ratio && sw->nconfs > 1 && sw->nwl > 0) {
        fprintf(o->md, "Against *%s*, over the workloads:", sw->confs[0].label);
        for (size_t i = 1; i < sw->nconfs; i++) {
            double lo = INFINITY, hi = -INFINITY;
            int any = 0;
            for (size_t j = 0; j < sw->nwl; j++) {
                double a = value_of(o, s, 0, j, p->metric), b = value_of(o, s, i, j, p->metric);
                if (a > 0) {
                    lo = fmin(lo, b / a);
                    hi = fmax(hi, b / a);
                    any = 1;
                }
            }
            if (any)
                fprintf(o->md, "%s *%s* %.2f to %.2f times", i > 1 ? ";" : "", sw->confs[i].label, lo, hi);
            else
                fprintf(o->md, "%s *%s* (no ratio: the first is 0)", i > 1 ? ";" : "", sw->confs[i].label);
        }
        fprintf(o->md, ".\n\n");
    }
}

static const char *x_axis(const sweep_t *sw)
{
    if (!strcmp(sw->vary, "port"))
        return "port capacity (bytes per core cycle)";
    if (!strcmp(sw->vary, "FIFO_DEPTH"))
        return "FIFO depth (bytes)";
    if (!strcmp(sw->vary, "stall"))
        return "ETMFFLR (bytes free below which FIFOFULL holds the core)";
    return sw->vary;
}

/* Lines: the varied value on x, one line per workload. */
static void plot_lines(out_t *o, size_t s, const plot_t *p)
{
    const sweep_t *sw = &o->st->sw[s];
    const metric_t *mt = find_metric(p->metric);
    char name[128];
    snprintf(name, sizeof name, "%s-%s", sw->name, p->metric);
    /* Configurations in order of x. */
    size_t *ord = (size_t *)xcalloc(sw->nconfs, sizeof *ord);
    for (size_t i = 0; i < sw->nconfs; i++)
        ord[i] = i;
    for (size_t i = 1; i < sw->nconfs; i++)
        for (size_t k = i; k > 0 && sw->confs[ord[k]].x < sw->confs[ord[k - 1]].x; k--) {
            size_t t = ord[k];
            ord[k] = ord[k - 1];
            ord[k - 1] = t;
        }
    FILE *f = open_dat(o, name);
    if (!f) {
        free(ord);
        return;
    }
    fprintf(f, "\"x\"");
    for (size_t j = 0; j < sw->nwl; j++)
        fprintf(f, " \"%s\"", wl_name(o, s, j));
    fprintf(f, "\n");
    for (size_t k = 0; k < sw->nconfs; k++) {
        fprintf(f, "%g", sw->confs[ord[k]].x);
        for (size_t j = 0; j < sw->nwl; j++)
            fprintf(f, " %.6g", value_of(o, s, ord[k], j, p->metric));
        fprintf(f, "\n");
    }
    fclose(f);
    char settings[1200], plot[256], q1[300], q2[300], q3[300];
    snprintf(settings, sizeof settings, "set xlabel '%s'\nset ylabel '%s%s'\nset title '%s'\n%s\n%s",
             gpq(x_axis(sw), q1, sizeof q1), gpq(mt->axis, q2, sizeof q2), p->logy ? " (0 not drawn)" : "",
             gpq(sw->title, q3, sizeof q3), p->logx ? "set logscale x 2" : "",
             p->logy ? "set logscale y 10\nset yrange [0.8:*]" : "set yrange [0:*]");
    snprintf(plot, sizeof plot, "plot for [i=2:%zu] '%s.dat' using 1:i with linespoints lw 1.5 pt 7 ps 0.6 "
             "title columnheader(i)", sw->nwl + 1, name);
    gnuplot(o, name, settings, plot);

    fprintf(o->md, "### %s against %s\n\n", mt->axis, x_axis(sw));
    md_image(o, name, mt->axis);
    fprintf(o->md, "| %s", sw->vary);
    for (size_t j = 0; j < sw->nwl; j++)
        fprintf(o->md, " | %s", wl_name(o, s, j));
    fprintf(o->md, " |\n|---");
    for (size_t j = 0; j < sw->nwl; j++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t k = 0; k < sw->nconfs; k++) {
        const char *lab = strchr(sw->confs[ord[k]].label, '=');
        fprintf(o->md, "| %s", lab ? lab + 1 : sw->confs[ord[k]].label);
        if (!strcmp(sw->vary, "port"))
            fprintf(o->md, " (%g)", sw->confs[ord[k]].x);
        for (size_t j = 0; j < sw->nwl; j++)
            md_value(o, mt, value_of(o, s, ord[k], j, p->metric));
        fprintf(o->md, " |\n");
    }
    fprintf(o->md, "\n");
    /* Where losses stop: the smallest x from which the metric stays 0. */
    if (!strcmp(p->metric, "overflows")) {
        fprintf(o->md, "Knee (the smallest %s from which nothing overflows):", sw->vary);
        for (size_t j = 0; j < sw->nwl; j++) {
            size_t k = sw->nconfs;
            while (k > 0 && value_of(o, s, ord[k - 1], j, p->metric) == 0)
                k--;
            if (k == sw->nconfs)
                fprintf(o->md, "%s %s: still overflows at %g", j ? ";" : "", wl_name(o, s, j),
                        sw->confs[ord[k - 1]].x);
            else
                fprintf(o->md, "%s %s: %g", j ? ";" : "", wl_name(o, s, j), sw->confs[ord[k]].x);
        }
        fprintf(o->md, ".\n\nWhere they fall to a tenth of those at %s=%g:", sw->vary, sw->confs[ord[0]].x);
        for (size_t j = 0; j < sw->nwl; j++) {
            double first = value_of(o, s, ord[0], j, p->metric);
            size_t k = 0;
            while (k < sw->nconfs && value_of(o, s, ord[k], j, p->metric) > first / 10)
                k++;
            if (first == 0)
                fprintf(o->md, "%s %s: none to begin with", j ? ";" : "", wl_name(o, s, j));
            else if (k == sw->nconfs)
                fprintf(o->md, "%s %s: beyond %g", j ? ";" : "", wl_name(o, s, j), sw->confs[ord[k - 1]].x);
            else
                fprintf(o->md, "%s %s: %g", j ? ";" : "", wl_name(o, s, j), sw->confs[ord[k]].x);
        }
        fprintf(o->md, ".\n\n");
    }
    free(ord);
}

/* The mix of packets: percent of all packets by kind, stacked, per workload and configuration. */
static void plot_packets(out_t *o, size_t s)
{
    const sweep_t *sw = &o->st->sw[s];
    char name[128];
    snprintf(name, sizeof name, "%s-packets", sw->name);
    int used[ETM_PKT_KIND_COUNT] = { 0 }, nused = 0;
    for (size_t i = 0; i < sw->nconfs; i++)
        for (size_t j = 0; j < sw->nwl; j++)
            for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                used[k] |= metrics_of(o, s, i, j)->packets[k] != 0;
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        nused += used[k];
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"run\"");
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        if (used[k])
            fprintf(f, " \"%s\"", etm_pkt_kind_name((etm_pkt_kind_t)k));
    fprintf(f, "\n");
    fprintf(o->md, "### Packets by kind (%% of all packets)\n\n");
    md_image(o, name, "packets by kind");
    fprintf(o->md, "| workload | configuration | packets | bytes/packet");
    for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
        if (used[k])
            fprintf(o->md, " | %s", etm_pkt_kind_name((etm_pkt_kind_t)k));
    fprintf(o->md, " |\n|---|---|---:|---:");
    for (int k = 0; k < nused; k++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++)
        for (size_t i = 0; i < sw->nconfs; i++) {
            const metrics_t *m = metrics_of(o, s, i, j);
            uint64_t total = 0;
            for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                total += m->packets[k];
            fprintf(f, "\"%s, %s\"", wl_name(o, s, j), sw->confs[i].label);
            fprintf(o->md, "| %s | %s | %" PRIu64 " | %.2f", wl_name(o, s, j), sw->confs[i].label, total,
                    total ? (double)m->bytes / (double)total : 0.0);
            for (int k = 0; k < ETM_PKT_KIND_COUNT; k++)
                if (used[k]) {
                    double pct = total ? 100.0 * (double)m->packets[k] / (double)total : 0;
                    fprintf(f, " %.4f", pct);
                    fprintf(o->md, " | %.1f", pct);
                }
            fprintf(f, "\n");
            fprintf(o->md, " |\n");
        }
    fprintf(o->md, "\n");
    fclose(f);
    histogram(o, name, sw->title, 1, "set yrange [0:100]\nset ylabel 'packets (%)'\nset xtics rotate by -40",
              (size_t)nused + 1);
}

/* Trace bytes per cycle (mean and busiest window) per workload, against the
 * capacities of the reference ports. */
static void plot_rate(out_t *o, size_t s)
{
    const sweep_t *sw = &o->st->sw[s];
    char name[128];
    snprintf(name, sizeof name, "%s-rate", sw->name);
    FILE *f = open_dat(o, name);
    if (!f)
        return;
    fprintf(f, "\"workload\"");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(f, " \"%s: mean\" \"%s: busiest 1024 cycles\"", sw->confs[i].label, sw->confs[i].label);
    fprintf(f, "\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(f, "\"%s\"", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            fprintf(f, " %.6g %.6g", value_of(o, s, i, j, "bytes_per_cycle"), value_of(o, s, i, j, "peak_rate"));
        fprintf(f, "\n");
    }
    fclose(f);
    char settings[2048];
    size_t n = (size_t)snprintf(settings, sizeof settings,
                                "set ylabel 'trace bytes per core cycle'\nset key outside top center horizontal\n");
    /* The y axis reaches the first reference above the data, so that it shows. */
    double top = 0, ytop = 0;
    for (size_t j = 0; j < sw->nwl; j++)
        for (size_t i = 0; i < sw->nconfs; i++)
            top = fmax(top, value_of(o, s, i, j, "peak_rate"));
    ytop = top;
    for (int r = 0; r < sw->nrefs; r++) {
        conf_t c;
        conf_default(&c);
        c.port = sw->refs[r];
        double cap = capacity(&c);
        if (cap >= top && (ytop == top || cap < ytop))
            ytop = cap;
    }
    n += (size_t)snprintf(settings + n, sizeof settings - n, "set yrange [0:%g]\nset rmargin 20\n", ytop * 1.08);
    for (int r = 0; r < sw->nrefs && n < sizeof settings; r++) {
        conf_t c;
        conf_default(&c);
        c.port = sw->refs[r];
        char pt[32];
        port_text(&c.port, pt, sizeof pt);
        if (capacity(&c) > ytop * 1.08)
            continue;
        n += (size_t)snprintf(settings + n, sizeof settings - n,
                              "set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lw 1.5 lc rgb '#444444'\n"
                              "set label '%s port (%g)' at graph 1.01, first %g left textcolor rgb '#444444'\n",
                              capacity(&c), capacity(&c), pt, capacity(&c), capacity(&c));
    }
    histogram(o, name, sw->title, 0, settings, 2 * sw->nconfs + 1);

    fprintf(o->md, "### Trace bytes per core cycle against port capacity\n\n");
    md_image(o, name, "trace rate against port capacity");
    fprintf(o->md, "| workload");
    for (size_t i = 0; i < sw->nconfs; i++)
        fprintf(o->md, " | %s: mean | busiest 1024 cycles", sw->confs[i].label);
    fprintf(o->md, " |\n|---");
    for (size_t i = 0; i < 2 * sw->nconfs; i++)
        fprintf(o->md, "|---:");
    fprintf(o->md, "|\n");
    for (size_t j = 0; j < sw->nwl; j++) {
        fprintf(o->md, "| %s", wl_name(o, s, j));
        for (size_t i = 0; i < sw->nconfs; i++)
            fprintf(o->md, " | %.3f | %.3f", value_of(o, s, i, j, "bytes_per_cycle"), value_of(o, s, i, j, "peak_rate"));
        fprintf(o->md, " |\n");
    }
    fprintf(o->md, "\n");
    for (int r = 0; r < sw->nrefs; r++) {
        conf_t c;
        conf_default(&c);
        c.port = sw->refs[r];
        char pt[32];
        port_text(&c.port, pt, sizeof pt);
        double cap = capacity(&c);
        fprintf(o->md, "- Port %s (%g bytes per cycle):", pt, cap);
        for (size_t i = 0; i < sw->nconfs; i++) {
            int mean_over = 0, peak_over = 0;
            for (size_t j = 0; j < sw->nwl; j++) {
                mean_over += value_of(o, s, i, j, "bytes_per_cycle") > cap;
                peak_over += value_of(o, s, i, j, "peak_rate") > cap;
            }
            fprintf(o->md, "%s %s: the mean exceeds it on %d of %zu workloads, the busiest window on %d",
                    i ? ";" : "", sw->confs[i].label, mean_over, sw->nwl, peak_over);
        }
        fprintf(o->md, ".\n");
    }
    fprintf(o->md, "\n");
}

static void plot_area(out_t *o, size_t s, const area_t *a)
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
    histogram(o, name, sw->title, 0,
              "set logscale y 10\nset yrange [100:*]\nset ylabel 'Yosys generic cells, flip-flops'\n"
              "set xtics rotate by -25", 3);
    fprintf(o->md, "### Cells and flip-flops (Yosys)\n\n");
    md_image(o, name, "cells and flip-flops");
    fprintf(o->md, "| configuration | cells | flip-flops | synthesis (s) | settings |\n|---|---:|---:|---:|---|\n");
    for (size_t i = 0; i < a->n; i++)
        fprintf(o->md, "| %s | %.0f | %.0f | %.0f | `%s` |\n", a->rows[i].name, a->rows[i].cells, a->rows[i].flops,
                a->rows[i].seconds, a->rows[i].desc);
    fprintf(o->md, "\n%s\n\n", a->from_cache ? "(Kept from an earlier run of the script: `--area` runs it again.)" : "");
}

/* The report: the study's text, the workloads, then every sweep with its plots,
 * tables and what they show. */
static int write_report(out_t *o, const char *study_arg, int area_rerun, double seconds, unsigned jobs)
{
    const study_t *st = o->st;
    char path[1024];
    snprintf(path, sizeof path, "%s/report.md", o->dir);
    o->md = fopen(path, "w");
    if (!o->md)
        return -1;
    FILE *md = o->md;
    fprintf(md, "# %s\n\n", st->title[0] ? st->title : "What-if study");
    if (st->intro)
        fprintf(md, "%s\n\n", st->intro);
    fprintf(md, "Made by `etm-whatif %s` (%zu runs of the models in %.0f s with %u processes); every figure is in "
                "`results.csv`, one row per sweep, configuration and workload. `docs/whatif.md` explains the tool, "
                "the study file and the figures.\n\n",
            study_arg, o->pl->nruns, seconds, jobs);
    /* Workloads, from the first sweep that runs each with the default timing. */
    fprintf(md, "## Workloads\n\n| workload | instructions | cycles | CPI | exceptions traced |\n|---|---:|---:|---:|---:|\n");
    for (size_t w = 0; w < st->nwl; w++) {
        const run_t *best = NULL;
        for (size_t r = 0; r < o->pl->nruns; r++) {
            const run_t *run = &o->pl->runs[r];
            char t[256];
            timing_text(&run->c->params, t, sizeof t);
            if (run->wl == w && !run->m.held && !strcmp(t, "default") && run->c->issue == 1) {
                best = run;
                break;
            }
        }
        if (!best)
            continue;
        fprintf(md, "| %s | %" PRIu64 " | %" PRIu64 " | %.3f | %" PRIu64 " |\n", st->wl[w].name, best->m.instructions,
                best->m.cycles, best->m.instructions ? (double)best->m.cycles / (double)best->m.instructions : 0.0,
                best->m.exceptions);
    }
    fprintf(md, "\nPrograms run under `qemu-system-arm` and are timed by the Cortex-M3 model (`docs/cm3-timing.md`); "
                "`random` is the constrained-random generator (`etm/gen.h`). Instructions are those the core "
                "signalled to the ETM.\n\n");
    for (size_t s = 0; s < st->nsw; s++) {
        const sweep_t *sw = &st->sw[s];
        fprintf(md, "## %s\n\n", sw->title);
        if (sw->notes)
            fprintf(md, "%s\n\n", sw->notes);
        if (sw->nconfs) {
            fprintf(md, "Configurations (sweep `%s`):\n\n| label | ETM | ETMCR | FIFO | port | capacity (bytes/cycle) | "
                        "FIFOFULL stall | issue | timing |\n|---|---|---|---:|---|---:|---|---:|---|\n", sw->name);
            for (size_t i = 0; i < sw->nconfs; i++) {
                const conf_t *c = &sw->confs[i];
                char ver[16], pt[32], t[256], stall[32];
                version_text(&c->cfg, ver, sizeof ver);
                port_text(&c->port, pt, sizeof pt);
                if (!c->port.width)
                    snprintf(pt, sizeof pt, "ETM's own, %u byte%s", (unsigned)c->cfg.port_bytes,
                             c->cfg.port_bytes == 1 ? "" : "s");
                timing_text(&c->params, t, sizeof t);
                if (c->stall)
                    snprintf(stall, sizeof stall, "ETMFFLR=%u", c->stall);
                else
                    copy(stall, sizeof stall, "no");
                fprintf(md, "| %s | v%s | 0x%x | %u | %s | %g | %s | %u | %s |\n", c->label, ver, (unsigned)c->cfg.etmcr,
                        (unsigned)c->cfg.fifo_depth, pt, capacity(c), stall, c->issue, t);
            }
            fprintf(md, "\n");
        }
        for (int k = 0; k < sw->nplots; k++) {
            const plot_t *p = &sw->plots[k];
            switch (p->kind) {
            case PLOT_BARS: plot_bars(o, s, p); break;
            case PLOT_LINES: plot_lines(o, s, p); break;
            case PLOT_PACKETS: plot_packets(o, s); break;
            case PLOT_RATE: plot_rate(o, s); break;
            case PLOT_AREA: {
                area_t a;
                int rc = run_area(sw, o->dir, area_rerun, &a);
                if (rc < 0)
                    o->failed = 1;
                plot_area(o, s, &a);
                free(a.rows);
                break;
            }
            }
        }
    }
    return fclose(md) == 0 && !o->failed ? 0 : -1;
}

/* ---- The command line ------------------------------------------------------------------------- */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: etm-whatif STUDY [-o DIR] [-j JOBS] [--area] [--no-plots] [--quiet]\n"
            "       etm-whatif run WORKLOAD [KEY=VALUE]...\n\n"
            "Runs a what-if study (docs/whatif.md): every configuration of every sweep on every workload\n"
            "of the sweep, then writes DIR/results.csv, the plots (gnuplot: PNG and SVG) and\n"
            "DIR/report.md. DIR defaults to whatif-NAME for STUDY NAME.study.\n\n"
            "  -o DIR       output folder (created)\n"
            "  -j JOBS      worker processes (default: the processors online)\n"
            "  --area       run the area sweeps' synthesis script (slow; otherwise an earlier\n"
            "               result in DIR is reused)\n"
            "  --no-plots   write the gnuplot scripts and data but do not run gnuplot\n\n"
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
    if (run_all(&st, &pl, work, (unsigned)jobs, quiet) != 0) {
        fprintf(stderr, "etm-whatif: a run failed (above); no report written\n");
        free_all(&st, &pl);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rmdir(work);
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
