/* cosim_options.cpp - etm_cosim's command line and targeted coverage
 * (cosim_options.h). */
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>

#include "cosim_options.h"
#include "etm/number.h"
#include "etm/stim.h"

namespace cosim {

namespace {

constexpr uint64_t kLongCycles = 100000000ull;

int usage()
{
    std::fprintf(stderr,
                 "usage: etm_cosim [--preset NAME] [--config FILE] [--set REG=0xV]... [--seed S] [--cycles N]\n"
                 "                 [--shard I/N] [--long] [--issue-width 2] [--irq-period N] [--max-intnum N]\n"
                 "                 [--stall PCT] [--fold PCT] [--sleep PERMILLE] [--data] [--triggers]\n"
                 "                 [--atb-stall PCT] [--atb-burst N] [--flush N]\n"
                 "                 [--tpiu PINS[:DIV] | --tpiu nrz|manchester[:ACPR][,ffcr=V] | --tpiu etb:BYTES [--atb2 PCT]]\n"
                 "                 [--vectors FILE] [--vcd FILE] [--allow-violations] [--require BIN]...\n"
                 "                 [--waves FILE | +trace] [--fail-waves FILE] [--window N] [--quiet]\n"
                 "                 [--random-filter SEED] [--reprogram N [--reprogram-modes]] [--walk]\n"
                 "                 [--inject CYCLE] [--at-reset] [--hold[=N]]\n");
    return 2;
}

/* splitmix64: shard seeds derived from the seed and the shard index. */
uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The instruction and data addresses the run's stimulus (o.gen, seed and
 * issue width settled) uses most in its first cycles, for --random-filter to
 * put comparators on. */
cosim::HotAddresses hot_addresses(const Options &o)
{
    cosim::HotAddresses hot;
    etm_gen_t *g;
    etm_diag_t d;
    if (!o.vectors.empty() || !o.vcd.empty() || etm_gen_create(&g, &o.gen, &d) != ETM_OK)
        return hot;
    std::map<uint32_t, unsigned> insn, data;
    etm_in_t in;
    for (unsigned k = 0; k < 300000; k++) {
        etm_gen_next(g, &in, nullptr);
        if (in.ivalid)
            insn[in.ia]++;
        if (ETM_DACTL_SLOT(in.dactl))
            data[in.da]++;
    }
    etm_gen_free(g);
    auto top = [](const std::map<uint32_t, unsigned> &m, std::vector<uint32_t> &v) {
        std::vector<std::pair<unsigned, uint32_t>> f;
        for (const auto &e : m)
            f.push_back({ e.second, e.first });
        std::sort(f.begin(), f.end(), std::greater<>());
        for (size_t i = 0; i < f.size() && i < 64; i++)
            v.push_back(f[i].second);
    };
    top(insn, hot.insn);
    top(data, hot.data);
    return hot;
}

bool parse_set(etm_config_t *cfg, const char *v)
{
    etm_diag_t d;
    if (etm_config_parse_line(cfg, v, nullptr, nullptr, &d) != ETM_OK) {
        std::fprintf(stderr, "--set %s: %s\n", v, d.msg);
        return false;
    }
    return true;
}

/* What the command line says beyond Options. */
struct Args {
    std::vector<std::string> sets;
    std::string config_file, preset;
    uint64_t filter_seed = 0;
    bool long_mode = false, cycles_given = false;
};

/* A generator option with a value: true when a is one. */
/* A numeric option's value within [min, max] (etm/number.h); a bad one ends
 * the program with the option, the value and the range. */
uint64_t number(const std::string &a, const char *v, uint64_t min, uint64_t max)
{
    uint64_t n = 0;
    etm_diag_t d;
    if (etm_number_parse(v, min, max, &n, &d) != ETM_OK) {
        std::fprintf(stderr, "etm_cosim: %s %s\n", a.c_str(), d.msg);
        std::exit(2);
    }
    return n;
}

bool gen_option(Options &o, const std::string &a, const char *v)
{
    const struct { const char *name; unsigned *field; unsigned min, max; } opts[] = {
        { "--issue-width", &o.gen.issue_width, 1, 2 },  { "--irq-period", &o.gen.irq_period, 0, UINT32_MAX },
        { "--max-intnum", &o.gen.max_intnum, 16, 511 }, { "--stall", &o.gen.stall_pct, 0, 100 },
        { "--fold", &o.gen.fold_pct, 0, 100 },          { "--sleep", &o.gen.sleep_pct, 0, 1000 },
        { "--data-delay", &o.gen.data_delay, 0, 16 },   { "--atb-stall", &o.gen.atb_stall_pct, 0, 99 },
        { "--atb-burst", &o.gen.atb_burst, 1, 1000000 },
    };
    for (const auto &opt : opts)
        if (a == opt.name) {
            *opt.field = (unsigned)number(a, v, opt.min, opt.max);
            return true;
        }
    return false;
}

/* An option with a value: true when a is one (false: not one of these). */
bool valued_option(Options &o, Args &g, const std::string &a, const char *v)
{
    if (a == "--preset")
        g.preset = v;
    else if (a == "--config")
        g.config_file = v;
    else if (a == "--set")
        g.sets.push_back(v);
    else if (a == "--seed")
        o.seed = number(a, v, 0, UINT64_MAX);
    else if (a == "--cycles") {
        o.cycles = number(a, v, 0, UINT64_MAX);
        g.cycles_given = true;
    } else if (a == "--shard") {
        if (std::sscanf(v, "%u/%u", &o.shard, &o.shards) != 2 || !o.shards || o.shard >= o.shards)
            std::exit(usage());
    } else if (a == "--vectors")
        o.vectors = v;
    else if (a == "--vcd")
        o.vcd = v;
    else if (a == "--require")
        o.require.push_back(v);
    else if (a == "--waves") {
        o.waves = v;
        o.trace_all = true;
    } else if (a == "--fail-waves")
        o.fail_waves = v;
    else if (a == "--window")
        o.window = (unsigned)number(a, v, 0, UINT32_MAX);
    else if (a == "--random-filter")
        g.filter_seed = number(a, v, 0, UINT64_MAX);
    else if (a == "--inject")
        o.inject = number(a, v, 0, UINT64_MAX);
    else if (a == "--flush")
        o.flush = (unsigned)number(a, v, 0, UINT32_MAX); /* mean cycles between flush requests */
    else if (a == "--tpiu") {
        etm_diag_t d;
        if (etm_tpiu_params_parse(&o.tpiu_p, v, 1, &d) != ETM_OK) {
            std::fprintf(stderr, "etm_cosim: --tpiu %s\n", d.msg);
            std::exit(2);
        }
        o.tpiu = true;
    } else if (a == "--atb2")
        o.atb2 = (unsigned)number(a, v, 0, 100);
    else if (a == "--reprogram")
        o.reprogram = number(a, v, 0, UINT64_MAX);
    else
        return gen_option(o, a, v);
    return true;
}

/* Returns -1 to go on, else the exit status. */
int parse_args(Options &o, Args &g, int argc, char **argv)
{
    static const char *const valued[] = { "--preset", "--config", "--set", "--seed", "--cycles", "--shard",
                                          "--vectors", "--vcd", "--require", "--waves", "--fail-waves", "--window",
                                          "--random-filter", "--inject", "--flush", "--tpiu", "--atb2", "--reprogram", "--issue-width", "--irq-period",
                                          "--max-intnum", "--stall", "--fold", "--sleep", "--data-delay",
                                          "--atb-stall", "--atb-burst" };
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        bool takes = false;
        for (const char *n : valued)
            takes |= a == n;
        if (takes) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n", a.c_str());
                return usage();
            }
            valued_option(o, g, a, argv[++i]);
        } else if (a == "--long")
            g.long_mode = true;
        else if (a == "--data")
            o.gen.data = 1;
        else if (a == "--data-mix") {
            o.gen.data = 1;
            o.gen.data_mix = 1;
        } else if (a == "--triggers")
            o.gen.triggers = 1;
        else if (a == "--allow-violations")
            o.allow_violations = true;
        else if (a == "--reprogram-modes")
            o.reprogram_modes = true;
        else if (a == "--walk")
            o.walk = true;
        else if (a == "--at-reset") /* firmware that programs its own ETM (etm run --at-reset) */
            o.at_reset = true;
        else if (a == "--hold") /* the closed loop: FIFOFULL holds the core (etm run --hold) */
            o.hold = 1;
        else if (a.rfind("--hold=", 0) == 0) { /* and the cycles FIFOFULL takes to reach it */
            etm_diag_t d;
            if (etm_hold_option(a.c_str(), &o.hold, &d)) {
                std::fprintf(stderr, "etm_cosim: %s\n", d.msg);
                std::exit(2);
            }
        }
        else if (a == "+trace")
            o.trace_all = true;
        else if (a == "--quiet")
            o.quiet = true;
        else if (a == "--help" || a == "-h") {
            usage();
            return 0;
        } else {
            std::fprintf(stderr, "unknown option '%s'\n", a.c_str());
            return usage();
        }
    }
    return -1;
}

