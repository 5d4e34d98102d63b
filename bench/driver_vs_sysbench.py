#!/usr/bin/env python3
"""Target 1: single-connection point-select throughput, loadgen's driver against sysbench.

sysbench 1.0.20 `oltp_point_select` (binary prepared statements, --rand-type=uniform,
1 thread) and loadgen's drivers run against the same server and the same fully cached sbtest1
table, over the same connection type (the unix socket by default, --tcp for 127.0.0.1), in
alternating order, --seconds each. loadgen sends sysbench's own statement
(SELECT c FROM sbtest1 WHERE id=?) over ids in uniformly random order (a fresh random
shuffle per pass, drawn before the clock starts). The figure is loadgen native qps / sysbench qps per round; the python
driver's ratio is printed for reference. The last line is the ratio.

--pipeline N adds loadgen's pipelined driver (native/pipeline.c: up to N queries in flight on the
one connection, issue #14) as a contender, and its ratio to sysbench becomes the last line.
"""
from __future__ import annotations

import argparse
import itertools
import random
import re
import resource
import subprocess
import threading
from array import array

from _common import BENCH_USER, bench_endpoint, paired_rounds, say, scratch_server, spread

SYSBENCH_SQL = "SELECT c FROM sbtest1 WHERE id=?"


def sysbench_args(server, tcp: bool, rows: int) -> list[str]:
    ep = server.endpoint
    where = ["--mysql-host=127.0.0.1", f"--mysql-port={ep.port}"] if tcp else [f"--mysql-socket={ep.unix_socket}"]
    return ["sysbench", "oltp_point_select", "--db-driver=mysql", *where, f"--mysql-user={BENCH_USER}",
            "--mysql-db=sbtest", "--tables=1", f"--table-size={rows}"]


def cpu_s(who: int) -> float:
    ru = resource.getrusage(who)
    return ru.ru_utime + ru.ru_stime


def run_sysbench(base: list[str], seconds: float, threads: int = 1) -> tuple[float, float]:
    """(qps, client CPU microseconds per query)."""
    cpu0 = cpu_s(resource.RUSAGE_CHILDREN)
    out = subprocess.run([*base, f"--threads={threads}", "--rand-type=uniform", f"--time={seconds:g}",
                          "--report-interval=0", "--db-ps-mode=auto", "run"],
                         capture_output=True, text=True, check=True).stdout
    cpu = cpu_s(resource.RUSAGE_CHILDREN) - cpu0
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec\.\)", out)
    if not m:
        raise SystemExit(f"cannot read sysbench's qps from:\n{out}")
    return float(m.group(2)), cpu / int(m.group(1)) * 1e6


def random_ids(rows: int, passes: int = 10) -> array:
    """Uniformly random ids, made before the clock starts (sysbench draws its ids in C; this
    measures the query loop, not the id generator): `passes` shuffles of 1..rows, one after
    another. run_loadgen cycles through them."""
    rng = random.Random(1)
    out = array("Q")
    ids = list(range(1, rows + 1))
    for _ in range(passes):
        rng.shuffle(ids)
        out.extend(ids)
    return out


def run_loadgen(driver: str, server, tcp: bool, ids: array, seconds: float, threads: int = 1,
                pipeline: int = 1) -> tuple[float, float]:
    """(qps, client CPU microseconds per query; this process, the timer thread included).

    With threads > 1, each thread has its own connection and cycles through its own slice of ids.
    """
    from loadgen import db
    from loadgen.drivers.python import DriverState, run_queries
    from loadgen.drivers.native import NativeQueries, run_queries_native

    ep = bench_endpoint(server, tcp)
    conns = [NativeQueries(ep, "sbtest", SYSBENCH_SQL, pipeline=pipeline) if driver == "native"
             else db.connect(ep, "sbtest")
             for _ in range(threads)]
    states = [DriverState() for _ in range(threads)]
    stop = threading.Event()

    def work(k: int) -> None:
        part = itertools.cycle(ids[k * len(ids) // threads:(k + 1) * len(ids) // threads])
        if driver == "native":
            run_queries_native(conns[k], part, states[k], stop=stop)
        else:
            run_queries(conns[k], part, states[k], stop=stop, query_format=b"SELECT c FROM sbtest1 WHERE id=%d")

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    cpu0 = cpu_s(resource.RUSAGE_SELF)
    timer = threading.Timer(seconds, stop.set)
    timer.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    cpu = cpu_s(resource.RUSAGE_SELF) - cpu0
    for c in conns:
        c.close()
    queries = sum(st.queries for st in states)
    if any(st.error for st in states) or sum(st.rows for st in states) != queries:
        raise SystemExit(f"loadgen {driver}: {[st.error for st in states if st.error] or 'missing rows'}")
    return queries / max(st.elapsed_s for st in states), cpu / queries * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000, help="sbtest1 rows (fully cached)")
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each run")
    ap.add_argument("--rounds", type=int, default=9, help="alternating rounds (short: the machine is noisy)")
    ap.add_argument("--tcp", action="store_true", help="127.0.0.1 TCP instead of the unix socket")
    ap.add_argument("--no-python", action="store_true", help="skip the python driver's reference runs")
    ap.add_argument("--threads", type=int, default=1, help="connections on each side (sysbench --threads)")
    ap.add_argument("--pipeline", type=int, default=0, help="also run the pipelined driver, N in flight")
    args = ap.parse_args()

    with scratch_server(256 << 20) as server:
        conn = server.connect()
        conn.cursor().execute("CREATE DATABASE IF NOT EXISTS sbtest")
        conn.close()
        base = sysbench_args(server, args.tcp, args.rows)
        subprocess.run([*base, "prepare"], capture_output=True, text=True, check=True)
        say(f"server {server.flavor.name} {server.flavor.version}, sbtest1 {args.rows:,} rows, "
            f"{'TCP 127.0.0.1' if args.tcp else 'unix socket'}, {args.seconds:g} s runs, {args.threads} thread(s)")
        # Warm-up: the whole table into the pool, both clients' code paths once.
        run_sysbench(base, 3)
        ids = random_ids(args.rows)
        run_loadgen("native", server, args.tcp, ids, 3)

        drivers = ["native"] + ([] if args.no_python else ["python"]) + (["pipelined"] if args.pipeline > 1 else [])

        def run_one(c: str, r: int):
            if c == "sysbench":
                return run_sysbench(base, args.seconds, args.threads)
            if c == "pipelined":
                return run_loadgen("native", server, args.tcp, ids, args.seconds, args.threads, args.pipeline)
            return run_loadgen(c, server, args.tcp, ids, args.seconds, args.threads)

        ratios, cpu_us = paired_rounds("sysbench", drivers, args.rounds, run_one)
    for c, values in cpu_us.items():
        say(f"client CPU per query, {c}: {spread(values)} us")
    if "python" in ratios:
        say(f"python driver / sysbench qps: {spread(ratios['python'])}")
    say(f"native driver / sysbench qps: {spread(ratios['native'])}")
    if "pipelined" in ratios:
        say(f"pipelined driver (--pipeline {args.pipeline}) / sysbench qps: {spread(ratios['pipelined'])}")


if __name__ == "__main__":
    main()
