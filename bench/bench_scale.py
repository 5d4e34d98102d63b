#!/usr/bin/env python3
"""Issue #20 item 4: `loadgen predict --variation B --pool 64G --advise` at 100M, 1,000M and 10,000M rows.

Each run is the real CLI as a child process; wall time from the parent's monotonic clock, peak
RSS from wait4(). Reported as ratios against references measured in the same round: `python -c
pass` (interpreter start-up) and the 100M-row run, which is the exact simulation (the table is
under loadgen/analysis/scaled.py's EXACT_MAX_PAGES); 1,000M and 10,000M rows are simulated on a
scaled copy. The goal: 10,000M rows under 2 s and 256 MiB. The last lines are the medians.

--validate also prints the scaled copy's reads against the exact simulation at 1,000M rows (each
exact point ~1.5 s and ~300 MB) and, with --validate-10b, at 10,000M rows (~30 s and 2.3 GB a point).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from _common import ROOT, say, spread

SIZES = ("100M", "1000M", "10000M")


def child(cmd: list[str]) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes) of one child process."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    err = proc.stderr.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[2:6])} failed: {err.strip().splitlines()[-1:]}")
    return wall, usage.ru_maxrss * 1024


def predict_cmd(rows: str, ram: str | None) -> list[str]:
    cmd = [sys.executable, "-m", "loadgen", "predict", "--variation", "B", "--rows", rows, "--pool", "64G",
           "--advise", "--format", "json"]
    return cmd + (["--ram", ram] if ram else [])


def validate(with_10b: bool) -> None:
    from loadgen.analysis import model, scaled

    cases = [(10**9, g) for g in (1, 16, 48, 80, 100, 120, 140)]
    if with_10b:
        cases += [(10**10, g) for g in (64, 480, 1024)]
    for order in ("looped", "interleaved"):
        for rows, gib in cases:
            g = model.estimate_geometry(rows)
            pool = model.pool_model(gib << 30)
            exact = model.simulate_detail(order, 10, 2, g, pool)
            c = scaled.simulate_copies(order, 10, 2, g, [pool])[0]
            say(f"validate {order:11s} {rows:>14,} rows {gib:5d}G: exact {exact[1]:>12,} scaled {c.misses:>12,} "
                f"({(c.misses - exact[1]) / exact[1]:+.3%}; 1/{c.factor:.0f}{', two copies' if c.two_copies else ''}); "
                f"read ahead {exact[4]:,} vs {c.read_ahead:,}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ram", default=None,
                    help="--ram for predict (default: the machine's MemAvailable, as a user runs it)")
    ap.add_argument("--validate", action="store_true", help="also the scaled copy against the exact simulation")
    ap.add_argument("--validate-10b", action="store_true", help="with --validate: at 10,000M rows too (slow)")
    args = ap.parse_args()

    pass_s, pass_rss, times, rss = [], [], {s: [] for s in SIZES}, {s: [] for s in SIZES}
    for r in range(args.rounds):
        w, m = child([sys.executable, "-c", "pass"])
        pass_s.append(w)
        pass_rss.append(m)
        for size in SIZES:
            w, m = child(predict_cmd(size, args.ram))
            times[size].append(w)
            rss[size].append(m)
            say(f"round {r + 1}: {size:>6} rows: {w:6.2f} s, peak RSS {m / 2**20:6.1f} MiB "
                f"(python -c pass {pass_s[-1]:.2f} s, {pass_rss[-1] / 2**20:.1f} MiB)")
    if args.validate:
        validate(args.validate_10b)
    for size in SIZES:
        t_vs_pass = [t / p for t, p in zip(times[size], pass_s)]
        t_vs_100m = [t / e for t, e in zip(times[size], times["100M"])]
        m_vs_100m = [m / e for m, e in zip(rss[size], rss["100M"])]
        say(f"{size:>6} rows: wall {spread(times[size])} s; vs python -c pass {spread(t_vs_pass)}; "
            f"vs 100M (exact) {spread(t_vs_100m)}; peak RSS {spread([m / 2**20 for m in rss[size]])} MiB, "
            f"vs 100M {spread(m_vs_100m)}")


if __name__ == "__main__":
    main()
