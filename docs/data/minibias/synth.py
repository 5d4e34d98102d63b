"""Synthetic IRM page streams through the kernel: exact pool vs miniature (map built as tracesample.plan)."""
import sys
sys.path.insert(0, "/work/wt/minibias")
import numpy as np
from loadgen import native
from loadgen.analysis import tracesample as ts
from loadgen.analysis.mixpages import mix64

L1, M, K = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])  # t1 leaves, other sampled pages, kept pages
cap, share_m, n_refs, rate = int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])
hot = sys.argv[8] if len(sys.argv) > 8 else "uniform"
N = L1 + M + K
rng = np.random.default_rng(5)
is_m = rng.random(n_refs) < share_m
pages = np.empty(n_refs, np.int64)
if hot == "uniform":
    pages[~is_m] = rng.integers(0, L1, int((~is_m).sum()))
else:  # zipf-ish over t1 leaves, permuted
    w = 1.0 / np.arange(1, L1 + 1) ** float(hot)
    perm = rng.permutation(L1)
    pages[~is_m] = perm[rng.choice(L1, int((~is_m).sum()), p=w / w.sum())]
pages[is_m] = L1 + rng.integers(0, M, int(is_m.sum()))
kept_refs = rng.random(n_refs) < (0.05 if K else 0)
pages[kept_refs] = L1 + M + rng.integers(0, K, int(kept_refs.sum())) if K else pages[kept_refs]
pages = pages.astype(np.uint32)
flags = np.full(n_refs, 4, np.uint8)
args = dict(n_pages=N, leaf_pages=L1, capacity=cap, pool_pages=1, old_pct=95, old_time_ms=0, ms_per_op=1.0)
ex = native.MixStream(**args)
ex.feed(pages, flags)
exr = np.frombuffer(ex.close().reads, np.uint32).astype(np.int64)
for salt in range(int(sys.argv[9]) if len(sys.argv) > 9 else 2):
    units1 = ts.leaf_units(L1)
    thr = np.uint64(min(int(rate * 2.0**64), 2**64 - 1))
    u_all = np.unique(units1)
    on = np.zeros(int(u_all.max()) + 1, bool)
    on[u_all[mix64(u_all.astype(np.uint64) ^ np.uint64(salt)) < thr]] = True
    leaf_on = on[units1]
    n1s = int(leaf_on.sum()); scale = n1s / L1
    map_ = np.full(N, -1, np.int64)
    map_[np.flatnonzero(leaf_on)] = np.arange(n1s)
    nu = -(-M // 64); k = round(scale * nu)
    h = mix64((np.uint64(L1) + np.arange(nu, dtype=np.uint64)) ^ np.uint64(salt + 1))
    uo = np.zeros(nu, bool); uo[np.argsort(h, kind="stable")[:k]] = True
    msel = uo[np.arange(M) // 64]
    map_[L1 + np.flatnonzero(msel)] = n1s + np.arange(int(msel.sum()))
    map_[L1 + M:] = n1s + int(msel.sum()) + np.arange(K)
    mini = native.MixStream(**args, n_pages=None, mini=(map_.astype(np.int32), rate, salt, int(msel.sum()))) if False else None
    a2 = dict(args); a2["n_pages"] = L1 + int(msel.sum()) + K
    mini = native.MixStream(**a2, mini=(map_.astype(np.int32), rate, salt, int(msel.sum())))
    mini.feed_with([], pages, flags)
    sim, _ = mini.close()
    mr = np.frombuffer(sim.reads, np.uint32).astype(np.int64)
    s1 = np.flatnonzero(leaf_on); sm = L1 + np.flatnonzero(msel)
    e1, m1 = exr[s1].sum(), mr[map_[s1]].sum(); e2, m2 = exr[sm].sum(), mr[map_[sm]].sum()
    print(f"salt {salt} scale {scale:.4f} t1 sampled: mini {m1} exact {e1} {100*(m1-e1)/e1:+.2f}%  other: mini {m2} exact {e2} {100*(m2-e2)/max(e2,1):+.2f}%  exact total {exr.sum()}")
