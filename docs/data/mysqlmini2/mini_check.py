"""The bench's trace (bench/predict_speed.py, --rows 10M, MySQL's rules) predicted as `predict --trace
--schema` does, exact at one cleaner phase (as main) or with the curve's MySQL pools as miniatures
(tracesample.MYSQL_MINI), the gates let in from MIN_OPS operations: each pool's reads, rate, SE and
the CPU. Usage: mini_check.py TREE TRACE_DIR OPS MIN_OPS exact|mini [POOLS] [SALT] [RATE]
(RATE: tracesample's DEFAULT_RATE, the rate curve.rate_for starts from; default 0.03). Environment:
PIN_SHARE=x sets tracesample.PIN_SHARE (0: no page pinned); FLAVOR=mariadb predicts with MariaDB's
rules for comparison (exact: no pool sampled, SAMPLE_MIN_OPS past the trace; mini: its miniatures)."""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, str(Path(sys.argv[1]) / "bench"))
import predict_speed as ps

from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts
from loadgen.units import parse_pools
from loadgen.workload import optrace


def main() -> None:
    work, ops, mode = Path(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
    ts.SAMPLE_MIN_OPS = int(sys.argv[4])
    ts.MYSQL_MINI = mode == "mini"
    flavor = os.environ.get("FLAVOR", "mysql")
    if flavor == "mariadb" and mode == "exact":
        ts.SAMPLE_MIN_OPS = 1 << 62
    if len(sys.argv) > 7:
        ts.SALT = int(sys.argv[7])
    if len(sys.argv) > 8:
        ts.DEFAULT_RATE = float(sys.argv[8])
    if "PIN_SHARE" in os.environ:
        ts.PIN_SHARE = float(os.environ["PIN_SHARE"])
    trace = work / f"bench-{ops}-10000000.optrace"
    meta, _, _ = optrace.read_header(trace)
    names = sorted({t["table"] for t in meta["trees"]})
    widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
    tables = tracegeometry.offline_geometry(meta, {"*": 10_000_000}, widths)
    pools = parse_pools(sys.argv[6] if len(sys.argv) > 6 else "64M,256M,1G,4G", "--pool")
    t0 = time.process_time()
    doc = tracemodel.predict(
        trace, tables, tracegeometry.pools_of(pools, flavor, {}, 15_000.0), flavor, changebuf.kinds_of(flavor, None)
    )
    for p in doc["pools"]:
        s = p.get("sampled") or {}
        print(
            f"{mode} {p['pool_bytes'] >> 20}M reads {p['pages_read']} rate {s.get('rate', 1)} "
            f"se {s.get('se_pages', 0)} low {p['low']} high {p['high']} dirty_ev {p['dirty_evictions']} "
            f"phase {p.get('cleaner_phase_ms')}",
            flush=True,
        )
        if os.environ.get("PARTS"):  # each index's reads and the system pages'
            parts = {f"{t}.{i}": n for t, v in p["tables"].items() for i, n in v["indexes"].items()}
            print(
                f"  parts {p['pool_bytes'] >> 20}M system {p['system_pages_read']} "
                + " ".join(f"{k} {v}" for k, v in sorted(parts.items())),
                flush=True,
            )
    print(f"# {mode} {ops} ops salt {ts.SALT}: {time.process_time() - t0:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
