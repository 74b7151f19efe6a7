// etm_pipestat.sv - stage `pipestat` (model/core/src/pipestat.c): the ETMv1 port,
// PIPESTAT[2:0], TRACEPKT[15:0] and TRACESYNC, cycle by cycle. Mapping and
// policy: docs/etmv1-encoder.md.
//
// Instructions become entries of a status queue of V1Queue entries; the newest
// is resolved when the next instruction arrives. Entries with data wait for
// their last transfer and values. The head entry goes out when ready, one status
// per cycle except in the two APO cycles after a branch status; its packets
// (data address, values, branch address) are admitted to the FIFO in that cycle,
// all or none, and written a transfer a cycle: the data address and the first
// transfer's values with the status, each further transfer's by the writer
// (gen_*) in the next cycles, the branch address with the last. So the FIFO
// takes at most V1PushMax bytes a cycle, and the transfers' store is read at one
// index a cycle. While the writer runs, no status with packets goes out. The
// port then drains the FIFO (1 nibble, 1 byte or 2 bytes) unless the cycle shows
// the trigger.
//
// Two combinational steps: `status` runs the C up to the FIFO write (data value,
// instructions, data address, the writer or the head entry's packets); `finish`
// completes the cycle (and shows the head after the write, which the port drains).
module etm_pipestat (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Mode (static).
  input  logic        enabled_i,      // ETMv1 and not powered down or programming
  input  logic        ca_i,           // ETMCR[12]
  input  logic        data_addr_i,    // ETMCR[3]
  input  logic        data_value_i,   // ETMCR[2]
  input  logic        values_cap_i,   // the part implements ETMCR[2] (else there is no writer)
  input  logic [1:0]  port_i,         // 0: 4-bit, 1: 8-bit, 2: 16-bit port
  input  logic        minor_ge2_i,    // ETMv1.2 and later: periodic reason 4
  input  logic [31:0] depth_i,        // FIFO_DEPTH
  // This cycle's items (etm_frontend), filter and data slot inputs.
  input  logic [1:0]  natoms_i,
  input  logic [31:0] addr0_i,
  input  logic        exec0_i,
  input  logic        target0_i,
  input  logic [31:0] addr1_i,
  input  logic        exec1_i,
  input  logic        target1_i,
  input  logic        entry_i,
  input  logic        ret_i,
  input  logic        fold_i,         // atom 1 is an IT folded after atom 0
  input  logic        trace_enable_i,
  input  logic        trigger_i,
  input  logic        view_data_i,    // ViewData for this cycle's data transfer
  input  logic [17:0] dactl_i,
  input  logic [31:0] da_i,
  input  logic [3:0]  ddctl_i,
  input  logic [63:0] dd_i,
  // Edge kind: etm_end, etm_drain.
  input  logic        end_i,
  input  logic        drain_i,
  // etm_fifo.
  input  logic [16:0] fifo_level_q_i,
  input  logic [16:0] fifo_nflags_q_i,
  input  logic        fifo_head_flag_q_i,
  input  logic [16:0] fifo_level_w_i,
  input  logic [7:0]  fifo_head0_i,
  input  logic        fifo_head0_flag_i,
  input  logic [7:0]  fifo_head1_i,
  input  logic        fifo_head1_flag_i,
  output logic [7:0]  push_n_o,
  output logic [etm_defs_pkg::V1PushMax*8-1:0] push_data_o,
  output logic [etm_defs_pkg::V1PushMax-1:0]   push_flag_o,
  output logic [1:0]  pop_o,
  // Port.
  output logic [2:0]  pipestat_o,
  output logic [15:0] tracepkt_o,
  output logic        tracesync_o,
  output logic        overflow_o,
  output logic        ovf_q_o,        // an overflow whose restart is not yet traced (ETMSR[0])
  output logic        idle_o          // nothing waits in the queue (etm_pipestat_busy() is 0)
);
  localparam int unsigned Q = etm_defs_pkg::V1Queue;
  localparam int unsigned X = etm_defs_pkg::V1MaxXfer;
  localparam int unsigned PushMax = etm_defs_pkg::V1PushMax;

  // ---- State (pipestat_state_t) ---------------------------------------------------
  // Queue entries (v1_entry_t), entry k, transfer t at [k*X + t].
  logic [15:0] seq_q [Q];        logic [15:0] seq_d [Q];
  logic        restart_q [Q];    logic        restart_d [Q];
  logic [2:0]  reason_e_q [Q];   logic [2:0]  reason_e_d [Q];
  logic        resolved_q [Q];   logic        resolved_d [Q];
  logic        exec_q [Q];       logic        exec_d [Q];
  logic        fold_it_q [Q];    logic        fold_it_d [Q];   // a folded IT: never the owner of data
  logic        branch_q [Q];     logic        branch_d [Q];
  logic [31:0] target_q [Q];     logic [31:0] target_d [Q];
  logic        has_data_q [Q];   logic        has_data_d [Q];
  logic        data_done_q [Q];  logic        data_done_d [Q];
  logic [4:0]  nxfer_q [Q];      logic [4:0]  nxfer_d [Q];
  logic [7:0]  nwait_q [Q];      logic [7:0]  nwait_d [Q];
  logic [7:0]  nvb_q [Q];        logic [7:0]  nvb_d [Q];       // value bytes of its transfers
  logic [31:0] daddr_q [Q];      logic [31:0] daddr_d [Q];
  // The transfers' store (lanes, value came, value): a memory written by index,
  // at most one transfer added (wa_*: lanes, got 0, value 0) and one value come
  // (wv_*: value, got 1) a cycle. A transfer at or beyond its entry's nxfer is
  // never read, so adding an entry clears nothing here.
  localparam int unsigned XBits = $clog2(Q * X);
  logic [7:0]  lanes_q [Q*X];
  logic        got_q [Q*X];
  logic [63:0] value_q [Q*X];
  logic             wa_en, wv_en;
  logic [XBits-1:0] wa_idx, wv_idx;
  logic [7:0]       wa_lanes;
  logic [63:0]      wv_value;
  logic [2:0]  head_q, head_d;
  logic [3:0]  len_q, len_d;
  logic        open_q, open_d;
  logic [15:0] seqn_q, seqn_d;
  logic        owner_valid_q, owner_valid_d;
  logic        xfer_open_q, xfer_open_d;  // the last transfer was not its instruction's last
  logic [15:0] owner_q, owner_d;
  logic [3:1]  slot_valid_q, slot_valid_d;
  logic [15:0] slot_seq_q [4];   logic [15:0] slot_seq_d [4];
  logic [3:0]  slot_idx_q [4];   logic [3:0]  slot_idx_d [4];
  logic        active_q, active_d;
  logic [2:0]  reason_q, reason_d;
  logic        ovf_q, ovf_d;
  logic [1:0]  apo_cnt_q, apo_cnt_d;
  logic [3:0]  apo_val_q, apo_val_d;
  logic        nib_q, nib_d;
  logic        full_daddr_q, full_daddr_d;
  logic [31:0] last_baddr_q, last_baddr_d;
  logic [31:0] last_daddr_q, last_daddr_d;
  logic [31:0] since_full_q, since_full_d;
  // The writer: the transfers of the last status still to write (0: idle), its
  // slot (kept from reuse), the next transfer, and its branch address (gen_bn_q
  // packets, 0: none), written with the last.
  logic [4:0]  gen_left_q, gen_left_d;
  logic [2:0]  gen_k_q, gen_k_d;
  logic [3:0]  gen_t_q, gen_t_d;
  logic [2:0]  gen_bn_q, gen_bn_d;
  logic [39:0] gen_b_q, gen_b_d;
  logic        gen_busy;       // the writer has transfers left (only a part with value trace)
  assign gen_busy = values_cap_i && gen_left_q != 5'd0;

  // ---- Working state of the `status` step -----------------------------------------
  logic [2:0]  head;
  logic [3:0]  len;
  logic        open;
  logic [15:0] seqn;
  logic        owner_valid;
  logic        xfer_open;
  logic [15:0] owner;
  logic [3:1]  slot_valid;
  logic        active;
  logic [2:0]  reason;
  logic        ovf;
  logic [1:0]  apo_cnt;
  logic        full_daddr;
  logic        lost;           // lose() ran
  // Status chosen before the push: valid, value; or a push is tried.
  logic        st_valid;
  logic [2:0]  st_val;
  logic        try_push;
  logic        writing;        // the writer writes in this cycle
  logic [4:0]  gen_left;
  logic [3:0]  gen_t;
  // What the push commits when it fits.
  logic [2:0]  p_status;
  logic        p_data_addr, p_branch, p_full, p_restart;
  logic [31:0] p_last_daddr, p_a;
  logic [3:0]  p_apo;
  logic        p_fit;          // all of the status's packets fit
  logic [4:0]  p_left;         // transfers the writer is left
  logic [2:0]  p_bn;           // and the branch address it writes with the last
  logic [39:0] p_b;
  logic [7:0]  pn;
  logic [PushMax*8-1:0] pb;
  logic [PushMax-1:0]   pf;

  // Position of the i-th queued entry (the queue is a ring of 8).
  function automatic logic [2:0] idx(input logic [2:0] h, input logic [3:0] i);
    idx = 3'({1'b0, h} + i);
  endfunction

  // by_seq(): position (0..Q-1) of the queued entry with that sequence number.
  task automatic by_seq(input logic [15:0] s, output logic found, output logic [2:0] k);
    found = 1'b0;
    k = 3'd0;
    for (int i = 0; i < Q; i++) begin
      if (!found && 4'(i) < len && seq_d[idx(head, 4'(i))] == s) begin
        found = 1'b1;
        k = idx(head, 4'(i));
      end
    end
  endtask

  // add_entry(): a cleared entry at the tail; ok = 0 when the queue is full or
  // the tail is the slot the writer reads.
  task automatic add_entry(output logic ok, output logic [2:0] k);
    ok = 1'b0;
    k = idx(head, len);
    if (len != 4'(Q) && !(gen_busy && k == gen_k_q)) begin
      ok = 1'b1;
      seq_d[k] = seqn;
      restart_d[k] = 1'b0;
      reason_e_d[k] = 3'd0;
      resolved_d[k] = 1'b0;
      exec_d[k] = 1'b0;
      fold_it_d[k] = 1'b0;
      branch_d[k] = 1'b0;
      target_d[k] = 32'd0;
      has_data_d[k] = 1'b0;
      data_done_d[k] = 1'b0;
      nxfer_d[k] = 5'd0;
      nwait_d[k] = 8'd0;
      nvb_d[k] = 8'd0;
      daddr_d[k] = 32'd0;
      seqn = seqn + 16'd1;
      len = len + 4'd1;
    end
  endtask

  // xidx(): the store index of entry k's transfer t.
  function automatic logic [XBits-1:0] xidx(input logic [2:0] k, input logic [3:0] t);
    xidx = XBits'(32'(k) * X + 32'(t));
  endfunction

  // resolve(): the newest instruction branched to target or not.
  task automatic resolve(input logic br, input logic [31:0] tgt);
    logic [2:0] k;
    k = idx(head, len - 4'd1);
    if (open && len != 4'd0) begin
      resolved_d[k] = 1'b1;
      branch_d[k] = br;
      target_d[k] = tgt;
    end
    open = 1'b0;
  endtask

  // lose(): trace is lost until the FIFO has drained.
  task automatic lose();
    len = 4'd0;
    open = 1'b0;
    owner_valid = 1'b0;
    slot_valid = 3'd0;
    ovf = 1'b1;
    active = 1'b0;
    reason = 3'd2;
    lost = 1'b1;  // a branch's APO cycles still go out: its address is in the FIFO
  endtask

  // push(): n bytes of f (zero beyond n) after the bytes pushed so far; flag marks
  // the first of them. One shift per packet keeps the push a few barrel shifters.
  task automatic push(input logic [63:0] f, input logic [3:0] n, input logic flag);
    logic [PushMax*8-1:0] w;
    logic [PushMax-1:0] fl;
    w = '0;
    w[63:0] = f;
    fl = '0;
    fl[0] = flag && n != 4'd0;
    pb = pb | (w << {pn, 3'b000});
    pf = pf | (fl << pn);
    pn = pn + {4'd0, n};
  endtask

  task automatic push_addr(input logic [42:0] p, input logic flag_first);
    push({24'd0, p[39:0]}, {1'b0, p[42:40]}, flag_first);
  endtask

  // push_xfer(): the value bytes of the store's transfer ri, those its lanes
  // select, in address order, as this cycle's writes leave it. The store is read
  // at one index a cycle: the writer's next transfer, or the head entry's first.
  task automatic push_xfer(input logic [XBits-1:0] ri);
    logic [7:0]  l;
    logic [63:0] v, vb;
    logic [3:0]  vn;
    l = (wa_en && wa_idx == ri) ? wa_lanes : lanes_q[ri];
    v = (wv_en && wv_idx == ri) ? wv_value : (wa_en && wa_idx == ri) ? 64'd0 : value_q[ri];
    vb = '0;
    vn = 4'd0;
    for (int lane = 0; lane < 8; lane++) begin
      if (l[lane]) begin
        vb = vb | ({56'd0, v[lane*8 +: 8]} << {vn, 3'b000});
        vn = vn + 4'd1;
      end
    end
    push(vb, vn, 1'b0);
  endtask

  always_comb begin : status
    logic [2:0] k, kk;
    logic ok, found, nseq, first, on, branch, data, full;
    logic [1:0] dds, das;
    logic [3:0] t;
    logic [2:0] rsn;
    logic [16:0] apo;
    logic [42:0] ap;
    logic [8:0]  total;
    logic        values, pk;
    // Working copies of the arrays.
    for (int i = 0; i < Q; i++) begin
      seq_d[i] = seq_q[i];
      restart_d[i] = restart_q[i];
      reason_e_d[i] = reason_e_q[i];
      resolved_d[i] = resolved_q[i];
      exec_d[i] = exec_q[i];
      fold_it_d[i] = fold_it_q[i];
      branch_d[i] = branch_q[i];
      target_d[i] = target_q[i];
      has_data_d[i] = has_data_q[i];
      data_done_d[i] = data_done_q[i];
      nxfer_d[i] = nxfer_q[i];
      nwait_d[i] = nwait_q[i];
      nvb_d[i] = nvb_q[i];
      daddr_d[i] = daddr_q[i];
    end
    wa_en = 1'b0;
    wa_idx = '0;
    wa_lanes = 8'd0;
    wv_en = 1'b0;
    wv_idx = '0;
    wv_value = 64'd0;
    for (int i = 0; i < 4; i++) begin
      slot_seq_d[i] = slot_seq_q[i];
      slot_idx_d[i] = slot_idx_q[i];
    end
    head = head_q;
    len = len_q;
    open = open_q;
    seqn = seqn_q;
    owner_valid = owner_valid_q;
    xfer_open = xfer_open_q;
    owner = owner_q;
    slot_valid = slot_valid_q;
    active = active_q;
    reason = reason_q;
    ovf = ovf_q;
    apo_cnt = apo_cnt_q;
    full_daddr = full_daddr_q;
    lost = 1'b0;
    st_valid = 1'b0;
    st_val = etm_defs_pkg::PsWt;
    try_push = 1'b0;
    writing = 1'b0;
    gen_left = gen_left_q;
    gen_t = gen_t_q;
    p_fit = 1'b0;
    p_left = 5'd0;
    p_bn = 3'd0;
    p_b = 40'd0;
    p_status = etm_defs_pkg::PsIe;
    p_data_addr = 1'b0;
    p_restart = 1'b0;
    p_branch = 1'b0;
    p_full = 1'b0;
    p_last_daddr = last_daddr_q;
    p_a = 32'd0;
    p_apo = 4'd0;
    pn = 8'd0;
    pb = '0;
    pf = '0;
    k = 3'd0;
    kk = 3'd0;
    ok = 1'b0;
    found = 1'b0;
    t = 4'd0;
    dds = ddctl_i[1:0];
    das = dactl_i[1:0];
    nseq = dactl_i[17];
    first = 1'b0;
    on = 1'b0;
    data = 1'b0;
    branch = 1'b0;
    full = 1'b0;
    rsn = 3'd0;
    apo = 17'd0;
    ap = 43'd0;
    total = 9'd0;
    values = 1'b0;
    pk = 1'b0;

    if (end_i) begin
      // etm_pipestat_end(): the last instruction is resolved; data that never
      // completes would hold the queue for ever.
      resolve(1'b0, 32'd0);
      for (int i = 0; i < Q; i++) begin
        if (4'(i) < len) begin
          // A transfer or value the trace ended before: the instruction goes
          // out without its data.
          if (has_data_d[idx(head, 4'(i))] && (!data_done_d[idx(head, 4'(i))] ||
                                              nwait_d[idx(head, 4'(i))] != 8'd0)) begin
            has_data_d[idx(head, 4'(i))] = 1'b0;
          end
          data_done_d[idx(head, 4'(i))] = 1'b1;
          nwait_d[idx(head, 4'(i))] = 8'd0;
        end
      end
    end else if (enabled_i) begin
      if (ovf && fifo_level_q_i == 17'd0 && !gen_busy) ovf = 1'b0;
      on = trace_enable_i && !ovf;
      // Trace turning off: the last instruction went sequentially.
      if (!on && active && !ovf) begin
        resolve(1'b0, 32'd0);
        active = 1'b0;
        reason = 3'd1;
      end

      // data_value(): belongs to the address of its slot from an earlier cycle.
      if (dds != 2'd0 && slot_valid[dds]) begin
        by_seq(slot_seq_d[dds], found, k);
        t = slot_idx_d[dds];
        // (The transfer was added in an earlier cycle: the store has it.)
        if (found && {1'b0, t} < nxfer_d[k] && !got_q[xidx(k, t)]) begin
          wv_en = 1'b1;
          wv_idx = xidx(k, t);
          wv_value = dd_i;
          if (nwait_d[k] != 8'd0) nwait_d[k] = nwait_d[k] - 8'd1;
        end
        slot_valid[dds] = 1'b0;
      end

      // take_instructions()
      if (on && natoms_i != 2'd0) begin
        ok = 1'b1;
        if (!active) begin
          // Trace (re)starts: a BE standing for no instruction, full address.
          add_entry(ok, k);
          if (!ok) begin
            lose();
          end else begin
            restart_d[k] = 1'b1;
            resolved_d[k] = 1'b1;
            reason_e_d[k] = reason;
            target_d[k] = addr0_i;
            active = 1'b1;
          end
        end else begin
          resolve(target0_i || entry_i || ret_i, addr0_i);
        end
        for (int i = 0; i < 2; i++) begin
          if (ok && 2'(i) < natoms_i) begin
            if (i == 1) resolve(target1_i, addr1_i);
            add_entry(ok, k);
            if (!ok) begin
              lose();
            end else begin
              exec_d[k] = (i == 0) ? exec0_i : exec1_i;
              fold_it_d[k] = (i == 1) && fold_i;
              open = 1'b1;
            end
          end
        end
      end

      // data_address(): after the cycle's instructions.
      // With data trace off nothing is gathered: a load is IE, a load to the PC BE.
      if (das != 2'd0 && (data_addr_i || data_value_i)) begin
        found = 1'b0;
        // DAFirst: a DANSeq after a DALast (a second DANSeq, LDM with the PC or
        // SWP, continues the same instruction). DALast ends the instruction's
        // transfers; on the first half of an unaligned access the second half
        // is still to come.
        first = nseq && !xfer_open_q;
        xfer_open = !(dactl_i[16] && !dactl_i[11]);
        if (first) begin
          // First transfer of an instruction: the newest one (not an IT folded
          // after it), if trace is on and ViewData is active for it (an LSM's
          // data all or none). The later transfers of a traced instruction are
          // gathered after trace turns off.
          if (active && open && view_data_i && len != 4'd0) begin
            found = 1'b1;
            k = idx(head, len - 4'd1);
            if (fold_it_d[k] && len > 4'd1) k = idx(head, len - 4'd2);
            owner_valid = 1'b1;
            owner = seq_d[k];
            has_data_d[k] = 1'b1;
            daddr_d[k] = da_i;
          end else begin
            owner_valid = 1'b0;
          end
        end else if (owner_valid) begin
          by_seq(owner, found, k);
        end
        if (found && nxfer_d[k] != 5'(X)) begin
          t = nxfer_d[k][3:0];
          nxfer_d[k] = nxfer_d[k] + 5'd1;
          wa_en = 1'b1;
          wa_idx = xidx(k, t);
          wa_lanes = dactl_i[10:3];
          nvb_d[k] = nvb_d[k] + {4'd0, etm_pkg::dslot_lanes(dactl_i[10:3])};
          if (data_value_i) begin
            nwait_d[k] = nwait_d[k] + 8'd1;
            slot_valid[das] = 1'b1;
            slot_seq_d[das] = seq_d[k];
            slot_idx_d[das] = t;
          end
          // DALast ends the transfers; an unaligned first half waits for its second.
          if (dactl_i[16] && !dactl_i[11]) begin
            data_done_d[k] = 1'b1;
            owner_valid = 1'b0;
          end
        end
      end

      // The FIFO takes one write a cycle: the writer's, or a status's packets.
      if (gen_busy) begin
        writing = 1'b1;
        push_xfer(xidx(gen_k_q, gen_t_q));
        if (gen_left_q == 5'd1 && gen_bn_q != 3'd0) push({24'd0, gen_b_q}, {1'b0, gen_bn_q}, 1'b1);
        gen_left = gen_left_q - 5'd1;
        gen_t = gen_t_q + 4'd1;
      end

      // This cycle's status.
      kk = head;
      pk = restart_d[kk] || branch_d[kk] || has_data_d[kk];
      if (apo_cnt != 2'd0) begin
        st_valid = 1'b1;
        st_val = (apo_cnt == 2'd2) ? {1'b0, apo_val_q[1:0]} : {1'b0, apo_val_q[3:2]};
        apo_cnt = apo_cnt - 2'd1;
      end else if (len != 4'd0 && resolved_d[kk] &&
                   (!has_data_d[kk] || (data_done_d[kk] && nwait_d[kk] == 8'd0)) && !(writing && pk)) begin
        // output_entry(): the head entry's status; its packets admitted, the
        // first transfer's written.
        try_push = 1'b1;
        p_restart = restart_d[kk];
        data = !restart_d[kk] && has_data_d[kk];
        values = data && data_value_i;
        branch = restart_d[kk] || branch_d[kk];
        if (restart_d[kk]) p_status = etm_defs_pkg::PsBe;
        else p_status = branch_d[kk] ? (data ? etm_defs_pkg::PsBd : etm_defs_pkg::PsBe) :
                        data ? etm_defs_pkg::PsId : exec_d[kk] ? etm_defs_pkg::PsIe : etm_defs_pkg::PsIn;
        if (data && data_addr_i) begin
          push_addr(etm_pkg::v1_addr_packets(daddr_d[kk], last_daddr_q, full_daddr, 3'd0), 1'b0);
          p_data_addr = 1'b1;
          p_last_daddr = daddr_d[kk];
        end
        // Bytes ahead of the branch address: the data address and every value.
        total = {1'b0, pn} + (values ? {1'b0, nvb_d[kk]} : 9'd0);
        if (values && nxfer_d[kk] != 5'd0) push_xfer(xidx(kk, 4'd0));
        p_left = (values && nxfer_d[kk] > 5'd1) ? nxfer_d[kk] - 5'd1 : 5'd0;
        if (branch) begin
          p_branch = 1'b1;
          p_a = target_d[kk] | 32'd1;  // bit 0: Thumb
          rsn = restart_d[kk] ? reason_e_d[kk] : 3'd0;
          full = restart_d[kk];
          if (!full && since_full_q >= etm_defs_pkg::PeriodicFull) begin
            // Periodic full address: when there is room, and in any case once
            // the retry window has passed.
            if ({15'd0, fifo_level_q_i} + {23'd0, total} + 32'd5 <= depth_i ||
                since_full_q >= etm_defs_pkg::PeriodicFull + etm_defs_pkg::PeriodicForce) begin
              full = 1'b1;
              rsn = minor_ge2_i ? 3'd4 : 3'd0;
            end
          end
          p_full = full;
          // addresses_waiting(): branch addresses whose first packet is still held.
          apo = fifo_nflags_q_i;
          if (nib_q && fifo_level_q_i != 17'd0 && fifo_head_flag_q_i) apo = apo - 17'd1;
          p_apo = (apo > 17'd14) ? 4'd15 : apo[3:0];
          ap = etm_pkg::v1_addr_packets(p_a, last_baddr_q, full, rsn);
          total = total + {6'd0, ap[42:40]};
          if (p_left == 5'd0) push_addr(ap, 1'b1);
          else begin
            p_bn = ap[42:40];
            p_b = ap[39:0];
          end
        end
        p_fit = {15'd0, fifo_level_q_i} + {23'd0, total} <= depth_i;
      end else if (ovf) begin
        st_valid = 1'b1;
        st_val = etm_defs_pkg::PsWt;
      end
    end
  end

  assign push_n_o = (writing || (try_push && p_fit)) ? pn : 8'd0;
  assign push_data_o = pb;
  assign push_flag_o = pf;

  // ---- finish: the push's outcome, the trigger, the port ----------------------------
  logic        f_len_dec;
  always_comb begin : finish
    logic        sv;
    logic [2:0]  s;
    logic        drained;
    logic        idle_end;
    head_d = head;
    len_d = len;
    open_d = open;
    seqn_d = seqn;
    owner_valid_d = owner_valid;
    xfer_open_d = xfer_open;
    owner_d = owner;
    slot_valid_d = slot_valid;
    active_d = active;
    reason_d = reason;
    ovf_d = ovf;
    apo_cnt_d = apo_cnt;
    apo_val_d = apo_val_q;
    nib_d = nib_q;
    full_daddr_d = full_daddr;
    last_baddr_d = last_baddr_q;
    last_daddr_d = last_daddr_q;
    since_full_d = since_full_q;
    gen_left_d = gen_left;
    gen_k_d = gen_k_q;
    gen_t_d = gen_t;
    gen_bn_d = gen_bn_q;
    gen_b_d = gen_b_q;
    f_len_dec = 1'b0;
    pop_o = 2'd0;
    pipestat_o = etm_defs_pkg::PsTd;
    tracepkt_o = 16'd0;
    tracesync_o = 1'b0;
    overflow_o = 1'b0;
    sv = st_valid;
    s = st_val;
    drained = 1'b0;
    // etm_drain with nothing left: TD, and the state stays.
    idle_end = drain_i && fifo_level_q_i == 17'd0 && len_q == 4'd0 && apo_cnt_q == 2'd0 && !gen_busy;

    if (idle_end) begin
      // No port cycle, no change.
      head_d = head_q;
      len_d = len_q;
      open_d = open_q;
      seqn_d = seqn_q;
      owner_valid_d = owner_valid_q;
      xfer_open_d = xfer_open_q;
      owner_d = owner_q;
      slot_valid_d = slot_valid_q;
      active_d = active_q;
      reason_d = reason_q;
      ovf_d = ovf_q;
      apo_cnt_d = apo_cnt_q;
    end else if (end_i) begin
      // No port cycle.
    end else if (!enabled_i) begin
      pipestat_o = etm_defs_pkg::PsTd;
    end else begin
      if (try_push) begin
        if (p_fit) begin
          sv = 1'b1;
          s = p_status;
          if (p_left != 5'd0) begin
            gen_left_d = p_left;
            gen_k_d = head;
            gen_t_d = 4'd1;
            gen_bn_d = p_bn;
            gen_b_d = p_b;
          end
          if (p_data_addr) begin
            last_daddr_d = p_last_daddr;
            full_daddr_d = 1'b0;
          end
          // The first data address after a restart is full (in output order).
          if (p_restart) full_daddr_d = 1'b1;
          if (p_branch) begin
            last_baddr_d = p_a;
            if (p_full) since_full_d = 32'd0;
            apo_cnt_d = 2'd2;
            apo_val_d = p_apo;
          end
          head_d = head + 3'd1;
          len_d = len - 4'd1;
          f_len_dec = 1'b1;
        end else begin
          // lose()
          len_d = 4'd0;
          open_d = 1'b0;
          owner_valid_d = 1'b0;
          slot_valid_d = 3'd0;
          ovf_d = 1'b1;
          active_d = 1'b0;
          reason_d = 3'd2;
          sv = 1'b1;
          s = etm_defs_pkg::PsWt;
        end
      end
      if (trigger_i) begin
        pipestat_o = etm_defs_pkg::PsTr;
        tracepkt_o = {13'd0, sv ? s : etm_defs_pkg::PsWt};
      end else begin
        // drain()
        if (fifo_level_w_i != 17'd0) begin
          drained = 1'b1;
          if (port_i == 2'd0) begin
            if (!nib_q) begin
              tracepkt_o = {12'd0, fifo_head0_i[3:0]};
              tracesync_o = fifo_head0_flag_i;
              nib_d = 1'b1;
            end else begin
              tracepkt_o = {12'd0, fifo_head0_i[7:4]};
              nib_d = 1'b0;
              pop_o = 2'd1;
            end
          end else begin
            tracepkt_o = {8'd0, fifo_head0_i};
            tracesync_o = fifo_head0_flag_i;
            pop_o = 2'd1;
            if (port_i == 2'd2 && fifo_level_w_i > 17'd1 && !fifo_head1_flag_i) begin
              tracepkt_o = {fifo_head1_i, fifo_head0_i};
              pop_o = 2'd2;
            end
          end
        end
        pipestat_o = sv ? s : drained ? etm_defs_pkg::PsWt : etm_defs_pkg::PsTd;
        if (pipestat_o == etm_defs_pkg::PsTd && ca_i) tracepkt_o = {15'd0, trace_enable_i};
      end
      overflow_o = ovf_d;
      if (active_d && since_full_d != 32'hFFFF_FFFF) since_full_d = since_full_d + 32'd1;
    end
  end

  // Queue storage: no reset (an entry is cleared when it is added).
  for (genvar g = 0; g < Q; g++) begin : gen_entry
    always_ff @(posedge clk_i) begin
      seq_q[g]       <= seq_d[g];
      restart_q[g]   <= restart_d[g];
      reason_e_q[g]  <= reason_e_d[g];
      resolved_q[g]  <= resolved_d[g];
      exec_q[g]      <= exec_d[g];
      fold_it_q[g]   <= fold_it_d[g];
      branch_q[g]    <= branch_d[g];
      target_q[g]    <= target_d[g];
      has_data_q[g]  <= has_data_d[g];
      data_done_q[g] <= data_done_d[g];
      nxfer_q[g]     <= nxfer_d[g];
      nwait_q[g]     <= nwait_d[g];
      nvb_q[g]       <= nvb_d[g];
      daddr_q[g]     <= daddr_d[g];
    end
  end
  always_ff @(posedge clk_i) begin
    if (wa_en) begin
      lanes_q[wa_idx] <= wa_lanes;
      got_q[wa_idx]   <= 1'b0;
      value_q[wa_idx] <= 64'd0;
    end
    if (wv_en) begin
      got_q[wv_idx]   <= 1'b1;
      value_q[wv_idx] <= wv_value;
    end
  end
  for (genvar g = 0; g < 4; g++) begin : gen_slot
    always_ff @(posedge clk_i) begin
      slot_seq_q[g] <= slot_seq_d[g];
      slot_idx_q[g] <= slot_idx_d[g];
    end
  end

  logic unused_lost;
  // DAWrite, DARot, DASwizzle, DACPRT and the ETMDDCTL qualifiers are not traced.
  assign unused_lost = ^{lost, f_len_dec, dactl_i[15:12], dactl_i[2], ddctl_i[3:2]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      head_q        <= 3'd0;
      len_q         <= 4'd0;
      open_q        <= 1'b0;
      seqn_q        <= 16'd0;
      owner_valid_q <= 1'b0;
      xfer_open_q   <= 1'b0;
      owner_q       <= 16'd0;
      slot_valid_q  <= 3'd0;
      active_q      <= 1'b0;
      reason_q      <= 3'd1;
      ovf_q         <= 1'b0;
      apo_cnt_q     <= 2'd0;
      apo_val_q     <= 4'd0;
      nib_q         <= 1'b0;
      full_daddr_q  <= 1'b1;
      last_baddr_q  <= 32'd0;
      last_daddr_q  <= 32'd0;
      since_full_q  <= 32'd0;
      gen_left_q    <= 5'd0;
      gen_k_q       <= 3'd0;
      gen_t_q       <= 4'd0;
      gen_bn_q      <= 3'd0;
      gen_b_q       <= 40'd0;
    end else begin
      head_q        <= head_d;
      len_q         <= len_d;
      open_q        <= open_d;
      seqn_q        <= seqn_d;
      owner_valid_q <= owner_valid_d;
      xfer_open_q   <= xfer_open_d;
      owner_q       <= owner_d;
      slot_valid_q  <= slot_valid_d;
      active_q      <= active_d;
      reason_q      <= reason_d;
      ovf_q         <= ovf_d;
      apo_cnt_q     <= apo_cnt_d;
      apo_val_q     <= apo_val_d;
      nib_q         <= nib_d;
      full_daddr_q  <= full_daddr_d;
      last_baddr_q  <= last_baddr_d;
      last_daddr_q  <= last_daddr_d;
      since_full_q  <= since_full_d;
      gen_left_q    <= gen_left_d;
      gen_k_q       <= gen_k_d;
      gen_t_q       <= gen_t_d;
      gen_bn_q      <= gen_bn_d;
      gen_b_q       <= gen_b_d;
    end
  end

  assign idle_o = len_q == 4'd0 && apo_cnt_q == 2'd0 && !gen_busy;
  assign ovf_q_o = ovf_q;

endmodule
