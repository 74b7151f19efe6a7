/* cmd_swo.c - `etm swo`: a logic analyzer's capture of a Cortex-M's SWO pin
 * (a sigrok session file) decoded as an NRZ serial line (8N1) into the bytes
 * its TPIU sent (etm/sigrok.h reads the capture, etm/uart.h the line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/sigrok.h"
#include "etm/uart.h"
#include "json.h"
#include "outfile.h"
#include "source.h"
#include "subcommands.h"

#define SWO_BLOCK 65536   /* samples read at a time */
#define SWO_BYTES 4096    /* bytes decoded at a time */

static void help(FILE *f)
{
    fprintf(f, "usage: etm swo [options] CAPTURE.sr\n\n"
               "Decodes one probe of a logic analyzer's capture (a sigrok session file) as an\n"
               "asynchronous serial line, 8N1, least significant bit first, idle high: the SWO pin\n"
               "of a Cortex-M whose TPIU sends in NRZ mode (or, --manchester, in Manchester mode). Each byte is timed from its start bit's\n"
               "falling edge and each bit read at its centre, so a line a percent or two off its\n"
               "nominal rate decodes (the tolerance is printed); the line's real rate is measured\n"
               "from the falling edges inside the bytes. Framing errors (a stop bit that reads 0)\n"
               "are reported as FILE: sample N (T us): framing error: ...\n\n"
               "  --channel NAME|N  the probe: its name in the capture, or its number from 1\n"
               "                    (default SWO)\n"
               "  --baud RATE|auto  the line's nominal rate: 8000000, 8M, 2.25M, 115200; auto guesses\n"
               "                    it from the shortest pulses, decodes once to measure it and\n"
               "                    decodes at what it measured (default auto)\n"
               "  --manchester      the TPIU sends in Manchester mode (TPIU_SPPR 1): idle low, a start\n"
               "                    bit 1, each bit high-low (1) or low-high (0), a bit low to end the\n"
               "                    byte; each half read at its centre (at least 4 samples a bit)\n"
               "  --out FILE        write the bytes to FILE (a byte with a framing error is left out)\n"
               "  --list            print every byte: the sample of its start edge, its time, its value\n"
               "  --max-report N    print (or keep for --json) at most N framing errors (default 20);\n"
               "                    all are counted\n"
               "  --json            the figures as one JSON object on stdout (docs/json.md)\n\n"
               "Exit status: 0 no framing error, 1 framing errors, 2 bad usage or input.\n");
}

/* The command line of etm swo. */
typedef struct swo_args {
    const char *path, *channel, *out;
    uint64_t baud;            /* 0: auto */
    int list, json;
    int manchester;           /* the line's code: Manchester, not NRZ */
    unsigned long max_report;
} swo_args_t;

/* The value of an option that takes one. Returns it, or NULL (printed). */
static const char *value_of(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "etm swo: %s needs a value (try --help)\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* One option with its value into *a. Returns 0, or 2 (printed). */
static int parse_value(swo_args_t *a, const char *opt, const char *v)
{
    if (!strcmp(opt, "--channel")) {
        a->channel = v;
    } else if (!strcmp(opt, "--out")) {
        a->out = v;
    } else if (!strcmp(opt, "--baud")) {
        if (!strcmp(v, "auto"))
            a->baud = 0;
        else if (etm_sigrok_parse_rate(v, &a->baud) != 0) {
            fprintf(stderr, "etm swo: --baud '%s' is not a rate (8000000, 8M, 115200) or auto\n", v);
            return 2;
        }
    } else {
        uint64_t n = 0;
        if (opt_number("swo", "--max-report", v, 0, 1000000, &n))
            return 2;
        a->max_report = (unsigned long)n;
    }
    return 0;
}

/* The command line into *a. Returns -1 to go on, else the exit status. */
static int parse_args(swo_args_t *a, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->channel = "SWO";
    a->max_report = 20;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(o, "--list")) {
            a->list = 1;
        } else if (!strcmp(o, "--manchester")) {
            a->manchester = 1;
        } else if (!strcmp(o, "--json")) {
            a->json = 1;
        } else if (!strcmp(o, "--channel") || !strcmp(o, "--baud") || !strcmp(o, "--out") ||
                   !strcmp(o, "--max-report")) {
            const char *v = value_of(argc, argv, &i);
            if (!v || parse_value(a, o, v))
                return 2;
        } else if (o[0] == '-' && o[1]) {
            fprintf(stderr, "etm swo: unknown option '%s' (try --help)\n", o);
            return 2;
        } else if (a->path) {
            fprintf(stderr, "etm swo: one capture only\n");
            return 2;
        } else {
            a->path = o;
        }
    }
    if (!a->path) {
        help(stderr);
        return 2;
    }
    return -1;
}

