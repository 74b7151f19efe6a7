/* fuzz.h - what the fuzz harnesses share: taking values from the fuzzer's bytes,
 * a configuration the fuzzer chooses among those validation accepts, and a code
 * image made of fuzzer bytes.
 *
 * Each harness is one LLVMFuzzerTestOneInput. Built with clang's libFuzzer it is
 * a fuzzer (scripts/fuzz); built with any compiler and replay.c it replays the
 * files of its seed corpus and regression folder (the fuzz label). A harness
 * reports a broken invariant with fuzz_fail(), which aborts, so that libFuzzer
 * keeps the input and the replay test fails. docs/reliability.md. */
#ifndef ETM_TB_FUZZ_H
#define ETM_TB_FUZZ_H

#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* fmemopen, open_memstream, mkdtemp */
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etm/config.h"
#include "etm/signals.h"
#include "etm/error.h"
#include "etm/regmap.h"
#include "etm/vector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fuzzer's bytes, taken from the front; past the end every value is 0. */
typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in_t;

static inline unsigned fuzz_u8(fuzz_in_t *f)
{
    if (!f->n)
        return 0;
    f->n--;
    return *f->p++;
}

static inline uint32_t fuzz_u32(fuzz_in_t *f)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fuzz_u8(f) << (8 * i);
    return v;
}

/* The bytes as a read-only stream (empty input: an empty stream); NULL on failure. */
static inline FILE *fuzz_memfile(const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size ? size : 1, "r");
    if (f && !size)
        fgetc(f); /* fmemopen needs a size above 0: read the one byte away */
    return f;
}

static inline void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: invariant broken: %s\n", what);
    fflush(stderr);
    abort();
}

/* A configuration: a preset the first byte picks (or the next one `acceptable`
 * takes), then up to 7 register writes
 * (a whole value, or one bit flipped), each kept only if the configuration still
 * validates and `acceptable` (if given) accepts it. The result always validates:
 * the harnesses run what a user could configure. */
static inline void fuzz_config(fuzz_in_t *f, etm_config_t *cfg, int (*acceptable)(const etm_config_t *))
{
    size_t npresets = 0;
    while (etm_config_preset_names[npresets])
        npresets++;
    unsigned b = fuzz_u8(f);
    /* the preset picked, or the next one `acceptable` takes */
    for (size_t k = 0; k < npresets; k++) {
        if (etm_config_preset(cfg, etm_config_preset_names[(b + k) % npresets]) != ETM_OK)
            etm_config_default(cfg);
        if (!acceptable || acceptable(cfg))
            break;
    }
    unsigned writes = (b >> 4) & 7;
    for (unsigned w = 0; w < writes; w++) {
        const etm_regdesc_t *d = &etm_registers[fuzz_u8(f) % etm_register_count];
        unsigned index = d->count > 1 ? fuzz_u8(f) % d->count : 0;
        etm_config_t trial = *cfg;
        uint32_t *v = etm_register_ptr(&trial, d, index);
        unsigned how = fuzz_u8(f);
        if (how & 1)
            *v = fuzz_u32(f);
        else
            *v ^= 1u << ((how >> 1) & 31);
        if (etm_config_validate(&trial, NULL, NULL) == ETM_OK && (!acceptable || acceptable(&trial)))
            *cfg = trial;
    }
}

/* Code for the decoders to follow: any address reads the image's bytes, repeated. */
typedef struct fuzz_image {
    const uint8_t *bytes;
    size_t size;
} fuzz_image_t;

static inline int fuzz_image_read(void *user, uint32_t addr, uint8_t *buf, unsigned n)
{
    const fuzz_image_t *im = (const fuzz_image_t *)user;
    if (!im->size)
        return 0;
    for (unsigned i = 0; i < n; i++)
        buf[i] = im->bytes[(addr + i) % im->size];
    return (int)n;
}

