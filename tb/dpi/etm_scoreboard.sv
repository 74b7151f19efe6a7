// etm_scoreboard.sv - checks an ETM against the C model, every clock edge.
//
// Attach it to the ETM's ports, by bind or by instantiation; its ports carry the
// names of rtl/etm_core.sv's (etm_top's, and the implementation etm_top ties from
// its parameters), so a bind can connect them with .*:
//
//   bind etm_core etm_scoreboard #(.RuleBits(etm_defs_pkg::NumRules)) u_sb (.*);
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
// compared), StopAfter (stop_after), Mode (mode): "exact" compares every
// output with the C model's; "semantic" (or "semantic:CYCLES", a latency
// bound) holds the bytes the design hands over (V3COUNT lanes of ATDATA) to
// what the core did, whatever legal packing and latency the design chose
// (docs/scoreboard.md): the mode for an ETM that is not this project's. The model starts from the architecture's
// reset values, as the design does, and sees the same debug APB cycles, so the
// design's programming needs no second copy here; the image gives the
// implementation, and with CheckConfig the scoreboard compares the impl_*_i
// ports with it at the first edge after each reset.
`include "etm_dpi_defs.svh"

module etm_scoreboard #(
  parameter string       Preset      = "",
  parameter string       ConfigFile  = "",
  parameter string       Settings    = "",
  parameter string       Plusargs    = "etm_",
  parameter string       Ignore      = "",
  parameter string       Mode        = "exact",
  parameter int unsigned RuleBits    = 64,    // width of the design's VIOLATIONS (at most 64)
  parameter bit          CheckConfig = 1'b1,
  parameter int unsigned StopAfter   = 0
) (
  input logic                clk_i,
  input logic                rst_ni,
  input logic                end_i,
  // The design's inputs, its implementation (checked when CheckConfig) and its
  // outputs: etm_core's ports (etm/signals.def, etm/regs.def; etm_dpi_defs.svh).
  `ETM_SB_IN_PORTS
  `ETM_SB_IMPL_PORTS
  `ETM_SB_OUT_PORTS
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
  string mode_s;   // "exact", "semantic" or "semantic:CYCLES"

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
    mode_s = plusarg(Plusargs, "mode", Mode);
    if (etm_dpi_mode(h, mode_s) != 0) $fatal(1, "%s", etm_dpi_error(h));
    if (etm_dpi_start(h) != 0) $fatal(1, "%s", etm_dpi_error(h));
    started = 1'b1;
    stop = StopAfter;
    void'($value$plusargs({Plusargs, "stop_after=%d"}, stop));
    stop_after = stop;
  end

  // Which inputs hold X or Z: bit i for etm_dpi_step's argument i.
  function automatic int unsigned unknown_inputs();
    return 32'(`ETM_SB_IN_UNKNOWN);
  endfunction

  // Which outputs hold X or Z: bit etm_dpi_pkg::Field*.
  function automatic int unsigned unknown_outputs();
    int unsigned m;
    m = 32'(`ETM_SB_OUT_UNKNOWN);
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
    `ETM_SB_CHECK_CONFIG
  endfunction

  function automatic void step();
    int r;
    r = etm_dpi_step(h, `ETM_SB_IN_VALUES, unknown_inputs());
    if (r < 0) $fatal(1, "%s", etm_dpi_error(h));
    if ((r & NoteUnknown) != 0) failed();
    else if ((r & NoteRule) != 0) show(etm_dpi_report(h));  // the stimulus broke a rule: a note
  endfunction

  function automatic void compare();
    int n;
    n = etm_dpi_compare(h, `ETM_SB_OUT_VALUES, 64'(VIOLATIONS), unknown_outputs());
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

  // Semantic mode: the design's ETMSR[0] after the drain (an overflow whose
  // restart never came: what followed the last instruction traced was lost).
  function automatic void untraced_overflow(input bit flag);
    void'(etm_dpi_untraced_overflow(h, 32'(flag)));
  endfunction

  // The summary; $fatal when anything failed or nothing was compared.
  function automatic void final_check();
    checked = 1'b1;
    $write("%s", etm_dpi_summary(h));
    if (etm_dpi_failures(h) != 0 || etm_dpi_compared(h) == 0)
      $fatal(1, "%s: %s (%0d failures in %0d compared cycles)", instance_path(),
             mode_s.substr(0, 7) == "semantic" ? "the design's trace does not say what the core did"
                                               : "the design and the C model disagree",
             etm_dpi_failures(h), etm_dpi_compared(h));
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
