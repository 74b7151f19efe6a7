// etm_pkg.sv - the small pure encoders that several stages share, and the types
// and sizes of this RTL. The constants named after the specifications, the
// sizes the C model and the RTL share, the interface rules and the register
// fields are in etm_defs_pkg (generated from model/defs/include/etm/*.def).
//
// Written in the subset of SystemVerilog that both Verilator 5.006 and Yosys 0.23
// (read_verilog -sv) accept: no `import`, no multi-dimensional packed arrays, no
// struct-typed locals in functions, functions return by assigning their name.
package etm_pkg;

  // ---- P-header packer: the header being built (pheader.h PH_OPEN_*) --------------
  typedef enum logic [1:0] {
    PhOpenNone = 2'd0, PhOpenF1 = 2'd1, PhOpenN = 2'd2
  } ph_open_e;
  // The P-header packer's operation slots in a cycle (etm_pheader: A B C E F G P H
  // I J L K).
  localparam int unsigned PhSlots = 12;

  // ---- The packet generator with records (etm_gen) ------------------------------
  // What a cycle hands the generator (pk_record_t: the frontend's items, the
  // filter's TraceEnable and trigger, the cycle it was made in).
  typedef struct packed {
    logic [1:0]  natoms;
    logic [31:0] addr0;
    logic        exec0, target0;
    logic [31:0] addr1;
    logic        exec1, target1, entry, ret;
    logic [8:0]  exc;
    logic        cancel, flush, te, trigger;
    logic        exit;        // an exception exits, without an instruction (fe_cycle_t.exit)
    logic [31:0] cycle;
  } gen_rec_t;
  // The P-header packer's state (pheader_state_t) and the cycle buffer's
  // last_single, as etm_gen's functions take them (its F* field offsets).
  typedef struct packed {
    logic [1:0]  open;        // ph_open_e
    logic [3:0]  open_e;
    logic [7:0]  held;
    logic [4:0]  held_atoms;
    logic [7:0]  held_w;
    logic [31:0] wrun;
    logic [7:0]  wdebt;
    logic        single;
  } gen_ph_t;
  // One packet a phase may make: valid, kind, the header byte (or the kind's
  // detail), the W atoms it carries.
  typedef struct packed {
    logic       v;
    logic [10:0] pad;  // zero: an entry fills a 32-bit word (one word to Verilator; synthesis drops it)
    logic [3:0] kind;
    logic [7:0] hdr;
    logic [7:0] w;
  } gen_ent_t;

  // A data transfer waiting for its value (dp_entry_t; etm_dpacket keeps three).
  localparam int unsigned DpEntries = 3;   // DP_ENTRIES
  localparam int unsigned DpEntBits = 224; // $bits(dp_ent_t)
  typedef struct packed {
    logic [1:0]  state;       // DP_FREE, DP_NEW, DP_PLACED
    logic        a, unal;
    logic [1:0]  need, slot1, slot2;
    logic        fail, imp;
    logic [15:0] seq;
    logic [31:0] addr;
    logic [17:0] ctl1, ctl2;
    logic [63:0] dd1, dd2;
  } dp_ent_t;

  // ---- P-header encodings (IHI 0014 tables 7.2, 7.3; pheader.c) -------------------
  // Format 1: 1NEEEE00 (cycle-accurate: 1N0EEE00, e < 8).
  function automatic logic [7:0] hdr_f1(input logic [3:0] e, input logic n);
    hdr_f1 = {1'b1, n, e, 2'b00};
  endfunction
  // Format 3 (cycle-accurate): 1E1WWW00 with w W atoms (1..8).
  function automatic logic [7:0] hdr_f3(input logic [3:0] w, input logic e);
    logic [2:0] wm1;
    wm1 = 3'(w - 4'd1);
    hdr_f3 = {1'b1, e, 1'b1, wm1, 2'b00};
  endfunction
  // Format 2: 1000FF10, F = 1 for N.
  function automatic logic [7:0] hdr_f2(input logic a, input logic b);
    hdr_f2 = {4'b1000, ~a, ~b, 2'b10};
  endfunction
  // Format 4: 10010F10.
  function automatic logic [7:0] hdr_f4(input logic a);
    hdr_f4 = {5'b10010, ~a, 2'b10};
  endfunction

  // A 32-bit count in 1-5 bytes, 7 bits each, bit 7 = another follows; the fifth
  // byte holds [31:28]. Returns {length[2:0], bytes[39:0]} with byte 0 in [7:0].
  function automatic logic [42:0] count_bytes(input logic [31:0] n);
    logic [39:0] b;
    logic [2:0] len;
    logic [31:0] v;
    logic done;
    b = '0;
    len = 3'd0;
    v = n;
    done = 1'b0;
    for (int i = 0; i < 5; i++) begin
      if (!done) begin
        if (i == 4) begin
          b[32 +: 8] = {4'h0, v[3:0]};
          len = 3'd5;
          done = 1'b1;
        end else begin
          b[i*8 +: 8] = {(v[31:7] != 25'd0), v[6:0]};
          len = len + 3'd1;
          done = (v[31:7] == 25'd0);
          v = {7'd0, v[31:7]};
        end
      end
    end
    count_bytes = {len, b};
  endfunction

  // etm_v3_branch_packet(): the branch address packet for Thumb address `to`,
  // compressed against `from`. exc_valid selects exception bytes (number exc,
  // Cancel bit cancel). Returns {length[2:0], bytes[55:0]}, byte 0 in [7:0].
  function automatic logic [58:0] branch_packet(input logic [31:0] from, input logic [31:0] to,
                                                input logic alt, input logic exc_valid,
                                                input logic [8:0] exc, input logic cancel);
    logic [31:0] d;
    logic [2:0] n;
    logic [2:0] k;
    logic [55:0] b;
    logic [6:0] sh;
    logic last;
    d = (from ^ to) & 32'hFFFF_FFFE;
    if (alt) begin
      n = d < 32'h80 ? 3'd1 : d < 32'h2000 ? 3'd2 : d < 32'h10_0000 ? 3'd3 :
          d < 32'h800_0000 ? 3'd4 : 3'd5;
    end else begin
      n = d < 32'h80 ? 3'd1 : d < 32'h4000 ? 3'd2 : d < 32'h20_0000 ? 3'd3 :
          d < 32'h1000_0000 ? 3'd4 : 3'd5;
    end
    if (exc_valid) begin
      n = alt ? (n < 3'd2 ? 3'd2 : n) : 3'd5;
    end
    b = '0;
    b[7:0] = {(n > 3'd1), to[6:1], 1'b1};
    k = 3'd1;
    for (int i = 1; i < 4; i++) begin
      if (3'(i) < n) begin
        last = (3'(i) == n - 3'd1);
        sh = to[7*i +: 7];
        if (alt && last) begin
          b[k*8 +: 8] = {1'b0, exc_valid, sh[5:0]};
        end else begin
          b[k*8 +: 8] = {~last, sh[6:0]};
        end
        k = k + 3'd1;
      end
    end
    if (n == 3'd5) begin
      b[k*8 +: 8] = {1'b0, exc_valid, 2'b01, to[31:28]};
      k = k + 3'd1;
    end
    if (exc_valid) begin
      b[k*8 +: 8] = {(exc >= 9'd16), 1'b0, cancel, exc[3:0], 1'b0};
      k = k + 3'd1;
      if (exc >= 9'd16) begin
        b[k*8 +: 8] = {3'b000, exc[8:4]};
        k = k + 3'd1;
      end
    end
    branch_packet = {k, b};
  endfunction

  // etm_m3_traced_exception(): Cortex-M3 TRM table 14-8.
  function automatic logic [8:0] m3_traced_exception(input logic [8:0] intnum);
    logic [8:0] r;
    unique case (intnum)
      9'd0:  r = 9'd0;
      9'd1:  r = 9'd17;
      9'd2:  r = 9'd10;
      9'd3:  r = 9'd19;
      9'd4:  r = 9'd13;
      9'd5:  r = 9'd21;
      9'd6:  r = 9'd9;
      9'd7:  r = 9'd22;
      9'd8:  r = 9'd16;
      9'd9:  r = 9'd20;
      9'd10: r = 9'd18;
      9'd11: r = 9'd11;
      9'd12: r = 9'd12;
      9'd13: r = 9'd23;
      9'd14: r = 9'd14;
      9'd15: r = 9'd15;
      9'd16: r = 9'd8;
      9'd17: r = 9'd1;
      9'd18: r = 9'd2;
      9'd19: r = 9'd3;
      9'd20: r = 9'd4;
      9'd21: r = 9'd5;
      9'd22: r = 9'd6;
      9'd23: r = 9'd7;
      default: r = intnum;
    endcase
    m3_traced_exception = r;
  endfunction

  // ETMv1 address packets (pipestat.c addr_packets): the fewest 7-bit groups
  // covering the bits of a that differ from ref; full forces all 5 with the
  // reason in the last. Returns {count[2:0], bytes[39:0]}.
  function automatic logic [42:0] v1_addr_packets(input logic [31:0] a, input logic [31:0] ref_a,
                                                  input logic full, input logic [2:0] reason);
    logic [31:0] d;
    logic [2:0] n;
    logic [39:0] b;
    logic [6:0] sh;
    d = a ^ ref_a;
    n = full ? 3'd5 : d < 32'h80 ? 3'd1 : d < 32'h4000 ? 3'd2 : d < 32'h20_0000 ? 3'd3 :
        d < 32'h1000_0000 ? 3'd4 : 3'd5;
    b = '0;
    for (int i = 0; i < 4; i++) begin
      if (3'(i) < n) begin
        sh = a[7*i +: 7];
        b[i*8 +: 8] = {(3'(i + 1) < n), sh[6:0]};
      end
    end
    if (n == 3'd5) begin
      b[32 +: 8] = {1'b0, reason, a[31:28]};
    end
    v1_addr_packets = {n, b};
  endfunction

  // ---- The data slot: memory view to register view (model/core/src/dataslot.c) ----------
  // ETMDACTL fields: [1:0] DASlot, [10:3] DABLSel, [11] DAUnaligned, [13:12] DARot,
  // [14] DASwizzle, [15] DACPRT, [16] DALast, [17] DANSeq.
  function automatic logic [3:0] dslot_lanes(input logic [7:0] l);
    dslot_lanes = 4'd0;
    for (int i = 0; i < 8; i++) dslot_lanes = dslot_lanes + {3'd0, l[i]};
  endfunction

  // The low n bytes of w (all of it from 4 bytes up).
  function automatic logic [31:0] dslot_low(input logic [31:0] w, input logic [3:0] n);
    dslot_low = w;
    for (int i = 0; i < 4; i++) begin
      if (4'(i) >= n) dslot_low[i*8 +: 8] = 8'd0;
    end
  endfunction

  // Steps 1-4 with an explicit rotation and swizzle: the word of the selected
  // lanes, byte-reversed when big-endian, rotated right by rot bytes, low n bytes.
  function automatic logic [31:0] dslot_view(input logic [7:0] lanes, input logic [63:0] dd,
                                             input logic [1:0] rot, input logic swz);
    logic [31:0] w;
    w = (lanes[3:0] != 4'd0) ? dd[31:0] : dd[63:32];
    if (swz) w = {w[7:0], w[15:8], w[23:16], w[31:24]};
    if (rot != 2'd0) w = (w >> (8 * rot)) | (w << (6'd32 - 6'(8 * rot)));
    dslot_view = dslot_low(w, dslot_lanes(lanes));
  endfunction

  // etm_dslot_register_view(): ETMDACTL's DABLSel [10:3], DARot [13:12] and
  // DASwizzle [14] of the transfer.
  function automatic logic [31:0] dslot_reg_view(input logic [17:0] ctl, input logic [63:0] dd);
    dslot_reg_view = dslot_view(ctl[10:3], dd, ctl[13:12], ctl[14]);
  endfunction

  // etm_dslot_register_view2(): the two halves of an unaligned access (ctl1 =
  // ETMDACTL of the first, lanes2 = DABLSel of the second). The second
  // half's bytes start at a word boundary; the first half's swizzle holds.
  function automatic logic [31:0] dslot_reg_view2(input logic [17:0] ctl1, input logic [63:0] dd1,
                                                  input logic [7:0] lanes2, input logic [63:0] dd2);
    logic [3:0] n1, n2;
    logic [1:0] rot2;
    logic [31:0] lo, hi;
    n1 = dslot_lanes(ctl1[10:3]);
    n2 = dslot_lanes(lanes2);
    rot2 = ctl1[14] ? 2'(3'd4 - n2[2:0]) : 2'd0;
    lo = dslot_reg_view(ctl1, dd1);
    hi = dslot_view(lanes2, dd2, rot2, ctl1[14]);
    if (n1 >= 4'd4 || n2 >= 4'd4) dslot_reg_view2 = lo;  // not an unaligned pair
    else if (ctl1[14]) dslot_reg_view2 = dslot_low((lo << (8 * n2)) | hi, n1 + n2);
    else dslot_reg_view2 = dslot_low(lo | (hi << (8 * n1)), n1 + n2);
  endfunction

endpackage
