// etm_scoreboard.sv - checks an ETM against the C model, every clock edge.
//
// Attach it to the ETM's ports, by bind or by instantiation; its ports carry the
// names of rtl/etm_top.sv's, so a bind can connect them with .*:
//
//   bind etm_top etm_scoreboard #(.RuleBits(etm_pkg::NumRules)) u_sb (.*);
//
// At every rising edge of clk_i it takes the values of the inputs and of the
// design's outputs just before the edge, steps the model with the inputs and
// compares its outputs with the design's: both are the outputs of the cycle the
// edge ends (docs/dpi.md, "The comparison contract"). rst_ni low (or falling)
// resets the model; nothing is compared before the first reset. The edge with
// end_i = 1 is the end of trace; the edges after it drain the FIFO, compared
// until the model has nothing left (then `drained` is 1). Tie end_i to 0 for a
// design that has no end of trace.
//
// Every mismatching cycle is printed with its number and each differing output
// (expected against got). final_check() prints the summary and calls $fatal if
// anything failed, or if nothing was compared; call it before $finish. Without
// it the summary comes from a final block, with $error on failure. With
// StopAfter = N the N-th failure calls final_check() at once.
//
// Parameters, each overridden by a plusarg +<Plusargs>NAME=VALUE (Plusargs is
// "etm_" unless set): the register image (Preset or ConfigFile, then
// Settings; plusargs preset, config, set), Ignore (ignore: output fields not
// compared), StopAfter (stop_after). The register image must be the one the
// design is programmed with: with CheckConfig the scoreboard compares the
// cfg_*_i ports with it at the first edge after each reset.
module etm_scoreboard #(
  parameter string       Preset      = "",
  parameter string       ConfigFile  = "",
  parameter string       Settings    = "",
  parameter string       Plusargs    = "etm_",
  parameter string       Ignore      = "",
  parameter int unsigned RuleBits    = 32,    // width of the design's VIOLATIONS
  parameter bit          CheckConfig = 1'b1,
  parameter int unsigned StopAfter   = 0
) (
  input logic                clk_i,
  input logic                rst_ni,
  input logic                end_i,
  // ---- The design's inputs ------------------------------------------------------------------
  input logic                ETMIVALID,
  input logic                ETMIBRANCH,
  input logic                ETMIINDBR,
  input logic                ETMICCFAIL,
  input logic                ETMFOLD,
  input logic [31:1]         ETMIA,
  input logic                ETMDVALID,
  input logic                ETMFLUSH,
  input logic                ETMFINDBR,
  input logic                ETMCANCEL,
  input logic                ETMISTALL,
  input logic [2:0]          ETMINTSTAT,
  input logic [8:0]          ETMINTNUM,
  input logic [3:0]          ETMTRIGGER,
  input logic [3:0]          ETMTRIGINOTD,
  input logic                ETMIVALID1,
  input logic                ETMIBRANCH1,
  input logic                ETMIINDBR1,
  input logic                ETMICCFAIL1,
  input logic [31:1]         ETMIA1,
  input logic [17:0]         ETMDACTL,
  input logic [31:0]         ETMDA,
  input logic [3:0]          ETMDDCTL,
  input logic [63:0]         ETMDD,
  // ---- The design's configuration (checked when CheckConfig) -------------------------------
  input logic [31:0]         cfg_etmcr_i,
  input logic [31:0]         cfg_etmccr_i,
  input logic [31:0]         cfg_etmtrigger_i,
  input logic [31:0]         cfg_etmtsscr_i,
  input logic [31:0]         cfg_etmtecr2_i,
  input logic [31:0]         cfg_etmteevr_i,
  input logic [31:0]         cfg_etmtecr1_i,
  input logic [31:0]         cfg_etmfflr_i,
  input logic [31:0]         cfg_etmvdevr_i,
  input logic [31:0]         cfg_etmvdcr1_i,
  input logic [31:0]         cfg_etmvdcr3_i,
  input logic [511:0]        cfg_etmacvr_i,
  input logic [511:0]        cfg_etmactr_i,
  input logic [127:0]        cfg_etmcntrldvr_i,
  input logic [127:0]        cfg_etmcntenr_i,
  input logic [127:0]        cfg_etmcntrldevr_i,
  input logic [127:0]        cfg_etmcntvr_i,
  input logic [31:0]         cfg_etmsyncfr_i,
  input logic [31:0]         cfg_etmtesseicr_i,
  input logic [31:0]         cfg_etmidr_i,
  input logic [31:0]         cfg_etmccer_i,
  input logic [31:0]         cfg_etmtraceidr_i,
  input logic [31:0]         cfg_fifo_depth_i,
  input logic [31:0]         cfg_port_bytes_i,
  input logic [31:0]         cfg_issue_width_i,
  // ---- The design's outputs ------------------------------------------------------------------
  input logic [2:0]          PIPESTAT,
  input logic [15:0]         TRACEPKT,
  input logic                TRACESYNC,
  input logic [3:0]          V3COUNT,
  input logic [63:0]         V3DATA,
  input logic [15:0]         FIFOLEVEL,
  input logic                OVERFLOW,
  input logic                TRIGGER,
  input logic                FIFOFULL,
  input logic                TRACEENABLE,
  input logic                VIEWDATA,
  input logic [RuleBits-1:0] VIOLATIONS
);
  import etm_dpi_pkg::*;

  chandle h;
  bit started;     // the model exists
  bit seen_reset;  // a reset has been seen: the design's state is known
  bit in_reset;
  bit cfg_due;     // compare the configuration ports at the next edge
  bit ended;       // the end-of-trace edge has passed
  bit drained;     // ... and the model has nothing left to drain
  bit checked;     // final_check() has run
  int unsigned stop_after;

  // This instance's path, for the messages.
  function automatic string instance_path();
    string p = $sformatf("%m");  // ...u_sb.instance_path
    for (int i = p.len() - 1; i > 0; i--)
      if (p[i] == ".") return p.substr(0, i - 1);
    return p;
  endfunction

  initial begin
    string err;
    int unsigned stop;
    h = open_image(instance_path(), Plusargs, Preset, ConfigFile, Settings, err);
    if (h == null) $fatal(1, "%s", err);
    // One call per statement: a simulator may evaluate both sides of || .
    if (etm_dpi_ignore(h, plusarg(Plusargs, "ignore", Ignore)) != 0) $fatal(1, "%s", etm_dpi_error(h));
    if (etm_dpi_rule_bits(h, RuleBits) != 0) $fatal(1, "%s", etm_dpi_error(h));
    if (etm_dpi_start(h) != 0) $fatal(1, "%s", etm_dpi_error(h));
    started = 1'b1;
    stop = StopAfter;
    void'($value$plusargs({Plusargs, "stop_after=%d"}, stop));
    stop_after = stop;
  end

  // Which inputs hold X or Z: bit i for etm_dpi_step's argument i.
  function automatic int unsigned unknown_inputs();
    return 32'({$isunknown(ETMDD), $isunknown(ETMDDCTL), $isunknown(ETMDA), $isunknown(ETMDACTL),
                $isunknown(ETMIA1), $isunknown(ETMICCFAIL1), $isunknown(ETMIINDBR1),
                $isunknown(ETMIBRANCH1), $isunknown(ETMIVALID1), $isunknown(ETMTRIGINOTD),
                $isunknown(ETMTRIGGER), $isunknown(ETMINTNUM), $isunknown(ETMINTSTAT),
                $isunknown(ETMISTALL), $isunknown(ETMCANCEL), $isunknown(ETMFINDBR),
                $isunknown(ETMFLUSH), $isunknown(ETMDVALID), $isunknown(ETMIA), $isunknown(ETMFOLD),
                $isunknown(ETMICCFAIL), $isunknown(ETMIINDBR), $isunknown(ETMIBRANCH),
                $isunknown(ETMIVALID)});
  endfunction

  // Which outputs hold X or Z: bit etm_dpi_pkg::Field*.
  function automatic int unsigned unknown_outputs();
    int unsigned m = 0;
    m[FieldPipestat] = $isunknown(PIPESTAT);
    m[FieldTracepkt] = $isunknown(TRACEPKT);
    m[FieldTracesync] = $isunknown(TRACESYNC);
    m[FieldV3count] = $isunknown(V3COUNT);
    m[FieldV3data] = $isunknown(V3DATA);
    m[FieldFifolevel] = $isunknown(FIFOLEVEL);
    m[FieldOverflow] = $isunknown(OVERFLOW);
    m[FieldTrigger] = $isunknown(TRIGGER);
    m[FieldFifofull] = $isunknown(FIFOFULL);
    m[FieldTraceenable] = $isunknown(TRACEENABLE);
    m[FieldViewdata] = $isunknown(VIEWDATA);
    m[FieldViolations] = $isunknown(VIOLATIONS);
    return m;
  endfunction

  function automatic void show(input string text);
    $write("[%0t] %s", $time, text);
  endfunction

  function automatic void failed();
    show(etm_dpi_report(h));
    if (stop_after != 0 && etm_dpi_failures(h) >= 64'(stop_after)) final_check();
  endfunction

  function automatic void check_reg(input string name, input logic [31:0] value);
    if (etm_dpi_check_reg(h, name, value) != 0) failed();
  endfunction

  function automatic void check_config();
    check_reg("ETMCR", cfg_etmcr_i);
    check_reg("ETMCCR", cfg_etmccr_i);
    check_reg("ETMTRIGGER", cfg_etmtrigger_i);
    check_reg("ETMTSSCR", cfg_etmtsscr_i);
    check_reg("ETMTECR2", cfg_etmtecr2_i);
    check_reg("ETMTEEVR", cfg_etmteevr_i);
    check_reg("ETMTECR1", cfg_etmtecr1_i);
    check_reg("ETMFFLR", cfg_etmfflr_i);
    check_reg("ETMVDEVR", cfg_etmvdevr_i);
    check_reg("ETMVDCR1", cfg_etmvdcr1_i);
    check_reg("ETMVDCR3", cfg_etmvdcr3_i);
    for (int i = 0; i < 16; i++) begin
      check_reg($sformatf("ETMACVR%0d", i + 1), cfg_etmacvr_i[32*i +: 32]);
      check_reg($sformatf("ETMACTR%0d", i + 1), cfg_etmactr_i[32*i +: 32]);
    end
    for (int i = 0; i < 4; i++) begin
      check_reg($sformatf("ETMCNTRLDVR%0d", i + 1), cfg_etmcntrldvr_i[32*i +: 32]);
      check_reg($sformatf("ETMCNTENR%0d", i + 1), cfg_etmcntenr_i[32*i +: 32]);
      check_reg($sformatf("ETMCNTRLDEVR%0d", i + 1), cfg_etmcntrldevr_i[32*i +: 32]);
      check_reg($sformatf("ETMCNTVR%0d", i + 1), cfg_etmcntvr_i[32*i +: 32]);
    end
    check_reg("ETMSYNCFR", cfg_etmsyncfr_i);
    check_reg("ETMTESSEICR", cfg_etmtesseicr_i);
    check_reg("ETMIDR", cfg_etmidr_i);
    check_reg("ETMCCER", cfg_etmccer_i);
    check_reg("ETMTRACEIDR", cfg_etmtraceidr_i);
    check_reg("FIFO_DEPTH", cfg_fifo_depth_i);
    check_reg("PORT_BYTES", cfg_port_bytes_i);
    check_reg("ISSUE_WIDTH", cfg_issue_width_i);
  endfunction

  function automatic void step();
    int r;
    r = etm_dpi_step(h, 32'(ETMIVALID), 32'(ETMIBRANCH), 32'(ETMIINDBR), 32'(ETMICCFAIL), 32'(ETMFOLD),
                     32'(ETMIA), 32'(ETMDVALID), 32'(ETMFLUSH), 32'(ETMFINDBR), 32'(ETMCANCEL),
                     32'(ETMISTALL), 32'(ETMINTSTAT), 32'(ETMINTNUM), 32'(ETMTRIGGER), 32'(ETMTRIGINOTD),
                     32'(ETMIVALID1), 32'(ETMIBRANCH1), 32'(ETMIINDBR1), 32'(ETMICCFAIL1), 32'(ETMIA1),
                     32'(ETMDACTL), ETMDA, 32'(ETMDDCTL), ETMDD, unknown_inputs());
    if (r < 0) $fatal(1, "%s", etm_dpi_error(h));
    if ((r & NoteUnknown) != 0) failed();
    else if ((r & NoteRule) != 0) show(etm_dpi_report(h));  // the stimulus broke a rule: a note
  endfunction

  function automatic void compare();
    int n;
    n = etm_dpi_compare(h, 32'(PIPESTAT), 32'(TRACEPKT), 32'(TRACESYNC), 32'(V3COUNT), V3DATA, 32'(FIFOLEVEL),
                        32'(OVERFLOW), 32'(TRIGGER), 32'(FIFOFULL), 32'(TRACEENABLE), 32'(VIEWDATA),
                        32'(VIOLATIONS), unknown_outputs());
    if (n < 0) $fatal(1, "%s", etm_dpi_error(h));
    if (n > 0) failed();
  endfunction

  // One rising edge (or the assertion of the asynchronous reset).
  always @(posedge clk_i or negedge rst_ni) begin
    if (!started) begin
      // the image is not loaded yet (time 0)
    end else if (!rst_ni) begin
      if (!in_reset) begin
        if (etm_dpi_reset(h) != 0) $fatal(1, "%s", etm_dpi_error(h));
      end
      in_reset <= 1'b1;
      seen_reset <= 1'b1;
      cfg_due <= CheckConfig;
      ended <= 1'b0;
      drained <= 1'b0;
    end else if (seen_reset) begin
      in_reset <= 1'b0;
      cfg_due <= 1'b0;
      if (cfg_due) check_config();
      if (ended) begin
        if (etm_dpi_drain(h) == 1) compare();
        else drained <= 1'b1;  // nothing left: the trace is complete
      end else if (end_i) begin
        if (etm_dpi_end(h) != 0) $fatal(1, "%s", etm_dpi_error(h));
        ended <= 1'b1;
      end else begin
        step();
        compare();
      end
    end
  end

  // The summary; $fatal when anything failed or nothing was compared.
  function automatic void final_check();
    checked = 1'b1;
    $write("%s", etm_dpi_summary(h));
    if (etm_dpi_failures(h) != 0 || etm_dpi_compared(h) == 0)
      $fatal(1, "%s: the design and the C model disagree (%0d failures in %0d compared cycles)",
             instance_path(), etm_dpi_failures(h), etm_dpi_compared(h));
  endfunction

  final begin
    if (!checked && h != null) begin
      $write("%s", etm_dpi_summary(h));
      if (etm_dpi_failures(h) != 0 || etm_dpi_compared(h) == 0)
        $error("%s: the design and the C model disagree (final_check() was not called)", instance_path());
    end
    if (h != null) etm_dpi_free(h);
    h = null;
  end

endmodule
