"""Miniatures vs the exact pools of bench/predict_speed.py's trace, with each prediction's interval:
cov.py TREE TRACE_DIR OPS SALTS [OUT.jsonl]. FLAVOR=mysql|mariadb; EXACT=a,b,c,d skips the exact run.
MySQL: tracesample.MYSQL_MINI on for the miniatures and SAMPLE_MIN_OPS 1M (so 3M gets its miniatures and
its one-phase pools, as docs/data/minibias/bis.py); the exact run is the curve's exact (one-phase) pools.
One JSON line a run: salt, mode, per pool pages_read / low / high / se_pages / rate, CPU s of the run."""

import json, os, sys, time
from pathlib import Path

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/bench")
import predict_speed as ps
from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts
from loadgen.units import parse_pools
from loadgen.workload import optrace

flavor = os.environ.get("FLAVOR", "mysql")
work, ops = Path(sys.argv[2]), int(sys.argv[3])
salts = [int(s) for s in sys.argv[4].split(",")] if sys.argv[4] else []
out = open(sys.argv[5], "a") if len(sys.argv) > 5 else None
pools = parse_pools("64M,256M,1G,4G", "--pool")
trace = work / f"bench-{ops}-10000000.optrace"
meta, _, _ = optrace.read_header(trace)
names = sorted({t["table"] for t in meta["trees"]})
widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
tables = tracegeometry.offline_geometry(meta, {"*": 10_000_000}, widths)
if os.environ.get("PATCH"):  # a file of monkeypatches, run in this namespace (p_*.py)
    exec(open(os.environ["PATCH"]).read())


def run(mode, salt=0):
    ts.SAMPLE_MIN_OPS = 1_000_000 if (mode == "mini" or flavor == "mysql") else 1 << 62
    ts.MYSQL_MINI = mode == "mini" and flavor == "mysql"
    ts.SALT = salt
    models = tracegeometry.pools_of(pools, flavor, {}, 15_000.0)
    t0 = time.process_time()
    doc = tracemodel.predict(trace, tables, models, flavor, changebuf.kinds_of(flavor, None))
    cpu = time.process_time() - t0
    rows = [
        {
            "pool": p["pool_bytes"] >> 20,
            "pages_read": p["pages_read"],
            "low": p["low"],
            "high": p["high"],
            "se_pages": (p.get("sampled") or {}).get("se_pages", 0),
            "rate": (p.get("sampled") or {}).get("rate", 1.0),
        }
        for p in doc["pools"]
    ]
    rec = {"flavor": flavor, "ops": ops, "mode": mode, "salt": salt, "cpu_s": round(cpu, 2), "pools": rows}
    print(json.dumps(rec), flush=True)
    if out:
        out.write(json.dumps(rec) + "\n")
        out.flush()
    return rows


if os.environ.get("EXACT"):
    ex = [int(x) for x in os.environ["EXACT"].split(",")]
else:
    ex = [r["pages_read"] for r in run("exact")]
for s in salts:
    rows = run("mini", s)
    print(
        f"# salt {s} err% " + " ".join(f"{100 * (r['pages_read'] - x) / x:+.2f}" for r, x in zip(rows, ex)), flush=True
    )
