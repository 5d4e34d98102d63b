"""Where a miniature's reads part from the exact pool's, page for page: the bench's trace predicted
with a curve (POOLS, default 64M,4G) exact and as miniatures (FLAVOR: mysql with tracesample.MYSQL_MINI,
or mariadb), each pool's per-page reads kept; for the last pool, the sampled leaves' reads in the
miniature against the exact pool's reads of the same pages, per tree, and the kept pages' (simulated
whole in both). Usage: same_pages.py TREE TRACE_DIR OPS MIN_OPS [POOLS]. RATE_FIXED=r: every miniature
at rate r (curve.rate_for bypassed; 0.9999 keeps nearly every unit: the miniature's machinery on the
whole space). POOL_SET="field=value,...": each pool's PoolModel fields replaced (floats), both runs."""

import dataclasses
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, str(Path(sys.argv[1]) / "bench"))
import predict_speed as ps

from loadgen.analysis import changebuf, tracegeometry, tracemodel, tracesim
from loadgen.analysis import tracesample as ts
from loadgen.units import parse_pools
from loadgen.workload import optrace

FLAVOR = os.environ.get("FLAVOR", "mysql")
got: dict = {"exact": [], "mini": []}
closing = [False]
real_exact, real_estimate, real_close = ts.exact, ts.estimate, tracesim.PoolFeed.close


def exact(sim, space, first):
    if closing[0]:
        got["exact"].append(np.frombuffer(sim.reads, dtype=np.uint32).copy())
    return real_exact(sim, space, first)


def estimate(sim, evicted, sample, space, seen, refs, pool):
    got["mini"].append((np.frombuffer(sim.reads, dtype=np.uint32).copy(), sample, seen.copy()))
    return real_estimate(sim, evicted, sample, space, seen, refs, pool)


def close(self):
    closing[0] = True
    try:
        return real_close(self)
    finally:
        closing[0] = False


def main() -> None:
    work, ops = Path(sys.argv[2]), int(sys.argv[3])
    trace = work / f"bench-{ops}-10000000.optrace"
    meta, _, _ = optrace.read_header(trace)
    names = sorted({t["table"] for t in meta["trees"]})
    widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
    tables = tracegeometry.offline_geometry(meta, {"*": 10_000_000}, widths)
    pools = parse_pools(sys.argv[5] if len(sys.argv) > 5 else "64M,4G", "--pool")
    ts.exact, ts.estimate, tracesim.PoolFeed.close = exact, estimate, close
    if os.environ.get("RATE_FIXED"):
        ts.rate_for = lambda pool, rate: float(os.environ["RATE_FIXED"])
    space_of = {}
    real_feed_init = tracesim.PoolFeed.__init__

    def init(self, space, *a, **k):
        space_of["space"] = space
        real_feed_init(self, space, *a, **k)

    tracesim.PoolFeed.__init__ = init
    docs = {}
    for mode in ("exact", "mini"):
        ts.SAMPLE_MIN_OPS = int(sys.argv[4]) if mode == "mini" or FLAVOR == "mysql" else 1 << 62
        ts.MYSQL_MINI = mode == "mini"
        models = tracegeometry.pools_of(pools, FLAVOR, {}, 15_000.0)
        if os.environ.get("POOL_SET"):
            fields = {k: float(v) for k, v in (kv.split("=") for kv in os.environ["POOL_SET"].split(","))}
            models = [(b, dataclasses.replace(p, **fields)) for b, p in models]
        docs[mode] = tracemodel.predict(trace, tables, models, FLAVOR, changebuf.kinds_of(FLAVOR, None))["pools"]
    space = space_of["space"]
    at = int(os.environ.get("POOL_INDEX", len(pools) - 1))  # which pool of the curve (default: the last)
    ex = got["exact"][at].astype(np.float64)
    mini, sample, seen = got["mini"][at]
    mini = mini.astype(np.float64)
    print(
        f"{FLAVOR} {pools[at] >> 20}M exact {docs['exact'][at]['pages_read']} mini {docs['mini'][at]['pages_read']} "
        f"rate {sample.scale:.4f}"
    )
    on = sample.map_ >= 0
    leaf = np.zeros(space.n_pages, dtype=bool)
    for key, pages, units, _, unit_on in sample.strata:
        s_pages = pages[unit_on[units]]
        m = float(mini[sample.map_[s_pages]].sum())
        e = float(ex[s_pages].sum())
        leaf[pages] = True
        print(
            f"  {key[0]}.{key[1]} sampled leaves {len(s_pages)}: mini {m:.0f} exact(same pages) {e:.0f} "
            f"{100 * (m - e) / max(e, 1):+.2f}%  whole tree exact {ex[pages].sum():.0f} "
            f"seen {seen[s_pages].sum()}"
        )
    kept = on & ~leaf
    m, e = float(mini[sample.map_[kept]].sum()), float(ex[kept].sum())
    print(f"  kept pages {int(kept.sum())}: mini {m:.0f} exact {e:.0f} {100 * (m - e) / max(e, 1):+.2f}%")


if __name__ == "__main__":
    main()
