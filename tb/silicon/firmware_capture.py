#!/usr/bin/env python3
"""The STM32F105 capture against the model, the firmware programming its own ETM.

The capture (../shared/data/stm32f105-etm-m3): a real Cortex-M3 running
trace_example.elf, its SWO pin sampled by a logic analyzer. Here:

  1. the project reads the capture: `etm swo` decodes the pin as 8N1 UART;
     the CoreSight frames are taken apart by this script's own deformatter
     (independent of the project's), giving trace ID 2's 760 bytes in 8
     sessions of 95 (each starts with an A-sync); `etm decode --coresight`
     reads the same frames to 1200 instructions;
  2. the firmware runs under QEMU from its ELF (workloads/tool/etm_fwloop.py:
     the debug blocks QEMU lacks answered through its gdb stub); its stores
     to the TPIU, the ETM and the ITM are checked against its source, and the
     ITM's output ("Boot", "Sort", the sorted values);
  3. `etm-qemu stimulus --apb` turns the run into the ETM's interface and
     debug APB, the core held for each access to the private peripheral bus;
     `etm run --at-reset` runs the etm-m3 preset from reset, programmed only
     by the firmware's own stores;
  4. the model's sessions after boot (one per interrupt) against silicon's:
     five equal byte for byte; in three the part sent its trigger packet
     before the first P-header instead of after it (0c 84 for 84 0c at bytes
     12-13), the race docs/silicon.md describes, and they are otherwise equal;
  5. the project's decoder, and OpenCSD (trc_pkt_lister on a snapshot with the
     firmware's ETM registers, its trace swapped for each), read the model's
     sessions and silicon's to the same 1200 instructions; the RTL in lockstep
     from reset on the same stimulus agrees cycle for cycle (etm_cosim
     --at-reset);
  6. the whole path as the part has it: the TPIU as the firmware's stores
     program it (ACPR 0, SPPR 2: NRZ at the core clock; FFCR 0x102), its SWO
     pin read back by a receiver, its 4-byte queue (DEVID), and the closed
     loop (etm run --hold=3: the firmware's ETMCR[7] and ETMFFLR 24 hold the
     core, FIFOFULL reaching it 3 cycles after it rises): the ETM's bytes and
     the TPIU's trigger markers in the model's SWO stream, once the ITM's ID
     is left out (the model has no ITM), against the capture's, session by
     session; PC9's pulse around the sort against the part's, measured on
     the capture's probe 3; the RTL in lockstep with the core held.

usage: firmware_capture.py ETM ETM_QEMU ETM_COSIM PLUGIN DATA_DIR WORKDIR
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FWLOOP = os.path.join(HERE, "..", "..", "workloads", "tool", "etm_fwloop.py")
ASYNC = b"\x00\x00\x00\x00\x00\x80"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("firmware_capture: %s failed (exit %d)" % (os.path.basename(cmd[0]), r.returncode))
    return r


def frame_bytes(data):
    """CoreSight formatter frames of 16 bytes (IHI 0029 D4.2), the first at
    byte 0, no syncs (the SWO configuration sends none): (ID, byte) in order."""
    out, cur = [], None
    for f0 in range(0, len(data) - 15, 16):
        fr = data[f0:f0 + 16]
        aux = fr[15]
        for k in range(8):
            b = fr[2 * k]
            if b & 1:  # a new ID; bit k of the auxiliary byte: the next data byte is the old ID's
                new = b >> 1
                if k < 7:
                    if aux >> k & 1:
                        out.append((cur, fr[2 * k + 1]))
                        cur = new
                    else:
                        cur = new
                        out.append((cur, fr[2 * k + 1]))
                else:
                    cur = new
            else:
                out.append((cur, b | (aux >> k & 1)))
                if k < 7:
                    out.append((cur, fr[2 * k + 1]))
    return out


def deformat(data):
    """The frames' bytes per ID."""
    out = {}
    for i, b in frame_bytes(data):
        out.setdefault(i, bytearray()).append(b)
    return out


