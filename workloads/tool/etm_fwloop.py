#!/usr/bin/env python3
"""etm-fwloop: firmware that programs its own trace, run under QEMU with the
debug peripherals QEMU lacks answered through QEMU's gdb stub.

QEMU's STM32 machines read the Cortex-M3's external private peripheral bus
(the TPIU, the ETM, the DBGMCU), the ITM and the DWT as zero and ignore
writes to them; the machines have no timer the firmware's interrupts come
from, and QEMU ignores a debugger's writes to the NVIC. Firmware that reads
them back (ETMCR's read-modify-write, the
DBGMCU check, the ITM's enable bits and its port's ready flag) then takes
other paths than on silicon. This loop runs the firmware with the etmtrace
plugin (flush=on) and the gdb stub, stops at every load whose base register
is not SP or PC, and when the load touches one of those blocks it single-steps
it and writes the block's value into the destination register: the value last
written there (the plugin's stream gives every store with its value), ETMCR's
reset value before any write, 1 for an ITM stimulus port (ready). It raises
an interrupt by redirecting one of the firmware's own stores (STR Rt, [Rn,
#imm] at a chosen address, in code the trace does not cover) to the NVIC's
ISPR with the interrupt's bit, the two registers given back before the core
goes on (before the handler's first instruction, which saves them, when the
interrupt is taken at once); it counts the handler's entries and stops QEMU
at the first chosen store after the last one.

Outputs: the plugin's raw stream (closed with its end record, as QEMU would
at exit: `etm-qemu stimulus --raw` reads it), and an access log: one line per
load or store to the emulated blocks, in program order (raw instruction
index, PC, R or W, address, size, value), and the ITM's output per port.

    etm_fwloop.py --qemu Q --plugin P --elf F --raw OUT.raw --log OUT.log
                  [--machine stm32vldiscovery] [--irq 28 --at 0x8000272,0x8000280
                  --handler 0x80002ec --count 9] [--timeout S]

Exit status 0 on success, 2 with a message on anything unexpected (a device
load of a form it cannot decode, QEMU gone, a timeout).
"""
import argparse
import os
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

# Blocks answered here (QEMU reads them as zero): ITM, DWT, FPB, the external
# PPB (TPIU 0xE0040000, ETM 0xE0041000, DBGMCU 0xE0042000).
EMULATED = [(0xE0000000, 0xE0002FFF), (0xE0040000, 0xE00FFFFF)]
ITM_PORTS = (0xE0000000, 0xE000007F)
ETM_BASE = 0xE0041000
ETMCR_RESET = 0x00000411      # programming and power-down set (IHI 0014 3.4.3; etm_config_at_reset)
ETMCR_IMPL_M3 = 0x10632FF1    # the ETMCR bits the ETM-M3 implements (etm config --preset etm-m3)

QT_HDR = 16
QT_INSN = struct.Struct("<BBBBIIIII")   # kind size nval regs pc opcode xpsr val0 val1
QT_MEM = struct.Struct("<BBBBIQ")       # kind size flags pad addr value
QT_END = struct.Struct("<B7xQQ")
QT_MEM_STORE = 0x01


class Fail(Exception):
    pass


def emulated(a):
    return any(lo <= a <= hi for lo, hi in EMULATED)


# ---- The gdb remote protocol ---------------------------------------------------------------

