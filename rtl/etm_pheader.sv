// etm_pheader.sv - stage `pheader` (model/core/src/pheader.c): E, N and W atoms into
// P-headers, with the packing policy of docs/etmv3-encoder.md.
//
// The C stage is a set of operations that etm_packet calls at fixed points of a
// cycle (close the atoms before a branch packet, isolate a cancelled atom, ...).
// Here each call site is an operation slot, evaluated in the C's order on the
// state left by the slot before it; etm_packet enables the slots and places each
// slot's bytes (a segment of up to 8) between its own packets. The slots, in
// order (the letters are the ones etm_packet uses):
//   A close_all     trigger packet, or trace turned off
//   B isolate_last  ETMCANCEL
//   C close_atoms   ETMFLUSH (PH_EAGER only)
//   E close_atoms   before a branch, exception or exception return packet
//   F close_all     a trigger packet that waited behind a cancel
//   G close_atoms   before periodic A-sync/I-sync
//   P close_atoms   SYNC_PLACEMENT=1: a periodic A-sync before the atoms, where
//                   no header is open (sync_close; the slot runs only then)
//   H cycle         the cycle's W and atoms (ph_cycle)
//   I close_atoms   slot 1 is a branch target: before its branch packet; or
//                   TRACE_START=1: after the first atom after a restart
//   J atom_nowait   ... and slot 1's atom after it (or the cycle's second atom)
//   L close_atoms   SYNC_PLACEMENT=1: a periodic A-sync after the atoms, where no
//                   header is open and slot P made none (sync_close)
//   K close_atoms   data trace: before an instruction's first data packet
// Each segment also reports the W atoms its bytes carry (cycle_buf_t.w),
// whether it set `last_single` (the last packet is a one-atom P-header), and
// where its first P-header with atoms starts: with data trace, out-of-order
// placeholders go there (dp_before_atoms).
module etm_pheader (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Mode (static).
  input  logic        ca_i,        // cycle-accurate (ETMCR[12])
  input  logic        format4_i,   // ETMv3.3 and later
  input  logic        m3_i,        // PH_PACKING=1 without cycle accuracy: the ETM-M3's packing
  // Slot enables, in slot order A B C E F G P H I J L K (P and L: may run).
  // SYNC_PLACEMENT=1 decides here whether P and L run: where no header is open.
  input  logic [etm_pkg::PhSlots-1:0] slot_en_i,
  input  logic        ls_b_i,      // last_single before the cycle's packets,
  input  logic        ls_b_trig_i, // ... and a trigger packet before slot B (it clears it)
  input  logic [1:0]  natoms_i,    // slot H: atoms of the cycle (0, 1, 2)
  input  logic        exec0_i,     // slot H: first atom E (1) or N (0)
  input  logic        exec1_i,     // slot H: second atom; slot J: its atom
  // Next state: keep the state after the slots, or reset it (FIFO overflow).
  input  logic        commit_i,
  input  logic        clear_i,
  // Segments, slot k at [k*64 +: 64], byte 0 lowest.
  output logic [etm_pkg::PhSlots*64-1:0] seg_o,
  output logic [etm_pkg::PhSlots*4-1:0] seg_len_o,  // 4 bits per slot
  output logic [etm_pkg::PhSlots*32-1:0] seg_w_o,    // 32 bits per slot
  output logic [etm_pkg::PhSlots-1:0] ls_wr_o,    // the slot set last_single
  output logic [etm_pkg::PhSlots-1:0] ls_val_o,   // ... to this value
  output logic [etm_pkg::PhSlots-1:0] atoms_wr_o, // the segment holds a P-header with atoms,
  output logic        sync_p_o,    // slot P ran: its A-sync goes after it
  output logic        sync_l_o,    // slot L ran
  output logic [etm_pkg::PhSlots*4-1:0] atoms_at_o  // ... the first at this byte (4 bits per slot)
);
  localparam int unsigned NumSlots = etm_pkg::PhSlots;
  localparam int unsigned SlotA = 0, SlotB = 1, SlotC = 2, SlotE = 3, SlotF = 4, SlotG = 5,
                          SlotP = 6, SlotH = 7, SlotI = 8, SlotJ = 9, SlotL = 10, SlotK = 11;

  // ---- State (pheader_state_t) -----------------------------------------------------
  etm_pkg::ph_open_e open_q, open_d;
  logic [3:0]  open_e_q, open_e_d;
  logic [7:0]  held_q, held_d;
  logic [4:0]  held_atoms_q, held_atoms_d;
  logic [7:0]  held_w_q, held_w_d;
  logic [31:0] wrun_q, wrun_d;
  logic [7:0]  wdebt_q, wdebt_d;

  // ---- Working copy, threaded through the slots ---------------------------------
  etm_pkg::ph_open_e open;
  logic [3:0]  open_e;
  logic [7:0]  held;
  logic [4:0]  held_atoms;
  logic [7:0]  held_w;
  logic [31:0] wrun;
  logic [7:0]  wdebt;
  // The segment being written.
  logic [63:0] sb;
  logic [3:0]  sn;
  logic [31:0] sw;
  logic        lwr, lval;
  logic        awr;
  logic [3:0]  aat;

  // cbuf_put
  task automatic put(input logic [7:0] b);
    sb[sn[2:0]*8 +: 8] = b;
    sn = sn + 4'd1;
  endtask

  // put_header(): send a header now.
  task automatic put_header(input logic [7:0] h, input logic [4:0] atoms, input logic [7:0] w);
    if (atoms != 5'd0 && !awr) begin
      awr = 1'b1;
      aat = sn;
    end
    put(h);
    sw = sw + {24'd0, w};
    lwr = 1'b1;
    lval = (atoms == 5'd1);
  endtask

  task automatic push_held();
    if (held != 8'd0) begin
      put_header(held, held_atoms, held_w);
      held = 8'd0;
    end
  endtask

  // hold(): send the header held before this one and hold this one.
  task automatic hold(input logic [7:0] h, input logic [4:0] atoms, input logic [7:0] w);
    push_held();
    held = h;
    held_atoms = atoms;
    held_w = w;
  endtask

  task automatic close_open();
    if (open == etm_pkg::PhOpenF1) begin
      if (ca_i) hold(etm_pkg::hdr_f1(open_e, 1'b0), {1'b0, open_e}, {4'd0, open_e});
      else      hold(etm_pkg::hdr_f1(open_e, 1'b0), {1'b0, open_e}, 8'd0);
    end else if (open == etm_pkg::PhOpenN) begin
      hold(etm_pkg::hdr_f1(4'd0, 1'b1), 5'd1, 8'd0);
    end
    open = etm_pkg::PhOpenNone;
    open_e = 4'd0;
  endtask

  // put_cycle_count(): header 0x04 and 1-5 bytes.
  task automatic put_cycle_count(input logic [31:0] n);
    logic [42:0] cc;
    cc = etm_pkg::count_bytes(n);
    put(etm_defs_pkg::HdrCycleCount);
    for (int i = 0; i < 5; i++) begin
      if (3'(i) < cc[42:40]) put(cc[i*8 +: 8]);
    end
    lwr = 1'b1;
    lval = 1'b0;
  endtask

  // flush_run(): send the W run with no atom after it.
  task automatic flush_run();
    logic [31:0] n;
    logic [3:0] k;
    n = wrun;
    if (n != 32'd0) begin
      push_held();
      if (n > etm_defs_pkg::LongRun) begin
        put_cycle_count(n);
        sw = sw + n;
      end else begin
        for (int i = 0; i < 3; i++) begin
          if (n != 32'd0) begin
            k = n > 32'd8 ? 4'd8 : n[3:0];
            put_header(etm_pkg::hdr_f3(k, 1'b0), 5'd0, {4'd0, k});
            n = n - {28'd0, k};
          end
        end
      end
      wrun = 32'd0;
    end
  endtask

  // ph_close_atoms(), ph_close_all()
  task automatic close_atoms();
    close_open();
    push_held();
  endtask

  task automatic close_all();
    close_atoms();
    flush_run();
  endtask

  // ph_cycle(): one cycle, W (cycle-accurate) then its atoms.
  task automatic ph_cycle(input logic [1:0] natoms, input logic x0, input logic x1);
    logic e;
    logic [3:0] k;
    logic [31:0] w;
    logic done;
    if (natoms != 2'd0) push_held();
    if (!ca_i && m3_i) begin
      // cycle_m3: format 1 only, E atoms into the open header, which closes at an
      // N (E..E N, or N alone) or at 15 E and goes out at once. (Nothing is held
      // in this packing: close_open's header is pushed by the close that made it.)
      for (int i = 0; i < 2; i++) begin
        if (2'(i) < natoms) begin
          e = (i == 0) ? x0 : x1;
          k = (open == etm_pkg::PhOpenF1) ? open_e : 4'd0;
          if (e && k < 4'd14) begin
            open = etm_pkg::PhOpenF1;
            open_e = k + 4'd1;
          end else begin
            put_header(etm_pkg::hdr_f1(e ? 4'd15 : k, !e), e ? 5'd15 : {1'b0, k} + 5'd1, 8'd0);
            open = etm_pkg::PhOpenNone;
            open_e = 4'd0;
          end
        end
      end
    end else if (!ca_i) begin
      for (int i = 0; i < 2; i++) begin
        if (2'(i) < natoms) begin
          e = (i == 0) ? x0 : x1;
          if (open == etm_pkg::PhOpenF1) begin
            if (!e) begin
              hold(etm_pkg::hdr_f1(open_e, 1'b1), {1'b0, open_e} + 5'd1, 8'd0);
              open = etm_pkg::PhOpenNone;
              open_e = 4'd0;
            end else if (open_e < 4'd15) begin
              open_e = open_e + 4'd1;
            end else begin
              close_open();
              open = etm_pkg::PhOpenF1;
              open_e = 4'd1;
            end
          end else if (open == etm_pkg::PhOpenN) begin
            hold(etm_pkg::hdr_f2(1'b0, e), 5'd2, 8'd0);
            open = etm_pkg::PhOpenNone;
          end else begin
            open = e ? etm_pkg::PhOpenF1 : etm_pkg::PhOpenN;
            open_e = e ? 4'd1 : 4'd0;
          end
        end
      end
    end else if (natoms == 2'd0) begin
      if (wdebt != 8'd0) begin
        wdebt = wdebt - 8'd1;
      end else begin
        close_open();
        if (wrun != 32'hFFFF_FFFF) begin
          wrun = wrun + 32'd1;
        end else begin
          flush_run();
          wrun = 32'd1;
        end
      end
    end else if (natoms == 2'd2) begin
      close_open();
      flush_run();
      hold(etm_pkg::hdr_f2(x0, x1), 5'd2, 8'd1);
    end else begin
      e = x0;
      done = 1'b0;
      if (wrun != 32'd0) begin
        if (wrun > etm_defs_pkg::LongRun || !e) begin
          flush_run();
        end else begin
          // n idle cycles, then this cycle's W and its E: format 3 headers.
          push_held();
          w = wrun + 32'd1;
          for (int i = 0; i < 3; i++) begin
            if (w > 32'd8) begin
              put_header(etm_pkg::hdr_f3(4'd8, 1'b0), 5'd0, 8'd8);
              w = w - 32'd8;
            end
          end
          wrun = 32'd0;
          if (w == 32'd1) begin  // just W E: a format 1 header the next E atoms can join
            open = etm_pkg::PhOpenF1;
            open_e = 4'd1;
          end else begin
            hold(etm_pkg::hdr_f3(w[3:0], 1'b1), 5'd1, w[7:0]);
          end
          done = 1'b1;
        end
      end
      if (!done) begin
        if (open == etm_pkg::PhOpenF1) begin
          if (!e) begin
            hold(etm_pkg::hdr_f1(open_e, 1'b1), {1'b0, open_e} + 5'd1, {4'd0, open_e} + 8'd1);
            open = etm_pkg::PhOpenNone;
            open_e = 4'd0;
          end else if (open_e < 4'd7) begin
            open_e = open_e + 4'd1;
          end else begin
            close_open();
            open = etm_pkg::PhOpenF1;
            open_e = 4'd1;
          end
        end else begin
          push_held();
          if (e) begin
            open = etm_pkg::PhOpenF1;
            open_e = 4'd1;
          end else begin
            hold(etm_pkg::hdr_f1(4'd0, 1'b1), 5'd1, 8'd1);
          end
        end
      end
    end
  endtask

  // ph_atom_nowait(): an atom without a W (the second of a cycle after a packet).
  task automatic atom_nowait(input logic x);
    if (!ca_i) begin
      ph_cycle(2'd1, x, 1'b0);
    end else if (!format4_i) begin
      ph_cycle(2'd1, x, 1'b0);
      if (wdebt < 8'd255) wdebt = wdebt + 8'd1;
    end else begin
      close_open();
      flush_run();
      hold(etm_pkg::hdr_f4(x), 5'd1, 8'd0);
    end
  endtask

  // split(): send `prefix`, then hold `last` alone, with an Ignore between when
  // the packet before `last` is itself a one-atom header.
  task automatic split(input logic have_prefix, input logic [7:0] prefix, input logic [4:0] prefix_atoms,
                       input logic [7:0] prefix_w, input logic [7:0] last, input logic [7:0] last_w);
    if (have_prefix) put_header(prefix, prefix_atoms, prefix_w);
    if (lval) begin
      put(etm_defs_pkg::HdrIgnore);
      lwr = 1'b1;
      lval = 1'b0;
    end
    held = last;
    held_atoms = 5'd1;
    held_w = last_w;
  endtask

  // ph_isolate_last(): the most recent atom alone in the last header.
  task automatic isolate_last();
    logic [3:0] k;
    logic [7:0] h;
    logic a, b, n;
    logic [3:0] e;
    if (open == etm_pkg::PhOpenF1) begin
      k = open_e;
      open = etm_pkg::PhOpenNone;
      open_e = 4'd0;
      push_held();
      if (ca_i) split(k > 4'd1, etm_pkg::hdr_f1(k - 4'd1, 1'b0), {1'b0, k} - 5'd1, {4'd0, k} - 8'd1,
                      etm_pkg::hdr_f1(4'd1, 1'b0), 8'd1);
      else      split(k > 4'd1, etm_pkg::hdr_f1(k - 4'd1, 1'b0), {1'b0, k} - 5'd1, 8'd0,
                      etm_pkg::hdr_f1(4'd1, 1'b0), 8'd0);
    end else if (open == etm_pkg::PhOpenN) begin
      open = etm_pkg::PhOpenNone;
      push_held();
      split(1'b0, 8'd0, 5'd0, 8'd0, etm_pkg::hdr_f1(4'd0, 1'b1), 8'd0);
    end else if (held != 8'd0 && held_atoms != 5'd0) begin
      h = held;
      held = 8'd0;
      if (h[1:0] == 2'b10) begin
        if (h[7:4] == 4'h9) begin  // format 4: one atom
          split(1'b0, 8'd0, 5'd0, 8'd0, h, 8'd0);
        end else begin             // format 2: atoms a, b
          a = ~h[3];
          b = ~h[2];
          if (!ca_i) begin
            split(1'b1, etm_pkg::hdr_f1({3'd0, a}, ~a), 5'd1, 8'd0, etm_pkg::hdr_f1({3'd0, b}, ~b), 8'd0);
          end else if (!format4_i) begin
            held = h;  // cannot be separated without format 4
          end else begin
            split(1'b1, etm_pkg::hdr_f1({3'd0, a}, ~a), 5'd1, 8'd1, etm_pkg::hdr_f4(b), 8'd0);
          end
        end
      end else if (ca_i && h[5]) begin  // format 3: W..W E
        split(1'b0, 8'd0, 5'd0, 8'd0, h, held_w);
      end else begin                    // format 1
        n = h[6];
        e = ca_i ? {1'b0, h[4:2]} : h[5:2];
        if (n) begin
          if (ca_i) split(e > 4'd0, etm_pkg::hdr_f1(e, 1'b0), {1'b0, e}, {4'd0, e},
                          etm_pkg::hdr_f1(4'd0, 1'b1), 8'd1);
          else      split(e > 4'd0, etm_pkg::hdr_f1(e, 1'b0), {1'b0, e}, 8'd0,
                          etm_pkg::hdr_f1(4'd0, 1'b1), 8'd0);
        end else begin
          if (ca_i) split(e > 4'd1, etm_pkg::hdr_f1(e - 4'd1, 1'b0), {1'b0, e} - 5'd1, {4'd0, e} - 8'd1,
                          etm_pkg::hdr_f1(4'd1, 1'b0), 8'd1);
          else      split(e > 4'd1, etm_pkg::hdr_f1(e - 4'd1, 1'b0), {1'b0, e} - 5'd1, 8'd0,
                          etm_pkg::hdr_f1(4'd1, 1'b0), 8'd0);
        end
      end
    end
  endtask

  // ---- The slots -----------------------------------------------------------------
  always_comb begin
    open = open_q;
    open_e = open_e_q;
    held = held_q;
    held_atoms = held_atoms_q;
    held_w = held_w_q;
    wrun = wrun_q;
    wdebt = wdebt_q;
    seg_o = '0;
    seg_len_o = '0;
    seg_w_o = '0;
    ls_wr_o = '0;
    ls_val_o = '0;
    atoms_wr_o = '0;
    atoms_at_o = '0;
    sb = '0;
    sn = 4'd0;
    sw = 32'd0;
    lwr = 1'b0;
    lval = 1'b0;
    awr = 1'b0;
    aat = 4'd0;
    sync_p_o = 1'b0;
    sync_l_o = 1'b0;
    for (int s = 0; s < NumSlots; s++) begin
      sb = '0;
      sn = 4'd0;
      sw = 32'd0;
      lwr = 1'b0;
      // Slot B finds last_single as the cycle began, or the trigger packet.
      lval = (s == SlotB) ? !ls_b_trig_i && ls_b_i : 1'b0;
      awr = 1'b0;
      aat = 4'd0;
      if (slot_en_i[s]) begin
        unique case (s)
          SlotA, SlotF:               close_all();
          SlotB:                      isolate_last();
          SlotC, SlotE, SlotG, SlotI, SlotK: close_atoms();
          SlotP: if (open == etm_pkg::PhOpenNone) begin
                   close_atoms();
                   sync_p_o = 1'b1;
                 end
          SlotL: if (open == etm_pkg::PhOpenNone && !sync_p_o) begin
                   close_atoms();
                   sync_l_o = 1'b1;
                 end
          SlotH:                      ph_cycle(natoms_i, exec0_i, exec1_i);
          SlotJ:                      atom_nowait(exec1_i);
          default:                    ;
        endcase
      end
      seg_o[s*64 +: 64] = sb;
      seg_len_o[s*4 +: 4] = sn;
      seg_w_o[s*32 +: 32] = sw;
      ls_wr_o[s] = lwr;
      ls_val_o[s] = lval;
      atoms_wr_o[s] = awr;
      atoms_at_o[s*4 +: 4] = aat;
    end
  end

  always_comb begin
    open_d = open_q;
    open_e_d = open_e_q;
    held_d = held_q;
    held_atoms_d = held_atoms_q;
    held_w_d = held_w_q;
    wrun_d = wrun_q;
    wdebt_d = wdebt_q;
    if (clear_i) begin
      open_d = etm_pkg::PhOpenNone;
      open_e_d = 4'd0;
      held_d = 8'd0;
      held_atoms_d = 5'd0;
      held_w_d = 8'd0;
      wrun_d = 32'd0;
      wdebt_d = 8'd0;
    end else if (commit_i) begin
      open_d = open;
      open_e_d = open_e;
      held_d = held;
      held_atoms_d = held_atoms;
      held_w_d = held_w;
      wrun_d = wrun;
      wdebt_d = wdebt;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q       <= etm_pkg::PhOpenNone;
      open_e_q     <= 4'd0;
      held_q       <= 8'd0;
      held_atoms_q <= 5'd0;
      held_w_q     <= 8'd0;
      wrun_q       <= 32'd0;
      wdebt_q      <= 8'd0;
    end else begin
      open_q       <= open_d;
      open_e_q     <= open_e_d;
      held_q       <= held_d;
      held_atoms_q <= held_atoms_d;
      held_w_q     <= held_w_d;
      wrun_q       <= wrun_d;
      wdebt_q      <= wdebt_d;
    end
  end

endmodule
