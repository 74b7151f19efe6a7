/* cmd_verify.c - `etm verify`: the protocol scoreboard (etm/verify.h) over a
 * stimulus file and a design's trace. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/coresight.h"
#include "etm/etm.h"
#include "etm/verify.h"
#include "json.h"
#include "source.h"
#include "subcommands.h"

#define MAX_SETS 64

static void help(FILE *f)
{
    fprintf(f,
            "usage: etm verify [options] STIMULUS TRACE\n\n"
            "Checks that TRACE, the trace a design made from STIMULUS, says exactly what the core did:\n"
            "ETMv3 bytes, or for an ETMv1 its port (PIPESTAT, TRACEPKT, TRACESYNC per cycle: an\n"
            "expected-output vector file as etm run --out writes, or a VCD). Legal bytes for the\n"
            "configured version and mode, every traced instruction with its\n"
            "E or N (and its cycle when cycle-accurate), every indirect branch target, exception,\n"
            "cancel and return, nothing outside TraceEnable, trace lost only across a signalled\n"
            "overflow, syncs within the period. Packing, address compression, sync placement and\n"
            "latency are the design's to choose (docs/scoreboard.md lists each freedom allowed).\n"
            "The configuration is the stimulus's (its vector header, or --config for a VCD).\n\n"
            "  --set NAME=0xV  override one register of the configuration\n"
            "  --at-reset      the ETM starts from reset: the stimulus programs it through the APB\n"
            "  --coresight     TRACE is CoreSight-formatted frames (an ETB or ETR dump)\n"
            "  --tpiu          ... captured from TPIU pins (starts at the first full frame sync)\n"
            "  --swo           ... the SWO line: a sigrok capture of the pin (decoded as etm swo does, at\n"
            "                  the rate it measures) or the UART bytes a probe delivers; frames from the\n"
            "                  first byte, no syncs\n"
            "  --manchester    ... a sigrok capture of the pin in Manchester mode (implies --swo)\n"
            "  --id N          with either: the ETM's trace ID (default: ETMTRACEIDR)\n"
            "  --max-lag N     instructions the trace may lag behind the core (default 262144)\n"
            "  --overflow-at-end  the design's ETMSR[0] read 1 when the trace ended: an overflow whose\n"
            "                  restart never came; what followed the last instruction traced was lost\n"
            "  --quiet         print nothing but a failure\n"
            "  --json          print the result as one JSON object (docs/json.md) instead\n"
            "  --rules         list the rules a trace can break and exit\n\n%s\n"
            "Exit status: 0 the trace is right, 1 it is not (the first divergence is printed with the\n"
            "cycle, the byte offset and the rule), 2 bad usage or input.\n",
            source_opts_help);
}

/* The design's bytes: raw, or the ETM's ID out of CoreSight frames. */
typedef struct trace_in {
    FILE *f;
    etm_cs_deformatter_t *cs;
    unsigned id;
    uint8_t pend[256];
    size_t npend, rd;
    int eof, bad;
    const char *path;
} trace_in_t;

static void on_frame_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset)
{
    (void)offset;
    trace_in_t *t = (trace_in_t *)user;
    if (id != t->id)
        return;
    for (size_t i = 0; i < n && t->npend < sizeof t->pend; i++)
        t->pend[t->npend++] = data[i];
}

/* Up to max bytes of the design's trace; 0 at its end. */
static size_t trace_read(trace_in_t *t, uint8_t *buf, size_t max)
{
    if (!t->cs)
        return t->eof ? 0 : fread(buf, 1, max, t->f);
    while (t->rd == t->npend && !t->eof) {
        uint8_t raw[16];
        size_t n = fread(raw, 1, sizeof raw, t->f);
        t->rd = t->npend = 0;
        etm_diag_t d;
        if (n == 0) {
            t->eof = 1;
            if (etm_cs_end(t->cs, &d) != ETM_OK) {
                fprintf(stderr, "etm verify: %s: byte %" PRIu64 ": %s\n", t->path, d.offset, d.msg);
                t->bad = 1;
            }
        } else if (etm_cs_feed(t->cs, raw, n, &d) != ETM_OK) {
            fprintf(stderr, "etm verify: %s: byte %" PRIu64 ": %s\n", t->path, d.offset, d.msg);
            t->bad = 1;
            t->eof = 1;
        }
    }
    size_t n = t->npend - t->rd < max ? t->npend - t->rd : max;
    memcpy(buf, t->pend + t->rd, n);
    t->rd += n;
    return n;
}

