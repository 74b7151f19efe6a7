/* etm_dpi.c - the DPI-C scoreboard layer over libetm (etm_dpi.h).
 *
 * Everything lives in the handle: no global or static mutable state, so a
 * testbench may hold any number of scoreboards. Text for the testbench (errors,
 * the last report, the summary) is kept in the handle, valid until the next
 * call on the same handle; simulators copy a returned string at once.
 */
#include "etm_dpi.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/number.h"
#include "etm/etm.h"
#include "etm/stim.h"

/* ---- Arguments of etm_dpi_step: the inputs of etm/signals.def, in its order (that
 * of etm_in_signals) -------------------------------------------------------------------- */

enum {
#define ETM_IN(field, name, width, lsb, ctype, part, doc) A_##name,
#include "etm/signals.def"
    A_COUNT
};

/* ---- Output fields --------------------------------------------------------------------- */

static const char *const field_names[ETM_DPI_FIELD_COUNT] = {
#define ETM_OUT(field, name, width, ctype, where, doc) #name,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) #countname, #dataname,
#include "etm/signals.def"
    "VIOLATIONS"
};
static const uint8_t field_widths[ETM_DPI_FIELD_COUNT] = {
#define ETM_OUT(field, name, width, ctype, where, doc) width,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) 4, 8 * (n),
#include "etm/signals.def"
    32
};

#ifdef __cplusplus
#define ETM_DPI_STATIC_ASSERT static_assert
#else
#define ETM_DPI_STATIC_ASSERT _Static_assert
#endif
ETM_DPI_STATIC_ASSERT(ETM_RULE_COUNT <= 64, "VIOLATIONS (a longint unsigned) has one bit per etm_rule_t");
ETM_DPI_STATIC_ASSERT(ETM_MAX_PORT_BYTES == 8, "ATDATA (a longint unsigned) holds the port's bytes");

/* VIOLATIONS bits of every rule the model knows. */
static uint64_t all_rules(void)
{
    return ETM_RULE_COUNT >= 64 ? ~0ull : (1ull << ETM_RULE_COUNT) - 1;
}

static int field_find(const char *name)
{
    for (int i = 0; i < ETM_DPI_FIELD_COUNT; i++) {
        const char *a = field_names[i], *b = name;
        while (*a && toupper((unsigned char)*b) == *a) {
            a++;
            b++;
        }
        if (!*a && !*b)
            return i;
    }
    return -1;
}

/* Do two values of field f differ? ATDATA is compared on its first nbytes lanes. */
static int field_differs(int f, uint64_t a, uint64_t b, unsigned nbytes)
{
    uint64_t m = ~(uint64_t)0;
    if (f == ETM_DPI_FIELD_ATDATA)
        m = nbytes >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * nbytes)) - 1);
    return ((a ^ b) & m) != 0;
}

static unsigned max_u(unsigned a, unsigned b) { return a > b ? a : b; }

/* names[0..count-1] (or up to a NULL when count < 0) joined by ", " into buf. */
static const char *join_names(char *buf, size_t size, const char *const *names, int count)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; (count < 0 ? names[i] != NULL : i < count) && n < size; i++) {
        int k = snprintf(buf + n, size - n, "%s%s", i ? ", " : "", names[i]);
        if (k > 0)
            n += (size_t)k;
    }
    return buf;
}

/* ---- Text buffers ------------------------------------------------------------------------- */

#define TEXT_MAX 4096

typedef struct text {
    char buf[TEXT_MAX];
    size_t n;
} text_t;

static void text_clear(text_t *t)
{
    t->buf[0] = '\0';
    t->n = 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void text_add(text_t *t, const char *fmt, ...)
{
    static const char cut[] = "...\n";
    if (t->n + 1 >= TEXT_MAX)
        return; /* full, already marked */
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->n, TEXT_MAX - t->n, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if ((size_t)k < TEXT_MAX - t->n) {
        t->n += (size_t)k;
        return;
    }
    memcpy(t->buf + TEXT_MAX - sizeof cut, cut, sizeof cut); /* ends in "...\n" */
    t->n = TEXT_MAX - 1;
}

/* ---- The scoreboard ------------------------------------------------------------------------ */

typedef struct etm_dpi {
    char name[160];
    etm_config_t cfg;
    etm_ctx_t *model;      /* NULL until etm_dpi_start */
    /* Semantic mode (etm_dpi_mode): the protocol scoreboard (etm/verify.h) takes
     * the design's bytes instead of comparing every output with the model's. */
    int semantic;
    uint64_t max_latency;  /* cycles from an instruction to its bytes; 0: no bound */
    etm_verify_t *ver;
    int ver_ended;
    int untraced_overflow; /* etm_dpi_untraced_overflow: the design's ETMSR[0] at the end */
    uint64_t quiet_edges;  /* drained edges in a row that gave no byte */
    uint64_t drain_edges;
    uint32_t ignore;       /* ETM_DPI_FIELD_* bits left out of the comparison */
    uint64_t rule_mask;    /* VIOLATIONS bits the design reports */
    etm_apb_op_t prog[ETM_PROGRAM_MAX_OPS]; /* etm_dpi_program: the programming sequence */
    size_t nprog;

    /* Per run (cleared by a reset). */
    uint64_t edges;        /* edges since the reset; the next edge's cycle number */
    uint64_t cycle;        /* cycle number of the last modelled edge */
    int ended, drained;
    int pending;           /* a modelled edge waits for its compare */
    uint64_t modelled;     /* modelled edges since the reset */
    uint64_t prev_cycle;   /* cycle of prev[], valid when modelled > 1 */
    unsigned late_streak;  /* cycles in a row whose outputs changed and the design showed the old ones */
    uint64_t exp[ETM_DPI_FIELD_COUNT], prev[ETM_DPI_FIELD_COUNT]; /* expected outputs, and the edge before */

    /* Over the whole test. */
    uint64_t compared, mismatch_cycles, unknown_cycles, config_diffs, rule_cycles, resets;
    uint64_t field_mismatches[ETM_DPI_FIELD_COUNT];
    uint64_t first_mismatch, last_mismatch;
    uint64_t late_hints;
    int ever_ended, ever_drained;

    char err[512];
    text_t report;
    text_t summary;
} etm_dpi_t;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int fail(etm_dpi_t *d, const char *fmt, ...)
{
    int k = snprintf(d->err, sizeof d->err, "%s: ", d->name);
    va_list ap;
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof d->err)
        vsnprintf(d->err + k, sizeof d->err - (size_t)k, fmt, ap);
    va_end(ap);
    return -1;
}