def etm_with_markers(data):
    """The frames' ID 2 bytes in order, with None where the TPIU put a
    trigger marker (ID 0x7D)."""
    return [None if i == 0x7D else b for i, b in frame_bytes(data) if i in (2, 0x7D)]


def marked_sessions(s):
    """Split at each A-sync (a marker may sit inside one): per session, its
    bytes and where its markers are (how many of its bytes come before each)."""
    data = bytes(x for x in s if x is not None)
    bounds = sessions_at(data, bounds=True)
    res = [(data[a:b], []) for a, b in bounds]
    n, j = 0, 0
    for x in s:
        if x is not None:
            n += 1
            continue
        while j + 1 < len(bounds) and n >= bounds[j + 1][0]:
            j += 1
        if bounds:
            res[j][1].append(n - bounds[j][0])
    return res


def sessions_at(b, bounds=False):
    at = []
    i = b.find(ASYNC)
    while i >= 0:
        at.append(i)
        i = b.find(ASYNC, i + len(ASYNC))
    pairs = [(at[j], at[j + 1] if j + 1 < len(at) else len(b)) for j in range(len(at))]
    return pairs if bounds else [b[x:y] for x, y in pairs]


def pc9_pulses(sr):
    """PC9 (probe 3) high times in the capture, in samples."""
    import zipfile
    z = zipfile.ZipFile(sr)
    meta = z.read("metadata").decode()
    rate = re.search(r"samplerate=(\d+) MHz", meta)
    names = sorted((n for n in z.namelist() if n.startswith("logic-1-")), key=lambda n: int(n.rsplit("-", 1)[1]))
    data = b"".join(z.read(n) for n in names)
    widths, prev, start = [], 0, None
    for i, v in enumerate(data):
        v = v >> 2 & 1
        if v and not prev:
            start = i
        elif prev and not v and start is not None:
            widths.append(i - start)
        prev = v
    return widths, int(rate.group(1)) * 1000000


def pulse_cycles(vcd, set_addr=0x800030C, clr_addr=0x8000316):
    """The cycles from the PC9-setting store to the clearing one, each time
    (ETMIVALID with ETMIA, clock by clock, in etm run's VCD)."""
    ivalid, ia, cyc, sets, out = 0, 0, -1, [], []
    with open(vcd) as f:
        for line in f:
            if line.startswith("1!"):
                cyc += 1
                if ivalid and ia == set_addr:
                    sets.append(cyc)
                elif ivalid and ia == clr_addr and sets:
                    out.append(cyc - sets[-1])
            elif line[0] == "b":
                v, code = line[1:].split()
                if code == "'":
                    ia = int(v, 2) << 1
            elif line[0] in "01" and line[1:].strip() == '"':
                ivalid = int(line[0])
    return out


def instructions(etm, trace, elf, coresight):
    cmd = [etm, "decode", "--image", elf] + (["--coresight", "--id", "2"] if coresight else []) + [trace]
    out = run(cmd).stdout
    return [l.split()[0] for l in out.splitlines() if re.match(r"^[0-9a-f]{8}  T32 ", l)]


def opencsd_ranges(snapshot, trace):
    """trc_pkt_lister's instruction ranges on the snapshot with trace.bin
    replaced, and the number of errors it reports."""
    with open(os.path.join(snapshot, "trace.bin"), "wb") as f:
        f.write(trace)
    out = run(["trc_pkt_lister", "-ss_dir", snapshot, "-decode", "-logstdout", "-logfilename", os.devnull]).stdout
    ranges = [m.group(1) for m in re.finditer(r"OCSD_GEN_TRC_ELEM_INSTR_RANGE\((exec range=[^)]*num_i\(\d+\))", out)]
    errors = len(re.findall(r"ERROR|ADDR_NACC|BAD_SEQUENCE", out))
    return ranges, errors, sum(int(x) for x in re.findall(r"num_i\((\d+)\)", " ".join(ranges)))


