"""Results -> rows -> terminal tables (rich) or markdown: run, compare (live and files), predict
and sweep. Build rows once, render many ways; plots and HTML are plots.py's.
"""
from __future__ import annotations

from .analysis.compare import FileComparison, MetricRow
from .results import RunResult, SweepResult
from .units import format_bytes


def fmt(value, key: str = "") -> str:
    """The one number formatter of every table: '–' for missing, ratios (key has 'ratio') as
    percent, thousands separators, fewer decimals the larger the number."""
    if value is None:
        return "–"
    if "ratio" in key and isinstance(value, float):
        return f"{value * 100:.2f}%"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 10:
            return f"{value:,.1f}"
        return f"{value:,.3f}" if abs(value) >= 1 else f"{value:.4f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def order_text(wl: dict) -> str:
    """The workload in a few words: its shape, the distribution's knobs, or the trace file."""
    order = wl.get("order")
    if order == "trace":
        t = wl.get("trace") or {}
        text = f"trace {t.get('path')}: {fmt(t.get('keys'))} keys"
        return text + (f", {fmt(t.get('outside'))} outside the table skipped" if t.get("outside") else "")
    if order in ("zipfian", "latest"):
        scrambled = "scrambled" if wl.get("zipf_scramble", True) else "not scrambled"
        return f"{order}, theta {wl.get('zipf_theta')}" + (f" ({scrambled})" if order == "zipfian" else "") \
            + f", seed {wl.get('seed')}"
    if order == "hotspot":
        return f"hotspot, {wl.get('hot_ops')} of operations on {wl.get('hot_fraction')} of keys, seed {wl.get('seed')}"
    if order == "uniform":
        return f"uniform, seed {wl.get('seed')}"
    return (f"{order}" + (f" (variation {wl['variation']})" if wl.get("variation") else "")
            + f", stride {wl.get('stride')}, reps {wl.get('reps')}")


def run_rows(result: RunResult) -> list[tuple[str, str]]:
    """The summary of one run as (label, value) rows."""
    srv, ds, wl, res, bp = result.server, result.dataset, result.workload, result.result, result.buffer_pool
    lat = res.get("latency_us", {})
    cold = srv.get("cold_start") or {}
    hit = result.headline_hit_ratio()
    rows = [
        # The headline first: pages read into the pool, the miss count that means the same on
        # MySQL and MariaDB (Innodb_buffer_pool_reads leaves read-ahead out on MySQL).
        ("pages read (misses)", f"{fmt(result.headline()[0])}  (demand {fmt(bp.get('demand_reads'))}, "
                                f"read-ahead {fmt(bp.get('read_ahead'))}; Innodb_buffer_pool_reads {fmt(bp.get('reads'))})"),
        ("hit ratio", f"{fmt(hit, 'ratio')}  (miss ratio {fmt(None if hit is None else 1 - hit, 'ratio')}, "
                      "from pages read)"),
        ("server", f"{srv.get('provider')} {srv.get('flavor')} {srv.get('version')}"),
        ("buffer pool", f"{format_bytes(srv.get('innodb_buffer_pool_size', 0))} "
                        f"({fmt(bp.get('pages_total'))} pages), start: {cold.get('method')}, "
                        + ("cold" if cold.get("cold") else "NOT cold")
                        + (f" ({fmt(cold.get('pages_data_before'))} data pages"
                           + (f", {fmt(cold['table_pages_before'])} of the table's,"
                              if cold.get("table_pages_before") is not None else "")
                           + " before the run)" if cold.get("pages_data_before") is not None else "")),
        ("table", f"{ds.get('database')}.{ds.get('table')}: {fmt(ds.get('rows'))} rows, "
                  f"{format_bytes(ds.get('table_bytes', 0))}, {fmt(ds.get('leaf_pages'))} leaf pages, height {ds.get('height')}"),
        ("order", order_text(wl)),
        ("queries", f"{fmt(res.get('queries'))} of {fmt(wl.get('queries'))}"
                    + ("" if result.complete else f"  INCOMPLETE: {result.incomplete_reason}")),
        ("elapsed", f"{fmt(res.get('elapsed_s'))} s, {fmt(res.get('qps'))} queries/s"
                    + (f", {res['driver']} driver" if res.get("driver") else "")
                    + (f", {res['threads']} connections" if (res.get("threads") or 1) > 1 else "")
                    + (f", pipeline {res['pipeline']}" if (res.get("pipeline") or 1) > 1 else "")),
        ("latency (µs)", "  ".join(f"{k} {fmt(lat.get(k))}" for k in ("mean", "p50", "p95", "p99", "p999", "max"))),
        ("read requests", f"{fmt(bp.get('read_requests'))}  ({fmt(bp.get('read_requests_per_query'))} per query)"),
    ]
    pred = result.prediction
    if pred:
        why = pred.data.get("no_error_reason")  # a warm start: no error figure (model.hold_to_measured)
        rows.append(("predicted pages read", f"{fmt(pred.reads)} ({pred.model}, "
                     + (f"no error figure: {why})" if why and pred.error_pct is None
                        else f"error {fmt(pred.error_pct)}%)")))
    return rows


def side_by_side_headers(results: list[RunResult]) -> list[str]:
    names = [r.key for r in results]
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


def side_by_side_markdown(results: list[RunResult], rows: list[MetricRow], paths: list | None = None) -> str:
    """A markdown report of a side-by-side comparison, with each run's summary below it."""
    parts = ["# loadgen compare", "", markdown_table(side_by_side_headers(results), side_by_side_cells(rows)), ""]
    for i, result in enumerate(results):
        parts += [f"## {result.key}: {result.workload.get('order')}", ""]
        if paths:
            parts += [f"Result file: `{paths[i]}`", ""]
        parts += [markdown_table(["", ""], run_rows(result)), ""]
    return "\n".join(parts)