static void clear_run(etm_dpi_t *d)
{
    d->quiet_edges = d->drain_edges = 0;
    d->edges = 0;
    d->cycle = 0;
    d->ended = d->drained = d->pending = 0;
    d->modelled = d->prev_cycle = 0;
    d->late_streak = 0;
    memset(d->exp, 0, sizeof d->exp);
    memset(d->prev, 0, sizeof d->prev);
}

void *etm_dpi_new(const char *name)
{
    etm_dpi_t *d = (etm_dpi_t *)calloc(1, sizeof *d);
    if (!d)
        return NULL;
    snprintf(d->name, sizeof d->name, "%s", name && *name ? name : "etm");
    etm_config_default(&d->cfg);
    d->rule_mask = all_rules();
    clear_run(d);
    return d;
}

void etm_dpi_free(void *h)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return;
    etm_destroy(d->model);
    etm_verify_destroy(d->ver);
    free(d);
}

const char *etm_dpi_error(void *h)
{
    return h ? ((etm_dpi_t *)h)->err : "no scoreboard handle (etm_dpi_new failed or was not called)";
}

const char *etm_dpi_report(void *h) { return h ? ((etm_dpi_t *)h)->report.buf : ""; }

/* A call on the image: allowed only before etm_dpi_start. */
static etm_dpi_t *image_call(void *h, const char *what)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return NULL;
    d->err[0] = '\0';
    if (d->model) {
        fail(d, "%s: the register image is fixed once the scoreboard has started", what);
        return NULL;
    }
    return d;
}

int etm_dpi_preset(void *h, const char *preset)
{
    etm_dpi_t *d = image_call(h, "preset");
    if (!d)
        return -1;
    etm_config_t c;
    if (preset && etm_config_preset(&c, preset) == ETM_OK) {
        d->cfg = c;
        return 0;
    }
    char list[256];
    return fail(d, "unknown preset '%s': one of %s", preset ? preset : "(null)",
                join_names(list, sizeof list, etm_config_preset_names, -1));
}

/* Does the file begin with a vector file's magic line? */
static int is_vector_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char head[16] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return strncmp(head, "etm-vectors", 11) == 0;
}

int etm_dpi_load(void *h, const char *path)
{
    etm_dpi_t *d = image_call(h, "load");
    if (!d)
        return -1;
    if (!path || !*path)
        return fail(d, "load: no file name given");
    etm_diag_t diag;
    etm_diag_clear(&diag);
    etm_config_t c;
    etm_err_t e;
    if (is_vector_file(path)) {
        etm_vec_reader_t *r = NULL;
        e = etm_vec_open(&r, path, &diag);
        if (e == ETM_OK) {
            c = *etm_vec_config(r);
            etm_vec_close(r);
        }
    } else {
        e = etm_config_read_file(&c, path, &diag);
    }
    if (e != ETM_OK) {
        char where[400];
        if (!diag.file)
            diag.file = path;
        return fail(d, "register image: %s", etm_diag_format(&diag, where, sizeof where));
    }
    d->cfg = c;
    return 0;
}

/* The next item of a list separated by blanks, commas or semicolons: its start
 * and length; 0 at the end. */
static size_t next_item(const char **p)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',' || *s == ';')
        s++;
    const char *e = s;
    while (*e && !(*e == ' ' || *e == '\t' || *e == '\n' || *e == '\r' || *e == ',' || *e == ';'))
        e++;
    *p = s;
    return (size_t)(e - s);
}

