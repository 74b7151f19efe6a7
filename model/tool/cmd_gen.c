/* cmd_gen.c - `etm gen`: constrained-random legal stimulus (etm/gen.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/etm.h"
#include "json.h"
#include "outfile.h"
#include "source.h"
#include "subcommands.h"

static void help(FILE *f)
{
    fprintf(f, "usage: etm gen [options] OUTPUT\n\n"
               "Writes seeded, reproducible, legal interface activity of a Cortex-M3 running a\n"
               "random Thumb-2 program (branches of every kind, IT blocks and folds, stalls,\n"
               "exceptions with nesting, tail-chaining and cancels, SVC) to OUTPUT, a vector\n"
               "file or a .vcd.\n\n"
               "  --cycles N        number of cycles (default 100000)\n"
               "  --seed S          random seed (default 1)\n"
               "  --config FILE     register image for the file header (default: etm-m3)\n"
               "  --preset NAME     ... or a named one\n"
               "  --issue-width 2   dual issue: some cycles retire a second instruction\n"
               "  --irq-period N    mean cycles between exceptions (default 300; 0 none)\n"
               "  --max-intnum N    highest exception number (16-511, default 79)\n"
               "  --stall-pct P     percent of instructions with fetch stalls (default 10)\n"
               "  --sleep N         per mille of instructions followed by a WFI gap (default 0)\n"
               "  --data            drive the data slot interface\n"
               "  --data-mix        ... with byte, halfword, unaligned and big-endian accesses, failed\n"
               "                    STREX, imprecise aborts and POP {pc} loading the PC first\n"
               "  --data-delay N    values 2 to 2+N cycles after their addresses (default 0)\n"
               "  --triggers        drive ETMTRIGGER / ETMTRIGINOTD\n"
               "  --atb-stall P     the trace sink holds ATREADY low P percent of the cycles (0-99)\n"
               "  --atb-burst N     ... in bursts of N cycles on average (default 1)\n"
               "  --reprogram N     every N cycles, reprogram the ETM through the debug APB columns\n"
               "                    while the core runs: first illegal accesses (a write while locked,\n"
               "                    one to a read-only register, one where nothing is, one with the\n"
               "                    programming bit clear), then the architecture's sequence\n"
               "                    for the header's configuration with a new trace ID (ETMSR read\n"
               "                    for as long as the FIFO takes to drain, instead of a poll)\n"
               "  --image PREFIX    write the code image as PREFIX.thread.bin and PREFIX.handler.bin\n"
               "  --events FILE     write what executed, one line per instruction or exception\n"
               "  --json            print what was generated as one JSON object (docs/json.md)\n");
}

/* The value of a numeric option within [min, max]. Returns 0, or -1 printed. */
static int num_arg(int argc, char **argv, int *i, uint64_t min, uint64_t max, uint64_t *v)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "etm gen: %s needs a value\n", argv[*i]);
        return -1;
    }
    ++*i;
    return opt_number("gen", argv[*i - 1], argv[*i], min, max, v);
}

typedef struct gen_opts {
    etm_gen_params_t gp;
    uint64_t cycles, reprogram;
    const char *out, *config, *preset, *image, *events_path;
    int json;
    unsigned long long events[4]; /* instructions, cancels, exception entries, returns generated */
} gen_opts_t;

