/* source.c - per-cycle input for the command-line tool (see source.h). */
#define _POSIX_C_SOURCE 200809L
#include "source.h"

#include "etm/number.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SOURCE_BLOCK 1024 /* records of binary stimulus decoded at a time */
#define AHEAD_SLOTS 16    /* blocks a reading thread may hold, the one in use included */

/* Binary stimulus read ahead by a thread of its own: it reads and decodes
 * blocks into a ring of slots while the caller steps the model over the block
 * it holds (the file's bytes and their decoding then cost the caller nothing
 * on a machine with a core to spare). A block's error, or the end, comes
 * after its good records, as without the thread. */
typedef struct ahead_slot {
    etm_in_t *rec;
    size_t n;
    etm_err_t end;
    etm_diag_t diag;
} ahead_slot_t;

struct source_ahead {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    etm_vec_reader_t *vec;
    ahead_slot_t slot[AHEAD_SLOTS];
    unsigned filled, released; /* slots filled by the thread, given back by the caller */
    int holding;               /* the caller holds slot[released % AHEAD_SLOTS] */
    int stop;
    int pwait, cwait;          /* the thread waits for a free slot; the caller for a filled one */
};

static void *ahead_main(void *arg)
{
    struct source_ahead *a = (struct source_ahead *)arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (a->filled - a->released == AHEAD_SLOTS && !a->stop) {
            a->pwait = 1;
            pthread_cond_wait(&a->cv, &a->mu);
        }
        a->pwait = 0;
        int stop = a->stop;
        pthread_mutex_unlock(&a->mu);
        if (stop)
            break;
        ahead_slot_t *sl = &a->slot[a->filled % AHEAD_SLOTS];
        etm_diag_clear(&sl->diag);
        sl->end = etm_vec_read_block(a->vec, sl->rec, SOURCE_BLOCK, &sl->n, &sl->diag);
        pthread_mutex_lock(&a->mu);
        a->filled++;
        if (a->cwait)
            pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        if (sl->end != ETM_OK)
            break;
    }
    return NULL;
}

static void ahead_free(struct source_ahead *a)
{
    for (unsigned k = 0; k < AHEAD_SLOTS; k++)
        free(a->slot[k].rec);
    free(a);
}

static void ahead_stop(source_t *s)
{
    struct source_ahead *a = s->ahead;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->th, NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    ahead_free(a);
    s->ahead = NULL;
}

/* The thread started on s->vec; without it (--no-read-ahead, no memory, no
 * thread) s->ahead stays NULL and the caller reads block by block itself. */
static void ahead_start(source_t *s)
{
    struct source_ahead *a = (struct source_ahead *)calloc(1, sizeof *a);
    if (!a)
        return;
    a->vec = s->vec;
    int ok = 1;
    for (unsigned k = 0; k < AHEAD_SLOTS; k++)
        ok &= (a->slot[k].rec = (etm_in_t *)malloc(SOURCE_BLOCK * sizeof(etm_in_t))) != NULL;
    int mu = ok && pthread_mutex_init(&a->mu, NULL) == 0;
    int cv = mu && pthread_cond_init(&a->cv, NULL) == 0;
    if (cv && pthread_create(&a->th, NULL, ahead_main, a) == 0) {
        s->ahead = a;
        s->blk = a->slot[0].rec; /* (read from the first refill on) */
        return;
    }
    if (cv)
        pthread_cond_destroy(&a->cv);
    if (mu)
        pthread_mutex_destroy(&a->mu);
    ahead_free(a);
}

/* The next slot the thread filled, the one held given back. */
static void ahead_next(source_t *s)
{
    struct source_ahead *a = s->ahead;
    pthread_mutex_lock(&a->mu);
    if (a->holding) {
        a->released++;
        /* The thread, when it waits, is woken once half the ring is free:
         * fewer wake-ups than one a block. */
        if (a->pwait && a->filled - a->released <= AHEAD_SLOTS / 2)
            pthread_cond_broadcast(&a->cv);
    }
    while (a->filled == a->released) {
        a->cwait = 1;
        pthread_cond_wait(&a->cv, &a->mu);
    }
    a->cwait = 0;
    a->holding = 1;
    pthread_mutex_unlock(&a->mu);
    ahead_slot_t *sl = &a->slot[a->released % AHEAD_SLOTS];
    s->blk = sl->rec;
    s->bn = sl->n;
    s->bend = sl->end;
    s->bdiag = sl->diag;
}

