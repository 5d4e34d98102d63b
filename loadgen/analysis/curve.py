"""The InnoDB model's miss-ratio curve over many pool sizes in one pass, fast enough to draw.

Each pool size is simulated either exactly (the collapsed trace of native/lrusim/) or as a
miniature (Waldspurger et al., ATC'17): the leaves of the 64-page extents whose
splitmix64(extent ^ salt_key(salt)) falls under the rate R, in a pool of R x the data pages, with every
page above the leaves kept (few and hot: a sampled root would weigh 1/R). The estimate counts the
distinct leaves exactly and scales only the re-reads found in the sampled extents:

    reads = distinct leaves + upper-level reads + (N / n) * sum of y over the n sampled extents

where y is an extent's reads minus its distinct leaves and N the extents in the table. Its
standard error is the ratio estimator's, N * sqrt((1 - n/N) * s_y^2 / n), combined with the
upper levels' re-reads in the miniature (a bound on how far its smaller pool moves them; they
are few: 35 of 817,237 reads in the seed case at 64M). Where the page cleaner frees batches and
read-ahead is on, the sampling error is doubled (BATCH_SE_FACTOR): the miniature's dynamics
add an error of their own there (measured at 20M rows, 537M-1.6G: 1.5-3x the sampling error).

A miniature keeps InnoDB's page-count rules in weighted full-scale units (native/lrusim/miniature.h): the
old sublist's length, its tolerance and its 512-page minimum, the page cleaner's batch and the
freed-page clock are all measured in pages of the full pool, a sampled leaf weighing one and a
page above the leaves R. So a miniature of a pool under 512 data pages has no old sublist, like
the pool, and one of a larger pool has it, however small the miniature. What is left is the
grain: a read-ahead burst is a whole area (64 pages) at any R. At full scale a burst is a small
part of a batch cycle (768 pages) and its pages are accessed before the next batch: those the
old/young boundary made young as the list regrew move to the head then. A miniature's burst
spans several batches, which would make them old again first; before a batch inside a burst the
miniature moves them to the head (what their first access does at full scale). Without that the
seed case's miniatures fell up to 4.2% below the exact model at 1-4G (bench/README.md).

A miniature holds at least MIN_MINIATURE_PAGES (three read-ahead areas), or an eighth of a
smaller pool and never under 24 pages, and never under 1.5 read-ahead areas (one a burst nearly
fills thrashes): R = max(rate, 1.25 x that / data pages). The grain of the bursts adds
GRAIN_SE x area / miniature pages of the reads to the reported error. Where R comes out >= 0.4,
or the standard error exceeds the tolerance, the point is simulated exactly.

MySQL pools (ra_rule MySQL) are always simulated exactly: MySQL's read-ahead also reads the
non-leaf pages of the first and the last extent, the start-up pages hold a fixed number of
frames, and the page cleaner's timed batch refills a fixed number of free frames (at each of
pool.MYSQL_CLEANER_PHASES_MS, averaged); none of them scales with the sampled extents, so a
miniature's estimate would be biased. (A captured trace's curve is tracemodel's, not this one: there
MySQL's pools of a long trace under writes are exact at one cleaner phase, tracesample.one_phase.)

Pools that simulate the same share one simulation: equal models, and pools that hold every
page the workload can read (nothing is evicted, so the freed-page clock stays 0 and no page
moves; only the read-ahead area tells them apart).
"""
from __future__ import annotations

import dataclasses
import math
import os
from array import array
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from . import model
from .geometry import Geometry
from .pool import FILLER_SLOTS, OLD_MIN_LEN, RA_RULE_MYSQL, PoolModel