/* A numeric option into the generator's parameters: 1 taken, 0 not one, -1 bad. */
static int gen_numeric(gen_opts_t *o, int argc, char **argv, int *i)
{
    /* Each with its documented range (help above; etm_gen_create checks the same). */
    const struct { const char *name; unsigned *field; unsigned min, max; } opts[] = {
        { "--issue-width", &o->gp.issue_width, 1, 2 },     { "--irq-period", &o->gp.irq_period, 0, UINT32_MAX },
        { "--max-intnum", &o->gp.max_intnum, 16, 511 },    { "--stall-pct", &o->gp.stall_pct, 0, 100 },
        { "--sleep", &o->gp.sleep_pct, 0, 1000 },          { "--data-delay", &o->gp.data_delay, 0, 16 },
        { "--atb-stall", &o->gp.atb_stall_pct, 0, 99 },    { "--atb-burst", &o->gp.atb_burst, 1, 1000000 },
    };
    const char *a = argv[*i];
    uint64_t v = 0;
    if (!strcmp(a, "--cycles"))
        return num_arg(argc, argv, i, 0, UINT64_MAX, &o->cycles) ? -1 : 1;
    if (!strcmp(a, "--reprogram"))
        return num_arg(argc, argv, i, 0, UINT64_MAX, &o->reprogram) ? -1 : 1;
    if (!strcmp(a, "--seed"))
        return num_arg(argc, argv, i, 0, UINT64_MAX, &o->gp.seed) ? -1 : 1;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        if (strcmp(a, opts[k].name))
            continue;
        if (num_arg(argc, argv, i, opts[k].min, opts[k].max, &v))
            return -1;
        *opts[k].field = (unsigned)v;
        if (!strcmp(a, "--data-delay"))
            o->gp.data = 1;
        return 1;
    }
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int gen_args(gen_opts_t *o, int argc, char **argv)
{
    etm_gen_params_default(&o->gp);
    o->cycles = 100000;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int r = gen_numeric(o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(a, "--data")) {
            o->gp.data = 1;
        } else if (!strcmp(a, "--data-mix")) {
            o->gp.data = 1;
            o->gp.data_mix = 1;
        } else if (!strcmp(a, "--triggers")) {
            o->gp.triggers = 1;
        } else if (!strcmp(a, "--config") && i + 1 < argc) {
            o->config = argv[++i];
        } else if (!strcmp(a, "--preset") && i + 1 < argc) {
            o->preset = argv[++i];
        } else if (!strcmp(a, "--image") && i + 1 < argc) {
            o->image = argv[++i];
        } else if (!strcmp(a, "--events") && i + 1 < argc) {
            o->events_path = argv[++i];
        } else if (!strcmp(a, "--json")) {
            o->json = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "etm gen: unknown option '%s' (try --help)\n", a);
            return 2;
        } else if (o->out) {
            fprintf(stderr, "etm gen: one output file only\n");
            return 2;
        } else {
            o->out = a;
        }
    }
    if (!o->out) {
        help(stderr);
        return 2;
    }
    if (o->json && !strcmp(o->out, "-")) {
        fprintf(stderr, "etm gen: --json prints on stdout, which the output '-' takes: give a file\n");
        return 2;
    }
    return -1;
}

/* The register image for the file header: a file, a preset or the default. */
static int gen_config(const gen_opts_t *o, etm_config_t *cfg)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    if (o->config) {
        if (etm_config_read_file(cfg, o->config, &d) != ETM_OK) {
            print_diag(&d);
            return -1;
        }
    } else if (o->preset) {
        if (etm_config_preset(cfg, o->preset) != ETM_OK) {
            fprintf(stderr, "etm gen: unknown preset '%s'\n", o->preset);
            return -1;
        }
    } else {
        etm_config_default(cfg);
    }
    cfg->issue_width = o->gp.issue_width;
    if (etm_config_validate(cfg, &d, NULL) != ETM_OK) {
        print_diag(&d);
        return -1;
    }
    return 0;
}

/* Columns: table 16.1 always, slot 1, the data slot, the debug APB and ATB when used. */
static uint64_t gen_columns(const gen_opts_t *o)
{
    const etm_gen_params_t *gp = &o->gp;
    unsigned parts = ETM_SIGF_CORE | (gp->issue_width > 1 ? ETM_SIGF_SLOT1 : 0u) | (gp->data ? ETM_SIGF_DATA : 0u) |
                     (o->reprogram ? ETM_SIGF_APB : 0u) | (gp->atb_stall_pct ? ETM_SIGF_ATB : 0u);
    return etm_signal_flag_mask(etm_in_signals, etm_in_signal_count, parts);
}

