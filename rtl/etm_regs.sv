// etm_regs.sv - stage `regs` (model/core/src/regs.c and the programming flow of
// program.c): the programmer's model on an AMBA 3 APB slave with no wait states.
//
// A read returns, in its access phase (PSEL and PENABLE), the register as it
// stands before the edge; a write takes effect at the edge that ends its access
// phase. What sits where is etm_reg_locate (model/defs/src/regspace.c): the
// registers of the image at their architectural numbers, present as the
// implementation (impl_*_i) says, each writing only the bits its version has
// (etm_defs_pkg::mask_<layout>, less the ETMCR bits the model leaves out), and
// the management registers (status, claim tags, lock, identification).
// Illegal accesses are ignored, as the architecture says, and raise a rule bit
// (etm_defs_pkg::RuleApb*).
//
// The programming flow: a write that sets ETMCR[10] or ETMCR[0] stops tracing
// (stop_o in the next cycle, whose edge also takes the counters' values into
// ETMCNTVR); one that clears both starts it again (restart_o in the next cycle:
// the trace stages are held in reset for that cycle).
module etm_regs #(
  // The comparators and counters the part has (ETMCCR[3:0] * 2, ETMCCR[15:13]):
  // registers beyond them are not built (an access to them is unmapped whatever
  // these say, as impl_etmccr_i decides).
  parameter int unsigned NumCmp = 16,
  parameter int unsigned NumCnt = 4
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  // The implementation: fixed in a real part.
  input  logic [7:0]    version_i,       // major * 16 + minor
  input  logic [31:0]   impl_etmccr_i,
  input  logic [31:0]   impl_etmidr_i,
  input  logic [31:0]   impl_etmccer_i,
  input  logic [31:0]   impl_etmscr_i,
  input  logic [31:0]   impl_pidr_i,
  input  logic [31:0]   impl_etmcr_impl_i,   // the ETMCR bits the part implements
  // The part's choices (regs.def "choice:"): a write while tracing taken as
  // written (APB_UNPRED[0]) and reported (APB_STRICT[0]); ETMTEEVR and
  // ETMTRIGGER at reset (EVENT_RESET).
  input  logic [31:0]   impl_apb_unpred_i,
  input  logic [31:0]   impl_apb_strict_i,
  input  logic [31:0]   impl_event_reset_i,
  // The debug APB.
  input  logic          psel_i,
  input  logic          penable_i,
  input  logic          pwrite_i,
  input  logic [11:2]   paddr_i,
  input  logic [31:0]   pwdata_i,
  input  logic          paddrdbg31_i,
  output logic [31:0]   prdata_o,
  // What the status registers and ETMCNTVR read.
  input  logic          overflow_i,      // ETMSR[0]
  input  logic          drained_i,       // ETMSR[1] with ETMCR[10]
  input  logic          ss_i,            // ETMSR[2]
  input  logic          triggered_i,     // ETMSR[3]
  input  logic          live_cnt_i,      // ETMCNTVR reads the running counters
  input  logic [63:0]   cnt_i,           // counter n at [16*n +: 16]
  // The registers (the image of etm_config_t; arrays: element n at [32*n +: 32]).
  output logic [31:0]   etmcr_o,
  output logic [31:0]   etmtrigger_o,
  output logic [31:0]   etmtsscr_o,
  output logic [31:0]   etmtecr2_o,
  output logic [31:0]   etmteevr_o,
  output logic [31:0]   etmtecr1_o,
  output logic [31:0]   etmffrr_o,
  output logic [31:0]   etmfflr_o,
  output logic [31:0]   etmvdevr_o,
  output logic [31:0]   etmvdcr1_o,
  output logic [31:0]   etmvdcr3_o,
  output logic [511:0]  etmacvr_o,
  output logic [511:0]  etmactr_o,
  output logic [127:0]  etmcntrldvr_o,
  output logic [127:0]  etmcntenr_o,
  output logic [127:0]  etmcntrldevr_o,
  output logic [127:0]  etmcntvr_o,
  output logic [31:0]   etmsyncfr_o,
  output logic [31:0]   etmtesseicr_o,
  output logic [31:0]   etmtraceidr_o,
  // The programming flow.
  output logic          stop_o,
  output logic          restart_o,
  output logic [etm_defs_pkg::NumRules-1:0] violations_o
);
  // ---- State -----------------------------------------------------------------------------
  logic [31:0] cr_q, trigger_q, tsscr_q, tecr2_q, teevr_q, tecr1_q, ffrr_q, fflr_q, vdevr_q, vdcr1_q, vdcr3_q;
  logic [31:0] syncfr_q, tesseicr_q, traceidr_q;
  logic [31:0] acvr_q [16];
  logic [31:0] actr_q [16];
  logic [31:0] cntrldvr_q [4];
  logic [31:0] cntenr_q [4];
  logic [31:0] cntrldevr_q [4];
  logic [31:0] cntvr_q [4];
  logic        locked_q, setup_q, stop_q, restart_q;
  logic [etm_defs_pkg::ClaimTags-1:0] claim_q;

  // ---- Where the access goes (etm_reg_locate) --------------------------------------------
  typedef enum logic [4:0] {
    KNone, KCr, KTrigger, KTsscr, KTecr2, KTeevr, KTecr1, KFfrr, KFflr, KVdevr, KVdcr1, KVdcr3, KAcvr, KActr,
    KCntrldvr, KCntenr, KCntrldevr, KCntvr, KSyncfr, KTesseicr, KTraceidr, KImpl, KSr, KPdsr, KClaimset,
    KClaimclr, KLar, KLsr, KConst
  } kind_e;

  logic [9:0]  num;
  kind_e       kind;
  logic [3:0]  idx;
  logic [31:0] wmask, const_val;
  logic        is_v1;
  logic [4:0]  ncmp;     // address comparators: two per pair
  logic [2:0]  ncnt;
  assign num = paddr_i;
  logic has_lock;     // the lock registers exist (ETMv3.2 on)
  assign has_lock = version_i >= etm_defs_pkg::FirstEtmlar;
  assign is_v1 = version_i[7:4] == 4'd1;
  assign ncmp = {etm_defs_pkg::ccr_pairs(impl_etmccr_i), 1'b0};
  assign ncnt = etm_defs_pkg::ccr_counters(impl_etmccr_i);
  // The registers the version and implementation have (etm_reg_locate).
  logic has_tsscr, has_tecr2, has_fflr, has_syncfr, has_tesseicr, has_traceidr;
  assign has_tsscr = version_i >= etm_defs_pkg::FirstEtmtsscr &&
                     (version_i < 8'h20 || etm_defs_pkg::ccr_start_stop(impl_etmccr_i));  // ETMCCR[26] from v2.0
  assign has_tecr2 = version_i >= etm_defs_pkg::FirstEtmtecr2;
  assign has_fflr = etm_defs_pkg::ccr_fifofull(impl_etmccr_i);
  assign has_syncfr = version_i >= etm_defs_pkg::FirstEtmsyncfr;
  assign has_tesseicr = version_i >= etm_defs_pkg::FirstEtmtesseicr && etm_defs_pkg::ccer_eice_start_stop(impl_etmccer_i);
  assign has_traceidr = version_i >= etm_defs_pkg::FirstEtmtraceidr;
  // The reset values: etm_config_at_reset.
  logic [31:0] cr_reset, syncfr_reset;
  assign cr_reset = etm_defs_pkg::CrReset & etm_defs_pkg::mask_cr(version_i);
  assign syncfr_reset = version_i >= 8'h31 ? etm_defs_pkg::SyncfrReset : 32'd0;
  logic [31:0] event_reset;
  assign event_reset = impl_event_reset_i & etm_defs_pkg::mask_event(version_i);
  logic [31:0] cr_wmask;  // the ETMCR bits a write sets: the version's, modelled, implemented
  assign cr_wmask = etm_defs_pkg::mask_cr(version_i) & ~(is_v1 ? etm_defs_pkg::CrUnmodelledV1 : etm_defs_pkg::CrUnmodelledV3)
                    & impl_etmcr_impl_i;

  always_comb begin
    kind = KNone;
    idx = 4'd0;
    wmask = 32'd0;
    const_val = 32'd0;
    if (num == etm_defs_pkg::RegEtmcr) begin
      kind = KCr;
      wmask = cr_wmask;
    end else if (num == etm_defs_pkg::RegEtmtrigger) begin
      kind = KTrigger; wmask = etm_defs_pkg::mask_event(version_i);
    end else if (num == etm_defs_pkg::RegEtmtsscr && has_tsscr) begin
      kind = KTsscr; wmask = etm_defs_pkg::mask_tsscr(version_i);
    end else if (num == etm_defs_pkg::RegEtmtecr2 && has_tecr2) begin
      kind = KTecr2; wmask = etm_defs_pkg::mask_tecr2(version_i);
    end else if (num == etm_defs_pkg::RegEtmteevr) begin
      kind = KTeevr; wmask = etm_defs_pkg::mask_event(version_i);
    end else if (num == etm_defs_pkg::RegEtmtecr1) begin
      kind = KTecr1; wmask = etm_defs_pkg::mask_tecr1(version_i);
    end else if (num == etm_defs_pkg::RegEtmffrr && has_fflr) begin
      kind = KFfrr; wmask = etm_defs_pkg::mask_ffrr(version_i);
    end else if (num == etm_defs_pkg::RegEtmfflr && has_fflr) begin
      kind = KFflr; wmask = etm_defs_pkg::mask_fflr(version_i);
    end else if (num == etm_defs_pkg::RegEtmvdevr) begin
      kind = KVdevr; wmask = etm_defs_pkg::mask_event(version_i);
    end else if (num == etm_defs_pkg::RegEtmvdcr1) begin
      kind = KVdcr1; wmask = etm_defs_pkg::mask_vdcr1(version_i);
    end else if (num == etm_defs_pkg::RegEtmvdcr3) begin
      kind = KVdcr3; wmask = etm_defs_pkg::mask_vdcr3(version_i);
    end else if (num[9:4] == etm_defs_pkg::RegEtmacvr[9:4] && {1'b0, num[3:0]} < ncmp) begin
      kind = KAcvr; idx = num[3:0]; wmask = etm_defs_pkg::mask_acvr(version_i);
    end else if (num[9:4] == etm_defs_pkg::RegEtmactr[9:4] && {1'b0, num[3:0]} < ncmp) begin
      kind = KActr; idx = num[3:0]; wmask = etm_defs_pkg::mask_actr(version_i);
    end else if (num[9:2] == etm_defs_pkg::RegEtmcntrldvr[9:2] && {1'b0, num[1:0]} < ncnt) begin
      kind = KCntrldvr; idx = {2'd0, num[1:0]}; wmask = etm_defs_pkg::mask_counter(version_i);
    end else if (num[9:2] == etm_defs_pkg::RegEtmcntenr[9:2] && {1'b0, num[1:0]} < ncnt) begin
      kind = KCntenr; idx = {2'd0, num[1:0]}; wmask = etm_defs_pkg::mask_cntenr(version_i);
    end else if (num[9:2] == etm_defs_pkg::RegEtmcntrldevr[9:2] && {1'b0, num[1:0]} < ncnt) begin
      kind = KCntrldevr; idx = {2'd0, num[1:0]}; wmask = etm_defs_pkg::mask_event(version_i);
    end else if (num[9:2] == etm_defs_pkg::RegEtmcntvr[9:2] && {1'b0, num[1:0]} < ncnt) begin
      kind = KCntvr; idx = {2'd0, num[1:0]}; wmask = etm_defs_pkg::mask_counter(version_i);
    end else if (num == etm_defs_pkg::RegEtmsyncfr && has_syncfr) begin
      kind = KSyncfr; wmask = etm_defs_pkg::mask_syncfr(version_i);
    end else if (num == etm_defs_pkg::RegEtmtesseicr && has_tesseicr) begin
      kind = KTesseicr; wmask = etm_defs_pkg::mask_tesseicr(version_i);
    end else if (num == etm_defs_pkg::RegEtmtraceidr && has_traceidr) begin
      kind = KTraceidr; wmask = etm_defs_pkg::mask_traceidr(version_i);
    end else if (num == etm_defs_pkg::RegEtmccr) begin
      kind = KImpl; const_val = impl_etmccr_i;
    end else if (num == etm_defs_pkg::RegEtmidr && version_i >= etm_defs_pkg::FirstEtmidr) begin
      kind = KImpl; const_val = impl_etmidr_i;
    end else if (num == etm_defs_pkg::RegEtmccer && version_i >= etm_defs_pkg::FirstEtmccer) begin
      kind = KImpl; const_val = impl_etmccer_i;
    end else if (num == etm_defs_pkg::RegEtmscr && version_i >= etm_defs_pkg::FirstEtmscr) begin
      kind = KImpl; const_val = impl_etmscr_i;
    end else if (num == etm_defs_pkg::RegEtmsr && version_i >= etm_defs_pkg::FirstEtmsr) begin
      kind = KSr;
    end else if (num == etm_defs_pkg::RegEtmpdsr && version_i >= etm_defs_pkg::FirstEtmpdsr) begin
      kind = KConst; const_val = 32'd1;
    end else if (version_i >= etm_defs_pkg::FirstEtmlar) begin
      // The CoreSight management registers (all from ETMv3.2, with memory-mapped access).
      if (num == etm_defs_pkg::RegEtmclaimset) begin
        kind = KClaimset; wmask = {{(32 - etm_defs_pkg::ClaimTags){1'b0}}, {etm_defs_pkg::ClaimTags{1'b1}}};
        const_val = wmask;
      end else if (num == etm_defs_pkg::RegEtmclaimclr) begin
        kind = KClaimclr; wmask = {{(32 - etm_defs_pkg::ClaimTags){1'b0}}, {etm_defs_pkg::ClaimTags{1'b1}}};
      end else if (num == etm_defs_pkg::RegEtmlar) begin
        kind = KLar; wmask = 32'hFFFF_FFFF;
      end else if (num == etm_defs_pkg::RegEtmlsr) begin
        kind = KLsr;
      end else if (num == etm_defs_pkg::RegEtmauthstatus) begin
        kind = KConst; const_val = etm_defs_pkg::AuthstatusValue;
      end else if (num == etm_defs_pkg::RegEtmdevtype) begin
        kind = KConst; const_val = etm_defs_pkg::DevtypeValue;
      end else if (num == etm_defs_pkg::RegEtmpidr4) begin
        kind = KConst; const_val = impl_pidr_i[19] ? 32'h04 : 32'h00;
      end else if (num >= etm_defs_pkg::RegEtmpidr5 && num < etm_defs_pkg::RegEtmpidr0) begin
        kind = KConst;
      end else if (num[9:2] == etm_defs_pkg::RegEtmpidr0[9:2]) begin
        kind = KConst; const_val = {24'd0, impl_pidr_i[8*num[1:0] +: 8]};
      end else if (num[9:2] == etm_defs_pkg::RegEtmcidr0[9:2]) begin
        kind = KConst; const_val = {24'd0, etm_defs_pkg::CidrValue[8*num[1:0] +: 8]};
      end
    end
  end

  // ---- Read data -------------------------------------------------------------------------
  logic access, rd, wr, prog;
  assign access = psel_i && penable_i;
  assign rd = access && !pwrite_i;
  assign wr = access && pwrite_i;
  assign prog = etm_defs_pkg::cr_programming(cr_q);

  always_comb begin
    prdata_o = 32'd0;
    if (rd) begin
      unique case (kind)
        KCr:        prdata_o = cr_q;
        KTrigger:   prdata_o = trigger_q;
        KTsscr:     prdata_o = tsscr_q;
        KTecr2:     prdata_o = tecr2_q;
        KTeevr:     prdata_o = teevr_q;
        KTecr1:     prdata_o = tecr1_q;
        KFfrr:      prdata_o = ffrr_q;
        KFflr:      prdata_o = fflr_q;
        KVdevr:     prdata_o = vdevr_q;
        KVdcr1:     prdata_o = vdcr1_q;
        KVdcr3:     prdata_o = vdcr3_q;
        KAcvr:      prdata_o = acvr_q[idx];
        KActr:      prdata_o = actr_q[idx];
        KCntrldvr:  prdata_o = cntrldvr_q[idx[1:0]];
        KCntenr:    prdata_o = cntenr_q[idx[1:0]];
        KCntrldevr: prdata_o = cntrldevr_q[idx[1:0]];
        KCntvr:     prdata_o = live_cnt_i ? {16'd0, cnt_i[16*idx[1:0] +: 16]} : cntvr_q[idx[1:0]];
        KSyncfr:    prdata_o = syncfr_q;
        KTesseicr:  prdata_o = tesseicr_q;
        KTraceidr:  prdata_o = traceidr_q;
        KSr:        prdata_o = {28'd0, triggered_i, ss_i, prog && drained_i, overflow_i};
        KClaimclr:  prdata_o = {{(32 - etm_defs_pkg::ClaimTags){1'b0}}, claim_q};
        KLsr:       prdata_o = paddrdbg31_i ? 32'd0 : {30'd0, locked_q, 1'b1};  // the lock exists (ETMv3.2 on)
        KImpl, KConst, KClaimset: prdata_o = const_val;
        default:    prdata_o = 32'd0;  // nothing there, or ETMLAR (write-only)
      endcase
    end
  end

  // ---- Write: legal or a rule --------------------------------------------------------------
  // While tracing (ETMCR[10] clear) only ETMCR's programming and power-down bits
  // may be written; anything else is UNPREDICTABLE (IHI 0014 3.4.3), and the
  // part decides: APB_UNPRED takes it as written (the ETM-M3), or it is ignored,
  // ETMCR's trace controls changing only with the programming bit set.
  // APB_STRICT reports it either way.
  localparam logic [31:0] CrFlow = (32'd1 << etm_defs_pkg::CrProgrammingLsb) | (32'd1 << etm_defs_pkg::CrPowerdownLsb);
  logic ok_write;
  logic no_setup, unmapped, read_only, locked_w, not_prog;
  logic [31:0] wmask_eff;
  always_comb begin
    no_setup = access && !setup_q;
    unmapped = access && kind == KNone;
    read_only = 1'b0;
    locked_w = 1'b0;
    not_prog = 1'b0;
    ok_write = 1'b0;
    wmask_eff = wmask;
    if (wr && kind != KNone) begin
      if (kind == KImpl || kind == KSr || kind == KPdsr || kind == KLsr || kind == KConst) read_only = 1'b1;
      else if (kind == KLar) ok_write = !paddrdbg31_i;  // no lock for the debugger: ignored
      else if (locked_q && has_lock && !paddrdbg31_i) locked_w = 1'b1;
      else if (kind == KClaimset || kind == KClaimclr) ok_write = 1'b1;
      else if (kind == KCr) begin
        ok_write = 1'b1;
        if (!prog) begin
          not_prog = impl_apb_strict_i[0] && ((pwdata_i ^ cr_q) & wmask & ~CrFlow) != 32'd0;
          if (!impl_apb_unpred_i[0]) wmask_eff = wmask & CrFlow;
        end
      end
      else if (!prog) begin
        not_prog = impl_apb_strict_i[0];
        ok_write = impl_apb_unpred_i[0];
      end
      else ok_write = 1'b1;
    end
  end
  always_comb begin
    violations_o = '0;
    violations_o[etm_defs_pkg::RuleApbNoSetup] = no_setup;
    violations_o[etm_defs_pkg::RuleApbUnmapped] = unmapped;
    violations_o[etm_defs_pkg::RuleApbReadOnly] = read_only;
    violations_o[etm_defs_pkg::RuleApbLocked] = locked_w;
    violations_o[etm_defs_pkg::RuleApbNotProgramming] = not_prog;
  end

  // ---- Next state ----------------------------------------------------------------------------
  logic [31:0] wdata;
  assign wdata = pwdata_i & wmask_eff;
  logic [31:0] cr_d, trigger_d, tsscr_d, tecr2_d, teevr_d, tecr1_d, ffrr_d, fflr_d, vdevr_d, vdcr1_d, vdcr3_d;
  logic [31:0] syncfr_d, tesseicr_d, traceidr_d;
  logic [31:0] acvr_d [16];
  logic [31:0] actr_d [16];
  logic [31:0] cntrldvr_d [4];
  logic [31:0] cntenr_d [4];
  logic [31:0] cntrldevr_d [4];
  logic [31:0] cntvr_d [4];
  logic        locked_d, stop_d, restart_d, was_on, now_on;
  logic [15:0] we_acvr, we_actr;
  logic [3:0]  we_cntrldvr, we_cntenr, we_cntrldevr, we_cntvr;
  logic [etm_defs_pkg::ClaimTags-1:0] claim_d;
  always_comb begin
    cr_d = cr_q; trigger_d = trigger_q; tsscr_d = tsscr_q; tecr2_d = tecr2_q; teevr_d = teevr_q;
    tecr1_d = tecr1_q; ffrr_d = ffrr_q; fflr_d = fflr_q; vdevr_d = vdevr_q; vdcr1_d = vdcr1_q; vdcr3_d = vdcr3_q;
    syncfr_d = syncfr_q; tesseicr_d = tesseicr_q; traceidr_d = traceidr_q;
    for (int i = 0; i < 16; i++) begin
      acvr_d[i] = acvr_q[i];
      actr_d[i] = actr_q[i];
    end
    for (int i = 0; i < 4; i++) begin
      cntrldvr_d[i] = cntrldvr_q[i];
      cntenr_d[i] = cntenr_q[i];
      cntrldevr_d[i] = cntrldevr_q[i];
      cntvr_d[i] = cntvr_q[i];
    end
    locked_d = locked_q;
    claim_d = claim_q;
    // The counters hold their values while tracing is stopped (etm_regs_edge in program.c).
    if (stop_q) begin
      for (int i = 0; i < 4; i++)
        if (3'(i) < ncnt) cntvr_d[i] = {16'd0, cnt_i[16*i +: 16]};
    end
    // The arrays: one write enable per element, from one decode of the write.
    we_acvr = (ok_write && kind == KAcvr) ? 16'd1 << idx : 16'd0;
    we_actr = (ok_write && kind == KActr) ? 16'd1 << idx : 16'd0;
    we_cntrldvr = (ok_write && kind == KCntrldvr) ? 4'd1 << idx[1:0] : 4'd0;
    we_cntenr = (ok_write && kind == KCntenr) ? 4'd1 << idx[1:0] : 4'd0;
    we_cntrldevr = (ok_write && kind == KCntrldevr) ? 4'd1 << idx[1:0] : 4'd0;
    we_cntvr = (ok_write && kind == KCntvr) ? 4'd1 << idx[1:0] : 4'd0;
    for (int i = 0; i < 16; i++) begin
      if (we_acvr[i]) acvr_d[i] = wdata;
      if (we_actr[i]) actr_d[i] = wdata;
    end
    for (int i = 0; i < 4; i++) begin
      if (we_cntrldvr[i]) cntrldvr_d[i] = wdata;
      if (we_cntenr[i]) cntenr_d[i] = wdata;
      if (we_cntrldevr[i]) cntrldevr_d[i] = wdata;
      if (we_cntvr[i]) cntvr_d[i] = wdata;
    end
    if (ok_write) begin
      unique case (kind)
        KCr:        cr_d = (cr_q & ~wmask_eff) | wdata;
        KTrigger:   trigger_d = wdata;
        KTsscr:     tsscr_d = wdata;
        KTecr2:     tecr2_d = wdata;
        KTeevr:     teevr_d = wdata;
        KTecr1:     tecr1_d = wdata;
        KFfrr:      ffrr_d = wdata;
        KFflr:      fflr_d = wdata;
        KVdevr:     vdevr_d = wdata;
        KVdcr1:     vdcr1_d = wdata;
        KVdcr3:     vdcr3_d = wdata;
        KSyncfr:    syncfr_d = wdata;
        KTesseicr:  tesseicr_d = wdata;
        KTraceidr:  traceidr_d = wdata;
        KLar:       locked_d = pwdata_i != etm_defs_pkg::LarKey;
        KClaimset:  claim_d = claim_q | wdata[etm_defs_pkg::ClaimTags-1:0];
        KClaimclr:  claim_d = claim_q & ~wdata[etm_defs_pkg::ClaimTags-1:0];
        default:    ;
      endcase
    end
    // Bits no write can set stay as reset (the version's, the implementation's
    // registers and fields): held here, a part builds no flip-flop for them.
    cr_d &= cr_reset | cr_wmask;
    trigger_d &= etm_defs_pkg::mask_event(version_i);
    tsscr_d &= etm_defs_pkg::mask_tsscr(version_i) & {32{has_tsscr}};
    tecr2_d &= etm_defs_pkg::mask_tecr2(version_i) & {32{has_tecr2}};
    teevr_d &= etm_defs_pkg::mask_event(version_i);
    tecr1_d &= etm_defs_pkg::mask_tecr1(version_i);
    ffrr_d &= etm_defs_pkg::mask_ffrr(version_i) & {32{has_fflr}};
    fflr_d &= etm_defs_pkg::mask_fflr(version_i) & {32{has_fflr}};
    vdevr_d &= etm_defs_pkg::mask_event(version_i);
    vdcr1_d &= etm_defs_pkg::mask_vdcr1(version_i);
    vdcr3_d &= etm_defs_pkg::mask_vdcr3(version_i);
    syncfr_d &= (etm_defs_pkg::mask_syncfr(version_i) & {32{has_syncfr}}) | syncfr_reset;
    tesseicr_d &= etm_defs_pkg::mask_tesseicr(version_i) & {32{has_tesseicr}};
    traceidr_d &= etm_defs_pkg::mask_traceidr(version_i) & {32{has_traceidr}};
    for (int i = 0; i < 16; i++) begin
      acvr_d[i] &= etm_defs_pkg::mask_acvr(version_i);
      actr_d[i] &= etm_defs_pkg::mask_actr(version_i);
    end
    for (int i = 0; i < 4; i++) begin
      cntrldvr_d[i] &= etm_defs_pkg::mask_counter(version_i);
      cntenr_d[i] &= etm_defs_pkg::mask_cntenr(version_i);
      cntrldevr_d[i] &= etm_defs_pkg::mask_event(version_i);
      cntvr_d[i] &= etm_defs_pkg::mask_counter(version_i) | 32'h0000_FFFF;
    end
    was_on = !(etm_defs_pkg::cr_powerdown(cr_q) || etm_defs_pkg::cr_programming(cr_q));
    now_on = !(etm_defs_pkg::cr_powerdown(cr_d) || etm_defs_pkg::cr_programming(cr_d));
    stop_d = was_on && !now_on;
    restart_d = !was_on && now_on;
  end


  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cr_q <= cr_reset;
      // EVENT_RESET: the ETM-M3 traces and triggers unprogrammed (etm_config_at_reset).
      trigger_q <= event_reset; tsscr_q <= '0; tecr2_q <= '0; teevr_q <= event_reset; tecr1_q <= '0;
      ffrr_q <= '0; fflr_q <= '0;
      vdevr_q <= '0; vdcr1_q <= '0; vdcr3_q <= '0;
      syncfr_q <= syncfr_reset;
      tesseicr_q <= '0; traceidr_q <= '0;
      locked_q <= 1'b1;
      claim_q <= '0;
      setup_q <= 1'b0;
      stop_q <= 1'b0;
      restart_q <= 1'b0;
    end else begin
      cr_q <= cr_d; trigger_q <= trigger_d; tsscr_q <= tsscr_d; tecr2_q <= tecr2_d; teevr_q <= teevr_d;
      tecr1_q <= tecr1_d; ffrr_q <= ffrr_d; fflr_q <= fflr_d; vdevr_q <= vdevr_d; vdcr1_q <= vdcr1_d; vdcr3_q <= vdcr3_d;
      syncfr_q <= syncfr_d; tesseicr_q <= tesseicr_d; traceidr_q <= traceidr_d;
      locked_q <= locked_d;
      claim_q <= claim_d;
      setup_q <= psel_i && !penable_i;
      stop_q <= stop_d;
      restart_q <= restart_d;
    end
  end
  for (genvar g = 0; g < 16; g++) begin : gen_comparator
    if (g < NumCmp) begin : gen_built
      logic [31:0] acvr_r, actr_r;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          acvr_r <= '0;
          actr_r <= '0;
        end else begin
          acvr_r <= acvr_d[g];
          actr_r <= actr_d[g];
        end
      end
      assign acvr_q[g] = acvr_r;
      assign actr_q[g] = actr_r;
    end else begin : gen_absent
      assign acvr_q[g] = '0;
      assign actr_q[g] = '0;
      logic unused_cmp;
      assign unused_cmp = ^{acvr_d[g], actr_d[g]};
    end
    assign etmacvr_o[32*g +: 32] = acvr_q[g];
    assign etmactr_o[32*g +: 32] = actr_q[g];
  end
  for (genvar g = 0; g < 4; g++) begin : gen_counter
    if (g < NumCnt) begin : gen_built
      logic [31:0] cntrldvr_r, cntenr_r, cntrldevr_r, cntvr_r;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          cntrldvr_r <= '0;
          cntenr_r <= '0;
          cntrldevr_r <= '0;
          cntvr_r <= '0;
        end else begin
          cntrldvr_r <= cntrldvr_d[g];
          cntenr_r <= cntenr_d[g];
          cntrldevr_r <= cntrldevr_d[g];
          cntvr_r <= cntvr_d[g];
        end
      end
      assign cntrldvr_q[g] = cntrldvr_r;
      assign cntenr_q[g] = cntenr_r;
      assign cntrldevr_q[g] = cntrldevr_r;
      assign cntvr_q[g] = cntvr_r;
    end else begin : gen_absent
      assign cntrldvr_q[g] = '0;
      assign cntenr_q[g] = '0;
      assign cntrldevr_q[g] = '0;
      assign cntvr_q[g] = '0;
      logic unused_cnt;
      assign unused_cnt = ^{cntrldvr_d[g], cntenr_d[g], cntrldevr_d[g], cntvr_d[g]};
    end
    assign etmcntrldvr_o[32*g +: 32] = cntrldvr_q[g];
    assign etmcntenr_o[32*g +: 32] = cntenr_q[g];
    assign etmcntrldevr_o[32*g +: 32] = cntrldevr_q[g];
    assign etmcntvr_o[32*g +: 32] = cntvr_q[g];
  end

  assign etmcr_o = cr_q;
  assign etmtrigger_o = trigger_q;
  assign etmtsscr_o = tsscr_q;
  assign etmtecr2_o = tecr2_q;
  assign etmteevr_o = teevr_q;
  assign etmtecr1_o = tecr1_q;
  assign etmffrr_o = ffrr_q;
  assign etmfflr_o = fflr_q;
  assign etmvdevr_o = vdevr_q;
  assign etmvdcr1_o = vdcr1_q;
  assign etmvdcr3_o = vdcr3_q;
  assign etmsyncfr_o = syncfr_q;
  assign etmtesseicr_o = tesseicr_q;
  assign etmtraceidr_o = traceidr_q;
  assign stop_o = stop_q;
  assign restart_o = restart_q;

  logic unused_regs;
  assign unused_regs = ^{impl_etmccr_i, impl_pidr_i[31:20], impl_pidr_i[18:0], impl_apb_unpred_i[31:1],
                         impl_apb_strict_i[31:1]};

endmodule
