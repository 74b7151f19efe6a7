/* tb_main.cpp - runs a Verilated SystemVerilog testbench that keeps its own time
 * (verilator --timing): the clock, the stimulus and the end come from the SV.
 * Exit status: 0 after $finish; 1 after $fatal, $error or $stop, or when the
 * testbench runs out of events without calling $finish.
 *
 * Verilator's own reaction to $fatal is abort() (exit status 134, maybe a core
 * file); this main replaces it (VL_USER_STOP, defined for verilated.cpp by
 * dpi/CMakeLists.txt) with a plain exit status 1, so that the testbench code
 * after the $fatal (a $finish) does not run.
 *
 * Including the generated DPI header next to etm_dpi.h checks at compile time
 * that dpi/etm_dpi_pkg.sv's imports and the C prototypes are the same.
 */
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "verilated.h"
#include "Vtb_etm.h"
#include "Vtb_etm__Dpi.h"
#include "etm_dpi.h"

/* $stop, $fatal, and $error: the message is already printed; end the run. */
void vl_stop(const char *filename, int linenum, const char *hier)
{
    (void)hier;
    VL_PRINTF("%%Error: %s:%d: the testbench stopped with an error\n", filename, linenum);
    Verilated::runFlushCallbacks();
    Verilated::runExitCallbacks();
    std::exit(1);
}

int main(int argc, char **argv)
{
    std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
    ctx->commandArgs(argc, argv);
    std::unique_ptr<Vtb_etm> top(new Vtb_etm(ctx.get(), ""));
    while (!ctx->gotFinish()) {
        top->eval();
        if (!top->eventsPending())
            break;
        ctx->time(top->nextTimeSlot());
    }
    top->final();
    if (!ctx->gotFinish()) {
        std::fprintf(stderr, "tb_main: the testbench stopped without $finish\n");
        return 1;
    }
    return 0;
}
