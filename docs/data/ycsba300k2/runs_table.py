"""One line a run: q/s, server's table (leaf, non-leaf) and whole reads, LRU batches (measured where watched,
the candidate's rule), main's and the candidate's predictions (write_batch off / on)."""

import gzip, json, sys, os
import numpy as np

sys.path.insert(0, os.getcwd())
from loadgen.analysis import mixmodel

real_sim, real_wb = mixmodel.simulate, mixmodel.write_batch
seen = []


def spy(trace, space, *a, **k):
    sim = real_sim(trace, space, *a, **k)
    seen.append((sim, space, a[0]))
    return sim


mixmodel.simulate = spy


def pred(d, on):
    mixmodel.write_batch = real_wb if on else (lambda p, f: p)
    seen.clear()
    p = mixmodel.predict(d)
    sim, space, pool = seen[0]
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    nl = sum(int(reads[t.base + t.all_leaves : t.base + t.n_pages].sum()) for t in space.trees.values())
    return sum(t["pages_read"] for t in p["tables"].values()), nl, p["pages_read"], pool.cleaner_batch


e = lambda p, m: f"{(p - m) / m * 100:+.1f}%"
print(
    "| run | rows | q/s | LRU batches (mean pages) | rule | table read (non-leaf) | main: table (non-leaf), whole | candidate: table (non-leaf), whole | whole read |"
)
print("|---|---|---|---|---|---|---|---|---|")
for f in sys.argv[1:]:
    d = json.loads(gzip.decompress(open(f, "rb").read()) if f.endswith("gz") else open(f).read())
    bp = d["buffer_pool"]
    fl = bp["flush"]
    c = bp.get("cleaner_batches")
    n = sum(x["batches"] for x in c["batches"]) if c else 0
    st = sum(x["file_pages_read"] for x in bp["tables"].values())
    m, c2 = pred(d, False), pred(d, True)
    bt = f"{n} ({fl['lru_batch_evicted'] / n:.0f})" if n else "–"
    name = os.path.basename(f).split(".")[0]
    print(
        f"| {name} ({d['workload']['order'].removeprefix('mix:')}) | {d['dataset']['rows'] // 1000}k | {d['result']['qps']:,.0f} | "
        f"{bt} | {c2[3]} | {st:,} ({fl['nonleaf_pages_read']:,}) | "
        f"{m[0]:,} ({m[1]:,}) {e(m[0], st)}, {e(m[2], bp['pages_read'])} | {c2[0]:,} ({c2[1]:,}) {e(c2[0], st)}, {e(c2[2], bp['pages_read'])} | {bp['pages_read']:,} |"
    )
