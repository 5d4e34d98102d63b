"""The model from an explicit key stream: key distributions (zipfian, hotspot, latest, uniform)
and replayed traces, which model.py's workload tuples cannot describe.

Each key becomes its root-to-leaf descent, the leaf placed as the built-in orders place it
(geometry.leaf_start: near (key - 1) * L / rows, the table loaded in primary-key order, up to 2
keys off as real leaves hold 121-125 rows), the levels above it shared and so hot. A key that is
its leaf's first or last key also reads the neighbouring leaf, as the built-in orders' selects do
(native/lrusim/source.c, source_point_leaves): the PAGE_CUR_L descent lands on the previous leaf
and steps on, the read of the last key goes on to the next leaf. That is ~2 queries in 122 (656
steps per 40,000 random queries); left out, the model was 460-840 pages short at 8M/16M on both
servers, where MariaDB counted 562-666 read requests more than the descents alone
(docs/sizing.md). The page references go to the same InnoDB LRU kernel (native/lrusim/) in its
explicit-trace mode, so these predictions use exactly the LRU rules the built-in orders use.

Linear read-ahead: MySQL 8.0-9.x checks it on the first access of every page, so it runs on key
streams too (measured: 36-47 pages read ahead for zipfian at 8M, 437-538 for hotspot, whose hot
keys fill whole areas; docs/mysql-lab.md) and the model simulates it on MySQL. MariaDB 10.11
checks it only when a select steps to the next leaf: left out there (measured: none read ahead
for these streams, whose steps land on areas read out of order), and a trace that does scan in
key order is predicted without it and says so in the prediction's note.

MySQL's start-up pages (pages_data_before of a run) and its page cleaner's timed LRU batch
(model.PoolModel.cleaner_depth; the mean over its phases) are simulated as for the built-in
orders.

For a measured run the pool's capacity is what it held (held_pages), not the reserve formula.

The page trace is built in C from chunks of keys; it holds 4 bytes per page reference
(height references per query, one more on a leaf's edge), the one thing here that grows with the
number of queries.

Time: innodb_old_blocks_time works in real time, and a measured run's rate is anything but
constant (a cold pool is slow, a shared machine slower still: 300 to 3,300 queries/s within one
run here). For a run with samples, the prediction follows the measured timeline: the kernel's
clock ticks once per reference, so quiet stretches are filled with references to the root page
(resident and young from the first query on, so they change nothing but the clock; they are
taken off the reference count again). At most PAD_FACTOR times the real references are added
(fewer past MAX_PACED_REFS, none for runs of over ~10M queries: a constant rate there); a
stretch faster than that allows runs late.
"""
from __future__ import annotations

import dataclasses
import os
import statistics
from array import array
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterable

from . import intervals, model
from .lru_reference import py_point_pages
from .pool import hold_capacity
from ..errors import UsageError
from ..measure.cleaner import replay_schedule
from ..workload.orders import PATTERN_ORDERS, Workload

KEY_ORDERS = ("random", *PATTERN_ORDERS, "trace")
PAD_FACTOR = 4
MAX_PACED_REFS = 64 << 20  # 256 MiB of padded trace; beyond it fewer pads, then a constant rate
CHUNK_KEYS = 65536
MAX_KEY_REFS = 128 << 20  # page references `predict` takes in a key stream's trace: 512 MiB at 4 bytes each
NOTE_NO_READ_AHEAD = "linear read-ahead is not modelled for key streams"


