"""Do the intervals of captured traces hold what the server read? (issues #21/#22, docs/capture.md,
"Intervals of captured traces"): each run of bench/capture_rw.py's output predicted again from its
kept trace and geometry, with and without the pages-held envelope (analysis/heldspread.py), as a
markdown table: predicted, low .. high before and after, measured, covered.

    .venv/bin/python bench/held_coverage.py /tmp/rw-mysql.json /tmp/rw.json [--io-capacity 10000]

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


def pct(x: float, of: float) -> str:
    return f"{100 * x / of:+.1f}%" if of else "-"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--io-capacity", type=int, default=10_000)
    a = ap.parse_args()
    print("| server | pool | q/s | measured | predicted | error | before: low .. high | width | covered | "
          "after: low .. high | width | covered | reach +-N pages |")
    print("|---|---|---:|---:|---:|---:|---|---:|---|---|---:|---|---:|")
    n = inside_before = inside_after = 0
    for f in a.files:
        for run in json.loads(Path(f).read_text()):
            before, after = (predicted(run, a.io_capacity, h) for h in (False, True))
            m, p = run["server_read"], after["pages_read"]
            flag = "" if after["stored"] == p else f" (stored {after['stored']:,})"
            cov_b, cov_a = before["low"] <= m <= before["high"], after["low"] <= m <= after["high"]
            n, inside_before, inside_after = n + 1, inside_before + cov_b, inside_after + cov_a
            held = after.get("held_spread") or {}
            print(f"| {run['flavor']} | {run['pool_bytes'] >> 20}M | {run['qps']:,.0f} | {m:,} | {p:,}{flag} | "
                  f"{pct(p - m, m)} | {before['low']:,} .. {before['high']:,} | "
                  f"{pct(before['high'] - before['low'], p)} | {'yes' if cov_b else 'no'} | "
                  f"{after['low']:,} .. {after['high']:,} | {pct(after['high'] - after['low'], p)} | "
                  f"{'yes' if cov_a else 'no'} | {held.get('reach_pct', 0.0):.1f}% +-{held.get('pages', 0)} |")
    print(f"\ncovered: before {inside_before} of {n}, after {inside_after} of {n}")


if __name__ == "__main__":
    main()
