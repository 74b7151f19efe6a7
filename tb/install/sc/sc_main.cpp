// sc_main.cpp - the installed SystemC modules used from outside: a generated
// core drives an ETM-M3 (the C model) whose one-byte port feeds a sink that
// decodes the bytes. Exits 0 when the run ends, the sink decoded atoms and no
// error.
#include <cstdio>

#include "etm_sc.h"

using namespace sc_core;
using namespace etm_sc;

int sc_main(int, char **)
{
    quiet_kernel();
    etm_config_t cfg;
    etm_config_preset(&cfg, "etm-m3");
    etm_gen_params_t gp;
    etm_gen_params_default(&gp);
    etm_stim_t *stim = nullptr;
    etm_diag_t d;
    if (etm_stim_open_gen(&stim, &gp, 50000, &d) != ETM_OK) {
        std::fprintf(stderr, "consumer_sc: %s\n", d.msg);
        return 1;
    }
    sc_clock clk("clk", sc_time(10, SC_NS), 0.5, sc_time(10, SC_NS), true);
    sc_signal<bool> rst_n("rst_n"), end("end");
    EtmInBus core("core");
    EtmOutBus pins("pins");
    EtmSource src("source", stim);
    EtmModel etm("etm", cfg);
    EtmPortTap tap("tap");
    EtmSink sink("sink", cfg);
    src.clk(clk);
    src.rst_n(rst_n);
    src.fifofull(pins.pin[PIN_FIFOFULL]);
    src.pin.bind(core.pin);
    src.end(end);
    wire_etm(etm, clk, rst_n, end, core, pins);
    tap.clk(clk);
    tap.out.bind(pins.pin);
    tap.sink(sink.in);
    StopWhen stop("stop", [&] { return src.finished() && etm.finished(); });
    stop.clk(clk);
    run_from_reset(rst_n, nullptr);
    sink.finish();
    std::printf("consumer_sc: %llu bytes, %llu atoms decoded%s%s\n", (unsigned long long)sink.bytes(),
                (unsigned long long)sink.atoms(), sink.decode_error() ? "; decode error: " : "",
                sink.error().c_str());
    return sink.atoms() > 0 && !sink.decode_error() ? 0 : 1;
}
