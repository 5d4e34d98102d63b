"""Replay captured references into fresh PoolFeed runs; thread CPU per pool; misses."""
import sys, pickle, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from loadgen.analysis import tracesim
got = pickle.load(open(sys.argv[2], "rb"))
mode = sys.argv[3] if len(sys.argv) > 3 else "time"
space = got["args"][0]
if mode == "stats":
    up = np.zeros(space.n_pages, bool); leaf = np.zeros(space.n_pages, bool)
    for (t, i), tr in space.trees.items():
        leaf[tr.base:tr.base + tr.all_leaves] = True
        up[tr.base + tr.all_leaves:tr.base + tr.n_pages] = True
        print(t, i, tr.rows, tr.all_leaves, tr.height, tr.level_sizes())
    n = nu = nl = 0
    cnt = np.zeros(space.n_pages, np.int64)
    for p, f in got["chunks"]:
        n += len(p); nu += int(up[p].sum()); nl += int(leaf[p].sum())
        cnt += np.bincount(p, minlength=space.n_pages)
    print(f"refs {n:,} upper {nu:,} ({nu/n:.1%}) leaves {nl:,} ({nl/n:.1%}) other {n-nu-nl:,} ({(n-nu-nl)/n:.1%})")
    sysp = ~up & ~leaf
    print("system pages touched", int((cnt[sysp] > 0).sum()), "upper touched", int((cnt[up] > 0).sum()))
    top = np.argsort(-cnt)[:2000]
    for k in (10, 50, 100, 300, 500, 1000, 2000):
        print(f"top {k} pages: {cnt[top[:k]].sum()/n:.1%} of refs; min count {cnt[top[k-1]]}")
    sys.exit()
feed = tracesim.PoolFeed(*got["args"], **got["kw"])
ts = []
for runs in feed.runs:
    for run in runs:
        t0 = time.thread_time()
        for p, f in got["chunks"]:
            run.feed(p, f)
        ts.append(round(time.thread_time() - t0, 3))
mis = []
for runs, s in zip(feed.runs, feed.samples):
    r = runs[0].close()
    sim = r[0] if isinstance(r, tuple) else r
    mis.append(int(sim.counts[1]) if hasattr(sim, "counts") else str(sim)[:80])
feed.pool.shutdown()
print(ts, round(sum(ts), 3), mis)
