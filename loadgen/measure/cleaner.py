"""MySQL's page-cleaner LRU batches, recorded while a run goes on.

MySQL 8.0-9.x's page cleaner evicts a batch from the LRU tail on its ~1 s tick only while the
server sees activity (docs/innodb.md, "The page cleaner"): on a read-only run one batch, sometimes
two, early on, at a moment the model cannot know, and where it lands moved B at 16M by 9% and more.
So a run on MySQL records them: information_schema.INNODB_METRICS' buffer_LRU_batch_evict_total_pages
(pages the LRU batches evicted) and buffer_LRU_batches_evict (batches), polled every POLL_INTERVAL_S
on a connection of its own, each rise recorded with the driver's query count before and after it.
The run's own prediction replays them (PoolModel.cleaner_seen, native/lrusim/cleaner.c
cleaner_replay). The monitors are off by default on MySQL: on a server loadgen owns they are
enabled for the run and turned off again after it, unless they were on already; on another
server they are only read if someone enabled them.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

PAGES_METRIC = "buffer_LRU_batch_evict_total_pages"
BATCHES_METRIC = "buffer_LRU_batches_evict"
METRICS = (PAGES_METRIC, BATCHES_METRIC)
# A batch takes a few milliseconds and comes about once a second at most: 20 ms places it within
# about 400 queries at 20k q/s (a 1,633-leaf table's B has 40,000), and the poll costs the server
# one information_schema read per interval.
POLL_INTERVAL_S = 0.02
METHOD = (f"information_schema.INNODB_METRICS {PAGES_METRIC} and {BATCHES_METRIC}, polled every "
          "{interval_ms:g} ms on a connection of its own; a batch is placed at the midpoint of the queries done "
          "at the polls before and after it")


def read_metrics(conn) -> dict[str, tuple[int, bool]]:
    """{name: (count, enabled)} of METRICS; {} where the view cannot be read."""
    cur = conn.cursor()
    try:
        cur.execute("SELECT NAME, COUNT, STATUS FROM information_schema.INNODB_METRICS WHERE NAME IN (%s, %s)",
                    METRICS)
        rows = cur.fetchall()
    except Exception:  # noqa: BLE001 - no PROCESS privilege, or MariaDB's columns (ENABLED, not STATUS)
        return {}
    finally:
        cur.close()
    out = {}
    for name, count, status in rows:
        name = name.decode() if isinstance(name, bytes) else str(name)
        status = status.decode() if isinstance(status, bytes) else str(status)
        out[name.lower()] = (int(count or 0), status.lower() == "enabled")
    return out


def _set_monitors(conn, names, on: bool) -> None:
    cur = conn.cursor()
    try:
        for name in names:
            cur.execute(f"SET GLOBAL innodb_monitor_{'enable' if on else 'disable'} = %s", (name,))
    finally:
        cur.close()


@dataclass
class CleanerWatch:
    """Polls the LRU batch counters every interval_s on its own thread and connection until stop().

    Args:
        conn: a connection used only by the watch.
        query_count: the driver's query count so far.
        owned: loadgen owns the server (it may turn the monitors on, and off again after).
    """

    conn: object
    query_count: Callable[[], int]
    owned: bool
    interval_s: float = POLL_INTERVAL_S
    batches: list = field(default_factory=list)
    note: str | None = None  # why nothing was recorded, or what was changed on the server
    polls: int = 0
    complete: bool = True  # False once a poll failed: the record misses what came after

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._enabled: list[str] = []
        self._last: tuple[int, int, int] | None = None  # pages, batches, queries at the last poll
        self._t0 = 0.0

    def start(self) -> bool:
        """Read the baseline (turning the monitors on where allowed) and start polling; False when
        the counters cannot be read, and note says why."""
        found = read_metrics(self.conn)
        if len(found) < len(METRICS):
            self.note = "INNODB_METRICS not readable (no PROCESS privilege?): the LRU batches were not recorded"
            return False
        off = [n for n in METRICS if not found[n.lower()][1]]
        if off and not self.owned:
            self.note = (f"{', '.join(off)} disabled on a server loadgen does not own (not changed): the LRU batches "
                         "were not recorded")
            return False
        if off:
            try:
                _set_monitors(self.conn, off, True)
            except Exception as exc:  # noqa: BLE001 - no SYSTEM_VARIABLES_ADMIN
                self.note = f"could not enable {', '.join(off)} ({exc}): the LRU batches were not recorded"
                return False
            self._enabled = off
            self.note = f"enabled {', '.join(off)} for the run (innodb_monitor_enable), disabled after it"
        self._t0 = time.monotonic()
        if not self._poll():
            return False
        self._thread = threading.Thread(target=self._loop, name="loadgen-cleaner-watch", daemon=True)
        self._thread.start()
        return True

    def _loop(self) -> None:
        next_at = time.monotonic() + self.interval_s
        while not self._stop.wait(max(0.0, next_at - time.monotonic())):
            next_at += self.interval_s
            if not self._poll():
                return

    def _poll(self) -> bool:
        queries = self.query_count()
        try:
            found = read_metrics(self.conn)
        except Exception as exc:  # noqa: BLE001 - the server went away; the driver reports it
            found, why = {}, str(exc)
        else:
            why = "INNODB_METRICS could not be read"
        if len(found) < len(METRICS) or not all(on for _, on in found.values()):
            # disabled meanwhile (someone else's innodb_monitor_disable), or gone
            self.complete = False
            if len(found) == len(METRICS):
                why = "a monitor was disabled"
            self.note = f"stopped recording after {self.polls} polls: {why}"
            return False
        pages, batches = found[PAGES_METRIC.lower()][0], found[BATCHES_METRIC.lower()][0]
        self.polls += 1
        if self._last is not None and pages > self._last[0]:
            self.batches.append({"queries_before": self._last[2], "queries_after": queries,
                                 "pages": pages - self._last[0], "batches": max(0, batches - self._last[1]),
                                 "t_s": round(time.monotonic() - self._t0, 3)})
        self._last = (pages, batches, queries)
        return True

    def stop(self) -> dict | None:
        """Stop polling, take one last poll, restore the monitors; the record (None if there is none)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._poll()
        if self._enabled:
            try:
                _set_monitors(self.conn, self._enabled, False)
            except Exception:  # noqa: BLE001 - the server may be gone; a restart turns them off too
                pass
        if self._thread is None:
            return None
        return {"method": METHOD.format(interval_ms=self.interval_s * 1000), "poll_interval_s": self.interval_s,
                "polls": self.polls, "complete": self.complete, "note": self.note, "batches": self.batches}