static void print_result(const etm_verify_t *v, const char *trace_path)
{
    const etm_verify_result_t *r = etm_verify_result(v);
    int v1 = etm_verify_is_v1(v);
    if (r->failures) {
        char what[600];
        printf("FAILED: %s: %s\n", trace_path, etm_verify_describe(v, what, sizeof what));
        return;
    }
    printf("%" PRIu64 " cycles, %" PRIu64 " %s: %" PRIu64 " instructions traced as executed", r->cycles, r->bytes,
           v1 ? "port cycles" : "trace bytes", r->instructions);
    if (r->cycles_checked)
        printf(" (%" PRIu64 " with their cycles)", r->cycles_checked);
    printf(", %" PRIu64 " exceptions, %" PRIu64 " returns, %" PRIu64 " cancels, %" PRIu64 " overflows (%" PRIu64
           " instructions lost), %" PRIu64 " outside TraceEnable",
           r->exceptions, r->returns, r->cancels, r->overflows, r->lost, r->untraced);
    if (r->transfers)
        printf("; %" PRIu64 " data transfers traced, %" PRIu64 " of them held to the core's (address, value, "
               "ViewData), %" PRIu64 " lost to overflows", r->transfers, r->data_checked, r->data_lost);
    printf("\n");
    if (v1)
        printf("trace starts %" PRIu64 ", branches with an address %" PRIu64 ", triggers %" PRIu64 "; at most %" PRIu64
               " instructions waited for their status: the trace is right\n",
               r->isyncs, r->branches, r->triggers, r->max_lag);
    else
        printf("A-syncs %" PRIu64 " (at most %" PRIu64 " bytes apart), I-syncs %" PRIu64 ", branch packets %" PRIu64
               ", triggers %" PRIu64 "; at most %" PRIu64 " instructions waited for their trace: the trace is right\n",
               r->asyncs, r->max_sync_gap, r->isyncs, r->branches, r->triggers, r->max_lag);
}

static void json_result(const etm_verify_t *v, const char *stim_path, const char *trace_path, int status)
{
    const etm_verify_result_t *r = etm_verify_result(v);
    json_t j;
    json_begin(&j, stdout, "verify", status);
    json_str(&j, "stimulus", stim_path);
    json_str(&j, "trace", trace_path);
    json_str(&j, "protocol", etm_verify_is_v1(v) ? "etmv1" : "etmv3");
    json_bool(&j, "passed", !r->failures);
    json_object(&j, "result");
    json_u64(&j, "cycles", r->cycles);
    json_u64(&j, etm_verify_is_v1(v) ? "port_cycles" : "bytes", r->bytes);
    json_u64(&j, "instructions", r->instructions);
    json_u64(&j, "traced_expected", r->traced_expected);
    json_u64(&j, "untraced", r->untraced);
    json_u64(&j, "exceptions", r->exceptions);
    json_u64(&j, "returns", r->returns);
    json_u64(&j, "cancels", r->cancels);
    json_u64(&j, "branches", r->branches);
    json_u64(&j, "isyncs", r->isyncs);
    json_u64(&j, "asyncs", r->asyncs);
    json_u64(&j, "triggers", r->triggers);
    json_u64(&j, "data_transfers", r->transfers);
    json_u64(&j, "data_checked", r->data_checked);
    json_u64(&j, "data_lost", r->data_lost);
    json_u64(&j, "overflows", r->overflows);
    json_u64(&j, "lost", r->lost);
    json_u64(&j, "cycles_checked", r->cycles_checked);
    json_u64(&j, "max_sync_gap", r->max_sync_gap);
    json_u64(&j, "max_lag", r->max_lag);
    json_u64(&j, "max_latency", r->max_latency);
    json_end(&j);
    if (r->failures) {
        json_object(&j, "first_failure");
        json_str(&j, "rule", etm_vfail_id(r->first.rule));
        json_str(&j, "rule_text", etm_vfail_text(r->first.rule));
        json_u64(&j, "cycle", r->first.cycle);
        json_u64(&j, "offset", r->first.offset);
        json_str(&j, "text", r->first.text);
        json_end(&j);
    } else {
        json_null(&j, "first_failure");
    }
    json_finish(&j);
}

/* ETMv1: the port, one record a cycle (an expected-output vector file or a
 * VCD), beside the stimulus, then its drain cycles. Returns 0, or 2 for bad
 * input (printed). */
