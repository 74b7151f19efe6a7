// sc_lockstep.cpp - the C model and the RTL twin side by side in SystemC.
//
//   source (core) ──pins──┬─▶ EtmModel (libetm) ──pins──┬─▶ EtmCompare
//        ▲                └─▶ EtmRtl (Verilated --sc) ──┘
//        └── FIFOFULL of the C model: the core is held while it is 1
//
// Both ETMs get the same pins every cycle; every output pin of every cycle must
// agree (FIFOFULL too when the RTL has that port), through the end of trace
// and the drain. The ETM's port runs at the core clock (PORT_BYTES 1..8, the
// RTL's); EtmPortTap feeds its bytes to the project's ETMv3 decoder.
//
//   sc_lockstep [source and configuration options] [--trace FILE] [--inject CYCLE]
//               [--tlm-reprogram N]
//
// Both ETMs come out of reset unprogrammed. The source programs them through
// their APB pins before its stimulus; with --tlm-reprogram N a TLM-2.0
// initiator (a debugger's model) does it instead, through the source's target
// socket while the core runs, and reprograms them every N cycles (a new trace
// ID), polling ETMSR[1] as software does.
//
// Exit status 0: they agreed on every cycle; 1: a mismatch (printed with the
// cycle, the pins and the inputs) or a trace the decoder rejects; 2: bad usage,
// configuration or input (file and line).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <tlm_utils/simple_initiator_socket.h>

#include "etm_sc.h"
#include "etm_sc_rtl.h"

using namespace sc_core;
using namespace etm_sc;

// A debugger's model: programs the ETM through a TLM-2.0 socket (etm/program.h's
// sequence, its polls done here), then again every `every` cycles.
struct ApbInitiator : sc_module {
    SC_HAS_PROCESS(ApbInitiator);
    tlm_utils::simple_initiator_socket<ApbInitiator> socket;
    ApbInitiator(sc_module_name n, const etm_config_t &cfg, uint64_t every)
        : sc_module(n), socket("socket"), cfg_(cfg), now_(cfg), every_(every)
    {
        SC_THREAD(run);
    }
    uint64_t programmings = 0, accesses = 0;
    bool failed = false;

private:
    uint32_t access(bool write, unsigned offset, uint32_t value)
    {
        tlm::tlm_generic_payload gp;
        sc_time delay = SC_ZERO_TIME;
        gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address(offset);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&value));
        gp.set_data_length(4);
        gp.set_streaming_width(4);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        socket->b_transport(gp, delay);
        failed |= !gp.is_response_ok();
        accesses++;
        return value;
    }
    void program(const etm_config_t &t, const etm_config_t *from)
    {
        etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
        size_t n = etm_program_ops(&t, from, ops, ETM_PROGRAM_MAX_OPS);
        for (size_t i = 0; i < n && !failed; i++) {
            const etm_apb_op_t &op = ops[i];
            if (op.kind == ETM_APB_IDLE) {
                wait(sc_time(10, SC_NS));
            } else if (op.kind == ETM_APB_POLL) {
                unsigned guard = 0;
                while ((access(false, op.offset, 0) & op.mask) != op.value && ++guard < 100000) {
                }
                failed |= guard == 100000;
            } else {
                access(op.kind == ETM_APB_WRITE, op.offset, op.value);
            }
        }
        programmings++;
    }
    void run()
    {
        program(cfg_, nullptr);
        for (uint64_t k = 1; every_; k++) {
            wait(sc_time(10.0 * (double)every_, SC_NS));
            etm_config_t t = cfg_;
            t.etmtraceidr = 1 + (uint32_t)(k % 0x6F);
            program(t, &now_);
            now_ = t;
        }
    }
    etm_config_t cfg_, now_;
    uint64_t every_;
};

static int usage()
{
    std::fprintf(stderr,
                 "usage: sc_lockstep [options]\n%s"
                 "  --trace FILE    the ETMv3 bytes that left the C model's port\n"
                 "  --inject CYCLE  self-test: the RTL alone gets a corrupted input in that cycle\n"
                 "  --verify        also the protocol scoreboard (etm/verify.h) on the RTL's trace\n"
                 "  --tlm-reprogram N  program both ETMs through the source's TLM-2.0 socket while the\n"
                 "                  core runs, and again every N cycles (a new trace ID)\n",
                 common_usage());
    return 2;
}

