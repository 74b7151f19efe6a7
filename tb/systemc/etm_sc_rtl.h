// etm_sc_rtl.h - the RTL twin (rtl/etm_core.sv: etm_top with its implementation on
// ports, Verilated with --sc) behind the same pins as EtmModel, so that either can
// sit in a system or both in lockstep.
//
// Verilator makes Vetm_core an sc_module whose ports have types by width (bool,
// uint32_t, uint64_t, sc_bv<N>). EtmRtl finds each port by name, binds it to a
// signal of its type and copies between those and the uint64_t pins: inputs as
// they change, outputs at the rising edge of the core clock. Verilated outputs
// are those of the cycle being clocked until that edge (the C-model cycle of
// tb/cosim/rtl_io.h); sampled there, they appear on EtmRtl's pins at the edge,
// as EtmModel's do. The implementation ports (impl_*_i) get the configuration's
// read-only registers and parameters once; the RTL comes out of reset
// unprogrammed, and is programmed through its APB pins (EtmSource::program_first).
// A port the adapter does not know, or a pin the RTL lacks, is an error at
// elaboration naming it.
#ifndef ETM_SC_RTL_H
#define ETM_SC_RTL_H

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "etm_sc.h"

class Vetm_core;

namespace etm_sc {

class RtlPin; // one Verilated port and the signal bound to it

class EtmRtl : public sc_module {
public:
    SC_HAS_PROCESS(EtmRtl);
    sc_in<bool> clk, rst_n, end;
    sc_vector<sc_in<uint64_t>> in;
    sc_vector<sc_out<uint64_t>> out;

    // Throws std::runtime_error when a port cannot be bound, or the FIFO depth is
    // more than the Verilated MaxFifoDepth.
    EtmRtl(sc_module_name n, const etm_config_t &cfg);
    ~EtmRtl() override;
    // Self-test: the RTL alone gets a corrupted input (ETMIVALID and ETMIA[8]
    // flipped) in this stepped cycle.
    void inject_at(uint64_t cycle) { inject_ = cycle; }

private:
    void drive_config();
    void drive_inputs();
    void rise();
    RtlPin *find(const std::string &port);
    std::unique_ptr<Vetm_core> top_;
    std::map<std::string, std::unique_ptr<RtlPin>> pins_;
    std::vector<RtlPin *> in_pins_, out_pins_;
    etm_config_t cfg_;
    bool ended_ = false;
    uint64_t cycle_ = 0, inject_ = UINT64_MAX;
    sc_core::sc_event reinject_; // inputs driven again at the start and end of the corrupted cycle
};

} // namespace etm_sc

#endif
