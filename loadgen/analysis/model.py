"""Predict buffer-pool misses: a workload's page trace run through InnoDB's LRU, and plain LRU.

This module holds the simulator's entry points: the workload tuple the C kernel (native/lrusim/,
through loadgen/native.py) expands into page references, InnoDB's LRU on it (midpoint insertion,
warm-up freeze, old_blocks_time, young drift, linear read-ahead, the page cleaner), and plain LRU
for every pool size from Mattson stack distances in one pass: the naive baseline, off by up to 44%
for the looped order because InnoDB is not a stack algorithm. The rest lives beside it, each part
changing for its own reason: geometry.py (the table's levels and where its leaves sit), pool.py
(the server's pool: capacity, the page cleaner, MySQL's start-up pages), predictions.py (the
result types), lru_reference.py (the slow Python references the kernel is tested against, which
callers import from there). The public names of the first three are re-exported here, so model.X
keeps working; no private name is.

The trace: each query descends the primary key, root first, to its leaf (geometry.leaf_of_id).

Linear read-ahead (innodb_read_ahead_threshold > 0) is simulated as MariaDB 10.11.19 does it for
these point selects, found by probing the server query by query: the check runs only when a
select steps from one leaf to the next (its id is the first key of a leaf, so the PAGE_CUR_L
descent lands on the previous leaf, or the last key of a leaf) and that next leaf is accessed for
the first time and is the last page of its read-ahead area (64 pages; 16 at 8M, 32 at 16M). The
next area is then read into the old sublist; those pages count in Innodb_buffer_pool_reads.
Leaves sit on physical pages 4..35, 64.. (docs/innodb.md, "Table geometry"); see native/lrusim/.

MySQL 8.0-9.x (flavor "mysql", docs/mysql-lab.md) checks linear read-ahead on the first access of
every page (buf_page_get_gen), not only on leaf steps: when the page is the first or last of its
area and at most 64 - threshold pages of the area were unaccessed or accessed out of order, the
area of its FIL_PAGE_PREV/NEXT is read whole, pages that are not leaves included (the rest of the
first extent, the end of the last). On 200k rows it reads 1,600-1,631 of ~1,700 pages ahead, as
the server did to the page. Its pool differs too (no free reserve, start-up pages, a timed
cleaner batch): pool.py. The prediction is held to Innodb_pages_read, which counts read-ahead on
both servers (RunResult.headline).
"""
from __future__ import annotations

import os
from array import array

from ..errors import UsageError
# Geometry and PoolModel are what the simulator takes; the other names are re-exported, as callers
# and tests reach them as model.X (the modules they live in say why each exists).
from .geometry import (DEFAULT_FANOUT, ROOT_MAX_POINTERS, ROWS_PER_LEAF, Geometry,  # noqa: F401 - re-exported
                       estimate_geometry, geometry_of, leaf_jitter, leaf_of_id, leaf_phys, leaf_start,
                       level_sizes, phys_leaf)
from .pool import (DEFAULT_QPS, DEFAULTS, FILLER_SLOTS, LRU_MIN_LEN, MIN_CAPACITY_PAGES,  # noqa: F401 - re-exported
                   MYSQL_CLEANER_PERIOD_MS, MYSQL_CLEANER_PHASES_MS, MYSQL_CLEANER_TICKS, MYSQL_DEFAULTS,
                   MYSQL_START_PAGES, NON_OLD_MIN_LEN, OLD_MIN_LEN, OLD_TOLERANCE, PAGE_BYTES, RA_RULE_MARIADB,
                   RA_RULE_MYSQL, RATIO_DIV, READ_AHEAD_PAGES, READ_AHEAD_PORTION, RESERVE_PER_SCAN_DEPTH,
                   SMALL_POOL_HIGH_PAGES, SMALL_POOL_LOW_PAGES, PoolModel, capacity_pages, mysql_start_pages,
                   pool_model, pool_pages, read_ahead_area)
from .predictions import CurvePoint, Forecast, Prediction  # noqa: F401 - re-exported

MODEL = "innodb-lru"
ORDER_CODES = {"interleaved": 0, "looped": 1, "sequential": 2}


# -- traces --------------------------------------------------------------------------------------
def workload_tuple(order: str, stride: int, reps: int, g: Geometry, moves: bool = False) -> tuple:
    """moves: also emit the leaf a select steps to at a page boundary (read-ahead's trigger)."""
    if order not in ORDER_CODES:
        raise UsageError(f"the model handles orders {', '.join(ORDER_CODES)}, not {order!r}")
    return (ORDER_CODES[order], g.rows, stride, reps, g.leaf_pages, g.height, g.fanout, bool(moves))


def queries_of(order: str, rows: int, stride: int, reps: int) -> int:
    return len(range(1, rows + 1, stride)) * (1 if order == "sequential" else reps)



