// tb.sv - the installed DPI package used from a Verilator testbench outside
// the project: the C model made, given a preset and started through
// etm_dpi_pkg (libetm_dpi.so), ETMCR read back and checked against the
// preset's; passes when nothing failed.
`include "etm_dpi_defs.svh"

module tb;
  import etm_dpi_pkg::*;
  initial begin
    chandle h, s;
    int unsigned v;
    longint unsigned fails;
    h = etm_dpi_new("consumer");
    if (etm_dpi_preset(h, "etm-m3") != 0) $fatal(1, "preset: %s", etm_dpi_error(h));
    if (etm_dpi_start(h) != 0) $fatal(1, "start: %s", etm_dpi_error(h));
    if (etm_dpi_reg(h, "ETMCR", v) != 0) $fatal(1, "ETMCR: %s", etm_dpi_error(h));
    $display("consumer_dpi: ETMCR = 0x%08x", v);
    if (v != 32'h810) $fatal(1, "ETMCR 0x%08x, the etm-m3 preset's is 0x00000810", v);
    fails = etm_dpi_failures(h);
    if (fails != 0) $fatal(1, "failures: %0d", fails);
    etm_dpi_free(h);
    $display("consumer_dpi: ok");
    $finish;
  end
endmodule
