#define _POSIX_C_SOURCE 200809L
/* bench_decode.c - throughput of the project's ETMv3 decoder beside OpenCSD's
 * ETMv3 packet processor on the same bytes (a benchmark, not a test).
 *
 *   bench_decode [cycles]          default 5000000 cycles of stimulus per configuration
 *
 * For each configuration the model traces a random program (not timed); then
 * the bytes go, in 64 KiB blocks as a trace reader would give them, through
 * (1) OpenCSD's packet processor alone (Debian libopencsd, the C API, a packet
 * sink that counts packets); (2) the project's decoder with packets only
 * (etm/decode_v3.h, ETM_V3DEC_PACKETS: the same work), a callback counting
 * them; and (3) the project's whole decoder without a code image, which also
 * makes elements (atoms, branches, exceptions), counted by a second callback.
 * Each is timed over the best of three passes; the figures are bytes per
 * second and the ratio of (2) to (1): at least 1 is the aim. All must read
 * every byte without an error, and the packet counts must agree. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "bench_args.h"
#include "etm/etm.h"

#define BLOCK 65536

typedef struct trace {
    uint8_t *b;
    size_t n, cap;
} trace_t;

static int put_bytes(trace_t *t, const uint8_t *b, size_t n)
{
    if (t->n + n > t->cap) {
        size_t cap = t->cap ? t->cap : 1 << 20;
        while (cap < t->n + n)
            cap *= 2;
        uint8_t *nb = (uint8_t *)realloc(t->b, cap);
        if (!nb)
            return -1;
        t->b = nb;
        t->cap = cap;
    }
    memcpy(t->b + t->n, b, n);
    t->n += n;
    return 0;
}

/* The model's trace of cycles of random stimulus. */
static int make_trace(const etm_config_t *cfg, unsigned long long cycles, trace_t *t)
{
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    etm_gen_t *g;
    etm_ctx_t *etm;
    etm_diag_t d;
    if (etm_gen_create(&g, &gp, &d) != ETM_OK || etm_create(&etm, cfg, &d) != ETM_OK) {
        fprintf(stderr, "bench_decode: %s\n", d.msg);
        return -1;
    }
    etm_in_t in;
    etm_out_t out;
    int rc = 0;
    for (unsigned long long k = 0; k < cycles && !rc; k++) {
        etm_gen_next(g, &in, NULL);
        etm_step(etm, &in, &out);
        rc = put_bytes(t, out.v3_bytes, out.v3_count);
    }
    etm_end(etm);
    while (!rc && etm_drain(etm, &out) == ETM_OK)
        rc = put_bytes(t, out.v3_bytes, out.v3_count);
    etm_destroy(etm);
    etm_gen_free(g);
    if (rc)
        fprintf(stderr, "bench_decode: out of memory\n");
    return rc;
}

/* ---- OpenCSD's packet processor ------------------------------------------------------------- */

static ocsd_datapath_resp_t ocsd_count(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx,
                                       const void *pkt)
{
    (void)idx;
    (void)pkt;
    if (op == OCSD_OP_DATA)
        ++*(unsigned long long *)(uintptr_t)ctx;
    return OCSD_RESP_CONT;
}

/* One pass; returns seconds, or -1 on an error. */
static double ocsd_pass(const etm_config_t *cfg, const trace_t *t, unsigned long long *packets)
{
    *packets = 0;
    dcd_tree_handle_t tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    ocsd_etmv3_cfg oc;
    memset(&oc, 0, sizeof oc);
    oc.reg_idr = cfg->etmidr;
    oc.reg_ctrl = cfg->etmcr;
    oc.reg_ccer = cfg->etmccer;
    oc.reg_trc_id = cfg->etmtraceidr;
    oc.arch_ver = ARCH_V7;
    oc.core_prof = profile_CortexM;
    unsigned char csid;
    if (!tree || ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV3, OCSD_CREATE_FLG_PACKET_PROC, &oc, &csid) != OCSD_OK) {
        fprintf(stderr, "bench_decode: cannot create OpenCSD's packet processor\n");
        return -1;
    }
    union { FnDefPktDataIn fn; void *p; } cb; /* the C API takes the callback as void * */
    cb.fn = ocsd_count;
    ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, cb.p, packets);
    double t0 = bench_now();
    int bad = 0;
    for (size_t off = 0; off < t->n && !bad; off += BLOCK) {
        uint32_t n = (uint32_t)(t->n - off < BLOCK ? t->n - off : BLOCK), used = 0;
        ocsd_datapath_resp_t r = ocsd_dt_process_data(tree, OCSD_OP_DATA, off, n, t->b + off, &used);
        bad = OCSD_DATA_RESP_IS_FATAL(r) || used != n;
    }
    ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
    double s = bench_now() - t0;
    ocsd_destroy_dcd_tree(tree);
    if (bad)
        fprintf(stderr, "bench_decode: OpenCSD stopped on the model's trace\n");
    return bad ? -1 : s;
}

