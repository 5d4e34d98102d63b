"""sysbench's read/write traffic captured and predicted (issue #22 item 4, docs/capture.md "Predicted
from the capture"): oltp_read_write (or any OLTP script) on its own two tables, from a cold pool
(a restart), the general log on; the server's pages read (Innodb_pages_read delta) and, on MySQL,
each file's reads (performance_schema.file_summary_by_instance: the tables, undo_001/002,
ibtmp1, ibdata1); then `trace capture --dsn` and `predict --trace --dsn` at the same pool.
Each run's trace and the tables' geometry are kept in --home so the model can be rerun offline
(tracemodel.predict).

    .venv/bin/python bench/capture_rw.py --pools 16M,48M --runs 2 --out /tmp/rw.json
    .venv/bin/python bench/capture_rw.py --image loadgen/mysql:9.7 --pools 16M,48M --out /tmp/rw-mysql.json
"""
from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path

from foreign_traffic import bench_setup, fetch_log, loadgen, pages_read, sql

from loadgen import db

import subprocess


def sysbench(server, script: str, command: str, *extra: str, tables: int = 2) -> None:
    ep = server.endpoint
    args = ["sysbench", script, "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={ep.port}",
            "--mysql-user=root", f"--mysql-password={ep.password}", "--mysql-db=sbtest", f"--tables={tables}",
            *extra, command]
    subprocess.run(args, check=True, capture_output=True, text=True)


def prepare_sbtest(server, rows: int) -> None:
    """sysbench's two tables of `rows` rows in sbtest, analyzed (the model reads their statistics)."""
    sql(server, "CREATE DATABASE IF NOT EXISTS sbtest")
    sysbench(server, "oltp_read_only", "prepare", f"--table-size={rows}")
    sql(server, "ANALYZE TABLE sbtest.sbtest1", "ANALYZE TABLE sbtest.sbtest2")


def file_reads(server) -> dict[str, int]:
    """Reads per file (performance_schema; empty where it is off, as on MariaDB by default)."""
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT FILE_NAME, COUNT_READ FROM performance_schema.file_summary_by_instance "
                                  "WHERE EVENT_NAME LIKE 'wait/io/file/innodb/%' AND COUNT_READ > 0")
    except Exception:  # noqa: BLE001 - performance_schema off
        return {}
    finally:
        conn.close()
    return {Path(str(f)).name: int(n) for f, n in rows}


def page_types(server, enable: bool = False) -> dict[str, int]:
    """INNODB_METRICS' pages read by type (buffer_page_read_undo_log, _index_leaf, _system_page,
    ...): enabled after the restart, read after the run (both servers)."""
    if enable:
        sql(server, "SET GLOBAL innodb_monitor_enable = 'module_buffer_page'")
        return {}
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                                  "WHERE NAME LIKE 'buffer_page_read_%' AND COUNT > 0")
    finally:
        conn.close()
    return {str(n).replace("buffer_page_read_", ""): int(c) for n, c in rows}


def purge_counts(server, enable: bool = False) -> dict[str, int]:
    """INNODB_METRICS' purge counters (purge_truncate_history_count: the passes over every rollback
    segment's header, trx_purge_truncate_history; purge_invoked: the batches), enabled after the
    restart, read after the run."""
    if enable:
        sql(server, "SET GLOBAL innodb_monitor_enable = 'module_purge'")
        return {}
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                                  "WHERE NAME LIKE 'purge_%' AND COUNT > 0")
    finally:
        conn.close()
    return {str(n): int(c) for n, c in rows}


def flushes(server, enable: bool = False) -> dict[str, int]:
    """The page cleaner's counters (sampler.FLUSH_METRICS: LRU and flush-list batches' pages), turned on
    first where enable (after the restart)."""
    from loadgen.measure.sampler import enable_flush_metrics, flush_metrics

    conn = server.connect()
    try:
        if enable:
            enable_flush_metrics(conn)
        return flush_metrics(conn)
    finally:
        conn.close()


def all_counters(server, enable: bool = False) -> dict[str, int]:
    """Every INNODB_METRICS counter (all modules turned on first where enable, after the restart) and
    SHOW GLOBAL STATUS's Innodb_ numbers, as status.NAME: the run's deltas say what the server did
    besides reading (pages created, LRU batches and single-page frees, pages scanned, made young)."""
    if enable:
        sql(server, "SET GLOBAL innodb_monitor_enable = 'all'")
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS")
        status = db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Innodb_%'")
    finally:
        conn.close()
    out = {str(n): int(c or 0) for n, c in rows}
    for n, v in status:
        try:
            out[f"status.{n}"] = int(v)
        except (TypeError, ValueError):
            pass
    return out


