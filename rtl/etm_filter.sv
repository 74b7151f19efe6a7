// etm_filter.sv - stage `filter` (model/core/src/filter.c, docs/filter.md): which
// cycles are traced (TraceEnable), whether a data transfer is traced (ViewData),
// and when the trigger fires.
//
// Each cycle is a list of up to four items in trace order (ETM architecture
// 2.11.1): a lone DWT instruction match, the instruction of slot 0, the folded IT
// or slot 1's instruction, then the data transfer (or a lone DWT data match).
// Address comparators compare each item of their kind; the start/stop block and
// the include/exclude regions act item by item; events ("function of resources
// A and B") are evaluated once per cycle, in two views: pulsed (this cycle's
// matches: trigger, counters, start/stop) and latched (the last comparison of
// the comparator's kind: TraceEnable, ViewData).
//
// The setup (etm_filter_setup) is decoded from the static configuration ports.
// Registers reset to constants; the counters and the include/exclude term take
// their configured start values through init_q (the first cycle after reset
// reads the configured values instead of the registers).
module etm_filter (
  input  logic         clk_i,
  input  logic         rst_ni,
  // Configuration (static).
  input  logic         v31_i,          // ETMv3.1 and later comparison rules
  input  logic         v1_i,           // ETMv1.x
  input  logic         v35_i,          // ETMv3.5 and later
  input  logic [31:0]  etmccr_i,
  input  logic [31:0]  etmccer_i,
  input  logic [511:0] etmacvr_i,
  input  logic [511:0] etmactr_i,
  input  logic [31:0]  etmtecr1_i,
  input  logic [31:0]  etmtecr2_i,
  input  logic [31:0]  etmtsscr_i,
  input  logic [31:0]  etmtesseicr_i,
  input  logic [31:0]  etmvdcr1_i,
  input  logic [31:0]  etmvdcr3_i,
  input  logic [31:0]  etmteevr_i,
  input  logic [31:0]  etmtrigger_i,
  input  logic [31:0]  etmvdevr_i,
  input  logic [127:0] etmcntenr_i,
  input  logic [127:0] etmcntrldevr_i,
  input  logic [127:0] etmcntrldvr_i,
  input  logic [127:0] etmcntvr_i,
  // This cycle.
  input  logic         run_i,          // evaluate (enabled, not ending or draining)
  input  logic         ivalid_i,       // ETMIVALID
  input  logic         dvalid_i,       // ETMDVALID
  input  logic         cancel_i,       // ETMCANCEL
  input  logic [3:0]   dwt_i,          // ETMTRIGGER[3:0]
  input  logic [3:0]   dwt_inotd_i,    // ETMTRIGINOTD[3:0]
  input  logic [17:0]  dactl_i,
  input  logic [31:0]  da_i,
  input  logic [1:0]   natoms_i,       // etm_frontend's items
  input  logic [31:0]  addr0_i,
  input  logic         exec0_i,
  input  logic [31:0]  addr1_i,
  input  logic         exec1_i,
  input  logic         entry_i,
  output logic         trace_enable_o,
  output logic         trigger_o,
  output logic         view_data_o,
  // For the status registers (etm_regs): ETMSR[2], ETMSR[3], the counters' values.
  output logic         ss_o,
  output logic         triggered_o,
  output logic [63:0]  cnt_o
);
  localparam logic [16:0] EvNever = 17'h0406F;
  localparam logic [1:0] ItInsn = 2'd0, ItData = 2'd1, ItNone = 2'd2;

  // ---- Setup (etm_filter_setup) -----------------------------------------------------
  logic [31:0] acvr [16];
  logic [31:0] amask [16];
  logic [2:0]  asize [16];
  logic [2:0]  atype [16];
  logic [15:0] s_instr, s_data, s_exact;
  logic [7:0]  r_instr, r_data, r_exact;
  logic        ie_always, exclude, use_ss;
  logic [2:0]  ncnt;
  logic        reduced1;
  logic [16:0] cntenr [4];
  logic [16:0] cntrldevr [4];
  logic [15:0] cnt_start [4];

  always_comb begin : setup
    logic [3:0] pairs;
    logic [1:0] size;
    pairs = etm_defs_pkg::ccr_pairs(etmccr_i);
    size = 2'd0;
    ie_always = 1'b0;
    exclude = 1'b0;
    use_ss = 1'b0;
    ncnt = 3'd0;
    reduced1 = 1'b0;
    for (int i = 0; i < 4; i++) begin
      cntenr[i] = EvNever;
      cntrldevr[i] = EvNever;
      cnt_start[i] = 16'd0;
    end
    s_instr = '0;
    s_data = '0;
    s_exact = '0;
    r_instr = '0;
    r_data = '0;
    r_exact = '0;
    for (int n = 0; n < 16; n++) begin
      acvr[n] = 32'd0;
      amask[n] = 32'd0;
      asize[n] = 3'd0;
      atype[n] = 3'd0;
      if (n < 2 * 32'(pairs)) begin
        size = etm_defs_pkg::actr_size(etmactr_i[32*n +: 32]);
        acvr[n] = etm_defs_pkg::acvr_address(etmacvr_i[32*n +: 32]);
        atype[n] = etm_defs_pkg::actr_type(etmactr_i[32*n +: 32]);
        amask[n] = size == 2'd3 ? 32'hFFFF_FFFC : size == 2'd1 ? 32'hFFFF_FFFE : 32'hFFFF_FFFF;
        asize[n] = size == 2'd3 ? 3'd4 : size == 2'd1 ? 3'd2 : 3'd1;
        if (atype[n] >= 3'd1 && atype[n] <= 3'd3) begin
          s_instr[n] = 1'b1;
          s_exact[n] = etm_defs_pkg::actr_exact(etmactr_i[32*n +: 32]);
        end else if (atype[n] >= 3'd4 && atype[n] <= 3'd6) begin
          s_data[n] = 1'b1;
        end
      end
    end
    for (int k = 0; k < 8; k++) begin
      if (k < 32'(pairs)) begin
        r_instr[k] = s_instr[2*k];
        r_exact[k] = s_instr[2*k] && s_exact[2*k];
        r_data[k] = s_data[2*k];
      end
    end
    ie_always = pairs == 4'd0 && etm_defs_pkg::ccr_decoders(etmccr_i) == 5'd0;
    exclude = etm_defs_pkg::tecr1_exclude(etmtecr1_i);
    use_ss = etm_defs_pkg::tecr1_start_stop(etmtecr1_i);
    ncnt = etm_defs_pkg::ccr_counters(etmccr_i);
    reduced1 = v35_i && etm_defs_pkg::ccer_reduced_counter(etmccer_i);
    for (int i = 0; i < 4; i++) begin
      if (3'(i) < ncnt) begin
        cntenr[i] = (v1_i && !etm_defs_pkg::cntenr_source(etmcntenr_i[32*i +: 32])) ? 17'h0006F : etmcntenr_i[32*i +: 17];
        cntrldevr[i] = etmcntrldevr_i[32*i +: 17];
        cnt_start[i] = etm_defs_pkg::counter_value(etmcntvr_i[32*i +: 32]);
      end else begin
        cntenr[i] = EvNever;
        cntrldevr[i] = EvNever;
        cnt_start[i] = 16'd0;
      end
    end
    if (reduced1) begin
      cntenr[0] = 17'h0006F;
      cntrldevr[0] = EvNever;
      if (ncnt != 3'd0) cnt_start[0] = etm_defs_pkg::counter_value(etmcntrldvr_i[31:0]);
    end
  end

  logic unused_cfg;
  assign unused_cfg = ^{etmtecr1_i[31:26], etmtecr1_i[23:8], etmtecr2_i[31:16], etmtesseicr_i[31:24],
                        etmtesseicr_i[15:8], etmvdcr3_i[31:17], etmteevr_i[31:17], etmtrigger_i[31:17],
                        etmvdevr_i[31:17], etmccr_i[31:16], etmccr_i[7:4], etmccer_i[31:28],
                        etmccer_i[26:0], etmcntenr_i, etmcntrldevr_i, etmcntrldvr_i, etmcntvr_i,
                        etmactr_i, dactl_i[17:11], dactl_i[1:0], etmtesseicr_i[23:20], etmtesseicr_i[7:4]};

  // ---- State (filter_state_t) --------------------------------------------------------
  logic        init_q, init_d;       // the start values below have been taken
  logic        triggered_q, triggered_d;
  logic        ss_q, ss_d;
  logic        ie_q, ie_d;
  logic        te_insn_q, te_insn_d;
  logic        seen_insn_q, seen_insn_d;  // an instruction has been seen
  logic [15:0] s_latch_q, s_latch_d;
  logic [7:0]  r_latch_q, r_latch_d;
  logic [3:0]  eice_latch_q, eice_latch_d;
  logic [3:0]  eice_pc_q, eice_pc_d;
  logic [15:0] s_pend_q, s_pend_d;
  logic [7:0]  r_pend_q, r_pend_d;
  logic [15:0] cnt_q [4];
  logic [15:0] cnt_d [4];

  // ---- Comparators ---------------------------------------------------------------------
  function automatic logic type_accepts(input logic [2:0] t, input logic [1:0] kind, input logic exec,
                                        input logic write);
    unique case (t)
      3'd1:    type_accepts = kind == ItInsn;
      3'd2:    type_accepts = kind == ItInsn && exec;
      3'd3:    type_accepts = kind == ItInsn && !exec;
      3'd4:    type_accepts = kind == ItData;
      3'd5:    type_accepts = kind == ItData && !write;
      3'd6:    type_accepts = kind == ItData && write;
      default: type_accepts = 1'b0;
    endcase
  endfunction

  // Does a data transfer touch a byte in [lo, hi)? (33-bit arithmetic: hi may be 2^32.)
  function automatic logic data_touches(input logic [31:3] addr, input logic [7:0] lanes,
                                        input logic [32:0] lo, input logic [32:0] hi);
    logic [32:0] b;
    data_touches = 1'b0;
    for (int l = 0; l < 8; l++) begin
      b = {1'b0, addr[31:3], 3'(l)};
      if (lanes[l] && b >= lo && b < hi) data_touches = 1'b1;
    end
  endfunction

  // ---- Events ------------------------------------------------------------------------------
  function automatic logic resource(input logic [6:0] id, input logic [15:0] single, input logic [7:0] range,
                                    input logic [3:0] eice, input logic [3:0] zero, input logic ss);
    unique case (id[6:4])
      3'd0:    resource = single[id[3:0]];
      3'd1:    resource = !id[3] && range[id[2:0]];
      3'd2:    resource = id[3:2] == 2'd0 && eice[id[1:0]];
      3'd4:    resource = id[3:2] == 2'd0 && zero[id[1:0]];
      3'd5:    resource = id[3:0] == 4'hF && ss;
      3'd6:    resource = id[3:0] == 4'hF;
      default: resource = 1'b0;
    endcase
  endfunction

  function automatic logic event_true(input logic [16:0] ev, input logic [15:0] single, input logic [7:0] range,
                                      input logic [3:0] eice, input logic [3:0] zero, input logic ss);
    logic a, b;
    a = resource(etm_defs_pkg::event_resource_a({15'd0, ev}), single, range, eice, zero, ss);
    b = resource(etm_defs_pkg::event_resource_b({15'd0, ev}), single, range, eice, zero, ss);
    unique case (etm_defs_pkg::event_function({15'd0, ev}))
      3'd0:    event_true = a;
      3'd1:    event_true = !a;
      3'd2:    event_true = a && b;
      3'd3:    event_true = !a && b;
      3'd4:    event_true = !a && !b;
      3'd5:    event_true = a || b;
      3'd6:    event_true = !a || b;
      default: event_true = !a || !b;
    endcase
  endfunction

  // ---- The cycle (etm_filter) ----------------------------------------------------------
  always_comb begin : cycle
    logic [3:0]  imatch, dmatch, e_cmp, zero, it_eice;
    logic        has_data, ss, ss_cycle, ie_any, any_insn, any_data, ie, te_addr, te, start, stop, act, m;
    logic        in_sel, ex_sel, it_valid, it_exec;
    logic [3:0]  eice_start, eice_stop;  // four DWT inputs: ETMTESSEICR[3:0], [19:16]
    logic [1:0]  it_kind;
    logic [31:0] it_addr;
    logic [7:0]  dlanes;
    logic [15:0] sm, cyc_single, data_single, s_cmp, se, cand;
    logic [7:0]  rm, cyc_range, data_range, r_cmp, re, rcand;
    logic [15:0] cnt_cur [4];
    logic        ie_cur;
    logic [32:0] lo, hi;
    eice_start = 4'(etm_defs_pkg::tesseicr_start(etmtesseicr_i));
    eice_stop = 4'(etm_defs_pkg::tesseicr_stop(etmtesseicr_i));

    // Every local gets a value first (no latches: Yosys checks always_comb).
    sm = '0;
    rm = '0;
    se = '0;
    re = '0;
    cand = '0;
    rcand = '0;
    lo = '0;
    hi = '0;
    start = 1'b0;
    stop = 1'b0;
    act = 1'b0;
    m = 1'b0;
    ie = 1'b0;
    te = 1'b0;
    in_sel = 1'b0;
    ex_sel = 1'b0;
    s_cmp = '0;
    r_cmp = '0;
    e_cmp = '0;
    zero = '0;
    te_addr = 1'b0;
    init_d = 1'b1;
    triggered_d = triggered_q;
    ss_d = ss_q;
    ie_cur = init_q ? ie_q : (ie_always || exclude);
    ie_d = ie_cur;
    te_insn_d = te_insn_q;
    seen_insn_d = seen_insn_q;
    s_latch_d = s_latch_q;
    r_latch_d = r_latch_q;
    eice_latch_d = eice_latch_q;
    eice_pc_d = eice_pc_q;
    s_pend_d = s_pend_q;
    r_pend_d = r_pend_q;
    for (int i = 0; i < 4; i++) begin
      cnt_cur[i] = init_q ? cnt_q[i] : cnt_start[i];
      cnt_d[i] = cnt_cur[i];
    end
    trace_enable_o = 1'b0;
    trigger_o = 1'b0;
    view_data_o = 1'b0;

    imatch = dwt_i & dwt_inotd_i;
    dmatch = dwt_i & ~dwt_inotd_i;
    has_data = dactl_i[1:0] != 2'd0;
    dlanes = dactl_i[10:3];
    if (dlanes == 8'd0) dlanes = 8'd1 << da_i[2:0];

    if (cancel_i) begin
      s_pend_d = '0;
      r_pend_d = '0;
    end

    cyc_single = '0;
    cyc_range = '0;
    data_single = '0;
    data_range = '0;
    ss = ss_q;
    ss_cycle = 1'b0;
    ie_any = 1'b0;
    any_insn = 1'b0;
    any_data = 1'b0;
    // Items: 0 a lone PC match, 1 and 2 the instructions, 3 the data transfer
    // or a lone data match.
    for (int i = 0; i < 4; i++) begin
      it_valid = 1'b0;
      it_kind = ItNone;
      it_exec = 1'b0;
      it_addr = 32'd0;
      it_eice = 4'd0;
      unique case (i)
        0: begin
          it_valid = imatch != 4'd0 && natoms_i == 2'd0;
          it_eice = imatch;
        end
        1: begin
          it_valid = natoms_i != 2'd0;
          it_kind = ItInsn;
          it_exec = exec0_i;
          it_addr = addr0_i;
          it_eice = imatch;
        end
        2: begin
          it_valid = natoms_i == 2'd2;
          it_kind = ItInsn;
          it_exec = exec1_i;
          it_addr = addr1_i;
        end
        default: begin
          it_valid = has_data || dmatch != 4'd0;
          it_kind = has_data ? ItData : ItNone;
          it_addr = da_i;
          it_eice = dmatch;
        end
      endcase
      if (it_valid) begin
        // compare_item()
        sm = '0;
        rm = '0;
        cand = it_kind == ItInsn ? s_instr : it_kind == ItData ? s_data : 16'd0;
        rcand = it_kind == ItInsn ? r_instr : it_kind == ItData ? r_data : 8'd0;
        for (int n = 0; n < 16; n++) begin
          if (cand[n] && type_accepts(atype[n], it_kind, it_exec, dactl_i[2])) begin
            if (it_kind == ItData && v31_i) begin
              sm[n] = data_touches(it_addr[31:3], dlanes, {1'b0, acvr[n]}, {1'b0, acvr[n]} + {30'd0, asize[n]});
            end else if (it_kind == ItInsn && v31_i) begin
              sm[n] = it_addr == acvr[n];
            end else begin
              sm[n] = ((it_addr ^ acvr[n]) & amask[n]) == 32'd0;
            end
          end
        end
        for (int k = 0; k < 8; k++) begin
          if (rcand[k] && type_accepts(atype[2*k], it_kind, it_exec, dactl_i[2])) begin
            lo = {1'b0, acvr[2*k]};
            hi = {1'b0, acvr[2*k+1]};
            if (it_kind == ItData) rm[k] = data_touches(it_addr[31:3], dlanes, lo, hi);
            else                   rm[k] = {1'b0, it_addr} >= lo && {1'b0, it_addr} < hi;
          end
        end
        if (it_kind == ItInsn) begin
          se = (sm & ~s_exact) | (s_pend_d & s_exact);
          re = (rm & ~r_exact) | (r_pend_d & r_exact);
          s_pend_d = sm & s_exact;
          r_pend_d = rm & r_exact;
          sm = se;
          rm = re;
        end
        cyc_single = cyc_single | sm;
        cyc_range = cyc_range | rm;
        // Start/stop block: an item that both starts and stops starts.
        start = (sm & etm_defs_pkg::tsscr_start(etmtsscr_i)) != 16'd0 || (it_eice & eice_start) != 4'd0;
        stop = (sm & etm_defs_pkg::tsscr_stop(etmtsscr_i)) != 16'd0 || (it_eice & eice_stop) != 4'd0;
        act = start || (ss && !stop);
        ss = start ? 1'b1 : stop ? 1'b0 : ss;
        ss_cycle = ss_cycle || act;
        if (it_kind == ItInsn) begin
          m = (sm & etm_defs_pkg::tecr2_single(etmtecr2_i)) != 16'd0 || (rm & etm_defs_pkg::tecr1_range(etmtecr1_i)) != 8'd0;
          ie = ie_always || (exclude ? !m : m);
          ie_d = ie;
          ie_any = ie_any || ie;
          any_insn = 1'b1;
        end else if (it_kind == ItData) begin
          data_single = sm;
          data_range = rm;
          any_data = 1'b1;
        end
      end
    end
    if (natoms_i == 2'd0 && imatch == 4'd0 && !has_data && dmatch == 4'd0) ss_cycle = ss;  // no item
    te_addr = (any_insn ? ie_any : ie_cur) && (!use_ss || ss_cycle);

    // Resources: pulse (this cycle) and latch (last comparison of its kind).
    s_cmp = (any_insn ? s_instr : 16'd0) | (any_data ? s_data : 16'd0);
    r_cmp = (any_insn ? r_instr : 8'd0) | (any_data ? r_data : 8'd0);
    s_latch_d = (s_latch_q & ~s_cmp) | (cyc_single & s_cmp);
    r_latch_d = (r_latch_q & ~r_cmp) | (cyc_range & r_cmp);
    eice_pc_d = (eice_pc_q & ~dwt_i) | (dwt_i & dwt_inotd_i);
    e_cmp = dwt_i | (ivalid_i ? eice_pc_d : 4'd0) | ((dvalid_i || has_data) ? ~eice_pc_d : 4'd0);
    eice_latch_d = (eice_latch_q & ~e_cmp) | (dwt_i & e_cmp);
    zero = 4'd0;
    for (int i = 0; i < 4; i++) begin
      if (3'(i) < ncnt) zero[i] = cnt_cur[i] == 16'd0;
    end

    // TraceEnable changes only with an instruction (before the first one: every cycle).
    te = te_insn_q;
    if (natoms_i != 2'd0 || !seen_insn_q) begin
      te = (event_true(etmteevr_i[16:0], s_latch_d, r_latch_d, eice_latch_d, zero, ss_cycle) && te_addr) ||
           (entry_i && te_insn_q);
    end
    if (natoms_i != 2'd0) begin
      te_insn_d = te;
      seen_insn_d = 1'b1;
    end
    trace_enable_o = te;

    if (has_data) begin
      in_sel = (data_single & etm_defs_pkg::vdcr1_include(etmvdcr1_i)) != 16'd0 || (data_range & etm_defs_pkg::vdcr3_include(etmvdcr3_i)) != 8'd0;
      ex_sel = (data_single & etm_defs_pkg::vdcr1_exclude(etmvdcr1_i)) != 16'd0 || (data_range & etm_defs_pkg::vdcr3_exclude(etmvdcr3_i)) != 8'd0;
      view_data_o = event_true(etmvdevr_i[16:0], s_latch_d, r_latch_d, eice_latch_d, zero, ss_cycle) &&
                    !ex_sel && (etm_defs_pkg::vdcr3_exclude_only(etmvdcr3_i) || in_sel);
    end

    if (!triggered_q && event_true(etmtrigger_i[16:0], cyc_single, cyc_range, dwt_i, zero, ss_cycle)) begin
      trigger_o = 1'b1;
      triggered_d = 1'b1;
    end

    // Counters: reload wins over decrement; at zero a counter stays there.
    for (int i = 0; i < 4; i++) begin
      if (3'(i) < ncnt) begin
        if (reduced1 && i == 0) begin
          if (cnt_cur[0] == 16'd0) cnt_d[0] = etm_defs_pkg::counter_value(etmcntrldvr_i[31:0]);
          else                     cnt_d[0] = cnt_cur[0] - 16'd1;
        end else if (event_true(cntrldevr[i], cyc_single, cyc_range, dwt_i, zero, ss_cycle)) begin
          cnt_d[i] = etm_defs_pkg::counter_value(etmcntrldvr_i[32*i +: 32]);
        end else if (cnt_cur[i] != 16'd0 &&
                     event_true(cntenr[i], cyc_single, cyc_range, dwt_i, zero, ss_cycle)) begin
          cnt_d[i] = cnt_cur[i] - 16'd1;
        end
      end
    end
    ss_d = ss;

    if (!run_i) begin
      // Powered down, programming, or the end of trace: outputs 0, state held.
      init_d = init_q;
      triggered_d = triggered_q;
      ss_d = ss_q;
      ie_d = ie_q;
      te_insn_d = te_insn_q;
      seen_insn_d = seen_insn_q;
      s_latch_d = s_latch_q;
      r_latch_d = r_latch_q;
      eice_latch_d = eice_latch_q;
      eice_pc_d = eice_pc_q;
      s_pend_d = s_pend_q;
      r_pend_d = r_pend_q;
      for (int i = 0; i < 4; i++) cnt_d[i] = cnt_q[i];
      trace_enable_o = 1'b0;
      trigger_o = 1'b0;
      view_data_o = 1'b0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      init_q       <= 1'b0;
      triggered_q  <= 1'b0;
      ss_q         <= 1'b0;
      ie_q         <= 1'b0;
      te_insn_q    <= 1'b0;
      seen_insn_q  <= 1'b0;
      s_latch_q    <= '0;
      r_latch_q    <= '0;
      eice_latch_q <= '0;
      eice_pc_q    <= '0;
      s_pend_q     <= '0;
      r_pend_q     <= '0;
    end else begin
      init_q       <= init_d;
      triggered_q  <= triggered_d;
      ss_q         <= ss_d;
      ie_q         <= ie_d;
      te_insn_q    <= te_insn_d;
      seen_insn_q  <= seen_insn_d;
      s_latch_q    <= s_latch_d;
      r_latch_q    <= r_latch_d;
      eice_latch_q <= eice_latch_d;
      eice_pc_q    <= eice_pc_d;
      s_pend_q     <= s_pend_d;
      r_pend_q     <= r_pend_d;
    end
  end

  for (genvar g = 0; g < 4; g++) begin : gen_cnt
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) cnt_q[g] <= 16'd0;
      else         cnt_q[g] <= cnt_d[g];
    end
  end

  assign ss_o = ss_q;
  assign triggered_o = triggered_q;
  for (genvar g = 0; g < 4; g++) begin : gen_cnt_out
    assign cnt_o[16*g +: 16] = init_q ? cnt_q[g] : cnt_start[g];
  end

endmodule
