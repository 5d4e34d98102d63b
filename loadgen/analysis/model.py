"""Predict buffer-pool misses: the page trace of a workload, InnoDB's LRU, and plain LRU.

The trace: each query descends the primary key, root first, to its leaf: the table is loaded in
PK order, so leaf k starts near id k*rows/L (docs/innodb.md, "Table geometry"), up to 2 ids off,
as real leaves hold 121-125 rows; that decides which selects hit a leaf's first or last key,
where read-ahead is checked (leaf_start).
InnoDB's LRU (midpoint insertion, warm-up freeze, old_blocks_time, young drift) is simulated on
it by the C kernel in native/lrusim.c; `_py_simulate` is the slow reference it is tested
against. Plain LRU for every pool size comes from Mattson stack distances in one pass; it is the
naive baseline, off by up to 44% for the looped order because InnoDB is not a stack algorithm.

The pool's capacity is the data pages it actually holds: pages_total minus the free pages the
page cleaner keeps (about innodb_lru_scan_depth, docs/innodb.md, "The LRU rules the model uses").
MariaDB's cleaner frees them in batches (the free list swings between scan_depth/2 and
scan_depth), so the LRU list shrinks and regrows; the model frees scan_depth/2 pages at once when
the list is full (PoolModel.cleaner_batch; MySQL: none). That is what wears away the young pages
kept from the warm-up, once read-ahead puts pages in the list before their first access: the
boundary then makes them young, their first access moves them to the head, and the warm-up pages
drift to the boundary and are evicted. Measured at 4M rows, 128M, looped: 63,935 reads with the
defaults (the model with batches +1.5%, without -4.6%); 60,498 with innodb_lru_scan_depth=100
(-0.3%) and 61,278 with read-ahead off (-0.1%).

Linear read-ahead (innodb_read_ahead_threshold > 0) is simulated as MariaDB 10.11.19 does it for
these point selects, found by probing the server query by query: the check runs only when a
select steps from one leaf to the next (its id is the first key of a leaf, so the PAGE_CUR_L
descent lands on the previous leaf, or the last key of a leaf) and that next leaf is accessed for
the first time and is the last page of its read-ahead area (64 pages; 16 at 8M, 32 at 16M). The
next area is then read into the old sublist; those pages count in Innodb_buffer_pool_reads.
Leaves sit on physical pages 4..35, 64.. (docs/innodb.md, "Table geometry"); see native/lrusim.c.

MySQL 8.0-9.x (flavor "mysql", docs/mysql-lab.md) differs in three ways the model follows:
- Linear read-ahead is checked on the first access of every page (buf_page_get_gen), not only on
  leaf steps: when the page is the first or last of its area and at most 64 - threshold pages of
  the area were unaccessed or accessed out of order, the area of its FIL_PAGE_PREV/NEXT is read
  whole, pages that are not leaves included (the rest of the first extent, the end of the last).
  On 200k rows it reads 1,600-1,631 of ~1,700 pages ahead, as the server did to the page.
- No standing free reserve (the lab's data + free = pages_total, data up to the whole pool), and
  innodb_lru_scan_depth defaults to 1024.
- The ~960 pages read while the server starts keep their frames and LRU places through the run
  (taken from the result's pages_data_before when there is one; see mysql_start_pages).
The prediction is held to Innodb_pages_read, which counts read-ahead on both servers.
innodb_buffer_pool_instances: the servers of the lab have one instance (pools under 1 GiB). A
larger MySQL pool is split into instances by a hash of the page's 64-page extent, so each one
holds a random 1/n of the extents in 1/n of the frames: a miniature of the whole, which is what
loadgen/analysis/curve.py shows to predict the single pool's reads within its sampling error. The
model therefore simulates one LRU of the summed size.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Iterable, Iterator

from ..errors import UsageError

MODEL = "innodb-lru"
# Node pointers for a BIGINT key are 17 B; full level-1 pages held 902-928 in the lab.
DEFAULT_FANOUT = 900
ROOT_MAX_POINTERS = 930
# Measured here: 200,000 rows of schema/chat.sql -> 1,633 leaf pages (sequential load).
ROWS_PER_LEAF = {"chat": 122.5}
DEFAULT_QPS = 15_000.0  # what this project's Python driver reaches; old_blocks_time needs a clock
DEFAULTS = {"innodb_old_blocks_pct": 37, "innodb_old_blocks_time": 1000, "innodb_lru_scan_depth": 1536,
            "innodb_read_ahead_threshold": 56}
# MySQL 8.0-9.x (lab: 9.7.4): page cleaner's scan depth, and the start-up pages it holds
MYSQL_DEFAULTS = {"innodb_lru_scan_depth": 1024}
MYSQL_START_PAGES = 960  # pages_data before the first query at 32M/64M: 955-976
# MySQL's page cleaner runs an LRU batch on its ~1 s tick only while the server sees activity
# (srv_check_activity); a read-only run is none, so one batch landed, in the run's first second
# (docs/mysql-lab.md, "The page cleaner"). Where in that second is not known: the prediction is
# the mean over these phases.
MYSQL_CLEANER_PERIOD_MS = 1000.0
MYSQL_CLEANER_TICKS = 1
MYSQL_CLEANER_PHASES_MS = (125.0, 375.0, 625.0, 875.0)
READ_AHEAD_PAGES = 64  # BUF_READ_AHEAD_PAGES: one extent
READ_AHEAD_PORTION = 32  # BUF_READ_AHEAD_PORTION: the area is at most 1/32 of the pool
# The page cleaner's free reserve. MariaDB 10.11's page cleaner evicts from the LRU tail when the
# free list falls below innodb_lru_scan_depth/2 and refills it to innodb_lru_scan_depth, so the
# free list swings between the two: on average 0.75 * scan depth (sampled every 0.2 s at 32M and
# the default 1536: free 800..1550, data pages 480..1220). Held to measurements: 100 -> 3990 of
# 4056 data pages, 8044 of 8112, 16165 of 16224 (lab); 1536 at 32M -> looped 2,710..2,715 reads
# (native driver, 6 runs), which 0.75 predicts within 1.5% and the earlier fit 0.87 missed by 5.7%.
# When the reserve exceeds the pool, 143..252 data pages stayed resident (8M and 16M at 1536).
RESERVE_PER_SCAN_DEPTH = 0.75
# MariaDB, pool - scan depth <= 256: the LRU list swings between these (fitted, docs/innodb.md)
SMALL_POOL_HIGH_PAGES, SMALL_POOL_LOW_PAGES = 256, 32
MIN_CAPACITY_PAGES = 192
ORDER_CODES = {"interleaved": 0, "looped": 1, "sequential": 2}
RA_RULE_MARIADB, RA_RULE_MYSQL = 0, 1  # native/lrusim.c
FILLER_SLOTS = 128  # native/lrusim.c: non-leaf pages MySQL's read-ahead reads (first and last extent)
PAGE_BYTES = 16384


@dataclass(frozen=True)
class Geometry:
    rows: int
    leaf_pages: int
    height: int
    fanout: int = DEFAULT_FANOUT

    @property
    def n_pages(self) -> int:
        return sum(level_sizes(self))


@dataclass(frozen=True)
class PoolModel:
    """What the simulator needs to know about the server."""

    pool_pages: int  # Innodb_buffer_pool_pages_total
    capacity_pages: int  # data pages held (pool minus the page cleaner's free reserve)
    old_pct: float = 37
    old_time_ms: float = 1000
    qps: float = DEFAULT_QPS
    ra_threshold: int = 0  # innodb_read_ahead_threshold; 0 = linear read-ahead off
    ra_area: int = READ_AHEAD_PAGES  # buf_pool.read_ahead_area
    ra_rule: int = RA_RULE_MARIADB  # whose linear read-ahead trigger (see the module docstring)
    start_pages: int = 0  # pages the server holds before the first query (read while starting)
    start_freed: int = 0  # pages it evicted while starting (the freed-page clock at the start)
    # The page cleaner frees this many pages at once when the pool is full (0: one per read):
    # the simulated list then swings between capacity_pages +- cleaner_batch/2.
    cleaner_batch: int = 0
    # MySQL's timed LRU batch (native/lrusim.c cleaner_tick): refill the free frames to this many
    # (innodb_lru_scan_depth; 0: none), at cleaner_phase_ms (None: the mean over
    # MYSQL_CLEANER_PHASES_MS), then every MYSQL_CLEANER_PERIOD_MS, cleaner_ticks in all.
    cleaner_depth: int = 0
    cleaner_phase_ms: float | None = None
    cleaner_ticks: int = MYSQL_CLEANER_TICKS

    def tick_args(self, phase_ms: float) -> tuple:
        """The kernel's tick arguments (tick_depth, tick_phase_ms, tick_period_ms, ticks)."""
        return (self.cleaner_depth, phase_ms, MYSQL_CLEANER_PERIOD_MS, self.cleaner_ticks)

    def phases(self) -> tuple:
        """The cleaner phases to simulate and average (one, 0.0, when there is no timed cleaner)."""
        if not self.cleaner_depth:
            return (0.0,)
        return (self.cleaner_phase_ms,) if self.cleaner_phase_ms is not None else MYSQL_CLEANER_PHASES_MS

    @property
    def capacity_high(self) -> int:
        """The list length at which the simulated page cleaner frees its batch."""
        return self.capacity_pages + self.cleaner_batch // 2


