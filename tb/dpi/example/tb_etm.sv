// tb_etm.sv - a worked example: the RTL twin (rtl/etm_top.sv) under the
// scoreboard (dpi/etm_scoreboard.sv) on real stimulus. The scoreboard is
// instantiated beside the design on the same nets; a bind into etm_top does the
// same job (docs/dpi.md).
//
// Register image: +etm_preset=NAME or +etm_config=FILE, then +etm_set=NAME=0xV,...
// (the scoreboard reads the same plusargs, and checks the configuration ports).
// Stimulus: +stim_vectors=FILE (a vector file, e.g. a golden vector's
// stimulus.vec, with +etm_config= the same file), +stim_vcd=FILE,
// +stim_records=FILE (executed instructions through the Cortex-M3 timing
// model), or the generator of a random Cortex-M3 program: +stim_seed=N
// +stim_cycles=N +stim_irq=N +stim_data +stim_triggers. The generator and the
// timing model hold the core while the design asserts FIFOFULL.
// After the stimulus the trace is ended and drained, and the
// scoreboard's final_check() decides: exit status 0 when every cycle matched.
// +tb_set=NAME=0xV,... programs the design (not the scoreboard) differently,
// to see the configuration check fail; +tb_reset_at=N resets the design for two
// cycles before stimulus record N, and the run goes on.
module tb_etm;
  import etm_dpi_pkg::*;

  logic clk_i, rst_ni, end_i;
  logic        ETMIVALID, ETMIBRANCH, ETMIINDBR, ETMICCFAIL, ETMFOLD, ETMDVALID, ETMFLUSH, ETMFINDBR;
  logic        ETMCANCEL, ETMISTALL, ETMIVALID1, ETMIBRANCH1, ETMIINDBR1, ETMICCFAIL1;
  logic [31:1] ETMIA, ETMIA1;
  logic [2:0]  ETMINTSTAT;
  logic [8:0]  ETMINTNUM;
  logic [3:0]  ETMTRIGGER, ETMTRIGINOTD, ETMDDCTL;
  logic [17:0] ETMDACTL;
  logic [31:0] ETMDA;
  logic [63:0] ETMDD;
  logic [31:0] cfg_etmcr_i, cfg_etmccr_i, cfg_etmtrigger_i, cfg_etmtsscr_i, cfg_etmtecr2_i, cfg_etmteevr_i;
  logic [31:0] cfg_etmtecr1_i, cfg_etmfflr_i, cfg_etmvdevr_i, cfg_etmvdcr1_i, cfg_etmvdcr3_i;
  logic [511:0] cfg_etmacvr_i, cfg_etmactr_i;
  logic [127:0] cfg_etmcntrldvr_i, cfg_etmcntenr_i, cfg_etmcntrldevr_i, cfg_etmcntvr_i;
  logic [31:0] cfg_etmsyncfr_i, cfg_etmtesseicr_i, cfg_etmidr_i, cfg_etmccer_i, cfg_etmtraceidr_i;
  logic [31:0] cfg_fifo_depth_i, cfg_port_bytes_i, cfg_issue_width_i;
  logic [2:0]  PIPESTAT;
  logic [15:0] TRACEPKT, FIFOLEVEL;
  logic        TRACESYNC, OVERFLOW, TRIGGER, FIFOFULL, TRACEENABLE, VIEWDATA;
  logic [3:0]  V3COUNT;
  logic [63:0] V3DATA;
  logic [etm_pkg::NumRules-1:0] VIOLATIONS;

  etm_top #(.MaxFifoDepth(256)) dut (.*);

  // Every port by name. (An RTL without a FIFOFULL output leaves that net
  // undriven, at 0, which is what the model expects while ETMCR[7] is 0.)
  etm_scoreboard #(.RuleBits(etm_pkg::NumRules)) u_sb (.*);

  initial begin
    clk_i = 1'b0;
    forever #5 clk_i = ~clk_i;
  end

  // ---- Configuration ports: the register image --------------------------------------------
  function automatic void program_design(input chandle img);
    cfg_etmcr_i = reg_value(img, "ETMCR");
    cfg_etmccr_i = reg_value(img, "ETMCCR");
    cfg_etmtrigger_i = reg_value(img, "ETMTRIGGER");
    cfg_etmtsscr_i = reg_value(img, "ETMTSSCR");
    cfg_etmtecr2_i = reg_value(img, "ETMTECR2");
    cfg_etmteevr_i = reg_value(img, "ETMTEEVR");
    cfg_etmtecr1_i = reg_value(img, "ETMTECR1");
    cfg_etmfflr_i = reg_value(img, "ETMFFLR");
    cfg_etmvdevr_i = reg_value(img, "ETMVDEVR");
    cfg_etmvdcr1_i = reg_value(img, "ETMVDCR1");
    cfg_etmvdcr3_i = reg_value(img, "ETMVDCR3");
    for (int i = 0; i < 16; i++) begin
      cfg_etmacvr_i[32*i +: 32] = reg_value(img, $sformatf("ETMACVR%0d", i + 1));
      cfg_etmactr_i[32*i +: 32] = reg_value(img, $sformatf("ETMACTR%0d", i + 1));
    end
    for (int i = 0; i < 4; i++) begin
      cfg_etmcntrldvr_i[32*i +: 32] = reg_value(img, $sformatf("ETMCNTRLDVR%0d", i + 1));
      cfg_etmcntenr_i[32*i +: 32] = reg_value(img, $sformatf("ETMCNTENR%0d", i + 1));
      cfg_etmcntrldevr_i[32*i +: 32] = reg_value(img, $sformatf("ETMCNTRLDEVR%0d", i + 1));
      cfg_etmcntvr_i[32*i +: 32] = reg_value(img, $sformatf("ETMCNTVR%0d", i + 1));
    end
    cfg_etmsyncfr_i = reg_value(img, "ETMSYNCFR");
    cfg_etmtesseicr_i = reg_value(img, "ETMTESSEICR");
    cfg_etmidr_i = reg_value(img, "ETMIDR");
    cfg_etmccer_i = reg_value(img, "ETMCCER");
    cfg_etmtraceidr_i = reg_value(img, "ETMTRACEIDR");
    cfg_fifo_depth_i = reg_value(img, "FIFO_DEPTH");
    cfg_port_bytes_i = reg_value(img, "PORT_BYTES");
    cfg_issue_width_i = reg_value(img, "ISSUE_WIDTH");
  endfunction

  // ---- Inputs: one stimulus record, or idle ------------------------------------------------
  // FIFOFULL of the cycle that ended at the last rising edge: the core holds.
  logic hold_q;
  always @(posedge clk_i) hold_q <= FIFOFULL;

  function automatic int drive(input chandle stim);
    int unsigned ivalid, ibranch, iindbr, iccfail, fold, ia, dvalid, flush, findbr, cancel, istall;
    int unsigned intstat, intnum, trigger, triginotd, ivalid1, ibranch1, iindbr1, iccfail1, ia1;
    int unsigned dactl, da, ddctl;
    longint unsigned dd;
    int rc;
    rc = etm_dpi_stim_next(stim, 32'(hold_q), ivalid, ibranch, iindbr, iccfail, fold, ia, dvalid, flush, findbr, cancel,
                           istall, intstat, intnum, trigger, triginotd, ivalid1, ibranch1, iindbr1, iccfail1,
                           ia1, dactl, da, ddctl, dd);
    ETMIVALID = ivalid[0];
    ETMIBRANCH = ibranch[0];
    ETMIINDBR = iindbr[0];
    ETMICCFAIL = iccfail[0];
    ETMFOLD = fold[0];
    ETMIA = ia[30:0];
    ETMDVALID = dvalid[0];
    ETMFLUSH = flush[0];
    ETMFINDBR = findbr[0];
    ETMCANCEL = cancel[0];
    ETMISTALL = istall[0];
    ETMINTSTAT = intstat[2:0];
    ETMINTNUM = intnum[8:0];
    ETMTRIGGER = trigger[3:0];
    ETMTRIGINOTD = triginotd[3:0];
    ETMIVALID1 = ivalid1[0];
    ETMIBRANCH1 = ibranch1[0];
    ETMIINDBR1 = iindbr1[0];
    ETMICCFAIL1 = iccfail1[0];
    ETMIA1 = ia1[30:0];
    ETMDACTL = dactl[17:0];
    ETMDA = da;
    ETMDDCTL = ddctl[3:0];
    ETMDD = dd;
    return rc;
  endfunction

  initial begin
    chandle img, stim, idle;
    string err, path;
    longint unsigned seed, cycles;
    int unsigned irq, guard, reset_at, n;
    int rc;

    img = open_image("tb_etm", "etm_", "", "", plusarg("tb_", "set", ""), err);
    if (img == null) $fatal(1, "%s", err);
    program_design(img);

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
    reset_at = 0;
    void'($value$plusargs("tb_reset_at=%d", reset_at));
    for (n = 0; ; n++) begin
      if (reset_at != 0 && n == reset_at) begin
        rst_ni = 1'b0;
        repeat (2) @(negedge clk_i);
        rst_ni = 1'b1;
      end
      rc = drive(stim);
      if (rc < 0) $fatal(1, "%s", etm_dpi_stim_error(stim));
      if (rc == 0) break;
      @(negedge clk_i);
    end
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
    etm_dpi_stim_free(idle);
    etm_dpi_stim_free(stim);
    etm_dpi_free(img);
    u_sb.final_check();
    $finish;
  end

endmodule
