"""Trial (issue #22, branch split48): every stored MySQL capture re-predicted with N pages created at
the first N inserts into each leaf of the secondary indexes (a packed k_1 split), 0 = main.

    git apply docs/data/split48/splits.patch   # the mechanism (not in the merged model)
    PYTHONPATH=. .venv/bin/python docs/data/split48/trial.py 0 1 3
"""
import gzip
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from loadgen.analysis import changebuf, tracegeometry, tracemodel

DATA = Path(__file__).resolve().parent.parent
RUNS = [("mysql48", "rw16"), ("mysql48", "rw48"), ("mysql48", "rw48b"), ("mysql48d", "ft48"), ("mysql48d", "ft48b"),
        ("tracereinsert", "skiptrx1"), ("tracereinsert", "skiptrx2")]
def _stored(where: str, path: str) -> Path:
    return DATA / where / (Path(path).name.removesuffix(".gz") + ".gz")


def main() -> None:
    heads = " | ".join(f"N={n}" for n in map(int, sys.argv[1:]))
    print(f"| run | pool | server read | created (splits) | {heads} |")
    with tempfile.TemporaryDirectory() as tmp:
        for where, name in RUNS:
            for run in json.loads(gzip.decompress((DATA / where / f"{name}.json.gz").read_bytes())):
                trace = Path(tmp) / Path(run["trace"]).name.removesuffix(".gz")
                trace.write_bytes(gzip.decompress(_stored(where, run["trace"]).read_bytes()))
                doc = json.loads(gzip.decompress(_stored(where, run["predict"]).read_bytes()))
                cells = []
                for n in map(int, sys.argv[1:]):
                    tracemodel.SPLITS_PER_LEAF = n
                    pools = tracegeometry.pools_of([run["pool_bytes"]], "mysql", {"innodb_io_capacity": 10_000},
                                                   float(doc["qps"]))
                    p = tracemodel.predict(trace, doc["tables"], pools, "mysql",
                                           changebuf.kinds_of("mysql", doc.get("change_buffering")))
                    got = p["pools"][0]["pages_read"]
                    s = run["server_read"]
                    cells.append(f"{got:,} ({100 * (got - s) / s:+.1f}%)")
                c = run["counters"]
                print(f"| {name} #{run['run']} | {run['pool_bytes'] >> 20}M | {run['server_read']:,} | "
                      f"{c.get('buffer_pages_created', 0)} ({c.get('index_page_splits', 0)}) | " + " | ".join(cells)
                      + " |", flush=True)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
