// etm_packet.sv - stage `packet` (model/src/packet.c): the ETMv3 packet stream
// around the P-headers: branch addresses, A-sync, I-sync with and without cycle
// count, periodic synchronisation, trigger, exception return, and the restart
// after a FIFO overflow. Order and timing: docs/etmv3-encoder.md.
//
// Three combinational steps per cycle:
//   1. decide (etm_packet_cycle's control flow): which packets go out, which
//      etm_pheader slots run, and the state after the cycle as if its bytes fit;
//   2. assemble the cycle buffer in the C's order: each packet of this stage and
//      each P-header segment at its place (the I-sync cycle count needs the W
//      atoms of the segments before it, so it is formatted here);
//   3. commit: the bytes fitted (etm_packet_accepted) or not (the state before the
//      cycle, then etm_packet_overflow); then etm_packet_tick.
// end_i is the edge of etm_end (send everything gathered, no tick); hold_i an
// edge of etm_drain (this stage does nothing).
module etm_packet (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Mode (static).
  input  logic        enabled_i,       // ETMv3 and not powered down or programming
  input  logic        ca_i,
  input  logic        alt_branch_i,
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
  input  logic        trace_enable_i,
  input  logic        trigger_i,
  // FIFO.
  input  logic        fifo_empty_i,    // level 0 at the start of the cycle
  input  logic        fit_i,           // the cycle buffer fitted
  // Edge kind.
  input  logic        end_i,
  input  logic        hold_i,
  // etm_pheader.
  output logic [8:0]  ph_slot_en_o,
  output logic        ph_ls_b_o,
  output logic [1:0]  ph_natoms_o,
  output logic        ph_exec0_o,
  output logic        ph_exec1_o,
  output logic        ph_commit_o,
  output logic        ph_clear_o,
  input  logic [575:0] ph_seg_i,
  input  logic [35:0]  ph_seg_len_i,
  input  logic [287:0] ph_seg_w_i,
  input  logic [8:0]   ph_ls_wr_i,
  input  logic [8:0]   ph_ls_val_i,
  // The cycle buffer.
  output logic [etm_pkg::CycleBytesMax*8-1:0] cbuf_o,
  output logic [6:0]   cbuf_n_o,
  output logic         overflow_o      // OVERFLOW: lost now, or until trace restarts
);
  localparam int unsigned SlotA = 0, SlotB = 1, SlotC = 2, SlotE = 3, SlotF = 4, SlotG = 5,
                          SlotH = 6, SlotI = 7, SlotJ = 8;

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

  // ---- 1. Decide -------------------------------------------------------------------
  // State after the cycle if its bytes fit.
  logic        started, active, sync_due, cancel, trig_pend, ovf;
  logic [1:0]  reason;
  logic [31:0] last_addr, sync_count;
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
  logic        py_sync;                           // periodic A-sync and I-sync
  logic [31:1] py_addr;
  logic        ph_branch;                         // slot 1's branch packet
  logic [58:0] ph_branch_b;
  logic [8:0]  slot_en;

  task automatic send_async();
    started = 1'b1;
    sync_due = 1'b0;
    sync_count = 32'd0;
  endtask

  always_comb begin : decide
    logic go, cont, trig_now, branchy;
    go = 1'b0;
    cont = 1'b0;
    branchy = 1'b0;
    ph_slot_en_o = '0;
    ph_ls_b_o = 1'b0;
    started = started_q;
    active = active_q;
    reason = reason_q;
    sync_due = sync_due_q;
    cancel = cancel_q;
    trig_pend = trig_pend_q;
    ovf = ovf_q;
    last_addr = last_addr_q;
    sync_count = sync_count_q;
    pa_async = 1'b0;
    pa_trig = 1'b0;
    ps_async = 1'b0;
    ps_isync = 1'b0;
    ps_reason = reason_q;
    ps_addr = addr0_i[31:1];
    ps_branch = 1'b0;
    ps_branch_b = '0;
    pb_ret = 1'b0;
    pb_branch = 1'b0;
    pb_branch_b = '0;
    pt_async = 1'b0;
    pt_trig = 1'b0;
    py_sync = 1'b0;
    py_addr = addr0_i[31:1];
    ph_branch = 1'b0;
    ph_branch_b = '0;
    slot_en = '0;
    ph_natoms_o = natoms_i;
    ph_exec0_o = exec0_i;
    ph_exec1_o = (natoms_i > 2'd1) ? exec1_i : 1'b0;
    trig_now = 1'b0;

    if (end_i) begin
      // etm_packet_end: send everything gathered.
      slot_en[SlotA] = active_q;
      go = 1'b0;
    end else begin
      // After an overflow nothing is traced until the FIFO has drained.
      go = enabled_i && !hold_i && !(ovf_q && !fifo_empty_i);
      if (go) ovf = 1'b0;
    end

    // 1. Trigger.
    if (go && trigger_i) begin
      if (cancel) begin
        trig_pend = 1'b1;
      end else begin
        trig_now = 1'b1;
        if (!started) begin
          pa_async = 1'b1;
          send_async();
        end
        slot_en[SlotA] = 1'b1;
        pa_trig = 1'b1;
      end
    end

    // 2. Trace off.
    cont = go && trace_enable_i;
    if (go && !trace_enable_i && active) begin
      slot_en[SlotA] = 1'b1;
      active = 1'b0;
      reason = etm_pkg::IsyncReasonTraceOn;
      cancel = 1'b0;
    end

    if (cont && active) begin
      // 3. Cancel.
      if (cancel_i) begin
        slot_en[SlotB] = 1'b1;
        cancel = 1'b1;
      end
      // 4. Flush hint.
      if (flush_i && !cancel) slot_en[SlotC] = 1'b1;
    end

    if (cont && natoms_i == 2'd0) begin
      if (active && ca_i) slot_en[SlotH] = 1'b1;
    end else if (cont) begin
      // 5. The cycle's first instruction.
      branchy = target0_i || entry_i || ret_i;
      if (!active) begin
        if (!started || sync_due) begin
          ps_async = 1'b1;
          send_async();
        end
        ps_isync = 1'b1;
        ps_reason = reason;
        last_addr = addr0_i & 32'hFFFF_FFFE;
        active = 1'b1;
        cancel = 1'b0;
        if (entry_i) begin
          ps_branch = 1'b1;
          ps_branch_b = etm_pkg::branch_packet(last_addr, addr0_i, alt_branch_i, 1'b1, exc_i, 1'b0);
          last_addr = addr0_i & 32'hFFFF_FFFE;
        end
      end else if (branchy) begin
        slot_en[SlotE] = 1'b1;
        pb_ret = ret_i;
        pb_branch = 1'b1;
        pb_branch_b = etm_pkg::branch_packet(last_addr, addr0_i, alt_branch_i, entry_i, exc_i,
                                             entry_i && cancel);
        last_addr = addr0_i & 32'hFFFF_FFFE;
        cancel = 1'b0;
        if (trig_pend) begin
          if (!started) begin
            pt_async = 1'b1;
            send_async();
          end
          slot_en[SlotF] = 1'b1;
          pt_trig = 1'b1;
          trig_pend = 1'b0;
        end
      end else if (cancel) begin
        // Cancelled, but no exception came: the atom stays.
        cancel = 1'b0;
        if (trig_pend) begin
          if (!started) begin
            pt_async = 1'b1;
            send_async();
          end
          slot_en[SlotF] = 1'b1;
          pt_trig = 1'b1;
          trig_pend = 1'b0;
        end
      end
      if (sync_due) begin
        // Periodic synchronisation, after any branch packet.
        slot_en[SlotG] = 1'b1;
        py_sync = 1'b1;
        send_async();
        last_addr = addr0_i & 32'hFFFF_FFFE;
      end
      // 6. W and atoms.
      slot_en[SlotH] = 1'b1;
      if (natoms_i == 2'd2 && target1_i) begin
        ph_natoms_o = 2'd1;
        slot_en[SlotI] = 1'b1;
        ph_branch = 1'b1;
        ph_branch_b = etm_pkg::branch_packet(last_addr, addr1_i, alt_branch_i, 1'b0, 9'd0, 1'b0);
        last_addr = addr1_i & 32'hFFFF_FFFE;
        slot_en[SlotJ] = 1'b1;
      end
    end
    ph_slot_en_o = slot_en;
    // c->last_single as isolate_last finds it: cleared by a trigger packet.
    ph_ls_b_o = trig_now ? 1'b0 : single_q;
  end

  // ---- 2. Assemble the cycle buffer --------------------------------------------------
  logic [etm_pkg::CycleBytesMax*8-1:0] cb;
  logic [6:0]  cn;
  logic [31:0] cw;     // W atoms and counts the bytes carry (cycle_buf_t.w)
  logic        ls;     // cycle_buf_t.last_single

  task automatic put(input logic [7:0] b);
    cb[cn*8 +: 8] = b;
    cn = cn + 7'd1;
    ls = 1'b0;
  endtask

  task automatic put_async();
    for (int i = 0; i < 5; i++) put(8'h00);
    put(etm_pkg::HdrAsyncLast);
  endtask

  task automatic put_seg(input int unsigned k);
    for (int i = 0; i < 8; i++) begin
      if (4'(i) < ph_seg_len_i[k*4 +: 4]) begin
        cb[cn*8 +: 8] = ph_seg_i[k*64 + i*8 +: 8];
        cn = cn + 7'd1;
      end
    end
    cw = cw + ph_seg_w_i[k*32 +: 32];
    if (ph_ls_wr_i[k]) ls = ph_ls_val_i[k];
  endtask

  task automatic put_branch(input logic [58:0] p);
    for (int i = 0; i < 7; i++) begin
      if (3'(i) < p[58:56]) put(p[i*8 +: 8]);
    end
  endtask

  // put_isync(): with_cc selects the 0x70 form with count cc.
  task automatic put_isync(input logic [1:0] rsn, input logic [31:1] addr, input logic with_cc,
                           input logic [31:0] cc);
    logic [42:0] ccb;
    if (with_cc) begin
      ccb = etm_pkg::count_bytes(cc);
      put(etm_pkg::HdrIsyncCc);
      for (int i = 0; i < 5; i++) begin
        if (3'(i) < ccb[42:40]) put(ccb[i*8 +: 8]);
      end
      cw = cw + cc;
    end else begin
      put(etm_pkg::HdrIsync);
    end
    put({1'b0, rsn, 5'd0});
    put({addr[7:1], 1'b1});  // bit 0: Thumb
    put(addr[15:8]);
    put(addr[23:16]);
    put(addr[31:24]);
  endtask

  always_comb begin : assemble
    cb = '0;
    cn = 7'd0;
    cw = 32'd0;
    ls = single_q;
    if (pa_async) put_async();
    put_seg(SlotA);
    if (pa_trig) put(etm_pkg::HdrTrigger);
    put_seg(SlotB);
    put_seg(SlotC);
    if (ps_async) put_async();
    // cycles_unsent(): cycles since the last W or count sent, this cycle's bytes included.
    if (ps_isync) put_isync(ps_reason, ps_addr, ca_i, wtotal_q - wsent_q - cw);
    if (ps_branch) put_branch(ps_branch_b);
    put_seg(SlotE);
    if (pb_ret) put(etm_pkg::HdrExcReturn);
    if (pb_branch) put_branch(pb_branch_b);
    if (pt_async) put_async();
    put_seg(SlotF);
    if (pt_trig) put(etm_pkg::HdrTrigger);
    put_seg(SlotG);
    if (py_sync) begin
      put_async();
      put_isync(etm_pkg::IsyncReasonPeriodic, py_addr, 1'b0, 32'd0);
    end
    put_seg(SlotH);
    put_seg(SlotI);
    if (ph_branch) put_branch(ph_branch_b);
    put_seg(SlotJ);
  end

  assign cbuf_o = cb;
  assign cbuf_n_o = cn;

  // ---- 3. Commit ----------------------------------------------------------------------
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
    ph_commit_o = 1'b0;
    ph_clear_o = 1'b0;
    if (hold_i) begin
      // etm_drain: the port only.
    end else if (end_i) begin
      ph_commit_o = 1'b1;
      if (fit_i) begin
        wsent_d = wsent_q + cw;
        if (sync_in_bytes_i && sync_period_i != 12'd0 && started_q) begin
          sync_count_d = sync_count_q + {25'd0, cn};
          if (sync_count_d >= {20'd0, sync_period_i}) sync_due_d = 1'b1;
        end
      end
    end else begin
      if (fit_i) begin
        // etm_packet_accepted()
        ph_commit_o = 1'b1;
        started_d = started;
        active_d = active;
        reason_d = reason;
        sync_due_d = sync_due;
        cancel_d = cancel;
        trig_pend_d = trig_pend;
        ovf_d = ovf;
        last_addr_d = last_addr;
        sync_count_d = sync_count;
        single_d = ls;
        wsent_d = wsent_q + cw;
        if (sync_in_bytes_i && sync_period_i != 12'd0 && started) begin
          sync_count_d = sync_count + {25'd0, cn};
          if (sync_count_d >= {20'd0, sync_period_i}) sync_due_d = 1'b1;
        end
      end else begin
        // etm_packet_overflow() on the state from before the cycle.
        ph_clear_o = 1'b1;
        ovf_d = 1'b1;
        active_d = 1'b0;
        reason_d = etm_pkg::IsyncReasonOverflow;
        cancel_d = 1'b0;
        trig_pend_d = 1'b0;
      end
      // etm_packet_tick()
      wtotal_d = wtotal_q + 32'd1;
      if (!sync_in_bytes_i && sync_period_i != 12'd0 && started_d) begin
        sync_count_d = sync_count_d + 32'd1;
        if (sync_count_d >= {20'd0, sync_period_i}) sync_due_d = 1'b1;
      end
    end
  end

  assign overflow_o = !hold_i && !end_i && (!fit_i || ovf_d);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      started_q    <= 1'b0;
      active_q     <= 1'b0;
      reason_q     <= etm_pkg::IsyncReasonTraceOn;
      sync_due_q   <= 1'b0;
      cancel_q     <= 1'b0;
      trig_pend_q  <= 1'b0;
      ovf_q        <= 1'b0;
      single_q     <= 1'b0;
      last_addr_q  <= 32'd0;
      sync_count_q <= 32'd0;
      wtotal_q     <= 32'd0;
      wsent_q      <= 32'd0;
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
    end
  end

endmodule
