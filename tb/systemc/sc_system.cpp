// sc_system.cpp - a core, the ETM (C model) and a trace port on its own clock, as
// many times as there are --port options, side by side in one simulation: one
// instance of every module per system, no state shared between them.
//
//   core clock (10 ns) ─┬─ EtmSource ──pins──▶ EtmModel (PORT_BYTES=0) ◀── FIFOFULL holds the source
//                       │                        │ FIFO (EtmFifoIf)
//   port clock (own) ───┴──────────────▶ EtmTracePort ──bytes──▶ EtmSink (decoder, file)
//
// Each system's port takes WIDTH bytes on each edge of its clock: at the core
// rate, half or quarter rate, or on both edges (double data rate). With --stall
// the ETM asserts FIFOFULL (ETMCR[7]) when fewer than FFLR bytes are free and
// the core waits while it does: a records or generator source holds (the Cortex-M3
// timing model's etm_cm3_stall); a replayed vector file or VCD cannot, and says so.
//
//   sc_system [source and configuration options] [--port W:MODE]... [--stall FFLR]
//             [--trace-prefix P] [--expect-overflow yes|no]
//
// It prints one line per system and a key=value summary line for scripts. Exit
// status 0; 1 when a sink's byte count, its decoder or --expect-overflow
// disagrees; 2 for bad usage, configuration or input.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "etm_sc.h"

using namespace sc_core;
using namespace etm_sc;

namespace {

// The scoreboard watches the core's pins and passes the trace on to the sink.
void wire_verify(EtmVerify &v, sc_clock &clk, sc_signal<bool> &end, EtmInBus &core, EtmOutBus &pins, EtmSink &sink)
{
    v.clk(clk);
    v.end(end);
    v.in.bind(core.pin);
    v.out.bind(pins.pin);
    v.next(sink.in);
}

/* --verify: the scoreboard's verdict on one system (0 right, 1 not). */
int report_verify(const char *sys, EtmVerify *v, bool untraced_overflow, bool quiet)
{
    if (!v)
        return 0;
    const etm_verify_result_t &r = v->finish(untraced_overflow);
    if (r.failures) {
        std::printf("%s: scoreboard: FAILED: %s\n", sys, v->describe().c_str());
        return 1;
    }
    if (!quiet)
        std::printf("%s: scoreboard: %" PRIu64 " instructions, %" PRIu64 " overflow restarts (%" PRIu64
                    " instructions lost), latency at most %" PRIu64 " cycles: the trace is right\n",
                    sys, r.instructions, r.overflows, r.lost, r.max_latency);
    return 0;
}

// One core, its ETM and its trace port.
class System : public sc_module {
public:
    EtmInBus core;
    EtmOutBus pins;
    sc_signal<bool> end;
    std::unique_ptr<sc_clock> pclk;
    sc_signal<uint64_t> tracedata, tracecount;
    EtmSource src;
    EtmModel etm;
    EtmTracePort port;
    EtmSink sink;
    PortClock pc;
    std::unique_ptr<EtmVerify> ver; // --verify: the protocol scoreboard before the sink

