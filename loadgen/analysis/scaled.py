"""Tables too large to simulate page by page: the built-in orders on a scaled copy of the table.

The exact simulation keeps state for every page of the table (~31 bytes a page in each pool, plus
the plain-LRU stack), so its memory grows with the table: 1,000M rows took 4.8 s and 550 MB, a
10,000M-row (1.3 TB) table would need ~5.5 GB. Up to EXACT_MAX_PAGES the model simulates exactly
(a 100M-row table is 0.8M pages: its results are the exact simulation's, unchanged). Above it,
each pool is simulated on a copy of the table COPY_PAGES pages large and the counts are scaled
back (docs/innodb.md, "Large tables"):

- The table and the pool are both shrunk by f (the table's leaves over the copy's, but never to
  a pool under COPY_PAGES / MIN_SCALED_SHARE pages), the rules counted in pages kept as they are
  (read-ahead area, the cleaner's batch, the old sublist's minimum, old_blocks_time in queries),
  and the copy's counts multiplied by f. Why this holds: the seed's orders read the leaves in key
  order, and whether a leaf is still resident when it is read again depends on the share of the
  pool the pages read since then fill; shrinking the table and the pool together keeps that
  share. What it does not keep is the weight of the fixed-size rules against the pool: the error
  is largest where the young pages kept from the warm-up begin to outlive a pass (pools of 30-80%
  of the table), measured against the exact simulation in tests/unit/test_scaled.py and
  bench/README.md: within SCALED_REL_SE. Pages read ahead and made young are the copy's, scaled:
  the reads hold, these only roughly (read-ahead within 10% at 1,000M and 10,000M rows).
- Where the pool cannot shrink by the whole f, the shrunk table is still larger than the copy and
  many pools long: the shrunk pool then runs on two copies (half and whole), and their counts are
  extended along the line through them. Every count is affine in the leaves there: each leaf is
  read once a pass whatever the pool holds, and the pool's start and the passes' ends look the
  same in both copies.
- The copy keeps the table's drift of leaf starts against the stride (copy_geometry).

Nothing here grows with the table: a copy's state, and per pool one simulation of it.
Key streams (random, zipfian, traces) are not scaled: keymodel.py simulates them reference by
reference, up to a limit it states.
"""
from __future__ import annotations

import dataclasses

from . import intervals, model
from ..errors import UsageError
from .geometry import Geometry, estimate_geometry
from .pool import PoolModel

EXACT_MAX_PAGES = 1 << 21  # ~257M rows of the seed's table: ~130 MB for predict --advise
COPY_PAGES = 1 << 17  # the copy a large table is simulated on (~16M rows; ~0.03 s a pool)
# A pool is shrunk to no fewer data pages than the copy's over this: smaller, the fixed-size rules
# (a 768-page cleaner batch, 64-page read-ahead areas, the 512-page old sublist minimum) would
# weigh too much; and the half copy is still 16 such pools long, as the extrapolation needs.
MIN_SCALED_SHARE = 32
# The scaled copy's error as a share of the reads, reported as one standard error: against the
# exact simulation (bench/bench_scale.py --validate; looped, the worst order), 128k-page copies came
# within 0.56% at 1,000M and 10,000M rows, 64k-page copies of 60M-100M rows within 1.04%
# (tests/unit/test_scaled.py); the interleaved order within 0.01%.
SCALED_REL_SE = 0.01
# rows per leaf within DRIFT_MAX_PER_LEAF of a fraction of denominator <= DRIFT_DENOMINATOR: a
# short pattern of leaf starts whose drift the copy keeps (copy_geometry)
DRIFT_DENOMINATOR = 64
DRIFT_MAX_PER_LEAF = 0.01
POOLS_PER_PASS = 8  # pools simulated at once (~4 MB each): what bounds the memory, with COPY_PAGES


def is_large(g: Geometry) -> bool:
    return g.n_pages > EXACT_MAX_PAGES


def refuse_exact(g: Geometry, exact: bool) -> None:
    """--exact on a table past the exact limit: say what to do instead of running out of memory."""
    if exact and is_large(g):
        raise UsageError(f"--exact simulates every page: at most {EXACT_MAX_PAGES:,} pages here, and this table "
                         f"has {g.n_pages:,}",
                         "drop --exact: a table this large is simulated on a scaled copy "
                         "(docs/innodb.md, \"Large tables\")")


