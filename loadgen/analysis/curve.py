"""The InnoDB model's miss-ratio curve over many pool sizes in one pass, fast enough to draw.

Each pool size is simulated either exactly (the collapsed trace of native/lrusim.c) or as a
miniature (Waldspurger et al., ATC'17): the leaves of the 64-page extents whose
splitmix64(extent ^ salt) falls under the rate R, in a pool of R x the data pages, with every
page above the leaves kept (few and hot: a sampled root would weigh 1/R). The estimate counts the
distinct leaves exactly and scales only the re-reads found in the sampled extents:

    reads = distinct leaves + upper-level reads + (N / n) * sum of y over the n sampled extents

where y is an extent's reads minus its distinct leaves and N the extents in the table. Its
standard error is the ratio estimator's, N * sqrt((1 - n/N) * s_y^2 / n), combined with the
upper levels' re-reads in the miniature (a bound on how far its smaller pool moves them; they
are few: 35 of 817,237 reads in the seed case at 64M). A miniature never has
fewer than 512 data pages (BUF_LRU_OLD_MIN_LEN: smaller, InnoDB has no old sublist and behaves
as plain LRU), so R = max(rate, 512 / data pages); where that makes R large, or the standard
error exceeds the tolerance, the point is simulated exactly.

MySQL pools (ra_rule MySQL) are always simulated exactly: MySQL's read-ahead also reads the
non-leaf pages of the first and the last extent, the start-up pages hold a fixed number of
frames, and the page cleaner's timed batch refills a fixed number of free frames (at each of
model.MYSQL_CLEANER_PHASES_MS, averaged); none of them scales with the sampled extents, so a
miniature's estimate would be biased.

MariaDB pools whose page cleaner frees batches (PoolModel.cleaner_batch) are simulated exactly
while linear read-ahead is on: the batches, with read-ahead's 64-page bursts, wear away the pages
kept from the warm-up, and a miniature cannot reproduce that, as its batch shrinks with R but a
read-ahead burst does not. Measured on the seed case (100M rows, looped): miniatures fell up to
4.2% below the exact model at 1-4G, 3-13 standard errors, at R = 0.01, 0.09 and 0.17 alike.
Without read-ahead the batches scale with the miniature (tests/native/test_curve.py).
"""
from __future__ import annotations

import math
import os
from array import array
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from . import model

MIN_MINIATURE_PAGES = 512  # BUF_LRU_OLD_MIN_LEN
# The sample of extents realises a rate near R, not R: aim above the floor, and simulate exactly
# any miniature that still came out under it.
MINIATURE_MARGIN = 1.25
DEFAULT_RATE = 0.01
EXACT_ABOVE_RATE = 0.4  # a miniature this large saves too little to be worth its error
DEFAULT_TOLERANCE = 0.02  # relative standard error above which a point is simulated exactly


@dataclass
class Estimate:
    reads: int
    reads_se: float  # standard error of reads (0 when exact)
    rate: float  # 1.0 when exact
    exact: bool
    refs: int
    read_ahead: int | None  # pages read ahead (exact points; scaled in miniatures)
    made_young: int | None = None  # exact points only


def rate_for(pool: model.PoolModel, rate: float) -> float:
    """The sampling rate of a pool's miniature, or 1.0 for an exact simulation."""
    if pool.cleaner_batch > 1 and pool.ra_threshold > 0:
        return 1.0  # batches with read-ahead bursts: no miniature reproduces them (module docstring)
    low = pool.capacity_high - pool.cleaner_batch  # the shortest the list gets
    r = max(rate, MINIATURE_MARGIN * MIN_MINIATURE_PAGES / max(1, low))
    return 1.0 if r >= EXACT_ABOVE_RATE else r


def _estimate(row: tuple, distinct: int, refs: int) -> Estimate:
    (_, misses, made_young, _, ra_pages, _, n, big_n, sum_y, sum_y2, upper, _, _, capacity, upper_touched) = row
    if n == big_n:  # the whole table
        return Estimate(misses, 0.0, 1.0, True, refs, ra_pages, made_young)
    if n == 0 or capacity < MIN_MINIATURE_PAGES:  # no sample, or a miniature without an old sublist
        return Estimate(distinct + upper, math.inf, n / big_n, False, refs, None)
    scale = big_n / n
    var = (sum_y2 - sum_y * sum_y / n) / (n - 1) if n > 1 else sum_y2
    # sampling error of the leaves' re-reads, and a bound on the upper levels' (simulated in full
    # but in a smaller pool): their re-reads in the miniature
    se = math.hypot(big_n * math.sqrt(max(0.0, (1 - n / big_n) * var / n)), upper - upper_touched)
    return Estimate(round(distinct + upper + scale * sum_y), se, n / big_n, False, refs, round(ra_pages * scale))


