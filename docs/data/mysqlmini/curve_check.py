"""The bench's trace (bench/predict_speed.py, --rows 10M, MySQL's rules) predicted as `predict --trace
--schema` does, with the one-phase curve (tracesample.one_phase) let in from MIN_OPS operations on
(default: tracesample.SAMPLE_MIN_OPS as it is): each pool's reads, interval, held spread and phase, and
the CPU. Usage: curve_check.py TREE TRACE_DIR OPS [MIN_OPS] [POOLS]"""
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
    work, ops = Path(sys.argv[2]), int(sys.argv[3])
    if len(sys.argv) > 4 and hasattr(ts, "SAMPLE_MIN_OPS"):
        ts.SAMPLE_MIN_OPS = int(sys.argv[4])
    trace = work / f"bench-{ops}-10000000.optrace"
    meta, _, _ = optrace.read_header(trace)
    names = sorted({t["table"] for t in meta["trees"]})
    widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
    tables = tracegeometry.offline_geometry(meta, {"*": 10_000_000}, widths)
    pools = parse_pools(sys.argv[5] if len(sys.argv) > 5 else "64M,256M,1G,4G", "--pool")
    t0 = time.process_time()
    doc = tracemodel.predict(trace, tables, tracegeometry.pools_of(pools, "mysql", {}, 15_000.0), "mysql",
                             changebuf.kinds_of("mysql", None))
    for p in doc["pools"]:
        h = p.get("held_spread") or {}
        print(f"{p['pool_bytes'] >> 20}M reads {p['pages_read']} low {p['low']} high {p['high']} "
              f"reach(fewer,more) ({h.get('reads_fewer_held', 0) - p['pages_read']}, "
              f"{h.get('reads_more_held', 0) - p['pages_read']}) reach_pct {h.get('reach_pct')} "
              f"phase {p.get('cleaner_phase_ms')}", flush=True)
    print(f"# {ops} ops: {time.process_time() - t0:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