int sc_main(int argc, char **argv)
{
    Options o;
    std::string trace;
    uint64_t inject = UINT64_MAX, tlm_every = 0;
    bool tlm = false, verify = false;
    for (int i = 1; i < argc; i++) {
        int k = parse_option(o, argc, argv, i);
        if (k < 0)
            return 2;
        if (k)
            continue;
        std::string a = argv[i];
        if (a == "--trace" && i + 1 < argc)
            trace = argv[++i];
        else if (a == "--verify")
            verify = true;
        else if (a == "--inject" && i + 1 < argc)
            inject = std::strtoull(argv[++i], nullptr, 0);
        else if (a == "--tlm-reprogram" && i + 1 < argc) {
            tlm = true;
            tlm_every = std::strtoull(argv[++i], nullptr, 0);
        }
        else
            return usage();
    }
    quiet_kernel();
    try {
        etm_config_t cfg = effective_config(o);
        if (!cfg.port_bytes)
            throw std::runtime_error("PORT_BYTES=0 (an external port) has no RTL twin: the lockstep compares "
                                     "configurations whose port runs at the core clock (PORT_BYTES 1..8); "
                                     "sc_system runs external ports");
        sc_clock clk("clk", sc_time(10, SC_NS), 0.5, sc_time(10, SC_NS), true);
        sc_signal<bool> rst_n("rst_n"), end("end");
        EtmInBus core("core");
        EtmOutBus c_pins("c_model"), r_pins("rtl");
        EtmSource src("source", open_source(o), o.records.empty() && o.vectors.empty() && o.vcd.empty() ? 0 : o.cycles);
        // Both come out of reset unprogrammed; the source programs them through
        // the APB pins before its stimulus (the same cycles to both).
        EtmModel c("etm_c", cfg, true);
        EtmRtl r("etm_rtl", cfg);
        std::unique_ptr<ApbInitiator> dbg;
        if (tlm) {
            dbg.reset(new ApbInitiator("debugger", cfg, tlm_every));
            dbg->socket.bind(src.apb);
        } else {
            src.program_first(cfg);
        }
        r.inject_at(inject);
        EtmCompare cmp("compare", "C model", "RTL");
        EtmPortTap tap("tap");
        EtmSink sink("sink", cfg, trace);
        StopWhen stop("stop", [&] { return src.finished() && c.finished(); });
        // --verify: the protocol scoreboard on the RTL's own trace, against the core's pins.
        std::unique_ptr<EtmVerify> ver;
        std::unique_ptr<EtmPortTap> rtap;
        if (verify) {
            ver.reset(new EtmVerify("verify", cfg, true, true));
            ver->clk(clk);
            ver->end(end);
            ver->in.bind(core.pin);
            ver->out.bind(r_pins.pin);
            rtap.reset(new EtmPortTap("rtl_tap"));
            rtap->clk(clk);
            rtap->out.bind(r_pins.pin);
            rtap->sink(ver->bytes);
        }

        src.clk(clk);
        src.rst_n(rst_n);
        src.fifofull(c_pins.pin[PIN_FIFOFULL]);
        src.prdata(c_pins.pin[PIN_PRDATA]);
        src.pin.bind(core.pin);
        src.end(end);
        wire_etm(c, clk, rst_n, end, core, c_pins);
        wire_etm(r, clk, rst_n, end, core, r_pins);
        cmp.clk(clk);
        cmp.a.bind(c_pins.pin);
        cmp.b.bind(r_pins.pin);
        cmp.in.bind(core.pin);
        tap.clk(clk);
        tap.out.bind(c_pins.pin);
        tap.sink(sink.in);
        stop.clk(clk);

        sc_trace_file *tf = open_waves(o.waves, clk, rst_n);
        if (tf) {
            sc_trace(tf, end, "end");
            core.trace(tf);
            c_pins.trace(tf);
            r_pins.trace(tf);
        }
        run_from_reset(rst_n, tf);
        sink.finish();

        const etm_stats_t &st = c.stats();
        const etm_stim_stats_t &ss = src.stats();
        if (!o.quiet || cmp.mismatch()) {
            std::printf("C model and RTL in SystemC: %" PRIu64 " cycles compared (%" PRIu64 " held on FIFOFULL)\n",
                        cmp.compared(), ss.held);
            std::printf("cycles %" PRIu64 ", instructions %" PRIu64 ", trace bytes %" PRIu64 ", overflows %" PRIu64
                        ", FIFOFULL cycles %" PRIu64 "; decoder: %" PRIu64 " bytes, %" PRIu64 " packets, %" PRIu64
                        " atoms (model %" PRIu64 ")\n",
                        st.cycles, st.instructions, st.bytes, st.overflows, st.fifofull_cycles, sink.bytes(),
                        sink.packets(), sink.atoms(), st.atoms);
            if (ss.holds_ignored)
                std::printf("note: a replayed source cannot stall: FIFOFULL was 1 before %" PRIu64
                            " cycles it could not hold\n", ss.holds_ignored);
        }
        if (dbg && (!o.quiet || dbg->failed || !dbg->programmings))
            std::printf("debugger (TLM-2.0): %" PRIu64 " programmings, %" PRIu64 " register accesses%s\n",
                        dbg->programmings, dbg->accesses, dbg->failed ? ", FAILED" : "");
        if (ver) {
            // ETMSR[0]: the C model's, which the lockstep holds equal to the RTL's.
            const etm_verify_result_t &vr = ver->finish(c.untraced_overflow());
            if (vr.failures) {
                std::printf("scoreboard on the RTL: FAILED: %s\n", ver->describe().c_str());
                return 1;
            }
            if (!o.quiet)
                std::printf("scoreboard on the RTL: %" PRIu64 " instructions, %" PRIu64 " overflow restarts, "
                            "latency at most %" PRIu64 " cycles: the trace is right\n",
                            vr.instructions, vr.overflows, vr.max_latency);
        }
        if (src.failed())
            return 2;
        if (cmp.mismatch())
            return 1;
        if (dbg && (dbg->failed || !dbg->programmings))
            return 1;
        if (!cmp.compared()) {
            std::fprintf(stderr, "sc_lockstep: no cycle was compared\n");
            return 1;
        }
        if (sink.decode_error()) {
            std::fprintf(stderr, "sc_lockstep: %s\n", sink.error().c_str());
            return 1;
        }
        if (sink.decodes() && (st.overflows ? sink.atoms() > st.atoms : sink.atoms() != st.atoms)) {
            std::fprintf(stderr, "sc_lockstep: the decoder found %" PRIu64 " atoms in the trace, the model traced %" PRIu64
                                 "\n", sink.atoms(), st.atoms);
            return 1;
        }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sc_lockstep: %s\n", e.what());
        return 2;
    }
}
