/* tpiu_loop.h - the TPIU in the lockstep (etm_cosim --tpiu): the C model's ETM
 * feeds the C TPIU (model/tpiu/src/tpiu.c) and the RTL ETM feeds the RTL TPIU
 * (rtl/etm_tpiu.sv), each through its own ATB; both TPIUs' outputs are compared
 * every cycle. A second ATB source (--atb2 PCT: valid in about PCT percent of
 * the cycles, in bursts) sends a counting pattern under trace ID 0x6F, so that
 * the formatter changes IDs. ATREADY of the ETM is the TPIU's, further held low
 * where the stimulus says (an interconnect in between that is busy). At the
 * end the TPIU's output (pins or ETB) is taken apart by the project's
 * deformatter: each ID's bytes must be exactly what its source sent.
 *
 * TRIGIN is each ETM's trigger output. SWO (--tpiu nrz:ACPR or
 * manchester:ACPR) starts, as a Cortex-M3's TPIU does, from TPIU_SPPR 1
 * (Manchester), TPIU_ACPR 0 and TPIU_FFCR 0x102, and is programmed through
 * the TPIU's APB in the first cycles, as firmware does; random APB reads of
 * every register then run throughout, their data compared. With
 * from_stimulus (etm_cosim --at-reset) the parameters are the TPIU's reset
 * values and the stimulus's own TPIU transfers (PSELTPIU) program it, as the
 * firmware in the QEMU flow does. The SWO pin is compared every cycle and read
 * back by a receiver sampling it (following the line's programming).
 */