int etm_dpi_set(void *h, const char *settings)
{
    etm_dpi_t *d = image_call(h, "set");
    if (!d)
        return -1;
    etm_config_t c = d->cfg;
    uint8_t seen[ETM_CONFIG_SEEN_BYTES];
    memset(seen, 0, sizeof seen);
    const char *p = settings ? settings : "";
    unsigned item = 0;
    for (size_t n; (n = next_item(&p)) != 0; p += n) {
        char one[128];
        item++;
        if (n >= sizeof one)
            return fail(d, "settings item %u '%.40s...': longer than %u characters", item, p,
                        (unsigned)sizeof one - 1);
        memcpy(one, p, n);
        one[n] = '\0';
        etm_diag_t diag;
        etm_diag_clear(&diag);
        if (etm_config_parse_line(&c, one, seen, NULL, &diag) != ETM_OK)
            return fail(d, "settings item %u '%s': %s", item, one, diag.msg);
    }
    d->cfg = c;
    return 0;
}

int etm_dpi_ignore(void *h, const char *fields)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return -1;
    d->err[0] = '\0';
    uint32_t m = 0;
    const char *p = fields ? fields : "";
    for (size_t n; (n = next_item(&p)) != 0; p += n) {
        char one[32];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
        int f = n < sizeof one ? field_find(one) : -1;
        if (f < 0) {
            char list[200];
            return fail(d, "ignore: unknown output field '%.*s': one of %s", (int)n, p,
                        join_names(list, sizeof list, field_names, ETM_DPI_FIELD_COUNT));
        }
        m |= 1u << f;
    }
    d->ignore |= m;
    return 0;
}

int etm_dpi_rule_bits(void *h, unsigned int bits)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return -1;
    d->err[0] = '\0';
    if (bits > 64)
        return fail(d, "rule_bits: %u: VIOLATIONS has at most 64 bits", bits);
    d->rule_mask = all_rules() & (bits >= 64 ? ~0ull : (1ull << bits) - 1);
    return 0;
}

int etm_dpi_mode(void *h, const char *mode)
{
    etm_dpi_t *d = image_call(h, "mode");
    if (!d)
        return -1;
    if (!mode || !*mode || !strcmp(mode, "exact")) {
        d->semantic = 0;
        return 0;
    }
    if (strncmp(mode, "semantic", 8) || (mode[8] && mode[8] != ':'))
        return fail(d, "mode '%s': give exact, semantic or semantic:CYCLES (a latency bound)", mode);
    d->semantic = 1;
    d->max_latency = 0;
    if (mode[8] == ':') {
        uint64_t n = 0;
        etm_diag_t nd;
        if (etm_number_parse(mode + 9, 1, UINT64_MAX, &n, &nd) != ETM_OK)
            return fail(d, "mode '%s': the latency bound after 'semantic:' (cycles) %s", mode, nd.msg);
        d->max_latency = n;
    }
    return 0;
}

/* Semantic mode: a checker for the run that starts (at etm_dpi_start and at
 * every reset). */
static int semantic_open(etm_dpi_t *d)
{
    etm_verify_destroy(d->ver);
    d->ver = NULL;
    d->ver_ended = 0;
    d->untraced_overflow = 0;
    etm_verify_opts_t o;
    memset(&o, 0, sizeof o);
    o.at_reset = 1; /* the design is programmed through its APB, which the checker sees too */
    o.max_latency = d->max_latency;
    etm_diag_t diag;
    etm_diag_clear(&diag);
    if (etm_verify_create(&d->ver, &d->cfg, &o, &diag) != ETM_OK) {
        d->ver = NULL;
        return fail(d, "semantic mode: %s", diag.msg);
    }
    return 0;
}

/* Semantic mode: the checker's verdict once both streams have ended. */
static const etm_verify_result_t *semantic_result(etm_dpi_t *d)
{
    if (!d->ver_ended) {
        etm_verify_end(d->ver, d->untraced_overflow);
        d->ver_ended = 1;
    }
    return etm_verify_result(d->ver);
}

int etm_dpi_untraced_overflow(void *h, int flag)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return -1;
    d->untraced_overflow = flag != 0;
    return 0;
}

/* The implementation choices a design may make differently in semantic mode:
 * not compared with the image there. */
