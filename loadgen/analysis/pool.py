"""The server's pool as the simulator sees it: frames, the data pages they hold, the page cleaner.

Held apart from the simulator because it is the part fitted to servers (pages_total per pool
size, the free reserve, the cleaner's batches, MySQL's start-up pages), while the simulator is a
port of buf0lru.cc; the two change for different reasons.

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

MySQL 8.0-9.x (flavor "mysql", docs/mysql-lab.md): no standing free reserve (the lab's data +
free = pages_total, data up to the whole pool), innodb_lru_scan_depth defaults to 1024, its own
linear read-ahead trigger (RA_RULE_MYSQL, see model.py), one timed LRU batch of the page cleaner,
and the ~960 pages read while the server starts keep their frames and LRU places through the run
(taken from the result's pages_data_before when there is one; see mysql_start_pages).
innodb_buffer_pool_instances: the servers of the lab have one instance (pools under 1 GiB). A
larger MySQL pool is split into instances by a hash of the page's 64-page extent, so each one
holds a random 1/n of the extents in 1/n of the frames: a miniature of the whole, which is what
loadgen/analysis/curve.py shows to predict the single pool's reads within its sampling error. The
model therefore simulates one LRU of the summed size.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import native
from ..servers.lrulist import (LRU_MIN_LEN, LRU_SCAN_DEPTH_DEFAULT, MIN_CAPACITY_PAGES,  # noqa: F401 - model's names
                               RESERVE_PER_SCAN_DEPTH, SMALL_POOL_HIGH_PAGES, SMALL_POOL_LOW_PAGES, capacity_pages,
                               lru_list)

DEFAULT_QPS = 15_000.0  # what this project's Python driver reaches; old_blocks_time needs a clock
DEFAULTS = {"innodb_old_blocks_pct": 37, "innodb_old_blocks_time": 1000,
            "innodb_lru_scan_depth": LRU_SCAN_DEPTH_DEFAULT["mariadb"], "innodb_read_ahead_threshold": 56}
# MySQL 8.0-9.x (lab: 9.7.4): page cleaner's scan depth, and the start-up pages it holds
MYSQL_DEFAULTS = {"innodb_lru_scan_depth": LRU_SCAN_DEPTH_DEFAULT["mysql"]}
MYSQL_START_PAGES = 960  # pages_data before the first query at 32M/64M: 955-976
# MySQL's page cleaner runs an LRU batch on its ~1 s tick only while the server sees activity
# (srv_check_activity); a read-only run is none, so one batch landed, in the run's first second
# (docs/mysql-lab.md, "The page cleaner"). Where in that second is not known: the prediction is
# the mean over these phases.
MYSQL_CLEANER_PERIOD_MS = 1000.0
MYSQL_CLEANER_TICKS = 1
MYSQL_CLEANER_PHASES_MS = (125.0, 375.0, 625.0, 875.0)
# MySQL under writes: pages the server keeps in use that no reference of the model names, so the
# simulated LRU list is that many frames shorter (under_writes). Each written table's pages 0-2
# (file-space header: extents taken and freed as leaves split and merge; the change buffer's
# bitmap: looked at for each secondary-index change and each leaf read; the segments' inode page),
# each undo tablespace's header and inode page (undo segments created, extended, freed), ibdata1's
# transaction system page and the change buffer's root. Measured in the pool after sysbench
# read/write captures at 48M (2026-11-30, branch mysqlrw2, docs/capture.md "Pages the model does
# not name"): 7 and 12 such pages resident, 30 of the run's 3,401 reads in the second. At 48M the
# prediction sits on a knife edge (10 frames move it 5-9 points): -16.4%, -20.4% -> about -10% at
# 992-1,342 q/s; at 2,099-2,670 q/s -19.4 .. -26.0% -> -14.8 .. -21.4% (the error follows the rate).
MYSQL_WRITE_HELD_PER_TABLE = 3
MYSQL_WRITE_HELD_FIXED = 2 * 2 + 2  # undo_001/002's header and inode pages; ibdata1's two
READ_AHEAD_PAGES = 64  # BUF_READ_AHEAD_PAGES: one extent
READ_AHEAD_PORTION = 32  # BUF_READ_AHEAD_PORTION: the area is at most 1/32 of the pool
# The page cleaner's free reserve and the LRU list it leaves: servers/lrulist.py (the runner and
# the cold-start check read it too).
PAGE_BYTES = 16384
# The kernel's constants (native/lrusim/), read from the extension so that they cannot drift from
# it: whose read-ahead trigger (ra_rule), the slots for the non-leaf pages MySQL's read-ahead reads
# (first and last extent), and buf0lru.cc's list constants, which the reference simulator
# (lru_reference.py) uses too (BUF_LRU_MIN_LEN: servers/lrulist.py, LRU_MIN_LEN).
_KERNEL = native.lrusim_constants()
RA_RULE_MARIADB, RA_RULE_MYSQL = _KERNEL.ra_rule_mariadb, _KERNEL.ra_rule_mysql
FILLER_SLOTS = _KERNEL.filler_slots
OLD_MIN_LEN, OLD_TOLERANCE, NON_OLD_MIN_LEN, RATIO_DIV = (_KERNEL.old_min_len, _KERNEL.old_tolerance,
                                                          _KERNEL.non_old_min_len, _KERNEL.ratio_div)


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
    # MySQL's timed LRU batch (native/lrusim/cleaner.c cleaner_tick): refill the free frames to this many
    # (innodb_lru_scan_depth; 0: none), at cleaner_phase_ms (None: the mean over
    # MYSQL_CLEANER_PHASES_MS), then every MYSQL_CLEANER_PERIOD_MS, cleaner_ticks in all.
    cleaner_depth: int = 0
    cleaner_phase_ms: float | None = None
    cleaner_ticks: int = MYSQL_CLEANER_TICKS
    # The LRU batches a MySQL run recorded, ((queries done, pages evicted), ...) in order
    # (measure/cleaner.py): replayed where they were seen instead of the timed batch (None: no record)
    cleaner_seen: tuple | None = None
    # MySQL's innodb_io_capacity, where no run gives its flush-list rate (a captured trace): the
    # flush-list batch sized each second from the dirty pages (dirtypages.adaptive_args; 0: none)
    io_capacity: int = 0

    def tick_args(self, phase_ms: float) -> tuple:
        """The kernel's tick arguments (tick_depth, tick_phase_ms, tick_period_ms, ticks): no timed
        batch where the run's own batches are replayed."""
        depth = 0 if self.cleaner_seen is not None else self.cleaner_depth
        return (depth, phase_ms, MYSQL_CLEANER_PERIOD_MS, self.cleaner_ticks)

    def phases(self) -> tuple:
        """The cleaner phases to simulate and average (one, 0.0, when there is no timed cleaner)."""
        if not self.cleaner_depth or self.cleaner_seen is not None:
            return (0.0,)
        return (self.cleaner_phase_ms,) if self.cleaner_phase_ms is not None else MYSQL_CLEANER_PHASES_MS

    @property
    def capacity_high(self) -> int:
        """The list length at which the simulated page cleaner frees its batch."""
        return self.capacity_pages + self.cleaner_batch // 2



