// etm_sc.h - the ETM model in SystemC: the modules an architect wires into a
// system (docs/systemc.md).
//
//   EtmInBus, EtmOutBus  the ETM interface as signals, one per pin, named as in
//                        etm_in_signals / etm_out_signals (ETMIVALID, ETMIA,
//                        ..., PIPESTAT, V3COUNT, ATDATA, FIFOLEVEL, FIFOFULL)
//   EtmSource            a core: drives the input pins on the falling edge of
//                        the core clock from a vector file, a VCD, the generator
//                        or the Cortex-M3 timing model (etm/stim.h), and holds
//                        the core while FIFOFULL is 1 where the source can; its
//                        TLM-2.0 target socket `apb` turns register reads and
//                        writes into transfers on the ETM's debug APB pins
//   EtmModel             the C model (libetm), one instance per module, no
//                        globals: one etm_step per rising edge of the core clock;
//                        with PORT_BYTES=0 its FIFO is read through EtmFifoIf
//   EtmTracePort         an external trace port on its own clock (core rate, half
//                        rate, double data rate): takes bytes from the FIFO
//   EtmPortTap           the ETM's own port (PORT_BYTES 1..8) into a sink
//   EtmSink              where the trace goes: counts bytes, decodes packets
//                        (the project's ETMv3 decoder), optionally writes a file
//   EtmCompare           two ETMs' output pins compared every cycle
//   EtmTpiu              the TPIU with the CoreSight formatter (etm/tpiu.h) on
//                        the ETM's ATB pins: ATREADY back to the source (which
//                        drives the ETM's ATREADY pin), TRACECLK/TRACEDATA, and
//                        the ETM's bytes taken apart again into a sink
//   EtmVerify            the protocol scoreboard (etm/verify.h) as a byte sink:
//                        the core's pins each cycle against the trace bytes that
//                        reach it, for any ETM (docs/scoreboard.md); it passes
//                        the bytes on to the next sink
//
// Timing. Core clock: period 10 ns, rising edges at 10, 20, 30 ns...; the edge
// at 10 ns is reset. Inputs of cycle n are driven on the falling edge before its
// rising edge; an ETM module's outputs of cycle n appear at that rising edge and
// hold until the next one, so the source reads FIFOFULL of cycle n when it
// drives cycle n+1. Trace port clocks start at 7.5 ns: their edges never meet
// a core clock edge, so which of two processes runs first at one instant never
// matters (make_port_clock).
#ifndef ETM_SC_H
#define ETM_SC_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "etm/stim.h"
#include "etm/vcd.h"
#include "etm/verify.h"

namespace etm_sc {

using sc_core::sc_export;
using sc_core::sc_in;
using sc_core::sc_interface;
using sc_core::sc_module;
using sc_core::sc_module_name;
using sc_core::sc_out;
using sc_core::sc_port;
using sc_core::sc_signal;
using sc_core::sc_trace_file;
using sc_core::sc_vector;

// ---- Pins -------------------------------------------------------------------------

// Output pins of an ETM module: the RTL top level's output ports, in the order
// of etm/signals.def (PIN_PIPESTAT, ..., PIN_V3COUNT, PIN_ATDATA, ...), then VALID.
enum OutPin {
#define ETM_OUT(field, name, width, ctype, where, doc) PIN_##name,
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) PIN_##countname, PIN_##dataname,
#include "etm/signals.def"
    PIN_VALID, // not an ETM pin: 1 when the module modelled a cycle (a step or a drain)
    PIN_OUT_COUNT
};
const char *out_pin_name(unsigned i);
unsigned out_pin_width(unsigned i);

// etm_in_t <-> pin values (a pin's value is its bits, ETMIA[31:1] without bit 0).
uint64_t in_pin_value(const etm_in_t &in, unsigned i);
void set_in_pin(etm_in_t &in, unsigned i, uint64_t v);
// etm_out_t (+ VALID) <-> pin values.
void out_to_pins(const etm_out_t &o, bool valid, uint64_t *pins);
void pins_to_out(const uint64_t *pins, etm_out_t &o);