#ifndef ETM_TB_TPIU_LOOP_H
#define ETM_TB_TPIU_LOOP_H

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
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
    bool open(VerilatedContext *vctx, const etm_tpiu_params_t &p, unsigned atb2_pct, uint64_t seed, std::string *err,
              bool from_stimulus = false)
    {
        etm_diag_t d;
        std::memset(&d, 0, sizeof d);
        p_ = p;
        stim_ = from_stimulus;
        etm_tpiu_params_t reset = p;
        if (p.protocol != ETM_TPIU_PARALLEL && !stim_) { /* the part's reset values, then the APB */
            reset.protocol = ETM_TPIU_MANCHESTER;
            reset.acpr = 0;
            reset.ffcr = ETM_TPIU_FFCR_ENFCONT | (p.ffcr & ETM_TPIU_FFCR_TRIGIN);
            writes_ = {{0x010, p.acpr}, {0x0F0, p.protocol}, {0x304, p.ffcr}, {0xFA0, 0x5}};
        }
        if (etm_tpiu_create(&c_, &reset, &d) != ETM_OK) {
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
        r_->protocol_i = reset.protocol;
        r_->acpr_i = reset.acpr;
        r_->ffcr_i = reset.ffcr;
        r_->id_restate_i = reset.id_restate;
        r_->trig_delay_i = reset.trig_delay;
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
        if (stim_) {
            etm_tpiu_cap_init_for(&cap_, c_); /* the reset line, then what the stimulus sets */
        } else if (p.protocol != ETM_TPIU_PARALLEL) { /* the receiver knows the line the firmware sets */
            cap_.protocol = p.protocol;
            cap_.unit = p.acpr + 1;
            cap_.prev = 0; /* NRZ: a start is a fall from the idle high the programming sets */
        }
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
    bool step(const etm_out_t &c, const Vetm_core *top, bool stall, std::string *why, const etm_in_t *stim = nullptr)
    {
        next_second();
        etm_tpiu_in_t in;
        etm_tpiu_in_from_etm(&in, &c, stall);
        bool programmed = stim_ || (wi_ == writes_.size() && !apb_phase_);
        in.trigin = in.trigin && programmed; /* the TPIU is programmed before the ETM's trigger counts */
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
        r_->trigin_i = top && programmed ? top->TRIGGER : 0;
        if (stim_)
            etm_tpiu_in_apb(&in, stim);
        else
            next_apb(&in);
        r_->psel_i = in.psel;
        r_->penable_i = in.penable;
        r_->pwrite_i = in.pwrite;
        r_->paddr_i = in.paddr;
        r_->pwdata_i = in.pwdata;
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
        diff("SINGLE", o.paired ? o.single : 0, r_->paired_o ? r_->single_o : 0);
        diff("SWO", o.swo, r_->swo_o);
        diff("PRDATA", o.prdata, r_->prdata_o);
        if (in.psel && in.penable && !in.pwrite)
            apb_reads_++;
        /* What each source had taken (the ETM counts its own). */
        if (c.v3_count && c.atid)
            etm_bytes_.insert(etm_bytes_.end(), c.v3_bytes, c.v3_bytes + c.v3_count);
        if (s_valid_ && o.atready[1]) {
            second_.push_back(s_byte_);
            s_valid_ = 0;
        }
        uint8_t b[4];
        unsigned nb = etm_tpiu_cap_step(&cap_, &o, b);
        etm_tpiu_cap_follow(&cap_, c_);
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
        bool sw = p_.port_bits && etm_tpiu_protocol(c_) != ETM_TPIU_PARALLEL; /* as programmed */
        unsigned ffcr = etm_tpiu_ffcr(c_);
        if (etm_cs_create(&f, p_.port_bits && !sw ? ETM_CS_WAIT_FSYNC : 0, on_data, &g) != ETM_OK)
            return false;
        etm_err_t e = ETM_OK;
        if (sw && !(ffcr & ETM_TPIU_FFCR_ENFCONT)) /* bypassed: the line carries the ETM's bytes alone */
            g.etm = out;
        else
            e = etm_cs_feed(f, out.data(), out.size(), &d);
        if (e == ETM_OK)
            e = etm_cs_end(f, &d);
        g.markers = etm_cs_triggers(f, nullptr);
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
        bool bypassed = sw && !(ffcr & ETM_TPIU_FFCR_ENFCONT); /* port 0 only: the second source's are dropped */
        bool b = same(bypassed ? std::vector<uint8_t>() : second_, g.second, "the second source");
        bool m = g.markers == etm_tpiu_get_stats(c_)->triggers || wrapped;
        if (!m) {
            std::snprintf(line, sizeof line, "  %llu trigger markers put in, %llu taken apart\n",
                          (unsigned long long)etm_tpiu_get_stats(c_)->triggers, (unsigned long long)g.markers);
            *why += line;
        }
        if (cap_.framing_errors) {
            std::snprintf(line, sizeof line, "  the SWO receiver found %llu framing errors\n",
                          (unsigned long long)cap_.framing_errors);
            *why += line;
        }
        return a && b && m && !cap_.framing_errors;
    }

    const etm_tpiu_stats_t *stats() const { return etm_tpiu_get_stats(c_); }
    uint64_t apb_reads() const { return apb_reads_; }
    uint64_t framing_errors() const { return cap_.framing_errors; }
    size_t etm_bytes() const { return etm_bytes_.size(); }
    size_t second_bytes() const { return second_.size(); }
    size_t out_bytes() const { return p_.port_bits ? pins_.size() : p_.etb_bytes; }

private:
    struct Got {
        std::vector<uint8_t> etm, second;
        uint64_t markers = 0;
    };
    static void on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t)
    {
        Got *g = static_cast<Got *>(user);
        std::vector<uint8_t> &v = id == kSecondId ? g->second : g->etm;
        v.insert(v.end(), data, data + n);
    }
    /* The APB: the programming writes first (setup, then access), then now
     * and then a read of a register of the map. */
    void next_apb(etm_tpiu_in_t *in)
    {
        static const uint16_t regs[] = {0x000, 0x004, 0x010, 0x0F0, 0x300, 0x304, 0x308, 0xFA0, 0xFA4, 0xFB4,
                                        0xFC8, 0xFCC, 0xFD0, 0xFE0, 0xFE4, 0xFE8, 0xFF0, 0xFFC, 0x100};
        in->psel = in->penable = in->pwrite = 0;
        in->paddr = 0;
        in->pwdata = 0;
        if (apb_phase_ == 0) {
            if (wi_ < writes_.size()) {
                apb_addr_ = writes_[wi_].first;
                apb_data_ = writes_[wi_].second;
                apb_write_ = 1;
                wi_++;
            } else {
                rng_ ^= rng_ << 13;
                rng_ ^= rng_ >> 7;
                rng_ ^= rng_ << 17;
                if (rng_ % 64)
                    return;
                apb_addr_ = regs[(rng_ >> 8) % (sizeof regs / sizeof regs[0])];
                apb_data_ = 0;
                apb_write_ = 0;
            }
        }
        in->psel = 1;
        in->penable = apb_phase_;
        in->pwrite = apb_write_;
        in->paddr = apb_addr_;
        in->pwdata = apb_data_;
        apb_phase_ ^= 1;
    }

    /* The second source: a word shown stays until taken; new bursts start at random. */
    void next_second()
    {
        if (!p_.src_bytes[1] || s_valid_ || wi_ < writes_.size() || apb_phase_)
            return; /* it starts once the TPIU is programmed */
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
    bool stim_ = false; /* the stimulus programs the TPIU (PSELTPIU) */
    std::vector<std::pair<uint16_t, uint32_t>> writes_;
    size_t wi_ = 0;
    unsigned apb_phase_ = 0, apb_write_ = 0;
    uint16_t apb_addr_ = 0;
    uint32_t apb_data_ = 0;
    uint64_t apb_reads_ = 0;
    uint64_t rng_ = 1;
};

} // namespace cosim

#endif