    System(sc_module_name n, const Options &o, const etm_config_t &cfg, const PortClock &p, const std::string &trace,
           sc_clock &clk, sc_signal<bool> &rst_n, bool verify)
        : sc_module(n), core("core"), pins("etm_pins"), end("end"), pclk(make_port_clock("pclk", p)),
          tracedata("TRACEDATA"), tracecount("TRACECOUNT"),
          src("source", open_source(o), o.records.empty() && o.vectors.empty() && o.vcd.empty() ? 0 : o.cycles),
          etm("etm", cfg), port("port", p), sink("sink", cfg, trace), pc(p)
    {
        src.clk(clk);
        src.rst_n(rst_n);
        src.fifofull(pins.pin[PIN_FIFOFULL]);
        src.pin.bind(core.pin);
        src.end(end);
        wire_etm(etm, clk, rst_n, end, core, pins);
        port.pclk(*pclk);
        port.fifo(etm.fifo);
        if (verify) {
            ver.reset(new EtmVerify("verify", cfg, true));
            wire_verify(*ver, clk, end, core, pins, sink);
            port.sink(ver->bytes);
        } else {
            port.sink(sink.in);
        }
        port.tracedata(tracedata);
        port.tracecount(tracecount);
    }
    bool done() const { return src.finished() && etm.finished() && etm.level() == 0; }
    void trace_signals(sc_trace_file *tf)
    {
        sc_trace(tf, *pclk, std::string(name()) + ".pclk");
        sc_trace(tf, tracedata.read(), std::string(name()) + ".TRACEDATA", 8 * (int)pc.width);
        sc_trace(tf, tracecount.read(), std::string(name()) + ".TRACECOUNT", 4);
        core.trace(tf);
        pins.trace(tf);
    }
};

// One core, its ETM and a TPIU on the ETM's ATB: the TPIU's ATREADY holds
// the ETM back, and the ETM's bytes, taken apart from the TPIU's pins, go to
// the sink.
//
//   core clock ─ EtmSource ──pins──▶ EtmModel ──ATB pins──▶ EtmTpiu ──▶ TRACEDATA
//                    ▲ ATREADY (EtmAtReadyIf) ──────────────────┘      └─▶ EtmSink
class TpiuSystem : public sc_module {
public:
    EtmInBus core;
    EtmOutBus pins;
    sc_signal<bool> end;
    sc_signal<uint64_t> traceclk, tracedata;
    EtmSource src;
    EtmModel etm;
    EtmTpiu tpiu;
    EtmSink sink;
    etm_tpiu_params_t tp;
    std::unique_ptr<EtmVerify> ver; // --verify: the protocol scoreboard on the deformatted bytes
    TpiuSystem(sc_module_name n, const Options &o, const etm_config_t &cfg, const etm_tpiu_params_t &p,
               const std::string &trace, sc_clock &clk, sc_signal<bool> &rst_n, bool verify)
        : sc_module(n), core("core"), pins("etm_pins"), end("end"), traceclk("TRACECLK"), tracedata("TRACEDATA"),
          src("source", open_source(o), o.records.empty() && o.vectors.empty() && o.vcd.empty() ? 0 : o.cycles),
          etm("etm", cfg), tpiu("tpiu", p, cfg.etmtraceidr & 0x7F), sink("sink", cfg, trace), tp(p)
    {
        src.clk(clk);
        src.rst_n(rst_n);
        src.fifofull(pins.pin[PIN_FIFOFULL]);
        src.pin.bind(core.pin);
        src.end(end);
        src.atb(tpiu.ready);
        wire_etm(etm, clk, rst_n, end, core, pins);
        tpiu.clk(clk);
        tpiu.rst_n(rst_n);
        tpiu.etm.bind(pins.pin);
        tpiu.atready(core.pin[(size_t)etm_signal_find(etm_in_signals, etm_in_signal_count, "ATREADY")]);
        tpiu.traceclk(traceclk);
        tpiu.tracedata(tracedata);
        if (verify) {
            /* Behind the TPIU bytes arrive frames and pins later: not timed. */
            ver.reset(new EtmVerify("verify", cfg, false));
            wire_verify(*ver, clk, end, core, pins, sink);
            tpiu.sink(ver->bytes);
        } else {
            tpiu.sink(sink.in);
        }
    }
    // The ETM has drained: the TPIU completes its frame; done when it is empty too.
    bool done()
    {
        if (src.finished() && etm.finished())
            tpiu.end();
        return tpiu.done();
    }
};

int usage()
{
    std::fprintf(stderr,
                 "usage: sc_system [options]\n%s"
                 "  --port W:MODE   a system whose trace port takes W (1, 2, 4) bytes per edge, MODE full,\n"
                 "                  half, quarter (core clock periods per port clock: 1, 2, 4), ddr or\n"
                 "                  half-ddr (both edges); repeatable: one system each (default 1:full)\n"
                 "  --tpiu PINS[:DIV]  a system whose ETM (its own ATB, PORT_BYTES wide) drives a TPIU of PINS\n"
                 "                  pins at the core clock / DIV (docs/tpiu.md), which holds it back; the\n"
                 "                  sink decodes what the pins carried; repeatable, not with --port\n"
                 "  --stall FFLR    ETMCR[7] with ETMFFLR=FFLR: the core is held while FIFOFULL is 1\n"
                 "  --trace-prefix P   write each system's trace bytes to P<N>.bin\n"
                 "  --expect-overflow yes|no   fail unless some (yes) or no (no) system overflowed\n"
                 "  --verify        the protocol scoreboard (etm/verify.h) on each system's trace, against\n"
                 "                  the core's pins: it must say exactly what the core did\n",
                 common_usage());
    return 2;
}

/* What sc_system's own options say. */
struct SystemArgs {
    std::vector<PortClock> ports;
    std::vector<etm_tpiu_params_t> tpius;
    std::string trace_prefix, expect;
    long fflr = -1;
    bool verify = false;
};

/* Returns -1 to go on, else the exit status. */
int parse_system_args(Options &o, SystemArgs &g, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int k = parse_option(o, argc, argv, i);
        if (k < 0)
            return 2;
        if (k)
            continue;
        std::string a = argv[i];
        if (a == "--verify") {
            g.verify = true;
            continue;
        }
        if (i + 1 >= argc)
            return usage();
        std::string v = argv[++i];
        if (a == "--port") {
            PortClock pc;
            if (!parse_port_clock(v, &pc)) {
                std::fprintf(stderr, "sc_system: --port %s: want WIDTH:MODE, WIDTH 1, 2 or 4, MODE full, half, "
                                     "quarter, ddr or half-ddr\n", v.c_str());
                return 2;
            }
            g.ports.push_back(pc);
        } else if (a == "--tpiu") {
            etm_tpiu_params_t tp;
            etm_diag_t d;
            if (etm_tpiu_params_parse(&tp, v.c_str(), 0, &d) != ETM_OK) {
                std::fprintf(stderr, "sc_system: --tpiu %s\n", d.msg);
                return 2;
            }
            g.tpius.push_back(tp);
        } else if (a == "--stall") {
            char *end;
            g.fflr = std::strtol(v.c_str(), &end, 0);
            if (*end || g.fflr < 1 || g.fflr > 255) {
                std::fprintf(stderr, "sc_system: --stall wants an ETMFFLR of 1 to 255\n");
                return 2;
            }
        } else if (a == "--trace-prefix") {
            g.trace_prefix = v;
        } else if (a == "--expect-overflow" && (v == "yes" || v == "no")) {
            g.expect = v;
        } else {
            return usage();
        }
    }
    if (!g.ports.empty() && !g.tpius.empty()) {
        std::fprintf(stderr, "sc_system: --port (an external port) and --tpiu (the ETM's ATB) do not go together\n");
        return 2;
    }
    if (g.ports.empty() && g.tpius.empty())
        g.ports.push_back(PortClock());
    return -1;
}