def page_trace(keys: Iterable[int], g: model.Geometry, key_min: int = 1) -> tuple[array, int, int]:
    """(uint32 page references, keys used, keys outside the table) for a key stream: each key's
    descent, root first, with the step to the neighbouring leaf where the key is a leaf's first or
    last key (query_starts finds each query's first reference)."""
    from .. import native

    fill = native.keys_to_pages()
    pages, used = array("I"), 0
    it = iter(keys)
    geometry = (key_min, g.rows, g.leaf_pages, g.height, g.fanout)
    seen = 0
    while True:
        chunk = array("Q")
        for k in it:
            chunk.append(k)
            if len(chunk) >= CHUNK_KEYS:
                break
        if not chunk:
            break
        seen += len(chunk)
        if fill is not None:
            out = array("I", bytes(4 * (g.height + 1) * len(chunk)))
            written, _, queries = fill(chunk, out, geometry)
            pages.extend(out[:written])
            used += queries
        else:
            for k in chunk:
                if key_min <= k < key_min + g.rows:
                    pages.extend(_descent(k - key_min, g))
                    used += 1
    return pages, used, seen - used


def _descent(offset: int, g: model.Geometry) -> list[int]:
    """The pages a point select on the key at `offset` from the first key reads: the reference for
    C (the built-in orders' leaf placement and steps, lru_reference.py_point_pages)."""
    return [p for p, _ in py_point_pages(g, offset + 1)]


def query_starts(pages: array, used: int, g: model.Geometry):
    """Each query's first reference index in a page trace of `used` queries (page_trace's: every
    descent starts at the root; a one-page table's queries are one reference each), or None where
    the trace is not such a trace (a padded one)."""
    import numpy as np

    a = np.frombuffer(pages, dtype=np.uint32)
    starts = np.flatnonzero(a == g.n_pages - 1) if g.height > 1 else np.arange(len(a))
    return starts if len(starts) == used else None


def simulate_pages(pages: array, queries: int, g: model.Geometry, pool: model.PoolModel) -> tuple[int, int, int, int]:
    """(refs, misses, made_young, not_young) of InnoDB's LRU on a page trace of `queries` queries.

    The kernel's explicit-trace clock ticks once per reference; a query's references share its
    time, so a tick is the query's time spread over its references (old_blocks_time is in ms)."""
    if not pages:
        return 0, 0, 0, 0
    ms_per_ref = (1000.0 / pool.qps) * queries / len(pages)
    return _kernel(pages, g, pool, ms_per_ref)[:4]


def _kernel(pages: array, g: model.Geometry, pool: model.PoolModel, ms_per_ref: float,
            seen_refs: tuple | None = None) -> tuple:
    """The InnoDB kernel on an explicit trace, (refs, misses, made_young, not_young, read_ahead,
    read_ahead_evicted): MySQL's start-up pages, linear read-ahead and timed page-cleaner batch
    included (the mean over the batch's phases, model.mean_over_phases), or with seen_refs the
    run's recorded batches replayed at these reference indexes of `pages` ((ref, pages evicted),
    ...: replay_at_refs), in place of the timed batch."""
    from .. import native

    # MySQL checks linear read-ahead on every first access of a page, which a key stream has too
    # (MariaDB only on a select's step to the next leaf: not simulated for key streams, see above)
    ra = pool.ra_threshold if pool.ra_rule == model.RA_RULE_MYSQL else 0
    # a bare trace's clock ticks per reference: the kernel replays a record by reference index
    pool = (dataclasses.replace(pool, cleaner_seen=seen_refs) if seen_refs is not None
            else model.without_record(pool))
    return model.mean_over_phases(pool, lambda ph: native.lrusim_innodb(
        pages, None, g.n_pages, pool.capacity_high, pool.pool_pages, pool.old_pct, pool.old_time_ms, ms_per_ref,
        ra, pool.ra_area, True, pool.ra_rule, pool.start_pages, pool.start_freed, pool.cleaner_batch,
        *pool.tick_args(ph), g.leaf_pages, seen=pool.cleaner_seen))