# A replayed batch's count with this bit set is SEEN_REFILL | depth: the kernel sizes that batch
# itself, refilling the free frames to depth as its timed batch does (native/lrusim/cleaner.h)
SEEN_REFILL = 1 << 63


def replay_schedule(record: dict | None, refill_depth: int | None = None) -> tuple[tuple[int, int], ...] | None:
    """The recorded batches as the kernel replays them: ((queries done, pages evicted), ...) in
    order; None for a result without a record (MariaDB, older files): the model keeps its
    four-phase mean of one timed batch, as it does for a record cut short (`complete` false).
    refill_depth (innodb_lru_scan_depth): each batch where it was seen, its size the kernel's own
    (SEEN_REFILL), not the clean pages it evicted."""
    if not record or record.get("batches") is None or record.get("complete") is False:
        return None
    out = []
    for b in record["batches"]:
        q = (int(b["queries_before"]) + int(b["queries_after"])) // 2
        out.append((q, SEEN_REFILL | int(refill_depth) if refill_depth else int(b["pages"])))
    return tuple(sorted(out))


# The most LRU batches a second a run may have had for them to be the timed batch (about one a
# second) rather than ones the user threads woke (refill_schedule).
TIMED_BATCHES_PER_S = 3.0


def refill_schedule(run: dict, depth: int) -> tuple[tuple[int, int], ...] | None:
    """A MySQL write run's recorded LRU batches, each to be sized as the model's timed batch
    (replay_schedule's refill_depth), where the run began once its restarted server held no dirty
    page (sampler.wait_quiet's until_clean: the cold restart since branch slowshut); None otherwise.
    After such a start the first batch came at 1.28-1.71 s in 13 of 16 runs, not inside the first
    second as the model's phase mean has it, and the rate's swings moved the others (ycsb-d at CI's
    size, 16M, 501-7,926 q/s: the table's mean |error| 3.5 -> 2.4 points on 12 runs; with the
    segments' first uses, undomodel.rsegs_held, -4.1 .. +1.8% on 16; docs/workloads.md, "MySQL
    ycsb-d's rate"). The older runs (docs/data/mixruns) began at once, their first batch inside the
    first second; their slow update runs (49-328 q/s) replayed so read 3-12 points fewer (two of six
    nearer, three farther) and three whole reads went past 10%, not found why: they keep the mean.
    Only where the batches were the timed one's (at most TIMED_BATCHES_PER_S a second: ycsb-d's came
    0.79-1.98 a second): where the user threads woke the cleaner more often (ycsb-a, 100k operations
    at 16M: 6.3 a second) the dirty-tail rule already gives the server's count (1.01-1.10x), and
    replaying them took the whole reads from -4.6 .. -6.0% to -7.3 .. -7.7% in three runs
    (test_mix_prediction_mysql.py)."""
    cold = (run.get("server") or {}).get("cold_start") or {}
    if cold.get("pages_dirty_after_settling") != 0:
        return None
    record = (run.get("buffer_pool") or {}).get("cleaner_batches")
    elapsed_s = float((run.get("result") or {}).get("elapsed_s") or 0)
    batches = len((record or {}).get("batches") or [])
    if elapsed_s <= 0 or batches > TIMED_BATCHES_PER_S * elapsed_s:
        return None
    return replay_schedule(record, refill_depth=depth)


def watch_cleaner(server, flavor: str, queries_done: Callable[[], int]) -> CleanerWatch | None:
    """A watch of MySQL's page-cleaner LRU batches on a connection of its own; None on MariaDB,
    whose cleaner the model follows without a record, or without a connection."""
    if flavor != "mysql":
        return None
    try:
        conn = server.connect()
    except Exception:  # noqa: BLE001 - the run goes on without the record
        return None
    return CleanerWatch(conn, queries_done, owned=bool(server.owned))


def stop_watch(watch: CleanerWatch | None) -> dict | None:
    """The watch's record (None without a watch), its connection closed whatever happens."""
    if watch is None:
        return None
    try:
        return watch.stop()
    finally:
        try:
            watch.conn.close()
        except Exception:  # noqa: BLE001 - the server may be gone
            pass
