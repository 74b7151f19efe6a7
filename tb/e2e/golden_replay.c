/* golden_replay.c - replays a golden vector folder (vectors/README.md) through the
 * model and compares every output of every cycle with expected.vec.
 *
 *   golden_replay DIR
 *
 * DIR holds config.txt, stimulus.vec and expected.vec. The register image of
 * config.txt must be the one in both vector headers. The model steps through
 * the stimulus, ends the trace and drains its FIFO (as `etm run --out` does);
 * each cycle's outputs are compared with expected.vec on the columns the file has.
 * On a difference every differing signal is printed with its cycle and line;
 * exit status 1. Exit status 2: a file is missing or malformed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "etm/etm.h"

static int report(const etm_diag_t *d)
{
    char buf[512];
    fprintf(stderr, "golden_replay: %s\n", etm_diag_format(d, buf, sizeof buf));
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: golden_replay DIR\n");
        return 2;
    }
    char cfgp[1024], stip[1024], expp[1024];
    snprintf(cfgp, sizeof cfgp, "%s/config.txt", argv[1]);
    snprintf(stip, sizeof stip, "%s/stimulus.vec", argv[1]);
    snprintf(expp, sizeof expp, "%s/expected.vec", argv[1]);
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_config_t cfg;
    if (etm_config_read_file(&cfg, cfgp, &d) != ETM_OK)
        return report(&d);
    etm_vec_reader_t *si, *ex;
    if (etm_vec_open(&si, stip, &d) != ETM_OK)
        return report(&d);
    if (etm_vec_open(&ex, expp, &d) != ETM_OK)
        return report(&d);
    if (etm_vec_kind(si) != ETM_VEC_STIMULUS || etm_vec_kind(ex) != ETM_VEC_EXPECTED) {
        fprintf(stderr, "golden_replay: %s must be a stimulus file and %s an expected-output file\n", stip, expp);
        return 2;
    }
    if (!etm_config_equal(&cfg, etm_vec_config(si)) || !etm_config_equal(&cfg, etm_vec_config(ex))) {
        fprintf(stderr, "golden_replay: %s: the register image differs from the header of %s or %s\n", cfgp, stip,
                expp);
        return 2;
    }
    etm_ctx_t *etm;
    if (etm_create(&etm, &cfg, &d) != ETM_OK)
        return report(&d);
    uint64_t mask = etm_vec_signal_mask(ex), cycle = 0, diffs = 0;
    etm_in_t in;
    etm_out_t out, want;
    etm_err_t e, w;
    int stepping = 1, rc = 0;
    for (;;) {
        if (stepping) {
            e = etm_vec_read_in(si, &in, &d);
            if (e == ETM_END) {
                stepping = 0;
                etm_end(etm);
                continue;
            }
            if (e != ETM_OK) {
                rc = report(&d);
                break;
            }
            if (etm_step(etm, &in, &out) == ETM_ERR_RULE) {
                etm_rule_t r[4];
                unsigned n = etm_last_rules(etm, r, 4);
                fprintf(stderr, "%s:%lu: cycle %" PRIu64 ": %s: %s\n", stip, etm_vec_line(si), cycle,
                        n ? etm_rule_name(r[0]) : "?", n ? etm_rule_text(r[0]) : "");
                rc = 1;
            }
        } else if (etm_drain(etm, &out) != ETM_OK) {
            break;
        }
        w = etm_vec_read_out(ex, &want, &d);
        if (w == ETM_END) {
            fprintf(stderr, "golden_replay: %s ends at cycle %" PRIu64 ", the model goes on\n", expp, cycle);
            rc = 1;
            break;
        }
        if (w != ETM_OK) {
            rc = report(&d);
            break;
        }
        uint64_t bits = etm_out_diff(&out, &want, mask);
        if (bits) {
            rc = 1;
            for (size_t i = 0; i < etm_out_signal_count && diffs < 20; i++) {
                if (!((bits >> i) & 1))
                    continue;
                char a[64], b[64];
                fprintf(stderr, "%s:%lu: cycle %" PRIu64 ": %s expected %s, the model gives %s\n", expp,
                        etm_vec_line(ex), cycle, etm_out_signals[i].name, etm_out_format(&want, i, b, sizeof b),
                        etm_out_format(&out, i, a, sizeof a));
                diffs++;
            }
        }
        cycle++;
    }
    if (rc != 2 && etm_vec_read_out(ex, &want, &d) == ETM_OK) {
        fprintf(stderr, "golden_replay: %s has more cycles than the model's %" PRIu64 "\n", expp, cycle);
        rc = 1;
    }
    if (rc == 0)
        printf("%s: %" PRIu64 " cycles, every output as expected\n", argv[1], cycle);
    etm_destroy(etm);
    etm_vec_close(si);
    etm_vec_close(ex);
    return rc;
}
