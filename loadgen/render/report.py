"""Results -> rows -> terminal tables (rich), markdown or HTML: run, compare (live and files),
report, predict, advise and sweep. Rows are built once and rendered every way; every number in
them goes through numfmt.py. Plots and the HTML page around the tables are plots.py's.
"""
from __future__ import annotations

import html

from .. import numfmt as nf
from ..results.compare import FileComparison, SideBySide, short_servers
from ..results.documents import RunResult, SweepResult, pages_read

fmt = nf.value  # the formatter of a result file's value by its key (kept for scripts that imported it)


# -- renderers: the same headers and rows for every medium ----------------------------------------
def rich_table(headers: list[str], rows: list[list[str]] | list[tuple], title: str | None = None):
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    key_value = not any(headers)  # (label, text) rows read from the left; columns of figures align right
    for i, h in enumerate(headers):
        # fold, never cut: a file name or a figure cut to "run_A_mari…" says nothing
        table.add_column(h, justify="left" if i == 0 or key_value else "right", overflow="fold")
    for row in rows:
        table.add_row(*[str(c) for c in row])
    return table


def _md_cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " · ")


def markdown_table(headers: list[str], rows) -> str:
    lines = ["| " + " | ".join(_md_cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def html_table(headers: list[str], rows, caption: str | None = None, css_class: str = "") -> str:
    """An HTML table; every cell is escaped (file names and paths are the user's)."""
    def cell(tag, text):
        return f"<{tag}>" + html.escape(str(text)).replace("\n", "<br>") + f"</{tag}>"

    cls = f' class="{css_class}"' if css_class else ""
    head = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    head += "<tr>" + "".join(cell("th", h) for h in headers) + "</tr>" if any(headers) else ""
    body = "".join("<tr>" + "".join(cell("td", c) for c in row) + "</tr>" for row in rows)
    return f"<table{cls}>{head}{body}</table>"


# -- one run --------------------------------------------------------------------------------------
def order_text(wl: dict) -> str:
    """The workload in a few words: its shape, the distribution's knobs, or the trace file."""
    order = wl.get("order")
    if order == "trace":
        t = wl.get("trace") or {}
        text = f"trace {t.get('path')}: {nf.count(t.get('keys'))} keys"
        return text + (f", {nf.count(t.get('outside'))} outside the table skipped" if t.get("outside") else "")
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


def server_text(srv: dict) -> str:
    detail = srv.get("image") or srv.get("endpoint")
    return f"{srv.get('flavor')} {srv.get('version')} ({srv.get('provider')}" + (f" {detail}" if detail else "") + ")"


def dataset_text(ds: dict) -> str:
    return (f"{ds.get('database')}.{ds.get('table')}: {nf.count(ds.get('rows'))} rows, "
            f"{nf.size(ds.get('table_bytes'))}, {nf.count(ds.get('leaf_pages'))} leaf pages, height {ds.get('height')}")


def host_text(host: dict) -> str:
    """Load and steal around a run (hostload.py), and BUSY when the host was: q/s and latency
    of a run on a busy host are not what the server alone would do."""
    before, after = host.get("before") or {}, host.get("after") or {}
    if not before and not after:
        return nf.MISSING
    text = (f"load {nf.number(before.get('load_1m'))} before, {nf.number(after.get('load_1m'))} after, "
            f"on {host.get('cpus')} CPUs; steal {nf.pct(host.get('steal_fraction'))}")
    if host.get("busy"):
        text += "; BUSY: " + "; ".join(host.get("busy_reasons") or [])
    return text


def latency_text(res: dict) -> str:
    lat = res.get("latency_us") or {}
    return "  ".join(f"{k} {nf.number(lat.get(k))}" for k in ("mean", "p50", "p95", "p99", "p999", "max"))


def run_rows(result: RunResult) -> list[tuple[str, str]]:
    """The summary of one run as (label, value) rows."""
    srv, ds, wl, res, bp = result.server, result.dataset, result.workload, result.result, result.buffer_pool
    cold = srv.get("cold_start") or {}
    hit = result.headline_hit_ratio()
    rows = [
        # The headline first: pages read into the pool, the miss count that means the same on
        # MySQL and MariaDB (Innodb_buffer_pool_reads leaves read-ahead out on MySQL).
        ("pages read (misses)", f"{nf.count(result.headline()[0])}  (demand {nf.count(bp.get('demand_reads'))}, "
                                f"read-ahead {nf.count(bp.get('read_ahead'))}; "
                                f"Innodb_buffer_pool_reads {nf.count(bp.get('reads'))})"),
        ("hit ratio", f"{nf.pct(hit)}  (miss ratio {nf.pct(None if hit is None else 1 - hit)}, from pages read)"),
        ("server", server_text(srv)),
        ("buffer pool", f"{nf.size(srv.get('innodb_buffer_pool_size'))} "
                        f"({nf.count(bp.get('pages_total'))} pages), start: {cold.get('method')}, "
                        + start_text(cold)
                        + (f" ({nf.count(cold.get('pages_data_before'))} data pages"
                           + (f", {nf.count(cold['table_pages_before'])} of the table's,"
                              if cold.get("table_pages_before") is not None else "")
                           + " before the run)" if cold.get("pages_data_before") is not None else "")),
        ("table", dataset_text(ds)),
        ("order", order_text(wl)),
        ("queries", f"{nf.count(res.get('queries'))} of {nf.count(wl.get('queries'))}"
                    + ("" if result.complete else f"  INCOMPLETE: {result.incomplete_reason}")),
        ("elapsed", f"{nf.seconds(res.get('elapsed_s'))}, {nf.number(res.get('qps'))} queries/s"
                    + (f", {res['driver']} driver" if res.get("driver") else "")
                    + (f", {res['threads']} connections" if (res.get("threads") or 1) > 1 else "")
                    + (f", pipeline {res['pipeline']}" if (res.get("pipeline") or 1) > 1 else "")),
        (f"latency (µs, {res.get('latency_kind') or 'per_query'})", latency_text(res)),
        ("read requests", f"{nf.count(bp.get('read_requests'))}  "
                          f"({nf.number(bp.get('read_requests_per_query'))} per query)"),
    ]
    if result.host:
        rows.append(("host", host_text(result.host)))
    pred = result.prediction
    if pred:
        why = pred.no_error_reason  # a warm start: no error figure (model.hold_to_measured)
        reads = pred.reads if pred.reads is not None else pred.extra.get("pages_read")  # a mix's: pages_read
        rows.append(("predicted pages read", f"{nf.interval(reads, pred.reads_low, pred.reads_high)} "
                     f"({pred.model}, "
                     + (f"no error figure: {why})" if why and pred.error_pct is None
                        else f"error {nf.change(pred.error_pct)}"
                        + (", the start was not verified cold)" if _unjudged(cold) else ")"))))
    return rows


def _unjudged(cold: dict) -> bool:
    """A start that could not be judged (runner.verify_cold: cold None, pre-#18 files lack the key)."""
    return "cold" in cold and cold["cold"] is None


def start_text(cold: dict) -> str:
    """cold, NOT cold, or not verified (a pool too small for pages_data to tell, without PROCESS)."""
    if _unjudged(cold):
        return "cold not verified"
    return "cold" if cold.get("cold") else "NOT cold"


# -- several runs: the table of `loadgen report` (terminal, markdown, HTML) ------------------------
CONTEXT_HEADERS = ["run", "server", "pool", "dataset", "workload", "host"]
RUN_HEADERS = ["run", "pages read", "predicted", "error", "hit ratio", "q/s", "p50 µs", "p95 µs", "p99 µs",
               "p99.9 µs", "latency kind"]


def run_label(result: RunResult) -> str:
    name = getattr(result, "source", None)
    return f"{result.key}: {name.name}" if name is not None else result.key


def context_cells(results: list[RunResult]) -> list[list[str]]:
    """What each run measured: the server and version, the pool, the dataset, the workload."""
    return [[run_label(r), server_text(r.server), nf.size(r.pool_bytes), dataset_text(r.dataset),
             order_text(r.workload) + f", {nf.count(r.workload.get('queries'))} queries",
             "BUSY" if (r.host or {}).get("busy") else ("quiet" if r.host.get("before") else nf.MISSING)]
            for r in results]


def run_cells(results: list[RunResult]) -> list[list[str]]:
    """What each run gave: pages read against the prediction, hit ratio, rate, latency."""
    rows = []
    for r in results:
        lat = r.result.get("latency_us") or {}
        pred = r.prediction
        rows.append([run_label(r), nf.count(r.headline()[0]), nf.count(pred.reads if pred else None),
                     nf.change(pred.error_pct if pred else None), nf.pct(r.headline_hit_ratio()),
                     nf.number(r.result.get("qps")), *(nf.number(lat.get(k)) for k in ("p50", "p95", "p99", "p999")),
                     (r.result.get("latency_kind") or "per_query") + ("" if r.complete else ", INCOMPLETE")])
    return rows


# -- compare, side by side ------------------------------------------------------------------------
def side_by_side_headers(sbs: SideBySide, sep: str = "\n") -> list[str]:
    """Each run's column names its variation, its file and (runs of several servers) its server."""
    several = len(sbs.servers) > 1
    short = short_servers(sbs.servers)
    heads = []
    for c in sbs.columns:
        parts = [c.key] + ([short[c.server]] if several else []) + ([c.file] if c.file else [])
        heads.append(sep.join(parts))
    ratios = [r.label + (f"{sep}{short[r.server]}" if several else "") for r in sbs.ratios]
    return ["metric", *heads, *ratios]


def side_by_side_cells(sbs: SideBySide) -> list[list[str]]:
    return [[row.label, *(nf.value(v, row.key) for v in row.values), *(nf.times(q) for q in row.ratios)]
            for row in sbs.rows]


def side_by_side_title(sbs: SideBySide) -> str:
    return "loadgen compare" + (f": {sbs.servers[0]}" if len(sbs.servers) == 1 else "")


# B over A's pages read from which a table that "fits" is not said to be read once per page
NEAR_FIT_RATIO = 1.05


def explain_orders(sbs: SideBySide, results: list[RunResult]) -> list[str]:
    """What the runs' orders do and why their pages read differ, then how to read the table."""
    by_key = {r.key: r for r in results}
    lines = []
    a = next((r for r in results if r.workload.get("order") == "interleaved"), None)
    b = next((r for r in results if r.workload.get("order") == "looped"), None)
    if a is not None and b is not None:
        reps = b.workload.get("reps") or 2
        leaves, pages = b.dataset.get("leaf_pages"), b.buffer_pool.get("pages_total")
        ratio = next((q for row in sbs.rows if row.key == "pages_read" for q in row.ratios if q), None)
        lines.append(f"{a.key} (interleaved) looks each id up {reps} times in a row, so every lookup after the "
                     f"first finds its page still in the pool; {b.key} (looped) makes {reps} full passes over "
                     "the same ids.")
        if leaves and pages and leaves > pages:
            lines.append(f"The table ({nf.count(leaves)} leaf pages) does not fit the pool ({nf.count(pages)} pages), "
                         f"so each of {b.key}'s passes finds the pages evicted and reads them again: "
                         + (f"{nf.times(ratio)} the pages {a.key} read here." if ratio else
                            f"about {reps}x the pages {a.key} reads."))
        elif leaves and pages and ratio and ratio >= NEAR_FIT_RATIO:
            # The leaves fit the frames, but not beside what else the pool holds (MySQL's ~960 start-up
            # pages, the free frames the page cleaner keeps): a DBA read "each page once" next to 1.21x.
            lines.append(f"The table ({nf.count(leaves)} leaf pages) fits the pool's {nf.count(pages)} pages only "
                         f"without the server's own (start-up pages, the free frames it keeps), so {b.key}'s second "
                         f"pass re-read some: {nf.times(ratio)} the pages {a.key} read.")
        elif leaves and pages:
            lines.append(f"The table ({nf.count(leaves)} leaf pages) fits the pool ({nf.count(pages)} pages), so both "
                         "orders read each page once; use a smaller --pool or more --rows to see the order matter.")
    elif by_key:
        lines.append("Orders: " + "; ".join(f"{k}: {order_text(r.workload)}" for k, r in by_key.items()) + ".")
    return lines


def table_meaning(sbs: SideBySide) -> str:
    """How to read the side-by-side table, in one sentence."""
    if not sbs.ratios:
        last = "no ratio column: no server ran two of these runs, and runs of different servers are never divided."
    else:
        labels = sorted({r.label for r in sbs.ratios})
        last = (f"{' and '.join(labels)} divides each metric of the last run by the first one's, on the same server"
                + (" (one column per server)." if len(sbs.ratios) > 1 else "."))
    return ("How to read the table: pages read into the pool are the misses (Innodb_pages_read, the same count on "
            "MySQL and MariaDB); hit ratio = 1 - pages read / read requests; " + last)


def side_by_side_markdown(sbs: SideBySide, results: list[RunResult], paths: list | None = None) -> str:
    """A markdown report of a side-by-side comparison: the table, what it means, each run below."""
    parts = [f"# {side_by_side_title(sbs)}", "", " ".join(explain_orders(sbs, results)), "",
             markdown_table(side_by_side_headers(sbs, " · "), side_by_side_cells(sbs)), "", table_meaning(sbs), ""]
    parts += [*(f"- {n}" for n in sbs.notes), ""] if sbs.notes else []
    for i, result in enumerate(results):
        parts += [f"## {result.key}: {result.workload.get('order')}", ""]
        if paths:
            parts += [f"Result file: `{paths[i]}`", ""]
        parts += [markdown_table(["", ""], run_rows(result)), ""]
    return "\n".join(parts)


# -- compare BASE NEW --------------------------------------------------------------------------------------
COMPARE_HEADERS = ["variation", "metric", "base", "new", "new/base", "worse", "runs", "significance", "limit",
                   "verdict"]


# Counters of pages: a base or new value is their mean over the side's runs, still a count.
_COUNTED_METRICS = {"pages_read", "demand_reads", "read_ahead"}


def _metric_value(v, metric: str) -> str:
    return nf.count(v) if metric in _COUNTED_METRICS else nf.value(v, metric)


def comparison_cells(c: FileComparison) -> list[list[str]]:
    rows = []
    for r in c.rows:
        if r.significant is None:
            sig = "not enough data"
        else:
            sig = f"{'significant' if r.significant else 'not significant'} (Welch p={r.p_value:.3g})"
        rows.append([
            r.variation, r.metric, _metric_value(r.base, r.metric), _metric_value(r.new, r.metric), nf.times(r.ratio),
            nf.change(r.worse_pct), f"{r.n_base}/{r.n_new}", sig,
            nf.MISSING if r.limit_pct is None else f"{r.limit_pct:g}%", "REGRESSION" if r.regressed else "ok",
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
        ("table", f"{nf.count(g.rows)} rows, {nf.count(g.leaf_pages)} leaf pages, height {g.height}, "
                  f"{nf.count(g.n_pages)} pages touched"),
        ("workload", f"{fc.order}, {nf.count(fc.queries)} queries"),
        ("pool", f"{nf.size(pool_bytes)}: {nf.count(at.pool_pages)} pages, {nf.count(at.capacity_pages)} hold data "
                 f"(page-cleaner reserve), {nf.number(at.qps)} queries/s assumed"),
        ("predicted reads", f"{nf.interval(at.reads, at.reads_low, at.reads_high)}  ({at.model})"
         if getattr(at, "scale", 1.0) <= 1.0 else
         f"{nf.interval(at.reads, at.reads_low, at.reads_high)}  ({at.model}, ± {nf.count(at.reads_se)} SE, on a copy "
         f"1/{at.scale:,.0f} the table's size, scaled back: docs/innodb.md, \"Large tables\")"),
        *([("page cleaner", f"{nf.count(at.cleaner_low)} .. {nf.count(at.cleaner_high)} reads with no timed LRU "
                            f"batch to two of them (when they land follows the server's activity: a run "
                            "records and replays its own)")]
          if getattr(at, "cleaner_low", None) is not None else []),
        ("read requests", nf.count(at.read_requests)),
        ("hit ratio", f"{nf.pct(at.hit_ratio)}  (miss ratio {nf.pct(1 - at.hit_ratio)})"),
        ("plain LRU reads", f"{nf.count(at.plain_lru_reads)}  (naive baseline, "
                            f"{nf.change((at.plain_lru_reads / at.reads - 1) * 100 if at.reads else 0)} vs the model)"),
        ("pages made young", nf.count(at.made_young)),
    ]


CURVE_HEADERS = ["pool", "data pages", "reads (InnoDB LRU)", "low .. high", "miss ratio", "reads (plain LRU)",
                 "miss ratio (LRU)"]


def curve_cells(fc) -> list[list[str]]:
    return [[nf.size(p.pool_bytes), nf.count(p.capacity_pages), nf.plus_minus(p.reads, getattr(p, "reads_se", 0.0)),
             nf.span(getattr(p, "reads_low", None), getattr(p, "reads_high", None)),
             nf.pct(p.miss_ratio), nf.count(p.plain_lru_reads), nf.pct(p.plain_lru_miss_ratio)]
            for p in fc.curve]


# -- advise ---------------------------------------------------------------------------------------
# (header, cell of an AdviceRow): a column is one entry, so intervals (low/high) are one line each
ADVICE_COLUMNS = [
    ("size factor", lambda adv, r: f"{r.factor:.2f}x"),
    ("pool", lambda adv, r: nf.size(r.pool_bytes)),
    ("est. pages read", lambda adv, r: nf.plus_minus(r.reads, r.reads_se)),
    ("low .. high", lambda adv, r: nf.span(r.reads_low, r.reads_high)),
    ("vs current", lambda adv, r: nf.change((r.read_factor - 1) * 100)),
    ("est. read time", lambda adv, r: nf.seconds(r.read_time_s)),
    ("", lambda adv, r: ", ".join(r.marks)),
]
ADVICE_HEADERS = [h for h, _ in ADVICE_COLUMNS]


def advice_cells(adv) -> list[list[str]]:
    """One row per size factor, as V$DB_CACHE_ADVICE lists them (± = the miniature's standard error)."""
    return [[cell(adv, r) for _, cell in ADVICE_COLUMNS] for r in adv.rows]


def advice_lines(adv) -> list[str]:
    lines = [adv.knee_note, adv.marginal]
    if adv.smoothed:
        lines.append("estimates held monotonic (a larger pool never reads more): "
                     + ", ".join(f"{nf.size(b)} simulated {nf.plus_minus(reads, se)}" for b, reads, se in adv.smoothed)
                     + " (within the miniatures' error of their neighbours)")
    lines.append(f"pools rounded up to {nf.size(adv.unit_bytes)} (innodb_buffer_pool_chunk_size x instances), "
                 f"none above {nf.size(adv.ram_bytes)} of memory; read time = reads x {adv.ms_per_read:g} ms "
                 f"({adv.ms_per_read_source})")
    if adv.dropped:
        lines.append("left out (above the memory limit): " + ", ".join(f"{f:g}x" for f in adv.dropped))
    if adv.merged:
        lines.append(f"left out (the same pool as another row once rounded to {nf.size(adv.unit_bytes)}): "
                     + ", ".join(f"{f:g}x" for f in adv.merged))
    lines.append(adv.assumptions)
    lines.append(adv.verdict)
    return lines


def advice_dict(adv) -> dict:
    import dataclasses

    d = dataclasses.asdict(dataclasses.replace(adv, estimates={}, plain_lru_hist=None))
    d.pop("estimates", None)
    d.pop("plain_lru_hist", None)
    return d


# -- sweep ----------------------------------------------------------------------------------------
SWEEP_HEADERS = ["order", "pool", "pages read", "demand", "read-ahead", "predicted", "low .. high", "error",
                 "plain LRU", "miss ratio", "q/s"]


def sweep_cells(sweep: SweepResult) -> list[list[str]]:
    rows, flavor = [], (sweep.server or {}).get("flavor")  # a v1 point's headline needs it (pages_read)
    for p in sweep.points:
        rows.append([p["variation"], nf.size(p["pool_bytes"]),
                     nf.count(pages_read(p, flavor)[0]),
                     nf.count(p.get("demand_reads")), nf.count(p.get("read_ahead")), nf.count(p.get("predicted_reads")),
                     nf.span(p.get("predicted_low"), p.get("predicted_high")), nf.change(p.get("error_pct")),
                     nf.count(p.get("plain_lru_reads")), nf.pct(p.get("miss_ratio")),
                     nf.number(p.get("qps"))])
    return rows


def recommendation_lines(sweep: SweepResult) -> list[str]:
    return [f"recommended pool for {key}: {nf.size(rec['pool_bytes'])} — {rec['reason']}"
            for key, rec in (sweep.recommendation or {}).items()]