def replay_at_refs(seen: tuple, starts, used: int, refs: int) -> tuple:
    """A run's recorded LRU batches ((queries done, pages), ...: measure/cleaner.replay_schedule)
    at the reference index where that query starts in the trace (`starts`, per query, from
    paced; None: the trace's references spread evenly over its `used` queries)."""
    out = []
    for q, n in seen:
        q = min(max(int(q), 0), max(used - 1, 0))
        out.append((int(starts[q]) if starts is not None else q * refs // max(used, 1), int(n)))
    return tuple(out)


def cleaner_bounds(pages: array, g: model.Geometry, pool: model.PoolModel, ms_per_ref: float) -> tuple | None:
    """(low, high) misses over no timed batch, one at any phase and two (model.simulate_bounded's
    envelope, for an explicit trace); None without MySQL's timed batch."""
    if not pool.cleaner_depth or not pages:
        return None
    from .. import native

    ra = pool.ra_threshold if pool.ra_rule == model.RA_RULE_MYSQL else 0
    pool = model.without_record(pool)

    def run(ticks):
        return native.lrusim_innodb(
            pages, None, g.n_pages, pool.capacity_high, pool.pool_pages, pool.old_pct, pool.old_time_ms, ms_per_ref,
            ra, pool.ra_area, True, pool.ra_rule, pool.start_pages, pool.start_freed, pool.cleaner_batch,
            *ticks, g.leaf_pages)[1]

    one = [pool.tick_args(ph) for ph in pool.phases()] + [(0, 0.0, model.MYSQL_CLEANER_PERIOD_MS, 1)]
    reads = [run(t) for t in one]
    if len(set(reads)) > 1:  # as simulate_bounded: where one batch anywhere cannot matter, two cannot
        reads += [run((pool.cleaner_depth, ph, after, model.MYSQL_CLEANER_MAX_BATCHES)) for ph in pool.phases()
                  for after in model.MYSQL_CLEANER_SECOND_AFTER_MS]
    return min(reads), max(reads)


def held_pages(samples: list[dict], pool_pages: int) -> int | None:
    """The data pages the pool held during a run (median of Innodb_buffer_pool_pages_data over the
    samples after the first): the capacity the model uses for a measured run, instead of the
    page-cleaner reserve formula. They differ where the formula was not measured: MySQL 9.7 kept
    no free pages at all at 8M/16M (pages_free 0, scan depth 100), MariaDB 10.11 kept 50..100."""
    data = [int(s["pages_data"]) for s in samples[1:] if s.get("pages_data")]
    if len(data) < 2:
        return None
    return max(1, min(pool_pages, round(statistics.median(data))))


def query_times_ms(samples: list[dict], queries: int):
    """Each query's time (ms from the run's start), interpolated in the sampler's intervals; None
    without usable samples."""
    import numpy as np

    pts = [(0.0, 0)]
    done = 0
    for s in samples or []:
        if s.get("t_s") is None or s.get("queries") is None:
            continue
        done += int(s["queries"])
        pts.append((float(s["t_s"]) * 1000.0, done))
    if len(pts) < 3 or done <= 0:
        return None
    t, q = np.array([p[0] for p in pts]), np.array([p[1] for p in pts], dtype=float)
    keep = np.concatenate(([True], np.diff(q) > 0))  # intervals with no query add no information
    t, q = t[keep], q[keep]
    idx = np.arange(queries, dtype=float) + 0.5
    return np.interp(idx, q, t)  # past the last sample: the last time


def paced(pages: array, used: int, g: model.Geometry, times_ms, starts: list | None = None) -> tuple[array, int, float]:
    """(page trace with root references filling the quiet stretches, pads added, ms per reference)
    so that reference index x ms per reference follows times_ms (see the module docstring).
    `starts`, a list, gets each query's first reference index in the padded trace."""
    import numpy as np

    factor = min(PAD_FACTOR, MAX_PACED_REFS // max(1, len(pages)) - 1)
    own = query_starts(pages, used, g) if times_ms is not None and used and factor >= 1 else None
    if own is None:
        return pages, 0, 0.0
    lens = np.diff(np.append(own, len(pages)))  # height, or height + 1 with a leaf step
    times = np.asarray(times_ms[:used], dtype=float)
    if len(times) < used:
        times = np.concatenate((times, np.full(used - len(times), times[-1] if len(times) else 0.0)))
    span = max(times[-1] - times[0], 1e-3)
    # the whole run spans (PAD_FACTOR + 1) x the real references: stretches up to that many times
    # the run's mean rate keep their time
    ms_per_ref = span / (len(pages) * (factor + 1))
    ideal = np.floor((times - times[0]) / ms_per_ref).astype(np.int64)
    start = np.maximum.accumulate(ideal - own) + own  # start_q >= start_{q-1} + its references
    root = g.n_pages - 1
    out = np.full(int(start[-1] + lens[-1]), root, dtype=np.uint32)
    out[np.arange(len(pages)) + np.repeat(start - own, lens)] = np.frombuffer(pages, dtype=np.uint32)
    if starts is not None:
        starts[:] = [start]
    return array("I", out.tobytes()), len(out) - len(pages), ms_per_ref


def simulate_paced(pages: array, used: int, g: model.Geometry, pool: model.PoolModel,
                   times_ms, seen: tuple | None = None) -> tuple[int, int, int, int, int]:
    """(refs, misses, made_young, not_young, read_ahead): simulate_pages on the measured timeline
    (or at pool.qps without one), and the pages read ahead (MySQL only; in misses). seen: the
    run's recorded LRU batches by queries done (replayed where they were seen)."""
    starts: list = []
    padded, pads, ms_per_ref = paced(pages, used, g, times_ms, starts)
    if not pads and not ms_per_ref:
        ms_per_ref, pads, padded, starts = (1000.0 / pool.qps) * used / max(1, len(pages)), 0, pages, []
    seen_refs = replay_at_refs(seen, starts[0] if starts else None, used, len(padded)) if seen is not None else None
    refs, misses, made_young, not_young, read_ahead, _ = _kernel(padded, g, pool, ms_per_ref, seen_refs)
    return refs - pads, misses, made_young, not_young, read_ahead


def forecast_keys(w: Workload, g: model.Geometry, pool_bytes: int, variables: dict | None = None,
             flavor: str = "mariadb", qps: float = model.DEFAULT_QPS, curve_pools: list[int] | None = None,
             total_pages: int | None = None) -> model.Forecast:
    """forecast.forecast for a key stream: the prediction at pool_bytes and the curve."""
    pages, used, _ = page_trace(w.ids(), g)
    pool = model.pool_model(pool_bytes, variables, flavor, qps, total_pages)
    pools = [pool_bytes] + [p for p in (curve_pools or []) if p != pool_bytes]
    models = [pool] + [model.pool_model(p, variables, flavor, qps) for p in pools[1:]]
    hist = model.stack_histogram_trace(pages, g.n_pages)
    # the asked pool's read-ahead too (MySQL reads ahead on key streams), for the prediction block
    ms_per_ref = (1000.0 / qps) * used / max(1, len(pages))
    with ThreadPoolExecutor(max_workers=max(1, min(len(models), os.cpu_count() or 1))) as ex:
        sims = list(ex.map(lambda m: _kernel(pages, g, m, ms_per_ref)[:5] if pages else (0, 0, 0, 0, 0), models))
    refs = len(pages)
    points = []
    for pb, m, (_, misses, *_rest) in zip(pools, models, sims):
        plain = model.lru_misses(hist, m.capacity_pages)
        points.append(model.CurvePoint(pb, m.pool_pages, m.capacity_pages, misses, plain,
                                       misses / refs if refs else 0.0, plain / refs if refs else 0.0,
                                       reads_low=None, reads_high=None))
        bounds = cleaner_bounds(pages, g, m, ms_per_ref) if m is pool else None
        points[-1].reads_low, points[-1].reads_high = intervals.for_pool(
            misses, m, bounds, hist=hist, start_measured=total_pages is not None,
            fitted=w.order in intervals.FITTED_KEY_ORDERS)
    _, misses, made_young, _, read_ahead = sims[0]
    at = model.Prediction(model.MODEL, misses, refs, 1.0 - misses / refs if refs else 0.0, points[0].plain_lru_reads,
                          pool.capacity_pages, pool.pool_pages, made_young, qps, read_ahead=read_ahead,
                          reads_low=points[0].reads_low, reads_high=points[0].reads_high)
    curve = sorted(points[1:] if curve_pools and pool_bytes not in curve_pools else points,
                   key=lambda p: p.pool_bytes)
    return model.Forecast(g, w.order, used, refs, at, curve)


def check_size(w: Workload, g: model.Geometry) -> None:
    """A key stream is simulated reference by reference, on state for every page of the table:
    unlike the built-in orders (scaled.py) it has no structure a smaller copy keeps (which keys a
    zipfian stream repeats depends on the whole key space), so above these limits it is refused
    with what to do, not run out of memory (by `predict`; a measured run's prediction is made
    whatever its size, as before)."""
    from .scaled import EXACT_MAX_PAGES

    if g.n_pages > EXACT_MAX_PAGES:
        raise UsageError(f"--order {w.order} is simulated page by page: at most {EXACT_MAX_PAGES:,} pages, and this "
                         f"table has {g.n_pages:,}",
                         "predict a smaller table (--rows), or --variation A/B, which larger tables are predicted for "
                         "on a scaled copy")
    refs = w.queries * g.height
    if refs > MAX_KEY_REFS:
        raise UsageError(f"--order {w.order}: {w.queries:,} queries are {refs:,} page references, over the "
                         f"{MAX_KEY_REFS:,} the model holds in memory",
                         f"give --queries {MAX_KEY_REFS // g.height:,} or fewer")


def predict_keys_run(run, w: Workload, g: model.Geometry, pool: model.PoolModel) -> tuple[model.Prediction, int, dict]:
    """A measured run of a key stream (analysis/predict.py chooses): (the model's prediction at
    the run's pool, its plain-LRU reads, the block's `note` where read-ahead is left out). The
    pool holds what the run measured it held (held_pages), and the run's own timeline paces it."""
    srv, res = run.server, run.result
    done = int(res.get("queries") or w.queries)
    pages, used, _ = page_trace(_first(w.ids(), done), g)
    pool = hold_capacity(pool, held_pages(run.samples or [], pool.pool_pages), srv.get("variables"))
    times = query_times_ms(run.samples or [], used)
    # MySQL: the run's own LRU batches (measure/cleaner.py) replayed where they were seen, as the
    # built-in orders do (forecast.predict_order_run); then the cleaner's timing is no range
    seen = replay_schedule(run.buffer_pool.get("cleaner_batches")) if pool.cleaner_depth else None
    refs, misses, made_young, _, read_ahead = simulate_paced(pages, used, g, pool, times, seen)
    bounds = None
    if seen is None:
        padded, pads, step = paced(pages, used, g, times)
        if not pads and not step:
            padded, step = pages, (1000.0 / pool.qps) * used / max(1, len(pages))
        bounds = cleaner_bounds(padded, g, pool, step)
    hist = model.stack_histogram_trace(pages, g.n_pages)
    plain = model.lru_misses(hist, pool.capacity_pages)
    p = model.Prediction(model.MODEL, misses, refs, 0.0, plain, pool.capacity_pages, pool.pool_pages, made_young,
                         pool.qps, read_ahead=read_ahead)
    p.cleaner_low, p.cleaner_high = bounds or (None, None)
    p.cleaner = model.cleaner_method(dataclasses.replace(pool, cleaner_seen=seen))
    p.reads_low, p.reads_high = intervals.for_pool(misses, pool, bounds, hist=hist,
                                                   start_measured=run.buffer_pool.get("pages_data_before") is not None,
                                                   fitted=w.order in intervals.FITTED_KEY_ORDERS)
    return p, plain, ({"note": NOTE_NO_READ_AHEAD} if pool.ra_rule != model.RA_RULE_MYSQL else {})


def _first(it, n: int):
    for i, k in enumerate(it):
        if i >= n:
            return
        yield k