# -- compare BASE NEW --------------------------------------------------------------------------------------
COMPARE_HEADERS = ["variation", "metric", "base", "new", "new/base", "worse", "runs", "significance", "limit", "verdict"]


def comparison_cells(c: FileComparison) -> list[list[str]]:
    rows = []
    for r in c.rows:
        if r.significant is None:
            sig = "not enough data"
        else:
            sig = f"{'significant' if r.significant else 'not significant'} (Welch p={r.p_value:.3g})"
        rows.append([
            r.variation, r.metric, fmt(r.base), fmt(r.new), "–" if r.ratio is None else f"{r.ratio:.3f}x",
            "–" if r.worse_pct is None else f"{r.worse_pct:+.2f}%", f"{r.n_base}/{r.n_new}", sig,
            "–" if r.limit_pct is None else f"{r.limit_pct:g}%", "REGRESSION" if r.regressed else "ok",
        ])
    return rows


def comparison_markdown(c: FileComparison) -> str:
    verdict = "**Regression**: at least one metric is worse than its limit." if c.regressed else \
        "No regression beyond the limits."
    lines = ["## loadgen compare", "", verdict, "", markdown_table(COMPARE_HEADERS, comparison_cells(c))]
    if c.notes:
        lines += ["", *[f"- {n}" for n in c.notes]]
    return "\n".join(lines) + "\n"


# -- predict --------------------------------------------------------------------------------------
def forecast_rows(fc, pool_bytes: int) -> list[tuple[str, str]]:
    g, at = fc.geometry, fc.at
    return [
        ("table", f"{g.rows:,} rows, {g.leaf_pages:,} leaf pages, height {g.height}, {g.n_pages:,} pages touched"),
        ("workload", f"{fc.order}, {fc.queries:,} queries"),
        ("pool", f"{format_bytes(pool_bytes)}: {at.pool_pages:,} pages, {at.capacity_pages:,} hold data "
                 f"(page-cleaner reserve), {at.qps:,.0f} queries/s assumed"),
        ("predicted reads", f"{at.reads:,}  ({at.model})"),
        ("read requests", f"{at.read_requests:,}"),
        ("hit ratio", f"{at.hit_ratio * 100:.3f}%  (miss ratio {(1 - at.hit_ratio) * 100:.3f}%)"),
        ("plain LRU reads", f"{at.plain_lru_reads:,}  (naive baseline, "
                            f"{(at.plain_lru_reads / at.reads - 1) * 100 if at.reads else 0:+.1f}% vs the model)"),
        ("pages made young", f"{at.made_young:,}"),
    ]


def _reads_se(reads: int, se: float) -> str:
    return f"{reads:,} ± {se:,.0f}" if se else f"{reads:,}"


def curve_cells(fc) -> list[list[str]]:
    return [[format_bytes(p.pool_bytes), f"{p.capacity_pages:,}", _reads_se(p.reads, getattr(p, "reads_se", 0.0)),
             f"{p.miss_ratio * 100:.3f}%", f"{p.plain_lru_reads:,}", f"{p.plain_lru_miss_ratio * 100:.3f}%"]
            for p in fc.curve]


# -- advise ---------------------------------------------------------------------------------------
ADVICE_HEADERS = ["size factor", "pool", "est. pages read", "read factor", "est. read time", ""]


def advice_cells(adv) -> list[list[str]]:
    """One row per size factor, as V$DB_CACHE_ADVICE lists them (± = the miniature's standard error)."""
    rows = []
    for r in adv.rows:
        mark = "current" if r.factor == 1.0 else ("knee" if r.pool_bytes == adv.knee_bytes else "")
        rows.append([f"{r.factor:g}x", format_bytes(r.pool_bytes), _reads_se(r.reads, r.reads_se),
                     f"{r.read_factor:.4f}", f"{r.read_time_s:,.1f} s", mark])
    return rows


def advice_lines(adv) -> list[str]:
    lines = [adv.knee_note, adv.marginal,
             f"pools rounded up to {format_bytes(adv.unit_bytes)} (innodb_buffer_pool_chunk_size x instances), "
             f"none above {format_bytes(adv.ram_bytes)} of memory; read time = reads x {adv.ms_per_read:g} ms "
             f"({adv.ms_per_read_source})"]
    if adv.dropped:
        lines.append("left out (above the memory limit): " + ", ".join(f"{f:g}x" for f in adv.dropped))
    return lines


def advice_dict(adv) -> dict:
    import dataclasses

    d = dataclasses.asdict(adv)
    d.pop("estimates", None)
    return d


CURVE_HEADERS = ["pool", "data pages", "reads (InnoDB LRU)", "miss ratio", "reads (plain LRU)", "miss ratio (LRU)"]


# -- sweep ----------------------------------------------------------------------------------------
SWEEP_HEADERS = ["order", "pool", "pages read", "demand", "read-ahead", "predicted", "error", "plain LRU",
                 "miss ratio", "qps"]


def sweep_cells(sweep: SweepResult) -> list[list[str]]:
    rows = []
    for p in sweep.points:
        rows.append([p["variation"], format_bytes(p["pool_bytes"]),
                     fmt(p.get("pages_read") if p.get("pages_read") is not None else p.get("reads")),
                     fmt(p.get("demand_reads")), fmt(p.get("read_ahead")), fmt(p["predicted_reads"]),
                     "–" if p.get("error_pct") is None else f"{p['error_pct']:+.2f}%", fmt(p["plain_lru_reads"]),
                     "–" if p["miss_ratio"] is None else f"{p['miss_ratio'] * 100:.3f}%", fmt(p["qps"])])
    return rows
