"""`loadgen advise --workload FILE`: what the workload's scheduled scan costs its other streams, per
innodb_old_blocks_time x innodb_old_blocks_pct, and the setting that protects them
(analysis/scanadvice.py)."""
from __future__ import annotations

import json

import click

from ..errors import UsageError
from .options import stderr_console, stdout_console

HEADERS = ["old time ms", "old pct", "lookup reads", "no scan", "extra reads",
           "hit loss pts", "scan reads", "pages read (interval)", ""]


def scan_advice(workload: str | None, result_file, pool: str | None, qps: float, qps_given: bool, rows: int | None,
                queries: int | None, flavor: str, variables: dict, rows_per_leaf: float | None, fmt: str) -> None:
    from ..analysis import mixmodel, scanadvice
    from ..render.report import rich_table
    from ..units import parse_size
    from ..workload.presets import resolve

    run = None
    if result_file is not None:
        from ..results.documents import check_values, load

        doc = load(result_file, kind="run")
        check_values([doc])  # a hand-edited counter or setting: one line, not a traceback
        run = doc.to_dict()
        if (run.get("workload") or {}).get("kind") != "mix":
            raise UsageError(f"{result_file} is not a run of a workload", "give the result of `loadgen run --workload`")
    spec = resolve(workload, rows=rows, operations=queries) if workload else mixmodel.spec_of(run)
    scans, qps_source = None, "--qps" if qps_given else f"--qps default {qps:,.0f}"
    pool_bytes = parse_size(pool, "--pool") if pool else 128 << 20
    if run is not None:
        tables = (run.get("dataset") or {}).get("tables") or {}
        if set(tables) != {t.name for t in spec.tables} or any(not t.get("leaf_pages") for t in tables.values()):
            raise UsageError(f"{result_file} is a run of other tables than the workload's",
                             "give the result of a run of this workload, or leave --result out")
        measured = float((run.get("result") or {}).get("qps") or 0)
        if not qps_given and measured > 0:
            qps, qps_source = measured, f"measured in {result_file.name}"
        srv = run.get("server") or {}
        if pool is None and srv.get("innodb_buffer_pool_size"):
            pool_bytes = int(srv["innodb_buffer_pool_size"])
        flavor = srv.get("flavor") or flavor
        # the run's own setting is the current one (--set overrides it)
        own = {k: v for k, v in (srv.get("variables") or {}).items()
               if k in ("innodb_old_blocks_time", "innodb_old_blocks_pct")}
        variables = {**own, **variables}
        if workload is None:  # the run's own scans, where its executions started
            scans = mixmodel.scheduled_positions(run, spec) or None
            spec = spec.with_overrides(operations=int((run.get("result") or {}).get("ops") or spec.operations))
    else:
        tables = scanadvice.offline_mix_tables(spec, rows_per_leaf)
    # the run's own pool (its start-up pages, the frames it held) where the advice is for its pool
    same_pool = run is not None and pool_bytes == int((run.get("server") or {}).get("innodb_buffer_pool_size") or 0)
    advice = scanadvice.advise(spec, tables, pool_bytes, qps, flavor, variables, scans=scans,
                               run=run if same_pool else None)
    advice["qps_source"] = qps_source
    if fmt == "json":
        click.echo(json.dumps(scanadvice.to_dict(advice), indent=2))
        return
    best, now = advice["best"], advice["current"]
    rows_out = []
    for p in advice["points"]:
        mark = "best" if p == best else ("current" if p == now else "")
        rows_out.append([f"{p.old_blocks_time_ms:,}", f"{p.old_blocks_pct}", f"{p.lookup_reads:,}",
                         f"{p.lookup_reads_no_scan:,}", f"{p.extra_reads:+,}", f"{p.hit_ratio_loss_pct:.2f}",
                         f"{p.scan_reads:,}",
                         f"{p.lookup_reads + p.scan_reads:,} ({p.reads_low:,} .. {p.reads_high:,})", mark])
    at = ", ".join(f"op {op:,} ({', '.join(names)})" for op, names in sorted(advice["scan_ops"].items()))
    out = stdout_console()
    out.print(rich_table(HEADERS, rows_out, title=f"scan advice: {spec.source}, pool {pool_bytes >> 20}M, {flavor}, "
                                                  f"{qps:,.0f} q/s ({qps_source})"), highlight=False)
    out.print(f"scans at {at}; the lookups are the mix's other streams, compared with the same mix "
              "without the scans at the same setting", highlight=False)
    out.print(advice["sentence"][0].upper() + advice["sentence"][1:], highlight=False)
    stderr_console().print("[dim]predicted (no server); check it with `loadgen run --workload FILE --set "
                           "innodb_old_blocks_time=N` per setting (docs/workloads.md, \"Scan advice\")[/]")
