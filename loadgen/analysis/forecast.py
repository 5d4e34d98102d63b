"""Forecasts: the model's prediction at one pool and its miss-ratio curve, for `predict`, `sweep`
and every run's `prediction` block. It sits above model.py (the simulator and the pool model) and
curve.py (the miniature simulations), which it combines: exact where a point is asked for, the
miniatures where they are accurate enough.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from . import curve as fast
from . import intervals
from . import model
from . import scaled as fast_scaled


def forecast(order: str, stride: int, reps: int, g: model.Geometry, pool_bytes: int, variables: dict | None = None,
             flavor: str = "mariadb", qps: float = model.DEFAULT_QPS, curve_pools: list[int] | None = None,
             total_pages: int | None = None, exact: bool = False, salt: int = 0,
             rate: float | None = None, tolerance: float | None = None,
             estimates: dict | None = None, hist=None) -> model.Forecast:
    """Predicted reads at pool_bytes (exact), and the miss-ratio curve over curve_pools: both
    models, the InnoDB one from miniatures where that is accurate enough (loadgen/analysis/curve.py) or
    exact everywhere with exact=True. estimates: pool bytes -> curve.Estimate already simulated;
    hist: the plain-LRU stack histogram, or a future of it (started beside the estimates)."""
    pool = model.pool_model(pool_bytes, variables, flavor, qps, total_pages)
    others = [p for p in dict.fromkeys(curve_pools or []) if p != pool_bytes]
    models = [model.pool_model(p, variables, flavor, qps) for p in others]
    known = estimates or {}
    if fast_scaled.is_large(g):  # on a scaled copy (scaled.py): memory does not grow with the table
        fast_scaled.refuse_exact(g, exact)
        return fast_scaled.forecast_scaled(order, stride, reps, g, pool, pool_bytes, others, models, qps, curve_pools,
                                           known)
    todo = [i for i, p in enumerate(others) if p not in known]
    src = fast.workload_source(order, stride, reps, g, pool.ra_threshold)
    with ThreadPoolExecutor(max_workers=2) as ex:
        hist_f = hist if hasattr(hist, "result") else ex.submit(lambda: hist) if hist is not None else \
            ex.submit(model.stack_histogram, order, stride, reps, g)
        done = known.get(pool_bytes) if total_pages is None else None
        at_f = ex.submit(lambda: ((done.refs, done.reads, done.made_young, 0, done.read_ahead, 0), None)
                         if done is not None and done.exact and not pool.cleaner_depth
                         else model.simulate_bounded(order, stride, reps, g, pool))
        new = fast.estimate(src, [models[i] for i in todo], rate=rate or fast.DEFAULT_RATE,
                            tolerance=fast.DEFAULT_TOLERANCE if tolerance is None else tolerance,
                            salt=salt, exact=exact) if todo else []
        hist, (sim, bounds) = hist_f.result(), at_f.result()
    got = dict(zip(todo, new))
    ests = [got[i] if i in got else known[p] for i, p in enumerate(others)]
    refs, misses, made_young, _, ra_pages, _ = sim
    plain = plain_lru_misses(hist, [pool.capacity_pages] + [m.capacity_pages for m in models])
    low, high = intervals.for_pool(misses, pool, bounds, start_measured=total_pages is not None, hist=hist)
    points = [model.CurvePoint(pool_bytes, pool.pool_pages, pool.capacity_pages, misses,
                               plain[pool.capacity_pages], misses / refs if refs else 0.0, 0.0,
                               reads_low=low, reads_high=high)]
    for pb, m, e in zip(others, models, ests):
        lo_e, hi_e = intervals.for_pool(e.reads, m, se=e.reads_se, hist=hist)
        points.append(model.CurvePoint(pb, m.pool_pages, m.capacity_pages, e.reads,
                                       plain[m.capacity_pages],
                                 e.reads / refs if refs else 0.0, 0.0, round(e.reads_se, 1), round(e.rate, 5), e.exact,
                                       reads_low=lo_e, reads_high=hi_e))
    for p in points:
        p.plain_lru_miss_ratio = p.plain_lru_reads / refs if refs else 0.0
    at = model.Prediction(model.MODEL, misses, refs, 1.0 - misses / refs if refs else 0.0, points[0].plain_lru_reads,
                    pool.capacity_pages, pool.pool_pages, made_young, qps, read_ahead=ra_pages,
                    cleaner=model.cleaner_method(pool), reads_low=low, reads_high=high,
                    cleaner_low=bounds[0] if bounds else None, cleaner_high=bounds[1] if bounds else None)
    keep = points if not curve_pools or pool_bytes in curve_pools else points[1:]
    return model.Forecast(g, order, model.queries_of(order, g.rows, stride, reps), refs, at,
                    sorted(keep, key=lambda p: p.pool_bytes))



def plain_lru_misses(hist: list[int], capacities: list[int]) -> dict[int, int]:
    """model.lru_misses for many capacities in one pass over the histogram (a pass per capacity
    was 0.1 s of a 13-point curve on the seed case's 817k-page histogram)."""
    out, acc, end = {}, 0, len(hist)
    for c in sorted(set(capacities), reverse=True):
        start = min(end, c + 1)
        acc += sum(hist[start:end])
        end = start
        out[c] = hist[0] + acc
    return out


def predict_order_run(run, g: model.Geometry, pool: model.PoolModel) -> tuple[model.Prediction, int, dict]:
    """A measured run of a built-in order (analysis/predict.py chooses): (the model's prediction
    at the run's pool, its plain-LRU reads, the block's `curve`). Held to the measured reads by
    the door, as every model's prediction is."""
    wl, bp = run.workload, run.buffer_pool
    order, stride, reps = wl["order"], int(wl["stride"]), int(wl["reps"])
    (refs, misses, made_young, _, ra_pages, _), bounds = model.simulate_bounded(order, stride, reps, g, pool)
    hist = model.stack_histogram(order, stride, reps, g)
    plain = model.lru_misses(hist, pool.capacity_pages)
    p = model.Prediction(model.MODEL, misses, refs, 0.0, plain, pool.capacity_pages, pool.pool_pages, made_young,
                         pool.qps, read_ahead=ra_pages, cleaner=model.cleaner_method(pool),
                         cleaner_low=bounds[0] if bounds else None, cleaner_high=bounds[1] if bounds else None)
    p.reads_low, p.reads_high = intervals.for_pool(misses, pool, bounds, hist=hist,
                                                   start_measured=bp.get("pages_data_before") is not None)
    size = int(run.pool_bytes or 0)
    curve = result_curve(order, stride, reps, g, pool, run.server, misses, refs, hist)
    for c in curve:  # the run's own pool: the prediction's interval
        if c["pool_bytes"] == size:
            c["reads_low"], c["reads_high"] = p.reads_low, p.reads_high
    return p, plain, {"curve": curve}


RESULT_CURVE_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
CURVE_FLOOR_BYTES = 8 << 20  # the smallest pool on an automatic curve (the servers' own minimum is 5-8 MiB)


def auto_curve_pools(pool_bytes: int, g: model.Geometry) -> list[int]:
    """`predict --curve auto`: powers of two from a quarter of the pool (the advice table's lowest
    factor) to past the table, where the curve goes flat at the distinct pages. Points far under the
    pool answer no sizing question, and at small pools the page cleaner's model needs exact
    simulation (0.3 s each on the seed case): an 8M..16G grid for a 128M pool cost a third of
    `predict --advise`'s second."""
    table_bytes = g.n_pages * model.PAGE_BYTES
    lo = max(CURVE_FLOOR_BYTES, pool_bytes // 4)
    hi = max(4 * pool_bytes, table_bytes + table_bytes // 4)
    size, out = CURVE_FLOOR_BYTES, []
    while size < lo:
        size *= 2
    while True:
        out.append(size)
        if size >= hi:
            break
        size *= 2
    return sorted(set(out) | {pool_bytes})


def result_curve(order: str, stride: int, reps: int, g: model.Geometry, pool: model.PoolModel, srv: dict, misses: int,
                 refs: int, hist=None) -> list[dict]:
    """The model's curve around a run's own pool (0.25x..4x, miniatures where accurate enough)."""
    size = int(srv.get("innodb_buffer_pool_size") or 0)
    if size <= 0:
        return []
    flavor, variables = srv.get("flavor") or "mariadb", srv.get("variables") or {}
    sizes = [int(size * f) for f in RESULT_CURVE_FACTORS if f != 1.0 and size * f >= 5 << 20]
    models = [model.pool_model(b, variables, flavor, pool.qps) for b in sizes]
    ests = fast.estimate(fast.workload_source(order, stride, reps, g, pool.ra_threshold), models) if models else []
    pts = [{"pool_bytes": b, "reads": e.reads, "reads_se": round(e.reads_se, 1), "exact": e.exact,
            **dict(zip(("reads_low", "reads_high"), intervals.for_pool(e.reads, m, se=e.reads_se, hist=hist)))}
           for b, m, e in zip(sizes, models, ests)]
    pts.append({"pool_bytes": size, "reads": misses, "reads_se": 0.0, "exact": True})
    return sorted(pts, key=lambda x: x["pool_bytes"])
