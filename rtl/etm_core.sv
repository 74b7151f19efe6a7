// etm_core.sv - the RTL twin of the C model's etm_step (model/core/src/etm.c): one
// rising edge of clk_i is one etm_step; rst_ni is etm_reset of an instance made
// by etm_create_at_reset. The stages are those of the C model, one module each:
//
//   regs (the debug APB) ; check -> frontend -> filter -> pheader + packet (ETMv3)
//   or pipestat (ETMv1) -> fifo
//
// Ports: the Cortex-M3 ETM interface (Cortex-M3 TRM table 16.1) with the second
// instruction slot, the ARM11 data slot and the debug APB, and the outputs of
// etm_out_t, named as in model/defs/include/etm/signals.def (etm_ports.svh,
// generated from it, declares them); the implementation (impl_*_i: ETMCCR,
// ETMIDR, ETMCCER, ETMSCR and the model parameters of etm/regs.def), which a real
// part fixes: etm_top ties them from parameters; the co-simulation drives them
// so that one Verilated model serves every configuration. Every other register
// is programmed through the APB from its reset value. end_i makes the edge an
// etm_end (everything gathered goes into the FIFO, no port cycle); every edge
// after it is an etm_drain, until reset.
//
// The implementation must be one etm_create accepts, with FIFO_DEPTH <=
// MaxFifoDepth, FIFO_WRITE <= MaxFifoWrite, PORT_BYTES <= MaxPortBytes and
// PKT_QUEUE <= MaxPktQueue; the registers programmed must be ones
// etm_model_supports accepts.
`include "etm_ports.svh"

module etm_core #(
  parameter int unsigned MaxFifoDepth = 1024,
  // The FIFO's write port (FIFO_WRITE) and the ATB's width (PORT_BYTES) the
  // store and the packet generator are built for (a part builds its own).
  parameter int unsigned MaxFifoWrite = etm_defs_pkg::FifoWritePortMax,
  parameter int unsigned MaxPortBytes = 8,
  // The records' queue (with HasRecGen): built for this many, rounded up to a
  // power of two (a part builds its PKT_QUEUE).
  parameter int unsigned MaxPktQueue  = etm_defs_pkg::PktQueueMax,
  parameter bit          Assertions   = 1'b1,
  // Which protocols the instance can speak (an area what-if: a part built for
  // one protocol has no logic for the other; the configuration must match).
  parameter bit          HasV3        = 1'b1,
  parameter bit          HasV1        = 1'b1,
  // Which ETMv3 packet generators: the cycle's packets in the cycle (PKT_QUEUE=0,
  // etm_packet and etm_pheader) and the one with records (PKT_QUEUE>0, etm_gen).
  // A part has the one its PKT_QUEUE needs (etm_top).
  parameter bit          HasCycleGen  = 1'b1,
  parameter bit          HasRecGen    = 1'b1,
  // Whether instruction slot 1 can carry an instruction (a part that issues one
  // instruction a cycle has no logic for it in etm_gen).
  parameter bit          Dual         = 1'b1,
  // The address comparators and counters the register file builds (etm_regs): at
  // least what impl_etmccr_i says.
  parameter int unsigned NumCmp       = 16,
  parameter int unsigned NumCnt       = 4
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         end_i,
  // The interface inputs: instruction slot 0 (Cortex-M3 TRM table 16.1), slot 1
  // (dual issue), the data slot (ARM1176 TRM table 15-5), and the debug APB of the
  // programmer's model (PSEL .. PADDRDBG31); etm_ports.svh lists them.
  `ETM_IN_PORTS(input)
  // The implementation (read-only registers and model parameters), impl_<register>_i:
  // constant in a real part (etm_top ties them from its parameters).
  `ETM_IMPL_PORTS(input)
  // The outputs of etm_out_t: PIPESTAT, TRACEPKT, TRACESYNC, V3COUNT, ATDATA,
  // FIFOLEVEL, OVERFLOW, TRIGGER, FIFOFULL (ETMCR[7]: fewer than ETMFFLR bytes free
  // after the cycle), TRACEENABLE and VIEWDATA (the filter's decisions).
  `ETM_OUT_PORTS(output)
  // Interface and APB rules broken in this cycle (etm_defs_pkg::Rule*), for the harness.
  output logic [etm_defs_pkg::NumRules-1:0] VIOLATIONS
);
  // ---- Mode (mode_from_config in setup.c), from the registers as they stand ------------
  logic       v3, enabled, ca, bb, alt_branch, format4, sync_in_bytes, data_addr, data_value;
  logic       stop, restart;      // the programming flow (etm_regs)
  logic       stage_rst_n;        // the trace stages start again after programming
  logic [7:0] version;
  logic [3:0] minor;
  logic [1:0] v1_port, data_access;
  logic [2:0] portsize;
  always_comb begin
    logic [3:0] v1_minor;
    unique case (etm_defs_pkg::ccr_protocol(impl_etmccr_i))
      3'd0:    v1_minor = 4'd0;
      3'd1:    v1_minor = 4'd1;
      3'd2:    v1_minor = 4'd2;
      3'd4:    v1_minor = 4'd2;
      default: v1_minor = 4'd3;
    endcase
    v3 = etm_defs_pkg::ccr_etmidr(impl_etmccr_i);
    minor = v3 ? etm_defs_pkg::idr_minor(impl_etmidr_i) : v1_minor;
  end
  assign version = {v3 ? 4'd3 : 4'd1, minor};
  // Tracing runs: not powered down (ETMCR[0]), not being programmed (ETMCR[10]), and
  // not in the cycle that restarts the trace stages.
  assign enabled = !(etm_defs_pkg::cr_powerdown(reg_etmcr) || etm_defs_pkg::cr_programming(reg_etmcr))
                   && !restart;
  // A reset of the trace stages, from a flip-flop: the cycle after tracing was enabled
  // again they are held in reset (etm_restart_stages in program.c). The interface checker and
  // the registers keep their state.
  assign stage_rst_n = rst_ni && !restart;
  assign ca = etm_defs_pkg::cr_cycle_accurate(reg_etmcr);
  assign bb = etm_defs_pkg::cr_branch_output(reg_etmcr);
  assign alt_branch = v3 && minor >= 4'd4 && etm_defs_pkg::idr_alt_branch(impl_etmidr_i);
  assign format4 = minor >= 4'd3;
  assign sync_in_bytes = minor >= 4'd1;
  // The part's choices (regs.def "choice:"; etm_mode_t in setup.c): the ETM-M3's
  // P-header packing has no cycle-accurate form.
  logic ph_m3, trace_start, sync_m3, tailchain;
  assign ph_m3 = impl_ph_packing_i[0] && !ca;
  assign trace_start = impl_trace_start_i[0];
  assign sync_m3 = impl_sync_placement_i[0];
  assign tailchain = impl_tailchain_return_i[0] && minor >= 4'd4;
  // ETMCR[3:2] data access: bit 1 addresses, bit 0 values (ETM_DATA_ACCESS_*).
  assign data_access = etm_defs_pkg::cr_data_access(reg_etmcr);
  assign data_addr = data_access[1];
  assign data_value = data_access[0];
  assign portsize = etm_defs_pkg::cr_portsize(reg_etmcr);
  assign v1_port = (portsize == 3'd0) ? 2'd0 : (portsize == 3'd1) ? 2'd1 : 2'd2;

  // The TPIU's select on the same APB: its transfers are not the ETM's.
  logic unused_tpiu_sel;
  assign unused_tpiu_sel = PSELTPIU;

  // Registers the model does not evaluate (etm_model_supports rejects their use).
  logic unused_cfg;
  assign unused_cfg = ^{reg_etmcr[31:13], reg_etmcr[11], reg_etmcr[9], reg_etmcr[1],
                        impl_etmccr_i[27:0], reg_etmfflr[31:8], reg_etmsyncfr[31:12],
                        impl_etmidr_i[31:21], impl_etmidr_i[19:8],
                        impl_etmidr_i[3:0], reg_etmtraceidr, impl_port_bytes_i[31:4], impl_fifo_write_i[31:5], impl_ph_eager_i[31:1], impl_branch_full_i[31:1],
                        impl_issue_width_i[31:2], reg_etmffrr[23:0], reg_etmffrr[31:25],
                        impl_ph_packing_i[31:1], impl_isync_info_i[31:1], impl_cancel_form_i[31:1],
                        impl_trace_start_i[31:1], impl_sync_placement_i[31:1], impl_tailchain_return_i[31:1]};

  // ---- End of trace and drain ---------------------------------------------------------
  logic ended_q, ended_d;
  logic hold;    // etm_end or etm_drain: the core interface is not sampled
  assign ended_d = ended_q || end_i;
  assign hold = ended_q || end_i;
  // ETMv1 while programming (or powered down): the PIPESTAT port drains what
  // the queue and the FIFO hold, as after etm_end, and the core is not sampled.
  logic v1_stopped, quiet;
  assign v1_stopped = !v3 && (etm_defs_pkg::cr_powerdown(reg_etmcr) || etm_defs_pkg::cr_programming(reg_etmcr));
  assign quiet = hold || v1_stopped;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) ended_q <= 1'b0;
    else         ended_q <= ended_d;
  end
  // etm_end's bytes that found no room in the FIFO wait, and are offered again on
  // each drain edge (with the port's cycle) until they fit: nothing is lost at the end.
  logic end_edge, end_try, end_wait_q;
  logic fifo_fit;
  assign end_edge = end_i && !ended_q;
  // Tracing stopped (ETMCR[10] or [0] set): what was gathered goes into the FIFO in
  // the same way, with the port's cycle.
  assign end_try = v3 && (end_edge || end_wait_q || stop);
  // Records: the generator finishes the queue first; etm_end's edge only asks.
  logic rec, rec_finished;
  assign rec = v3 && impl_pkt_queue_i != 32'd0;
  always_ff @(posedge clk_i or negedge stage_rst_n) begin
    if (!stage_rst_n) end_wait_q <= 1'b0;
    else if (rec)     end_wait_q <= end_edge || (end_try && !rec_finished);
    else              end_wait_q <= end_try && !fifo_fit;
  end

  // ---- regs: the programmer's model on the debug APB ------------------------------------
  logic [31:0]  reg_etmcr, reg_etmtrigger, reg_etmtsscr, reg_etmtecr2, reg_etmteevr, reg_etmtecr1;
  logic [31:0]  reg_etmffrr, reg_etmfflr, reg_etmvdevr, reg_etmvdcr1, reg_etmvdcr3, reg_etmsyncfr, reg_etmtesseicr;
  logic [31:0]  reg_etmtraceidr;
  logic [511:0] reg_etmacvr, reg_etmactr;
  logic [127:0] reg_etmcntrldvr, reg_etmcntenr, reg_etmcntrldevr, reg_etmcntvr;
  logic [etm_defs_pkg::NumRules-1:0] chk_violations, reg_violations;
  logic         flt_ss, flt_triggered, v3_ovf_q, ps_ovf_q, drained;
  logic [63:0]  flt_cnt;
  logic [16:0]  fifo_level_q;
  logic ps_idle;  // ETMv1: nothing waits in the PIPESTAT queue
  assign drained = !stop && fifo_level_q == 17'd0 && gen_idle && (v3 ? !end_wait_q : ps_idle);

  etm_regs #(
    .NumCmp (NumCmp),
    .NumCnt (NumCnt)
  ) u_regs (
    .clk_i,
    .rst_ni,
    .version_i       (version),
    .impl_etmccr_i,
    .impl_etmidr_i,
    .impl_etmccer_i,
    .impl_etmscr_i,
    .impl_pidr_i,
    .impl_etmcr_impl_i,
    .impl_apb_unpred_i,
    .impl_apb_strict_i,
    .impl_event_reset_i,
    .psel_i          (PSEL && !hold),  // after etm_end only the port runs
    .penable_i       (PENABLE),
    .pwrite_i        (PWRITE),
    .paddr_i         (PADDR),
    .pwdata_i        (PWDATA),
    .paddrdbg31_i    (PADDRDBG31),
    .prdata_o        (PRDATA),
    .overflow_i      (rec ? untraced_q : v3 ? v3_ovf_q : ps_ovf_q),
    .drained_i       (drained),
    .ss_i            (flt_ss),
    .triggered_i     (flt_triggered),
    .live_cnt_i      (enabled || stop),
    .cnt_i           (flt_cnt),
    .etmcr_o         (reg_etmcr),
    .etmtrigger_o    (reg_etmtrigger),
    .etmtsscr_o      (reg_etmtsscr),
    .etmtecr2_o      (reg_etmtecr2),
    .etmteevr_o      (reg_etmteevr),
    .etmtecr1_o      (reg_etmtecr1),
    .etmffrr_o       (reg_etmffrr),
    .etmfflr_o       (reg_etmfflr),
    .etmvdevr_o      (reg_etmvdevr),
    .etmvdcr1_o      (reg_etmvdcr1),
    .etmvdcr3_o      (reg_etmvdcr3),
    .etmacvr_o       (reg_etmacvr),
    .etmactr_o       (reg_etmactr),
    .etmcntrldvr_o   (reg_etmcntrldvr),
    .etmcntenr_o     (reg_etmcntenr),
    .etmcntrldevr_o  (reg_etmcntrldevr),
    .etmcntvr_o      (reg_etmcntvr),
    .etmsyncfr_o     (reg_etmsyncfr),
    .etmtesseicr_o   (reg_etmtesseicr),
    .etmtraceidr_o   (reg_etmtraceidr),
    .stop_o          (stop),
    .restart_o       (restart),
    .violations_o    (reg_violations)
  );
  assign PREADY = 1'b1;
  assign PSLVERR = 1'b0;
  assign VIOLATIONS = chk_violations | reg_violations;

  // ---- check ---------------------------------------------------------------------------
  etm_check #(
    .Assertions(Assertions)
  ) u_check (
    .clk_i,
    .rst_ni,
    .hold_i        (hold),
    .issue_width_i (impl_issue_width_i[1:0]),
    .ivalid_i      (ETMIVALID),
    .ibranch_i     (ETMIBRANCH),
    .iindbr_i      (ETMIINDBR),
    .iccfail_i     (ETMICCFAIL),
    .fold_i        (ETMFOLD),
    .flush_i       (ETMFLUSH),
    .findbr_i      (ETMFINDBR),
    .cancel_i      (ETMCANCEL),
    .istall_i      (ETMISTALL),
    .intstat_i     (ETMINTSTAT),
    .intnum_i      (ETMINTNUM),
    .ivalid1_i     (ETMIVALID1),
    .ibranch1_i    (ETMIBRANCH1),
    .iindbr1_i     (ETMIINDBR1),
    .iccfail1_i    (ETMICCFAIL1),
    .dactl_i       (ETMDACTL),
    .da_i          (ETMDA),
    .ddctl_i       (ETMDDCTL),
    .violations_o  (chk_violations)
  );

  // ---- frontend (fed an idle cycle while draining) -------------------------------------
  logic        fe_ivalid;
  logic [1:0]  fe_natoms;
  logic [31:0] fe_addr0, fe_addr1;
  logic        fe_exec0, fe_exec1, fe_target0, fe_target1, fe_entry, fe_ret, fe_cancel, fe_flush, fe_exit;
  logic        fe_fold;
  logic [8:0]  fe_exc;
  assign fe_ivalid = ETMIVALID && !quiet;

  etm_frontend u_frontend (
    .branch_broadcast_i (bb),
    .ivalid_i   (fe_ivalid),
    .ibranch_i  (ETMIBRANCH),
    .iindbr_i   (ETMIINDBR),
    .iccfail_i  (ETMICCFAIL),
    .fold_i     (ETMFOLD),
    .cancel_i   (ETMCANCEL && !quiet),
    .flush_i    (ETMFLUSH && !quiet),
    .intstat_i  (ETMINTSTAT),
    .intnum_i   (ETMINTNUM),
    .ia_i       (ETMIA),
    .ivalid1_i  (ETMIVALID1),
    .ibranch1_i (ETMIBRANCH1),
    .iindbr1_i  (ETMIINDBR1),
    .iccfail1_i (ETMICCFAIL1),
    .ia1_i      (ETMIA1),
    .natoms_o   (fe_natoms),
    .addr0_o    (fe_addr0),
    .exec0_o    (fe_exec0),
    .target0_o  (fe_target0),
    .addr1_o    (fe_addr1),
    .exec1_o    (fe_exec1),
    .target1_o  (fe_target1),
    .entry_o    (fe_entry),
    .ret_o      (fe_ret),
    .fold_o     (fe_fold),
    .exc_o      (fe_exc),
    .cancel_o   (fe_cancel),
    .flush_o    (fe_flush),
    .exit_o     (fe_exit)
  );

  // ---- filter ----------------------------------------------------------------------------
  logic flt_te, flt_trigger, flt_vd;
  etm_filter u_filter (
    .clk_i,
    .rst_ni          (stage_rst_n),
    .v31_i          (v3 && minor >= 4'd1),
    .v1_i           (!v3),
    .v35_i          (v3 && minor >= 4'd5),
    .etmccr_i       (impl_etmccr_i),
    .etmccer_i      (impl_etmccer_i),
    .etmacvr_i      (reg_etmacvr),
    .etmactr_i      (reg_etmactr),
    .etmtecr1_i     (reg_etmtecr1),
    .etmtecr2_i     (reg_etmtecr2),
    .etmtsscr_i     (reg_etmtsscr),
    .etmtesseicr_i  (reg_etmtesseicr),
    .etmvdcr1_i     (reg_etmvdcr1),
    .etmvdcr3_i     (reg_etmvdcr3),
    .etmteevr_i     (reg_etmteevr),
    .etmtrigger_i   (reg_etmtrigger),
    .etmvdevr_i     (reg_etmvdevr),
    .etmcntenr_i    (reg_etmcntenr),
    .etmcntrldevr_i (reg_etmcntrldevr),
    .etmcntrldvr_i  (reg_etmcntrldvr),
    .etmcntvr_i     (reg_etmcntvr),
    .run_i          (enabled && !hold),
    .ivalid_i       (ETMIVALID),
    .dvalid_i       (ETMDVALID),
    .cancel_i       (ETMCANCEL),
    .dwt_i          (ETMTRIGGER),
    .dwt_inotd_i    (ETMTRIGINOTD),
    .dactl_i        (ETMDACTL),
    .da_i           (ETMDA),
    .natoms_i       (fe_natoms),
    .addr0_i        (fe_addr0),
    .exec0_i        (fe_exec0),
    .addr1_i        (fe_addr1),
    .exec1_i        (fe_exec1),
    .entry_i        (fe_entry),
    .trace_enable_o (flt_te),
    .trigger_o      (flt_trigger),
    .view_data_o    (flt_vd),
    .ss_o           (flt_ss),
    .triggered_o    (flt_triggered),
    .cnt_o          (flt_cnt)
  );

  // ---- Records (PKT_QUEUE > 0; records.c etm_records_cycle, etm_records_generate) ----------------------------
  // A cycle with anything for the packet stage hands its record to a queue (an
  // overflow when PKT_QUEUE records wait); the generator runs one phase of the
  // oldest record a cycle, when nothing is staged in the FIFO, beginning a record
  // in the cycle it is made when none waits.
  // The queue's memory: a power of two (at least 2), indexed by the low bits of
  // the 4-bit ring positions (16, PktQueueMax, is a multiple of it).
  localparam int unsigned QBits = MaxPktQueue > 2 ? $clog2(MaxPktQueue) : 1;
  localparam int unsigned QMax = 1 << QBits;
  localparam int unsigned PhEvents = 0, PhFirst = 1, PhPeriodic = 2, PhAtoms = 3, PhDone = 4;
  etm_pkg::gen_rec_t q_mem [QMax];
  etm_pkg::gen_rec_t rec_in, gen_q, gen_d, cur;
  logic [3:0]  q_head_q, q_head_d;
  logic [4:0]  q_len_q, q_len_d;
  logic [QBits-1:0] q_wr;                // where the record pushed now goes
  assign q_wr = QBits'(q_head_q + q_len_q[3:0]);
  logic        busy_q, busy_d, gap_q, gap_d, lost_q, lost_d, untraced_q, untraced_d, te_last_q, te_last_d;
  logic        branch_done_q, branch_done_d;
  logic [2:0]  phase_q, phase_d, phase_now;
  logic [31:0] now_q, now_d;
  logic        front_on, gen_on, want, resume, lost_now, push, ovf_now, step_ok, pop, run_phase;
  logic        do_gap, do_finish, rec_done, stage_empty, fifo_stage_empty;
  logic        pk_cu_sync_due, pk_post_active, pk_post_cancel, pk_post_trig_pend, pk_post_sync_due;
  logic        pk_cu_isync_due, pk_post_isync_due;
  logic        pk_active_d, v3_active_q, v3_cancel_q, v3_trig_pend_q, pk_hold;
  // etm_gen (records) and the FIFO's store it writes.
  localparam int unsigned GenLanes = MaxFifoWrite;
  logic        gen_idle, gen_idle_v3, gen_wr_end;
  logic [4:0]  gen_wr_n;
  logic [GenLanes*8-1:0] gen_wr_data;
  logic [16:0] fifo_room;
  assign gen_idle = !rec || gen_idle_v3;

  // etm_packet_wants: anything but a cycle-accurate idle cycle's W.
  always_comb begin
    rec_in.natoms = fe_natoms;
    rec_in.addr0 = fe_addr0;
    rec_in.exec0 = fe_exec0;
    rec_in.target0 = fe_target0;
    rec_in.addr1 = fe_addr1;
    rec_in.exec1 = fe_exec1;
    rec_in.target1 = fe_target1;
    rec_in.entry = fe_entry;
    rec_in.ret = fe_ret;
    rec_in.exc = fe_exc;
    rec_in.cancel = fe_cancel;
    rec_in.flush = fe_flush;
    rec_in.te = flt_te;
    rec_in.trigger = flt_trigger;
    rec_in.exit = fe_exit;
    rec_in.cycle = now_q;
  end
  assign front_on = rec && !end_try && !hold;
  assign gen_on = front_on || (rec && end_try && !end_edge);
  assign want = fe_natoms != 2'd0 || flt_trigger || fe_cancel || (fe_flush && impl_ph_eager_i[0]) ||
                (!flt_te && te_last_q) || (fe_exit && tailchain);
  assign te_last_d = (front_on && enabled) ? flt_te : te_last_q;
  assign resume = lost_q && q_len_q == 5'd0 && !busy_q && !gap_q && fifo_level_q == 17'd0 && gen_idle;
  assign lost_now = lost_q && !resume;
  assign push = front_on && enabled && !lost_now && want && {27'd0, q_len_q} < impl_pkt_queue_i;
  assign ovf_now = front_on && enabled && !lost_now && want && !push;
  assign lost_d = (front_on && enabled) ? (lost_now || ovf_now) : lost_q;
  assign now_d = front_on ? now_q + 32'd1 : now_q;

  // phase_next: the first phase from p on that applies (the phase tests of packet.c).
  function automatic logic [2:0] phase_next(input logic [2:0] p, input logic insn, input logic events,
                                            input logic special, input logic sync_due, input logic atoms_w);
    logic [3:0] ok;
    ok = {(insn || atoms_w) && p <= 3'd3, insn && sync_due && p <= 3'd2, insn && special && p <= 3'd1,
          events && p == 3'd0};
    phase_next = ok[0] ? 3'(PhEvents) : ok[1] ? 3'(PhFirst) : ok[2] ? 3'(PhPeriodic) : ok[3] ? 3'(PhAtoms) :
                 3'(PhDone);
  endfunction

  // Which record, and which of its phases, this cycle.
  logic cur_insn, cur_events;
  // Nothing staged: neither in the FIFO's staging buffer nor left of etm_gen's phase.
  assign stage_empty = fifo_stage_empty && gen_idle;
  assign step_ok = gen_on && stage_empty;
  assign pop = step_ok && !busy_q && (q_len_q != 5'd0 || push);
  assign cur = !pop ? gen_q : (q_len_q == 5'd0) ? rec_in : q_mem[q_head_q[QBits-1:0]];
  assign cur_insn = cur.natoms != 2'd0;
  assign cur_events = cur.trigger || !cur.te || cur.cancel || (cur.flush && impl_ph_eager_i[0]);
  assign do_gap = step_ok && !busy_q && !pop && gap_q;
  assign do_finish = step_ok && end_try && !end_edge && !busy_q && !pop && !gap_q;
  assign phase_now = pop ? phase_next(3'(PhEvents), cur_insn, cur_events,
                                      !v3_active_q || cur.entry || cur.ret || v3_cancel_q || v3_trig_pend_q,
                                      sync_m3 ? pk_cu_isync_due : pk_cu_sync_due, v3_active_q && ca)
                         : phase_q;
  assign run_phase = step_ok && (busy_q || pop) && phase_now != 3'(PhDone);

  // After the phase: the next that applies (TraceEnable off ends the record at events).
  always_comb begin : generator
    logic [2:0] next;
    if (phase_now == 3'(PhEvents) && !cur.te) next = 3'(PhDone);
    else next = phase_next(phase_now + 3'd1, cur_insn, cur_events,
                           !pk_post_active || cur.entry || cur.ret || pk_post_cancel || pk_post_trig_pend,
                           sync_m3 ? pk_post_isync_due : pk_post_sync_due, pk_post_active && ca);
    rec_done = step_ok && (busy_q || pop) && (!run_phase || next == 3'(PhDone));
    busy_d = busy_q;
    phase_d = phase_q;
    gen_d = gen_q;
    branch_done_d = branch_done_q;
    if (step_ok && (busy_q || pop)) begin
      busy_d = !rec_done;
      phase_d = next;
      gen_d = cur;
      branch_done_d = (pop ? 1'b0 : branch_done_q) || phase_now == 3'(PhFirst) || phase_now == 3'(PhPeriodic);
    end
    q_head_d = q_head_q;
    q_len_d = q_len_q;
    if (pop && q_len_q != 5'd0) begin
      q_head_d = q_head_q + 4'd1;
      q_len_d = q_len_q - 5'd1;
    end
    if (push && !(pop && q_len_q == 5'd0)) q_len_d = q_len_d + 5'd1;
    gap_d = ovf_now ? 1'b1 : do_gap ? 1'b0 : gap_q;
    // The overflow is traced once trace restarts after the gap.
    untraced_d = (untraced_q || ovf_now) && !(!gap_d && pk_active_d);
  end
  assign rec_finished = do_finish;
  // What etm_packet takes: the cycle's items (with records it is held: etm_gen runs).
  etm_pkg::gen_rec_t pk_src;
  assign pk_src = rec_in;
  logic unused_src;
  assign unused_src = ^pk_src.cycle;  // etm_packet counts cycles itself
  // The packet stage runs in a cycle of the generator's that does something.
  assign pk_hold = !((step_ok && (busy_q || pop)) || do_gap || do_finish);

  always_ff @(posedge clk_i) begin
    if (push && !(pop && q_len_q == 5'd0)) q_mem[q_wr] <= rec_in;
  end
  always_ff @(posedge clk_i or negedge stage_rst_n) begin
    if (!stage_rst_n) begin
      q_head_q <= 4'd0;
      q_len_q <= 5'd0;
      busy_q <= 1'b0;
      gap_q <= 1'b0;
      lost_q <= 1'b0;
      untraced_q <= 1'b0;
      te_last_q <= 1'b0;
      branch_done_q <= 1'b0;
      phase_q <= 3'(PhDone);
      now_q <= 32'd0;
      gen_q <= '0;
    end else begin
      q_head_q <= q_head_d;
      q_len_q <= q_len_d;
      busy_q <= busy_d;
      gap_q <= gap_d;
      lost_q <= lost_d;
      untraced_q <= untraced_d;
      te_last_q <= te_last_d;
      branch_done_q <= branch_done_d;
      phase_q <= phase_d;
      now_q <= now_d;
      gen_q <= gen_d;
    end
  end

  // ---- pheader + packet (ETMv3) ---------------------------------------------------------
  logic [etm_defs_pkg::CycleBytesMax*8-1:0] cbuf;
  logic [6:0]   cbuf_n;
  logic         v3_overflow;

  if (HasV3 && HasCycleGen) begin : gen_cycle
    logic [etm_pkg::PhSlots-1:0] ph_slot_en, ph_ls_wr, ph_ls_val, ph_atoms_wr;
    logic         ph_ls_b, ph_ls_b_trig, ph_exec0, ph_exec1, ph_commit, ph_clear, ph_sync_p, ph_sync_l;
    logic [1:0]   ph_natoms;
    logic [etm_pkg::PhSlots*64-1:0] ph_seg;
    logic [etm_pkg::PhSlots*4-1:0] ph_seg_len, ph_atoms_at;
    logic [etm_pkg::PhSlots*32-1:0] ph_seg_w;

    etm_pheader u_pheader (
      .clk_i,
      .rst_ni          (stage_rst_n),
      .ca_i        (ca),
      .format4_i   (format4),
      .m3_i        (ph_m3),
      .slot_en_i   (ph_slot_en),
      .ls_b_i      (ph_ls_b),
      .ls_b_trig_i (ph_ls_b_trig),
      .natoms_i    (ph_natoms),
      .exec0_i     (ph_exec0),
      .exec1_i     (ph_exec1),
      .commit_i    (ph_commit),
      .clear_i     (ph_clear),
      .seg_o       (ph_seg),
      .seg_len_o   (ph_seg_len),
      .seg_w_o     (ph_seg_w),
      .ls_wr_o     (ph_ls_wr),
      .ls_val_o    (ph_ls_val),
      .atoms_wr_o  (ph_atoms_wr),
      .sync_p_o    (ph_sync_p),
      .sync_l_o    (ph_sync_l),
      .atoms_at_o  (ph_atoms_at)
    );

    etm_packet #(
      .Assertions(Assertions)
    ) u_packet (
      .clk_i,
      .rst_ni          (stage_rst_n),
      .enabled_i       (enabled && v3),
      .ca_i            (ca),
      .alt_branch_i    (alt_branch),
      .exc_ext_i       (minor >= 4'd4),
      .sync_in_bytes_i (sync_in_bytes),
      .sync_period_i   (etm_defs_pkg::syncfr_period(reg_etmsyncfr)),
      .natoms_i        (pk_src.natoms),
      .addr0_i         (pk_src.addr0),
      .exec0_i         (pk_src.exec0),
      .target0_i       (pk_src.target0),
      .addr1_i         (pk_src.addr1),
      .exec1_i         (pk_src.exec1),
      .target1_i       (pk_src.target1),
      .entry_i         (pk_src.entry),
      .ret_i           (pk_src.ret),
      .exc_i           (pk_src.exc),
      .cancel_i        (pk_src.cancel),
      .flush_i         (pk_src.flush),
      .ph_eager_i      (impl_ph_eager_i[0]),
      .branch_full_i   (impl_branch_full_i[0]),
      .isync_info_i    (impl_isync_info_i[0]),
      .withdraw_i      (impl_cancel_form_i[0]),
      .trace_start_i   (trace_start),
      .sync_m3_i       (sync_m3),
      .tailchain_i     (tailchain),
      .exit_i          (pk_src.exit),
      .trace_enable_i  (pk_src.te),
      .trigger_i       (pk_src.trigger),
      .view_data_i     (flt_vd),
      .data_addr_i     (data_addr),
      .data_value_i    (data_value),
      .dactl_i         (hold ? 18'd0 : ETMDACTL),
      .da_i            (ETMDA),
      .ddctl_i         (hold ? 4'd0 : ETMDDCTL),
      .dd_i            (ETMDD),
      .fifo_empty_i    (fifo_level_q == 17'd0),
      .fit_i           (fifo_fit),
      .end_i           (!rec && end_try),
      .hold_i          (rec || (ended_q && !end_wait_q) || !v3),  // records: etm_gen's
      .ph_slot_en_o    (ph_slot_en),
      .ph_ls_b_o       (ph_ls_b),
      .ph_ls_b_trig_o  (ph_ls_b_trig),
      .ph_natoms_o     (ph_natoms),
      .ph_exec0_o      (ph_exec0),
      .ph_exec1_o      (ph_exec1),
      .ph_commit_o     (ph_commit),
      .ph_clear_o      (ph_clear),
      .ph_seg_i        (ph_seg),
      .ph_seg_len_i    (ph_seg_len),
      .ph_seg_w_i      (ph_seg_w),
      .ph_ls_wr_i      (ph_ls_wr),
      .ph_ls_val_i     (ph_ls_val),
      .ph_atoms_wr_i   (ph_atoms_wr),
      .ph_atoms_at_i   (ph_atoms_at),
      .ph_sync_p_i     (ph_sync_p),
      .ph_sync_l_i     (ph_sync_l),
      .cbuf_o          (cbuf),
      .cbuf_n_o        (cbuf_n),
      .overflow_o      (v3_overflow),
      .ovf_q_o         (v3_ovf_q)
    );

  end else begin : gen_no_cycle
    logic unused_cycle;
    assign unused_cycle = ^pk_src;
    assign cbuf = '0;
    assign cbuf_n = 7'd0;
    assign v3_overflow = 1'b0;
    assign v3_ovf_q = 1'b0;
  end

  if (HasV3 && HasRecGen) begin : gen_rec
    // Records: the packet generator, a packet a clock into the FIFO's store.
    etm_gen #(
      .Lanes(GenLanes),
      .Dual (Dual)
    ) u_gen (
      .clk_i,
      .rst_ni          (stage_rst_n),
      .ca_i            (ca),
      .format4_i       (format4),
      .alt_branch_i    (alt_branch),
      .exc_ext_i       (minor >= 4'd4),
      .sync_in_bytes_i (sync_in_bytes),
      .sync_period_i   (etm_defs_pkg::syncfr_period(reg_etmsyncfr)),
      .branch_full_i   (impl_branch_full_i[0]),
      .ph_eager_i      (impl_ph_eager_i[0]),
      .write_i         (impl_fifo_write_i[4:0]),
      .m3_i            (ph_m3),
      .isync_info_i    (impl_isync_info_i[0]),
      .withdraw_i      (impl_cancel_form_i[0]),
      .trace_start_i   (trace_start),
      .sync_m3_i       (sync_m3),
      .tailchain_i     (tailchain),
      .rec_i           (cur),
      .plan_i          (rec && !pk_hold),
      .phase_i         (run_phase ? 4'(1 << phase_now) : 4'd0),
      .begin_i         (pop),
      .branch_done_i   (pop ? 1'b0 : branch_done_q),
      .last_i          (rec_done),
      .gap_i           (do_gap),
      .finish_i        (do_finish),
      .cycle_i         (do_finish ? now_q : cur.cycle),
      .cu_sync_due_o   (pk_cu_sync_due),
      .cu_isync_due_o  (pk_cu_isync_due),
      .post_isync_due_o(pk_post_isync_due),
      .post_active_o   (pk_post_active),
      .post_cancel_o   (pk_post_cancel),
      .post_trig_pend_o(pk_post_trig_pend),
      .post_sync_due_o (pk_post_sync_due),
      .active_q_o      (v3_active_q),
      .cancel_q_o      (v3_cancel_q),
      .trig_pend_q_o   (v3_trig_pend_q),
      .active_d_o      (pk_active_d),
      .idle_o          (gen_idle_v3),
      .room_i          (fifo_room),
      .wr_n_o          (gen_wr_n),
      .wr_data_o       (gen_wr_data),
      .wr_end_o        (gen_wr_end)
    );
  end else begin : gen_no_rec
    assign gen_idle_v3 = 1'b1;
    assign gen_wr_n = 5'd0;
    assign gen_wr_data = '0;
    assign gen_wr_end = 1'b0;
    assign pk_cu_sync_due = 1'b0;
    assign pk_cu_isync_due = 1'b0;
    assign pk_post_isync_due = 1'b0;
    assign pk_post_active = 1'b0;
    assign pk_post_cancel = 1'b0;
    assign pk_post_trig_pend = 1'b0;
    assign pk_post_sync_due = 1'b0;
    assign v3_active_q = 1'b0;
    assign v3_cancel_q = 1'b0;
    assign v3_trig_pend_q = 1'b0;
    assign pk_active_d = 1'b0;
    logic unused_rec;
    assign unused_rec = ^{fifo_room, rec_done, pk_hold};
  end
  if (!HasV3) begin : gen_no_v3
    logic unused_v3;
    assign unused_v3 = ^{fe_addr1, fe_target1, fe_exc, fe_cancel, fe_flush, fe_exit, fe_exec1, alt_branch, format4,
                         ph_m3, trace_start, sync_m3, tailchain,
                         sync_in_bytes, reg_etmsyncfr[11:0]};
  end

  // ---- pipestat (ETMv1) -------------------------------------------------------------------
  logic [7:0]  ps_push_n;
  logic [etm_defs_pkg::V1PushMax*8-1:0] ps_push_data;
  logic [etm_defs_pkg::V1PushMax-1:0]   ps_push_flag;
  logic [1:0]  ps_pop;
  logic [2:0]  ps_pipestat;
  logic [15:0] ps_tracepkt;
  logic        ps_tracesync, ps_overflow;
  logic [16:0] fifo_nflags_q, fifo_level_w;
  logic        fifo_head_flag_q, fifo_head0_flag, fifo_head1_flag;
  logic [7:0]  fifo_head0, fifo_head1;

  if (HasV1) begin : gen_v1
    etm_pipestat u_pipestat (
      .clk_i,
      .rst_ni          (stage_rst_n),
      .enabled_i          ((enabled || ended_q || v1_stopped) && !v3),  // the drain runs whatever ETMCR says
      .ca_i               (ca),
      .data_addr_i        (data_addr),
      .data_value_i       (data_value),
      .values_cap_i       (impl_etmcr_impl_i[2]),
      .port_i             (v1_port),
      .minor_ge2_i        (minor >= 4'd2),
      .depth_i            (impl_fifo_depth_i),
      .natoms_i           (fe_natoms),
      .addr0_i            (fe_addr0),
      .exec0_i            (fe_exec0),
      .target0_i          (fe_target0),
      .addr1_i            (fe_addr1),
      .exec1_i            (fe_exec1),
      .target1_i          (fe_target1),
      .entry_i            (fe_entry),
      .ret_i              (fe_ret),
      .fold_i             (fe_fold),
      .trace_enable_i     (flt_te || ended_q || v1_stopped),
      .trigger_i          (flt_trigger),
      .view_data_i        (flt_vd),
      .dactl_i            (quiet ? 18'd0 : ETMDACTL),
      .da_i               (ETMDA),
      .ddctl_i            (quiet ? 4'd0 : ETMDDCTL),
      .dd_i               (ETMDD),
      .end_i              (((end_i && !ended_q) || stop) && !v3),  // etm_end, or tracing stopped
      .drain_i            ((ended_q || (v1_stopped && !stop)) && !v3),
      .fifo_level_q_i     (fifo_level_q),
      .fifo_nflags_q_i    (fifo_nflags_q),
      .fifo_head_flag_q_i (fifo_head_flag_q),
      .fifo_level_w_i     (fifo_level_w),
      .fifo_head0_i       (fifo_head0),
      .fifo_head0_flag_i  (fifo_head0_flag),
      .fifo_head1_i       (fifo_head1),
      .fifo_head1_flag_i  (fifo_head1_flag),
      .push_n_o           (ps_push_n),
      .push_data_o        (ps_push_data),
      .push_flag_o        (ps_push_flag),
      .pop_o              (ps_pop),
      .pipestat_o         (ps_pipestat),
      .tracepkt_o         (ps_tracepkt),
      .tracesync_o        (ps_tracesync),
      .overflow_o         (ps_overflow),
      .ovf_q_o            (ps_ovf_q),
      .idle_o             (ps_idle)
    );
  end else begin : gen_no_v1
    assign ps_push_n = 8'd0;
    assign ps_push_data = '0;
    assign ps_push_flag = '0;
    assign ps_pop = 2'd0;
    assign ps_pipestat = etm_defs_pkg::PsTd;
    assign ps_tracepkt = 16'd0;
    assign ps_tracesync = 1'b0;
    assign ps_overflow = 1'b0;
    assign ps_ovf_q = 1'b0;
    assign ps_idle = 1'b1;
    logic unused_v1;
    assign unused_v1 = ^{fifo_nflags_q, fifo_level_w, fifo_head_flag_q, fifo_head0_flag, fifo_head1_flag,
                         fifo_head0, fifo_head1, data_addr, data_value, v1_port, flt_vd, ETMDA, ETMDD,
                         ETMDDCTL, impl_fifo_depth_i, fe_fold};
  end

  // ---- fifo -----------------------------------------------------------------------------------
  logic [7:0]  wr_n;
  logic [etm_defs_pkg::FifoWriteMax*8-1:0] wr_data;
  logic [etm_defs_pkg::FifoWriteMax-1:0]   wr_flag;
  logic [3:0]  v3_count;
  logic [63:0] v3_data;
  logic        atvalid, afready;
  logic [6:0]  atid;
  logic [16:0] fifo_level;
  always_comb begin
    if (v3 && rec) begin
      wr_n = {3'd0, gen_wr_n};
      wr_data = '0;
      wr_data[GenLanes*8-1:0] = gen_wr_data;
      wr_flag = '0;
    end else if (v3) begin
      wr_n = {1'b0, cbuf_n};
      wr_data = '0;
      wr_data[etm_defs_pkg::CycleBytesMax*8-1:0] = cbuf;
      wr_flag = '0;
    end else begin
      wr_n = ps_push_n;
      wr_data = '0;
      wr_data[etm_defs_pkg::V1PushMax*8-1:0] = ps_push_data;
      wr_flag = '0;
      wr_flag[etm_defs_pkg::V1PushMax-1:0] = ps_push_flag;
    end
  end

  etm_fifo #(
    .MaxFifoDepth(MaxFifoDepth),
    .WriteLanes  (MaxFifoWrite),
    .PortLanes   (MaxPortBytes),
    .HasV3       (HasV3),
    .HasV1       (HasV1),
    .HasStage    (HasCycleGen)  // (records alone stage nothing)
  ) u_fifo (
    .clk_i,
    .rst_ni          (rst_ni && !(restart && !v3)),  // an ETMv1 FIFO is emptied at a restart
    .depth_i         (impl_fifo_depth_i),
    .port_bytes_i    (impl_port_bytes_i[3:0]),
    .write_i         (impl_fifo_write_i[4:0]),
    .v3_i            (v3),
    .rec_i           (rec),
    .stage_empty_o   (fifo_stage_empty),
    .room_o          (fifo_room),
    .wr_end_i        (gen_wr_end),
    .v3_port_i       (v3 && !end_edge),
    .atready_i       (ATREADY),
    .afvalid_i       (AFVALID),
    .flush_cap_i     (impl_port_bytes_i > 32'd1),
    .trace_id_i      (etm_defs_pkg::traceidr_id(reg_etmtraceidr)),
    .wr_n_i          (wr_n),
    .wr_data_i       (wr_data),
    .wr_flag_i       (wr_flag),
    .fit_o           (fifo_fit),
    .v3_count_o      (v3_count),
    .v3_data_o       (v3_data),
    .atvalid_o       (atvalid),
    .atid_o          (atid),
    .afready_o       (afready),
    .level_q_o       (fifo_level_q),
    .nflags_q_o      (fifo_nflags_q),
    .head_flag_q_o   (fifo_head_flag_q),
    .level_w_o       (fifo_level_w),
    .head0_o         (fifo_head0),
    .head0_flag_o    (fifo_head0_flag),
    .head1_o         (fifo_head1),
    .head1_flag_o    (fifo_head1_flag),
    .pop_i           (v3 ? 2'd0 : ps_pop),
    .level_o         (fifo_level)
  );

  // ---- Outputs ----------------------------------------------------------------------------------
  always_comb begin
    PIPESTAT = 3'd0;
    TRACEPKT = 16'd0;
    TRACESYNC = 1'b0;
    V3COUNT = 4'd0;
    ATDATA = 64'd0;
    ATVALID = 1'b0;
    ATID = 7'd0;
    AFREADY = 1'b0;
    FIFOLEVEL = fifo_level[15:0];
    OVERFLOW = 1'b0;
    TRIGGER = flt_trigger;
    // FIFOFULL (a stall request): fewer than ETMFFLR bytes free after the cycle
    // (with records, of the store), or with records PKT_QUEUE of them waiting.
    // ETMFFRR[24] (exclude nothing) lets it stall everywhere; clear, nowhere (the
    // model selects no ranges or decoders: etm_model_supports).
    FIFOFULL = etm_defs_pkg::cr_stall(reg_etmcr) && etm_defs_pkg::ffrr_exclude(reg_etmffrr) &&
               ((({15'd0, fifo_level} >= impl_fifo_depth_i) ? 32'd0 : impl_fifo_depth_i - {15'd0, fifo_level}) <
                {24'd0, etm_defs_pkg::fflr_level(reg_etmfflr)} ||
                (rec && {27'd0, q_len_d} >= impl_pkt_queue_i));
    TRACEENABLE = flt_te;
    VIEWDATA = flt_vd;
    if (v3) begin
      V3COUNT = v3_count;
      ATDATA = v3_data;
      ATVALID = atvalid;
      ATID = atid;
      AFREADY = afready;
      OVERFLOW = rec ? gen_on && untraced_d : v3_overflow;
    end else begin
      PIPESTAT = ps_pipestat;
      TRACEPKT = ps_tracepkt;
      TRACESYNC = ps_tracesync;
      // A restart empties the FIFO: bytes left there are lost, as to an overflow.
      OVERFLOW = (ps_overflow && (enabled || ended_q || v1_stopped)) || (restart && v1_level_nz_q);
      if (!(enabled || ended_q || v1_stopped)) FIFOLEVEL = 16'd0;
    end
  end

  // The FIFO held bytes after the last cycle (ETMv1: a restart drops them).
  logic v1_level_nz_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) v1_level_nz_q <= 1'b0;
    else         v1_level_nz_q <= !v3 && fifo_level != 17'd0;
  end

  logic unused_level;
  assign unused_level = fifo_level[16];

endmodule
