import sys
sys.path.insert(0, "/work/wt/minibias")
import numpy as np
from loadgen.analysis import tracesample as ts
from loadgen.analysis.mixpages import mix64
L, G, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
n1 = L + G
units1 = ts.leaf_units(n1); u_all = np.unique(units1)
thr = np.uint64(int(rate * 2.0**64))
rows = []
for salt in range(int(sys.argv[4])):
    on = np.zeros(int(u_all.max()) + 1, bool); on[u_all[mix64(u_all.astype(np.uint64) ^ np.uint64(salt)) < thr]] = True
    lo = on[units1]
    rows.append((salt, lo.sum() / n1, lo[:L].sum() / L, int(lo[L:].sum())))
    if salt < 12: print(salt, f"scale {lo.sum()/n1:.5f} old {lo[:L].sum()/L:.5f} scale/old {lo.sum()/n1/(lo[:L].sum()/L):.4f} grown sampled {int(lo[L:].sum())} of {G}")
r = np.array(rows)
print("mean over salts: scale/old", (r[:,1]/r[:,2]).mean(), "grown sampled mean", r[:,3].mean(), "expected", G*rate)
