"""How fast the C kernel replays a page trace: refs/s, and the ratio to the pure-Python reference.

Target (issue #5): at least 20M page references per second, so the seed's full case (100M rows,
20M queries, 60M references) predicts in seconds. Run: .venv/bin/python bench/bench_lrusim.py
"""
import time

from loadgen.analysis import lru_reference as ref
from loadgen.analysis import model


def main() -> None:
    g = model.estimate_geometry(100_000_000)
    pool = model.pool_model(128 << 20)
    for order in ("interleaved", "looped"):
        t = time.perf_counter()
        refs, misses, _, _ = model.simulate(order, 10, 2, g, pool)
        dt = time.perf_counter() - t
        print(f"C InnoDB LRU, seed {order}: {refs:,} refs in {dt:.2f} s = {refs / dt / 1e6:,.0f}M refs/s, "
              f"{misses:,} misses")
    t = time.perf_counter()
    model.stack_histogram("looped", 10, 2, g)
    dt = time.perf_counter() - t
    print(f"C Mattson (plain LRU, all sizes), seed looped: {60e6 / dt / 1e6:,.0f}M refs/s")
    small = model.Geometry(200_000, 1633, 3)
    p = model.PoolModel(1014, 900)
    t = time.perf_counter()
    ref.py_simulate(ref.py_trace("looped", 10, 2, small), 900, 1014, 37, 1000, 1 / 15)
    py = time.perf_counter() - t
    t = time.perf_counter()
    model.simulate("looped", 10, 2, small, p)
    c = time.perf_counter() - t
    print(f"C is {py / c:,.0f}x the pure-Python reference (120,000 refs)")


if __name__ == "__main__":
    main()