/* A decoding of a capture: the capture, the decoder and what it found. */
typedef struct swo_run {
    const swo_args_t *a;
    etm_sigrok_t *sr;
    const etm_sigrok_info_t *info;
    unsigned bit;             /* the probe's bit (probe bit + 1) */
    uint64_t baud;            /* the nominal rate decoded at */
    uint64_t guess;           /* --baud auto: the first guess, from the shortest pulses */
    int final;                /* the pass that writes, lists and reports the bytes */
    etm_uart_t uart;
    FILE *out;
    FILE *sink;               /* swo_open_trace: the final pass's bytes go here (kept open) */
    uint64_t first;           /* the first byte's start edge, UINT64_MAX before one */
    etm_uart_byte_t *bad;     /* the framing errors kept (--max-report of them) */
    unsigned long nbad;
} swo_run_t;

/* "24 MHz", "8.051 Mbaud": v with an SI prefix and digits significant digits. */
static const char *si(double v, int digits, const char *unit, char *buf, size_t size)
{
    const char *prefix = v >= 1e9 ? "G" : v >= 1e6 ? "M" : v >= 1e3 ? "k" : "";
    double div = v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1.0;
    snprintf(buf, size, "%.*g %s%s", digits, v / div, prefix, unit);
    return buf;
}

/* A sample's time in microseconds. */
static double usec(const swo_run_t *r, uint64_t sample) { return (double)sample * 1e6 / (double)r->info->samplerate; }

/* Open the capture and find the probe. Returns 0, or 2 (printed). */
static int open_capture(swo_run_t *r)
{
    etm_diag_t d;
    if (etm_sigrok_open(&r->sr, r->a->path, &d) != ETM_OK ||
        etm_sigrok_find_probe(r->sr, r->a->channel, &r->bit, &d) != ETM_OK) {
        print_diag(&d);
        return 2;
    }
    r->info = etm_sigrok_get_info(r->sr);
    return 0;
}

/* --baud auto: the shortest pulses of the whole capture give a bit's time.
 * Returns 0, or 2 (printed). */
static int guess_baud(swo_run_t *r)
{
    etm_uart_runs_t *runs = (etm_uart_runs_t *)malloc(sizeof *runs);
    uint8_t *lv = (uint8_t *)malloc(SWO_BLOCK);
    etm_diag_t d;
    etm_err_t e = !runs || !lv ? ETM_ERR_NOMEM : etm_sigrok_start(r->sr, r->bit, &d);
    size_t n;
    if (e == ETM_OK)
        etm_uart_runs_init(runs);
    while (e == ETM_OK && (e = etm_sigrok_read(r->sr, lv, SWO_BLOCK, &n, &d)) == ETM_OK)
        etm_uart_runs_feed(runs, lv, n);
    double bit = e == ETM_END ? etm_uart_runs_bit(runs) : 0.0;
    free(runs);
    free(lv);
    if (e == ETM_ERR_NOMEM) {
        fprintf(stderr, "etm swo: out of memory\n");
        return 2;
    }
    if (e != ETM_END) {
        print_diag(&d);
        return 2;
    }
    if (bit < 1.0) {
        fprintf(stderr, "etm swo: %s: probe %u has too few pulses to guess its rate: give --baud\n", r->a->path,
                r->bit + 1);
        return 2;
    }
    if (r->a->manchester)
        bit *= 2; /* the shortest pulses are half bits */
    r->baud = r->guess = (uint64_t)llround((double)r->info->samplerate / bit);
    return 0;
}

