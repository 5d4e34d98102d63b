"""The table of docs/capture.md "MySQL at 16M again": per cell the server's range and mean, the predictions,
the error of the means, the runs inside the prediction's interval (low..high of predict's JSON), per table.

    python3 docs/data/mysql16m/table.py docs/data/mysql16m/runs.jsonl
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> None:
    path = Path(sys.argv[1])
    keep = path.parent / "predict"
    cells: dict[tuple, list] = {}
    for line in path.open():
        r = json.loads(line)
        p = json.loads((keep / r["predict"]).read_text())["pools"][0]
        r["low"], r["high"], r["tables"] = p["low"], p["high"], p["tables"]
        cells.setdefault((r["pool"], r["script"], r["dist"]), []).append(r)
    print(
        "| pool | script | keys | runs | server (range) | server mean | predicted (range) | predicted mean "
        "| error of the means | inside low..high | held after restart | q/s | load (1 min) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (pool, script, dist), rs in sorted(
        cells.items(), key=lambda kv: (int(kv[0][0][:-1]), kv[0][1], kv[0][2][::-1])
    ):
        srv = [r["server_read"] for r in rs]
        pred = [r["predicted"] for r in rs]
        ms, mp = sum(srv) / len(srv), sum(pred) / len(pred)
        inside = sum(r["low"] <= r["server_read"] <= r["high"] for r in rs)
        held = [r["before_run"]["Innodb_buffer_pool_pages_data"] for r in rs]
        qps = [r["sysbench"].get("qps", 0) for r in rs]
        load = [r["loadavg_before"][0] for r in rs]
        print(
            f"| {pool} | {script} | {dist} | {len(rs)} | {min(srv):,}-{max(srv):,} | {ms:,.0f} | "
            f"{min(pred):,}-{max(pred):,} | {mp:,.0f} | {100 * (mp / ms - 1):+.1f}% | {inside}/{len(rs)} | "
            f"{min(held)}-{max(held)} | {min(qps):,.0f}-{max(qps):,.0f} | {min(load):.1f}-{max(load):.1f} |"
        )
    print()
    print(
        "| pool | script | keys | run | server | predicted | low..high | sbtest1 read / predicted | "
        "sbtest2 read / predicted | mysql.ibd read | held after restart | q/s | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (pool, script, dist), rs in sorted(
        cells.items(), key=lambda kv: (int(kv[0][0][:-1]), kv[0][1], kv[0][2][::-1])
    ):
        for r in rs:
            f, t = r["file_reads"], r["tables"]
            print(
                f"| {pool} | {script} | {dist} | {r['run']} | {r['server_read']:,} | {r['predicted']:,} | "
                f"{r['low']:,}..{r['high']:,} | {f.get('sbtest1.ibd', 0):,} / {t['sbtest.sbtest1']['pages_read']:,} | "
                f"{f.get('sbtest2.ibd', 0):,} / {t['sbtest.sbtest2']['pages_read']:,} | {f.get('mysql.ibd', 0)} | "
                f"{r['before_run']['Innodb_buffer_pool_pages_data']} | {r['sysbench'].get('qps', 0):,.0f} | "
                f"{r['loadavg_before'][0]:.1f} |"
            )


if __name__ == "__main__":
    main()
