import json, sys, numpy as np, collections
rows = json.load(open(sys.argv[1]))
TX = {"sysbench-oltp-rw": 4/17, "ycsb-a": 0.5, "ycsb-f": 0.5}
sel = [r for r in rows if r.get("server") == "mariadb-10.11" and r.get("pool_mb") == 16 and r.get("preset") in TX
       and r.get("ops") == 20000 and r.get("qps", 0) >= 350 and r.get("batches") and r.get("headers")
       and "strace" not in r["path"] and "perf" not in r["path"]]
print(len(sel), collections.Counter(r["preset"] for r in sel))
tx = np.array([TX[r["preset"]] * r["ops"] for r in sel]); b = np.array([r["batches"] for r in sel], float)
h = np.array([r["headers"] for r in sel], float); hp = np.array([r["headers_pred"] for r in sel], float)
q = np.array([r["qps"] for r in sel]); dur = np.array([r["ops"] / r["qps"] for r in sel])
for name, X in [("txns + batches", np.c_[tx, b]), ("1 + txns + batches", np.c_[np.ones_like(tx), tx, b]),
                ("txns + seconds", np.c_[tx, dur]), ("txns + batches + seconds", np.c_[tx, b, dur])]:
    c, *_ = np.linalg.lstsq(X, h, rcond=None)
    res = h - X @ c
    print(name, np.round(c, 3), "rms", round(float(np.sqrt((res**2).mean()))), "by preset mean resid",
          {p: round(float(res[[r["preset"] == p for r in sel]].mean())) for p in TX})
for p in TX:
    m = np.array([r["preset"] == p for r in sel])
    for lo, hi in ((350, 1000), (1000, 2000), (2000, 1e9)):
        k = m & (q >= lo) & (q < hi)
        if k.any():
            print(f"{p:18s} {lo}-{hi}: n {k.sum():2d} server hdr {h[k].mean():7.0f} model {hp[k].mean():7.0f} batches {b[k].mean():5.1f} s {dur[k].mean():5.1f} "
                  f"server/batch beyond 0.86/txn {((h[k]-0.86*tx[k])/b[k]).mean():5.1f}")
