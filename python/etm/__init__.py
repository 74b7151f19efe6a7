"""etm: Python bindings of etm-model, the cycle-accurate model of the ARM
Embedded Trace Macrocell, over its C library (libetm) through ctypes.

Records are NumPy structured arrays laid out exactly as the library's
``etm_in_t`` (one record per core cycle; the fields are the interface
signals, ``ETMIVALID``, ``ETMIA``, ...), so whole arrays go to the library in
one call.

    import etm
    cfg = etm.Config.preset("etm-m3")
    cfg.set("FIFO_DEPTH", 32)
    records = etm.generate(100_000, seed=1, atb_stall_pct=30, atb_burst=10)
    with etm.Etm(cfg) as model:
        trace = model.run(records, finish=True)
        stats = model.stats()
    print(stats["overflows"], 8 * len(trace) / stats["instructions"])
    print(etm.decode(trace, cfg)["atoms"])
    print(etm.verify(cfg, records, trace)["passed"])

The library is found through ETM_LIBRARY (a path), next to an installed
package (PREFIX/lib/libetm.so.0 for PREFIX/lib/python3/dist-packages/etm), or
by the dynamic linker (libetm.so.0).
"""

import ctypes
import ctypes.util
import os

import numpy as np

__all__ = ["EtmError", "Config", "Etm", "record_dtype", "generate", "read_vectors", "decode", "verify",
           "library_version"]


class EtmError(Exception):
    """An error the library reported, with its message (file, line, cycle or
    byte offset and the rule, where the library gives them)."""


def _load():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("ETM_LIBRARY"):
        candidates.append(os.environ["ETM_LIBRARY"])
    candidates.append(os.path.normpath(os.path.join(here, "..", "..", "..", "libetm.so.0")))
    found = ctypes.util.find_library("etm")
    if found:
        candidates.append(found)
    candidates.append("libetm.so.0")
    errors = []
    for c in candidates:
        try:
            return ctypes.CDLL(c)
        except OSError as e:
            errors.append(f"{c}: {e}")
    raise ImportError("etm: libetm not found (set ETM_LIBRARY to its path): " + "; ".join(errors))


_lib = _load()
_u64 = ctypes.c_uint64
_size = ctypes.c_size_t
_vp = ctypes.c_void_p


def _proto(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


class _Diag(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char_p), ("line", ctypes.c_ulong), ("cycle", _u64), ("offset", _u64),
                ("code", ctypes.c_int), ("msg", ctypes.c_char * 256)]


class _Signal(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("width", ctypes.c_uint8), ("lsb", ctypes.c_uint8),
                ("size", ctypes.c_uint8), ("kind", ctypes.c_uint8), ("offset", ctypes.c_uint16),
                ("flags", ctypes.c_uint8), ("doc", ctypes.c_char_p)]


class _GenParams(ctypes.Structure):
    _fields_ = [("seed", _u64), ("issue_width", ctypes.c_uint), ("irq_period", ctypes.c_uint),
                ("max_intnum", ctypes.c_uint), ("stall_pct", ctypes.c_uint), ("fold_pct", ctypes.c_uint),
                ("data", ctypes.c_int), ("data_mix", ctypes.c_int), ("data_delay", ctypes.c_uint),
                ("triggers", ctypes.c_int), ("sleep_pct", ctypes.c_uint), ("thread_base", ctypes.c_uint32),
                ("handler_base", ctypes.c_uint32), ("atb_stall_pct", ctypes.c_uint), ("atb_burst", ctypes.c_uint)]


class _VerifyOpts(ctypes.Structure):
    _fields_ = [("at_reset", ctypes.c_int), ("max_lag", _u64), ("max_latency", _u64)]


_STATS_SCALARS_BEFORE = ["cycles", "instructions", "atoms", "bytes", "port_bytes"]
_STATS_SCALARS_AFTER = ["overflows", "bytes_lost", "cycles_lost", "violations", "exceptions", "triggers",
                        "untraceable", "fifofull_cycles", "staged_cycles", "stage_overflows", "ss_starts", "ss_stops",
                        "counter_reloads", "include_hits", "exclude_hits", "reg_writes", "restarts",
                        "internal_errors"]
_DEC_AFTER = ["instructions", "atoms", "withdrawn", "unknown_atoms", "cycles", "transfers", "unresolved"]
_VERIFY_FIELDS = ["cycles", "bytes", "instructions", "traced_expected", "untraced", "exceptions", "returns",
                  "cancels", "branches", "isyncs", "asyncs", "triggers", "transfers", "data_checked", "data_lost",
                  "overflows", "lost", "cycles_checked", "max_sync_gap", "max_lag", "max_latency", "failures"]

