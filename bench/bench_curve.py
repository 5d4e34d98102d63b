"""Issue #12's figures: the seed case's curve and one exact prediction, timed; the miniatures'
error against full simulations; `loadgen predict --variation B --pool 128M --rows 100M --advise`
end to end (a fresh process each time, as a user runs it); the plain-LRU curve against
libCacheSim when it is installed.

Seed case: 100M rows (816,327 leaves, height 3), stride 10, reps 2: 20M queries, 60M page
references; pools 64M..16G on a 20-point geometric grid; MariaDB defaults (read-ahead on).
Times are wall and process CPU (all threads): this 2-core machine is shared, so CPU seconds are
the steadier figure, and each figure is the median of --repeat runs.

Run: .venv/bin/python bench/bench_curve.py [--repeat 3] [--no-exact-curve] [--libcachesim]
     [--salts 0,1,2]
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadgen.analysis import curve, model
from loadgen.analysis import lru_reference as ref

POOLS = [int(64 * 256 ** (i / 19)) << 20 for i in range(20)]
HEADLINE = 128 << 20


def timed(f, *a, **k):
    w, c = time.perf_counter(), time.process_time()
    r = f(*a, **k)
    return r, time.perf_counter() - w, time.process_time() - c


def median_time(repeat: int, f, *a, **k):
    runs = [timed(f, *a, **k) for _ in range(repeat)]
    return runs[0][0], statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs)


def predict_command(repeat: int) -> None:
    """The issue's command end to end: wall and CPU (user + sys of the child) per run."""
    exe = Path(sys.executable).with_name("loadgen")
    cmd = [str(exe), "predict", "--variation", "B", "--pool", "128M", "--rows", "100M", "--advise"]
    # as a user runs it: with bytecode caches (written by the warm-up run; some sandboxes turn
    # them off, which costs ~0.1 s of compiling per run)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, env=env)
        walls.append(time.perf_counter() - w)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    print("  `loadgen predict --variation B --pool 128M --rows 100M --advise`: "
          f"median {statistics.median(walls):.2f} s wall (min {min(walls):.2f}, max {max(walls):.2f}), "
          f"{statistics.median(cpus):.2f} s CPU, n={repeat}; "
          f"load average {os.getloadavg()[0]:.1f}")


def seed_curve(repeat: int, check_exact: bool, salts: list[int]) -> None:
    g = model.estimate_geometry(100_000_000)
    pms = [model.pool_model(b) for b in POOLS]
    print(f"seed case: {g.rows:,} rows, {g.leaf_pages:,} leaves, {len(POOLS)} pools "
          f"{POOLS[0] >> 20} MiB..{POOLS[-1] >> 30} GiB")
    wall_total = cpu_total = 0.0
    for order in ("interleaved", "looped"):
        src = curve.workload_source(order, 10, 2, g, pms[0].ra_threshold)
        fast, wall, cpu = median_time(repeat, curve.estimate, src, pms)
        wall_total += wall
        cpu_total += cpu
        print(f"  {order:11} 20-point curve: {wall:.2f} s wall, {cpu:.2f} s CPU (median of {repeat})")
        if check_exact:
            exact, ewall, ecpu = timed(curve.estimate, src, pms, exact=True)
            print(f"  {order:11} the same 20 points simulated in full: {ewall:.2f} s wall, {ecpu:.2f} s CPU")
            head = min(range(len(POOLS)), key=lambda i: abs(POOLS[i] - HEADLINE))
            for salt in salts:
                fast = curve.estimate(src, pms, salt=salt)
                errs = [(f.reads - e.reads) / e.reads for f, e in zip(fast, exact)]
                worst = max(range(len(errs)), key=lambda i: abs(errs[i]))
                z = max((abs(f.reads - e.reads) / f.reads_se for f, e in zip(fast, exact) if f.reads_se), default=0)
                print(f"    salt {salt}: worst error {errs[worst]:+.3%} at {POOLS[worst] >> 20} MiB, "
                      f"at {POOLS[head] >> 20} MiB {errs[head]:+.3%}, largest |error|/SE {z:.2f}; "
                      f"exact points {sum(f.exact for f in fast)}/{len(fast)}")
        hp = model.pool_model(HEADLINE)
        mini = curve.estimate(src, [hp], tolerance=1.0)[0]  # the miniature, not its exact fallback
        full = curve.estimate(src, [hp], exact=True)[0]
        print(f"  {order:11} at 128 MiB: miniature (rate {mini.rate:.3f}) {mini.reads:,} ± {mini.reads_se:,.0f}, "
              f"exact {full.reads:,}: {(mini.reads - full.reads) / full.reads:+.3%}")
    print(f"  both orders: {wall_total:.2f} s wall, {cpu_total:.2f} s CPU")
    pool = model.pool_model(HEADLINE)
    for order in ("interleaved", "looped"):
        r, wall, cpu = median_time(repeat, model.simulate_detail, order, 10, 2, g, pool)
        _, uwall, ucpu = timed(model.simulate_detail, order, 10, 2, g, pool, collapse=False)
        r2 = model.simulate_detail(order, 10, 2, g, pool, collapse=False)
        print(f"  exact {order:11} at 128 MiB: {r[1]:,} reads, {wall:.3f} s wall ({cpu:.3f} s CPU) collapsed, "
              f"{uwall:.2f} s reference by reference; equal: {r == r2}")
    _, wall, cpu = median_time(repeat, model.stack_histogram, "looped", 10, 2, g)
    print(f"  plain LRU (Mattson, all sizes), looped: {wall:.3f} s wall, {cpu:.3f} s CPU")


