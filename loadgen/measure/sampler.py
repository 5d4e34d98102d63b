"""Buffer-pool counters sampled on their own connection while a run goes on.

Counters are cumulative and survive FLUSH STATUS, so everything here is a delta between two
snapshots. MySQL and MariaDB differ (docs/innodb.md, "Counters"): MariaDB counts read-ahead
pages in Innodb_buffer_pool_reads, MySQL does not, and only MariaDB exposes made_young /
not_young / pages_old as status variables. The headline miss count is therefore "pages read
into the pool", Innodb_pages_read, which means the same on both (docs/mysql-lab.md: on MySQL it
equals reads + read_ahead exactly, on MariaDB it equals reads); demand reads and read-ahead are
kept beside it, and the hit ratio is computed from it.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from ..results.documents import pages_read

# Cumulative counters (deltas make sense) and gauges (the value at the sample time).
COUNTERS = {
    "read_requests": "Innodb_buffer_pool_read_requests",
    "reads": "Innodb_buffer_pool_reads",
    "pages_read": "Innodb_pages_read",
    "read_ahead": "Innodb_buffer_pool_read_ahead",
    "read_ahead_rnd": "Innodb_buffer_pool_read_ahead_rnd",
    "read_ahead_evicted": "Innodb_buffer_pool_read_ahead_evicted",
    "wait_free": "Innodb_buffer_pool_wait_free",
    "made_young": "Innodb_buffer_pool_pages_made_young",
    "made_not_young": "Innodb_buffer_pool_pages_made_not_young",
    "data_reads": "Innodb_data_reads",
    # what writes do (#21): pages written back, by LRU batches (MariaDB's own counter; MySQL's is in
    # INNODB_METRICS, see flush_metrics), rows the engine changed (MySQL only)
    "pages_flushed": "Innodb_buffer_pool_pages_flushed",
    "lru_flushed": "Innodb_buffer_pool_pages_LRU_flushed",
    "rows_inserted": "Innodb_rows_inserted",
    "rows_updated": "Innodb_rows_updated",
    "rows_deleted": "Innodb_rows_deleted",
}
GAUGES = {
    "pages_total": "Innodb_buffer_pool_pages_total",
    "pages_data": "Innodb_buffer_pool_pages_data",
    "pages_free": "Innodb_buffer_pool_pages_free",
    "pages_misc": "Innodb_buffer_pool_pages_misc",
    "pages_old": "Innodb_buffer_pool_pages_old",
    "pages_dirty": "Innodb_buffer_pool_pages_dirty",
    # purge lag (#21): committed transactions' undo logs purge has not yet gone through. MariaDB
    # has it as a status variable; both have it as INNODB_METRICS trx_rseg_history_len, which
    # the Sampler reads in its place (history_length)
    "history_len": "Innodb_history_list_length",
}
STATUS_SQL = "SHOW GLOBAL STATUS LIKE 'Innodb\\_%'"

# What a result's headline and its companions were computed from (written as
# buffer_pool.counters): Innodb_pages_read where the server has it.
HEADLINE_COUNTERS = {
    "pages_read": "Innodb_pages_read",
    "demand_reads": "Innodb_pages_read - Innodb_buffer_pool_read_ahead",
    "read_ahead": "Innodb_buffer_pool_read_ahead",
    "read_requests": "Innodb_buffer_pool_read_requests",
    "hit_ratio": "1 - pages_read / read_requests",
}


def parse_status(rows) -> dict[str, int]:
    """SHOW GLOBAL STATUS rows -> {short name: int} for the counters and gauges we track.

    A variable the server does not have (made_young on MySQL) is simply absent.
    """
    raw = {}
    for name, value in rows:
        name = name.decode() if isinstance(name, bytes) else str(name)
        value = value.decode() if isinstance(value, bytes) else str(value)
        raw[name.lower()] = value
    out = {}
    for short, name in {**COUNTERS, **GAUGES}.items():
        v = raw.get(name.lower())
        if v is not None and v.strip().lstrip("-").isdigit():
            out[short] = int(v)
    return out


@dataclass
class Snapshot:
    t_s: float  # monotonic seconds
    queries: int
    status: dict[str, int]


def hit_ratio(read_requests: int, reads: int) -> float | None:
    """1 - misses/requests over an interval; None when nothing was requested.

    (mysqltuner's requests/(requests+reads) double-counts: requests already include misses.)
    """
    if read_requests <= 0:
        return None
    return max(0.0, 1.0 - reads / read_requests)


def headline(counts: dict, flavor: str | None = None) -> dict:
    """pages_read, demand_reads and the hit ratio from it, added to a dict of counter deltas."""
    value, source = pages_read(counts, flavor)
    out = dict(counts)
    if value is not None:
        out["pages_read"] = value
        if counts.get("read_ahead") is not None:  # demand = pages read - read-ahead, on both flavours
            out["demand_reads"] = max(0, value - counts["read_ahead"])
    out["hit_ratio"] = hit_ratio(out.get("read_requests") or 0, value) if value is not None else None
    out["miss_ratio"] = None if out["hit_ratio"] is None else 1.0 - out["hit_ratio"]
    return out if source is None else {**out, "_source": source}


def delta(prev: Snapshot, cur: Snapshot, t0_s: float, flavor: str | None = None) -> dict:
    """One time-series point: counter deltas between two snapshots, gauges at the later one.

    A counter that went down means the server restarted (or was replaced): the point is marked
    as a gap instead of reporting a negative rate.
    """
    dt = cur.t_s - prev.t_s
    point: dict = {"t_s": round(cur.t_s - t0_s, 3), "queries": cur.queries - prev.queries}
    point["qps"] = round(point["queries"] / dt, 1) if dt > 0 else None
    gap = False
    for short in COUNTERS:
        if short in cur.status and short in prev.status:
            d = cur.status[short] - prev.status[short]
            gap |= d < 0
            point[short] = d
    for short in GAUGES:
        if short in cur.status:
            point[short] = cur.status[short]
    if gap:
        return {"t_s": point["t_s"], "gap": True, "queries": point["queries"]}
    point = headline(point, flavor)
    point.pop("_source", None)
    point.pop("miss_ratio", None)
    return point


def totals(first: Snapshot, last: Snapshot, samples: list[dict] | None = None, flavor: str | None = None) -> dict:
    """Whole-run buffer-pool figures between the baseline and the final snapshot: the counter
    deltas, the gauges at the end, the headline (pages_read, demand_reads, hit ratio) and
    `counters`, which names the status variables each headline figure came from.

    A counter that went down during the run (the server restarted, or a 32-bit counter wrapped)
    would make last - first negative or meaningless: the totals are then the sum of the
    intervals on either side of the gap, `gaps` says how many intervals were left out and
    `gap_queries` how many queries ran in them. Without the samples such a counter is None.
    """
    out: dict = {}
    gaps = [p for p in samples or [] if p.get("gap")]
    broken = False
    for short in COUNTERS:
        if short in last.status and short in first.status:
            d = last.status[short] - first.status[short]
            if gaps or d < 0:
                broken = True
                d = None if samples is None else sum(p.get(short, 0) for p in samples if not p.get("gap"))
            out[short] = d
    for short in GAUGES:
        if short in last.status:
            out[short] = last.status[short]
    # the gauges right before the run: MySQL's start-up pages hold frames through it (model.py);
    # the purge lag the run started with
    for short in ("pages_data", "pages_free", "history_len"):
        if short in first.status:
            out[f"{short}_before"] = first.status[short]
    lags = [p["history_len"] for p in samples or [] if p.get("history_len") is not None]
    if lags:  # the purge lag at its longest, as sampled
        out["history_len_max"] = max(lags + [first.status.get("history_len", 0)])
    if broken:
        out["gaps"] = len(gaps)
        out["gap_queries"] = sum(p.get("queries", 0) for p in gaps)
    out = headline(out, flavor)
    source = out.pop("_source", None)
    counters = dict(HEADLINE_COUNTERS)
    if source is None:
        counters = {}
    elif source != "Innodb_pages_read":
        counters["pages_read"] = source
        counters["demand_reads"] = ("Innodb_buffer_pool_reads" if flavor == "mysql"
                                    else f"({source}) - Innodb_buffer_pool_read_ahead")
    out["counters"] = counters
    return out


def take_snapshot(conn, queries: int, history: bool = False) -> Snapshot:
    """The status counters now; history: the purge lag too (history_length), where readable."""
    cur = conn.cursor()
    try:
        cur.execute(STATUS_SQL)
        rows = cur.fetchall()
    finally:
        cur.close()
    status = parse_status(rows)
    if history:
        length = history_length(conn)
        if length is not None:
            status["history_len"] = length
    return Snapshot(time.monotonic(), queries, status)


HISTORY_METRIC = "trx_rseg_history_len"


def history_length(conn) -> int | None:
    """The purge lag now: INNODB_METRICS trx_rseg_history_len, on by default on both servers and
    computed when read; None where it is off or cannot be read (no PROCESS privilege)."""
    for enabled in ("ENABLED = 1", "STATUS = 'enabled'"):  # MariaDB's column, MySQL 8+'s
        cur = conn.cursor()
        try:
            cur.execute(f"SELECT COUNT FROM information_schema.INNODB_METRICS WHERE {enabled} AND NAME = %s",
                        (HISTORY_METRIC,))
            row = cur.fetchone()
            return None if row is None or row[0] is None else int(row[0])
        except Exception:  # noqa: BLE001 - the other flavour's column, or no INNODB_METRICS
            continue
        finally:
            cur.close()
    return None


def wait_quiet(conn, quiet_s: float = 0.3, timeout_s: float = 15.0, until_clean: bool = False) -> dict:
    """Wait until the server has read no page for quiet_s seconds (at most timeout_s).

    Background work left over from start-up (rollback and purge after a crash, persistent
    statistics) reads pages too; started during a run, those reads would count as the
    workload's misses. Returns how long it took and how many pages were read meanwhile.

    until_clean (a server loadgen just restarted): also until it holds no dirty page and has
    written none for quiet_s. MySQL 9.7 starts with ~150-180 dirty pages of its own (128 of them
    ibtmp1's, made anew at every start; tablespace headers, mysql.ibd's, then ~24 more of it): a
    run begun at once had its first LRU batch write them, frames the model cannot know to be
    taken (docs/workloads-lab.md, "No seed work left for the run"). Its page cleaner writes them in
    0.5-4 s on an idle server; MariaDB 10.11 starts clean.
    """
    started = last_change = time.monotonic()
    snap = take_snapshot(conn, 0).status
    first = last = snap.get("pages_read", 0)
    flushed_first = flushed = snap.get("pages_flushed", 0)
    dirty = snap.get("pages_dirty", 0) if until_clean else 0
    dirty_first = dirty
    while True:
        time.sleep(0.05)  # polling a condition with a deadline
        now = time.monotonic()
        snap = take_snapshot(conn, 0).status
        current = snap.get("pages_read", 0)
        if until_clean:
            dirty = snap.get("pages_dirty", 0)
            if snap.get("pages_flushed", 0) != flushed:
                flushed, last_change = snap.get("pages_flushed", 0), now
        if current != last:
            last, last_change = current, now
        elif (now - last_change >= quiet_s and not dirty) or now - started >= timeout_s:
            out = {"settle_s": round(now - started, 3), "pages_read_while_settling": current - first,
                   "quiet": now - last_change >= quiet_s and not dirty}
            if until_clean:
                out.update(pages_dirty_at_settle_start=dirty_first, pages_dirty_after_settling=dirty,
                           pages_flushed_while_settling=flushed - flushed_first)
            return out


@dataclass
class Sampler:
    """Samples every interval_s on its own thread and connection until stop().

    Args:
        conn: a connection used only by the sampler.
        query_count: returns the driver's query count so far (for per-interval qps).
        interval_s: seconds between samples.
    """

    conn: object
    query_count: Callable[[], int]
    interval_s: float = 1.0
    flavor: str | None = None  # mysql | mariadb: how to count pages read without Innodb_pages_read
    # More to record with each sample, read at the sample's time (a mix: each stream's ops so far)
    extra: Callable[[], dict] | None = None
    # the purge lag with each sample (history_length: one more query a sample)
    history: bool = True
    samples: list = field(default_factory=list)
    error: str | None = None

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.baseline: Snapshot | None = None
        self.last: Snapshot | None = None

    def start(self) -> Snapshot:
        self.baseline = self.last = take_snapshot(self.conn, self.query_count(), self.history)
        # a server where it cannot be read (MariaDB still has its status variable): not asked again
        self.history = self.history and history_length(self.conn) is not None
        self._thread = threading.Thread(target=self._loop, name="loadgen-sampler", daemon=True)
        self._thread.start()
        return self.baseline

    def _loop(self) -> None:
        next_at = time.monotonic() + self.interval_s
        while not self._stop.wait(max(0.0, next_at - time.monotonic())):
            next_at += self.interval_s
            self.sample()

    def sample(self) -> None:
        try:
            snap = take_snapshot(self.conn, self.query_count(), self.history)
        except Exception as exc:  # noqa: BLE001 - the server went away; the driver reports it
            self.error = str(exc)
            self._stop.set()
            return
        point = delta(self.last, snap, self.baseline.t_s, self.flavor)
        if self.extra is not None:
            point.update(self.extra())
        with self._lock:
            self.samples.append(point)
            self.last = snap

    @property
    def latest_hit_ratio(self) -> float | None:
        with self._lock:
            for point in reversed(self.samples):
                if point.get("hit_ratio") is not None:
                    return point["hit_ratio"]
        return None

    def stop(self, final: bool = True) -> Snapshot | None:
        """Stop the thread; take one last sample (covering the tail of the run) if possible."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=max(5.0, 2 * self.interval_s))
        if final and self.error is None:
            self._stop.clear()
            self.sample()
        return self.last


# -- INNODB_METRICS: how pages were flushed ---------------------------------------------------------
# Pages written by LRU batches (to free frames at the tail) vs by flush-list batches (oldest
# modification first, to advance the checkpoint), where the server counts them. MariaDB 10.11
# keeps buffer_LRU_batch_flush_total_pages on by default; the flush-list ones, and MySQL's, need
# `innodb_monitor_enable` (enable_flush_metrics, on servers loadgen starts).
FLUSH_METRICS = {
    "lru_batch_flushed": "buffer_LRU_batch_flush_total_pages",
    "lru_batch_evicted": "buffer_LRU_batch_evict_total_pages",
    "lru_single_flushed": "buffer_LRU_single_flush_num_page",
    "flush_list_flushed": "buffer_flush_batch_total_pages",
    "flush_adaptive": "buffer_flush_adaptive_total_pages",
    "flush_background": "buffer_flush_background_total_pages",
    "flush_sync": "buffer_flush_sync_total_pages",
    "flush_neighbors": "buffer_flush_neighbor_total_pages",
    # what the undo logs do to the pool (issue #21: the write presets where the pool holds the
    # table): pages created rather than read (mostly undo pages as the undo logs grow), undo pages
    # read back and written, and the undo pages purge went through
    "pages_created": "buffer_pages_created",
    "undo_pages_read": "buffer_page_read_undo_log",
    "undo_pages_written": "buffer_page_written_undo_log",
    # the rollback segments' headers written (MariaDB: ibdata1's system pages; 11.x's undo
    # tablespaces' too): as undo_pages_written bounds the undo pages read back (the mix model's
    # undomodel.undo_reads_cap), this is what the headers read back could be held to
    "system_pages_written": "buffer_page_written_system_page",
    "purge_undo_pages": "purge_undo_log_pages",
    # purge's batches and its walks over every rollback segment's header (MySQL: one walk every
    # innodb_purge_rseg_truncate_frequency batches; the mix model takes the run's count of walks)
    "purge_batches": "purge_invoked",
    "purge_truncations": "purge_truncate_history_count",
    # which kind of page the reads were (module_buffer_page): the B-trees' leaves and upper
    # levels, and the system pages beside the undo log's, each apart (#21: which tree is off)
    "leaf_pages_read": "buffer_page_read_index_leaf",
    "nonleaf_pages_read": "buffer_page_read_index_non_leaf",
    "system_pages_read": "buffer_page_read_system_page",
    "inode_pages_read": "buffer_page_read_index_inode",
    "fsp_hdr_pages_read": "buffer_page_read_fsp_hdr",
    "xdes_pages_read": "buffer_page_read_xdes",
    "other_pages_read": "buffer_page_read_other",
    # MySQL's change buffer (innodb_change_buffering): the index leaves' buffered changes merged
    # (each merged op counted once; a page read for its merge is one of the reads above) and the
    # change buffer's own pages read (issue #21: sysbench-oltp-rw's k_1)
    "ibuf_merges": "ibuf_merges",
    "ibuf_merged_inserts": "ibuf_merges_insert",
    "ibuf_merged_delete_marks": "ibuf_merges_delete_mark",
    "ibuf_merged_deletes": "ibuf_merges_delete",
    "ibuf_size_pages": "ibuf_size",
    "ibuf_pages_read": "buffer_page_read_ibuf_page",
    "ibuf_bitmap_pages_read": "buffer_page_read_ibuf_bitmap",
}
FLUSH_MONITORS = ("buffer_flush%", "buffer_LRU%")
# the undo counters, each tried on its own (a server without one just lacks it): MySQL enables
# buffer_page_read/written_* only as their module (module_buffer_page), MariaDB either way
UNDO_MONITORS = ("buffer_pages_created", "purge_undo_log_pages", "purge_invoked", "purge_truncate_history_count",
                 "module_buffer_page", HISTORY_METRIC, "module_ibuf_system")


def enable_flush_metrics(conn) -> str | None:
    """Turn the flush counters on (innodb_monitor_enable: SUPER/SYSTEM_VARIABLES_ADMIN); None,
    or why not. They count from the moment they are enabled and stop at a restart."""
    cur = conn.cursor()
    try:
        for pattern in FLUSH_MONITORS:
            cur.execute("SET GLOBAL innodb_monitor_enable = %s", (pattern,))
        for name in UNDO_MONITORS:
            try:
                cur.execute("SET GLOBAL innodb_monitor_enable = %s", (name,))
            except Exception:  # noqa: BLE001 - a server without this counter: it is left out of the result
                pass
        return None
    except Exception as exc:  # noqa: BLE001 - no privilege, or a server without the monitors
        return str(exc.args[-1] if getattr(exc, "args", None) else exc)
    finally:
        cur.close()


def flush_metrics(conn) -> dict[str, int]:
    """The enabled FLUSH_METRICS counters now ({short name: count}); a disabled one is absent."""
    names = tuple(FLUSH_METRICS.values())
    found = None
    # MariaDB says ENABLED (1/0), MySQL 8+ says STATUS ('enabled'/'disabled')
    for enabled in ("ENABLED = 1", "STATUS = 'enabled'"):
        cur = conn.cursor()
        try:
            cur.execute(f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE {enabled} AND NAME IN ("
                        + ", ".join(["%s"] * len(names)) + ")", names)
            found = {str(n.decode() if isinstance(n, bytes) else n).lower(): int(v) for n, v in cur.fetchall()}
            break
        except Exception:  # noqa: BLE001 - the other flavour's column, no INNODB_METRICS, or no PROCESS privilege
            continue
        finally:
            cur.close()
    if found is None:
        return {}
    return {short: found[name.lower()] for short, name in FLUSH_METRICS.items() if name.lower() in found}


# INNODB_BUFFER_POOL_STATS (summed over the pool's instances): made young / not young on MySQL,
# which has no status variable for them (MariaDB has both).
POOL_STATS = {
    "made_young": "PAGES_MADE_YOUNG",
    "made_not_young": "PAGES_NOT_MADE_YOUNG",
    "pages_written": "NUMBER_PAGES_WRITTEN",
    "read_ahead": "NUMBER_PAGES_READ_AHEAD",
    "read_ahead_evicted": "NUMBER_READ_AHEAD_EVICTED",
}


def pool_stats(conn) -> dict[str, int]:
    """POOL_STATS now ({short name: count}), or {} where the view cannot be read."""
    cols = ", ".join(f"SUM({c})" for c in POOL_STATS.values())
    try:
        cur = conn.cursor()
        try:
            cur.execute(f"SELECT {cols} FROM information_schema.INNODB_BUFFER_POOL_STATS")
            row = cur.fetchone()
        finally:
            cur.close()
    except Exception:  # noqa: BLE001 - no such view, or no PROCESS privilege
        return {}
    if not row or row[0] is None:
        return {}
    return {k: int(v) for k, v in zip(POOL_STATS, row) if v is not None}