class Rsp:
    def __init__(self, path, timeout):
        self.deadline = time.monotonic() + timeout
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(200):
            try:
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise Fail("cannot connect to QEMU's gdb stub at %s" % path)
        self.buf = b""
        self.ack = True
        self.cmd("qSupported:xmlRegisters=arm")
        if self.cmd("QStartNoAckMode") == "OK":  # (else every packet is acknowledged)
            self.ack = False
        # QEMU answers p and P only to a client that has read its target
        # description.
        off = 0
        while True:
            r = self.cmd("qXfer:features:read:target.xml:%x,%x" % (off, 0x800))
            if not r or r[0] not in "lm":
                raise Fail("cannot read QEMU's target description: %r" % r[:40])
            off += len(r) - 1
            if r[0] == "l":
                break

    def send(self, body):
        data = body.encode()
        self.s.sendall(b"$" + data + b"#%02x" % (sum(data) & 0xFF))

    def recv(self):
        while True:
            i = self.buf.find(b"$")
            j = self.buf.find(b"#", i + 1) if i >= 0 else -1
            if i >= 0 and j >= 0 and len(self.buf) >= j + 3:
                body = self.buf[i + 1:j]
                self.buf = self.buf[j + 3:]
                if self.ack:
                    self.s.sendall(b"+")
                return body.decode("latin-1")
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Fail("timed out waiting for QEMU")
            r, _, _ = select.select([self.s], [], [], left)
            if not r:
                continue
            chunk = self.s.recv(65536)
            if not chunk:
                raise Fail("QEMU closed the gdb connection")
            self.buf += chunk

    def cmd(self, body):
        self.send(body)
        while True:
            r = self.recv()
            if r.startswith("O") and len(r) > 1 and r != "OK":  # console output
                continue
            return r

    def reg(self, n):
        r = self.cmd("p%x" % n)
        if len(r) < 8:
            raise Fail("cannot read register %d: %r" % (n, r))
        return struct.unpack("<I", bytes.fromhex(r[:8]))[0]

    def set_reg(self, n, v):
        r = self.cmd("P%x=%s" % (n, struct.pack("<I", v & 0xFFFFFFFF).hex()))
        if r != "OK":
            raise Fail("cannot write register %d: %r" % (n, r))

    def read_mem(self, addr, n):
        r = self.cmd("m%x,%x" % (addr, n))
        if r.startswith("E") or len(r) != 2 * n:
            raise Fail("cannot read 0x%08X: %r" % (addr, r))
        return bytes.fromhex(r)


# ---- Loads, as the Thumb-2 encodings give them (ARMv7-M ARM A7.7) ---------------------------

def decode_load(hw1, hw2):
    """(size, rt, rn, offset or None, rm or None) for the single loads of an
    immediate or register offset (the address they read, before any
    writeback); None for anything else."""
    if (hw1 & 0xF800) == 0x6800:
        return (4, hw1 & 7, (hw1 >> 3) & 7, ((hw1 >> 6) & 0x1F) << 2, None)
    if (hw1 & 0xF800) == 0x7800:
        return (1, hw1 & 7, (hw1 >> 3) & 7, (hw1 >> 6) & 0x1F, None)
    if (hw1 & 0xF800) == 0x8800:
        return (2, hw1 & 7, (hw1 >> 3) & 7, ((hw1 >> 6) & 0x1F) << 1, None)
    if (hw1 & 0xFE00) in (0x5800, 0x5C00, 0x5A00):  # LDR, LDRB, LDRH (register)
        size = {0x5800: 4, 0x5C00: 1, 0x5A00: 2}[hw1 & 0xFE00]
        return (size, hw1 & 7, (hw1 >> 3) & 7, None, (hw1 >> 6) & 7)
    if hw2 is None:
        return None
    size = {0xF8D0: 4, 0xF890: 1, 0xF8B0: 2}.get(hw1 & 0xFFF0)
    if size:  # LDR.W Rt, [Rn, #imm12]
        return (size, hw2 >> 12, hw1 & 0xF, hw2 & 0xFFF, None)
    size = {0xF850: 4, 0xF810: 1, 0xF830: 2}.get(hw1 & 0xFFF0)
    if size and (hw2 & 0x0800):  # imm8, P U W
        p, u = (hw2 >> 10) & 1, (hw2 >> 9) & 1
        off = (hw2 & 0xFF) if u else -(hw2 & 0xFF)
        return (size, hw2 >> 12, hw1 & 0xF, off if p else 0, None)
    if size and (hw2 & 0x0FC0) == 0:  # register, LSL #imm2
        return (size, hw2 >> 12, hw1 & 0xF, None, hw2 & 0xF)
    return None


def is_wide(hw1):
    return (hw1 & 0xF800) in (0xE800, 0xF000, 0xF800)


