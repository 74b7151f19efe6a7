/* cosim_main.cpp - lockstep co-simulation of the C model (libetm) and the RTL twin
 * (rtl/etm_top.sv, Verilated). Every cycle both get the same inputs, and every
 * field of etm_out_t and the checker's set of broken rules must agree. The
 * contract is in rtl_io.h; docs/rtl.md explains the options.
 *
 *   etm_cosim [--preset NAME] [--config FILE] [--set REG=0xV]...
 *             [--seed S] [--cycles N] [--shard I/N] [--long]
 *             [--issue-width 2] [--irq-period N] [--max-intnum N] [--stall PCT]
 *             [--fold PCT] [--sleep PERMILLE] [--data] [--triggers]
 *             [--atb-stall PCT] [--atb-burst N] (ATREADY low PCT percent of the cycles, in bursts)
 *             [--flush N] (an ATB flush request, AFVALID until AFREADY, every N cycles on average)
 *             [--tpiu PINS[:DIV] | --tpiu etb:BYTES [--atb2 PCT]] (the TPIU in the loop: tpiu_loop.h)
 *             [--vectors FILE] [--vcd FILE] [--allow-violations]
 *             [--require BIN]... [--waves FILE | +trace] [--fail-waves FILE] [--window N] [--quiet]
 *             [--random-filter SEED] [--inject CYCLE]
 *
 * --inject CYCLE is the harness's self-test: the RTL alone gets a corrupted
 * input in that cycle, and the run must fail there.
 * On the first mismatch it prints the cycle, each differing signal with both
 * values and the inputs of the cycles before it, writes an FST of the window
 * around it (cosim_fail.fst, or --fail-waves FILE), and exits 1. +trace or
 * --waves FILE dumps the whole run (cosim.fst), passing or not. Exit 2: bad usage
 * or configuration. At the end it prints coverage counters and fails when a
 * bin the configuration targets (or --require names) was never hit.
 */
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Vetm_core.h"
#include "verilated.h"
#include "verilated_fst_c.h"

#include "etm/decode_v3.h"
#include "etm/etm.h"
#include "etm/stim.h"
#include "cosim_options.h"
#include "rtl_io.h"
#include "tpiu_loop.h"