class Poller:
    """A server polled on a thread of its own every period_s while the run goes (_poll appends to
    samples until stop is set); close() stops it and returns the samples."""

    def __init__(self, server, period_s: float):
        self.conn, self.period_s, self.samples = server.connect(), period_s, []
        self.stop = threading.Event()
        self.t0 = time.monotonic()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def _poll(self) -> None:
        raise NotImplementedError

    def close(self) -> list:
        self.stop.set()
        self.thread.join()
        self.conn.close()
        return self.samples


class FreeFrames(Poller):
    """Innodb_buffer_pool_pages_free, _data and Innodb_pages_read polled every period_s while the run
    goes: the frames the page cleaner keeps free under writes and the pages read so far, over time
    ([(s, free, data, read, undo, system, created), ...]; read is the server's counter, not a delta;
    undo and system: INNODB_METRICS' undo log and system pages read so far, page_types enabled first;
    created: Innodb_pages_created, the server's counter)."""

    def __init__(self, server, period_s: float = 0.25):
        super().__init__(server, period_s)

    def _poll(self) -> None:
        while not self.stop.is_set():
            rows = dict(db.query_all(self.conn, "SHOW GLOBAL STATUS WHERE Variable_name IN "
                                                "('Innodb_buffer_pool_pages_free', 'Innodb_buffer_pool_pages_data', "
                                                "'Innodb_pages_read', 'Innodb_pages_created')"))
            kinds = dict(db.query_all(self.conn, "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                                                 "WHERE NAME IN ('buffer_page_read_undo_log', "
                                                 "'buffer_page_read_system_page')"))
            self.samples.append((round(time.monotonic() - self.t0, 2), int(rows["Innodb_buffer_pool_pages_free"]),
                                 int(rows["Innodb_buffer_pool_pages_data"]), int(rows["Innodb_pages_read"]),
                                 int(kinds.get("buffer_page_read_undo_log") or 0),
                                 int(kinds.get("buffer_page_read_system_page") or 0),
                                 int(rows["Innodb_pages_created"])))
            self.stop.wait(self.period_s)


class LruTail(Poller):
    """The LRU list's tail sampled every period_s while the run goes (MySQL: INNODB_BUFFER_PAGE_LRU,
    whose LRU_POSITION 0 is the tail): [{t, dirty, lsn, tail: [[position, space, page, type,
    oldest_modification], ...]}] with the pool's dirty pages and log_lsn_current, so a dirty page at
    the tail can be dated (its oldest modification against the LSN of the samples) and followed back
    through the samples (docs/capture.md, "The flush list's batch as MySQL sizes it")."""

    def __init__(self, server, depth: int = 300, period_s: float = 1.0):
        self.depth = depth  # before the thread starts: _poll reads it
        super().__init__(server, period_s)

    def _poll(self) -> None:
        while not self.stop.is_set():
            t = round(time.monotonic() - self.t0, 2)
            rows = db.query_all(self.conn, "SELECT LRU_POSITION, SPACE, PAGE_NUMBER, PAGE_TYPE, OLDEST_MODIFICATION "
                                           "FROM information_schema.INNODB_BUFFER_PAGE_LRU "
                                           f"WHERE LRU_POSITION < {int(self.depth)}")
            dirty = db.query_all(self.conn, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
            lsn = db.query_all(self.conn, "SELECT COUNT FROM information_schema.INNODB_METRICS "
                                          "WHERE NAME = 'log_lsn_current'")
            self.samples.append({"t": t, "dirty": int(dirty[0][1]) if dirty else None,
                                 "lsn": int(lsn[0][0]) if lsn else None,
                                 "tail": [[int(a), int(b), int(c), str(d), int(e or 0)] for a, b, c, d, e in rows]})
            self.stop.wait(self.period_s)


def lru_moves(server) -> dict[str, int]:
    """The LRU's moves so far (information_schema.INNODB_BUFFER_POOL_STATS, both servers): old
    pages made young (accessed after innodb_old_blocks_time), not made young (within it), and the
    read-ahead's pages and those it evicted unused."""
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT SUM(PAGES_MADE_YOUNG), SUM(PAGES_NOT_MADE_YOUNG), "
                                  "SUM(NUMBER_PAGES_READ_AHEAD), SUM(NUMBER_READ_AHEAD_EVICTED) "
                                  "FROM information_schema.INNODB_BUFFER_POOL_STATS")
    finally:
        conn.close()
    return dict(zip(("made_young", "not_made_young", "read_ahead", "read_ahead_evicted"),
                    (int(x or 0) for x in rows[0])))


def resident(server) -> dict[str, dict[str, int]]:
    """The pages in the pool after the run by file and page type (INNODB_BUFFER_PAGE; MySQL's file
    names from information_schema.FILES): which undo, ibtmp1 and system pages stayed."""
    conn = server.connect()
    try:
        names = {int(i): Path(str(f)).name for i, f in db.query_all(conn, "SELECT FILE_ID, FILE_NAME FROM "
                                                                       "information_schema.FILES")}
        rows = db.query_all(conn, "SELECT SPACE, PAGE_TYPE, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE "
                                  "WHERE PAGE_STATE = 'FILE_PAGE' GROUP BY SPACE, PAGE_TYPE")
    except Exception:  # noqa: BLE001 - MariaDB's FILES has no InnoDB rows
        return {}
    finally:
        conn.close()
    out: dict[str, dict[str, int]] = {}
    for space, kind, n in rows:
        out.setdefault(names.get(int(space), str(space)), {})[str(kind)] = int(n)
    return out


def resident_dictionary(server) -> dict[str, int]:
    """mysql.ibd's pages in the pool after the run by table and index (INNODB_BUFFER_PAGE): which
    of the server's own tables its statements keep in use (13 index pages after every read/write
    run at 16M and 48M, 30 November 2026: pages the model's references do not name)."""
    conn = server.connect()
    try:
        # 4294967294: the data dictionary's tablespace (mysql.ibd, dict_sys_t::s_dict_space_id)
        rows = db.query_all(conn, "SELECT TABLE_NAME, INDEX_NAME, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE "
                                  "WHERE SPACE = 4294967294 AND PAGE_STATE = 'FILE_PAGE' "
                                  "GROUP BY TABLE_NAME, INDEX_NAME")
    except Exception:  # noqa: BLE001 - MariaDB has no mysql.ibd
        return {}
    finally:
        conn.close()
    return {f"{t}.{i}": int(n) for t, i, n in rows}


class FlushTrace(Poller):
    """MySQL's page cleaner watched closely (every period_s, 50 ms by default): the pool's dirty pages
    and the page cleaner's cumulative counters ([(s, dirty, flush-list pages, flush-list batches, LRU
    batch writes, LRU batch evictions, LRU batches), ...]): when each batch ended, what it wrote, and
    how fast the dirty pages fell after a flush-list batch (its writes complete; docs/capture.md, "The
    dirty tail at 48M")."""

    NAMES = ("buffer_flush_batch_total_pages", "buffer_flush_batches", "buffer_LRU_batch_flush_total_pages",
             "buffer_LRU_batch_evict_total_pages", "buffer_LRU_batches_evict")

    def __init__(self, server, period_s: float = 0.05):
        super().__init__(server, period_s)

    def _poll(self) -> None:
        names = ", ".join(f"'{n}'" for n in self.NAMES)
        while not self.stop.is_set():
            dirty = db.query_all(self.conn, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
            got = dict(db.query_all(self.conn, f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                                               f"WHERE NAME IN ({names})"))
            self.samples.append((round(time.monotonic() - self.t0, 3), int(dirty[0][1]) if dirty else None,
                                 *(int(got.get(n) or 0) for n in self.NAMES)))
            self.stop.wait(self.period_s)


def measure(server, script: str, dist: str, rows: int, events: int, pool: int, work: Path, n: int,
            buffering: str | None = None, run_args: tuple = (), lru_tail: int = 0,
            flush_trace_s: float = 0.0) -> dict:
    docker = server.provider == "docker"
    tag = f"{script}-{dist}-{pool >> 20}M-{n}"
    log = Path(f"/tmp/general-{tag}.log") if docker else server.files_dir / f"general-{tag}.log"
    server.set_pool(pool)
    server.restart_cold()
    if buffering:  # dynamic, and a restart takes the server's own again
        sql(server, f"SET GLOBAL innodb_change_buffering = '{buffering}'")
    page_types(server, enable=True)
    purge_counts(server, enable=True)
    purge_before = purge_counts(server)
    flush_before = flushes(server, enable=True)
    counters_before = all_counters(server, enable=True)
    before, files_before, moves_before = pages_read(server), file_reads(server), lru_moves(server)
    sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    frames = FreeFrames(server)
    tail = LruTail(server, lru_tail) if lru_tail and docker else None  # MySQL's INNODB_BUFFER_PAGE_LRU
    watch = FlushTrace(server, flush_trace_s) if flush_trace_s > 0 else None
    t0 = time.monotonic()
    sysbench(server, script, "run", f"--table-size={rows}", f"--rand-type={dist}", f"--events={events}",
             "--time=0", "--threads=1", "--rand-seed=1", *run_args)
    run_s = time.monotonic() - t0
    free = [(t, f, d, r - before, *rest) for t, f, d, r, *rest in frames.close()]  # reads since the run's start
    tail_samples = tail.close() if tail else None
    flush_trace = watch.close() if watch else None
    sql(server, "SET GLOBAL general_log = OFF")
    original = pages_read(server) - before
    moves = {k: v - moves_before.get(k, 0) for k, v in lru_moves(server).items()}
    types = page_types(server)
    purge = {k: v - purge_before.get(k, 0) for k, v in purge_counts(server).items()}
    flushed = {k: v - flush_before.get(k, 0) for k, v in flushes(server).items()}
    counters = {k: v - counters_before.get(k, 0) for k, v in all_counters(server).items()
                if v - counters_before.get(k, 0)}
    # the files' reads before the pool's contents: information_schema.FILES (a data dictionary view)
    # reads ~15 of mysql.ibd's pages the run had not held (30 November 2026: 15 of every 48M run's)
    files = {k: v - files_before.get(k, 0) for k, v in file_reads(server).items() if v - files_before.get(k, 0)}
    held, dictionary = resident(server), resident_dictionary(server)
    if docker:
        fetch_log(server, str(log), work / "general.log")
        server.container.exec_run(["rm", "-f", str(log)])
        log = work / "general.log"
    ep = server.endpoint
    dsn, env = f"mysql://root@127.0.0.1:{ep.port}/", {"LOADGEN_PASSWORD": ep.password}
    trace = work / f"{tag}.optrace"
    loadgen("trace", "capture", "--general-log", str(log), "--dsn", dsn, "-o", str(trace), env=env)
    log.unlink()
    pred = json.loads(loadgen("predict", "--trace", str(trace), "--dsn", dsn, "--pool", f"{pool >> 20}M",
                              "--format", "json", env=env).stdout)
    (work / f"{tag}.predict.json").write_text(json.dumps(pred, indent=1))
    p = pred["pools"][0]
    return {"script": script, "dist": dist, "pool_bytes": pool, "events": events, "run": n,
            "flavor": pred["flavor"], "qps": pred["qps"], "server_read": original, "predicted": p["pages_read"],
            "system_predicted": p["system_pages_read"], "error_pct": round(100.0 * (p["pages_read"] - original)
                                                                          / max(original, 1), 1),
            "file_reads": files, "page_types": types, "run_s": round(run_s, 2), "purge": purge, "flush": flushed,
            "counters": counters, "free_frames": free, "lru_moves": moves, "resident": held,
            "resident_mysql_ibd": dictionary, "trace": str(trace),
            "predict": str(work / f"{tag}.predict.json"), "change_buffering": pred.get("change_buffering"),
            "lru_tail": tail_samples, "flush_trace": flush_trace}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--events", type=int, default=2_000)
    ap.add_argument("--pools", default="16M,48M")
    ap.add_argument("--scripts", default="oltp_read_write")
    ap.add_argument("--dists", default="uniform")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--home", default=None)
    ap.add_argument("--image", default=None, help="a container image (loadgen/mysql:9.7) instead of the local mariadbd")
    ap.add_argument("--change-buffering", default=None,
                    choices=["none", "inserts", "deletes", "changes", "purges", "all"],
                    help="MySQL's innodb_change_buffering for the runs (set after each restart); default: the server's")
    ap.add_argument("--run-args", default="",
                    help="more sysbench options for the runs, space-separated (--delete_inserts=0: updates only)")
    ap.add_argument("--lru-tail", type=int, default=0,
                    help="MySQL: sample this many pages at the LRU tail each second while each run goes (0: none)")
    ap.add_argument("--flush-trace", type=float, default=0.0, metavar="S",
                    help="MySQL: poll the dirty pages and the page cleaner's batch counters every S seconds (0: off)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    work, pools, server = bench_setup(a, "capture-rw-")
    out = []
    try:
        prepare_sbtest(server, a.rows)
        for n in range(a.runs):
            for pool in pools:
                for script in a.scripts.split(","):
                    for dist in a.dists.split(","):
                        r = measure(server, script, dist, a.rows, a.events, pool, work, n, a.change_buffering,
                                    tuple(a.run_args.split()), a.lru_tail, a.flush_trace)
                        print(json.dumps(r), flush=True)
                        out.append(r)
                        Path(a.out).write_text(json.dumps(out, indent=1))
    finally:
        server.stop()
    os.sync()


if __name__ == "__main__":
    main()
