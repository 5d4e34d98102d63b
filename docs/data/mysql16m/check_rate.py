"""Every kept run predicted again offline: the model as main has it (960 start-up pages, one timed batch:
"main") and the rejected candidate (390 start-up pages and two timed batches where the pool is not larger
than innodb_lru_scan_depth: "cand"), each at the rate the CLI took before this branch ("cli": 15,000 q/s
where the log spanned under a second) and at the log's own rate ("log": statements on tables over its span,
what `predict --trace` takes now, tracepredict.log_rate). runs-check.jsonl's own predictions were made with
the candidate in the code, at the CLI's old rate.

    PYTHONPATH=. /work/main/.venv/bin/python docs/data/mysql16m/check_rate.py docs/data/mysql16m/runs.jsonl \
        docs/data/mysql16m/runs-poll.jsonl docs/data/mysql16m/runs-check.jsonl > docs/data/mysql16m/rates.jsonl
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from loadgen.analysis import changebuf, tracegeometry, tracemodel

VARS = {
    "innodb_lru_scan_depth": 1024,
    "innodb_old_blocks_pct": 37,
    "innodb_old_blocks_time": 1000,
    "innodb_read_ahead_threshold": 56,
    "innodb_io_capacity": 200,
}


def one(path: Path) -> None:
    keep = path.parent / path.name.replace("runs", "predict").replace(".jsonl", "")
    for line in path.open():
        r = json.loads(line)
        doc = json.loads((keep / r["predict"]).read_text())
        size = int(r["pool"].rstrip("M")) << 20
        cap = doc["capture"]
        own = (cap["statements"] - cap["no_table"]) / cap["span_s"]
        old_cli = own if cap["span_s"] >= 1.0 else 15_000.0
        row = {
            "file": path.name,
            "pool": r["pool"],
            "script": r["script"],
            "dist": r["dist"],
            "run": r["run"],
            "server": r["server_read"],
            "held": r["before_run"]["Innodb_buffer_pool_pages_data"],
            "span_s": round(cap["span_s"], 3),
            "qps_cli": round(old_cli, 1),
            "qps_log": round(own, 1),
        }
        for name, qps in (("cli", old_cli), ("log", own)):
            for model in ("main", "cand"):
                ((b, pool),) = tracegeometry.pools_of([size], "mysql", VARS, qps)
                if model == "cand" and pool.pool_pages <= VARS["innodb_lru_scan_depth"]:
                    pool = dataclasses.replace(pool, start_pages=min(390, pool.pool_pages), cleaner_ticks=2)
                got = tracemodel.predict(
                    r["trace"], doc["tables"], [(b, pool)], "mysql", changebuf.kinds_of("mysql", "all")
                )["pools"][0]
                row[f"{model}_{name}"] = got["pages_read"]
                row[f"{model}_{name}_in"] = got["low"] <= r["server_read"] <= got["high"]
                row[f"{model}_{name}_err"] = round(100 * (got["pages_read"] / r["server_read"] - 1), 1)
        print(json.dumps(row), flush=True)


def main() -> None:
    for arg in sys.argv[1:]:
        one(Path(arg))


if __name__ == "__main__":
    main()
