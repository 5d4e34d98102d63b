"""The captured re-inserts on MySQL (branch tracereinsert, 30 November 2026): every stored MySQL capture_rw
run (docs/data/mysql48: oltp_read_write in BEGIN..COMMIT; here: the same with sysbench's --skip_trx=on,
each statement its own transaction) predicted from its kept trace with undomodel.REINSERT_HISTORY off
(a captured insert of a key its delete left delete-marked freed at commit, as a plain insert) and on
(its log in the history as an update's: tracemodel._reinserts), the reads split by region as
docs/data/mysql48/split.py splits them, against the server's by file and page type.

    cd <worktree> && PYTHONPATH=. .venv/bin/python docs/data/tracereinsert/onoff.py
"""
import gzip
import importlib.util
import json
import tempfile
from pathlib import Path

import numpy as np

from loadgen.analysis import undomodel

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("split", HERE.parent / "mysql48" / "split.py")
split = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(split)


def exact(sim, space, first):
    """split.exact, keeping ibtmp1's header reads apart too (the walks' share of the headers)."""
    reads = np.frombuffer(sim.reads, dtype=np.uint32).astype(np.int64)
    out = split.exact(sim, space, first)
    if len(split.got) == 1:
        split.got[0]["temp"] = int(reads[space.temp_base:space.file_base].sum())
    return out


def main() -> None:
    split.ts.exact, split.ot.chunks = exact, split.chunks
    print("| run | q/s | server: read, tables, undo log, system pages (ibtmp1), purged logs | "
          "off: read (error), tables, undo, headers (ibtmp1) | on: the same |")
    print("|---|---:|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for where, name in [(HERE.parent / "mysql48", n) for n in ("rw16", "rw48", "rw48b")] + [
                (HERE, n) for n in ("skiptrx1", "skiptrx2")]:
            for run in json.loads(gzip.decompress((where / f"{name}.json.gz").read_bytes())):
                trace = Path(tmp) / run["trace"].removesuffix(".gz")
                trace.write_bytes(gzip.decompress((where / run["trace"]).read_bytes()))
                doc = json.loads(gzip.decompress((where / run["predict"]).read_bytes()))
                s, f, t = run["server_read"], run["file_reads"], run["page_types"]
                cells = []
                for flag in (False, True):
                    undomodel.REINSERT_HISTORY = flag
                    total, d = split.predict(run, trace, doc)
                    cells.append(f"{total:,} ({100 * (total - s) / s:+.1f}%), {d['tables']:,}, {d['undo']:,}, "
                                 f"{d['hdr']:,} ({d['temp']:,})")
                undomodel.REINSERT_HISTORY = True
                print(f"| {name} #{run['run']} ({run['pool_bytes'] >> 20}M) | {run['qps']:,.0f} | {s:,}, "
                      f"{f.get('sbtest1.ibd', 0) + f.get('sbtest2.ibd', 0):,}, {t.get('undo_log', 0):,}, "
                      f"{t.get('system_page', 0):,} ({f.get('ibtmp1', 0):,}), "
                      f"{run['purge']['purge_undo_log_pages']:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