/* The sink's decoder against the model: no error, and the atoms the model
 * traced. The model counts an atom when it takes it in; an overflow can drop
 * atoms it had taken in but not yet sent, so only without overflows must the
 * counts be equal. Returns 0, or 1 with the difference printed. */
int check_sink_decode(const char *name, const EtmSink &sink, const etm_stats_t &st)
{
    bool atoms_ok = st.overflows ? sink.atoms() <= st.atoms : sink.atoms() == st.atoms;
    if (sink.decode_error() || !atoms_ok) {
        std::fprintf(stderr, "%s: the sink's decoder: %s\n", name,
                     sink.decode_error() ? sink.error().c_str() : "atom count differs from the model's");
        return 1;
    }
    return 0;
}

/* --expect-overflow against the systems' total; rc with a difference added. */
int check_expect(const SystemArgs &g, uint64_t overflows, int rc)
{
    if ((g.expect == "yes" && !overflows) || (g.expect == "no" && overflows)) {
        std::fprintf(stderr, "sc_system: expected %s, got %" PRIu64 " overflows\n",
                     g.expect == "yes" ? "overflows" : "no overflow", overflows);
        rc = rc ? rc : 1;
    }
    return rc;
}

/* One system's figures, and whether its sink got and decoded what its ETM sent
 * (0, 1 a difference, 2 its source failed). */