@dataclass
class Prediction:
    model: str
    reads: int
    read_requests: int
    hit_ratio: float
    plain_lru_reads: int
    capacity_pages: int
    pool_pages: int
    made_young: int
    qps: float
    error_pct: float | None = None
    measured_reads: int | None = None
    plain_lru_error_pct: float | None = None
    read_ahead: int | None = None  # pages the model read ahead (included in reads)
    measured_read_ahead: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class CurvePoint:
    pool_bytes: int
    pool_pages: int
    capacity_pages: int
    reads: int
    plain_lru_reads: int
    miss_ratio: float
    plain_lru_miss_ratio: float
    reads_se: float = 0.0  # standard error of reads: 0 when simulated exactly (loadgen/analysis/curve.py)
    rate: float = 1.0  # the miniature's sampling rate; 1.0 = exact
    exact: bool = True


@dataclass
class Forecast:
    geometry: Geometry
    order: str
    queries: int
    read_requests: int
    at: Prediction
    curve: list[CurvePoint] = field(default_factory=list)


# -- geometry ------------------------------------------------------------------------------------
def level_sizes(g: Geometry) -> list[int]:
    """Pages per level, leaves first, root (1 page) last."""
    sizes = [g.leaf_pages]
    for level in range(1, g.height):
        sizes.append(1 if level == g.height - 1 else -(-sizes[-1] // g.fanout))
    return sizes


def estimate_geometry(rows: int, schema: str = "chat", rows_per_leaf: float | None = None,
                      fanout: int = DEFAULT_FANOUT) -> Geometry:
    """Leaf pages and height of a PK-ordered table without a server (from measured rows/leaf)."""
    rpl = rows_per_leaf or ROWS_PER_LEAF.get(schema)
    if not rpl:
        raise UsageError(f"no measured rows per leaf page for schema {schema!r}",
                         "pass --rows-per-leaf, or run once against a server and predict from its result")
    leaves = max(1, round(rows / rpl))
    height, n = 1, leaves
    while n > 1:
        height += 1
        if n <= ROOT_MAX_POINTERS:
            break
        n = -(-n // fanout)
    return Geometry(rows, leaves, height, fanout)


def geometry_of(dataset: dict) -> Geometry:
    """From a result file's dataset block (leaf pages from mysql.innodb_index_stats)."""
    try:
        return Geometry(int(dataset["rows"]), max(1, int(dataset["leaf_pages"])), max(1, int(dataset["height"])))
    except (KeyError, TypeError, ValueError):
        raise UsageError("the result has no dataset geometry (rows, leaf_pages, height)") from None


# -- the server's pool ---------------------------------------------------------------------------
def pool_pages(pool_bytes: int, flavor: str = "mariadb") -> int:
    """Innodb_buffer_pool_pages_total for a pool size.

    MariaDB 10.11.12+ splits the pool into 8 MiB extents whose first pages hold the block
    descriptors: 507 usable pages per 8 MiB, a partial extent loses 5 (lab table, 6M..512M).
    """
    pages = pool_bytes // PAGE_BYTES
    if flavor != "mariadb":
        return pages
    extents, rest = divmod(pages, 512)
    return extents * 507 + (rest - 5 if rest > 5 else 0)


def capacity_pages(total_pages: int, lru_scan_depth: int) -> int:
    """Data pages the pool holds: the page cleaner keeps most of lru_scan_depth pages free."""
    reserve = round(RESERVE_PER_SCAN_DEPTH * lru_scan_depth)
    return max(min(total_pages, MIN_CAPACITY_PAGES), total_pages - reserve)


def read_ahead_area(total_pages: int) -> int:
    """buf_pool.read_ahead_area: min(64, pages/32 rounded up to a power of two).

    Measured on MariaDB 10.11.19: read-ahead came in 16-page batches at 8M (507 pages), 64 at 32M+.
    """
    portion = max(1, total_pages // READ_AHEAD_PORTION)
    return min(READ_AHEAD_PAGES, 1 << (portion - 1).bit_length())


def mysql_start_pages(total_pages: int, lru_scan_depth: int, measured: int | None = None) -> int:
    """Start-up pages that hold frames when a MySQL run begins (docs/mysql-lab.md).

    MySQL reads 812-873 pages while it starts (dictionary, undo, system pages) and holds 955-976
    of them where the pool has room; they keep their LRU places, so a looped run that does not fit
    has that many frames less (32M, 200k rows: 2,726 pages read; 2,721 predicted with them, 1,699
    without). The page cleaner's one timed batch (PoolModel.cleaner_depth) evicts the ones at
    the LRU tail where it lands while fewer than innodb_lru_scan_depth frames are free: at 16M
    (1,024 frames) that is most of them.
    """
    held = MYSQL_START_PAGES if measured is None else max(0, int(measured))
    return min(held, total_pages)


def pool_model(pool_bytes: int, variables: dict | None = None, flavor: str = "mariadb",
               qps: float = DEFAULT_QPS, total_pages: int | None = None,
               start_pages: int | None = None) -> PoolModel:
    """The simulator's view of a server's pool. start_pages (MySQL): data pages held right before
    the run (Innodb_buffer_pool_pages_data), None for the lab's typical start-up."""
    mysql = flavor == "mysql"
    defaults = {**DEFAULTS, **(MYSQL_DEFAULTS if mysql else {})}
    v = {**defaults, **{k: x for k, x in (variables or {}).items() if x not in (None, "")}}
    total = total_pages or pool_pages(pool_bytes, flavor)
    ra = min(READ_AHEAD_PAGES, max(0, int(v["innodb_read_ahead_threshold"])))
    scan_depth = int(v["innodb_lru_scan_depth"])
    if mysql:
        # MySQL: no standing free reserve in the lab (data + free = total, data up to the whole
        # pool), its own read-ahead trigger, and the start-up pages.
        return PoolModel(pool_pages=total, capacity_pages=total, old_pct=float(v["innodb_old_blocks_pct"]),
                         old_time_ms=float(v["innodb_old_blocks_time"]), qps=qps, ra_threshold=ra,
                         ra_area=read_ahead_area(total), ra_rule=RA_RULE_MYSQL,
                         start_pages=mysql_start_pages(total, scan_depth, start_pages),
                         cleaner_depth=scan_depth)
    if total - scan_depth <= LRU_MIN_LEN:
        # The free target is out of reach: the page cleaner, woken whenever fewer than depth/2
        # frames are free, keeps the LRU list at BUF_LRU_MIN_LEN or under; sampled every 0.2 s at
        # 8M and 16M with the default 1536 it swung between 28 and 255 pages. The model lets it
        # grow to 256 and empties it to SMALL_POOL_LOW_PAGES (fitted on zipfian, hotspot and a
        # trace at 8M/16M: docs/innodb.md, "The page cleaner").
        batch = SMALL_POOL_HIGH_PAGES - SMALL_POOL_LOW_PAGES + 1
        return PoolModel(pool_pages=total, capacity_pages=SMALL_POOL_HIGH_PAGES - batch // 2, cleaner_batch=batch,
                         old_pct=float(v["innodb_old_blocks_pct"]), old_time_ms=float(v["innodb_old_blocks_time"]),
                         qps=qps, ra_threshold=ra, ra_area=read_ahead_area(total))
    # MariaDB's page cleaner keeps the free list between depth/2 and depth: batches of depth/2.
    # Where that leaves the list under the old-list minimum, hold it steady (measured: 32M).
    batch = scan_depth // 2 if total - scan_depth >= OLD_MIN_LEN else 0
    return PoolModel(
        pool_pages=total,
        capacity_pages=capacity_pages(total, scan_depth),
        cleaner_batch=batch,
        old_pct=float(v["innodb_old_blocks_pct"]),
        old_time_ms=float(v["innodb_old_blocks_time"]),
        qps=qps,
        ra_threshold=ra,
        ra_area=read_ahead_area(total),
    )


# -- traces --------------------------------------------------------------------------------------
def workload_tuple(order: str, stride: int, reps: int, g: Geometry, moves: bool = False) -> tuple:
    """moves: also emit the leaf a select steps to at a page boundary (read-ahead's trigger)."""
    if order not in ORDER_CODES:
        raise UsageError(f"the model handles orders {', '.join(ORDER_CODES)}, not {order!r}")
    return (ORDER_CODES[order], g.rows, stride, reps, g.leaf_pages, g.height, g.fanout, bool(moves))


def queries_of(order: str, rows: int, stride: int, reps: int) -> int:
    return len(range(1, rows + 1, stride)) * (1 if order == "sequential" else reps)


def _mix64(x: int) -> int:
    """splitmix64's finaliser, as native/lrusim.c's mix64."""
    m = (1 << 64) - 1
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & m
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def leaf_jitter(g: Geometry) -> int:
    """How many ids a leaf's start may sit off the even spread (native/lrusim.c leaf_start)."""
    r = g.rows // g.leaf_pages
    return 2 if r >= 5 else 1 if r >= 3 else 0


def leaf_start(g: Geometry, k: int) -> int:
    """The first id on leaf k: near k * rows / L, up to leaf_jitter ids off (real leaves hold
    121-125 rows, which decides which selects hit a leaf's first or last key)."""
    if k == 0:
        return 1
    if k >= g.leaf_pages:
        return g.rows + 1
    a = leaf_jitter(g)
    j = _mix64(k) % (2 * a + 1) - a if a else 0
    return 1 + (2 * k * g.rows + g.leaf_pages) // (2 * g.leaf_pages) + j


def leaf_of_id(g: Geometry, i: int) -> int:
    k = (i - 1) * g.leaf_pages // g.rows
    while k + 1 < g.leaf_pages and leaf_start(g, k + 1) <= i:
        k += 1
    while k > 0 and leaf_start(g, k) > i:
        k -= 1
    return k


def _py_trace(order: str, stride: int, reps: int, g: Geometry, moves: bool = False) -> Iterator[tuple]:
    """(page, query index) for each page reference; the reference for the C expansion.

    With moves, (page, query index, step) triples: a select whose id is the first key of its leaf
    reads the previous leaf first (the PAGE_CUR_L descent), one whose id is the last key reads on
    to the next leaf; the leaf stepped to is marked (step=True).
    """
    sizes = level_sizes(g)
    bases = [sum(sizes[:i]) for i in range(len(sizes))]
    ids = range(1, g.rows + 1, stride)
    if order == "interleaved":
        stream = (i for i in ids for _ in range(reps))
    elif order == "looped":
        stream = (i for _ in range(reps) for i in ids)
    else:
        stream = iter(ids)
    for q, i in enumerate(stream):
        leaf = leaf_of_id(g, i)
        idx = [leaf]
        for level in range(1, g.height):
            idx.append(0 if level == g.height - 1 else idx[-1] // g.fanout)
        if not moves:
            for level in range(g.height - 1, 0, -1):
                yield bases[level] + idx[level], q
            yield leaf, q
            continue
        for level in range(g.height - 1, 0, -1):
            yield bases[level] + idx[level], q, False
        if leaf > 0 and i >= 2 and leaf_of_id(g, i - 1) != leaf:
            yield leaf - 1, q, False
            yield leaf, q, True
        elif leaf + 1 < g.leaf_pages and i < g.rows and leaf_of_id(g, i + 1) != leaf:
            yield leaf, q, False
            yield leaf + 1, q, True
        else:
            yield leaf, q, False


# -- InnoDB LRU: the slow reference --------------------------------------------------------------
OLD_MIN_LEN, OLD_TOLERANCE, NON_OLD_MIN_LEN, RATIO_DIV = 512, 20, 5, 1024
LRU_MIN_LEN = 256  # BUF_LRU_MIN_LEN: the page cleaner's LRU batch leaves at least this many


class _PyLRU:
    """A literal port of buf0lru.cc's list handling, with a Python dict-linked list."""

    def __init__(self, capacity: int, pool_pages: int, old_pct: float, old_time_ms: float,
                 ra_threshold: int = 0, ra_area: int = 64, leaf_pages: int = 0, ra_rule: int = RA_RULE_MARIADB,
                 n_pages: int = 0, start_pages: int = 0, start_freed: int = 0, batch: int = 0,
                 tick: tuple = (0, 0.0, MYSQL_CLEANER_PERIOD_MS, 1)):
        self.tick_depth, self.tick_next_ms, self.tick_period_ms, self.ticks_left = tick
        self.prev: dict[int, int | None] = {}
        self.next: dict[int, int | None] = {}
        self.old: dict[int, bool] = {}
        self.access_ms: dict[int, float] = {}
        self.fpc: dict[int, int] = {}
        self.head = self.tail = self.lru_old = None
        self.len = self.old_len = 0
        self.capacity, self.pool_pages = capacity, pool_pages or capacity
        # a full list is emptied down to `low` (the page cleaner's batch; native/lrusim.c make_room)
        self.low = capacity - batch + 1 if 1 <= batch < capacity else capacity
        self.ratio = int(old_pct * RATIO_DIV / 100)
        self.old_time_ms = old_time_ms
        self.clock = 0
        self.refs = self.misses = self.made_young = self.not_young = 0
        self.ra_threshold, self.ra_area, self.leaf_pages = ra_threshold, ra_area, leaf_pages
        self.ra_pages = self.ra_evicted = 0
        self.ra_rule, self.n_pages = ra_rule, n_pages
        # start-up pages: ids after the filler slots, resident and accessed before the run
        for i in range(start_pages):
            p = n_pages + FILLER_SLOTS + i
            self._make_room()
            self.access_ms[p] = 0.0
            self._add(p, True)
        self.clock += start_freed
        self.ra_evicted = 0

    def _pages(self):
        p = self.head
        while p is not None:
            yield p
            p = self.next[p]

    def _adjust(self) -> None:
        new_len = min(self.len * self.ratio // RATIO_DIV, self.len - (OLD_TOLERANCE + NON_OLD_MIN_LEN))
        while True:
            if self.old_len + OLD_TOLERANCE < new_len:
                self.lru_old = self.prev[self.lru_old]
                self.old_len += 1
                self.old[self.lru_old] = True
            elif self.old_len > new_len + OLD_TOLERANCE:
                self.old[self.lru_old] = False
                self.lru_old = self.next[self.lru_old]
                self.old_len -= 1
            else:
                return

    def _remove(self, p: int) -> None:
        if self.lru_old == p and self.len >= OLD_MIN_LEN:
            self.lru_old = self.prev[p]
            self.old[self.lru_old] = True
            self.old_len += 1
        pr, nx = self.prev.pop(p), self.next.pop(p)
        if pr is None:
            self.head = nx
        else:
            self.next[pr] = nx
        if nx is None:
            self.tail = pr
        else:
            self.prev[nx] = pr
        self.len -= 1
        was_old = self.old.pop(p)
        if self.len < OLD_MIN_LEN:
            for q in self._pages():
                self.old[q] = False
            self.lru_old, self.old_len = None, 0
            return
        if was_old:
            self.old_len -= 1
        self._adjust()

    def _add(self, p: int, old: bool) -> None:
        if not old or self.len < OLD_MIN_LEN:
            self.prev[p], self.next[p] = None, self.head
            if self.head is None:
                self.tail = p
            else:
                self.prev[self.head] = p
            self.head = p
            self.fpc[p] = self.clock & ((1 << 31) - 1)
        else:
            o = self.lru_old
            nx = self.next[o]
            self.prev[p], self.next[p] = o, nx
            self.next[o] = p
            if nx is None:
                self.tail = p
            else:
                self.prev[nx] = p
            self.old_len += 1
        self.len += 1
        if self.len > OLD_MIN_LEN:
            self.old[p] = old
            self._adjust()
        elif self.len == OLD_MIN_LEN:
            for q in self._pages():
                self.old[q] = True
            self.lru_old, self.old_len = self.head, self.len
            self._adjust()
        else:
            self.old[p] = self.lru_old is not None

    def _too_old(self, p: int, now_ms: float) -> bool:
        if self.clock == 0:
            return False
        if self.old_time_ms > 0 and self.old[p]:
            first = self.access_ms.get(p, -1.0)
            if first >= 0 and now_ms - first >= self.old_time_ms:
                return True
            self.not_young += 1
            return False
        quarter = self.pool_pages * (RATIO_DIV - self.ratio) // (RATIO_DIV * 4)
        return not ((self.clock & ((1 << 31) - 1)) < self.fpc.get(p, 0) + quarter)

    def _make_room(self) -> None:
        if self.len < self.capacity:
            return
        while self.len > 0 and self.len + 1 > self.low:
            victim = self.tail
            self._remove(victim)
            if self.access_ms.pop(victim, None) is None:
                self.ra_evicted += 1
            self.clock += 1

    def _cleaner_tick(self, now_ms: float) -> None:
        """native/lrusim.c cleaner_tick: MySQL's timed LRU batch."""
        n = 0
        while self.len > LRU_MIN_LEN and n < self.tick_depth and self.capacity - self.len < self.tick_depth:
            victim = self.tail
            self._remove(victim)
            if self.access_ms.pop(victim, None) is None:
                self.ra_evicted += 1
            self.clock += 1
            n += 1
        if self.ticks_left == 1 or self.tick_period_ms <= 0:
            self.tick_depth = 0
            return
        if self.ticks_left > 1:
            self.ticks_left -= 1
        while self.tick_next_ms <= now_ms:
            self.tick_next_ms += self.tick_period_ms

    def access(self, p: int, now_ms: float, step: bool = False) -> None:
        if self.tick_depth and now_ms >= self.tick_next_ms:
            self._cleaner_tick(now_ms)
        first = p not in self.access_ms
        self.refs += 1
        if p in self.prev:
            if self._too_old(p, now_ms):
                if self.old[p]:
                    self.made_young += 1
                self._remove(p)
                self._add(p, False)
        else:
            self.misses += 1
            self._make_room()
            self.access_ms.pop(p, None)
            self._add(p, True)
        if p not in self.access_ms:
            self.access_ms[p] = now_ms
        if first and self.ra_threshold:
            if self.ra_rule == RA_RULE_MYSQL:
                if p < self.leaf_pages:
                    self._read_ahead_mysql(p)
            elif step:
                self._read_ahead(p)

    def _page_at(self, page: int) -> int | None:
        """The simulated page on a physical page for MySQL's read-ahead (lrusim.c's sim_page_at)."""
        k = phys_leaf(page, self.leaf_pages)
        if k is not None:
            return k
        upper = self.n_pages - self.leaf_pages
        if page == 3 and upper:
            return self.n_pages - 1
        if page < 64:
            if page >= 36 and page - 36 + 1 < upper:
                return self.leaf_pages + page - 36
            return self.n_pages + page
        tail = leaf_phys(self.leaf_pages - 1) + 1
        if tail <= page < tail + 63 and page % 16384 >= 64:
            return self.n_pages + 64 + page - tail
        return None

    def _read_ahead_mysql(self, p: int) -> None:
        """MySQL 8.0-9.x's buf_read_ahead_linear on the first access of leaf p."""
        area, page = self.ra_area, leaf_phys(p)
        low = page // area * area
        high = low + area
        if page not in (low, high - 1):
            return
        asc = 1 if page == high - 1 else -1
        threshold, fails, pred = min(READ_AHEAD_PAGES - self.ra_threshold, area), 0, None
        for i in range(low, high):
            k = self._page_at(i)
            if k is None or k not in self.prev or k not in self.access_ms:
                fails += 1
            else:
                t = self.access_ms[k]
                if pred is not None and t != pred and (1 if t > pred else -1) != asc:
                    fails += 1
                pred = t
            if fails > threshold:
                return
        if page == low and p + 1 < self.leaf_pages and leaf_phys(p + 1) == page + 1:
            if p == 0:
                return
            nxt = leaf_phys(p - 1)
        elif page == high - 1 and p > 0 and leaf_phys(p - 1) == page - 1:
            if p + 1 >= self.leaf_pages:
                return
            nxt = leaf_phys(p + 1)
        else:
            return
        low = nxt // area * area
        high = low + area
        if nxt not in (low, high - 1) or high > (leaf_phys(self.leaf_pages - 1) // 64 + 1) * 64:
            return
        for i in range(low, high):
            k = None if i % 16384 == 1 else self._page_at(i)
            if k is not None and k not in self.prev:
                self.misses += 1
                self.ra_pages += 1
                self._make_room()
                self.access_ms.pop(k, None)
                self._add(k, True)

    def _read_ahead(self, p: int) -> None:
        """buf_read_ahead_linear on the first access of leaf p, on physical page numbers."""
        area, high = self.ra_area, leaf_phys(p)
        if high % area != area - 1 or p == 0 or p + 1 >= self.leaf_pages:
            return
        budget = min(READ_AHEAD_PAGES - self.ra_threshold, area)
        prev = None
        for page in range(high + 1 - area, high + 1):
            k = phys_leaf(page, self.leaf_pages)
            if k is None or k not in self.access_ms:  # not resident, or read ahead and unused
                fail = True
            else:
                fail = prev is not None and prev > self.access_ms[k]
                prev = self.access_ms[k]
            if fail:
                budget -= 1
                if not budget:
                    return
        for page in range(high + 1, high + area + 1):
            k = phys_leaf(page, self.leaf_pages)
            if k is None or k in self.prev:
                continue
            self.misses += 1
            self.ra_pages += 1
            self._make_room()
            self._add(k, True)


def leaf_phys(k: int) -> int:
    """Physical page of leaf k in a PK-ordered table (docs/innodb.md, "Table geometry")."""
    if k < 32:
        return 4 + k
    j = k - 32
    return 64 + j + 64 * (j // (16384 - 64))


def phys_leaf(page: int, leaf_pages: int) -> int | None:
    """The leaf on a physical page, or None (system, fragment-extent or XDES page; past the end)."""
    if 4 <= page < 36:
        k = page - 4
    else:
        block, r = divmod(page, 16384)
        if r < 64:
            return None
        k = 32 + block * (16384 - 64) + r - 64
    return k if k < leaf_pages else None


def _py_simulate(trace: Iterable[tuple], capacity: int, pool_pages: int, old_pct: float,
                 old_time_ms: float, ms_per_query: float, ra_threshold: int = 0, ra_area: int = 64,
                 leaf_pages: int = 0, ra_rule: int = RA_RULE_MARIADB, n_pages: int = 0, start_pages: int = 0,
                 start_freed: int = 0, batch: int = 0,
                 tick: tuple = (0, 0.0, MYSQL_CLEANER_PERIOD_MS, 1)) -> tuple[int, int, int, int, int, int]:
    """(refs, misses, made_young, not_young, read_ahead, read_ahead_evicted) of InnoDB's LRU on
    (page, query index) pairs or (page, query index, step) triples (see _py_trace). n_pages: the
    table's pages (MySQL's read-ahead maps the pages above the leaves, and start-up pages follow)."""
    lru = _PyLRU(capacity, pool_pages, old_pct, old_time_ms, ra_threshold, ra_area, leaf_pages, ra_rule,
                 n_pages, start_pages, start_freed, batch, tick)
    for ref in trace:
        lru.access(ref[0], ref[1] * ms_per_query, len(ref) > 2 and ref[2])
    return lru.refs, lru.misses, lru.made_young, lru.not_young, lru.ra_pages, lru.ra_evicted


def _py_stack_histogram(trace: Iterable[int], n_pages: int) -> list[int]:
    """Mattson by brute force: an explicit LRU stack; hist[0] = cold misses, hist[d] = distance d."""
    stack: list[int] = []
    hist = [0] * (n_pages + 1)
    for p in trace:
        if p in stack:
            d = len(stack) - stack.index(p)
            hist[d] += 1
            stack.remove(p)
        else:
            hist[0] += 1
        stack.append(p)
    return hist


# -- the C kernel (through loadgen/native.py, the only module that imports loadgen._native) -----
def simulate_trace(pages, n_pages: int, pool: PoolModel, ms_per_ref: float | None = None) -> tuple[int, int, int, int]:
    """InnoDB LRU on an explicit uint32 page trace (one reference per time step; no read-ahead:
    a bare trace has no physical page numbers)."""
    from array import array

    from .. import native

    buf = pages if isinstance(pages, (bytes, bytearray, memoryview)) else array("I", pages)
    step = ms_per_ref if ms_per_ref is not None else 1000.0 / pool.qps
    return mean_over_phases(pool, lambda ph: native.lrusim_innodb(
        buf, None, n_pages, pool.capacity_high, pool.pool_pages, pool.old_pct, pool.old_time_ms, step, 0, 64,
        True, pool.ra_rule, pool.start_pages, pool.start_freed, pool.cleaner_batch, *pool.tick_args(ph)))[:4]


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
    from .. import native

    ra = pool.ra_threshold > 0
    wl = workload_tuple(order, stride, reps, g, moves=ra)
    return mean_over_phases(pool, lambda ph: native.lrusim_innodb(
        None, wl, g.n_pages, pool.capacity_high, pool.pool_pages, pool.old_pct, pool.old_time_ms,
        1000.0 / pool.qps, pool.ra_threshold, pool.ra_area, collapse, pool.ra_rule, pool.start_pages,
        pool.start_freed, pool.cleaner_batch, *pool.tick_args(ph)))


def simulate(order: str, stride: int, reps: int, g: Geometry, pool: PoolModel) -> tuple[int, int, int, int]:
    """(refs, misses, made_young, not_young) of InnoDB's LRU for a workload, in C."""
    return simulate_detail(order, stride, reps, g, pool)[:4]


def stack_histogram(order: str, stride: int, reps: int, g: Geometry) -> list[int]:
    from array import array

    from .. import native

    raw = native.lrusim_mattson(None, workload_tuple(order, stride, reps, g), g.n_pages)
    return array("Q", raw).tolist()


def stack_histogram_trace(pages, n_pages: int) -> list[int]:
    from array import array

    from .. import native

    raw = native.lrusim_mattson(array("I", pages), None, n_pages)
    return array("Q", raw).tolist()


def lru_misses(hist: list[int], capacity: int) -> int:
    """Plain-LRU misses for a pool of `capacity` pages: cold misses plus distances beyond it."""
    return hist[0] + sum(hist[capacity + 1:])


def measured_reads(bp: dict) -> int | None:
    """Measured reads the model is held to: pages read into the pool (Innodb_pages_read), demand
    reads and read-ahead together, as the model's reads are. On MariaDB Innodb_buffer_pool_reads is
    the same number; on MySQL it leaves out linear read-ahead (docs/innodb.md, "Counters"), so it
    is only the fallback for result files without pages_read.
    """
    return bp.get("pages_read") if bp.get("pages_read") is not None else bp.get("reads")
