"""Which index splits in sysbench's read/write run on MySQL, and when (issue #22, branch split48, 30
November 2026): sysbench's two 50,000-row tables prepared, then --runs read/write runs of 2,000
transactions at 48M from a cold pool (bench/capture_rw.py's settings, no capture), each index's leaves
and pages (mysql.innodb_index_stats after ANALYZE TABLE) before and after every run, its pages in the
pool after the run (INNODB_BUFFER_PAGE by index), and the splits, merges and pages created every
0.25 s while the run goes (INNODB_METRICS, Innodb_pages_created).

    LOADGEN_CACHE_DIR=... LOADGEN_STATE_DIR=... PYTHONPATH=.:bench .venv/bin/python \
        docs/data/split48/probe.py --image loadgen/mysql:9.7 --pools 48M --runs 3 --out probe.json
"""
from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path

from capture_rw import all_counters, prepare_sbtest, sysbench
from foreign_traffic import bench_setup, sql

from loadgen import db

NAMES = ("index_page_splits", "index_page_merge_successful", "index_page_merge_attempts")


def index_sizes(server) -> dict[str, dict[str, int]]:
    """{table.index: {n_leaf_pages, size}} after ANALYZE TABLE (exact: the segments' used pages)."""
    sql(server, "ANALYZE TABLE sbtest.sbtest1", "ANALYZE TABLE sbtest.sbtest2")
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT table_name, index_name, stat_name, stat_value FROM mysql.innodb_index_stats "
                                  "WHERE database_name='sbtest' AND stat_name IN ('n_leaf_pages', 'size')")
    finally:
        conn.close()
    out: dict[str, dict[str, int]] = {}
    for t, i, s, v in rows:
        out.setdefault(f"{t}.{i}", {})[s] = int(v)
    return out


def in_pool(server) -> dict[str, int]:
    conn = server.connect()
    try:
        rows = db.query_all(conn, "SELECT TABLE_NAME, INDEX_NAME, COUNT(*), SUM(IS_OLD = 'YES'), SUM(NUMBER_RECORDS) "
                                  "FROM information_schema.INNODB_BUFFER_PAGE WHERE TABLE_NAME LIKE '%sbtest%' "
                                  "GROUP BY TABLE_NAME, INDEX_NAME")
    finally:
        conn.close()
    return {f"{t}.{i}": [int(n), int(o or 0), int(r or 0)] for t, i, n, o, r in rows}


def watch(server, samples: list, stop: threading.Event, t0: float) -> None:
    conn = server.connect()
    names = ", ".join(f"'{n}'" for n in NAMES)
    try:
        while not stop.is_set():
            got = dict(db.query_all(conn, f"SELECT NAME, COUNT FROM information_schema.INNODB_METRICS "
                                          f"WHERE NAME IN ({names})"))
            made = db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Innodb_pages_created'")
            samples.append((round(time.monotonic() - t0, 2), *(int(got.get(n) or 0) for n in NAMES),
                            int(made[0][1])))
            stop.wait(0.25)
    finally:
        conn.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--image", default="loadgen/mysql:9.7")
    ap.add_argument("--pools", default="48M")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=50_000)
    ap.add_argument("--home", default=None)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    _, pools, server = bench_setup(a, "split48-")
    out = []
    try:
        prepare_sbtest(server, a.rows)
        sizes = index_sizes(server)
        out.append({"after": "prepare", "sizes": sizes})
        for n in range(a.runs):
            server.set_pool(pools[0])
            server.restart_cold()
            all_counters(server, enable=True)
            samples: list = []
            stop = threading.Event()
            t0 = time.monotonic()
            th = threading.Thread(target=watch, args=(server, samples, stop, t0), daemon=True)
            th.start()
            sysbench(server, "oltp_read_write", "run", f"--table-size={a.rows}", "--rand-type=uniform",
                     "--events=2000", "--time=0", "--threads=1", "--rand-seed=1")
            run_s = time.monotonic() - t0
            stop.set()
            th.join()
            base = samples[0]
            pool = in_pool(server)
            sizes = index_sizes(server)
            out.append({"after": f"run {n}", "run_s": round(run_s, 2), "sizes": sizes, "in_pool": pool,
                        "samples": [(s[0], *(x - b for x, b in zip(s[1:], base[1:]))) for s in samples]})
            print(json.dumps(out[-1]["sizes"]), out[-1]["samples"][-1], flush=True)
            Path(a.out).write_text(json.dumps(out, indent=1))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
