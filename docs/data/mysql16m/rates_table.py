"""rates.jsonl (check_rate.py) per cell: the server's range and mean, and for main's model at the CLI's old
rate ("before": what `predict --trace` gave before this branch), main's model at the log's own rate
("after": what it gives now) and the rejected candidate at the log's rate, the error of the means, the
range of the runs' errors and the runs inside low..high.

    python3 docs/data/mysql16m/rates_table.py docs/data/mysql16m/rates.jsonl
"""

from __future__ import annotations

import json
import sys

ORDER = {
    ("oltp_read_only", "uniform"): 0,
    ("oltp_point_select", "uniform"): 1,
    ("oltp_read_only", "special"): 2,
    ("oltp_point_select", "special"): 3,
}
PASSES = {"runs.jsonl": "main+poll", "runs-poll.jsonl": "main+poll", "runs-check.jsonl": "check"}


def cell(rows: list[dict], key: str) -> str:
    ms = sum(r["server"] for r in rows) / len(rows)
    mp = sum(r[key] for r in rows) / len(rows)
    errs = [r[f"{key}_err"] for r in rows]
    inside = sum(r[f"{key}_in"] for r in rows)
    return f"{mp:,.0f}: {100 * (mp / ms - 1):+.1f}% ({min(errs):+.1f} .. {max(errs):+.1f}), {inside}/{len(rows)}"


def main() -> None:
    cells: dict[tuple, list] = {}
    for line in open(sys.argv[1]):
        r = json.loads(line)
        cells.setdefault((PASSES[r["file"]], int(r["pool"][:-1]), r["script"], r["dist"]), []).append(r)
    print(
        "| pass | pool | script | keys | runs | server: range, mean | logs under 1 s | before (main, CLI's old rate) "
        "| after (main, the log's rate) | candidate 390 + 2 batches (the log's rate) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in sorted(cells, key=lambda k: (k[0] != "main+poll", -k[1], ORDER[(k[2], k[3])])):
        rows = cells[k]
        s = [r["server"] for r in rows]
        short = sum(r["span_s"] < 1.0 for r in rows)
        print(
            f"| {k[0]} | {k[1]}M | {k[2]} | {k[3]} | {len(rows)} | {min(s):,}-{max(s):,}, "
            f"{sum(s) / len(s):,.0f} | {short} | {cell(rows, 'main_cli')} | {cell(rows, 'main_log')} | "
            f"{cell(rows, 'cand_log')} |"
        )


if __name__ == "__main__":
    main()
