// etm_dpi_pkg.sv - the C model's scoreboard layer (dpi/etm_dpi.h) imported
// through DPI-C, and the helpers etm_scoreboard and testbenches share.
// docs/dpi.md is the guide.
//
// Every argument is a 2-state type (chandle, string, int, int unsigned,
// longint unsigned), so the C prototypes need no svdpi.h and behave the same
// in every simulator. A 4-state value passed to one reads X and Z as 0: the
// callers pass $isunknown masks alongside (etm_dpi_step, etm_dpi_compare).
`include "etm_dpi_defs.svh"

package etm_dpi_pkg;

  // ---- etm_dpi_step's result bits --------------------------------------------------------
  localparam int NoteRule    = 1;  // the inputs broke an interface rule
  localparam int NoteUnknown = 2;  // a qualified input was X or Z (a failure)

  // ---- Output fields: bit positions of etm_dpi_compare's unknown mask -----------------
  // FieldPipestat, FieldTracepkt, ... FieldViolations: one per output port of
  // etm_top, in the order of etm/signals.def, then the rules (etm_dpi_defs.svh).
  `ETM_DPI_FIELD_PARAMS

  // ---- Handles and the register image ------------------------------------------------------
  import "DPI-C" function chandle etm_dpi_new(input string name);
  import "DPI-C" function void    etm_dpi_free(input chandle h);
  import "DPI-C" function int     etm_dpi_preset(input chandle h, input string preset);
  import "DPI-C" function int     etm_dpi_load(input chandle h, input string path);
  import "DPI-C" function int     etm_dpi_set(input chandle h, input string settings);
  import "DPI-C" function int     etm_dpi_ignore(input chandle h, input string fields);
  import "DPI-C" function int     etm_dpi_rule_bits(input chandle h, input int unsigned bits);
  import "DPI-C" function int     etm_dpi_mode(input chandle h, input string mode);
  import "DPI-C" function int     etm_dpi_untraced_overflow(input chandle h, input int flag);
  import "DPI-C" function int     etm_dpi_start(input chandle h);
  import "DPI-C" function int     etm_dpi_reg(input chandle h, input string name, output int unsigned value);
  import "DPI-C" function int     etm_dpi_check_reg(input chandle h, input string name, input int unsigned value);
  import "DPI-C" function int     etm_dpi_program(input chandle h);
  import "DPI-C" function int     etm_dpi_program_op(input chandle h, input int i, output int kind,
                                                     output int unsigned offset, output int unsigned value,
                                                     output int unsigned mask, output int debugger);
  import "DPI-C" function string  etm_dpi_error(input chandle h);

  // ---- Per clock edge ------------------------------------------------------------------------
  import "DPI-C" function int etm_dpi_reset(input chandle h);
  // The inputs of etm/signals.def in its order, then the X/Z mask (etm_dpi_defs.svh).
  import "DPI-C" function int etm_dpi_step(input chandle h, `ETM_DPI_IN_ARGS(input),
    input int unsigned unknown);
  import "DPI-C" function int etm_dpi_end(input chandle h);
  import "DPI-C" function int etm_dpi_drain(input chandle h);
  import "DPI-C" function longint unsigned etm_dpi_expected(input chandle h, input string field);
  // The outputs of etm/signals.def in its order, then VIOLATIONS and the X/Z mask.
  import "DPI-C" function int etm_dpi_compare(input chandle h, `ETM_DPI_OUT_ARGS(input),
    input longint unsigned violations, input int unsigned unknown);

  // ---- Reports -------------------------------------------------------------------------------
  import "DPI-C" function string           etm_dpi_report(input chandle h);
  import "DPI-C" function longint unsigned etm_dpi_cycle(input chandle h);
  import "DPI-C" function longint unsigned etm_dpi_failures(input chandle h);
  import "DPI-C" function longint unsigned etm_dpi_compared(input chandle h);
  import "DPI-C" function string           etm_dpi_summary(input chandle h);

  // ---- Stimulus sources ----------------------------------------------------------------------
  import "DPI-C" function chandle etm_dpi_stim_new();
  import "DPI-C" function void    etm_dpi_stim_free(input chandle s);
  import "DPI-C" function string  etm_dpi_stim_error(input chandle s);
  import "DPI-C" function int     etm_dpi_stim_vectors(input chandle s, input string path);
  import "DPI-C" function int     etm_dpi_stim_atb(input chandle s, input int unsigned stall_pct,
                                                   input int unsigned burst);
  import "DPI-C" function int     etm_dpi_stim_vcd(input chandle s, input string path);
  import "DPI-C" function int     etm_dpi_stim_records(input chandle s, input string path);
  import "DPI-C" function int     etm_dpi_stim_generate(input chandle s, input longint unsigned seed,
    input longint unsigned cycles, input int unsigned issue_width, input int unsigned data,
    input int unsigned triggers, input int unsigned irq_period);
  import "DPI-C" function int etm_dpi_stim_next(input chandle s, input int unsigned hold,
    `ETM_DPI_IN_ARGS(output));

  // ---- Helpers -------------------------------------------------------------------------------

  // A string plusarg +<prefix><name>=VALUE, or `dflt` when it is absent.
  function automatic string plusarg(input string prefix, input string name, input string dflt);
    string v;
    if ($value$plusargs({prefix, name, "=%s"}, v)) return v;
    return dflt;
  endfunction

  // A handle holding the register image given by a preset or a configuration
  // file (not both; a file may begin with "preset NAME"), then settings on top
  // ("NAME=0xVALUE" items separated by commas). The plusargs +<prefix>preset=,
  // +<prefix>config= and +<prefix>set= override the arguments (set's items come
  // after `settings`). Neither preset nor file: the ETM-M3 ("etm-m3").
  // Returns null and the reason in `err` when the image is not accepted.
  function automatic chandle open_image(input string name, input string prefix, input string preset,
                                        input string config_file, input string settings,
                                        output string err);
    chandle h;
    string p, f, extra;
    int rc;
    p = plusarg(prefix, "preset", "");
    f = plusarg(prefix, "config", "");
    extra = plusarg(prefix, "set", "");
    if (p == "" && f == "") begin
      p = preset;
      f = config_file;
    end
    err = "";
    h = etm_dpi_new(name);
    if (h == null) begin
      err = {name, ": out of memory"};
      return null;
    end
    if (p != "" && f != "") begin
      err = $sformatf("%s: register image: give a preset ('%s') or a configuration file ('%s'), not both",
                      name, p, f);
      etm_dpi_free(h);
      return null;
    end
    rc = 0;
    if (p != "") rc = etm_dpi_preset(h, p);
    if (rc == 0 && f != "") rc = etm_dpi_load(h, f);
    if (rc == 0) rc = etm_dpi_set(h, settings);
    if (rc == 0) rc = etm_dpi_set(h, extra);
    if (rc != 0) begin
      err = etm_dpi_error(h);
      etm_dpi_free(h);
      return null;
    end
    return h;
  endfunction

  // One register or parameter of a handle's image (e.g. to drive a configuration
  // port); $fatal for a name the register table does not have.
  function automatic int unsigned reg_value(input chandle h, input string name);
    int unsigned v;
    if (etm_dpi_reg(h, name, v) != 0) $fatal(1, "%s", etm_dpi_error(h));
    return v;
  endfunction

endpackage
