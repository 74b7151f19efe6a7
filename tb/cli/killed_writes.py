#!/usr/bin/env python3
"""A command killed while it writes leaves the old output, or none: never
half of one. etm convert, etm run --trace and etm snapshot are each started
on a stimulus large enough to take a while, killed (SIGKILL, nothing can
clean up) once their output is being written, and the destination is
checked: the old bytes exactly where there were some, nothing where there
were none. Then each is run to the end and its output checked complete.

    killed_writes.py ETM WORKDIR
"""
import glob
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import expect, finish  # noqa: E402
import time

etm, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
os.chdir(work)


def kill_while_writing(args, pattern, what):
    """Start args; once a temporary matching pattern holds bytes (or a
    folder matching it holds a file with bytes), SIGKILL. Returns whether it
    was caught writing."""
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    caught = False
    t0 = time.time()
    while p.poll() is None and time.time() - t0 < 60:
        for t in glob.glob(pattern):
            if os.path.isdir(t):
                sizes = [os.path.getsize(os.path.join(t, f)) for f in os.listdir(t)
                         if os.path.isfile(os.path.join(t, f))]
                busy = any(sizes) or any(glob.glob(os.path.join(t, ".*.etm-*")))
            else:
                busy = os.path.getsize(t) > 0
            if busy:
                os.kill(p.pid, signal.SIGKILL)
                caught = True
                break
        if caught:
            break
        time.sleep(0.002)
    p.wait()
    expect(caught, "%s: killed while writing (exit %s)" % (what, p.returncode))
    return caught


for f in glob.glob(".*.etm-*") + glob.glob("*.etm-*"):
    subprocess.run(["rm", "-rf", f])
subprocess.run([etm, "gen", "--cycles", "600000", "--seed", "3", "big.vec"], check=True)
old = b"the old output\n"

# etm convert over an old file, and where there was none.
open("conv.vcd", "wb").write(old)
kill_while_writing([etm, "convert", "big.vec", "conv.vcd"], ".conv.vcd.etm-*", "etm convert big.vec conv.vcd")
expect(open("conv.vcd", "rb").read() == old, "etm convert killed: the old conv.vcd is left whole")
if os.path.exists("new.vcd"):
    os.unlink("new.vcd")
kill_while_writing([etm, "convert", "big.vec", "new.vcd"], ".new.vcd.etm-*", "etm convert big.vec new.vcd")
expect(not os.path.exists("new.vcd"), "etm convert killed: no new.vcd")

# etm run --trace
open("t.bin", "wb").write(old)
kill_while_writing([etm, "run", "--quiet", "--trace", "t.bin", "--out", "o.vec", "big.vec"], ".o.vec.etm-*",
                   "etm run --trace t.bin --out o.vec")
expect(open("t.bin", "rb").read() == old, "etm run killed: the old t.bin is left whole")
expect(not os.path.exists("o.vec"), "etm run killed: no o.vec")

# etm snapshot: into a new folder, and over an old one.
subprocess.run(["rm", "-rf", "snap"])
kill_while_writing([etm, "snapshot", "big.vec", "snap"], "snap.etm-*", "etm snapshot big.vec snap")
expect(not os.path.exists("snap"), "etm snapshot killed: no snap folder")
os.makedirs("oldsnap", exist_ok=True)
open("oldsnap/trace.bin", "wb").write(old)
open("oldsnap/snapshot.ini", "wb").write(old)
kill_while_writing([etm, "snapshot", "big.vec", "oldsnap"], "oldsnap.etm-*", "etm snapshot big.vec oldsnap")
expect(open("oldsnap/trace.bin", "rb").read() == old and open("oldsnap/snapshot.ini", "rb").read() == old,
       "etm snapshot killed: the old folder's files are left whole")

# To the end: complete outputs, and no temporaries left.
subprocess.run([etm, "convert", "big.vec", "conv.vcd"], check=True)
expect(open("conv.vcd", "rb").read().rstrip().endswith(b"#600000") or b"$enddefinitions" in open("conv.vcd", "rb").read(),
       "etm convert to the end: a whole VCD")
r = subprocess.run([etm, "convert", "conv.vcd", "back.vec"], capture_output=True, text=True)
expect(r.returncode == 0, "the VCD written reads back (%s)" % r.stderr.strip())
subprocess.run([etm, "run", "--quiet", "--trace", "t.bin", "big.vec"], check=True)
expect(open("t.bin", "rb").read() != old and os.path.getsize("t.bin") > 1000, "etm run to the end: t.bin replaced")
subprocess.run([etm, "snapshot", "big.vec", "oldsnap"], check=True, stdout=subprocess.DEVNULL)
expect(open("oldsnap/snapshot.ini", "rb").read() != old, "etm snapshot to the end: the folder's files replaced")
for f in glob.glob(".*.etm-*"):  # the killed runs' temporaries stay, named so
    os.unlink(f)
for d in glob.glob("*.etm-*"):
    subprocess.run(["rm", "-rf", d])

finish()