int config_apply_sets(const char *cmd, etm_config_t *cfg, const char *const *sets, int nsets)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    for (int i = 0; i < nsets; i++)
        if (etm_config_parse_line(cfg, sets[i], NULL, NULL, &d) != ETM_OK) {
            fprintf(stderr, "%s: --set %s: %s\n", cmd, sets[i], d.msg);
            return -1;
        }
    return 0;
}

void source_opts_init(source_opts_t *o)
{
    memset(o, 0, sizeof *o);
    etm_vcd_opts_init(&o->vcd);
}

const char source_opts_help[] =
    "Input options (a file ending in .vcd is read as VCD, .fst as FST, anything else as a\n"
    "vector file):\n"
    "  --config FILE      register image for a VCD or FST input, or a vector file whose header\n"
    "                     holds it (default: the etm-m3 preset)\n"
    "  --format vec|vcd   override the choice by file name\n"
    "  --clock NAME       VCD clock (default: CLK, HCLK, FCLK, clk_i or clock)\n"
    "  --period P         VCD without a clock: sample every P time units\n"
    "  --offset T         ... starting at time T (default P)\n"
    "  --reset NAME       skip cycles while NAME is 1; --reset-n NAME: while it is 0\n"
    "  --scope PATH       take signals from this scope only (dot-separated)\n"
    "  --map COL=NAME     read column COL from VCD signal NAME (repeatable)\n"
    "  --allow-missing    absent interface signals read as 0\n"
    "  --no-read-ahead    read and decode binary stimulus on the model's own thread, not on\n"
    "                     a second one that reads ahead (faster where the decoded records\n"
    "                     cost more to pass between cores than to decode)\n";

static int need_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "etm: %s needs a value\n", argv[*i]);
        return -1;
    }
    return 0;
}

int config_load_file(const char *cmd, const char *path, etm_config_t *cfg)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    FILE *f = fopen(path, "r");
    char first[32] = "";
    if (f) {
        if (!fgets(first, sizeof first, f))
            first[0] = '\0';
        fclose(f);
    }
    etm_err_t e;
    if (!strncmp(first, "etm-vectors", 11)) {
        etm_vec_reader_t *r;
        e = etm_vec_open(&r, path, &d);
        if (e == ETM_OK) {
            *cfg = *etm_vec_config(r);
            etm_vec_close(r);
        }
    } else {
        e = etm_config_read_file(cfg, path, &d);
    }
    if (e != ETM_OK) {
        char buf[400];
        fprintf(stderr, "etm%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", etm_diag_format(&d, buf, sizeof buf));
        return -1;
    }
    return 0;
}

int file_is_zip(FILE *f)
{
    unsigned char m[4];
    size_t n = fread(m, 1, sizeof m, f);
    rewind(f);
    return n == 4 && m[0] == 'P' && m[1] == 'K' && m[2] == 3 && m[3] == 4;
}

const char *not_trace_kind(FILE *f, int zip_ok)
{
    unsigned char h[16];
    size_t n = fread(h, 1, sizeof h, f);
    rewind(f);
    if (n >= 11 && !memcmp(h, "etm-vectors", 11))
        return "a vector file (stimulus or expected output), not trace: etm run --trace writes the trace";
    if (n >= 4 && h[0] == '$' && (!memcmp(h, "$date", 5) || !memcmp(h, "$version", 8) || !memcmp(h, "$timescale", 10) ||
                                  !memcmp(h, "$scope", 6) || !memcmp(h, "$comment", 8)))
        return "a VCD, not trace: etm run reads it as stimulus";
    if (!zip_ok && file_is_zip(f))
        return "a zip archive (a sigrok capture of a pin?), not trace: give --swo to decode the pin";
    if (n >= 4 && h[0] == 0x7F && h[1] == 'E' && h[2] == 'L' && h[3] == 'F')
        return "an ELF file, not trace: a program is given as --image";
    return NULL;
}

int opt_number(const char *cmd, const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
    etm_diag_t d;
    if (etm_number_parse(v, min, max, out, &d) == ETM_OK)
        return 0;
    fprintf(stderr, "etm%s%s: %s %s\n", cmd ? " " : "", cmd ? cmd : "", opt, d.msg);
    return -1;
}