/* A framing error: printed (on stderr) or kept for --json, up to --max-report. */
static void framing_error(swo_run_t *r, const etm_uart_byte_t *b)
{
    if (r->nbad < r->a->max_report) {
        if (r->a->json)
            r->bad[r->nbad] = *b;
        else
            fprintf(stderr, r->a->manchester
                                ? "%s: sample %llu (%.3f us): framing error: a bit without its mid transition, or a "
                                  "stop that is not low, read by sample %llu (data bits 0x%02x)\n"
                                : "%s: sample %llu (%.3f us): framing error: the stop bit, read at sample %llu, is 0 "
                                  "(data bits 0x%02x)\n", r->a->path, (unsigned long long)b->start, usec(r, b->start),
                    (unsigned long long)b->stop, b->value);
    }
    r->nbad++;
}

/* The bytes just decoded: written, listed, their framing errors reported
 * (in the final pass). */
static int take_bytes(swo_run_t *r, const etm_uart_byte_t *b, size_t n)
{
    for (size_t k = 0; k < n && r->final; k++) {
        if (r->a->list && !r->a->json)
            printf("%10llu %12.3f us  0x%02x%s\n", (unsigned long long)b[k].start, usec(r, b[k].start), b[k].value,
                   b[k].framing_error ? "  framing error" : "");
        if (b[k].framing_error) {
            framing_error(r, &b[k]);
            continue;
        }
        if (r->first == UINT64_MAX)
            r->first = b[k].start;
        if (r->out && fputc(b[k].value, r->out) == EOF) {
            fprintf(stderr, "etm swo: cannot write %s\n", r->a->out);
            return 2;
        }
    }
    return 0;
}

/* Every sample of the probe through the decoder. Returns 0, or 2 (printed). */
static int decode_capture(swo_run_t *r, uint8_t *lv, etm_uart_byte_t *bytes)
{
    etm_diag_t d;
    etm_err_t ie = r->a->manchester ? etm_uart_init_manchester(&r->uart, r->info->samplerate, r->baud, &d)
                                    : etm_uart_init(&r->uart, r->info->samplerate, r->baud, &d);
    if (ie != ETM_OK) {
        fprintf(stderr, "etm swo: %s: %s\n", r->a->path, d.msg);
        return 2;
    }
    etm_err_t e = etm_sigrok_start(r->sr, r->bit, &d);
    size_t n;
    while (e == ETM_OK && (e = etm_sigrok_read(r->sr, lv, SWO_BLOCK, &n, &d)) == ETM_OK) {
        for (size_t done = 0, nb; done < n;) {
            done += etm_uart_feed(&r->uart, lv + done, n - done, bytes, SWO_BYTES, &nb);
            if (take_bytes(r, bytes, nb))
                return 2;
        }
    }
    if (e != ETM_END) {
        print_diag(&d);
        return 2;
    }
    etm_uart_end(&r->uart);
    return 0;
}

/* The measured rate against the nominal one: how far off (a fraction). */
static double rate_error(const swo_run_t *r)
{
    return etm_uart_measured_baud(&r->uart) / (double)r->baud - 1.0;
}

/* The figures as text. */
static void print_summary(const swo_run_t *r)
{
    const etm_sigrok_info_t *in = r->info;
    const etm_uart_t *u = &r->uart;
    char b1[32], b2[32];
    const char *name = in->probe_name[r->bit];
    printf("%s: probe %u%s%s%s, %llu samples at %s (%.3f ms)\n", r->a->path, r->bit + 1, name[0] ? " (" : "",
           name, name[0] ? ")" : "", (unsigned long long)in->samples, si((double)in->samplerate, 6, "Hz", b1, 32),
           (double)in->samples * 1e3 / (double)in->samplerate);
    if (r->guess)
        printf("rate: %s guessed from the shortest pulses; %s measured at it\n", si((double)r->guess, 6, "baud", b1, 32),
               si((double)r->baud, 7, "baud", b2, 32));
    printf("%s at %s, %.3f samples a bit: %llu bytes, %llu framing errors, %llu glitches\n",
           r->a->manchester ? "Manchester" : "UART 8N1", si((double)r->baud, 7, "baud", b1, 32), (double)in->samplerate / (double)r->baud,
           (unsigned long long)u->bytes, (unsigned long long)u->framing_errors, (unsigned long long)u->glitches);
    if (r->first != UINT64_MAX)
        printf("first byte at sample %llu (%.3f us)\n", (unsigned long long)r->first, usec(r, r->first));
    if (etm_uart_measured_baud(u) > 0)
        printf("the line runs at %s (%+.2f %% from %s; decoding holds within +-%.1f %%), from %llu %s\n",
               si(etm_uart_measured_baud(u), 4, "baud", b1, 32), 100.0 * rate_error(r),
               si((double)r->baud, 6, "baud", b2, 32), 100.0 * etm_uart_tolerance(u), (unsigned long long)u->edges,
               r->a->manchester ? "bit middles" : "falling edges");
}

