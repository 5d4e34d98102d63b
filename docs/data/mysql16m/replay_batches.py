"""The poll runs (run.py --poll) predicted again offline with what the server did: the pages it held after
the restart (start_pages) and the LRU batches it ran (INNODB_METRICS buffer_LRU_batch_evict_total_pages
polled every 0.1 s), replayed where they were seen (PoolModel.cleaner_seen: the query index from the
sample's time at the log's rate), at the recorded size and sized as the model's timed batch (SEEN_REFILL).
Against the model's defaults (960 start pages, one timed batch at four phases) and candidate defaults.

    PYTHONPATH=. /work/main/.venv/bin/python docs/data/mysql16m/replay_batches.py docs/data/mysql16m/runs-poll.jsonl
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from loadgen.analysis import tracemodel
from loadgen.analysis.pool import pool_model
from loadgen.measure.cleaner import SEEN_REFILL

VARS = {
    "innodb_lru_scan_depth": 1024,
    "innodb_old_blocks_pct": 37,
    "innodb_old_blocks_time": 1000,
    "innodb_read_ahead_threshold": 56,
}


def batches(run: dict, doc: dict) -> list[tuple[float, int]]:
    """(seconds since the poller started, pages evicted) of each batch seen."""
    out, prev = [], None
    for s in run["free_frames"]:
        if prev is not None and s[4] > prev[4]:
            out.append(((s[0] + prev[0]) / 2, s[4] - prev[4]))
        prev = s
    return out


def main() -> None:
    path = Path(sys.argv[1])
    keep = path.parent / path.name.replace("runs", "predict").replace(".jsonl", "")
    for line in path.open():
        r = json.loads(line)
        doc = json.loads((keep / r["predict"]).read_text())
        qps, span = float(doc["qps"]), float(doc["capture"]["span_s"] or 0)
        lead = max(0.0, r["sysbench"]["run_s"] - span) / 2  # sysbench's connect before the first statement, roughly
        seen = [(max(0, round((t - lead) * qps)), n) for t, n in batches(r, doc)]
        held = r["before_run"]["Innodb_buffer_pool_pages_data"]
        size = 16 << 20
        variants = {
            "default (960, 1 timed)": (None, {}),
            "held, batches as recorded": (held, {"cleaner_seen": tuple(seen)}),
            "held, batches seen, refilled": (held, {"cleaner_seen": tuple((q, SEEN_REFILL | 1024) for q, _ in seen)}),
            "held, 2 timed": (held, {"cleaner_ticks": 2}),
            "960, 2 timed": (None, {"cleaner_ticks": 2}),
        }
        row = {
            "cell": f"{r['script']}-{r['dist']}-{r['run']}",
            "server": r["server_read"],
            "held": held,
            "batches_s": [(round(t, 2), n) for t, n in batches(r, doc)],
            "seen_q": seen,
        }
        for name, (sp, over) in variants.items():
            pool = dataclasses.replace(pool_model(size, VARS, "mysql", qps, start_pages=sp), io_capacity=200, **over)
            n = tracemodel.predict(r["trace"], doc["tables"], [(size, pool)], "mysql", frozenset())["pools"][0][
                "pages_read"
            ]
            row[name] = f"{n} ({100 * (n / r['server_read'] - 1):+.1f}%)"
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
