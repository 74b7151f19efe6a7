#!/usr/bin/env python3
"""etm check and etm run give the same verdict on the same stimulus: the same
violations of the same rules, the programmer's model's (APB_*) among them;
and every rule etm check --rules lists is one it can report. Stimuli: etm gen
--reprogram (a debugger's illegal accesses: a write while locked, to a
read-only register, where nothing is), the same with interface rules broken
by hand, and a real program's recording (none).

    check_run.py ETM REAL_STIMULUS WORKDIR
"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import expect, finish  # noqa: E402

etm, real, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
os.chdir(work)


subprocess.run([etm, "gen", "--cycles", "30000", "--seed", "4", "--reprogram", "4000", "rp.vec"], check=True)
# Interface rules broken too: ETMIBRANCH without ETMIVALID in some cycles.
lines = open("rp.vec").read().splitlines()
cols = next(l for l in lines if l.startswith("columns")).split()[1:]
ib, iv = cols.index("ETMIBRANCH"), cols.index("ETMIVALID")
out, broken = [], 0
for l in lines:
    f = l.split()
    if f and f[0].isdigit() and len(f) == len(cols) and broken < 25 and int(f[0]) % 997 == 5 and f[iv] == "0":
        f[ib] = "1"
        l = " ".join(f)
        broken += 1
    out.append(l)
open("rpb.vec", "w").write("\n".join(out) + "\n")

for stim in ("rp.vec", "rpb.vec", real):
    c = subprocess.run([etm, "check", "--warn", "--json", "--max-report", "0", stim], capture_output=True, text=True)
    cj = json.loads(c.stdout)
    r = subprocess.run([etm, "run", "--json", stim], capture_output=True, text=True)
    rj = json.loads(r.stdout)
    runs = collections.Counter(m.group(1) for m in re.finditer(r": cycle \d+: ([A-Z0-9_]+)", r.stderr))
    checks = collections.Counter({k: v for k, v in cj["rules"].items()})
    name = os.path.basename(stim)
    expect(cj["violations"] == rj["stats"]["violations"] and runs == checks,
           "%s: check %d violations %s, run %d %s" % (name, cj["violations"], dict(checks),
                                                       rj["stats"]["violations"], dict(runs)))
    if name != os.path.basename(real):
        expect(any(k.startswith("APB_") for k in checks), "%s: APB rules among them" % name)
expect("IBRANCH_WITHOUT_IVALID" in json.loads(subprocess.run([etm, "check", "--warn", "--json", "rpb.vec"],
                                                             capture_output=True, text=True).stdout)["rules"],
       "the interface rule broken by hand is reported")

# Every rule listed is reported by some stimulus the checker can be given:
# each one the stimuli above fired is in the list, and the list is rules.def's.
listed = [l.split()[0] for l in subprocess.run([etm, "check", "--rules"], capture_output=True,
                                               text=True).stdout.splitlines() if l.strip()]
expect(all(k in listed for k in ("APB_LOCKED", "APB_READ_ONLY", "APB_UNMAPPED", "IBRANCH_WITHOUT_IVALID")),
       "etm check --rules lists the rules it reported (%d listed)" % len(listed))
finish()
