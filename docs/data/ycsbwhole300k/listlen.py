"""Each run in kindsall.py's TSV (stdin) with its server's list as sampled (once a second: mean
pages_data, pages_free, history_len over the run's samples) and the rollback-segment / undo gap per
write. From the checkout root: python docs/data/ycsbwhole300k/listlen.py < kinds.tsv"""

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
seen = set()
out = []
for r in rows:
    key = (r["whole"], r["qps"], r["undo_wr"])
    if key in seen or r["logs"] == "0":
        continue
    seen.add(key)
    doc = load(r["file"])
    s = [x for x in doc.get("samples") or [] if "pages_data" in x]
    if len(s) < 3:
        continue
    s = s[1:-1]  # the first and last second are partial
    data = np.mean([x["pages_data"] for x in s])
    free = np.mean([x["pages_free"] for x in s])
    hist = np.mean([x.get("history_len", 0) for x in s])
    w = int(r["ops"]) / 2
    gap = (int(r["rseg_srv"]) - int(r["rseg_mod"]) + int(r["undo_srv"]) - int(r["undo_mod"])) / w
    out.append(
        (
            r["preset"],
            r["srv"],
            r["rows"],
            r["ops"],
            int(r["qps"]),
            float(r["err%"]),
            data,
            free,
            hist,
            int(r["rseg_srv"]) / w,
            int(r["rseg_mod"]) / w,
            gap,
            doc["prediction"].get("capacity_pages"),
            r["file"],
        )
    )
print("preset srv rows ops qps err% | srv list: data free history | rseg/write srv model | gap/write | model list")
for o in out:
    print(
        f"{o[0][5:]} {o[1]} {int(o[2]) // 1000}k {int(o[3]) // 1000}k {o[4]:5d} {o[5]:6.1f} | "
        f"{o[6]:6.0f} {o[7]:6.0f} {o[8]:7.0f} | "
        f"{o[9]:.2f} {o[10]:.2f} | {o[11]:+.2f} | {o[12]}"
    )
a = np.array([(o[4], o[5], o[6], o[7], o[8], o[11]) for o in out], dtype=float)
for name, i in (("qps", 0), ("list (pages_data)", 2), ("free", 3), ("history", 4)):
    print(
        f"corr(whole err%, {name}) = {np.corrcoef(a[:, 1], a[:, i])[0, 1]:+.2f}   "
        f"corr(gap/write, {name}) = {np.corrcoef(a[:, 5], a[:, i])[0, 1]:+.2f}"
    )
