// etm_top_tick.sv - etm_top for a Verilated harness that evaluates once a
// cycle (a testbench wrapper, not part of the design: rtl/etm.f does not list it).
//
// The harness drives a cycle's inputs, toggles tick_i and calls eval() once.
// Every change of tick_i is one rising edge of etm_top's clock: the clock is
// tick_i XOR its copy taken at each of tick_i's edges, a pulse inside that one
// evaluation. The cycle's outputs (combinational in its inputs) are taken into
// flip-flops at the same edge, so after eval() the ports below show the
// outputs of the cycle just driven, as a two-evaluation harness reads them
// before its edge (tb/cosim/rtl_io.h, rtl_settle). Verilator 5 evaluates the
// logic that depends on the inputs at every eval(), whatever changed: one
// eval() a cycle instead of two saves that second pass.
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
  parameter bit          Assertions = 1'b1,
  parameter bit          HasV3      = 1'b1,
  parameter bit          HasV1      = 1'b1
) (
  input  logic         tick_i,
  // As etm_top's (rtl/lint_waivers.vlt): the checker's assertions sample rst_ni.
  /* verilator lint_off SYNCASYNCNET */
  input  logic         rst_ni,
  /* verilator lint_on SYNCASYNCNET */
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

  // etm_top's outputs, combinational in the cycle's inputs.
  logic [2:0]  pipestat;
  logic [15:0] tracepkt;
  logic        tracesync;
  logic [3:0]  v3count;
  logic [63:0] atdata;
  logic        atvalid;
  logic [6:0]  atid;
  logic        afready;
  logic [15:0] fifolevel;
  logic        overflow, trigger, fifofull, traceenable, viewdata;
  logic [31:0] prdata;
  logic        pready, pslverr;
  logic [etm_defs_pkg::NumRules-1:0] violations;

  etm_top #(
    .Etmccr(Etmccr), .Etmidr(Etmidr), .Etmccer(Etmccer), .Etmscr(Etmscr), .Pidr(Pidr), .EtmcrImpl(EtmcrImpl),
    .FifoDepth(FifoDepth), .FifoWrite(FifoWrite), .PktQueue(PktQueue), .PhEager(PhEager),
    .BranchFull(BranchFull), .PortBytes(PortBytes), .IssueWidth(IssueWidth), .Assertions(Assertions),
    .HasV3(HasV3), .HasV1(HasV1)
  ) u_top (
    .clk_i(clk), .rst_ni, .end_i,
    .ETMIVALID, .ETMIBRANCH, .ETMIINDBR, .ETMICCFAIL, .ETMFOLD, .ETMIA, .ETMDVALID, .ETMFLUSH, .ETMFINDBR,
    .ETMCANCEL, .ETMISTALL, .ETMINTSTAT, .ETMINTNUM, .ETMTRIGGER, .ETMTRIGINOTD, .ETMIVALID1, .ETMIBRANCH1,
    .ETMIINDBR1, .ETMICCFAIL1, .ETMIA1, .ETMDACTL, .ETMDA, .ETMDDCTL, .ETMDD, .PSEL, .PENABLE, .PWRITE, .PADDR,
    .PWDATA, .PADDRDBG31, .ATREADY, .AFVALID,
    .PIPESTAT(pipestat), .TRACEPKT(tracepkt), .TRACESYNC(tracesync), .V3COUNT(v3count), .ATDATA(atdata),
    .ATVALID(atvalid), .ATID(atid), .AFREADY(afready), .FIFOLEVEL(fifolevel), .OVERFLOW(overflow),
    .TRIGGER(trigger), .FIFOFULL(fifofull), .TRACEENABLE(traceenable), .VIEWDATA(viewdata), .PRDATA(prdata),
    .PREADY(pready), .PSLVERR(pslverr), .VIOLATIONS(violations)
  );

  // The cycle's outputs, taken at its edge.
  always_ff @(posedge clk) begin
    PIPESTAT <= pipestat;
    TRACEPKT <= tracepkt;
    TRACESYNC <= tracesync;
    V3COUNT <= v3count;
    ATDATA <= atdata;
    ATVALID <= atvalid;
    ATID <= atid;
    AFREADY <= afready;
    FIFOLEVEL <= fifolevel;
    OVERFLOW <= overflow;
    TRIGGER <= trigger;
    FIFOFULL <= fifofull;
    TRACEENABLE <= traceenable;
    VIEWDATA <= viewdata;
    PRDATA <= prdata;
    PREADY <= pready;
    PSLVERR <= pslverr;
    VIOLATIONS <= violations;
  end
endmodule
