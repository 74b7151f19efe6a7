// tb_etm.sv - a worked example: the RTL twin (rtl/etm_core.sv: etm_top with its
// implementation on ports) under the scoreboard (tb/dpi/etm_scoreboard.sv) on
// real stimulus. The scoreboard is instantiated beside the design on the same
// nets; a bind into etm_core does the same job (docs/dpi.md).
//
// Register image: +etm_preset=NAME or +etm_config=FILE, then +etm_set=NAME=0xV,...
// (the scoreboard reads the same plusargs, and checks the implementation ports).
// After reset the testbench programs the design through its APB with the
// architecture's sequence for the image (etm_dpi_program: unlock, programming
// bit, wait for ETMSR[1], the registers, ETMCR), the core idle; the scoreboard
// steps those cycles too.
// Stimulus: +stim_vectors=FILE (a vector file, e.g. a golden vector's
// stimulus.vec, with +etm_config= the same file), +stim_vcd=FILE,
// +stim_records=FILE (executed instructions through the Cortex-M3 timing
// model), or the generator of a random Cortex-M3 program: +stim_seed=N
// +stim_cycles=N +stim_irq=N +stim_data +stim_triggers, with the trace sink's
// back-pressure +stim_atb_stall=P (percent of cycles ATREADY is low)
// +stim_atb_burst=N (mean burst length). The generator and the
// timing model hold the core while the design asserts FIFOFULL.
// After the stimulus ETMSR is read (its bit 0 tells a semantic scoreboard
// about an overflow never signalled), the trace is ended and drained, and the
// scoreboard's final_check() decides: exit status 0 when every cycle matched
// (exact) or the trace said what the core did (+etm_mode=semantic).
// +tb_set=NAME=0xV,... gives the design (not the scoreboard) another image,
// to see the configuration check fail on an implementation register; +tb_reset_at=N resets the design for two
// cycles before stimulus record N, and the run goes on.
`include "etm_dpi_defs.svh"
`include "etm_ports.svh"

