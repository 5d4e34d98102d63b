"""MySQL 9.7 at 16M (and 48M), the four sysbench cells of docs/capture.md "Replayed: the original run,
the replay, the prediction" repeated: is the table's +8.6% (oltp_point_select uniform) the server's
scatter or the model's bias?  Per run: a restart (cold pool) -> the pool right after it (status and
INNODB_BUFFER_PAGE by space and type) -> sysbench with the general log on (Innodb_pages_read delta,
per-file reads from performance_schema, q/s, load average) -> `trace capture --dsn` -> `predict --trace
--dsn --format json` at the same pool. One JSON line per run appended to --out; each run's prediction
JSON kept under --keep (and the trace under --home).

    LOADGEN_CACHE_DIR=/tmp/lg-mysql16m/cache LOADGEN_STATE_DIR=/tmp/lg-mysql16m/state \
    PYTHONPATH=bench /work/main/.venv/bin/python docs/data/mysql16m/run.py \
        --plan 16M*4,48M*2,16M*1 --out docs/data/mysql16m/runs.jsonl --keep docs/data/mysql16m/predict
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

from capture_rw import Poller, file_reads, prepare_sbtest
from foreign_traffic import fetch_log, loadgen, sql, start_server

from loadgen import db
from loadgen.units import parse_size

CELLS = [
    ("oltp_read_only", "uniform"),
    ("oltp_point_select", "uniform"),
    ("oltp_read_only", "special"),
    ("oltp_point_select", "special"),
]


def status(server) -> dict[str, int]:
    conn = server.connect()
    try:
        rows = db.query_all(
            conn,
            "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_pages_read', "
            "'Innodb_buffer_pool_pages_data', 'Innodb_buffer_pool_pages_free', "
            "'Innodb_buffer_pool_pages_total', 'Innodb_buffer_pool_pages_misc', "
            "'Innodb_buffer_pool_read_ahead', 'Innodb_buffer_pool_read_ahead_evicted', 'Innodb_buffer_pool_reads')",
        )
    finally:
        conn.close()
    return {str(k): int(v) for k, v in rows}


def pool_by_space(server) -> dict[str, int]:
    """The pool's pages by space and page type (INNODB_BUFFER_PAGE; space ids, not names: FILES
    would read mysql.ibd pages)."""
    conn = server.connect()
    try:
        rows = db.query_all(
            conn,
            "SELECT SPACE, PAGE_TYPE, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE "
            "WHERE PAGE_STATE = 'FILE_PAGE' GROUP BY SPACE, PAGE_TYPE",
        )
    finally:
        conn.close()
    return {f"{s}/{t}": int(n) for s, t, n in rows}


def space_names(server) -> dict[str, str]:
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT SPACE, NAME FROM information_schema.INNODB_TABLESPACES")
    finally:
        conn.close()
    return {str(s): str(n) for s, n in rows}


def sysbench_run(server, script: str, dist: str, rows: int, events: int) -> dict:
    ep = server.endpoint
    args = [
        "sysbench",
        script,
        "--db-driver=mysql",
        "--mysql-host=127.0.0.1",
        f"--mysql-port={ep.port}",
        "--mysql-user=root",
        f"--mysql-password={ep.password}",
        "--mysql-db=sbtest",
        "--tables=2",
        f"--table-size={rows}",
        f"--rand-type={dist}",
        f"--events={events}",
        "--time=0",
        "--threads=1",
        "--rand-seed=1",
        "run",
    ]
    t0 = time.monotonic()
    res = subprocess.run(args, check=True, capture_output=True, text=True)
    out = {"run_s": round(time.monotonic() - t0, 2)}
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", res.stdout)
    if m:
        out.update(queries=int(m.group(1)), qps=float(m.group(2)))
    return out


class Watch(Poller):
    """Free and data pages, pages read (the server's counter) and the LRU batches' evicted pages and count
    (INNODB_METRICS, enabled after the restart) every period_s: [(s, free, data, read, evicted, batches)]."""

    def _poll(self) -> None:
        while not self.stop.is_set():
            st = dict(
                db.query_all(
                    self.conn,
                    "SHOW GLOBAL STATUS WHERE Variable_name IN "
                    "('Innodb_buffer_pool_pages_free', 'Innodb_buffer_pool_pages_data', "
                    "'Innodb_pages_read')",
                )
            )
            m = dict(
                db.query_all(
                    self.conn,
                    "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN "
                    "('buffer_LRU_batch_evict_total_pages', 'buffer_LRU_batches_evict')",
                )
            )
            self.samples.append(
                (
                    round(time.monotonic() - self.t0, 3),
                    int(st["Innodb_buffer_pool_pages_free"]),
                    int(st["Innodb_buffer_pool_pages_data"]),
                    int(st["Innodb_pages_read"]),
                    int(m.get("buffer_LRU_batch_evict_total_pages") or 0),
                    int(m.get("buffer_LRU_batches_evict") or 0),
                )
            )
            self.stop.wait(self.period_s)


def lru_after_restart(server) -> dict[str, int]:
    """The LRU list right after the restart by old/young and space (INNODB_BUFFER_PAGE_LRU), and the
    positions (from the tail, 0) of the young pages' first and last."""
    conn = server.connect()
    try:
        rows = db.query_all(
            conn,
            "SELECT IS_OLD, SPACE, COUNT(*), MIN(LRU_POSITION), MAX(LRU_POSITION) FROM "
            "information_schema.INNODB_BUFFER_PAGE_LRU GROUP BY IS_OLD, SPACE",
        )
    finally:
        conn.close()
    return {f"{o}/{s}": [int(n), int(lo), int(hi)] for o, s, n, lo, hi in rows}


def measure(
    server, script: str, dist: str, rows: int, events: int, pool: int, work: Path, keep: Path, n: int, poll: float = 0.0
) -> dict:
    tag = f"{script}-{dist}-{pool >> 20}M-{n}"
    log = Path(f"/tmp/general-{tag}.log")
    server.set_pool(pool)
    server.restart_cold()
    load_before = os.getloadavg()
    after_restart = status(server)
    by_space = pool_by_space(server)
    lru = lru_after_restart(server) if poll else None
    if poll:
        sql(server, "SET GLOBAL innodb_monitor_enable = 'module_buffer'")
    before_st = status(server)  # the INNODB_BUFFER_PAGE query's own reads, if any: after_restart vs this
    files_before = file_reads(server)
    sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    frames = Watch(server, poll) if poll else None
    sb = sysbench_run(server, script, dist, rows, events)
    samples = frames.close() if frames else None
    sql(server, "SET GLOBAL general_log = OFF")
    after_st = status(server)
    load_after = os.getloadavg()
    files = {k: v - files_before.get(k, 0) for k, v in file_reads(server).items() if v - files_before.get(k, 0)}
    fetch_log(server, str(log), work / "general.log")
    server.container.exec_run(["rm", "-f", str(log)])
    ep = server.endpoint
    dsn, env = f"mysql://root@127.0.0.1:{ep.port}/", {"LOADGEN_PASSWORD": ep.password}
    trace = work / f"{tag}.optrace"
    loadgen("trace", "capture", "--general-log", str(work / "general.log"), "--dsn", dsn, "-o", str(trace), env=env)
    (work / "general.log").unlink()
    pred = json.loads(
        loadgen(
            "predict", "--trace", str(trace), "--dsn", dsn, "--pool", f"{pool >> 20}M", "--format", "json", env=env
        ).stdout
    )
    (keep / f"{tag}.predict.json").write_text(json.dumps(pred, indent=1))
    p = pred["pools"][0]
    server_read = after_st["Innodb_pages_read"] - before_st["Innodb_pages_read"]
    return {
        "script": script,
        "dist": dist,
        "pool": f"{pool >> 20}M",
        "run": n,
        "events": events,
        "server_read": server_read,
        "predicted": p.get("pages_read"),
        "reads_low": p.get("low"),
        "reads_high": p.get("high"),
        "error_pct": round(100.0 * (p["pages_read"] - server_read) / max(server_read, 1), 1),
        "file_reads": files,
        "after_restart": after_restart,
        "before_run": before_st,
        "after_run": after_st,
        "pool_after_restart": by_space,
        "loadavg_before": load_before,
        "loadavg_after": load_after,
        "lru_after_restart": lru,
        "free_frames": samples,
        "sysbench": sb,
        "trace": str(trace),
        "predict": f"{tag}.predict.json",
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--image", default="loadgen/mysql:9.7")
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--events", type=int, default=2_000)
    ap.add_argument("--plan", default="16M*4,48M*2", help="pool*repeats, comma-separated, in order")
    ap.add_argument("--cells", default="0,1,2,3", help="indices into CELLS")
    ap.add_argument("--home", default=None)
    ap.add_argument(
        "--poll",
        type=float,
        default=0.0,
        help="poll free/data pages and pages read every S seconds while each run goes (0: off); "
        "also the LRU list's old/young pages by space after the restart",
    )
    ap.add_argument("--keep", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    home = Path(a.home or tempfile.mkdtemp(prefix="mysql16m-"))
    work, keep = home / "work", Path(a.keep)
    work.mkdir(parents=True, exist_ok=True)
    keep.mkdir(parents=True, exist_ok=True)
    plan = [(parse_size(p.split("*")[0]), int(p.split("*")[1])) for p in a.plan.split(",")]
    cells = [CELLS[int(i)] for i in a.cells.split(",")]
    server = start_server(home, plan[0][0], a.image)
    seen: dict[int, int] = {}
    try:
        prepare_sbtest(server, a.rows)
        (keep / "spaces.json").write_text(json.dumps(space_names(server), indent=1))
        for pool, reps in plan:
            for _ in range(reps):
                n = seen.get(pool, 0)
                seen[pool] = n + 1
                for script, dist in cells:
                    r = measure(server, script, dist, a.rows, a.events, pool, work, keep, n, a.poll)
                    print(
                        json.dumps(
                            {
                                k: r[k]
                                for k in (
                                    "script",
                                    "dist",
                                    "pool",
                                    "run",
                                    "server_read",
                                    "predicted",
                                    "reads_low",
                                    "reads_high",
                                    "error_pct",
                                )
                            }
                        ),
                        flush=True,
                    )
                    with open(a.out, "a") as f:
                        f.write(json.dumps(r) + "\n")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
