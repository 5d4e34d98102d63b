"""Analysis commands: predict (no server), sweep (measure pool sizes), report (HTML and plots)."""
from __future__ import annotations

import math
from pathlib import Path

import click

from ..errors import ResultError, UsageError
from ..seeding.height import MAX_HEIGHT
from ..servers import VARIABLE_RANGES
from .options import (RichReporter, check_default_out_dir,
                      dataset_options, driver_options, say_trace, server_options, settings_option,
                      shape_options, stderr_console, stdout_console, workload_options)


# The variables the model reads, with the ranges the server accepts (MariaDB 10.11 system variables).
MODEL_VARIABLES = VARIABLE_RANGES  # the model reads these and no other

flavor_option = click.option(
    "--flavor", type=click.Choice(["mariadb", "mysql"]), default="mariadb", show_default=True,
    help="Whose InnoDB rules the model follows: mariadb (10.11: pool in 8 MiB extents of 507 pages, the "
         "page cleaner keeps ~3/4 of innodb_lru_scan_depth free, read-ahead on a step to the next leaf) or "
         "mysql (8.0-9.x: 128 MiB chunks, ~960 pages held from start-up, one timed page-cleaner batch, "
         "read-ahead checked on every page's first access).")


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
@flavor_option
@settings_option("The model's server variables: innodb_old_blocks_pct, innodb_old_blocks_time, "
                 "innodb_lru_scan_depth.")
@click.option("--curve", default="auto", show_default=True,
              help="Pool sizes for the miss-ratio curve, e.g. 8M,64M,1G ('' for none; auto: powers of two "
                   "from a quarter of --pool to past the table's size).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Tables for a terminal, or the same figures as JSON for a script.")
@click.option("--exact", is_flag=True, help="Simulate every curve point in full (no miniatures).")
@click.option("--advise", "with_advice", is_flag=True, help="Also print the pool advice table (see loadgen advise).")
@click.option("--ram", default=None, metavar="SIZE",
              help="With --advise: memory of the target host [default: MemAvailable].")
@click.option("--ms-per-read", type=float, default=None, help="With --advise: milliseconds per buffer-pool read.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the curve (band, knee, current pool) as curve.png and curve.svg into this directory.")
@click.option("--dsn", default=None, metavar="URL",
              help="With --trace OPTRACE: the server whose tables' sizes the prediction reads (read only).")