def pool_pages(pool_bytes: int, flavor: str = "mariadb") -> int:
    """Innodb_buffer_pool_pages_total for a pool size.

    MariaDB 10.11.12+ splits the pool into 8 MiB extents whose first pages hold the block
    descriptors: 507 usable pages per 8 MiB, a partial extent loses 5 (lab table, 6M..512M; the
    same on 11.8.9, whose pool is 10.11's everywhere the lab looked: docs/innodb.md, "Three
    servers", so the model needs the flavour only, not the version).
    """
    pages = pool_bytes // PAGE_BYTES
    if flavor != "mariadb":
        return pages
    extents, rest = divmod(pages, 512)
    return extents * 507 + (rest - 5 if rest > 5 else 0)


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
               start_pages: int | None = None, cleaner_seen: tuple | None = None) -> PoolModel:
    """The simulator's view of a server's pool. start_pages (MySQL): data pages held right before
    the run (Innodb_buffer_pool_pages_data), None for the lab's typical start-up; cleaner_seen
    (MySQL): the LRU batches the run recorded (PoolModel.cleaner_seen)."""
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
                         cleaner_depth=scan_depth, cleaner_seen=cleaner_seen)
    # MariaDB: the LRU list the page cleaner leaves (servers/lrulist.py); a pool too small for
    # the free target holds no start-up pages. Batches of depth/2 hold where the list then falls
    # under the old-list minimum too (32M at 1536: data pages sampled 431-1,258, the batch's
    # 493-1,260), and there they matter most: each batch that takes the list under
    # BUF_LRU_OLD_MIN_LEN dissolves the old sublist, so hot pages hit again within
    # innodb_old_blocks_time are made young on the way, as the server does (sysbench pareto, 1M
    # rows, 32M: 516 made young; a steady list made 1 and over-predicted by 17%).
    lru = lru_list(total, scan_depth, flavor)
    if total - scan_depth <= LRU_MIN_LEN:
        return PoolModel(pool_pages=total, capacity_pages=lru.pages, cleaner_batch=lru.batch,
                         old_pct=float(v["innodb_old_blocks_pct"]), old_time_ms=float(v["innodb_old_blocks_time"]),
                         qps=qps, ra_threshold=ra, ra_area=read_ahead_area(total))
    return PoolModel(
        pool_pages=total,
        capacity_pages=lru.pages,
        cleaner_batch=lru.batch,
        # a measured run's start-up pages (MariaDB holds 277-285 after a restart, none after a
        # resize): they hold frames at the LRU tail until a batch evicts them. sysbench special,
        # 200k rows, 32M, the same 20,000 keys: 1,405 pages read after a restart, 1,049 after a
        # resize; the model 1,371 and 1,054. Without a run (None): none, as before.
        start_pages=min(max(0, int(start_pages or 0)), total),
        old_pct=float(v["innodb_old_blocks_pct"]),
        old_time_ms=float(v["innodb_old_blocks_time"]),
        qps=qps,
        ra_threshold=ra,
        ra_area=read_ahead_area(total),
    )


