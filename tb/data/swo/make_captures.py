#!/usr/bin/env python3
"""Writes the small sigrok session files of the `etm swo` tests (tb/CMakeLists.txt,
cli.swo.*) into this folder, with Python's zipfile: a line on probe 5 (SWO) at
24 MHz sending 3 Mbaud (8 samples a bit), and captures broken in one way each.

    tb/data/swo/make_captures.py
"""
import math
import os
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
META = ("[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\ntotal probes=8\n"
        "samplerate={rate}\ntotal analog=0\nprobe3=PC9\nprobe5=SWO\nprobe7=PC8\nunitsize={unit}\n")


def line(n, t0, T, values, gap):
    """8N1, least significant bit first, idle 1: bits of T samples, gap idle bits after each byte."""
    lv, t = bytearray(b"\x01") * n, t0
    for v in values:
        for k in range(10):
            bit = 0 if k == 0 else 1 if k == 9 else (v >> (k - 1)) & 1
            for i in range(math.ceil(t + k * T), min(n, math.ceil(t + (k + 1) * T))):
                lv[i] = bit
        t += (10 + gap) * T
    return lv


def write(name, lv, rate="24 MHz", unit=1, method=zipfile.ZIP_DEFLATED, meta=None):
    samples = bytes((b << 4) | (((i // 50) & 1) << 2) for i, b in enumerate(lv))
    path = os.path.join(HERE, name)
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("version", "2")
        z.writestr("metadata", meta if meta is not None else META.format(rate=rate, unit=unit))
        for k in range(0, len(samples), 500):
            z.writestr(f"logic-1-{k // 500 + 1}", samples[k:k + 500])
    return path


hello = line(1200, 40.3, 8, b"Hello, SWO\n", 1)
path = write("hello.sr", hello)
with open(path, "rb") as f:
    data = f.read()
with open(os.path.join(HERE, "cut.sr"), "wb") as f:
    f.write(data[:len(data) // 2])
with open(os.path.join(HERE, "not_zip.sr"), "w") as f:
    f.write(META.format(rate="24 MHz", unit=1))
brk = line(600, 40.3, 8, b"OK", 1)
brk[300:300 + 15 * 8] = b"\x00" * (15 * 8)  # a break: the stop bit reads 0
write("break.sr", brk)
write("no_samplerate.sr", hello, meta=META.format(rate="24 MHz", unit=1).replace("samplerate=24 MHz\n", ""))
write("unitsize9.sr", hello, unit=9)
# A chunk marked as compressed with bzip2 (method 12) in the central directory: its bytes stored.
path = write("bzip2.sr", hello, method=zipfile.ZIP_STORED)
with open(path, "r+b") as f:
    data = bytearray(f.read())
    header = data.find(b"logic-1-1", data.find(b"PK\x01\x02")) - 46  # its central directory header
    data[header + 10] = 12
    f.seek(0)
    f.write(data)