def copy_geometry(g: Geometry, pages: int = COPY_PAGES) -> Geometry:
    """The table shrunk to about `pages` pages, with its rows per leaf and fanout, and its drift.

    Which selects land on a leaf's first or last key (read-ahead's trigger, and the leaf steps)
    follows the phase of the leaf starts against the stride, k x rows / leaves: rows per leaf
    near a simple fraction (the seed's 122.5 = 245/2) repeat a short pattern whose phase drifts
    by rows - 122.5 x leaves ids over the whole table (33 at 100M rows: three stride-10 cycles).
    A copy with the same rows per leaf would drift by 1/f of that, hold one phase, and read ahead
    at another rate (at 100M rows, 64M: 557k pages read ahead against 306k, reads +1%); the copy
    keeps the table's whole drift instead, so it goes through the same phases."""
    from fractions import Fraction

    rpl = g.rows / g.leaf_pages
    leaves = max(1, round(g.leaf_pages * pages / g.n_pages))
    near = Fraction(rpl).limit_denominator(DRIFT_DENOMINATOR)
    drift = g.rows - float(near) * g.leaf_pages  # ids the leaf starts drift over the table
    rows = leaves * float(near)
    if abs(drift) <= DRIFT_MAX_PER_LEAF * leaves:  # else: no short pattern worth keeping
        rows += drift
    else:
        rows = leaves * rpl
    c = estimate_geometry(max(1, round(rows)), rows_per_leaf=rpl, fanout=g.fanout)
    return c if c.leaf_pages == leaves else Geometry(max(1, round(rows)), leaves, c.height, g.fanout)


def scaled_pool(pool: PoolModel, f: float) -> PoolModel:
    """The pool shrunk by f. MySQL's start-up pages and its timed cleaner's refill target are
    shares of the pool's frames, not rules counted in pages: they shrink with it."""
    return dataclasses.replace(pool, pool_pages=max(1, round(pool.pool_pages / f)),
                               capacity_pages=max(1, round(pool.capacity_pages / f)),
                               start_pages=round(pool.start_pages / f), start_freed=round(pool.start_freed / f),
                               cleaner_depth=max(1, round(pool.cleaner_depth / f)) if pool.cleaner_depth else 0)


@dataclasses.dataclass
class Counts:
    """What a pool reads of the whole table, from its copies, and how: the factor the copy's counts
    were multiplied by, and whether they were extended from two copies."""

    refs: int
    misses: int
    made_young: int
    read_ahead: int
    plain_lru_reads: int
    factor: float
    two_copies: bool


def _run_copy(order: str, stride: int, reps: int, cg: Geometry, pools: list[PoolModel]) -> list[tuple]:
    """Each pool simulated exactly on copy cg, in one pass that also gives plain LRU's histogram
    (curve.py; pools that hold the copy share a simulation): simulate_detail's counts that the
    curve keeps (refs, misses, made_young, read_ahead) and plain LRU's reads, per pool."""
    from . import curve

    src = curve.workload_source(order, stride, reps, cg, pools[0].ra_threshold)
    est, hist = [], None
    # a few pools a pass: each holds ~31 bytes per page of the copy while it runs
    for i in range(0, len(pools), POOLS_PER_PASS):
        got, h = curve.estimate_and_plain_lru(src, pools[i:i + POOLS_PER_PASS], exact=True, plain_lru=hist is None)
        est += got
        hist = hist if hist is not None else h
    return [(e.refs, e.reads, e.made_young or 0, e.read_ahead or 0, model.lru_misses(hist, p.capacity_pages))
            for e, p in zip(est, pools)]


