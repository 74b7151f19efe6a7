#!/usr/bin/env python3
"""Writes the small sigrok session files of the `etm swo` tests (tb/CMakeLists.txt,
cli.swo.*) into this folder (tb/cli/srline.py draws the line and writes the
zip): a line on probe 5 (SWO) at 24 MHz sending 3 Mbaud (8 samples a bit), and
captures broken in one way each.

    tb/data/swo/make_captures.py
"""
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "cli"))
from srline import META, line, write_capture  # noqa: E402


def write(name, lv, **kw):
    path = os.path.join(HERE, name)
    write_capture(path, lv, **kw)
    return path


hello = line(1200, 40.3, 8, b"Hello, SWO\n", 1)
with open(write("hello.sr", hello), "rb") as f:
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
