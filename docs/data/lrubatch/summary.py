"""summary.py REF.json A.json B.json ...: every MariaDB 16M 20,000-op band's mean whole error, each cell's
table rms and mean, the 10.11 ycsb-a 300k-row runs' table errors (20,000 ops), the slow 10.11 sysbench-oltp-rw
runs' lowest table error; "!" where a band within 3% on REF leaves it or any band moves away from zero by
more than a point. Rows from variants.py (they hold the table reads)."""
import json, statistics, sys
sys.path.insert(0, "bench")
import rate_bands as rb
ref = json.load(open(sys.argv[1]))
def summ(rows):
    out = {}
    for srv in ("mariadb-10.11", "mariadb-11.8"):
        for pr in rb.PRESETS:
            cell = [r for r in rows if "error" not in r and r["server"] == srv and r["preset"] == pr and r["pool_mb"] == 16 and r["ops"] == 20000]
            for lo, hi in rb.BANDS_QPS:
                b = [rb.err_pct(r) for r in cell if lo <= r["qps"] < hi]
                if b:
                    out[f"{srv[8:]} {pr[:6]} {lo}"] = statistics.fmean(b)
            t = [100 * (r["table_pred"] - r["table"]) / r["table"] for r in cell if "table" in r]
            out[f"{srv[8:]} {pr[:6]} tbl-rms"] = statistics.fmean(x * x for x in t) ** .5
            out[f"{srv[8:]} {pr[:6]} tbl-mean"] = statistics.fmean(t)
    a3 = [100 * (r["table_pred"] - r["table"]) / r["table"] for r in rows if "ycsba300k" in r["path"] and r.get("preset") == "ycsb-a" and r.get("ops") == 20000 and "table" in r and r["server"] == "mariadb-10.11"]
    out["300k ycsb-a tbl min"], out["300k ycsb-a tbl max"] = min(a3), max(a3)
    slow = [100 * (r["table_pred"] - r["table"]) / r["table"] for r in rows if r.get("server") == "mariadb-10.11" and r.get("preset") == "sysbench-oltp-rw" and r.get("pool_mb") == 16 and r.get("ops") == 20000 and r["qps"] < 700 and "table" in r]
    out["10.11 sysb slow(<700) tbl min"] = min(slow)
    return out
R = summ(ref)
runs = [summ(json.load(open(f))) for f in sys.argv[2:]]
for k in R:
    print(f"{k:<28} {R[k]:+6.1f} " + " ".join(f"{x[k]:+6.1f}" + ("!" if ("tbl" not in k and abs(R[k]) <= 3 < abs(x[k])) or ("tbl" not in k and abs(x[k]) > abs(R[k]) + 1) else " ") for x in runs))
print("files:", " ".join(sys.argv[2:]))