// The input pins as signals, named after the signal table (bus.ETMIVALID, ...):
// a hierarchical channel that sources and ETMs bind their pin ports to.
class EtmInBus : public sc_module {
public:
    sc_vector<sc_signal<uint64_t>> pin;
    explicit EtmInBus(sc_module_name n);
    void trace(sc_trace_file *tf) const;
};

class EtmOutBus : public sc_module {
public:
    sc_vector<sc_signal<uint64_t>> pin;
    explicit EtmOutBus(sc_module_name n);
    void trace(sc_trace_file *tf) const;
    void read(etm_out_t &o) const;
    bool valid() const { return pin[PIN_VALID].read() != 0; }
};

// ---- Interfaces between modules --------------------------------------------------------

// An ETM's FIFO seen from an external trace port (PORT_BYTES=0).
class EtmFifoIf : public virtual sc_interface {
public:
    virtual unsigned take(uint8_t *buf, unsigned max) = 0; // oldest first; returns how many
    virtual unsigned level() const = 0;
};

// Where trace bytes go.
class EtmByteSinkIf : public virtual sc_interface {
public:
    virtual void put(const uint8_t *bytes, unsigned n) = 0;
};

// ATREADY of the coming cycle, from the ETM's ATB sink (EtmTpiu).
class EtmAtReadyIf : public virtual sc_interface {
public:
    virtual bool atready_next() = 0;
};

// ---- The core ---------------------------------------------------------------------------

class EtmSource : public sc_module {
public:
    SC_HAS_PROCESS(EtmSource);
    sc_in<bool> clk, rst_n;
    sc_in<uint64_t> fifofull;            // the ETM's FIFOFULL pin
    sc_vector<sc_out<uint64_t>> pin;     // the ETM's input pins
    sc_out<bool> end;                    // 1 for one cycle after the last one (etm_end)
    // The ETM's PRDATA pin, for the polls of program_first (may be left unbound:
    // the polls then read 0 and repeat until the guard gives up).
    sc_core::sc_port<sc_core::sc_signal_in_if<uint64_t>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> prdata;

    // Takes the source; max_cycles (0: all) limits the cycles given, held ones not counted.
    EtmSource(sc_module_name n, etm_stim_t *stim, uint64_t max_cycles = 0);
    ~EtmSource() override;
    // Register accesses from a TLM-2.0 initiator (a debugger or CPU model): each
    // 4-byte read or write (address bits [11:2] the register's offset, bit 31
    // PADDRDBG31: a debugger's access) becomes one APB transfer on the pins, a
    // setup and an access cycle, while the core runs; b_transport returns when
    // it has completed (a read with PRDATA, which needs the prdata port bound).
    // Other commands, lengths or byte enables: TLM_COMMAND_ERROR_RESPONSE and the
    // like, with nothing driven.
    tlm_utils::simple_target_socket_optional<EtmSource> apb; // may be left unbound
    // The ETM's ATB sink (may be left unbound: ATREADY is the stimulus's, 1 where
    // it has none): its ATREADY, with the stimulus's own, drives the ETM's
    // ATREADY pin every cycle, the drain after the end too.
    sc_core::sc_port<EtmAtReadyIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> atb;

    // Before the stimulus, program the ETM through its debug APB pins with the
    // architecture's sequence for cfg (etm/program.h), the core idle: for ETMs
    // that come out of reset unprogrammed (EtmRtl, EtmModel with at_reset).
    void program_first(const etm_config_t &cfg);
    bool finished() const { return state_ == DONE; }
    bool failed() const { return failed_; }
    const etm_stim_stats_t &stats() const { return *etm_stim_get_stats(stim_); }
    const etm_stim_t *stim() const { return stim_; }

private:
    void fall();
    void drive_pins(etm_in_t &in);
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    enum { RUN, ENDING, DONE } state_ = RUN;
    etm_stim_t *stim_;
    etm_apb_op_t ops_[ETM_PROGRAM_MAX_OPS];
    etm_apb_driver_t drv_;
    bool driven_ = false;               // the driver drove the cycle that just ended
    // The TLM access under way: one operation, its driver and its completion.
    etm_apb_op_t tlm_op_;
    etm_apb_driver_t tlm_drv_;
    bool tlm_busy_ = false, tlm_driven_ = false;
    uint32_t tlm_read_ = 0;
    sc_core::sc_event tlm_done_;
    uint64_t max_cycles_, given_ = 0;
    bool failed_ = false;
};