int report_system(System &s, const Options &o, const etm_config_t &cfg)
{
    int rc = 0;
    s.sink.finish();
    const etm_stats_t &st = s.etm.stats();
    const etm_stim_stats_t &ss = s.src.stats();
    if (!o.quiet) {
        std::printf("%s: port %s (%.2f bytes per core cycle): %" PRIu64 " cycles (%" PRIu64
                    " held on FIFOFULL), %" PRIu64 " instructions, %" PRIu64 " trace bytes, %" PRIu64
                    " overflows (%" PRIu64 " bytes lost), FIFO peak %u of %u\n",
                    s.name(), s.pc.text().c_str(), s.pc.capacity(), st.cycles, ss.held, st.instructions,
                    st.bytes, st.overflows, st.bytes_lost, s.etm.max_level(), cfg.fifo_depth);
        std::printf("%s: sink: %" PRIu64 " bytes over %" PRIu64 " port clock edges; decoder: %" PRIu64
                    " packets, %" PRIu64 " atoms (the model traced %" PRIu64 ")\n",
                    s.name(), s.sink.bytes(), s.port.edges(), s.sink.packets(), s.sink.atoms(), st.atoms);
        if (ss.holds_ignored)
            std::printf("%s: note: a replayed source cannot stall: FIFOFULL was 1 before %" PRIu64
                        " cycles it could not hold\n", s.name(), ss.holds_ignored);
    }
    std::printf("summary %s port=%u:%u:%u cycles=%" PRIu64 " held=%" PRIu64 " instructions=%" PRIu64
                " bytes=%" PRIu64 " port_bytes=%" PRIu64 " overflows=%" PRIu64 " bytes_lost=%" PRIu64
                " fifofull_cycles=%" PRIu64 " atoms=%" PRIu64 "\n",
                s.name(), s.pc.width, s.pc.div, s.pc.ddr ? 2 : 1, st.cycles, ss.held, st.instructions,
                st.bytes, st.port_bytes, st.overflows, st.bytes_lost, st.fifofull_cycles, st.atoms);
    if (s.src.failed())
        rc = 2;
    if (s.sink.bytes() != st.bytes || st.port_bytes != st.bytes) {
        std::fprintf(stderr, "%s: %" PRIu64 " bytes entered the FIFO, %" PRIu64 " left it, the sink got %" PRIu64 "\n",
                     s.name(), st.bytes, st.port_bytes, s.sink.bytes());
        rc = rc ? rc : 1;
    }
    if (check_sink_decode(s.name(), s.sink, st))
        rc = rc ? rc : 1;
    return rc;
}

/* One TPIU system's figures: the sink got the bytes that left the ETM over
 * ATB, and decoded them (0, 1 a difference, 2 its source failed). */
int report_tpiu_system(TpiuSystem &s, const Options &o)
{
    s.sink.finish();
    const etm_stats_t &st = s.etm.stats();
    const etm_tpiu_stats_t &ts = s.tpiu.stats();
    if (!o.quiet)
        std::printf("%s: TPIU %u pins at the core clock / %u: %" PRIu64 " cycles, %" PRIu64 " instructions, %" PRIu64
                    " trace bytes, %" PRIu64 " overflows; %" PRIu64 " frames, %" PRIu64 " frame syncs, %" PRIu64
                    " half-word syncs on the pins; decoder: %" PRIu64 " atoms (the model traced %" PRIu64 ")\n",
                    s.name(), s.tp.port_bits, s.tp.clk_div, st.cycles, st.instructions, st.bytes, st.overflows,
                    ts.frames, ts.fsyncs, ts.hsyncs, s.sink.atoms(), st.atoms);
    std::printf("summary %s tpiu=%u:%u cycles=%" PRIu64 " instructions=%" PRIu64 " bytes=%" PRIu64 " port_bytes=%" PRIu64
                " overflows=%" PRIu64 " frames=%" PRIu64 " pin_bytes=%" PRIu64 " atoms=%" PRIu64 "\n",
                s.name(), s.tp.port_bits, s.tp.clk_div, st.cycles, st.instructions, st.bytes, st.port_bytes,
                st.overflows, ts.frames, s.tpiu.pin_bytes(), st.atoms);
    int rc = s.src.failed() ? 2 : 0;
    /* The ETM's words carry Ignore padding on a wide ATB; it arrives too. */
    if (s.sink.bytes() != st.port_bytes || st.port_bytes < st.bytes) {
        std::fprintf(stderr, "%s: %" PRIu64 " bytes entered the FIFO, %" PRIu64 " left it over ATB, the sink got %" PRIu64
                     " from the TPIU's pins\n", s.name(), st.bytes, st.port_bytes, s.sink.bytes());
        rc = rc ? rc : 1;
    }
    if (check_sink_decode(s.name(), s.sink, st))
        rc = rc ? rc : 1;
    return rc;
}

/* The ETM's configuration for every system of a run, with --fflr's stall;
 * major: its ETM version's major number. */
etm_config_t system_config(const Options &o, const SystemArgs &g, unsigned *major)
{
    etm_config_t cfg = effective_config(o);
    unsigned ver = 0;
    etm_config_version(&cfg, &ver, nullptr);
    *major = ETM_V_MAJOR(ver);
    if (g.fflr > 0) {
        cfg.etmcr |= ETM_FIELD_MASK(ETM_CR_STALL);
        cfg.etmfflr = (uint32_t)g.fflr;
    }
    return cfg;
}

