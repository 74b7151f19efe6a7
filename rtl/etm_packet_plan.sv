// etm_packet_plan.sv - stage `packet`, step 1 of a cycle (model/core/src/packet.c:
// etm_packet_cycle's control flow, the phase tests and the state changes of
// run_events, run_first, run_periodic and run_atoms): which packets of this stage
// go out, which etm_pheader slots run, the data transfer's place in its
// instruction (dp_sequence), and the state after the cycle if its bytes fit.
// Combinational; etm_packet assembles the packets it names in the cycle
// buffer's order and commits the state.
module etm_packet_plan (
  // Mode (static).
  input  logic        enabled_i,
  input  logic        ca_i,
  input  logic        alt_branch_i,
  input  logic        exc_ext_i,
  input  logic        ph_eager_i,
  input  logic        branch_full_i,
  input  logic        withdraw_i,         // CANCEL_FORM=1: the Cancel bit withdraws the last atom
  input  logic        trace_start_i,      // TRACE_START=1: the first atom after a restart alone, a trigger after it
  input  logic        sync_m3_i,          // SYNC_PLACEMENT=1: A-sync where a header closed, I-sync later
  input  logic        tailchain_i,        // TAILCHAIN_RETURN=1 (ETMv3.4 on): 0x76 before a tail-chained entry
  input  logic        data_addr_i,
  input  logic        data_value_i,
  // This cycle's trace items, filter and data slot.
  input  logic [1:0]  natoms_i,
  input  logic [31:0] addr0_i,
  input  logic        exec0_i,
  input  logic        target0_i,
  input  logic [31:0] addr1_i,
  input  logic        exec1_i,
  input  logic        target1_i,
  input  logic        entry_i,
  input  logic        ret_i,
  input  logic        exit_i,             // an exception exits, without an instruction
  input  logic [8:0]  exc_i,
  input  logic        cancel_i,
  input  logic        flush_i,
  input  logic        trace_enable_i,
  input  logic        trigger_i,
  input  logic        view_data_i,
  input  logic [17:0] dactl_i,
  input  logic        fifo_empty_i,
  input  logic        end_i,
  input  logic        hold_i,
  // The state before the cycle (packet_state_t; of dpacket_state_t the sequence flags).
  input  logic        started_q,
  input  logic        active_q,
  input  logic [1:0]  reason_q,
  input  logic        sync_due_q,
  input  logic        cancel_q,
  input  logic        trig_pend_q,
  input  logic        ovf_q,
  input  logic        single_q,
  input  logic [31:0] last_addr_q,
  input  logic [31:0] sync_count_q,
  input  logic        exited_q,           // an exception exited since the last instruction
  input  logic        isync_wait_q,       // (SYNC_PLACEMENT=1) a periodic A-sync went out, its I-sync not yet
  input  logic        isync_due_q,        //   and it is due
  input  logic        first_q,
  input  logic        unal_q,
  input  logic        newest_q,
  input  logic        ins_traced_q,
  input  logic        ins_started_q,
  // etm_pheader: the slots that run, and what they are given.
  output logic [etm_pkg::PhSlots-1:0] ph_slot_en_o,
  output logic        ph_ls_b_o,
  output logic        ph_ls_b_trig_o,
  output logic [1:0]  ph_natoms_o,
  output logic        ph_exec0_o,
  output logic        ph_exec1_o,
  // The state after the cycle if its bytes fit.
  output logic        started,
  output logic        active,
  output logic        sync_due,
  output logic        cancel,
  output logic        trig_pend,
  output logic        ovf,
  output logic [1:0]  reason,
  output logic [31:0] last_addr,
  output logic [31:0] sync_count,
  output logic        exited,
  output logic        isync_wait,
  output logic        isync_due,
  // Packets of this stage, in stream order.
  output logic        pa_async,           // trigger: A-sync first if none yet,
  output logic        pa_trig,            //   0x0C
  output logic        ps_async,           // trace (re)start: A-sync,
  output logic        ps_isync,           //   I-sync,
  output logic [1:0]  ps_reason,
  output logic [31:1] ps_addr,
  output logic        ps_branch,          //   the exception packet after it
  output logic [58:0] ps_branch_b,
  output logic        pb_ret,             // 0x76,
  output logic        pb_branch,          //   branch packet
  output logic [58:0] pb_branch_b,
  output logic        pt_async,           // trigger that waited behind a cancel
  output logic        pt_trig,
  output logic        pc_async,           // (SYNC_PLACEMENT=1) A-sync after the flush hint's close
  output logic        py_async,           // periodic A-sync (SYNC_PLACEMENT=0)
  output logic        py_sync,            // periodic I-sync
  output logic        pi_trig,            // (TRACE_START=1) trigger after the first atom's header
  output logic [31:1] py_addr,
  output logic        ph_branch,          // slot 1's branch packet
  output logic [58:0] ph_branch_b,
  // Data trace: the cycle's value and transfer (D1, D2).
  output logic        d_on,               // D1 and D2 run this cycle
  output logic [1:0]  x_kind,             // dp_sequence()
  output logic        seq_first,          // first_q, unal_q after it
  output logic        seq_unal,
  output logic        d_newest,           // newest_q at D2
  output logic        d_ins_traced,       // ins_traced_q at D2's test
  output logic        x_traced            // D2 traces the transfer
);
  localparam int unsigned SlotA = 0, SlotB = 1, SlotC = 2, SlotE = 3, SlotF = 4, SlotG = 5,
                          SlotP = 6, SlotH = 7, SlotI = 8, SlotJ = 9, SlotL = 10, SlotK = 11;
  localparam logic [1:0] XferNone = 2'd0, XferFirst = 2'd1, XferLater = 2'd2, XferSecondHalf = 2'd3;

  logic [etm_pkg::PhSlots-1:0] slot_en;
  logic       unused_dactl;               // the plan reads DASlot, DAUnaligned, DACPRT, DALast
  assign unused_dactl = ^{dactl_i[17], dactl_i[14:12], dactl_i[10:2]};
  logic       data;                       // ETMCR[3:2] != 0
  logic       d_ins_started;              // ins_started_q at D2's test

  // The address a branch packet is compressed against: with BRANCH_FULL one that
  // differs from the target in every bit, so all five bytes go out.
  function automatic logic [31:0] branch_from(input logic [31:0] last, input logic [31:0] to);
    branch_from = branch_full_i ? ~to : last;
  endfunction

  task automatic send_async();
    started = 1'b1;
    sync_due = 1'b0;
    sync_count = 32'd0;
  endtask

  // trigger_after_cancel(): a trigger that waited goes out (an A-sync first if
  // none was sent yet).
  task automatic trigger_waiting();
    if (trig_pend) begin
      if (!started) begin
        pt_async = 1'b1;
        send_async();
      end
      slot_en[SlotF] = 1'b1;
      pt_trig = 1'b1;
      trig_pend = 1'b0;
    end
  endtask

  // put_isync(): any I-sync serves as a periodic A-sync's (SYNC_PLACEMENT=1).
  task automatic send_isync();
    isync_wait = 1'b0;
    isync_due = 1'b0;
  endtask

  always_comb begin : decide
    logic go, cont, trig_now, branchy, step6, exc_ok, first;
    go = 1'b0;
    cont = 1'b0;
    branchy = 1'b0;
    exc_ok = 1'b0;
    ph_slot_en_o = '0;
    ph_ls_b_o = 1'b0;
    ph_ls_b_trig_o = 1'b0;
    started = started_q;
    active = active_q;
    reason = reason_q;
    sync_due = sync_due_q;
    cancel = cancel_q;
    trig_pend = trig_pend_q;
    ovf = ovf_q;
    last_addr = last_addr_q;
    sync_count = sync_count_q;
    exited = exited_q;
    isync_wait = isync_wait_q;
    isync_due = isync_due_q;
    first = 1'b0;
    pc_async = 1'b0;
    py_async = 1'b0;
    pi_trig = 1'b0;
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
    data = data_addr_i || data_value_i;
    d_on = 1'b0;
    step6 = 1'b0;
    x_kind = XferNone;
    seq_first = first_q;
    seq_unal = unal_q;
    d_newest = newest_q;
    d_ins_traced = ins_traced_q;
    d_ins_started = ins_started_q;
    x_traced = 1'b0;

    // dp_sequence(): follows the interface in every cycle, traced or not.
    if (data && !hold_i && !end_i && dactl_i[1:0] != 2'd0) begin
      if (unal_q) begin
        seq_unal = 1'b0;
        seq_first = dactl_i[16];
        x_kind = XferSecondHalf;
      end else begin
        x_kind = first_q ? XferFirst : XferLater;
        seq_unal = dactl_i[11];
        seq_first = dactl_i[11] ? 1'b0 : dactl_i[16];
      end
    end

    if (end_i) begin
      // etm_packet_end: send everything gathered.
      slot_en[SlotA] = active_q;
      go = 1'b0;
    end else begin
      // After an overflow nothing is traced until the FIFO has drained.
      go = enabled_i && !hold_i && !(ovf_q && !fifo_empty_i);
      if (go) ovf = 1'b0;
    end

    // 1. Trigger (TRACE_START=1: before the first atom after a restart it waits
    // for that atom's header, as behind a cancel).
    if (go && trigger_i) begin
      if (cancel || (trace_start_i && !active)) begin
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
      reason = etm_defs_pkg::IsyncReasonTraceOn;
      cancel = 1'b0;
    end

    if (cont && active) begin
      // 3. Cancel.
      if (cancel_i) begin
        slot_en[SlotB] = !withdraw_i;
        cancel = 1'b1;
      end
      // 4. Flush hint.
      if (flush_i && ph_eager_i && !cancel) begin
        slot_en[SlotC] = 1'b1;
        // SYNC_PLACEMENT=1: a periodic A-sync where the header has closed (sync_close).
        if (sync_m3_i && sync_due) begin
          pc_async = 1'b1;
          send_async();
          isync_wait = 1'b1;
          isync_due = 1'b0;
        end
      end
    end

    if (cont && natoms_i == 2'd0) begin
      if (active && ca_i) slot_en[SlotH] = 1'b1;
    end else if (cont) begin
      // 5. The cycle's first instruction.
      branchy = target0_i || entry_i || ret_i;
      // Before ETMv3.4 an exception byte holds numbers 0-15 only: a higher one is a
      // plain branch to the handler (the C model counts it as untraceable).
      exc_ok = entry_i && (exc_ext_i || exc_i < 9'd16);
      if (!active) begin
        if (!started || sync_due) begin
          ps_async = 1'b1;
          send_async();
        end
        ps_isync = 1'b1;
        send_isync();
        ps_reason = reason;
        last_addr = addr0_i & 32'hFFFF_FFFE;
        active = 1'b1;
        cancel = 1'b0;
        first = trace_start_i;  // the first atom alone (step 6)
        if (exc_ok) begin
          ps_branch = 1'b1;
          ps_branch_b = etm_pkg::branch_packet(branch_from(last_addr, addr0_i), addr0_i, alt_branch_i, 1'b1, exc_i, 1'b0);
          last_addr = addr0_i & 32'hFFFF_FFFE;
        end
      end else if (branchy) begin
        slot_en[SlotE] = 1'b1;
        // TAILCHAIN_RETURN=1: an entry after an exit without a return is a
        // tail-chain, and the handler left returns first.
        pb_ret = (ret_i && exc_ext_i) || (entry_i && exited_q && tailchain_i);
        pb_branch = 1'b1;
        pb_branch_b = etm_pkg::branch_packet(branch_from(last_addr, addr0_i), addr0_i, alt_branch_i, exc_ok,
                                             exc_i, exc_ok && cancel);
        last_addr = addr0_i & 32'hFFFF_FFFE;
        cancel = 1'b0;
        trigger_waiting();
      end else if (cancel) begin
        // Cancelled, but no exception came: the atom stays.
        cancel = 1'b0;
        trigger_waiting();
      end
      if (sync_m3_i ? isync_due : sync_due) begin
        // Periodic synchronisation, after any branch packet (SYNC_PLACEMENT=1:
        // the I-sync of an A-sync sent where a header closed).
        slot_en[SlotG] = 1'b1;
        py_sync = 1'b1;
        send_isync();
        if (!sync_m3_i) begin
          py_async = 1'b1;
          send_async();
        end
        last_addr = addr0_i & 32'hFFFF_FFFE;
      end
      // SYNC_PLACEMENT=1: an A-sync before the atoms or after them, wherever no
      // header is open (etm_pheader decides; etm_packet commits what it sends).
      slot_en[SlotP] = sync_m3_i && sync_due && active;
      slot_en[SlotL] = sync_m3_i && sync_due && active;
      // 6. W and atoms.
      step6 = 1'b1;
      slot_en[SlotH] = 1'b1;
      if (first) begin
        // TRACE_START=1: the first atom after a restart in a header of its own
        // (cycle-accurate, the first cycle's atoms: one W), then a trigger that
        // waited for it; a second atom that is no branch target goes after it.
        ph_natoms_o = (ca_i && natoms_i == 2'd2 && !target1_i) ? 2'd2 : 2'd1;
        slot_en[SlotI] = 1'b1;
        pi_trig = trig_pend;
        trig_pend = 1'b0;
        if (natoms_i == 2'd2 && !target1_i && !ca_i) slot_en[SlotJ] = 1'b1;
      end
      if (natoms_i == 2'd2 && target1_i) begin
        ph_natoms_o = 2'd1;
        slot_en[SlotI] = 1'b1;
        ph_branch = 1'b1;
        ph_branch_b = etm_pkg::branch_packet(branch_from(last_addr, addr1_i), addr1_i, alt_branch_i, 1'b0, 9'd0, 1'b0);
        last_addr = addr1_i & 32'hFFFF_FFFE;
        slot_en[SlotJ] = 1'b1;
      end
    end
    // An exception's exit without an instruction: an entry before the next
    // instruction tail-chains (note_exit).
    if (go) exited = natoms_i != 2'd0 ? 1'b0 : (exit_i || exited_q);
    // D2 (dp_address): is the transfer traced, and is it the instruction's first
    // traced one (its atom goes out before it: slot K)?
    d_on = go && data;
    if (d_on && natoms_i != 2'd0) d_newest = 1'b0;  // until step 6 says the instructions are traced
    if (step6) d_newest = 1'b1;
    if (d_on && x_kind == XferFirst) begin  // a new data instruction: the newest instruction
      d_ins_traced = d_newest;
      d_ins_started = 1'b0;
    end
    // CPRTs are not traced (ETMCR[1] is not implemented); an untraced
    // instruction's transfers are not traced; its data starts at its first
    // transfer with ViewData.
    x_traced = d_on && (x_kind == XferFirst || x_kind == XferLater) && !dactl_i[15] && d_ins_traced &&
               (d_ins_started || view_data_i);
    slot_en[SlotK] = x_traced && !d_ins_started;
    ph_slot_en_o = slot_en;
    // c->last_single as isolate_last finds it: cleared by a trigger packet.
    ph_ls_b_o = single_q;
    ph_ls_b_trig_o = trig_now;
  end
endmodule
