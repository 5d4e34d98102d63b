"""A mixed run's result as table rows: one row per stream, one per table (and the total), the
flushing, the scheduled streams' executions. Built once; the CLI renders them (report.rich_table).
"""
from __future__ import annotations

from .. import numfmt as nf
from .report import fmt
from ..results.documents import RunResult

STREAM_HEADERS = ["stream", "op", "table", "ops", "ops/s", "p50 µs", "p99 µs", "max µs", "rows", "errors"]
# What "predicted 89,174 (83,761 .. 94,605)" means, under every table that shows one: a reader
# new to loadgen otherwise takes the interval for a statistical confidence level, which it is not.
INTERVAL_NOTE = ("intervals (low .. high): what the model knows it cannot see (read-ahead, its calibrated floor, "
                 "the write side, the pages the pool holds) added in quadrature, not a confidence level; a run can "
                 "fall outside (docs/sizing.md, \"How far a prediction can be off\")")
TABLE_HEADERS = ["table", "pages read", "predicted", "error", "resident at end", "rows inserted", "rows updated",
                 "rows deleted"]


def stream_rows(result: RunResult) -> list[list[str]]:
    rows = []
    for name, s in (result.result.get("streams") or {}).items():
        lat = s.get("latency_us") or {}
        op = s.get("op", "")
        if s.get("executions") is not None:
            op += f" ({len(s['executions'])}x)"
        if not s.get("ops"):  # nothing ran: its latencies are 0s of no operation, not measured
            lat = {}
        rows.append([name, op, s.get("table", ""), fmt(s.get("ops")), fmt(s.get("ops_per_s")), fmt(lat.get("p50")),
                     fmt(lat.get("p99")), fmt(lat.get("max")), fmt(s.get("rows")), fmt(s.get("errors"))])
    res = result.result
    lat = res.get("latency_us") or {}
    rows.append(["all", "", "", fmt(res.get("ops")), fmt(res.get("qps")), fmt(lat.get("p50")), fmt(lat.get("p99")),
                 fmt(lat.get("max")), "", ""])
    return rows


def _pct(value) -> str:
    return "–" if value is None else f"{value:+.1f}%"


def _predicted(p: dict) -> str:
    """The model's pages read with how far they can be off: '20,214 (19,300 .. 21,100)'."""
    return nf.interval(p.get("pages_read"), p.get("reads_low"), p.get("reads_high")) if p.get("pages_read") \
        is not None else fmt(None)


def table_rows(result: RunResult) -> list[list[str]]:
    """Per table: pages read from its .ibd (performance_schema), the model's pages and the error
    (once the model side lands), the pages left in the pool, rows changed; then the whole pool's
    pages read (Innodb_pages_read: every tablespace, system and undo included)."""
    bp = result.buffer_pool or {}
    pred = result.prediction.to_dict() if result.prediction is not None else {}
    ptables = pred.get("tables") or {}
    rows = []
    for name, t in (bp.get("tables") or {}).items():
        p = ptables.get(name) or {}
        resident = t.get("resident_pages_at_end")
        rows.append([name, fmt(t.get("file_pages_read")), _predicted(p), _pct(p.get("error_pct")),
                     fmt(sum(resident.values())) if resident else "–", fmt(t.get("rows_inserted")),
                     fmt(t.get("rows_updated")), fmt(t.get("rows_deleted"))])
    rows.append(["all (Innodb_pages_read)", fmt(bp.get("pages_read")), _predicted(pred),
                 _pct(pred.get("error_pct")), fmt(bp.get("pages_data")), fmt(bp.get("rows_inserted")),
                 fmt(bp.get("rows_updated")), fmt(bp.get("rows_deleted"))])
    return rows


def summary_lines(result: RunResult) -> list[str]:
    """The flushing and the scheduled executions, a line each."""
    bp = result.buffer_pool or {}
    fl = bp.get("flush") or {}
    lines = [f"hit ratio {fmt(bp.get('hit_ratio'), 'ratio')}; read-ahead {fmt(bp.get('read_ahead'))}, "
             f"evicted unread {fmt(bp.get('read_ahead_evicted'))}; made young {fmt(bp.get('made_young'))}, "
             f"not young {fmt(bp.get('made_not_young'))}"]
    lru = fl.get("lru_batch_flushed", bp.get("lru_flushed"))
    lines.append(f"pages flushed {fmt(bp.get('pages_flushed'))} (LRU batches {fmt(lru)}, flush list "
                 f"{fmt(fl.get('flush_list_flushed'))}); dirty pages at the end {fmt(bp.get('pages_dirty'))}")
    if bp.get("history_len") is not None:  # purge lag: undo logs committed, not yet purged
        lines.append(f"purge lag (history list length): {fmt(bp.get('history_len_before'))} at the start, at most "
                     f"{fmt(bp.get('history_len_max'))}, {fmt(bp.get('history_len'))} at the end")
    if fl.get("purge_truncations") is not None:  # MySQL's model walks the headers as often (undomodel)
        lines.append(f"purge batches {fmt(fl.get('purge_batches'))}, walks over the rollback segments' headers "
                     f"{fmt(fl.get('purge_truncations'))}")
    if result.prediction is not None and result.prediction.to_dict().get("reads_low") is not None:
        lines.append(INTERVAL_NOTE)
    note = per_table_note(result)
    if note:
        lines.append(note)
    note = change_buffer_note(result)
    if note:
        lines.append(note)
    note = knife_edge_note(result)
    if note:
        lines.append(note)
    note = slow_writes_note(result)
    if note:
        lines.append(note)
    lines.extend(never_ran_notes(result))
    for name, s in (result.result.get("streams") or {}).items():
        for e in s.get("executions") or []:
            lines.append(f"{name}: {e.get('start_s')} s .. {e.get('end_s')} s, mix ops {fmt(e.get('ops_before'))} .. "
                         f"{fmt(e.get('ops_after'))}" + (f", error: {e['error']}" if e.get("error") else ""))
    return lines


