/* bench_cosim.cpp - cycles per second of the C model alone, the Verilated RTL
 * alone, and both in lockstep, on the same stimulus (a benchmark, not a test).
 *
 *   bench_cosim [cycles]          default 2000000 cycles per configuration
 *
 * The stimulus is generated in blocks before timing; each block is then run
 * through the C model (etm_step), through the RTL (inputs, eval, clock edge),
 * and through both with every output compared, each timed separately. Each
 * row ends with the process's peak resident memory so far; the last line is a
 * bare streaming pass over the same records, the ceiling of any model that
 * reads them one by one (as bench_model prints it). */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "Vetm_core.h"
#include "Vetm_top_m3.h"
#include "verilated.h"

#include "bench_args.h"
#include "etm/etm.h"
#include "rtl_io.h"

namespace {

constexpr unsigned kBlock = 65536;

double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <class Top> inline void rtl_cycle(Top *t, const etm_in_t *in)
{
    rtl_drive_inputs(t, in);
    rtl_settle(t);
    rtl_commit(t);
}

/* Vetm_core: every implementation on ports; Vetm_top_m3: etm_top built as the
 * ETM-M3 with records (tb/cosim/CMakeLists.txt, ETM_TOP_M3). */
template <class Top> struct Rig {
    etm_ctx_t *model = nullptr;
    std::unique_ptr<VerilatedContext> vctx;
    std::unique_ptr<Top> top;
    bool init(const etm_config_t *cfg, bool with_rtl)
    {
        etm_diag_t d;
        /* With the RTL: both from reset, programmed through the APB alike. */
        if ((with_rtl ? etm_create_at_reset(&model, cfg, &d) : etm_create(&model, cfg, &d)) != ETM_OK) {
            std::fprintf(stderr, "%s\n", d.msg);
            return false;
        }
        if (!with_rtl)
            return true;
        vctx.reset(new VerilatedContext);
        top.reset(new Top(vctx.get(), "etm"));
        if constexpr (std::is_same_v<Top, Vetm_core>)
            rtl_drive_impl(top.get(), cfg);
        rtl_reset(top.get());
        return rtl_program_both(top.get(), model, cfg) != 0;
    }
    ~Rig()
    {
        if (top)
            top->final();
        etm_destroy(model);
    }
};

struct Cfg {
    const char *name, *preset;
    uint32_t etmcr;
    int data, issue2;
    int part; /* 1: etm_top built as the ETM-M3 (records; Vetm_top_m3), the configuration it was built for */
};

/* One row: the C model, the RTL and both in lockstep on the same stimulus.
 * Returns 1 on a mismatch (printed on the row), 2 if a model cannot be made. */
template <class Top> int run_row(const Cfg &c, unsigned long long cycles, std::vector<etm_in_t> &block)
{
    etm_config_t cfg;
    etm_config_preset(&cfg, c.preset);
    cfg.etmcr = c.etmcr;
    if (c.issue2)
        cfg.issue_width = 2;
    if (c.part)
        cfg.pkt_queue = ETM_TOP_PKT_QUEUE; /* as built (the preset's); its 1-byte port too */
    else if (cfg.etmccr >> 31)
        cfg.port_bytes = 2; /* enough bandwidth: measure the models, not overflows */
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.data = c.data;
    gp.issue_width = cfg.issue_width;
    /* Three passes over the same stimulus (regenerated from the same seed),
     * one model instance at a time. */
    double t[3] = { 0, 0, 0 };
    unsigned long long mismatches = 0;
    for (int pass = 0; pass < 3; pass++) {
        etm_gen_t *g;
        etm_diag_t d;
        if (etm_gen_create(&g, &gp, &d) != ETM_OK) {
            std::fprintf(stderr, "%s\n", d.msg);
            return 2;
        }
        Rig<Top> rig;
        if (!rig.init(&cfg, pass != 0)) {
            etm_gen_free(g);
            return 2;
        }
        etm_out_t co, ro;
        Top *top = rig.top.get();
        for (unsigned long long done = 0; done < cycles;) {
            unsigned n = cycles - done < kBlock ? (unsigned)(cycles - done) : kBlock;
            for (unsigned i = 0; i < n; i++)
                etm_gen_next(g, &block[i], nullptr);
            double t0 = now();
            if (pass == 0) {
                for (unsigned i = 0; i < n; i++)
                    etm_step(rig.model, &block[i], &co);
            } else if (pass == 1) {
                for (unsigned i = 0; i < n; i++)
                    rtl_cycle(top, &block[i]);
            } else {
                for (unsigned i = 0; i < n; i++) {
                    rtl_drive_inputs(top, &block[i]);
                    rtl_settle(top);
                    etm_step(rig.model, &block[i], &co);
                    rtl_read_outputs(top, &ro, nullptr);
                    if (!rtl_outputs_agree(&co, &ro))
                        mismatches++;
                    rtl_commit(top);
                }
            }
            t[pass] += now() - t0;
            done += n;
        }
        etm_gen_free(g);
    }
    std::printf("%-40s %14.0f %14.0f %14.0f %9ldK%s\n", c.name, (double)cycles / t[0], (double)cycles / t[1],
                (double)cycles / t[2], bench_peak_kib(), mismatches ? "  MISMATCH" : "");
    std::fflush(stdout);
    return mismatches ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    unsigned long long cycles = 2000000ull;
    int rc = bench_args(argc, argv, "bench_cosim",
                        "usage: bench_cosim [CYCLES]\n\nCycles per second of the C model alone, the Verilated RTL "
                        "alone and\nboth in lockstep, for a few configurations, CYCLES each (default 2000000).\n"
                        "The RTL is etm_core (the implementation on ports) but in the last row, which is\n"
                        "etm_top built as the ETM-M3 (records, PKT_QUEUE=8), as synthesized.\n",
                        &cycles);
    if (rc >= 0)
        return rc;
    static const Cfg cfgs[] = {
        { "ETMv3.4, not cycle-accurate", "etm-m3", 0x810, 0, 0, 0 },
        { "ETMv3.4, cycle-accurate (what-if)", "cm3-ca-whatif", 0x1810, 0, 0, 0 },
        { "ETMv3.5, cycle-accurate, dual issue", "etmv3.5", 0x1810, 0, 1, 0 },
        { "ETMv1.3, 8-bit port, data trace", "etmv1.3", 0x81C, 1, 0, 0 },
        { "ETM-M3 part, records (etm_top)", "etm-m3", 0x810, 0, 0, 1 },
    };
    std::vector<etm_in_t> block(kBlock);
    std::printf("%llu cycles per configuration; cycles per second\n", cycles);
    std::printf("%-40s %14s %14s %14s %10s\n", "configuration", "C model", "RTL", "lockstep", "peak");
    rc = 0;
    for (const Cfg &c : cfgs) {
        int r = c.part ? run_row<Vetm_top_m3>(c, cycles, block) : run_row<Vetm_core>(c, cycles, block);
        if (r == 2)
            return 1;
        if (r)
            rc = 1;
    }
    bench_stream_pass(block.data(), kBlock); /* the last block, as the models read it */
    return rc;
}
