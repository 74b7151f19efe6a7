// etm_top_tick.sv - etm_top for a Verilated harness that evaluates once a
// cycle (a testbench wrapper, not part of the design: rtl/etm.f does not list it).
//
// The harness drives a cycle's inputs, toggles tick_i and calls eval() once;
// after it the outputs are those of the cycle just driven, as a harness with
// two evaluations a cycle reads them before its edge (tb/cosim/rtl_io.h,
// rtl_settle and rtl_commit).
//
// Every change of tick_i is one rising edge of etm_top's clock (tick_i XOR
// its copy taken at each of tick_i's edges: a pulse inside the one eval). At
// that edge etm_top commits the cycle before, and the new cycle's inputs,
// rst_ni and end_i among them, are taken into flip-flops that etm_top reads:
// its outputs are then those of the new cycle, combinational in its state and
// those inputs. So the logic is evaluated once a cycle, after the edge.
// Driving etm_top's ports directly, Verilator 5 evaluates the logic that
// depends on the inputs when they change and again after the edge: twice.
// The edge at the first rtl_settle after reset falls while the registered
// rst_ni is still low, so it changes nothing.
//
// The parameters are etm_top's; the ports are etm_top's with tick_i in place
// of clk_i.
`include "etm_ports.svh"

module etm_top_tick #(
  parameter logic [31:0] Etmccr     = 32'h8C80_2000,
  parameter logic [31:0] Etmidr     = 32'h4114_F240,
  parameter logic [31:0] Etmccer    = 32'h0014_1800,
  parameter logic [31:0] Etmscr     = 32'h0002_0D09,
  parameter logic [31:0] Pidr       = 32'h003B_B924,
  parameter logic [31:0] EtmcrImpl  = 32'h1063_2FF1,
  parameter int unsigned FifoDepth  = 24,
  parameter int unsigned FifoWrite  = 4,
  parameter int unsigned PktQueue   = 8,
  parameter bit          PhEager    = 1'b0,
  parameter bit          BranchFull = 1'b0,
  parameter int unsigned PortBytes  = 1,
  parameter int unsigned IssueWidth = 1,
  parameter int unsigned PhPacking       = 1,
  parameter int unsigned TraceStart      = 1,
  parameter int unsigned IsyncInfo       = 1,
  parameter int unsigned SyncPlacement   = 1,
  parameter int unsigned TailchainReturn = 1,
  parameter int unsigned CancelForm      = 1,
  parameter int unsigned ApbUnpred       = 1,
  parameter int unsigned ApbStrict       = 0,
  parameter logic [31:0] EventReset      = 32'h6F,
  parameter bit          Assertions = 1'b1,
  parameter bit          HasV3      = 1'b1,
  parameter bit          HasV1      = 1'b1
) (
  input  logic         tick_i,
  input  logic         rst_ni,
  input  logic         end_i,
  `ETM_IN_PORTS(input)
  `ETM_OUT_PORTS(output)
  output logic [etm_defs_pkg::NumRules-1:0] VIOLATIONS
);
  // One clock edge per change of tick_i.
  logic tick_q;
  always_ff @(posedge tick_i or negedge tick_i) tick_q <= tick_i;
  logic clk;
  assign clk = tick_i ^ tick_q;

  // The inputs of the cycle, taken at the edge that ends the cycle before
  // (<NAME>_q, from etm_ports.svh: every input of etm/signals.def).
  `ETM_IN_FLOPS(clk)
  logic end_i_q;
  // As etm_top's rst_ni (rtl/lint_waivers.vlt): the checker's assertions sample it.
  /* verilator lint_off SYNCASYNCNET */
  logic rst_ni_q;
  /* verilator lint_on SYNCASYNCNET */
  always_ff @(posedge clk) begin
    end_i_q <= end_i;
    rst_ni_q <= rst_ni;
  end

  etm_top #(
    .Etmccr(Etmccr), .Etmidr(Etmidr), .Etmccer(Etmccer), .Etmscr(Etmscr), .Pidr(Pidr), .EtmcrImpl(EtmcrImpl),
    .FifoDepth(FifoDepth), .FifoWrite(FifoWrite), .PktQueue(PktQueue), .PhEager(PhEager),
    .PhPacking(PhPacking), .TraceStart(TraceStart), .IsyncInfo(IsyncInfo), .SyncPlacement(SyncPlacement),
    .TailchainReturn(TailchainReturn), .CancelForm(CancelForm), .ApbUnpred(ApbUnpred), .ApbStrict(ApbStrict),
    .EventReset(EventReset),
    .BranchFull(BranchFull), .PortBytes(PortBytes), .IssueWidth(IssueWidth), .Assertions(Assertions),
    .HasV3(HasV3), .HasV1(HasV1)
  ) u_top (
    .clk_i(clk), .rst_ni(rst_ni_q), .end_i(end_i_q),
    `ETM_IN_CONNECT_Q
    .*  // the outputs, straight to the wrapper's ports of the same names
  );
endmodule
