// etm_check.sv - stage `check` (model/core/src/check.c, docs/interface.md): the
// interface contract. violations_o has one bit per rule, in the order of
// etm/rules.def (etm_defs_pkg::Rule*), set in each cycle that breaks the rule, so a
// harness can compare it with the C checker's. With the parameter Assertions each
// rule is also an assertion (simulation only; Verilated::assertOn() switches them
// off for stimulus that breaks rules on purpose).
module etm_check #(
  parameter bit Assertions = 1'b1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        hold_i,        // etm_end / etm_drain edges: no check
  input  logic [1:0]  issue_width_i, // ISSUE_WIDTH
  input  logic        ivalid_i,
  input  logic        ibranch_i,
  input  logic        iindbr_i,
  input  logic        iccfail_i,
  input  logic        fold_i,
  input  logic        flush_i,
  input  logic        findbr_i,
  input  logic        cancel_i,
  input  logic        istall_i,
  input  logic [2:0]  intstat_i,
  input  logic [8:0]  intnum_i,
  input  logic        ivalid1_i,
  input  logic        ibranch1_i,
  input  logic        iindbr1_i,
  input  logic        iccfail1_i,
  input  logic [17:0] dactl_i,
  input  logic [31:0] da_i,
  input  logic [3:0]  ddctl_i,
  output logic [etm_defs_pkg::NumRules-1:0] violations_o
);
  // Data slots 1..3: an address from an earlier cycle waiting for its value.
  logic [3:1] pend_q, pend_d;
  logic       cancel_q, cancel_d;     // ETMCANCEL seen, waiting for the exception entry
  logic       first_q, first_d;       // the next transfer is the first of an instruction
  logic       unal_q, unal_d;         // ... is the second half of an unaligned access
  logic       unal_last_q, unal_last_d;
  logic       insn_q, insn_d;         // an instruction came since the last first transfer
  logic [1:0] age_q [4];              // per slot: cycles since its waiting address (saturating)
  logic [1:0] age_d [4];
  logic [3:1] pend_write_q, pend_write_d;  // ... and whether it is a store
  logic [31:0] prev_da_q, prev_da_d;  // address of the last transfer
  logic [31:0] unal_da_q, unal_da_d;  // first half of an unaligned access: its address,
  logic [3:0] unal_n_q, unal_n_d;     //   bytes
  logic       unal_write_q, unal_write_d; // and DAWrite

  // ETMDACTL fields (ARM1176 TRM table 15-5).
  logic [1:0] das, dds;
  logic       da_unaligned, da_last, da_nseq, da_write, da_cprt, da_swizzle;
  logic [7:0] da_blsel;
  logic [1:0] da_rot;
  assign das = dactl_i[1:0];
  assign da_write = dactl_i[2];
  assign da_blsel = dactl_i[10:3];
  assign da_rot = dactl_i[13:12];
  assign da_swizzle = dactl_i[14];
  assign da_cprt = dactl_i[15];
  assign da_unaligned = dactl_i[11];
  assign da_last = dactl_i[16];
  assign da_nseq = dactl_i[17];
  assign dds = ddctl_i[1:0];

  logic unused_fields;
  assign unused_fields = ddctl_i[3];

  // blsel_valid(): a contiguous run of lanes from lane da[2:0] within one word.
  function automatic logic blsel_valid(input logic [2:0] lo, input logic [7:0] lanes);
    logic [7:0] run;
    logic [2:0] hi;
    logic stop;
    run = lanes >> lo;
    hi = lo;
    stop = 1'b0;
    for (int i = 1; i < 8; i++) begin
      if (!stop && 3'(i) > lo && lanes[i]) hi = 3'(i);
      else if (3'(i) > lo) stop = 1'b1;
    end
    blsel_valid = lanes != 8'd0 && lanes[lo] && (lanes & ((8'd1 << lo) - 8'd1)) == 8'd0 &&
                  (run & (run + 8'd1)) == 8'd0 && (lo < 3'd4) == (hi < 3'd4);
  endfunction

  // Cortex-M3 exception numbers that can be entered.
  logic intnum_enterable;
  assign intnum_enterable = (intnum_i >= 9'd1 && intnum_i <= 9'd6) || intnum_i == 9'd11 ||
                            intnum_i == 9'd12 || intnum_i >= 9'd14;

  always_comb begin
    logic [etm_defs_pkg::NumRules-1:0] v;
    logic slot1_used, lanes_ok, write;
    logic [3:0] n;
    logic [1:0] rot;
    v = '0;
    n = 4'd0;
    rot = 2'd0;
    lanes_ok = 1'b0;
    write = 1'b0;
    pend_d = pend_q;
    cancel_d = cancel_q;
    first_d = first_q;
    unal_d = unal_q;
    unal_last_d = unal_last_q;

    // Table 16.1 qualifiers.
    v[etm_defs_pkg::RuleIbranchWithoutIvalid] = ibranch_i && !ivalid_i;
    v[etm_defs_pkg::RuleIccfailWithoutIvalid] = iccfail_i && !ivalid_i;
    v[etm_defs_pkg::RuleFoldWithoutIvalid] = fold_i && !ivalid_i;
    v[etm_defs_pkg::RuleIindbrWithoutIbranch] = iindbr_i && !ibranch_i;
    v[etm_defs_pkg::RuleFindbrWithoutFlush] = findbr_i && !flush_i;
    v[etm_defs_pkg::RuleIstallWithIvalid] = istall_i && ivalid_i;
    v[etm_defs_pkg::RuleIntstatReserved] = intstat_i > etm_defs_pkg::IntstatFetch;
    v[etm_defs_pkg::RuleIntstatExitWithIvalid] = intstat_i == etm_defs_pkg::IntstatExit && ivalid_i;
    if (intstat_i == etm_defs_pkg::IntstatEntry || intstat_i == etm_defs_pkg::IntstatReturn) begin
      v[etm_defs_pkg::RuleIntstatEntryWithoutIvalid] = !ivalid_i;
      v[etm_defs_pkg::RuleIntstatEntryNotIndirect] = ivalid_i && !(ibranch_i && iindbr_i);
    end
    v[etm_defs_pkg::RuleIntnumInvalid] = intstat_i == etm_defs_pkg::IntstatEntry && !intnum_enterable;
    if (ivalid_i) begin
      v[etm_defs_pkg::RuleCancelWithoutEntry] = cancel_q && intstat_i != etm_defs_pkg::IntstatEntry;
      cancel_d = 1'b0;
    end
    if (cancel_i) cancel_d = 1'b1;

    // Second instruction slot.
    slot1_used = ivalid1_i || ibranch1_i || iindbr1_i || iccfail1_i;
    v[etm_defs_pkg::RuleSlot1Disabled] = slot1_used && issue_width_i < 2'd2;
    v[etm_defs_pkg::RuleSlot1WithoutSlot0] = ivalid1_i && !ivalid_i;
    v[etm_defs_pkg::RuleSlot1WithFold] = ivalid1_i && fold_i;
    v[etm_defs_pkg::RuleIbranch1WithoutIvalid1] = ibranch1_i && !ivalid1_i;
    v[etm_defs_pkg::RuleIccfail1WithoutIvalid1] = iccfail1_i && !ivalid1_i;
    v[etm_defs_pkg::RuleIindbr1WithoutIbranch1] = iindbr1_i && !ibranch1_i;

    // Data value: the outstanding address of its slot from an earlier cycle.
    insn_d = insn_q || ivalid_i;  // an instruction comes before its transfer in the same cycle
    for (int i = 0; i < 4; i++) age_d[i] = (age_q[i] == 2'd3) ? 2'd3 : age_q[i] + 2'd1;
    pend_write_d = pend_write_q;
    prev_da_d = prev_da_q;
    unal_da_d = unal_da_q;
    unal_n_d = unal_n_q;
    unal_write_d = unal_write_q;
    if (dds != 2'd0) begin
      if (!pend_q[dds]) begin
        v[etm_defs_pkg::RuleDdSameCycle] = das == dds;
        v[etm_defs_pkg::RuleDdWithoutAddress] = das != dds;
      end else begin
        v[etm_defs_pkg::RuleDdTooSoon] = age_q[dds] < 2'd2;
        v[etm_defs_pkg::RuleDdFailNotStore] = ddctl_i[2] && !pend_write_q[dds];
      end
      pend_d[dds] = 1'b0;
    end

    // Data address sequencing.
    if (das != 2'd0) begin
      n = etm_pkg::dslot_lanes(da_blsel);  // etm_dslot_lanes()
      lanes_ok = da_cprt || blsel_valid(da_i[2:0], da_blsel);
      v[etm_defs_pkg::RuleDaBlselInvalid] = !lanes_ok;
      if (unal_q) begin
        // Second half: only DALast is meaningful.
        v[etm_defs_pkg::RuleDaUnalignedSecondHalf] = da_unaligned;
        v[etm_defs_pkg::RuleDaUnalignedLastMismatch] = da_last != unal_last_q;
        v[etm_defs_pkg::RuleDaUnalignedSplit] = lanes_ok && (da_i[1:0] != 2'd0 ||
                                           da_i != {unal_da_q[31:2], 2'b00} + 32'd4 || unal_n_q + n > 4'd4);
        write = unal_write_q;
        unal_d = 1'b0;
        first_d = da_last;
      end else begin
        if (first_q) begin
          v[etm_defs_pkg::RuleDaFirstWithoutNseq] = !da_nseq;
          v[etm_defs_pkg::RuleDaFirstWithoutInsn] = !insn_d;
          insn_d = 1'b0;
        end else begin
          v[etm_defs_pkg::RuleDaNotSequential] = !da_nseq && da_i != prev_da_q + 32'd4;
        end
        v[etm_defs_pkg::RuleDaCprtNotSingle] = da_cprt && (!first_q || !da_nseq || !da_last || da_unaligned);
        rot = 2'(da_swizzle ? 4'd4 - {2'd0, da_i[1:0]} - n : {2'd0, da_i[1:0]});
        v[etm_defs_pkg::RuleDaRotMismatch] = !da_cprt && lanes_ok && da_rot != rot;
        write = da_write;
        if (da_unaligned) begin
          // The first half runs to the end of its word, and is not all of it.
          v[etm_defs_pkg::RuleDaUnalignedSplit] = lanes_ok && !da_cprt &&
                                             (da_i[1:0] == 2'd0 || {2'd0, da_i[1:0]} + n != 4'd4);
          unal_d = 1'b1;
          unal_last_d = da_last;
          unal_da_d = da_i;
          unal_n_d = n;
          unal_write_d = write;
          first_d = 1'b0;
        end else begin
          first_d = da_last;
        end
      end
      prev_da_d = da_i;
      pend_d[das] = 1'b1;
      age_d[das] = 2'd1;
      pend_write_d[das] = write;
    end

    if (hold_i) begin
      v = '0;
      insn_d = insn_q;
      for (int i = 0; i < 4; i++) age_d[i] = age_q[i];
      pend_write_d = pend_write_q;
      prev_da_d = prev_da_q;
      unal_da_d = unal_da_q;
      unal_n_d = unal_n_q;
      unal_write_d = unal_write_q;
      pend_d = pend_q;
      cancel_d = cancel_q;
      first_d = first_q;
      unal_d = unal_q;
      unal_last_d = unal_last_q;
    end
    violations_o = v;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pend_q      <= '0;
      cancel_q    <= 1'b0;
      first_q     <= 1'b1;
      unal_q      <= 1'b0;
      unal_last_q <= 1'b0;
      insn_q      <= 1'b0;
      pend_write_q <= '0;
      prev_da_q   <= 32'd0;
      unal_da_q   <= 32'd0;
      unal_n_q    <= 4'd0;
      unal_write_q <= 1'b0;
    end else begin
      pend_q      <= pend_d;
      cancel_q    <= cancel_d;
      first_q     <= first_d;
      unal_q      <= unal_d;
      unal_last_q <= unal_last_d;
      insn_q      <= insn_d;
      pend_write_q <= pend_write_d;
      prev_da_q   <= prev_da_d;
      unal_da_q   <= unal_da_d;
      unal_n_q    <= unal_n_d;
      unal_write_q <= unal_write_d;
    end
  end

  for (genvar g = 0; g < 4; g++) begin : gen_age
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) age_q[g] <= 2'd0;
      else         age_q[g] <= age_d[g];
    end
  end

`ifndef SYNTHESIS
  // Every rule as an assertion, named after it (docs/interface.md). Each is
  // an immediate assertion on the values sampled at the edge, as a concurrent
  // one would read them, behind one test of any violation: Verilator evaluates
  // a concurrent assertion, and its reset, every cycle for each rule (4 % of
  // the part's simulated time), but merges these tests into one.
  if (Assertions) begin : gen_assert
    for (genvar r = 0; r < etm_defs_pkg::NumRules; r++) begin : gen_rule
      always @(posedge clk_i)
        if ($sampled(rst_ni) && $sampled(violations_o) != '0)
          RuleHolds_A: assert (!$sampled(violations_o[r]))
            else $error("etm_check: interface rule %s broken: %s", etm_defs_pkg::rule_name(r),
                        etm_defs_pkg::rule_text(r));
    end
  end
`endif

endmodule
