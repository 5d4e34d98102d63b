"""Analysis commands: predict (no server), sweep (measure pool sizes), report (HTML and plots)."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from .options import (RichReporter, dataset_options, driver_options, say_trace, server_options, settings_option,
                      shape_options, stderr_console, stdout_console, workload_options)


@click.command()
@click.option("--variation", default=None, metavar="A|B", help="A = interleaved, B = looped.")
@click.option("--order", default=None, type=click.Choice(["interleaved", "looped", "sequential", "random", "zipfian",
                                                          "hotspot", "latest", "uniform"]),
              help="The general form of --variation (random, the key distributions and --trace run the "
                   "explicit-key model).")
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

    from ..analysis import model
    from ..analysis.sweep import parse_pools
    from ..orders import Workload, resolve
    from ..report import CURVE_HEADERS, curve_cells, forecast_rows, rich_table
    from ..units import parse_count, parse_size

    order_name, _ = resolve(variation, order, shape["trace"])
    n_rows = dataset_spec.rows
    pool_bytes = parse_size(pool, "--pool")
    if qps <= 0:
        raise UsageError(f"--qps {qps} must be above zero")
    g = model.estimate_geometry(n_rows, dataset_spec.schema, rows_per_leaf)
    if leaf_pages or height:
        g = model.Geometry(n_rows, parse_count(leaf_pages, "--leaf-pages") if leaf_pages else g.leaf_pages,
                           height or g.height)
    variables = {}
    for name, value in settings.items():
        if not value.isdigit():
            raise UsageError(f"--set {name}={value} is not VAR=NUMBER", "e.g. --set innodb_lru_scan_depth=100")
        variables[name] = int(value)
    curve_pools = parse_pools(curve) if curve.strip() else []
    workload = Workload(order_name, n_rows, **shape)
    if order_name in model.ORDER_CODES:
        fc = model.forecast(workload.order, workload.stride, workload.reps, g, pool_bytes, variables, flavor, qps,
                            curve_pools)
    else:  # random, the key distributions, a trace: the model from the explicit key stream
        from ..analysis import keymodel

        if order_name == "trace":
            say_trace(workload)
        fc = keymodel.forecast(workload, g, pool_bytes, variables, flavor, qps, curve_pools)
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
    from ..results import default_path

    pool_list = core.parse_pools(pools)
    var_list = [("trace", None)] if shape["trace"] else core.parse_variations(variations)
    if shape["trace"]:
        from ..orders import Workload

        say_trace(Workload("trace", dataset_spec.rows, **shape))
    try:
        tol = float(str(tolerance).strip().rstrip("%"))
        minutes = float(max_time)
    except ValueError:
        raise UsageError(f"--tolerance {tolerance!r} / --max-time {max_time!r} must be numbers") from None
    if tol < 0 or minutes <= 0:
        raise UsageError("--tolerance must be >= 0 and --max-time above zero")
    est = core.estimate(pool_list, var_list, dataset_spec.rows, shape)
    core.check_budget(est, minutes * 60, core.free_room(server_spec))
    out = out or default_path("reports", "sweep")
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
    if html_path is not None:
        write_text_atomic(html_path, html_page(results))
        stderr_console().print(f"[dim]report written to {html_path}[/]")
    if plots_dir is not None:
        paths = write_plots(results, plots_dir)
        stderr_console().print(f"[dim]{len(paths)} plot files written to {plots_dir}[/]")
