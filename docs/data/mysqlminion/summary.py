"""Per flavour, trace and pool: the miniatures' % off the exact pool (mean, RMS), and how many draws
hold the exact count inside the prediction's interval (the JSON's low .. high) and inside +-2 of its
standard error alone (intervals.SE_MULT x sampled.se_pages): summary.py runs.jsonl"""

import json, math, sys

EXACT = {  # the curve's exact pools where a run file has no exact run (bench/README.md)
    ("mysql", 30_000_000): [40_264_189, 36_677_007, 28_822_297, 7_426_154],
    ("mysql", 3_000_000): [4_025_793, 3_675_075, 2_903_325, 902_483],
    ("mariadb", 30_000_000): [39_549_485, 36_689_819, 28_649_270, 7_645_278],
}
recs = [json.loads(x) for x in open(sys.argv[1])]
for r in recs:
    if r["mode"] == "exact":
        EXACT[(r["flavor"], r["ops"])] = [p["pages_read"] for p in r["pools"]]
print(
    "| flavour | trace | pool | rate | draws | % off per draw | mean | RMS | SE % | exact in low..high | exact in +-2 SE | max abs(off) / SE |"
)
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
keys = sorted({(r["flavor"], r["ops"]) for r in recs if r["mode"] == "mini"}, key=lambda k: (k[0] != "mysql", k[1]))
for fl, ops in keys:
    minis = [r for r in recs if r["mode"] == "mini" and r["flavor"] == fl and r["ops"] == ops and r["salt"] != 0]
    ex = EXACT[(fl, ops)]
    for i, x in enumerate(ex):
        ps = [m["pools"][i] for m in minis]
        errs = [100 * (p["pages_read"] - x) / x for p in ps]
        inside = sum(p["low"] <= x <= p["high"] for p in ps)
        in_se = sum(abs(p["pages_read"] - x) <= 2 * p["se_pages"] for p in ps)
        se = sum(100 * p["se_pages"] / p["pages_read"] for p in ps) / len(ps)
        rate = sum(p["rate"] for p in ps) / len(ps)
        print(
            f"| {fl} | {ops // 1_000_000}M | {ps[0]['pool']}M | {rate:.3f} | {len(ps)} | "
            + " ".join(f"{e:+.2f}" for e in errs)
            + f" | {sum(errs) / len(errs):+.2f} | {math.sqrt(sum(e * e for e in errs) / len(errs)):.2f} | {se:.1f} | "
            f"{inside}/{len(ps)} | {in_se}/{len(ps)} | {max(abs(p['pages_read'] - x) / p['se_pages'] for p in ps):.2f} |"
        )