_proto("etm_version_string", ctypes.c_char_p)
for _n in ("etm_config_size", "etm_in_size", "etm_stats_size", "etm_v3dec_stats_size", "etm_verify_result_size",
           "etm_gen_params_size", "etm_diag_size"):
    _proto(_n, _size)
_proto("etm_config_preset", ctypes.c_int, _vp, ctypes.c_char_p)
_proto("etm_config_parse_line", ctypes.c_int, _vp, ctypes.c_char_p, _vp, _vp, ctypes.POINTER(_Diag))
_proto("etm_config_read_file", ctypes.c_int, _vp, ctypes.c_char_p, ctypes.POINTER(_Diag))
_proto("etm_config_validate", ctypes.c_int, _vp, ctypes.POINTER(_Diag), _vp)
_proto("etm_create", ctypes.c_int, ctypes.POINTER(_vp), _vp, ctypes.POINTER(_Diag))
_proto("etm_destroy", None, _vp)
_proto("etm_get_stats", _vp, _vp)
_proto("etm_untraced_overflow", ctypes.c_int, _vp)
_proto("etm_run_records", ctypes.c_int, _vp, _vp, _size, ctypes.c_int, _vp, _size, ctypes.POINTER(_size),
       ctypes.POINTER(_size))
_proto("etm_pkt_kind_name", ctypes.c_char_p, ctypes.c_int)
_proto("etm_pkt_kind_id", ctypes.c_char_p, ctypes.c_int)
_proto("etm_strerror", ctypes.c_char_p, ctypes.c_int)
_proto("etm_gen_params_default", None, ctypes.POINTER(_GenParams))
_proto("etm_gen_create", ctypes.c_int, ctypes.POINTER(_vp), ctypes.POINTER(_GenParams), ctypes.POINTER(_Diag))
_proto("etm_gen_fill", None, _vp, _vp, _size)
_proto("etm_gen_free", None, _vp)
_proto("etm_vec_open", ctypes.c_int, ctypes.POINTER(_vp), ctypes.c_char_p, ctypes.POINTER(_Diag))
_proto("etm_vec_config", _vp, _vp)
_proto("etm_vec_read_in", ctypes.c_int, _vp, _vp, ctypes.POINTER(_Diag))
_proto("etm_vec_close", None, _vp)
_proto("etm_v3dec_create", ctypes.c_int, ctypes.POINTER(_vp), _vp, ctypes.c_uint, ctypes.POINTER(_Diag))
_proto("etm_v3dec_feed", ctypes.c_int, _vp, _vp, _size, ctypes.POINTER(_size), ctypes.POINTER(_Diag))
_proto("etm_v3dec_end", ctypes.c_int, _vp, ctypes.POINTER(_Diag))
_proto("etm_v3dec_get_stats", _vp, _vp)
_proto("etm_v3dec_destroy", None, _vp)
_proto("etm_v3pkt_kind_name", ctypes.c_char_p, ctypes.c_int)
_proto("etm_verify_create", ctypes.c_int, ctypes.POINTER(_vp), _vp, ctypes.POINTER(_VerifyOpts),
       ctypes.POINTER(_Diag))
_proto("etm_verify_cycles", ctypes.c_int, _vp, _vp, _size)
_proto("etm_verify_bytes", ctypes.c_int, _vp, _vp, _size, ctypes.c_int)
_proto("etm_verify_end", ctypes.c_int, _vp, ctypes.c_int)
_proto("etm_verify_result", _vp, _vp)
_proto("etm_verify_destroy", None, _vp)
_proto("etm_vfail_id", ctypes.c_char_p, ctypes.c_int)
_proto("etm_vfail_text", ctypes.c_char_p, ctypes.c_int)

_ETM_END = next(k for k in range(64) if _lib.etm_strerror(k) == b"end of input")  # the library's ETM_END

# The mirrored structures must be the library's size: a library of another
# layout is refused here rather than misread.
for _name, _mine in (("etm_diag_size", ctypes.sizeof(_Diag)), ("etm_gen_params_size", ctypes.sizeof(_GenParams)),
                     ("etm_verify_result_size", 8 * len(_VERIFY_FIELDS) + 24 + 400)):
    if getattr(_lib, _name)() != _mine:
        raise ImportError(f"etm: {_name}() is {getattr(_lib, _name)()}, these bindings expect {_mine}")