@click.pass_context
def predict(ctx, variation, order, pool, dataset_spec, shape, rows_per_leaf, leaf_pages, height, qps, flavor,
            settings, curve, fmt, exact, with_advice, ram, ms_per_read, plots_dir, dsn):
    """Predict reads, read requests and hit ratio with the InnoDB LRU model; no server needed.

    The curve comes from miniature simulations (each point with its standard error, exact where
    that error would exceed 2%); --exact simulates every point in full.

    With --trace OPTRACE (a whole server's capture, `loadgen trace capture` without --table):
    pages read per table and index at each --pool (a list: 1G,4G), the tables' sizes from --dsn
    or --schema FILE.sql --rows N.

    Example: loadgen predict --variation B --pool 128M --rows 100M --advise
             loadgen predict --trace server.optrace --dsn mysql://root@db:3306/ --pool 1G,4G
    """
    from ..workload import optrace

    if shape["trace"] and optrace.is_op_trace(shape["trace"]):
        from . import tracepredict

        given = ctx.get_parameter_source
        src = click.core.ParameterSource.DEFAULT
        settings = dict(settings)
        buffering = tracepredict.buffering_setting(settings.pop("innodb_change_buffering", None))
        tracepredict.run(shape["trace"], dsn, dataset_spec.schema if given("schema") != src else None,
                         dataset_spec.rows if given("rows") != src else None, pool,
                         flavor if given("flavor") != src else None, _numeric_settings(settings), qps,
                         given("qps") != src, fmt, buffering)
        return
    if dsn:
        raise UsageError("--dsn goes with --trace OPTRACE (a whole-server capture)",
                         "for one table's prediction from a server: loadgen run --server dsn --table db.tbl")
    import dataclasses
    import json

    from ..analysis import forecast, model
    from ..analysis.predict import forecast_workload, uses_workload_model
    from ..workload.orders import Workload, resolve
    from ..render.report import CURVE_HEADERS, advice_dict, curve_cells, forecast_rows, rich_table
    from ..units import parse_count, parse_pools, parse_size

    order_name, _ = resolve(variation, order, shape["trace"])
    n_rows = dataset_spec.rows
    if "," in str(pool):  # `predict --trace` takes a list (README); here the list is the curve's
        raise UsageError(f"--pool {pool}: one size here (a list of pools goes with --trace OPTRACE)",
                         f"give --pool SIZE and --curve {pool} for the reads at each of those pools")
    pool_bytes = parse_size(pool, "--pool")
    _check_rates(qps, rows_per_leaf)
    if height is not None and not 1 <= height <= MAX_HEIGHT:
        raise UsageError(f"--height {height} is not a B-tree height", f"give 1..{MAX_HEIGHT} (a 4M-row table has 3)")
    g = model.estimate_geometry(n_rows, dataset_spec.schema, rows_per_leaf)
    if leaf_pages or height:
        g = model.Geometry(n_rows, parse_count(leaf_pages, "--leaf-pages") if leaf_pages else g.leaf_pages,
                           height or g.height)
    variables = _numeric_settings(settings)
    curve_pools = forecast.auto_curve_pools(pool_bytes, g) if curve.strip() == "auto" else \
        parse_pools(curve, "--curve") if curve.strip() else []
    workload = Workload(order_name, n_rows, **shape)
    adv = None
    if not uses_workload_model(order_name):  # random, the key distributions, a trace: explicit keys
        from ..analysis import keymodel

        if with_advice:
            raise UsageError(f"--advise handles {', '.join(model.ORDER_CODES)}, not {order_name}",
                             "drop --advise: the curve (--curve) works for every order")
        keymodel.check_size(workload, g)
        if order_name == "trace":
            say_trace(workload)
    elif with_advice:
        from ..analysis.advise import advise as make_advice

        adv = make_advice(workload.order, workload.stride, workload.reps, g, pool_bytes, variables=variables,
                          flavor=flavor, qps=qps, ram_bytes=parse_size(ram, "--ram") if ram else None,
                          ms_per_read=ms_per_read, exact=exact, extra_pools=curve_pools)
    # the advice's pass over the workload gave the plain-LRU histogram too
    fc = forecast_workload(workload, g, pool_bytes, variables, flavor, qps, curve_pools, exact=exact,
                           estimates=adv.estimates if adv else None, hist=adv.plain_lru_hist if adv else None)
    if adv is not None:
        from ..analysis.advise import widen_current

        widen_current(adv, fc.at)
    if plots_dir is not None:
        from ..render.plots import advice_series, write_curve_plots

        series = advice_series([adv]) if adv else [{
            "key": order_name, "curve": [(p.pool_bytes, p.reads, p.reads_se) for p in fc.curve], "measured": [],
            "knee": None, "current": pool_bytes}]
        write_curve_plots(series, plots_dir, f"Predicted miss-ratio curve: {order_name}, {g.rows:,} rows")
        stderr_console().print(f"[dim]curve plot written to {plots_dir}[/]")
    if fmt == "json":
        doc = {"geometry": dataclasses.asdict(g), "order": fc.order, "queries": fc.queries,
               "pool_bytes": pool_bytes, "prediction": fc.at.to_dict(),
               "curve": [dataclasses.asdict(p) for p in fc.curve]}
        if adv:
            doc["advice"] = advice_dict(adv)
        click.echo(json.dumps(doc, indent=2))
        return
    out = stdout_console()
    out.print(rich_table(["", ""], forecast_rows(fc, pool_bytes), title=f"loadgen predict: {order_name}"))
    if fc.curve:
        out.print(rich_table(CURVE_HEADERS, curve_cells(fc), title="miss-ratio curve"))
    if adv:
        _print_advice(out, adv)


def _numeric_settings(settings: dict) -> dict[str, int]:
    """The model's server variables (--set VAR=NUMBER), each within the range the server accepts."""
    variables = {}
    for name, value in settings.items():
        if name not in MODEL_VARIABLES:
            raise UsageError(f"--set {name}: the model has no such variable", f"use {', '.join(MODEL_VARIABLES)}")
        low, high = MODEL_VARIABLES[name]
        if not value.isdigit() or not low <= int(value) <= high:
            raise UsageError(f"--set {name}={value} is out of range", f"give a whole number from {low} to {high}")
        variables[name] = int(value)
    return variables


