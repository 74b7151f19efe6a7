// etm_dpacket.sv - stage `packet`, data part (model/core/src/dpacket.c): the data
// packets' state, dpacket_state_t, and what a cycle keeps of it. etm_packet works
// the cycle's data packets out on a copy of this state (its `_w` values, in the
// cycle buffer's order: the value before the cycle's packets, placeholders
// before the first P-header with atoms, the transfer after them); the edge keeps
// that copy, keeps the state as it was (an edge of etm_drain, or etm_end for
// the sequence flags) or drops what waits (dp_drop: an overflow or etm_end).
//
// Entries go in and out packed, entry k at [k*EntBits +: EntBits] (Yosys 0.23
// takes no unpacked array ports), as etm_pkg::dp_ent_t.
module etm_dpacket (
  input  logic        clk_i,
  input  logic        rst_ni,
  // The edge: keep the cycle's state (a traced cycle), keep the sequence flags'
  // (not an etm_drain or etm_end edge), drop what waits (overflow, etm_end).
  input  logic        keep_i,
  input  logic        keep_seq_i,
  input  logic        drop_i,
  // The state the cycle worked out.
  input  logic [etm_pkg::DpEntries*etm_pkg::DpEntBits-1:0] ent_w_i,
  input  logic [7:0]  owner_w_i,       // slot s (1..3) at [2s +: 2]: waits for entry owner - 1
  input  logic [15:0] seq_w_i,
  input  logic        first_w_i,       // dp_sequence(): the next transfer is an instruction's first,
  input  logic        unal_w_i,        //   a second half,
  input  logic [1:0]  unal_ent_w_i,    //   of entry unal_ent - 1 (0: not traced)
  input  logic        newest_w_i,      // the newest instruction was traced
  input  logic        ins_traced_w_i,  // the current data instruction is traced
  input  logic        ins_started_w_i, // one of its transfers has been traced
  input  logic        dfull_w_i,       // D-sync: the next data address is full
  input  logic [31:0] last_daddr_w_i,
  // The state before the cycle.
  output logic [etm_pkg::DpEntries*etm_pkg::DpEntBits-1:0] ent_q_o,
  output logic [7:0]  owner_q_o,
  output logic [15:0] seq_q_o,
  output logic        first_q_o,
  output logic        unal_q_o,
  output logic [1:0]  unal_ent_q_o,
  output logic        newest_q_o,
  output logic        ins_traced_q_o,
  output logic        ins_started_q_o,
  output logic        dfull_q_o,
  output logic [31:0] last_daddr_q_o
);
  localparam int unsigned E = etm_pkg::DpEntries;
  localparam int unsigned B = etm_pkg::DpEntBits;

  logic [E*B-1:0] ent_q, ent_d;
  logic [7:0]  owner_q, owner_d;
  logic [15:0] seq_q, seq_d;
  logic        first_q, first_d, unal_q, unal_d;
  logic [1:0]  unal_ent_q, unal_ent_d;
  logic        newest_q, newest_d, ins_traced_q, ins_traced_d, ins_started_q, ins_started_d;
  logic        dfull_q, dfull_d;
  logic [31:0] last_daddr_q, last_daddr_d;

  // The state after the edge: the cycle's, kept or not; dp_drop() on it (every
  // entry free, nothing owned, the next data address full).
  always_comb begin : commit
    ent_d = drop_i ? '0 : keep_i ? ent_w_i : ent_q;
    owner_d = drop_i ? 8'd0 : keep_i ? owner_w_i : owner_q;
    seq_d = keep_i ? seq_w_i : seq_q;
    first_d = keep_seq_i ? first_w_i : first_q;
    unal_d = keep_seq_i ? unal_w_i : unal_q;
    unal_ent_d = drop_i ? 2'd0 : keep_i ? unal_ent_w_i : unal_ent_q;
    newest_d = drop_i ? 1'b0 : keep_i ? newest_w_i : newest_q;
    ins_traced_d = drop_i ? 1'b0 : keep_i ? ins_traced_w_i : ins_traced_q;
    ins_started_d = keep_i ? ins_started_w_i : ins_started_q;
    dfull_d = drop_i ? 1'b1 : keep_i ? dfull_w_i : dfull_q;
    last_daddr_d = keep_i ? last_daddr_w_i : last_daddr_q;
  end

  for (genvar g = 0; g < E; g++) begin : gen_entry
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) ent_q[g*B +: B] <= '0;  // DpFree, nothing waiting
      else         ent_q[g*B +: B] <= ent_d[g*B +: B];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owner_q       <= 8'd0;
      seq_q         <= 16'd0;
      first_q       <= 1'b1;
      unal_q        <= 1'b0;
      unal_ent_q    <= 2'd0;
      newest_q      <= 1'b0;
      ins_traced_q  <= 1'b0;
      ins_started_q <= 1'b0;
      dfull_q       <= 1'b1;
      last_daddr_q  <= 32'd0;
    end else begin
      owner_q       <= owner_d;
      seq_q         <= seq_d;
      first_q       <= first_d;
      unal_q        <= unal_d;
      unal_ent_q    <= unal_ent_d;
      newest_q      <= newest_d;
      ins_traced_q  <= ins_traced_d;
      ins_started_q <= ins_started_d;
      dfull_q       <= dfull_d;
      last_daddr_q  <= last_daddr_d;
    end
  end

  assign ent_q_o = ent_q;
  assign owner_q_o = owner_q;
  assign seq_q_o = seq_q;
  assign first_q_o = first_q;
  assign unal_q_o = unal_q;
  assign unal_ent_q_o = unal_ent_q;
  assign newest_q_o = newest_q;
  assign ins_traced_q_o = ins_traced_q;
  assign ins_started_q_o = ins_started_q;
  assign dfull_q_o = dfull_q;
  assign last_daddr_q_o = last_daddr_q;
endmodule
