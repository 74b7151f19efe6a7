"""The Python bindings (python/etm) against the tool and the library's own
checks: the same stimulus through `etm gen` and `etm run` gives the same trace
bytes as etm.generate and Etm.run; the decoder and the scoreboard agree with
the model's counts; bad input raises EtmError with the library's message.

    ETM_TOOL=path/to/etm ETM_LIBRARY=path/to/libetm.so.0 python3 -m unittest test_etm
"""
import os
import subprocess
import tempfile
import unittest

import numpy as np

import etm

TOOL = os.environ.get("ETM_TOOL", "etm")


class Bindings(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.vec = os.path.join(cls.tmp.name, "s.vec")
        cls.trace = os.path.join(cls.tmp.name, "t.bin")
        subprocess.run([TOOL, "gen", "--cycles", "50000", "--seed", "3", "--atb-stall", "40", "--atb-burst", "20",
                        cls.vec], check=True)
        subprocess.run([TOOL, "run", "--quiet", "--trace", cls.trace, cls.vec], check=True)
        with open(cls.trace, "rb") as f:
            cls.tool_trace = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_records_are_the_tools(self):
        """generate() gives the records `etm gen` writes; read_vectors() reads them back."""
        cfg, recs = etm.read_vectors(self.vec)
        mine = etm.generate(50000, seed=3, atb_stall_pct=40, atb_burst=20)
        self.assertEqual(recs.dtype, etm.record_dtype())
        self.assertEqual(len(recs), 50000)
        for field in ("ETMIVALID", "ETMIA", "ETMIBRANCH", "ETMINTSTAT", "ETMINTNUM"):
            self.assertTrue(np.array_equal(recs[field], mine[field]), field)
        self.assertGreater(int(recs["ETMIVALID"].sum()), 10000)

    def test_trace_is_the_tools(self):
        """Etm.run on those records makes the bytes `etm run --trace` wrote."""
        cfg, recs = etm.read_vectors(self.vec)
        with etm.Etm(cfg) as m:
            first = m.run(recs[:20000])
            rest = m.run(recs[20000:], finish=True)
            stats = m.stats()
        self.assertEqual(first + rest, self.tool_trace)
        self.assertEqual(stats["cycles"], 50000)
        self.assertEqual(stats["bytes"], len(self.tool_trace))
        self.assertGreater(stats["overflows"], 0)  # the stalled ATB
        self.assertEqual(sum(stats["packets"].values()) > 0, True)

    def test_decode_and_verify(self):
        cfg, recs = etm.read_vectors(self.vec)
        with etm.Etm(cfg) as m:
            trace = m.run(recs, finish=True)
            stats = m.stats()
            ovf = m.untraced_overflow()
        d = etm.decode(trace, cfg)
        self.assertEqual(d["bytes"], len(trace))
        self.assertLessEqual(d["atoms"], stats["atoms"])  # some were lost to the overflows
        self.assertGreater(d["atoms"], stats["atoms"] // 2)
        self.assertEqual(d["errors"], [])
        v = etm.verify(cfg, recs, trace, untraced_overflow=ovf)
        self.assertTrue(v["passed"], v["first_failure"])
        self.assertGreaterEqual(v["overflows"], stats["overflows"] - 1)  # one may be open at the end
        self.assertGreater(v["instructions"], 1000)
        bad = bytearray(trace)
        bad[len(bad) // 2] ^= 0x10
        w = etm.verify(cfg, recs, bytes(bad), untraced_overflow=ovf)
        self.assertFalse(w["passed"])
        self.assertRegex(w["first_failure"]["rule"], r"^[a-z-]+$")
        self.assertTrue(w["first_failure"]["text"])

    def test_config(self):
        cfg = etm.Config.preset("cm3-ca-whatif").set("ETMCR", 0x1810).set("FIFO_DEPTH", 24).validate()
        recs = etm.generate(20000, seed=5)
        m = etm.Etm(cfg)
        trace = m.run(recs, finish=True)
        self.assertEqual(m.stats()["overflows"], 0)
        d = etm.decode(trace, cfg)
        self.assertGreater(d["cycles"], 0)  # cycle-accurate: the decoder counts cycles
        self.assertEqual(d["atoms"], m.stats()["atoms"])  # no overflow: every atom decoded
        m.close()
        with self.assertRaisesRegex(etm.EtmError, "NOPE"):
            etm.Config.preset().set("NOPE", 1)
        with self.assertRaisesRegex(etm.EtmError, "nonesuch"):
            etm.Config.preset("nonesuch")
        with self.assertRaisesRegex(etm.EtmError, "cycle accurate"):
            etm.Etm(etm.Config.preset("etm-m3").set("ETMCR", 0x1810))
        with self.assertRaises(TypeError):
            etm.Etm().run(np.zeros(4, dtype=np.uint8))

    def test_numbers_refused_not_wrapped(self):
        # The tool's number parser (etm/number.h): no wrap past 2^64, no sign,
        # no value outside the documented range, no bool or float.
        for kw, msg in ((dict(seed=2**70), "above 2\\^64-1"), (dict(seed=-1), "has a sign"),
                        (dict(seed=True), "no whole number"), (dict(seed=1.0), "no whole number"),
                        (dict(issue_width=3), "out of range: 1 to 2"), (dict(atb_stall_pct=100), "0 to 99"),
                        (dict(irq_period=2**32), "out of range"), (dict(sleep_pct=1001), "0 to 1000")):
            with self.assertRaisesRegex(etm.EtmError, msg):
                etm.generate(10, **kw)
        with self.assertRaisesRegex(etm.EtmError, "cycles: '-1' has a sign"):
            etm.generate(-1)
        self.assertEqual(len(etm.generate(10, seed=2**64 - 1)), 10)


if __name__ == "__main__":
    unittest.main()