// ---- The ETM: the C model ------------------------------------------------------------

class EtmModel : public sc_module, public EtmFifoIf {
public:
    SC_HAS_PROCESS(EtmModel);
    sc_in<bool> clk, rst_n, end;
    sc_vector<sc_in<uint64_t>> in;
    sc_vector<sc_out<uint64_t>> out;
    sc_export<EtmFifoIf> fifo;           // the FIFO, for an external port (PORT_BYTES=0)

    // Throws std::runtime_error when etm_create refuses the configuration. With
    // at_reset the ETM comes out of reset unprogrammed, as the RTL does
    // (etm_create_at_reset): cfg gives its implementation, and the registers are
    // programmed through the APB pins (EtmSource::program_first).
    EtmModel(sc_module_name n, const etm_config_t &cfg, bool at_reset = false);
    ~EtmModel() override;
    unsigned take(uint8_t *buf, unsigned max) override;
    unsigned level() const override;
    const etm_stats_t &stats() const { return *etm_get_stats(ctx_); }
    const etm_config_t &config() const { return *etm_get_config(ctx_); }
    // etm_end was called and nothing is left to clock (external port: the FIFO
    // may still hold bytes for the port).
    bool finished() const { return drained_; }
    // ETMSR[0]: an overflow whose restart I-sync has not come (yet).
    bool untraced_overflow() const { return etm_untraced_overflow(ctx_) != 0; }
    uint64_t rule_cycles() const { return rule_cycles_; }
    unsigned max_level() const { return max_level_; }

private:
    void rise();
    void drive(const etm_out_t &o, bool valid);
    etm_ctx_t *ctx_ = nullptr;
    bool ended_ = false, drained_ = false;
    uint64_t rule_cycles_ = 0;
    unsigned max_level_ = 0;
};

// ---- Trace ports and the sink --------------------------------------------------------------

// How an external port is clocked against the core clock.
struct PortClock {
    unsigned div = 1;   // port clock period in core clock periods: 1 core rate, 2 half rate, 4 quarter
    bool ddr = false;   // bytes move on both edges
    unsigned width = 1; // bytes per edge: 1, 2, 4 (TRACEDATA of 8, 16, 32 pins)
    std::string text() const;
    double capacity() const { return (double)width * (ddr ? 2 : 1) / div; } // bytes per core cycle
};
// Parse "W:MODE" (MODE full, half, quarter, ddr, half-ddr), e.g. "1:half". Returns false on a bad spec.
bool parse_port_clock(const std::string &s, PortClock *pc);
// The port's clock, phased so that its edges never meet the core clock's.
std::unique_ptr<sc_core::sc_clock> make_port_clock(const char *name, const PortClock &pc);

class EtmTracePort : public sc_module {
public:
    SC_HAS_PROCESS(EtmTracePort);
    sc_in<bool> pclk;
    sc_port<EtmFifoIf> fifo;
    sc_port<EtmByteSinkIf> sink;
    sc_out<uint64_t> tracedata;          // the bytes taken on the last edge, oldest in [7:0]
    sc_out<uint64_t> tracecount;         // how many

    EtmTracePort(sc_module_name n, const PortClock &pc);
    uint64_t edges() const { return edges_; }

private:
    void edge();
    PortClock pc_;
    uint64_t edges_ = 0;
};

class EtmPortTap : public sc_module {
public:
    SC_HAS_PROCESS(EtmPortTap);
    sc_in<bool> clk;
    sc_vector<sc_in<uint64_t>> out;      // an ETM's output pins
    sc_port<EtmByteSinkIf> sink;
    explicit EtmPortTap(sc_module_name n);

private:
    void fall();
};