module tb_etm;
  import etm_dpi_pkg::*;

  logic clk_i, rst_ni, end_i;
  // etm_core's ports as variables (etm_dpi_defs.svh, etm_ports.svh: etm/signals.def, etm/regs.def).
  `ETM_TB_IN_VARS
  `ETM_IMPL_VARS
  `ETM_TB_OUT_VARS
  logic [etm_defs_pkg::NumRules-1:0] VIOLATIONS;

  etm_core #(.MaxFifoDepth(256)) dut (.*);

  // Every port by name.
  etm_scoreboard #(.RuleBits(etm_defs_pkg::NumRules)) u_sb (.*);

  initial begin
    clk_i = 1'b0;
    forever #5 clk_i = ~clk_i;
  end

  // ---- Implementation ports: the register image ------------------------------------------
  function automatic void tie_implementation(input chandle img);
    `ETM_TB_PROGRAM(img)
  endfunction

  // ---- The debug APB: one transfer (setup, then access) per operation -------------------------
  task automatic apb_program(input chandle img);
    int n, kind, dbg;
    int unsigned offset, value, mask, polls, rd;
    n = etm_dpi_program(img);
    if (n < 0) $fatal(1, "%s", etm_dpi_error(img));
    for (int i = 0; i < n; i++) begin
      if (etm_dpi_program_op(img, i, kind, offset, value, mask, dbg) != 0) $fatal(1, "%s", etm_dpi_error(img));
      if (kind == 3) begin  // an idle cycle: the trace stages restart in it
        @(negedge clk_i);
        continue;
      end
      polls = 0;
      forever begin
        PSEL = 1'b1;
        PENABLE = 1'b0;
        PWRITE = kind == 0;
        PADDR = offset[11:2];
        PWDATA = kind == 0 ? value : 32'd0;
        PADDRDBG31 = dbg[0];
        @(negedge clk_i);
        PENABLE = 1'b1;
        #1;
        rd = PRDATA;  // the access phase's read data, before the edge that ends it
        @(negedge clk_i);
        if (kind != 2 || (rd & mask) == value) break;
        polls++;
        if (polls > 10000) $fatal(1, "tb_etm: the poll of 0x%03X never read 0x%08X", offset, value);
      end
      PSEL = 1'b0;
      PENABLE = 1'b0;
      PWRITE = 1'b0;
    end
  endtask

  // One read over the debug APB (the debugger's view), after the trace.
  task automatic apb_read(input logic [11:0] offset, output int unsigned data);
    PSEL = 1'b1;
    PENABLE = 1'b0;
    PWRITE = 1'b0;
    PADDR = offset[11:2];
    PWDATA = 32'd0;
    PADDRDBG31 = 1'b1;
    @(negedge clk_i);
    PENABLE = 1'b1;
    #1;
    data = PRDATA;
    @(negedge clk_i);
    PSEL = 1'b0;
    PENABLE = 1'b0;
  endtask

  // ---- Inputs: one stimulus record, or idle ------------------------------------------------
  // FIFOFULL of the cycle that ended at the last rising edge: the core holds.
  logic hold_q;
  always @(posedge clk_i) hold_q <= FIFOFULL;

  function automatic int drive(input chandle stim);
    `ETM_TB_STIM_LOCALS
    int rc;
    rc = etm_dpi_stim_next(stim, 32'(hold_q), `ETM_TB_STIM_REFS);
    `ETM_TB_STIM_DRIVE
    return rc;
  endfunction

  initial begin
    chandle img, stim, idle;
    string err, path;
    longint unsigned seed, cycles;
    int unsigned irq, guard, reset_at, n, atb_stall, atb_burst, sr;
    int rc;

    img = open_image("tb_etm", "etm_", "", "", plusarg("tb_", "set", ""), err);
    if (img == null) $fatal(1, "%s", err);
    tie_implementation(img);

    stim = etm_dpi_stim_new();
    if ($value$plusargs("stim_vectors=%s", path)) begin
      rc = etm_dpi_stim_vectors(stim, path);
    end else if ($value$plusargs("stim_vcd=%s", path)) begin
      rc = etm_dpi_stim_vcd(stim, path);
    end else if ($value$plusargs("stim_records=%s", path)) begin
      rc = etm_dpi_stim_records(stim, path);
    end else begin
      seed = 1;
      cycles = 20000;
      irq = 300;
      void'($value$plusargs("stim_seed=%d", seed));
      void'($value$plusargs("stim_cycles=%d", cycles));
      void'($value$plusargs("stim_irq=%d", irq));
      atb_stall = 0;
      atb_burst = 1;
      void'($value$plusargs("stim_atb_stall=%d", atb_stall));
      void'($value$plusargs("stim_atb_burst=%d", atb_burst));
      if (etm_dpi_stim_atb(stim, atb_stall, atb_burst) != 0) $fatal(1, "%s", etm_dpi_stim_error(stim));
      rc = etm_dpi_stim_generate(stim, seed, cycles, reg_value(img, "ISSUE_WIDTH"),
                                 $test$plusargs("stim_data") ? 1 : 0, $test$plusargs("stim_triggers") ? 1 : 0,
                                 irq);
    end
    if (rc != 0) $fatal(1, "%s", etm_dpi_stim_error(stim));

    // Reset with idle inputs (a source with nothing opened gives zeros); then one
    // record per cycle, driven after the falling edge so that the rising edge
    // samples settled values.
    idle = etm_dpi_stim_new();
    void'(drive(idle));
    rst_ni = 1'b0;
    end_i = 1'b0;
    repeat (3) @(negedge clk_i);
    rst_ni = 1'b1;
    apb_program(img);
    reset_at = 0;
    void'($value$plusargs("tb_reset_at=%d", reset_at));
    for (n = 0; ; n++) begin
      if (reset_at != 0 && n == reset_at) begin
        rst_ni = 1'b0;
        repeat (2) @(negedge clk_i);
        rst_ni = 1'b1;
        void'(drive(idle));
        apb_program(img);
      end
      rc = drive(stim);
      if (rc < 0) $fatal(1, "%s", etm_dpi_stim_error(stim));
      if (rc == 0) break;
      @(negedge clk_i);
    end
    // ETMSR[0] before the end (after it only the port runs): an overflow whose
    // restart never came, which a semantic scoreboard needs to know.
    void'(drive(idle));
    apb_read(12'h010, sr);
    if (sr[0]) $display("tb_etm: ETMSR[0] is set: the last overflow's restart never came");
    // End of trace (inputs idle), then drain until the scoreboard's model has
    // nothing left.
    end_i = 1'b1;
    @(negedge clk_i);
    end_i = 1'b0;
    guard = 0;
    while (!u_sb.drained) begin
      @(negedge clk_i);
      guard++;
      if (guard > 100000) $fatal(1, "tb_etm: the trace did not drain in 100000 cycles");
    end
    u_sb.untraced_overflow(sr[0]);
    etm_dpi_stim_free(idle);
    etm_dpi_stim_free(stim);
    etm_dpi_free(img);
    u_sb.final_check();
    $finish;
  end

endmodule