def _check_rates(qps: float, rows_per_leaf: float | None) -> None:
    """--qps and --rows-per-leaf: finite and above zero (`not 0 < x` also catches nan, which
    passes every comparison)."""
    if not 0 < qps < math.inf:
        raise UsageError(f"--qps {qps} must be a finite rate above zero", "e.g. --qps 15000")
    if rows_per_leaf is not None and not 0 < rows_per_leaf < math.inf:
        raise UsageError(f"--rows-per-leaf {rows_per_leaf} must be a finite number above zero", "e.g. 113")


def _is_mix_run(path: Path) -> bool:
    from ..results.documents import load

    return ((load(path, kind="run").to_dict().get("workload") or {}).get("kind")) == "mix"


def _print_advice(out, adv) -> None:
    from ..render.report import ADVICE_HEADERS, advice_cells, advice_lines, rich_table

    out.print(rich_table(ADVICE_HEADERS, advice_cells(adv), title=f"pool advice: {adv.order}, {adv.queries:,} queries"))
    for line in advice_lines(adv):
        out.print(line, highlight=False)


@click.command()
@click.option("--variations", default="A,B", show_default=True, help="Access orders: A, B, or orders by name.")
@click.option("--pool", default="128M", show_default=True, metavar="SIZE", help="The current innodb_buffer_pool_size.")
@dataset_options
@shape_options
@click.option("--rows-per-leaf", type=float, default=None, help="Override rows per leaf page.")
@click.option("--qps", type=float, default=15_000, show_default=True, help="Query rate (old_blocks_time is real time).")
@flavor_option
@settings_option("innodb_* variables, as for predict.")
@click.option("--ram", default=None, metavar="SIZE", help="Memory of the target host. [default: MemAvailable here]")
@click.option("--ms-per-read", type=float, default=None, help="Milliseconds per buffer-pool read. [default: 0.1]")
@click.option("--result", "result_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="A run result: take rows, the order's shape and ms per read (latency above the median) from it.")
@click.option("--chunk-size", default=None, metavar="SIZE",
              help="innodb_buffer_pool_chunk_size [default: 8M MariaDB, 128M MySQL].")
@click.option("--instances", type=int, default=None,
              help="innodb_buffer_pool_instances [default: as the server picks].")
@click.option("--salt", type=int, default=0, show_default=True, help="Sampling salt of the miniatures.")
@click.option("--exact", is_flag=True, help="Simulate every pool in full (no miniatures).")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True,
              help="Tables for a terminal, or the same figures as JSON for a script.")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the curves of every order (band, knee, current pool) as curve.png/.svg here.")
@click.option("--workload", default=None, metavar="FILE|PRESET",
              help="Scan advice instead: what the workload's scheduled scan (op = \"scan\" with at_s or every_s) "
                   "costs its other streams for innodb_old_blocks_time 0,100,1000,5000 x innodb_old_blocks_pct "
                   "20,37,50, and the setting that protects them (docs/workloads.md, \"Scan advice\"). With "
                   "--result RUN.json of a workload run: its tables, rate, pool and scans.")
