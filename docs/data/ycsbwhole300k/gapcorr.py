"""What the rollback-segment + undo gap a write (server - model, kindsall.py's TSV on stdin) goes with,
run by run, among the stored MariaDB ycsb-a/ycsb-f 16M runs from 800 q/s (purge running). Pearson r of
the gap against each of the run's counters. From the checkout root:
python docs/data/ycsbwhole300k/gapcorr.py [ROWS] < kinds.tsv (ROWS: only runs at that many rows)"""

import csv
import gzip
import json
import sys
from pathlib import Path

import numpy as np


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if p.endswith(".gz") else raw)


rows = list(csv.DictReader(sys.stdin, delimiter="\t"))
seen, feats, gaps, names = set(), [], [], None
for r in rows:
    key = (r["whole"], r["qps"], r["undo_wr"])
    if key in seen or r["logs"] == "0" or int(r["qps"]) < 800 or (len(sys.argv) > 1 and r["rows"] != sys.argv[1]):
        continue
    seen.add(key)
    doc = load(r["file"])
    fl = doc["buffer_pool"]["flush"]
    w = int(r["ops"]) / 2
    cs = doc["server"].get("cold_start") or {}
    f = {
        "qps": int(r["qps"]),
        "rows": int(r["rows"]),
        "11.8": r["srv"] == "11.8",
        "ycsb-f": r["preset"] == "mix:ycsb-f",
        "undo_written/write": fl["undo_pages_written"] / w,
        "logs/write": fl["purge_undo_pages"] / w,
        "undo_written/log": fl["undo_pages_written"] / fl["purge_undo_pages"],
        "purge_batches/s": fl["purge_batches"] / doc["result"]["elapsed_s"],
        "pages_created/write": fl["pages_created"] / w,
        "system_pages_written/write": fl.get("system_pages_written", 0) / w,
        "lru flushed/evicted": fl["lru_batch_flushed"] / max(1, fl["lru_batch_evicted"]),
        "lru evicted/write": fl["lru_batch_evicted"] / w,
        "history_len_max": doc["buffer_pool"].get("history_len_max") or 0,
        "history_len_at_stop": cs.get("history_len_at_stop") or 0,
        "startup_pages_data_max": cs.get("startup_pages_data_max") or 0,
        "ibuf_bitmap_read/write": fl.get("ibuf_bitmap_pages_read", 0) / w,
        "inode_read/write": fl["inode_pages_read"] / w,
        "table_err%": 100
        * (
            sum(t["pages_read"] for t in doc["prediction"]["tables"].values())
            / max(1, sum(t.get("file_pages_read", 0) for t in doc["buffer_pool"]["tables"].values()))
            - 1
        )
        if doc.get("prediction", {}).get("tables")
        else 0,
    }
    names = list(f)
    feats.append([float(v) for v in f.values()])
    gaps.append((int(r["rseg_srv"]) - int(r["rseg_mod"]) + int(r["undo_srv"]) - int(r["undo_mod"])) / w)
X, g = np.array(feats), np.array(gaps)
print(f"{len(g)} runs from 800 q/s; gap a write {g.min():+.2f} .. {g.max():+.2f}, mean {g.mean():+.2f}")
for i, n in enumerate(names):
    if X[:, i].std() > 0:
        print(
            f"  r(gap, {n:28s}) = {np.corrcoef(g, X[:, i])[0, 1]:+.2f}   "
            f"(range {X[:, i].min():.3g} .. {X[:, i].max():.3g})"
        )
