// etm_fifo.sv - stage `fifo` (model/core/src/fifo.c): the trace FIFO and the ETMv3 port.
//
// ETMv3 (etm_fifo_cycle): the ATB master shows up to PORT_BYTES bytes that were
// in the store at the start of the cycle, padding an incomplete word with Ignore
// (0x66) when nothing is staged, or the word ATREADY has not yet taken (held_q:
// its bytes stay at the head, so ATDATA cannot change while ATVALID waits);
// ATREADY takes it. With the flush handshake (flush_cap_i), AFREADY rises once
// the bytes the FIFO held when AFVALID rose have left. Then the cycle's bytes go
// into the staging buffer, all of them or none (fit_o = 0: an overflow), and at
// most FIFO_WRITE staged bytes, oldest first, move into the store (etm_fifo_stage):
// the store has a write port of FifoWritePortMax lanes, the staging buffer the
// cycle buffer's width.
// ETMv1 (etm_fifo_push, peek, pop as etm_pipestat uses them): up to V1PushMax
// bytes a cycle go into the store directly (etm_pipestat has admitted them);
// then the port pops up to two bytes,
// which it chooses from the head as it stands after that write (head0/head1).
// Each byte carries a flag (the first byte of an ETMv1 branch address:
// TRACESYNC); nflags_o counts the flagged bytes held.
//
// The store is a ring of 2^RingBits >= MaxFifoDepth bytes: for ETMv3 L banks of
// single-port memory (the bytes moving in a cycle and the port's bytes fall in
// different banks), for ETMv1 flip-flops that each take their byte of the
// cycle's write (an instance has the one its protocol needs: HasV3, HasV1).
// FIFO_DEPTH (at most MaxFifoDepth) bounds the bytes held in store and staging
// together. The staging ring needs no more than min(StageBytes, Ring) bytes,
// since both bounds hold.
module etm_fifo #(
  parameter int unsigned MaxFifoDepth = 1024,
  // The write port's lanes and the ATB's bytes the store is built for: at least
  // FIFO_WRITE (write_i) and PORT_BYTES (port_bytes_i) of every configuration
  // the instance runs (a part builds its own).
  parameter int unsigned WriteLanes   = etm_defs_pkg::FifoWritePortMax,
  parameter int unsigned PortLanes    = 8,
  parameter bit          HasV3 = 1'b1,   // the ETMv3 store and ATB master (and, with HasStage, the staging buffer)
  parameter bit          HasV1 = 1'b1,   // the ETMv1 store (flags, a status's run)
  // The ETMv3 staging buffer: a part whose ETMv3 bytes all come from records
  // (rec_i always set: etm_gen writes a packet's bytes as the store has room)
  // builds none.
  parameter bit          HasStage = 1'b1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [31:0] depth_i,        // FIFO_DEPTH
  input  logic [3:0]  port_bytes_i,   // PORT_BYTES: 1, 2, 4 or 8
  input  logic [4:0]  write_i,        // FIFO_WRITE: 1 to FifoWritePortMax
  input  logic        v3_i,           // ETMv3: writes go through the staging buffer
  input  logic        rec_i,          // records: a phase's bytes, written only when nothing is
                                      // staged, always go in; FIFO_DEPTH bounds the store alone
  output logic        stage_empty_o,  // nothing staged at the start of the cycle
  output logic [16:0] room_o,         // records: the store's free bytes after the port's read
  input  logic        wr_end_i,       // records: the bytes written end their packet
  input  logic        v3_port_i,      // ETMv3 port read in this cycle
  input  logic        atready_i,      // ATREADY
  input  logic        afvalid_i,      // AFVALID
  input  logic        flush_cap_i,    // the part has the flush handshake
  input  logic [6:0]  trace_id_i,     // ETMTRACEIDR[6:0]
  // Write: n bytes, all or none (ETMv3: at most CycleBytesMax).
  input  logic [7:0]  wr_n_i,
  input  logic [etm_defs_pkg::FifoWriteMax*8-1:0] wr_data_i,
  input  logic [etm_defs_pkg::FifoWriteMax-1:0]   wr_flag_i,
  output logic        fit_o,
  // ETMv3 port.
  output logic [3:0]  v3_count_o,
  output logic [63:0] v3_data_o,      // ATDATA
  output logic        atvalid_o,
  output logic [6:0]  atid_o,
  output logic        afready_o,
  // Bytes held (store and staging) at the start of the cycle.
  output logic [16:0] level_q_o,
  // ETMv1 port: the state before the write, the head after it, and the pops.
  output logic [16:0] nflags_q_o,
  output logic        head_flag_q_o,  // flag of the head byte before the write
  output logic [16:0] level_w_o,      // level after the write
  output logic [7:0]  head0_o,
  output logic        head0_flag_o,
  output logic [7:0]  head1_o,
  output logic        head1_flag_o,
  input  logic [1:0]  pop_i,
  // FIFOLEVEL after the cycle: bytes held in store and staging.
  output logic [16:0] level_o
);
  localparam int unsigned RingBits = (MaxFifoDepth <= 2) ? 1 : $clog2(MaxFifoDepth);
  localparam int unsigned Ring = 1 << RingBits;
  localparam int unsigned StageRing = (etm_defs_pkg::StageBytes < Ring) ? etm_defs_pkg::StageBytes : Ring;
  localparam int unsigned StageBits = $clog2(StageRing);
  localparam int unsigned Lanes = WriteLanes;
  // Banks of the ETMv3 store: a power of two, at least the bytes a cycle moves
  // in and the bytes the port reads.
  localparam int unsigned Reach = (Lanes > PortLanes) ? Lanes : PortLanes;
  localparam int unsigned ReachP2 = (Reach <= 1) ? 1 : 1 << $clog2(Reach);
  localparam int unsigned L = (ReachP2 < Ring) ? ReachP2 : Ring;
  localparam int unsigned LBits = $clog2(L);
  localparam int unsigned RowBits = (RingBits > LBits) ? RingBits - LBits : 1;

  logic [L*8-1:0]       bank_rd;     // ETMv3 store: each bank's byte for the port's read
  logic [7:0]           v1_b0, v1_b1;  // ETMv1 store: the bytes at the head
  logic                 v1_f0, v1_f1;  //   and their flags
  logic [RingBits-1:0]  rd_q, rd_d;
  logic [16:0]          level_q, level_d;
  logic [16:0]          held;        // bytes held at the start of the cycle: stored and staged
  logic [StageBits-1:0] srd_q, srd_d;
  logic [7:0]           slevel_q, slevel_d;
  logic [16:0]          nflags_q, nflags_d;
  logic [3:0]           held_q, held_d;
  logic [6:0]           held_id_q, held_id_d;
  logic                 flush_q, flush_d;
  logic [16:0]          flush_rem_q, flush_rem_d;
  logic                 part_q, part_d;    // records: the store ends inside a packet
  logic                 wrote_q, wrote_d;  // records: bytes entered the store in the last cycle

  logic [3:0]          n_rd;
  logic [16:0]         level_mid, level_w;
  logic                do_wr;       // ETMv1: the status's bytes go into the store
  logic                s_wr;        // ETMv3: the cycle's bytes go into the staging buffer
  logic [4:0]          mv;          // ETMv3: staged bytes moving into the store
  logic [Lanes*8-1:0]  mv_data;
  logic [RingBits-1:0] wp;
  logic [16:0]         nflags_w;

  assign held = level_q + {9'd0, slevel_q};

  always_comb begin : port_read
    logic [16:0] pb, rem;
    logic [3:0]  k;
    pb = {13'd0, port_bytes_i};
    // A word shorter than the port only when the store ends between packets:
    // nothing staged, or with records no packet partly in the store and no byte
    // written in the last cycle. The padding falls between packets.
    k = 4'd0;
    if (v3_port_i) k = (held_q != 4'd0) ? held_q : (level_q >= pb) ? port_bytes_i :
                       (rec_i ? (part_q || wrote_q) : (slevel_q != 8'd0)) ? 4'd0 : level_q[3:0];
    v3_data_o = '0;
    for (int i = 0; i < PortLanes; i++) begin
      if (4'(i) < k) begin
        v3_data_o[i*8 +: 8] = bank_rd[32'(LBits'(rd_q + RingBits'(i)))*8 +: 8];
      end else if (4'(i) < port_bytes_i) begin
        v3_data_o[i*8 +: 8] = etm_defs_pkg::HdrIgnore;
      end
    end
    // Padding only goes out with at least one byte.
    if (k == 4'd0) v3_data_o = '0;
    atvalid_o = k != 4'd0;
    // A waiting word keeps the ID it was first shown with.
    atid_o = (k == 4'd0) ? 7'd0 : (held_q != 4'd0) ? held_id_q : trace_id_i;
    n_rd = atready_i ? k : 4'd0;
    v3_count_o = (n_rd != 4'd0) ? port_bytes_i : 4'd0;
    level_mid = level_q - {13'd0, n_rd};
    held_d = v3_port_i ? ((n_rd != 4'd0) ? 4'd0 : k) : held_q;
    held_id_d = v3_port_i ? ((held_d != 4'd0) ? atid_o : 7'd0) : held_id_q;
    // The flush handshake.
    // (With records nothing is staged here: the flush counts the store, etm_fifo_counted.)
    rem = flush_q ? flush_rem_q : held;
    afready_o = v3_port_i && (!flush_cap_i || (afvalid_i && rem == 17'd0));
    flush_d = flush_q;
    flush_rem_d = flush_rem_q;
    if (v3_port_i && flush_cap_i) begin
      flush_rem_d = (rem > {13'd0, n_rd}) ? rem - {13'd0, n_rd} : 17'd0;
      flush_d = afvalid_i && !afready_o;
    end
  end

  always_comb begin : write
    logic [16:0] held_mid;
    logic [7:0]  slevel_w;
    wp = rd_q + level_q[RingBits-1:0];
    held_mid = level_mid + {9'd0, slevel_q};
    s_wr = 1'b0;
    do_wr = 1'b0;
    mv = 5'd0;
    slevel_w = slevel_q;
    if (v3_i && rec_i) begin
      // stage_packet (fifo.c): etm_gen writes bytes of one packet, within room_o
      // and FIFO_WRITE; nothing is staged here.
      fit_o = 1'b1;
      mv = wr_n_i[4:0];
    end else if (v3_i) begin
      fit_o = (wr_n_i == 8'd0) || ({15'd0, held_mid} + {24'd0, wr_n_i} <= depth_i &&
                                   {1'b0, slevel_q} + {1'b0, wr_n_i} <= 9'(etm_defs_pkg::StageBytes));
      s_wr = fit_o && wr_n_i != 8'd0;
      if (s_wr) slevel_w = slevel_q + wr_n_i;
      mv = ({3'd0, write_i} < slevel_w) ? write_i : slevel_w[4:0];
    end else begin
      fit_o = (wr_n_i == 8'd0) || ({15'd0, level_mid} + {24'd0, wr_n_i} <= depth_i);
      do_wr = fit_o && wr_n_i != 8'd0;
    end
    // The bytes moving into the store: staged ones first, then this cycle's.
    for (int l = 0; l < Lanes; l++) begin
      if (8'(l) < slevel_q) mv_data[l*8 +: 8] = stage_rd[l*8 +: 8];
      else                  mv_data[l*8 +: 8] = wr_data_i[(l - 32'(slevel_q))*8 +: 8];
    end
    nflags_w = nflags_q;
    if (do_wr) begin
      for (int i = 0; i < etm_defs_pkg::V1PushMax; i++) begin
        if (8'(i) < wr_n_i) nflags_w = nflags_w + {16'd0, wr_flag_i[i]};
      end
    end
    level_w = level_mid + (do_wr ? {9'd0, wr_n_i} : {12'd0, mv});
    // (With records the bytes come from etm_gen, not from the staging buffer.)
    srd_d = rec_i ? srd_q : srd_q + StageBits'(mv);
    slevel_d = rec_i ? slevel_q : slevel_w - {3'd0, mv};
    part_d = (rec_i && mv != 5'd0) ? !wr_end_i : part_q;
    wrote_d = rec_i && mv != 5'd0;
  end
  assign room_o = (level_mid < depth_i[16:0]) ? depth_i[16:0] - level_mid : 17'd0;

  // The head after the write (ETMv1 reads bytes pushed in the same cycle): a byte
  // beyond the level before the write comes from the write port.
  always_comb begin : head
    head0_o = 8'd0;
    head0_flag_o = 1'b0;
    head1_o = 8'd0;
    head1_flag_o = 1'b0;
    if (level_w != 17'd0) begin
      if (level_q != 17'd0) begin
        head0_o = v1_b0;
        head0_flag_o = v1_f0;
      end else begin
        head0_o = wr_data_i[7:0];
        head0_flag_o = wr_flag_i[0];
      end
    end
    if (level_w > 17'd1) begin
      if (level_q > 17'd1) begin
        head1_o = v1_b1;
        head1_flag_o = v1_f1;
      end else if (level_q == 17'd1) begin
        head1_o = wr_data_i[7:0];
        head1_flag_o = wr_flag_i[0];
      end else begin
        head1_o = wr_data_i[15:8];
        head1_flag_o = wr_flag_i[1];
      end
    end
  end
  assign level_q_o = held;
  assign stage_empty_o = slevel_q == 8'd0;
  assign nflags_q_o = nflags_q;
  assign head_flag_q_o = (level_q != 17'd0) ? v1_f0 : 1'b0;
  assign level_w_o = level_w;

  always_comb begin : pop
    logic [16:0] gone;
    gone = 17'd0;
    if (pop_i != 2'd0 && head0_flag_o) gone = gone + 17'd1;
    if (pop_i == 2'd2 && head1_flag_o) gone = gone + 17'd1;
    rd_d = rd_q + RingBits'(n_rd) + RingBits'(pop_i);
    level_d = level_w - {15'd0, pop_i};
    nflags_d = nflags_w - gone;
  end

  // FIFOLEVEL (with records nothing is staged here: the store's bytes, etm_fifo_counted).
  assign level_o = level_d + {9'd0, slevel_d};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q        <= '0;
      level_q     <= '0;
      srd_q       <= '0;
      slevel_q    <= '0;
      nflags_q    <= '0;
      held_q      <= '0;
      held_id_q   <= '0;
      flush_q     <= 1'b0;
      flush_rem_q <= '0;
      part_q      <= 1'b0;
      wrote_q     <= 1'b0;
    end else begin
      rd_q        <= rd_d;
      level_q     <= level_d;
      srd_q       <= srd_d;
      slevel_q    <= slevel_d;
      nflags_q    <= nflags_d;
      held_q      <= held_d;
      held_id_q   <= held_id_d;
      flush_q     <= flush_d;
      flush_rem_q <= flush_rem_d;
      part_q      <= part_d;
      wrote_q     <= wrote_d;
    end
  end

`ifdef FORMAL
  // ---- Local invariants, proven by induction (scripts/formal) -------------------------------------
  // Assumed: the ETMv3 port runs every cycle (pop_i 0; the end edge, which has
  // no port cycle, is outside) and the implementation is constant, records or
  // not; ATREADY, AFVALID, the trace ID and the writes are free, but with
  // records etm_gen writes at most FIFO_WRITE bytes, within room_o (its part of
  // the contract; etm_core's lockstep checks it against the C).
  logic        f_past = 1'b0;
  logic [31:0] f_depth_q;
  logic [3:0]  f_pb_q;
  logic        f_fc_q;
  logic [4:0]  f_wr_q;
  logic        f_rec_q;
  always @(posedge clk_i) begin
    f_past <= 1'b1;
    f_depth_q <= depth_i;
    f_pb_q <= port_bytes_i;
    f_fc_q <= flush_cap_i;
    f_wr_q <= write_i;
    f_rec_q <= rec_i;
  end
  always @* begin
    assume (v3_port_i && v3_i && pop_i == 2'd0);
    assume (write_i >= 5'd1 && write_i <= 5'(Lanes) && wr_n_i <= 8'(etm_defs_pkg::CycleBytesMax));
    if (rec_i) assume (wr_n_i <= {3'd0, write_i} && {9'd0, wr_n_i} <= room_o);
    assume (depth_i >= 32'd1 && depth_i <= 32'(Ring));
    assume ((port_bytes_i == 4'd1 || port_bytes_i == 4'd2 || port_bytes_i == 4'd4 || port_bytes_i == 4'd8) &&
            32'(port_bytes_i) <= PortLanes);
    if (f_past) assume (depth_i == f_depth_q && port_bytes_i == f_pb_q && flush_cap_i == f_fc_q &&
                        write_i == f_wr_q && rec_i == f_rec_q);
  end
  // What ATREADY did not take stays: the same ATVALID, ATDATA (padding too) and ATID.
  logic        f_wait_q;
  logic [63:0] f_data_q;
  logic [6:0]  f_id_q;
  always @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      f_wait_q <= 1'b0;
      f_data_q <= '0;
      f_id_q <= '0;
    end else begin
      f_wait_q <= atvalid_o && !atready_i;
      f_data_q <= v3_data_o;
      f_id_q <= atid_o;
    end
  end
  logic f_short;  // a word shorter than the port goes out (padded)
  assign f_short = atvalid_o && held_q == 4'd0 && level_q < 17'(port_bytes_i);
  always @* begin
    if (rst_ni) begin
      LevelWithinDepth_P: assert (level_q + {9'd0, slevel_q} <= depth_i[16:0]);
      StageWithinRing_P: assert (slevel_q <= 8'(StageRing));
      HeldAtHead_P: assert (17'(held_q) <= level_q && held_q <= port_bytes_i && level_q <= 17'(Ring));
      AtbHoldsWord_P: assert (!f_wait_q || (atvalid_o && v3_data_o == f_data_q && atid_o == f_id_q));
      NoWriteBeyondDepth_P: assert (!fit_o || level_w + {9'd0, slevel_d} <= depth_i[16:0]);
      // A word shorter than the port goes out only when nothing is staged.
      PadBetweenPackets_P: assert (!atvalid_o || held_q != 4'd0 || level_q >= 17'(port_bytes_i) || slevel_q == 8'd0);
      // With records nothing is ever staged, and a short word goes out only when
      // no packet is partly in the store.
      RecordsStageNothing_P: assert (!rec_i || slevel_q == 8'd0);
      RecordsPadBetweenPackets_P: assert (!rec_i || !f_short || !part_q);
    end
  end
`endif

`ifndef SYNTHESIS
  // A part built without the staging buffer runs records whenever it runs ETMv3.
  if (HasV3 && !HasStage) begin : gen_stage_check
    RecordsWithoutStage_A: assert property (@(posedge clk_i) !v3_i || rec_i);
  end
`endif

  // ---- Storage (no reset: a byte is read only after it was written) ------------------
  // ETMv3: the staging buffer takes the cycle's run at its tail (each byte picks
  // its byte of the run); the store is L banks of single-port memory, position p
  // in bank p mod L, so that the up to L bytes moving in a cycle fall in
  // different banks and the port's up to 8 bytes are read one per bank.
  // ETMv1: a ring whose bytes each pick their byte of a status's run.
  logic [Lanes*8-1:0] stage_rd;  // the staging buffer's oldest Lanes bytes
  if (HasV3 && HasStage) begin : gen_v3_stage
    logic [7:0] stage_q [StageRing];
    logic [StageBits-1:0] swp;
    assign swp = srd_q + StageBits'(slevel_q);
    // (Loops of at most 16 so that they unroll; the test of s_wr first spares
    // the simulator the loop in cycles without bytes.)
    always_ff @(posedge clk_i) begin
      if (s_wr) begin
        for (int h = 0; h < (StageRing + 15) / 16; h++) begin
          for (int l = 0; l < 16; l++) begin
            if (h * 16 + l < StageRing &&
                9'(StageBits'(32'(h * 16 + l) - 32'(swp))) < {1'b0, wr_n_i}) begin
              stage_q[(h * 16 + l) % StageRing] <= wr_data_i[32'(StageBits'(32'(h * 16 + l) - 32'(swp)))*8 +: 8];
            end
          end
        end
      end
    end
    always_comb begin
      for (int l = 0; l < Lanes; l++) stage_rd[l*8 +: 8] = stage_q[srd_q + StageBits'(l)];
    end
  end else begin : gen_no_stage
    assign stage_rd = '0;
  end
  if (HasV3) begin : gen_v3_store
    for (genvar b = 0; b < L; b++) begin : gen_bank
      logic [7:0] mem [1 << RowBits];
      logic [LBits-1:0] lw, lr;      // the lane writing this bank, the port byte reading it
      logic [RingBits-1:0] pw, pr;   // their positions
      assign lw = LBits'(b) - LBits'(wp);
      assign pw = wp + RingBits'(lw);
      assign lr = LBits'(b) - LBits'(rd_q);
      assign pr = rd_q + RingBits'(lr);
      always_ff @(posedge clk_i) begin
        if (5'(lw) < mv) mem[RowBits'(pw >> LBits)] <= mv_data[32'(lw)*8 +: 8];
      end
      assign bank_rd[b*8 +: 8] = mem[RowBits'(pr >> LBits)];
    end
  end else begin : gen_no_v3_store
    assign bank_rd = '0;
  end

  if (HasV1) begin : gen_v1_store
    logic [7:0] mem [Ring];
    logic       flag [Ring];
    // Each byte takes its byte of the write, at most V1PushMax bytes from the
    // tail (the test of do_wr first spares the simulator the loop in ETMv3 cycles).
    localparam int unsigned WBits = $clog2(etm_defs_pkg::V1PushMax);
    for (genvar h = 0; h < (Ring + 15) / 16; h++) begin : gen_chunk
      always_ff @(posedge clk_i) begin
        if (do_wr) begin
          for (int l = 0; l < 16; l++) begin
            if (h * 16 + l < Ring &&
                32'(RingBits'(32'(h * 16 + l) - 32'(wp))) < etm_defs_pkg::V1PushMax &&
                17'(RingBits'(32'(h * 16 + l) - 32'(wp))) < {9'd0, wr_n_i}) begin
              // (The tests above keep the byte within the write.)
              mem[(h * 16 + l) % Ring]  <= wr_data_i[32'(WBits'(32'(RingBits'(32'(h * 16 + l) - 32'(wp)))))*8 +: 8];
              flag[(h * 16 + l) % Ring] <= wr_flag_i[32'(WBits'(32'(RingBits'(32'(h * 16 + l) - 32'(wp)))))];
            end
          end
        end
      end
    end
    assign v1_b0 = mem[rd_q];
    assign v1_f0 = flag[rd_q];
    assign v1_b1 = mem[rd_q + RingBits'(1)];
    assign v1_f1 = flag[rd_q + RingBits'(1)];
  end else begin : gen_no_v1_store
    assign v1_b0 = 8'd0;
    assign v1_f0 = 1'b0;
    assign v1_b1 = 8'd0;
    assign v1_f1 = 1'b0;
  end

endmodule
