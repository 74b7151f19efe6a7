// etm_gen.sv - the packet generator with records (PKT_QUEUE > 0): stages `packet` and
// `pheader` (model/core/src/packet.c, pheader.c) as records.c's etm_records_generate runs them,
// one phase of a record at a time, written into the FIFO's store one packet a clock
// (docs/etmv3-encoder.md, "Records").
//
// A phase is planned from the state before it, which stays in the registers while
// the phase is written. Every packet the C can make in a phase has a fixed entry
// in the plan (NumEnt of them, valid or not, in the C's order; the table is below),
// so no packet is ever placed at a computed position. The writer takes the first
// valid entry from its cursor on, forms the packet's bytes (at most 11) and writes
// at most FIFO_WRITE of them a cycle as the store has room; a cycle writes bytes of
// one packet only. When no valid entry is left, the state after the phase is
// committed and etm_core's generator may start the next phase in the next cycle:
// the C's "nothing staged at the start of the cycle".
//
// What the writer owns (the C changes it as the packets are made; nothing plans
// with it): the address the next branch packet is compressed against, the W atoms
// and bytes written in the phase and record so far.
//
// The P-header packer's operations are the functions of etm_gen_ph_pkg.
module etm_gen #(
  parameter int unsigned Lanes = etm_defs_pkg::FifoWritePortMax,
  parameter bit          Dual  = 1'b1   // two instructions a cycle (IssueWidth 2) possible
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Mode (constant while the generator works).
  input  logic        ca_i,
  input  logic        format4_i,
  input  logic        alt_branch_i,
  input  logic        exc_ext_i,        // ETMv3.4 and later: 0x76 and exception byte 1
  input  logic        sync_in_bytes_i,  // ETMv3.1 and later
  input  logic [11:0] sync_period_i,
  input  logic        branch_full_i,
  input  logic        ph_eager_i,
  input  logic [4:0]  write_i,          // FIFO_WRITE
  // The part's choices (regs.def "choice:").
  input  logic        m3_i,             // PH_PACKING=1 without cycle accuracy: format 1 only
  input  logic        isync_info_i,     // ISYNC_INFO: bit 0 of every I-sync information byte
  input  logic        withdraw_i,       // CANCEL_FORM=1: the Cancel bit withdraws the last atom
  input  logic        trace_start_i,    // TRACE_START=1: the first atom after a restart alone, a trigger after it
  input  logic        sync_m3_i,        // SYNC_PLACEMENT=1: A-sync where a header closed, I-sync later
  input  logic        tailchain_i,      // TAILCHAIN_RETURN=1 (ETMv3.4 on): 0x76 before a tail-chained entry
  // The record being generated (it does not change while its phases are written).
  input  etm_pkg::gen_rec_t rec_i,
  // etm_core's generator, in a cycle with idle_o:
  input  logic        plan_i,           // a phase, the gap or the end of trace starts
  input  logic [3:0]  phase_i,          // one-hot events, first, periodic, atoms (none: only the catch-up)
  input  logic        begin_i,          // the record's first phase: its idle cycles first
  input  logic        branch_done_i,    // phase first or periodic ran for this record
  input  logic        last_i,           // the record's last phase: its cycle passes at the end
  input  logic        gap_i,            // records were lost (etm_packet_gap)
  input  logic        finish_i,         // end of trace: the idle cycles up to cycle_i, etm_packet_end
  input  logic [31:0] cycle_i,          // the record's cycle, or the end's
  // The state phase_next reads: after the catch-up (cu_), after the phase (post_);
  // and before it (_q), which is the C's at a record's start.
  output logic        cu_sync_due_o,
  output logic        cu_isync_due_o,   // (SYNC_PLACEMENT=1) the periodic I-sync is due
  output logic        post_isync_due_o,
  output logic        post_active_o,
  output logic        post_cancel_o,
  output logic        post_trig_pend_o,
  output logic        post_sync_due_o,
  output logic        active_q_o,
  output logic        cancel_q_o,
  output logic        trig_pend_q_o,
  output logic        active_d_o,       // active_q as the C has it after this cycle
  output logic        idle_o,           // nothing of a phase left to write
  // The FIFO's store.
  input  logic [16:0] room_i,           // bytes free after this cycle's port read
  output logic [4:0]  wr_n_o,
  output logic [Lanes*8-1:0] wr_data_o,
  output logic        wr_end_o          // the bytes written end their packet
);
  localparam int unsigned PhW = etm_gen_ph_pkg::PhW;
  localparam int unsigned EntW = etm_gen_ph_pkg::EntW;
  localparam int unsigned NumEnt = 44;
  localparam int unsigned DataW = Lanes * 8;
  // The state vector's last_single (gen_ph_t).
  localparam int unsigned FSingle = etm_gen_ph_pkg::FSingle;
  // Entry kinds (gen_ent_t.kind).
  localparam logic [3:0] KHdr = etm_gen_ph_pkg::KHdr, KCc = etm_gen_ph_pkg::KCc,
                         KCcMax = etm_gen_ph_pkg::KCcMax, KAsync = etm_gen_ph_pkg::KAsync,
                         KIsync = etm_gen_ph_pkg::KIsync, KBranch = etm_gen_ph_pkg::KBranch,
                         KTrig = etm_gen_ph_pkg::KTrig, KExcRet = etm_gen_ph_pkg::KExcRet,
                         KIgnore = etm_gen_ph_pkg::KIgnore;
  // The plan's entries, in stream order. The phases are one-hot, and share the
  // entries: each uses those of its own steps, in the C's order, so that one
  // call of each packer operation serves every phase (the close at EnC is the
  // trigger's, trace off's, the flush hint's, a branch's, periodic's, a plain
  // target's or the end's: a phase makes at most one close that packs anything).
  localparam int unsigned EnI = 0;    // catch-up (ph_idle): close_open, its run's push, a full count
  localparam int unsigned EnS = 3;    // A-sync: restart (first); trigger (events, first after a cancel alone)
  // (SYNC_PLACEMENT=1, sync_close: the events phase's A-sync after the flush hint's
  // close goes at EnG; the atoms phase's before the atoms closes at EnF, its A-sync
  // at EnG; after the atoms at EnQ.)
  localparam int unsigned EnY = 4;    // restart (first): I-sync, the exception's branch packet
  localparam int unsigned EnC = 6;    // the close (6): close_atoms, and flush_run for close_all
  localparam int unsigned EnX = 12;   // exception return 0x76 (first)
  localparam int unsigned EnB = 13;   // branch packet: first's; periodic's or atoms' plain target
  localparam int unsigned EnZ = 14;   // trigger 0x0C (events)
  localparam int unsigned EnF = 15;   // flush_run (4) of a trigger that waited behind a cancel (first, after its branch)
  localparam int unsigned EnT = 19;   // trigger 0x0C that waited behind a cancel (first)
  localparam int unsigned EnG = 20;   // periodic: A-sync, I-sync
  localparam int unsigned EnL = 22;   // ETMCANCEL: isolate_last (3) (events)
  localparam int unsigned EnH = 25;   // the cycle's W and atoms: ph_cycle (6) (atoms)
  localparam int unsigned EnJ = 31;   // slot 1 a branch target, or TRACE_START's first atom: close_atoms (2)
  localparam int unsigned EnW = 33;   // TRACE_START=1: the trigger that waited for the first atom
  localparam int unsigned EnR = 34;   // slot 1's branch packet
  localparam int unsigned EnK = 35;   // ... slot 1's atom, or the first atom's second: ph_atom_nowait (6)
  localparam int unsigned EnQ = 41;   // SYNC_PLACEMENT=1 after the atoms: close_atoms (2), A-sync


  // ---- State (packet_state_t, pheader_state_t) ------------------------------------
  logic        started_q, started_d;
  logic        active_q, active_d;
  logic [1:0]  reason_q, reason_d;
  logic        sync_due_q, sync_due_d;
  logic        cancel_q, cancel_d;
  logic        trig_pend_q, trig_pend_d;
  logic [31:0] sync_count_q, sync_count_d;
  logic [31:0] wtotal_q, wtotal_d;
  logic [31:0] wsent_q, wsent_d;
  logic        exited_q, exited_d;      // an exception exited since the last instruction
  logic        first_q, first_d;        // TRACE_START=1: the next atom is the first after a restart
  logic        isync_wait_q, isync_wait_d, isync_due_q, isync_due_d;  // SYNC_PLACEMENT=1
  etm_pkg::gen_ph_t ph_q, ph_d;
  // The phase being written, and what the writer owns.
  logic        on_q, on_d;              // a phase is planned and not yet committed
  logic [3:0]  phase_q, phase_d;
  logic        begin_q, begin_d, bdone_q, bdone_d, last_q, last_d, gap_q, gap_d, fin_q, fin_d;
  logic [31:0] cycle_q, cycle_d;
  logic [5:0]  cur_q, cur_d;            // the next entry to look at
  logic [3:0]  bidx_q, bidx_d;          // bytes of that entry's packet already written
  logic [31:0] wph_q, wph_d;            // W atoms of the phase's packets written
  logic [31:0] bytes_q, bytes_d;        // bytes of the record (or the gap's, the end's) written
  logic [31:0] la_q, la_d;              // last_addr_q: what a branch packet is compressed against

  // What this cycle works on: a phase starting now, or the one being written.
  logic        work;
  logic [3:0]  s_phase;
  logic        s_begin, s_bdone, s_last, s_gap, s_fin;
  logic [31:0] s_cycle;
  assign work = plan_i || on_q;
  assign s_phase = on_q ? phase_q : phase_i;
  assign s_begin = on_q ? begin_q : begin_i;
  assign s_bdone = on_q ? bdone_q : branch_done_i;
  assign s_last = on_q ? last_q : last_i;
  assign s_gap = on_q ? gap_q : gap_i;
  assign s_fin = on_q ? fin_q : finish_i;
  assign s_cycle = on_q ? cycle_q : cycle_i;

  // ---- The plan: the phase's entries and the state after it ----------------------
  // The entries, entry k at [k*EntW +: EntW] (gen_ent_t; Yosys 0.23 takes no
  // unpacked arrays of structs). Each process keeps its entries' valid bits
  // beside them as it writes them, and the writer reads an entry where its
  // process left it: Verilator then neither gathers forty valid bits from the
  // vectors nor copies the vectors into one every cycle.
  logic [EnH*EntW-1:0] ea;                  // plan_a's entries (0 .. EnH-1)
  logic [EnH-1:0] va;                       // their valid bits
  logic [(NumEnt-EnH)*EntW-1:0] eb;         // plan_b's (EnH ..)
  logic [NumEnt-EnH-1:0] vb;
  etm_pkg::gen_ph_t a_ph;                   // the state plan_a leaves
  logic        a_started, a_active, a_sync_due, a_cancel, a_trig_pend, a_exited, a_first, a_isync_wait,
               a_isync_due;
  logic [1:0]  a_reason;
  logic [31:0] a_sync_count, a_ccv;
  logic [31:0] ccv;                     // the value of the phase's cycle count packet
  logic [31:0] icc;                     // the restart I-sync's cycle count
  logic        p_started, p_active, p_sync_due, p_cancel, p_trig_pend, cu_due, cu_idue;
  logic        p_exited, p_first, p_isync_wait, p_isync_due;
  logic [1:0]  p_reason;
  logic [31:0] p_sync_count, p_wtotal;
  etm_pkg::gen_ph_t p_ph;
  logic        ok_unused;

  // The catch-up's counts (tick_n), apart from the plan: etm_core's choice of
  // the record's first phase reads cu_due.
  logic [31:0] cu_wtotal, cu_count;
  always_comb begin : catch_up
    logic [31:0] n, sum;
    cu_wtotal = wtotal_q;
    cu_count = sync_count_q;
    cu_due = sync_due_q;
    cu_idue = isync_due_q;
    n = s_cycle - wtotal_q;
    sum = sync_count_q + n;
    if (work && (s_begin || s_fin)) begin
      cu_wtotal = s_cycle;
      if (!sync_in_bytes_i && sync_period_i != 12'd0 && started_q && n != 32'd0) begin
        if (sum < sync_count_q || sum >= {20'd0, sync_period_i}) cu_due = 1'b1;
        if (isync_wait_q && sum >= {21'd0, sync_period_i[11:1]}) cu_idue = 1'b1;
        cu_count = sum;
      end
    end
  end

  // The plan in two processes (each smaller for synthesis): up to the phase's
  // close and what follows it in every phase but atoms, then atoms' cycle.
  always_comb begin : plan_a
    logic [PhW+32+6*EntW-1:0] r_f_close;
    logic [PhW+32+4*EntW-1:0] r_f_flush_run;
    logic [PhW+3*EntW-1:0] r_f_idle;
    logic [PhW+1+3*EntW-1:0] r_f_isolate;
    logic [PhW-1:0] x;
    logic [31:0] n, cc;
    logic exc_ok, ev, fi, pe, at, fin;
    logic ev_trig, te_off, fi_br, fi_cancel, fi_trig, c_on, c_all;
    logic [31:0] t_ccv;
    logic        t_started, t_active, t_sync_due, t_cancel, t_trig_pend;
    logic [1:0]  t_reason;
    logic [31:0] t_sync_count;
    logic        t_exited, t_first, t_isync_wait, t_isync_due, tr_wait, sc;
    logic [PhW+2*EntW-1:0] r_f_close_atoms;
    ea = '0;
    r_f_close_atoms = '0;
    va = '0;
    r_f_close = '0;
    r_f_flush_run = '0;
    r_f_idle = '0;
    r_f_isolate = '0;
    n = 32'd0;
    t_ccv = 32'd0;
    icc = 32'd0;
    cc = 32'd0;
    ok_unused = 1'b0;
    x = ph_q;
    t_started = started_q;
    t_active = active_q;
    t_reason = reason_q;
    t_sync_due = sync_due_q;
    t_cancel = cancel_q;
    t_trig_pend = trig_pend_q;
    t_sync_count = sync_count_q;
    t_exited = exited_q;
    t_first = first_q;
    t_isync_wait = isync_wait_q;
    t_isync_due = isync_due_q;
    // An exception byte holds 0-15 before ETMv3.4 (a higher one goes as a plain branch).
    exc_ok = rec_i.entry && (rec_i.exc < 9'd16 || exc_ext_i);
    fin = work && !s_gap && s_fin;
    ev = work && !s_gap && !s_fin && s_phase[0];
    fi = work && !s_gap && !s_fin && s_phase[1];
    pe = work && !s_gap && !s_fin && s_phase[2];
    at = work && !s_gap && !s_fin && s_phase[3];

    // etm_packet_catch_up: the idle cycles since the last record (and the end's).
    if (work && (s_begin || s_fin)) begin
      n = s_cycle - wtotal_q;
      if (active_q && ca_i) begin
        r_f_idle = etm_gen_ph_pkg::f_idle(x, n);
        {x, ea[(EnI+2)*EntW +: EntW], ea[(EnI+1)*EntW +: EntW], ea[(EnI+0)*EntW +: EntW]} = r_f_idle;
        for (int k = 0; k < 3; k++) va[EnI+k] = ea[(EnI+k)*EntW + EntW - 1];
      end
    end
    t_sync_due = cu_due;
    t_sync_count = cu_count;
    t_isync_due = cu_idue;
    // note_exit: a record of an exception's exit without an instruction.
    if (work && s_begin && !s_gap && !s_fin && rec_i.natoms == 2'd0 && rec_i.exit) t_exited = 1'b1;

    if (work && s_gap) begin
      // etm_packet_gap: what was gathered is dropped (last_single is the cycle buffer's).
      x = '0;
      x[FSingle] = ph_q.single;
      t_active = 1'b0;
      t_reason = etm_defs_pkg::IsyncReasonOverflow;
      t_cancel = 1'b0;
      t_trig_pend = 1'b0;
      t_first = 1'b0;
      t_isync_wait = 1'b0;
      t_isync_due = 1'b0;
    end

    // Before the close. Events (run_events): the trigger (one behind a cancel
    // waits), then trace off, or the flush hint. First (run_first): a restart,
    // a branch or exception, or a cancel no exception came to; either of the
    // last two sends a trigger that waited behind the cancel.
    // (TRACE_START=1: a trigger before the first atom after a restart waits for
    // that atom's header, as behind a cancel.)
    tr_wait = t_cancel || (trace_start_i && !t_active);
    ev_trig = ev && rec_i.trigger && !tr_wait;
    te_off = ev && !rec_i.te && t_active;
    if (ev && rec_i.trigger && tr_wait) t_trig_pend = 1'b1;
    fi_br = fi && t_active && (rec_i.target0 || rec_i.entry || rec_i.ret);
    fi_cancel = fi && t_active && !fi_br && t_cancel;
    fi_trig = (fi_br || fi_cancel) && t_trig_pend;
    if (fi && !t_active) begin
      if (!t_started || t_sync_due) begin
        ea[(EnS)*EntW +: EntW] = etm_gen_ph_pkg::ent(KAsync, 8'd0, 8'd0);
        va[EnS] = 1'b1;
        t_started = 1'b1;
        t_sync_due = 1'b0;
        t_sync_count = 32'd0;
      end
      // cycles_unsent: no W before it in this phase.
      icc = cu_wtotal - wsent_q;
      ea[(EnY)*EntW +: EntW] = etm_gen_ph_pkg::ent(KIsync, {5'd0, ca_i, t_reason}, 8'd0);
      va[EnY] = 1'b1;
      x[FSingle] = 1'b0;
      t_active = 1'b1;
      t_cancel = 1'b0;
      t_first = trace_start_i;
      t_isync_wait = 1'b0;
      t_isync_due = 1'b0;
      if (exc_ok) begin  // its exception, from the I-sync's address
        ea[(EnY+1)*EntW +: EntW] = etm_gen_ph_pkg::ent(KBranch, 8'b010, 8'd0);
        va[EnY+1] = 1'b1;
      end
    end
    if ((ev_trig || (fi_cancel && fi_trig)) && !t_started) begin  // put_trigger's A-sync
      ea[(EnS)*EntW +: EntW] = etm_gen_ph_pkg::ent(KAsync, 8'd0, 8'd0);
      va[EnS] = 1'b1;
      t_started = 1'b1;
      t_sync_due = 1'b0;
      t_sync_count = 32'd0;
      x[FSingle] = 1'b0;
    end

    // The close: close_all for a trigger (put_trigger), trace off and the end;
    // close_atoms for the flush hint, a branch, periodic and a plain target.
    // (After a close_all the phase's other closes pack nothing.)
    c_all = ev_trig || te_off || fi_cancel || fin;
    c_on = ev_trig || te_off || (fin && t_active) || (fi_cancel && fi_trig) || fi_br || pe ||
           (ev && rec_i.te && t_active && !rec_i.cancel && !t_cancel && rec_i.flush && ph_eager_i) ||
           (at && rec_i.natoms != 2'd0 && !s_bdone && rec_i.target0);
    if (c_on) begin
      r_f_close = etm_gen_ph_pkg::f_close(x, ca_i, c_all);
      {x, cc, ea[(EnC+5)*EntW +: EntW], ea[(EnC+4)*EntW +: EntW], ea[(EnC+3)*EntW +: EntW], ea[(EnC+2)*EntW +: EntW], ea[(EnC+1)*EntW +: EntW], ea[(EnC+0)*EntW +: EntW]} = r_f_close;
      for (int k = 0; k < 6; k++) va[EnC+k] = ea[(EnC+k)*EntW + EntW - 1];
      if (cc != 32'd0) t_ccv = cc;
    end

    // After it: events.
    if (ev_trig) begin
      ea[(EnZ)*EntW +: EntW] = etm_gen_ph_pkg::ent(KTrig, 8'd0, 8'd0);
      va[EnZ] = 1'b1;
      x[FSingle] = 1'b0;
    end
    if (te_off) begin
      t_active = 1'b0;
      t_reason = etm_defs_pkg::IsyncReasonTraceOn;
      t_cancel = 1'b0;
    end
    if (ev && rec_i.te && t_active && rec_i.cancel && !withdraw_i) begin
      r_f_isolate = etm_gen_ph_pkg::f_isolate(x, ca_i, format4_i);
      {x, ok_unused, ea[(EnL+2)*EntW +: EntW], ea[(EnL+1)*EntW +: EntW], ea[(EnL+0)*EntW +: EntW]} = r_f_isolate;  // (ok: the C counts untraceable)
      for (int k = 0; k < 3; k++) va[EnL+k] = ea[(EnL+k)*EntW + EntW - 1];
    end
    // SYNC_PLACEMENT=1: a periodic A-sync where the flush hint closed the header
    // (its entry and state below, with the atoms phase's: the phases are one-hot).
    sc = sync_m3_i && t_sync_due &&
         ev && rec_i.te && t_active && !rec_i.cancel && !t_cancel && rec_i.flush && ph_eager_i;
    if (ev && rec_i.te && t_active && rec_i.cancel) t_cancel = 1'b1;
    // First: the branch (or exception), then a trigger that waited.
    if (fi_br) begin
      // (TAILCHAIN_RETURN=1: an entry after an exit without a return is a
      // tail-chain, and the handler left returns first.)
      if ((rec_i.ret && exc_ext_i) || (rec_i.entry && t_exited && tailchain_i)) begin
        ea[(EnX)*EntW +: EntW] = etm_gen_ph_pkg::ent(KExcRet, 8'd0, 8'd0);
        va[EnX] = 1'b1;
        x[FSingle] = 1'b0;
      end
      ea[(EnB)*EntW +: EntW] = etm_gen_ph_pkg::ent(KBranch, {5'd0, exc_ok && t_cancel, exc_ok, 1'b0}, 8'd0);
      va[EnB] = 1'b1;
      x[FSingle] = 1'b0;
      if (fi_trig) begin
        // put_trigger: no A-sync (trace that is active has started: StartedWhenActive_A);
        // close_all after the close_atoms above: only its flush_run packs.
        r_f_flush_run = etm_gen_ph_pkg::f_flush_run(x);
        {x, cc, ea[(EnF+3)*EntW +: EntW], ea[(EnF+2)*EntW +: EntW], ea[(EnF+1)*EntW +: EntW], ea[(EnF+0)*EntW +: EntW]} = r_f_flush_run;
        for (int k = 0; k < 4; k++) va[EnF+k] = ea[(EnF+k)*EntW + EntW - 1];
        if (cc != 32'd0) t_ccv = cc;
      end
    end
    if (fi_br || fi_cancel) t_cancel = 1'b0;
    if (fi_trig) begin
      ea[(EnT)*EntW +: EntW] = etm_gen_ph_pkg::ent(KTrig, 8'd0, 8'd0);
      va[EnT] = 1'b1;
      x[FSingle] = 1'b0;
      t_trig_pend = 1'b0;
    end
    // Periodic (run_periodic): a plain target's branch packet, then A-sync and I-sync.
    // Atoms (run_atoms): a plain target's branch packet before the cycle.
    if ((pe || (at && rec_i.natoms != 2'd0)) && !s_bdone && rec_i.target0) begin
      ea[(EnB)*EntW +: EntW] = etm_gen_ph_pkg::ent(KBranch, 8'd0, 8'd0);
      va[EnB] = 1'b1;
      x[FSingle] = 1'b0;
    end
    if (pe) begin
      if (!sync_m3_i) begin  // (SYNC_PLACEMENT=1: the A-sync went where a header closed)
        ea[(EnG)*EntW +: EntW] = etm_gen_ph_pkg::ent(KAsync, 8'd0, 8'd0);
        va[EnG] = 1'b1;
        t_started = 1'b1;
        t_sync_due = 1'b0;
        t_sync_count = 32'd0;
      end
      t_isync_wait = 1'b0;
      t_isync_due = 1'b0;
      ea[(EnG+1)*EntW +: EntW] = etm_gen_ph_pkg::ent(KIsync, {6'd0, etm_defs_pkg::IsyncReasonPeriodic}, 8'd0);
      va[EnG+1] = 1'b1;
      x[FSingle] = 1'b0;
    end
    // Atoms: SYNC_PLACEMENT=1 sends a periodic A-sync before the atoms where no
    // header is open (after a branch packet's close, or one that closed by itself).
    if (at && rec_i.natoms != 2'd0 && sync_m3_i && t_sync_due && t_active &&
        x[etm_gen_ph_pkg::FOpen +: 2] == etm_gen_ph_pkg::OpNone) begin
      r_f_close_atoms = etm_gen_ph_pkg::f_close_atoms(x, ca_i);
      {x, ea[(EnF+1)*EntW +: EntW], ea[(EnF+0)*EntW +: EntW]} = r_f_close_atoms;
      for (int k = 0; k < 2; k++) va[EnF+k] = ea[(EnF+k)*EntW + EntW - 1];
      sc = 1'b1;
    end
    if (sc) begin
      ea[(EnG)*EntW +: EntW] = etm_gen_ph_pkg::ent(KAsync, 8'd0, 8'd0);
      va[EnG] = 1'b1;
      t_started = 1'b1;
      t_sync_due = 1'b0;
      t_sync_count = 32'd0;
      t_isync_wait = 1'b1;
      t_isync_due = 1'b0;
      x[FSingle] = 1'b0;
    end
    a_ph = x;
    a_exited = t_exited;
    a_first = t_first;
    a_isync_wait = t_isync_wait;
    a_isync_due = t_isync_due;
    a_started = t_started;
    a_active = t_active;
    a_reason = t_reason;
    a_sync_due = t_sync_due;
    a_cancel = t_cancel;
    a_trig_pend = t_trig_pend;
    a_sync_count = t_sync_count;
    a_ccv = t_ccv;
  end

  // Atoms (run_atoms): the cycle's W and atoms; when slot 1 is a branch target,
  // slot 0's atom, its branch packet, then slot 1's atom (ph_atom_nowait). A
  // part that issues one instruction a cycle (Dual off) has no slot 1.
  always_comb begin : plan_b
    logic [PhW+2*EntW-1:0] r_f_close_atoms;
    logic [PhW+32+6*EntW-1:0] r_f_cycle;
    logic [PhW+32+6*EntW-1:0] r_f_nowait;
    logic [PhW+2*EntW-1:0] r_f_close_q;
    logic [PhW-1:0] x;
    logic [31:0] cc;
    logic a0, a1, dual_t, first, rest;
    logic [1:0] n_h;
    eb = '0;
    vb = '0;
    r_f_close_atoms = '0;
    r_f_cycle = '0;
    r_f_nowait = '0;
    cc = 32'd0;
    x = a_ph;
    p_started = a_started;
    p_active = a_active;
    p_reason = a_reason;
    p_sync_due = a_sync_due;
    p_cancel = a_cancel;
    p_trig_pend = a_trig_pend;
    p_sync_count = a_sync_count;
    p_wtotal = cu_wtotal;
    ccv = a_ccv;
    a0 = rec_i.exec0;
    a1 = rec_i.exec1;
    // (Two atoms come without dual issue too: ETMFOLD's pair. Slot 1 as a branch
    // target comes with dual issue only.)
    dual_t = Dual && rec_i.natoms == 2'd2 && rec_i.target1;
    p_exited = a_exited;
    p_first = a_first;
    p_isync_wait = a_isync_wait;
    p_isync_due = a_isync_due;
    r_f_close_q = '0;
    first = 1'b0;
    rest = 1'b0;
    n_h = 2'd0;
    if (work && !s_gap && !s_fin && s_phase[3]) begin
      // TRACE_START=1: the first atom after a restart in a header of its own
      // (cycle-accurate, the first cycle's atoms: one W), then a trigger that
      // waited for it; a second atom that is no branch target follows it.
      first = a_first && rec_i.natoms != 2'd0;
      rest = first && rec_i.natoms == 2'd2 && !dual_t && !ca_i;
      n_h = first ? ((ca_i && rec_i.natoms == 2'd2 && !dual_t) ? 2'd2 : 2'd1) : (dual_t ? 2'd1 : rec_i.natoms);
      r_f_cycle = etm_gen_ph_pkg::f_cycle(x, ca_i, m3_i, n_h, a0, a1);
      {x, cc, eb[(EnH-EnH+5)*EntW +: EntW], eb[(EnH-EnH+4)*EntW +: EntW], eb[(EnH-EnH+3)*EntW +: EntW], eb[(EnH-EnH+2)*EntW +: EntW], eb[(EnH-EnH+1)*EntW +: EntW], eb[(EnH-EnH+0)*EntW +: EntW]} = r_f_cycle;
      for (int k = 0; k < 6; k++) vb[EnH-EnH+k] = eb[(EnH-EnH+k)*EntW + EntW - 1];
      if (cc != 32'd0) ccv = cc;
      if (dual_t || first) begin
        r_f_close_atoms = etm_gen_ph_pkg::f_close_atoms(x, ca_i);
        {x, eb[(EnJ-EnH+1)*EntW +: EntW], eb[(EnJ-EnH+0)*EntW +: EntW]} = r_f_close_atoms;
        for (int k = 0; k < 2; k++) vb[EnJ-EnH+k] = eb[(EnJ-EnH+k)*EntW + EntW - 1];
      end
      if (first) begin
        p_first = 1'b0;
        if (a_trig_pend) begin  // (trace has started: no A-sync of its own)
          eb[(EnW-EnH)*EntW +: EntW] = etm_gen_ph_pkg::ent(KTrig, 8'd0, 8'd0);
          vb[EnW-EnH] = 1'b1;
          x[FSingle] = 1'b0;
          p_trig_pend = 1'b0;
        end
      end
      if (dual_t) begin
        eb[(EnR-EnH)*EntW +: EntW] = etm_gen_ph_pkg::ent(KBranch, 8'b001, 8'd0);
        vb[EnR-EnH] = 1'b1;
        x[FSingle] = 1'b0;
      end
      if (dual_t || rest) begin
        r_f_nowait = etm_gen_ph_pkg::f_nowait(x, ca_i, m3_i, format4_i, a1);
        {x, cc, eb[(EnK-EnH+5)*EntW +: EntW], eb[(EnK-EnH+4)*EntW +: EntW], eb[(EnK-EnH+3)*EntW +: EntW], eb[(EnK-EnH+2)*EntW +: EntW], eb[(EnK-EnH+1)*EntW +: EntW], eb[(EnK-EnH+0)*EntW +: EntW]} = r_f_nowait;
        for (int k = 0; k < 6; k++) vb[EnK-EnH+k] = eb[(EnK-EnH+k)*EntW + EntW - 1];
        if (cc != 32'd0) ccv = cc;
      end
      // SYNC_PLACEMENT=1: a periodic A-sync after the atoms where no header is open.
      if (rec_i.natoms != 2'd0 && sync_m3_i && a_sync_due && a_active &&
          x[etm_gen_ph_pkg::FOpen +: 2] == etm_gen_ph_pkg::OpNone) begin
        r_f_close_q = etm_gen_ph_pkg::f_close_atoms(x, ca_i);
        {x, eb[(EnQ-EnH+1)*EntW +: EntW], eb[(EnQ-EnH+0)*EntW +: EntW]} = r_f_close_q;
        for (int k = 0; k < 2; k++) vb[EnQ-EnH+k] = eb[(EnQ-EnH+k)*EntW + EntW - 1];
        eb[(EnQ-EnH+2)*EntW +: EntW] = etm_gen_ph_pkg::ent(KAsync, 8'd0, 8'd0);
        vb[EnQ-EnH+2] = 1'b1;
        x[FSingle] = 1'b0;
        p_started = 1'b1;
        p_sync_due = 1'b0;
        p_sync_count = 32'd0;
        p_isync_wait = 1'b1;
        p_isync_due = 1'b0;
      end
    end
    // The record's last phase: an instruction ends what an exit began.
    if (work && !s_gap && !s_fin && s_last && rec_i.natoms != 2'd0) p_exited = 1'b0;
    p_ph = x;
  end
  assign cu_sync_due_o = cu_due;
  assign cu_isync_due_o = cu_idue;
  assign post_isync_due_o = p_isync_due;
  logic unused_gen;
  assign unused_gen = ^{rec_i.cycle, en.v, en.pad, ok_unused};

  // ---- The writer: the first valid entry from the cursor on, a packet a clock ----
  logic [NumEnt-1:0] valid, from, ahead;
  logic [5:0]  idx;
  logic        found, more, pkt_done, phase_end;
  etm_pkg::gen_ent_t en;
  logic [87:0] pkt;                     // the packet's bytes, byte 0 in [7:0]
  logic [3:0]  len, bidx, rem;
  logic [4:0]  nw;
  logic [31:0] to, w_add;

  always_comb begin : pick
    logic [63:0] f;
    valid = {vb, va};
    from = valid & ~((NumEnt'(1) << (on_q ? cur_q : 6'd0)) - NumEnt'(1));
    found = from != '0;
    // The first valid entry: a priority encoder in six halvings (a loop over
    // the forty entries costs Verilator forty tests a cycle).
    f = 64'(from);
    idx = 6'd0;
    if (f[31:0] == 32'd0) begin idx[5] = 1'b1; f = f >> 32; end
    if (f[15:0] == 16'd0) begin idx[4] = 1'b1; f = f >> 16; end
    if (f[7:0] == 8'd0) begin idx[3] = 1'b1; f = f >> 8; end
    if (f[3:0] == 4'd0) begin idx[2] = 1'b1; f = f >> 4; end
    if (f[1:0] == 2'd0) begin idx[1] = 1'b1; f = f >> 2; end
    if (f[0] == 1'b0) idx[0] = 1'b1;
    if (!found) idx = 6'd0;
    en = (idx < 6'(EnH)) ? ea[32'(idx)*EntW +: EntW] : eb[32'(6'(idx - 6'(EnH)))*EntW +: EntW];
    ahead = from & (from - NumEnt'(1));
    more = ahead != '0;
  end

  // The packet of the chosen entry.
  always_comb begin : form
    logic [42:0] cb;
    logic [58:0] bp;
    logic [31:0] a, fa;
    cb = '0;
    bp = '0;
    a = 32'd0;
    fa = 32'd0;
    pkt = '0;
    len = 4'd1;
    to = en.hdr[0] ? rec_i.addr1 : rec_i.addr0;
    w_add = {24'd0, en.w};
    unique case (en.kind)
      KHdr:    pkt[7:0] = en.hdr;
      KTrig:   pkt[7:0] = etm_defs_pkg::HdrTrigger;
      KExcRet: pkt[7:0] = etm_defs_pkg::HdrExcReturn;
      KIgnore: pkt[7:0] = etm_defs_pkg::HdrIgnore;
      KAsync: begin
        pkt[47:40] = etm_defs_pkg::HdrAsyncLast;
        len = 4'd6;
      end
      KCc, KCcMax: begin
        w_add = (en.kind == KCcMax) ? etm_gen_ph_pkg::RunMax : ccv;
        cb = etm_pkg::count_bytes(w_add);
        pkt[7:0] = etm_defs_pkg::HdrCycleCount;
        pkt[47:8] = cb[39:0];
        len = 4'd1 + {1'b0, cb[42:40]};
      end
      KIsync: begin
        a = {rec_i.addr0[31:1], 1'b1};  // bit 0: Thumb
        if (ca_i && en.hdr[2]) begin  // (a periodic I-sync has none)
          cb = etm_pkg::count_bytes(icc);
          w_add = icc;
          pkt[7:0] = etm_defs_pkg::HdrIsyncCc;
          pkt[47:8] = cb[39:0];
          pkt = pkt | ({48'd0, a, 1'b0, en.hdr[1:0], 4'd0, isync_info_i} << ({5'd0, cb[42:40]} * 8 + 8));
          len = 4'd6 + {1'b0, cb[42:40]};
        end else begin
          pkt[47:0] = {a, 1'b0, en.hdr[1:0], 4'd0, isync_info_i, etm_defs_pkg::HdrIsync};
          len = 4'd6;
        end
      end
      KBranch: begin
        // BRANCH_FULL: compressed against an address that differs in every bit.
        fa = branch_full_i ? ~to : la_q;
        bp = etm_pkg::branch_packet(fa, to, alt_branch_i, en.hdr[1], rec_i.exc, en.hdr[2]);
        pkt[55:0] = bp[55:0];
        len = {1'b0, bp[58:56]};
      end
      default: pkt[7:0] = en.hdr;
    endcase
  end

  // At most FIFO_WRITE bytes of the packet a cycle, as the store has room.
  always_comb begin : write
    logic [4:0] lim;
    // (A part with fewer lanes than the packet's bytes leaves the rest for later cycles.)
    /* verilator lint_off UNUSEDSIGNAL */
    logic [87:0] sh;
    /* verilator lint_on UNUSEDSIGNAL */
    bidx = on_q ? bidx_q : 4'd0;
    rem = len - bidx;
    lim = ({12'd0, write_i} < room_i) ? write_i : room_i[4:0];
    nw = (work && found) ? (({1'b0, rem} < lim) ? {1'b0, rem} : lim) : 5'd0;
    wr_n_o = nw;
    sh = pkt >> {bidx, 3'b000};
    wr_data_o = DataW'(sh);
    pkt_done = work && found && nw == {1'b0, rem};
    wr_end_o = pkt_done;
    // The phase ends when its last packet's last bytes are written (or it has none).
    phase_end = work && (!found || (pkt_done && !more));
  end

  // ---- Next state ----------------------------------------------------------------
  always_comb begin : next
    logic [31:0] wph, nbytes;
    logic        rec_end, counted;
    rec_end = 1'b0;
    counted = 1'b0;
    on_d = work && !phase_end;
    phase_d = s_phase;
    begin_d = s_begin;
    bdone_d = s_bdone;
    last_d = s_last;
    gap_d = s_gap;
    fin_d = s_fin;
    cycle_d = s_cycle;
    cur_d = pkt_done ? idx + 6'd1 : found ? idx : cur_q;
    bidx_d = pkt_done ? 4'd0 : bidx + nw[3:0];
    wph = (on_q ? wph_q : 32'd0) + (pkt_done ? w_add : 32'd0);
    nbytes = bytes_q + {27'd0, nw};
    wph_d = wph;
    bytes_d = nbytes;
    la_d = la_q;
    if (pkt_done && en.kind == KBranch) la_d = {to[31:1], 1'b0};
    if (pkt_done && en.kind == KIsync) la_d = {rec_i.addr0[31:1], 1'b0};
    started_d = started_q;
    active_d = active_q;
    reason_d = reason_q;
    sync_due_d = sync_due_q;
    cancel_d = cancel_q;
    trig_pend_d = trig_pend_q;
    sync_count_d = sync_count_q;
    wtotal_d = wtotal_q;
    wsent_d = wsent_q;
    exited_d = exited_q;
    first_d = first_q;
    isync_wait_d = isync_wait_q;
    isync_due_d = isync_due_q;
    ph_d = ph_q;
    if (phase_end) begin
      // The state after the phase; its W atoms are sent.
      started_d = p_started;
      active_d = p_active;
      reason_d = p_reason;
      sync_due_d = p_sync_due;
      cancel_d = p_cancel;
      trig_pend_d = p_trig_pend;
      sync_count_d = p_sync_count;
      wtotal_d = p_wtotal;
      ph_d = p_ph;
      exited_d = p_exited;
      first_d = p_first;
      isync_wait_d = p_isync_wait;
      isync_due_d = p_isync_due;
      wsent_d = wsent_q + wph;
      wph_d = 32'd0;
      cur_d = 6'd0;
      bidx_d = 4'd0;
      // The record's last phase: its cycle passes (etm_packet_tick), then its bytes
      // count towards a periodic sync (etm_packet_accepted_n); so do the bytes of
      // the gap's and the end's cycles.
      rec_end = !s_gap && !s_fin && s_last;
      counted = rec_end || s_gap || s_fin;
      if (rec_end) begin
        wtotal_d = p_wtotal + 32'd1;
        if (!sync_in_bytes_i && sync_period_i != 12'd0 && p_started) begin
          sync_count_d = p_sync_count + 32'd1;
          if (sync_count_d >= {20'd0, sync_period_i}) sync_due_d = 1'b1;
          // SYNC_PLACEMENT=1: the I-sync falls due half a sync period after its A-sync.
          if (isync_wait_d && sync_count_d >= {21'd0, sync_period_i[11:1]}) isync_due_d = 1'b1;
        end
      end
      if (counted) begin
        if (sync_in_bytes_i && sync_period_i != 12'd0 && p_started) begin
          sync_count_d = sync_count_d + nbytes;
          if (sync_count_d >= {20'd0, sync_period_i}) sync_due_d = 1'b1;
          if (isync_wait_d && sync_count_d >= {21'd0, sync_period_i[11:1]}) isync_due_d = 1'b1;
        end
        bytes_d = 32'd0;
      end
    end
    // What only cycle-accurate trace reads (the W atoms, the cycles since the
    // last W) stays zero without it, as in the C; the cycle totals are read by
    // it and by a sync period counted in cycles (before ETMv3.1). Held at zero
    // here, a part without those modes builds none of it.
    if (!ca_i) begin
      ph_d.wrun = 32'd0;
      ph_d.wdebt = 8'd0;
      ph_d.held_w = 8'd0;
      wsent_d = 32'd0;
      wph_d = 32'd0;
      if (sync_in_bytes_i) begin
        wtotal_d = 32'd0;
        cycle_d = 32'd0;
      end
    end
  end

  assign post_active_o = p_active;
  assign post_cancel_o = p_cancel;
  assign post_trig_pend_o = p_trig_pend;
  assign post_sync_due_o = p_sync_due;
  assign active_q_o = active_q;
  assign cancel_q_o = cancel_q;
  assign trig_pend_q_o = trig_pend_q;
  assign active_d_o = work ? p_active : active_q;
  assign idle_o = !on_q;

`ifndef SYNTHESIS
  // Trace that is active has started (an A-sync went before its first I-sync):
  // the trigger after a branch in phase first needs no A-sync of its own.
  StartedWhenActive_A: assert property (@(posedge clk_i) disable iff (!rst_ni) !active_q || started_q);
`endif

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      started_q    <= 1'b0;
      active_q     <= 1'b0;
      reason_q     <= etm_defs_pkg::IsyncReasonTraceOn;
      sync_due_q   <= 1'b0;
      cancel_q     <= 1'b0;
      trig_pend_q  <= 1'b0;
      sync_count_q <= 32'd0;
      wtotal_q     <= 32'd0;
      wsent_q      <= 32'd0;
      exited_q     <= 1'b0;
      first_q      <= 1'b0;
      isync_wait_q <= 1'b0;
      isync_due_q  <= 1'b0;
      ph_q         <= '0;
      on_q         <= 1'b0;
      phase_q      <= 4'd0;
      begin_q      <= 1'b0;
      bdone_q      <= 1'b0;
      last_q       <= 1'b0;
      gap_q        <= 1'b0;
      fin_q        <= 1'b0;
      cycle_q      <= 32'd0;
      cur_q        <= 6'd0;
      bidx_q       <= 4'd0;
      wph_q        <= 32'd0;
      bytes_q      <= 32'd0;
      la_q         <= 32'd0;
    end else begin
      started_q    <= started_d;
      active_q     <= active_d;
      reason_q     <= reason_d;
      sync_due_q   <= sync_due_d;
      cancel_q     <= cancel_d;
      trig_pend_q  <= trig_pend_d;
      sync_count_q <= sync_count_d;
      wtotal_q     <= wtotal_d;
      wsent_q      <= wsent_d;
      exited_q     <= exited_d;
      first_q      <= first_d;
      isync_wait_q <= isync_wait_d;
      isync_due_q  <= isync_due_d;
      ph_q         <= ph_d;
      on_q         <= on_d;
      phase_q      <= phase_d;
      begin_q      <= begin_d;
      bdone_q      <= bdone_d;
      last_q       <= last_d;
      gap_q        <= gap_d;
      fin_q        <= fin_d;
      cycle_q      <= cycle_d;
      cur_q        <= cur_d;
      bidx_q       <= bidx_d;
      wph_q        <= wph_d;
      bytes_q      <= bytes_d;
      la_q         <= la_d;
    end
  end
endmodule