/* What the figures call for, on stderr: a rate beyond the tolerance, no good
 * byte, a byte cut by the end, framing errors not printed. */
static void print_notes(const swo_run_t *r)
{
    const etm_uart_t *u = &r->uart;
    char b1[32];
    if (fabs(rate_error(r)) > etm_uart_tolerance(u) && etm_uart_measured_baud(u) > 0)
        fprintf(stderr, "etm swo: %s: the line runs %.2f %% off %s, beyond the +-%.1f %% within which every byte "
                        "decodes at any phase of the samples: decode with --baud %.0f (or auto)\n", r->a->path,
                100.0 * fabs(rate_error(r)), si((double)r->baud, 6, "baud", b1, 32), 100.0 * etm_uart_tolerance(u),
                etm_uart_measured_baud(u));
    if (!u->bytes && u->framing_errors)
        fprintf(stderr, "etm swo: %s: no byte has a good stop bit at %s: is it the line's rate? (--baud auto guesses it)\n",
                r->a->path, si((double)r->baud, 6, "baud", b1, 32));
    if (u->cut != UINT64_MAX)
        fprintf(stderr, "etm swo: %s: the capture ends inside a byte that starts at sample %llu: left out\n",
                r->a->path, (unsigned long long)u->cut);
    if (r->nbad > r->a->max_report)
        fprintf(stderr, "etm swo: %lu framing errors not printed (--max-report)\n", r->nbad - r->a->max_report);
}

/* The figures as one JSON object (docs/json.md). */
static void print_json(const swo_run_t *r, int status)
{
    const etm_uart_t *u = &r->uart;
    json_t j;
    json_begin(&j, stdout, "swo", status);
    json_str(&j, "capture", r->a->path);
    json_u64(&j, "probe", r->bit + 1);
    json_str(&j, "channel", r->info->probe_name[r->bit][0] ? r->info->probe_name[r->bit] : NULL);
    json_u64(&j, "samplerate", r->info->samplerate);
    json_u64(&j, "samples", r->info->samples);
    json_str(&j, "protocol", r->a->manchester ? "manchester" : "nrz");
    json_u64(&j, "baud", r->baud);
    if (r->guess)
        json_u64(&j, "baud_guess", r->guess);
    else
        json_null(&j, "baud_guess");
    json_double(&j, "tolerance", etm_uart_tolerance(u));
    json_u64(&j, "bytes", u->bytes);
    json_u64(&j, "framing_errors", u->framing_errors);
    json_u64(&j, "glitches", u->glitches);
    if (r->first != UINT64_MAX)
        json_u64(&j, "first_byte", r->first);
    else
        json_null(&j, "first_byte");
    if (u->cut != UINT64_MAX)
        json_u64(&j, "cut_at_end", u->cut);
    else
        json_null(&j, "cut_at_end");
    json_double(&j, "measured_baud", etm_uart_measured_baud(u) > 0 ? etm_uart_measured_baud(u) : NAN);
    json_u64(&j, "falling_edges", u->edges);
    json_str(&j, "out", r->a->out);
    json_array(&j, "reported");
    for (unsigned long k = 0; k < r->nbad && k < r->a->max_report; k++) {
        json_object(&j, NULL);
        json_u64(&j, "start", r->bad[k].start);
        json_u64(&j, "stop", r->bad[k].stop);
        json_u64(&j, "value", r->bad[k].value);
        json_end(&j);
    }
    json_end(&j);
    json_finish(&j);
}

/* One pass over the capture at r->baud (the final one with the output file
 * open). Returns 0, or 2 (printed). */
