/* rtl_io.h - the co-simulation contract between the C model and the Verilated
 * RTL twin (rtl/etm_core.sv: etm_top with its implementation on ports, so that
 * one Verilated model serves every configuration), in the manner of ibex's
 * cosim.h.
 *
 * One cycle of lockstep is:
 *
 *     rtl_drive_inputs(top, &in);        the cycle's inputs, clk_i low
 *     rtl_settle(top);                   outputs of the cycle settle (eval)
 *     etm_step(model, &in, &c_out);      the C model's edge
 *     rtl_read_outputs(top, &r_out);     the RTL's outputs of the same cycle
 *     compare c_out and r_out            every field of etm_out_t
 *     rtl_commit(top);                   the RTL's edge commits its state
 *                                        (clk_i high, eval, clk_i low)
 *
 * A top with tick_i in place of clk_i (tb/cosim/etm_top_tick.sv: etm_top
 * behind flip-flops that take each cycle's inputs at the edge ending the
 * cycle before) takes that edge and shows the cycle's outputs in the one
 * eval() of rtl_settle; its rtl_commit does nothing, and a cycle's edge falls
 * in the next cycle's rtl_settle.
 *
 * Before the first cycle: rtl_drive_impl() with the etm_config_t that created
 * the model (etm_create_at_reset: both start from the architecture's reset
 * values), then rtl_reset() (etm_reset). The registers are then programmed
 * through the debug APB fields of etm_in_t, the same cycles driven into both
 * (etm/program.h). The end of trace is one edge with
 * end_i = 1 (etm_end, no output compared) and then one edge per etm_drain call
 * that modelled a cycle (ETM_OK); ETM_END means nothing was left.
 */
#ifndef ETM_RTL_IO_H
#define ETM_RTL_IO_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "Vetm_core.h"
#include "etm/etm.h"

/* The implementation ports, held for the whole run: impl_<field>_i per
 * read-only register (ETM_IMPL) and model parameter of etm/regs.def. */
static inline void rtl_drive_impl(Vetm_core *t, const etm_config_t *c)
{
#define ETM_IMPL(field, name) t->impl_##field##_i = c->field;
#define ETM_PARAM(field, name, doc) t->impl_##field##_i = c->field;
#include "etm/regs.def"
}

/* The functions below take etm_core or etm_top (a part's parameters built in:
 * the same ports less the implementation's), Verilated under any prefix. */

/* Every input of etm_in_t onto the port of the same name (etm/signals.def;
 * ETMIA[31:1] takes the address without bit 0, ATREADY the complement of atstall). */
template <class Top> static inline void rtl_drive_inputs(Top *t, const etm_in_t *in)
{
#define ETM_IN(field, name, width, lsb, ctype, part, doc) t->name = (in->field >> (lsb)) ^ ETM_SIG_PORT_XOR(part);
#include "etm/signals.def"
}

/* The RTL's outputs as an etm_out_t (etm/signals.def), and its violation bits
 * (bit r = etm_rule_t r). */
template <class Top> static inline void rtl_read_outputs(const Top *t, etm_out_t *o, uint64_t *violations)
{
    std::memset(o, 0, sizeof *o);
#define ETM_OUT(field, name, width, ctype, where, doc) o->field = (ctype)t->name;
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    o->count = (uint8_t)t->countname;                                  \
    for (int i = 0; i < (n); i++)                                      \
        o->bytes[i] = (uint8_t)((uint64_t)t->dataname >> (8 * i));
#include "etm/signals.def"
    if (violations)
        *violations = t->VIOLATIONS;
}

/* The cycle's outputs settle (a top with clk_i: one eval with the clock low),
 * then its edge commits the state (the clock high, eval, the clock low again).
 * A top with tick_i commits the cycle before and settles this one in
 * rtl_settle's one eval (the overload taking int is chosen where tick_i
 * exists). */
template <class Top> static inline auto rtl_settle(Top *t, int) -> decltype((void)t->tick_i, void())
{
    t->tick_i = !t->tick_i;
    t->eval();
}
template <class Top> static inline void rtl_settle(Top *t, long) { t->eval(); }
template <class Top> static inline void rtl_settle(Top *t) { rtl_settle(t, 0); }

template <class Top> static inline auto rtl_commit(Top *t, int) -> decltype((void)t->tick_i, void())
{
    (void)t; /* the edge was rtl_settle's */
}
template <class Top> static inline void rtl_commit(Top *t, long)
{
    t->clk_i = 1;
    t->eval();
    t->clk_i = 0;
}
template <class Top> static inline void rtl_commit(Top *t) { rtl_commit(t, 0); }

/* etm_reset: a few cycles of rst_ni low. */
template <class Top> static inline void rtl_reset(Top *t)
{
    t->end_i = 0;
    t->rst_ni = 0;
    t->eval();
    for (int i = 0; i < 2; i++) {
        rtl_settle(t);
        rtl_commit(t);
    }
    t->rst_ni = 1;
    t->eval();
}

