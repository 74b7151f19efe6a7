// etm_filter.sv - stage `filter` (model/src/filter.c): TraceEnable and the trigger.
//
// Events are "function of resources A and B" (A [6:0], B [13:7], function
// [16:14]). Evaluated resources: the hard-wired TRUE (0x6F) and the DWT
// comparator inputs (0x20-0x23, ETMTRIGGER[3:0]); any other reads as false
// (etm_model_supports rejects them). TraceEnable is the ETMTEEVR event with the
// ETMTECR1[24] exclude bit; the trigger fires once, in the first cycle its event
// (ETMTRIGGER register) is true.
module etm_filter (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] etmteevr_i,
  input  logic [31:0] etmtrigger_i,
  input  logic        exclude_i,      // ETMTECR1[24]
  input  logic [3:0]  dwt_i,          // ETMTRIGGER[3:0] pins
  input  logic        hold_i,         // etm_drain: no change
  output logic        trace_enable_o,
  output logic        trigger_o
);
  logic triggered_q, triggered_d;

  function automatic logic resource(input logic [6:0] r, input logic [3:0] dwt);
    resource = 1'b0;
    if (r == 7'h6F) resource = 1'b1;
    else if (r[6:4] == 3'd2 && r[3:2] == 2'd0) resource = dwt[r[1:0]];
  endfunction

  function automatic logic event_true(input logic [16:0] ev, input logic [3:0] dwt);
    logic a, b;
    a = resource(ev[6:0], dwt);
    b = resource(ev[13:7], dwt);
    unique case (ev[16:14])
      3'd0:    event_true = a;
      3'd1:    event_true = !a;
      3'd2:    event_true = a && b;
      3'd3:    event_true = !a && b;
      3'd4:    event_true = !a && !b;
      3'd5:    event_true = a || b;
      3'd6:    event_true = !a || b;
      default: event_true = !a || !b;
    endcase
  endfunction

  logic unused_ev;
  assign unused_ev = ^{etmteevr_i[31:17], etmtrigger_i[31:17]};

  always_comb begin
    trace_enable_o = event_true(etmteevr_i[16:0], dwt_i) && exclude_i;
    trigger_o = 1'b0;
    triggered_d = triggered_q;
    if (!hold_i && !triggered_q && event_true(etmtrigger_i[16:0], dwt_i)) begin
      trigger_o = 1'b1;
      triggered_d = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) triggered_q <= 1'b0;
    else         triggered_q <= triggered_d;
  end
endmodule