namespace {

constexpr unsigned kHistory = 16;

using cosim::Coverage;
using cosim::Options;

/* ---- Stimulus: the generator, a vector file or a VCD ---------------------------------- */

class Source {
public:
    explicit Source(const Options &o) : o_(o) {}
    ~Source() { close(); }
    bool open(etm_diag_t *d)
    {
        close();
        produced_ = 0;
        if (!o_.vectors.empty())
            return etm_vec_open(&vec_, o_.vectors.c_str(), d) == ETM_OK;
        if (!o_.vcd.empty()) {
            etm_vcd_opts_t vo;
            etm_vcd_opts_init(&vo);
            vo.kind = ETM_VEC_STIMULUS;
            vo.allow_missing = 1;
            return etm_vcd_open(&vcdr_, o_.vcd.c_str(), &vo, d) == ETM_OK;
        }
        return etm_gen_create(&gen_, &o_.gen, d) == ETM_OK;
    }
    /* 1: a cycle, 0: end of stimulus, -1: error (in diag). */
    int next(etm_in_t *in, etm_diag_t *d)
    {
        if (produced_ >= o_.cycles)
            return 0;
        if (gen_) {
            etm_gen_next(gen_, in, nullptr);
            produced_++;
            return 1;
        }
        etm_err_t e = vec_ ? etm_vec_read_in(vec_, in, d) : etm_vcd_read_in(vcdr_, in, d);
        if (e == ETM_END)
            return 0;
        if (e != ETM_OK)
            return -1;
        produced_++;
        return 1;
    }
    const etm_config_t *file_config() const { return vec_ ? etm_vec_config(vec_) : nullptr; }

private:
    void close()
    {
        if (gen_)
            etm_gen_free(gen_);
        if (vec_)
            etm_vec_close(vec_);
        if (vcdr_)
            etm_vcd_close(vcdr_);
        gen_ = nullptr;
        vec_ = nullptr;
        vcdr_ = nullptr;
    }
    const Options &o_;
    etm_gen_t *gen_ = nullptr;
    etm_vec_reader_t *vec_ = nullptr;
    etm_vcd_reader_t *vcdr_ = nullptr;
    uint64_t produced_ = 0;
};

/* ---- Coverage ----------------------------------------------------------------------------- */


/* The decoded packets, and the part's choices seen in their order (regs.def
 * "choice:"; docs/silicon.md), from the bytes alone:
 *   part-15e-closed       a format 1 P-header of 15 E atoms (PH_PACKING=1)
 *   part-trigger-after-first  a trigger after the P-header that follows a
 *                         restart I-sync (TRACE_START=1)
 *   part-async-alone      an A-sync no I-sync follows (SYNC_PLACEMENT=1)
 *   part-tailchain-return an exception return, then an exception entry
 *                         (TAILCHAIN_RETURN=1)
 *   part-cancel-withdraw  an exception packet with Cancel after a P-header of
 *                         more than one atom (CANCEL_FORM=1) */
struct PacketWatch {
    Coverage *cov;
    etm_v3pkt_kind_t prev = ETM_V3PKT_KIND_COUNT;
    bool prev2_restart = false, prev_restart = false;
    size_t prev_atoms = 0;
};

void on_packet(void *user, const etm_v3pkt_t *p)
{
    PacketWatch *w = static_cast<PacketWatch *>(user);
    Coverage *cov = w->cov;
    bool isync = p->kind == ETM_V3PKT_ISYNC || p->kind == ETM_V3PKT_ISYNC_CC;
    if (isync) {
        static const char *const r[4] = { "sync-reason-periodic", "sync-reason-trace-on", "sync-reason-overflow",
                                          "sync-reason-debug-exit" };
        cov->hit(r[p->reason & 3]);
    }
    if (p->kind == ETM_V3PKT_IGNORE)
        return;
    size_t natoms = std::strlen(p->atoms);
    if (p->kind == ETM_V3PKT_PHDR && p->format == 1 && natoms == 15 && !std::strchr(p->atoms, 'N') &&
        !std::strchr(p->atoms, 'W'))
        cov->hit("part-15e-closed");
    if (p->kind == ETM_V3PKT_TRIGGER && w->prev == ETM_V3PKT_PHDR && w->prev2_restart)
        cov->hit("part-trigger-after-first");
    if (w->prev == ETM_V3PKT_ASYNC && !isync && p->kind != ETM_V3PKT_ASYNC)
        cov->hit("part-async-alone");
    if (p->kind == ETM_V3PKT_BRANCH && p->exception && w->prev == ETM_V3PKT_EXC_RETURN)
        cov->hit("part-tailchain-return");
    if (p->kind == ETM_V3PKT_BRANCH && p->exception && p->cancel && w->prev == ETM_V3PKT_PHDR && w->prev_atoms > 1)
        cov->hit("part-cancel-withdraw");
    w->prev2_restart = w->prev_restart;
    w->prev = p->kind;
    w->prev_restart = isync && p->reason != ETM_V3_REASON_PERIODIC;
    w->prev_atoms = p->kind == ETM_V3PKT_PHDR ? natoms : 0;
}

/* ---- One lockstep run ----------------------------------------------------------------------- */

struct Mismatch {
    bool found = false;
    uint64_t cycle = 0;
    std::string what;
};

/* The debug APB side of the run: the programming from reset (the core idle),
 * then, with --reprogram N, a reprogramming every N cycles on average while the
 * core runs: some illegal accesses first (a write while ETMCR[10] is clear, a
 * write while locked, a write to a read-only register, an access where nothing
 * is, reads of the status and ID registers), then the architecture's sequence
 * (etm_program_ops) with a new trace ID, and with --reprogram-modes
 * cycle-accurate and branch broadcast drawn again (and, with --random-filter, a
 * new filter programming). The same cycles go to the C model and the RTL. */
class Programmer {
public:
    explicit Programmer(const Options &o) : o_(o), target_(o.cfg)
    {
        rng_ = o.seed * 0x2545F4914F6CDD1Dull + 0x9E37ull;
        etm_apb_driver_start(&drv_, ops_, 0);
    }
    void start_initial()
    {
        size_t n = 0;
        if (o_.walk) {
            /* Every offset of the 4 KB: read (software and debugger), unlocked and
             * programming, all ones written and read back, zero written and read
             * back; then the programming proper. */
            walk_.clear();
            auto op = [&](uint8_t kind, unsigned offset, uint32_t value, uint8_t dbg) {
                etm_apb_op_t x;
                std::memset(&x, 0, sizeof x);
                x.kind = kind;
                x.offset = (uint16_t)offset;
                x.value = value;
                x.debugger = dbg;
                walk_.push_back(x);
            };
            const unsigned lar = 4u * etm_mgmt_registers[ETM_MGMT_LAR].number;
            for (unsigned off = 0; off < 0x1000; off += 4)
                op(ETM_APB_READ, off, 0, (uint8_t)((off >> 2) & 1));
            op(ETM_APB_WRITE, lar, ETM_LAR_KEY, 0);
            op(ETM_APB_WRITE, 0, 0x400, 0);
            for (uint32_t v : { 0xFFFFFFFFu, 0u }) {
                for (unsigned off = 4; off < 0x1000; off += 4)
                    if (off != lar)
                        op(ETM_APB_WRITE, off, v, 0);
                for (unsigned off = 0; off < 0x1000; off += 4)
                    op(ETM_APB_READ, off, 0, 0);
            }
            etm_apb_op_t prog[ETM_PROGRAM_MAX_OPS];
            size_t k = etm_program_ops(&o_.cfg, nullptr, prog, ETM_PROGRAM_MAX_OPS);
            walk_.insert(walk_.end(), prog, prog + k);
            etm_apb_driver_start(&drv_, walk_.data(), walk_.size());
            n = walk_.size();
        } else {
            n = etm_program_ops(&o_.cfg, nullptr, ops_, ETM_PROGRAM_MAX_OPS);
            etm_apb_driver_start(&drv_, ops_, n);
        }
        initial_ = n != 0;
        next_ = o_.reprogram ? draw(2 * o_.reprogram) + 1 : UINT64_MAX;
    }
    bool initial() const { return initial_; }
    void maybe_start(uint64_t cycle)
    {
        if (etm_apb_busy(&drv_) || cycle < next_)
            return;
        next_ = cycle + draw(2 * o_.reprogram) + 1;
        etm_config_t t = target_;
        unsigned version = 0;
        etm_config_version(&t, &version, nullptr);
        if (version >= ETM_V(3, 0))
            t.etmtraceidr = 1 + (uint32_t)draw(0x6E); /* 0x6F: the TPIU's second source */
        if (o_.reprogram_modes) {
            if (o_.random_filter)
                cosim::random_filter(&t, rng(), o_.hot);
            t.etmcr &= ~(ETM_FIELD_MASK(ETM_CR_CYCLE_ACCURATE) | ETM_FIELD_MASK(ETM_CR_BRANCH_OUTPUT));
            t.etmcr |= (uint32_t)draw(2) << ETM_CR_CYCLE_ACCURATE_LSB | (uint32_t)draw(2) << ETM_CR_BRANCH_OUTPUT_LSB;
        }
        size_t n = 0;
        auto op = [&](uint8_t kind, unsigned offset, uint32_t value, uint8_t dbg) {
            etm_apb_op_t &x = ops_[n++];
            std::memset(&x, 0, sizeof x);
            x.kind = kind;
            x.offset = (uint16_t)offset;
            x.value = value;
            x.debugger = dbg;
        };
        const unsigned lar = 4u * etm_mgmt_registers[ETM_MGMT_LAR].number;
        static const uint16_t reads[] = { 0x010, 0x000, 0x004, 0x1E4, 0x170, 0x200, 0xFB4, 0xFE0, 0xFF4, 0xFA4,
                                          0xFCC, 0x314, 0x014, 0x1E8 };
        op(ETM_APB_WRITE, 4u * 0x008u, 0x55, 0);  /* ETMTEEVR while locked (ETMv3) */
        op(ETM_APB_WRITE, lar, ETM_LAR_KEY, 0);    /* unlock */
        op(ETM_APB_WRITE, 4u * 0x008u, 0x55, 0);  /* ETMTEEVR with the programming bit clear: ignored */
        op(ETM_APB_WRITE, 4u * 0x001u, 0x1234, (uint8_t)draw(2)); /* ETMCCR: read-only */
        op(draw(2) ? ETM_APB_WRITE : ETM_APB_READ, 0xE00 + 4 * (unsigned)draw(64), 0xA5A5A5A5u, 0); /* nothing */
        for (unsigned k = (unsigned)draw(4); k; k--)
            op(ETM_APB_READ, reads[draw(sizeof reads / sizeof reads[0])], 0, (uint8_t)draw(2));
        {
            op(ETM_APB_WRITE, lar, 0, 0);                          /* lock */
            op(ETM_APB_WRITE, 0, t.etmcr | 0x400u, 0);             /* ignored: locked */
            op(ETM_APB_WRITE, 4u * 0x3E8u, 1u + (uint32_t)draw(15), 1); /* the debugger: no lock */
        }
        n += etm_program_ops(&t, &target_, ops_ + n, ETM_PROGRAM_MAX_OPS - n);
        etm_apb_driver_start(&drv_, ops_, n);
        target_ = t;
        count_++;
    }
    void drive(etm_in_t *in)
    {
        if (etm_apb_busy(&drv_))
            etm_apb_drive(&drv_, in);
    }
    void observe(const etm_out_t *out)
    {
        etm_apb_observe(&drv_, out);
        if (initial_ && !etm_apb_busy(&drv_))
            initial_ = false;
    }
    uint64_t reprogrammings() const { return count_; }

private:
    uint64_t rng()
    {
        rng_ ^= rng_ << 13;
        rng_ ^= rng_ >> 7;
        rng_ ^= rng_ << 17;
        return rng_;
    }
    uint64_t draw(uint64_t n) { return n ? rng() % n : 0; }

