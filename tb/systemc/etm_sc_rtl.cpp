// etm_sc_rtl.cpp - EtmRtl: the Verilated RTL twin behind EtmModel's pins.
#include "etm_sc_rtl.h"

#include <cctype>
#include <stdexcept>

#include "Vetm_core.h"

namespace etm_sc {

using namespace sc_core;

// A Verilated port and the signal of its own type bound to it.
class RtlPin {
public:
    virtual ~RtlPin() = default;
    virtual void set(uint64_t) {}
    virtual void set_words(const uint32_t *, unsigned) {}
    virtual uint64_t get() const { return 0; }
};

namespace {

template <typename T>
class ScalarPin : public RtlPin {
public:
    explicit ScalarPin(const std::string &port) : sig(("sig_" + port).c_str()) {}
    void set(uint64_t v) override { sig.write((T)v); }
    uint64_t get() const override { return (uint64_t)sig.read(); }
    sc_signal<T> sig;
};

template <int W>
class WidePin : public RtlPin {
public:
    explicit WidePin(const std::string &port) : sig(("sig_" + port).c_str()) {}
    void set_words(const uint32_t *w, unsigned n) override
    {
        static_assert(W % 32 == 0, "wide configuration ports are whole registers");
        sc_dt::sc_bv<W> v;
        for (int i = 0; i < W / 32 && i < (int)n; i++)
            v.set_word(i, w[i]);
        sig.write(v);
    }
    sc_signal<sc_dt::sc_bv<W>> sig;
};

// Bind the port `o` if it is a Port, with a new Pin.
template <typename Port, typename Pin>
bool try_bind(sc_object *o, std::unique_ptr<RtlPin> *made)
{
    Port *p = dynamic_cast<Port *>(o);
    if (!p)
        return false;
    Pin *pin = new Pin(o->basename());
    p->bind(pin->sig);
    made->reset(pin);
    return true;
}

std::string lower(const char *s)
{
    std::string r;
    for (; *s; s++)
        r += (char)std::tolower((unsigned char)*s);
    return r;
}

// The RTL's output port behind each output pin ("" : none).
const char *rtl_out_port(unsigned pin) { return pin == PIN_VALID ? "" : out_pin_name(pin); }

} // namespace

EtmRtl::EtmRtl(sc_module_name n, const etm_config_t &cfg)
    : sc_module(n), clk("clk"), rst_n("rst_n"), end("end"), in("in", etm_in_signal_count),
      out("out", PIN_OUT_COUNT), top_(new Vetm_core("rtl")), cfg_(cfg)
{
#ifdef ETM_SC_MAX_FIFO
    if (cfg.fifo_depth > ETM_SC_MAX_FIFO)
        throw std::runtime_error(std::string(name()) + ": FIFO_DEPTH " + std::to_string(cfg.fifo_depth) +
                                 " is more than the Verilated RTL's MaxFifoDepth " + std::to_string(ETM_SC_MAX_FIFO));
#endif
    top_->clk_i(clk);
    top_->rst_ni(rst_n);
    top_->end_i(end);
    for (sc_object *o : top_->get_child_objects()) {
        if (!dynamic_cast<sc_port_base *>(o))
            continue;
        std::string port = o->basename();
        if (port == "clk_i" || port == "rst_ni" || port == "end_i")
            continue;
        std::unique_ptr<RtlPin> made;
        if (try_bind<sc_in<bool>, ScalarPin<bool>>(o, &made) || try_bind<sc_in<uint32_t>, ScalarPin<uint32_t>>(o, &made) ||
            try_bind<sc_in<uint64_t>, ScalarPin<uint64_t>>(o, &made) ||
            try_bind<sc_out<bool>, ScalarPin<bool>>(o, &made) ||
            try_bind<sc_out<uint32_t>, ScalarPin<uint32_t>>(o, &made) ||
            try_bind<sc_out<uint64_t>, ScalarPin<uint64_t>>(o, &made) ||
            try_bind<sc_in<sc_dt::sc_bv<512>>, WidePin<512>>(o, &made) ||
            try_bind<sc_in<sc_dt::sc_bv<128>>, WidePin<128>>(o, &made))
            pins_[port] = std::move(made);
        else
            throw std::runtime_error(std::string(name()) + ": the RTL's port " + port +
                                     " has a type the SystemC adapter does not handle");
    }
    // Every input pin, every output pin, every implementation port; and nothing
    // else.
    std::map<std::string, bool> used;
    for (size_t i = 0; i < etm_in_signal_count; i++) {
        in_pins_.push_back(find(etm_in_signals[i].name));
        used[etm_in_signals[i].name] = true;
    }
    for (unsigned i = 0; i < PIN_OUT_COUNT; i++) {
        std::string port = rtl_out_port(i);
        out_pins_.push_back(port.empty() ? nullptr : find(port));
        used[port] = true;
    }
    used["VIOLATIONS"] = true; // the checker's rule bits: the C model keeps its own count
    for (size_t r = 0; r < etm_register_count; r++) {
        if (!etm_register_is_impl(&etm_registers[r]))
            continue;
        std::string port = "impl_" + lower(etm_registers[r].name) + "_i";
        find(port);
        used[port] = true;
    }
    for (const auto &kv : pins_)
        if (!used.count(kv.first))
            throw std::runtime_error(std::string(name()) + ": the RTL's port " + kv.first +
                                     " is not known to the SystemC adapter");

    SC_METHOD(drive_config);
    SC_METHOD(drive_inputs);
    for (size_t i = 0; i < in.size(); i++)
        sensitive << in[i];
    sensitive << reinject_;
    SC_METHOD(rise);
    sensitive << clk.pos();
    dont_initialize();
}

EtmRtl::~EtmRtl() = default;

RtlPin *EtmRtl::find(const std::string &port)
{
    auto it = pins_.find(port);
    if (it == pins_.end())
        throw std::runtime_error(std::string(name()) + ": the RTL has no port " + port);
    return it->second.get();
}

void EtmRtl::drive_config()
{
    for (size_t r = 0; r < etm_register_count; r++) {
        const etm_regdesc_t *d = &etm_registers[r];
        if (etm_register_is_impl(d))
            pins_["impl_" + lower(d->name) + "_i"]->set(etm_register_get(&cfg_, d, 0));
    }
}

void EtmRtl::drive_inputs()
{
    for (size_t i = 0; i < in.size(); i++) {
        uint64_t v = in[i].read();
        if (cycle_ == inject_ && !ended_) {
            if (i == (size_t)etm_signal_find(etm_in_signals, etm_in_signal_count, "ETMIVALID"))
                v ^= 1;
            if (i == (size_t)etm_signal_find(etm_in_signals, etm_in_signal_count, "ETMIA"))
                v ^= 0x80; /* ETMIA[8] */
        }
        in_pins_[i]->set(v);
    }
}

void EtmRtl::rise()
{
    // The Verilated outputs still hold the cycle this edge ends.
    bool valid = rst_n.read() && !end.read() && !ended_;
    bool draining = rst_n.read() && ended_;
    for (unsigned i = 0; i < PIN_OUT_COUNT; i++)
        out[i].write(i == PIN_VALID ? (valid || draining) : out_pins_[i] ? out_pins_[i]->get() : 0);
    if (!rst_n.read()) {
        ended_ = false;
        cycle_ = 0;
        return;
    }
    if (end.read())
        ended_ = true;
    if (valid)
        cycle_++;
    if (cycle_ == inject_ || cycle_ == inject_ + 1)
        reinject_.notify(SC_ZERO_TIME); // the corrupted cycle starts (or ends) with this edge
}

} // namespace etm_sc