# -- the C kernel (through loadgen/native.py, the only module that imports loadgen._native) -----
def simulate_trace(pages, n_pages: int, pool: PoolModel, ms_per_ref: float | None = None) -> tuple[int, int, int, int]:
    """InnoDB LRU on an explicit uint32 page trace (one reference per time step; no read-ahead:
    a bare trace has no physical page numbers)."""
    from array import array

    from .. import native

    buf = pages if isinstance(pages, (bytes, bytearray, memoryview)) else array("I", pages)
    step = ms_per_ref if ms_per_ref is not None else 1000.0 / pool.qps
    pool = without_record(pool)
    return mean_over_phases(pool, lambda ph: native.lrusim_innodb(
        buf, None, n_pages, pool.capacity_high, pool.pool_pages, pool.old_pct, pool.old_time_ms, step, 0, 64,
        True, pool.ra_rule, pool.start_pages, pool.start_freed, pool.cleaner_batch, *pool.tick_args(ph)))[:4]


def without_record(pool: PoolModel) -> PoolModel:
    """pool with the timed batch in place of a run's recorded ones: a bare trace's clock ticks per
    reference, not per query, so a record placed by queries done cannot be replayed on it."""
    if pool.cleaner_seen is None:
        return pool
    import dataclasses

    return dataclasses.replace(pool, cleaner_seen=None)


def mean_over_phases(pool: PoolModel, run) -> tuple:
    """run(phase_ms) for each of the pool's cleaner phases, averaged (rounded) field by field: the
    timed page cleaner's batch lands at a time the model cannot know (PoolModel.phases)."""
    phases = pool.phases()
    if len(phases) == 1:
        return tuple(run(phases[0]))
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(phases), os.cpu_count() or 1, 2)) as ex:
        rows = list(ex.map(run, phases))
    return tuple(round(sum(r[i] for r in rows) / len(rows)) for i in range(len(rows[0])))


def simulate_detail(order: str, stride: int, reps: int, g: Geometry,
                    pool: PoolModel, collapse: bool = True) -> tuple[int, int, int, int, int, int]:
    """(refs, misses, made_young, not_young, read_ahead, read_ahead_evicted) for a workload, in C.

    With pool.ra_threshold the trace has the leaf steps read-ahead needs, and misses include the
    pages read ahead (as MariaDB's Innodb_buffer_pool_reads does)."""
    return mean_over_phases(pool, lambda ph: _workload_kernel(order, stride, reps, g, pool, collapse,
                                                              pool.tick_args(ph)))


def _workload_kernel(order: str, stride: int, reps: int, g: Geometry, pool: PoolModel, collapse: bool,
                     ticks: tuple) -> tuple:
    from .. import native

    ra = pool.ra_threshold > 0
    wl = workload_tuple(order, stride, reps, g, moves=ra)
    return native.lrusim_innodb(
        None, wl, g.n_pages, pool.capacity_high, pool.pool_pages, pool.old_pct, pool.old_time_ms,
        1000.0 / pool.qps, pool.ra_threshold, pool.ra_area, collapse, pool.ra_rule, pool.start_pages,
        pool.start_freed, pool.cleaner_batch, *ticks, seen=pool.cleaner_seen)


# How many timed LRU batches a read-only MySQL run sees: the lab saw one, sometimes two, and with
# the batches recorded (measure/cleaner.py) one to three, the second 0.2-0.8 s after the first,
# not a full tick (docs/innodb.md, "The page cleaner"). Without a run's record the bounds span no
# batch, one at any of the phases, and two: the second these many ms after the first.
MYSQL_CLEANER_MAX_BATCHES = 2
MYSQL_CLEANER_SECOND_AFTER_MS = (250.0, 500.0, 1000.0)


def simulate_bounded(order: str, stride: int, reps: int, g: Geometry, pool: PoolModel,
                     collapse: bool = True) -> tuple[tuple, tuple[int, int] | None]:
    """simulate_detail's figures and, where MySQL's timed batch is placed by the model (no record
    of the run's own), the (low, high) reads over no batch, one at any of the phases and two (the
    second MYSQL_CLEANER_SECOND_AFTER_MS later): how far the cleaner's timing alone can move the
    estimate. None where there is no timed batch or the run's batches are replayed."""
    if not pool.cleaner_depth or pool.cleaner_seen is not None:
        return simulate_detail(order, stride, reps, g, pool, collapse), None
    phases = pool.phases()
    one = [pool.tick_args(ph) for ph in phases] + [(0, 0.0, MYSQL_CLEANER_PERIOD_MS, 1)]
    two = [(pool.cleaner_depth, ph, after, MYSQL_CLEANER_MAX_BATCHES) for ph in phases
           for after in MYSQL_CLEANER_SECOND_AFTER_MS]
    from concurrent.futures import ThreadPoolExecutor

    def run(ticks):
        return _workload_kernel(order, stride, reps, g, pool, collapse, ticks)

    with ThreadPoolExecutor(max_workers=min(os.cpu_count() or 1, 2)) as ex:
        rows = list(ex.map(run, one))
        # where no batch and one anywhere read the same (a pool the table fits in, or one far larger
        # than the batch), a second cannot matter either: 12 simulations spared (4x the time at 20M rows)
        if len({r[1] for r in rows}) > 1:
            rows += list(ex.map(run, two))
    point = tuple(round(sum(r[i] for r in rows[:len(phases)]) / len(phases)) for i in range(len(rows[0])))
    reads = [r[1] for r in rows] + [point[1]]
    return point, (min(reads), max(reads))