int source_opts_parse(source_opts_t *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--allow-missing")) {
        o->vcd.allow_missing = 1;
        return 1;
    }
    if (!strcmp(a, "--no-read-ahead")) {
        o->no_read_ahead = 1;
        return 1;
    }
    static const char *const with_value[] = { "--config", "--format", "--clock",  "--period", "--offset",
                                              "--reset",  "--reset-n", "--scope", "--map" };
    size_t k;
    for (k = 0; k < sizeof with_value / sizeof with_value[0]; k++)
        if (!strcmp(a, with_value[k]))
            break;
    if (k == sizeof with_value / sizeof with_value[0])
        return 0;
    if (need_value(argc, argv, i))
        return -1;
    const char *v = argv[++*i];
    if (!strcmp(a, "--config"))
        o->config_path = v;
    else if (!strcmp(a, "--format")) {
        if (strcmp(v, "vec") && strcmp(v, "vcd")) {
            fprintf(stderr, "etm: --format must be vec or vcd, not '%s'\n", v);
            return -1;
        }
        o->format = v;
    } else if (!strcmp(a, "--clock"))
        o->vcd.clock = v;
    else if (!strcmp(a, "--period")) {
        if (opt_number(NULL, a, v, 1, UINT64_MAX, &o->vcd.period))
            return -1;
    } else if (!strcmp(a, "--offset")) {
        if (opt_number(NULL, a, v, 0, UINT64_MAX, &o->vcd.offset))
            return -1;
    } else if (!strcmp(a, "--reset")) {
        o->vcd.reset = v;
        o->vcd.reset_active_low = 0;
    } else if (!strcmp(a, "--reset-n")) {
        o->vcd.reset = v;
        o->vcd.reset_active_low = 1;
    } else if (!strcmp(a, "--scope"))
        o->vcd.scope = v;
    else if (!strcmp(a, "--map")) {
        if (o->nmap >= ETM_VCD_MAX_MAP - 1) {
            fprintf(stderr, "etm: too many --map options\n");
            return -1;
        }
        o->vcd.map[o->nmap++] = v;
    }
    return 1;
}

