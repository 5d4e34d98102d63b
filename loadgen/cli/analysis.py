"""Analysis commands: predict (no server), sweep (measure pool sizes), report (HTML and plots)."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import ResultError, UsageError
from .options import (RichReporter, dataset_options, driver_options, server_options, settings_option, shape_options,
                      stderr_console, stdout_console, workload_options)


# The variables the model reads, with the ranges the server accepts (MariaDB 10.11 system variables).
MODEL_VARIABLES = {"innodb_old_blocks_pct": (5, 95), "innodb_old_blocks_time": (0, 2**32 - 1),
                   "innodb_lru_scan_depth": (100, 2**32 - 1), "innodb_read_ahead_threshold": (0, 64)}
MAX_HEIGHT = 15  # deeper than any real InnoDB B-tree; the simulator's limit too


@click.command()
@click.option("--variation", default=None, metavar="A|B", help="A = interleaved, B = looped.")
@click.option("--order", default=None, type=click.Choice(["interleaved", "looped", "sequential"]),
              help="The general form of --variation.")
@click.option("--pool", default="128M", show_default=True, metavar="SIZE", help="innodb_buffer_pool_size.")
@dataset_options
@shape_options
@click.option("--rows-per-leaf", type=float, default=None, help="Override rows per leaf page.")
@click.option("--leaf-pages", default=None, help="Leaf pages, when known (mysql.innodb_index_stats).")
@click.option("--height", type=int, default=None, help="B-tree height, when known.")
@click.option("--qps", type=float, default=15_000, show_default=True,
              help="Query rate; innodb_old_blocks_time works in real time.")
@click.option("--flavor", type=click.Choice(["mariadb", "mysql"]), default="mariadb", show_default=True)
@settings_option("The model's server variables: innodb_old_blocks_pct, innodb_old_blocks_time, "
                 "innodb_lru_scan_depth.")
@click.option("--curve", default="8M,16M,32M,64M,128M,256M,512M,1G,2G,4G,8G,16G", show_default=True,
              help="Pool sizes for the miss-ratio curve ('' for none).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def predict(variation, order, pool, dataset_spec, shape, rows_per_leaf, leaf_pages, height, qps, flavor, settings,
            curve, fmt):
    """Predict reads, read requests and hit ratio with the InnoDB LRU model; no server needed.

    Example: loadgen predict --variation B --pool 128M --rows 100M
    """
    import dataclasses
    import json
    import math

    from ..analysis import model
    from ..analysis.sweep import parse_pools
    from ..orders import Workload, resolve
    from ..report import CURVE_HEADERS, curve_cells, forecast_rows, rich_table
    from ..units import parse_count, parse_size

    order_name, _ = resolve(variation, order)
    if order_name not in model.ORDER_CODES:
        raise UsageError(f"predict handles {', '.join(model.ORDER_CODES)}, not {order_name}")
    n_rows = dataset_spec.rows
    pool_bytes = parse_size(pool, "--pool")
    # `not x > 0` also catches nan, which passes every comparison
    if not 0 < qps < math.inf:
        raise UsageError(f"--qps {qps} must be a finite rate above zero", "e.g. --qps 15000")
    if rows_per_leaf is not None and not 0 < rows_per_leaf < math.inf:
        raise UsageError(f"--rows-per-leaf {rows_per_leaf} must be a finite number above zero", "e.g. 113")
    if height is not None and not 1 <= height <= MAX_HEIGHT:
        raise UsageError(f"--height {height} is not a B-tree height", f"give 1..{MAX_HEIGHT} (a 4M-row table has 3)")
    g = model.estimate_geometry(n_rows, dataset_spec.schema, rows_per_leaf)
    if leaf_pages or height:
        g = model.Geometry(n_rows, parse_count(leaf_pages, "--leaf-pages") if leaf_pages else g.leaf_pages,
                           height or g.height)
    variables = {}
    for name, value in settings.items():
        if name not in MODEL_VARIABLES:
            raise UsageError(f"--set {name}: the model has no such variable", f"use {', '.join(MODEL_VARIABLES)}")
        low, high = MODEL_VARIABLES[name]
        if not value.isdigit() or not low <= int(value) <= high:
            raise UsageError(f"--set {name}={value} is out of range", f"give a whole number from {low} to {high}")
        variables[name] = int(value)
    curve_pools = parse_pools(curve, "--curve") if curve.strip() else []
    workload = Workload(order_name, n_rows, **shape)
    fc = model.forecast(workload.order, workload.stride, workload.reps, g, pool_bytes, variables, flavor, qps,
                        curve_pools)
    if fmt == "json":
        click.echo(json.dumps({"geometry": dataclasses.asdict(g), "order": fc.order, "queries": fc.queries,
                               "pool_bytes": pool_bytes, "prediction": fc.at.to_dict(),
                               "curve": [dataclasses.asdict(p) for p in fc.curve]}, indent=2))
        return
    out = stdout_console()
    out.print(rich_table(["", ""], forecast_rows(fc, pool_bytes), title=f"loadgen predict: {order_name}"))
    if fc.curve:
        out.print(rich_table(CURVE_HEADERS, curve_cells(fc), title="miss-ratio curve"))


@click.command()
@click.option("--pools", default="8M,16M,32M,64M,128M,256M", show_default=True, help="Pool sizes to measure.")
@click.option("--variations", default="A,B", show_default=True)
@click.option("--tolerance", default="5%", show_default=True,
              help="Recommend the smallest pool whose miss ratio is within this of the best.")
@click.option("--max-time", default="60", show_default=True, help="Minutes the sweep may take; checked before it starts.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Sweep result file. [default: reports/sweep-<time>.json]")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="Where each run's result file goes.")
@server_options
@dataset_options
@workload_options
@driver_options
def sweep(pools, variations, tolerance, max_time, out, out_dir, server_spec, dataset_spec, shape, sample_interval_s,
          drive):
    """Measure every pool x variation from a cold pool, overlay the prediction, recommend a size.

    Example: loadgen sweep --pools 8M,16M,32M,64M,128M,256M --variations A,B
    """
    from ..analysis import sweep as core
    from ..report import SWEEP_HEADERS, rich_table, sweep_cells
    from ..units import format_bytes
    from ..results import check_destination, check_directory, default_path

    pool_list = core.parse_pools(pools)
    var_list = core.parse_variations(variations)
    try:
        tol = float(str(tolerance).strip().rstrip("%"))
        minutes = float(max_time)
    except ValueError:
        raise UsageError(f"--tolerance {tolerance!r} / --max-time {max_time!r} must be numbers") from None
    if tol < 0 or minutes <= 0:
        raise UsageError("--tolerance must be >= 0 and --max-time above zero")
    est = core.estimate(pool_list, var_list, dataset_spec.rows, shape)
    core.check_budget(est, minutes * 60, core.free_room(server_spec))
    check_directory(out_dir)
    out = check_destination(out) if out else default_path("reports", "sweep")
    with RichReporter() as reporter:
        reporter.say(f"sweep: {est.runs} runs, {est.queries:,} queries, about {est.seconds / 60:,.1f} min")
        result = core.run(server_spec, dataset_spec, pool_list, var_list, shape, out_dir, out, tol, sample_interval_s,
                          reporter, drive=drive)
    console = stdout_console()
    console.print(rich_table(SWEEP_HEADERS, sweep_cells(result), title="loadgen sweep"))
    for key, rec in result.recommendation.items():
        console.print(f"recommended pool for {key}: [bold]{format_bytes(rec['pool_bytes'])}[/] — {rec['reason']}",
                      highlight=False)
    stderr_console().print(f"[dim]sweep written to {out}[/]")


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write one self-contained HTML page (images embedded).")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each plot as PNG and SVG into this directory.")
def report(files, html_path, plots_dir):
    """Plots of run and sweep results: hit ratio and reads over time, latency, miss-ratio curve.

    Example: loadgen report reports/sweep-*.json --html report.html
    """
    from ..plots import html_page, write_plots
    from ..results import load, write_text_atomic

    if html_path is None and plots_dir is None:
        raise UsageError("nothing to write", "give --html FILE and/or --plots DIR")
    results = [load(f, kind=("run", "sweep")) for f in files]
    for doc in results:
        if not doc.has_data:
            raise ResultError(f"{doc.source} holds no data to plot (no samples, totals or points)",
                              "give the file of a run or sweep that measured something")
    if html_path is not None:
        write_text_atomic(html_path, html_page(results))
        stderr_console().print(f"[dim]report written to {html_path}[/]")
    if plots_dir is not None:
        paths = write_plots(results, plots_dir)
        stderr_console().print(f"[dim]{len(paths)} plot files written to {plots_dir}[/]")
