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
#include "etm/number.h"

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

// The command line: the common options and sc_lockstep's own.
struct LockstepArgs {
    Options o;
    std::string trace;
    uint64_t inject = UINT64_MAX, tlm_every = 0;
    bool tlm = false, verify = false;
};

// Returns -1 to go on, else the exit status (a bad option: printed).
static int parse_args(LockstepArgs &a, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int k = parse_option(a.o, argc, argv, i);
        if (k < 0)
            return 2;
        if (k)
            continue;
        std::string s = argv[i];
        if (s == "--trace" && i + 1 < argc)
            a.trace = argv[++i];
        else if (s == "--verify")
            a.verify = true;
        else if (s == "--inject" && i + 1 < argc) {
            etm_diag_t d;
            if (etm_number_parse(argv[++i], 0, UINT64_MAX, &a.inject, &d) != ETM_OK) {
                std::fprintf(stderr, "sc_lockstep: --inject %s\n", d.msg);
                return 2;
            }
        } else if (s == "--tlm-reprogram" && i + 1 < argc) {
            a.tlm = true;
            etm_diag_t d;
            if (etm_number_parse(argv[++i], 1, UINT64_MAX, &a.tlm_every, &d) != ETM_OK) {
                std::fprintf(stderr, "sc_lockstep: --tlm-reprogram %s\n", d.msg);
                return 2;
            }
        }
        else
            return usage();
    }
    return -1;
}

// Who programs both ETMs, which come out of reset unprogrammed: with
// --tlm-reprogram a debugger through the source's TLM-2.0 socket, else
// (nullptr) the source through the APB pins before its stimulus (the same
// cycles to both).
static std::unique_ptr<ApbInitiator> programmer(const LockstepArgs &a, const etm_config_t &cfg, EtmSource &src)
{
    std::unique_ptr<ApbInitiator> dbg;
    if (a.tlm) {
        dbg.reset(new ApbInitiator("debugger", cfg, a.tlm_every));
        dbg->socket.bind(src.apb);
    } else {
        src.program_first(cfg);
    }
    return dbg;
}

// The system of the picture above, its modules built in this order and wired.
struct Lockstep {
    sc_clock clk;
    sc_signal<bool> rst_n, end;
    EtmInBus core;
    EtmOutBus c_pins, r_pins;
    EtmSource src;
    EtmModel c;
    EtmRtl r;
    std::unique_ptr<ApbInitiator> dbg; // --tlm-reprogram
    EtmCompare cmp;
    EtmPortTap tap;
    EtmSink sink;
    StopWhen stop;
    // --verify: the protocol scoreboard on the RTL's own trace, against the core's pins.
    std::unique_ptr<EtmVerify> ver;
    std::unique_ptr<EtmPortTap> rtap;

    Lockstep(const LockstepArgs &a, const etm_config_t &cfg)
        : clk("clk", sc_time(10, SC_NS), 0.5, sc_time(10, SC_NS), true), rst_n("rst_n"), end("end"), core("core"),
          c_pins("c_model"), r_pins("rtl"),
          src("source", open_source(a.o),
              a.o.records.empty() && a.o.vectors.empty() && a.o.vcd.empty() ? 0 : a.o.cycles),
          c("etm_c", cfg, true), r("etm_rtl", cfg), dbg(programmer(a, cfg, src)), cmp("compare", "C model", "RTL"),
          tap("tap"), sink("sink", cfg, a.trace), stop("stop", [this] { return src.finished() && c.finished(); }),
          ver(a.verify ? new EtmVerify("verify", cfg, true, true) : nullptr),
          rtap(a.verify ? new EtmPortTap("rtl_tap") : nullptr)
    {
        r.inject_at(a.inject);
        if (ver)
            wire_verify();
        wire();
    }

    // The waves of --waves (nullptr: none asked for), the pins in them.
    sc_trace_file *waves(const std::string &path)
    {
        sc_trace_file *tf = open_waves(path, clk, rst_n);
        if (tf) {
            sc_trace(tf, end, "end");
            core.trace(tf);
            c_pins.trace(tf);
            r_pins.trace(tf);
        }
        return tf;
    }

private:
    void wire_verify()
    {
        ver->clk(clk);
        ver->end(end);
        ver->in.bind(core.pin);
        ver->out.bind(r_pins.pin);
        rtap->clk(clk);
        rtap->out.bind(r_pins.pin);
        rtap->sink(ver->bytes);
    }

    void wire()
    {
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
    }
};

