"""Miniatures of a captured trace's pools (issue #22: a captured hour with its curve): the pool
simulated on a spatial sample of the leaves, as curve.py's miniatures of one table, so a curve of
pools costs a fraction of as many exact simulations.

What is sampled: every B-tree's leaves, in units of 64 (the first table's clustered index in its
physical extents, sampled by the kernel as curve.py's miniatures are, so linear read-ahead still
sees whole areas; the other trees' leaves 64 consecutive ones a unit, the bottom k of a hash,
k = the first table's realised rate x their units, so every tree is sampled at one rate). Every
other page (the levels above the leaves, the rollback segments' and undo pages, the start-up
pages) is kept and weighs the rate in the scaled pool (native/lrusim/innodb_lru.h weight): few
and hot, or written in turn; a sampled root would weigh one page 1/R times. A tree with under
MIN_UNITS units sampled is kept whole the same way.

The estimate of a tree's leaf reads is curve.py's ratio estimator: the distinct leaves the whole
trace touches (counted exactly, native.mix_mark) plus N/n times the re-reads (reads - distinct)
of the n sampled units out of N; its standard error N * sqrt((1 - n/N) * s_y^2 / n), doubled
where MariaDB's batches meet read-ahead (curve.BATCH_SE_FACTOR), with the grain of a read-ahead
burst (curve.GRAIN_SE), the kept pages' re-reads, as far off relatively as the sampled estimate
(they are simulated whole, under the sampled pages' pressure), and DYNAMICS_REL of the reads (the
miniature's own dynamics), added in quadrature. The prediction's interval carries +-2 of it
(intervals.SE_MULT).

Which pools: curve.rate_for's rate (a miniature holds enough pages; 1.0: exact) for the pools of a
curve of a long trace (SAMPLE_MIN_OPS), MariaDB's and (MYSQL_MINI, on) MySQL's one-phase pools
(one_phase) where its change buffer is off (pool_rate's buffered: a miniature does not scale it);
a short trace, one pool asked for, MySQL's pools that keep four cleaner phases (a
read-only trace's, one with under MIN_CLEANER_TICKS ticks) and every pool of a write-heavy trace
(MAX_WRITE_SHARE) are simulated exactly, to the page as before. A MySQL miniature has the timed
cleaner's batch, its floor, the user threads' clean-page scan and the flush-list batch scaled by the
rate in the kernel (native/lrusim/cleaner.c refill_w). On the bench's trace (8 independent draws
each at 3M, 10M and 30M operations; branch mysqlminion, bench/README.md) the means were within
-1.1..+1.3% of the exact pools (64M, rate 0.057: +0.5..+1.3%; 256M and 1G at 30M: -1.1%), single
draws up to 2.6% off, and every draw held the exact pool within 2 of its standard errors, as
MariaDB's do; branches mysqlmini2 and minibias had kept it off for the single draws' 1% bar.

The scale (Sample.scale: the pool's capacity, the upper pages' weight, every other tree's share) is
the first table's sampled share of the leaves it starts with: the leaves its inserts append are
filled once and, on the bench's trace, never read again, and counting the few extents of them
a draw kept moved the scale by up to 11% of itself (the miniatures 1-4% under the exact pools at 30M,
one draw 14% under at 4G; branch minibias).

MySQL's pools of a curve of a long trace under writes are simulated at ONE phase of the timed page
cleaner (CURVE_PHASE_MS, one_phase) instead of the mean over pool.MYSQL_CLEANER_PHASES_MS: as
miniatures (MYSQL_MINI), or where they are exact (MYSQL_MINI off, a write-heavy trace) so are their
held-spread twins (heldspread.py: the reach is taken at that phase): 3 simulations a pool
instead of 12, the twins fed the trace's first quarter only (heldspread.TWIN_SHARE). Under writes
the cleaner ticks every second, and the phase only shifts that clock by
under a second against a trace of thousands of ticks: on bench/predict_speed.py's trace the four
phases' reads were within 0.06% of each other at 3M operations (64M-4G; docs/data/mysqlmini). On a
short capture they are not (48M, 2,000-event sysbench read/write: up to 4.6% apart), so short
traces (in operations, and in the cleaner's ticks: MIN_CLEANER_TICKS), one pool asked for and
read-only traces (one batch, in the first second, where the phase decides which start-up pages it
evicts; not measured) keep the four phases. PHASE_SPREAD_REL of the reads goes into such a pool's
standard error (its interval carries it).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .curve import BATCH_SE_FACTOR, DEFAULT_RATE, GRAIN_SE, rate_for, salt_key
from .mixpages import PRIMARY, Space, mix64
from .pool import MYSQL_CLEANER_PERIOD_MS, MYSQL_CLEANER_PHASES_MS, RA_RULE_MYSQL

UNIT_LEAVES = 64
# Writes beyond this share of the operations keep every pool exact: a write-heavy trace's
# miniatures read more than the exact pools, the more so the smaller the miniature (2M ops, 60%
# writes, 4 tables of 2M rows: +3.5..+5.5% at 128M and +11..+18% at 512M over four samples, 2.6-17
# standard errors; +5.7% at rate 0.08, +0.4% at 0.3), where the bench's trace (18% writes) was
# within -3.5..-0.2% (bench/README.md, docs/capture.md) and the unit test's (25%) within 2 standard
# errors. Not understood yet; with only the first table sampled (the other trees kept whole) its
# leaves read -0.7% but the kept secondary indexes +15..+38% at 512M: a guess is that purge's
# re-access after a fixed lag (undomodel.PURGE_LAG_OPS) lands near the pool's reach, where the
# noisier reuse distances of a small miniature turn hits into misses.
MAX_WRITE_SHARE = 0.3
# Traces shorter than this keep every pool exact: their exact simulations are cheap (~0.4 us an op
# a pool: 4 pools of 10M ops ~16 s of CPU), and a miniature of a short trace is coarse (2M ops on
# four 1M-row tables, 4 pools: standard errors of 7-9% of the reads, an interval four times as
# wide as the exact pool's, to save ~2 s). The sampled pools are for the long captures.
SAMPLE_MIN_OPS = 10_000_000
# A miniature's pages above the leaves and the system pages but the undo pages (few, hot) are pinned
# once a reference finds one resident and young (native/lrusim/mix.h mix_pin): out of the LRU list,
# their frames kept, their references counted and nothing else. They were ~70% of a miniature's
# references (the bench's trace) and cost most of its simulation. Not exact: a pinned page the exact
# list would have let sink and evict stays; at most this share of the pool (past it, pages stay in
# the list). 0: none pinned (every reference simulated, as before).
PIN_SHARE = 0.25
MIN_UNITS = 2  # fewer sampled units than this give no variance: the tree is kept whole
# The miniature's own dynamics, beside its sampling: where the pool holds most of what the trace
# touches, the distinct pages (counted exactly) are most of the reads and the sampling error is
# small, yet the estimate was off by 2.9-3.1 of it (4G on the bench's trace -3.5%, 2G on a
# read-only one +3.8%, 1.1-1.3% standard errors; docs/capture.md): this share of the reads is
# added to the standard error in quadrature.
DYNAMICS_REL = 0.015
SALT = 0
# the one cleaner phase of a curve's MySQL pool of a long trace under writes (one_phase): one of the
# four the exact pools average, so it can be checked against them phase by phase
CURVE_PHASE_MS = MYSQL_CLEANER_PHASES_MS[1]
# MySQL's one-phase pools of a curve (one_phase) as miniatures too (module docstring). On since branch
# mysqlminion: on the bench's trace, 8 independent draws (curve.salt_key) at 3M, 10M and 30M
# operations each held the exact pool within 2 standard errors (means -1.1..+1.3%, single draws up to
# 2.6% off), at a quarter of the CPU; forced onto the stored 36,000-operation captures (which never
# pass SAMPLE_MIN_OPS), -1..-14% at 16M and +28..+34% at 48M (docs/data/mysqlmini2). The change buffer
# (MySQL 8.0's) is not scaled for a miniature: with one on, MySQL's pools stay exact (pool_rate's
# buffered). False: exact, one phase.
MYSQL_MINI = True
# how far one phase's reads may lie from the four phases' mean, a bound stated from the bench's
# trace (the phases within 0.06% of each other at 3M operations, docs/data/mysqlmini): its standard
# error, which the interval carries (+-2 of it, intervals.SE_MULT)
PHASE_SPREAD_REL = 0.0025
# ...and only where the cleaner ticks this many times over the trace: what one phase shifts is one
# tick in this many (the bench's 3M operations at 15,000 q/s: 200 ticks, the phases within 0.06%; a
# 30,000-operation trace at 2,000 q/s, 15 ticks: one phase 0.8% off the four's mean at 64M, at 100 q/s,
# 300 ticks: 0.1%; tests/unit/test_mysqlcurve.py)
MIN_CLEANER_TICKS = 200


@dataclass
class Sample:
    """A miniature's map of the space: map_[page] its simulated page (-1: not sampled)."""

    rate: float  # the rate asked for (the kernel's threshold)
    salt: int  # the kernel's: curve.salt_key of the salt asked for (its extents; the other trees': + 1)
    scale: float  # the rate the first table's extents realised on its start's leaves (the pool is scaled by it)
    map_: np.ndarray
    more_ones: int  # sampled pages after the first table's sampled leaves
    n_pages: int  # the kernel's space: the first table's leaves, then the other pages it keeps
    # per sampled tree: (tree key, page of each leaf, unit of each leaf, units, sampled units mask)
    strata: list = field(default_factory=list)
    pin: np.ndarray | None = None  # uint8 a simulated page: 1 where it may be pinned (PIN_SHARE)
    scale_leaves: int = 0  # the first table's leaves `scale` is taken on (the kernel's; 0: all)


