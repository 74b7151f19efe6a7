/* tpiu_loop.h - the TPIU in the lockstep (etm_cosim --tpiu): the C model's ETM
 * feeds the C TPIU (model/tpiu/src/tpiu.c) and the RTL ETM feeds the RTL TPIU
 * (rtl/etm_tpiu.sv), each through its own ATB; both TPIUs' outputs are compared
 * every cycle. A second ATB source (--atb2 PCT: valid in about PCT percent of
 * the cycles, in bursts) sends a counting pattern under trace ID 0x6F, so that
 * the formatter changes IDs. ATREADY of the ETM is the TPIU's, further held low
 * where the stimulus says (an interconnect in between that is busy). At the
 * end the TPIU's output (pins or ETB) is taken apart by the project's
 * deformatter: each ID's bytes must be exactly what its source sent.
 */
#ifndef ETM_TB_TPIU_LOOP_H
#define ETM_TB_TPIU_LOOP_H

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "Vetm_tpiu.h"
#include "Vetm_core.h"

#include "etm/coresight.h"
#include "etm/tpiu.h"

namespace cosim {

constexpr unsigned kSecondId = 0x6F;

class TpiuLoop {
public:
    /* Returns false with a message when the parameters are refused. */
    bool open(VerilatedContext *vctx, const etm_tpiu_params_t &p, unsigned atb2_pct, uint64_t seed, std::string *err)
    {
        etm_diag_t d;
        std::memset(&d, 0, sizeof d);
        p_ = p;
        if (etm_tpiu_create(&c_, &p_, &d) != ETM_OK) {
            *err = d.msg;
            return false;
        }
        r_.reset(new Vetm_tpiu(vctx, "tpiu"));
        r_->port_bits_i = p.port_bits;
        r_->clk_div_i = p.clk_div;
        r_->fsync_frames_i = p.fsync_frames;
        r_->queue_bytes_i = p.queue_bytes;
        r_->src0_bytes_i = p.src_bytes[0];
        r_->src1_bytes_i = p.src_bytes[1];
        r_->etb_bytes_i = p.etb_bytes;
        r_->end_i = 0;
        r_->clk_i = 0;
        r_->rst_ni = 1;
        r_->eval();
        r_->rst_ni = 0; /* a falling edge: the asynchronous reset */
        r_->eval();
        clock();
        r_->rst_ni = 1;
        r_->eval();
        etm_tpiu_cap_init(&cap_, p.port_bits);
        pct_ = atb2_pct;
        rng_ = seed * 0x9E3779B97F4A7C15ull + 7;
        return true;
    }
    ~TpiuLoop()
    {
        if (r_)
            r_->final();
        etm_tpiu_destroy(c_);
    }

    /* ATREADY of the ETM's port for the coming cycle (the C TPIU's; the RTL's
     * is compared in step). */
    bool ready() const { return etm_tpiu_ready(c_, 0) != 0; }

    /* One cycle, after both ETMs have evaluated it: c the C ETM's outputs,
     * top the RTL's, stall: the interconnect held ATREADY low. Returns false
     * with the differences in *why when the TPIUs disagree. */
    bool step(const etm_out_t &c, const Vetm_core *top, bool stall, std::string *why)
    {
        next_second();
        etm_tpiu_in_t in;
        etm_tpiu_in_from_etm(&in, &c, stall);
        in.src[1].valid = s_valid_;
        in.src[1].id = kSecondId;
        in.src[1].data[0] = s_byte_;
        r_->atvalid0_i = top ? (top->ATVALID && !stall) : 0;
        r_->atid0_i = top ? top->ATID : 0;
        r_->atdata0_i = top ? top->ATDATA : 0;
        r_->atvalid1_i = s_valid_;
        r_->atid1_i = kSecondId;
        r_->atdata1_i = s_byte_;
        r_->end_i = ending_;
        r_->eval();
        etm_tpiu_out_t o;
        etm_tpiu_step(c_, &in, &o);
        std::string w;
        auto diff = [&](const char *name, uint64_t cv, uint64_t rv) {
            if (cv != rv) {
                char line[160];
                std::snprintf(line, sizeof line, "  %-12s C model %-12llx RTL %llx\n", name, (unsigned long long)cv,
                              (unsigned long long)rv);
                w += line;
            }
        };
        diff("ATREADY0", o.atready[0], r_->atready0_o);
        diff("ATREADY1", o.atready[1], r_->atready1_o);
        diff("TRACECLK", o.tclk, r_->traceclk_o);
        diff("TRACEDATA", o.tracedata, r_->tracedata_o);
        diff("ETBWR", o.etb_wr, r_->etb_wr_o);
        diff("ETBADDR", o.etb_wr ? o.etb_addr : 0, r_->etb_wr_o ? r_->etb_addr_o : 0);
        diff("PAIRED", o.paired, r_->paired_o);
        diff("PAIR", o.paired ? o.pair : 0, r_->paired_o ? r_->pair_o : 0);
        /* What each source had taken (the ETM counts its own). */
        if (c.v3_count && c.atid)
            etm_bytes_.insert(etm_bytes_.end(), c.v3_bytes, c.v3_bytes + c.v3_count);
        if (s_valid_ && o.atready[1]) {
            second_.push_back(s_byte_);
            s_valid_ = 0;
        }
        uint8_t b[4];
        unsigned nb = etm_tpiu_cap_step(&cap_, &o, b);
        pins_.insert(pins_.end(), b, b + nb);
        if (!w.empty()) {
            *why = w;
            return false;
        }
        return true;
    }

