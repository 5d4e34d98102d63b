"""The building alone (PoolFeed.feed a no-op): thread CPU by phase, and cProfile of it (argv[3] == 'prof')."""
import sys, time, cProfile, pstats, collections, hashlib
sys.path.insert(0, sys.argv[1])
from loadgen.analysis import tracemodel, tracesim, mixmodel as mm
from loadgen.cli import tracepredict
H = hashlib.sha1()
def feed(self, pages, flags):
    H.update(pages.tobytes()); H.update(flags.tobytes())
tracesim.PoolFeed.feed = feed
T = collections.Counter()
def wrap(obj, name, key):
    f = getattr(obj, name)
    def g(*a, **k):
        t0 = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            T[key] += time.thread_time() - t0
    setattr(obj, name, g)
wrap(mm, "add_ops", "building")
wrap(tracemodel.TracePlan, "map", "placing")
PB = sys.argv[2]
pr = cProfile.Profile(time.thread_time) if sys.argv[3:] == ["prof"] else None
t0 = time.process_time()
if pr: pr.enable()
import io, contextlib
with contextlib.redirect_stdout(io.StringIO()):
    tracepredict.run(PB + "bench-8000000-10000000.optrace", None, PB + "app.sql", 10_000_000, "64M,256M,1G,4G",
                     None, {}, 1000.0, False, "json")
if pr: pr.disable()
print(sys.argv[1], {k: round(v, 2) for k, v in T.items()}, "cpu", round(time.process_time() - t0, 2), H.hexdigest()[:12])
if pr:
    st = pstats.Stats(pr); st.sort_stats("tottime").print_stats(30); st.sort_stats("cumulative").print_stats(45)
print({k: round(v, 3) for k, v in sorted(getattr(mm, "_T", {}).items())})
