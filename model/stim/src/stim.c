/* stim.c - one stream of core cycles from a vector file, a VCD, the generator or
 * the Cortex-M3 timing model, with held cycles where the source can hold
 * (etm/stim.h). */
#include "etm/stim.h"

#include <stdlib.h>
#include <string.h>

#include "etm/number.h"
#include "etm/vector.h"
#include "util.h"

struct etm_stim {
    etm_stim_kind_t kind;
    etm_vec_reader_t *vec;
    etm_vcd_reader_t *vcd;
    etm_gen_t *gen;
    uint64_t gen_left;     /* generator cycles still to give */
    etm_cm3_t *cm3;
    etm_stim_insn_fn fn;   /* where the timing model's instructions come from */
    void *user;
    int insns_done;
    etm_linereader_t *lr;  /* records file */
    char *path;            /* its name, for diagnostics */
    int delay;             /* vectors, VCD: holds delay the recording */
    etm_in_t last;         /* the last cycle given: what a held cycle follows */
    etm_stim_stats_t st;
};

static etm_err_t alloc_stim(etm_stim_t **out, etm_stim_kind_t kind, etm_diag_t *diag)
{
    if (diag)
        etm_diag_clear(diag);
    *out = (etm_stim_t *)calloc(1, sizeof **out);
    if (!*out)
        return etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory");
    (*out)->kind = kind;
    return ETM_OK;
}

static etm_err_t opened(etm_stim_t **out, etm_err_t e)
{
    if (e != ETM_OK) {
        etm_stim_close(*out);
        *out = NULL;
    }
    return e;
}

etm_err_t etm_stim_open_vectors(etm_stim_t **out, const char *path, etm_diag_t *diag)
{
    etm_err_t e = alloc_stim(out, ETM_STIM_VECTORS, diag);
    if (e != ETM_OK)
        return e;
    return opened(out, etm_vec_open(&(*out)->vec, path, diag));
}

etm_err_t etm_stim_open_vcd(etm_stim_t **out, const char *path, const etm_vcd_opts_t *opts, etm_diag_t *diag)
{
    etm_err_t e = alloc_stim(out, ETM_STIM_VCD, diag);
    if (e != ETM_OK)
        return e;
    etm_vcd_opts_t o;
    if (opts) {
        o = *opts;
    } else {
        etm_vcd_opts_init(&o);
        o.allow_missing = 1;
    }
    o.kind = ETM_VEC_STIMULUS;
    return opened(out, etm_vcd_open(&(*out)->vcd, path, &o, diag));
}

etm_err_t etm_stim_open_gen(etm_stim_t **out, const etm_gen_params_t *p, uint64_t cycles, etm_diag_t *diag)
{
    etm_err_t e = alloc_stim(out, ETM_STIM_GEN, diag);
    if (e != ETM_OK)
        return e;
    (*out)->gen_left = cycles;
    return opened(out, etm_gen_create(&(*out)->gen, p, diag));
}

etm_err_t etm_stim_open_insns(etm_stim_t **out, etm_stim_insn_fn fn, void *user, const etm_cm3_params_t *p,
                              etm_diag_t *diag)
{
    etm_err_t e = alloc_stim(out, ETM_STIM_CM3, diag);
    if (e != ETM_OK)
        return e;
    (*out)->fn = fn;
    (*out)->user = user;
    return opened(out, etm_cm3_create(&(*out)->cm3, p, diag));
}

/* The records file's next instruction: blank lines and '#' comments skipped. */
static int next_record(void *user, etm_cm3_insn_t *r, etm_diag_t *diag)
{
    etm_stim_t *s = (etm_stim_t *)user;
    for (;;) {
        if (diag)
            etm_diag_clear(diag);
        etm_err_t e = etm_lr_next(s->lr, diag);
        if (e == ETM_END)
            return 0;
        if (e == ETM_OK) {
            char *hash = strchr(s->lr->buf, '#');
            if (hash)
                *hash = 0;
            const char *p = s->lr->buf;
            while (etm_util_isblank(*p))
                p++;
            if (!*p)
                continue;
            e = etm_cm3_insn_parse(p, r, diag);
            if (e == ETM_OK)
                return 1;
        }
        if (diag) {
            diag->file = s->path;
            diag->line = s->lr->line;
            diag->cycle = s->st.cycles;
            diag->code = e;
        }
        return -1;
    }
}

etm_err_t etm_stim_open_records(etm_stim_t **out, const char *path, const etm_cm3_params_t *p, etm_diag_t *diag)
{
    etm_err_t e = alloc_stim(out, ETM_STIM_CM3, diag);
    if (e != ETM_OK)
        return e;
    etm_stim_t *s = *out;
    s->fn = next_record;
    s->user = s;
    s->path = (char *)malloc(strlen(path) + 1);
    s->lr = (etm_linereader_t *)calloc(1, sizeof *s->lr);
    if (!s->path || !s->lr)
        return opened(out, etm_util_fail(diag, ETM_ERR_NOMEM, "out of memory"));
    strcpy(s->path, path);
    s->lr->f = fopen(path, "r");
    if (!s->lr->f) {
        etm_util_fail(diag, ETM_ERR_IO, "cannot open the records file");
        if (diag)
            diag->file = path;
        return opened(out, ETM_ERR_IO);
    }
    return opened(out, etm_cm3_create(&s->cm3, p, diag));
}

