// etm_gen_ph_pkg.sv - the P-header packer of the packet generator with records
// (etm_gen.sv): the operations of stage `pheader` (model/core/src/pheader.c) as
// functions on a state vector, gen_ph_t's layout (Yosys 0.23 takes no
// struct-typed function arguments or locals). Each returns the state after the
// operation, the value of a cycle count packet among its entries where it can
// make one, and its entries (gen_ent_t), the packets in the order the C puts
// them. etm_gen plans a phase with them; they hold no state of their own.
package etm_gen_ph_pkg;
  localparam int unsigned PhW = 68;   // $bits(etm_pkg::gen_ph_t)
  localparam int unsigned EntW = 32;  // $bits(etm_pkg::gen_ent_t)
  localparam logic [31:0] RunMax = 32'hFFFF_FFFF;
  // Fields of the state vector (gen_ph_t, lowest first).
  localparam int unsigned FSingle = 0, FWdebt = 1, FWrun = 9, FHeldW = 41, FHeldA = 49, FHeld = 54,
                          FOpenE = 62, FOpen = 66;
  // Entry kinds (gen_ent_t.kind).
  localparam logic [3:0] KHdr = 4'd0, KCc = 4'd1, KCcMax = 4'd2, KAsync = 4'd3, KIsync = 4'd4,
                         KBranch = 4'd5, KTrig = 4'd6, KExcRet = 4'd7, KIgnore = 4'd8;
  localparam logic [1:0] OpNone = 2'd0, OpF1 = 2'd1, OpN = 2'd2;

  function automatic logic [EntW-1:0] ent(input logic [3:0] kind, input logic [7:0] hdr, input logic [7:0] w);
    ent = {1'b1, 11'd0, kind, hdr, w};
  endfunction

  // push_held: send the held header (put_header: last_single is whether it holds one atom).
  function automatic logic [PhW+EntW-1:0] f_push_held(input logic [PhW-1:0] s);
    logic [PhW-1:0] x;
    logic [EntW-1:0] e;
    x = s;
    e = '0;
    if (s[FHeld +: 8] != 8'd0) begin
      e = ent(KHdr, s[FHeld +: 8], s[FHeldW +: 8]);
      x[FSingle] = (s[FHeldA +: 5] == 5'd1);
      x[FHeld +: 8] = 8'd0;
    end
    f_push_held = {x, e};
  endfunction

  // hold: send the header held before this one, hold this one.
  function automatic logic [PhW+EntW-1:0] f_hold(input logic [PhW-1:0] s, input logic [7:0] h,
                                                 input logic [4:0] atoms, input logic [7:0] w);
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW-1:0] x;
    logic [EntW-1:0] e;
    r_f_push_held = f_push_held(s);
    {x, e} = r_f_push_held;
    x[FHeld +: 8] = h;
    x[FHeldA +: 5] = atoms;
    x[FHeldW +: 8] = w;
    f_hold = {x, e};
  endfunction

  // close_open: the header being built is complete (held).
  function automatic logic [PhW+EntW-1:0] f_close_open(input logic [PhW-1:0] s, input logic ca);
    logic [PhW+EntW-1:0] r_f_hold;
    logic [PhW-1:0] x;
    logic [EntW-1:0] e;
    logic [3:0] k;
    x = s;
    e = '0;
    k = s[FOpenE +: 4];
    if (s[FOpen +: 2] == OpF1) begin
      r_f_hold = f_hold(s, etm_pkg::hdr_f1(k, 1'b0), {1'b0, k}, ca ? {4'd0, k} : 8'd0);
      {x, e} = r_f_hold;
    end
    else if (s[FOpen +: 2] == OpN) begin
      r_f_hold = f_hold(s, etm_pkg::hdr_f1(4'd0, 1'b1), 5'd1, 8'd0);
      {x, e} = r_f_hold;
    end
    x[FOpen +: 2] = OpNone;
    x[FOpenE +: 4] = 4'd0;
    f_close_open = {x, e};
  endfunction

  // close_atoms: close_open, then the held header goes.
  function automatic logic [PhW+2*EntW-1:0] f_close_atoms(input logic [PhW-1:0] s, input logic ca);
    logic [PhW+EntW-1:0] r_f_close_open;
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW-1:0] x;
    logic [EntW-1:0] e0, e1;
    r_f_close_open = f_close_open(s, ca);
    {x, e0} = r_f_close_open;
    r_f_push_held = f_push_held(x);
    {x, e1} = r_f_push_held;
    f_close_atoms = {x, e1, e0};
  endfunction

  // flush_run: the W run with no atom after it: the held header, then a cycle
  // count packet (a run longer than LongRun) or up to three format 3 headers.
  // Returns the count's value too.
  function automatic logic [PhW+32+4*EntW-1:0] f_flush_run(input logic [PhW-1:0] s);
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW-1:0] x;
    logic [4*EntW-1:0] es;
    logic [31:0] n, cc;
    logic [3:0] k;
    x = s;
    es = '0;
    cc = 32'd0;
    n = s[FWrun +: 32];
    if (n != 32'd0) begin
      r_f_push_held = f_push_held(x);
      {x, es[0 +: EntW]} = r_f_push_held;
      if (n > 32'(etm_defs_pkg::LongRun)) begin
        es[EntW +: EntW] = ent(KCc, 8'd0, 8'd0);
        cc = n;
        n = 32'd0;
      end else begin
        for (int i = 1; i < 4; i++) begin
          if (n != 32'd0) begin
            k = (n > 32'd8) ? 4'd8 : n[3:0];
            es[i*EntW +: EntW] = ent(KHdr, etm_pkg::hdr_f3(k, 1'b0), {4'd0, k});
            n = n - {28'd0, k};
          end
        end
      end
      x[FSingle] = 1'b0;
      x[FWrun +: 32] = 32'd0;
    end
    f_flush_run = {x, cc, es};
  endfunction

  // close_atoms, then for close_all (all) flush_run.
  function automatic logic [PhW+32+6*EntW-1:0] f_close(input logic [PhW-1:0] s, input logic ca, input logic all);
    logic [PhW+2*EntW-1:0] r_f_close_atoms;
    logic [PhW+32+4*EntW-1:0] r_f_flush_run;
    logic [PhW-1:0] x;
    logic [2*EntW-1:0] ea;
    logic [4*EntW-1:0] er;
    logic [31:0] cc;
    r_f_close_atoms = f_close_atoms(s, ca);
    {x, ea} = r_f_close_atoms;
    cc = 32'd0;
    er = '0;
    if (all) begin
      r_f_flush_run = f_flush_run(x);
      {x, cc, er} = r_f_flush_run;
    end
    f_close = {x, cc, er, ea};
  endfunction

  // A full run (RunMax W atoms) out as a cycle count (its held header first),
  // and another begun: its count is RunMax whatever the phase's other cycle
  // count packet holds.
  function automatic logic [PhW+2*EntW-1:0] f_run_wrap(input logic [PhW-1:0] s);
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW-1:0] x;
    logic [EntW-1:0] e0;
    r_f_push_held = f_push_held(s);
    {x, e0} = r_f_push_held;
    x[FSingle] = 1'b0;
    x[FWrun +: 32] = 32'd1;
    f_run_wrap = {x, ent(KCcMax, 8'd0, 8'd0), e0};
  endfunction

  // ph_cycle without cycle accuracy: one atom.
  function automatic logic [PhW+EntW-1:0] f_nca_atom(input logic [PhW-1:0] s, input logic ex);
    logic [PhW+EntW-1:0] r_f_close_open;
    logic [PhW+EntW-1:0] r_f_hold;
    logic [PhW-1:0] x;
    logic [EntW-1:0] e;
    logic [3:0] k;
    x = s;
    e = '0;
    k = s[FOpenE +: 4];
    if (s[FOpen +: 2] == OpF1) begin
      if (!ex) begin
        r_f_hold = f_hold(s, etm_pkg::hdr_f1(k, 1'b1), 5'(k) + 5'd1, 8'd0);
        {x, e} = r_f_hold;
        x[FOpen +: 2] = OpNone;
        x[FOpenE +: 4] = 4'd0;
      end else if (k < 4'd15) begin
        x[FOpenE +: 4] = k + 4'd1;
      end else begin
        r_f_close_open = f_close_open(s, 1'b0);
        {x, e} = r_f_close_open;
        x[FOpen +: 2] = OpF1;
        x[FOpenE +: 4] = 4'd1;
      end
    end else if (s[FOpen +: 2] == OpN) begin
      r_f_hold = f_hold(s, etm_pkg::hdr_f2(1'b0, ex), 5'd2, 8'd0);
      {x, e} = r_f_hold;
      x[FOpen +: 2] = OpNone;
    end else begin
      x[FOpen +: 2] = ex ? OpF1 : OpN;
      x[FOpenE +: 4] = {3'd0, ex};
    end
    f_nca_atom = {x, e};
  endfunction

  // ph_cycle with the ETM-M3's packing (PH_PACKING=1, cycle_m3): one atom. Format 1
  // only: E atoms into the open header, which closes at an N (E..E N, or N alone)
  // or at 15 E and goes out at once. (Nothing is held in this packing: the header
  // close_open holds is pushed by the close that made it.)
  function automatic logic [PhW+EntW-1:0] f_m3_atom(input logic [PhW-1:0] s, input logic ex);
    logic [PhW-1:0] x;
    logic [EntW-1:0] e;
    logic [3:0] k;
    x = s;
    e = '0;
    k = (s[FOpen +: 2] == OpF1) ? s[FOpenE +: 4] : 4'd0;
    if (ex && k < 4'd14) begin
      x[FOpen +: 2] = OpF1;
      x[FOpenE +: 4] = k + 4'd1;
    end else begin
      e = ent(KHdr, etm_pkg::hdr_f1(ex ? 4'd15 : k, !ex), 8'd0);
      x[FSingle] = !ex && k == 4'd0;
      x[FOpen +: 2] = OpNone;
      x[FOpenE +: 4] = 4'd0;
    end
    f_m3_atom = {x, e};
  endfunction

  // ph_cycle without cycle accuracy: the held header (a newer atom), then the atoms
  // (m3: the ETM-M3's packing).
  function automatic logic [PhW+6*EntW-1:0] f_nca(input logic [PhW-1:0] s, input logic m3, input logic two,
                                                  input logic a, input logic b);
    logic [PhW+EntW-1:0] r_f_nca_atom;
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW-1:0] x;
    logic [6*EntW-1:0] es;
    es = '0;
    r_f_push_held = f_push_held(s);
    {x, es[0 +: EntW]} = r_f_push_held;
    r_f_nca_atom = m3 ? f_m3_atom(x, a) : f_nca_atom(x, a);
    {x, es[EntW +: EntW]} = r_f_nca_atom;
    if (two) begin
      r_f_nca_atom = m3 ? f_m3_atom(x, b) : f_nca_atom(x, b);
      {x, es[2*EntW +: EntW]} = r_f_nca_atom;
    end
    f_nca = {x, es};
  endfunction

  // ph_cycle, cycle-accurate, no atom: this cycle's W.
  function automatic logic [PhW+6*EntW-1:0] f_ca0(input logic [PhW-1:0] s);
    logic [PhW+EntW-1:0] r_f_close_open;
    logic [PhW+2*EntW-1:0] r_f_run_wrap;
    logic [PhW-1:0] x;
    logic [6*EntW-1:0] es;
    x = s;
    es = '0;
    if (s[FWdebt +: 8] != 8'd0) begin  // this cycle's W was sent early
      x[FWdebt +: 8] = s[FWdebt +: 8] - 8'd1;
    end else begin
      r_f_close_open = f_close_open(s, 1'b1);
      {x, es[0 +: EntW]} = r_f_close_open;
      if (x[FWrun +: 32] != RunMax) x[FWrun +: 32] = x[FWrun +: 32] + 32'd1;
      else begin
        r_f_run_wrap = f_run_wrap(x);
        {x, es[EntW +: 2*EntW]} = r_f_run_wrap;
      end
    end
    f_ca0 = {x, es};
  endfunction

  // ph_cycle, cycle-accurate, one atom.
  function automatic logic [PhW+32+6*EntW-1:0] f_ca1(input logic [PhW-1:0] s, input logic ex);
    logic [PhW+EntW-1:0] r_f_close_open;
    logic [PhW+32+4*EntW-1:0] r_f_flush_run;
    logic [PhW+EntW-1:0] r_f_hold;
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW-1:0] x;
    logic [6*EntW-1:0] es;
    logic [31:0] cc, w;
    logic [3:0] k;
    logic done;
    x = s;
    es = '0;
    cc = 32'd0;
    done = 1'b0;
    if (s[FWrun +: 32] != 32'd0) begin
      if (s[FWrun +: 32] > 32'(etm_defs_pkg::LongRun) || !ex) begin
        r_f_flush_run = f_flush_run(s);
        {x, cc, es[0 +: 4*EntW]} = r_f_flush_run;
      end else begin
        // n idle cycles, then this cycle's W and its E: format 3 headers, the last
        // with the E; a last one of just W E opens a format 1 header instead.
        r_f_push_held = f_push_held(s);
        {x, es[0 +: EntW]} = r_f_push_held;
        w = s[FWrun +: 32] + 32'd1;
        for (int i = 1; i < 4; i++) begin
          if (w > 32'd8) begin
            es[i*EntW +: EntW] = ent(KHdr, etm_pkg::hdr_f3(4'd8, 1'b0), 8'd8);
            x[FSingle] = 1'b0;
            w = w - 32'd8;
          end
        end
        x[FWrun +: 32] = 32'd0;
        if (w == 32'd1) begin
          x[FOpen +: 2] = OpF1;
          x[FOpenE +: 4] = 4'd1;
        end else begin
          r_f_hold = f_hold(x, etm_pkg::hdr_f3(w[3:0], 1'b1), 5'd1, w[7:0]);
          {x, es[4*EntW +: EntW]} = r_f_hold;
        end
        done = 1'b1;
      end
    end
    if (!done) begin
      k = x[FOpenE +: 4];
      if (x[FOpen +: 2] == OpF1) begin
        if (!ex) begin
          r_f_hold = f_hold(x, etm_pkg::hdr_f1(k, 1'b1), 5'(k) + 5'd1, 8'(k) + 8'd1);
          {x, es[4*EntW +: EntW]} = r_f_hold;
          x[FOpen +: 2] = OpNone;
          x[FOpenE +: 4] = 4'd0;
        end else if (k < 4'd7) begin
          x[FOpenE +: 4] = k + 4'd1;
        end else begin
          r_f_close_open = f_close_open(x, 1'b1);
          {x, es[4*EntW +: EntW]} = r_f_close_open;
          x[FOpen +: 2] = OpF1;
          x[FOpenE +: 4] = 4'd1;
        end
      end else begin
        r_f_push_held = f_push_held(x);
        {x, es[4*EntW +: EntW]} = r_f_push_held;
        if (ex) begin
          x[FOpen +: 2] = OpF1;
          x[FOpenE +: 4] = 4'd1;
        end else begin
          r_f_hold = f_hold(x, etm_pkg::hdr_f1(4'd0, 1'b1), 5'd1, 8'd1);
          {x, es[5*EntW +: EntW]} = r_f_hold;
        end
      end
    end
    f_ca1 = {x, cc, es};
  endfunction

  // close_open, flush_run, then hold h: a header whose atoms follow the W run.
  function automatic logic [PhW+32+6*EntW-1:0] f_flush_hold(input logic [PhW-1:0] s, input logic [7:0] h,
                                                            input logic [4:0] atoms, input logic [7:0] w);
    logic [PhW+EntW-1:0] r_f_close_open;
    logic [PhW+32+4*EntW-1:0] r_f_flush_run;
    logic [PhW+EntW-1:0] r_f_hold;
    logic [PhW-1:0] x;
    logic [6*EntW-1:0] es;
    logic [31:0] cc;
    es = '0;
    r_f_close_open = f_close_open(s, 1'b1);
    {x, es[0 +: EntW]} = r_f_close_open;
    r_f_flush_run = f_flush_run(x);
    {x, cc, es[EntW +: 4*EntW]} = r_f_flush_run;
    r_f_hold = f_hold(x, h, atoms, w);
    {x, es[5*EntW +: EntW]} = r_f_hold;
    f_flush_hold = {x, cc, es};
  endfunction

  // ph_cycle: the cycle's W (cycle-accurate) and its atoms (0, 1 or 2); with
  // atoms, the held header goes first (a newer atom: it can no longer be
  // cancelled), so the first entry of each form below, which pushes the held
  // header again, is never valid after it and holds that push.
  function automatic logic [PhW+32+6*EntW-1:0] f_cycle(input logic [PhW-1:0] s, input logic ca, input logic m3,
                                                       input logic [1:0] natoms, input logic a, input logic b);
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW+6*EntW-1:0] r_f_ca0;
    logic [PhW+32+6*EntW-1:0] r_f_ca1;
    logic [PhW+32+6*EntW-1:0] r_f_flush_hold;
    logic [PhW+6*EntW-1:0] r_f_nca;
    logic [PhW-1:0] x, y;
    logic [EntW-1:0] e0;
    logic [6*EntW-1:0] es;
    logic [31:0] cc;
    cc = 32'd0;
    y = s;
    e0 = '0;
    if (natoms != 2'd0) begin
      r_f_push_held = f_push_held(s);
      {y, e0} = r_f_push_held;
    end
    // (Only the form that applies is evaluated: the simulator runs this every cycle.)
    if (!ca && natoms == 2'd0) begin
      {x, es} = {y, {6*EntW{1'b0}}};
    end else if (!ca) begin
      r_f_nca = f_nca(y, m3, natoms == 2'd2, a, b);
      {x, es} = r_f_nca;
    end else if (natoms == 2'd0) begin
      r_f_ca0 = f_ca0(y);
      {x, es} = r_f_ca0;
    end else if (natoms == 2'd1) begin
      r_f_ca1 = f_ca1(y, a);
      {x, cc, es} = r_f_ca1;
    end else begin  // two atoms: format 2 with its W
      r_f_flush_hold = f_flush_hold(y, etm_pkg::hdr_f2(a, b), 5'd2, 8'd1);
      {x, cc, es} = r_f_flush_hold;
    end
    if (natoms != 2'd0) es[0 +: EntW] = e0;
    f_cycle = {x, cc, es};
  endfunction

  // ph_idle: n idle cycles (the W atoms sent early taken back first).
  function automatic logic [PhW+3*EntW-1:0] f_idle(input logic [PhW-1:0] s, input logic [31:0] n);
    logic [PhW+EntW-1:0] r_f_close_open;
    logic [PhW+2*EntW-1:0] r_f_run_wrap;
    logic [PhW-1:0] x;
    logic [3*EntW-1:0] es;
    logic [31:0] m, d, room;
    x = s;
    es = '0;
    d = ({24'd0, s[FWdebt +: 8]} < n) ? {24'd0, s[FWdebt +: 8]} : n;
    x[FWdebt +: 8] = s[FWdebt +: 8] - d[7:0];
    m = n - d;
    if (m != 32'd0) begin
      r_f_close_open = f_close_open(x, 1'b1);
      {x, es[0 +: EntW]} = r_f_close_open;
      room = RunMax - x[FWrun +: 32];
      if (m <= room) begin
        x[FWrun +: 32] = x[FWrun +: 32] + m;
      end else begin
        // A count field holds 32 bits: the full run goes out, another starts.
        m = m - room - 32'd1;
        r_f_run_wrap = f_run_wrap(x);
        {x, es[EntW +: 2*EntW]} = r_f_run_wrap;
        x[FWrun +: 32] = 32'd1 + m;
      end
    end
    f_idle = {x, es};
  endfunction

  // split (isolate_last): the prefix header, an Ignore after a one-atom header,
  // then hold the last atom alone.
  function automatic logic [PhW+2*EntW-1:0] f_split(input logic [PhW-1:0] s, input logic have_prefix,
                                                    input logic [7:0] prefix, input logic [4:0] pa,
                                                    input logic [7:0] pw, input logic [7:0] last,
                                                    input logic [7:0] lw);
    logic [PhW-1:0] x;
    logic [EntW-1:0] e0, e1;
    x = s;
    e0 = '0;
    e1 = '0;
    if (have_prefix) begin
      e0 = ent(KHdr, prefix, pw);
      x[FSingle] = (pa == 5'd1);
    end
    if (x[FSingle]) begin
      e1 = ent(KIgnore, 8'd0, 8'd0);
      x[FSingle] = 1'b0;
    end
    x[FHeld +: 8] = last;
    x[FHeldA +: 5] = 5'd1;
    x[FHeldW +: 8] = lw;
    f_split = {x, e1, e0};
  endfunction

  // isolate_last (ETMCANCEL): the cancelled atom alone in the held header.
  // Returns {state, separated, entries}.
  function automatic logic [PhW+1+3*EntW-1:0] f_isolate(input logic [PhW-1:0] s, input logic ca,
                                                         input logic format4);
    logic [PhW+EntW-1:0] r_f_push_held;
    logic [PhW+2*EntW-1:0] r_f_split;
    logic [PhW-1:0] x;
    logic [3*EntW-1:0] es;
    logic ok, a, b, n;
    logic [3:0] k, e;
    logic [7:0] h;
    x = s;
    es = '0;
    ok = 1'b1;
    k = s[FOpenE +: 4];
    h = s[FHeld +: 8];
    if (s[FOpen +: 2] == OpF1) begin
      x[FOpen +: 2] = OpNone;
      x[FOpenE +: 4] = 4'd0;
      r_f_push_held = f_push_held(x);
      {x, es[0 +: EntW]} = r_f_push_held;
      r_f_split = f_split(x, k > 4'd1, etm_pkg::hdr_f1(k - 4'd1, 1'b0), 5'(k) - 5'd1,
                                        ca ? 8'(k) - 8'd1 : 8'd0, etm_pkg::hdr_f1(4'd1, 1'b0), {7'd0, ca});
      {x, es[EntW +: 2*EntW]} = r_f_split;
    end else if (s[FOpen +: 2] == OpN) begin
      x[FOpen +: 2] = OpNone;
      r_f_push_held = f_push_held(x);
      {x, es[0 +: EntW]} = r_f_push_held;
      r_f_split = f_split(x, 1'b0, 8'd0, 5'd0, 8'd0, etm_pkg::hdr_f1(4'd0, 1'b1), 8'd0);
      {x, es[EntW +: 2*EntW]} = r_f_split;
    end else if (h == 8'd0 || s[FHeldA +: 5] == 5'd0) begin
      ok = 1'b0;
    end else begin
      x[FHeld +: 8] = 8'd0;
      a = !h[3];
      b = !h[2];
      n = h[6];
      e = ca ? {1'b0, h[4:2]} : h[5:2];
      if (h[1:0] == 2'b10) begin
        if (h[7:4] == 4'h9) begin  // format 4: one atom
          r_f_split = f_split(x, 1'b0, 8'd0, 5'd0, 8'd0, h, 8'd0);
          {x, es[EntW +: 2*EntW]} = r_f_split;
        end else if (!ca) begin  // format 2: two atoms a, b
          r_f_split = f_split(x, 1'b1, etm_pkg::hdr_f1({3'd0, a}, !a), 5'd1, 8'd0,
                                            etm_pkg::hdr_f1({3'd0, b}, !b), 8'd0);
          {x, es[EntW +: 2*EntW]} = r_f_split;
        end else if (!format4) begin  // cannot be separated without format 4
          x[FHeld +: 8] = h;
          ok = 1'b0;
        end else begin
          r_f_split = f_split(x, 1'b1, etm_pkg::hdr_f1({3'd0, a}, !a), 5'd1, 8'd1,
                                            etm_pkg::hdr_f4(b), 8'd0);
          {x, es[EntW +: 2*EntW]} = r_f_split;
        end
      end else if (ca && h[5]) begin  // format 3: W..W E, one atom
        r_f_split = f_split(x, 1'b0, 8'd0, 5'd0, 8'd0, h, s[FHeldW +: 8]);
        {x, es[EntW +: 2*EntW]} = r_f_split;
      end else if (n) begin  // format 1, E..E N: the N is last
        r_f_split = f_split(x, e != 4'd0, etm_pkg::hdr_f1(e, 1'b0), {1'b0, e},
                                          ca ? {4'd0, e} : 8'd0, etm_pkg::hdr_f1(4'd0, 1'b1), {7'd0, ca});
        {x, es[EntW +: 2*EntW]} = r_f_split;
      end else begin
        r_f_split = f_split(x, e > 4'd1, etm_pkg::hdr_f1(e - 4'd1, 1'b0), 5'(e) - 5'd1,
                                          ca ? 8'(e) - 8'd1 : 8'd0, etm_pkg::hdr_f1(4'd1, 1'b0), {7'd0, ca});
        {x, es[EntW +: 2*EntW]} = r_f_split;
      end
    end
    f_isolate = {x, ok, es};
  endfunction

  // ph_atom_nowait: slot 1's atom right after its branch packet. Returns
  // {state, cycle count value, entries}.
  function automatic logic [PhW+32+6*EntW-1:0] f_nowait(input logic [PhW-1:0] s, input logic ca,
                                                        input logic m3, input logic format4, input logic ex);
    logic [PhW+32+6*EntW-1:0] r_f_cycle;
    logic [PhW+32+6*EntW-1:0] r_f_flush_hold;
    logic [PhW+6*EntW-1:0] r_f_nca;
    logic [PhW-1:0] x;
    logic [6*EntW-1:0] es;
    logic [31:0] cc;
    cc = 32'd0;
    es = '0;
    if (!ca) begin
      r_f_nca = f_nca(s, m3, 1'b0, ex, 1'b0);
      {x, es} = r_f_nca;
    end else if (!format4) begin
      r_f_cycle = f_cycle(s, 1'b1, 1'b0, 2'd1, ex, 1'b0);
      {x, cc, es} = r_f_cycle;
      if (x[FWdebt +: 8] != 8'd255) x[FWdebt +: 8] = x[FWdebt +: 8] + 8'd1;
    end else begin  // format 4 after the W run
      r_f_flush_hold = f_flush_hold(s, etm_pkg::hdr_f4(ex), 5'd1, 8'd0);
      {x, cc, es} = r_f_flush_hold;
    end
    f_nowait = {x, cc, es};
  endfunction

endpackage