def _batches(cfgs: list[tuple], threads: int) -> list[list[int]]:
    """Indices per thread: exact simulations (the dear ones) dealt first, then miniatures."""
    order = sorted(range(len(cfgs)), key=lambda i: (cfgs[i][3] < 1, -cfgs[i][0]))
    out: list[list[int]] = [[] for _ in range(max(1, min(threads, len(cfgs))))]
    for k, i in enumerate(order):
        out[k % len(out)].append(i)
    return [b for b in out if b]


def _run(source: tuple, pools: list[model.PoolModel], rates: list[float], salt: int,
         threads: int) -> list[Estimate]:
    from .. import native

    trace, workload, n_pages, leaf_pages, ra_threshold = source
    p0 = pools[0]
    # one simulation per pool and page-cleaner phase (MySQL's timed batch: the mean over phases)
    owner = [i for i, p in enumerate(pools) for _ in p.phases()]
    cfgs = [(p.capacity_high, p.pool_pages, p.ra_area, r, salt, p.start_pages, p.start_freed, p.cleaner_batch,
             *p.tick_args(ph)) for p, r in zip(pools, rates) for ph in p.phases()]
    ms = 1000.0 / p0.qps

    def one(idx: list[int]) -> tuple[list[int], list]:
        rows = native.lrusim_curve(trace, workload, n_pages, leaf_pages, p0.old_pct, p0.old_time_ms, ms,
                                   ra_threshold, [cfgs[i] for i in idx], p0.ra_rule)
        return idx, rows

    batches = _batches(cfgs, threads)
    out: list[Estimate | None] = [None] * len(cfgs)
    with ThreadPoolExecutor(max_workers=len(batches)) as ex:
        for idx, rows in ex.map(one, batches):
            distinct, refs = rows[-1]
            for i, row in zip(idx, rows[:-1]):
                out[i] = _estimate(row, distinct, refs)
    return [_mean([e for e, o in zip(out, owner) if o == i]) for i in range(len(pools))]


def _mean(ests: list) -> Estimate:
    """One pool's estimate over its page-cleaner phases (one phase: itself)."""
    if len(ests) == 1:
        return ests[0]
    n = len(ests)

    def avg(xs):
        return None if any(x is None for x in xs) else round(sum(xs) / n)
    e0 = ests[0]
    return Estimate(round(sum(e.reads for e in ests) / n), max(e.reads_se for e in ests), e0.rate,
                    all(e.exact for e in ests), e0.refs, avg([e.read_ahead for e in ests]),
                    avg([e.made_young for e in ests]))


def estimate(source: tuple, pools: list[model.PoolModel], rate: float = DEFAULT_RATE,
             tolerance: float = DEFAULT_TOLERANCE, salt: int = 0, exact: bool = False,
             threads: int | None = None, exact_at: set[int] | frozenset = frozenset()) -> list[Estimate]:
    """Reads for each pool (all with the same old_pct, old_time_ms, qps and read-ahead threshold).

    source: workload_source(...) or trace_source(...). Points whose relative standard error
    exceeds `tolerance` are simulated again, exactly; so are the pools at the indices exact_at.
    """
    if not pools:
        return []
    threads = threads or min(2, os.cpu_count() or 1)
    exact = exact or any(p.ra_rule == model.RA_RULE_MYSQL for p in pools)  # see the module docstring
    rates = [1.0 if exact or i in exact_at else rate_for(p, rate) for i, p in enumerate(pools)]
    est = _run(source, pools, rates, salt, threads)
    redo = [i for i, e in enumerate(est) if not e.exact and e.reads_se > tolerance * max(1, e.reads)]
    if redo:
        again = _run(source, [pools[i] for i in redo], [1.0] * len(redo), salt, threads)
        for i, e in zip(redo, again):
            est[i] = e
    return est


def workload_source(order: str, stride: int, reps: int, g: model.Geometry, ra_threshold: int) -> tuple:
    wl = model.workload_tuple(order, stride, reps, g, moves=ra_threshold > 0)
    return (None, wl, g.n_pages, g.leaf_pages, ra_threshold)


def trace_source(pages, n_pages: int, leaf_pages: int) -> tuple:
    """An explicit page trace (one reference per query); pages below leaf_pages are sampled."""
    buf = pages if isinstance(pages, (bytes, bytearray, memoryview, array)) else array("I", pages)
    return (buf, None, n_pages, leaf_pages, 0)
