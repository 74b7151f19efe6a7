#!/usr/bin/env python3
"""Legal re-encodings of a trace, and mutants, against etm verify: its own
code, written from IHI 0014Q chapter 7 and the CoreSight formatter's frame
(the TPIU's), not the encoder's.

    reencode.py ETM STIMULUS TRACE [--set REG=0xV]... [--image IMAGE]... [--check-lag]

From the packets of TRACE (etm decode --packets gives each packet's offset
and bytes; the atoms of a P-header and the fields of a branch packet are read
here from its bytes), it writes:

legal variants, each of which etm verify must pass:
  - single:   every run of P-headers repacked one atom a header (7.3.4:
              packing is free; not cycle-accurate 0x84 an E, 0xC0 an N;
              cycle-accurate W+atom as format 1, an atom without its W as
              format 4, W runs as format 3), with an A-sync added wherever the
              spacing would pass ETMSYNCFR (7.10.1: the period is in bytes)
  - greedy:   the same runs repacked into few headers (not cycle-accurate: up
              to 15 E then an N; cycle-accurate: formats 1, 2 and 3 where they
              fit)
  - ignore:   an Ignore byte (0x66) between packets every few packets (7.3.10)
  - async:    an extra A-sync between packets now and then (7.10: a sync may
              come anywhere between packets; only the spacing is bounded)
  - superseded: a branch packet with another address before every fifth
              branch packet without exception (7.3.5: all but the final one
              ignored); an exception's packet after a plain one is the other
              case (the direct variant makes it)
  - address:  branch packets with more address bytes than their compression
              needs: every third one in the five-byte form, the others one
              byte more (7.3.5: the compression is the ETM's choice)
  - direct:   (with --image) a branch packet after every seventh taken direct
              branch, its target in the five-byte form, the next branch
              packet in full too (7.3.5: a branch packet may be output for a
              direct branch; the compression base is the last address sent)
  - count:    (cycle-accurate) every non-periodic I-sync with cycle count
              (0x70) as a normal I-sync (0x08) with the count in a cycle-count
              packet (0x04), after the next packet (7.3.4, the first form)
  - frames:   the bytes in CoreSight formatter frames under ETMTRACEIDR's ID
              (16-byte frames: the ID in an even byte with bit 0 set, the data
              bits 0 of the even bytes in byte 15), read with --coresight
  - frames-mixed: the same with another source's bytes between (ID 0x35),
              switched both at once and after the next byte (the aux bit), the
              ETM's ID restated now and then
  - frames-sync: frames with a full frame sync (FF FF FF 7F) before the first
              and every few frames, read with --tpiu
  - combined: single, then ignore and async together
mutants, each of which etm verify must fail:
  - extra-n:  one header given an N atom it did not have (not cycle-accurate)
  - dropped:  one P-header with atoms left out
  - target:   one branch packet's address changed in its first byte
  - no-count: (cycle-accurate) as count, the count packets left out
  - frames-lost: frames-mixed with one of the ETM's bytes given to the other
              source

Every legal variant must also decode (etm decode) to what the trace decodes
to: the instructions with --image (cycle-accurate: with their cycles, except
where the count packet comes later), else the atoms and those withdrawn; with
--check-lag, the lag etm verify reports ("at most N instructions waited")
must pass as --max-lag and N - 1 fail.
Exit 0 when every variant passed and every mutant failed."""
import os
import random
import re
import subprocess
import sys

etm, stim, trace = sys.argv[1:4]
sets, images, check_lag = [], [], False
rest = sys.argv[4:]
while rest:
    opt, val = rest[0], rest[1] if len(rest) > 1 else None
    if opt in ("--set", "--image") and val:
        (sets if opt == "--set" else images).append(val)
        rest = rest[2:]
    elif opt == "--check-lag":
        check_lag = True
        rest = rest[1:]
    elif "=" in opt:  # REG=0xV, as the tests give it
        sets.append(opt)
        rest = rest[1:]
    else:
        sys.exit("reencode.py: %s: expected --set REG=0xV or --image IMAGE" % opt)