void print_diag(const etm_diag_t *d)
{
    char buf[512];
    progress_done();
    fprintf(stderr, "etm: %s\n", etm_diag_format(d, buf, sizeof buf));
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int is_wave_path(const char *path) { return ends_with(path, ".vcd") || ends_with(path, ".fst"); }

int source_open(source_t *s, const char *path, const source_opts_t *o, etm_veckind_t kind)
{
    etm_diag_t d;
    memset(s, 0, sizeof *s);
    s->path = path;
    s->is_vcd = o->format ? !strcmp(o->format, "vcd") || !strcmp(o->format, "fst") : is_wave_path(path);
    if (!s->is_vcd) {
        if (o->config_path) {
            fprintf(stderr, "etm: --config applies to VCD input; %s carries its configuration in its header\n", path);
            return 2;
        }
        if (etm_vec_open(&s->vec, path, &d) != ETM_OK) {
            print_diag(&d);
            return 2;
        }
        if (etm_vec_kind(s->vec) != kind) {
            fprintf(stderr, "etm: %s: expected a %s file, found %s\n", path,
                    kind == ETM_VEC_STIMULUS ? "stimulus" : "expected-output",
                    kind == ETM_VEC_STIMULUS ? "expected output" : "stimulus");
            etm_vec_close(s->vec);
            s->vec = NULL;
            return 2;
        }
        s->cfg = *etm_vec_config(s->vec);
        if (kind == ETM_VEC_STIMULUS && etm_vec_is_binary(s->vec)) {
            if (!o->no_read_ahead)
                ahead_start(s);
            if (!s->ahead) /* blocks read here; without the memory for one, record by record */
                s->own_blk = s->blk = (etm_in_t *)malloc(SOURCE_BLOCK * sizeof *s->blk);
        }
        return 0;
    }
    if (o->config_path) {
        if (config_load_file(NULL, o->config_path, &s->cfg) != 0)
            return 2;
    } else {
        etm_config_default(&s->cfg);
    }
    etm_vcd_opts_t vo = o->vcd;
    vo.kind = kind;
    vo.issue_width = s->cfg.issue_width;
    if (etm_vcd_open(&s->vcd, path, &vo, &d) != ETM_OK) {
        print_diag(&d);
        return 2;
    }
    if (!o->config_path && kind == ETM_VEC_STIMULUS) /* a VCD carries no register image: say what stands in for one */
        fprintf(stderr, "etm: %s: a VCD holds no configuration and --config was not given: using the etm-m3 "
                        "preset (etm config --preset etm-m3 shows it)\n", path);
    for (const char *n = etm_vcd_notes(s->vcd); *n;) {
        const char *e = strchr(n, '\n');
        int len = e ? (int)(e - n) : (int)strlen(n);
        fprintf(stderr, "etm: %s: %.*s\n", path, len, n);
        n += len + (e ? 1 : 0);
    }
    return 0;
}

void source_close(source_t *s)
{
    ahead_stop(s);
    free(s->own_blk);
    s->blk = s->own_blk = NULL;
    etm_vec_close(s->vec);
    etm_vcd_close(s->vcd);
    s->vec = NULL;
    s->vcd = NULL;
}

/* The next block of binary stimulus; an error or the end after some good
 * records is kept until they are used up. */
static etm_err_t source_refill(source_t *s)
{
    s->bn = s->bpos = 0;
    if (s->ahead && s->bend == ETM_OK)
        ahead_next(s);
    else if (s->bend == ETM_OK) {
        etm_diag_clear(&s->bdiag);
        s->bend = etm_vec_read_block(s->vec, s->blk, SOURCE_BLOCK, &s->bn, &s->bdiag);
    }
    if (s->bn)
        return ETM_OK;
    if (s->bend != ETM_END)
        print_diag(&s->bdiag);
    return s->bend;
}

etm_err_t source_read_block(source_t *s, const etm_in_t **in, size_t *n)
{
    *n = 0;
    if (s->bpos == s->bn) {
        etm_err_t e = source_refill(s);
        if (e != ETM_OK)
            return e;
    }
    *in = s->blk + s->bpos;
    *n = s->bn - s->bpos;
    s->bpos = s->bn;
    return ETM_OK;
}

etm_err_t source_read_in(source_t *s, etm_in_t *in)
{
    if (s->blk) {
        if (s->bpos == s->bn) {
            etm_err_t e = source_refill(s);
            if (e != ETM_OK)
                return e;
        }
        *in = s->blk[s->bpos++];
        return ETM_OK;
    }
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_err_t e = s->is_vcd ? etm_vcd_read_in(s->vcd, in, &d) : etm_vec_read_in(s->vec, in, &d);
    if (e != ETM_OK && e != ETM_END)
        print_diag(&d);
    return e;
}

etm_err_t source_read_out(source_t *s, etm_out_t *out)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_err_t e = s->is_vcd ? etm_vcd_read_out(s->vcd, out, &d) : etm_vec_read_out(s->vec, out, &d);
    if (e != ETM_OK && e != ETM_END)
        print_diag(&d);
    return e;
}

uint64_t source_signal_mask(const source_t *s)
{
    return s->is_vcd ? etm_vcd_signal_mask(s->vcd) : etm_vec_signal_mask(s->vec);
}

unsigned long source_line(const source_t *s) { return s->is_vcd ? 0 : etm_vec_line(s->vec); }

const char *source_where(const source_t *s, const char *path, int with_line, char *buf, size_t size)
{
    unsigned long line = with_line ? source_line(s) : 0;
    if (line) /* text: the line; a VCD or binary stimulus has none (its cycle says where) */
        snprintf(buf, size, "%s:%lu", path, line);
    else
        snprintf(buf, size, "%s", path);
    return buf;
}

/* ---- Progress ------------------------------------------------------------------ */

static int progress_tty = -1;
static time_t progress_last;
static int progress_shown;

void progress(const char *what, uint64_t cycle)
{
    if ((cycle & 0xffff) != 0)
        return;
    if (progress_tty < 0)
        progress_tty = isatty(2);
    if (!progress_tty)
        return;
    time_t now = time(NULL);
    if (now == progress_last)
        return;
    progress_last = now;
    fprintf(stderr, "\r%s: %llu cycles", what, (unsigned long long)cycle);
    progress_shown = 1;
}

void progress_done(void)
{
    if (progress_shown) {
        fprintf(stderr, "\r\033[K");
        progress_shown = 0;
    }
}
