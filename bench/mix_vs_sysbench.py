#!/usr/bin/env python3
"""Issue #21: the mix driver's rate against sysbench's OLTP read-only script, one connection each.

sysbench 1.0.20 `oltp_read_only` (10 point selects and 4 ranges of 100 rows per transaction,
binary prepared statements, its default --rand-type=special) and loadgen's `sysbench-oltp-ro`
preset (the same statements in the same proportions, drawn per op, each stream on its own
connection but one op at a time: one client thread) run against the same server and the same
fully cached sbtest1 table (made by `sysbench prepare`), in alternating order, --seconds each.

sysbench wraps each transaction in BEGIN/COMMIT, which loadgen does not send; the figure is
therefore statements of the mix per second: sysbench's read queries per second against loadgen's
ops per second. `--skip-trx` runs sysbench without BEGIN/COMMIT as well, for the like-for-like
rate. The last line is the native driver's ratio to sysbench.
"""
from __future__ import annotations

import argparse
import re
import resource
import subprocess
import threading

from _common import BENCH_USER, paired_rounds, say, scratch_server, spread


def sysbench_base(server, rows: int) -> list[str]:
    ep = server.endpoint
    return ["sysbench", "oltp_read_only", "--db-driver=mysql", f"--mysql-socket={ep.unix_socket}",
            f"--mysql-user={BENCH_USER}", "--mysql-db=sbtest", "--tables=1", f"--table-size={rows}"]


def cpu_s(who: int) -> float:
    ru = resource.getrusage(who)
    return ru.ru_utime + ru.ru_stime


def run_sysbench(base: list[str], seconds: float, skip_trx: bool) -> tuple[float, float]:
    """(read statements per second, client CPU microseconds per statement)."""
    cpu0 = cpu_s(resource.RUSAGE_CHILDREN)
    out = subprocess.run([*base, "--threads=1", f"--time={seconds:g}", "--report-interval=0",
                          f"--skip_trx={'on' if skip_trx else 'off'}", "--db-ps-mode=auto", "run"],
                         capture_output=True, text=True, check=True).stdout
    cpu = cpu_s(resource.RUSAGE_CHILDREN) - cpu0
    reads = re.search(r"read:\s+(\d+)", out)
    total = re.search(r"total time:\s+([\d.]+)s", out)
    if not reads or not total:
        raise SystemExit(f"cannot read sysbench's counts from:\n{out}")
    n = int(reads.group(1))
    return n / float(total.group(1)), cpu / n * 1e6


def loadgen_plans(server, rows: int, driver: str):
    from loadgen.runner import mix as mixrun
    from loadgen.runner import mixseed
    from loadgen.workload import presets
    from loadgen.workload.mix import TableSpec

    spec = presets.load("sysbench-oltp-ro", rows=rows, operations=10 ** 9)
    conn = server.connect()
    try:
        info = mixseed.inspect_table(conn, TableSpec(name="sbtest1", existing="sbtest.sbtest1"))
    finally:
        conn.close()
    spec = spec.with_rows({"sbtest1": info.rows})
    return spec, mixrun.plan_statements(spec, {"sbtest1": info}), {i: info.key_offset for i in spec.mixed}


def run_loadgen(server, rows: int, seconds: float, driver: str, seed: int, pipeline: int = 1) -> tuple[float, float]:
    """(ops per second, client CPU microseconds per op; this process)."""
    from loadgen.drivers.mix import MixState, PythonMix, StreamStats
    from loadgen.drivers.mixnative import NativeMix
    from loadgen.workload.opstream import Generator

    spec, plans, offsets = loadgen_plans(server, rows, driver)
    spec = spec.with_overrides(seed=seed)
    mixed = {i: plans[i] for i in spec.mixed}
    if driver == "python":
        loop = PythonMix(mixed, offsets)
    else:
        loop = NativeMix(mixed, offsets, one_connection=driver == "native-1conn",
                         pipeline=pipeline if driver == "pipelined" else 1)
    loop.open(server, "sbtest")
    state = MixState(streams=[StreamStats() for _ in spec.streams])
    stop = threading.Event()
    gen = Generator(spec)
    timer = threading.Timer(seconds, stop.set)
    cpu0 = cpu_s(resource.RUSAGE_SELF)
    timer.start()
    try:
        loop.run(gen.chunks(size=8192), state, stop=stop)
    finally:
        timer.cancel()
        loop.close()
    cpu = cpu_s(resource.RUSAGE_SELF) - cpu0
    errors = sum(s.errors for s in state.streams)
    if state.error or errors:
        raise SystemExit(f"loadgen {driver}: {state.error or f'{errors} statement errors'}")
    return state.ops / state.elapsed_s, cpu / state.ops * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000, help="sbtest1 rows (fully cached)")
    ap.add_argument("--seconds", type=float, default=5.0, help="length of each run")
    ap.add_argument("--rounds", type=int, default=7, help="alternating rounds (short: the machine is noisy)")
    ap.add_argument("--skip-trx", action="store_true", help="sysbench without BEGIN/COMMIT (--skip_trx=on)")
    ap.add_argument("--python", action="store_true", help="also the python driver, for reference")
    ap.add_argument("--pipeline", type=int, default=0, help="also the pipelined driver, N statements in flight")
    ap.add_argument("--one-connection", action="store_true",
                    help="also the native driver with every stream on one connection, as sysbench runs")
    args = ap.parse_args()

    with scratch_server(256 << 20) as server:
        conn = server.connect()
        conn.cursor().execute("CREATE DATABASE IF NOT EXISTS sbtest")
        conn.close()
        base = sysbench_base(server, args.rows)
        subprocess.run([*base, "prepare"], capture_output=True, text=True, check=True)
        say(f"server {server.flavor.name} {server.flavor.version}, sbtest1 {args.rows:,} rows (sysbench prepare), "
            f"unix socket, {args.seconds:g} s runs, one connection each"
            + (", sysbench --skip_trx=on" if args.skip_trx else ", sysbench with BEGIN/COMMIT"))
        run_sysbench(base, 3, args.skip_trx)  # warm-up: the table into the pool, both code paths once
        run_loadgen(server, args.rows, 3, "native", 99)
        drivers = (["native"] + (["native-1conn"] if args.one_connection else []) + (["python"] if args.python else [])
                   + (["pipelined"] if args.pipeline > 1 else []))

        def run_one(c: str, r: int):
            if c == "sysbench":
                return run_sysbench(base, args.seconds, args.skip_trx)
            return run_loadgen(server, args.rows, args.seconds, c, r + 1, args.pipeline)

        ratios, cpu_us = paired_rounds("sysbench", drivers, args.rounds, run_one, "statements/s", "us CPU each")
    for c, values in cpu_us.items():
        say(f"client CPU per statement, {c}: {spread(values)} us")
    if "python" in ratios:
        say(f"python mix driver / sysbench statements/s: {spread(ratios['python'])}")
    if "pipelined" in ratios:
        say(f"pipelined mix driver (--pipeline {args.pipeline}) / sysbench statements/s: {spread(ratios['pipelined'])}")
    if "native-1conn" in ratios:
        say(f"native mix driver on one connection / sysbench statements/s: {spread(ratios['native-1conn'])}")
    say(f"native mix driver / sysbench statements/s: {spread(ratios['native'])}")


if __name__ == "__main__":
    main()