static int verify_port(etm_verify_t *v, source_t *stim, const source_opts_t *so, const char *path)
{
    source_t port;
    if (source_open(&port, path, so, ETM_VEC_EXPECTED))
        return 2;
    etm_in_t in;
    etm_out_t out;
    etm_err_t es = ETM_OK, ep = ETM_OK;
    while (ep == ETM_OK && !etm_verify_result(v)->failures) {
        if (es == ETM_OK && (es = source_read_in(stim, &in)) == ETM_OK)
            etm_verify_cycle(v, &in);
        if ((ep = source_read_out(&port, &out)) == ETM_OK)
            etm_verify_port(v, &out);
        progress("verify", etm_verify_result(v)->cycles);
    }
    source_close(&port);
    return (es != ETM_OK && es != ETM_END) || (ep != ETM_OK && ep != ETM_END) ? 2 : 0;
}

/* The command line of etm verify. */
typedef struct verify_args {
    source_opts_t so;
    const char *sets[MAX_SETS];
    int nsets, formatted, tpiu, have_id, quiet, ovf_end, json, swo, manchester;
    unsigned id;
    etm_verify_opts_t vo;
    const char *paths[2]; /* the stimulus, the trace */
    int npaths;
} verify_args_t;

/* An option with a value: --set, --id or --max-lag. Returns 0, or 2 (printed). */
static int parse_value_option(verify_args_t *a, const char *opt, const char *v)
{
    if (!strcmp(opt, "--set")) {
        if (a->nsets == MAX_SETS) {
            fprintf(stderr, "etm verify: at most %d --set options\n", MAX_SETS);
            return 2;
        }
        a->sets[a->nsets++] = v;
    } else if (!strcmp(opt, "--id")) {
        uint64_t n = 0;
        if (opt_number("verify", "--id (a trace ID, 0x01-0x6f)", v, 1, 0x6F, &n))
            return 2;
        a->id = (unsigned)n;
        a->have_id = 1;
    } else {
        uint64_t n = 0;
        if (opt_number("verify", "--max-lag (instructions)", v, 1, 1ull << 30, &n))
            return 2;
        a->vo.max_lag = n;
    }
    return 0;
}

/* The command line into *a. Returns -1 to go on, else the exit status (--help,
 * --rules, a bad option: printed). */
static int parse_args(verify_args_t *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    source_opts_init(&a->so);
    for (int i = 1; i < argc; i++) {
        int k = source_opts_parse(&a->so, argc, argv, &i);
        if (k < 0)
            return 2;
        if (k > 0)
            continue;
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(o, "--rules")) {
            for (int r = 1; r < ETM_VFAIL_COUNT; r++)
                printf("%-20s %s\n", etm_vfail_id((etm_vfail_t)r), etm_vfail_text((etm_vfail_t)r));
            return 0;
        } else if (!strcmp(o, "--at-reset")) {
            a->vo.at_reset = 1;
        } else if (!strcmp(o, "--coresight")) {
            a->formatted = 1;
        } else if (!strcmp(o, "--tpiu")) {
            a->formatted = a->tpiu = 1;
        } else if (!strcmp(o, "--swo")) {
            a->formatted = a->swo = 1;
        } else if (!strcmp(o, "--manchester")) {
            a->formatted = a->swo = a->manchester = 1;
        } else if (!strcmp(o, "--overflow-at-end")) {
            a->ovf_end = 1;
        } else if (!strcmp(o, "--quiet")) {
            a->quiet = 1;
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--set") || !strcmp(o, "--id") || !strcmp(o, "--max-lag")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "etm verify: %s needs a value\n", o);
                return 2;
            }
            if (parse_value_option(a, o, argv[++i]))
                return 2;
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "etm verify: unknown option '%s' (try --help)\n", o);
            return 2;
        } else if (a->npaths == 2) {
            fprintf(stderr, "etm verify: two files: the stimulus and the trace\n");
            return 2;
        } else {
            a->paths[a->npaths++] = o;
        }
    }
    if (a->npaths != 2) {
        help(stderr);
        return 2;
    }
    return -1;
}

/* Open the stimulus and the design's trace (with its deformatter for
 * --coresight and --tpiu) and make the scoreboard. Returns 0, or 2 (printed,
 * all closed). */
