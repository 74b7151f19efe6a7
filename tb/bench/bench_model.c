#define _POSIX_C_SOURCE 200809L
/* bench_model.c - throughput and memory of the C model (a benchmark, not a test).
 *
 *   bench_model [cycles]          default 5000000 cycles per configuration
 *
 * For each configuration it generates the stimulus in blocks (not timed), steps
 * the model over each block (timed), and prints cycles per second, trace bits
 * per instruction and per cycle, and the peak resident memory after the first
 * fifth and at the end of the run, which must be the same: the model streams.
 * The last two configurations run mostly idle stimulus (long WFI gaps). The
 * last line is a bare streaming pass over the same records, the ceiling of
 * any model that reads them one by one. Each block is also stepped by a second
 * instance with both speed paths off (etm_set_repeat_path, etm_set_plain_path):
 * the columns "no paths" and "ratio" measure what they give, "repeated" and
 * "plain" are the shares of cycles each gave. A third instance steps each
 * block as `etm run` and etm_run_records do, a run of repeated cycles at once
 * (etm_step_repeat) and every other cycle with etm_step: the column "in runs".
 * The last line, the packer pass, packs the first configuration's records
 * into P-headers and branch addresses and nothing else (pack_pass). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "etm/etm.h"

#define BLOCK 65536

/* The packer pass: what is left of an ETMv3 encoder without cycle accuracy
 * when everything but its packing is taken away. Each instruction's atom (E,
 * or N for ETMICCFAIL; a folded IT an E more) goes into a format 1 P-header,
 * closed at 15 E atoms or by an N atom, and a traced branch's target closes
 * the header and adds the address's changed bits 7 at a time (1 to 5 bytes).
 * No interface check, filter, records, FIFO, ATB port, synchronisation,
 * statistics or per-cycle outputs, and its bytes are not a valid trace: a
 * reference, like the streaming pass, for how far the model is from the least
 * work its packets could cost on the same records. */
typedef struct pack_state {
    unsigned e;    /* E atoms in the open header */
    uint32_t last; /* the last branch address */
    uint64_t bytes;
} pack_state_t;

static void pack_pass(pack_state_t *s, const etm_in_t *in, unsigned n, uint8_t *out, unsigned cap)
{
    unsigned o = 0, e = s->e;
    uint32_t last = s->last;
    for (unsigned i = 0; i < n; i++) {
        const etm_in_t *r = &in[i];
        if (!r->ivalid)
            continue;
        if (o + 8 > cap) {
            s->bytes += o;
            o = 0;
        }
        if (r->ibranch && r->iindbr) {
            if (e)
                out[o++] = (uint8_t)(0x80u | (e << 2));
            e = 0;
            uint32_t a = r->ia, d = (a ^ last) >> 7;
            unsigned nb = 1;
            while (d && nb < 5) {
                nb++;
                d >>= 7;
            }
            for (unsigned k = 0; k < nb; k++)
                out[o++] = (uint8_t)(((a >> (7 * k)) & 0x7fu) | (k + 1 < nb ? 0x80u : 0));
            last = a;
        }
        unsigned natoms = 1u + (r->fold != 0);
        for (unsigned k = 0; k < natoms; k++) {
            if (k == 0 && r->iccfail) { /* an N closes the header */
                out[o++] = (uint8_t)(0xc0u | (e << 2));
                e = 0;
            } else if (++e == 15) {
                out[o++] = (uint8_t)(0x80u | (e << 2));
                e = 0;
            }
        }
    }
    s->e = e;
    s->last = last;
    s->bytes += o;
}

