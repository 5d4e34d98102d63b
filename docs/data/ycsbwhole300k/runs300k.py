"""The 300k-row runs of kindsall.py's TSV (stdin) from 800 q/s, one line each: start, q/s, the cold
start's shutdown and history length at stop, the seed's rows/s, whole error, the server's rollback
segment reads and undo writes a write, the gap a write.
python docs/data/ycsbwhole300k/runs300k.py [ROWS] < kinds.tsv (ROWS: 300000 unless given)"""

import csv
import gzip
import json
import sys
from pathlib import Path


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if p.endswith(".gz") else raw)


seen, out = set(), []
for r in csv.DictReader(sys.stdin, delimiter="\t"):
    key = (r["whole"], r["qps"], r["undo_wr"])
    if (
        key in seen
        or r["logs"] == "0"
        or int(r["qps"]) < 800
        or r["rows"] != (sys.argv[1] if len(sys.argv) > 1 else "300000")
    ):
        continue
    seen.add(key)
    doc = load(r["file"])
    cs = doc["server"].get("cold_start") or {}
    fl = doc["buffer_pool"]["flush"]
    t = next(iter(doc["dataset"]["tables"].values()))
    w = int(r["ops"]) / 2
    gap = (int(r["rseg_srv"]) - int(r["rseg_mod"]) + int(r["undo_srv"]) - int(r["undo_mod"])) / w
    out.append(
        (
            doc["started_at"][:16],
            r["preset"][4:],
            r["srv"],
            int(r["ops"]) // 1000,
            int(r["qps"]),
            cs.get("shutdown"),
            cs.get("history_len_at_stop"),
            t.get("seed_rows_per_s"),
            t.get("seeded"),
            float(r["err%"]),
            int(r["rseg_srv"]) / w,
            fl["undo_pages_written"] / w,
            fl.get("system_pages_written", 0) / w,
            gap,
            doc.get("loadgen_version"),
            r["file"].split("/", 2)[2],
        )
    )
print(
    "started preset srv kops qps shutdown hist_at_stop seed_rows/s seeded whole% "
    "rseg/w undo_wr/w sys_wr/w gap/w version file"
)
for o in sorted(out):
    print(" ".join(f"{x:.2f}" if isinstance(x, float) else str(x) for x in o))
