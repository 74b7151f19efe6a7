#define _POSIX_C_SOURCE 200809L
/* bench_vector.c - how fast stimulus files are read, as text and in the binary
 * form, and what that makes of a whole run (a benchmark, not a test).
 *
 *   bench_vector [cycles]          default 3000000 cycles
 *
 * It writes the generator's cycles to a text and a binary vector file (not
 * timed), then times reading each file through, and each read together with the
 * model stepping every cycle (the ETM-M3, as `etm run` traces by default); the
 * binary file record by record (etm_vec_read_in) and a block at a time
 * (etm_vec_read_block, as `etm run` reads it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "etm/etm.h"

/* Read f through (and step the model when etm is not NULL), a record or a
 * block at a time: seconds, or -1. */
static double pass(FILE *f, etm_ctx_t *etm, unsigned long long want, int blocks)
{
    rewind(f);
    etm_vec_reader_t *r;
    etm_diag_t d;
    double t0 = bench_now();
    if (etm_vec_open_stream(&r, f, "bench", &d) != ETM_OK) {
        fprintf(stderr, "bench_vector: %s\n", d.msg);
        return -1;
    }
    static etm_in_t in[1024];
    etm_out_t out;
    unsigned long long n = 0;
    etm_err_t e;
    size_t got = 1;
    while ((e = blocks ? etm_vec_read_block(r, in, 1024, &got, &d) : etm_vec_read_in(r, in, &d)) == ETM_OK) {
        for (size_t i = 0; etm && i < got; i++)
            etm_step(etm, &in[i], &out);
        n += got;
    }
    double t = bench_now() - t0;
    etm_vec_close(r);
    if (e != ETM_END || n != want) {
        fprintf(stderr, "bench_vector: read %llu of %llu cycles: %s\n", n, want, e == ETM_END ? "" : d.msg);
        return -1;
    }
    return t;
}

int main(int argc, char **argv)
{
    unsigned long long cycles = 3000000ull;
    int rc = bench_args(argc, argv, "bench_vector",
                        "usage: bench_vector [CYCLES]\n\nCycles per second reading stimulus as text and as binary, "
                        "alone and\nwith the model stepping (default 3000000 cycles).\n",
                        &cycles);
    if (rc >= 0)
        return rc;
    etm_config_t cfg;
    etm_config_preset(&cfg, "etm-m3");
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    etm_gen_t *g;
    etm_diag_t d;
    if (etm_gen_create(&g, &gp, &d) != ETM_OK) {
        fprintf(stderr, "bench_vector: %s\n", d.msg);
        return 1;
    }
    FILE *files[2] = { tmpfile(), tmpfile() };
    etm_vec_writer_t *w[2];
    if (!files[0] || !files[1] || etm_vec_writer_open(&w[0], files[0], ETM_VEC_STIMULUS, &cfg, 0, NULL) != ETM_OK ||
        etm_vec_writer_open_binary(&w[1], files[1], &cfg, 0, NULL) != ETM_OK) {
        fprintf(stderr, "bench_vector: cannot write the temporary files\n");
        return 1;
    }
    for (unsigned long long i = 0; i < cycles; i++) {
        etm_in_t in;
        etm_gen_next(g, &in, NULL);
        if (etm_vec_write_in(w[0], &in) != ETM_OK || etm_vec_write_in(w[1], &in) != ETM_OK) {
            fprintf(stderr, "bench_vector: write error\n");
            return 1;
        }
    }
    etm_gen_free(g);
    if (etm_vec_writer_close(w[0]) != ETM_OK || etm_vec_writer_close(w[1]) != ETM_OK)
        return 1;
    printf("%llu cycles of generated stimulus (every input column); cycles per second\n", cycles);
    printf("%-15s %12s %14s %14s\n", "form", "file bytes", "read", "read + model");
    static const char *const names[3] = { "text", "binary", "binary, blocks" };
    rc = 0;
    for (int k = 0; k < 3; k++) {
        FILE *f = files[k ? 1 : 0];
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        double tr = pass(f, NULL, cycles, k == 2);
        etm_ctx_t *etm;
        if (etm_create(&etm, &cfg, &d) != ETM_OK) {
            fprintf(stderr, "bench_vector: %s\n", d.msg);
            return 1;
        }
        double tm = pass(f, etm, cycles, k == 2);
        etm_destroy(etm);
        if (tr < 0 || tm < 0) {
            rc = 1;
            continue;
        }
        printf("%-15s %12ld %14.0f %14.0f\n", names[k], size, (double)cycles / tr, (double)cycles / tm);
    }
    fclose(files[0]);
    fclose(files[1]);
    return rc;
}