/* Configuration: a preset, a file, a vector file's header; then --set; the
 * length, the shard, the random filter. Returns 0, or the exit status. */
int configure(Options &o, const Args &g)
{
    etm_diag_t d;
    if (!g.preset.empty() && etm_config_preset(&o.cfg, g.preset.c_str()) != ETM_OK) {
        std::fprintf(stderr, "unknown preset '%s'\n", g.preset.c_str());
        return 2;
    }
    if (!g.config_file.empty() && etm_config_read_file(&o.cfg, g.config_file.c_str(), &d) != ETM_OK) {
        std::fprintf(stderr, "%s\n", d.msg);
        return 2;
    }
    if (!o.vectors.empty()) {
        etm_vec_reader_t *r;
        if (etm_vec_open(&r, o.vectors.c_str(), &d) != ETM_OK) {
            std::fprintf(stderr, "%s\n", d.msg);
            return 2;
        }
        o.cfg = *etm_vec_config(r);
        etm_vec_close(r);
        if (!g.cycles_given)
            o.cycles = UINT64_MAX;
    }
    if (!o.vcd.empty() && !g.cycles_given)
        o.cycles = UINT64_MAX;
    for (const std::string &s : g.sets)
        if (!parse_set(&o.cfg, s.c_str()))
            return 2;
    if (o.gen.issue_width == 2)
        o.cfg.issue_width = 2;
    o.gen.issue_width = o.cfg.issue_width;
    if (g.long_mode && !g.cycles_given)
        o.cycles = kLongCycles;
    if (o.shards > 1) {
        o.cycles /= o.shards;
        o.seed = mix(o.seed ^ mix(o.shard));
    }
    o.gen.seed = o.seed;
    o.random_filter = g.filter_seed != 0;
    if (g.filter_seed) {
        o.hot = hot_addresses(o);
        if (!cosim::random_filter(&o.cfg, g.filter_seed, o.hot)) {
            std::fprintf(stderr, "--random-filter %" PRIu64 ": no accepted programming found\n", g.filter_seed);
            return 2;
        }
        if (!o.quiet) {
            std::printf("filter programming (--random-filter %" PRIu64 "):\n", g.filter_seed);
            etm_config_write(&o.cfg, stdout, "  ");
        }
    }
    if (o.tpiu && (o.cfg.etmtraceidr < 1 || o.cfg.etmtraceidr > 0x6E || o.cfg.port_bytes == 0)) {
        std::fprintf(stderr, "--tpiu: the ETM needs an ATB (PORT_BYTES 1 to 8, here %u) and a trace ID of 0x01 to "
                             "0x6E (ETMTRACEIDR=0x%X; 0x6F is the second source's)\n",
                     (unsigned)o.cfg.port_bytes, (unsigned)o.cfg.etmtraceidr);
        return 2;
    }
    if (o.cfg.fifo_depth > ETM_COSIM_MAX_FIFO) {
        std::fprintf(stderr, "FIFO_DEPTH=%u is above the RTL's MaxFifoDepth (%u): rebuild with a larger "
                             "ETM_COSIM_MAX_FIFO\n", (unsigned)o.cfg.fifo_depth, (unsigned)ETM_COSIM_MAX_FIFO);
        return 2;
    }
    return 0;
}

} // namespace