/* --reprogram: one reprogramming as fixed cycles (a file replays as written, so
 * the poll of ETMSR[1] becomes as many reads as the FIFO takes to drain). */
static size_t reprogram_ops(const etm_config_t *cfg, unsigned k, etm_apb_op_t *ops, size_t max)
{
    etm_apb_op_t seq[ETM_PROGRAM_MAX_OPS];
    etm_config_t t = *cfg;
    unsigned version = 0;
    etm_config_version(cfg, &version, NULL);
    if (version >= ETM_V(3, 0))
        t.etmtraceidr = 1 + k % 0x6F;
    size_t n = 0, m = etm_program_ops(&t, cfg, seq, ETM_PROGRAM_MAX_OPS);
    const etm_apb_op_t illegal[] = {
        { ETM_APB_WRITE, 0, 4u * 0x080u, 0x33, 0 },         /* ETMTRACEIDR while locked (ETMv3) */
        { ETM_APB_WRITE, 0, 4u * 0x001u, 0x1234, 0 },       /* ETMCCR: read-only */
        { ETM_APB_READ, 0, 0xE00u, 0, 0 },                  /* nothing there */
        { ETM_APB_WRITE, 0, 4u * 0x3ECu, ETM_LAR_KEY, 0 },  /* unlock */
        { ETM_APB_WRITE, 0, 4u * 0x008u, 0x6F, 0 },         /* ETMTEEVR, programming bit clear */
    };
    for (size_t i = 0; i < sizeof illegal / sizeof illegal[0] && n < max; i++)
        ops[n++] = illegal[i];
    unsigned drain = cfg->fifo_depth / (cfg->port_bytes ? cfg->port_bytes : 1) + 16;
    for (size_t i = 0; i < m; i++) {
        if (seq[i].kind != ETM_APB_POLL) {
            if (n < max)
                ops[n++] = seq[i];
            continue;
        }
        for (unsigned r = 0; r < drain / 2 + 1 && n < max; r++) { /* two cycles a read */
            ops[n] = seq[i];
            ops[n++].kind = ETM_APB_READ;
        }
    }
    return n;
}

