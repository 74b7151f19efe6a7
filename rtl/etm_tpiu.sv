// etm_tpiu.sv - the TPIU and its CoreSight formatter (model/tpiu/src/tpiu.c,
// docs/tpiu.md): two ATB slave ports, an input queue, the formatter (one
// half-word of a 16-byte frame per clock at most), four half-words waiting for
// the output side, and either TRACEDATA (continuous mode: frame syncs, half-word
// syncs when idle), or half-word writes into an ETB-style buffer (a RAM outside,
// etb_addr_o wrapping at etb_bytes_i), or the SWO pin (NRZ or Manchester at the
// clock / (ACPR + 1), no syncs, a frame the line ran dry in finished with
// padding; the formatter bypassed when FFCR.EnFCont is clear). TRIGIN puts the
// trigger marker (ID 0x7D) after the cycle's words; an ID unchanged for
// id_restate_i frames is stated again. The programmer's model (CSPSR, ACPR,
// SPPR, FFCR, FSCR, claim tags, IDs) is on the TPIU's own APB.
//
// One clock, as the C: ATREADY from the state; the output side takes pairs
// present at the start of the cycle; the formatter makes at most one pair from
// the queue as it stood at the start of the cycle, if the pair buffer has room
// after the output side; then the words ATREADY took go in, source 0 first.
//
// The configuration is on ports (one Verilated model serves every TPIU); a part
// ties them. QueueMax bounds queue_bytes_i (a power of two, 4 to QueueMax).
// port_bits_i, fsync_frames_i, protocol_i, acpr_i and ffcr_i are the reset
// values of the registers the APB writes.
module etm_tpiu #(
  parameter int unsigned QueueMax   = 256,
  parameter bit          Assertions = 1'b1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Configuration (etm_tpiu_params_t).
  input  logic [5:0]  port_bits_i,     // 1, 2, 4, 8, 16, 32; 0: ETB
  input  logic [4:0]  clk_div_i,       // 1 to 16
  input  logic [11:0] fsync_frames_i,  // 0: a frame sync only before the first frame (TPIU_FSCR)
  input  logic [8:0]  queue_bytes_i,
  input  logic [3:0]  src0_bytes_i,    // ATB width of each source in bytes (0: none)
  input  logic [3:0]  src1_bytes_i,
  input  logic [24:0] etb_bytes_i,
  input  logic [1:0]  protocol_i,      // TPIU_SPPR: 0 trace port (or ETB), 1 Manchester, 2 NRZ
  input  logic [12:0] acpr_i,          // TPIU_ACPR
  input  logic [8:0]  ffcr_i,          // TPIU_FFCR: [1] EnFCont, [8] TrigIn (the other bits unused)
  input  logic [7:0]  id_restate_i,    // frames after which an unchanged ID is stated again (0: never)
  input  logic [2:0]  trig_delay_i,    // clocks from TRIGIN to the marker (its synchroniser)
  input  logic        end_i,           // the sources have ended (held from here)
  input  logic        trigin_i,        // TRIGIN: a trigger marker follows this cycle's words
  // The TPIU's APB (AMBA 3; no wait states, no errors).
  input  logic        psel_i,
  input  logic        penable_i,
  input  logic        pwrite_i,
  input  logic [11:0] paddr_i,         // byte offset in the 4 KB block
  input  logic [31:0] pwdata_i,
  output logic [31:0] prdata_o,
  // ATB slave ports.
  input  logic        atvalid0_i,
  input  logic [6:0]  atid0_i,
  input  logic [63:0] atdata0_i,
  output logic        atready0_o,
  input  logic        atvalid1_i,
  input  logic [6:0]  atid1_i,
  input  logic [63:0] atdata1_i,
  output logic        atready1_o,
  // Output side.
  output logic        traceclk_o,      // a TRACECLK edge in this cycle
  output logic [31:0] tracedata_o,
  output logic        etb_wr_o,
  output logic [23:0] etb_addr_o,
  output logic [15:0] pair_o,          // the half-word formatted in this cycle
  output logic        paired_o,
  output logic        single_o,        // ... one byte (the formatter bypassed)
  output logic        swo_o            // the SWO pin
);
  localparam int unsigned QBits = $clog2(QueueMax);
  localparam logic [15:0] Hsync = 16'h7FFF;
  localparam logic [15:0] Fsync0 = 16'hFFFF;
  localparam logic [31:0] Sspsr = 32'h8000_808B;  // the port sizes: 1, 2, 4, 8, 16, 32 pins
  localparam logic [1:0]  Parallel = 2'd0, Nrz = 2'd2;  // and 1: Manchester

  // ---- State ------------------------------------------------------------------------------------
  logic [6:0]       qid_q [QueueMax];
  logic [7:0]       qb_q [QueueMax];
  logic [6:0]       qid_d [QueueMax];
  logic [7:0]       qb_d [QueueMax];
  logic [QBits-1:0] q_rd_q, q_rd_d;
  logic [QBits:0]   q_level_q, q_level_d;
  logic [6:0]       cur_id_q, cur_id_d;
  logic             id_valid_q, id_valid_d;
  logic [2:0]       pk_q, pk_d;
  logic [7:0]       aux_q, aux_d;
  logic [15:0]      fcount_q, fcount_d;
  logic [1:0]       fs_left_q, fs_left_d, fs_left_c;
  logic             ending_q, ending_d;
  logic [15:0]      pair_q [4];
  logic [15:0]      pair_d [4];
  logic [1:0]       pr_rd_q, pr_rd_d;
  logic [2:0]       pr_n_q, pr_n_d;
  logic [47:0]      sh_q, sh_d;
  logic [5:0]       nbits_q, nbits_d;
  logic [4:0]       div_q, div_d;
  logic [23:0]      etb_wr_q, etb_wr_d;
  logic             single_q [4];
  logic             single_d [4];
  logic [39:0]      sw_sh_q, sw_sh_d;      // SWO: the character's units, first in bit 0
  logic [5:0]       sw_units_q, sw_units_d;
  logic [12:0]      sw_cnt_q, sw_cnt_d;
  logic             trig_pending_q, trig_pending_d;
  logic [7:0]       trig_hist_q;            // TRIGIN of the last clocks, the latest in bit 0
  logic             trig_req;
  assign trig_req = (trig_delay_i == 3'd0) ? trigin_i : trig_hist_q[trig_delay_i - 3'd1];
  logic             force_id_q, force_id_d;
  logic [7:0]       frames_same_q, frames_same_d;
  // The registers.
  // The registers: until the first clock after reset they read as the
  // configuration ports give them (a part ties those), then as held.
  logic             loaded_q;
  logic [5:0]       port_bits_q, port_bits_d, port_bits_w;
  logic [1:0]       protocol_q, protocol_d, protocol_w;
  logic [12:0]      acpr_q, acpr_d, acpr_w;
  logic             enfcont_q, enfcont_d, enfcont_w;
  logic [11:0]      fscr_q, fscr_d, fscr_w;
  logic [3:0]       claim_q, claim_d;
  assign port_bits_q = loaded_q ? port_bits_w : port_bits_i;
  assign protocol_q = loaded_q ? protocol_w : protocol_i;
  assign acpr_q = loaded_q ? acpr_w : acpr_i;
  assign enfcont_q = loaded_q ? enfcont_w : ffcr_i[1];
  assign fscr_q = loaded_q ? fscr_w : fsync_frames_i;
  // The trace port starts with a frame sync (not an ETB, not SWO).
  assign fs_left_c = loaded_q ? fs_left_q : (port_bits_i != 6'd0 && protocol_i == Parallel) ? 2'd2 : 2'd0;
  logic             is_swo, bypass, trig_en;
  assign is_swo = port_bits_q != 6'd0 && protocol_q != Parallel;
  assign bypass = is_swo && !enfcont_q;
  assign trig_en = ffcr_i[8] && !bypass;

  logic [QBits-1:0] qmask;
  logic [QBits:0]   words;
  assign qmask = queue_bytes_i[QBits-1:0] - 1'b1;
  assign words = (QBits + 1)'(src0_bytes_i) + (QBits + 1)'(src1_bytes_i);

  // ---- 1. ATREADY ----------------------------------------------------------------------------------
  logic room;
  assign room = ((QBits + 1)'(queue_bytes_i) - q_level_q) >= words;
  assign atready0_o = room && src0_bytes_i != 4'd0;
  assign atready1_o = room && src1_bytes_i != 4'd0;

  // ---- 2. The output side --------------------------------------------------------------------------
  logic [1:0] pops;
  // SWO's character for a pair (or one byte): NRZ, per byte a start bit (0),
  // the data least significant bit first, a stop bit (1); Manchester, a start
  // bit (high, low), each data bit as two half-bits (1: high, low; 0: low,
  // high), one bit time low. swo_char: the units, the first in bit 0;
  // swo_units: how many.
  function automatic logic [39:0] swo_char(input logic [1:0] proto, input logic [15:0] v, input logic one);
    logic [39:0] sh;
    sh = '0;
    if (proto == Nrz) begin
      sh[9:0] = {1'b1, v[7:0], 1'b0};
      sh[19:10] = {1'b1, v[15:8], 1'b0};
    end else begin
      sh[1:0] = 2'b01;
      for (int i = 0; i < 16; i++) sh[2 + 2*i +: 2] = v[i] ? 2'b01 : 2'b10;
      if (one) sh[19:18] = 2'b00;
    end
    swo_char = sh;
  endfunction
  function automatic logic [5:0] swo_units(input logic [1:0] proto, input logic one);
    if (proto == Nrz) swo_units = one ? 6'd10 : 6'd20;
    else swo_units = one ? 6'd20 : 6'd36;
  endfunction

  always_comb begin : output_side
    logic [5:0]  nb;
    logic [47:0] sh;
    logic [1:0]  rd;
    logic [2:0]  avail;
    logic [31:0] mask;
    pops = 2'd0;
    traceclk_o = 1'b0;
    tracedata_o = 32'd0;
    etb_wr_o = 1'b0;
    etb_addr_o = etb_wr_q;
    div_d = div_q;
    sh_d = sh_q;
    nbits_d = nbits_q;
    etb_wr_d = etb_wr_q;
    sw_sh_d = sw_sh_q;
    sw_units_d = sw_units_q;
    sw_cnt_d = sw_cnt_q;
    swo_o = is_swo && protocol_q == Nrz;
    nb = nbits_q;
    sh = sh_q;
    rd = pr_rd_q;
    avail = pr_n_q;
    mask = (port_bits_q == 6'd32) ? 32'hFFFF_FFFF : ((32'd1 << port_bits_q) - 32'd1);
    if (port_bits_q == 6'd0) begin
      if (pr_n_q != 3'd0) begin
        pops = 2'd1;
        etb_wr_o = 1'b1;
        etb_wr_d = (etb_wr_q + 24'd2 == etb_bytes_i[23:0] && !etb_bytes_i[24]) ? 24'd0 : etb_wr_q + 24'd2;
      end
    end else if (is_swo) begin
      if (sw_units_q == 6'd0 && pr_n_q != 3'd0) begin
        pops = 2'd1;
        sw_sh_d = swo_char(protocol_q, pair_q[pr_rd_q], single_q[pr_rd_q]);
        sw_units_d = swo_units(protocol_q, single_q[pr_rd_q]);
        sw_cnt_d = 13'd0;
      end
      if (sw_units_d != 6'd0) begin
        swo_o = sw_sh_d[0];
        if (sw_cnt_d >= acpr_q) begin
          sw_cnt_d = 13'd0;
          sw_sh_d = sw_sh_d >> 1;
          sw_units_d = sw_units_d - 6'd1;
        end else begin
          sw_cnt_d = sw_cnt_d + 13'd1;
        end
      end
    end else if (div_q + 5'd1 < clk_div_i) begin
      div_d = div_q + 5'd1;
    end else begin
      div_d = 5'd0;
      traceclk_o = 1'b1;
      for (int i = 0; i < 2; i++) begin
        if (nb < port_bits_q) begin
          if (avail != 3'd0) begin
            sh = sh | (48'(pair_q[rd]) << nb);
            rd = rd + 2'd1;
            avail = avail - 3'd1;
            pops = pops + 2'd1;
          end else begin
            sh = sh | (48'(Hsync) << nb);
          end
          nb = nb + 6'd16;
        end
      end
      tracedata_o = sh[31:0] & mask;
      sh_d = sh >> port_bits_q;
      nbits_d = nb - port_bits_q;
    end
  end

  // ---- 3. The formatter ------------------------------------------------------------------------------
  logic        fmt_do;
  logic [15:0] fmt_v;
  logic [1:0]  fmt_used;
  always_comb begin : formatter
    logic [QBits:0]   n;
    logic [6:0]       id0, id1;
    logic [7:0]       b0, b1;
    logic [7:0]       even, odd;
    logic             change0, flush, id_out;
    logic [6:0]       id_new;
    logic [2:0]       pr_after;
    n = q_level_q;
    id0 = qid_q[q_rd_q];
    b0 = qb_q[q_rd_q];
    id1 = qid_q[(q_rd_q + 1'b1) & qmask];
    b1 = qb_q[(q_rd_q + 1'b1) & qmask];
    pr_after = pr_n_q - 3'(pops);
    change0 = n != '0 && (!id_valid_q || id0 != cur_id_q || force_id_q);
    // The open frame is finished with what there is: the sources have ended,
    // or SWO's line has run dry.
    flush = ending_d || (is_swo && sw_units_d == 6'd0 && pr_after == 3'd0);
    even = 8'd0;
    odd = 8'd0;
    id_out = 1'b0;
    id_new = cur_id_q;
    fmt_do = 1'b0;
    fmt_used = 2'd0;
    fmt_v = 16'd0;
    single_o = 1'b0;
    cur_id_d = cur_id_q;
    id_valid_d = id_valid_q;
    force_id_d = force_id_q;
    frames_same_d = frames_same_q;
    pk_d = pk_q;
    aux_d = aux_q;
    fcount_d = fcount_q;
    fs_left_d = fs_left_c;
    if (pr_after != 3'd4) begin
      if (bypass) begin
        if (n != '0) begin
          fmt_do = 1'b1;
          fmt_v = {8'd0, b0};
          single_o = 1'b1;
          fmt_used = 2'd1;
        end
      end else if (fs_left_c != 2'd0 && port_bits_q != 6'd0) begin
        fmt_do = 1'b1;
        fmt_v = (fs_left_c == 2'd2) ? Fsync0 : Hsync;
        fs_left_d = fs_left_c - 2'd1;
      end else begin
        if (n == '0) begin
          if (flush && pk_q != 3'd0) begin
            fmt_do = 1'b1;
            if (!id_valid_q || cur_id_q != 7'd0) begin
              id_out = 1'b1;
              id_new = 7'd0;
            end
          end
        end else if (change0) begin
          fmt_do = 1'b1;
          id_out = 1'b1;
          id_new = id0;
          odd = b0;
          fmt_used = (pk_q != 3'd7) ? 2'd1 : 2'd0;
        end else if (pk_q == 3'd7) begin
          fmt_do = 1'b1;
          even = {b0[7:1], 1'b0};
          aux_d[7] = b0[0];
          fmt_used = 2'd1;
        end else if (n >= 2 && id1 == cur_id_q) begin
          fmt_do = 1'b1;
          even = {b0[7:1], 1'b0};
          aux_d[pk_q] = b0[0];
          odd = b1;
          fmt_used = 2'd2;
        end else if (n >= 2 || flush) begin
          fmt_do = 1'b1;
          id_out = 1'b1;
          id_new = (n >= 2) ? id1 : cur_id_q;
          aux_d[pk_q] = 1'b1;
          odd = b0;
          fmt_used = 2'd1;
        end
        if (id_out) begin
          even = {id_new, 1'b1};
          cur_id_d = id_new;
          id_valid_d = 1'b1;
          force_id_d = 1'b0;
          frames_same_d = 8'd0;
        end
        if (fmt_do) begin
          if (pk_q == 3'd7) begin
            fmt_v = {aux_d, even};
            aux_d = 8'd0;
            pk_d = 3'd0;
            if (id_restate_i != 8'd0) begin
              frames_same_d = (frames_same_d == 8'hFF) ? 8'hFF : frames_same_d + 8'd1;
              if (frames_same_d >= id_restate_i) force_id_d = 1'b1;
            end
            if (port_bits_q != 6'd0 && !is_swo && fscr_q != 12'd0) begin
              fcount_d = fcount_q + 16'd1;
              if (fcount_q + 16'd1 >= 16'(fscr_q)) begin
                fcount_d = 16'd0;
                fs_left_d = 2'd2;
              end
            end
          end else begin
            fmt_v = {odd, even};
            pk_d = pk_q + 3'd1;
          end
        end
      end
    end
    paired_o = fmt_do;
    pair_o = fmt_v;
  end

  // The pair buffer: pops, then the new pair.
  always_comb begin : pairs
    logic [2:0] n_after;
    for (int i = 0; i < 4; i++) begin
      pair_d[i] = pair_q[i];
      single_d[i] = single_q[i];
    end
    pr_rd_d = pr_rd_q + 2'(pops);
    n_after = pr_n_q - 3'(pops);
    if (fmt_do) begin
      pair_d[2'(pr_rd_d + n_after[1:0])] = fmt_v;
      single_d[2'(pr_rd_d + n_after[1:0])] = single_o;
    end
    pr_n_d = n_after + 3'(fmt_do);
  end

  // ---- 4. The queue: the formatter's bytes out, the words ATREADY took in -----------------------------
  always_comb begin : queue
    logic [QBits:0]   lvl;
    logic [QBits-1:0] wp, off;
    logic [4:0]       n0, n1;
    logic [QBits:0]   nin;
    for (int i = 0; i < QueueMax; i++) begin
      qid_d[i] = qid_q[i];
      qb_d[i] = qb_q[i];
    end
    q_rd_d = (q_rd_q + QBits'(fmt_used)) & qmask;
    lvl = q_level_q - (QBits + 1)'(fmt_used);
    wp = (q_rd_q + q_level_q[QBits-1:0]) & qmask;
    n0 = (atvalid0_i && atready0_o) ? 5'(src0_bytes_i) : 5'd0;
    n1 = (atvalid1_i && atready1_o && !bypass) ? 5'(src1_bytes_i) : 5'd0;  // bypass: port 0 only
    // Each storage byte takes its byte of the write when it falls in the run.
    for (int j = 0; j < QueueMax; j++) begin
      off = (QBits'(j) - wp) & qmask;
      if (32'(j) < 32'(queue_bytes_i)) begin
        if ((QBits + 1)'(off) < (QBits + 1)'(n0)) begin
          qid_d[j] = atid0_i;
          qb_d[j] = atdata0_i[32'(off[2:0])*8 +: 8];
        end else if ((QBits + 1)'(off) >= (QBits + 1)'(n0) &&
                     (QBits + 1)'(off) < (QBits + 1)'(n0) + (QBits + 1)'(n1)) begin
          qid_d[j] = atid1_i;
          qb_d[j] = atdata1_i[32'(3'((QBits + 1)'(off) - (QBits + 1)'(n0)))*8 +: 8];
        end
      end
    end
    nin = (QBits + 1)'(n0) + (QBits + 1)'(n1);
    q_level_d = lvl + nin;
    // Then a trigger marker, when there is room (it waits otherwise).
    trig_pending_d = trig_pending_q || (trig_req && trig_en);
    if (trig_pending_d && q_level_d < (QBits + 1)'(queue_bytes_i)) begin
      qid_d[(wp + QBits'(nin)) & qmask] = 7'h7D;
      qb_d[(wp + QBits'(nin)) & qmask] = 8'h00;
      q_level_d = q_level_d + 1'b1;
      trig_pending_d = 1'b0;
    end
  end

  // ---- 5. The APB: reads in the access phase, writes for the next cycle --------------------------------
  function automatic logic [31:0] reg_value(input logic [11:0] a);
    case (a)
      12'h000: reg_value = Sspsr;
      12'h004: reg_value = (port_bits_q == 6'd0) ? 32'd0 : (32'd1 << (port_bits_q - 6'd1));
      12'h010: reg_value = 32'(acpr_q);
      12'h0F0: reg_value = 32'(protocol_q);
      12'h300: reg_value = 32'h8;
      12'h304: reg_value = {23'd0, ffcr_i[8], 6'd0, enfcont_q || !is_swo, 1'b0};
      12'h308: reg_value = 32'(fscr_q);
      12'hFA0: reg_value = 32'hF;
      12'hFA4: reg_value = 32'(claim_q);
      12'hFC8: reg_value = 32'hCA0 | 32'(src1_bytes_i != 4'd0);
      12'hFCC: reg_value = 32'h11;
      12'hFD0: reg_value = 32'h04;
      12'hFE0: reg_value = 32'h23;
      12'hFE4: reg_value = 32'hB9;
      12'hFE8: reg_value = 32'h0B;
      12'hFF0: reg_value = 32'h0D;
      12'hFF4: reg_value = 32'h90;
      12'hFF8: reg_value = 32'h05;
      12'hFFC: reg_value = 32'hB1;
      default: reg_value = 32'd0;
    endcase
  endfunction
  assign prdata_o = (psel_i && penable_i && !pwrite_i) ? reg_value(paddr_i) : 32'd0;

  always_comb begin : apb_write
    logic [5:0] pb;
    port_bits_d = port_bits_q;
    protocol_d = protocol_q;
    acpr_d = acpr_q;
    enfcont_d = enfcont_q;
    fscr_d = fscr_q;
    claim_d = claim_q;
    pb = 6'd0;
    for (int i = 0; i < 32; i++) if (pwdata_i == (32'd1 << i)) pb = 6'(i + 1);
    if (psel_i && penable_i && pwrite_i) begin
      case (paddr_i)
        12'h004: if (port_bits_q != 6'd0 && pb != 6'd0 && Sspsr[5'(pb - 6'd1)] && 11'(pb) <= 11'd16 * 11'(clk_div_i))
                   port_bits_d = pb;
        12'h010: acpr_d = pwdata_i[12:0];
        12'h0F0: if (port_bits_q != 6'd0 && pwdata_i[1:0] != 2'd3) protocol_d = pwdata_i[1:0];
        12'h304: enfcont_d = pwdata_i[1];
        12'h308: fscr_d = pwdata_i[11:0];
        12'hFA0: claim_d = claim_q | pwdata_i[3:0];
        12'hFA4: claim_d = claim_q & ~pwdata_i[3:0];
        default: ;
      endcase
    end
  end

  // end_i counts from its own cycle on, as etm_tpiu_end before the step.
  assign ending_d = ending_q || end_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_rd_q     <= '0;
      q_level_q  <= '0;
      cur_id_q   <= '0;
      id_valid_q <= 1'b0;
      pk_q       <= '0;
      aux_q      <= '0;
      fcount_q   <= '0;
      fs_left_q  <= 2'd0;
      ending_q   <= 1'b0;
      pr_rd_q    <= '0;
      pr_n_q     <= '0;
      sh_q       <= '0;
      nbits_q    <= '0;
      div_q      <= '0;
      etb_wr_q   <= '0;
      sw_sh_q    <= '0;
      sw_units_q <= '0;
      sw_cnt_q   <= '0;
      trig_pending_q <= 1'b0;
      trig_hist_q <= '0;
      force_id_q <= 1'b0;
      frames_same_q <= '0;
      loaded_q   <= 1'b0;
      port_bits_w <= '0;
      protocol_w <= '0;
      acpr_w     <= '0;
      enfcont_w  <= 1'b0;
      fscr_w     <= '0;
      claim_q    <= '0;
    end else begin
      q_rd_q     <= q_rd_d;
      q_level_q  <= q_level_d;
      cur_id_q   <= cur_id_d;
      id_valid_q <= id_valid_d;
      pk_q       <= pk_d;
      aux_q      <= aux_d;
      fcount_q   <= fcount_d;
      fs_left_q  <= (port_bits_q == 6'd0) ? 2'd0 : fs_left_d;
      ending_q   <= ending_d;
      pr_rd_q    <= pr_rd_d;
      pr_n_q     <= pr_n_d;
      sh_q       <= sh_d;
      nbits_q    <= nbits_d;
      div_q      <= div_d;
      etb_wr_q   <= etb_wr_d;
      sw_sh_q    <= sw_sh_d;
      sw_units_q <= sw_units_d;
      sw_cnt_q   <= sw_cnt_d;
      trig_pending_q <= trig_pending_d;
      trig_hist_q <= {trig_hist_q[6:0], trigin_i};
      force_id_q <= force_id_d;
      frames_same_q <= frames_same_d;
      loaded_q   <= 1'b1;
      port_bits_w <= port_bits_d;
      protocol_w <= protocol_d;
      acpr_w     <= acpr_d;
      enfcont_w  <= enfcont_d;
      fscr_w     <= fscr_d;
      claim_q    <= claim_d;
    end
  end

  // Storage without reset: a byte or pair is read only after it was written.
  for (genvar g = 0; g < QueueMax; g++) begin : gen_queue
    always_ff @(posedge clk_i) begin
      qid_q[g] <= qid_d[g];
      qb_q[g] <= qb_d[g];
    end
  end
  for (genvar g = 0; g < 4; g++) begin : gen_pairs
    always_ff @(posedge clk_i) begin
      pair_q[g] <= pair_d[g];
      single_q[g] <= single_d[g];
    end
  end

`ifdef FORMAL
  // ---- Local invariants, proven by induction (scripts/formal) -------------------------------------
  // Assumed: a legal, constant configuration (etm_tpiu_create's rules); the
  // sources and end_i are free.
  logic        f_past = 1'b0;
  logic [5:0]  f_pb_q;
  logic [4:0]  f_div_q;
  logic [11:0] f_fs_q;
  logic [8:0]  f_qb_q;
  logic [3:0]  f_s0_q, f_s1_q;
  logic [24:0] f_etb_q;
  logic [1:0]  f_proto_q;
  logic [12:0] f_acpr_q;
  logic [8:0]  f_ffcr_q;
  logic [7:0]  f_restate_q;
  logic [2:0]  f_tdelay_q;
  always @(posedge clk_i) begin
    f_proto_q <= protocol_i;
    f_acpr_q <= acpr_i;
    f_ffcr_q <= ffcr_i;
    f_restate_q <= id_restate_i;
    f_tdelay_q <= trig_delay_i;
    f_past <= 1'b1;
    f_pb_q <= port_bits_i;
    f_div_q <= clk_div_i;
    f_fs_q <= fsync_frames_i;
    f_qb_q <= queue_bytes_i;
    f_s0_q <= src0_bytes_i;
    f_s1_q <= src1_bytes_i;
    f_etb_q <= etb_bytes_i;
  end
  function automatic logic width_ok(input logic [3:0] w);
    width_ok = w == 4'd1 || w == 4'd2 || w == 4'd4 || w == 4'd8;
  endfunction
  always @* begin
    assume (port_bits_i == 6'd0 || port_bits_i == 6'd1 || port_bits_i == 6'd2 || port_bits_i == 6'd4 ||
            port_bits_i == 6'd8 || port_bits_i == 6'd16 || port_bits_i == 6'd32);
    assume (clk_div_i >= 5'd1 && clk_div_i <= 5'd16 && 11'(port_bits_i) <= 11'd16 * 11'(clk_div_i));
    assume (queue_bytes_i == 9'd4 || queue_bytes_i == 9'd8 || queue_bytes_i == 9'd16 || queue_bytes_i == 9'd32 || queue_bytes_i == 9'd64 ||
            queue_bytes_i == 9'd128 || queue_bytes_i == 9'd256);
    assume (32'(queue_bytes_i) <= QueueMax);
    assume (width_ok(src0_bytes_i) && (src1_bytes_i == 4'd0 || width_ok(src1_bytes_i)));
    assume (9'(src0_bytes_i) + 9'(src1_bytes_i) <= queue_bytes_i);
    assume (port_bits_i != 6'd0 || (etb_bytes_i >= 25'd16 && etb_bytes_i[3:0] == 4'd0));
    if (f_past)
      assume (port_bits_i == f_pb_q && clk_div_i == f_div_q && fsync_frames_i == f_fs_q && queue_bytes_i == f_qb_q &&
              src0_bytes_i == f_s0_q && src1_bytes_i == f_s1_q && etb_bytes_i == f_etb_q);
    if (f_past)
      assume (protocol_i == f_proto_q && acpr_i == f_acpr_q && ffcr_i == f_ffcr_q && id_restate_i == f_restate_q &&
              trig_delay_i == f_tdelay_q);
    // The registers keep their reset values: no APB writes.
    assume (!psel_i);
    assume (protocol_i != 2'd3 && (port_bits_i != 6'd0 || protocol_i == 2'd0));
  end
  logic f_regs_kept, f_at_reset;
  assign f_regs_kept = port_bits_w == port_bits_i && protocol_w == protocol_i && acpr_w == acpr_i &&
                       enfcont_w == ffcr_i[1] && fscr_w == fsync_frames_i;
  assign f_at_reset = q_level_q == '0 && pk_q == 3'd0 && pr_n_q == 3'd0 && aux_q == 8'd0 && nbits_q == 6'd0 &&
                      div_q == 5'd0 && sw_units_q == 6'd0 && fs_left_q == 2'd0 && fcount_q == 16'd0 &&
                      etb_wr_q == 24'd0;
  always @* begin
    if (rst_ni && f_past) begin
      QueueWithinSize_P: assert (q_level_q <= (QBits + 1)'(queue_bytes_i));
      PairsWithinBuffer_P: assert (pr_n_q <= 3'd4);
      SyncBetweenFrames_P: assert (fs_left_c == 2'd0 || pk_q == 3'd0 || port_bits_q == 6'd0);
      SerializerBelowPair_P: assert (port_bits_q == 6'd0 || (nbits_q < 6'd16 && div_q < clk_div_i));
      AuxOnlyInFrame_P: assert (pk_q != 3'd0 || aux_q == 8'd0);
      EtbAddressEven_P: assert (!etb_wr_o || (etb_addr_o[0] == 1'b0 && {1'b0, etb_addr_o} < etb_bytes_i));
      EtbPointerInBuffer_P: assert (port_bits_q != 6'd0 || (etb_wr_q[0] == 1'b0 && {1'b0, etb_wr_q} < etb_bytes_i));
      // The registers, unwritten, hold the configuration's values; before the
      // first clock after reset nothing has moved.
      RegistersKept_P: assert (!loaded_q || f_regs_kept);
      ResetUntilLoaded_P: assert (loaded_q || f_at_reset);
      // SWO: no syncs, the trace port's serializer idle, a character's units
      // and their clocks within bounds.
      SwoQuiet_P: assert (!is_swo || (fs_left_c == 2'd0 && nbits_q == 6'd0 && div_q == 5'd0));
      SwoCharacter_P: assert (sw_units_q <= 6'd36 && (sw_units_q == 6'd0 || sw_cnt_q <= acpr_q));
    end
  end
`endif

  // ---- Assertions (simulation; scripts/formal proves them by induction) -----------------------------
`ifndef SYNTHESIS
  if (Assertions) begin : gen_assert
    QueueWithinSize_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
        q_level_q <= (QBits + 1)'(queue_bytes_i))
      else $error("etm_tpiu: queue level %0d above its %0d bytes", q_level_q, queue_bytes_i);
    PairsWithinBuffer_A: assert property (@(posedge clk_i) disable iff (!rst_ni) pr_n_q <= 3'd4)
      else $error("etm_tpiu: pair buffer holds %0d", pr_n_q);
    SyncBetweenFrames_A: assert property (@(posedge clk_i) disable iff (!rst_ni)
        fs_left_c == 2'd0 || pk_q == 3'd0 || port_bits_q == 6'd0)
      else $error("etm_tpiu: a frame sync inside a frame (half-word %0d)", pk_q);
  end
`endif

endmodule