def cleaner_method(pool: PoolModel) -> str | None:
    """How the prediction placed MySQL's timed LRU batch (Prediction.cleaner); None without one."""
    if not pool.cleaner_depth:
        return None
    if pool.cleaner_seen is not None:
        pages = sum(n for _, n in pool.cleaner_seen)
        return (f"replayed the run's {len(pool.cleaner_seen)} recorded LRU batch(es), {pages:,} pages evicted, "
                "where they were seen")
    return (f"one timed LRU batch placed by the model: the mean over {len(pool.phases())} phases of the first "
            "second (no record of the run's own batches)")


def simulate(order: str, stride: int, reps: int, g: Geometry, pool: PoolModel) -> tuple[int, int, int, int]:
    """(refs, misses, made_young, not_young) of InnoDB's LRU for a workload, in C."""
    return simulate_detail(order, stride, reps, g, pool)[:4]


def stack_histogram(order: str, stride: int, reps: int, g: Geometry) -> array:
    """Plain LRU's stack-distance histogram of a workload (Mattson, in C): hist[0] the cold misses,
    hist[d] the references at distance d. An array of uint64, not a list: 817k Python ints for
    the seed case were a tenth of `predict --advise`'s time, with the collections they set off.
    The one builder, with stack_histogram_trace for an explicit trace."""
    from .. import native

    return array("Q", native.lrusim_mattson(None, workload_tuple(order, stride, reps, g), g.n_pages))


def stack_histogram_trace(pages, n_pages: int) -> array:
    """stack_histogram for an explicit uint32 page trace (all zeros for an empty one)."""
    from .. import native

    if not len(pages):
        return array("Q", bytes(8 * (n_pages + 1)))
    return array("Q", native.lrusim_mattson(pages if isinstance(pages, array) else array("I", pages), None, n_pages))


def lru_misses(hist: list[int], capacity: int) -> int:
    """Plain-LRU misses for a pool of `capacity` pages: cold misses plus distances beyond it."""
    return hist[0] + sum(hist[capacity + 1:])


# A warm start's error bar: K of the table's pages resident at the start spare the run at most
# about K reads, so the error against a cold-start prediction still means something while K is
# this small a share of the pages the run read (sweep.py leaves warm points out by it too).
WARM_RESIDUE_MAX_SHARE = 0.01


def hold_to_measured(p: Prediction, result, plain: int) -> None:
    """Set p's measured reads (the run's headline, RunResult.headline(): pages read into the pool,
    read-ahead included, on every server and file version) and its errors (the model's and plain
    LRU's) against them.

    The model predicts a run from a cold pool. A run that started warm read fewer pages than that
    for reasons the model never saw (+3,238% on a warm dsn run), so its error is left out
    (`error_pct` null) and `no_error_reason` says why, unless the table's pages resident at the
    start were too few to matter: then the error stays, and `warm_start` says how many."""
    cold = (result.server or {}).get("cold_start") or {}
    measured, _ = result.headline()
    if measured is None:
        return
    p.measured_reads = measured
    resident = cold.get("table_pages_before")
    if not started_cold_enough(result):
        held = (f"{resident:,} of the table's pages were in the pool at its start" if resident is not None
                else f"the pool held {cold.get('pages_data_before') or 0:,} data pages at its start")
        p.no_error_reason = (f"the run started warm ({held}); the model predicts a cold start, so an error "
                             "figure would say nothing about it")
        return
    if cold.get("cold") is False:
        p.warm_start = (f"{resident:,} of the table's pages were in the pool at the start: at most "
                        f"{resident / measured:.1%} of the pages read")
    if measured:
        p.error_pct = round((p.reads - measured) / measured * 100, 2)
        p.plain_lru_error_pct = round((plain - measured) / measured * 100, 2)


def started_cold_enough(result) -> bool:
    """The run (a RunResult) started cold, or so nearly (hold_to_measured's rule) that its reads are
    a cold start's."""
    cold = (result.server or {}).get("cold_start") or {}
    if cold.get("cold") is not False:
        return True
    resident, measured = cold.get("table_pages_before"), result.headline()[0]
    return resident is not None and bool(measured) and resident <= WARM_RESIDUE_MAX_SHARE * measured