// What was compared and traced (unless --quiet and they agreed), and the
// debugger's programmings (unless --quiet and they went well).
static void print_summary(Lockstep &b, bool quiet)
{
    const etm_stats_t &st = b.c.stats();
    const etm_stim_stats_t &ss = b.src.stats();
    if (!quiet || b.cmp.mismatch()) {
        std::printf("C model and RTL in SystemC: %" PRIu64 " cycles compared (%" PRIu64 " held on FIFOFULL)\n",
                    b.cmp.compared(), ss.held);
        std::printf("cycles %" PRIu64 ", instructions %" PRIu64 ", trace bytes %" PRIu64 ", overflows %" PRIu64
                    ", FIFOFULL cycles %" PRIu64 "; decoder: %" PRIu64 " bytes, %" PRIu64 " packets, %" PRIu64
                    " atoms (model %" PRIu64 ")\n",
                    st.cycles, st.instructions, st.bytes, st.overflows, st.fifofull_cycles, b.sink.bytes(),
                    b.sink.packets(), b.sink.atoms(), st.atoms);
        if (ss.holds_ignored)
            std::printf("note: a replayed source cannot stall: FIFOFULL was 1 before %" PRIu64
                        " cycles it could not hold\n", ss.holds_ignored);
    }
    if (b.dbg && (!quiet || b.dbg->failed || !b.dbg->programmings))
        std::printf("debugger (TLM-2.0): %" PRIu64 " programmings, %" PRIu64 " register accesses%s\n",
                    b.dbg->programmings, b.dbg->accesses, b.dbg->failed ? ", FAILED" : "");
}

// --verify: the scoreboard's verdict on the RTL's trace, ETMSR[0] the C
// model's (which the lockstep holds equal to the RTL's). Returns 0, or 1 (printed).
static int scoreboard_verdict(Lockstep &b, bool quiet)
{
    const etm_verify_result_t &vr = b.ver->finish(b.c.untraced_overflow());
    if (vr.failures) {
        std::printf("scoreboard on the RTL: FAILED: %s\n", b.ver->describe().c_str());
        return 1;
    }
    if (!quiet)
        std::printf("scoreboard on the RTL: %" PRIu64 " instructions, %" PRIu64 " overflow restarts, "
                    "latency at most %" PRIu64 " cycles: the trace is right\n",
                    vr.instructions, vr.overflows, vr.max_latency);
    return 0;
}

// The exit status: 2 the source failed; 1 a mismatch, a debugger that failed
// or never programmed, no cycle compared, or a trace the decoder rejects or
// whose atoms are not the model's (printed); else 0.
static int verdict(Lockstep &b)
{
    const etm_stats_t &st = b.c.stats();
    if (b.src.failed())
        return 2;
    if (b.cmp.mismatch())
        return 1;
    if (b.dbg && (b.dbg->failed || !b.dbg->programmings))
        return 1;
    if (!b.cmp.compared()) {
        std::fprintf(stderr, "sc_lockstep: no cycle was compared\n");
        return 1;
    }
    if (b.sink.decode_error()) {
        std::fprintf(stderr, "sc_lockstep: %s\n", b.sink.error().c_str());
        return 1;
    }
    if (b.sink.decodes() && (st.overflows ? b.sink.atoms() > st.atoms : b.sink.atoms() != st.atoms)) {
        std::fprintf(stderr, "sc_lockstep: the decoder found %" PRIu64 " atoms in the trace, the model traced %" PRIu64
                             "\n", b.sink.atoms(), st.atoms);
        return 1;
    }
    return 0;
}

int sc_main(int argc, char **argv)
{
    LockstepArgs a;
    int rc = parse_args(a, argc, argv);
    if (rc >= 0)
        return rc;
    quiet_kernel();
    try {
        etm_config_t cfg = effective_config(a.o);
        if (!cfg.port_bytes)
            throw std::runtime_error("PORT_BYTES=0 (an external port) has no RTL twin: the lockstep compares "
                                     "configurations whose port runs at the core clock (PORT_BYTES 1..8); "
                                     "sc_system runs external ports");
        Lockstep b(a, cfg);
        run_from_reset(b.rst_n, b.waves(a.o.waves));
        b.sink.finish();
        print_summary(b, a.o.quiet);
        if (b.ver && scoreboard_verdict(b, a.o.quiet))
            return 1;
        return verdict(b);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sc_lockstep: %s\n", e.what());
        return 2;
    }
}
