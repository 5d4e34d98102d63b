#!/usr/bin/env python3
"""Target 4: peak RSS of `loadgen run` does not grow with the number of queries.

Runs the real CLI (`python -m loadgen run --dsn ...`) as a child against a server this script
starts (the unix socket, a password-less bench user), on one pre-seeded dataset: a small run
(--small queries) and a large one (--large, 20M by default), and reads each child's peak RSS
from wait4(). Only loadgen's own process is measured: the server is not its child here. The
last line is the ratio peak RSS(large) / peak RSS(small).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, bench_endpoint, say, scratch_server, spread

ROWS = 2_000_000


def run_peak_rss(dsn: str, queries: int, out: Path, driver: str) -> tuple[int, float, dict]:
    """(peak RSS bytes, wall seconds, result) of one `loadgen run` of `queries` looped queries."""
    stride = max(1, ROWS * 1 // queries) if queries < ROWS else 1
    reps = max(1, queries // (ROWS // stride))
    cmd = [sys.executable, "-m", "loadgen", "run", "--dsn", dsn, "--rows", str(ROWS), "--order", "looped",
           "--stride", str(stride), "--reps", str(reps), "--driver", driver, "--out", str(out)]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    err = proc.stderr.read()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"loadgen run failed ({proc.returncode}): {err.strip().splitlines()[-1:]}")
    import json

    return usage.ru_maxrss * 1024, wall, json.loads(out.read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=200_000)
    ap.add_argument("--large", type=int, default=20_000_000)
    ap.add_argument("--rounds", type=int, default=1, help="small/large pairs")
    ap.add_argument("--driver", default="auto", choices=["auto", "native", "python"])
    args = ap.parse_args()

    from loadgen.seeding.dataset import DatasetSpec, ensure

    with scratch_server(512 << 20) as server, tempfile.TemporaryDirectory() as tmp:
        conn = server.connect(local_infile=1)
        ensure(conn, DatasetSpec(rows=ROWS))  # seeded here, so neither run pays for seeding
        conn.close()
        ep = bench_endpoint(server)
        dsn = f"mysql://{ep.user}@127.0.0.1:{ep.port}/?unix_socket={ep.unix_socket}"
        say(f"server {server.flavor.name} {server.flavor.version}, chat.message {ROWS:,} rows, "
            f"unix socket, driver {args.driver}")
        ratios = []
        for r in range(args.rounds):
            peaks = {}
            for name, queries in (("small", args.small), ("large", args.large)):
                rss, wall, result = run_peak_rss(dsn, queries, Path(tmp) / f"{name}-{r}.json", args.driver)
                peaks[name] = rss
                say(f"round {r + 1}: {name}: {result['result']['queries']:,} queries "
                    f"({result['result']['driver']}) in {wall:,.0f} s, peak RSS {rss / 2**20:,.1f} MiB")
            ratios.append(peaks["large"] / peaks["small"])
    say(f"peak RSS {args.large:,} / {args.small:,} queries: {spread(ratios)}")


if __name__ == "__main__":
    main()
