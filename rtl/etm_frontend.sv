// etm_frontend.sv - stage `frontend` (model/core/src/frontend.c): the Cortex-M3
// interface signals of one cycle become that cycle's trace items, in program
// order. Combinational.
//  - ETMIVALID: one atom for the instruction at ETMIA, E or (ETMICCFAIL) N.
//  - ETMFOLD: a second atom, the folded IT at ETMIA+2, always E.
//  - ETMIVALID1 (slot 1): the second instruction of the cycle.
//  - ETMIBRANCH with ETMIINDBR (or with branch broadcast): a traced branch target.
//  - ETMINTSTAT entry / return on the instruction: exception entry (traced number
//    of Cortex-M3 TRM table 14-8) or exception return.
module etm_frontend (
  input  logic        branch_broadcast_i, // ETMCR[8]
  input  logic        ivalid_i,
  input  logic        ibranch_i,
  input  logic        iindbr_i,
  input  logic        iccfail_i,
  input  logic        fold_i,
  input  logic        cancel_i,
  input  logic        flush_i,
  input  logic [2:0]  intstat_i,
  input  logic [8:0]  intnum_i,
  input  logic [31:1] ia_i,
  input  logic        ivalid1_i,
  input  logic        ibranch1_i,
  input  logic        iindbr1_i,
  input  logic        iccfail1_i,
  input  logic [31:1] ia1_i,
  // fe_cycle_t
  output logic [1:0]  natoms_o,
  output logic [31:0] addr0_o,
  output logic        exec0_o,
  output logic        target0_o,
  output logic [31:0] addr1_o,
  output logic        exec1_o,
  output logic        target1_o,
  output logic        entry_o,
  output logic        ret_o,
  output logic        fold_o,             // atom 1 is an IT folded after atom 0
  output logic [8:0]  exc_o,
  output logic        cancel_o,
  output logic        flush_o,
  output logic        exit_o              // ETMINTSTAT exit, without an instruction
);
  always_comb begin
    natoms_o = 2'd0;
    addr0_o = 32'd0;
    exec0_o = 1'b0;
    target0_o = 1'b0;
    addr1_o = 32'd0;
    exec1_o = 1'b0;
    target1_o = 1'b0;
    entry_o = 1'b0;
    ret_o = 1'b0;
    fold_o = 1'b0;
    exc_o = 9'd0;
    cancel_o = cancel_i;
    flush_o = flush_i;
    exit_o = !ivalid_i && intstat_i == etm_defs_pkg::IntstatExit;
    if (ivalid_i) begin
      natoms_o = 2'd1;
      addr0_o = {ia_i, 1'b0};
      exec0_o = !iccfail_i;
      target0_o = ibranch_i && (iindbr_i || branch_broadcast_i);
      if (intstat_i == etm_defs_pkg::IntstatEntry) begin
        entry_o = 1'b1;
        exc_o = etm_pkg::m3_traced_exception(intnum_i);
      end else if (intstat_i == etm_defs_pkg::IntstatReturn) begin
        ret_o = 1'b1;
      end
      if (fold_i) begin
        fold_o = 1'b1;
        natoms_o = 2'd2;
        addr1_o = {ia_i, 1'b0} + 32'd2;
        exec1_o = 1'b1;
      end else if (ivalid1_i) begin
        natoms_o = 2'd2;
        addr1_o = {ia1_i, 1'b0};
        exec1_o = !iccfail1_i;
        target1_o = ibranch1_i && (iindbr1_i || branch_broadcast_i);
      end
    end
  end
endmodule
