"""predict --trace OPTRACE: pages read per table and index of a whole server's captured traffic."""
from __future__ import annotations

import json
import math

import click

from ..errors import UsageError
from .options import stderr_console, stdout_console

WRITE_KINDS = ("insert", "update", "delete")  # operations_by_kind's writes


def log_rate(meta: dict) -> float | None:
    """Statements on tables a second over the log's span; None where it has none (no span, or 0:
    MariaDB's logs stamp whole seconds, so a run inside one of them spans 0). Any other span is the
    rate, a second or less too: MySQL's general log stamps microseconds, and sysbench's 2,000 point
    selects at 16M spanned 0.82-1.00 s; the 15,000 q/s taken for them before (a span under a second
    gave none) put the model's timed page-cleaner batch and innodb_old_blocks_time after the run
    (oltp_point_select special: -5.8% .. -24.4% -> +6.2% .. -13.1%; docs/capture.md
    "MySQL at 16M again")."""
    try:  # a trace is the user's file: a header whose counts are not numbers gives no rate (--qps)
        span = float(meta.get("span_s") or 0.0)
        on_tables = int(meta.get("statements") or 0) - int(meta.get("no_table") or 0)
        rate = on_tables / span if span > 0 and on_tables > 0 else None
    except (TypeError, ValueError, OverflowError):
        return None
    return rate if rate is not None and math.isfinite(rate) else None


def buffering_setting(value: str | None) -> str | None:
    """--set innodb_change_buffering=MODE (the trace model's MySQL change buffer), checked."""
    from ..analysis.changebuf import KINDS

    if value is None:
        return None
    if value.lower() not in KINDS:
        raise UsageError(f"--set innodb_change_buffering={value} is not a mode", f"use {', '.join(KINDS)}")
    return value.lower()


def run(trace_path, dsn, schema, rows, pools_text, flavor, variables, qps, qps_given, fmt,
        buffering: str | None = None) -> None:
    """The command's work (loadgen predict --trace with an op trace); buffering: innodb_change_buffering
    as --set gives it (else the --dsn server's; without either, none)."""
    from ..analysis import changebuf, tracegeometry, tracemodel
    from ..units import parse_pools
    from ..workload import optrace

    meta, count, _ = optrace.read_header(trace_path)
    names = sorted({t["table"] for t in meta["trees"]})
    pool_bytes = parse_pools(pools_text, "--pool")
    err = stderr_console()
    if dsn:
        from .. import db
        from ..servers.dsn import parse_dsn

        conn = db.connect(parse_dsn(dsn))
        try:
            tables = tracegeometry.server_tables(conn, names)
            flavor = _flavor(conn) if flavor is None else flavor
            variables = {**_variables(conn), **variables}
            buffering = buffering or _change_buffering(conn)
        finally:
            conn.close()
        for t in tables.values():
            if t.get("stats_note"):
                err.print(f"[yellow]{t['stats_note']}[/]", highlight=False)
    elif schema:
        from ..analysis.tracegeometry import column_bytes
        from ..seeding.schemas import read_schema_text

        if not rows:
            raise UsageError("--schema needs --rows (rows in each table)", "e.g. --schema shop.sql --rows 2M")
        text = read_schema_text(schema)
        widths = {n.partition(".")[2].lower(): column_bytes(text, n.partition(".")[2]) for n in names}
        tables = tracegeometry.offline_geometry(meta, {"*": rows}, widths)
    else:
        raise UsageError("predicting an op trace needs the tables' sizes",
                         "give --dsn URL (the server the log came from) or --schema FILE.sql --rows N")
    flavor = flavor or "mariadb"
    rate = log_rate(meta)
    if not qps_given and rate:
        qps = rate  # innodb_old_blocks_time is real time: the log's own rate
    pools = tracegeometry.pools_of(pool_bytes, flavor, variables, qps)
    buffers = changebuf.kinds_of(flavor, buffering)
    doc = tracemodel.predict(trace_path, tables, pools, flavor, buffers)
    buffering = None if (buffering or "none") == "none" else buffering
    if dsn or buffering:
        doc["change_buffering"] = buffering
    writes = sum(int(doc["operations_by_kind"].get(k) or 0) for k in WRITE_KINDS)
    if buffering and writes and not buffers:  # a MySQL server predicted with MariaDB's rules (--flavor)
        err.print(f"[yellow]note: the server buffers secondary-index changes (innodb_change_buffering="
                  f"{buffering}); the model follows MariaDB's rules (no change buffer), so the index leaf "
                  f"reads it predicts for the trace's {writes:,} writes may come later or not at all "
                  "(docs/capture.md)[/]", highlight=False)
    doc.update({"flavor": flavor, "qps": round(qps, 1), "tables": tables,
                "capture": {k: meta.get(k) for k in ("source", "statements", "no_table", "modelled", "unmodelled",
                                                     "top_unmodelled", "span_s")}})
    if fmt == "json":
        click.echo(json.dumps(doc, indent=2, default=str))
        return
    _print(doc, meta)