set_args = [a for s in sets for a in ("--set", s)]
image_args = [a for i in images for a in ("--image", i)]
reg = {}
for s in sets:
    m = re.match(r"(\w+)=0x([0-9a-fA-F]+)$", s)
    if m:
        reg[m.group(1)] = int(m.group(2), 16)
ca = bool(reg.get("ETMCR", 0) & 0x1000)
trace_id = reg.get("ETMTRACEIDR", 0x10) & 0x7F  # the etm-m3 preset's ID unless set
raw = open(trace, "rb").read()
PKT = re.compile(r"@(\d+)\s+(\S+)\s+((?:[0-9a-f]{2} )*[0-9a-f]{2})(.*)$")
# an instruction line of etm decode with an image: [CYCLE] ADDRESS T32 OPCODE E|N [what]
INSN = re.compile(r"\s*(?:\d+\s+)?([0-9a-f]{8})  T32  [0-9a-f ]+?\s+([EN])\s*(.*)$")


def listing(path, extra=()):
    return subprocess.run([etm, "decode", "--packets"] + list(extra) + set_args + [path],
                          capture_output=True, text=True, check=True).stdout


lst = listing(trace, ["--no-elements"])
pk, plain20, addr_of = [], set(), {}
for l in lst.splitlines():
    m = PKT.match(l)
    if m:
        off, kind, b = int(m.group(1)), m.group(2), bytes.fromhex(m.group(3))
        assert raw[off:off + len(b)] == b, "the listing's bytes at %d are not the trace's" % off
        if kind == "BRANCH":
            a = re.search(r"addr=0x([0-9a-f]+) T32", m.group(4))
            if a:
                addr_of[len(pk)] = int(a.group(1), 16)
            if "(20 bits)" in l and "exception" not in l:
                plain20.add(len(pk))  # a branch packet of 20 address bits, no exception
        pk.append((kind, b))
assert sum(len(b) for _, b in pk) == len(raw), "the packets do not cover the trace"


def atoms_of(h):
    """A P-header's atoms (7.3.4, tables 7.2 and 7.3), W a cycle boundary;
    None for a byte that is no header of the mode."""
    if not ca:
        if h & 0x83 == 0x80:  # format 1, 1NEEEE00
            return "E" * ((h >> 2) & 0xF) + ("N" if h & 0x40 else "")
        if h & 0xF3 == 0x82:  # format 2, 1000FF10
            return ("N" if h & 0x08 else "E") + ("N" if h & 0x04 else "E")
        return None
    if h & 0xA3 == 0x80 and h != 0x80:  # format 1, 1N0EEE00: each atom after a W
        return "WE" * ((h >> 2) & 7) + ("WN" if h & 0x40 else "")
    if h & 0xF3 == 0x82:  # format 2, 1000FF10: a W, then two atoms
        return "W" + ("N" if h & 0x08 else "E") + ("N" if h & 0x04 else "E")
    if h & 0xFB == 0x92:  # format 4, 10010F10: one atom, no W
        return "N" if h & 0x04 else "E"
    if h & 0xA3 == 0xA0:  # format 3, 1E1WWW00: WWW+1 W, then an E if bit 6
        return "W" * (((h >> 2) & 7) + 1) + ("E" if h & 0x40 else "")
    return None


def pack_plain(atoms, greedy):
    out, i = bytearray(), 0
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


def f3(w, e=False):
    """W runs of up to 8 as format 3 headers, the last with an E if e."""
    out = bytearray()
    while w > 0:
        k = min(w, 8)
        w -= k
        out.append(0xA0 | (k - 1) << 2 | (0x40 if e and w == 0 else 0))
    return bytes(out)


