"""The mix model's whole-read error against the run's rate (issue #21, branch mariarate): every
stored mixed run under the given directories re-predicted with mixmodel.predict, grouped by cell
(server, preset, pool), with MariaDB 10.11's write presets at 16M listed per rate band.

    PYTHONPATH=$PWD python bench/rate_bands.py docs/data --json out.json   # every cell's runs
    python bench/rate_bands.py --compare before.json after.json            # cells that moved
    python bench/rate_bands.py --measured out.json    # docs/workloads.md's "Measured" table from those rows

The bands (350-1,000, 1,000-2,000, 2,000+ q/s) and the slope (error points per 1,000 q/s, least
squares over the runs from 350 q/s) are the task's (docs/workloads-lab.md, "The error follows
the rate")."""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import whole_repeat  # noqa: E402 - bench/'s own, beside this file

from loadgen.errors import LoadgenError  # noqa: E402 - after whole_repeat puts the checkout's loadgen first

BANDS_QPS = ((350, 1000), (1000, 2000), (2000, 1e9))
SLOW_QPS = 350
PRESETS = ("ycsb-a", "ycsb-f", "sysbench-oltp-rw")


def load_doc(path: Path) -> dict:
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)


def one(path: str) -> dict | None:
    """A stored run's cell, rate, measured and predicted whole reads (None: not a mixed run)."""
    try:
        doc = load_doc(Path(path))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("workload"), dict):
        return None
    wl, srv, bp = doc["workload"], doc.get("server") or {}, doc.get("buffer_pool") or {}
    if not wl.get("mix") or "pages_read" not in bp:
        return None
    try:
        p, parts = whole_repeat.parts(doc)
    except ValueError:  # not a mixed run, or no table geometry
        return None
    except LoadgenError as exc:  # a run whose trace is not here: listed, not counted
        return {"path": path, "error": repr(exc)}
    version = ".".join(str(srv.get("version", "")).split(".")[:2])
    fl = bp.get("flush") or {}
    return {
        "path": path,
        "server": f"{srv.get('flavor')}-{version}",
        "preset": str(wl.get("name")).removeprefix("preset "),
        "pool_mb": int(srv.get("innodb_buffer_pool_size", 0)) >> 20,
        "ops": (wl.get("mix") or {}).get("operations"),
        "qps": float((doc.get("result") or {}).get("qps") or 0),
        "whole": int(bp["pages_read"]),
        "pred": int(p["pages_read"]),
        # the tables' own .ibd reads (performance_schema) and the model's for them
        "table": sum(int(t.get("file_pages_read") or 0) for t in (bp.get("tables") or {}).values()),
        "table_pred": parts.get("table"),
        "low": int(p["reads_low"]),
        "high": int(p["reads_high"]),
        "batches": fl.get("purge_batches"),
        # ibdata1's rollback segment headers and undo pages, the server's (INNODB_METRICS) and the model's
        "headers": fl.get("system_pages_read"),
        "headers_pred": parts.get("rseg headers"),
        "undo": fl.get("undo_pages_read"),
        "undo_pred": parts.get("undo pages"),
    }


def err_pct(r: dict) -> float:
    return 100.0 * (r["pred"] - r["whole"]) / r["whole"]


def slope_per_kqps(rows: list[dict]) -> float:
    """Least-squares slope of the error (points) against q/s, per 1,000 q/s."""
    if len(rows) < 2:
        return float("nan")
    xs = [r["qps"] / 1000 for r in rows]
    ys = [err_pct(r) for r in rows]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")


def side(cell: list[dict], lo: float, hi: float) -> str:
    """The band's mean model-less-server rollback segment headers and undo pages (where recorded)."""
    rs = [r for r in cell if lo <= r["qps"] < hi and None not in (r.get("headers"), r.get("headers_pred"))]
    if not rs:
        return ""
    h = statistics.fmean(r["headers_pred"] - r["headers"] for r in rs)
    u = statistics.fmean(r["undo_pred"] - r["undo"] for r in rs if r.get("undo") is not None)
    return f"; hdr {h:+.0f} undo {u:+.0f}"


