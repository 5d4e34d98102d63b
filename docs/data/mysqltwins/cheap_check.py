"""The bench's MySQL curve predicted as `predict --trace --schema` makes it (the twins cut short where
heldspread.TWIN_SHARE says so) against twin_prefix.py's whole-trace twins of the same trace: each
pool's reads (the same to the page), each side's reach and the gate max(0.1% of the reads, 20% of
the whole trace's reach). Usage:

    cheap_check.py TREE TRACE_DIR OPS ROWS POOLS EXACT_FILE [MIN_OPS]"""

import re
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

LAST = re.compile(r"(\d+)M chunk (\d+)/(\d+) reads (\d+) rereads \d+ reach (-?\d+) (-?\d+)")


def main() -> None:
    work, ops, rows = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    if len(sys.argv) > 7:
        ts.SAMPLE_MIN_OPS = int(sys.argv[7])
    exact = {}
    for line in open(sys.argv[6]):
        m = LAST.match(line)
        if m and m.group(2) == m.group(3):
            exact[int(m.group(1))] = tuple(int(x) for x in m.groups()[3:])
    trace = work / f"bench-{ops}-{rows}.optrace"
    meta, _, _ = optrace.read_header(trace)
    names = sorted({t["table"] for t in meta["trees"]})
    widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
    tables = tracegeometry.offline_geometry(meta, {"*": rows}, widths)
    pools = parse_pools(sys.argv[5], "--pool")
    t0 = time.process_time()
    doc = tracemodel.predict(
        trace, tables, tracegeometry.pools_of(pools, "mysql", {}, 15_000.0), "mysql", changebuf.kinds_of("mysql", None)
    )
    cpu = time.process_time() - t0
    worst = 0.0
    for p in doc["pools"]:
        h, reads, mb = p["held_spread"], p["pages_read"], p["pool_bytes"] >> 20
        reach = (h["reads_fewer_held"] - reads, h["reads_more_held"] - reads)
        e_reads, *e_reach = exact[mb]
        gate = [max(0.001 * e_reads, 0.2 * abs(e)) for e in e_reach]
        ratio = max(abs(r - e) / g for r, e, g in zip(reach, e_reach, gate))
        worst = max(worst, ratio)
        print(
            f"{mb}M reads {reads} (whole-trace run {e_reads}, {'same' if reads == e_reads else 'DIFFERENT'}) "
            f"reach {reach} whole-trace {tuple(e_reach)} off/gate {ratio:.2f} twins_share "
            f"{h.get('twins_share')} reach_pct {h['reach_pct']} low {p['low']} high {p['high']}",
            flush=True,
        )
    print(f"# {ops} ops, {rows} rows: {cpu:.1f} s CPU; worst off/gate {worst:.2f}", flush=True)


if __name__ == "__main__":
    main()