int main(int argc, char **argv)
{
    unsigned long long cycles = 5000000ull;
    int rc = bench_args(argc, argv, "bench_model",
                        "usage: bench_model [CYCLES]\n\nCycles per second and peak memory of the C model for a few\n"
                        "configurations, CYCLES each (default 5000000).\n",
                        &cycles);
    if (rc >= 0)
        return rc;
    /* sleep: per mille of instructions followed by a long idle gap (WFI): the
     * idle-heavy stimulus of a core that mostly waits for interrupts. */
    static const struct { const char *name; const char *preset; uint32_t etmcr; unsigned sleep; } cfgs[] = {
        { "ETMv3.4, not cycle-accurate", "etm-m3", 0x810, 0 },
        { "ETMv3.4, cycle-accurate (what-if)", "cm3-ca-whatif", 0x1810, 0 },
        { "ETMv3.4, CA + branch broadcast (what-if)", "cm3-ca-whatif", 0x1910, 0 },
        { "ETMv3.0, cycle-accurate", "etmv3.0", 0x1810, 0 },
        { "ETMv3.4, not cycle-accurate, mostly idle", "etm-m3", 0x810, 200 },
        { "ETMv3.4, cycle-accurate, mostly idle", "cm3-ca-whatif", 0x1810, 200 },
    };
    etm_in_t *block = (etm_in_t *)malloc(BLOCK * sizeof *block);
    uint8_t *packed = (uint8_t *)malloc(BLOCK);
    if (!block || !packed)
        return 1;
    double t_first = 0, t_pack = 0; /* the first row's time, and the packer's on its records */
    pack_state_t pack = { 0, 0, 0 };
    printf("model context: %zu bytes; %llu cycles per configuration\n", etm_ctx_size(), cycles);
    printf("%-45s %12s %12s %10s %10s %10s %10s %12s %6s %9s %7s\n", "configuration", "cycles/s", "in runs",
           "bits/insn", "bits/cyc", "peak@1/5", "peak@end", "no paths", "ratio", "repeated", "plain");
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        etm_config_t cfg;
        etm_diag_t d;
        etm_config_preset(&cfg, cfgs[k].preset);
        cfg.etmcr = cfgs[k].etmcr;
        cfg.port_bytes = 2; /* enough bandwidth: measure the model, not overflows */
        etm_gen_params_t gp;
        etm_gen_params_default(&gp);
        gp.sleep_pct = cfgs[k].sleep;
        etm_gen_t *g;
        etm_ctx_t *etm, *runs, *slow;
        if (etm_gen_create(&g, &gp, &d) != ETM_OK || etm_create(&etm, &cfg, &d) != ETM_OK ||
            etm_create(&runs, &cfg, &d) != ETM_OK || etm_create(&slow, &cfg, &d) != ETM_OK) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        etm_set_repeat_path(slow, 0);
        etm_set_plain_path(slow, 0);
        double t = 0, t_runs = 0, t_slow = 0;
        volatile uint64_t sink_touch = 0; /* keeps the touching pass */
        long peak_early = 0;
        etm_out_t out;
        for (unsigned long long done = 0; done < cycles;) {
            unsigned n = cycles - done < BLOCK ? (unsigned)(cycles - done) : BLOCK;
            for (unsigned i = 0; i < n; i++)
                etm_gen_next(g, &block[i], NULL);
            /* Both instances read the block once it is in the cache: each
             * after a pass that touches it (the order would favour the second). */
            double t0;
            for (int pass = 0; pass < 3; pass++) {
                etm_ctx_t *who = pass == 2 ? slow : pass ? runs : etm;
                uint64_t touch = 0;
                for (unsigned i = 0; i < n; i++)
                    touch += block[i].ia;
                sink_touch = sink_touch + touch;
                t0 = bench_now();
                if (pass == 1) {
                    for (unsigned i = 0; i < n;) {
                        size_t r = etm_step_repeat(who, &block[i], n - i, &out);
                        if (!r) {
                            etm_step(who, &block[i], &out);
                            r = 1;
                        }
                        i += (unsigned)r;
                    }
                } else {
                    for (unsigned i = 0; i < n; i++)
                        etm_step(who, &block[i], &out);
                }
                double dt = bench_now() - t0;
                *(pass == 2 ? &t_slow : pass ? &t_runs : &t) += dt;
            }
            if (k == 0) { /* the packer pass over the first row's records, once they are in the cache */
                t0 = bench_now();
                pack_pass(&pack, block, n, packed, BLOCK);
                t_pack += bench_now() - t0;
            }
            done += n;
            if (!peak_early && done >= cycles / 5)
                peak_early = bench_peak_kib();
        }
        const etm_stats_t *s = etm_get_stats(etm);
        if (memcmp(s, etm_get_stats(slow), sizeof *s) || memcmp(s, etm_get_stats(runs), sizeof *s)) {
            fprintf(stderr, "%s: the statistics differ without the speed paths or in runs\n", cfgs[k].name);
            return 1;
        }
        printf("%-45s %12.0f %12.0f %10.3f %10.3f %8ldK %8ldK %12.0f %6.2f %8.1f%% %6.1f%%\n", cfgs[k].name,
               (double)cycles / t, (double)cycles / t_runs, 8.0 * (double)s->bytes / (double)s->instructions,
               8.0 * (double)s->bytes / (double)s->cycles, peak_early, bench_peak_kib(), (double)cycles / t_slow,
               t_slow / t, 100.0 * (double)etm_repeated_cycles(etm) / (double)cycles,
               100.0 * (double)etm_plain_cycles(etm) / (double)cycles);
        if (k == 0)
            t_first = t;
        etm_destroy(etm);
        etm_destroy(runs);
        etm_destroy(slow);
        etm_gen_free(g);
    }
    bench_stream_pass(block, BLOCK); /* the last block, as the model read it */
    printf("%-45s %12.0f  (the first row's records packed into P-headers and branch addresses only, %llu bytes; "
           "the first row takes %.1f times as long)\n",
           "packer pass", t_pack > 0 ? (double)cycles / t_pack : 0.0, (unsigned long long)pack.bytes,
           t_pack > 0 ? t_first / t_pack : 0.0);
    free(packed);
    free(block);
    return 0;
}