static int verify_open(const verify_args_t *a, source_t *src, trace_in_t *t, etm_verify_t **v)
{
    if (source_open(src, a->paths[0], &a->so, ETM_VEC_STIMULUS))
        return 2;
    etm_config_t cfg = src->cfg;
    if (config_apply_sets("etm verify", &cfg, a->sets, a->nsets)) {
        source_close(src);
        return 2;
    }
    etm_diag_t d;
    etm_diag_clear(&d);
    memset(t, 0, sizeof *t);
    t->path = a->paths[1];
    t->id = a->have_id ? a->id : cfg.etmtraceidr & 0x7fu;
    t->f = etm_open_read(a->paths[1], "cannot open the trace", &d);
    if (!t->f) {
        fprintf(stderr, "etm verify: %s: %s\n", a->paths[1], d.msg);
        source_close(src);
        return 2;
    }
    /* An ETMv1's trace is an expected-output vector file (PIPESTAT, TRACEPKT). */
    int v1 = !ETM_FIELD_GET(ETM_CCR_ETMIDR, cfg.etmccr);
    const char *kind = v1 ? NULL : not_trace_kind(t->f, a->swo);
    if (kind) {
        fprintf(stderr, "etm verify: %s: %s\n", a->paths[1], kind);
        fclose(t->f);
        source_close(src);
        return 2;
    }
    if (a->swo && swo_open_trace(&t->f, a->paths[1], NULL, 0, a->manchester)) {
        source_close(src);
        return 2;
    }
    if (a->formatted && etm_cs_create(&t->cs, a->tpiu ? ETM_CS_WAIT_FSYNC : 0, on_frame_data, t) != ETM_OK) {
        fprintf(stderr, "etm verify: out of memory\n");
        fclose(t->f);
        source_close(src);
        return 2;
    }
    if (etm_verify_create(v, &cfg, &a->vo, &d) != ETM_OK) {
        fprintf(stderr, "etm verify: %s: configuration: %s\n", a->paths[0], d.msg);
        etm_cs_destroy(t->cs);
        fclose(t->f);
        source_close(src);
        return 2;
    }
    return 0;
}

/* ETMv3: the stimulus's cycles and the design's bytes into the scoreboard
 * until a failure or the end of both. Cycles run ahead of bytes, so that an
 * atom never waits for its instruction; memory stays bounded by the lag
 * allowed. Returns 0, or 2 for bad input (printed). */
static int verify_bytes(etm_verify_t *v, source_t *src, trace_in_t *t)
{
    etm_in_t in;
    uint8_t buf[16];
    int stim_end = 0, status = 0;
    for (;;) {
        while (!stim_end && etm_verify_waiting(v) < ETM_VERIFY_AHEAD) {
            etm_err_t e = source_read_in(src, &in);
            if (e == ETM_END) {
                stim_end = 1;
            } else if (e != ETM_OK) {
                status = 2;
                break;
            } else {
                progress("verify", etm_verify_result(v)->cycles);
                etm_verify_cycle(v, &in);
            }
        }
        if (status || etm_verify_result(v)->failures)
            break;
        size_t n = trace_read(t, buf, sizeof buf);
        if (n)
            etm_verify_bytes(v, buf, n, 0);
        else if (stim_end)
            break;
        else if (etm_verify_waiting(v) >= ETM_VERIFY_AHEAD) {
            /* The trace has ended while the core goes on: the rest must be untraced. */
            while ((source_read_in(src, &in)) == ETM_OK && !etm_verify_result(v)->failures)
                etm_verify_cycle(v, &in);
            stim_end = 1;
        }
    }
    progress_done();
    return status;
}

/* The end of the trace, and the verdict printed as text or JSON; returns the
 * exit status (status, when reading failed). */
static int verify_report(const verify_args_t *a, etm_verify_t *v, const trace_in_t *t, int status)
{
    if (ferror(t->f)) {
        fprintf(stderr, "etm verify: %s: read error\n", a->paths[1]);
        status = 2;
    }
    if (t->bad)
        status = 2;
    if (status)
        return status;
    etm_verify_end(v, a->ovf_end);
    const etm_verify_result_t *r = etm_verify_result(v);
    status = r->failures ? 1 : 0;
    if (a->json)
        json_result(v, a->paths[0], a->paths[1], status);
    else if (r->failures || !a->quiet)
        print_result(v, a->paths[1]);
    return status;
}

int cmd_verify(int argc, char **argv)
{
    verify_args_t a;
    int status = parse_args(&a, argc, argv);
    if (status >= 0)
        return status;
    source_t src;
    trace_in_t t;
    etm_verify_t *v;
    if (verify_open(&a, &src, &t, &v))
        return 2;
    if (etm_verify_is_v1(v))
        status = verify_port(v, &src, &a.so, a.paths[1]);
    else
        status = verify_bytes(v, &src, &t);
    status = verify_report(&a, v, &t, status);
    etm_verify_destroy(v);
    etm_cs_destroy(t.cs);
    fclose(t.f);
    source_close(&src);
    return status;
}