# A miniature holds at least three read-ahead areas (a burst is 64 pages whatever R is) and, in
# pools too small for that, an eighth of the pool's pages and never under 24 (module docstring).
MIN_MINIATURE_PAGES = 192
MIN_MINIATURE_SHARE = 8
MIN_MINIATURE_FLOOR = 24
# The sample of extents realises a rate near R, not R: aim above the floor, and simulate exactly
# any miniature that still came out under it.
MINIATURE_MARGIN = 1.25
DEFAULT_RATE = 0.03
EXACT_ABOVE_RATE = 0.4  # a miniature this large saves too little to be worth its error
DEFAULT_TOLERANCE = 0.02  # relative standard error above which a point is simulated exactly
# Batches with read-ahead: the miniature's dynamics add an error the sampling error does not
# hold (2-3x it at 537M-1.6G on 20M rows, bench/README.md); the reported error is scaled by this.
BATCH_SE_FACTOR = 2.0
# A read-ahead burst is a whole area in a miniature of any size: the grain adds an error of about
# this share of the reads times area / miniature pages (measured: 48M, 300-page miniatures,
# +0.3..+0.4% at 100M rows; under 0.02% where the miniature holds thousands of pages).
GRAIN_SE = 0.02


@dataclass
class Estimate:
    reads: int
    reads_se: float  # standard error of reads (0 when exact)
    rate: float  # 1.0 when exact
    exact: bool
    refs: int
    read_ahead: int | None  # pages read ahead (exact points; scaled in miniatures)
    made_young: int | None = None  # exact points only
    plain_lru_reads: int | None = None  # set by scaled.py (a large table has no histogram to read it from)


