"""Capture the first N chunks' references of the bench trace's prediction and the PoolFeed's args; pickle."""
import sys, pickle
sys.path.insert(0, sys.argv[1])
from loadgen.analysis import tracesim
from loadgen.cli import tracepredict
N = int(sys.argv[2]); out = sys.argv[3]
PB = "/work/scratch/tracespeed5/pb/"
got = {"chunks": []}
orig_init = tracesim.PoolFeed.__init__
def init(self, *a, **k):
    got["args"], got["kw"] = a, k
    orig_init(self, *a, **k)
def feed(self, pages, flags):
    if len(got["chunks"]) >= N:
        raise KeyboardInterrupt
    got["chunks"].append((pages.copy(), flags.copy()))
tracesim.PoolFeed.__init__ = init
tracesim.PoolFeed.feed = feed
try:
    tracepredict.run(PB + "bench-30000000-10000000.optrace", None, PB + "app.sql", 10_000_000, "64M,256M,1G,4G",
                     None, {}, 1000.0, False, "json")
except KeyboardInterrupt:
    pass
with open(out, "wb") as f:
    pickle.dump(got, f, protocol=5)
print(len(got["chunks"]), sum(len(p) for p, _ in got["chunks"]))
