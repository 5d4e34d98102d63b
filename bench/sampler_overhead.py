#!/usr/bin/env python3
"""Target 3: qps with the 1 s buffer-pool sampler on, against off.

Both sides are `loadgen run`'s own measure() (loadgen/runner/single.py) on one server with the dataset fully
cached, the same workload, alternating which goes first. "Off" is an interval longer than the
run: the sampler then takes only its baseline and its final snapshot. The last line is the
ratio qps(on) / qps(off).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _common import say, scratch_server, spread

OFF_INTERVAL_S = 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=1, help="passes over the rows per run (random order)")
    ap.add_argument("--rounds", type=int, default=15, help="short runs, many rounds: the machine is noisy")
    ap.add_argument("--driver", default="auto", choices=["auto", "native", "python"])
    args = ap.parse_args()

    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.workload.orders import Workload
    from loadgen.runner.single import QuietReporter, measure, prepare_dataset
    from loadgen.servers import ColdStart

    workload = Workload("random", args.rows, stride=1, reps=args.reps)
    warm = ColdStart("none", False, "bench: warm pool on purpose")
    with scratch_server(256 << 20) as server, tempfile.TemporaryDirectory() as tmp:
        info = prepare_dataset(server, DatasetSpec(rows=args.rows), QuietReporter())

        def qps(interval_s: float, name: str) -> tuple[float, int]:
            r = measure(server, info, workload, warm, Path(tmp) / f"{name}.json", interval_s, QuietReporter(),
                        driver=args.driver)
            return r["result"]["qps"], len(r["samples"])

        first = qps(OFF_INTERVAL_S, "warmup")  # fills the pool
        say(f"server {server.flavor.name} {server.flavor.version}, {workload.queries:,} queries per run, "
            f"random order over {args.rows:,} cached rows, driver {args.driver}; warm-up {first[0]:,.0f} q/s")
        ratios = []
        for r in range(args.rounds):
            sides = [("on", 1.0), ("off", OFF_INTERVAL_S)]
            if r % 2:
                sides.reverse()
            got = {name: qps(interval, f"{name}-{r}") for name, interval in sides}
            ratios.append(got["on"][0] / got["off"][0])
            say(f"round {r + 1}: " + ", ".join(f"sampler {n} {got[n][0]:,.0f} q/s ({got[n][1]} samples)"
                                              for n, _ in sides) + f"; on/off {ratios[-1]:.3f}")
        # The sampler's own cost, which the noise does not move: its busy time per interval.
        from loadgen.measure.sampler import take_snapshot

        conn = server.connect()
        busy = []
        for _ in range(50):
            t = time.perf_counter()
            take_snapshot(conn, 0)
            busy.append(time.perf_counter() - t)
        conn.close()
    ms = statistics.median(busy) * 1000
    say(f"sampler busy time per 1 s interval: median {ms:.2f} ms (n=50), so at most {ms / 10:.2f}% of a second")
    say(f"qps sampler on / off: {spread(ratios)}")


if __name__ == "__main__":
    main()
