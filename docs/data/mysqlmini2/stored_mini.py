"""Every stored capture (as docs/data/speedmysql/stored.py finds them) predicted with MySQL's rules at
its own pool and at a curve of three (16M, 48M, 128M), with the long-trace gates let in (tracesample
SAMPLE_MIN_OPS and MIN_CLEANER_TICKS 0: one cleaner phase) twice: every pool exact, then the curve's
pools as miniatures (tracesample.MYSQL_MINI). One line a capture and curve with each pool's exact
reads, the miniature's, its rate and the error in %. A single pool asked for is exact either way.

    /work/main/.venv/bin/python docs/data/mysqlmini2/stored_mini.py TREE > out.txt

FLAVOR=mariadb runs MariaDB's rules instead (its miniatures need no switch), for comparison; NO_RA=1
turns linear read-ahead off in both runs (innodb_read_ahead_threshold 0), to see what it accounts for;
POOL_SET="field=value,..." replaces PoolModel fields (ints) in both runs.
"""

import gzip
import dataclasses
import os
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from loadgen.analysis import changebuf, tracegeometry, tracemodel
from loadgen.analysis import tracesample as ts

DATA = Path(__file__).resolve().parent.parent
FLAVOR = os.environ.get("FLAVOR", "mysql")


def run(trace, doc, pools, mini: bool) -> list:
    ts.SAMPLE_MIN_OPS, ts.MIN_CLEANER_TICKS, ts.MYSQL_MINI = 0, 0, mini
    models = tracegeometry.pools_of(pools, FLAVOR, {"innodb_io_capacity": 10_000}, float(doc["qps"]))
    if os.environ.get("POOL_SET"):
        fields = {k: int(v) for k, v in (kv.split("=") for kv in os.environ["POOL_SET"].split(","))}
        models = [(b, dataclasses.replace(p, **fields)) for b, p in models]
    if os.environ.get("NO_RA"):
        models = [(b, dataclasses.replace(p, ra_threshold=0)) for b, p in models]
    got = tracemodel.predict(
        trace, doc["tables"], models, FLAVOR, changebuf.kinds_of(FLAVOR, doc.get("change_buffering"))
    )
    return got["pools"]


def main() -> None:
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for doc_path in sorted(DATA.glob("**/*.predict.json.gz")):
            trace_gz = doc_path.with_name(doc_path.name.replace(".predict.json.gz", ".optrace.gz"))
            if not trace_gz.exists():
                continue
            trace = Path(tmp) / trace_gz.name.removesuffix(".gz")
            trace.write_bytes(gzip.decompress(trace_gz.read_bytes()))
            doc = json.loads(gzip.decompress(doc_path.read_bytes()))
            own = [p["pool_bytes"] for p in doc["pools"]]
            for pools in (own, [16 << 20, 48 << 20, 128 << 20]):
                exact, mini = run(trace, doc, pools, False), run(trace, doc, pools, True)
                cells = []
                for e, m in zip(exact, mini):
                    err = 100.0 * (m["pages_read"] - e["pages_read"]) / max(1, e["pages_read"])
                    rate = (m.get("sampled") or {}).get("rate", 1)
                    if rate < 1:
                        worst = max(worst, abs(err))
                    cells.append(f"{e['pool_bytes'] >> 20}M {e['pages_read']} {m['pages_read']} r{rate} {err:+.2f}%")
                print(f"{doc_path.relative_to(DATA)} | " + " | ".join(cells), flush=True)
            trace.unlink()
    print(f"# worst miniature error {worst:.2f}%")


if __name__ == "__main__":
    main()