    const Options &o_;
    etm_config_t target_;
    etm_apb_op_t ops_[ETM_PROGRAM_MAX_OPS + 32];
    std::vector<etm_apb_op_t> walk_;
    etm_apb_driver_t drv_;
    uint64_t rng_, next_ = UINT64_MAX, count_ = 0;
    bool initial_ = false;
};

std::string rules_text(uint64_t mask)
{
    std::string s;
    for (int r = 0; r < ETM_RULE_COUNT; r++)
        if (mask >> r & 1) {
            if (!s.empty())
                s += ",";
            s += etm_rule_name((etm_rule_t)r);
        }
    return s.empty() ? "-" : s;
}

void print_inputs(const etm_in_t *in, uint64_t cycle)
{
    std::printf("  %8" PRIu64 ":", cycle);
    for (size_t i = 0; i < etm_in_signal_count; i++) {
        uint64_t v = etm_signal_get(&etm_in_signals[i], in);
        if (v)
            std::printf(" %s=%" PRIx64, etm_in_signals[i].name, v);
    }
    std::printf("\n");
}

class Lockstep {
public:
    Lockstep(const Options &o, Coverage *cov) : o_(o), cov_(cov) {}

    /* Runs the whole stimulus. trace_from/trace_to: cycles to dump (inclusive),
     * or trace_to = 0 for none. Returns 0 on success, 1 on a mismatch, 2 on an
     * input or configuration error. */
    int run(uint64_t trace_from, uint64_t trace_to, const char *wave_path, Mismatch *mm)
    {
        etm_diag_t d;
        std::memset(&d, 0, sizeof d);
        Source src(o_);
        if (!src.open(&d)) {
            std::fprintf(stderr, "etm_cosim: stimulus: %s\n", d.msg);
            return 2;
        }
        etm_ctx_t *model = nullptr;
        if (etm_create_at_reset(&model, &o_.cfg, &d) != ETM_OK) {
            std::fprintf(stderr, "etm_cosim: configuration: %s\n", d.msg);
            return 2;
        }
        std::unique_ptr<VerilatedContext> vctx(new VerilatedContext);
        vctx->traceEverOn(trace_to != 0);
        vctx->assertOn(!o_.allow_violations);
        std::unique_ptr<Vetm_core> top(new Vetm_core(vctx.get(), "etm"));
        std::unique_ptr<VerilatedFstC> tfp;
        etm_v3dec_t *dec = nullptr;
        const bool v3 = (o_.cfg.etmccr >> 31) & 1;
        /* The decoder follows one configuration: not one reprogrammed to other trace modes. */
        PacketWatch watch{ cov_ };
        if (cov_ && v3 && !o_.reprogram_modes && etm_v3dec_create(&dec, &o_.cfg, 0, &d) == ETM_OK)
            etm_v3dec_on_packet(dec, on_packet, &watch);
        bool dec_ok = true;

        std::unique_ptr<cosim::TpiuLoop> tp;
        if (o_.tpiu) {
            etm_tpiu_params_t tpp = o_.tpiu_p;
            tpp.src_bytes[0] = o_.cfg.port_bytes;
            tpp.src_bytes[1] = o_.atb2 ? 1 : 0;
            std::string err;
            tp.reset(new cosim::TpiuLoop);
            if (!tp->open(vctx.get(), tpp, o_.atb2, o_.seed, &err, o_.at_reset)) {
                std::fprintf(stderr, "etm_cosim: --tpiu: %s\n", err.c_str());
                etm_destroy(model);
                return 2;
            }
        }
        rtl_drive_impl(top.get(), &o_.cfg);
        etm_in_t zero;
        std::memset(&zero, 0, sizeof zero);
        rtl_drive_inputs(top.get(), &zero);
        rtl_reset(top.get());

        etm_in_t hist[kHistory];
        uint64_t cycle = 0;
        int rc = 0;
        etm_in_t in;
        etm_out_t c_out, r_out;
        uint64_t r_viol = 0;
        // The registers are programmed through the APB first (the core idle), then
        // reprogrammed now and then while it runs (--reprogram).
        Programmer prog(o_);
        if (!o_.at_reset)
            prog.start_initial();
        uint8_t prev_intstat = 0;
        etm_in_t prev_stim = zero; /* the stimulus's last cycle, before the sink's columns */
        etm_hold_path_t hold_path;
        etm_hold_path_init(&hold_path, o_.hold);
        bool hold_next = false; /* --hold: FIFOFULL has reached the core: the next cycle is held */
        RtlFlushSink flush(o_.seed, o_.flush);

        auto trace_on = [&](uint64_t c) { return trace_to != 0 && c >= trace_from && c <= trace_to; };
        auto edge = [&](uint64_t c) {
            if (trace_on(c) && !tfp) {
                tfp.reset(new VerilatedFstC);
                top->trace(tfp.get(), 99);
                tfp->open(wave_path);
            }
            if (tfp)
                tfp->dump(10 * c);
            top->clk_i = 1;
            top->eval();
            if (tfp)
                tfp->dump(10 * c + 5);
            top->clk_i = 0;
            if (tp)
                tp->clock();
            if (tfp && !trace_on(c + 1)) {
                tfp->close();
                tfp.reset();
                trace_to = 0;
            }
        };
        auto compare = [&](uint64_t c, uint64_t c_viol, const char *phase) -> bool {
            rtl_read_outputs(top.get(), &r_out, &r_viol);
            if (rtl_outputs_same(&c_out, &r_out) && c_viol == r_viol) /* the common cycle */
                return true;
            uint64_t diff = etm_out_diff(&c_out, &r_out, ~(uint64_t)0);
            std::string ports = rtl_port_diff_lines(&c_out, &r_out); /* ATB, TraceEnable, ViewData, APB */
            if (!diff && c_viol == r_viol && ports.empty())
                return true;
            if (mm && !mm->found) {
                mm->found = true;
                mm->cycle = c;
                char line[512];
                std::string w = rtl_diff_lines(&c_out, &r_out, diff) + ports;
                if (c_viol != r_viol) {
                    std::snprintf(line, sizeof line, "  %-10s C model %-24s RTL %s\n", "VIOLATIONS",
                                  rules_text(c_viol).c_str(), rules_text(r_viol).c_str());
                    w += line;
                }
                std::string all = "  all outputs (C model / RTL):";
                for (size_t i = 0; i < etm_out_signal_count; i++)
                    all += std::string(" ") + etm_out_signals[i].name + "=" + rtl_out_text(&c_out, i) + "/" +
                           rtl_out_text(&r_out, i);
                std::snprintf(line, sizeof line, "mismatch at cycle %" PRIu64 " (%s):\n", c, phase);
                mm->what = line + w + all + "\n";
            }
            return false;
        };

        for (;;) {
            if (prog.initial()) {
                in = zero;
            } else if (o_.hold && hold_next && cycle && etm_stim_held_cycle(&in, &prev_stim)) {
                /* The core waits: the stimulus's next cycle comes later. */
                if (cov_)
                    cov_->hit("held-cycles");
            } else {
                int k = src.next(&in, &d);
                if (k < 0) {
                    std::fprintf(stderr, "etm_cosim: stimulus: %s\n", d.msg);
                    rc = 2;
                    break;
                }
                if (k == 0)
                    break;
                prog.maybe_start(cycle);
            }
            prev_stim = in;
            prog.drive(&in);
            /* With the TPIU in the loop, ATREADY is the TPIU's, held low too where
             * the stimulus says (a busy interconnect in between). */
            const bool ic_stall = in.atstall != 0;
            if (tp)
                in.atstall = (uint8_t)(ic_stall || !tp->ready());
            in.afvalid = flush.afvalid(); /* the trace sink's flush requests */
            hist[cycle % kHistory] = in;
            if (cycle == o_.inject) {
                etm_in_t bad = in;
                bad.ia ^= 0x100;
                bad.ivalid ^= 1;
                rtl_drive_inputs(top.get(), &bad);
            } else {
                rtl_drive_inputs(top.get(), &in);
            }
            top->eval();
            etm_step(model, &in, &c_out);
            hold_next = etm_hold_path_step(&hold_path, c_out.fifofull) != 0;
            prog.observe(&c_out);
            flush.observe(&c_out);
            uint64_t c_viol = etm_last_rule_mask(model);
            if (!compare(cycle, c_viol, "step")) {
                rc = 1;
                if (mm && trace_to == 0) {
                    std::printf("%s", mm->what.c_str());
                    std::printf("inputs of the cycles before it, and of it:\n");
                    uint64_t first = cycle >= kHistory - 1 ? cycle - (kHistory - 1) : 0;
                    for (uint64_t c = first; c <= cycle; c++)
                        print_inputs(&hist[c % kHistory], c);
                }
                if (trace_to)
                    edge(cycle);
                break;
            }
            if (tp) {
                std::string why;
                if (!tp->step(c_out, top.get(), ic_stall, &why, &in)) {
                    std::printf("mismatch at cycle %" PRIu64 " (TPIU):\n%s", cycle, why.c_str());
                    rc = 1;
                    break;
                }
            }
            if (cov_)
                count(in, c_out, c_viol, prev_intstat, v3);
            prev_intstat = in.intstat;
            if (dec && c_out.v3_count && dec_ok && etm_v3dec_feed(dec, c_out.v3_bytes, c_out.v3_count, nullptr, &d) != ETM_OK) {
                std::fprintf(stderr, "etm_cosim: warning: the project's decoder stopped at cycle %" PRIu64 ": %s\n",
                             cycle, d.msg);
                dec_ok = false;
            }
            edge(cycle);
            cycle++;
        }

        if (rc == 0) {
            /* End of trace, then drain until the FIFO is empty. */
            etm_end(model);
            const uint64_t end_bytes = etm_get_stats(model)->bytes; /* what etm_end put in the FIFO */
            rtl_drive_inputs(top.get(), &zero);
            top->end_i = 1;
            top->eval();
            if (tp) { /* the end's edge has no port cycle: nothing on ATB */
                etm_out_t none;
                std::memset(&none, 0, sizeof none);
                std::string why;
                if (!tp->step(none, top.get(), true, &why)) {
                    std::printf("mismatch at cycle %" PRIu64 " (TPIU, end of trace):\n%s", cycle, why.c_str());
                    rc = 1;
                }
            }
            edge(cycle);
            top->end_i = 0;
            cycle++;
            for (uint64_t guard = 0; rc == 0 && guard < 1000000; guard++) {
                etm_in_t din = zero;
                if (tp)
                    din.atstall = (uint8_t)!tp->ready();
                rtl_drive_inputs(top.get(), &din);
                top->eval();
                etm_err_t e = etm_drain_in(model, &din, &c_out);
                if (e == ETM_END) /* nothing was left: no cycle modelled */
                    break;
                if (!compare(cycle, 0, "drain")) {
                    rc = 1;
                    if (mm && trace_to == 0)
                        std::printf("%s", mm->what.c_str());
                    if (trace_to)
                        edge(cycle);
                    break;
                }
                if (dec && c_out.v3_count && dec_ok)
                    etm_v3dec_feed(dec, c_out.v3_bytes, c_out.v3_count, nullptr, &d);
                if (tp) {
                    std::string why;
                    if (!tp->step(c_out, top.get(), false, &why)) {
                        std::printf("mismatch at cycle %" PRIu64 " (TPIU, drain):\n%s", cycle, why.c_str());
                        rc = 1;
                        break;
                    }
                }
                edge(cycle);
                cycle++;
            }
            if (tp && rc == 0) {
                std::string why;
                if (!tp->finish(&why) || !tp->check(&why)) {
                    std::printf("TPIU: %s", why.c_str());
                    rc = 1;
                } else if (cov_) {
                    const etm_tpiu_stats_t *ts = tp->stats();
                    cov_->hit("tpiu-frames", ts->frames);
                    cov_->hit("tpiu-fsync", ts->fsyncs);
                    cov_->hit("tpiu-hsync", ts->hsyncs);
                    cov_->hit("tpiu-etm-bytes", tp->etm_bytes());
                    cov_->hit("tpiu-second-bytes", tp->second_bytes());
                    cov_->hit("tpiu-etb-wraps", ts->etb_wraps);
                    cov_->hit("tpiu-swo-bytes", ts->swo_bytes);
                    cov_->hit("tpiu-apb-reads", tp->apb_reads());
                    cov_->hit("tpiu-markers", ts->triggers);
                    cov_->hit("tpiu-restates", ts->restates);
                    cov_->hit("tpiu-stall-cycles", ts->stall_cycles[0]);
                }
            }
            /* The end's last packets found the FIFO full and entered while it drained. */
            if (cov_ && etm_get_stats(model)->bytes > end_bytes)
                cov_->hit("end-wait");
        }
        if (tfp)
            tfp->close();
        top->final();
        cycles_ = cycle;
        if (cov_ && rc == 0) {
            const etm_stats_t *st = etm_get_stats(model);
            static const char *const pk[ETM_PKT_ALL_COUNT] = {
                "f1", "f2", "f3", "f4", "branch", "exception", "async", "isync", "isync-cc",
                "cycle-count", "trigger", "exc-return", "ignore",
                "normal-data", "value-not-traced", "ooo-placeholder", "ooo-data", "store-failed" };
            /* Data packet kinds only where data trace is on: the others' bins stay out of the list. */
            int nkinds = (o_.cfg.etmcr & 0xC) ? ETM_PKT_ALL_COUNT : ETM_PKT_KIND_COUNT;
            if (v3)
                for (int i = 0; i < nkinds; i++)
                    cov_->hit(std::string("pkt-") + pk[i], st->packets[i]);
            cov_->hit("overflows", st->overflows);
            cov_->hit("fifo-staged", st->staged_cycles);
            cov_->hit("stage-overflow", st->stage_overflows);
            cov_->hit("reprogram", prog.reprogrammings());
            cov_->hit("restart", st->restarts);
            cov_->hit("untraceable", st->untraceable);
            if (o_.random_filter) { /* the filter's events (docs/filter.md) */
                cov_->hit("ss-start", st->ss_starts);
                cov_->hit("ss-stop", st->ss_stops);
                cov_->hit("counter-reload", st->counter_reloads);
                cov_->hit("include-hit", st->include_hits);
                cov_->hit("exclude-hit", st->exclude_hits);
            }
            stats_ = *st;
        }
        if (dec)
            etm_v3dec_destroy(dec);
        etm_destroy(model);
        return rc;
    }

