"""refs per page of the trace, and the share landing on each tree's sampled leaves."""
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/bench")
import numpy as np
import predict_speed as ps
from loadgen.analysis import changebuf, tracegeometry, tracemodel, tracesim
from loadgen.analysis import tracesample as ts
from loadgen.units import parse_pools
from loadgen.workload import optrace
if os.environ.get("PATCH"):
    exec(open(os.environ["PATCH"]).read())
work, ops = Path(sys.argv[2]), int(sys.argv[3])
trace = work / f"bench-{ops}-10000000.optrace"
meta, _, _ = optrace.read_header(trace)
names = sorted({t["table"] for t in meta["trees"]})
widths = {n.partition(".")[2].lower(): tracegeometry.column_bytes(ps.SCHEMA, n.partition(".")[2]) for n in names}
tables = tracegeometry.offline_geometry(meta, {"*": 10_000_000}, widths)
cnt = {}
real_feed, real_init = tracesim.PoolFeed.feed, tracesim.PoolFeed.__init__
def init(self, space, *a, **k):
    real_init(self, space, *a, **k)
    cnt["space"] = space; cnt["c"] = np.zeros(space.n_pages + 1000, np.int64); cnt["samples"] = self.samples
def feed(self, pages, flags):
    c = np.bincount(np.asarray(pages, dtype=np.int64), minlength=len(cnt["c"]))
    cnt["c"][:len(c)] += c[:len(cnt["c"])]
    return real_feed(self, pages, flags)
tracesim.PoolFeed.__init__, tracesim.PoolFeed.feed = init, feed
ts.SAMPLE_MIN_OPS = 1000000
models = tracegeometry.pools_of(parse_pools("1G,4G", "--pool"), "mariadb", {}, 15_000.0)
tracemodel.predict(trace, tables, models, "mariadb", changebuf.kinds_of("mariadb", None))
c = cnt["c"]; sample = cnt["samples"][-1]
print("scale", sample.scale)
for key, pages, units, n_units, unit_on in sample.strata:
    s = pages[unit_on[units]]
    print(key, "refs", c[pages].sum(), "sampled share", round(c[s].sum() / c[pages].sum(), 5), "page share", round(len(s) / len(pages), 5))
c = c[:len(sample.map_)]; on = sample.map_ >= 0
print("total refs", c.sum(), "kept refs", c[on].sum() - sum(c[p[u_on[u]]].sum() for _, p, u, _, u_on in sample.strata))