def run_pool_model(server: dict, buffer_pool: dict, qps: float | None,
                   cleaner_seen: tuple | None = None) -> PoolModel:
    """The pool a measured run had, from its result's blocks: size, variables and flavor as the
    server reported them, the run's rate, the frames the server had and the data pages it held at
    the start. Every model of a run (analysis/predict.py, mixmodel.py) starts from this one."""
    return pool_model(int(server.get("innodb_buffer_pool_size") or 0), server.get("variables") or {},
                      server.get("flavor") or "mariadb", float(qps or DEFAULT_QPS),
                      total_pages=buffer_pool.get("pages_total"), start_pages=buffer_pool.get("pages_data_before"),
                      cleaner_seen=cleaner_seen)


def mysql_write_held_pages(tables: int) -> int:
    """Frames a MySQL server's writes keep for pages the model's references do not name
    (MYSQL_WRITE_HELD_PER_TABLE a written table, MYSQL_WRITE_HELD_FIXED besides)."""
    return MYSQL_WRITE_HELD_FIXED + MYSQL_WRITE_HELD_PER_TABLE * max(1, int(tables))


def under_writes(pool: PoolModel, seen: tuple | None = None, tables: int = 1) -> PoolModel:
    """The pool while the server writes (a mix's writes, a captured log's): MySQL's page cleaner
    runs its LRU batch every second while the server sees activity (a read-only run is none, so
    one batch), writes are (sysbench-oltp-rw 16M, the mix model: -5.3% -> +3.0%). seen: where a
    run recorded them, each sized as the timed batch (measure/cleaner.py refill_schedule).
    tables: the tables written; on MySQL their file-space pages and the undo tablespaces' keep
    frames the simulated list does not have (mysql_write_held_pages)."""
    if not pool.cleaner_depth:
        return pool
    held = mysql_write_held_pages(tables) if pool.ra_rule == RA_RULE_MYSQL else 0
    return dataclasses.replace(pool, cleaner_ticks=0, cleaner_seen=seen if seen is not None else pool.cleaner_seen,
                               capacity_pages=max(MIN_CAPACITY_PAGES, pool.capacity_pages - held))


def hold_capacity(pool: PoolModel, held: int | None, variables: dict | None) -> PoolModel:
    """pool with the data pages a run measured it held (keymodel.held_pages) as its capacity,
    where they differ from the reserve formula by more than the free list's swing: MariaDB's
    free list swings by scan_depth/2 between samples, within which the formula is the steadier
    figure; beyond it the server keeps another reserve (MySQL 9.7: none)."""
    depth = int((variables or {}).get("innodb_lru_scan_depth") or DEFAULTS["innodb_lru_scan_depth"])
    if held and abs(held - pool.capacity_pages) > depth / 2:
        import dataclasses

        return dataclasses.replace(pool, capacity_pages=held)
    return pool


