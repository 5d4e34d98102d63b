"""`loadgen sweep --workload FILE --set-grid VAR=V1,V2`: the scan advice's grid measured, one cold
server per setting (analysis/setgrid.py), printed beside the model's figures."""
from __future__ import annotations

from ..errors import UsageError
from .mix import NOT_WITH_WORKLOAD, given
from .options import RichReporter, check_default_out_dir, stderr_console, stdout_console

HEADERS = ["setting", "scan at op", "pages read", "predicted", "error", "scan's cost", "predicted",
           "lookups after scan", "predicted", "hit ratio after", "predicted", "loss pts", "predicted", "rank",
           "rank (model)"]
EST_QPS = 2_000.0  # the slow end of a mix on this kind of machine (MySQL in docker): estimates stay pessimistic
EST_SERVER_S = 20.0  # a server's start, the check of its tables and a cold restart


def sweep_grid(workload, set_grid, baseline, max_time, out, out_dir, server_spec, dataset_spec, shape,
               sample_interval_s, drive) -> None:
    from ..analysis import setgrid
    from ..results.files import check_destination, check_directory, default_path, write_json_atomic
    from ..workload.presets import resolve

    if workload is None:
        raise UsageError("--set-grid measures a workload's scheduled scan per setting",
                         "give --workload FILE (a mix with a stream of op = \"scan\" and at_s or every_s)")
    if not set_grid:
        raise UsageError("--workload in a sweep measures an LRU grid", "add --set-grid innodb_old_blocks_time=0,1000")
    if server_spec.dsn or server_spec.provider == "dsn":
        raise UsageError("--set-grid starts its own server per setting (a cold one with the setting's variables)",
                         "use --server local or --server docker")
    clash = [n for n in (*NOT_WITH_WORKLOAD, "pools", "variations", "tolerance") if given(n)]
    if clash:
        raise UsageError(f"--{clash[0].replace('_', '-')} goes with a sweep over pools, not with --set-grid",
                         "a workload file says its tables, streams and keys itself")
    if drive.get("pipeline", 1) > 1:
        raise UsageError("--pipeline is not for --set-grid", "the grid runs the mix as `loadgen run` does by default")
    grid = setgrid.parse(set_grid, server_spec.options)
    spec = resolve(workload, rows=dataset_spec.rows if given("rows") else None, operations=shape["count"],
                   seed=shape["seed"] if given("order_seed") else None)
    setgrid.check_workload(spec)
    try:
        minutes = float(max_time)
    except ValueError:
        raise UsageError(f"--max-time {max_time!r} must be a number of minutes") from None
    runs = len(grid) * (2 if baseline else 1)
    est_s = runs * (spec.operations / EST_QPS + EST_SERVER_S)
    if not minutes > 0:
        raise UsageError("--max-time must be above zero")
    if est_s > minutes * 60:
        raise UsageError(f"the grid is {runs} runs of {spec.operations:,} operations: about {est_s / 60:,.0f} min, "
                         f"over --max-time {minutes:g}", "raise --max-time, or give fewer settings or --queries")
    check_directory(out_dir)
    check_default_out_dir(out_dir)
    out = check_destination(out) if out else default_path("reports", "sweep-grid", picked=True)
    with RichReporter() as reporter:
        reporter.say(f"set grid: {len(grid)} settings, {runs} runs of {spec.operations:,} operations, "
                     f"about {est_s / 60:,.1f} min at most")
        result = setgrid.run(server_spec, spec, grid, out_dir, database=dataset_spec.database,
                             data_seed=dataset_spec.seed, sample_interval_s=sample_interval_s, reporter=reporter,
                             driver=drive["driver"], baseline=baseline)
    doc = setgrid.to_dict(result)
    write_json_atomic(out, doc)
    _print(result)
    stderr_console().print(f"[dim]grid written to {out}[/]", highlight=False)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


def _num(x) -> str:
    return "-" if x is None else f"{x:,}"


def _pts(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def _error(pred, meas) -> str:
    return "-" if not pred or not meas else f"{100 * (pred - meas) / meas:+.1f}%"


def _print(result: dict) -> None:
    from ..render.report import rich_table

    points, summ, advice = result["points"], result["summary"], result["advice"]
    rows = []
    for i, p in enumerate(points):
        rows.append([p.label, ", ".join(f"{o:,}" for o in p.scan_at_op) or "-", _num(p.pages_read),
                     _num(p.pages_read_predicted), _error(p.pages_read_predicted, p.pages_read),
                     _num(p.scan_cost), _num(p.scan_cost_predicted),
                     _num(p.lookup_reads_after), _num(p.lookup_reads_after_predicted),
                     _pct(p.lookup_hit_ratio_after), _pct(p.lookup_hit_ratio_after_predicted),
                     _pts(p.hit_ratio_loss_pct), _pts(p.hit_ratio_loss_pct_predicted),
                     str(summ["rank_measured"][i]), str(summ["rank_predicted"][i])])
    out = stdout_console()
    if not out.is_terminal:  # a log or a pipe: wide enough that no column is cut
        from rich.console import Console

        out = Console(width=180)
    out.print(rich_table(HEADERS, rows, title=f"loadgen sweep --set-grid: {result['workload']}"), highlight=False)
    out.print("scan's cost: pages read with the scan less without it (its own reads and the lookups' extra ones; "
              "measured with --baseline); lookups after scan: the other streams' pages read and hit ratio from the "
              "first sample after the last scan ended; loss pts: that hit ratio less the same ops' without the scan",
              highlight=False)
    setting = ", ".join(f"{k} = {v}" for k, v in summ["measured_best"].items())
    out.print(f"Measured: {setting} read the fewest pages; the runs' predictions order "
              f"{summ['pairs_agreeing']} of {summ['pairs']} pairs of settings as measured.", highlight=False)
    if summ["advised"] is None:
        out.print("No advice: no run completed with its scan.", highlight=False)
        return
    advised = ", ".join(f"{k} = {v}" for k, v in summ["advised"].items())
    verdict = "agrees with" if summ["advice_agrees"] else "does NOT agree with"
    out.print(f"The scan advice (at {advice['qps']:,.0f} q/s) names {advised}: the measured ranking {verdict} it.",
              highlight=False)