def pack_ca(atoms, greedy):
    out, i, n = bytearray(), 0, len(atoms)
    while i < n:
        w = 0
        while i + w < n and atoms[i + w] == "W":
            w += 1
        if i + w == n:  # cycles only, to the end of the run
            out += f3(w)
            break
        a = atoms[i + w]
        if w == 0:  # an atom without its W: format 4
            out.append(0x92 | (0x04 if a == "N" else 0))
            i += 1
            continue
        if not greedy:  # W-1 cycles alone, then W and the atom as format 1
            out += f3(w - 1)
            out.append(0xC0 if a == "N" else 0x84)
            i += w + 1
            continue
        if w > 1:  # W runs then an E: format 3 (the last W and its E in one)
            if a == "E":
                out += f3(w, True)
                i += w + 1
                continue
            out += f3(w - 1)
            i += w - 1
        # i at W then an atom: as many W E pairs as format 1 takes, then W N
        j, e = i, 0
        while e < 7 and atoms[j:j + 2] == "WE":
            e += 1
            j += 2
        nn = atoms[j:j + 2] == "WN"
        if e + nn == 1 and atoms[i + 2:i + 3] in ("E", "N"):  # W and two atoms: format 2
            out.append(0x82 | (0x08 if atoms[i + 1] == "N" else 0) | (0x04 if atoms[i + 2] == "N" else 0))
            i += 3
            continue
        out.append(0x80 | (0x40 if nn else 0) | e << 2)
        i = j + 2 * nn
    return bytes(out)


def repack(greedy):
    out, run = bytearray(), []

    def flush():
        atoms = [atoms_of(b[0]) for b in run]
        if all(a is not None for a in atoms):
            s = "".join(atoms)
            packed = pack_ca(s, greedy) if ca else pack_plain(s, greedy)
            assert "".join(atoms_of(h) for h in packed) == s, "repacking changed the atoms"
            out.extend(packed)
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
    lst2 = listing(path, ["--no-elements"])
    os.unlink(path)
    return [(m.group(2), bytes.fromhex(m.group(3))) for m in map(PKT.match, lst2.splitlines()) if m]


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


def branch_fields(b):
    """A branch packet's address byte count and E bit (the alternative
    encoding, Thumb: bytes 1 to 3 when final carry E in bit 6, byte 4 always),
    and the exception bytes after."""
    n = 1
    while n < 5 and b[n - 1] & 0x80:
        n += 1
    e = bool(b[n - 1] & 0x40) if n > 1 else False
    return n, e, b[n:]


def branch_bytes(addr, n, e):
    """A Thumb address in n address bytes, alternative encoding (7.3.5)."""
    out = bytearray()
    for i in range(n):
        last = i == n - 1
        if i == 0:
            v = ((addr >> 1) & 0x3F) << 1 | 1
        elif i < 4:
            v = (addr >> (7 * i)) & (0x3F if last else 0x7F)
            if last:
                v |= 0x40 if e else 0
        else:
            v = (0x40 if e else 0) | 0x10 | (addr >> 28) & 0xF
        out.append(v | (0 if last or i == 4 else 0x80))
    return bytes(out)


def widen(k, b, n_new):
    n, e, exc = branch_fields(b)
    return branch_bytes(addr_of[k], max(n, n_new), e) + exc


def address_variant():
    out, count = bytearray(), 0
    for k, (kind, b) in enumerate(pk):
        if kind == "BRANCH" and k in addr_of:
            n = branch_fields(b)[0]
            count += 1
            b = widen(k, b, 5 if count % 3 == 0 else min(5, n + 1))
        out.extend(b)
    return bytes(out) if count else None