def leaf_units(n: int) -> np.ndarray:
    """The physical extent of each of a PK-ordered table's first n leaves (native/lrusim/layout.h
    leaf_unit: 32 fragment leaves, then 64-page extents skipping the XDES extent every 16,384)."""
    k = np.arange(n, dtype=np.int64)
    j = np.maximum(k - 32, 0)
    phys = np.where(k < 32, 4 + k, 64 + j + 64 * (j // (16384 - 64)))
    return phys // 64


def plan(space: Space, first: tuple, rate: float, salt: int | None = None) -> Sample | None:
    """The sample at `rate` of the space whose tree `first` (at page 0) has the physical leaves;
    None when the first table's extents gave no sampled leaf (simulate exactly)."""
    salt = salt_key(SALT if salt is None else salt)
    t1 = space.trees[first]
    n1 = t1.all_leaves
    units1 = leaf_units(n1)
    thr = np.uint64(min(int(rate * 18446744073709551616.0), 2**64 - 1))  # as mini_build
    u_all, rank1 = np.unique(units1, return_inverse=True)  # rank1: the unit's rank among those with leaves
    picked = mix64(u_all.astype(np.uint64) ^ np.uint64(salt)) < thr
    on = np.zeros(int(u_all.max()) + 1, dtype=bool)
    on[u_all[picked]] = True
    leaf_on = on[units1]
    n1s = int(leaf_on.sum())
    if n1s == 0:
        return None
    # the scale: the sampled share of the leaves the table starts with (scale_leaves), not of those
    # its inserts append, which are filled once and then rarely read (module docstring)
    start = t1.leaf_pages if 0 < t1.leaf_pages < n1 else n1
    n1s_start = int(leaf_on[:start].sum())
    scale = n1s_start / start if n1s_start else n1s / n1
    map_ = np.full(space.n_pages, -1, dtype=np.int64)
    map_[t1.base + np.flatnonzero(leaf_on)] = np.arange(n1s)
    strata = [(first, t1.base + np.arange(n1), rank1, len(u_all), on[u_all])]
    sampled = np.zeros(space.n_pages, dtype=bool)
    kept = np.ones(space.n_pages, dtype=bool)
    kept[t1.base:t1.base + n1] = False
    for key, t in space.trees.items():
        if key == first:
            continue
        n_units = -(-t.all_leaves // UNIT_LEAVES)
        k = round(scale * n_units)
        if k < MIN_UNITS:
            continue  # kept whole
        h = mix64((np.uint64(t.base) + np.arange(n_units, dtype=np.uint64)) ^ np.uint64(salt + 1))
        unit_on = np.zeros(n_units, dtype=bool)
        # the units of the start's leaves and those of the appended ones each at the scale: the
        # bottom k of one hash over both let the few appended units take an uneven share of k
        n_start = min(n_units, -(-t.leaf_pages // UNIT_LEAVES))
        k_start = min(n_start, round(scale * n_start))
        unit_on[np.argsort(h[:n_start], kind="stable")[:k_start]] = True
        unit_on[n_start + np.argsort(h[n_start:], kind="stable")[:k - k_start]] = True
        units = np.arange(t.all_leaves, dtype=np.int64) // UNIT_LEAVES
        pages = t.base + np.arange(t.all_leaves, dtype=np.int64)
        kept[pages] = False
        sampled[pages[unit_on[units]]] = True
        strata.append((key, pages, units, n_units, unit_on))
    n_more, n_kept = int(sampled.sum()), int(kept.sum())
    map_[sampled] = n1s + np.arange(n_more)
    map_[kept] = n1s + n_more + np.arange(n_kept)
    pin = np.zeros(n1s + n_more + n_kept, dtype=np.uint8)  # the simulated pages (the kernel's n_pages)
    pin[map_[pinnable(space) & kept]] = 1
    return Sample(rate, salt, scale, map_.astype(np.int32), n_more, n1 + n_more + n_kept, strata, pin,
                  start if n1s_start else 0)


def pinnable(space: Space) -> np.ndarray:
    """The pages a miniature may pin (PIN_SHARE): every tree's levels above the leaves, and the
    system pages (each table's pages 0-2, the rollback segments' headers, the undo files' headers)
    but the undo pages, which are created and freed in turn."""
    on = np.zeros(space.n_pages, dtype=bool)
    for t in space.trees.values():
        on[t.base + t.all_leaves:t.base + t.n_pages] = True
    on[space.system_base:space.n_pages] = True
    on[space.undo_base:space.temp_base] = False
    return on


def pool_rate(pool, many: bool, write_share: float = 0.0, ops: int | None = None,
              buffered: bool = False) -> float:
    """The miniature's rate for a pool of a curve (many) of a long trace (ops: None, or at least
    SAMPLE_MIN_OPS), 1.0 for an exact simulation. buffered: MySQL's change buffer is on, which a
    miniature does not scale (its size and merges are the whole pool's), so MySQL's pools stay exact."""
    mysql_out = pool.ra_rule == RA_RULE_MYSQL and (not MYSQL_MINI or buffered)
    if (not many or write_share > MAX_WRITE_SHARE or mysql_out or len(pool.phases()) != 1
            or (ops is not None and ops < SAMPLE_MIN_OPS)):
        return 1.0
    return rate_for(pool, DEFAULT_RATE)


def one_phase(pool, many: bool, ops: int | None) -> bool:
    """A MySQL pool of a curve (many) of a long trace (ops at least SAMPLE_MIN_OPS, and at least
    MIN_CLEANER_TICKS seconds at the pool's rate) whose timed cleaner ticks every second (under
    writes): simulated at CURVE_PHASE_MS alone (module docstring)."""
    if not many or ops is None or ops < SAMPLE_MIN_OPS or pool.cleaner_ticks != 0 or len(pool.phases()) < 2:
        return False
    return ops / pool.qps * 1000.0 / MYSQL_CLEANER_PERIOD_MS >= MIN_CLEANER_TICKS


@dataclass
class Result:
    """A pool's reads per B-tree and on the system pages, exact or estimated (se: 0 when exact)."""

    trees: dict  # (table, index) -> pages read
    system: int
    refs: int
    dirty_evicted: int
    rate: float = 1.0
    se: float = 0.0
    table_se: dict = field(default_factory=dict)  # table -> its standard error
    change_buffer: dict | None = None  # MySQL's change buffer's counts (changebuf.result_block), where it has one


def exact(sim, space: Space, first: tuple) -> Result:
    """An exact simulation's reads per tree (the filler pages with the first table's clustered index)."""
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    trees = {k: int(reads[t.base:t.base + t.n_pages].sum(dtype=np.uint64)) for k, t in space.trees.items()}
    trees[first] += int(sim.filler_reads)
    system = int(reads[space.system_base:space.n_pages].sum(dtype=np.uint64))
    return Result(trees, system, int(sim.refs), int(sim.dirty_evicted))


def estimate(sim, evicted_sampled: int, sample: Sample, space: Space, seen: np.ndarray, refs: int,
             pool) -> Result:
    """A miniature's reads per tree (module docstring), scaled to the whole space."""
    mini = np.frombuffer(sim.reads, dtype=np.uint32).astype(np.float64)
    reads = np.zeros(space.n_pages, dtype=np.float64)
    on = sample.map_ >= 0
    reads[on] = mini[sample.map_[on]]
    seen = seen.astype(np.float64)
    kept = on.copy()
    trees, var = {}, {}
    for key, pages, units, n_units, unit_on in sample.strata:  # the sampled leaves: the ratio estimator
        kept[pages] = False
        y = np.bincount(units, weights=reads[pages] - seen[pages], minlength=len(unit_on))[unit_on]
        n = len(y)
        s2 = float(y.var(ddof=1)) if n > 1 else float(np.sum(y * y))
        trees[key] = float(seen[pages].sum()) + n_units / n * float(y.sum())
        var[key] = n_units * n_units * max(0.0, 1 - n / n_units) * s2 / n
    est = dict(trees)
    factor = BATCH_SE_FACTOR if pool.cleaner_batch > 1 and pool.ra_threshold > 0 else 1.0
    for key, t in space.trees.items():  # the kept pages: the levels above the leaves, trees kept whole
        trees[key] = round(trees.get(key, 0.0) + float(reads[t.base:t.base + t.n_pages][kept[t.base:t.base +
                                                                                                t.n_pages]].sum()))
    system = int(reads[space.system_base:space.n_pages].sum())
    total = sum(trees.values()) + system
    capacity = max(1.0, pool.capacity_high * sample.scale)
    grain = GRAIN_SE * total * pool.ra_area / capacity if pool.ra_threshold > 0 else 0.0
    # the kept pages are simulated whole, under the pressure of the sampled ones: their re-reads
    # are taken to be as far off as the sampled estimate is (relatively)
    sampled_se = factor * math.sqrt(sum(var.values()))
    rel = sampled_se / max(1.0, sum(est.values()))
    rereads = rel * float((reads[kept] - seen[kept]).clip(0).sum())
    dynamics = DYNAMICS_REL * total
    se = math.sqrt(sampled_se * sampled_se + grain * grain + rereads * rereads + dynamics * dynamics)
    table_se: dict = {}
    for (name, _), v in var.items():
        table_se[name] = table_se.get(name, 0.0) + factor * factor * v
    reads_of: dict = {}
    for (name, _), got in trees.items():
        reads_of[name] = reads_of.get(name, 0) + got
    table_se = {k: math.sqrt(table_se.get(k, 0.0) + (DYNAMICS_REL * r) ** 2) for k, r in reads_of.items()}
    dirty = round(evicted_sampled / sample.scale + (sim.dirty_evicted - evicted_sampled))
    return Result(trees, system, refs, dirty, sample.scale, se, table_se)


def first_key(space: Space) -> tuple:
    """The tree at page 0 (its leaves are the ones read-ahead sees)."""
    return next(k for k, t in space.trees.items() if t.base == 0 and k[1] == PRIMARY)
