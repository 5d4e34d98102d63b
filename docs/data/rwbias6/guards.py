"""Branch rwbias6: the unit suite's table guards on the slow sysbench-oltp-rw runs, as numbers
(test_ibdpages: docs/data/rwk1, 4%; test_rwrate: rwrate 5%, rwlag 5% from 600 q/s / 7% from 300,
slowmaria 5% from 200 q/s) and the repeat cells (test_whole_repeat: the model's mean against the
measured mean, whole and table). One line a run: q/s, table error, whole error.

    PYTHONPATH=$PWD python docs/data/rwbias6/guards.py > OUT.txt
"""

from __future__ import annotations

import gzip
import json
import statistics
import sys
from pathlib import Path

from loadgen.analysis import mixmodel

DATA = Path(__file__).resolve().parents[1]


def load(p: Path) -> dict:
    return json.loads(gzip.decompress(p.read_bytes()))


def table_of(run: dict) -> str:
    return next(t for t in run["buffer_pool"]["tables"] if t.startswith("chat."))


def row(path: Path) -> tuple[float, float, float, dict, dict]:
    run = load(path)
    p, bp = mixmodel.predict(run), run["buffer_pool"]
    t = table_of(run)
    meas = bp["tables"][t]["file_pages_read"]
    return (
        run["result"]["qps"],
        100.0 * (p["tables"][t]["pages_read"] - meas) / meas,
        100.0 * (p["pages_read"] - bp["pages_read"]) / bp["pages_read"],
        run,
        p,
    )


def main() -> None:
    for name, glob, bound in (
        ("rwk1", "rwk1/mariadb-10.11-*.json.gz", lambda q: 4.0),
        ("rwrate", "rwrate/*.json.gz", lambda q: 5.0),
        ("rwlag", "rwlag/*.json.gz", lambda q: 5.0 if q >= 600 else 7.0 if q >= 300 else None),
        ("slowmaria", "slowmaria/*.json.gz", lambda q: 5.0 if q >= 200 else None),
    ):
        for path in sorted(DATA.glob(glob)):
            qps, te, we, _, _ = row(path)
            b = bound(qps)
            flag = "" if b is None or abs(te) <= b else "  FAIL"
            print(f"{name:9s} {path.name:55s} {qps:7.0f} q/s  table {te:+6.2f}%  whole {we:+6.2f}%  bound {b}{flag}")
            if b is not None:
                pass
        sys.stdout.flush()
    cells: dict = {}
    for path in sorted((DATA / "repeats").glob("*/*.json.gz")):
        run = load(path)
        srv, wl = run["server"], run["workload"]
        key = (path.parent.name, wl["name"].removeprefix("preset "), f"{int(srv['innodb_buffer_pool_size']) >> 20}M")
        if not key[0].startswith("mariadb"):
            continue
        p = mixmodel.predict(run)
        t = table_of(run)
        cells.setdefault(key, []).append(
            (
                run["result"]["qps"],
                run["buffer_pool"]["pages_read"],
                p["pages_read"],
                run["buffer_pool"]["tables"][t]["file_pages_read"],
                p["tables"][t]["pages_read"],
            )
        )
    for key, rs in sorted(cells.items()):
        mw, pw = statistics.mean(r[1] for r in rs), statistics.mean(r[2] for r in rs)
        mt, pt = statistics.mean(r[3] for r in rs), statistics.mean(r[4] for r in rs)
        print(
            f"repeats {'/'.join(key):40s} runs {len(rs)} q/s {min(r[0] for r in rs):.0f}-{max(r[0] for r in rs):.0f}"
            f"  whole {mw:8.0f} -> {pw:8.0f} {100 * (pw - mw) / mw:+5.2f}%"
            f"  table {mt:7.0f} -> {pt:7.0f} {100 * (pt - mt) / mt:+5.2f}%"
        )


if __name__ == "__main__":
    main()