def direct_variant():
    """After every seventh taken direct branch, a branch packet with its
    target: the P-header of its atom split there (one atom a header), the
    next branch packet in full (the inserted address is the new base)."""
    lines = listing(trace, image_args).splitlines()
    # Each instruction line takes the next atom of the headers before it.
    atoms, cands, pos, kidx, ok, mismatch = [], {}, 0, -1, True, 0
    for l in lines:
        m = PKT.match(l)
        if m:
            kidx += 1
            if m.group(2) == "P_HDR":
                a = atoms_of(int(m.group(3)[:2], 16))
                atoms.extend((kidx, j, c) for j, c in enumerate(a or "") if c != "W")
            continue
        cancel = re.search(r"cancel: (\d+) withdrawn", l)
        if cancel and "EXCEPTION" in l:  # the last atoms not yet executed are withdrawn
            del atoms[max(pos, len(atoms) - int(cancel.group(1))):]
            continue
        ins = INSN.match(l)
        if not ins:
            continue
        if pos >= len(atoms):
            print("direct: the instruction %s has no atom left (%d)" % (l, pos))
            ok = False
            break
        if atoms[pos][2] != ins.group(2):
            mismatch += 1
        k, j, c = atoms[pos]
        pos += 1
        br = re.match(r"branch -> ([0-9a-f]{8})", ins.group(3))
        if c == "E" and br and "indirect" not in ins.group(3):
            cands.setdefault(k, []).append((j, int(br.group(1), 16)))
    print("direct: %d instructions, %d of them E or N otherwise than their atom" % (pos, mismatch))
    if not ok or not cands or mismatch * 100 > pos:  # out of step
        return None
    out, nth, full_next = bytearray(), 0, False
    for k, (kind, b) in enumerate(pk):
        if kind == "BRANCH" and full_next and k in addr_of:
            b = widen(k, b, 5)
            full_next = False
        if k not in cands:
            out.extend(b)
            continue
        chosen = []
        for j, target in cands[k]:
            nth += 1
            if nth % 7 == 0:
                chosen.append((j, target))
        if not chosen:
            out.extend(b)
            continue
        a, done = atoms_of(b[0]), 0
        for idx, c in enumerate(a):  # atoms counted as in cands (W not counted)
            if c == "W":
                continue
            hit = [t for j, t in chosen if j == idx]
            if hit:
                part = a[done:idx + 1]
                out.extend(pack_ca(part, True) if ca else pack_plain(part, True))
                out.extend(branch_bytes(hit[0], 5, False))
                done = idx + 1
                full_next = True
        if done < len(a):
            part = a[done:]
            out.extend(pack_ca(part, True) if ca else pack_plain(part, True))
    return keep_syncs(packets_of(bytes(out)))


def count_variant(keep):
    """Every non-periodic I-sync with cycle count (0x70) as an I-sync (0x08)
    and, after the next packet, a cycle-count packet (0x04) with its count."""
    out, pending, n = bytearray(), None, 0
    for kind, b in pk:
        if kind == "I_SYNC_CC" and b[0] == 0x70:
            k = 1
            while b[k] & 0x80:
                k += 1
            info = b[k + 1]
            if (info >> 5) & 3:
                out += bytes([0x08]) + b[k + 1:]
                pending, n = (bytes([0x04]) + b[1:k + 1], 1), n + 1
                continue
        out += b
        if pending is not None:
            cc, wait = pending
            if wait == 0:
                if keep:
                    out += cc
                pending = None
            else:
                pending = (cc, wait - 1)
    if pending is not None and keep:
        out += pending[0]
    return bytes(out) if n else None


