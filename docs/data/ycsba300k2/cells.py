"""Table and whole errors of every stored MariaDB mixed write run, main's batch against this branch's
(write_batch off / on), by cell; the per-run lines to --out."""

import gzip, json, sys, statistics, os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, os.getcwd())
from loadgen.analysis import mixmodel


def one(path):
    try:
        raw = Path(path).read_bytes()
        doc = json.loads(gzip.decompress(raw) if path.endswith(".gz") else raw)
    except Exception:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("workload"), dict) or not doc["workload"].get("mix"):
        return None
    srv, bp = doc.get("server") or {}, doc.get("buffer_pool") or {}
    if srv.get("flavor") != "mariadb" or "pages_read" not in bp or not bp.get("tables"):
        return None
    out = {}
    real = mixmodel.write_batch
    for name, wb in (("main", lambda p, f: p), ("new", real)):
        mixmodel.write_batch = wb
        try:
            p = mixmodel.predict(doc)
        except Exception as exc:
            return None
        finally:
            mixmodel.write_batch = real
        if p is None:
            return None
        out[name] = (sum(t["pages_read"] for t in p["tables"].values()), p["pages_read"])
    if out["main"] == out["new"]:
        moved = False
    else:
        moved = True
    mt = sum(int(t.get("file_pages_read") or 0) for t in bp["tables"].values())
    v = ".".join(str(srv.get("version")).split(".")[:2])
    return {
        "path": path,
        "cell": f"{srv['flavor']}-{v} {str(doc['workload'].get('name')).removeprefix('preset ')} {int(srv['innodb_buffer_pool_size']) >> 20}M",
        "qps": (doc.get("result") or {}).get("qps"),
        "table": mt,
        "whole": bp["pages_read"],
        "main": out["main"],
        "new": out["new"],
        "moved": moved,
    }


if __name__ == "__main__":
    files = sorted(str(p) for p in Path(sys.argv[1]).rglob("*.json*"))
    with ProcessPoolExecutor(2) as ex:
        rows = [r for r in ex.map(one, files, chunksize=4) if r]
    json.dump(rows, open(sys.argv[2], "w"))
    cells = {}
    for r in rows:
        if r["moved"]:
            cells.setdefault(r["cell"], []).append(r)
    err = lambda p, m: (p - m) / m * 100 if m else 0.0
    rms = lambda xs: (sum(x * x for x in xs) / len(xs)) ** 0.5
    print(f"{'cell':40s} runs  table mean/rms main -> new        whole mean/rms main -> new")
    for c, rs in sorted(cells.items()):
        tm = [err(r["main"][0], r["table"]) for r in rs]
        tn = [err(r["new"][0], r["table"]) for r in rs]
        wm = [err(r["main"][1], r["whole"]) for r in rs]
        wn = [err(r["new"][1], r["whole"]) for r in rs]
        print(
            f"{c:40s} {len(rs):4d}  {statistics.mean(tm):+5.1f}/{rms(tm):4.1f} -> {statistics.mean(tn):+5.1f}/{rms(tn):4.1f}     {statistics.mean(wm):+5.1f}/{rms(wm):4.1f} -> {statistics.mean(wn):+5.1f}/{rms(wn):4.1f}"
        )
    print("unmoved MariaDB mixed runs:", sum(1 for r in rows if not r["moved"]))