def min_pages(pool: PoolModel) -> int:
    """The fewest data pages a miniature of this pool may hold (MIN_MINIATURE_PAGES), and never
    under one and a half read-ahead areas: a burst is a whole area at any R, and a miniature that
    a burst nearly fills thrashes (16M, area 32, in 30 pages: +19.5%, 29 standard errors)."""
    low = pool.capacity_high - pool.cleaner_batch  # the shortest the list gets
    burst = pool.ra_area * 3 // 2 if pool.ra_threshold > 0 else 0
    return max(burst, min(MIN_MINIATURE_PAGES, max(MIN_MINIATURE_FLOOR, low // MIN_MINIATURE_SHARE)))


def rate_for(pool: PoolModel, rate: float) -> float:
    """The sampling rate of a pool's miniature, or 1.0 for an exact simulation."""
    low = pool.capacity_high - pool.cleaner_batch
    if pool.cleaner_batch > 1 and low < OLD_MIN_LEN <= pool.capacity_high:
        # each batch takes the list under BUF_LRU_OLD_MIN_LEN and dissolves the old sublist, an
        # event at a fixed list length that a miniature does not scale (MariaDB 32M at the
        # default depth, looped: +0.8% off the exact reads, 5.7 standard errors); such pools are small
        return 1.0
    r = max(rate, MINIATURE_MARGIN * min_pages(pool) / max(1, low))
    return 1.0 if r >= EXACT_ABOVE_RATE else r


def _estimate(row: tuple, distinct: int, refs: int, pool: PoolModel) -> Estimate:
    (_, misses, made_young, _, ra_pages, _, n, big_n, sum_y, sum_y2, upper, _, _, capacity, upper_touched) = row
    if n == big_n:  # the whole table
        return Estimate(misses, 0.0, 1.0, True, refs, ra_pages, made_young)
    if n == 0 or capacity < min(min_pages(pool), MIN_MINIATURE_FLOOR):  # no sample, or too small a one
        return Estimate(distinct + upper, math.inf, n / big_n, False, refs, None)
    scale = big_n / n
    var = (sum_y2 - sum_y * sum_y / n) / (n - 1) if n > 1 else sum_y2
    # sampling error of the leaves' re-reads, and a bound on the upper levels' (simulated in full
    # but in a smaller pool): their re-reads in the miniature
    se = big_n * math.sqrt(max(0.0, (1 - n / big_n) * var / n))
    if pool.cleaner_batch > 1 and pool.ra_threshold > 0:
        se *= BATCH_SE_FACTOR
    reads = round(distinct + upper + scale * sum_y)
    grain = GRAIN_SE * reads * pool.ra_area / max(1, capacity) if pool.ra_threshold > 0 else 0.0
    se = math.sqrt(se * se + (upper - upper_touched) ** 2 + grain * grain)
    return Estimate(reads, se, n / big_n, False, refs, round(ra_pages * scale))


# Work per simulation in units of one exact pool, for sharing them between threads: a miniature
# costs about its rate, the plain-LRU histogram (a Fenwick tree over the trace) about half a pool.
PLAIN_LRU_COST = 0.4


def _batches(cfgs: list[tuple], threads: int, plain_lru: bool = False) -> tuple[list[list[int]], int]:
    """Indices per thread, the dearest first to the least loaded thread; and the thread that also
    computes the plain-LRU histogram (-1: none)."""
    n = max(1, min(threads, len(cfgs)))
    out: list[list[int]] = [[] for _ in range(n)]
    load = [0.0] * n
    plain_at = -1
    if plain_lru:
        plain_at = n - 1
        load[plain_at] = PLAIN_LRU_COST
    for i in sorted(range(len(cfgs)), key=lambda i: (-min(1.0, cfgs[i][3]), -cfgs[i][0])):
        b = min(range(n), key=lambda t: load[t])
        out[b].append(i)
        load[b] += min(1.0, cfgs[i][3])
    keep = [b for b in range(n) if out[b] or b == plain_at]
    return [out[b] for b in keep], (keep.index(plain_at) if plain_at >= 0 else -1)


# odd, so salt -> salt x SALT_SPREAD (mod 2^64) is one-to-one and 0 stays 0 (branch mysqlminion)
SALT_SPREAD = 0x9E3779B97F4A7C15


def salt_key(salt: int) -> int:
    """The value a miniature's sampling hashes with, for a sampling salt: every miniature's (the
    kernel's extents, mix64(extent ^ key), this module's and tracesample.plan's; the plan's other trees,
    key + 1). A salt used as it is only permuted the extents inside aligned blocks (u ^ s for s < 16:
    every salt below 16 hashed the same values, one draw; branch minibias); spread over the 64 bits,
    every salt is another draw, and salt 0 (the default) is today's sample."""
    return (int(salt) * SALT_SPREAD) & 0xFFFFFFFFFFFFFFFF


def _run(source: tuple, pools: list[PoolModel], rates: list[float], salt: int,
         threads: int, plain_lru: bool = False) -> tuple[list[Estimate], array | None]:
    """Estimates for the pools, and with plain_lru the plain-LRU histogram from the same pass."""
    from .. import native

    trace, workload, n_pages, leaf_pages, ra_threshold = source
    p0 = pools[0]
    # one simulation per pool and page-cleaner phase (MySQL's timed batch: the mean over phases)
    owner = [i for i, p in enumerate(pools) for _ in p.phases()]
    key = salt_key(salt)  # every salt another draw; 0 today's
    cfgs = [(p.capacity_high, p.pool_pages, p.ra_area, r, key, p.start_pages, p.start_freed, p.cleaner_batch,
             *p.tick_args(ph)) for p, r in zip(pools, rates) for ph in p.phases()]
    ms = 1000.0 / p0.qps

    batches, plain_at = _batches(cfgs, threads, plain_lru)

    def one(b: int) -> tuple[list[int], list]:
        idx = batches[b]
        rows = native.lrusim_curve(trace, workload, n_pages, leaf_pages, p0.old_pct, p0.old_time_ms, ms,
                                   ra_threshold, [cfgs[i] for i in idx], p0.ra_rule, b == plain_at)
        return idx, rows

    out: list[Estimate | None] = [None] * len(cfgs)
    hist = None
    with ThreadPoolExecutor(max_workers=len(batches)) as ex:
        for idx, rows in ex.map(one, range(len(batches))):
            if len(rows) > len(idx) + 1:
                hist = array("Q", rows.pop())
            distinct, refs = rows[-1]
            for i, row in zip(idx, rows[:-1]):
                out[i] = _estimate(row, distinct, refs, pools[owner[i]])
    return [_mean([e for e, o in zip(out, owner) if o == i]) for i in range(len(pools))], hist


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


def estimate(source: tuple, pools: list[PoolModel], rate: float = DEFAULT_RATE,
             tolerance: float = DEFAULT_TOLERANCE, salt: int = 0, exact: bool = False,
             threads: int | None = None, exact_at: set[int] | frozenset = frozenset()) -> list[Estimate]:
    """Reads for each pool (all with the same old_pct, old_time_ms, qps and read-ahead threshold).

    source: workload_source(...) or trace_source(...). Points whose relative standard error
    exceeds `tolerance` are simulated again, exactly; so are the pools at the indices exact_at.
    """
    return estimate_and_plain_lru(source, pools, rate, tolerance, salt, exact, threads, exact_at, False)[0]


def estimate_and_plain_lru(source: tuple, pools: list[PoolModel], rate: float = DEFAULT_RATE,
                           tolerance: float = DEFAULT_TOLERANCE, salt: int = 0, exact: bool = False,
                           threads: int | None = None, exact_at: set[int] | frozenset = frozenset(),
                           plain_lru: bool = True) -> tuple[list[Estimate], array | None]:
    """estimate(), and the plain-LRU stack histogram (model.stack_histogram's, as an array) from
    the same pass over the workload: one pass less than computing it apart (None without pools)."""
    if not pools:
        return [], None
    threads = threads or min(2, os.cpu_count() or 1)
    exact = exact or any(p.ra_rule == RA_RULE_MYSQL for p in pools)  # see the module docstring
    # one simulation per distinct pool (the same pages, or big enough never to evict)
    keys = [_same_as(p, source) for p in pools]
    first: dict = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    need_exact = {first[keys[i]] for i in exact_at if i < len(pools)}
    todo = sorted(set(first.values()))
    rates = [1.0 if exact or i in need_exact else rate_for(pools[i], rate) for i in todo]
    est, hist = _run(source, [pools[i] for i in todo], rates, salt, threads, plain_lru)
    got = dict(zip(todo, est))
    redo = [i for i in todo if not got[i].exact and got[i].reads_se > tolerance * max(1, got[i].reads)]
    if redo:
        got.update(zip(redo, _run(source, [pools[i] for i in redo], [1.0] * len(redo), salt, threads)[0]))
    return [dataclasses.replace(got[first[k]]) for k in keys], hist


def _same_as(pool: PoolModel, source: tuple) -> tuple:
    """Pools with equal keys simulate the same: equal models, or (MariaDB, nothing evicted while
    starting) pools holding every page the simulation can read: nothing is ever evicted, so the
    freed-page clock stays 0 and no page moves; only the read-ahead area tells them apart."""
    n_pages = source[2]
    if pool.start_freed == 0 and pool.capacity_high >= n_pages + FILLER_SLOTS + pool.start_pages:
        return ("holds the table", pool.ra_area, pool.ra_threshold, pool.ra_rule, pool.start_pages,
                pool.old_pct, pool.old_time_ms, pool.qps)
    return ("pool", pool)


def workload_source(order: str, stride: int, reps: int, g: Geometry, ra_threshold: int) -> tuple:
    wl = model.workload_tuple(order, stride, reps, g, moves=ra_threshold > 0)
    return (None, wl, g.n_pages, g.leaf_pages, ra_threshold)


def trace_source(pages, n_pages: int, leaf_pages: int) -> tuple:
    """An explicit page trace (one reference per query); pages below leaf_pages are sampled."""
    buf = pages if isinstance(pages, (bytes, bytearray, memoryview, array)) else array("I", pages)
    return (buf, None, n_pages, leaf_pages, 0)
