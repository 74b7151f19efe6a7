#!/usr/bin/env python3
"""A what-if study in a few lines: how deep must the ETM-M3's FIFO be for a
trace sink that holds ATREADY low a third of the time? For each FIFO depth,
the model traces the same generated workload; the plot shows the overflows
and the trace lost, and the bits per instruction that reached the sink.

    python3 fifo_sweep.py [OUT.png] [CYCLES]
"""
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

import etm  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "fifo_sweep.png"
cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
records = etm.generate(cycles, seed=7, atb_stall_pct=33, atb_burst=12)
depths = [24, 32, 48, 64, 96, 128, 192, 256]  # 24: the least the model takes (a cycle that starts trace)
overflows, lost, bpi = [], [], []
for depth in depths:
    cfg = etm.Config.preset("etm-m3").set("FIFO_DEPTH", depth)
    with etm.Etm(cfg) as model:
        trace = model.run(records, finish=True)
        s = model.stats()
    overflows.append(s["overflows"])
    lost.append(100.0 * s["cycles_lost"] / s["cycles"])
    bpi.append(8.0 * len(trace) / s["instructions"])
    print(f"FIFO_DEPTH {depth:4}: {s['overflows']:6} overflows, {lost[-1]:5.1f} % of cycles lost, "
          f"{bpi[-1]:.3f} bits per instruction")

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(depths, overflows, "o-", label="overflows")
ax.set_xscale("log", base=2)
ax.set_xlabel("FIFO_DEPTH (bytes)")
ax.set_ylabel("overflows")
ax2 = ax.twinx()
ax2.plot(depths, lost, "s--", color="tab:red", label="cycles lost (%)")
ax2.set_ylabel("cycles whose trace was lost (%)")
ax.set_title(f"ETM-M3, ATREADY low 33 % of cycles, {cycles} cycles")
fig.legend(loc="center right", bbox_to_anchor=(0.88, 0.55))
fig.tight_layout()
fig.savefig(out, dpi=100)
print(f"plot: {out}")