/* Every cycle into the vector file or VCD f (and what executed into ef). */
static etm_err_t gen_write(gen_opts_t *o, const etm_config_t *cfg, etm_gen_t *g, FILE *f, FILE *ef)
{
    int vcd = is_wave_path(o->out);
    uint64_t mask = gen_columns(o);
    char comment[160];
    snprintf(comment, sizeof comment, "etm gen --seed %llu --cycles %llu", (unsigned long long)o->gp.seed,
             (unsigned long long)o->cycles);
    etm_vec_writer_t *vw = NULL;
    etm_vcd_writer_t *cw = NULL;
    etm_err_t e = vcd ? etm_vcd_writer_open(&cw, f, mask, 0, comment)
                      : etm_vec_writer_open(&vw, f, ETM_VEC_STIMULUS, cfg, mask, comment);
    etm_in_t in;
    etm_gen_event_t ev[ETM_GEN_MAX_EVENTS];
    static const char *const kinds[] = { "insn", "cancel", "entry", "return" };
    static etm_apb_op_t ops[4 * ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv;
    unsigned nprog = 0;
    etm_apb_driver_start(&drv, ops, 0);
    for (unsigned long long c = 0; c < o->cycles && e == ETM_OK; c++) {
        progress("gen", c);
        unsigned n = etm_gen_next(g, &in, ev);
        if (o->reprogram) {
            if (!etm_apb_busy(&drv) && c && c % o->reprogram == 0)
                etm_apb_driver_start(&drv, ops, reprogram_ops(cfg, nprog++, ops, sizeof ops / sizeof ops[0]));
            etm_apb_drive(&drv, &in);
            etm_out_t none;
            memset(&none, 0, sizeof none);
            etm_apb_observe(&drv, &none);
        }
        e = vcd ? etm_vcd_write(cw, &in, NULL) : etm_vec_write_in(vw, &in);
        for (unsigned k = 0; k < n; k++) {
            o->events[(unsigned)ev[k].kind < 4 ? ev[k].kind : 0]++;
            if (ef)
                fprintf(ef, "%llu %s %08x %u %u %u %u\n", c, kinds[ev[k].kind], (unsigned)ev[k].addr, ev[k].size,
                        ev[k].passed, ev[k].excnum, ev[k].slot);
        }
    }
    progress_done();
    etm_err_t ce = vcd ? etm_vcd_writer_close(cw) : etm_vec_writer_close(vw);
    return e == ETM_OK ? ce : e;
}

int cmd_gen(int argc, char **argv)
{
    static gen_opts_t o;
    memset(&o, 0, sizeof o);
    int rc = gen_args(&o, argc, argv);
    if (rc >= 0)
        return rc;
    etm_config_t cfg;
    etm_diag_t d;
    if (gen_config(&o, &cfg) != 0)
        return 2;
    etm_gen_t *g;
    if (etm_gen_create(&g, &o.gp, &d) != ETM_OK) {
        fprintf(stderr, "etm gen: %s\n", d.msg);
        return 2;
    }
    /* Every file whole or not at all, none over the configuration it reads
     * (outfile.h); the image's two files are written at the end. */
    const char *inputs[] = { o.config, NULL };
    outfile_t of, evf, imf[2];
    memset(&evf, 0, sizeof evf);
    memset(imf, 0, sizeof imf);
    char imp[2][600];
    if (o.image) {
        snprintf(imp[0], sizeof imp[0], "%s.thread.bin", o.image);
        snprintf(imp[1], sizeof imp[1], "%s.handler.bin", o.image);
    }
    if (outfile_open(&of, "gen", o.out, inputs)) {
        etm_gen_free(g);
        return 2;
    }
    if ((o.events_path && outfile_open(&evf, "gen", o.events_path, inputs)) ||
        (o.image && (outfile_open(&imf[0], "gen", imp[0], inputs) || outfile_open(&imf[1], "gen", imp[1], inputs)))) {
        outfile_discard(&of);
        outfile_discard(&evf);
        outfile_discard(&imf[0]);
        etm_gen_free(g);
        return 2;
    }
    etm_err_t e = gen_write(&o, &cfg, g, of.f, evf.f);
    for (int w = 0; w < 2 && o.image && e == ETM_OK; w++) {
        uint32_t base, size;
        const uint8_t *mem = etm_gen_image(g, (unsigned)w, &base, &size);
        if (!mem || fwrite(mem, 1, size, imf[w].f) != size)
            e = ETM_ERR_IO;
    }
    etm_gen_free(g);
    rc = 0;
    if (e != ETM_OK) {
        fprintf(stderr, "etm gen: %s: %s\n", o.out, etm_strerror(e));
        rc = 2;
    }
    outfile_t *files[] = { &of, &evf, &imf[0], &imf[1] };
    for (int k = 0; k < 4; k++)
        if (outfile_finish(files[k], !rc, "gen"))
            rc = 2;
    if (rc)
        return rc;
    if (o.json) {
        json_t j;
        json_begin(&j, stdout, "gen", 0);
        json_str(&j, "output", o.out);
        json_u64(&j, "cycles", o.cycles);
        json_u64(&j, "seed", o.gp.seed);
        json_u64(&j, "issue_width", o.gp.issue_width);
        json_bool(&j, "data", o.gp.data);
        json_object(&j, "generated");
        json_u64(&j, "instructions", o.events[0]);
        json_u64(&j, "cancels", o.events[1]);
        json_u64(&j, "exception_entries", o.events[2]);
        json_u64(&j, "exception_returns", o.events[3]);
        json_end(&j);
        json_str(&j, "events", o.events_path);
        json_finish(&j);
    }
    return 0;
}