/* ---- The project's decoder ------------------------------------------------------------------ */

typedef struct counts {
    unsigned long long packets, elements;
} counts_t;

static void own_packet(void *user, const etm_v3pkt_t *p)
{
    (void)p;
    ((counts_t *)user)->packets++;
}

static void own_element(void *user, const etm_v3el_t *e)
{
    (void)e;
    ((counts_t *)user)->elements++;
}

static double own_pass(const etm_config_t *cfg, const trace_t *t, unsigned flags, counts_t *c)
{
    memset(c, 0, sizeof *c);
    etm_v3dec_t *dec;
    etm_diag_t d;
    if (etm_v3dec_create(&dec, cfg, ETM_V3DEC_V7M | flags, &d) != ETM_OK) {
        fprintf(stderr, "bench_decode: %s\n", d.msg);
        return -1;
    }
    etm_v3dec_on_packet(dec, own_packet, c);
    etm_v3dec_on_element(dec, own_element, c);
    double t0 = bench_now();
    int bad = 0;
    for (size_t off = 0; off < t->n && !bad; off += BLOCK) {
        size_t n = t->n - off < BLOCK ? t->n - off : BLOCK;
        bad = etm_v3dec_feed(dec, t->b + off, n, NULL, &d) != ETM_OK;
    }
    bad = bad || etm_v3dec_end(dec, &d) != ETM_OK;
    double s = bench_now() - t0;
    etm_v3dec_destroy(dec);
    if (bad)
        fprintf(stderr, "bench_decode: the project's decoder stopped on the model's trace: %s\n", d.msg);
    return bad ? -1 : s;
}

int main(int argc, char **argv)
{
    unsigned long long cycles = 5000000ull;
    int rc = bench_args(argc, argv, "bench_decode",
                        "usage: bench_decode [CYCLES]\n\nBytes per second of the project's ETMv3 decoder (packets "
                        "only, and whole) beside\nOpenCSD's ETMv3 packet processor on the model's trace of CYCLES "
                        "cycles of random\nstimulus (default 5000000) for a few configurations, best of three passes "
                        "each.\n",
                        &cycles);
    if (rc >= 0)
        return rc;
    static const struct {
        const char *name;
        const char *preset;
        uint32_t etmcr;
    } cfgs[] = {
        { "ETMv3.4, not cycle-accurate", "etm-m3", 0x810 },
        { "ETMv3.4, cycle-accurate (what-if)", "cm3-ca-whatif", 0x1810 },
        { "ETMv3.5, CA + branch broadcast", "etmv3.5", 0x1910 },
    };
    printf("%llu cycles per configuration, best of 3 passes; bytes per second\n", cycles);
    printf("%-36s %9s %12s %12s %6s %12s %9s %9s\n", "configuration", "bytes", "OpenCSD pkts", "own packets",
           "ratio", "own decode", "packets", "elements");
    int bad = 0;
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0] && !bad; k++) {
        etm_config_t cfg;
        etm_config_preset(&cfg, cfgs[k].preset);
        cfg.etmcr = cfgs[k].etmcr;
        trace_t t = { NULL, 0, 0 };
        if (make_trace(&cfg, cycles, &t) != 0)
            return 1;
        double best[3] = { -1, -1, -1 };
        unsigned long long opk = 0;
        counts_t cp = { 0, 0 }, cf = { 0, 0 };
        for (int pass = 0; pass < 3 && !bad; pass++) {
            double s[3];
            s[0] = ocsd_pass(&cfg, &t, &opk);
            s[1] = own_pass(&cfg, &t, ETM_V3DEC_PACKETS, &cp);
            s[2] = own_pass(&cfg, &t, 0, &cf);
            for (int i = 0; i < 3; i++) {
                bad |= s[i] < 0;
                best[i] = best[i] < 0 || s[i] < best[i] ? s[i] : best[i];
            }
        }
        if (!bad && (opk != cp.packets || cp.packets != cf.packets || cp.elements)) {
            fprintf(stderr, "bench_decode: %s: packet counts differ (OpenCSD %llu, own %llu and %llu) or elements "
                            "came with packets only\n", cfgs[k].name, opk, cp.packets, cf.packets);
            bad = 1;
        }
        if (!bad)
            printf("%-36s %9zu %12.0f %12.0f %6.2f %12.0f %9llu %9llu\n", cfgs[k].name, t.n, (double)t.n / best[0],
                   (double)t.n / best[1], best[0] / best[1], (double)t.n / best[2], cp.packets, cf.elements);
        free(t.b);
    }
    return bad;
}
