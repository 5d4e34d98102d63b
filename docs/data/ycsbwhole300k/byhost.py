"""The stored MariaDB ycsb-a/ycsb-f 16M runs from 800 q/s (kindsall.py's TSV on stdin) by the host
they ran on (host.kernel's build: each a machine of its own day) and rows: the rollback-segment + undo
gap a write (server - model), the whole error, and the server's counters a write that could differ
by machine. python docs/data/ycsbwhole300k/byhost.py < kinds.tsv"""

import collections
import csv
import gzip
import json
import sys
from pathlib import Path

import numpy as np


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if p.endswith(".gz") else raw)


seen, g = set(), collections.defaultdict(list)
for r in csv.DictReader(sys.stdin, delimiter="\t"):
    key = (r["whole"], r["qps"], r["undo_wr"])
    if key in seen or r["logs"] == "0" or int(r["qps"]) < 800:
        continue
    seen.add(key)
    d = load(r["file"])
    fl = d["buffer_pool"]["flush"]
    w = int(r["ops"]) / 2
    gap = (int(r["rseg_srv"]) - int(r["rseg_mod"]) + int(r["undo_srv"]) - int(r["undo_mod"])) / w
    lat = d["result"].get("latency_us") or {}
    g[(d["host"]["kernel"].rsplit("-", 1)[-1], int(r["rows"]) // 1000)].append(
        (
            gap,
            float(r["err%"]),
            int(r["qps"]),
            fl["lru_batch_flushed"] / max(1, fl["lru_batch_evicted"]),
            fl["undo_pages_written"] / w,
            fl["purge_undo_pages"] / w,
            fl["purge_batches"] / d["result"]["elapsed_s"],
            int(r["rseg_srv"]) / w,
            int(r["rseg_mod"]) / w,
            int(r["undo_srv"]) / fl["undo_pages_written"],
            lat.get("p50", np.nan),
            lat.get("p99", np.nan),
        )
    )
print(
    "host rows n | gap/write | whole% | q/s | lru flushed/evicted | undo written/w | logs/w | purge batches/s | "
    "rseg read/w srv, model | undo read/written | latency p50 p99 us"
)
for k in sorted(g, key=lambda k: (k[1], int(k[0][1:]))):
    a = np.array(g[k], dtype=float)
    m = np.nanmean(a, axis=0)
    print(
        f"{k[0]:6s} {k[1]:3d}k {len(a):3d} | {m[0]:+.2f} | {m[1]:+5.1f} | {m[2]:5.0f} | "
        f"{m[3]:.3f} | {m[4]:.2f} | {m[5]:.2f} | "
        f"{m[6]:5.1f} | {m[7]:.2f} {m[8]:.2f} | {m[9]:.2f} | {m[10]:.0f} {m[11]:.0f}"
    )
