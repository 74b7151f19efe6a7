/* cosim_options.h - the lockstep co-simulation's command line (etm_cosim's
 * options, the configuration they give) and the coverage bins a run must hit.
 * cosim_main.cpp runs the lockstep. */
#ifndef ETM_COSIM_OPTIONS_H
#define ETM_COSIM_OPTIONS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "etm/etm.h"
#include "cosim_filter.h"

namespace cosim {

struct Options {
    etm_config_t cfg;
    etm_gen_params_t gen;
    uint64_t seed = 1;
    uint64_t cycles = 1000000;
    unsigned shard = 0, shards = 1;
    std::string vectors, vcd, waves, fail_waves;
    bool trace_all = false;
    bool allow_violations = false;
    bool quiet = false;
    bool random_filter = false;
    cosim::HotAddresses hot;      /* --random-filter: where comparators go */
    uint64_t reprogram = 0;       /* mean cycles between reprogrammings (0: never) */
    bool reprogram_modes = false; /* reprogramming also changes ETMCR's trace modes */
    bool walk = false;            /* first every offset of the register space read and written */
    bool at_reset = false;        /* no programming: the stimulus's APB columns program both from reset */
    uint64_t inject = UINT64_MAX; /* self-test: the RTL gets a corrupted input in this cycle */
    unsigned hold = 0;            /* the closed loop: FIFOFULL holds the core, the stimulus delayed; the
                                   * cycles from FIFOFULL to the held cycle (0: no loop) */
    unsigned flush = 0;           /* mean cycles between ATB flush requests (AFVALID; 0: none) */
    bool tpiu = false;            /* --tpiu: the TPIU in the loop (tpiu_loop.h) */
    etm_tpiu_params_t tpiu_p{};
    unsigned atb2 = 0;            /* --atb2: the second ATB source's share of cycles */
    unsigned window = 32;
    std::vector<std::string> require;
};

/* Coverage counters by bin name. */
struct Coverage {
    std::map<std::string, uint64_t> bins;
    void hit(const std::string &b, uint64_t n = 1) { bins[b] += n; }
    uint64_t get(const std::string &b) const
    {
        auto it = bins.find(b);
        return it == bins.end() ? 0 : it->second;
    }
};

/* The command line into o, the configuration settled (a preset, a file or a
 * vector file's header, then --set; the length, the shard, the random
 * filter). Returns -1 to go on, else the exit status (0 after --help, 2 for a
 * bad option or configuration, with a message on stderr). */
int parse_command_line(Options &o, int argc, char **argv);

/* Bins the configuration and stimulus are expected to reach. */
std::vector<std::string> targeted_bins(const Options &o, const Coverage &cov);

} // namespace cosim

#endif