def per_table_note(result: RunResult) -> str | None:
    """A line where no table's own reads were measured (a --dsn MariaDB keeps performance_schema
    OFF by default): the table shows '–' beside each prediction, which alone says nothing of why."""
    tables = (result.buffer_pool or {}).get("tables") or {}
    if not tables or any(t.get("file_pages_read") is not None for t in tables.values()):
        return None
    pfs = str(((result.server or {}).get("variables") or {}).get("performance_schema") or "").upper()
    why = "performance_schema is OFF on the server" if pfs in ("OFF", "0") else \
        "the server gave no reads per file (performance_schema)"
    return (f"note: no table's own pages read were measured: {why}; start it with performance_schema=ON to "
            "measure each table beside its prediction (the total is Innodb_pages_read, every tablespace)")


def never_ran_notes(result: RunResult) -> list[str]:
    """A line per scheduled stream that never ran: the sequence ended before its time (a file's
    `every_s = 60` on a run of a few seconds), which the table's "(0x)" alone does not explain."""
    specs = {s.get("name"): s for s in ((result.workload or {}).get("mix") or {}).get("streams") or []}
    elapsed = result.result.get("elapsed_s")
    lines = []
    for name, s in (result.result.get("streams") or {}).items():
        if s.get("executions") is None or s["executions"]:
            continue
        spec = specs.get(name) or {}
        when = next((f"{k} = {spec[k]:,}" for k in ("at_s", "every_s", "at_op") if spec.get(k) is not None),
                    "its schedule")
        took = f" after {elapsed:,.1f} s" if isinstance(elapsed, (int, float)) else ""
        lines.append(f"note: stream '{name}' never ran ({when}): the mix's operations ended{took}, before its "
                     "first time; give more operations (--queries) or an earlier time (at_op, at_s)")
    return lines


def knife_edge_note(result: RunResult) -> str | None:
    """A line where the prediction's interval is wide because the model's reads move that much with
    a few pages held more or fewer (analysis/heldspread.py)."""
    from ..analysis.heldspread import note
    from ..units import format_bytes

    if result.prediction is None:
        return None
    pool = int((result.server or {}).get("innodb_buffer_pool_size") or 0)
    return note(f"the {format_bytes(pool)} pool" if pool else "the pool", result.prediction.extra.get("held_spread"))


def slow_writes_note(result: RunResult) -> str | None:
    """A line where the run wrote at a rate the write model has over-predicted tables at
    (analysis/intervals.py SLOW_WRITES_QPS): the interval reaches further down, and says why."""
    slow = result.prediction.extra.get("slow_writes") if result.prediction is not None else None
    if not slow:
        return None
    return (f"note: this write mix ran at {slow['qps']:,.0f} q/s; below {slow['below_qps']:,.0f} q/s the model has "
            f"over-predicted a table by up to 18% (sysbench-oltp-rw), so the interval reaches "
            f"{slow['low_rel']:.0%} below the estimate (docs/workloads.md, \"Measured\")")


def change_buffer_note(result: RunResult) -> str | None:
    """A line where the server buffered the run's secondary-index changes (innodb_change_buffering
    on: MySQL, MariaDB before 10.9) and the run wrote a table with a secondary index. MySQL's is
    modelled (analysis/changebuf.py: the line says what the model buffered); MariaDB's is not, so
    there the model reads index leaves the server may not."""
    srv = result.server or {}
    mode = str((srv.get("variables") or {}).get("innodb_change_buffering") or "none").lower()
    if mode in ("none", "off", "0"):
        return None
    version = tuple(int(x) for x in str(srv.get("version") or "0").split("-")[0].split(".")[:2] if x.isdigit())
    if srv.get("flavor") != "mysql" and version >= (10, 9):
        return None  # MariaDB ignores it from 10.9 and has no change buffer from 11.0
    tables = (result.dataset or {}).get("tables") or {}
    indexed = [t for t in tables.values() if any(i != "PRIMARY" for i in (t.get("indexes") or {}))]
    wrote = any(int(t.get(k) or 0) for t in ((result.buffer_pool or {}).get("tables") or {}).values()
                for k in ("rows_inserted", "rows_updated", "rows_deleted"))
    if not (indexed and wrote):
        return None
    if srv.get("flavor") == "mysql":
        got = result.prediction.extra.get("change_buffer") if result.prediction is not None else None
        done = (f": {got.get('buffered', 0):,} changes buffered, {got.get('merged_pages', 0):,} leaves merged"
                if got else "")
        return (f"note: the server buffers secondary-index changes (innodb_change_buffering={mode}); the model "
                f"buffers them as MySQL's change buffer does{done}")
    return (f"note: the server buffers secondary-index changes (innodb_change_buffering={mode}); the model has none "
            "for MariaDB, so it reads index leaves the server may not: set innodb_change_buffering=none "
            "to measure what the model predicts")
