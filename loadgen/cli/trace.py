"""trace capture / trace info: build a key trace from a server's logs, and describe one."""
from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from ..errors import UsageError
from .options import stderr_console, stdout_console


@click.group()
def trace() -> None:
    """Key traces for --trace: capture them from a server, describe them."""


@trace.command()
@click.option("--slow-log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A slow log written with long_query_time=0 (statements in the order they finished).")
@click.option("--general-log", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="A general log (statements in the order they arrived).")
@click.option("--performance-schema", "--from-performance-schema", "pfs", is_flag=True,
              help="Poll performance_schema.events_statements_history_long on --dsn (for --duration).")
@click.option("--dsn", default=None, metavar="URL",
              help="The live server: polled with --from-performance-schema; without --table, where the tables' "
                   "primary keys and indexes are read (information_schema, read only).")
@click.option("--schema", "schema_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Without --table: a .sql file of the tables' CREATE TABLEs (instead of --dsn).")
@click.option("--duration", type=float, default=60.0, show_default=True,
              help="Seconds to poll with --from-performance-schema (Ctrl-C stops early and keeps the keys).")
@click.option("--interval", type=float, default=0.5, show_default=True, help="Seconds between polls.")
@click.option("--table", default=None,
              help="Keep only the point lookups on this table (db.table): a key trace. Without it: every "
                   "statement on every table, an op trace for `loadgen predict --trace`.")
@click.option("--key-column", default="id", show_default=True, help="The column matched as `column = N`.")
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The trace file to write (binary; `loadgen trace info` reads it back).")
def capture(slow_log, general_log, pfs, dsn, schema_file, duration, interval, table, key_column, out):
    """Write what a server's log shows, in log order, as a trace.

    With --table: the keys of the point lookups on that table (a key trace). Without: every
    statement on every table, as the operations it makes on each table and index (an op trace,
    docs/capture.md), for `loadgen predict --trace`.

    \b
    Example: loadgen trace capture --slow-log slow.log --table shop.orders -o orders.trace
             loadgen sweep --trace orders.trace --pools 64M,256M ...
             loadgen trace capture --general-log general.log --dsn mysql://root@db:3306/ -o server.optrace
             loadgen predict --trace server.optrace --dsn mysql://root@db:3306/ --pool 1G,4G
    """
    from ..workload import capture as core
    from ..workload import trace as tracefile

    sources = [s for s in (slow_log, general_log, pfs or None) if s]
    if len(sources) != 1:
        raise UsageError("give one source",
                         "--slow-log FILE, --general-log FILE or --performance-schema --dsn URL")
    if table is None:
        if pfs and (not dsn or schema_file is not None):
            raise UsageError("--performance-schema polls the server: give --dsn URL (not --schema)",
                             "e.g. --performance-schema --dsn mysql://reader@127.0.0.1:3306/ --duration 600")
        if pfs and (duration <= 0 or interval <= 0):
            raise UsageError("--duration and --interval must be above zero")
        return _capture_ops(slow_log, general_log, dsn, schema_file, out, (duration, interval) if pfs else None)
    if schema_file is not None:
        raise UsageError("--schema goes with a whole-server capture (without --table)")
    matcher = core.Matcher(table, key_column)
    if slow_log:
        cap = core.Capture("slow log", note="the slow log lists statements as they finish: with several "
                                            "sessions that is not quite the order they were issued")
        keys = core.slow_log_keys(core.read_lines(slow_log), matcher, cap)
    elif general_log:
        cap = core.Capture("general log", note="the general log lists statements as they arrive (issue order)")
        keys = core.general_log_keys(core.read_lines(general_log), matcher, cap)
    else:
        if not dsn:
            raise UsageError("--from-performance-schema needs --dsn", "e.g. --dsn mysql://root@127.0.0.1:3306/")
        if duration <= 0 or interval <= 0:
            raise UsageError("--duration and --interval must be above zero")
        from .. import db
        from ..servers.dsn import parse_dsn

        endpoint = parse_dsn(dsn)
        cap = core.Capture("performance_schema", note="statements in start order; the history ring keeps "
                                                      "performance_schema_events_statements_history_long_size "
                                                      "rows, statements beyond it between polls are lost")
        keys = _until_interrupted(core.pfs_keys(lambda: db.connect(endpoint), matcher, cap, duration, interval))
    cap.keys = tracefile.write(out, keys)
    _report(cap, out)