def _flavor(conn) -> str:
    from .. import db

    return "mysql" if db.server_flavor(conn).name == "mysql" else "mariadb"


def _change_buffering(conn) -> str | None:
    """innodb_change_buffering where the server has it on (MySQL 8.4 starts with none, Debian's
    9.7.4 with all; MariaDB 10.6.7+ with none, ignores it from 10.9 and has no change buffer from
    11.0). None: off. The server's own flavour, whatever --flavor says of the model's rules."""
    from .. import db

    server = db.server_flavor(conn)
    if server.name != "mysql" and server.version_tuple >= (10, 9):
        return None
    got = db.global_variables(conn, ["innodb_change_buffering"]).get("innodb_change_buffering", "none")
    return None if got.lower() in ("none", "off", "0") else got


def _variables(conn) -> dict:
    from .. import db
    from ..analysis.pool import DEFAULTS

    got = db.global_variables(conn, [*DEFAULTS, "innodb_io_capacity"])  # the last: MySQL's flush list
    return {k: int(v) for k, v in got.items() if str(v).isdigit()}


def _print(doc: dict, meta: dict) -> None:
    from ..render.report import rich_table
    from ..units import format_bytes

    out = stdout_console()
    pools = doc["pools"]
    heads = ["table / index"] + [format_bytes(p["pool_bytes"]) for p in pools]
    rows = []
    for name in sorted(pools[0]["tables"]):
        rows.append([name] + [f"{p['tables'][name]['pages_read']:,}" for p in pools])
        rows.append(["  interval"] + [f"{p['tables'][name]['low']:,}..{p['tables'][name]['high']:,}" for p in pools])
        for idx in sorted(pools[0]["tables"][name]["indexes"]):
            rows.append([f"  {idx}"] + [f"{p['tables'][name]['indexes'][idx]:,}" for p in pools])
    rows.append(["undo (system)"] + [f"{p['system_pages_read']:,}" for p in pools])
    rows.append(["total pages read"] + [f"{p['pages_read']:,}" for p in pools])
    rows.append(["  interval"] + [f"{p['low']:,}..{p['high']:,}" for p in pools])
    rows.append(["hit ratio"] + [f"{100 * p['hit_ratio']:.2f}%" if p["hit_ratio"] is not None else "-" for p in pools])
    title = (f"loadgen predict: {doc['trace']}, {doc['simulated']:,} of {doc['operations']:,} operations, "
             f"{doc['flavor']}, {doc['qps']:,.0f} q/s")
    out.print(rich_table(heads, rows, title=title))
    err = stderr_console()
    from ..render.mixreport import INTERVAL_NOTE

    err.print(f"[dim]{INTERVAL_NOTE}[/]", highlight=False)
    st, mod = int(meta.get("statements") or 0) - int(meta.get("no_table") or 0), int(meta.get("modelled") or 0)
    if st:
        err.print(f"[dim]the capture modelled {mod:,} of {st:,} statements on tables ({100 * mod / st:.1f}%)[/]",
                  highlight=False)
    sampled = [p for p in pools if p.get("sampled")]
    if sampled:  # analysis/tracesample.py: a curve's larger MariaDB pools
        names = ", ".join(format_bytes(p["pool_bytes"]) for p in sampled)
        rates = ", ".join(f"{100 * p['sampled']['rate']:.1f}%" for p in sampled)
        err.print(f"[dim]{names}: simulated on a sample of the leaves ({rates}); the intervals hold +-2 standard "
                  "errors of the sampling (one --pool alone is simulated exactly)[/]", highlight=False)
    from ..analysis.heldspread import note

    for p in pools:  # an interval wide because the prediction sits on a knife edge says so
        line = note(format_bytes(p["pool_bytes"]), p.get("held_spread"))
        if line:
            err.print(f"[yellow]{line}[/]", highlight=False)
    for why, n in doc["skipped"].items():
        err.print(f"[dim]not simulated: {n:,} operations, {why}[/]", highlight=False)
