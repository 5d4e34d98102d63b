"""Phases of `predict --trace` on the bench's trace (bench/predict_speed.py): thread CPU of each call,
and the main thread's wall clock in each. Usage: phases.py TREE TRACE_DIR OPS FLAVOR [POOLS]

parse/load: reading the records (optrace.chunks); placement: TracePlan.map; numbering: dense_txns;
reinserted: tracemodel._reinserts (MySQL: tracetxns.reinserted); building: mixmodel.add_ops;
simulation: the pools' MixStream feeds and the miniatures' marks (either thread); curve: what follows
the last chunk (PoolFeed.close: the last chunk's simulations, each pool's reads, intervals, the JSON)."""
import collections
import sys
import threading
import time

sys.path.insert(0, sys.argv[1])
from loadgen import native  # noqa: E402
from loadgen.analysis import mixmodel as mm  # noqa: E402
from loadgen.analysis import tracemodel, tracesim  # noqa: E402
from loadgen.cli import tracepredict  # noqa: E402
from loadgen.workload import optrace as ot  # noqa: E402

CPU, WALL = collections.Counter(), collections.Counter()
lock = threading.Lock()
main = threading.main_thread()


def note(key, c0, w0):
    with lock:
        CPU[key] += time.thread_time() - c0
        if threading.current_thread() is main:
            WALL[key] += time.perf_counter() - w0


def wrap(obj, name, key):
    f = getattr(obj, name)

    def g(*a, **k):
        c0, w0 = time.thread_time(), time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            note(key, c0, w0)
    setattr(obj, name, g)


def wrap_gen(obj, name, key):
    f = getattr(obj, name)

    def g(*a, **k):
        it = f(*a, **k)
        while True:
            c0, w0 = time.thread_time(), time.perf_counter()
            try:
                x = next(it)
            except StopIteration:
                note(key, c0, w0)
                return
            note(key, c0, w0)
            yield x
    setattr(obj, name, g)


wrap_gen(ot, "chunks", "parse/load")
wrap(tracemodel.TracePlan, "map", "placement")
wrap(tracemodel, "dense_txns", "numbering")
wrap(tracemodel, "_reinserts", "reinserted")
wrap(mm, "add_ops", "building")
wrap(native.MixStream, "feed", "simulation")
wrap(native.MixStream, "feed_with", "simulation")
wrap(native, "mix_mark", "simulation")
wrap(tracesim.PoolFeed, "close", "curve")
tree, pb, ops, flavor = sys.argv[1:5]
pools = sys.argv[5] if len(sys.argv) > 5 else "64M,256M,1G,4G"
trace = f"{pb}/bench-{ops}-10000000.optrace"
t0, c0 = time.perf_counter(), time.process_time()
import contextlib, io  # noqa: E401,E402
with contextlib.redirect_stdout(io.StringIO()):
    tracepredict.run(trace, None, f"{pb}/app.sql", 10_000_000, pools, flavor, {}, 15000.0, False, "json")
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
print(f"{flavor} {ops} {tree}: wall {wall:.1f} s, CPU {cpu:.1f} s; thread CPU "
      + ", ".join(f"{k} {v:.2f}" for k, v in CPU.items())
      + "; main thread's wall " + ", ".join(f"{k} {v:.2f}" for k, v in WALL.items())
      + f", other {wall - sum(WALL.values()):.2f}")
