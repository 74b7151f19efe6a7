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
     --at-reset).

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


def deformat(data):
    """CoreSight formatter frames of 16 bytes (IHI 0029 D4.2), the first at
    byte 0, no syncs (the SWO configuration sends none): bytes per ID."""
    out = {}
    cur = None
    for f0 in range(0, len(data) - 15, 16):
        fr = data[f0:f0 + 16]
        aux = fr[15]
        for k in range(8):
            b = fr[2 * k]
            if b & 1:  # a new ID; bit k of the auxiliary byte: the next data byte is the old ID's
                new = b >> 1
                if k < 7:
                    if aux >> k & 1:
                        out.setdefault(cur, bytearray()).append(fr[2 * k + 1])
                        cur = new
                    else:
                        cur = new
                        out.setdefault(cur, bytearray()).append(fr[2 * k + 1])
                else:
                    cur = new
            else:
                out.setdefault(cur, bytearray()).append(b | (aux >> k & 1))
                if k < 7:
                    out.setdefault(cur, bytearray()).append(fr[2 * k + 1])
    return out


def sessions(b):
    at = []
    i = b.find(ASYNC)
    while i >= 0:
        at.append(i)
        i = b.find(ASYNC, i + len(ASYNC))
    return [b[at[j]:at[j + 1] if j + 1 < len(at) else len(b)] for j in range(len(at))]


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
    cs = sessions(cap)
    check(len(cap) == 760 and [len(s) for s in cs] == [95] * 8,
          "ID 2: 760 bytes in 8 sessions of 95 (%d: %s)" % (len(cap), [len(s) for s in cs]))
    cap_insns = instructions(etm, p("swo.bin"), elf, True)
    check(len(cap_insns) == 1200, "etm decode --coresight reads the capture to 1200 instructions (%d)" % len(cap_insns))

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
    check("44 accesses on its APB; not driven: 0 stores whose value the recording lacks, 0 accesses" in st,
          "44 accesses to the ETM driven on its APB, none left out")
    run([etm, "run", "--quiet", "--at-reset", "--trace", p("model.bin"), p("fw.vec")])
    model = open(p("model.bin"), "rb").read()
    ms = sessions(model)

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
    r = run([cosim, "--vectors", p("fw.vec"), "--at-reset", "--quiet"]).stdout
    check(re.search(r"lockstep: \d+ cycles, 0 mismatches", r) is not None,
          "the RTL in lockstep from reset: %s" % r.strip().splitlines()[0] if r.strip() else "no output")
    if failures:
        print("FAIL: %d checks" % len(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
