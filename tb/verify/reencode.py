#!/usr/bin/env python3
"""Legal re-encodings of a trace, and mutants, against etm verify: its own
code, written from IHI 0014Q chapter 7, not the encoder's.

    reencode.py ETM STIMULUS TRACE [--set REG=0xV]...

From the packets of TRACE (etm decode --packets gives each packet's offset
and bytes; the atoms of a P-header are read here from its byte), it writes:

legal variants, each of which etm verify must pass:
  - single:   every run of non-cycle-accurate P-headers repacked one atom a
              header (format 1: 0x84 an E, 0xC0 an N; 7.3.4: packing is free),
              with an A-sync added wherever the spacing would pass ETMSYNCFR
              (7.10.1: the period is counted in bytes)
  - greedy:   the same runs repacked into the fewest format-1 headers (up to
              15 E, then an N)
  - ignore:   an Ignore byte (0x66) between packets every few packets (7.3.10)
  - async:    an extra A-sync between packets now and then (7.10: a sync may
              come anywhere between packets; only the spacing is bounded)
  - superseded: a branch packet with another address before every fifth
              three-byte branch packet (7.3.5: all but the final one ignored)
  - combined: single, then ignore and async together
mutants, each of which etm verify must fail:
  - extra-n:  one header given an N atom it did not have
  - dropped:  one P-header with atoms left out
  - target:   one branch packet's address changed in its first byte

Cycle-accurate traces (ETMCR[12]) keep their headers (their W atoms carry
the cycles): only ignore, async, superseded and the mutants dropped and
target apply.
Exit 0 when every variant passed and every mutant failed."""
import os
import random
import re
import subprocess
import sys

etm, stim, trace = sys.argv[1:4]
sets = sys.argv[4:]
ca = any(re.match(r"ETMCR=0x([0-9a-fA-F]+)$", s) and int(s.split("=0x")[1], 16) & 0x1000 for s in sets if "=" in s)
raw = open(trace, "rb").read()
lst = subprocess.run([etm, "decode", "--packets", "--no-elements"] + [a for s in sets for a in ("--set", s)] + [trace],
                     capture_output=True, text=True, check=True).stdout
pk, plain20 = [], set()
for l in lst.splitlines():
    m = re.match(r"@(\d+)\s+(\S+)\s+((?:[0-9a-f]{2} )*[0-9a-f]{2})", l)
    if m:
        off, kind, b = int(m.group(1)), m.group(2), bytes.fromhex(m.group(3))
        assert raw[off:off + len(b)] == b, "the listing's bytes at %d are not the trace's" % off
        if kind == "BRANCH" and "(20 bits)" in l and "exception" not in l:
            plain20.add(len(pk))  # a branch packet of 20 address bits, no exception
        pk.append((kind, b))
assert sum(len(b) for _, b in pk) == len(raw), "the packets do not cover the trace"


def atoms_of(h):
    """A non-cycle-accurate P-header's atoms (7.3.4, tables 7.2): format 1
    1NEEEE00, format 2 1000FF10 (F 1 is N); None for another format."""
    if h & 0x83 == 0x80:
        return "E" * ((h >> 2) & 0xF) + ("N" if h & 0x40 else "")
    if h & 0xF3 == 0x82:
        return ("N" if h & 0x08 else "E") + ("N" if h & 0x04 else "E")
    return None


def pack(atoms, greedy):
    out = bytearray()
    i = 0
    while i < len(atoms):
        if not greedy:
            out.append(0x84 if atoms[i] == "E" else 0xC0)
            i += 1
            continue
        e = 0
        while i < len(atoms) and atoms[i] == "E" and e < 15:
            e += 1
            i += 1
        n = i < len(atoms) and atoms[i] == "N"
        i += n
        out.append(0x80 | (0x40 if n else 0) | e << 2)
    return bytes(out)


def repack(greedy):
    out, run = bytearray(), []
    def flush():
        atoms = [atoms_of(b[0]) for b in run]
        if all(a is not None for a in atoms):
            out.extend(pack("".join(atoms), greedy))
        else:
            for b in run:
                out.extend(b)
        run.clear()
    for kind, b in pk:
        if kind == "P_HDR" and len(b) == 1:
            run.append(b)
            continue
        flush()
        out.extend(b)
    flush()
    return bytes(out)


ASYNC = bytes([0, 0, 0, 0, 0, 0x80])