static int is_design_choice(const char *name)
{
    static const char *const names[] = { "FIFO_DEPTH", "FIFO_WRITE", "BRANCH_FULL", "PH_EAGER", "PORT_BYTES" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

int etm_dpi_start(void *h)
{
    etm_dpi_t *d = image_call(h, "start");
    if (!d)
        return -1;
    if (d->cfg.port_bytes == 0)
        return fail(d, "register image: PORT_BYTES=0 is an external port whose bytes leave at their own clock; "
                       "the scoreboard compares a port of 1, 2, 4 or 8 bytes per edge");
    etm_diag_t diag;
    etm_diag_clear(&diag);
    /* As the design comes out of reset: the image gives the implementation;
     * the registers are programmed through the APB, which the model sees too. */
    if (etm_create_at_reset(&d->model, &d->cfg, &diag) != ETM_OK) {
        d->model = NULL;
        return fail(d, "register image not accepted: %s", diag.msg);
    }
    if (d->semantic && semantic_open(d) != 0) {
        etm_destroy(d->model);
        d->model = NULL;
        return -1;
    }
    clear_run(d);
    return 0;
}

int etm_dpi_program(void *h)
{
    etm_dpi_t *d = image_call(h, "program");
    if (!d)
        return -1;
    d->nprog = etm_program_ops(&d->cfg, NULL, d->prog, ETM_PROGRAM_MAX_OPS);
    if (!d->nprog)
        return fail(d, "program: no programming sequence for this register image");
    return (int)d->nprog;
}

int etm_dpi_program_op(void *h, int i, int *kind, unsigned int *offset, unsigned int *value, unsigned int *mask,
                       int *debugger)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return -1;
    if (i < 0 || (size_t)i >= d->nprog)
        return fail(d, "program_op: %d: the sequence has %u operations (etm_dpi_program first)", i,
                    (unsigned)d->nprog);
    const etm_apb_op_t *o = &d->prog[i];
    *kind = o->kind;
    *offset = o->offset;
    *value = o->value;
    *mask = o->mask;
    *debugger = o->debugger;
    return 0;
}

int etm_dpi_reg(void *h, const char *name, unsigned int *value)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return -1;
    d->err[0] = '\0';
    unsigned idx = 0;
    const etm_regdesc_t *r = name ? etm_register_find(name, &idx) : NULL;
    if (!r)
        return fail(d, "no register or parameter named '%s' (docs/registers.md)", name ? name : "(null)");
    if (value)
        *value = etm_register_get(&d->cfg, r, idx);
    return 0;
}

int etm_dpi_check_reg(void *h, const char *name, unsigned int value)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    unsigned int want = 0;
    if (etm_dpi_reg(h, name, &want) != 0)
        return -1;
    text_clear(&d->report);
    if (want == value || (d->semantic && is_design_choice(name)))
        return 0;
    d->config_diffs++;
    text_add(&d->report, "%s: configuration: the design's %s is 0x%08X, the register image has 0x%08X\n", d->name,
             name, value, want);
    return 1;
}

/* ---- Per edge ------------------------------------------------------------------------------ */

static etm_dpi_t *run_call(void *h, const char *what)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return NULL;
    d->err[0] = '\0';
    if (!d->model) {
        fail(d, "%s before etm_dpi_start (or the register image was not accepted)", what);
        return NULL;
    }
    return d;
}

int etm_dpi_reset(void *h)
{
    etm_dpi_t *d = run_call(h, "reset");
    if (!d)
        return -1;
    etm_reset(d->model);
    if (d->semantic && semantic_open(d) != 0)
        return -1;
    clear_run(d);
    d->resets++;
    text_clear(&d->report);
    return 0;
}

