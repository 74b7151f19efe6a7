#!/usr/bin/env python3
"""e2e.selftrace: a program that programs its own ETM (workloads/programs/
selftrace.c) traces exactly what it chose to trace.

QEMU runs it (etm-qemu record: every executed instruction); etm-qemu
stimulus --apb drives its stores to the ETM on the ETM's APB; etm run
--at-reset runs the etm-m3 preset from reset, programmed only by those stores.
The project's decoder must read the trace to exactly the instructions QEMU
executed after the store that clears ETMCR[10], up to and including the one
that sets it (the sort kernel), each E or N as executed; the RTL in lockstep
from reset on the same stimulus must agree cycle for cycle.

usage: selftrace.py ETM ETM_QEMU ETM_COSIM WORKDIR
"""
import os
import re
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("selftrace: %s failed (exit %d)" % (" ".join(cmd[:2]), r.returncode))
    return r


def main():
    if len(sys.argv) != 5:
        raise SystemExit(__doc__.split("\n\n")[-1].strip())
    etm, qemu_tool, cosim, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    p = lambda n: os.path.join(work, n)
    run([qemu_tool, "record", "selftrace", "-o", p("record.txt")])
    run([qemu_tool, "stimulus", "--apb", "selftrace", p("stimulus.vec")])
    run([etm, "run", "--quiet", "--at-reset", "--trace", p("trace.bin"), p("stimulus.vec")])
    elf = None
    for line in open(p("stimulus.vec")):
        m = re.match(r"# (\S+selftrace\.elf) under", line)
        if m:
            elf = m.group(1)
            break
    if not elf:
        raise SystemExit("selftrace: the stimulus does not name its program")

    # QEMU's instructions between the two ETMCR stores (0x810 clears the
    # programming bit, 0xC10 sets it; the record shows device stores as io).
    executed, tracing, stores = [], False, 0
    for line in open(p("record.txt")):
        if line.startswith("#"):
            continue
        f = line.split()
        etmcr = any(x.startswith("w=e0041000:") for x in f[4:])
        if tracing:
            executed.append((f[0], f[3]))
        if etmcr:
            stores += 1
            if tracing:
                break
            if stores == 2:  # the first sets the programming bit, the second clears it
                tracing = True
    decoded = []
    for line in run([etm, "decode", "--image", elf, p("trace.bin")]).stdout.splitlines():
        f = line.split()
        if len(f) >= 4 and re.match(r"^[0-9a-f]{8}$", f[0]) and f[1] == "T32":
            decoded.append((f[0], next(x for x in f[2:] if x in ("E", "N"))))
    ok = True
    if not executed or decoded != executed:
        ok = False
        n = next((i for i in range(min(len(decoded), len(executed))) if decoded[i] != executed[i]),
                 min(len(decoded), len(executed)))
        print("FAIL: decoded %d instructions, QEMU executed %d between the stores; first difference at %d: %s / %s"
              % (len(decoded), len(executed), n, decoded[n:n + 1], executed[n:n + 1]))
    else:
        print("ok   the trace decodes to the %d instructions QEMU executed from %s to %s"
              % (len(executed), executed[0][0], executed[-1][0]))
    r = run([cosim, "--vectors", p("stimulus.vec"), "--at-reset", "--quiet"]).stdout
    if not re.search(r"lockstep: \d+ cycles, 0 mismatches", r):
        ok = False
        print("FAIL: the RTL in lockstep: %s" % r.strip())
    else:
        print("ok   the RTL in lockstep from reset: %s" % r.strip().splitlines()[0])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
