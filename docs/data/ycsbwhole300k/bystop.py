"""The rollback-segment + undo gap a write (kindsall.py's TSV on stdin) by the server's history list
length at the cold restart before the run (server.cold_start.history_len_at_stop; None: not recorded),
MariaDB ycsb-a/ycsb-f 16M runs from 800 q/s. python docs/data/ycsbwhole300k/bystop.py < kinds.tsv"""

import collections
import csv
import gzip
import json
import sys
from pathlib import Path


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if p.endswith(".gz") else raw)


seen, groups = set(), collections.defaultdict(list)
for r in csv.DictReader(sys.stdin, delimiter="\t"):
    key = (r["whole"], r["qps"], r["undo_wr"])
    if key in seen or r["logs"] == "0" or int(r["qps"]) < 800:
        continue
    seen.add(key)
    doc = load(r["file"])
    cs = doc["server"].get("cold_start") or {}
    w = int(r["ops"]) / 2
    gap = (int(r["rseg_srv"]) - int(r["rseg_mod"]) + int(r["undo_srv"]) - int(r["undo_mod"])) / w
    groups[(int(r["rows"]) // 1000, cs.get("history_len_at_stop"), cs.get("shutdown"))].append(
        (gap, float(r["err%"]), r["file"].split("/", 2)[2])
    )
for k in sorted(groups, key=str):
    g = sorted(groups[k])
    gaps = [x[0] for x in g]
    errs = [x[1] for x in g]
    print(
        f"rows {k[0]}k history_len_at_stop={k[1]} shutdown={k[2]}: {len(g)} runs, gap/write "
        f"{min(gaps):+.2f} .. {max(gaps):+.2f} (mean {sum(gaps) / len(g):+.2f}), "
        f"whole err {min(errs):+.1f} .. {max(errs):+.1f}% "
        f"(mean {sum(errs) / len(g):+.1f})"
    )
