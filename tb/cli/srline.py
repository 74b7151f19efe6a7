"""A serial line (8N1, least significant bit first, idle 1; or Manchester)
drawn sample by sample, and sigrok session files holding it on probe 5 (SWO), for the tests of
etm swo (tb/cli/swo_sigrok.py, tb/data/swo/make_captures.py). Written from the
frame's definition, as tb/common/uartline.h: sample i reads the bit whose time
span [t0 + k*T, t0 + (k+1)*T) holds i."""
import math
import zipfile

META = ("[global]\nsigrok version=0.5.2\n\n[device 1]\ncapturefile=logic-1\ntotal probes=8\n"
        "samplerate={rate}\ntotal analog=0\nprobe3=PC9\nprobe5=SWO\nprobe7=PC8\nunitsize={unit}\n")


def line(n, t0, T, values, gaps):
    """n samples: the bytes from time t0, bits of T samples, gaps idle bits after
    each byte (one number for all, or one per byte)."""
    if not isinstance(gaps, (list, tuple)):
        gaps = [gaps] * len(values)
    lv, t = bytearray(b"\x01") * n, t0
    for v, g in zip(values, gaps):
        for k in range(10):
            bit = 0 if k == 0 else 1 if k == 9 else (v >> (k - 1)) & 1
            for i in range(math.ceil(t + k * T), min(n, math.ceil(t + (k + 1) * T))):
                lv[i] = bit
        t += (10 + g) * T
    return lv


def manchester_line(n, t0, T, packets, gaps):
    """n samples of a Manchester line (idle 0): each packet (a list of bytes)
    from its start bit (a 1) through its bytes' bits, least significant
    first, then gaps[k] bits low; each bit two halves of T/2, 1 high then low,
    0 low then high. Returns the samples and each packet's first sample."""
    lv, t, starts = bytearray(n), t0, []
    for pk, g in zip(packets, gaps):
        bits = [1] + [(b >> i) & 1 for b in pk for i in range(8)]
        starts.append(math.ceil(t))
        for k, bit in enumerate(bits):
            for h in range(2):
                a = t + k * T + h * T / 2
                for i in range(math.ceil(a), min(n, math.ceil(a + T / 2))):
                    lv[i] = bit if h == 0 else 1 - bit
        t += (len(bits) + g) * T
    return lv, starts


def write_capture(path, lv, rate="24 MHz", unit=1, method=zipfile.ZIP_DEFLATED, meta=None, chunk=500, square=50):
    """A session file (version 2): lv on probe 5, a square wave of half-period
    square on probe 3, chunks of chunk samples; entries dated 1980-01-01 so that
    the same capture makes the same file."""
    samples = bytes((b << 4) | (((i // square) & 1) << 2) for i, b in enumerate(lv))
    entries = [("version", "2"), ("metadata", meta if meta is not None else META.format(rate=rate, unit=unit))]
    entries += [(f"logic-1-{k // chunk + 1}", samples[k:k + chunk]) for k in range(0, len(samples), chunk)]
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, compress_type=method)
