"""Every 16M run (run.py's JSON lines, main and poll passes) predicted again offline under candidate pool
assumptions: the start-up pages held (960: the model's default; a fixed figure; `held`: the run's own
Innodb_buffer_pool_pages_data after the restart) and the page cleaner's timed LRU batches (1: the default,
2: one more a second later), the phase the model's four-phase mean. Per cell the mean error and its
range, and the mean |error| over all runs.

    PYTHONPATH=. /work/main/.venv/bin/python docs/data/mysql16m/variants.py docs/data/mysql16m/runs.jsonl \
        docs/data/mysql16m/runs-poll.jsonl
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from loadgen.analysis import tracemodel
from loadgen.analysis.pool import pool_model

VARS = {
    "innodb_lru_scan_depth": 1024,
    "innodb_old_blocks_pct": 37,
    "innodb_old_blocks_time": 1000,
    "innodb_read_ahead_threshold": 56,
}
VARIANTS = [
    ("960, 1 batch", None, 1),
    ("960, 2 batches", None, 2),
    ("256, 2 batches", 256, 2),
    ("390, 1 batch", 390, 1),
    ("390, 2 batches", 390, 2),
    ("held, 1 batch", "held", 1),
    ("held, 2 batches", "held", 2),
]


def main() -> None:
    errs: dict[tuple, list[float]] = {}
    for arg in sys.argv[1:]:
        path = Path(arg)
        keep = path.parent / path.name.replace("runs", "predict").replace(".jsonl", "")
        for line in path.open():
            r = json.loads(line)
            if r["pool"] != "16M":
                continue
            doc = json.loads((keep / r["predict"]).read_text())
            out = []
            for name, sp, ticks in VARIANTS:
                s = r["before_run"]["Innodb_buffer_pool_pages_data"] if sp == "held" else sp
                pool = pool_model(16 << 20, VARS, "mysql", float(doc["qps"]), start_pages=s)
                pool = dataclasses.replace(pool, io_capacity=200, cleaner_ticks=ticks)
                got = tracemodel.predict(r["trace"], doc["tables"], [(16 << 20, pool)], "mysql", frozenset())
                e = 100.0 * (got["pools"][0]["pages_read"] / r["server_read"] - 1)
                errs.setdefault((r["script"], r["dist"], name), []).append(e)
                out.append(round(e, 1))
            print(path.name, r["script"], r["dist"], r["run"], r["server_read"], out, flush=True)
    print("| variant | " + " | ".join(f"{s} {d}" for s, d in sorted({(k[0], k[1]) for k in errs})) + " | mean abs |")
    for name, _, _ in VARIANTS:
        cells = sorted((k, v) for k, v in errs.items() if k[2] == name)
        allv = [abs(x) for _, v in cells for x in v]
        print(
            f"| {name} | "
            + " | ".join(f"{sum(v) / len(v):+.1f}% ({min(v):+.1f}..{max(v):+.1f})" for _, v in cells)
            + f" | {sum(allv) / len(allv):.1f} |"
        )


if __name__ == "__main__":
    main()
