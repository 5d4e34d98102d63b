"""Each exact pool of the bench's MySQL curve and its held-spread twins fed the whole trace, each
peeked after every chunk (native MixStream.peek): how far a reach taken on the first c chunks and
scaled to the whole trace lands from the whole trace's, for every c at once. Usage:

    twin_prefix.py TREE TRACE_DIR OPS ROWS POOLS [MIN_OPS]

MIN_OPS lets the one-phase gate (tracesample.one_phase) in from that many operations (the 3M trace).
Prints one line a pool and chunk count: the chunks, the base's reads and re-reads there, the twins'
reach there, and at the end the exact reach."""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, str(Path(sys.argv[1]) / "bench"))
import predict_speed as ps

from loadgen.analysis import changebuf, tracegeometry, tracemodel, tracesim
from loadgen.analysis import tracesample as ts
from loadgen.units import parse_pools
from loadgen.workload import optrace

PEEKS: list = []  # per chunk boundary: [(reads, re-reads) of each exact simulation]


def _peek(feed) -> None:
    row = []
    for runs, sample in zip(feed.runs, feed.samples):
        if sample is None and len(runs) == 1:
            sim = runs[0].peek()
            r = np.frombuffer(sim.reads, dtype=np.uint32)
            total = int(r.sum(dtype=np.uint64)) + int(sim.filler_reads)
            row.append((total, int(np.maximum(r.astype(np.int64) - 1, 0).sum())))
    PEEKS.append(row)


_feed, _close = tracesim.PoolFeed.feed, tracesim.PoolFeed.close


def feed(self, pages, flags):
    self._wait()
    if self.refs:
        _peek(self)
    _feed(self, pages, flags)


def close(self):
    self._wait()
    _peek(self)
    return _close(self)


tracesim.PoolFeed.feed, tracesim.PoolFeed.close = feed, close


def main() -> None:
    work, ops, rows = Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    if len(sys.argv) > 6:
        ts.SAMPLE_MIN_OPS = int(sys.argv[6])
    if hasattr(tracemodel, "heldspread"):  # the twins over the whole trace here, whatever the tree does
        hs = tracemodel.heldspread
        if hasattr(hs, "TWIN_SHARE"):
            hs.TWIN_SHARE = 1.0
    work.mkdir(parents=True, exist_ok=True)
    trace, schema = work / f"bench-{ops}-{rows}.optrace", work / "app.sql"
    schema.write_text(ps.SCHEMA)
    if not trace.exists():
        ps.write_trace(trace, ops, rows, 1)
    meta, _, _ = optrace.read_header(trace)
    names = sorted({t["table"] for t in meta["trees"]})
    widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
    tables = tracegeometry.offline_geometry(meta, {"*": rows}, widths)
    pools = parse_pools(sys.argv[5], "--pool")
    t0 = time.process_time()
    doc = tracemodel.predict(
        trace, tables, tracegeometry.pools_of(pools, "mysql", {}, 15_000.0), "mysql", changebuf.kinds_of("mysql", None)
    )
    n = len(pools)
    assert len(PEEKS[-1]) == 3 * n, "each pool one phase, with its two twins"
    for i, p in enumerate(doc["pools"]):
        assert PEEKS[-1][i][0] == p["pages_read"], (PEEKS[-1][i][0], p["pages_read"])
        for c, row in enumerate(PEEKS, 1):
            base, fewer, more = row[i], row[n + 2 * i], row[n + 2 * i + 1]
            print(
                f"{p['pool_bytes'] >> 20}M chunk {c}/{len(PEEKS)} reads {base[0]} rereads {base[1]} "
                f"reach {fewer[0] - base[0]} {more[0] - base[0]}",
                flush=True,
            )
    print(f"# {ops} ops, {rows} rows: {time.process_time() - t0:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