class EtmSink : public sc_module, public EtmByteSinkIf {
public:
    sc_export<EtmByteSinkIf> in;
    // cfg: what the decoder assumes (version, cycle accuracy); path: file for the bytes ("" none).
    EtmSink(sc_module_name n, const etm_config_t &cfg, const std::string &path = "");
    ~EtmSink() override;
    void put(const uint8_t *bytes, unsigned n) override;
    void finish();                       // end of trace: flush the decoder and the file
    uint64_t bytes() const { return bytes_; }
    uint64_t atoms() const { return atoms_; }  // E and N atoms the decoder found
    uint64_t packets() const { return packets_; }
    bool decodes() const { return dec_ != nullptr; } // an ETMv3 configuration
    bool decode_error() const { return !err_.empty(); }
    const std::string &error() const { return err_; }

private:
    static void on_packet(void *user, const etm_v3pkt_t *p);
    etm_v3dec_t *dec_ = nullptr;
    FILE *file_ = nullptr;
    uint64_t bytes_ = 0, atoms_ = 0, packets_ = 0;
    std::string err_;
};

// The protocol scoreboard on a trace path: at each falling edge of the core
// clock in which the ETM modelled a cycle (its VALID pin), until `end` has
// been 1, the input pins (still this cycle's: the source drives the next cycle
// after this process) are what the core did. ETMv3: the bytes put into `bytes`
// are the design's trace as it reaches this point, passed on to `next` when
// bound; timed: they arrive in the cycle they left the ETM (behind its own
// port), so latency is measured; behind a TPIU they do not (frames, pins),
// and the checker works without times. ETMv1: the ETM's PIPESTAT, TRACEPKT
// and TRACESYNC pins of every cycle it modelled, the drain's too.
class EtmVerify : public sc_module, public EtmByteSinkIf {
public:
    SC_HAS_PROCESS(EtmVerify);
    sc_in<bool> clk, end;
    sc_vector<sc_in<uint64_t>> in;       // the ETM's input pins
    sc_vector<sc_in<uint64_t>> out;      // the ETM's output pins (VALID; ETMv1: its port)
    sc_export<EtmByteSinkIf> bytes;      // ETMv3: the design's trace bytes
    sc_port<EtmByteSinkIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> next;
    // Throws std::runtime_error when etm_verify_create refuses cfg (at_reset:
    // the ETM is programmed through the APB pins, as EtmModel's at_reset).
    EtmVerify(sc_module_name n, const etm_config_t &cfg, bool timed, bool at_reset = false);
    ~EtmVerify() override;
    void put(const uint8_t *b, unsigned n) override;
    // Both streams have ended; untraced_overflow: the ETM's ETMSR[0] then.
    const etm_verify_result_t &finish(bool untraced_overflow);
    // The first failure in one line (etm_verify_describe).
    std::string describe() const;

private:
    void fall();
    etm_verify_t *v_ = nullptr;
    bool timed_, v1_ = false, ended_ = false, finished_ = false;
};

// Compares two ETMs' output pins at each falling edge of the core clock while
// `a` modelled a cycle; the first difference stops the simulation.
class EtmCompare : public sc_module {
public:
    SC_HAS_PROCESS(EtmCompare);
    sc_in<bool> clk;
    sc_vector<sc_in<uint64_t>> a, b;
    sc_vector<sc_in<uint64_t>> in;       // the inputs, printed with a mismatch
    // a_name, b_name: what the two are, for the report of a mismatch.
    EtmCompare(sc_module_name n, const std::string &a_name = "a", const std::string &b_name = "b");
    uint64_t compared() const { return compared_; }
    bool mismatch() const { return mismatch_; }

private:
    void fall();
    std::string a_name_, b_name_;
    uint64_t compared_ = 0, cycle_ = 0;
    bool mismatch_ = false;
};

