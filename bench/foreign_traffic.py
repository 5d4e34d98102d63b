"""Other tools' traffic, predicted (issue #20 items 2 and 5): sysbench's oltp_point_select on its own
table, captured from the general log, replayed with `run --server dsn --table` and predicted.

For each pool and --rand-type: the pool is emptied (server restart), sysbench runs a fixed number of
events with the general log on (its pages read: the SHOW GLOBAL STATUS delta), `trace capture` turns
the log into a trace, and `run --trace` replays it from a cold pool with its own prediction.

    .venv/bin/python bench/foreign_traffic.py --rows 100000 --events 20000 --pools 8M,16M \
        --dists uniform,gaussian,special,pareto --out /tmp/foreign.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from loadgen import db
from loadgen.servers.local import LocalServer
from loadgen.units import parse_size


def _pct(value: int, reference: int) -> float | None:
    """value against reference in per cent; None where the reference read nothing (a pool that
    holds the tables from the start)."""
    return round(100.0 * (value - reference) / reference, 2) if reference else None


def bench_setup(a, prefix: str) -> tuple[Path, list[int], object]:
    """The work directory (under --home, else a new temporary one), --pools in bytes and the
    server, started at the first pool (--image: a container, else a local mariadbd)."""
    home = Path(a.home or tempfile.mkdtemp(prefix=prefix))
    if not a.home:
        os.chmod(home, 0o711)  # as root the server runs as `mysql`, which must pass through it (_common.py)
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    pools = [parse_size(p) for p in a.pools.split(",")]
    return work, pools, start_server(home, pools[0], a.image)


def start_server(home: Path, pool_bytes: int, image: str | None = None):
    """The bench's server, started: a container of `image` (loadgen/mysql:9.7), else a local
    mariadbd under home/server."""
    if image:
        from loadgen.servers import ServerSpec
        from loadgen.servers.docker import DockerServer

        server = DockerServer(ServerSpec(provider="docker", image=image, pool_bytes=pool_bytes))
    else:
        server = LocalServer(home / "server", pool_bytes)
    server.start()
    return server


def pages_read(server: LocalServer) -> int:
    conn = server.connect()
    try:
        return int(db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Innodb_pages_read'")[0][1])
    finally:
        conn.close()


def sql(server: LocalServer, *statements: str) -> None:
    conn = server.connect()
    try:
        cur = conn.cursor()
        for s in statements:
            cur.execute(s)
            if cur.description:  # ANALYZE TABLE answers with rows
                cur.fetchall()
    finally:
        conn.close()


def sysbench(server: LocalServer, command: str, *extra: str) -> None:
    ep = server.endpoint
    args = ["sysbench", "oltp_point_select", "--db-driver=mysql", "--mysql-host=127.0.0.1",
            f"--mysql-port={ep.port}", "--mysql-user=root", f"--mysql-password={ep.password}",
            "--mysql-db=sbtest", "--tables=1", *extra, command]
    subprocess.run(args, check=True, capture_output=True, text=True)


def loadgen(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    res = subprocess.run([sys.executable, "-m", "loadgen", *args], capture_output=True, text=True,
                         env={**os.environ, **(env or {})})
    if res.returncode != 0:
        raise SystemExit(f"loadgen {' '.join(args[:2])} failed: {res.stderr[-3000:]}")
    return res


def fetch_log(server, inside: str, to: Path) -> None:
    """The general log a container wrote (MySQL in docker): copied out of it."""
    import io
    import tarfile

    stream, _ = server.container.get_archive(inside)
    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
        member = tar.getmembers()[0]
        to.write_bytes(tar.extractfile(member).read())


def measure(server, dist: str, rows: int, events: int, work: Path, seed: int) -> dict:
    docker = server.provider == "docker"
    log = Path("/tmp/general.log") if docker else server.files_dir / "general.log"
    server.restart_cold()
    before = pages_read(server)
    sql(server, f"SET GLOBAL general_log_file = '{log}'", "SET GLOBAL general_log = ON")
    sysbench(server, "run", f"--table-size={rows}", f"--rand-type={dist}", f"--events={events}", "--time=0",
             "--threads=1", f"--rand-seed={seed}")
    sql(server, "SET GLOBAL general_log = OFF")
    original = pages_read(server) - before
    trace = work / f"{dist}-{server.pool_bytes >> 20}M.trace"
    if docker:
        fetch_log(server, str(log), work / "general.log")
        sql(server, "SET GLOBAL general_log_file = '/tmp/general-old.log'")
        server.container.exec_run(["rm", "-f", str(log)])
        log = work / "general.log"
    loadgen("trace", "capture", "--general-log", str(log), "--table", "sbtest.sbtest1", "-o", str(trace))
    log.unlink()
    out = work / f"{dist}-{server.pool_bytes >> 20}M.json"
    # the replay's own cold start on a server it does not own is a resize, which keeps the pages
    # that fit in the pool it shrinks to: a restart first leaves only the server's start-up pages
    server.restart_cold()
    ep = server.endpoint
    loadgen("run", "--server", "dsn", "--dsn", f"mysql://root@127.0.0.1:{ep.port}/", "--table", "sbtest.sbtest1",
            "--trace", str(trace), "--driver", "native", "--out", str(out), env={"LOADGEN_PASSWORD": ep.password})
    doc = json.loads(out.read_text())
    replay = doc["buffer_pool"]["pages_read"]
    pred = doc["prediction"]["reads"]
    return {"dist": dist, "pool_bytes": server.pool_bytes, "events": events, "original": original,
            "replay": replay, "predicted": pred, "leaf_pages": doc["dataset"].get("leaf_pages"),
            "pred_vs_original_pct": _pct(pred, original),
            "pred_vs_replay_pct": _pct(pred, replay),
            "replay_vs_original_pct": _pct(replay, original),
            "cold": doc["server"]["cold_start"].get("cold"),
            "replay_pages_data_before": doc["buffer_pool"].get("pages_data_before"), "result_file": str(out)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--pools", default="8M,16M")
    ap.add_argument("--dists", default="uniform,gaussian,special,pareto")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--home", default=None)
    ap.add_argument("--image", default=None, help="a container image (loadgen/mysql:9.7) instead of the local mariadbd")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    work, pools, server = bench_setup(a, "foreign-")
    rows = []
    try:
        sql(server, "CREATE DATABASE IF NOT EXISTS sbtest")
        sysbench(server, "prepare", f"--table-size={a.rows}")
        sql(server, "ANALYZE TABLE sbtest.sbtest1")
        for pool in pools:
            server.set_pool(pool)
            for dist in a.dists.split(","):
                r = measure(server, dist, a.rows, a.events, work, a.seed)
                print(json.dumps(r), flush=True)
                rows.append(r)
    finally:
        server.stop()
    Path(a.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
