"""Phases of tracemodel.predict at the bench's 30M trace: thread CPU of each call."""
import sys, time, threading, collections
sys.path.insert(0, sys.argv[1])
from loadgen.analysis import tracemodel, tracesim, mixmodel as mm
from loadgen import native
from loadgen.cli import tracepredict
T = collections.Counter(); lock = threading.Lock()
def wrap(obj, name, key):
    f = getattr(obj, name)
    def g(*a, **k):
        t0 = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            with lock:
                T[key] += time.thread_time() - t0
    setattr(obj, name, g)
wrap(tracemodel.TracePlan, "map", "placing")
wrap(tracemodel, "PoolFeed", "feedopen") if False else None
wrap(tracemodel, "dense_txns", "numbering")
wrap(mm, "add_ops", "building")
wrap(native.MixStream, "feed", "simulations")
wrap(native, "mix_mark", "mark")
PB = "/work/scratch/tracespeed7/pb30/"
t0, c0 = time.perf_counter(), time.process_time()
tracepredict.run(PB + "bench-30000000-10000000.optrace", None, PB + "app.sql", 10_000_000, "64M,256M,1G,4G",
                 None, {}, 1000.0, False, "json")
print(sys.argv[1], {k: round(v, 2) for k, v in T.items()}, "wall", round(time.perf_counter() - t0, 1),
      "cpu", round(time.process_time() - c0, 1), file=sys.stderr)