_IN_SIZE = _lib.etm_in_size()
_CONFIG_SIZE = _lib.etm_config_size()
_PKT_KINDS = (_lib.etm_stats_size() // 8) - len(_STATS_SCALARS_BEFORE) - len(_STATS_SCALARS_AFTER)
_DEC_KINDS = (_lib.etm_v3dec_stats_size() // 8) - 1 - len(_DEC_AFTER)


def library_version():
    """The version of the libetm these bindings loaded, e.g. "0.1.0"."""
    return _lib.etm_version_string().decode()


__version__ = library_version()


def _check(err, diag, what):
    if err != 0:
        msg = diag.msg.decode(errors="replace") if diag is not None else ""
        raise EtmError(f"{what}: {msg or _lib.etm_strerror(err).decode()}")


_proto("etm_number_parse", ctypes.c_int, ctypes.c_char_p, _u64, _u64, ctypes.POINTER(_u64), ctypes.POINTER(_Diag))


def _number(name, value, lo, hi):
    """value as the tool takes a number (etm/number.h: the same parser, the
    same messages): a whole number (an int, not a bool) within [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise EtmError(f"{name}: {value!r} is no whole number")
    out, d = _u64(), _Diag()
    _check(_lib.etm_number_parse(str(value).encode(), lo, hi, ctypes.byref(out), ctypes.byref(d)), d, name)
    return out.value


def _record_dtype():
    count = _size.in_dll(_lib, "etm_in_signal_count").value
    table = (_Signal * count).in_dll(_lib, "etm_in_signals")
    names, formats, offsets, taken = [], [], [], set()
    for i in range(count):
        s = table[i]
        if s.offset in taken:
            continue
        taken.add(s.offset)
        names.append(s.name.decode())
        formats.append({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[s.size])
        offsets.append(s.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": _IN_SIZE})


_DTYPE = _record_dtype()


def record_dtype():
    """The NumPy dtype of one record, the library's etm_in_t: a field per
    interface signal (ETMIVALID, ETMIBRANCH, ETMIA with bit 0 clear, ...,
    ETMDACTL, ETMDA, ETMDDCTL, ETMDD, the debug APB and ATREADY columns)."""
    return _DTYPE


def _records(records):
    a = np.ascontiguousarray(records)
    if a.dtype != _DTYPE:
        raise TypeError("etm: records must be an array of etm.record_dtype()")
    return a


class Config:
    """A register image of an ETM (the library's etm_config_t): its
    registers and the implementation's parameters (FIFO_DEPTH, PORT_BYTES...)."""

    def __init__(self):
        self._buf = ctypes.create_string_buffer(_CONFIG_SIZE)
        _check(_lib.etm_config_preset(self._buf, b"etm-m3"), None, "the etm-m3 preset")

    @classmethod
    def preset(cls, name="etm-m3"):
        """A named preset: etm-m3, cm3-ca-whatif, etmv3.0 ... etmv3.5, etmv1.0 ... etmv1.3."""
        c = cls()
        _check(_lib.etm_config_preset(c._buf, name.encode()), None, f"preset '{name}'")
        return c

    @classmethod
    def file(cls, path):
        """A register image from a file: NAME=0xVALUE lines, or a vector file's header."""
        c = cls()
        d = _Diag()
        _check(_lib.etm_config_read_file(c._buf, os.fsencode(path), ctypes.byref(d)), d, str(path))
        return c

    def set(self, name, value):
        """Set one register or parameter by name (ETMCR, FIFO_DEPTH, ...); returns self."""
        d = _Diag()
        line = f"{name}=0x{int(value):X}".encode()
        _check(_lib.etm_config_parse_line(self._buf, line, None, None, ctypes.byref(d)), d, f"{name}")
        return self

    def validate(self):
        """Check the image against the architecture; raises EtmError with the reason."""
        d = _Diag()
        _check(_lib.etm_config_validate(self._buf, ctypes.byref(d), None), d, "configuration")
        return self

    def copy(self):
        c = Config()
        ctypes.memmove(c._buf, self._buf, _CONFIG_SIZE)
        return c


def _stats_dict(ptr):
    v = (_u64 * (_lib.etm_stats_size() // 8)).from_address(ptr)
    out = {}
    i = 0
    for n in _STATS_SCALARS_BEFORE:
        out[n] = v[i]
        i += 1
    # The JSON results' names (etm_pkt_kind_id: the decoder's), kinds sharing one summed,
    # and the P-header formats one by one.
    packets = {}
    for k in range(_PKT_KINDS):
        if v[i + k]:
            name = _lib.etm_pkt_kind_id(k).decode()
            packets[name] = packets.get(name, 0) + v[i + k]
    out["packets"] = packets
    out["p_header_formats"] = {str(f + 1): v[i + f] for f in range(4) if v[i + f]}
    i += _PKT_KINDS
    for n in _STATS_SCALARS_AFTER:
        out[n] = v[i]
        i += 1
    return out


class Etm:
    """One ETM instance of the C model, as configured. run() steps it over
    records and returns the ETMv3 bytes that left its port."""

    def __init__(self, config=None):
        config = config or Config()
        self._ctx = _vp()
        d = _Diag()
        _check(_lib.etm_create(ctypes.byref(self._ctx), config._buf, ctypes.byref(d)), d, "configuration")
        self._ended = False

    def run(self, records, finish=False):
        """Step the model over an array of records (one per core cycle) and
        return the trace bytes that left the port in those cycles; with
        finish, the end of trace too: what is left drains."""
        if self._ended:
            raise EtmError("the trace has ended (finish was given)")
        a = _records(records)
        out = bytearray()
        n, done = len(a), 0
        buf = (ctypes.c_uint8 * (8 * min(n, 1 << 20) + 65536))()
        while True:
            nb, k = _size(), _size()
            base = a.ctypes.data + done * _IN_SIZE
            err = _lib.etm_run_records(self._ctx, base, n - done, int(finish), buf, len(buf), ctypes.byref(nb),
                                       ctypes.byref(k))
            _check(err, None, f"cycle {self.stats()['cycles']}")
            out += bytes(buf[:nb.value])
            done += k.value
            if done == n and (not finish or nb.value + 8 <= len(buf)):
                break
        self._ended = finish
        return bytes(out)

    def finish(self):
        """The end of trace: the bytes still in the model drain out."""
        return self.run(np.zeros(0, dtype=_DTYPE), finish=True)

    def stats(self):
        """The model's counts: cycles, instructions, atoms, bytes, packets by
        kind, overflows, bytes_lost, cycles_lost, exceptions, ..."""
        return _stats_dict(_lib.etm_get_stats(self._ctx))

    def untraced_overflow(self):
        """ETMSR[0]: an overflow whose restart never came when the trace ended."""
        return bool(_lib.etm_untraced_overflow(self._ctx))

    def close(self):
        if self._ctx:
            _lib.etm_destroy(self._ctx)
            self._ctx = _vp()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


def generate(cycles, seed=1, issue_width=1, irq_period=300, data=False, data_mix=False, triggers=False,
             sleep_pct=0, atb_stall_pct=0, atb_burst=1):
    """Legal random interface activity of a Cortex-M3 running a random
    program (the generator of `etm gen`, the same records for the same
    arguments): an array of `cycles` records."""
    cycles = _number("cycles", cycles, 0, 2**63 - 1)
    p = _GenParams()
    _lib.etm_gen_params_default(ctypes.byref(p))
    p.seed = _number("seed", seed, 0, 2**64 - 1)
    p.issue_width = _number("issue_width", issue_width, 1, 2)
    p.irq_period = _number("irq_period", irq_period, 0, 2**32 - 1)
    p.data, p.data_mix, p.triggers = int(data or data_mix), int(data_mix), int(triggers)
    p.sleep_pct = _number("sleep_pct", sleep_pct, 0, 1000)
    p.atb_stall_pct = _number("atb_stall_pct", atb_stall_pct, 0, 99)
    p.atb_burst = _number("atb_burst", atb_burst, 1, 1000000)
    g = _vp()
    d = _Diag()
    _check(_lib.etm_gen_create(ctypes.byref(g), ctypes.byref(p), ctypes.byref(d)), d, "generator")
    a = np.zeros(cycles, dtype=_DTYPE)
    _lib.etm_gen_fill(g, a.ctypes.data, cycles)
    _lib.etm_gen_free(g)
    return a


def read_vectors(path):
    """A stimulus vector file (text or binary): its register image and its records."""
    r = _vp()
    d = _Diag()
    _check(_lib.etm_vec_open(ctypes.byref(r), os.fsencode(path), ctypes.byref(d)), d, str(path))
    cfg = Config()
    ctypes.memmove(cfg._buf, _lib.etm_vec_config(r), _CONFIG_SIZE)
    chunks, a, k = [], np.zeros(65536, dtype=_DTYPE), 0
    try:
        while True:
            if k == len(a):
                chunks.append(a)
                a, k = np.zeros(65536, dtype=_DTYPE), 0
            err = _lib.etm_vec_read_in(r, a.ctypes.data + k * _IN_SIZE, ctypes.byref(d))
            if err == _ETM_END:
                break
            _check(err, d, str(path))
            k += 1
    finally:
        _lib.etm_vec_close(r)
    chunks.append(a[:k])
    out = np.empty(sum(len(c) for c in chunks), dtype=_DTYPE)  # concatenate would drop the padding
    at = 0
    for c in chunks:
        out[at:at + len(c)] = c
        at += len(c)
    return cfg, out


def decode(trace, config=None, v7m=True):
    """Decode ETMv3 bytes with the project's decoder (no code image): its
    counts, bytes, packets by kind, instructions, atoms, withdrawn, cycles,
    transfers; and `errors`, the messages of malformed packets (the decoder
    resynchronises after each)."""
    config = config or Config()
    dec = _vp()
    d = _Diag()
    _check(_lib.etm_v3dec_create(ctypes.byref(dec), config._buf, 1 if v7m else 0, ctypes.byref(d)), d, "decoder")
    data = bytes(trace)
    buf = ctypes.create_string_buffer(data, len(data))
    errors, at = [], 0
    while at < len(data):
        used = _size()
        err = _lib.etm_v3dec_feed(dec, ctypes.byref(buf, at), len(data) - at, ctypes.byref(used), ctypes.byref(d))
        if err != 0:
            errors.append(f"byte {d.offset}: {d.msg.decode(errors='replace')}")
        at += max(used.value, 1) if err != 0 else used.value
    if _lib.etm_v3dec_end(dec, ctypes.byref(d)) != 0:
        errors.append(f"at the end: {d.msg.decode(errors='replace')}")
    v = (_u64 * (_lib.etm_v3dec_stats_size() // 8)).from_address(_lib.etm_v3dec_get_stats(dec))
    out = {"bytes": v[0],
           "packets": {_lib.etm_v3pkt_kind_name(k).decode(): v[1 + k] for k in range(_DEC_KINDS) if v[1 + k]}}
    for i, n in enumerate(_DEC_AFTER):
        out[n] = v[1 + _DEC_KINDS + i]
    out["errors"] = errors
    _lib.etm_v3dec_destroy(dec)
    return out


def verify(config, records, trace, untraced_overflow=False):
    """The protocol scoreboard: does `trace` (ETMv3 bytes of any design) say
    exactly what the core did in `records`? Returns the result's counts,
    `passed`, and `first_failure` (rule, text, cycle, offset) or None.
    untraced_overflow: the design's ETMSR[0] at the end."""
    a = _records(records)
    opts = _VerifyOpts(0, max(1 << 18, 2 * len(a)), 0)  # every cycle is given before the bytes
    v = _vp()
    d = _Diag()
    _check(_lib.etm_verify_create(ctypes.byref(v), config._buf, ctypes.byref(opts), ctypes.byref(d)), d, "checker")
    try:
        _lib.etm_verify_cycles(v, a.ctypes.data, len(a))
        data = bytes(trace)
        _lib.etm_verify_bytes(v, data, len(data), 0)
        _lib.etm_verify_end(v, int(bool(untraced_overflow)))
        p = _lib.etm_verify_result(v)
        vals = (_u64 * len(_VERIFY_FIELDS)).from_address(p)
        out = dict(zip(_VERIFY_FIELDS, vals))
        out["passed"] = out["failures"] == 0
        out["first_failure"] = None
        if out["failures"]:
            base = p + 8 * len(_VERIFY_FIELDS)
            rule = ctypes.c_int.from_address(base).value
            cycle = _u64.from_address(base + 8).value
            offset = _u64.from_address(base + 16).value
            text = ctypes.string_at(base + 24).decode(errors="replace")
            out["first_failure"] = {"rule": _lib.etm_vfail_id(rule).decode(), "rule_text":
                                    _lib.etm_vfail_text(rule).decode(), "cycle": cycle, "offset": offset,
                                    "text": text}
        return out
    finally:
        _lib.etm_verify_destroy(v)