/* System k's trace file ("" when none is asked for). */
std::string trace_file(const SystemArgs &g, size_t k)
{
    return g.trace_prefix.empty() ? "" : g.trace_prefix + std::to_string(k) + ".bin";
}

/* One system per --tpiu, run from reset until every TPIU is empty. */
int run_tpiu_systems(const Options &o, const SystemArgs &g)
{
    unsigned major = 0;
    etm_config_t cfg = system_config(o, g, &major);
    if (major != 3 || !cfg.port_bytes || cfg.etmtraceidr < 1 || cfg.etmtraceidr > 0x6F)
        throw std::runtime_error("--tpiu needs an ETMv3 with its ATB (PORT_BYTES 1 to 8) and a trace ID of 0x01 to "
                                 "0x6F (--set ETMTRACEIDR=0x10)");
    sc_clock clk("clk", sc_time(10, SC_NS), 0.5, sc_time(10, SC_NS), true);
    sc_signal<bool> rst_n("rst_n");
    std::vector<std::unique_ptr<TpiuSystem>> sys;
    for (size_t k = 0; k < g.tpius.size(); k++) {
        etm_tpiu_params_t tp = g.tpius[k];
        tp.src_bytes[0] = cfg.port_bytes;
        sys.emplace_back(
            new TpiuSystem(("sys" + std::to_string(k)).c_str(), o, cfg, tp, trace_file(g, k), clk, rst_n, g.verify));
    }
    StopWhen stop("stop", [&] {
        bool all = true;
        for (auto &s : sys)
            all = s->done() && all;
        return all;
    });
    stop.clk(clk);
    sc_trace_file *tf = open_waves(o.waves, clk, rst_n);
    for (auto &s : sys)
        if (tf) {
            sc_trace(tf, s->traceclk, std::string(s->name()) + ".TRACECLK");
            sc_trace(tf, s->tracedata, std::string(s->name()) + ".TRACEDATA");
            s->core.trace(tf);
            s->pins.trace(tf);
        }
    run_from_reset(rst_n, tf);
    int rc = 0;
    uint64_t overflows = 0;
    for (auto &s : sys) {
        int k = report_tpiu_system(*s, o);
        if (!k)
            k = report_verify(s->name(), s->ver.get(), s->etm.untraced_overflow(), o.quiet);
        if (k == 2 || !rc)
            rc = k ? k : rc;
        overflows += s->etm.stats().overflows;
    }
    return check_expect(g, overflows, rc);
}

/* One system per port clock, run from reset to the end of every source. */
int run_systems(const Options &o, const SystemArgs &g)
{
    if (!g.tpius.empty())
        return run_tpiu_systems(o, g);
    unsigned major = 0;
    etm_config_t cfg = system_config(o, g, &major);
    if (major != 3)
        throw std::runtime_error("an external trace port needs ETMv3 (PORT_BYTES=0); the ETMv1 port runs at "
                                 "the core clock: use sc_lockstep");
    cfg.port_bytes = 0;
    sc_clock clk("clk", sc_time(10, SC_NS), 0.5, sc_time(10, SC_NS), true);
    sc_signal<bool> rst_n("rst_n");
    std::vector<std::unique_ptr<System>> sys;
    for (size_t k = 0; k < g.ports.size(); k++) {
        sys.emplace_back(
            new System(("sys" + std::to_string(k)).c_str(), o, cfg, g.ports[k], trace_file(g, k), clk, rst_n, g.verify));
    }
    StopWhen stop("stop", [&] {
        for (auto &s : sys)
            if (!s->done())
                return false;
        return true;
    });
    stop.clk(clk);
    sc_trace_file *tf = open_waves(o.waves, clk, rst_n);
    for (auto &s : sys)
        if (tf)
            s->trace_signals(tf);
    run_from_reset(rst_n, tf);

    int rc = 0;
    uint64_t overflows = 0;
    for (auto &s : sys) {
        int k = report_system(*s, o, cfg);
        if (!k)
            k = report_verify(s->name(), s->ver.get(), s->etm.untraced_overflow(), o.quiet);
        if (k == 2 || !rc)
            rc = k ? k : rc; /* a failed source wins over a difference */
        overflows += s->etm.stats().overflows;
    }
    return check_expect(g, overflows, rc);
}

} // namespace

int sc_main(int argc, char **argv)
{
    Options o;
    SystemArgs g;
    int rc = parse_system_args(o, g, argc, argv);
    if (rc >= 0)
        return rc;
    quiet_kernel();
    try {
        return run_systems(o, g);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "sc_system: %s\n", e.what());
        return 2;
    }
}
