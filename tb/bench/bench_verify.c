#define _POSIX_C_SOURCE 200809L
/* bench_verify.c - throughput and memory of the protocol scoreboard
 * (etm/verify.h) beside the C model that makes the trace it checks (a
 * benchmark, not a test).
 *
 *   bench_verify [cycles]          default 5000000 cycles per configuration
 *
 * For each configuration it generates the stimulus in blocks (not timed), runs
 * the model over each block (timed: "model"), then the scoreboard over the
 * same block and the bytes the model made in it (timed: "scoreboard"), and
 * prints both rates, their ratio and the peak resident memory after the first
 * fifth and at the end of the run, which must be the same: the checker streams.
 * The last configuration overflows (a slow ATB), so the checker works out
 * restart places too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "etm/etm.h"

#define BLOCK 65536

int main(int argc, char **argv)
{
    unsigned long long cycles = 5000000ull;
    int rc = bench_args(argc, argv, "bench_verify",
                        "usage: bench_verify [CYCLES]\n\nCycles per second of the protocol scoreboard beside the C model "
                        "that\nmakes its trace, and peak memory, for a few configurations, CYCLES each\n"
                        "(default 5000000).\n",
                        &cycles);
    if (rc >= 0)
        return rc;
    static const struct {
        const char *name;
        const char *preset;
        uint32_t etmcr;
        unsigned atb_stall;
        unsigned sleep; /* per mille of instructions followed by a WFI gap */
    } cfgs[] = {
        { "ETMv3.4, not cycle-accurate", "etm-m3", 0x810, 0, 0 },
        { "ETMv3.4, cycle-accurate (what-if)", "cm3-ca-whatif", 0x1810, 0, 0 },
        { "ETMv3.5, CA + branch broadcast", "etmv3.5", 0x1910, 0, 0 },
        { "ETMv3.4, not CA, ATB 70 % stalled (overflows)", "etm-m3", 0x810, 70, 0 },
        { "ETMv3.4, not cycle-accurate, mostly idle", "etm-m3", 0x810, 0, 200 },
        { "ETMv3.4, cycle-accurate, mostly idle", "cm3-ca-whatif", 0x1810, 0, 200 },
    };
    etm_in_t *block = (etm_in_t *)malloc(BLOCK * sizeof *block);
    uint8_t *bytes = (uint8_t *)malloc((size_t)BLOCK * 8 + 4096);
    size_t mark[BLOCK / 4096];
    if (!block || !bytes)
        return 1;
    printf("%llu cycles per configuration\n", cycles);
    printf("%-46s %12s %12s %7s %9s %9s %9s\n", "configuration", "model c/s", "checker c/s", "ratio", "overflows",
           "peak@1/5", "peak@end");
    int bad = 0;
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        etm_config_t cfg;
        etm_diag_t d;
        etm_config_preset(&cfg, cfgs[k].preset);
        cfg.etmcr = cfgs[k].etmcr;
        etm_gen_params_t gp;
        etm_gen_params_default(&gp);
        gp.atb_stall_pct = cfgs[k].atb_stall;
        gp.sleep_pct = cfgs[k].sleep;
        gp.atb_burst = cfgs[k].atb_stall ? 30 : 1;
        etm_gen_t *g;
        etm_ctx_t *etm;
        etm_verify_t *v;
        if (etm_gen_create(&g, &gp, &d) != ETM_OK || etm_create(&etm, &cfg, &d) != ETM_OK ||
            etm_verify_create(&v, &cfg, NULL, &d) != ETM_OK) {
            fprintf(stderr, "%s\n", d.msg);
            return 1;
        }
        double tm = 0, tv = 0;
        long peak_early = 0;
        etm_out_t out;
        for (unsigned long long done = 0; done < cycles;) {
            unsigned n = cycles - done < BLOCK ? (unsigned)(cycles - done) : BLOCK;
            for (unsigned i = 0; i < n; i++)
                etm_gen_next(g, &block[i], NULL);
            size_t nb = 0;
            double t0 = bench_now();
            for (unsigned i = 0; i < n; i++) {
                etm_step(etm, &block[i], &out);
                memcpy(bytes + nb, out.v3_bytes, out.v3_count);
                nb += out.v3_count;
                if ((i & 4095) == 4095 || i + 1 == n)
                    mark[i >> 12] = nb; /* the bytes made by the end of each slice */
            }
            /* The checker as a caller streams it: the cycles, then the bytes
             * made by then, a slice at a time (its queue stays short). */
            double t1 = bench_now();
            size_t fed = 0;
            for (unsigned i = 0; i < n; i += 4096) {
                unsigned m = n - i < 4096 ? n - i : 4096;
                etm_verify_cycles(v, &block[i], m);
                size_t upto = mark[i >> 12];
                etm_verify_bytes(v, bytes + fed, upto - fed, 0);
                fed = upto;
            }
            tv += bench_now() - t1;
            tm += t1 - t0;
            done += n;
            if (!peak_early && done >= cycles / 5)
                peak_early = bench_peak_kib();
        }
        etm_end(etm);
        size_t nb = 0;
        while (etm_drain(etm, &out) == ETM_OK && nb + 16 < (size_t)BLOCK * 8) {
            memcpy(bytes + nb, out.v3_bytes, out.v3_count);
            nb += out.v3_count;
        }
        etm_verify_bytes(v, bytes, nb, 0);
        etm_verify_end(v, etm_untraced_overflow(etm));
        const etm_verify_result_t *r = etm_verify_result(v);
        printf("%-46s %12.0f %12.0f %7.2f %9llu %8ldK %8ldK%s\n", cfgs[k].name, (double)cycles / tm,
               (double)cycles / tv, tm / tv, (unsigned long long)r->overflows, peak_early, bench_peak_kib(),
               r->failures ? "  FAILED" : "");
        if (r->failures) {
            printf("  %s: %s\n", etm_vfail_id(r->first.rule), r->first.text);
            bad = 1;
        }
        etm_verify_destroy(v);
        etm_destroy(etm);
        etm_gen_free(g);
    }
    free(block);
    free(bytes);
    return bad;
}