    void clock()
    {
        r_->clk_i = 1;
        r_->eval();
        r_->clk_i = 0;
        r_->eval();
    }

    /* The sources have ended: the TPIU runs on, alone, until everything has
     * left (compared every cycle). Returns false on a mismatch or when it does
     * not finish. */
    bool finish(std::string *why)
    {
        etm_tpiu_end(c_);
        ending_ = 1;
        pct_ = 0;
        etm_out_t none;
        std::memset(&none, 0, sizeof none);
        for (unsigned k = 0; k < 1000000; k++) {
            if (etm_tpiu_done(c_) && !s_valid_)
                return true;
            if (!step(none, nullptr, false, why))
                return false;
            clock();
        }
        *why = "  the TPIU did not finish within 10^6 cycles after the end\n";
        return false;
    }

    /* The output taken apart: each ID's bytes as its source sent them (the
     * end of them when an ETB wrapped). */
    bool check(std::string *why)
    {
        std::vector<uint8_t> out = pins_;
        if (!p_.port_bits) {
            out.resize(p_.etb_bytes);
            out.resize(etm_tpiu_etb_read(c_, out.data(), out.size()));
        }
        Got g;
        etm_cs_deformatter_t *f = nullptr;
        etm_diag_t d;
        std::memset(&d, 0, sizeof d);
        if (etm_cs_create(&f, p_.port_bits ? ETM_CS_WAIT_FSYNC : 0, on_data, &g) != ETM_OK)
            return false;
        etm_err_t e = etm_cs_feed(f, out.data(), out.size(), &d);
        if (e == ETM_OK)
            e = etm_cs_end(f, &d);
        etm_cs_destroy(f);
        char line[512];
        if (e != ETM_OK) {
            std::snprintf(line, sizeof line, "  the deformatter refused the TPIU's output at byte %llu: %s\n",
                          (unsigned long long)d.offset, d.msg);
            *why = line;
            return false;
        }
        bool wrapped = etm_tpiu_get_stats(c_)->etb_wraps != 0;
        auto same = [&](const std::vector<uint8_t> &sent, const std::vector<uint8_t> &got, const char *who) {
            bool ok = wrapped ? got.size() <= sent.size() &&
                                    std::equal(got.begin(), got.end(), sent.end() - (long)got.size())
                              : got == sent;
            if (!ok) {
                std::snprintf(line, sizeof line, "  %s: %zu bytes sent, %zu taken apart from the TPIU, not the same\n",
                              who, sent.size(), got.size());
                *why += line;
            }
            return ok;
        };
        bool a = same(etm_bytes_, g.etm, "the ETM's trace");
        bool b = same(second_, g.second, "the second source");
        return a && b;
    }

    const etm_tpiu_stats_t *stats() const { return etm_tpiu_get_stats(c_); }
    size_t etm_bytes() const { return etm_bytes_.size(); }
    size_t second_bytes() const { return second_.size(); }
    size_t out_bytes() const { return p_.port_bits ? pins_.size() : p_.etb_bytes; }

private:
    struct Got {
        std::vector<uint8_t> etm, second;
    };
    static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t)
    {
        Got *g = static_cast<Got *>(user);
        std::vector<uint8_t> &v = id == kSecondId ? g->second : g->etm;
        v.insert(v.end(), data, data + n);
    }
    /* The second source: a word shown stays until taken; new bursts start at random. */
    void next_second()
    {
        if (!p_.src_bytes[1] || s_valid_)
            return;
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 7;
        rng_ ^= rng_ << 17;
        if (!burst_ && pct_ && rng_ % 100 < pct_)
            burst_ = 1 + (unsigned)((rng_ >> 20) % 16);
        if (burst_) {
            burst_--;
            s_valid_ = 1;
            s_byte_ = (uint8_t)count_++;
        }
    }

    etm_tpiu_params_t p_{};
    etm_tpiu_t *c_ = nullptr;
    std::unique_ptr<Vetm_tpiu> r_;
    etm_tpiu_cap_t cap_{};
    std::vector<uint8_t> pins_, etm_bytes_, second_;
    unsigned pct_ = 0, burst_ = 0, count_ = 0;
    uint8_t s_valid_ = 0, s_byte_ = 0, ending_ = 0;
    uint64_t rng_ = 1;
};

} // namespace cosim

#endif
