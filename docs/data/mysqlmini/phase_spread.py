"""Each MySQL pool of a curve at each of its timed cleaner's phases, and its held-spread twins at each
phase: how far the phases are apart, and how far the twins' reach (twin - same-phase reads) moves
from phase to phase. Usage:

    phase_spread.py TREE bench OPS TRACE_DIR [POOLS [ROWS]]  # bench/predict_speed.py's trace (--rows 10M)
    phase_spread.py TREE stored [POOLS]                  # every stored capture (docs/data/**)

One line a pool size: the phases' reads, their spread ((max-min)/mean), the mean, and each phase's
fewer/more reach in pages."""
import dataclasses
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.analysis.pool import MYSQL_CLEANER_PHASES_MS
from loadgen.units import parse_pools

DATA = Path(__file__).resolve().parent.parent


def spread(trace, tables, pool_bytes, qps, buffers, label, variables=None):
    variables = {"innodb_io_capacity": 10_000} if variables is None else variables  # stored.py's, the bench's {}
    models = tracegeometry.pools_of(pool_bytes, "mysql", variables, qps)
    fixed = [(b, dataclasses.replace(p, cleaner_phase_ms=ph)) for b, p in models for ph in MYSQL_CLEANER_PHASES_MS]
    t0 = time.process_time()
    got = tracemodel.predict(trace, tables, fixed, "mysql", buffers)["pools"]
    n = len(MYSQL_CLEANER_PHASES_MS)
    for i, b in enumerate(pool_bytes):
        ps = got[i * n:(i + 1) * n]
        reads = [p["pages_read"] for p in ps]
        mean = sum(reads) / n
        rel = (max(reads) - min(reads)) / mean if mean else 0.0
        reach = [(p["held_spread"]["reads_fewer_held"] - p["pages_read"],
                  p["held_spread"]["reads_more_held"] - p["pages_read"]) if p.get("held_spread") else None for p in ps]
        print(f"{label} {b >> 20}M reads {reads} spread {100 * rel:.3f}% mean {mean:.0f} reach(fewer,more) {reach}",
              flush=True)
    print(f"# {label}: {time.process_time() - t0:.1f} s CPU", flush=True)


def main() -> None:
    if sys.argv[2] == "bench":
        sys.path.insert(0, str(Path(sys.argv[1]) / "bench"))
        import predict_speed as ps

        ops, work = int(sys.argv[3]), Path(sys.argv[4])
        rows = int(sys.argv[6]) if len(sys.argv) > 6 else 10_000_000
        work.mkdir(parents=True, exist_ok=True)
        trace, schema = work / f"bench-{ops}-{rows}.optrace", work / "app.sql"
        schema.write_text(ps.SCHEMA)
        if not trace.exists():
            ps.write_trace(trace, ops, rows, 1)
        from loadgen.analysis.tracegeometry import column_bytes, offline_geometry
        from loadgen.workload import optrace

        meta, _, _ = optrace.read_header(trace)
        names = sorted({t["table"] for t in meta["trees"]})
        widths = {n.partition(".")[2].lower(): column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
        tables = offline_geometry(meta, {"*": rows}, widths)
        pools = parse_pools(sys.argv[5] if len(sys.argv) > 5 else "64M,256M,1G,4G", "--pool")
        spread(trace, tables, pools, 15_000.0, changebuf.kinds_of("mysql", None), f"bench{ops}", {})
        return
    with tempfile.TemporaryDirectory() as tmp:
        for doc_path in sorted(DATA.glob("**/*.predict.json.gz")):
            trace_gz = doc_path.with_name(doc_path.name.replace(".predict.json.gz", ".optrace.gz"))
            if not trace_gz.exists():
                continue
            trace = Path(tmp) / trace_gz.name.removesuffix(".gz")
            trace.write_bytes(gzip.decompress(trace_gz.read_bytes()))
            doc = json.loads(gzip.decompress(doc_path.read_bytes()))
            own = [p["pool_bytes"] for p in doc["pools"]]
            for pools in (own, [16 << 20, 48 << 20, 128 << 20]):
                spread(trace, doc["tables"], pools, float(doc["qps"]),
                       changebuf.kinds_of("mysql", doc.get("change_buffering")), str(doc_path.relative_to(DATA)))
            trace.unlink()


if __name__ == "__main__":
    main()
