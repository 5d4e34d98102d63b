"""The run family: run, compare, seed, up, status, down."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import EXIT_ERROR, UsageError
from .options import (RichReporter, check_default_out_dir,
                      dataset_options, driver_options, say_trace, server_options, stderr_console,
                      stdout_console, workload_options)


@click.command()
@click.option("--variation", default=None, metavar="A|B",
              help="A = interleaved (each id twice in a row), B = looped (two passes).")
@click.option("--order", default=None, type=click.Choice(["interleaved", "looped", "sequential", "random", "zipfian",
                                                          "hotspot", "latest", "uniform"]),
              help="The general form of --variation; zipfian/hotspot/latest/uniform are YCSB's key distributions.")
@click.option("--workload", default=None, metavar="FILE|PRESET",
              help="A mix of streams over several tables: a workload file (TOML, docs/workloads.md) or a preset: "
                   "ycsb-a .. ycsb-f, sysbench-oltp-ro, sysbench-oltp-rw. --rows sets every table it seeds (a "
                   "preset's default: 300k), --queries its operations (default: a preset's rows, a file's "
                   "`operations`), --seed its order.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Result file. [default: reports/run-<order>-<time>.json]")
@click.option("--allow-writes", is_flag=True,
              help="--trace OPTRACE on --server dsn: replay the trace's inserts, updates and deletes on that server.")
@server_options
@dataset_options
@workload_options
@driver_options
def run(variation, order, workload, out, allow_writes, server_spec, dataset_spec, shape, sample_interval_s, drive):
    """Run one access order (or a --workload mix, or a whole server's op trace) against a cold buffer
    pool and write a result file.

    Example: loadgen run --variation B --pool 128M; loadgen run --workload ycsb-e --pool 16M --rows 300k;
    loadgen run --server dsn --dsn URL --trace server.optrace
    """
    if shape["trace"] is not None and workload is None:
        from ..workload.optrace import is_op_trace

        if is_op_trace(shape["trace"]):
            from .replay import replay

            replay(shape["trace"], out, allow_writes, server_spec, sample_interval_s, drive)
            return
    if allow_writes:
        raise UsageError("--allow-writes goes with --trace OPTRACE (a whole server's op trace)")
    if workload is not None:
        from .mix import run_workload

        run_workload(workload, out, server_spec, dataset_spec, shape, sample_interval_s, drive)
        return
    from ..runner import single
    from ..analysis.predict import predict
    from ..workload.orders import Workload, resolve
    from ..render.report import rich_table, run_rows
    from ..results.files import check_destination, default_path

    order_name, var = resolve(variation, order, shape["trace"])
    workload = Workload(order_name, dataset_spec.rows, variation=var, **shape)
    if order_name == "trace":
        say_trace(workload)
    # a destination that cannot be written fails here, not after the run (the measurement is the cost)
    out = check_destination(out) if out else default_path("reports", f"run-{var or order_name}", picked=True)
    with RichReporter() as reporter:
        [result] = single.run(server_spec, dataset_spec, [workload], [out], sample_interval_s, reporter,
                              predict=predict, **drive)
    stdout_console().print(rich_table(["", ""], run_rows(result), title=f"loadgen run: {var or order_name}"))
    reporter.say(f"result written to {result.source or out}")


@click.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--variations", default="A,B", show_default=True,
              help="Variations (A, B) or orders (zipfian, hotspot, ...) to run live, in order.")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="Where the live runs' result files go.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the comparison as a markdown report to this file.")
@click.option("--max-regression", "max_regression", multiple=True, metavar="PCT|METRIC=PCT",
              help="With BASE NEW files: exit 3 when a metric is worse by more than this (10%, reads=5%).")
@click.option("--allow-incomplete", is_flag=True,
              help="Let --max-regression compare interrupted results or ones without a gated metric.")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]), default="table",
              show_default=True, help="Output on stdout: a table, markdown (as --report writes) or JSON, for "
                                      "every comparison (live, side by side, BASE NEW).")
@server_options
@dataset_options
@workload_options
@driver_options
def compare(files, variations, out_dir, report_path, max_regression, allow_incomplete, fmt, server_spec, dataset_spec,
            shape,
            sample_interval_s, drive):
    """Compare access orders: run them live, or compare result files.

    \b
    Which of the two is chosen by FILES alone:
    - no FILES: live. Each of --variations runs on one dataset, each from a cold
      pool, side by side with the ratio of the last to the first (B/A).
      Example: loadgen compare --pool 8M --rows 2M
    - FILES: result files, nothing runs. BASE NEW (each a file or a directory of
      them) are compared metric by metric, with Welch's t-test and the
      --max-regression gate (exit 3); sides that hold different orders (a run
      of A, a run of B), or more than two files, are shown side by side.
      Example: loadgen compare base/ new/ --max-regression reads=10%
    """
    if files:
        _compare_files(files, max_regression, fmt, report_path, allow_incomplete)
    else:
        if max_regression:
            raise UsageError("--max-regression needs two result files (or directories): BASE NEW")
        _compare_live(variations, out_dir, report_path, server_spec, dataset_spec, shape, sample_interval_s, drive,
                      fmt)


def _compare_live(variations, out_dir, report_path, server_spec, dataset_spec, shape, sample_interval_s,
                  drive, fmt="table") -> None:
    from ..runner import single
    from ..analysis.predict import predict
    from ..workload.orders import Workload, parse_variations
    from ..results.files import check_destination, check_directory, default_path

    parsed = parse_variations(variations)  # A, B, or any order name (zipfian, hotspot, ...)
    if len(parsed) < 2:
        raise UsageError("--variations needs at least two, e.g. A,B")
    check_directory(out_dir)
    check_default_out_dir(out_dir)
    if report_path is not None:
        check_destination(report_path, "--report")
    workloads = [Workload(order_name, dataset_spec.rows, variation=var, **shape) for order_name, var in parsed]
    outs = [default_path(out_dir, f"compare-{w.variation or w.order}") for w in workloads]
    with RichReporter() as reporter:
        results = single.run(server_spec, dataset_spec, workloads, outs, sample_interval_s, reporter,
                             predict=predict, **drive)
    outs = [r.source or path for r, path in zip(results, outs)]
    for path in outs:
        reporter.say(f"result written to {path}")
    _side_by_side(results, outs, report_path, fmt, files=False)


def _side_by_side(results, paths, report_path, fmt="table", files=True) -> None:
    """Runs in columns, each named by its variation, file and server, with B/A per server; as a
    table, markdown or JSON (--format), and --report always markdown."""
    import json as _json

    from ..results.compare import side_by_side
    from ..render.report import (explain_orders, rich_table, side_by_side_cells, side_by_side_headers,
                                 side_by_side_markdown)
    from ..render.report import side_by_side_title, table_meaning
    from ..results.files import write_text_atomic

    sbs = side_by_side(results, paths)
    if fmt == "json":
        click.echo(_json.dumps(sbs.to_dict(), indent=2))
    elif fmt == "markdown":
        click.echo(side_by_side_markdown(sbs, results, paths))
    else:
        out = stdout_console()
        out.print(rich_table(side_by_side_headers(sbs), side_by_side_cells(sbs), title=side_by_side_title(sbs)))
        for line in [*explain_orders(sbs, results), table_meaning(sbs)]:
            out.print(line, highlight=False)
    for note in sbs.notes:
        stderr_console().print(f"[yellow]warning: {note}[/]", highlight=False)
    if files:  # a live run warned as it ended
        _say_busy(results)
    if report_path is not None:
        write_text_atomic(report_path, side_by_side_markdown(sbs, results, paths))
        stderr_console().print(f"[dim]report written to {report_path}[/]")


def _say_busy(results) -> None:
    """A run measured on a busy host: its q/s and latency say as much about the host as the server."""
    for r in results:
        host = getattr(r, "host", None) or {}
        if host.get("busy"):
            name = getattr(r, "source", None) or r.key
            reasons = "; ".join(host.get("busy_reasons") or [])
            stderr_console().print(f"[yellow]warning: {name} ran on a busy host ({reasons}): "
                                   "its q/s and latency may be off[/]", highlight=False)


def _compare_files(paths, max_regression, fmt, report_path, allow_incomplete=False) -> None:
    """BASE NEW (each a result file or a directory of them): metric by metric, gated. Two sides
    without an order in common (A vs B), or other than two paths, are shown side by side."""
    import json as _json

    from ..results.compare import check_gateable, compare_files, gate_problems, parse_limits
    from ..errors import GateError, RegressionError, VersionError
    from .. import numfmt as nf
    from ..render.report import COMPARE_HEADERS, comparison_cells, comparison_markdown, rich_table
    from ..results.documents import load, load_sides
    from ..results.files import write_text_atomic

    limits = parse_limits(max_regression)
    if len(paths) != 2:
        if limits:
            raise UsageError("--max-regression needs two result files (or directories): BASE NEW")
        _side_by_side([load(f, kind="run") for f in paths], list(paths), report_path, fmt)
        return
    try:
        sides = load_sides(paths)
    except VersionError as exc:
        if not limits:
            raise
        raise GateError(f"the --max-regression gate cannot judge: {exc.message}", exc.hint) from None
    if limits and not allow_incomplete:
        check_gateable(sides[0] + sides[1], limits)
    keys = [{r.key for r in side} for side in sides]
    if not (keys[0] & keys[1]) and not limits:  # every run of both sides, each named by its file
        runs = sides[0] + sides[1]
        _side_by_side(runs, [r.source for r in runs], report_path, fmt)
        return
    comparison = compare_files(sides[0], sides[1], limits)
    comparison.notes.extend(gate_problems(sides[0] + sides[1], limits))  # ungated or allowed: still said
    if fmt == "json":
        click.echo(_json.dumps(comparison.to_dict(), indent=2))
    elif fmt == "markdown":
        click.echo(comparison_markdown(comparison), nl=False)
    else:
        stdout_console().print(rich_table(COMPARE_HEADERS, comparison_cells(comparison), title="loadgen compare"))
        for note in comparison.notes:
            stderr_console().print(f"[dim]note: {note}[/]", highlight=False)
    _say_busy(sides[0] + sides[1])
    if report_path is not None:
        write_text_atomic(report_path, comparison_markdown(comparison))
    if comparison.regressed:
        worst = [f"{r.variation} {r.metric} {nf.change(r.worse_pct)} (limit {r.limit_pct:g}%)"
                 for r in comparison.rows if r.regressed]
        raise RegressionError("; ".join(worst))


@click.command()
@click.option("--shape", "shape_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Fill the tables of a shape file (`loadgen clone-shape`) with synthetic rows of that shape, "
                   "in its source's database unless --database is given.")
@server_options
@dataset_options
@click.pass_context
def seed(ctx, shape_file, server_spec, dataset_spec):
    """Create and fill chat.message (idempotent; resumes after an interruption), or a shape's tables.

    Example: loadgen seed --rows 4M; loadgen seed --shape shop.json --server dsn --dsn mysql://root@host/
    """
    from ..runner import single
    from ..servers.provision import provisioned

    if shape_file is not None:
        _seed_shape(ctx, shape_file, server_spec, dataset_spec)
        return
    with RichReporter() as reporter, provisioned(server_spec, dataset_spec, reporter.say) as server:
        single.prepare_dataset(server, dataset_spec, reporter)


def _seed_shape(ctx, shape_file, server_spec, dataset_spec) -> None:
    from ..seeding import shapefile, shapeseed
    from ..servers.provision import provisioned
    from .shape import print_comparison, shape_database

    from click.core import ParameterSource

    flags = {"rows": "--rows", "schema": "--schema", "table_name": "--table-name", "existing_table": "--table",
             "query": "--query", "key_column": "--key-column"}
    given = [flag for name, flag in flags.items() if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        raise UsageError(f"--shape seeds the shape's own tables and rows: {', '.join(given)} does not apply",
                         f"leave out {', '.join(given)}")
    doc = shapefile.read(shape_file)  # checked before any server starts
    database = shape_database(ctx, dataset_spec.database, doc)
    with RichReporter() as reporter, provisioned(server_spec, None, reporter.say) as server:
        conn = server.connect(local_infile=1)
        try:
            results = shapeseed.seed(conn, doc, database, dataset_spec.seed, reporter.seed_progress, reporter.say,
                                     getattr(server, "home", None))
        finally:
            conn.close()
    print_comparison(results)


@click.command()
@server_options
def up(server_spec):
    """Start a server and keep it running between commands (`run` uses it while it is up); run
    again, it reports the running one (exit 0), or says what differs when asked for another."""
    from ..servers.provision import up as core_up
    from ..units import format_bytes

    reporter = RichReporter()
    server = core_up(server_spec, reporter.say)
    again = getattr(server, "already_up", False)
    click.echo(f"{'already up' if again else 'up'}: {server.provider} {server.flavor.name} {server.flavor.version}, "
               f"pool {format_bytes(server.pool_bytes)}, {server.endpoint.describe()}"
               + (f", tcp 127.0.0.1:{server.endpoint.port} " if again else "")
               + ("" if not again else f"(reused; kept up by another job: {server.foreign_owner})"
                  if server.foreign_owner else "(reused; `loadgen down` stops it)"))


@click.command()
def status():
    """Show the server kept up by `loadgen up`, if any (exit 1 when none is up)."""
    from ..servers import ServerSpec
    from ..servers.provision import attach_running
    from ..units import format_bytes

    server = attach_running(ServerSpec())
    if server is None:
        click.echo("no server is up (start one with `loadgen up`)")  # an answer, on stdout; exit 1 says it too
        raise click.exceptions.Exit(EXIT_ERROR)  # through __main__'s map of exits, as every command's
    click.echo(f"up: {server.provider} {server.flavor.name} {server.flavor.version}, "
               f"pool {format_bytes(server.pool_bytes)}, {server.endpoint.describe()}, "
               f"tcp 127.0.0.1:{server.endpoint.port}"
               + (f", kept up by another job ({server.foreign_owner})" if server.foreign_owner else ""))


@click.command()
def down():
    """Stop the server kept up by `loadgen up`."""
    from ..servers.provision import down as core_down

    st = core_down()
    click.echo("stopped" if st else "no server was up")