/* Take an image of 0..255 bytes (its length is the first byte). */
static inline fuzz_image_t fuzz_take_image(fuzz_in_t *f)
{
    fuzz_image_t im;
    size_t len = fuzz_u8(f);
    if (len > f->n)
        len = f->n;
    im.bytes = f->p;
    im.size = len;
    f->p += len;
    f->n -= len;
    return im;
}

/* One interface record, built signal by signal from the signal table: small
 * fields from one byte each, wide ones near the previous value, new or kept.
 * The debug APB: any access but a write to ETMCR (see below). */
static inline void fuzz_full_record(fuzz_in_t *f, etm_in_t *in)
{
    for (size_t i = 0; i < etm_in_signal_count; i++) {
        const etm_signal_t *s = &etm_in_signals[i];
        uint64_t prev = etm_signal_get(s, in), v;
        if (s->width <= 8) {
            v = fuzz_u8(f);
        } else {
            unsigned mode = fuzz_u8(f);
            if (mode & 1) /* near the previous value: code runs on */
                v = prev + ((uint64_t)(mode >> 1) << s->lsb);
            else if (mode & 2)
                v = (uint64_t)fuzz_u32(f) | ((s->width > 32) ? (uint64_t)fuzz_u32(f) << 32 : 0);
            else
                v = prev;
        }
        etm_signal_set(s, in, v & etm_signal_mask(s));
    }
    /* The debug APB: any access but a write to ETMCR, which could set the
     * programming bit and with it a trace mode the decoder, configured once,
     * does not follow (programming is fuzzed through the other registers, whose
     * writes are then ignored and flagged; the reprogramming itself is held by
     * the lockstep harness and the round trips). */
    if (in->pwrite && (in->paddr & 0xFFCu) == 0)
        in->pwrite = 0;
}


/* The next records, chosen by one byte: an idle run (x & 3 == 0), a run of
 * sequential 16-bit instructions (1: *sequential set, the caller adds 2 to
 * ETMIA after each), or one record built signal by signal. Returns how many
 * cycles the record in *in stands for. */
static inline unsigned fuzz_next_records(fuzz_in_t *f, etm_in_t *in, int *sequential)
{
    unsigned how = fuzz_u8(f);
    *sequential = (how & 3) == 1;
    if ((how & 3) == 0) {
        memset(in, 0, sizeof *in);
        return 1 + (how >> 4);
    }
    if ((how & 3) == 1) {
        in->ivalid = 1;
        in->ibranch = in->iindbr = in->iccfail = in->fold = in->cancel = in->flush = 0;
        in->intstat = 0;
        return 1 + (how >> 4);
    }
    fuzz_full_record(f, in);
    return 1;
}

/* ETM_FUZZ_VECTORS=FILE (replay): the harnesses that make interface records
 * also write them as a vector file, for `etm run`, `etm verify` or the lockstep
 * co-simulation. Without the variable every call does nothing. */
typedef struct fuzz_vectors {
    FILE *f;
    etm_vec_writer_t *w;
} fuzz_vectors_t;

static inline void fuzz_vectors_open(fuzz_vectors_t *v, const etm_config_t *cfg, const char *comment)
{
    v->w = NULL;
    v->f = getenv("ETM_FUZZ_VECTORS") ? fopen(getenv("ETM_FUZZ_VECTORS"), "w") : NULL;
    if (v->f && etm_vec_writer_open(&v->w, v->f, ETM_VEC_STIMULUS, cfg, ~0ull, comment) != ETM_OK)
        v->w = NULL;
}

static inline void fuzz_vectors_write(fuzz_vectors_t *v, const etm_in_t *in)
{
    if (v->w)
        etm_vec_write_in(v->w, in);
}

static inline void fuzz_vectors_close(fuzz_vectors_t *v)
{
    if (v->w)
        etm_vec_writer_close(v->w);
    if (v->f)
        fclose(v->f);
}

#endif