# MariaDB's LRU batch in a pool too small for the free target, while the server writes: pages the
# batch evicts and writes together (buffer_LRU_batch_evict_total_pages + _flush_total_pages a batch over
# buffer_LRU_batch_num_scan batches; docs/workloads-lab.md, "The LRU batch under writes" and "A rate-gated
# LRU batch"); the list's mean, a share of the way from main's (225 pages: 256 -> 32) to the list held at
# SMALL_POOL_HIGH_PAGES; the rate from which the batch is the rule's (main's below)
WRITE_BATCH_HANDLED = 249
WRITE_BATCH_LIST_SHARE = 0.75
WRITE_BATCH_MIN_QPS = 800.0


def write_batch(pool: PoolModel, flush: dict | None, qps: object) -> PoolModel:
    """A MariaDB small pool's (pool_model's small-pool branch) LRU batch while the server writes.
    Measured at 16M, 20,000 operations (10.11.19, INNODB_METRICS polled every 20 ms, branch
    ycsba300k2), at 865-2,039 q/s: a batch ends once it has evicted and written about
    WRITE_BATCH_HANDLED pages (ycsb-a, ycsb-f: 139-153 evicted and 100-109 written a batch; sysbench-
    oltp-rw 123-127 and 93, under the rule's 141-143), so it evicts that over (1 + the run's
    lru_batch_flushed / lru_batch_evicted). The list then swings around WRITE_BATCH_LIST_SHARE of
    the way from main's mean (capacity_pages) to SMALL_POOL_HIGH_PAGES less half the batch (the
    server's lies between: main's mean read the non-leaf pages too rarely, the list held to the top
    too often; fitted on the stored runs, docs/data/lrubatch). Below WRITE_BATCH_MIN_QPS the batch
    stays main's: no batch was measured there, and with the rule the slow sysbench-oltp-rw runs'
    whole reads fell 1-11 points (the undo side's rules were fitted with main's batch). A run without
    the counters or its rate keeps main's batch."""
    small = (pool.cleaner_batch == SMALL_POOL_HIGH_PAGES - SMALL_POOL_LOW_PAGES + 1
             and pool.capacity_high == SMALL_POOL_HIGH_PAGES)
    if not small or pool.ra_rule != RA_RULE_MARIADB:
        return pool
    fl = flush or {}
    evicted, written = fl.get("lru_batch_evicted"), fl.get("lru_batch_flushed")
    counts = all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (evicted, written))
    rate = qps if isinstance(qps, (int, float)) and not isinstance(qps, bool) else float("nan")
    if not counts or not evicted or not rate >= WRITE_BATCH_MIN_QPS:
        return pool
    batch = round(WRITE_BATCH_HANDLED / (1 + written / evicted))
    if batch >= pool.cleaner_batch:
        return pool
    held_high = SMALL_POOL_HIGH_PAGES - batch // 2
    capacity = round(pool.capacity_pages + WRITE_BATCH_LIST_SHARE * (held_high - pool.capacity_pages))
    return dataclasses.replace(pool, cleaner_batch=batch, capacity_pages=capacity)


def small_pool_start(pool: PoolModel, measured: object) -> PoolModel:
    """A MariaDB pool too small for the free target (pool_model's small-pool branch, which leaves
    its start-up pages out) with the data pages a mixed run measured it held before its first
    query (buffer_pool.pages_data_before): they hold frames at the LRU tail until a batch evicts
    them, as in a larger pool. At 6M (379 frames, a list of 32..256) a restarted server held
    143-201 of them; without them a read-only run whose hot pages fit the list never met a batch:
    sysbench-oltp-ro on 40k rows, 2,000 operations, read 246-286 pages where the model had 197
    (-20% .. -31%), with them -4.2% .. -10.6% (docs/workloads-lab.md, "The presets at the old CI size"); at
    16M, 300k rows, 20,000 operations +1.2% -> +1.6%. Write runs do not move (undomodel's rollback
    segment pages take them all). Mixed runs only: the single-table model (predict.py) is held at
    8M without them and was not measured with them."""
    # a result file is the user's: a count that is not a number is ignored, not int()'ed
    if isinstance(measured, bool) or not isinstance(measured, (int, float)) or not 0 < measured < 2**63:
        return pool
    if pool.start_pages or not pool.cleaner_batch or pool.ra_rule != RA_RULE_MARIADB:
        return pool
    return dataclasses.replace(pool, start_pages=min(int(measured), pool.pool_pages))
