"""The mix model's error per preset, pool and server (issue #21 item 4): a markdown table from
mixed-run result files (`loadgen run --workload PRESET --out FILE`), each predicted again with
the model as it is now (loadgen/analysis/mixmodel.py), so a change to the model is measured
against the same runs.

    ../.venv/bin/python mix_prediction.py RESULT.json ...

Columns: the run's rate (q/s: MariaDB's undo reads depend on it); the table's .ibd pages read
(performance_schema) predicted and measured; the undo pages predicted beside every other file's
reads (buffer_pool.files: ibdata1, MySQL's undo_00N, ibtmp1, mysql.ibd); the pool's whole
Innodb_pages_read; the model's dirty evictions beside the server's LRU flushing; whether the
measured table and all pages fall inside the prediction's interval (`tables[...].reads_low ..
reads_high`, `prediction.reads_low .. reads_high`).
"""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadgen.analysis import mixmodel


def load(path: str) -> dict:
    """A result file, or one kept gzipped (docs/data/mixruns/: the runs the tables were measured on)."""
    raw = Path(path).read_bytes()
    return json.loads(gzip.decompress(raw) if path.endswith(".gz") else raw)


def pct(pred: int, meas: int) -> str:
    return f"{100 * (pred - meas) / meas:+.1f}%" if meas else "–"


def inside(block: dict, meas: int) -> str:
    low, high = block.get("reads_low"), block.get("reads_high")
    if low is None or high is None:
        return "–"
    return f"{'yes' if low <= meas <= high else 'no'} ({low:,} .. {high:,})"


def row(path: str) -> str:
    run = load(path)
    p = mixmodel.predict(run)
    fc = mixmodel.predict(run, own_undo=False)
    bp = run["buffer_pool"]
    srv = run["server"]
    name = run["workload"]["name"].removeprefix("preset ")
    pool = f"{int(srv['innodb_buffer_pool_size']) >> 20}M"
    [(table, t)] = p["tables"].items()
    meas = bp["tables"][table]["file_pages_read"]
    undo = sum(v for k, v in (bp.get("files") or {}).items() if not k.endswith(".ibd"))
    flushed = bp.get("lru_flushed")
    if flushed is None:
        flushed = (bp.get("flush") or {}).get("lru_batch_flushed")
    qps = (run.get("result") or {}).get("qps")
    return (f"| {srv['flavor']} {srv.get('version', '')} | {name} | {pool} | {f'{qps:,.0f}' if qps else '–'} | "
            f"{t['pages_read']:,} | {meas:,} | "
            f"{pct(t['pages_read'], meas)} | {p['system_pages_read']:,} | {undo:,} | {p['pages_read']:,} | "
            f"{bp['pages_read']:,} | {pct(p['pages_read'], bp['pages_read'])} | "
            f"{pct(fc['pages_read'], bp['pages_read'])} | "
            f"{p['dirty_evictions']:,} | "
            f"{flushed if flushed is not None else '–':,} | {inside(t, meas)} | {inside(p, bp['pages_read'])} |")


def main(paths: list[str]) -> None:
    print("| server | preset | pool | q/s | table predicted | table measured | error | undo predicted "
          "| other files measured | all predicted | all measured | error | all, forecast | dirty evicted (model) "
          "| LRU flushed (server) | table in interval | all in interval |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for path in paths:
        print(row(path))


if __name__ == "__main__":
    # a flag is not a result file: say how to call it instead of failing on the file
    if not sys.argv[1:] or any(a.startswith("-") for a in sys.argv[1:]):
        sys.exit("usage: mix_prediction.py RESULT.json[.gz] ... (result files of `loadgen run --workload`)")
    main(sys.argv[1:])
