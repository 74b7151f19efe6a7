// etm_top.sv - the ETM as a part: etm_core with its implementation fixed by
// parameters, as in silicon. The defaults are the ETM of a Cortex-M3 r1 (ETM-M3,
// ETMv3.4: the `etm-m3` preset); `etm config --sv-params` prints the parameters of
// any other preset or configuration. Everything else is programmed through the
// debug APB (PSEL, PENABLE, PWRITE, PADDR[11:2], PWDATA, PADDRDBG31; PRDATA,
// PREADY, PSLVERR) from the reset values of the architecture (docs/registers.md).
// ETMv3 trace leaves as an AMBA ATB master (ATDATA, ATVALID, ATREADY, ATID; AFVALID
// and AFREADY where PortBytes > 1, else AFREADY is tied high); ETMv1 trace on
// PIPESTAT, TRACEPKT and TRACESYNC.
`include "etm_ports.svh"

module etm_top #(
  // Read-only registers (IHI 0014 3.3).
  parameter logic [31:0] Etmccr     = 32'h8C80_2000,  // 1 counter, start/stop, FIFOFULL, ETMIDR
  parameter logic [31:0] Etmidr     = 32'h4114_F240,  // ARM, ETMv3.4, alternative branch encoding
  parameter logic [31:0] Etmccer    = 32'h0014_1800,  // 4 DWT inputs, start/stop by them
  parameter logic [31:0] Etmscr     = 32'h0002_0D09,  // 8-bit port, FIFOFULL, no fetch comparisons
  parameter logic [31:0] Pidr       = 32'h003B_B924,  // PIDR3..PIDR0: ARM part 0x924, revision 3
  parameter logic [31:0] EtmcrImpl  = 32'h1063_2FF1,  // the ETMCR bits it implements: no cycle-accurate mode
  // Sizes a real part fixes (etm/regs.def model parameters).
  parameter int unsigned FifoDepth  = 24,             // bytes of trace FIFO
  parameter int unsigned FifoWrite  = 4,              // ETMv3 bytes entering the FIFO's store per cycle
  parameter int unsigned PktQueue   = 8,              // ETMv3 cycle records waiting for the packet generator
  parameter bit          PhEager    = 1'b0,           // ETMv3 P-headers also close at ETMFLUSH (lower latency)
  parameter bit          BranchFull = 1'b0,           // ETMv3 branch packets carry the whole address
  parameter int unsigned PortBytes  = 1,              // ETMv3 bytes leaving the port per cycle
  parameter int unsigned IssueWidth = 1,              // instructions per cycle (1 or 2)
  // The part's choices where the architecture leaves one (etm/regs.def "choice:",
  // docs/silicon.md): the ETM-M3's.
  parameter int unsigned PhPacking       = 1,      // format 1 P-headers only, closed at N or 15 E
  parameter int unsigned TraceStart      = 1,      // the first atom after a restart alone, a trigger after it
  parameter int unsigned IsyncInfo       = 1,      // bit 0 of every I-sync information byte
  parameter int unsigned SyncPlacement   = 1,      // A-sync where a header closed, I-sync half a period later
  parameter int unsigned TailchainReturn = 1,      // an exception return before a tail-chained entry
  parameter int unsigned CancelForm      = 1,      // the Cancel bit withdraws the last atom
  parameter int unsigned ApbUnpred       = 1,      // a write while tracing taken as written
  parameter int unsigned ApbStrict       = 0,      // ... and reported as a rule violation
  parameter logic [31:0] EventReset      = 32'h6F,    // ETMTEEVR and ETMTRIGGER at reset: always
  parameter bit          Assertions = 1'b1,
  parameter bit          HasV3      = 1'b1,
  parameter bit          HasV1      = 1'b1
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic         end_i,
  `ETM_IN_PORTS(input)
  `ETM_OUT_PORTS(output)
  output logic [etm_defs_pkg::NumRules-1:0] VIOLATIONS
);
  etm_core #(
    .MaxFifoDepth (FifoDepth),
    .MaxFifoWrite (FifoWrite),
    .MaxPortBytes (PortBytes),
    .MaxPktQueue  (PktQueue),
    .Assertions   (Assertions),
    .HasV3        (HasV3),
    .HasV1        (HasV1),
    .HasCycleGen  (PktQueue == 0),
    .HasRecGen    (PktQueue != 0),
    .Dual         (IssueWidth > 1),
    .NumCmp       ({27'd0, Etmccr[3:0], 1'b0}),  // ETMCCR[3:0]: comparator pairs
    .NumCnt       ({29'd0, Etmccr[15:13]})       // ETMCCR[15:13]: counters
  ) u_core (
    .clk_i,
    .rst_ni,
    .end_i,
    .ETMIVALID, .ETMIBRANCH, .ETMIINDBR, .ETMICCFAIL, .ETMFOLD, .ETMIA, .ETMDVALID, .ETMFLUSH,
    .ETMFINDBR, .ETMCANCEL, .ETMISTALL, .ETMINTSTAT, .ETMINTNUM, .ETMTRIGGER, .ETMTRIGINOTD,
    .ETMIVALID1, .ETMIBRANCH1, .ETMIINDBR1, .ETMICCFAIL1, .ETMIA1,
    .ETMDACTL, .ETMDA, .ETMDDCTL, .ETMDD,
    .PSEL, .PENABLE, .PWRITE, .PADDR, .PWDATA, .PADDRDBG31, .PSELTPIU,
    .ATREADY, .AFVALID,
    .impl_etmccr_i      (Etmccr),
    .impl_etmidr_i      (Etmidr),
    .impl_etmccer_i     (Etmccer),
    .impl_etmscr_i      (Etmscr),
    .impl_fifo_depth_i  (32'(FifoDepth)),
    .impl_fifo_write_i  (32'(FifoWrite)),
    .impl_pkt_queue_i   (32'(PktQueue)),
    .impl_ph_eager_i    (32'(PhEager)),
    .impl_branch_full_i (32'(BranchFull)),
    .impl_port_bytes_i  (32'(PortBytes)),
    .impl_issue_width_i (32'(IssueWidth)),
    .impl_pidr_i        (Pidr),
    .impl_etmcr_impl_i  (EtmcrImpl),
    .impl_ph_packing_i       (32'(PhPacking)),
    .impl_trace_start_i      (32'(TraceStart)),
    .impl_isync_info_i       (32'(IsyncInfo)),
    .impl_sync_placement_i   (32'(SyncPlacement)),
    .impl_tailchain_return_i (32'(TailchainReturn)),
    .impl_cancel_form_i      (32'(CancelForm)),
    .impl_apb_unpred_i       (32'(ApbUnpred)),
    .impl_apb_strict_i       (32'(ApbStrict)),
    .impl_event_reset_i      (EventReset),
    .PIPESTAT, .TRACEPKT, .TRACESYNC, .V3COUNT, .ATDATA, .ATVALID, .ATID, .AFREADY, .FIFOLEVEL, .OVERFLOW, .TRIGGER, .FIFOFULL,
    .TRACEENABLE, .VIEWDATA, .PRDATA, .PREADY, .PSLVERR,
    .VIOLATIONS
  );
endmodule