/* The outputs that are ports only (ETM_SIGF_PORT in etm/signals.def: the ATB
 * handshake, TraceEnable and ViewData, the APB's PRDATA, PREADY and PSLVERR),
 * which etm_out_diff (file columns only) does not compare: a report line for
 * each that differs, empty when all agree. */
static inline std::string rtl_port_diff_lines(const etm_out_t *c, const etm_out_t *r)
{
    std::string w;
    char line[160];
#define ETM_OUT(field, name, width, ctype, where, doc)                                                     \
    if ((where) == ETM_SIGF_PORT && c->field != r->field) {                                               \
        std::snprintf(line, sizeof line, "  %-10s C model 0x%-22llx RTL 0x%llx\n", #name,                \
                      (unsigned long long)c->field, (unsigned long long)r->field);                        \
        w += line;                                                                                        \
    }
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc)
#include "etm/signals.def"
    return w;
}

/* Every output field equal, the port's bytes up to its count: the quick test
 * a lockstep makes each cycle (etm_out_diff goes through the signal table).
 * Where it holds, etm_out_diff and rtl_port_diff_lines find nothing. */
static inline bool rtl_outputs_same(const etm_out_t *c, const etm_out_t *r)
{
    bool same = c->v3_count == r->v3_count && c->v3_count <= sizeof c->v3_bytes &&
                std::memcmp(c->v3_bytes, r->v3_bytes, c->v3_count) == 0;
#define ETM_OUT(field, name, width, ctype, where, doc) same &= c->field == r->field;
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc)
#include "etm/signals.def"
    return same;
}

/* Every output agrees, file columns and ports. */
static inline bool rtl_outputs_agree(const etm_out_t *c, const etm_out_t *r)
{
    return rtl_outputs_same(c, r) || (etm_out_diff(c, r, ~(uint64_t)0) == 0 && rtl_port_diff_lines(c, r).empty());
}

/* A trace sink's ATB flush requests: one every period cycles on average (a
 * fixed pseudo-random sequence from the seed; period 0: none), AFVALID held
 * until the C model's AFREADY, as ATB asks. afvalid() before the cycle's
 * edge, observe() with its outputs. */
struct RtlFlushSink {
    RtlFlushSink(uint64_t seed, uint64_t mean) : rng(seed ^ 0xF1u), period(mean) {}
    uint8_t afvalid()
    {
        if (period && !req) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            req = (rng >> 33) % period == 0;
        }
        return req;
    }
    void observe(const etm_out_t *o)
    {
        if (req && o->afready) {
            req = false;
            done++;
        }
    }
    uint64_t rng, period;
    bool req = false;
    uint64_t done = 0; /* flushes completed */
};

/* Program an instance made by etm_create_at_reset and the RTL (after
 * rtl_reset) alike with the architecture's sequence for cfg (etm/program.h),
 * the core idle; the driver's polls read the C model's PRDATA. Returns the
 * cycles used, or 0 if the sequence could not be built. With mismatches, the
 * cycles whose outputs differ are counted there (the lockstep harness compares
 * these cycles in its own way). */
template <class Top>
static inline uint64_t rtl_program_both(Top *t, etm_ctx_t *model, const etm_config_t *cfg,
                                        uint64_t *mismatches = nullptr)
{
    etm_apb_op_t ops[ETM_PROGRAM_MAX_OPS];
    size_t n = etm_program_ops(cfg, nullptr, ops, ETM_PROGRAM_MAX_OPS);
    if (!n)
        return 0;
    etm_apb_driver_t drv;
    etm_apb_driver_start(&drv, ops, n);
    uint64_t cycles = 0;
    while (etm_apb_busy(&drv) && cycles < 100000) {
        etm_in_t in;
        etm_out_t out;
        std::memset(&in, 0, sizeof in);
        etm_apb_drive(&drv, &in);
        rtl_drive_inputs(t, &in);
        rtl_settle(t);
        etm_step(model, &in, &out);
        if (mismatches) {
            etm_out_t r;
            rtl_read_outputs(t, &r, nullptr);
            if (!rtl_outputs_agree(&out, &r))
                ++*mismatches;
        }
        etm_apb_observe(&drv, &out);
        rtl_commit(t);
        cycles++;
    }
    return cycles;
}

/* Output signal i of o as a vector file writes it ("3", "0880", "-"), for
 * mismatch reports. */
static inline std::string rtl_out_text(const etm_out_t *o, size_t i)
{
    char buf[64];
    return etm_out_format(o, i, buf, sizeof buf) ? std::string(buf) : std::string("?");
}

/* A mismatch report's lines: one per output signal set in diff (etm_out_diff),
 * its name, the C model's value and the RTL's. */
static inline std::string rtl_diff_lines(const etm_out_t *c, const etm_out_t *r, uint64_t diff)
{
    std::string w;
    char line[512];
    for (size_t i = 0; i < etm_out_signal_count; i++)
        if (diff >> i & 1) {
            std::snprintf(line, sizeof line, "  %-10s C model %-24s RTL %s\n", etm_out_signals[i].name,
                          rtl_out_text(c, i).c_str(), rtl_out_text(r, i).c_str());
            w += line;
        }
    return w;
}

#endif