/* Bins the configuration and stimulus are expected to reach (data packets:
 * where ViewData was active, which the lockstep compares; a part without
 * ViewData, the ETM-M3, traces no data). */
std::vector<std::string> targeted_bins(const Options &o, const Coverage &cov)
{
    std::vector<std::string> t;
    const etm_config_t &c = o.cfg;
    bool v3 = (c.etmccr >> 31) & 1;
    bool ca = (c.etmcr >> 12) & 1;
    bool gen = o.vectors.empty() && o.vcd.empty();
    if (!gen || o.cycles < 100000)
        return t;
    if (o.reprogram) /* the debug APB: reprogrammings and each kind of illegal access */
    {
        t.insert(t.end(), { "reprogram", "restart", "rule-apb-read-only", "rule-apb-unmapped" });
        if (c.apb_strict) /* a write while tracing: the ETM-M3 takes it without complaint (APB_STRICT=0) */
            t.push_back("rule-apb-not-programming");
        unsigned version = 0;
        etm_config_version(&c, &version, nullptr);
        if (version >= etm_mgmt_registers[ETM_MGMT_LAR].first) /* the lock came with ETMv3.2 */
            t.push_back("rule-apb-locked");
    }
    if (v3 && o.gen.atb_stall_pct && c.port_bytes)
        t.push_back("atb-wait");
    if (o.hold)
        t.push_back("held-cycles");
    if (v3 && o.flush && c.port_bytes)
        t.push_back("atb-flush");
    if (o.tpiu) {
        bool swo = o.tpiu_p.port_bits && o.tpiu_p.protocol != ETM_TPIU_PARALLEL;
        t.push_back("tpiu-etm-bytes");
        if (!swo || (o.tpiu_p.ffcr & ETM_TPIU_FFCR_ENFCONT)) /* bypassed, the SWO line has no frames */
            t.push_back("tpiu-frames");
        if (swo)
            t.insert(t.end(), { "tpiu-swo-bytes", "tpiu-apb-reads" });
        else
            t.push_back(o.tpiu_p.port_bits ? "tpiu-fsync" : "tpiu-etb-wraps");
        if (o.atb2)
            t.push_back("tpiu-second-bytes");
    }
    if (o.random_filter) { /* the filter may keep trace off most of the time */
        t.push_back("te-on-cycles");
        return t;
    }
    if (v3) {
        t.insert(t.end(), { "pkt-f1", "pkt-branch", "pkt-async" });
        if (!o.reprogram_modes) /* bins the decoder gives: it follows one configuration */
            t.push_back("sync-reason-trace-on");
        t.push_back(ca ? "pkt-isync-cc" : "pkt-isync");
        if (ca)
            t.push_back("pkt-f3");
        else if (c.ph_packing) /* the ETM-M3's packing: format 1 only, closed at 15 E */
            t.push_back("part-15e-closed");
        else
            t.push_back("pkt-f2");
        if (c.sync_placement && c.etmsyncfr && !o.reprogram_modes)
            t.push_back("part-async-alone");
        if (o.gen.irq_period)
            t.push_back("pkt-exception");
        unsigned version = 0;
        etm_config_version(&c, &version, nullptr);
        if (o.gen.irq_period && version >= ETM_V(3, 4)) /* 0x76 came with ETMv3.4 */
            t.push_back("pkt-exc-return");
        if (o.gen.irq_period && version >= ETM_V(3, 4) && c.tailchain_return && !o.reprogram_modes)
            t.push_back("part-tailchain-return");
        /* (SYNC_PLACEMENT=1: the periodic I-sync half a period after its
         * A-sync, which a restart's I-sync may serve first; the part.* tests
         * ask for it where it comes.) */
        if (c.etmsyncfr && !o.reprogram_modes && !c.sync_placement)
            t.push_back("sync-reason-periodic");
        /* Data trace (ETMCR[3] addresses, ETMCR[2] values): every data packet
         * kind the traffic can make. */
        bool dvalue = (c.etmcr >> 2) & 1, vd = cov.get("view-data-cycles") != 0;
        if (o.gen.data && (c.etmcr & 0xC) && vd)
            t.push_back("pkt-normal-data");
        if (o.gen.data_mix && dvalue && vd)
            t.insert(t.end(), { "pkt-ooo-placeholder", "pkt-ooo-data", "pkt-store-failed",
                                "pkt-value-not-traced" });
    } else {
        t.insert(t.end(), { "pipestat-IE", "pipestat-IN", "pipestat-BE", "pipestat-WT", "tracesync" });
        if (o.gen.data && (c.etmcr & 0xC))
            t.insert(t.end(), { "pipestat-ID" });
        if (o.gen.data && ((c.etmcr >> 2) & 1)) /* values traced: the status's writer */
            t.push_back("data-later-transfer");
    }
    if (o.gen.irq_period)
        t.insert(t.end(), { "exc-entry-1byte", "exc-entry-2byte", "exc-return" });
    if (o.gen.data_mix)
        t.insert(t.end(), { "data-unaligned", "data-big-endian", "data-rotated", "data-store-failed",
                            "data-imprecise", "data-second-nseq", "data-in-flight-2" });
    if (o.gen.data_mix && o.gen.data_delay)
        t.push_back("data-slot-collision");
    return t;
}

int parse_command_line(Options &o, int argc, char **argv)
{
    Args g;
    etm_config_default(&o.cfg);
    etm_gen_params_default(&o.gen);
    int rc = parse_args(o, g, argc, argv);
    if (rc >= 0)
        return rc;
    rc = configure(o, g);
    return rc ? rc : -1;
}

} // namespace cosim