    uint64_t cycles() const { return cycles_; }
    const etm_stats_t &stats() const { return stats_; }

private:
    void count(const etm_in_t &in, const etm_out_t &o, uint64_t viol, uint8_t prev_intstat, bool v3)
    {
        static const char *const ps[8] = { "IE", "ID", "IN", "WT", "BE", "BD", "TR", "TD" };
        if (!v3)
            cov_->hit(std::string("pipestat-") + ps[o.pipestat & 7]);
        if (!v3 && o.tracesync)
            cov_->hit("tracesync");
        if (o.overflow)
            cov_->hit("overflow-cycles");
        /* ETMSR read while tracing with [0] set (an overflow not traced yet)
         * after the FIFO has been empty for two cycles: an overflow whose
         * restart I-sync waits for the next instruction. */
        if (in.psel && in.penable && !in.pwrite && (in.paddr & 0xFFCu) == 0x010u && (o.prdata & 3u) == 1u &&
            empty_run_ >= 2)
            cov_->hit("etmsr-untraced-drained");
        empty_run_ = o.fifo_level ? 0 : empty_run_ + 1;
        if (o.atvalid && in.atstall)
            cov_->hit("atb-wait");
        if (in.afvalid && o.afready)
            cov_->hit("atb-flush");
        if (o.trigger)
            cov_->hit("trigger");
        if (o.fifofull) {
            cov_->hit("fifofull-cycles");
            /* Raised by a full records queue, not by the store's level (ETMFFLR as
             * configured: not when the modes are reprogrammed). */
            unsigned fflr = ETM_FIELD_GET(ETM_FFLR_LEVEL, o_.cfg.etmfflr);
            if (v3 && o_.cfg.pkt_queue && !o_.reprogram_modes && o_.cfg.fifo_depth >= o.fifo_level + fflr)
                cov_->hit("fifofull-queue");
        }
        cov_->hit(o.trace_enable ? "te-on-cycles" : "te-off-cycles");
        if (o.view_data)
            cov_->hit("view-data-cycles");
        if (viol)
            cov_->hit("violation-cycles");
        for (unsigned r = 0; viol >> r; r++)
            if ((viol >> r & 1) && std::strncmp(etm_rule_name((etm_rule_t)r), "APB_", 4) == 0) {
                std::string b = std::string("rule-") + etm_rule_name((etm_rule_t)r);
                for (char &ch : b)
                    ch = ch == '_' ? '-' : (char)std::tolower((unsigned char)ch);
                cov_->hit(b);
            }
        if (in.ivalid && in.intstat == ETM_INTSTAT_ENTRY) {
            unsigned x = etm_m3_traced_exception(in.intnum);
            cov_->hit(x < 16 ? "exc-entry-1byte" : "exc-entry-2byte");
            if (prev_intstat == ETM_INTSTAT_EXIT)
                cov_->hit("exc-tail-chain");
        }
        if (in.ivalid && in.intstat == ETM_INTSTAT_RETURN)
            cov_->hit("exc-return");
        if (in.cancel)
            cov_->hit("exc-cancel");
        if (in.ivalid1)
            cov_->hit("dual-issue");
        if (in.fold)
            cov_->hit("fold");
        if (in.dactl & 3)
            cov_->hit("data-address");
        if (in.ddctl & 3)
            cov_->hit("data-value");
        count_data(in);
    }

