"""Server vs model reads by kind (as docs/data/ycsba300k2/kinds.py) for every stored MariaDB ycsb-a /
ycsb-f run at 16M with INNODB_METRICS' per-kind counters, one line a run (TSV on stdout), sorted by
preset, server, rows, q/s. From the checkout root: PYTHONPATH=$PWD python docs/data/ycsbwhole300k/kindsall.py DIR..."""

import gzip
import json
import sys
from pathlib import Path

import numpy as np

from loadgen.analysis import mixmodel


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if str(p).endswith(".gz") else raw)


def kinds(doc):
    seen = []
    real = mixmodel.simulate

    def spy(trace, space, *a, **k):
        sim = real(trace, space, *a, **k)
        seen.append((sim, space))
        return sim

    mixmodel.simulate = spy
    try:
        p = mixmodel.predict(doc)
    finally:
        mixmodel.simulate = real
    sim, space = seen[0]
    reads = np.frombuffer(sim.reads, dtype=np.uint32)

    def t(a, b):
        return int(reads[a:b].sum(dtype=np.uint64))

    cut = int(p.get("undo_reads_cut") or 0)
    return p, {
        "rseg": t(space.system_base, space.undo_base),
        "undo_sim": t(space.undo_base, space.temp_base),
        "undo": t(space.undo_base, space.temp_base) - cut,
        "cap": p.get("undo_reads_cap"),
        "cut": cut,
    }


def main():
    paths = sorted(
        {p for d in sys.argv[1:] for p in Path(d).rglob("*.json*") if p.name.endswith((".json", ".json.gz"))}
    )
    rows = []
    for path in paths:
        try:
            doc = load(path)
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict) or "workload" not in doc or not isinstance(doc["workload"], dict):
            continue
        srv = doc.get("server") or {}
        w = (doc.get("workload") or {}).get("order", "")
        fl = ((doc.get("buffer_pool") or {}).get("flush")) or {}
        if srv.get("flavor") != "mariadb" or w not in ("mix:ycsb-a", "mix:ycsb-f"):
            continue
        if srv.get("innodb_buffer_pool_size") != 16777216 or "system_pages_read" not in fl:
            continue
        try:
            p, m = kinds(doc)
        except Exception as e:  # noqa: BLE001 - a stored file the model does not take
            print(f"# {path}: {e}", file=sys.stderr)
            continue
        rows_n = next(iter(doc["workload"]["mix"]["tables"].values()))["rows"]
        res = doc["result"]
        whole = doc["buffer_pool"]["pages_read"]
        rows.append(
            (
                w[4:],
                srv["version"][:4],
                rows_n,
                res["ops"],
                round(res["qps"]),
                whole,
                p["pages_read"],
                round(100 * (p["pages_read"] - whole) / whole, 1),
                fl["system_pages_read"],
                m["rseg"],
                fl["undo_pages_read"],
                m["undo"],
                m["undo_sim"],
                m["cap"],
                fl["undo_pages_written"],
                fl["purge_undo_pages"],
                fl["purge_batches"],
                str(path),
            )
        )
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[3], r[4]))
    print(
        "\t".join(
            [
                "preset",
                "srv",
                "rows",
                "ops",
                "qps",
                "whole",
                "pred",
                "err%",
                "rseg_srv",
                "rseg_mod",
                "undo_srv",
                "undo_mod",
                "undo_sim",
                "cap",
                "undo_wr",
                "logs",
                "batches",
                "file",
            ]
        )
    )
    for r in rows:
        print("\t".join(map(str, r)))


main()