def between(every, insert, seed, packets=None):
    r = random.Random(seed)
    out = bytearray()
    for k, (kind, b) in enumerate(packets or pk):
        out.extend(b)
        if k > 2 and r.randrange(every) == 0:
            out.extend(insert)
    return bytes(out)


def packets_of(data):
    """The packets of re-encoded bytes, for a second pass."""
    path = trace + ".tmp"
    open(path, "wb").write(data)
    lst2 = subprocess.run([etm, "decode", "--packets", "--no-elements"] + [a for s in sets for a in ("--set", s)] +
                          [path], capture_output=True, text=True).stdout
    os.unlink(path)
    out = []
    for l in lst2.splitlines():
        m = re.match(r"@(\d+)\s+(\S+)\s+((?:[0-9a-f]{2} )*[0-9a-f]{2})", l)
        if m:
            out.append((m.group(2), bytes.fromhex(m.group(3))))
    return out


def keep_syncs(packets, limit=960):
    """An A-sync between packets wherever the bytes since the last would
    pass limit: a design that sends more bytes sends more syncs (7.10.1:
    they are counted in bytes)."""
    out, since = bytearray(), 0
    for kind, b in packets:
        if kind == "A_SYNC":
            since = 0
        elif since + len(b) > limit:
            out.extend(ASYNC)
            since = 0
        out.extend(b)
        since += len(b) if kind != "A_SYNC" else 0
    return bytes(out)


def mutant(kind_wanted, change, seed):
    r = random.Random(seed)
    idx = [k for k, (kind, b) in enumerate(pk) if kind == kind_wanted and change(b, None) is not None]
    if not idx:
        return None
    k = idx[len(idx) // 3 + r.randrange(max(1, len(idx) // 3))]
    return b"".join(change(b, None) if i == k else b for i, (kind, b) in enumerate(pk))


variants, mutants = {}, {}
if not ca:
    variants["single"] = keep_syncs(packets_of(repack(False)))
    variants["greedy"] = repack(True)
    variants["combined"] = between(17, bytes([0x66]) + ASYNC, 5, packets_of(variants["single"]))
    mutants["extra-n"] = mutant("P_HDR", lambda b, _: bytes([b[0] | 0x40]) if len(b) == 1 and atoms_of(b[0]) and
                                not b[0] & 0x40 and b[0] & 0x83 == 0x80 else None, 1)
variants["ignore"] = between(7, bytes([0x66]), 2)
# 7.3.5: several branch packets for one instruction, all but the final one
# ignored: another address (8d cc 00, three bytes) before every fifth branch
# packet of 20 address bits and no exception (whose bits replace all the
# inserted one set).
sup, nsup = bytearray(), 0
for k, (kind, b) in enumerate(pk):
    if k in plain20:
        nsup += 1
        if nsup % 5 == 0:
            sup.extend(bytes([0x8D, 0xCC, 0x00]))
    sup.extend(b)
if nsup >= 5:
    variants["superseded"] = bytes(sup)
else:  # code in the first 8 KiB (a real program's) has no 20-bit branch packets
    print("skip superseded: %d branch packets of 20 address bits" % nsup)
variants["async"] = between(41, ASYNC, 3)
mutants["dropped"] = mutant("P_HDR", lambda b, _: b"" if len(b) == 1 and (ca or atoms_of(b[0])) else None, 2)
mutants["target"] = mutant("BRANCH", lambda b, _: bytes([b[0] ^ 0x10]) + b[1:], 3)

failed = 0
set_args = [a for s in sets for a in ("--set", s)]
for name, data in list(variants.items()) + list(mutants.items()):
    if data is None:
        print("FAIL %s: nothing in the trace to make it from" % name)
        failed += 1
        continue
    path = "%s.%s.bin" % (trace, name)
    open(path, "wb").write(data)
    r = subprocess.run([etm, "verify"] + set_args + [stim, path], capture_output=True, text=True)
    last = (r.stdout + r.stderr).strip().splitlines()[-1] if (r.stdout + r.stderr).strip() else ""
    legal = name in variants
    ok = r.returncode == 0 if legal else r.returncode == 1
    print("%s %-8s %-7s %6d bytes (the trace %d): %s" % ("ok  " if ok else "FAIL", name, "legal" if legal else "mutant",
                                                         len(data), len(raw), last[:150]))
    failed += not ok
    os.unlink(path)
print("%d legal variants, %d mutants%s" % (len(variants), len(mutants), ", %d wrong" % failed if failed else ""))
sys.exit(1 if failed else 0)