    /* The data slot traffic (--data-mix): kinds of transfer, and transfers in
     * flight together (a value passing a later address). */
    void count_data(const etm_in_t &in)
    {
        unsigned das = ETM_DACTL_SLOT(in.dactl), dds = ETM_DDCTL_SLOT(in.ddctl);
        if (dds) {
            if (ETM_DDCTL_STREX_FAIL(in.ddctl))
                cov_->hit("data-store-failed");
            if (ETM_DDCTL_IMPRECISE(in.ddctl))
                cov_->hit("data-imprecise");
            if (dds == das)
                cov_->hit("data-slot-collision"); /* a slot's value and its next address in one cycle */
            waiting_ &= ~(1u << dds);
        }
        if (das) {
            if (ETM_DACTL_UNALIGNED(in.dactl))
                cov_->hit("data-unaligned");
            if (ETM_DACTL_SWIZZLE(in.dactl))
                cov_->hit("data-big-endian");
            if (ETM_DACTL_ROT(in.dactl))
                cov_->hit("data-rotated");
            if (ETM_DACTL_NSEQ(in.dactl) && xfer_open_)
                cov_->hit("data-second-nseq"); /* LDM or POP with the PC */
            if (xfer_open_) /* ETMv1: its values are written a transfer a cycle */
                cov_->hit("data-later-transfer");
            xfer_open_ = !(ETM_DACTL_LAST(in.dactl) && !ETM_DACTL_UNALIGNED(in.dactl));
            waiting_ |= 1u << das;
        }
        if ((waiting_ & (waiting_ - 1u)) != 0)
            cov_->hit("data-in-flight-2"); /* two addresses waiting for their values */
    }