def advise(variations, pool, dataset_spec, shape, rows_per_leaf, qps, flavor, settings, ram, ms_per_read,
           result_file, chunk_size, instances, salt, exact, fmt, plots_dir, workload):
    """Pool advice per access order, as Oracle's V$DB_CACHE_ADVICE: estimated reads from 0.25x the
    current pool to where more memory stops paying, the knee, what one more GiB saves, the server
    rules assumed (--flavor) and what to set; no server needed. With --workload: scan advice.

    Example: loadgen advise --pool 128M --rows 100M --ram 16G;
    loadgen advise --workload nightly.toml --pool 1G --qps 5000
    """
    import json

    from .mix import given

    if workload is not None or (result_file is not None and _is_mix_run(result_file)):
        from .scanadvice import scan_advice

        _check_rates(qps, rows_per_leaf)
        scan_advice(workload, result_file, pool if given("pool") else None, qps, given("qps"),
                    dataset_spec.rows if given("rows") else None, shape["count"], flavor,
                    _numeric_settings(settings), rows_per_leaf, fmt)
        return

    from ..analysis import model
    from ..analysis.advise import advise as make_advice
    from ..analysis.advise import ms_per_read_from
    from ..workload.orders import parse_variations
    from ..render.report import advice_dict
    from ..units import parse_size

    n_rows, n_stride, n_reps = dataset_spec.rows, shape["stride"], shape["reps"]
    ms_source = ""
    g = None
    if result_file is not None:
        from ..results.documents import check_values, load

        res = load(result_file, kind="run")
        check_values([res])
        measured = ms_per_read_from(res)
        if ms_per_read is None and measured:
            ms_per_read, ms_source = measured, f"measured in {result_file.name}"
        ds = res.dataset or {}
        if ds.get("leaf_pages"):
            g = model.geometry_of(ds)
            n_rows = g.rows
    _check_rates(qps, rows_per_leaf)
    if ms_per_read is not None and not 0 < ms_per_read < math.inf:
        raise UsageError(f"--ms-per-read {ms_per_read} must be a finite number above zero")
    g = g or model.estimate_geometry(n_rows, dataset_spec.schema, rows_per_leaf)
    variables = _numeric_settings(settings)
    orders = [o for o, _ in parse_variations(variations, tuple(model.ORDER_CODES), who="advise")]
    pool_bytes = parse_size(pool, "--pool")
    advs = [make_advice(o, n_stride, n_reps, g, pool_bytes, variables=variables, flavor=flavor, qps=qps,
                        ram_bytes=parse_size(ram, "--ram") if ram else None, ms_per_read=ms_per_read,
                        ms_source=ms_source, chunk_bytes=parse_size(chunk_size, "--chunk-size") if chunk_size else None,
                        instances=instances, salt=salt, exact=exact) for o in orders]
    if plots_dir is not None:
        from ..render.plots import advice_series, write_curve_plots

        write_curve_plots(advice_series(advs), plots_dir,
                          f"Predicted miss-ratio curve per order: {g.rows:,} rows, stride {n_stride}, reps {n_reps}")
        stderr_console().print(f"[dim]curve plot written to {plots_dir}[/]")
    if fmt == "json":
        click.echo(json.dumps([advice_dict(a) for a in advs], indent=2))
        return
    out = stdout_console()
    for a in advs:
        _print_advice(out, a)


@click.command()
@click.option("--pools", default="8M,16M,32M,64M,128M,256M", show_default=True,
              help="Pool sizes to measure, or 'auto': half, at and twice each order's predicted knee.")
@click.option("--variations", default="A,B", show_default=True,
              help="Access orders to measure at every pool: A, B, or orders by name (zipfian, hotspot, ...).")
@click.option("--tolerance", default="5%", show_default=True,
              help="Recommend the smallest pool whose miss ratio is within this of the best.")
@click.option("--max-time", default="60", show_default=True,
              help="Minutes the sweep may take; checked before it starts.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Sweep result file. [default: reports/sweep-<time>.json]")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="Where each run's result file goes.")
@click.option("--workload", default=None, metavar="FILE|PRESET",
              help="With --set-grid: a mix with a scheduled scan (docs/workloads.md), measured per setting at --pool.")
@click.option("--set-grid", "set_grid", multiple=True, metavar="VAR=V1,V2",
              help="Measure the --workload once per setting (a cold server each) of innodb_old_blocks_time and/or "
                   "innodb_old_blocks_pct, beside the model's ranking, e.g. innodb_old_blocks_time=0,1000.")
@click.option("--baseline", is_flag=True,
              help="With --set-grid: also run each setting without the scan, for the measured hit-ratio loss "
                   "(twice the runs).")
