"""Where the 48M model's missing reads are (issue #22, branch mysql48, 30 November 2026): each stored
capture_rw run here predicted again from its kept trace, the model's reads split by page region
(each tree's leaves and upper levels, the rollback segments' headers, their undo pages, ibtmp1's
headers, the undo files' own pages) against the server's by file (performance_schema) and page type
(INNODB_METRICS buffer_page_read_*), over the whole run and its first 4 seconds (the server's
`free_frames` samples; the model on the trace's first 4/run_s of operations).

    cd <worktree> && PYTHONPATH=. .venv/bin/python docs/data/mysql48/split.py
"""
import gzip
import json
import tempfile
from pathlib import Path

import numpy as np

from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts
from loadgen.workload import optrace as ot

HERE = Path(__file__).resolve().parent
got, limit = [], [None]
_exact, _chunks = ts.exact, ot.chunks


def exact(sim, space, first):
    """ts.exact, keeping the base pool's reads by region (the first call: the pools after it are heldspread's)."""
    reads = np.frombuffer(sim.reads, dtype=np.uint32).astype(np.int64)
    tables = sum(int(reads[t.base:t.base + t.n_pages].sum()) for t in space.trees.values())
    got.append({"tables": tables, "hdr": int(reads[space.system_base:space.undo_base].sum())
                + int(reads[space.temp_base:space.file_base].sum()),
                "undo": int(reads[space.undo_base:space.temp_base].sum()),
                "files": int(reads[space.file_base:space.n_pages].sum())})
    return _exact(sim, space, first)


def chunks(path, records=None):
    left = limit[0]
    for a in _chunks(path, records):
        if left is not None:
            if left <= 0:
                return
            a, left = a[:left], left - len(a[:left])
        yield a


def predict(run, trace, doc, ops=None):
    got.clear()
    limit[0] = ops
    pools = tracegeometry.pools_of([run["pool_bytes"]], "mysql", {"innodb_io_capacity": 10_000}, float(doc["qps"]))
    buffers = changebuf.kinds_of("mysql", doc.get("change_buffering"))
    p = tracemodel.predict(trace, doc["tables"], pools, "mysql", buffers)
    return p["pools"][0]["pages_read"], got[0]


def main() -> None:
    ts.exact, ot.chunks = exact, chunks
    print("| run | q/s | server read | model | error | tables' files: server, model | undo log pages | "
          "rollback-segment headers (system pages) | short at 4 s |")
    print("|---|---:|---:|---:|---:|---|---|---|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("rw48", "rw48b", "rw16"):
            for run in json.loads(gzip.decompress((HERE / f"{name}.json.gz").read_bytes())):
                trace = Path(tmp) / run["trace"].removesuffix(".gz")
                trace.write_bytes(gzip.decompress((HERE / run["trace"]).read_bytes()))
                doc = json.loads(gzip.decompress((HERE / run["predict"]).read_bytes()))
                total, d = predict(run, trace, doc)
                s, f, t = run["server_read"], run["file_reads"], run["page_types"]
                st = f.get("sbtest1.ibd", 0) + f.get("sbtest2.ibd", 0)
                short = ""
                if run["pool_bytes"] == 48 << 20:
                    _, count, _ = ot.read_header(trace)
                    at4, _ = predict(run, trace, doc, int(count * 4 / run["run_s"]))
                    server4 = min(run["free_frames"], key=lambda r: abs(r[0] - 4))[3]
                    short = f"{server4 - at4:,} of {s - total:,}"
                print(f"| {name} #{run['run']} ({run['pool_bytes'] >> 20}M) | {run['qps']:,.0f} | {s:,} | {total:,} "
                      f"| {100 * (total - s) / s:+.1f}% | {st:,}, {d['tables']:,} "
                      f"| {t.get('undo_log', 0)}, {d['undo']} | "
                      f"{t.get('system_page', 0)}, {d['hdr']} | {short} |")


if __name__ == "__main__":
    main()
