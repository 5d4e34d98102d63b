"""Do the intervals of captured traces and mixes hold what the server read? (issues #21/#22,
docs/capture.md, "Do the intervals hold?"): each run of bench/capture_rw.py's output predicted again
from its kept trace and geometry, and each mixed run's result file (`loadgen run --workload`,
its whole pool's Innodb_pages_read) with mixmodel, with and without the pages-held envelope
(analysis/heldspread.py), as a markdown table: predicted, low .. high before and after,
measured, covered.

    .venv/bin/python bench/held_coverage.py /tmp/rw-mysql.json /tmp/rw.json [--io-capacity 10000]
    .venv/bin/python bench/held_coverage.py results/mysql-9.7/ycsb-a-16M.json ...

The pools are predict --trace's (tracegeometry.pools_of at the trace's own rate); the server's
variables are the defaults but innodb_io_capacity (MySQL's flush list: the image's 10,000 unless
given). A run whose offline estimate differs from the one capture_rw stored is flagged (a model
change since, or other variables).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadgen.analysis import changebuf, heldspread, tracegeometry, tracemodel


def predicted(run: dict, io_capacity: int, held: bool) -> dict:
    doc = json.loads(Path(run["predict"]).read_text())
    flavor = doc["flavor"]
    variables = {"innodb_io_capacity": io_capacity} if flavor == "mysql" else {}
    pools = tracegeometry.pools_of([run["pool_bytes"]], flavor, variables, float(doc["qps"]))
    buffers = changebuf.kinds_of(flavor, doc.get("change_buffering"))
    pair = heldspread.pair
    if not held:
        heldspread.pair = lambda pool: None  # the intervals of before: no pages-held envelope
    try:
        got = tracemodel.predict(run["trace"], doc["tables"], pools, flavor, buffers)["pools"][0]
    finally:
        heldspread.pair = pair
    got["stored"] = doc["pools"][0]["pages_read"]
    return got


def mix_predicted(run: dict, held: bool) -> dict:
    from loadgen.analysis import mixmodel

    pair = heldspread.pair
    if not held:
        heldspread.pair = lambda pool: None
    try:
        p = mixmodel.predict(run)
    finally:
        heldspread.pair = pair
    return {"pages_read": p["pages_read"], "low": p["reads_low"], "high": p["reads_high"], "stored": p["pages_read"],
            "held_spread": p.get("held_spread")}


def runs_of(path: str, io_capacity: int):
    """(label, q/s, measured, before, after) of each run in a file: capture_rw's list, or one mixed run."""
    doc = json.loads(Path(path).read_text())
    if isinstance(doc, list):
        for run in doc:
            yield (f"{run['flavor']} capture", run["pool_bytes"], run["qps"], run["server_read"],
                   predicted(run, io_capacity, False), predicted(run, io_capacity, True))
        return
    srv = doc["server"]
    yield (f"{srv['flavor']} {srv.get('version', '')} {doc['workload']['name'].removeprefix('preset ')}",
           int(srv["innodb_buffer_pool_size"]), doc["result"]["qps"], doc["buffer_pool"]["pages_read"],
           mix_predicted(doc, False), mix_predicted(doc, True))


def pct(x: float, of: float) -> str:
    return f"{100 * x / of:+.1f}%" if of else "-"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--io-capacity", type=int, default=10_000)
    a = ap.parse_args()
    print("| run | pool | q/s | measured | predicted | error | before: low .. high | width | covered | "
          "after: low .. high | width | covered | reach +-N pages |")
    print("|---|---|---:|---:|---:|---:|---|---:|---|---|---:|---|---:|")
    n = inside_before = inside_after = 0
    for f in a.files:
        for label, pool, qps, m, before, after in runs_of(f, a.io_capacity):
            p = after["pages_read"]
            flag = "" if after["stored"] == p else f" (stored {after['stored']:,})"
            cov_b, cov_a = before["low"] <= m <= before["high"], after["low"] <= m <= after["high"]
            n, inside_before, inside_after = n + 1, inside_before + cov_b, inside_after + cov_a
            held = after.get("held_spread") or {}
            print(f"| {label} | {pool >> 20}M | {qps:,.0f} | {m:,} | {p:,}{flag} | "
                  f"{pct(p - m, m)} | {before['low']:,} .. {before['high']:,} | "
                  f"{pct(before['high'] - before['low'], p)} | {'yes' if cov_b else 'no'} | "
                  f"{after['low']:,} .. {after['high']:,} | {pct(after['high'] - after['low'], p)} | "
                  f"{'yes' if cov_a else 'no'} | {held.get('reach_pct', 0.0):.1f}% +-{held.get('pages', 0)} |")
    print(f"\ncovered: before {inside_before} of {n}, after {inside_after} of {n}")


if __name__ == "__main__":
    main()
