"""Result data -> rows -> terminal tables (rich) or markdown. Build rows once, render many ways."""
from __future__ import annotations

from .analysis.compare import MetricRow, dig
from .units import format_bytes, format_count


def fmt(value, key: str = "") -> str:
    if value is None:
        return "–"
    if "ratio" in key and isinstance(value, float):
        return f"{value * 100:.2f}%"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 else f"{value:,.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def run_rows(result: dict) -> list[tuple[str, str]]:
    """The summary of one run as (label, value) rows."""
    srv, ds, wl, res, bp = (result.get(k, {}) for k in ("server", "dataset", "workload", "result", "buffer_pool"))
    lat = res.get("latency_us", {})
    rows = [
        ("server", f"{srv.get('provider')} {srv.get('flavor')} {srv.get('version')}"),
        ("buffer pool", f"{format_bytes(srv.get('innodb_buffer_pool_size', 0))} "
                        f"({fmt(bp.get('pages_total'))} pages), start: {dig(srv, ('cold_start', 'method'))}"),
        ("table", f"{ds.get('database')}.{ds.get('table')}: {fmt(ds.get('rows'))} rows, "
                  f"{format_bytes(ds.get('table_bytes', 0))}, {fmt(ds.get('leaf_pages'))} leaf pages, height {ds.get('height')}"),
        ("order", f"{wl.get('order')}" + (f" (variation {wl['variation']})" if wl.get("variation") else "")
                  + f", stride {wl.get('stride')}, reps {wl.get('reps')}"),
        ("queries", f"{fmt(res.get('queries'))} of {fmt(wl.get('queries'))}"
                    + ("" if result.get("complete") else f"  INCOMPLETE: {result.get('incomplete_reason')}")),
        ("elapsed", f"{fmt(res.get('elapsed_s'))} s, {fmt(res.get('qps'))} queries/s"
                    + (f", {res['driver']} driver" if res.get("driver") else "")
                    + (f", {res['threads']} connections" if (res.get("threads") or 1) > 1 else "")),
        ("latency (µs)", "  ".join(f"{k} {fmt(lat.get(k))}" for k in ("mean", "p50", "p95", "p99", "p999", "max"))),
        ("reads (misses)", f"{fmt(bp.get('reads'))}  (pages read {fmt(bp.get('pages_read'))}, "
                           f"read-ahead {fmt(bp.get('read_ahead'))})"),
        ("read requests", f"{fmt(bp.get('read_requests'))}  ({fmt(bp.get('read_requests_per_query'))} per query)"),
        ("hit ratio", f"{fmt(bp.get('hit_ratio'), 'ratio')}  (miss ratio {fmt(bp.get('miss_ratio'), 'ratio')})"),
    ]
    pred = result.get("prediction")
    if pred:
        rows.append(("predicted reads", f"{fmt(pred.get('reads'))} ({pred.get('model')}, "
                                        f"error {fmt(pred.get('error_pct'))}%)"))
    return rows


def side_by_side_headers(results: list[dict]) -> list[str]:
    names = []
    for r in results:
        wl = r.get("workload", {})
        names.append(wl.get("variation") or wl.get("order") or "?")
    return ["metric", *names, f"{names[-1]}/{names[0]}"]


def side_by_side_cells(rows: list[MetricRow]) -> list[list[str]]:
    return [[row.label, *(fmt(v, row.key) for v in row.values), "–" if row.ratio is None else f"{row.ratio:.2f}x"]
            for row in rows]


def rich_table(headers: list[str], rows: list[list[str]] | list[tuple], title: str | None = None):
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, h in enumerate(headers):
        table.add_column(h, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*[str(c) for c in row])
    return table


def markdown_table(headers: list[str], rows) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def short_count(n) -> str:
    return format_count(n) if isinstance(n, (int, float)) else "–"


def compare_markdown(results: list[dict], rows: list[MetricRow], paths: list | None = None) -> str:
    """A markdown report of a side-by-side comparison, with each run's summary below it."""
    parts = ["# loadgen compare", "", markdown_table(side_by_side_headers(results), side_by_side_cells(rows)), ""]
    for i, result in enumerate(results):
        wl = result.get("workload", {})
        parts += [f"## {wl.get('variation') or wl.get('order')}: {wl.get('order')}", ""]
        if paths:
            parts += [f"Result file: `{paths[i]}`", ""]
        parts += [markdown_table(["", ""], run_rows(result)), ""]
    return "\n".join(parts)