def main():
    if len(sys.argv) != 7:
        raise SystemExit(__doc__.split("\n\n")[-1].strip())
    etm, qemu_tool, cosim, plugin, data, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    elf = os.path.join(data, "trace_example.elf")
    p = lambda n: os.path.join(work, n)

    # 1. Silicon's bytes.
    run([etm, "swo", "--out", p("swo.bin"), os.path.join(data, "trace_example.sr")])
    swo = open(p("swo.bin"), "rb").read()
    ids = deformat(swo)
    cap = bytes(ids.get(2, b""))
    check(len(swo) == 7856, "the SWO pin carries 7856 bytes (%d)" % len(swo))
    check(len(ids.get(0x7D, b"")) == 8, "8 trigger markers (ID 0x7D) among the frames (%d)" % len(ids.get(0x7D, b"")))
    cs = sessions_at(cap)
    check(len(cap) == 760 and [len(s) for s in cs] == [95] * 8,
          "ID 2: 760 bytes in 8 sessions of 95 (%d: %s)" % (len(cap), [len(s) for s in cs]))
    cap_insns = instructions(etm, p("swo.bin"), elf, True)
    check(len(cap_insns) == 1200, "etm decode --coresight reads the capture to 1200 instructions (%d)" % len(cap_insns))
    # The pin itself: etm decode --swo reads the sigrok file (UART at the
    # rate it measures, the frames, ID 2; the ITM's ID 1 skipped).
    st = run([etm, "decode", "--swo", "--id", "2", "--set", "ETMCR=0x980", "--image", elf, "--no-elements", "--stats",
              os.path.join(data, "trace_example.sr")]).stdout
    check("bytes 760, instructions 1200" in st and "TRIGGER 8" in st,
          "etm decode --swo reads the capture's pin to 760 bytes, 1200 instructions, 8 triggers: %s" %
          st.strip().splitlines()[0] if st.strip() else "")

    # 2. The firmware under QEMU.
    run([sys.executable, FWLOOP, "--plugin", plugin, "--elf", elf, "--raw", p("fw.raw"), "--log", p("fw.log")])
    log = open(p("fw.log")).read().splitlines()
    stores = [(int(l.split()[3], 16), int(l.split()[5], 16)) for l in log if not l.startswith("#") and l.split()[2] == "W"]
    expect = [(0xE0040010, 0), (0xE00400F0, 2), (0xE0040304, 0x102),          # TPIU ACPR, SPPR, FFCR
              (0xE0041FB0, 0xC5ACCE55), (0xE0041000, 0x411), (0xE0041000, 0x980),  # ETM unlock, ETMCR
              (0xE0041200, 2), (0xE0041024, 0x01000000), (0xE0041028, 0x01000000),  # TRACEIDR, TECR1, FFRR
              (0xE004102C, 24)]                                                  # FFLR
    cfg = [s for s in stores if 0xE0040000 <= s[0] <= 0xE0041FFF]
    check(cfg[:len(expect)] == expect, "the firmware's TPIU and ETM stores, from reset: %s" %
          ", ".join("%08X=%X" % s for s in cfg[:len(expect)]))
    cr = [v for a, v in cfg[len(expect):] if a == 0xE0041000]
    check(cr == [0x980, 0xD80] * 9, "each of 9 interrupts writes ETMCR 0x980 then 0xD80")
    itm = {int(l.split()[2]): l.split(" ", 3)[3] for l in log if l.startswith("# itm ")}
    check(itm.get(0, "").startswith("BootOnOff") and itm.get(1) == "Sort[2][2][11][35][235]" * 9,
          "the ITM: port 0 %r, port 1 %r" % (itm.get(0, "")[:12], itm.get(1, "")[:24]))

    # 3. Its stimulus, and the model from reset.
    st = run([qemu_tool, "stimulus", "--apb", "--raw", p("fw.raw"), elf, p("fw.vec")]).stderr
    check("44 accesses on its APB, the TPIU's 3; not driven: 0 stores whose value the recording lacks, 0 accesses"
          in st, "44 accesses to the ETM and 3 to the TPIU driven on the APB, none left out")
    run([etm, "run", "--quiet", "--at-reset", "--trace", p("model.bin"), p("fw.vec")])
    model = open(p("model.bin"), "rb").read()
    ms = sessions_at(model)

    # 4. Session by session.
    check(len(ms) >= 9, "the model's trace: boot, then one session an interrupt (%d sessions)" % len(ms))
    last = ms[-8:]
    exact = [j for j in range(8) if last[j] == cs[j]]
    swapped = [j for j in range(8) if j not in exact and len(last[j]) == len(cs[j]) and
               cs[j][12:14] == b"\x0c\x84" and last[j][12:14] == b"\x84\x0c" and
               last[j][:12] + last[j][14:] == cs[j][:12] + cs[j][14:]]
    check(exact == [0, 2, 3, 5, 6], "sessions equal to silicon's byte for byte: %s" % [j + 1 for j in exact])
    check(swapped == [1, 4, 7], "sessions equal but for the trigger before the first P-header: %s" %
          [j + 1 for j in swapped])
    open(p("model_sessions.bin"), "wb").write(b"".join(last))

    # 5. Decoded, and the RTL.
    model_insns = instructions(etm, p("model_sessions.bin"), elf, False)
    check(model_insns == cap_insns, "the model's sessions decode to silicon's 1200 instructions (%d)" %
          len(model_insns))
    # OpenCSD: a snapshot of the firmware's ETM (its ETMCR, ETMFFLR, trace ID) and code.
    run([etm, "snapshot", "--set", "ETMCR=0x980", "--set", "ETMFFLR=0x18", "--set", "ETMTRACEIDR=0x2",
         "--image", elf, p("fw.vec"), p("snapshot")])
    cap_r, cap_err, cap_n = opencsd_ranges(p("snapshot"), cap)
    mod_r, mod_err, mod_n = opencsd_ranges(p("snapshot"), b"".join(last))
    check(cap_n == 1200 and cap_err == 0 and mod_r == cap_r and mod_err == 0,
          "OpenCSD reads silicon's trace to %d instructions (%d errors), the model's sessions to the same ranges: %s"
          % (cap_n, cap_err, mod_r == cap_r))
    # OpenCSD's own deformatter on the capture's SWO bytes (a snapshot of the
    # firmware's ETM through a TPIU on SWO, its trace.bin the capture's).
    run([etm, "snapshot", "--tpiu", "nrz:0", "--set", "ETMCR=0x980", "--set", "ETMFFLR=0x18", "--set",
         "ETMTRACEIDR=0x2", "--image", elf, p("fw.vec"), p("snapswo")])
    with open(p("snapswo/trace.bin"), "wb") as f:
        f.write(swo)
    lst = run(["trc_pkt_lister", "-ss_dir", p("snapswo"), "-decode", "-logstdout", "-logfilename", os.devnull]).stdout
    ocsd_bytes = sum(len(m.group(1).split()) for m in re.finditer(r"^Idx:\d+; ID:2; \[([^\]]*)\]", lst, re.M))
    ocsd_n = sum(int(x) for x in re.findall(r"OCSD_GEN_TRC_ELEM_INSTR_RANGE\(.*num_i\((\d+)\)", lst))
    check(ocsd_bytes == 760 and ocsd_n == 1200,
          "OpenCSD's deformatter finds the same 760 bytes of ID 2 in the capture's SWO bytes (%d), 1200 "
          "instructions (%d)" % (ocsd_bytes, ocsd_n))
    r = run([cosim, "--vectors", p("fw.vec"), "--at-reset", "--quiet"]).stdout
    check(re.search(r"lockstep: \d+ cycles, 0 mismatches", r) is not None,
          "the RTL in lockstep from reset: %s" % r.strip().splitlines()[0] if r.strip() else "no output")

    # 6. SWO as the firmware sets it up, and the closed loop. The TPIU starts
    # from the part's reset values (TPIU_SPPR 1: Manchester, TPIU_ACPR 0,
    # TPIU_FFCR 0x102; its 4-byte queue, DEVID) and the firmware's own three
    # stores, on the APB with PSELTPIU in the stimulus, set it up.
    tpiu = [v for a, v in cfg[:3]]  # ACPR, SPPR, FFCR as stored
    check(tpiu == [0, 2, 0x102], "the firmware sets the TPIU up: ACPR %s, SPPR %s, FFCR %s" %
          tuple("0x%x" % v for v in tpiu))
    spec = "manchester:0,ffcr=0x102,queue=4"
    out = run([etm, "run", "--at-reset", "--hold=3", "--tpiu", spec, "--trace", p("model_swo.bin"), "--vcd",
               p("hold.vcd"), p("fw.vec")]).stdout
    check("TPIU: SWO, NRZ at the core clock / 1" in out,
          "the TPIU as the firmware's stores program it: %s" %
          ([l for l in out.splitlines() if l.startswith("TPIU")] or ["no TPIU line"])[0])
    held = re.search(r"held by FIFOFULL in (\d+) cycles", out)
    check(held and int(held.group(1)) > 0 and "overflows 0 " in out,
          "--tpiu %s --hold: the core held in %s cycles, nothing lost" % (spec, held.group(1) if held else "?"))
    m_sw = marked_sessions(etm_with_markers(open(p("model_swo.bin"), "rb").read()))[-8:]
    c_sw = marked_sessions(etm_with_markers(swo))
    same = [j for j in range(8) if m_sw[j][0] == c_sw[j][0]]
    check(same == exact, "over SWO with the core held, the sessions equal to silicon's: %s" % [j + 1 for j in same])
    # The part's marker follows the session's first byte in 7 sessions and
    # comes just before it in the fourth: TRIGIN crosses into the TPIU's
    # clock through a synchroniser (trigdelay 2 clocks in the model).
    marks = [j for j in range(8) if m_sw[j][1] == c_sw[j][1]]
    check(all(m[1] == [1] for m in m_sw) and marks == [0, 1, 2, 4, 5, 6, 7] and c_sw[3][1] == [0],
          "each session's trigger marker follows its first byte; silicon's too but in session 4, one byte "
          "earlier: %s (silicon %s)" % ([m[1] for m in m_sw], [c[1] for c in c_sw]))
    widths, rate = pc9_pulses(os.path.join(data, "trace_example.sr"))
    # The part's clock: the SWO line's rate at ACPR 0 (etm swo measures it).
    line = float(re.search(r"runs at ([0-9.]+) Mbaud", run([etm, "swo", os.path.join(data, "trace_example.sr")]).stdout)
                 .group(1)) * 1e6
    part = [w * line / rate for w in widths]
    model_pulse = pulse_cycles(p("hold.vcd"))[-8:]
    ratio = sum(model_pulse) / sum(part) if part and model_pulse else 0
    print("     PC9 high: the part %s cycles, the model held %s" % ([round(x) for x in part], model_pulse))
    # The part raised PC9 before its session's first byte reached the pin: its
    # core ran on through the three instructions after the trace started while
    # those bytes waited; FIFOFULL reaching the core 3 cycles late does that
    # in the model (docs/silicon.md).
    start = pulse_cycles(p("hold.vcd"), 0x8000306, 0x800030C)[-8:]
    check(len(start) == 8 and max(start) <= 3,
          "from the first traced instruction to PC9's rise, the core not held: %s cycles" % start)
    check(len(part) == 8 and len(model_pulse) == 8 and 0.90 <= ratio <= 1.10,
          "PC9's pulse with the core held: the model's %.0f cycles against the part's %.0f (%+.0f %%)" %
          (sum(model_pulse) / 8, sum(part) / 8, 100 * (ratio - 1)))
    r = run([cosim, "--vectors", p("fw.vec"), "--at-reset", "--hold=3", "--tpiu", spec, "--set", "ETMTRACEIDR=0x2",
             "--quiet"]).stdout
    check(re.search(r"lockstep: \d+ cycles, 0 mismatches", r) is not None,
          "the RTL and its TPIU in lockstep with the core held: %s" % (r.strip().splitlines()[0] if r.strip() else ""))
    if failures:
        print("FAIL: %d checks" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
