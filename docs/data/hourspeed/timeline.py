"""Where the wall clock of `predict --trace` goes on the bench's trace (bench/predict_speed.py's
command, in-process): the main thread's phases (wall and thread CPU), the simulations' thread's
busy time, and how long the main thread blocked in PoolFeed._wait for a simulation it could not
take over. Usage: timeline.py TREE TRACE_DIR OPS FLAVOR

prefix: from the start of tracemodel.predict to the first chunk's feed (reading and placing the
trace, numbering, MySQL's reinserts, the page space, the pools opened); build: from the first feed
to the last; tail: PoolFeed.close and the JSON. sim thread busy: the time inside the jobs it ran
(wall, and its thread CPU); main took: the jobs the main thread ran itself (tracespeed3's
stealing); main blocked: the main thread's wall in f.result() for a job already running; put in order:
refsorder.assemble's thread CPU on each thread (hourspeed; on main before it, inside add_ops). The sim
thread's figures leave out what it spends putting chunks in order (its own column)."""
import contextlib
import io
import sys
import threading
import time

sys.path.insert(0, sys.argv[1])
from loadgen import native
from loadgen.analysis import mixmodel as mm
from loadgen.analysis import tracesim
from loadgen.cli import tracepredict

main = threading.main_thread()
T = {"sim_wall": 0.0, "sim_cpu": 0.0, "main_jobs_wall": 0.0, "main_jobs_cpu": 0.0, "blocked": 0.0,
     "build_wall": 0.0, "build_cpu": 0.0, "chunks": 0}
MARK = {}


def jobwrap(f):
    def g(*a, **k):
        w0, c0 = time.perf_counter(), time.thread_time()
        try:
            return f(*a, **k)
        finally:
            w, c = time.perf_counter() - w0, time.thread_time() - c0
            if threading.current_thread() is main:
                T["main_jobs_wall"] += w
                T["main_jobs_cpu"] += c
            else:
                T["sim_wall"] += w
                T["sim_cpu"] += c
    return g


T.update(asm_main_cpu=0.0, asm_sim_cpu=0.0)
try:  # hourspeed's chunks put in order by whichever thread first asks (refsorder.Later)
    from loadgen.analysis import refsorder
except ImportError:
    refsorder = None
if refsorder is not None:
    _assemble = refsorder.assemble

    def assemble(*a):
        c0 = time.thread_time()
        try:
            return _assemble(*a)
        finally:
            T["asm_main_cpu" if threading.current_thread() is main else "asm_sim_cpu"] += time.thread_time() - c0
    refsorder.assemble = assemble
native.MixStream.feed = jobwrap(native.MixStream.feed)
native.MixStream.feed_with = jobwrap(native.MixStream.feed_with)
native.mix_mark = jobwrap(native.mix_mark)  # tracesim calls it as native.mix_mark
tracesim.native.mix_mark = native.mix_mark

_feed = tracesim.PoolFeed.feed


def feed(self, *a):
    if "first_feed" not in MARK:
        MARK["first_feed"] = time.perf_counter()
        MARK["first_feed_cpu"] = time.process_time()
    T["chunks"] += 1
    return _feed(self, *a)


tracesim.PoolFeed.feed = feed
_wait = tracesim.PoolFeed._wait


def wait(self):  # the blocking part: the futures the simulations' thread had started
    busy = self.busy
    for f, job, args in reversed(busy):
        if f.cancel():
            job(*args)
    w0 = time.perf_counter()
    for f, _, _ in busy:
        if not f.cancelled():
            f.result()
    T["blocked"] += time.perf_counter() - w0
    self.busy = []


tracesim.PoolFeed._wait = wait
_close = tracesim.PoolFeed.close


def close(self):
    MARK["close"] = time.perf_counter()
    MARK["close_cpu"] = time.process_time()
    return _close(self)


tracesim.PoolFeed.close = close
_add = mm.add_ops


def add_ops(*a, **k):
    w0, c0 = time.perf_counter(), time.thread_time()
    try:
        return _add(*a, **k)
    finally:
        T["build_wall"] += time.perf_counter() - w0
        T["build_cpu"] += time.thread_time() - c0


mm.add_ops = add_ops
tree, pb, ops, flavor = sys.argv[1:5]
trace = f"{pb}/bench-{ops}-10000000.optrace"
t0, c0 = time.perf_counter(), time.process_time()
with open("/proc/loadavg") as f:
    load0 = f.read().split()[0]
with contextlib.redirect_stdout(io.StringIO()) as out:
    tracepredict.run(trace, None, f"{pb}/app.sql", 10_000_000, "64M,256M,1G,4G", flavor, {}, 15000.0, False, "json")
t1, c1 = time.perf_counter(), time.process_time()
with open("/proc/loadavg") as f:
    load1 = f.read().split()[0]
import json  # noqa: E402
pages = [p["pages_read"] for p in json.loads(out.getvalue())["pools"]]
prefix, build, tail = MARK["first_feed"] - t0, MARK["close"] - MARK["first_feed"], t1 - MARK["close"]
print(f"{flavor} {ops} {tree} load {load0}-{load1}: wall {t1 - t0:.2f} s, CPU {c1 - c0:.2f} s; "
      f"prefix {prefix:.2f} s wall ({MARK['first_feed_cpu'] - c0:.2f} CPU), build {build:.2f} s wall "
      f"({MARK['close_cpu'] - MARK['first_feed_cpu']:.2f} CPU, {T['chunks']} chunks), tail {tail:.2f} s wall; "
      f"add_ops {T['build_wall']:.2f} s wall / {T['build_cpu']:.2f} CPU on main; sim thread busy "
      f"{T['sim_wall']:.2f} s wall / {T['sim_cpu']:.2f} CPU; main took jobs {T['main_jobs_wall']:.2f} s wall / "
      f"{T['main_jobs_cpu']:.2f} CPU; main blocked {T['blocked']:.2f} s; put in order (refsorder) on main "
      f"{T['asm_main_cpu']:.2f} / on the sim thread {T['asm_sim_cpu']:.2f} CPU (in add_ops on main before); "
      f"pages {pages}")