static int decode_pass(swo_run_t *r)
{
    outfile_t of;
    memset(&of, 0, sizeof of);
    if (r->final && r->a->out) {
        const char *inputs[] = { r->a->path, NULL };
        if (outfile_open(&of, "swo", r->a->out, inputs))
            return 2;
        r->out = of.f;
    }
    if (r->final && r->sink)
        r->out = r->sink;
    uint8_t *lv = (uint8_t *)malloc(SWO_BLOCK);
    etm_uart_byte_t *bytes = (etm_uart_byte_t *)malloc(SWO_BYTES * sizeof *bytes);
    int status = 2;
    if (!lv || !bytes)
        fprintf(stderr, "etm swo: out of memory\n");
    else
        status = decode_capture(r, lv, bytes);
    free(lv);
    free(bytes);
    if (r->sink && r->out == r->sink) {
        if (r->out && fflush(r->out) != 0 && !status) {
            fprintf(stderr, "etm swo: cannot write a temporary file\n");
            status = 2;
        }
    } else if (outfile_finish(&of, !status, "swo")) { /* the bytes whole, or no file */
        status = 2;
    }
    r->out = NULL;
    return status;
}

/* --baud auto: a first guess from the shortest pulses, a pass at it that
 * measures the rate, the final pass at the rate measured; else the final
 * pass at --baud. Returns 0, or 2 (printed). */
static int swo_decode(swo_run_t *r)
{
    if (!r->baud) {
        if (guess_baud(r) || decode_pass(r))
            return 2;
        double measured = etm_uart_measured_baud(&r->uart);
        if (measured > 0)
            r->baud = (uint64_t)llround(measured);
    }
    r->bad = (etm_uart_byte_t *)calloc(r->a->json ? r->a->max_report + 1 : 1, sizeof *r->bad);
    if (!r->bad) {
        fprintf(stderr, "etm swo: out of memory\n");
        return 2;
    }
    r->final = 1;
    return decode_pass(r);
}

/* A run over a's capture: opened and decoded (the bytes to r->sink, when
 * set, or a->out). Returns 0, or 2 (printed); swo_run_close in any case. */
static int swo_run(swo_run_t *r, const swo_args_t *a, FILE *sink)
{
    memset(r, 0, sizeof *r);
    r->a = a;
    r->baud = a->baud;
    r->first = UINT64_MAX;
    r->sink = sink;
    int status = open_capture(r);
    return status ? status : swo_decode(r);
}

static void swo_run_close(swo_run_t *r)
{
    free(r->bad);
    etm_sigrok_close(r->sr);
}

int swo_open_trace(FILE **f, const char *path, const char *channel, uint64_t baud, int manchester)
{
    if (!file_is_zip(*f))
        return 0; /* not a zip archive: the line's bytes themselves */
    fclose(*f);
    *f = NULL;
    swo_args_t a;
    memset(&a, 0, sizeof a);
    a.path = path;
    a.channel = channel ? channel : "SWO";
    a.baud = baud;
    a.manchester = manchester;
    a.max_report = 20;
    FILE *sink = tmpfile();
    if (!sink) {
        fprintf(stderr, "etm: %s: cannot create a temporary file for the SWO line's bytes\n", path);
        return 2;
    }
    swo_run_t r;
    int status = swo_run(&r, &a, sink);
    if (!status && r.uart.framing_errors)
        fprintf(stderr, "etm: %s: %llu framing errors on the SWO line (those bytes are left out; etm swo lists "
                "them)\n", path, (unsigned long long)r.uart.framing_errors);
    swo_run_close(&r);
    if (status) {
        fclose(sink);
        return status;
    }
    rewind(sink);
    *f = sink;
    return 0;
}

int cmd_swo(int argc, char **argv)
{
    swo_args_t a;
    int status = parse_args(&a, argc, argv);
    if (status >= 0)
        return status;
    const char *inputs[] = { a.path, NULL };
    if (a.out && outfile_refuse("swo", a.out, inputs)) /* before the capture is read */
        return 2;
    swo_run_t r;
    status = swo_run(&r, &a, NULL);
    if (!status) {
        status = r.uart.framing_errors ? 1 : 0;
        if (a.json) {
            print_json(&r, status);
        } else {
            print_summary(&r);
            print_notes(&r);
        }
    }
    swo_run_close(&r);
    return status;
}
