"""exact vs miniature of the bench trace, MariaDB rules by default: bis.py TREE TRACE OPS POOLS SALTS
POOL_SET=field=v,... replaces PoolModel fields in both runs."""
import dataclasses, os, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/bench")
import predict_speed as ps
from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts
from loadgen.units import parse_pools
from loadgen.workload import optrace

flavor = os.environ.get("FLAVOR", "mariadb")
work, ops = Path(sys.argv[2]), int(sys.argv[3])
pools = parse_pools(sys.argv[4], "--pool")
salts = [int(s) for s in sys.argv[5].split(",")]
trace = work / f"bench-{ops}-10000000.optrace"
meta, _, _ = optrace.read_header(trace)
names = sorted({t["table"] for t in meta["trees"]})
widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
tables = tracegeometry.offline_geometry(meta, {"*": 10_000_000}, widths)

if os.environ.get("PATCH"):  # a file of monkeypatches (p_*.py), run in this namespace
    exec(open(os.environ["PATCH"]).read())

def run(mode, salt=0):
    ts.SAMPLE_MIN_OPS = 1000000 if mode == "mini" else 1 << 62
    ts.MYSQL_MINI = mode == "mini" and flavor == "mysql"
    if flavor == "mysql":
        ts.SAMPLE_MIN_OPS = 1000000
    ts.SALT = salt
    models = tracegeometry.pools_of(pools, flavor, {}, 15_000.0)
    if os.environ.get("POOL_SET"):
        f = {k: type(getattr(models[0][1], k))(float(v)) for k, v in (kv.split("=") for kv in os.environ["POOL_SET"].split(","))}
        models = [(b, dataclasses.replace(p, **f)) for b, p in models]
    t0 = time.process_time()
    doc = tracemodel.predict(trace, tables, models, flavor, changebuf.kinds_of(flavor, None))
    return [p["pages_read"] for p in doc["pools"]], [ (p.get("sampled") or {}).get("rate", 1) for p in doc["pools"]], time.process_time() - t0

ex, _, tx = run("exact") if not os.environ.get("EXACT") else ([int(x) for x in os.environ["EXACT"].split(",")], None, 0)
print(f"# {os.environ.get('POOL_SET','')} {ops} exact {ex} ({tx:.0f}s)", flush=True)
errs = []
for s in salts:
    mi, rates, tm = run("mini", s)
    e = [100 * (m - x) / x for m, x in zip(mi, ex)]
    errs.append(e)
    print(f"salt {s} mini {mi} rates {[round(r,3) for r in rates]} err% " + " ".join(f"{v:+.2f}" for v in e), flush=True)
import numpy as np
print("mean err% " + " ".join(f"{v:+.2f}" for v in np.mean(errs, axis=0)), flush=True)
