/* vcd_write.c - interface signals to a VCD file (etm/vcd.h): one clock period of
 * 10 time units per cycle, inputs before the rising edge, outputs after it.
 */
#include "etm/vcd.h"

#include <stdio.h>
#include <stdlib.h>

#include "vcd_int.h"

/* ---- Writer --------------------------------------------------------------------------- */

typedef struct wsig {
    char code[8];
    int width;
    int is_out;
    int sig;      /* signal index; for V3BYTES: -1 count, -2 data */
    uint64_t last;
    int written;
} wsig_t;

struct etm_vcd_writer {
    FILE *f;
    wsig_t sigs[ETM_VEC_MAX_COLUMNS + 4];
    int nsigs;
    uint64_t cycle;
    char clk_code[8];
};

void vcd_make_code(char *buf, unsigned long n)
{
    /* Printable identifiers from '!' (33) to '~' (126). */
    int k = 0;
    do {
        buf[k++] = (char)('!' + n % 94);
        n /= 94;
    } while (n && k < 6);
    buf[k] = '\0';
}

etm_err_t etm_vcd_writer_open(etm_vcd_writer_t **out, FILE *f, uint64_t in_mask, uint64_t out_mask,
                              const char *comment)
{
    *out = NULL;
    etm_vcd_writer_t *w = (etm_vcd_writer_t *)calloc(1, sizeof *w);
    if (!w)
        return ETM_ERR_NOMEM;
    w->f = f;
    int n = 0;
    vcd_make_code(w->clk_code, n++);
    fprintf(f, "$version etm-model $end\n");
    if (comment)
        fprintf(f, "$comment %s $end\n", comment);
    fprintf(f, "$timescale 1ns $end\n$scope module etm $end\n");
    fprintf(f, "$var wire 1 %s clk $end\n", w->clk_code);
    for (size_t i = 0; i < etm_in_signal_count; i++) {
        if (!(in_mask & (1ull << i)))
            continue;
        const etm_signal_t *s = &etm_in_signals[i];
        wsig_t *g = &w->sigs[w->nsigs++];
        vcd_make_code(g->code, n++);
        g->width = s->width;
        g->sig = (int)i;
        if (s->width == 1)
            fprintf(f, "$var wire 1 %s %s $end\n", g->code, s->name);
        else
            fprintf(f, "$var wire %d %s %s [%d:%d] $end\n", s->width, g->code, s->name, s->lsb + s->width - 1, s->lsb);
    }
    for (size_t i = 0; i < etm_out_signal_count; i++) {
        if (!(out_mask & (1ull << i)))
            continue;
        const etm_signal_t *s = &etm_out_signals[i];
        if (s->kind == ETM_SIG_BYTES) {
            wsig_t *g = &w->sigs[w->nsigs++];
            vcd_make_code(g->code, n++);
            g->width = 4;
            g->is_out = 1;
            g->sig = -1;
            fprintf(f, "$var wire 4 %s V3COUNT [3:0] $end\n", g->code);
            g = &w->sigs[w->nsigs++];
            vcd_make_code(g->code, n++);
            g->width = 64;
            g->is_out = 1;
            g->sig = -2;
            fprintf(f, "$var wire 64 %s V3DATA [63:0] $end\n", g->code);
            continue;
        }
        wsig_t *g = &w->sigs[w->nsigs++];
        vcd_make_code(g->code, n++);
        g->width = s->width;
        g->is_out = 1;
        g->sig = (int)i;
        if (s->width == 1)
            fprintf(f, "$var wire 1 %s %s $end\n", g->code, s->name);
        else
            fprintf(f, "$var wire %d %s %s [%d:0] $end\n", s->width, g->code, s->name, s->width - 1);
    }
    fprintf(f, "$upscope $end\n$enddefinitions $end\n");
    *out = w;
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

static void put_value(FILE *f, const wsig_t *g, uint64_t v)
{
    if (g->width == 1) {
        fprintf(f, "%c%s\n", (v & 1) ? '1' : '0', g->code);
        return;
    }
    char bits[70];
    int k = 0, top = g->width - 1;
    while (top > 0 && !((v >> top) & 1)) /* shortest form: leading zeros dropped */
        top--;
    for (int b = top; b >= 0; b--)
        bits[k++] = (char)('0' + ((v >> b) & 1));
    bits[k] = '\0';
    fprintf(f, "b%s %s\n", bits, g->code);
}

static uint64_t wsig_value(const wsig_t *g, const etm_in_t *in, const etm_out_t *out)
{
    if (!g->is_out) {
        const etm_signal_t *s = &etm_in_signals[g->sig];
        return etm_signal_get(s, in) >> s->lsb;
    }
    if (g->sig == -1)
        return out->v3_count;
    if (g->sig == -2) {
        uint64_t v = 0;
        for (int b = 0; b < out->v3_count && b < ETM_MAX_PORT_BYTES; b++)
            v |= (uint64_t)out->v3_bytes[b] << (8 * b);
        return v;
    }
    return etm_signal_get(&etm_out_signals[g->sig], out);
}

etm_err_t etm_vcd_write(etm_vcd_writer_t *w, const etm_in_t *in, const etm_out_t *out)
{
    FILE *f = w->f;
    uint64_t t = w->cycle * 10;
    fprintf(f, "#%llu\n", (unsigned long long)t);
    if (w->cycle == 0)
        fprintf(f, "$dumpvars\n");
    fprintf(f, "0%s\n", w->clk_code);
    for (int i = 0; i < w->nsigs; i++) {
        wsig_t *g = &w->sigs[i];
        if (g->is_out || !in)
            continue;
        uint64_t v = wsig_value(g, in, out);
        if (!g->written || v != g->last) {
            put_value(f, g, v);
            g->last = v;
            g->written = 1;
        }
    }
    int outs_pending = 0;
    for (int i = 0; i < w->nsigs; i++)
        if (w->sigs[i].is_out && !w->sigs[i].written)
            put_value(f, &w->sigs[i], 0), w->sigs[i].written = 1, outs_pending = 1;
    if (w->cycle == 0)
        fprintf(f, "$end\n");
    (void)outs_pending;
    fprintf(f, "#%llu\n1%s\n", (unsigned long long)(t + 5), w->clk_code);
    for (int i = 0; i < w->nsigs; i++) {
        wsig_t *g = &w->sigs[i];
        if (!g->is_out || !out)
            continue;
        uint64_t v = wsig_value(g, in, out);
        if (v != g->last) {
            put_value(f, g, v);
            g->last = v;
        }
    }
    w->cycle++;
    return ferror(f) ? ETM_ERR_IO : ETM_OK;
}

etm_err_t etm_vcd_writer_close(etm_vcd_writer_t *w)
{
    if (!w)
        return ETM_OK;
    fprintf(w->f, "#%llu\n0%s\n", (unsigned long long)(w->cycle * 10), w->clk_code);
    int bad = fflush(w->f) != 0 || ferror(w->f);
    free(w);
    return bad ? ETM_ERR_IO : ETM_OK;
}
