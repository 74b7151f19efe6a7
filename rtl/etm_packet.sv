// etm_packet.sv - stage `packet` (model/core/src/packet.c): the ETMv3 packet stream
// around the P-headers: branch addresses, A-sync, I-sync with and without cycle
// count, periodic synchronisation, trigger, exception return, and the restart
// after a FIFO overflow. Order and timing: docs/etmv3-encoder.md.
//
// Three combinational steps per cycle:
//   1. decide (etm_packet_plan: etm_packet_cycle's control flow): which packets go
//      out, which etm_pheader slots run, and the state after the cycle;
//   2. assemble the cycle buffer in the C's order: each packet of this stage and
//      each P-header segment at its place (the I-sync cycle count needs the W
//      atoms of the segments before it, so it is formatted here);
//   3. commit: the bytes fitted (etm_packet_accepted) or not (etm_packet_overflow
//      on the state after the cycle: no roll-back); then etm_packet_tick.
// end_i is the edge of etm_end (send everything gathered, no tick); hold_i an
// edge of etm_drain (this stage does nothing).
//
// With data trace (ETMCR[3:2]) it makes the data packets too (model/core/src/dpacket.c;
// their state is etm_dpacket's):
// the cycle's value completes an entry before step 1 (D1: normal or
// out-of-order data, store failed), the cycle's transfer follows step 6 (D2:
// the slot's stale entry abandoned, the atoms sent before an instruction's first
// data packet (pheader slot K), value not traced, address only, or a NEW entry
// waiting for its value). NEW entries get out-of-order placeholders, oldest
// first, before the cycle's first P-header with atoms and before a restart I-sync.
module etm_packet #(
  parameter bit Assertions = 1'b1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Mode (static).
  input  logic        enabled_i,       // ETMv3 and not powered down or programming
  input  logic        ca_i,
  input  logic        alt_branch_i,
  input  logic        exc_ext_i,       // ETMv3.4 and later: 0x76 and exception byte 1
  input  logic        sync_in_bytes_i, // ETMv3.1 and later
  input  logic [11:0] sync_period_i,   // ETMSYNCFR[11:0]
  // This cycle's trace items (etm_frontend) and filter.
  input  logic [1:0]  natoms_i,
  input  logic [31:0] addr0_i,
  input  logic        exec0_i,
  input  logic        target0_i,
  input  logic [31:0] addr1_i,
  input  logic        exec1_i,
  input  logic        target1_i,
  input  logic        entry_i,
  input  logic        ret_i,
  input  logic [8:0]  exc_i,
  input  logic        cancel_i,
  input  logic        flush_i,
  input  logic        ph_eager_i,   // PH_EAGER: ETMFLUSH closes the atoms gathered (slot C)
  input  logic        branch_full_i, // BRANCH_FULL: branch packets carry the whole address
  input  logic        isync_info_i,  // ISYNC_INFO: bit 0 of every I-sync information byte
  input  logic        withdraw_i,    // CANCEL_FORM=1: the Cancel bit withdraws the last atom (no slot B)
  input  logic        trace_start_i, // TRACE_START=1: the first atom after a restart alone, a trigger after it
  input  logic        sync_m3_i,     // SYNC_PLACEMENT=1: A-sync where a header closed, I-sync half a period later
  input  logic        tailchain_i,   // TAILCHAIN_RETURN=1 (ETMv3.4 on): 0x76 before a tail-chained entry
  input  logic        exit_i,        // an exception exits, without an instruction
  input  logic        trace_enable_i,
  input  logic        trigger_i,
  input  logic        view_data_i,
  // Data trace: mode (static) and the data slot.
  input  logic        data_addr_i,     // ETMCR[3]
  input  logic        data_value_i,    // ETMCR[2]
  input  logic [17:0] dactl_i,
  input  logic [31:0] da_i,
  input  logic [3:0]  ddctl_i,
  input  logic [63:0] dd_i,
  // FIFO.
  input  logic        fifo_empty_i,    // level 0 at the start of the cycle
  input  logic        fit_i,           // the cycle buffer fitted
  // Edge kind.
  input  logic        end_i,
  input  logic        hold_i,
  // etm_pheader.
  output logic [etm_pkg::PhSlots-1:0] ph_slot_en_o,
  output logic        ph_ls_b_o,
  output logic        ph_ls_b_trig_o,
  output logic [1:0]  ph_natoms_o,
  output logic        ph_exec0_o,
  output logic        ph_exec1_o,
  output logic        ph_commit_o,
  output logic        ph_clear_o,
  input  logic [etm_pkg::PhSlots*64-1:0] ph_seg_i,
  input  logic [etm_pkg::PhSlots*4-1:0] ph_seg_len_i,
  input  logic [etm_pkg::PhSlots*32-1:0] ph_seg_w_i,
  input  logic [etm_pkg::PhSlots-1:0] ph_ls_wr_i,
  input  logic [etm_pkg::PhSlots-1:0] ph_ls_val_i,
  input  logic [etm_pkg::PhSlots-1:0] ph_atoms_wr_i,
  input  logic [etm_pkg::PhSlots*4-1:0] ph_atoms_at_i,
  input  logic        ph_sync_p_i,     // slot P ran: a periodic A-sync before the atoms
  input  logic        ph_sync_l_i,     // slot L ran: ... after them
  // The cycle buffer.
  output logic [etm_defs_pkg::CycleBytesMax*8-1:0] cbuf_o,
  output logic [6:0]   cbuf_n_o,
  output logic         overflow_o,     // OVERFLOW: lost now, or until trace restarts
  output logic         ovf_q_o         // an overflow whose restart is not yet traced (ETMSR[0])
);
  localparam int unsigned SlotA = 0, SlotB = 1, SlotC = 2, SlotE = 3, SlotF = 4, SlotG = 5,
                          SlotP = 6, SlotH = 7, SlotI = 8, SlotJ = 9, SlotL = 10, SlotK = 11;
  localparam int unsigned E = 3;  // DP_ENTRIES
  // dp_entry_t.state
  localparam logic [1:0] DpFree = 2'd0, DpNew = 2'd1, DpPlaced = 2'd2;
  // dp_sequence(): where the cycle's transfer stands in its instruction.
  localparam logic [1:0] XferNone = 2'd0, XferFirst = 2'd1, XferSecondHalf = 2'd3;

  // ---- State (packet_state_t without ph) ------------------------------------------
  logic        started_q, started_d;
  logic        active_q, active_d;
  logic [1:0]  reason_q, reason_d;
  logic        sync_due_q, sync_due_d;
  logic        cancel_q, cancel_d;
  logic        trig_pend_q, trig_pend_d;
  logic        ovf_q, ovf_d;
  logic        single_q, single_d;
  logic [31:0] last_addr_q, last_addr_d;
  logic [31:0] sync_count_q, sync_count_d;
  logic [31:0] wtotal_q, wtotal_d;
  logic [31:0] wsent_q, wsent_d;
  logic        exited_q, exited_d;
  logic        isync_wait_q, isync_wait_d;
  logic        isync_due_q, isync_due_d;


  // ---- Data state (dpacket_state_t, held by etm_dpacket) --------------------------
  // Entries: transfers waiting for their values (tag = index + 1).
  logic [1:0]  ent_state_q [E];
  logic        ent_a_q [E];
  logic        ent_unal_q [E];
  logic [1:0]  ent_need_q [E];
  logic [1:0]  ent_slot1_q [E];
  logic [1:0]  ent_slot2_q [E];
  logic        ent_fail_q [E];
  logic        ent_imp_q [E];
  logic [15:0] ent_seq_q [E];
  logic [31:0] ent_addr_q [E];
  logic [17:0] ent_ctl1_q [E];
  logic [17:0] ent_ctl2_q [E];
  logic [63:0] ent_dd1_q [E];
  logic [63:0] ent_dd2_q [E];
  logic [1:0]  owner_q [4];      // slot s waits for entry owner - 1
  logic [15:0] seq_q;
  logic        first_q;          // the next transfer is the first of an instruction
  logic        unal_q;           // the next transfer is a second half,
  logic [1:0]  unal_ent_q;       //   of entry unal_ent - 1 (0: not traced)
  logic        newest_q;         // the newest instruction was traced
  logic        ins_traced_q;     // the current data instruction is traced
  logic        ins_started_q;    // one of its transfers has been traced
  logic        dfull_q;          // D-sync: the next data address is full
  logic [31:0] last_daddr_q;

  // ---- 1. Decide (etm_packet_plan) -----------------------------------------------------
  // State after the cycle if its bytes fit.
  logic        started, active, sync_due, cancel, trig_pend, ovf;
  logic [1:0]  reason;
  logic [31:0] last_addr, sync_count;
  logic        exited, isync_wait, isync_due;
  // Packets of this stage, in stream order.
  logic        pa_async, pa_trig;                 // trigger: A-sync first if none yet, 0x0C
  logic        ps_async, ps_isync;                // trace (re)start
  logic [1:0]  ps_reason;
  logic [31:1] ps_addr;
  logic        ps_branch;                         // ... exception packet after it
  logic [58:0] ps_branch_b;
  logic        pb_ret, pb_branch;                 // 0x76, branch packet
  logic [58:0] pb_branch_b;
  logic        pt_async, pt_trig;                 // trigger that waited behind a cancel
  logic        pc_async;                          // A-sync after the flush hint's close
  logic        py_async, py_sync;                 // periodic A-sync and I-sync
  logic        pi_trig;                           // trigger after the first atom's header
  logic [31:1] py_addr;
  logic        ph_branch;                         // slot 1's branch packet
  logic [58:0] ph_branch_b;
  // Data trace: the cycle's value and transfer (D1, D2).
  logic        d_on;                              // D1 and D2 run this cycle
  logic [1:0]  x_kind;                            // dp_sequence()
  logic        seq_first, seq_unal;               // first_q, unal_q after it
  logic        d_newest;                          // newest_q at D2
  logic        d_ins_traced;                      // ins_traced_q at D2's test
  logic        x_traced;                          // D2 traces the transfer

  etm_packet_plan u_plan (
    .enabled_i, .ca_i, .alt_branch_i, .exc_ext_i, .ph_eager_i, .branch_full_i, .withdraw_i, .trace_start_i,
    .sync_m3_i, .tailchain_i, .exit_i, .data_addr_i,
    .data_value_i,
    .natoms_i, .addr0_i, .exec0_i, .target0_i, .addr1_i, .exec1_i, .target1_i, .entry_i, .ret_i, .exc_i,
    .cancel_i, .flush_i, .trace_enable_i, .trigger_i, .view_data_i, .dactl_i, .fifo_empty_i, .end_i, .hold_i,
    .started_q, .active_q, .reason_q, .sync_due_q, .cancel_q, .trig_pend_q, .ovf_q, .single_q, .last_addr_q,
    .sync_count_q, .exited_q, .isync_wait_q, .isync_due_q, .first_q, .unal_q, .newest_q, .ins_traced_q, .ins_started_q,
    .ph_slot_en_o, .ph_ls_b_o, .ph_ls_b_trig_o, .ph_natoms_o, .ph_exec0_o, .ph_exec1_o,
    .started, .active, .sync_due, .cancel, .trig_pend, .ovf, .reason, .last_addr, .sync_count,
    .exited, .isync_wait, .isync_due, .pc_async, .py_async, .pi_trig,
    .pa_async, .pa_trig, .ps_async, .ps_isync, .ps_reason, .ps_addr, .ps_branch, .ps_branch_b, .pb_ret,
    .pb_branch, .pb_branch_b, .pt_async, .pt_trig, .py_sync, .py_addr, .ph_branch, .ph_branch_b,
    .d_on, .x_kind, .seq_first, .seq_unal, .d_newest, .d_ins_traced, .x_traced
  );

  // ---- 2. Assemble the cycle buffer --------------------------------------------------
  logic [etm_defs_pkg::CycleBytesMax*8-1:0] cb;
  logic [6:0]  cn;
  logic        ovr;    // a byte did not fit (cycle_buf_t.overrun != 0): never expected
  logic [31:0] cw;     // W atoms and counts the bytes carry (cycle_buf_t.w)
  logic        ls;     // cycle_buf_t.last_single

  // Working copy of the data state, threaded through the cycle's packets.
  logic [1:0]  ent_state_w [E];
  logic        ent_a_w [E];
  logic        ent_unal_w [E];
  logic [1:0]  ent_need_w [E];
  logic [1:0]  ent_slot1_w [E];
  logic [1:0]  ent_slot2_w [E];
  logic        ent_fail_w [E];
  logic        ent_imp_w [E];
  logic [15:0] ent_seq_w [E];
  logic [31:0] ent_addr_w [E];
  logic [17:0] ent_ctl1_w [E];
  logic [17:0] ent_ctl2_w [E];
  logic [63:0] ent_dd1_w [E];
  logic [63:0] ent_dd2_w [E];
  logic [1:0]  owner_w [4];
  logic [15:0] seq_w;
  logic [1:0]  unal_ent_w;
  logic        ins_started_w;
  logic        dfull_w;
  logic [31:0] last_daddr_w;

  // The bytes are gathered in the C's order, but not byte by byte: each packet is
  // formed at fixed byte positions, packets are gathered into a fragment of at
  // most FragBytes bytes by a small shift each, and each fragment goes into the
  // cycle buffer by one wide shift (emit). Written a byte at a time at a running
  // offset (the literal cbuf_put()), every byte would be a write port across the
  // whole 96-byte buffer: hundreds of them, too many to synthesize.
  localparam int unsigned FragBytes = 32;
  localparam int unsigned CbBits = etm_defs_pkg::CycleBytesMax * 8;
  logic [FragBytes*8-1:0] fr;  // the fragment being gathered
  logic [5:0]  fn;             // its length in bytes

  // frag(): a packet of n bytes (f is zero beyond them) after the fragment's bytes.
  task automatic frag(input logic [87:0] f, input logic [3:0] n);
    logic [FragBytes*8-1:0] w;
    // An empty packet adds nothing (f is zero then); the test spares the
    // simulator the shift, synthesis sees the same function.
    if (n != 4'd0) begin
      w = '0;
      w[87:0] = f;
      fr = fr | (w << {fn, 3'b000});
      fn = fn + {2'd0, n};
    end
  endtask

  // emit(): the fragment to the cycle buffer; a cycle holds at most CycleBytesMax
  // bytes, the rest is cut and the cycle becomes an overflow (cbuf_put()).
  task automatic emit();
    logic [CbBits-1:0] w;
    logic [7:0] t;
    // Most fragments are empty (fr is zero then): the test spares the
    // simulator the 96-byte shift, synthesis sees the same function.
    if (fn != 6'd0) begin
      w = '0;
      w[FragBytes*8-1:0] = fr;
      cb = cb | (w << {cn, 3'b000});
      t = {1'b0, cn} + {2'd0, fn};
      cn = (t > 8'(etm_defs_pkg::CycleBytesMax)) ? 7'(etm_defs_pkg::CycleBytesMax) : t[6:0];
      if (t > 8'(etm_defs_pkg::CycleBytesMax)) ovr = 1'b1;
      fr = '0;
      fn = 6'd0;
    end
  endtask

  // put(): a packet of this stage (not data): last_single no longer holds.
  task automatic put(input logic [87:0] f, input logic [3:0] n);
    frag(f, n);
    if (n != 4'd0) ls = 1'b0;
  endtask

  task automatic put_async();
    put({40'd0, etm_defs_pkg::HdrAsyncLast, 40'd0}, 4'd6);
    dfull_w = 1'b1;  // D-sync: the next data address is full
  endtask

  // ---- Data packets (dpacket.c); data bytes leave last_single alone ----------------
  // daddr(): the data address compressed against the last one output, n bytes.
  task automatic daddr(input logic [31:0] a, output logic [39:0] f, output logic [2:0] n);
    logic [31:0] x;
    x = a ^ last_daddr_w;
    n = dfull_w ? 3'd5 : x < 32'h80 ? 3'd1 : x < 32'h4000 ? 3'd2 : x < 32'h20_0000 ? 3'd3 :
        x < 32'h1000_0000 ? 3'd4 : 3'd5;
    f = '0;
    for (int k = 0; k < 4; k++) begin
      if (3'(k) < n) f[8*k +: 8] = {3'(k + 1) < n, a[7*k +: 7]};
    end
    if (n == 3'd5) f[32 +: 8] = {4'd0, a[31:28]};
    last_daddr_w = a;
    dfull_w = 1'b0;
  endtask


  // value_size(): 0, 1, 2 or 4 bytes, leading zero bytes left out.
  function automatic logic [2:0] value_size(input logic [31:0] v);
    value_size = v == 32'd0 ? 3'd0 : v < 32'h100 ? 3'd1 : v < 32'h1_0000 ? 3'd2 : 3'd4;
  endfunction

  function automatic logic [1:0] size_field(input logic [2:0] bytes);
    size_field = bytes == 3'd4 ? 2'd3 : bytes[1:0];
  endfunction

  // value_bytes(): the low `bytes` bytes of v, zero above.
  function automatic logic [31:0] value_bytes(input logic [31:0] v, input logic [2:0] bytes);
    value_bytes = '0;
    for (int k = 0; k < 4; k++) begin
      if (3'(k) < bytes) value_bytes[8*k +: 8] = v[8*k +: 8];
    end
  endfunction

  // A data header, then the address when a && data_addr_i.
  task automatic hdr_daddr(input logic [7:0] h, input logic a, input logic [31:0] addr,
                           output logic [47:0] f, output logic [2:0] dn);
    logic [39:0] df;
    df = '0;
    dn = 3'd0;
    if (a && data_addr_i) daddr(addr, df, dn);
    f = {df, h};
  endtask

  task automatic put_normal(input logic a, input logic [31:0] addr, input logic valued, input logic [31:0] v);
    logic [2:0] bytes, dn;
    logic [47:0] f;
    bytes = valued ? value_size(v) : 3'd0;
    if (valued && bytes == 3'd0 && a && data_addr_i) bytes = 3'd1;  // 0 as one byte after an address
    hdr_daddr(etm_defs_pkg::HdrNormalData | {2'b00, a, 1'b0, size_field(bytes), 2'b00}, a, addr, f, dn);
    frag({40'd0, f} | ({56'd0, value_bytes(v, bytes)} << {dn + 3'd1, 3'b000}),
         4'd1 + {1'b0, dn} + {1'b0, bytes});
  endtask

  task automatic put_vnt(input logic a_in, input logic [31:0] addr);
    logic a;
    logic [2:0] dn;
    logic [47:0] f;
    a = a_in || data_addr_i;  // with address tracing on, the address always goes with it
    hdr_daddr(etm_defs_pkg::HdrValueNotTraced | {3'b000, a, 4'b0000}, a, addr, f, dn);
    frag({40'd0, f}, 4'd1 + {1'b0, dn});
  endtask

  task automatic put_placeholder(input logic a, input logic [31:0] addr, input logic [1:0] tag);
    logic [2:0] dn;
    logic [47:0] f;
    hdr_daddr(etm_defs_pkg::HdrOooPlaceholder | {2'b00, a, 1'b0, tag, 2'b00}, a, addr, f, dn);
    frag({40'd0, f}, 4'd1 + {1'b0, dn});
  endtask

  task automatic put_ooo(input logic [1:0] tag, input logic [31:0] v);
    logic [2:0] bytes;
    bytes = value_size(v);
    frag({48'd0, value_bytes(v, bytes), etm_defs_pkg::HdrOooData | {1'b0, tag, 1'b0, size_field(bytes), 2'b00}},
         4'd1 + {1'b0, bytes});
  endtask

  // older(): x's address came before y's.
  function automatic logic older(input logic [15:0] x, input logic [15:0] y);
    older = $signed(16'(x - y)) < 16'sd0;
  endfunction

  // place_older(): placeholders for the NEW entries older than entry `bef`
  // (all of them when has_before is 0), oldest first.
  task automatic place_older(input logic has_before, input logic [1:0] bef);
    logic found;
    logic [1:0] o;
    for (int r = 0; r < E; r++) begin
      found = 1'b0;
      o = 2'd0;
      for (int i = 0; i < E; i++) begin
        if (ent_state_w[i] == DpNew && !(has_before && 2'(i) == bef) &&
            (!has_before || older(ent_seq_w[i], ent_seq_w[bef])) &&
            (!found || older(ent_seq_w[i], ent_seq_w[o]))) begin
          found = 1'b1;
          o = 2'(i);
        end
      end
      if (found) begin
        put_placeholder(ent_a_w[o], ent_addr_w[o], o + 2'd1);
        ent_state_w[o] = DpPlaced;
      end
    end
  endtask

  task automatic free_entry(input logic [1:0] k);
    for (int s = 1; s < 4; s++) begin
      if (owner_w[s] == k + 2'd1) owner_w[s] = 2'd0;
    end
    if (unal_ent_w == k + 2'd1) unal_ent_w = 2'd0;
    ent_state_w[k] = DpFree;
    ent_a_w[k] = 1'b0;
    ent_unal_w[k] = 1'b0;
    ent_need_w[k] = 2'd0;
    ent_slot1_w[k] = 2'd0;
    ent_slot2_w[k] = 2'd0;
    ent_fail_w[k] = 1'b0;
    ent_imp_w[k] = 1'b0;
    ent_seq_w[k] = 16'd0;
    ent_addr_w[k] = 32'd0;
    ent_ctl1_w[k] = 18'd0;
    ent_ctl2_w[k] = 18'd0;
    ent_dd1_w[k] = 64'd0;
    ent_dd2_w[k] = 64'd0;
  endtask

  // not_traced(): value not traced if nothing of the transfer went out yet.
  task automatic not_traced(input logic [1:0] k);
    if (ent_state_w[k] == DpNew) begin
      place_older(1'b1, k);
      put_vnt(ent_a_w[k], ent_addr_w[k]);
    end
    free_entry(k);
  endtask

  // resolve(): every value of entry k has come. An imprecise abort ignores the
  // data (value not traced); a failed STREX traces the value 0, then Store failed.
  // The placeholders of older NEW entries go first either way.
  task automatic resolve_entry(input logic [1:0] k);
    logic [31:0] v;
    logic fresh;
    fresh = ent_state_w[k] == DpNew;
    v = ent_unal_w[k] ? etm_pkg::dslot_reg_view2(ent_ctl1_w[k], ent_dd1_w[k], ent_ctl2_w[k][10:3],
                                                 ent_dd2_w[k])
                      : etm_pkg::dslot_reg_view(ent_ctl1_w[k], ent_dd1_w[k]);
    if (ent_fail_w[k]) v = 32'd0;
    if (fresh) place_older(1'b1, k);
    if (ent_imp_w[k]) begin
      if (fresh) put_vnt(ent_a_w[k], ent_addr_w[k]);
    end else begin
      if (fresh) put_normal(ent_a_w[k], ent_addr_w[k], 1'b1, v);
      else put_ooo(k + 2'd1, v);
      if (ent_fail_w[k]) frag({80'd0, etm_defs_pkg::HdrStoreFailed}, 4'd1);
    end
    free_entry(k);
  endtask

  // A P-header segment; with data trace the NEW entries' placeholders go before
  // its first P-header with atoms (dp_before_atoms): after `at` of its bytes.
  task automatic put_seg(input int unsigned k);
    logic [63:0] s, lo, hi;
    logic [3:0] n, at;
    logic pl;
    s = ph_seg_i[k*64 +: 64];
    n = ph_seg_len_i[k*4 +: 4];
    if (n > 4'd8) n = 4'd8;
    at = ph_atoms_at_i[k*4 +: 4];
    pl = d_on && ph_atoms_wr_i[k] && at < 4'd8;
    if (!pl || at > n) at = n;
    lo = '0;
    hi = '0;
    if (n != 4'd0) begin  // (an idle slot spares the simulator the byte shuffle)
      for (int i = 0; i < 8; i++) begin
        if (4'(i) < at) lo[i*8 +: 8] = s[i*8 +: 8];
      end
      hi = s >> {at, 3'b000};
      for (int i = 0; i < 8; i++) begin
        if (4'(i) >= n - at) hi[i*8 +: 8] = 8'd0;
      end
    end
    frag({24'd0, lo}, at);
    if (pl) place_older(1'b0, 2'd0);
    frag({24'd0, hi}, n - at);
    cw = cw + ph_seg_w_i[k*32 +: 32];
    if (ph_ls_wr_i[k]) ls = ph_ls_val_i[k];
  endtask

  task automatic put_branch(input logic [58:0] p);
    put({32'd0, p[55:0]}, {1'b0, p[58:56]});
  endtask

  // put_isync(): with_cc selects the 0x70 form with count cc.
  task automatic put_isync(input logic [1:0] rsn, input logic [31:1] addr, input logic with_cc,
                           input logic [31:0] cc);
    logic [42:0] ccb;
    logic [39:0] tail;
    tail = {addr[31:24], addr[23:16], addr[15:8], addr[7:1], 1'b1, 1'b0, rsn, 4'd0, isync_info_i};  // bit 0: Thumb
    if (with_cc) begin
      ccb = etm_pkg::count_bytes(cc);
      put({40'd0, ccb[39:0], etm_defs_pkg::HdrIsyncCc} | ({48'd0, tail} << {ccb[42:40] + 3'd1, 3'b000}),
          4'd6 + {1'b0, ccb[42:40]});
      cw = cw + cc;
    end else begin
      put({40'd0, tail, etm_defs_pkg::HdrIsync}, 4'd6);
    end
    if (rsn != etm_defs_pkg::IsyncReasonPeriodic) dfull_w = 1'b1;
  endtask

  always_comb begin : assemble
    logic [1:0] k, dds, das;
    logic a;
    logic found;
    cb = '0;
    cn = 7'd0;
    ovr = 1'b0;
    fr = '0;
    fn = 6'd0;
    cw = 32'd0;
    ls = single_q;
    for (int i = 0; i < E; i++) begin
      ent_state_w[i] = ent_state_q[i];
      ent_a_w[i] = ent_a_q[i];
      ent_unal_w[i] = ent_unal_q[i];
      ent_need_w[i] = ent_need_q[i];
      ent_slot1_w[i] = ent_slot1_q[i];
      ent_slot2_w[i] = ent_slot2_q[i];
      ent_fail_w[i] = ent_fail_q[i];
      ent_imp_w[i] = ent_imp_q[i];
      ent_seq_w[i] = ent_seq_q[i];
      ent_addr_w[i] = ent_addr_q[i];
      ent_ctl1_w[i] = ent_ctl1_q[i];
      ent_ctl2_w[i] = ent_ctl2_q[i];
      ent_dd1_w[i] = ent_dd1_q[i];
      ent_dd2_w[i] = ent_dd2_q[i];
    end
    for (int i = 0; i < 4; i++) owner_w[i] = owner_q[i];
    seq_w = seq_q;
    unal_ent_w = unal_ent_q;
    ins_started_w = ins_started_q;
    dfull_w = dfull_q;
    last_daddr_w = last_daddr_q;
    dds = ddctl_i[1:0];
    das = dactl_i[1:0];
    k = 2'd0;
    a = 1'b0;
    found = 1'b0;

    // D1 (dp_values): the cycle's value, for the address its slot waits on.
    if (d_on && dds != 2'd0 && owner_w[dds] != 2'd0) begin
      k = owner_w[dds] - 2'd1;
      owner_w[dds] = 2'd0;
      if (dds == ent_slot1_w[k] && ent_need_w[k][0]) begin
        ent_dd1_w[k] = dd_i;
        ent_need_w[k][0] = 1'b0;
      end else begin
        ent_dd2_w[k] = dd_i;
        ent_need_w[k][1] = 1'b0;
      end
      ent_fail_w[k] = ent_fail_w[k] | ddctl_i[2];
      ent_imp_w[k] = ent_imp_w[k] | ddctl_i[3];
      if (ent_need_w[k] == 2'd0) resolve_entry(k);
    end
    emit();

    // The fragments below stay within FragBytes bytes each (a segment with the
    // placeholders of three entries is 26).
    if (pa_async) put_async();
    put_seg(SlotA);
    emit();
    if (pa_trig) put({80'd0, etm_defs_pkg::HdrTrigger}, 4'd1);
    put_seg(SlotB);
    emit();
    put_seg(SlotC);
    emit();
    if (pc_async) put_async();
    emit();
    // Trace (re)starts: transfers still waiting for their values are placed first.
    if (ps_isync && d_on) place_older(1'b0, 2'd0);
    if (ps_async) put_async();
    emit();
    // cycles_unsent(): cycles since the last W or count sent, this cycle's bytes included.
    if (ps_isync) put_isync(ps_reason, ps_addr, ca_i, wtotal_q - wsent_q - cw);
    if (ps_branch) put_branch(ps_branch_b);
    emit();
    put_seg(SlotE);
    emit();
    if (pb_ret) put({80'd0, etm_defs_pkg::HdrExcReturn}, 4'd1);
    if (pb_branch) put_branch(pb_branch_b);
    if (pt_async) put_async();
    emit();
    put_seg(SlotF);
    if (pt_trig) put({80'd0, etm_defs_pkg::HdrTrigger}, 4'd1);
    emit();
    put_seg(SlotG);
    emit();
    if (py_async) put_async();
    if (py_sync) put_isync(etm_defs_pkg::IsyncReasonPeriodic, py_addr, 1'b0, 32'd0);
    emit();
    put_seg(SlotP);
    emit();
    if (ph_sync_p_i) put_async();
    emit();
    put_seg(SlotH);
    emit();
    put_seg(SlotI);
    emit();
    if (pi_trig) put({80'd0, etm_defs_pkg::HdrTrigger}, 4'd1);
    if (ph_branch) put_branch(ph_branch_b);
    emit();
    put_seg(SlotJ);
    emit();
    put_seg(SlotL);
    emit();
    if (ph_sync_l_i) put_async();
    emit();

    // D2 (dp_address): the cycle's transfer, after its instructions.
    if (d_on && x_kind != XferNone) begin
      // A new address on a slot abandons the one still waiting there.
      if (owner_w[das] != 2'd0) not_traced(owner_w[das] - 2'd1);
      if (x_kind == XferSecondHalf) begin
        if (unal_ent_w != 2'd0) begin
          k = unal_ent_w - 2'd1;
          ent_slot2_w[k] = das;
          ent_ctl2_w[k] = dactl_i;
          owner_w[das] = unal_ent_w;
          unal_ent_w = 2'd0;
        end
      end else begin
        unal_ent_w = 2'd0;
        if (x_kind == XferFirst) ins_started_w = 1'b0;
        if (x_traced) begin
          a = !ins_started_w || dactl_i[17];
          emit();
          put_seg(SlotK);  // the instruction's atom before its first data packet
          emit();
          ins_started_w = 1'b1;
          if (!view_data_i || !data_value_i) begin
            // Complete now: value not traced, or the address alone.
            place_older(1'b0, 2'd0);
            if (view_data_i) put_normal(a, da_i, 1'b0, 32'd0);
            else put_vnt(a, da_i);
          end else begin
            found = 1'b0;
            for (int i = 0; i < E; i++) begin
              if (!found && ent_state_w[i] == DpFree) begin
                found = 1'b1;
                k = 2'(i);
              end
            end
            if (found) begin
              ent_state_w[k] = DpNew;
              ent_a_w[k] = a;
              ent_unal_w[k] = dactl_i[11];
              ent_need_w[k] = dactl_i[11] ? 2'd3 : 2'd1;
              ent_slot1_w[k] = das;
              ent_seq_w[k] = seq_w;
              seq_w = seq_w + 16'd1;
              ent_addr_w[k] = da_i;
              ent_ctl1_w[k] = dactl_i;
              owner_w[das] = k + 2'd1;
              if (dactl_i[11]) unal_ent_w = k + 2'd1;
            end
          end
        end
      end
    end
    emit();
  end

  // An overrun pushes nothing and loses the cycle, as an overflow (ctx.h etm_commit_cycle).
  logic fit;
  assign cbuf_o = cb;
  assign cbuf_n_o = ovr ? 7'd0 : cn;
  assign fit = fit_i && !ovr;

  // ---- 3. Commit ----------------------------------------------------------------------
  // The state the cycle decided, its bytes accepted (etm_packet_accepted but the sync count).
  // SYNC_PLACEMENT=1: an A-sync that slot P or L let out (sync_close).
  // Its effects on the periodic sync, kept whether or not the cycle's bytes fit.
  logic        sync_pl, sync_due_pl;
  logic [31:0] sync_count_pl;
  assign sync_pl = ph_sync_p_i || ph_sync_l_i;
  assign sync_due_pl = sync_due && !sync_pl;
  assign sync_count_pl = sync_pl ? 32'd0 : sync_count;

  task automatic take_decided();
    started_d = started || sync_pl;
    active_d = active;
    reason_d = reason;
    sync_due_d = sync_due_pl;
    isync_wait_d = isync_wait || sync_pl;
    isync_due_d = isync_due && !sync_pl;
    cancel_d = cancel;
    trig_pend_d = trig_pend;
    last_addr_d = last_addr;
    sync_count_d = sync_count_pl;
    single_d = ls;
    wsent_d = wsent_q + cw;
  endtask

  // n bytes or cycles more towards a periodic sync.
  task automatic sync_add(input logic [31:0] n);
    sync_count_d = sync_count_d + n;
    if (sync_count_d >= {20'd0, sync_period_i}) sync_due_d = 1'b1;
    // SYNC_PLACEMENT=1: the I-sync falls due half a sync period after its A-sync.
    if (isync_wait_d && sync_count_d >= {21'd0, sync_period_i[11:1]}) isync_due_d = 1'b1;
  endtask

  always_comb begin : commit
    started_d = started_q;
    active_d = active_q;
    reason_d = reason_q;
    sync_due_d = sync_due_q;
    cancel_d = cancel_q;
    trig_pend_d = trig_pend_q;
    ovf_d = ovf_q;
    single_d = single_q;
    last_addr_d = last_addr_q;
    sync_count_d = sync_count_q;
    wtotal_d = wtotal_q;
    wsent_d = wsent_q;
    exited_d = exited_q;
    isync_wait_d = isync_wait_q;
    isync_due_d = isync_due_q;
    ph_commit_o = 1'b0;
    ph_clear_o = 1'b0;
    if (hold_i) begin
      // etm_drain: the port only.
    end else if (end_i) begin
      ph_commit_o = fit; // no room: the end is offered again on the next edge
      if (fit) begin
        wsent_d = wsent_q + cw;
        if (sync_in_bytes_i && sync_period_i != 12'd0 && started_q) sync_add({25'd0, cn});
      end
    end else begin
      if (fit) begin
        // etm_packet_accepted()
        ph_commit_o = 1'b1;
        take_decided();
        exited_d = exited;
        ovf_d = ovf;
        if (sync_in_bytes_i && sync_period_i != 12'd0 && started) sync_add({25'd0, cn});
      end else begin
        // etm_packet_overflow() on the state the cycle left (no roll-back); the
        // A-sync of a dropped cycle never went out (started_q stays).
        sync_due_d = sync_due_pl;
        last_addr_d = last_addr;
        sync_count_d = sync_count_pl;
        exited_d = exited;
        isync_wait_d = 1'b0;
        isync_due_d = 1'b0;
        ph_clear_o = 1'b1;
        ovf_d = 1'b1;
        active_d = 1'b0;
        reason_d = etm_defs_pkg::IsyncReasonOverflow;
        cancel_d = 1'b0;
        trig_pend_d = 1'b0;
      end
      // etm_packet_tick()
      wtotal_d = wtotal_q + 32'd1;
      if (!sync_in_bytes_i && sync_period_i != 12'd0 && started_d) sync_add(32'd1);
    end
  end

  assign overflow_o = !hold_i && !end_i && (!fit || ovf_d);

  // ---- 3b. The data state (etm_dpacket) -----------------------------------------------
  // The state after the cycle, fitted or not (no roll-back); when its bytes did
  // not fit, dp_drop() on it. etm_end: dp_drop().
  localparam int unsigned DpB = etm_pkg::DpEntBits;
  logic [E*DpB-1:0] dp_ent_w, dp_ent_q;
  logic [7:0] dp_owner_w, dp_owner_q;
  // An entry's bits as etm_pkg::dp_ent_t orders them (Yosys 0.23 takes no
  // struct-typed locals: the fields are concatenated in that order).
  always_comb begin : pack_data
    for (int i = 0; i < E; i++)
      dp_ent_w[i*DpB +: DpB] = {ent_state_w[i], ent_a_w[i], ent_unal_w[i], ent_need_w[i], ent_slot1_w[i],
                                ent_slot2_w[i], ent_fail_w[i], ent_imp_w[i], ent_seq_w[i], ent_addr_w[i],
                                ent_ctl1_w[i], ent_ctl2_w[i], ent_dd1_w[i], ent_dd2_w[i]};
    for (int i = 0; i < 4; i++) dp_owner_w[i*2 +: 2] = owner_w[i];
  end

  for (genvar g = 0; g < E; g++) begin : gen_unpack
    assign {ent_state_q[g], ent_a_q[g], ent_unal_q[g], ent_need_q[g], ent_slot1_q[g], ent_slot2_q[g], ent_fail_q[g],
            ent_imp_q[g], ent_seq_q[g], ent_addr_q[g], ent_ctl1_q[g], ent_ctl2_q[g], ent_dd1_q[g],
            ent_dd2_q[g]} = dp_ent_q[g*DpB +: DpB];
  end
  for (genvar g = 0; g < 4; g++) begin : gen_owner
    assign owner_q[g] = dp_owner_q[g*2 +: 2];
  end

  etm_dpacket u_dpacket (
    .clk_i,
    .rst_ni,
    .keep_i          (!hold_i && !end_i),
    .keep_seq_i      (!hold_i && !end_i),
    .drop_i          (end_i || (!hold_i && !fit)),
    .ent_w_i         (dp_ent_w),
    .owner_w_i       (dp_owner_w),
    .seq_w_i         (seq_w),
    .first_w_i       (seq_first),
    .unal_w_i        (seq_unal),
    .unal_ent_w_i    (unal_ent_w),
    .newest_w_i      (d_newest),
    .ins_traced_w_i  (d_ins_traced),
    .ins_started_w_i (ins_started_w),
    .dfull_w_i       (dfull_w),
    .last_daddr_w_i  (last_daddr_w),
    .ent_q_o         (dp_ent_q),
    .owner_q_o       (dp_owner_q),
    .seq_q_o         (seq_q),
    .first_q_o       (first_q),
    .unal_q_o        (unal_q),
    .unal_ent_q_o    (unal_ent_q),
    .newest_q_o      (newest_q),
    .ins_traced_q_o  (ins_traced_q),
    .ins_started_q_o (ins_started_q),
    .dfull_q_o       (dfull_q),
    .last_daddr_q_o  (last_daddr_q)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      started_q    <= 1'b0;
      active_q     <= 1'b0;
      reason_q     <= etm_defs_pkg::IsyncReasonTraceOn;
      sync_due_q   <= 1'b0;
      cancel_q     <= 1'b0;
      trig_pend_q  <= 1'b0;
      ovf_q        <= 1'b0;
      single_q     <= 1'b0;
      last_addr_q  <= 32'd0;
      sync_count_q <= 32'd0;
      wtotal_q     <= 32'd0;
      wsent_q      <= 32'd0;
      exited_q     <= 1'b0;
      isync_wait_q <= 1'b0;
      isync_due_q  <= 1'b0;
    end else begin
      started_q    <= started_d;
      active_q     <= active_d;
      reason_q     <= reason_d;
      sync_due_q   <= sync_due_d;
      cancel_q     <= cancel_d;
      trig_pend_q  <= trig_pend_d;
      ovf_q        <= ovf_d;
      single_q     <= single_d;
      last_addr_q  <= last_addr_d;
      sync_count_q <= sync_count_d;
      wtotal_q     <= wtotal_d;
      wsent_q      <= wsent_d;
      exited_q     <= exited_d;
      isync_wait_q <= isync_wait_d;
      isync_due_q  <= isync_due_d;
    end
  end

`ifndef SYNTHESIS
  // The cycle buffer's bound (docs/etmv3-encoder.md, "Cycle buffer"): no cycle
  // makes more than CycleBytesMax bytes.
  if (Assertions) begin : gen_assert
    CycleBufferBound_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !ovr)
      else $error("etm_packet: a cycle made more than %0d bytes", etm_defs_pkg::CycleBytesMax);
  end
`endif

  // Until the restart's I-sync (reason overflow) is made: not only while the
  // FIFO drains, but also until the next traced instruction after it.
  assign ovf_q_o = ovf_q || (!active_q && reason_q == etm_defs_pkg::IsyncReasonOverflow);

endmodule
