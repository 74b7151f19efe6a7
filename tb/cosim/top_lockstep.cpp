/* top_lockstep.cpp - the lockstep of a part as it is built: etm_top with a
 * configuration's implementation as parameters (no ETMv1 logic), Verilated with
 * them inside etm_top_tick.sv (one eval() a cycle), against the C model made
 * from the same configuration. Where etm_cosim runs etm_core (every
 * implementation on ports, so that one model serves every configuration), this
 * runs what synthesis sees (scripts/yosys-area): the register file sized by
 * ETMCCR, no slot-1 logic, the FIFO's store and the packet generator sized by
 * FIFO_WRITE and PORT_BYTES, the bits no write can set held at zero.
 * tb/cosim/CMakeLists.txt (etm_top_part) builds one program per part: the
 * ETM-M3 (etm-m3, records, PKT_QUEUE=8: etm_top_lockstep) and a
 * cycle-accurate part with a 2-byte ATB (etm_top_lockstep_ca).
 *
 *   etm_top_lockstep [CYCLES [SEED]]     default 1000000 cycles, seed 1
 *
 * Random code with exceptions, stalls, folds and triggers, ATREADY held low in bursts
 * (ETM_TOP_ATB_STALL percent of the cycles: the FIFO fills and overflows), programmed through the APB as in silicon;
 * with a port wider than a byte, ATB flush requests (AFVALID until AFREADY);
 * every output and rule bit compared every cycle, programming included. Exit
 * status 0 with no mismatch, and trace that overflowed, exceptions and
 * triggers; 1 otherwise, with the first mismatch printed. */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include ETM_TOP_HEADER
#include "verilated.h"

#include "etm/etm.h"
#include "rtl_io.h"

#ifndef ETM_TOP_ATB_STALL
#define ETM_TOP_ATB_STALL 40 /* percent of cycles with ATREADY low, in bursts */
#endif

namespace {

/* The part's configuration: the preset it was built from, whose read-only
 * registers must be what etm_top was built with (tb/cosim/CMakeLists.txt passes
 * the same numbers to Verilator), with the model parameters it was built with
 * (with ETM_TOP_EXACT the preset must have those too). */
bool part_config(etm_config_t *cfg)
{
    etm_config_preset(cfg, ETM_TOP_PRESET);
    struct {
        const char *name;
        uint32_t *have;
        unsigned long long built;
        bool param; /* a model parameter, not a read-only register */
    } const f[] = {
        { "ETMCCR", &cfg->etmccr, ETM_TOP_ETMCCR, false },
        { "ETMIDR", &cfg->etmidr, ETM_TOP_ETMIDR, false },
        { "ETMCCER", &cfg->etmccer, ETM_TOP_ETMCCER, false },
        { "ETMSCR", &cfg->etmscr, ETM_TOP_ETMSCR, false },
        { "PIDR", &cfg->pidr, ETM_TOP_PIDR, false },
        { "ETMCR_IMPL", &cfg->etmcr_impl, ETM_TOP_ETMCR_IMPL, false },
        { "FIFO_DEPTH", &cfg->fifo_depth, ETM_TOP_FIFO_DEPTH, true },
        { "FIFO_WRITE", &cfg->fifo_write, ETM_TOP_FIFO_WRITE, true },
        { "PORT_BYTES", &cfg->port_bytes, ETM_TOP_PORT_BYTES, true },
        { "ISSUE_WIDTH", &cfg->issue_width, ETM_TOP_ISSUE_WIDTH, true },
        { "BRANCH_FULL", &cfg->branch_full, ETM_TOP_BRANCH_FULL, true },
        { "PH_EAGER", &cfg->ph_eager, ETM_TOP_PH_EAGER, true },
        { "PKT_QUEUE", &cfg->pkt_queue, ETM_TOP_PKT_QUEUE, true },
        { "PH_PACKING", &cfg->ph_packing, ETM_TOP_PH_PACKING, true },
        { "TRACE_START", &cfg->trace_start, ETM_TOP_TRACE_START, true },
        { "ISYNC_INFO", &cfg->isync_info, ETM_TOP_ISYNC_INFO, true },
        { "SYNC_PLACEMENT", &cfg->sync_placement, ETM_TOP_SYNC_PLACEMENT, true },
        { "TAILCHAIN_RETURN", &cfg->tailchain_return, ETM_TOP_TAILCHAIN_RETURN, true },
        { "CANCEL_FORM", &cfg->cancel_form, ETM_TOP_CANCEL_FORM, true },
        { "APB_UNPRED", &cfg->apb_unpred, ETM_TOP_APB_UNPRED, true },
        { "APB_STRICT", &cfg->apb_strict, ETM_TOP_APB_STRICT, true },
        { "EVENT_RESET", &cfg->event_reset, ETM_TOP_EVENT_RESET, true },
    };
    bool ok = true;
    for (const auto &x : f) {
        if (*x.have == x.built)
            continue;
        if (x.param && !ETM_TOP_EXACT) {
            *x.have = (uint32_t)x.built;
            continue;
        }
        std::fprintf(stderr, "etm_top_lockstep: the %s preset has %s=0x%llX, etm_top was built with 0x%llX\n",
                     ETM_TOP_PRESET, x.name, (unsigned long long)*x.have, x.built);
        ok = false;
    }
    cfg->etmcr = ETM_TOP_ETMCR;
    return ok;
}

} // namespace