def _capture_ops(slow_log, general_log, dsn, schema_file, out, poll=None) -> None:
    from ..workload import opcapture, tablekeys

    if (dsn is None) == (schema_file is None):
        raise UsageError("a whole-server capture needs the tables' keys: give --dsn URL or --schema FILE.sql",
                         "e.g. --dsn mysql://root@127.0.0.1:3306/ (read only), or --table db.tbl for one table")
    conn = None
    if schema_file is not None:
        schemas = tablekeys.schemas_from_file(schema_file)
    else:
        from .. import db
        from ..servers.dsn import parse_dsn

        # one statement a call: a log's text EXPLAINed can never carry a second one
        conn = db.connect(parse_dsn(dsn), multi_statements=False)
    try:
        explain = None
        if conn is not None:
            from ..workload import joinops

            schemas = tablekeys.schemas_from_server(conn)
            explain = joinops.explainer(conn)
        if poll is not None:  # performance_schema, on a connection of its own (EXPLAIN has this one)
            from .. import db
            from ..servers.dsn import parse_dsn
            from ..workload import capture as core

            endpoint = parse_dsn(dsn)
            counts = core.Capture("performance_schema")
            statements = _until_interrupted(core.pfs_statements(lambda: db.connect(endpoint), counts, *poll,
                                                                  backlog=False))
            cap = opcapture.run_statements(statements, counts, "performance_schema", schemas, out, explain)
        else:
            cap = opcapture.run(slow_log or general_log, "slow" if slow_log else "general", schemas, out, explain)
    finally:
        if conn is not None:
            conn.close()
    err = stderr_console()
    err.print(f"[dim]{cap.source}: {cap.lines:,} lines, {cap.statements:,} statements ({cap.no_table:,} on no table), "
              f"{cap.modelled:,} of {cap.on_tables:,} on tables modelled ({cap.modelled_pct:.1f}%), "
              f"{cap.ops:,} operations written to {out}[/]", highlight=False)
    if cap.rows_modelled_pct is not None:
        err.print(f"[dim]rows examined (the server's count): {cap.rows_examined_modelled:,} of {cap.rows_examined:,} "
                  f"by modelled statements ({cap.rows_modelled_pct:.1f}%)[/]", highlight=False)
    else:
        err.print("[dim]rows examined: not in a general log (a slow log or performance_schema gives them)[/]",
                  highlight=False)
    for name, n in cap.by_table.most_common(10):
        err.print(f"[dim]  {name}: {n:,} operations[/]", highlight=False)
    from rich.text import Text

    from ..workload import sqlops

    for reason, n in sorted(cap.unused.items(), key=lambda kv: -kv[1]):
        err.print(f"[dim]  not modelled: {n:,} {sqlops.REASONS.get(reason, core_reason(reason))}[/]", highlight=False)
    for d in cap.top(5):
        # A Text, not markup: a digest may hold `[`, and markup=False printed the [dim] tags themselves.
        err.print(Text(f"    {d['statements']:,} x {d['reason']}: {d['digest']}", style="dim"), highlight=False)
    if cap.note:
        err.print(f"[dim]note: {cap.note}[/]", highlight=False)
    if cap.ops == 0:
        raise UsageError(f"no statement on a known table could be modelled from the {cap.source}",
                         "check that the log has the statements and that --dsn/--schema has their tables")


def core_reason(reason: str) -> str:
    from ..workload import capture as core

    return core.REASONS.get(reason, reason)


def _until_interrupted(keys):
    try:
        yield from keys
    except KeyboardInterrupt:
        return


def _report(cap, out) -> None:
    from ..workload import capture as core

    err = stderr_console()
    err.print(f"[dim]{cap.source}: {cap.lines:,} lines, {cap.statements:,} statements, "
              f"{cap.keys:,} keys written to {out}[/]", highlight=False)
    for reason, n in sorted(cap.unused.items(), key=lambda kv: -kv[1]):
        err.print(f"[dim]  not used: {n:,} {core.REASONS.get(reason, reason)}[/]", highlight=False)
    if cap.note:
        err.print(f"[dim]note: {cap.note}[/]", highlight=False)
    if cap.keys == 0:
        raise UsageError(f"no lookups on the table found in the {cap.source}",
                         "check --table db.table and --key-column, and that the log has the statements "
                         "(long_query_time=0 for a slow log)")


@trace.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--rows", default=None, help="Count the keys outside 1..ROWS too.")
def info(file, rows):
    """How many keys a trace holds, its format, and its key range."""
    from ..workload import optrace
    from ..workload import trace as tracefile
    from ..units import parse_count

    if optrace.is_op_trace(file):
        return _op_info(file)
    lo, hi, total = None, None, 0
    for a in tracefile.chunks(file):
        total += len(a)
        lo = min(a) if lo is None else min(lo, min(a))
        hi = max(a) if hi is None else max(hi, max(a))
    out = stdout_console()
    out.print(f"{file}: {tracefile.detect(file)}, {total:,} keys, {lo if lo is not None else '-'}.."
              f"{hi if hi is not None else '-'}", highlight=False)
    if rows:
        s = tracefile.scan(file, 1, parse_count(rows, "--rows"))
        out.print(f"inside 1..{parse_count(rows, '--rows'):,}: {s.keys:,}; below: {s.below:,}; above: {s.above:,}",
                  highlight=False)


def _op_info(file) -> None:
    """An op trace: its operations by table, index and kind, and what the capture could not model."""
    from collections import Counter

    from ..workload import optrace

    meta, count, _ = optrace.read_header(file)
    per: Counter = Counter()
    for a in optrace.chunks(file):
        codes, counts = np.unique(a["tree"].astype(np.int64) * 256 + a["kind"], return_counts=True)
        for code, n in zip(codes, counts):
            t = meta["trees"][int(code) // 256]
            per[(t["table"], t["index"], optrace.KIND_NAMES[int(code) % 256])] += int(n)
    out = stdout_console()
    st = int(meta.get("statements") or 0) - int(meta.get("no_table") or 0)
    out.print(f"{file}: op trace v{optrace.VERSION}.{meta.get('minor', 0)}, {count:,} operations from "
              f"{meta.get('source')}; {meta.get('modelled', 0):,} of {st:,} statements on tables modelled",
              highlight=False)
    for (table, index, kind), n in sorted(per.items()):
        out.print(f"  {table} {index} {kind}: {n:,}", highlight=False)
    for reason, n in sorted((meta.get("unmodelled") or {}).items(), key=lambda kv: -kv[1]):
        out.print(f"  not modelled: {n:,} {reason}", highlight=False)