def frames(items, sync_every=0, restate=0, seed=0):
    """CoreSight formatter frames of items, (id, byte) in order: at an even
    byte a new ID (bit 0 set; its aux bit 0: the ID from the next byte on, 1:
    after it) or data (bits 7..1, bit 0 in the aux byte); odd bytes are data
    of the current ID; byte 15 holds the aux bits. The ID restated at an even
    byte with chance 1/restate; the end padded under ID 0; a full frame sync
    before every sync_every-th frame."""
    r = random.Random(seed)
    out, i, cur, nframe = bytearray(), 0, None, 0
    while i < len(items):
        if sync_every and nframe % sync_every == 0:
            out += b"\xff\xff\xff\x7f"
        f, aux, p = bytearray(16), 0, 0
        while p < 15:
            if p % 2:  # odd: a byte of the current ID (the even byte before saw to it)
                if i < len(items):
                    assert items[i][0] == cur
                    f[p] = items[i][1]
                    i += 1
                p += 1
                continue
            slot = p // 2
            if i >= len(items):  # padding: ID 0, then its zeros
                f[p] = 0x01 if cur != 0 else 0
                cur = 0
                p += 1
                continue
            id_a, a = items[i]
            nxt = items[i + 1][0] if i + 1 < len(items) else 0
            if id_a != cur or (restate and r.randrange(restate) == 0):  # the ID, for the odd byte on
                f[p] = id_a << 1 | 1
                cur = id_a
            elif p < 14 and nxt != cur:  # this byte under cur after the ID that follows it
                f[p] = nxt << 1 | 1
                aux |= 1 << slot
                f[p + 1] = a
                i += 1
                cur = nxt
                p += 1
            else:
                f[p] = a & 0xFE
                aux |= (a & 1) << slot
                i += 1
            p += 1
        f[15] = aux
        out += f
        nframe += 1
    return bytes(out)


def mixed_items(data, seed, lose=None):
    """The trace's bytes under ETM_ID with another source's (OTHER_ID)
    between, now and then; the byte at offset lose given to the other."""
    r = random.Random(seed)
    items = []
    for k, c in enumerate(data):
        items.append((OTHER_ID if k == lose else ETM_ID, c))
        if r.randrange(23) == 0:
            items.extend((OTHER_ID, r.randrange(256)) for _ in range(1 + r.randrange(9)))
    return items