def libcachesim_check() -> None:
    """Plain LRU from loadgen's Mattson histogram against libCacheSim's LRU on the same trace."""
    try:
        import libcachesim as lcs
    except ImportError:
        print("libcachesim: not installed (pip install libcachesim); skipped")
        return
    import random

    g = model.estimate_geometry(2_000_000)
    sizes = model.level_sizes(g)
    traces = {"looped": [p for p, _ in ref.py_trace("looped", 10, 2, g)]}
    rng, ids, rnd = random.Random(7), list(range(1, g.rows + 1, 10)), []
    for _ in range(2):  # the random order: two passes, each its own permutation
        rng.shuffle(ids)
        for i in ids:
            leaf = (i - 1) * g.leaf_pages // g.rows
            rnd += [g.n_pages - 1, g.leaf_pages + leaf // g.fanout, leaf]
    traces["random"] = rnd
    print(f"libcachesim {getattr(lcs, '__version__', '?')}: plain LRU, {g.n_pages:,} pages ({sizes[0]:,} leaves)")
    for name, trace in traces.items():
        hist = model.stack_histogram_trace(trace, g.n_pages)
        for cap in (1_000, 8_000, 16_000, 16_400):
            ours = model.lru_misses(hist, cap)
            theirs = _lcs_misses(lcs, trace, cap)
            print(f"  {name:6} {len(trace):,} refs, capacity {cap:6,}: loadgen {ours:,}  libCacheSim {theirs:,}  "
                  f"{'equal' if ours == theirs else 'DIFFER'}")


def _lcs_misses(lcs, trace: list[int], capacity: int) -> int:
    cache = lcs.LRU(cache_size=capacity)
    misses = 0
    req = lcs.Request()
    for i, p in enumerate(trace):
        req.obj_id = p
        req.obj_size = 1
        req.clock_time = i
        if not cache.get(req):
            misses += 1
    return misses


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-exact-curve", action="store_true")
    ap.add_argument("--libcachesim", action="store_true", help="only the libCacheSim check")
    ap.add_argument("--salts", default="0,1,2", help="sampling salts whose errors are checked")
    a = ap.parse_args()
    if not a.libcachesim:
        seed_curve(a.repeat, not a.no_exact_curve, [int(x) for x in a.salts.split(",")])
        predict_command(max(5, a.repeat))
    libcachesim_check()


if __name__ == "__main__":
    main()