void etm_stim_close(etm_stim_t *s)
{
    if (!s)
        return;
    if (s->vec)
        etm_vec_close(s->vec);
    if (s->vcd)
        etm_vcd_close(s->vcd);
    if (s->gen)
        etm_gen_free(s->gen);
    if (s->cm3)
        etm_cm3_free(s->cm3);
    if (s->lr && s->lr->f)
        fclose(s->lr->f);
    free(s->lr);
    free(s->path);
    free(s);
}

etm_stim_kind_t etm_stim_kind(const etm_stim_t *s) { return s->kind; }

int etm_stim_can_hold(const etm_stim_t *s)
{
    return s->kind == ETM_STIM_GEN || s->kind == ETM_STIM_CM3 || s->delay;
}

void etm_stim_set_delay(etm_stim_t *s, int on)
{
    s->delay = on && (s->kind == ETM_STIM_VECTORS || s->kind == ETM_STIM_VCD);
}

int etm_stim_held_cycle(etm_in_t *in, const etm_in_t *prev)
{
    if ((prev->psel || prev->pseltpiu) && !prev->penable)
        return 0;
    etm_in_t p = *prev; /* in may be prev */
    memset(in, 0, sizeof *in);
    in->istall = 1;
    in->intnum = p.intnum;
    in->afvalid = p.afvalid;
    return 1;
}

void etm_hold_path_init(etm_hold_path_t *h, unsigned latency)
{
    h->fifofull = 0;
    h->latency = latency < 1 ? 1 : latency > ETM_HOLD_LATENCY_MAX ? ETM_HOLD_LATENCY_MAX : latency;
}

int etm_hold_path_step(etm_hold_path_t *h, int fifofull)
{
    h->fifofull = h->fifofull << 1 | (fifofull != 0);
    return (int)(h->fifofull >> (h->latency - 1) & 1);
}

int etm_hold_option(const char *arg, unsigned *latency, etm_diag_t *diag)
{
    if (!strcmp(arg, "--hold")) {
        *latency = 1;
        return 0;
    }
    const char *v = strncmp(arg, "--hold=", 7) ? "" : arg + 7;
    unsigned n = 0;
    etm_diag_t nd;
    if (etm_number_parse_u32(v, 1, ETM_HOLD_LATENCY_MAX, &n, &nd) != ETM_OK) {
        etm_util_fail(diag, ETM_ERR_ARG, "%s: the path from FIFOFULL to the core's stall is a whole number of cycles "
                      "from 1 to %u", arg, ETM_HOLD_LATENCY_MAX);
        return -1;
    }
    *latency = n;
    return 0;
}

const etm_stim_stats_t *etm_stim_get_stats(const etm_stim_t *s) { return &s->st; }

const etm_config_t *etm_stim_config(const etm_stim_t *s) { return s->vec ? etm_vec_config(s->vec) : NULL; }

const etm_cm3_t *etm_stim_cm3(const etm_stim_t *s) { return s->cm3; }

/* The timing model's next cycle, feeding it instructions as it asks for them. */
static etm_err_t cm3_next(etm_stim_t *s, int hold, etm_in_t *in, etm_diag_t *diag)
{
    if (hold)
        etm_cm3_stall(s->cm3);
    etm_err_t e = etm_cm3_cycle(s->cm3, in, NULL, NULL);
    while (e == ETM_END && !s->insns_done) {
        etm_cm3_insn_t r;
        int k = s->fn(s->user, &r, diag);
        if (k < 0)
            return diag && diag->code != ETM_OK ? diag->code : ETM_ERR_IO;
        if (k == 0) {
            etm_cm3_finish(s->cm3);
            s->insns_done = 1;
        } else {
            e = etm_cm3_put(s->cm3, &r, diag);
            if (e != ETM_OK) {
                if (diag && s->lr) { /* a records file: say which line */
                    diag->file = s->path;
                    diag->line = s->lr->line;
                    diag->cycle = s->st.cycles;
                }
                return e;
            }
            s->st.insns++;
        }
        e = etm_cm3_cycle(s->cm3, in, NULL, NULL);
    }
    if (e == ETM_OK && hold)
        s->st.held++;
    return e;
}

etm_err_t etm_stim_next(etm_stim_t *s, int hold, etm_in_t *in, etm_diag_t *diag)
{
    etm_err_t e = ETM_OK;
    switch (s->kind) {
    case ETM_STIM_VECTORS:
    case ETM_STIM_VCD:
        if (hold && s->delay && s->st.cycles && etm_stim_held_cycle(in, &s->last)) {
            s->st.held++;
            break;
        }
        e = s->vec ? etm_vec_read_in(s->vec, in, diag) : etm_vcd_read_in(s->vcd, in, diag);
        if (e == ETM_OK && hold && !s->delay)
            s->st.holds_ignored++;
        break;
    case ETM_STIM_GEN:
        if (!s->gen_left)
            return ETM_END;
        if (hold && etm_stim_held_cycle(in, &s->last)) { /* the generator drives no APB */
            s->st.held++;
        } else {
            etm_gen_next(s->gen, in, NULL);
            s->gen_left--;
        }
        break;
    case ETM_STIM_CM3:
        e = cm3_next(s, hold, in, diag);
        break;
    }
    if (e == ETM_OK) {
        s->last = *in;
        s->st.cycles++;
    }
    return e;
}