/* The expected field values of the model's output record. */
static void set_expected(etm_dpi_t *d, const etm_out_t *o, uint64_t violations)
{
    memcpy(d->prev, d->exp, sizeof d->prev);
    d->prev_cycle = d->cycle;
    d->modelled++;
#define ETM_OUT(field, name, width, ctype, where, doc) d->exp[ETM_DPI_FIELD_##name] = o->field;
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    d->exp[ETM_DPI_FIELD_##countname] = o->count;                      \
    d->exp[ETM_DPI_FIELD_##dataname] = 0;                              \
    for (int i = (n) - 1; i >= 0; i--)                                 \
        d->exp[ETM_DPI_FIELD_##dataname] = d->exp[ETM_DPI_FIELD_##dataname] << 8 | o->bytes[i];
#include "etm/signals.def"
    d->exp[ETM_DPI_FIELD_VIOLATIONS] = violations & d->rule_mask;
    d->cycle = d->edges++;
    d->pending = 1;
}

int etm_dpi_step(void *h,
#define ETM_IN(field, name, width, lsb, ctype, part, doc) ETM_DPI_T_##ctype field,
#include "etm/signals.def"
                 unsigned int unknown)
{
    etm_dpi_t *d = run_call(h, "step");
    if (!d)
        return -1;
    if (d->ended)
        return fail(d, "step at cycle %llu: after the end of trace only drain is allowed (reset to start again)",
                    (unsigned long long)d->edges);
    if ((uint64_t)unknown >> A_COUNT)
        return fail(d, "step: unknown-input mask 0x%X has bits above the %d inputs", unknown, A_COUNT);
    const uint64_t v[A_COUNT] = {
#define ETM_IN(field, name, width, lsb, ctype, part, doc) field,
#include "etm/signals.def"
    };
    etm_in_t in;
    memset(&in, 0, sizeof in);
    for (int a = 0; a < A_COUNT; a++) {
        const etm_signal_t *s = &etm_in_signals[a];
        if (s->width < 64 && v[a] >> s->width)
            return fail(d, "step at cycle %llu: %s value 0x%llX is wider than its %u bits",
                        (unsigned long long)d->edges, s->name, (unsigned long long)v[a], s->width);
        etm_signal_set(s, &in, v[a] << s->lsb);
    }
    text_clear(&d->report);
    int notes = 0;
    const uint64_t cyc = d->edges;
    const uint64_t harmful = etm_in_unknown_harmful(&in, unknown, d->cfg.issue_width);
    for (int a = 0; a < A_COUNT; a++)
        if (harmful >> a & 1) {
            if (!(notes & ETM_DPI_NOTE_UNKNOWN))
                d->unknown_cycles++;
            notes |= ETM_DPI_NOTE_UNKNOWN;
            text_add(&d->report, "%s: cycle %llu: input %s is X or Z while it is qualified; the model sees 0\n",
                     d->name, (unsigned long long)cyc, etm_in_signals[a].name);
        }
    etm_out_t out;
    etm_err_t e = etm_step(d->model, &in, &out);
    uint64_t viol = 0;
    if (e == ETM_ERR_RULE) {
        etm_rule_t rules[ETM_RULE_COUNT];
        unsigned n = etm_last_rules(d->model, rules, ETM_RULE_COUNT);
        viol = etm_last_rule_mask(d->model);
        for (unsigned i = 0; i < n && i < ETM_RULE_COUNT; i++) {
            text_add(&d->report, "%s: cycle %llu: the inputs break interface rule %s: %s\n", d->name,
                     (unsigned long long)cyc, etm_rule_name(rules[i]), etm_rule_text(rules[i]));
        }
        notes |= ETM_DPI_NOTE_RULE;
        d->rule_cycles++;
    } else if (e != ETM_OK) {
        return fail(d, "step at cycle %llu: %s", (unsigned long long)cyc, etm_strerror(e));
    }
    set_expected(d, &out, viol);
    if (d->semantic)
        etm_verify_cycle(d->ver, &in);
    return notes;
}

int etm_dpi_end(void *h)
{
    etm_dpi_t *d = run_call(h, "end");
    if (!d)
        return -1;
    if (d->ended)
        return fail(d, "end at cycle %llu: the trace has already ended (reset to start again)",
                    (unsigned long long)d->edges);
    etm_end(d->model);
    d->ended = d->ever_ended = 1;
    d->pending = 0;
    d->edges++;
    text_clear(&d->report);
    return 0;
}

int etm_dpi_drain(void *h)
{
    etm_dpi_t *d = run_call(h, "drain");
    if (!d)
        return -1;
    if (!d->ended)
        return fail(d, "drain at cycle %llu: before the end of trace (etm_dpi_end)", (unsigned long long)d->edges);
    text_clear(&d->report);
    if (d->semantic && !d->drained) {
        /* The design drains at its own pace: its edges are taken until it has
         * given no byte for 64 of them (at most 10^6). */
        if (d->quiet_edges >= 64 || ++d->drain_edges > 1000000) {
            d->drained = d->ever_drained = 1;
        } else {
            d->cycle = d->edges++;
            d->pending = 1;
            return 1;
        }
    }
    if (d->drained) {
        d->edges++;
        d->pending = 0;
        return 0;
    }
    etm_out_t out;
    if (etm_drain(d->model, &out) == ETM_END) {
        d->drained = d->ever_drained = 1;
        d->edges++;
        d->pending = 0;
        return 0;
    }
    set_expected(d, &out, 0);
    return 1;
}

unsigned long long etm_dpi_expected(void *h, const char *field)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return 0;
    d->err[0] = '\0';
    int f = field ? field_find(field) : -1;
    if (f < 0) {
        fail(d, "expected: unknown output field '%s'", field ? field : "(null)");
        return 0;
    }
    return d->exp[f];
}

/* One field's value as text; ATDATA as the bytes of the valid lanes, oldest first. */
static void format_field(char *buf, size_t size, int f, uint64_t v, unsigned nbytes)
{
    if (f == ETM_DPI_FIELD_ATDATA) {
        size_t n = 0;
        buf[0] = '\0';
        for (unsigned i = 0; i < nbytes && n < size; i++) {
            int k = snprintf(buf + n, size - n, "%s%02X", i ? " " : "", (unsigned)(v >> (8 * i) & 0xffu));
            if (k > 0)
                n += (size_t)k;
        }
        return;
    }
    if (f == ETM_DPI_FIELD_VIOLATIONS) {
        size_t n = 0;
        int k = snprintf(buf, size, "0x%08llX", (unsigned long long)v);
        n = k > 0 ? (size_t)k : 0;
        for (int r = 0; r < ETM_RULE_COUNT && n < size; r++)
            if (v >> r & 1) {
                k = snprintf(buf + n, size - n, " %s", etm_rule_name((etm_rule_t)r));
                if (k > 0)
                    n += (size_t)k;
            }
        return;
    }
    snprintf(buf, size, "0x%0*llX", (field_widths[f] + 3) / 4, (unsigned long long)v);
}

int etm_dpi_compare(void *h,
#define ETM_OUT(field, name, width, ctype, where, doc) ETM_DPI_T_##ctype field,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    unsigned int count, unsigned long long bytes,
#include "etm/signals.def"
                    unsigned long long violations, unsigned int unknown)
{
    etm_dpi_t *d = run_call(h, "compare");
    if (!d)
        return -1;
    if (!d->pending)
        return fail(d, "compare at cycle %llu: no modelled edge to compare (one compare per step, or per drain "
                       "that returned 1)", (unsigned long long)d->edges);
    if (unknown >> ETM_DPI_FIELD_COUNT)
        return fail(d, "compare: unknown-output mask 0x%X has bits above the %d fields", unknown,
                    ETM_DPI_FIELD_COUNT);
    d->pending = 0;
    text_clear(&d->report);
    if (d->semantic) {
        (void)violations;
        (void)unknown;
        uint64_t before = etm_verify_result(d->ver)->failures;
        if (etm_verify_is_v1(d->ver)) {
            /* ETMv1: the port of this edge. */
            etm_out_t o;
            memset(&o, 0, sizeof o);
            o.pipestat = (uint8_t)pipestat;
            o.tracepkt = (uint16_t)tracepkt;
            o.tracesync = (uint8_t)tracesync;
            etm_verify_port(d->ver, &o);
            d->quiet_edges = pipestat == ETM_V1_PS_TD && !tracepkt ? d->quiet_edges + 1 : 0;
        } else {
            /* The bytes the design handed over at this edge: V3COUNT of ATDATA's lanes. */
            uint8_t b[ETM_MAX_PORT_BYTES];
            unsigned n = v3_count < (unsigned)ETM_MAX_PORT_BYTES ? v3_count : (unsigned)ETM_MAX_PORT_BYTES;
            for (unsigned i = 0; i < n; i++)
                b[i] = (uint8_t)(v3_bytes >> (8 * i));
            etm_verify_bytes(d->ver, b, n, 1);
            d->quiet_edges = n ? 0 : d->quiet_edges + 1;
        }
        d->compared++;
        const etm_verify_result_t *r = etm_verify_result(d->ver);
        if (r->failures == before)
            return 0;
        char what[600];
        text_add(&d->report, "%s: %s\n", d->name, etm_verify_describe(d->ver, what, sizeof what));
        return 1;
    }
    const uint64_t got[ETM_DPI_FIELD_COUNT] = {
#define ETM_OUT(field, name, width, ctype, where, doc) field,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) count, bytes,
#include "etm/signals.def"
        violations & d->rule_mask
    };
    /* ATDATA: the lanes either side's V3COUNT makes valid (extra bytes are a
     * difference too); the model's lanes alone if V3COUNT is not compared. */
    const unsigned got_v3count = (unsigned)got[ETM_DPI_FIELD_V3COUNT];
    const unsigned got_n = (d->ignore >> ETM_DPI_FIELD_V3COUNT & 1) ? 0
                           : (got_v3count > (unsigned)ETM_MAX_PORT_BYTES ? (unsigned)ETM_MAX_PORT_BYTES : got_v3count);
    const unsigned nbytes = max_u((unsigned)d->exp[ETM_DPI_FIELD_V3COUNT], got_n);
    const unsigned prev_n = max_u((unsigned)d->prev[ETM_DPI_FIELD_V3COUNT], got_n);
    int ndiff = 0;
    /* A design one edge late shows, whenever the outputs change, the model's
     * outputs of the edge before. One such cycle can be chance (a flipped bit
     * that equals the old value); several in a row, with no change followed on
     * time between them, are a pattern. */
    int like_prev = d->modelled > 1 && d->prev_cycle + 1 == d->cycle, changed = 0;
    for (int f = 0; f < ETM_DPI_FIELD_COUNT; f++) {
        if (d->ignore >> f & 1)
            continue;
        const int xz = unknown >> f & 1;
        if (xz || field_differs(f, got[f], d->prev[f], prev_n))
            like_prev = 0;
        if (field_differs(f, d->exp[f], d->prev[f], max_u(nbytes, prev_n)))
            changed = 1;
        if (!xz && !field_differs(f, got[f], d->exp[f], nbytes))
            continue;
        if (ndiff++ == 0)
            text_add(&d->report, "%s: cycle %llu: mismatch%s\n", d->name, (unsigned long long)d->cycle,
                     d->ended ? " (draining after the end of trace)" : "");
        d->field_mismatches[f]++;
        char e[160], g[160];
        format_field(e, sizeof e, f, d->exp[f], nbytes);
        if (xz)
            snprintf(g, sizeof g, "X or Z");
        else
            format_field(g, sizeof g, f, got[f], nbytes);
        text_add(&d->report, "  %-12s expected %-24s got %s\n", field_names[f], e, g);
    }
    d->compared++;
    if (changed && d->modelled > 1)
        d->late_streak = like_prev ? d->late_streak + 1 : 0;
    if (!ndiff)
        return 0;
    if (like_prev && d->late_streak >= 3) {
        d->late_hints++;
        text_add(&d->report,
                 "  the design's outputs are the model's of cycle %llu: is the design one cycle late, or are "
                 "its outputs sampled after the edge instead of before it? (docs/dpi.md)\n",
                 (unsigned long long)d->prev_cycle);
    }
    if (!d->mismatch_cycles)
        d->first_mismatch = d->cycle;
    d->last_mismatch = d->cycle;
    d->mismatch_cycles++;
    return ndiff;
}

/* ---- Reports -------------------------------------------------------------------------------- */

unsigned long long etm_dpi_cycle(void *h) { return h ? ((etm_dpi_t *)h)->cycle : 0; }

unsigned long long etm_dpi_failures(void *h)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return 0;
    uint64_t sem = d->semantic && d->ver ? (d->drained ? semantic_result(d) : etm_verify_result(d->ver))->failures : 0;
    return d->mismatch_cycles + d->unknown_cycles + d->config_diffs + sem;
}

unsigned long long etm_dpi_compared(void *h) { return h ? ((etm_dpi_t *)h)->compared : 0; }

const char *etm_dpi_summary(void *h)
{
    etm_dpi_t *d = (etm_dpi_t *)h;
    if (!d)
        return "no scoreboard handle";
    text_t *t = &d->summary;
    text_clear(t);
    if (d->semantic && d->ver) {
        const etm_verify_result_t *r = semantic_result(d);
        const unsigned long long fails = etm_dpi_failures(h);
        if (fails)
            text_add(t, "%s: FAIL (semantic): %llu cycles, %llu %s; %s\n", d->name,
                     (unsigned long long)r->cycles, (unsigned long long)r->bytes,
                     etm_verify_is_v1(d->ver) ? "port cycles" : "trace bytes",
                     r->failures ? "the trace does not say what the core did" : "unknown inputs or configuration");
        else if (!d->compared)
            text_add(t, "%s: FAIL (semantic): no cycle was compared\n", d->name);
        else
            text_add(t, "%s: PASS (semantic): %llu cycles, %llu %s: %llu instructions traced as executed, "
                        "%llu overflows, latency at most %llu cycles\n",
                     d->name, (unsigned long long)r->cycles, (unsigned long long)r->bytes,
                     etm_verify_is_v1(d->ver) ? "port cycles" : "trace bytes",
                     (unsigned long long)r->instructions, (unsigned long long)r->overflows,
                     (unsigned long long)r->max_latency);
        if (r->failures) {
            char what[600];
            text_add(t, "  %s\n", etm_verify_describe(d->ver, what, sizeof what));
        }
        if (d->unknown_cycles || d->config_diffs)
            text_add(t, "  %llu cycles with unknown inputs, %llu configuration differences\n",
                     (unsigned long long)d->unknown_cycles, (unsigned long long)d->config_diffs);
        return t->buf;
    }
    const unsigned long long fails = etm_dpi_failures(h);
    if (fails)
        text_add(t, "%s: FAIL: %llu cycles compared, %llu mismatching, %llu with unknown inputs, "
                    "%llu configuration differences\n",
                 d->name, (unsigned long long)d->compared, (unsigned long long)d->mismatch_cycles,
                 (unsigned long long)d->unknown_cycles, (unsigned long long)d->config_diffs);
    else if (!d->compared)
        text_add(t, "%s: FAIL: no cycle was compared (the scoreboard never saw a reset followed by clock edges)\n",
                 d->name);
    else
        text_add(t, "%s: PASS: %llu cycles compared, 0 mismatches\n", d->name, (unsigned long long)d->compared);
    if (d->mismatch_cycles) {
        text_add(t, "  first mismatch at cycle %llu, last at cycle %llu; per field:",
                 (unsigned long long)d->first_mismatch, (unsigned long long)d->last_mismatch);
        for (int f = 0; f < ETM_DPI_FIELD_COUNT; f++)
            if (d->field_mismatches[f])
                text_add(t, " %s %llu", field_names[f], (unsigned long long)d->field_mismatches[f]);
        text_add(t, "\n");
        if (d->late_hints)
            text_add(t, "  %llu mismatching cycles show the model's outputs of the cycle before: a design one "
                        "cycle late?\n", (unsigned long long)d->late_hints);
    }
    if (d->resets > 1)
        text_add(t, "  %llu resets: cycle numbers restart from 0 after each\n", (unsigned long long)d->resets);
    if (d->rule_cycles)
        text_add(t, "  %llu cycles of stimulus broke an interface rule (docs/interface.md)\n",
                 (unsigned long long)d->rule_cycles);
    if (d->ignore) {
        text_add(t, "  not compared:");
        for (int f = 0; f < ETM_DPI_FIELD_COUNT; f++)
            if (d->ignore >> f & 1)
                text_add(t, " %s", field_names[f]);
        text_add(t, "\n");
    }
    if (!d->ever_ended)
        text_add(t, "  the trace was never ended: what the FIFO held at the end was not compared\n");
    else if (!d->ever_drained)
        text_add(t, "  the trace was ended but not drained to the last byte\n");
    return t->buf;
}

/* ---- Stimulus sources ------------------------------------------------------------------------ */

typedef struct etm_dpi_stim {
    etm_stim_t *src; /* NULL: nothing opened, idle records */
    unsigned atb_stall_pct, atb_burst; /* etm_dpi_stim_atb, for the next etm_dpi_stim_generate */
    char err[512];
} etm_dpi_stim_t;

void *etm_dpi_stim_new(void) { return calloc(1, sizeof(etm_dpi_stim_t)); }

void etm_dpi_stim_free(void *h)
{
    etm_dpi_stim_t *s = (etm_dpi_stim_t *)h;
    if (!s)
        return;
    etm_stim_close(s->src);
    free(s);
}

const char *etm_dpi_stim_error(void *h)
{
    return h ? ((etm_dpi_stim_t *)h)->err : "no stimulus handle (etm_dpi_stim_new failed or was not called)";
}

/* Closes what was open; the handle, or NULL. */
static etm_dpi_stim_t *stim_reopen(void *h)
{
    etm_dpi_stim_t *s = (etm_dpi_stim_t *)h;
    if (s) {
        etm_stim_close(s->src);
        s->src = NULL;
        s->err[0] = '\0';
    }
    return s;
}

/* The result of opening a source: 0, or -1 with the error kept. */
static int stim_opened(etm_dpi_stim_t *s, etm_err_t e, etm_diag_t *diag, const char *path)
{
    if (e == ETM_OK)
        return 0;
    s->src = NULL;
    if (!diag->file)
        diag->file = path;
    char where[400];
    snprintf(s->err, sizeof s->err, "stimulus: %s", etm_diag_format(diag, where, sizeof where));
    return -1;
}

int etm_dpi_stim_vectors(void *h, const char *path)
{
    etm_dpi_stim_t *s = stim_reopen(h);
    if (!s)
        return -1;
    etm_diag_t diag;
    etm_diag_clear(&diag);
    return stim_opened(s, etm_stim_open_vectors(&s->src, path ? path : "", &diag), &diag, path);
}

int etm_dpi_stim_vcd(void *h, const char *path)
{
    etm_dpi_stim_t *s = stim_reopen(h);
    if (!s)
        return -1;
    etm_diag_t diag;
    etm_diag_clear(&diag);
    etm_vcd_opts_t vo;
    etm_vcd_opts_init(&vo);
    vo.kind = ETM_VEC_STIMULUS;
    vo.allow_missing = 1;
    return stim_opened(s, etm_stim_open_vcd(&s->src, path ? path : "", &vo, &diag), &diag, path);
}

int etm_dpi_stim_records(void *h, const char *path)
{
    etm_dpi_stim_t *s = stim_reopen(h);
    if (!s)
        return -1;
    etm_diag_t diag;
    etm_diag_clear(&diag);
    return stim_opened(s, etm_stim_open_records(&s->src, path ? path : "", NULL, &diag), &diag, path);
}

int etm_dpi_stim_generate(void *h, unsigned long long seed, unsigned long long cycles,
                          unsigned int issue_width, unsigned int data, unsigned int triggers,
                          unsigned int irq_period)
{
    etm_dpi_stim_t *s = stim_reopen(h);
    if (!s)
        return -1;
    etm_gen_params_t p;
    etm_gen_params_default(&p);
    p.seed = seed;
    p.issue_width = issue_width;
    p.data = data != 0;
    p.triggers = triggers != 0;
    p.irq_period = irq_period;
    p.atb_stall_pct = s->atb_stall_pct;
    p.atb_burst = s->atb_burst ? s->atb_burst : 1;
    etm_diag_t diag;
    etm_diag_clear(&diag);
    return stim_opened(s, etm_stim_open_gen(&s->src, &p, cycles, &diag), &diag, NULL);
}

int etm_dpi_stim_atb(void *h, unsigned int stall_pct, unsigned int burst)
{
    etm_dpi_stim_t *s = (etm_dpi_stim_t *)h;
    if (!s)
        return -1;
    if (stall_pct > 99 || burst == 0) {
        snprintf(s->err, sizeof s->err, "ATB back-pressure: %u %% of the cycles in bursts of %u: give 0-99 %% and "
                 "bursts of 1 or more", stall_pct, burst);
        return -1;
    }
    s->atb_stall_pct = stall_pct;
    s->atb_burst = burst;
    return 0;
}

int etm_dpi_stim_next(void *h, unsigned int hold
#define ETM_IN(field, name, width, lsb, ctype, part, doc) , ETM_DPI_T_##ctype *field
#include "etm/signals.def"
)
{
    etm_dpi_stim_t *s = (etm_dpi_stim_t *)h;
    etm_in_t in;
    memset(&in, 0, sizeof in);
    int rc = 0;
    if (!s) {
        rc = -1;
    } else if (s->src) {
        etm_diag_t diag;
        etm_diag_clear(&diag);
        etm_err_t e = etm_stim_next(s->src, hold != 0, &in, &diag);
        if (e == ETM_OK) {
            rc = 1;
        } else if (e != ETM_END) {
            char where[400];
            snprintf(s->err, sizeof s->err, "stimulus: %s", etm_diag_format(&diag, where, sizeof where));
            rc = -1;
        }
        if (rc != 1)
            memset(&in, 0, sizeof in);
    }
#define ETM_IN(field, name, width, lsb, ctype, part, doc) \
    if (field)                                     \
        *field = (ETM_DPI_T_##ctype)((in.field >> (lsb)) ^ ETM_SIG_PORT_XOR(part));
#include "etm/signals.def"
    return rc;
}
