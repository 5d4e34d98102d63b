"""Each kept run predicted again offline (tracemodel.predict on its trace and the tables' geometry from its
predict JSON) with the start-up pages the model assumes (None: pool.MYSQL_START_PAGES) and with the
pages the server held right after the restart (Innodb_buffer_pool_pages_data, measured by run.py).

    PYTHONPATH=. /work/main/.venv/bin/python docs/data/mysql16m/repredict.py docs/data/mysql16m/runs.jsonl
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from loadgen.analysis import changebuf, tracemodel
from loadgen.analysis.pool import pool_model

VARS = {
    "innodb_lru_scan_depth": 1024,
    "innodb_old_blocks_pct": 37,
    "innodb_old_blocks_time": 1000,
    "innodb_read_ahead_threshold": 56,
}


def predict(run: dict, keep: Path, start_pages: int | None, **pool_over) -> dict:
    doc = json.loads((keep / run["predict"]).read_text())
    size = int(run["pool"].rstrip("M")) << 20
    pool = pool_model(size, VARS, "mysql", float(doc["qps"]), start_pages=start_pages)
    pool = dataclasses.replace(pool, io_capacity=200, **pool_over)
    out = tracemodel.predict(run["trace"], doc["tables"], [(size, pool)], "mysql", changebuf.kinds_of("mysql", "all"))
    return out["pools"][0]


def main() -> None:
    path = Path(sys.argv[1])
    keep = path.parent / "predict"
    for line in path.open():
        r = json.loads(line)
        base = predict(r, keep, None)
        held = r["before_run"]["Innodb_buffer_pool_pages_data"]
        meas = predict(r, keep, held)
        print(
            json.dumps(
                {
                    "cell": f"{r['script']}-{r['dist']}-{r['pool']}-{r['run']}",
                    "server": r["server_read"],
                    "pred_json": r["predicted"],
                    "offline_960": base["pages_read"],
                    "held": held,
                    "offline_held": meas["pages_read"],
                    "low": meas["low"],
                    "high": meas["high"],
                    "err_960": round(100 * (base["pages_read"] / r["server_read"] - 1), 1),
                    "err_held": round(100 * (meas["pages_read"] / r["server_read"] - 1), 1),
                }
            )
        )


if __name__ == "__main__":
    main()