int main(int argc, char **argv)
{
    unsigned long long cycles = 1000000ull, seed = 1;
    if (argc > 3 || (argc > 1 && !std::strcmp(argv[1], "--help"))) {
        std::fprintf(stderr, "usage: etm_top_lockstep [CYCLES [SEED]]\n");
        return 2;
    }
    char *end = nullptr;
    if (argc > 1 && ((cycles = std::strtoull(argv[1], &end, 0)) == 0 || *end)) {
        std::fprintf(stderr, "etm_top_lockstep: CYCLES must be a positive number, not '%s'\n", argv[1]);
        return 2;
    }
    if (argc > 2 && (seed = std::strtoull(argv[2], &end, 0), *end)) {
        std::fprintf(stderr, "etm_top_lockstep: SEED must be a number, not '%s'\n", argv[2]);
        return 2;
    }
    etm_config_t cfg;
    if (!part_config(&cfg))
        return 1;
    cfg.etmtrigger = 0x21; /* the trigger event: external input 1 (ETMTRIGGER, as the stimulus drives it) */

    etm_diag_t d;
    etm_ctx_t *model = nullptr;
    if (etm_create_at_reset(&model, &cfg, &d) != ETM_OK) {
        std::fprintf(stderr, "etm_top_lockstep: %s\n", d.msg);
        return 1;
    }
    std::unique_ptr<VerilatedContext> vctx(new VerilatedContext);
    std::unique_ptr<ETM_TOP_CLASS> top(new ETM_TOP_CLASS(vctx.get(), "etm"));
    rtl_reset(top.get());
    uint64_t mismatches = 0;
    if (!rtl_program_both(top.get(), model, &cfg, &mismatches)) {
        std::fprintf(stderr, "etm_top_lockstep: no programming sequence for the configuration\n");
        return 1;
    }
    if (mismatches) {
        std::printf("FAIL: %" PRIu64 " cycles of programming through the APB differ\n", mismatches);
        return 1;
    }

    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    gp.seed = seed;
    gp.triggers = 1;
    gp.atb_stall_pct = ETM_TOP_ATB_STALL;
    gp.atb_burst = 8;
    etm_gen_t *g = nullptr;
    if (etm_gen_create(&g, &gp, &d) != ETM_OK) {
        std::fprintf(stderr, "etm_top_lockstep: %s\n", d.msg);
        return 1;
    }
    etm_in_t in;
    etm_out_t c_out, r_out;
    uint64_t r_viol = 0;
    /* A part with a wider ATB has the flush handshake: the trace sink asks for a
     * flush every 5 000 cycles on average, AFVALID held until AFREADY. */
    RtlFlushSink flush(seed, ETM_TOP_PORT_BYTES > 1 ? 5000 : 0);
    for (unsigned long long c = 0; c < cycles; c++) {
        etm_gen_next(g, &in, nullptr);
        in.afvalid = flush.afvalid();
        rtl_drive_inputs(top.get(), &in);
        rtl_settle(top.get());
        etm_step(model, &in, &c_out);
        rtl_read_outputs(top.get(), &r_out, &r_viol);
        uint64_t c_viol = etm_last_rule_mask(model);
        flush.observe(&c_out);
        if (rtl_outputs_same(&c_out, &r_out) && c_viol == r_viol) {
            rtl_commit(top.get());
            continue;
        }
        uint64_t diff = etm_out_diff(&c_out, &r_out, ~(uint64_t)0);
        std::string ports = rtl_port_diff_lines(&c_out, &r_out);
        if (diff || !ports.empty() || c_viol != r_viol) {
            std::printf("mismatch at cycle %llu (after programming):\n", c);
            std::fputs((rtl_diff_lines(&c_out, &r_out, diff) + ports).c_str(), stdout);
            if (c_viol != r_viol)
                std::printf("  VIOLATIONS C model 0x%" PRIx64 " RTL 0x%" PRIx64 "\n", c_viol, r_viol);
            std::printf("FAIL: etm_top (%s, PKT_QUEUE=%d) and the C model differ (seed %llu)\n", ETM_TOP_PRESET,
                        ETM_TOP_PKT_QUEUE, seed);
            etm_gen_free(g);
            top->final();
            etm_destroy(model);
            return 1;
        }
        rtl_commit(top.get());
    }
    const etm_stats_t *st = etm_get_stats(model);
    std::printf("etm_top (%s, PKT_QUEUE=%d) and the C model: %llu cycles, 0 mismatches (seed %llu); "
                "%" PRIu64 " bytes of trace, %" PRIu64 " overflows, %" PRIu64 " exceptions, %" PRIu64 " triggers\n",
                ETM_TOP_PRESET, ETM_TOP_PKT_QUEUE, cycles, seed, (uint64_t)st->bytes, (uint64_t)st->overflows,
                (uint64_t)st->exceptions, (uint64_t)st->triggers);
    if (ETM_TOP_PORT_BYTES > 1)
        std::printf("%" PRIu64 " ATB flushes completed\n", flush.done);
    int rc = 0;
    if (st->bytes == 0 || st->overflows == 0 || st->exceptions == 0 || st->triggers == 0 ||
        (ETM_TOP_PORT_BYTES > 1 && flush.done == 0)) {
        std::printf("FAIL: the run should trace, overflow (ATREADY low %d%% of the time), take exceptions and "
                    "triggers%s\n", ETM_TOP_ATB_STALL, ETM_TOP_PORT_BYTES > 1 ? ", and complete ATB flushes" : "");
        rc = 1;
    } else {
        std::printf("PASS\n");
    }
    etm_gen_free(g);
    top->final();
    etm_destroy(model);
    return rc;
}
