// vcd_tb.v - an independent producer of interface signals for the VCD reader.
// Icarus Verilog runs it; it drives every input signal of the model from an
// LFSR through a module with lowRISC-style port names, dumps a VCD, and writes
// the same values as a vector file with $fdisplay. `etm convert` of the VCD
// must equal that file. Stimulus changes at the clock edge (non-blocking
// assignments), so each edge samples the values set at the edge before it;
// signals are x until reset is released.
`timescale 1ns / 1ps

module etm_port_sink (
  input         clk_i,
  input         etmivalid_i, etmibranch_i, etmiindbr_i, etmiccfail_i, etmfold_i,
  input  [31:1] etmia_i,
  input         etmdvalid_i, etmflush_i, etmfindbr_i, etmcancel_i, etmistall_i,
  input  [2:0]  etmintstat_i,
  input  [8:0]  etmintnum_i,
  input  [3:0]  etmtrigger_i, etmtriginotd_i,
  input         etmivalid1_i, etmibranch1_i, etmiindbr1_i, etmiccfail1_i,
  input  [31:1] etmia1_i,
  input  [17:0] etmdactl_i,
  input  [31:0] etmda_i,
  input  [3:0]  etmddctl_i,
  input  [63:0] etmdd_i
);
endmodule

module tb;
  parameter integer N = 3000;
  reg HCLK = 1'b0;
  reg HRESETn = 1'b0;
  always #5 HCLK = ~HCLK;

  reg ivalid, ibranch, iindbr, iccfail, fold, dvalid, flush, findbr, cancel, istall;
  reg [31:1] ia, ia1;
  reg [2:0] intstat;
  reg [8:0] intnum;
  reg [3:0] trigger, triginotd, ddctl;
  reg ivalid1, ibranch1, iindbr1, iccfail1;
  reg [17:0] dactl;
  reg [31:0] da;
  reg [63:0] dd;

  etm_port_sink u_etm (
    .clk_i(HCLK), .etmivalid_i(ivalid), .etmibranch_i(ibranch), .etmiindbr_i(iindbr),
    .etmiccfail_i(iccfail), .etmfold_i(fold), .etmia_i(ia), .etmdvalid_i(dvalid),
    .etmflush_i(flush), .etmfindbr_i(findbr), .etmcancel_i(cancel), .etmistall_i(istall),
    .etmintstat_i(intstat), .etmintnum_i(intnum), .etmtrigger_i(trigger),
    .etmtriginotd_i(triginotd), .etmivalid1_i(ivalid1), .etmibranch1_i(ibranch1),
    .etmiindbr1_i(iindbr1), .etmiccfail1_i(iccfail1), .etmia1_i(ia1), .etmdactl_i(dactl),
    .etmda_i(da), .etmddctl_i(ddctl), .etmdd_i(dd)
  );

  reg [63:0] s = 64'h9E3779B97F4A7C15;
  function [63:0] next(input [63:0] x);  // xorshift64
    reg [63:0] y;
    begin
      y = x ^ (x << 13);
      y = y ^ (y >> 7);
      next = y ^ (y << 17);
    end
  endfunction

  integer fd, cycle;
  reg [63:0] a, b, c;
  initial begin
    fd = $fopen("expected.vec", "w");
    $fdisplay(fd, "etm-vectors 1 stimulus");
    $fdisplay(fd, "columns CYCLE ETMIVALID ETMIBRANCH ETMIINDBR ETMICCFAIL ETMFOLD ETMIA ETMDVALID ETMFLUSH ETMFINDBR ETMCANCEL ETMISTALL ETMINTSTAT ETMINTNUM ETMTRIGGER ETMTRIGINOTD ETMIVALID1 ETMIBRANCH1 ETMIINDBR1 ETMICCFAIL1 ETMIA1 ETMDACTL ETMDA ETMDDCTL ETMDD");
    $dumpfile("tb.vcd");
    $dumpvars(0, tb);
    #22 HRESETn = 1'b1;  // edges at 5 and 15 are in reset; cycle 0 is the edge at 25
  end

  always @(posedge HCLK) begin
    if (cycle < N) begin
      // Values set at the edge before a sampling edge; the first sampling edge
      // out of reset is at 25, so the first values are set at 15.
      if ($time >= 15) begin
        s = next(s); a = s; s = next(s); b = s; s = next(s); c = s;
        {istall, cancel, findbr, flush, dvalid, fold, iccfail, iindbr, ibranch, ivalid} <= a[9:0];
        ia <= a[40:10];
        intstat <= a[43:41];
        intnum <= a[52:44];
        trigger <= a[56:53];
        triginotd <= a[60:57];
        {iindbr1, ibranch1, ivalid1} <= a[63:61];
        iccfail1 <= b[0];
        ia1 <= b[31:1];
        dactl <= b[49:32];
        ddctl <= b[53:50];
        da <= c[31:0];
        dd <= {c[63:32], b[63:32]};
        $fdisplay(fd, "%0d %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h %h", cycle,
                  a[0], a[1], a[2], a[3], a[4], {a[40:10], 1'b0}, a[5], a[6], a[7], a[8], a[9],
                  a[43:41], a[52:44], a[56:53], a[60:57], a[61], a[62], a[63], b[0], {b[31:1], 1'b0},
                  b[49:32], c[31:0], b[53:50], {c[63:32], b[63:32]});
        cycle = cycle + 1;
      end
    end else begin
      $fclose(fd);
      #3 $finish;  // after the edge that samples the last values
    end
  end
  initial cycle = 0;
endmodule
