"""What a pool's LRU list holds while sysbench oltp_read_write runs from a cold pool (issue #22,
docs/capture.md "Read/write on MySQL"): information_schema.INNODB_BUFFER_PAGE_LRU right after the
restart and every --every-s seconds of the run, each page's file, type, old/young and dirtiness,
kept whole in --out; `report` prints, per snapshot, the list's length, its old sublist, its dirty
pages, the start-up pages still held (and how many of them are old) and the pages per file.

    .venv/bin/python bench/lru_content.py run --image loadgen/mysql:9.7 --pools 48M --runs 2 --out /tmp/lru.json
    .venv/bin/python bench/lru_content.py report /tmp/lru.json

The query walks the whole pool under its mutex: at 48M (3,072 frames) a snapshot takes well under
0.1 s; do not poll a large pool with it.
"""
from __future__ import annotations

import argparse
import json
import threading
import time
from collections import Counter
from pathlib import Path

from capture_rw import prepare_sbtest, sysbench
from foreign_traffic import bench_setup, pages_read

from loadgen import db

LRU_QUERY = ("SELECT SPACE, PAGE_NUMBER, PAGE_TYPE, IS_OLD = 'YES', OLDEST_MODIFICATION > 0 "
             "FROM information_schema.INNODB_BUFFER_PAGE_LRU")


def snapshot(conn) -> list[list]:
    """[[space, page, type, old, dirty], ...] in LRU order from the tail (the old end first)."""
    return [[int(s), int(p), str(k), bool(o), bool(d)] for s, p, k, o, d in db.query_all(conn, LRU_QUERY)]


def measure(server, pool: int, rows: int, events: int, every_s: float) -> dict:
    server.set_pool(pool)
    server.restart_cold()
    conn = server.connect()
    try:
        names = {int(i): Path(str(f)).name for i, f in db.query_all(conn, "SELECT FILE_ID, FILE_NAME FROM "
                                                                       "information_schema.FILES")}
        before = pages_read(server)
        snaps = [(0.0, snapshot(conn))]
        t0 = time.monotonic()
        run = threading.Thread(target=sysbench, args=(server, "oltp_read_write", "run", f"--table-size={rows}",
                                                      "--rand-type=uniform", f"--events={events}", "--time=0",
                                                      "--threads=1", "--rand-seed=1"))
        run.start()
        while run.is_alive():
            run.join(every_s)
            snaps.append((round(time.monotonic() - t0, 2), snapshot(conn)))
        return {"pool_bytes": pool, "events": events, "server_read": pages_read(server) - before,
                "run_s": round(time.monotonic() - t0, 2), "files": names, "snapshots": snaps}
    finally:
        conn.close()


def report(path: str) -> None:
    for n, r in enumerate(json.loads(Path(path).read_text())):
        names = {int(k): v for k, v in r["files"].items()}
        snaps = r["snapshots"]
        start = {(s, p) for s, p, *_ in snaps[0][1]}
        kinds = Counter(f"{names.get(s, s)}:{k}" for s, _, k, *_ in snaps[0][1])
        print(f"run {n}: {r['pool_bytes'] >> 20}M, {r['server_read']:,} pages read in {r['run_s']} s; "
              f"at the start {len(start)} pages: {dict(kinds.most_common(8))}")
        for t, rows in snaps:
            held = [x for x in rows if (x[0], x[1]) in start]
            per = Counter(names.get(s, str(s)) for s, *_ in rows)
            old, dirty = sum(x[3] for x in rows), sum(x[4] for x in rows)
            print(f"  t={t:6.2f} s  len {len(rows):5}  old {old:5}  dirty {dirty:4}  "
                  f"start pages held {len(held):4} (old {sum(x[3] for x in held):4})  "
                  + " ".join(f"{k} {v}" for k, v in sorted(per.items()) if v > 5))


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--rows", type=int, default=50_000)
    r.add_argument("--events", type=int, default=2_000)
    r.add_argument("--pools", default="48M")
    r.add_argument("--runs", type=int, default=1)
    r.add_argument("--every-s", type=float, default=2.0)
    r.add_argument("--home", default=None)
    r.add_argument("--image", default=None, help="a container image (loadgen/mysql:9.7) instead of the local mariadbd")
    r.add_argument("--out", required=True)
    p = sub.add_parser("report")
    p.add_argument("path")
    a = ap.parse_args()
    if a.cmd == "report":
        report(a.path)
        return
    work, pools, server = bench_setup(a, "lru-content-")
    out = []
    try:
        prepare_sbtest(server, a.rows)
        for _ in range(a.runs):
            for pool in pools:
                out.append(measure(server, pool, a.rows, a.events, a.every_s))
                Path(a.out).write_text(json.dumps(out))
    finally:
        server.stop()
    report(a.out)


if __name__ == "__main__":
    main()
