"""Where MySQL's whole reads go, by file and page kind (issue #21, branch mysqlwhole, 30 November 2026):
each stored MySQL mix predicted again, the model's reads split by page region (the tables, the rollback
segments' headers, the undo pages updates and deletes fill, the inserts' undo pages, ibtmp1's headers,
the undo files' own pages) against the server's by file (performance_schema, buffer_pool.files) and page
type (INNODB_METRICS buffer_page_read_*, buffer_pool.flush).

    cd <worktree> && PYTHONPATH=. .venv/bin/python docs/data/mysqlwhole/split.py . [GLOB under docs/data ...]

Columns: q/s; whole-reads error; table reads server/model; undo log pages (buffer_page_read_undo_log)
server/model (the model's insert undo pages among them); the undo files' other reads (rollback segment
headers, inode and file-space header pages) server/model, with the server's inode and fsp_hdr reads;
ibtmp1 server/model; ibdata1 (the model has none); walks and purge batches counted; updates + deletes.
"""
import gzip
import json
import sys
from pathlib import Path

import numpy as np

from loadgen.analysis import mixmodel

got = []
_simulate = mixmodel.simulate


def simulate(trace, space, pool, *args, **kwargs):
    """mixmodel's simulate, keeping the first (base) pool's reads by region."""
    sim = _simulate(trace, space, pool, *args, **kwargs)
    if not got:
        r = np.frombuffer(sim.reads, dtype=np.uint32).astype(np.int64)
        files_end = space.file_base + 2 * space.undo_files  # then any pages a later model adds: "ins"
        got.append({"tables": int(r[:space.system_base].sum()), "hdr": int(r[space.system_base:space.undo_base].sum()),
                    "undo": int(r[space.undo_base:space.temp_base].sum()),
                    "tmp": int(r[space.temp_base:space.file_base].sum()),
                    "files": int(r[space.file_base:files_end].sum()), "ins": int(r[files_end:space.n_pages].sum())})
    return sim


def main() -> None:
    mixmodel.simulate = simulate
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".") / "docs" / "data"
    pats = sys.argv[2:] or ["mysqlwhole/*", "mysqlrw3/*", "ycsbdwalk/*rw*", "mixruns/mysql-9.7/*", "writelookup/my*"]
    print("run | q/s | whole | table srv/mod | undo log srv/mod (ins) | undo files' rest srv/mod (inode, fsp) "
          "| ibtmp1 srv/mod | ibdata1 | walks batches | upd+del")
    for pat in pats:
        for p in sorted(root.glob(pat)):
            if not p.name.endswith(".json.gz"):
                continue
            r = json.loads(gzip.decompress(p.read_bytes()))
            if r.get("kind") != "run" or (r.get("workload") or {}).get("kind") != "mix" or not r.get("complete") \
                    or r["server"]["flavor"] != "mysql":
                continue
            got.clear()
            pr = mixmodel.predict(r)
            if pr is None or not got:
                continue
            bp, g = r["buffer_pool"], got[0]
            f, fl = bp.get("files", {}), bp.get("flush", {})
            undo_files = sum(v for k, v in f.items() if k.startswith("undo_"))
            table = sum(v for k, v in f.items() if k.endswith(".ibd") and not k.startswith("mysql"))
            log = fl.get("undo_pages_read") or 0
            whole = (pr["pages_read"] - bp["pages_read"]) / bp["pages_read"] * 100
            print(f"{p.parent.name}/{p.name} | {r['result'].get('qps', 0):,.0f} | {whole:+.1f}% "
                  f"| {table}/{g['tables']} "
                  f"| {log}/{g['undo'] + g['ins']} ({g['ins']}) | {undo_files - log}/{g['hdr'] + g['files']} "
                  f"({fl.get('inode_pages_read')}, {fl.get('fsp_hdr_pages_read')}) | {f.get('ibtmp1', 0)}/{g['tmp']} "
                  f"| {f.get('ibdata1', 0)} | {fl.get('purge_truncations')} {fl.get('purge_batches')} "
                  f"| {bp.get('rows_updated', 0) + bp.get('rows_deleted', 0)}")


if __name__ == "__main__":
    main()
