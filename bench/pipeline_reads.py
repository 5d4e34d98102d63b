#!/usr/bin/env python3
"""Issue #14: the same order's buffer-pool reads with and without pipelining, pool below the table.

One scratch server (--pool, default 8 MiB) holding chat.message (--rows, default 200k: 26.6 MiB),
so the order decides what misses. Each round runs A (interleaved) and B (looped) from a cold pool
(server restart), once one query at a time and once with --pipeline N, in alternating order;
every run is `loadgen run`'s own measure(). The server executes pipelined queries one after
another in the order sent, so the reads should be equal within the few pages whose timing
depends on the query rate (page cleaner, read-ahead). Printed per variation: the ratio of
Innodb_buffer_pool_reads (pipelined / one at a time) and of q/s; the last lines are the ratios.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import say, scratch_server, spread


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--pool", type=int, default=8, help="MiB, below the table")
    ap.add_argument("--pipeline", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.workload.orders import Workload, resolve
    from loadgen.runner.single import QuietReporter, measure, prepare_dataset

    with scratch_server(args.pool << 20) as server, tempfile.TemporaryDirectory() as tmp:
        info = prepare_dataset(server, DatasetSpec(rows=args.rows), QuietReporter())
        say(f"server {server.flavor.name} {server.flavor.version}, pool {args.pool} MiB, table "
            f"{info.table_bytes / 2**20:.1f} MiB ({args.rows:,} rows), pipeline {args.pipeline}, cold pool each run")

        def run(variation: str, pipeline: int, name: str) -> tuple[int, float]:
            cold = server.restart_cold()
            order, var = resolve(variation, None)
            workload = Workload(order, args.rows, variation=var)
            r = measure(server, info, workload, cold, Path(tmp) / f"{name}.json",
                        1.0, QuietReporter(), driver="native", pipeline=pipeline)
            assert r.complete and r.result["rows_returned"] == r.result["queries"]
            return r.buffer_pool["reads"], r.result["qps"]

        reads_ratio: dict[str, list[float]] = {"A": [], "B": []}
        qps_ratio: dict[str, list[float]] = {"A": [], "B": []}
        for k in range(args.rounds):
            for variation in ("A", "B"):
                sides = [1, args.pipeline] if k % 2 == 0 else [args.pipeline, 1]
                got = {p: run(variation, p, f"{variation}-{p}-{k}") for p in sides}
                one, piped = got[1], got[args.pipeline]
                reads_ratio[variation].append(piped[0] / one[0])
                qps_ratio[variation].append(piped[1] / one[1])
                say(f"round {k + 1} {variation}: reads one-at-a-time {one[0]:,} / pipelined {piped[0]:,} "
                    f"(ratio {reads_ratio[variation][-1]:.4f}); q/s {one[1]:,.0f} / {piped[1]:,.0f} "
                    f"(ratio {qps_ratio[variation][-1]:.3f})")
    for variation in ("A", "B"):
        say(f"{variation}: pipelined / one-at-a-time q/s: {spread(qps_ratio[variation])}")
    for variation in ("A", "B"):
        say(f"{variation}: pipelined / one-at-a-time reads: {spread(reads_ratio[variation])}")


if __name__ == "__main__":
    main()