def simulate_copies(order: str, stride: int, reps: int, g: Geometry, pools: list[PoolModel],
             copy_pages: int = COPY_PAGES) -> list[Counts]:
    """Counts for each pool from the scaled copies (module docstring). Each pool shrinks by
    f = min(the table's factor, capacity / (copy_pages / MIN_SCALED_SHARE)), the table with it;
    where the table is then still larger than the copy, the shrunk pool runs on two copies whose
    counts extend, affinely in the leaves, to the shrunk table's."""
    if not pools:
        return []
    big = copy_geometry(g, copy_pages)
    half = copy_geometry(g, copy_pages // 2)
    f_big = g.leaf_pages / big.leaf_pages
    plan = []  # per pool: its factor, its shrunk pool, and whether it needs the half copy too
    for p in pools:
        f = max(1.0, min(f_big, p.capacity_pages / (copy_pages // MIN_SCALED_SHARE)))
        plan.append((f, scaled_pool(p, f) if f > 1 else p, f < f_big))
    on_big = list(dict.fromkeys(sp for _, sp, _ in plan))
    on_half = list(dict.fromkeys(sp for _, sp, two in plan if two))
    res_big = dict(zip(on_big, _run_copy(order, stride, reps, big, on_big)))
    res_half = dict(zip(on_half, _run_copy(order, stride, reps, half, on_half))) if on_half else {}
    # read requests: every query's descent is exact (queries x height), only the leaf steps (the
    # extra leaf of a select on a leaf's first or last key) come from the copy; a copy may be a
    # level shorter than the table
    def steps(cg: Geometry, counts: tuple) -> tuple:
        return (counts[0] - model.queries_of(order, cg.rows, stride, reps) * cg.height, *counts[1:])

    out = []
    for f, sp, two in plan:
        vals = steps(big, res_big[sp])
        if two:
            # affine in the leaves: extend the line through the two copies to the table shrunk by f
            t = (g.leaf_pages / f - big.leaf_pages) / (big.leaf_pages - half.leaf_pages)
            vals = [y + (y - x) * t for x, y in zip(steps(half, res_half[sp]), vals)]
        c = Counts(*(max(0, round(v * f)) for v in vals), f, two)
        c.refs += model.queries_of(order, g.rows, stride, reps) * g.height
        out.append(c)
    return out


def estimates(order: str, stride: int, reps: int, g: Geometry, pools: list[PoolModel]) -> list:
    """curve.Estimate for each pool (for advise and the curve), with plain LRU's reads beside."""
    from .curve import Estimate

    got = simulate_copies(order, stride, reps, g, pools)
    return [Estimate(c.misses, SCALED_REL_SE * c.misses, 1.0 / c.factor, False, c.refs, c.read_ahead,
                     c.made_young, plain_lru_reads=c.plain_lru_reads) for c in got]


def forecast_scaled(order: str, stride: int, reps: int, g: Geometry, pool: PoolModel, pool_bytes: int,
             others: list[int], models: list[PoolModel], qps: float, curve_pools: list[int] | None,
             known: dict) -> model.Forecast:
    """forecast.forecast for a large table: every point, the asked pool's too, from the copies."""
    todo = [m for b, m in zip(others, models) if b not in known or known[b].plain_lru_reads is None]
    at_known = known.get(pool_bytes)
    new = iter(estimates(order, stride, reps, g, ([] if at_known is not None else [pool]) + todo))
    at = at_known if at_known is not None else next(new)
    ests = [known[b] if b in known and known[b].plain_lru_reads is not None else next(new) for b in others]
    refs = at.refs
    points = [model.CurvePoint(pool_bytes, pool.pool_pages, pool.capacity_pages, at.reads, at.plain_lru_reads,
                               at.reads / refs if refs else 0.0, at.plain_lru_reads / refs if refs else 0.0,
                               round(at.reads_se, 1), round(at.rate, 5), False,
                               *intervals.for_pool(at.reads, pool, se=at.reads_se))]
    for b, m, e in zip(others, models, ests):
        points.append(model.CurvePoint(b, m.pool_pages, m.capacity_pages, e.reads, e.plain_lru_reads,
                                       e.reads / refs if refs else 0.0, e.plain_lru_reads / refs if refs else 0.0,
                                       round(e.reads_se, 1), round(e.rate, 5), False,
                                       *intervals.for_pool(e.reads, m, se=e.reads_se)))
    p = model.Prediction(model.MODEL, at.reads, refs, 1.0 - at.reads / refs if refs else 0.0, at.plain_lru_reads,
                         pool.capacity_pages, pool.pool_pages, at.made_young or 0, qps, read_ahead=at.read_ahead,
                         scale=round(1.0 / at.rate, 3), reads_se=round(at.reads_se, 1),
                         reads_low=points[0].reads_low, reads_high=points[0].reads_high)
    keep = points if not curve_pools or pool_bytes in curve_pools else points[1:]
    return model.Forecast(g, order, model.queries_of(order, g.rows, stride, reps), refs, p,
                          sorted(keep, key=lambda x: x.pool_bytes))
