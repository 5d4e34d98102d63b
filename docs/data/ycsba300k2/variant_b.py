"""Variant B: the rule's batch around main's mean list (capacity 144 kept: list 144 +- batch/2), against main
and the candidate (list ..256): table and whole errors."""

import gzip, json, sys, dataclasses
from loadgen.analysis import mixmodel

real_pool_of = mixmodel.pool_of


def rule(run):
    fl = (run.get("buffer_pool") or {}).get("flush") or {}
    e, w = fl.get("lru_batch_evicted"), fl.get("lru_batch_flushed")
    return round(249 / (1 + w / e)) if e else None


def variant(kind):
    def pool_of(run, writes=False):
        p = real_pool_of(run, writes)
        b = rule(run)
        if not writes or b is None or p.cleaner_batch != 225 or p.capacity_high != 256 or b >= 225:
            return p
        if kind == "A":
            return dataclasses.replace(p, cleaner_batch=b, capacity_pages=256 - b // 2)
        return dataclasses.replace(p, cleaner_batch=b)

    return pool_of


for f in sys.argv[1:]:
    d = json.loads(gzip.decompress(open(f, "rb").read()) if f.endswith("gz") else open(f).read())
    bp = d["buffer_pool"]
    st = sum(t["file_pages_read"] for t in bp["tables"].values())
    out = []
    for kind in ("main", "A", "B"):
        mixmodel.pool_of = real_pool_of if kind == "main" else variant(kind)
        p = mixmodel.predict(d)
        t = sum(x["pages_read"] for x in p["tables"].values())
        out.append(
            f"{kind} {(t - st) / st * 100:+.1f}/{(p['pages_read'] - bp['pages_read']) / bp['pages_read'] * 100:+.1f}"
        )
    print(f.split("/")[-1][:48].ljust(48), d["result"]["qps"], " | ".join(out))
