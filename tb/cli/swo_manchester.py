#!/usr/bin/env python3
"""etm swo --manchester, etm decode --manchester and etm verify --manchester
on a logic analyzer's capture of a Manchester SWO pin. The capture is drawn by
this script (tb/cli/srline.py, from the code's definition, not from the
decoder) from the bytes the model's TPIU sent in Manchester mode (etm run
--tpiu manchester:3 --hold --trace), cut into packets of 1 to 3 bytes with idle gaps,
the line 1 % slow, sampled at 24 MHz; the reader must give back exactly those
bytes, at the nominal rate and with --baud auto, and the ETM's trace in them
must decode and verify as the TPIU's own output does.

    swo_manchester.py ETM STIMULUS CONFIG WORKDIR
"""
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import expect, finish  # noqa: E402
from srline import manchester_line, write_capture  # noqa: E402

etm, stim, config, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
os.chdir(work)


def run(args, rc=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != rc:
        print("exit %d (want %d): %s\n%s%s" % (p.returncode, rc, " ".join(args), p.stdout, p.stderr))
        sys.exit(1)
    return p


# The model's TPIU in Manchester mode: the bytes its own receiver read off the pin.
# The core held while the slow line drains (ETMCR[7], ETMFFLR 24): nothing lost.
sets = ["--set", "ETMTRACEIDR=0x15", "--set", "ETMCR=0x890", "--set", "ETMFFLR=0x18"]
out = run([etm, "run", "--hold", "--tpiu", "manchester:3"] + sets + ["--trace", "tpiu.bin", stim]).stdout
expect("overflows 0 " in out, "the model's run through the Manchester TPIU loses nothing")
sent = open("tpiu.bin", "rb").read()
expect(len(sent) > 200, "the TPIU sent %d bytes" % len(sent))

# Its capture: 2 Mbaud nominal, the line 1 % slow, 24 MHz sampling (12 samples a bit).
rng = random.Random(7)
packets, i = [], 0
while i < len(sent):
    k = rng.randint(1, 3)
    packets.append(sent[i:i + k])
    i += k
gaps = [1 + rng.random() * 3 for _ in packets]
T = 24e6 / 2e6 * 1.01
n = int(40 + sum((1 + 8 * len(p) + g) * T for p, g in zip(packets, gaps)) + 40)
lv, starts = manchester_line(n, 30.3, T, packets, gaps)
write_capture("manch.sr", lv)

for baud in ("2M", "auto"):
    p = run([etm, "swo", "--manchester", "--baud", baud, "--out", "got.bin", "--json", "manch.sr"])
    import json
    j = json.loads(p.stdout)
    got = open("got.bin", "rb").read()
    expect(got == sent, "--baud %s: the capture gives back the TPIU's %d bytes (%d)" % (baud, len(sent), len(got)))
    expect(j["protocol"] == "manchester" and j["framing_errors"] == 0 and j["glitches"] == 0,
           "--baud %s: no framing error, no glitch (%s, %d, %d)" % (baud, j["protocol"], j["framing_errors"],
                                                                     j["glitches"]))
    expect(abs(j["measured_baud"] / 2e6 * 1.01 - 1) < 0.002,
           "--baud %s: the line measured at %.0f baud (%.0f drawn)" % (baud, j["measured_baud"], 2e6 / 1.01))
p = run([etm, "swo", "--manchester", "--list", "--baud", "2M", "manch.sr"])
firsts = [int(l.split()[0]) for l in p.stdout.splitlines() if l.strip() and l.split()[0].isdigit()]
expect(len(firsts) == len(sent) and all(firsts[sum(len(q) for q in packets[:k])] == s
                                         for k, s in enumerate(starts)),
       "each packet's first byte listed at the sample its start bit begins")

# NRZ reading of the same pin finds nothing it can trust.
p = run([etm, "swo", "--baud", "2M", "manch.sr"], rc=1)
expect("framing errors" in p.stdout, "read as NRZ, the pin gives framing errors")

# The ETM's trace in it, as the TPIU's output decodes.
ref = run([etm, "decode", "--config", config, "--coresight", "--id", "0x15", "--no-elements", "--stats", "tpiu.bin"])
dec = run([etm, "decode", "--config", config, "--manchester", "--baud", "2M", "--id", "0x15", "--no-elements",
           "--stats", "manch.sr"])
a = re.search(r"atoms (\d+)", ref.stdout)
b = re.search(r"atoms (\d+)", dec.stdout)
expect(a and b and a.group(1) == b.group(1) and int(a.group(1)) > 1000,
       "etm decode --manchester: %s atoms, the TPIU's output %s" % (b and b.group(1), a and a.group(1)))
v = run([etm, "verify", "--manchester", "--id", "0x15"] + sets + [stim, "manch.sr"])
expect("the trace is right" in v.stdout, "etm verify --manchester: %s" % v.stdout.strip().splitlines()[-1])

finish()