// The TPIU (etm/tpiu.h) on the ETM's ATB pins, stepped once per core cycle at
// the falling edge, after the ETM's rising edge: a word moves when the ETM's
// ATVALID and its ATREADY pin are both 1. ATREADY of the next cycle
// (atready_next, for the source) is the TPIU's state after that step, whichever
// process the kernel runs first at that edge. The pins' bytes are taken apart
// again (etm/coresight.h) and the ETM's trace ID's bytes go to the sink.
class EtmTpiu : public sc_module, public EtmAtReadyIf {
public:
    SC_HAS_PROCESS(EtmTpiu);
    sc_in<bool> clk, rst_n;
    sc_vector<sc_in<uint64_t>> etm;      // the ETM's output pins
    sc_in<uint64_t> atready;             // the ETM's ATREADY input pin
    sc_out<uint64_t> traceclk, tracedata;
    sc_port<EtmByteSinkIf> sink;
    sc_export<EtmAtReadyIf> ready;       // for EtmSource::atb
    // Throws std::runtime_error when etm_tpiu_create refuses p.
    EtmTpiu(sc_module_name n, const etm_tpiu_params_t &p, unsigned trace_id);
    ~EtmTpiu() override;
    bool atready_next() override;
    // The sources have ended (from this cycle on): the frame is completed.
    void end() { ending_ = true; }
    bool done() const { return ending_ && etm_tpiu_done(t_); }
    const etm_tpiu_stats_t &stats() const { return *etm_tpiu_get_stats(t_); }
    uint64_t pin_bytes() const { return pin_bytes_; }

private:
    void fall();
    void step_once();
    static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t offset);
    etm_tpiu_t *t_ = nullptr;
    etm_tpiu_cap_t cap_{};
    etm_cs_deformatter_t *cs_ = nullptr;
    unsigned id_;
    bool ending_ = false, ended_ = false, started_ = false;
    sc_core::sc_time stepped_at_ = sc_core::SC_ZERO_TIME;
    bool stepped_ = false;
    uint64_t pin_bytes_ = 0;
};

// An ETM module (EtmModel or EtmRtl) on the core clock, reset, end, a core's
// pins and its own output pins.
template <class Etm>
void wire_etm(Etm &m, sc_core::sc_clock &clk, sc_signal<bool> &rst_n, sc_signal<bool> &end, EtmInBus &core,
              EtmOutBus &pins)
{
    m.clk(clk);
    m.rst_n(rst_n);
    m.end(end);
    m.in.bind(core.pin);
    m.out.bind(pins.pin);
}

// Stops the simulation at the first falling edge of the core clock at which
// `done` holds.
class StopWhen : public sc_module {
public:
    SC_HAS_PROCESS(StopWhen);
    sc_in<bool> clk;
    StopWhen(sc_module_name n, std::function<bool()> done);

private:
    void fall();
    std::function<bool()> done_;
};

// ---- Command line shared by the examples --------------------------------------------------

struct Options {
    etm_config_t cfg;
    bool cfg_given = false;              // --preset/--config/--set seen
    std::string vectors, vcd, records;   // one source, or the generator
    etm_gen_params_t gen;
    uint64_t cycles = 0;                 // generator: cycles (default 100000); others: limit (0 none)
    etm_cm3_params_t params;             // timing model
    std::string waves;                   // VCD of the pins (sc_trace)
    bool quiet = false;
    Options();
};
// Consumes argv[i] (and its value) if it is a common option: returns 1, 0 when not
// one, -1 on an error (printed).
int parse_option(Options &o, int argc, char **argv, int &i);
const char *common_usage();
// No note that sc_stop was called, no warnings about deprecated features (the
// banner goes before sc_main: SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 in the
// environment removes it).
void quiet_kernel();
// A VCD for sc_trace at `path` (".vcd" added if missing), 100 ps resolution,
// with the core clock and reset in it; nullptr when path is empty. A path
// ending in .fst gives an FST (traced as VCD, converted when run_from_reset
// closes it).
sc_trace_file *open_waves(const std::string &path, const sc_core::sc_clock &clk, const sc_signal<bool> &rst_n);
// Reset for the first rising edge (10 ns), then run until sc_stop; closes tf.
void run_from_reset(sc_signal<bool> &rst_n, sc_trace_file *tf);
// Opens the source the options name. Throws std::runtime_error with file and line.
etm_stim_t *open_source(const Options &o);
// The configuration: a vector file's own unless --preset/--config/--set were given.
etm_config_t effective_config(const Options &o);

} // namespace etm_sc

#endif
