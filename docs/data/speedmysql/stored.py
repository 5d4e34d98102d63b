"""Every stored capture (docs/data/**/X.optrace.gz with its X.predict.json.gz) predicted by the tree
given, as `predict --trace` predicted it (its tables, rate and change buffering), with MySQL's rules
and MariaDB's at its own pool and at a curve of three: one line each with the pages read and a SHA-1
of the pools' whole JSON (every count, interval and table). Run it on two trees and diff the output:
a change that is only faster prints the same lines.

    /work/main/.venv/bin/python docs/data/speedmysql/stored.py TREE > out.txt
"""
import gzip
import hashlib
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from loadgen.analysis import changebuf, tracegeometry, tracemodel  # noqa: E402

DATA = Path(__file__).resolve().parent.parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for doc_path in sorted(DATA.glob("**/*.predict.json.gz")):
            trace_gz = doc_path.with_name(doc_path.name.replace(".predict.json.gz", ".optrace.gz"))
            if not trace_gz.exists():
                continue
            trace = Path(tmp) / trace_gz.name.removesuffix(".gz")
            trace.write_bytes(gzip.decompress(trace_gz.read_bytes()))
            doc = json.loads(gzip.decompress(doc_path.read_bytes()))
            own = [p["pool_bytes"] for p in doc["pools"]]
            for flavor in ("mysql", "mariadb"):
                for pools in (own, [16 << 20, 48 << 20, 128 << 20]):
                    models = tracegeometry.pools_of(pools, flavor, {"innodb_io_capacity": 10_000}, float(doc["qps"]))
                    got = tracemodel.predict(trace, doc["tables"], models, flavor,
                                             changebuf.kinds_of(flavor, doc.get("change_buffering")))
                    digest = hashlib.sha1(json.dumps(got["pools"], sort_keys=True).encode()).hexdigest()[:16]
                    reads = " ".join(f"{p['pool_bytes'] >> 20}M:{p['pages_read']}" for p in got["pools"])
                    print(f"{doc_path.relative_to(DATA)} {flavor} {reads} sha1 {digest}", flush=True)
            trace.unlink()


if __name__ == "__main__":
    main()
