// etm_sc.cpp - the SystemC modules of etm_sc.h.
#include "etm_sc.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "etm/number.h"

namespace etm_sc {

using namespace sc_core;

// ---- Pins -------------------------------------------------------------------------------

namespace {

const struct {
    const char *name;
    unsigned width;
} kOutPins[PIN_OUT_COUNT] = {
#define ETM_OUT(field, name, width, ctype, where, doc) { #name, width },
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) { #countname, 4 }, { #dataname, 8 * (n) },
#include "etm/signals.def"
    { "VALID", 1 },
};

std::string diag_text(const etm_diag_t &d)
{
    char buf[512];
    return etm_diag_format(&d, buf, sizeof buf);
}

} // namespace

const char *out_pin_name(unsigned i) { return i < PIN_OUT_COUNT ? kOutPins[i].name : "?"; }
unsigned out_pin_width(unsigned i) { return i < PIN_OUT_COUNT ? kOutPins[i].width : 0; }

uint64_t in_pin_value(const etm_in_t &in, unsigned i)
{
    return etm_signal_get(&etm_in_signals[i], &in) >> etm_in_signals[i].lsb;
}

void set_in_pin(etm_in_t &in, unsigned i, uint64_t v)
{
    etm_signal_set(&etm_in_signals[i], &in, v << etm_in_signals[i].lsb);
}

void out_to_pins(const etm_out_t &o, bool valid, uint64_t *p)
{
#define ETM_OUT(field, name, width, ctype, where, doc) p[PIN_##name] = o.field;
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    p[PIN_##countname] = o.count;                                      \
    p[PIN_##dataname] = 0;                                             \
    for (unsigned i = 0; i < (n); i++)                                 \
        p[PIN_##dataname] |= (uint64_t)o.bytes[i] << (8 * i);
#include "etm/signals.def"
    p[PIN_VALID] = valid;
}

void pins_to_out(const uint64_t *p, etm_out_t &o)
{
    std::memset(&o, 0, sizeof o);
#define ETM_OUT(field, name, width, ctype, where, doc) o.field = (ctype)p[PIN_##name];
#define ETM_OUT_BYTES(count, bytes, countname, dataname, column, n, doc) \
    o.count = (uint8_t)p[PIN_##countname];                             \
    for (unsigned i = 0; i < (n); i++)                                 \
        o.bytes[i] = (uint8_t)(p[PIN_##dataname] >> (8 * i));
#include "etm/signals.def"
}

EtmInBus::EtmInBus(sc_module_name n)
    : sc_module(n),
      pin("pin", etm_in_signal_count,
          [](const char *, size_t i) { return new sc_signal<uint64_t>(etm_in_signals[i].name); })
{
}

void EtmInBus::trace(sc_trace_file *tf) const
{
    for (size_t i = 0; i < pin.size(); i++)
        sc_core::sc_trace(tf, pin[i].read(), std::string(name()) + "." + etm_in_signals[i].name,
                          etm_in_signals[i].width);
}

EtmOutBus::EtmOutBus(sc_module_name n)
    : sc_module(n),
      pin("pin", PIN_OUT_COUNT, [](const char *, size_t i) { return new sc_signal<uint64_t>(kOutPins[i].name); })
{
}

void EtmOutBus::trace(sc_trace_file *tf) const
{
    for (size_t i = 0; i < pin.size(); i++)
        sc_core::sc_trace(tf, pin[i].read(), std::string(name()) + "." + kOutPins[i].name, kOutPins[i].width);
}

void EtmOutBus::read(etm_out_t &o) const
{
    uint64_t p[PIN_OUT_COUNT];
    for (unsigned i = 0; i < PIN_OUT_COUNT; i++)
        p[i] = pin[i].read();
    pins_to_out(p, o);
}

// ---- EtmSource --------------------------------------------------------------------------

EtmSource::EtmSource(sc_module_name n, etm_stim_t *stim, uint64_t max_cycles)
    : sc_module(n), clk("clk"), rst_n("rst_n"), fifofull("fifofull"), pin("pin", etm_in_signal_count),
      end("end"), prdata("prdata"), apb("apb"), atb("atb"), stim_(stim), max_cycles_(max_cycles)
{
    etm_apb_driver_start(&drv_, ops_, 0);
    etm_apb_driver_start(&tlm_drv_, &tlm_op_, 0);
    apb.register_b_transport(this, &EtmSource::b_transport);
    SC_METHOD(fall);
    sensitive << clk.neg();
    dont_initialize();
}

EtmSource::~EtmSource() { etm_stim_close(stim_); }

void EtmSource::b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    const uint64_t a = gp.get_address();
    if (gp.get_data_length() != 4 || gp.get_byte_enable_ptr() || (a & 3) || (a & 0x7FFFF000ull)) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    if (!gp.is_read() && !gp.is_write()) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    sc_core::wait(delay); /* the initiator's time, then the bus's */
    delay = sc_core::SC_ZERO_TIME;
    while (tlm_busy_)
        sc_core::wait(tlm_done_);
    std::memset(&tlm_op_, 0, sizeof tlm_op_);
    tlm_op_.kind = gp.is_write() ? ETM_APB_WRITE : ETM_APB_READ;
    tlm_op_.offset = (uint16_t)(a & 0xFFCu);
    tlm_op_.debugger = (uint8_t)((a >> 31) & 1);
    if (gp.is_write())
        std::memcpy(&tlm_op_.value, gp.get_data_ptr(), 4);
    etm_apb_driver_start(&tlm_drv_, &tlm_op_, 1);
    tlm_busy_ = true;
    sc_core::wait(tlm_done_);
    if (gp.is_read())
        std::memcpy(gp.get_data_ptr(), &tlm_read_, 4);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void EtmSource::program_first(const etm_config_t &cfg)
{
    size_t n = etm_program_ops(&cfg, nullptr, ops_, ETM_PROGRAM_MAX_OPS);
    if (!n)
        throw std::runtime_error(std::string(name()) + ": no programming sequence for the configuration");
    etm_apb_driver_start(&drv_, ops_, n);
}

/* The record onto the pins; the ATB sink's ATREADY first, where there is one
 * (held low too where the stimulus holds it). */
void EtmSource::drive_pins(etm_in_t &in)
{
    if (atb.size() && !atb->atready_next())
        in.atstall = 1;
    for (size_t i = 0; i < pin.size(); i++)
        pin[i].write(in_pin_value(in, (unsigned)i));
}

void EtmSource::fall()
{
    if (!rst_n.read())
        return;
    if (state_ == DONE || state_ == ENDING) { // the drain: an idle core, the sink's ATREADY
        if (state_ == ENDING)
            end.write(false); // the ETM saw end for one edge
        state_ = DONE;
        if (atb.size()) {
            etm_in_t idle;
            std::memset(&idle, 0, sizeof idle);
            drive_pins(idle);
        }
        return;
    }
    etm_in_t in;
    if (tlm_driven_) { // a TLM access's cycle ended: PRDATA of its access phase
        etm_out_t o;
        std::memset(&o, 0, sizeof o);
        o.prdata = prdata.size() ? (uint32_t)prdata->read() : 0;
        etm_apb_observe(&tlm_drv_, &o);
        tlm_driven_ = false;
        if (!etm_apb_busy(&tlm_drv_)) {
            tlm_read_ = tlm_drv_.last_read;
            tlm_busy_ = false;
            tlm_done_.notify(sc_core::SC_ZERO_TIME);
        }
    }
    if (driven_) { // the ETM's outputs of the cycle the driver drove: PRDATA for a poll
        etm_out_t o;
        std::memset(&o, 0, sizeof o);
        o.prdata = prdata.size() ? (uint32_t)prdata->read() : 0;
        etm_apb_observe(&drv_, &o);
        driven_ = false;
    }
    if (etm_apb_busy(&drv_)) {
        if (drv_.cycles > 100000) {
            std::fprintf(stderr, "%s: the ETM's programming did not complete in 100000 cycles\n", name());
            failed_ = true;
            etm_apb_driver_start(&drv_, ops_, 0);
        } else {
            std::memset(&in, 0, sizeof in);
            etm_apb_drive(&drv_, &in);
            driven_ = true;
            drive_pins(in);
            return;
        }
    }
    etm_diag_t d;
    etm_diag_clear(&d);
    bool hold = fifofull.read() != 0;
    etm_err_t e = ETM_END;
    if (!max_cycles_ || given_ < max_cycles_)
        e = etm_stim_next(stim_, hold, &in, &d);
    if (e == ETM_OK) {
        if (!hold || !etm_stim_can_hold(stim_))
            given_++;
        if (tlm_busy_ && etm_apb_busy(&tlm_drv_)) { /* a TLM access on the APB pins, the core running */
            etm_apb_drive(&tlm_drv_, &in);
            tlm_driven_ = true;
        }
        drive_pins(in);
        return;
    }
    if (e != ETM_END) {
        std::fprintf(stderr, "%s: %s\n", name(), diag_text(d).c_str());
        failed_ = true;
    }
    /* The end's edge: an idle core and, without a sink, ATREADY 1 for the drain. */
    std::memset(&in, 0, sizeof in);
    drive_pins(in);
    end.write(true);
    state_ = ENDING;
}

// ---- EtmModel ----------------------------------------------------------------------------

EtmModel::EtmModel(sc_module_name n, const etm_config_t &cfg, bool at_reset)
    : sc_module(n), clk("clk"), rst_n("rst_n"), end("end"), in("in", etm_in_signal_count),
      out("out", PIN_OUT_COUNT), fifo("fifo")
{
    etm_diag_t d;
    etm_diag_clear(&d);
    if ((at_reset ? etm_create_at_reset(&ctx_, &cfg, &d) : etm_create(&ctx_, &cfg, &d)) != ETM_OK)
        throw std::runtime_error(std::string(name()) + ": configuration: " + diag_text(d));
    fifo.bind(*this);
    SC_METHOD(rise);
    sensitive << clk.pos();
    dont_initialize();
}

EtmModel::~EtmModel() { etm_destroy(ctx_); }

unsigned EtmModel::take(uint8_t *buf, unsigned max) { return etm_port_take(ctx_, buf, max); }

unsigned EtmModel::level() const { return etm_fifo_level(ctx_); }

void EtmModel::drive(const etm_out_t &o, bool valid)
{
    uint64_t p[PIN_OUT_COUNT];
    out_to_pins(o, valid, p);
    for (unsigned i = 0; i < PIN_OUT_COUNT; i++)
        out[i].write(p[i]);
    if (o.fifo_level > max_level_)
        max_level_ = o.fifo_level;
}

void EtmModel::rise()
{
    etm_out_t o;
    std::memset(&o, 0, sizeof o);
    if (!rst_n.read()) {
        etm_reset(ctx_);
        ended_ = drained_ = false;
        drive(o, false);
        return;
    }
    if (drained_) {
        drive(o, false);
        return;
    }
    if (ended_) { // the drain edges: ATREADY (and AFVALID) from the pins
        etm_in_t i;
        std::memset(&i, 0, sizeof i);
        for (size_t k = 0; k < in.size(); k++)
            set_in_pin(i, (unsigned)k, in[k].read());
        bool more = etm_drain_in(ctx_, &i, &o) == ETM_OK;
        drained_ = !more;
        drive(o, more);
        return;
    }
    if (end.read()) { // etm_end: no port cycle, nothing to compare
        etm_end(ctx_);
        ended_ = true;
        drive(o, false);
        return;
    }
    etm_in_t i;
    std::memset(&i, 0, sizeof i);
    for (size_t k = 0; k < in.size(); k++)
        set_in_pin(i, (unsigned)k, in[k].read());
    if (etm_step(ctx_, &i, &o) == ETM_ERR_RULE)
        rule_cycles_++;
    drive(o, true);
}

// ---- Trace ports ------------------------------------------------------------------------------

std::string PortClock::text() const
{
    static const char *const rate[] = { "", "core rate", "half rate", "", "quarter rate" };
    std::string s = std::to_string(width) + (width == 1 ? " byte, " : " bytes, ");
    s += div < 5 && rate[div][0] ? rate[div] : ("1/" + std::to_string(div) + " rate");
    if (ddr)
        s += ", double data rate";
    return s;
}

bool parse_port_clock(const std::string &s, PortClock *pc)
{
    size_t colon = s.find(':');
    if (colon == std::string::npos)
        return false;
    std::string w = s.substr(0, colon), m = s.substr(colon + 1);
    if (w != "1" && w != "2" && w != "4")
        return false;
    pc->width = (unsigned)std::atoi(w.c_str());
    pc->ddr = false;
    if (m == "full")
        pc->div = 1;
    else if (m == "half")
        pc->div = 2;
    else if (m == "quarter")
        pc->div = 4;
    else if (m == "ddr")
        pc->div = 1, pc->ddr = true;
    else if (m == "half-ddr")
        pc->div = 2, pc->ddr = true;
    else
        return false;
    return true;
}

std::unique_ptr<sc_clock> make_port_clock(const char *name, const PortClock &pc)
{
    // Period div x 10 ns, first rising edge at 7.5 ns: edges at 7.5 + 10k (and, with
    // ddr, the falling ones 5 ns later) fall a quarter period away from the core
    // clock's edges (10n rising, 10n + 5 falling).
    return std::unique_ptr<sc_clock>(
        new sc_clock(name, sc_time(10.0 * pc.div, SC_NS), 0.5, sc_time(7.5, SC_NS), true));
}

EtmTracePort::EtmTracePort(sc_module_name n, const PortClock &pc)
    : sc_module(n), pclk("pclk"), fifo("fifo"), sink("sink"), tracedata("tracedata"), tracecount("tracecount"),
      pc_(pc)
{
    SC_METHOD(edge);
    if (pc.ddr)
        sensitive << pclk; // both edges
    else
        sensitive << pclk.pos();
    dont_initialize();
}

void EtmTracePort::edge()
{
    uint8_t b[ETM_MAX_PORT_BYTES];
    unsigned n = fifo->take(b, pc_.width);
    uint64_t data = 0;
    for (unsigned i = 0; i < n; i++)
        data |= (uint64_t)b[i] << (8 * i);
    tracedata.write(data);
    tracecount.write(n);
    if (n)
        sink->put(b, n);
    edges_++;
}

EtmPortTap::EtmPortTap(sc_module_name n) : sc_module(n), clk("clk"), out("out", PIN_OUT_COUNT), sink("sink")
{
    SC_METHOD(fall);
    sensitive << clk.neg();
    dont_initialize();
}

void EtmPortTap::fall()
{
    if (!out[PIN_VALID].read())
        return;
    unsigned n = (unsigned)out[PIN_V3COUNT].read();
    uint64_t data = out[PIN_ATDATA].read();
    uint8_t b[ETM_MAX_PORT_BYTES];
    for (unsigned i = 0; i < n && i < ETM_MAX_PORT_BYTES; i++)
        b[i] = (uint8_t)(data >> (8 * i));
    if (n)
        sink->put(b, n);
}

// ---- EtmTpiu ---------------------------------------------------------------------------------

EtmTpiu::EtmTpiu(sc_module_name n, const etm_tpiu_params_t &p, unsigned trace_id)
    : sc_module(n), clk("clk"), rst_n("rst_n"), etm("etm", PIN_OUT_COUNT), atready("atready"),
      traceclk("traceclk"), tracedata("tracedata"), sink("sink"), ready("ready"), id_(trace_id)
{
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_tpiu_create(&t_, &p, &d) != ETM_OK)
        throw std::runtime_error(std::string(name()) + ": " + diag_text(d));
    if (etm_cs_create(&cs_, p.port_bits && p.protocol == ETM_TPIU_PARALLEL ? ETM_CS_WAIT_FSYNC : 0, on_data, this) != ETM_OK)
        throw std::runtime_error(std::string(name()) + ": out of memory");
    etm_tpiu_cap_init_for(&cap_, t_);
    ready.bind(*this);
    SC_METHOD(fall);
    sensitive << clk.neg();
    dont_initialize();
}

EtmTpiu::~EtmTpiu()
{
    etm_cs_destroy(cs_);
    etm_tpiu_destroy(t_);
}

void EtmTpiu::on_data(void *user, unsigned id, const uint8_t *data, size_t n, uint64_t)
{
    EtmTpiu *t = static_cast<EtmTpiu *>(user);
    if (id == t->id_)
        t->sink->put(data, (unsigned)n);
}

/* This falling edge's step, once, whichever of fall() and atready_next() asks first. */
void EtmTpiu::step_once()
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (stepped_ && stepped_at_ == now)
        return;
    stepped_ = true;
    stepped_at_ = now;
    if (!rst_n.read()) {
        etm_tpiu_reset(t_);
        started_ = false;
        return;
    }
    /* The TPIU's cycles are the ETM's, from its first modelled one on (the end's
     * edge and the drain too), then its own until it is empty. */
    started_ = started_ || etm[PIN_VALID].read() != 0;
    if (!started_)
        return;
    if (ending_ && !ended_) {
        etm_tpiu_end(t_);
        ended_ = true;
    }
    etm_tpiu_in_t tin;
    etm_tpiu_out_t to;
    std::memset(&tin, 0, sizeof tin);
    if (etm[PIN_VALID].read() && etm[PIN_ATVALID].read() && atready.read()) {
        tin.src[0].valid = 1;
        tin.src[0].id = (uint8_t)etm[PIN_ATID].read();
        uint64_t data = etm[PIN_ATDATA].read();
        for (unsigned i = 0; i < ETM_TPIU_WORD_MAX; i++)
            tin.src[0].data[i] = (uint8_t)(data >> (8 * i));
    }
    etm_tpiu_step(t_, &tin, &to);
    traceclk.write(to.tclk);
    tracedata.write(to.tracedata);
    uint8_t b[4];
    unsigned nb = etm_tpiu_cap_step(&cap_, &to, b);
    pin_bytes_ += nb;
    etm_diag_t d;
    if (nb && etm_cs_feed(cs_, b, nb, &d) != ETM_OK)
        throw std::runtime_error(std::string(name()) + ": the pins do not take apart: " + diag_text(d));
}

bool EtmTpiu::atready_next()
{
    step_once();
    return etm_tpiu_ready(t_, 0) != 0;
}

void EtmTpiu::fall() { step_once(); }

// ---- EtmSink ---------------------------------------------------------------------------------

EtmSink::EtmSink(sc_module_name n, const etm_config_t &cfg, const std::string &path) : sc_module(n), in("in")
{
    in.bind(*this);
    etm_diag_t d;
    etm_diag_clear(&d);
    unsigned v = 0;
    if (etm_config_version(&cfg, &v, nullptr) == ETM_OK && ETM_V_MAJOR(v) == 3) {
        if (etm_v3dec_create(&dec_, &cfg, ETM_V3DEC_V7M, &d) != ETM_OK)
            throw std::runtime_error(std::string(name()) + ": decoder: " + diag_text(d));
        etm_v3dec_on_packet(dec_, on_packet, this);
    }
    if (!path.empty()) {
        file_ = std::fopen(path.c_str(), "wb");
        if (!file_)
            throw std::runtime_error(path + ": cannot write the trace file");
    }
}

EtmSink::~EtmSink()
{
    if (file_)
        std::fclose(file_);
    if (dec_)
        etm_v3dec_destroy(dec_);
}

void EtmSink::on_packet(void *user, const etm_v3pkt_t *p)
{
    EtmSink *s = static_cast<EtmSink *>(user);
    s->packets_++;
    if (p->kind == ETM_V3PKT_PHDR)
        for (const char *a = p->atoms; *a; a++)
            s->atoms_ += *a == 'E' || *a == 'N';
}

void EtmSink::put(const uint8_t *b, unsigned n)
{
    bytes_ += n;
    if (file_ && std::fwrite(b, 1, n, file_) != n && err_.empty())
        err_ = "cannot write the trace file";
    if (dec_ && err_.empty()) {
        etm_diag_t d;
        etm_diag_clear(&d);
        if (etm_v3dec_feed(dec_, b, n, nullptr, &d) != ETM_OK)
            err_ = "decoder: " + diag_text(d);
    }
}

void EtmSink::finish()
{
    if (dec_ && err_.empty()) {
        etm_diag_t d;
        etm_diag_clear(&d);
        if (etm_v3dec_end(dec_, &d) != ETM_OK)
            err_ = "decoder: " + diag_text(d);
    }
    if (file_) {
        std::fclose(file_);
        file_ = nullptr;
    }
}

// ---- EtmCompare ------------------------------------------------------------------------------

EtmCompare::EtmCompare(sc_module_name n, const std::string &a_name, const std::string &b_name)
    : sc_module(n), clk("clk"), a("a", PIN_OUT_COUNT), b("b", PIN_OUT_COUNT), in("in", etm_in_signal_count),
      a_name_(a_name), b_name_(b_name)
{
    SC_METHOD(fall);
    sensitive << clk.neg();
    dont_initialize();
}

void EtmCompare::fall()
{
    if (mismatch_ || !a[PIN_VALID].read())
        return;
    cycle_++;
    std::string diff;
    for (unsigned i = 0; i < PIN_VALID; i++) {
        uint64_t va = a[i].read(), vb = b[i].read();
        if (va != vb) {
            char line[160];
            std::snprintf(line, sizeof line, "  %-12s %s %-10" PRIx64 " %s %" PRIx64 "\n", out_pin_name(i),
                          a_name_.c_str(), va, b_name_.c_str(), vb);
            diff += line;
        }
    }
    if (diff.empty()) {
        compared_++;
        return;
    }
    mismatch_ = true;
    std::printf("%s: mismatch in compared cycle %" PRIu64 " (at %s):\n%s  inputs of that cycle:", name(), cycle_ - 1,
                sc_time_stamp().to_string().c_str(), diff.c_str());
    // The source drives the next cycle at this same falling edge; its values
    // take effect after this process: the pins still hold this cycle's inputs.
    for (size_t i = 0; i < in.size(); i++)
        if (in[i].read())
            std::printf(" %s=%" PRIx64, etm_in_signals[i].name, in[i].read());
    std::printf("\n");
    sc_stop();
}

// ---- EtmVerify ----------------------------------------------------------------------------------

EtmVerify::EtmVerify(sc_module_name n, const etm_config_t &cfg, bool timed, bool at_reset)
    : sc_module(n), clk("clk"), end("end"), in("in", etm_in_signal_count), out("out", PIN_OUT_COUNT), bytes("bytes"),
      next("next"), timed_(timed)
{
    bytes.bind(*this);
    etm_verify_opts_t o;
    std::memset(&o, 0, sizeof o);
    o.at_reset = at_reset;
    etm_diag_t d;
    etm_diag_clear(&d);
    if (etm_verify_create(&v_, &cfg, &o, &d) != ETM_OK)
        throw std::runtime_error(std::string(name()) + ": " + diag_text(d));
    v1_ = etm_verify_is_v1(v_) != 0;
    SC_METHOD(fall);
    sensitive << clk.neg();
    dont_initialize();
}

EtmVerify::~EtmVerify() { etm_verify_destroy(v_); }

void EtmVerify::fall()
{
    if (end.read())
        ended_ = true; /* etm_end's edge: no cycle of the core, no port cycle */
    if (!out[PIN_VALID].read())
        return;
    if (!ended_) {
        etm_in_t x;
        std::memset(&x, 0, sizeof x);
        for (size_t i = 0; i < in.size(); i++)
            set_in_pin(x, (unsigned)i, in[i].read());
        etm_verify_cycle(v_, &x);
    }
    if (v1_) {
        uint64_t pins[PIN_OUT_COUNT];
        for (unsigned i = 0; i < PIN_OUT_COUNT; i++)
            pins[i] = out[i].read();
        etm_out_t o;
        pins_to_out(pins, o);
        etm_verify_port(v_, &o);
    }
}

void EtmVerify::put(const uint8_t *b, unsigned n)
{
    etm_verify_bytes(v_, b, n, timed_);
    if (next.size())
        next->put(b, n);
}

std::string EtmVerify::describe() const
{
    char what[600];
    return etm_verify_describe(v_, what, sizeof what);
}

const etm_verify_result_t &EtmVerify::finish(bool untraced_overflow)
{
    if (!finished_)
        etm_verify_end(v_, untraced_overflow);
    finished_ = true;
    return *etm_verify_result(v_);
}

// ---- StopWhen -----------------------------------------------------------------------------------

StopWhen::StopWhen(sc_module_name n, std::function<bool()> done) : sc_module(n), clk("clk"), done_(std::move(done))
{
    SC_METHOD(fall);
    sensitive << clk.neg();
    dont_initialize();
}

void StopWhen::fall()
{
    if (done_())
        sc_stop();
}

void quiet_kernel()
{
    sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", SC_DO_NOTHING);
    sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING); // "Simulation stopped by user.", trace file notes
}

// ---- Command line ------------------------------------------------------------------------------

Options::Options()
{
    etm_config_default(&cfg);
    etm_gen_params_default(&gen);
    etm_cm3_params_default(&params);
}

const char *common_usage()
{
    return "  source (one):   --records FILE (etm-qemu record output, timed by the Cortex-M3 model)\n"
           "                  --vectors FILE | --vcd FILE (replayed: cannot hold the core)\n"
           "                  --gen SEED (random stimulus; --issue-width 2 for dual issue)\n"
           "  --cycles N      generator: cycles (default 100000); others: stop after N cycles\n"
           "  --param NAME=N  a Cortex-M3 timing parameter (etm-qemu params)\n"
           "  --preset NAME | --config FILE | --set REG=0xV   the ETM's configuration\n"
           "  --waves FILE    VCD of the clocks and pins (sc_trace)\n"
           "  --quiet\n";
}

int parse_option(Options &o, int argc, char **argv, int &i)
{
    std::string a = argv[i];
    if (a == "--quiet") {
        o.quiet = true;
        return 1;
    }
    static const char *const with_value[] = { "--records", "--vectors", "--vcd", "--gen", "--cycles", "--param",
                                              "--preset", "--config", "--set", "--waves", "--issue-width", nullptr };
    bool known = false;
    for (int k = 0; with_value[k]; k++)
        known |= a == with_value[k];
    if (!known)
        return 0;
    if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        return -1;
    }
    std::string v = argv[++i];
    etm_diag_t d;
    etm_diag_clear(&d);
    if (a == "--records")
        o.records = v;
    else if (a == "--vectors")
        o.vectors = v;
    else if (a == "--vcd")
        o.vcd = v;
    else if (a == "--waves")
        o.waves = v;
    else if (a == "--gen" || a == "--cycles" || a == "--issue-width") {
        uint64_t n = 0;
        if (etm_number_parse(v.c_str(), a == "--issue-width" ? 1 : 0, a == "--issue-width" ? 2 : UINT64_MAX, &n,
                             &d) != ETM_OK) {
            std::fprintf(stderr, "%s %s\n", a.c_str(), d.msg);
            return -1;
        }
        if (a == "--gen")
            o.gen.seed = n;
        else if (a == "--cycles")
            o.cycles = n;
        else
            o.cfg.issue_width = o.gen.issue_width = (unsigned)n;
    } else if (a == "--param") {
        size_t eq = v.find('=');
        unsigned n = 0;
        if (eq == std::string::npos ||
            etm_number_parse_u32(v.c_str() + eq + 1, 0, UINT32_MAX, &n, &d) != ETM_OK ||
            etm_cm3_param_set(&o.params, v.substr(0, eq).c_str(), n, &d) != ETM_OK) {
            std::fprintf(stderr, "--param %s: %s\n", v.c_str(), d.msg[0] ? d.msg : "wants NAME=N");
            return -1;
        }
    } else if (a == "--preset") {
        if (etm_config_preset(&o.cfg, v.c_str()) != ETM_OK) {
            std::fprintf(stderr, "--preset: unknown preset '%s'\n", v.c_str());
            return -1;
        }
        o.cfg_given = true;
    } else if (a == "--config") {
        if (etm_config_read_file(&o.cfg, v.c_str(), &d) != ETM_OK) {
            std::fprintf(stderr, "%s\n", diag_text(d).c_str());
            return -1;
        }
        o.cfg_given = true;
    } else if (a == "--set") {
        if (etm_config_parse_line(&o.cfg, v.c_str(), nullptr, nullptr, &d) != ETM_OK) {
            std::fprintf(stderr, "--set %s: %s\n", v.c_str(), d.msg);
            return -1;
        }
        o.cfg_given = true;
    }
    return 1;
}

// An FST is traced as VCD (SystemC writes no FST) next to it, then converted
// when the trace closes (etm_vcd_to_fst): the trace file and the FST's name.
static std::pair<sc_trace_file *, std::string> &fst_pending()
{
    static std::pair<sc_trace_file *, std::string> p(nullptr, "");
    return p;
}

sc_trace_file *open_waves(const std::string &path, const sc_clock &clk, const sc_signal<bool> &rst_n)
{
    if (path.empty())
        return nullptr;
    std::string base = path;
    bool fst = etm_is_fst_path(path.c_str()) != 0;
    if (fst)
        base += ".tmp"; // SystemC adds .vcd
    else if (base.size() > 4 && base.compare(base.size() - 4, 4, ".vcd") == 0)
        base.resize(base.size() - 4);
    sc_trace_file *tf = sc_create_vcd_trace_file(base.c_str());
    if (fst)
        fst_pending() = std::make_pair(tf, path);
    tf->set_time_unit(100, SC_PS);
    sc_trace(tf, clk, "clk");
    sc_trace(tf, rst_n, "rst_n");
    return tf;
}

void run_from_reset(sc_signal<bool> &rst_n, sc_trace_file *tf)
{
    rst_n.write(false); // the first rising edge (10 ns) is reset
    sc_start(12, SC_NS);
    rst_n.write(true);
    sc_start();
    if (!tf)
        return;
    sc_close_vcd_trace_file(tf);
    if (fst_pending().first != tf)
        return;
    std::string fst = fst_pending().second, vcd = fst + ".tmp.vcd";
    fst_pending() = std::make_pair(nullptr, std::string());
    FILE *f = std::fopen(vcd.c_str(), "r");
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_err_t e = f ? etm_vcd_to_fst(f, fst.c_str(), &d) : ETM_ERR_IO;
    if (f)
        std::fclose(f);
    std::remove(vcd.c_str());
    if (e != ETM_OK)
        throw std::runtime_error(fst + ": " + (f ? d.msg : "the VCD traced for it cannot be read"));
}

etm_stim_t *open_source(const Options &o)
{
    etm_stim_t *s = nullptr;
    etm_diag_t d;
    etm_diag_clear(&d);
    etm_err_t e;
    int n = !o.records.empty() + !o.vectors.empty() + !o.vcd.empty();
    if (n > 1)
        throw std::runtime_error("give one source: --records, --vectors, --vcd or --gen");
    if (!o.records.empty())
        e = etm_stim_open_records(&s, o.records.c_str(), &o.params, &d);
    else if (!o.vectors.empty())
        e = etm_stim_open_vectors(&s, o.vectors.c_str(), &d);
    else if (!o.vcd.empty())
        e = etm_stim_open_vcd(&s, o.vcd.c_str(), nullptr, &d);
    else
        e = etm_stim_open_gen(&s, &o.gen, o.cycles ? o.cycles : 100000, &d);
    if (e != ETM_OK)
        throw std::runtime_error(diag_text(d));
    return s;
}

etm_config_t effective_config(const Options &o)
{
    if (!o.cfg_given && !o.vectors.empty()) {
        etm_stim_t *s = open_source(o);
        etm_config_t c = *etm_stim_config(s);
        etm_stim_close(s);
        return c;
    }
    return o.cfg;
}

} // namespace etm_sc