@server_options
@dataset_options
@workload_options
@driver_options
def sweep(pools, variations, tolerance, max_time, out, out_dir, workload, set_grid, baseline, server_spec,
          dataset_spec, shape, sample_interval_s, drive):
    """Measure every pool x variation from a cold pool, overlay the prediction, recommend a size.

    With --workload and --set-grid: measure what the workload's scheduled scan costs its other
    streams per LRU setting, beside the model's figures and the scan advice's pick.

    \b
    Example: loadgen sweep --pools 8M,16M,32M,64M,128M,256M --variations A,B
             loadgen sweep --workload nightly.toml --pool 48M --set-grid innodb_old_blocks_time=0,1000
    """
    if workload is not None or set_grid or baseline:
        from .setgrid import sweep_grid

        sweep_grid(workload, set_grid, baseline, max_time, out, out_dir, server_spec, dataset_spec, shape,
                   sample_interval_s, drive)
        return
    from ..analysis import sweep as core
    from ..render.report import SWEEP_HEADERS, recommendation_lines, rich_table, sweep_cells
    from ..units import format_bytes, parse_pools
    from ..workload.orders import parse_variations
    from ..results.files import check_destination, check_directory, default_path

    var_list = [("trace", None)] if shape["trace"] else parse_variations(variations)
    if shape["trace"]:
        from ..workload.orders import Workload

        say_trace(Workload("trace", dataset_spec.rows, **shape))
    if str(pools).strip().lower() == "auto":
        pool_list, knees = core.knee_pools(dataset_spec.rows, dataset_spec.schema, var_list, shape)
        stderr_console().print("pools around the predicted knee: " + ", ".join(format_bytes(p) for p in pool_list)
                                + " (" + ", ".join(f"{k}: {format_bytes(v) if v else 'no knee'}"
                                                   for k, v in knees.items())
                                + ")", highlight=False)
    else:
        pool_list = parse_pools(pools)
    try:
        tol = float(str(tolerance).strip().rstrip("%"))
        minutes = float(max_time)
    except ValueError:
        raise UsageError(f"--tolerance {tolerance!r} / --max-time {max_time!r} must be numbers") from None
    if tol < 0 or minutes <= 0:
        raise UsageError("--tolerance must be >= 0 and --max-time above zero")
    est = core.budget(pool_list, var_list, dataset_spec.rows, shape)
    core.check_budget(est, minutes * 60, core.free_room(server_spec))
    check_directory(out_dir)
    check_default_out_dir(out_dir)
    out = check_destination(out) if out else default_path("reports", "sweep", picked=True)
    with RichReporter() as reporter:
        reporter.say(f"sweep: {est.runs} runs, {est.queries:,} queries, about {est.seconds / 60:,.1f} min")
        result = core.run(server_spec, dataset_spec, pool_list, var_list, shape, out_dir, out, tol, sample_interval_s,
                          reporter, drive=drive)
    console = stdout_console()
    console.print(rich_table(SWEEP_HEADERS, sweep_cells(result), title="loadgen sweep"))
    for line in recommendation_lines(result):
        console.print(line, highlight=False)
    stderr_console().print(f"[dim]sweep written to {out}[/]")


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write one self-contained HTML page: the tables and the plots (images embedded).")
@click.option("--plots", "plots_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each plot as PNG and SVG into this directory.")
def report(files, html_path, plots_dir):
    """The runs' and sweeps' numbers as tables (what ran: server, version, pool, dataset,
    workload, host; what it measured: pages read against the prediction, hit ratio, q/s,
    latency); with --html or --plots also the plots: hit ratio and reads over time, latency,
    the miss-ratio curve.

    Example: loadgen report reports/sweep-*.json --html report.html
    """
    from ..render.plots import collect, html_page, write_plots
    from ..render.report import (CONTEXT_HEADERS, RUN_HEADERS, SWEEP_HEADERS, context_cells, recommendation_lines,
                                 rich_table, run_cells, sweep_cells)
    from ..results.documents import load
    from ..results.files import write_text_atomic

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
    if html_path is None and plots_dir is None:
        runs, sweeps = collect(results)
        out = stdout_console()
        for s in sweeps:
            out.print(rich_table(SWEEP_HEADERS, sweep_cells(s), title=f"sweep: {s.source}"))
            for line in recommendation_lines(s):
                out.print(line, highlight=False)
        if runs:
            out.print(rich_table(CONTEXT_HEADERS, context_cells(runs), title="what ran"))
            out.print(rich_table(RUN_HEADERS, run_cells(runs), title="what it measured"))