def mutant(kind_wanted, change, seed):
    r = random.Random(seed)
    idx = [k for k, (kind, b) in enumerate(pk) if kind == kind_wanted and change(b) is not None]
    if not idx:
        return None
    k = idx[len(idx) // 3 + r.randrange(max(1, len(idx) // 3))]
    return b"".join(change(b) if i == k else b for i, (kind, b) in enumerate(pk))


ETM_ID, OTHER_ID = 0x10, 0x35
FRAMED = ["--coresight", "--id", "0x10"]
variants, mutants = {}, {}  # name: (bytes, the options that read them)
variants["single"] = (keep_syncs(packets_of(repack(False))), [])
variants["greedy"] = (repack(True), [])
variants["combined"] = (between(17, bytes([0x66]) + ASYNC, 5, packets_of(variants["single"][0])), [])
if not ca:
    mutants["extra-n"] = (mutant("P_HDR", lambda b: bytes([b[0] | 0x40]) if len(b) == 1 and atoms_of(b[0]) and
                                 not b[0] & 0x40 and b[0] & 0x83 == 0x80 else None, 1), [])
variants["ignore"] = (between(7, bytes([0x66]), 2), [])
# 7.3.5: several branch packets for one instruction, all but the final one
# ignored: another address before every fifth branch packet without
# exception: 8d cc 00 (three bytes) before one of 20 address bits, else the
# packet itself with address bit 4 flipped (the final one then restores the
# bits the other set; the upper bits, from the last address, are the same).
sup, nsup = bytearray(), 0
for k, (kind, b) in enumerate(pk):
    if kind == "BRANCH" and k in addr_of and not branch_fields(b)[1]:
        nsup += 1
        if nsup % 5 == 0:
            sup.extend(bytes([0x8D, 0xCC, 0x00]) if k in plain20 else bytes([b[0] ^ 0x10]) + b[1:])
    sup.extend(b)
if nsup >= 5:
    variants["superseded"] = (bytes(sup), [])
else:  # a program whose indirect branches are few (fir: one return)
    print("skip superseded: %d branch packets without exception" % nsup)
variants["async"] = (between(41, ASYNC, 3), [])
variants["address"] = (address_variant(), [])
if images:
    variants["direct"] = (direct_variant(), [])  # after the decode of the whole trace
if ca:
    variants["count"] = (count_variant(True), [])
    mutants["no-count"] = (count_variant(False), [])
variants["frames"] = (frames([(ETM_ID, c) for c in raw]), FRAMED)
variants["frames-mixed"] = (frames(mixed_items(raw, 7), restate=9, seed=8), FRAMED)
variants["frames-sync"] = (frames([(ETM_ID, c) for c in raw], sync_every=5), ["--tpiu", "--id", "0x10"])
mutants["dropped"] = (mutant("P_HDR", lambda b: b"" if len(b) == 1 and atoms_of(b[0]) and
                             set(atoms_of(b[0])) != {"W"} else None, 2), [])
mutants["target"] = (mutant("BRANCH", lambda b: bytes([b[0] ^ 0x10]) + b[1:], 3), [])
# frames-lost: a byte of a P-header with atoms, a third of the way in, under the other ID
offs, at = [], 0
for kind, b in pk:
    if kind == "P_HDR" and len(b) == 1 and atoms_of(b[0]) and set(atoms_of(b[0])) != {"W"}:
        offs.append(at)
    at += len(b)
mutants["frames-lost"] = (frames(mixed_items(raw, 7, offs[len(offs) // 3] if offs else None), restate=9, seed=8)
                          if offs else None, FRAMED)


def decoded(path, opts):
    """What the project's decoder reads: the instructions with an image
    (cycle-accurate: with their cycles), else the counts of atoms and
    withdrawn ones."""
    if images:
        out = subprocess.run([etm, "decode"] + opts + set_args + image_args + [path],
                             capture_output=True, text=True).stdout
        return [l for l in out.splitlines() if INSN.match(l)]
    out = subprocess.run([etm, "decode", "--stats", "--no-elements"] + opts + set_args + [path],
                         capture_output=True, text=True).stdout
    return re.findall(r"(?:atoms|withdrawn by cancel) \d+", out)


def no_cycles(lines):
    """Instruction lines without their cycle (cycle-accurate) column."""
    return [l.split(None, 1)[1] for l in lines] if ca and images else lines


reference = decoded(trace, [])
assert reference and (not images or len(reference) > 100), "the trace decodes to nothing"
failed = 0
for name, (data, opts) in list(variants.items()) + list(mutants.items()):
    if data is None:
        print("FAIL %s: nothing in the trace to make it from" % name)
        failed += 1
        continue
    path = "%s.%s.bin" % (trace, name)
    open(path, "wb").write(data)
    r = subprocess.run([etm, "verify"] + opts + set_args + [stim, path], capture_output=True, text=True)
    last = (r.stdout + r.stderr).strip().splitlines()[-1] if (r.stdout + r.stderr).strip() else ""
    legal = name in variants
    ok = r.returncode == 0 if legal else r.returncode == 1
    same = ""
    # the count variant: until its packet comes, the decoder does not know the cycles
    if legal and ok and (no_cycles(decoded(path, opts)) != no_cycles(reference) if name == "count"
                         else decoded(path, opts) != reference):
        ok, same = False, " (etm decode reads it otherwise than the trace)"
    # One definition of lag: the reported figure is the smallest --max-lag that passes.
    lag = re.search(r"at most (\d+) instructions waited", last)
    if legal and ok and check_lag and lag:
        n = int(lag.group(1))
        at = [subprocess.run([etm, "verify", "--quiet", "--max-lag", str(m)] + opts + set_args + [stim, path],
                             capture_output=True).returncode for m in (n, n - 1)]
        if at != [0, 1]:
            ok, same = False, " (--max-lag %d gives %d, %d gives %d)" % (n, at[0], n - 1, at[1])
    print("%s %-12s %-7s %7d bytes (the trace %d): %s%s" % ("ok  " if ok else "FAIL", name,
          "legal" if legal else "mutant", len(data), len(raw), last[:150], same))
    failed += not ok
    if ok:
        os.unlink(path)
print("%d legal variants, %d mutants%s" % (len(variants), len(mutants), ", %d wrong" % failed if failed else ""))
sys.exit(1 if failed else 0)