    const Options &o_;
    Coverage *cov_;
    uint64_t empty_run_ = 0; /* cycles in a row that ended with the FIFO empty */
    unsigned waiting_ = 0;  /* slots with an address waiting for its value */
    bool xfer_open_ = false; /* the last transfer was not its instruction's last */
    uint64_t cycles_ = 0;
    etm_stats_t stats_{};
};

/* After a passing run: the figures, the coverage, and the bins it had to hit. */
int report(const Options &o, const Lockstep &ls, const Coverage &cov)
{
    const etm_stats_t &st = ls.stats();
    std::printf("lockstep: %" PRIu64 " cycles, 0 mismatches (seed %" PRIu64 ", shard %u/%u); %" PRIu64
                " instructions, %" PRIu64 " bytes, %" PRIu64 " violations\n",
                ls.cycles(), o.seed, o.shard, o.shards, st.instructions, st.bytes, st.violations);
    if (!o.quiet) {
        std::printf("coverage:\n");
        for (const auto &b : cov.bins)
            std::printf("  %-24s %12" PRIu64 "\n", b.first.c_str(), b.second);
    }
    std::vector<std::string> need = cosim::targeted_bins(o, cov);
    need.insert(need.end(), o.require.begin(), o.require.end());
    int missing = 0;
    for (const std::string &b : need)
        if (!cov.get(b)) {
            std::printf("coverage: bin '%s' was never hit\n", b.c_str());
            missing++;
        }
    if (missing) {
        std::printf("FAIL: %d targeted coverage bins not hit\n", missing);
        return 1;
    }
    std::printf("PASS\n");
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    int rc = cosim::parse_command_line(o, argc, argv);
    if (rc >= 0)
        return rc;
    Verilated::commandArgs(argc, argv);

    Coverage cov;
    Lockstep ls(o, &cov);
    Mismatch mm;
    std::string wave = o.fail_waves.empty() ? "cosim_fail.fst" : o.fail_waves;
    if (o.trace_all)
        rc = ls.run(0, UINT64_MAX, o.waves.empty() ? "cosim.fst" : o.waves.c_str(), &mm);
    else
        rc = ls.run(0, 0, nullptr, &mm);
    if (rc == 2)
        return 2;
    if (rc == 1) {
        if (!o.trace_all) {
            /* Run again and dump the window around the mismatch. */
            Lockstep again(o, nullptr);
            Mismatch mm2;
            uint64_t from = mm.cycle > o.window ? mm.cycle - o.window : 0;
            again.run(from, mm.cycle + 1, wave.c_str(), &mm2);
            std::printf("waves of cycles %" PRIu64 "-%" PRIu64 ": %s\n", from, mm.cycle, wave.c_str());
        } else {
            std::printf("%s", mm.what.c_str());
        }
        std::printf("FAIL: the RTL and the C model disagree (seed %" PRIu64 ")\n", o.seed);
        return 1;
    }
    return report(o, ls, cov);
}
