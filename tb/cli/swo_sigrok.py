#!/usr/bin/env python3
"""etm swo against Debian's sigrok-cli (its uart decoder), which reads the same
capture independently: the same bytes in the same order, each starting at the
same sample, the same framing errors, the same glitches (start bits that read 1).

    swo_sigrok.py ETM SIGROK_CLI WORKDIR CAPTURE
        a real capture (the shared folder's STM32F105 SWO pin at 24 MHz, 8 Mbaud):
        also its figures (7,856 bytes, the first at sample 2418, no framing
        error) and the rate etm swo measures, against the one the spacing of
        sigrok's back-to-back bytes gives
    swo_sigrok.py ETM SIGROK_CLI WORKDIR
        captures this script writes (tb/cli/srline.py: deflated chunks), lines
        1 % off their nominal rate with idle gaps, a break, a glitch, the last
        byte cut by the end

The two decoders read a bit at the same sample when a bit lasts a whole number
of samples (etm/uart.h: edge + floor((2k+1)s/2); sigrok: ceil of its centre
estimate): the captures here do.
"""
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from srline import line, write_capture  # noqa: E402

etm, sigrok, work = sys.argv[1:4]
capture = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(work, exist_ok=True)
os.chdir(work)
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def ours(path, baud, channel="SWO"):
    """etm swo --list: [(start, value, framing_error)], and its --json figures."""
    args = [etm, "swo", path, "--channel", channel, "--baud", str(baud)]
    p = subprocess.run(args + ["--list", "--out", "ours.bin"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"etm swo {path}: exit {p.returncode}: {p.stderr.strip()}")
    rows = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\d+)\s+[\d.]+ us\s+0x([0-9a-f]{2})(  framing error)?$", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2), 16), m.group(3) is not None))
    j = json.loads(subprocess.run(args + ["--json"], capture_output=True, text=True).stdout)
    expect(j["exit_status"] == p.returncode, f"{path}: --json's exit status is not the text run's")
    with open("ours.bin", "rb") as f:
        expect(f.read() == bytes(v for _, v, fe in rows if not fe),
               f"{path}: --out holds other bytes than --list shows without framing errors")
    return rows, j


def theirs(path, baud, bit, channel="SWO"):
    """sigrok-cli's uart decoder: [(start, value, framing_error)] and its glitches.
    A data annotation begins one bit after the start edge; a "Frame error" is
    the stop bit's when it falls 8 to 9 bits after the data, else a start bit's."""
    p = subprocess.run([sigrok, "-i", path, "-P", f"uart:rx={channel}:baudrate={baud}",
                        "-A", "uart=rx-data:rx-warnings", "--protocol-decoder-samplenum"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sigrok-cli on {path}: exit {p.returncode}: {p.stderr.strip()}")
    rows, glitches = [], 0
    for line in p.stdout.splitlines():
        m = re.match(r"(\d+)-(\d+) uart-1: (.*)$", line)
        if not m:
            continue
        ss, text = int(m.group(1)), m.group(3)
        if re.fullmatch(r"[0-9A-F]{2}", text):
            rows.append((ss - bit, int(text, 16), False))
        elif text == "Frame error":
            if rows and 8 * bit <= ss - (rows[-1][0] + bit) <= 9 * bit:
                rows[-1] = (rows[-1][0], rows[-1][1], True)
            else:
                glitches += 1
    return rows, glitches


def compare(path, baud, bit, channel="SWO"):
    a, j = ours(path, baud, channel)
    b, glitches = theirs(path, baud, bit, channel)
    expect(len(a) == len(b), f"{path}: etm swo gives {len(a)} bytes, sigrok-cli {len(b)}")
    diff = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), None)
    expect(diff is None, f"{path}: byte {diff}: etm swo (start, value, framing error) {a[diff] if diff is not None else ''}, "
                         f"sigrok-cli {b[diff] if diff is not None else ''}")
    expect(j["glitches"] == glitches, f"{path}: etm swo counts {j['glitches']} glitches, sigrok-cli {glitches}")
    expect(j["bytes"] + j["framing_errors"] == len(a), f"{path}: --json's counts differ from --list")
    return a, b, j


def real(path):
    if not os.path.isfile(path):
        sys.exit(f"swo_sigrok: FAIL: the capture '{path}' is missing.\n"
                 "  The test needs the shared data folder beside the clone (../shared); configure with\n"
                 "  -DETM_SHARED_DIR=/path/to/shared if it lives elsewhere.")
    a, b, j = compare(path, 8000000, 3)
    expect(len(a) == 7856 and j["bytes"] == 7856 and j["framing_errors"] == 0,
           f"{path}: {j['bytes']} bytes and {j['framing_errors']} framing errors, not 7856 and 0")
    expect(j["first_byte"] == 2418, f"{path}: the first byte starts at {j['first_byte']}, not 2418")
    # The rate from sigrok's bytes: the spacing of back-to-back bytes is 10 bits.
    gaps = [y[0] - x[0] for x, y in zip(b, b[1:]) if y[0] - x[0] < 31]
    rate = 24e6 * 10 * len(gaps) / sum(gaps)
    expect(abs(j["measured_baud"] / rate - 1) < 2e-4,
           f"{path}: etm swo measures {j['measured_baud']:.0f} baud, sigrok's byte spacing gives {rate:.0f}")
    if not failures:
        print(f"{path}: {len(a)} bytes as sigrok-cli's, 0 framing errors, the line at "
              f"{j['measured_baud'] / 1e6:.3f} Mbaud (sigrok's byte spacing: {rate / 1e6:.3f})")


def synthetic():
    rng = random.Random(7)
    for name, rate, baud, off in (("fast8", 24000000, 3000000, 1.01), ("slow3", 24000000, 8000000, 0.99)):
        bit = rate // baud
        T = bit / off
        values = [rng.randrange(256) for _ in range(400)]
        gaps = [rng.choice((0, 0, 0, 1, 2, 7)) for _ in values]
        n = int(sum((10 + g) * T for g in gaps) + 20 - 5 * T)  # the last byte cut
        lv = line(n, 20.4, T, values, gaps)
        third = n // 3
        lv[third:third + 15 * bit] = b"\x00" * (15 * bit)      # a break: framing errors
        glitch = 2 * n // 3
        for i in range(glitch, glitch + 40 * bit):
            lv[i] = 1                                          # idle, then a glitch in it
        lv[glitch + 20 * bit] = 0
        path = f"{name}.sr"
        write_capture(path, lv, rate=f"{rate // 1000000} MHz", chunk=1000, square=7)
        a, b, j = compare(path, baud, bit)
        expect(j["framing_errors"] >= 1 and j["glitches"] >= 1 and j["cut_at_end"] is not None,
               f"{path}: the break, the glitch or the cut byte went unseen: {j}")
        expect(abs(j["measured_baud"] / (rate / T) - 1) < 0.005, f"{path}: measured {j['measured_baud']:.0f} baud, "
                                                                   f"the line runs at {rate / T:.0f}")
        if not failures:
            print(f"{path}: {len(a)} bytes ({j['framing_errors']} framing errors, {j['glitches']} glitches) "
                  "as sigrok-cli's")


if capture:
    real(capture)
else:
    synthetic()
if failures:
    print("\n".join(failures))
    sys.exit(1)