def text_loads(elf, objdump):
    """Addresses of the loads decode_load knows whose base is not SP or PC, in
    the ELF's executable code (read with the toolchain's objdump)."""
    out = subprocess.run([objdump, "-d", elf], check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or not parts[0].strip().endswith(":"):
            continue
        try:
            addr = int(parts[0].strip()[:-1], 16)
        except ValueError:
            continue
        words = parts[1].split()
        if not words or any(len(w) != 4 for w in words):
            continue  # data (.word), not an instruction
        hw = [int(w, 16) for w in words]
        d = decode_load(hw[0], hw[1] if len(hw) > 1 else None)
        if d and d[2] not in (13, 15):
            found.append(addr)
    return found


# ---- The plugin's stream, followed as it grows ---------------------------------------------

class Stream:
    def __init__(self, path):
        self.path = path
        self.f = None
        self.off = 0
        self.insns = 0
        self.mems = 0
        self.last = None        # the last 'I' record (pc, size, nval, regs, vals)
        self.pending = b""

    def follow(self, on_store):
        if self.f is None:
            if not os.path.exists(self.path):
                return
            self.f = open(self.path, "rb")
        data = self.pending + self.f.read()
        i = 0
        if self.off == 0:
            if len(data) < QT_HDR:
                self.pending = data
                return
            if data[:8] != b"ETMQTRC1":
                raise Fail("%s: not an etmtrace stream" % self.path)
            i = QT_HDR
        while i < len(data):
            k = data[i]
            if k == ord("I"):
                if len(data) - i < QT_INSN.size:
                    break
                _, size, nval, regs, pc, op, xpsr, v0, v1 = QT_INSN.unpack_from(data, i)
                self.last = (self.insns, pc, nval, regs, (v0, v1))
                self.insns += 1
                i += QT_INSN.size
            elif k == ord("M"):
                if len(data) - i < QT_MEM.size:
                    break
                _, size, flags, _, addr, value = QT_MEM.unpack_from(data, i)
                self.mems += 1
                if flags & QT_MEM_STORE and self.last is not None:
                    idx, pc, nval, regs, vals = self.last
                    v = vals[0] if nval else value  # a single store's Rt, read before it ran
                    on_store(idx, pc, addr, size, v & ((1 << (8 * size)) - 1) if size < 8 else v)
                i += QT_MEM.size
            elif k == ord("E"):
                raise Fail("QEMU ended the stream (the program exited)")
            else:
                raise Fail("%s: unknown record 0x%02X at byte %d" % (self.path, k, self.off + i))
        self.off += i
        self.pending = data[i:]

    def close(self):
        """The end record QEMU writes at exit, after every record read."""
        if self.f:
            self.f.close()
        with open(self.path, "ab") as f:
            f.truncate(self.off)
            f.seek(self.off)
            f.write(QT_END.pack(ord("E"), self.insns, self.mems))


# ---- The loop --------------------------------------------------------------------------------

class Devices:
    def __init__(self, log):
        self.regs = {}
        self.log = log
        self.itm = {}

    def store(self, idx, pc, addr, size, value):
        if not emulated(addr):
            return
        self.log.write("%d 0x%08X W 0x%08X %d 0x%X\n" % (idx, pc, addr, size, value))
        if ITM_PORTS[0] <= addr <= ITM_PORTS[1]:
            port = (addr - ITM_PORTS[0]) // 4
            self.itm.setdefault(port, []).append((size, value))
            return
        word = addr & ~3
        old = self.regs.get(word, 0)
        sh = 8 * (addr & 3)
        mask = ((1 << (8 * size)) - 1) << sh if size < 4 else 0xFFFFFFFF
        v = (old & ~mask) | ((value << sh) & mask)
        if word == ETM_BASE:
            v &= ETMCR_IMPL_M3
        self.regs[word] = v

    def load(self, idx, pc, addr, size):
        word = addr & ~3
        if ITM_PORTS[0] <= addr <= ITM_PORTS[1]:
            v = 1  # the stimulus port's FIFO is ready
        elif word == ETM_BASE and word not in self.regs:
            v = ETMCR_RESET
        else:
            v = self.regs.get(word, 0)
        v = (v >> (8 * (addr & 3))) & (((1 << (8 * size)) - 1) if size < 4 else 0xFFFFFFFF)
        self.log.write("%d 0x%08X R 0x%08X %d 0x%X\n" % (idx, pc, addr, size, v))
        return v


def run(a):
    loads = text_loads(a.elf, a.objdump)
    tmp = tempfile.mkdtemp(prefix="etm-fwloop-")
    sock = os.path.join(tmp, "gdb.sock")
    if os.path.exists(a.raw):
        os.unlink(a.raw)
    cmd = [a.qemu, "-M", a.machine, "-display", "none", "-monitor", "none", "-serial", "none",
           "-icount", "shift=3", "-singlestep", "-kernel", a.elf,
           "-plugin", "%s,out=%s,flush=on" % (a.plugin, a.raw),
           "-chardev", "socket,path=%s,server=on,wait=off,id=g0" % sock, "-gdb", "chardev:g0", "-S"]
    errf = open(os.path.join(tmp, "qemu.err"), "w+")
    q = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=errf)
    log = open(a.log, "w")
    dev = Devices(log)
    st = Stream(a.raw)
    entries = 0
    pends = 0
    try:
        g = Rsp(sock, a.timeout)
        for addr in loads + a.at + [a.handler]:
            r = g.cmd("Z0,%x,2" % addr)
            if r != "OK":
                raise Fail("cannot set a breakpoint at 0x%08X: %r" % (addr, r))
        load_set = set(loads)
        stops = load_set | set(a.at) | {a.handler}
        done = False
        while not done:
            r = g.cmd("c")
            if not r.startswith("T") and not r.startswith("S"):
                raise Fail("QEMU stopped: %r" % r)
            pc = g.reg(15)
            # Each stop is handled, then stepped over; a step that lands on
            # another stop (a handler's entry) is handled before going on.
            while pc in stops:
                st.follow(dev.store)
                if pc == a.handler:
                    entries += 1
                redirect = None
                if pc in a.at:
                    if entries >= a.count:
                        done = True
                        break
                    if pends == entries:  # one interrupt at a time
                        hw1 = struct.unpack("<H", g.read_mem(pc, 2))[0]
                        if (hw1 & 0xF800) != 0x6000:
                            raise Fail("0x%08X: not STR Rt, [Rn, #imm] (0x%04X)" % (pc, hw1))
                        rt, rn, imm = hw1 & 7, (hw1 >> 3) & 7, ((hw1 >> 6) & 0x1F) << 2
                        redirect = (rt, g.reg(rt), rn, g.reg(rn))
                        g.set_reg(rt, 1 << (a.irq % 32))
                        g.set_reg(rn, 0xE000E200 + 4 * (a.irq // 32) - imm)
                        pends += 1
                ea = None
                if pc in load_set:
                    hw1, hw2 = struct.unpack("<HH", g.read_mem(pc, 4))
                    size, rt, rn, off, rm = decode_load(hw1, hw2 if is_wide(hw1) else None)
                    ea = (g.reg(rn) + (off if off is not None else g.reg(rm))) & 0xFFFFFFFF
                r = g.cmd("s")
                if not r.startswith("T") and not r.startswith("S"):
                    raise Fail("QEMU stopped: %r" % r)
                st.follow(dev.store)
                if redirect:
                    g.set_reg(redirect[0], redirect[1])
                    g.set_reg(redirect[2], redirect[3])
                if ea is not None and emulated(ea):
                    if rt == 15:
                        raise Fail("a load to the PC from 0x%08X at 0x%08X" % (ea, pc))
                    g.set_reg(rt, dev.load(st.insns - 1, pc, ea, size))
                pc = g.reg(15)
        log.write("# interrupts %d\n" % entries)
        for port, items in sorted(dev.itm.items()):
            text = "".join(chr(v) if s == 1 and 32 <= v < 127 else "[%d]" % v for s, v in items)
            log.write("# itm %d %s\n" % (port, text))
    finally:
        q.kill()
        q.wait()
        errf.seek(0)
        qemu_err = errf.read().strip()
        errf.close()
        if sys.exc_info()[0] is not None and qemu_err:  # what QEMU said, with the loop's own error
            print("etm_fwloop: QEMU: %s" % qemu_err, file=sys.stderr)
        log.close()
        try:
            st.follow(dev.store)
        except Fail:
            pass
        st.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qemu", default="qemu-system-arm")
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--objdump", default="arm-none-eabi-objdump")
    ap.add_argument("--elf", required=True)
    ap.add_argument("--machine", default="stm32vldiscovery")
    ap.add_argument("--raw", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--irq", type=int, default=28)
    ap.add_argument("--at", type=lambda s: [int(x, 0) for x in s.split(",")], default=[0x8000272, 0x8000280])
    ap.add_argument("--handler", type=lambda s: int(s, 0), default=0x80002EC)
    ap.add_argument("--count", type=int, default=9)
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    try:
        return run(a)
    except (Fail, OSError, subprocess.CalledProcessError) as e:
        print("etm_fwloop: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