def bands(rows: list[dict], server: str = "mariadb-10.11") -> str:
    """Per preset at 16M, 20,000 ops: each band's runs, mean error and range; the slope; the slow runs inside."""
    out = [f"{server} 16M, 20,000 ops: mean error (range, runs) per band; slope from {SLOW_QPS} q/s"]
    for preset in PRESETS:
        cell = [
            r
            for r in rows
            if "error" not in r
            and r["server"] == server
            and r["preset"] == preset
            and r["pool_mb"] == 16
            and r["ops"] == 20000
        ]
        if not cell:
            continue
        line = [f"{preset:<17}"]
        for lo, hi in BANDS_QPS:
            b = [err_pct(r) for r in cell if lo <= r["qps"] < hi]
            line.append(
                f"{lo}-{'' if hi > 1e8 else hi}: "
                + (
                    f"{statistics.fmean(b):+5.1f}% ({min(b):+.1f}..{max(b):+.1f}, {len(b)}{side(cell, lo, hi)})"
                    if b
                    else "none"
                )
            )
        fast = [r for r in cell if r["qps"] >= SLOW_QPS]
        slow = [r for r in cell if r["qps"] < SLOW_QPS]
        line.append(f"slope {slope_per_kqps(fast):+.2f}/1k q/s")
        line.append(f"slow inside {sum(r['low'] <= r['whole'] <= r['high'] for r in slow)}/{len(slow)}")
        out.append("  ".join(line))
    return "\n".join(out)


def cells(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        if "error" not in r:
            out.setdefault(f"{r['server']} {r['preset']} {r['pool_mb']}M", []).append(r)
    return out


def compare(before: list[dict], after: list[dict]) -> str:
    """Cells whose runs moved: rms error, range and runs inside their intervals, before -> after."""
    b, a = cells(before), cells(after)
    out = []
    for key in sorted(b):
        rb, ra = sorted(b[key], key=lambda r: r["path"]), sorted(a.get(key, []), key=lambda r: r["path"])
        if [r["pred"] for r in rb] == [r["pred"] for r in ra]:
            continue

        def desc(rs):
            e = [err_pct(r) for r in rs]
            rms = statistics.fmean(x * x for x in e) ** 0.5
            inside = sum(r["low"] <= r["whole"] <= r["high"] for r in rs)
            return f"rms {rms:4.1f} {min(e):+5.1f}..{max(e):+5.1f}% inside {inside}/{len(rs)}"

        out.append(f"{key:<34} ({len(rb)}) {desc(rb)}  ->  {desc(ra)}")
    return "\n".join(out) or "no cell moved"


def measured(rows: list[dict]) -> str:
    """docs/workloads.md's "Measured" table: per server, preset and pool, the runs and the range of
    the table's and the whole reads' error (rows without a table count or its prediction: whole only)."""
    out = ["| server | preset | pool | runs | table | whole reads |", "|---|---|---|---|---|---|"]
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if "error" not in r:
            groups.setdefault((r["server"], r["preset"], r["pool_mb"]), []).append(r)

    def span(errs: list[float]) -> str:
        return f"{min(errs):+.1f} .. {max(errs):+.1f}%" if errs else "-"

    for (server, preset, pool_mb), rs in sorted(groups.items()):
        tables = [100.0 * (r["table_pred"] - r["table"]) / r["table"] for r in rs
                  if r.get("table") and r.get("table_pred") is not None]
        wholes = [err_pct(r) for r in rs]
        out.append(f"| {server} | {preset} | {pool_mb}M | {len(rs)} | {span(tables)} | {span(wholes)} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", default=[str(ROOT / "docs" / "data")])
    ap.add_argument("--json", help="write every run's row here")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--measured", metavar="ROWS", help="print docs/workloads.md's Measured table from a --json file")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    if args.measured:
        print(measured(json.loads(Path(args.measured).read_text())))
        return 0
    if args.compare:
        before, after = (json.loads(Path(p).read_text()) for p in args.compare)
        print(compare(before, after))
        for server in ("mariadb-10.11", "mariadb-11.8", "mysql-9.7"):
            print(bands(before, server), "\n->\n" + bands(after, server), sep="\n")
        return 0
    paths = sorted(
        str(p) for d in args.dirs for p in Path(d).rglob("*.json*") if p.name.endswith((".json", ".json.gz"))
    )
    with ProcessPoolExecutor(args.jobs) as ex:
        rows = [r for r in ex.map(one, paths, chunksize=4) if r]
    failed = [r for r in rows if "error" in r]
    if failed:
        print(f"{len(failed)} runs the model could not predict (not counted): {failed[0]['error'][:80]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=0))
    for server in ("mariadb-10.11", "mariadb-11.8", "mysql-9.7"):
        print(bands(rows, server))
    return 0


if __name__ == "__main__":
    sys.exit(main())
