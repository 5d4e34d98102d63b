"""Pinned vs unpinned miniatures (tracesample.PIN_SHARE) on a trace: pages read per pool, SE."""
import sys, json
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/bench")
from pathlib import Path
import predict_speed as ps
from loadgen.analysis import tracesample, tracemodel, tracegeometry
from loadgen.workload import optrace as ot
ops, rows, mix = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
if mix == "writes":
    ps.MIX = {"point": 0.60, "range": 0.12, "update": 0.18, "insert": 0.06, "delete": 0.04}
path = Path(f"/work/scratch/tracespeed5/pb/acc-{ops}-{rows}-{mix}.optrace")
if not path.exists():
    ps.write_trace(path, ops, rows, 3)
Path("/work/scratch/tracespeed5/pb/app.sql").write_text(ps.SCHEMA)
from loadgen.cli import tracepredict
import io, contextlib
out = {}
for share in (0.25, 0.0):
    tracesample.PIN_SHARE = share
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        tracepredict.run(str(path), None, "/work/scratch/tracespeed5/pb/app.sql", rows, sys.argv[5], None, {}, 1000.0, False, "json")
    doc = json.loads(buf.getvalue())
    out[share] = [(p["pool_bytes"] >> 20, p["pages_read"], (p.get("sampled") or {}).get("se_pages")) for p in doc["pools"]]
for a, b in zip(out[0.25], out[0.0]):
    d = a[1] - b[1]
    print(f"{a[0]}M pinned {a[1]:,} plain {b[1]:,} diff {d:+,} ({100*d/max(b[1],1):+.2f}%, {d/max(b[2] or 1,1):+.3f} SE; SE {b[2]})")
