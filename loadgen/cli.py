"""The click layer: parse options, call one core function, render what it returns.

Core modules never import click or rich; everything the user sees is decided here.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path

import click

from . import __version__
from .errors import UsageError

DEFAULT_ROWS = "4M"


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def _stdout_console():
    from rich.console import Console

    return Console()


class RichReporter:
    """Progress bars and notes on stderr; results go to stdout."""

    def __init__(self) -> None:
        self.console = _stderr_console()
        self._progress = None
        self._task = None
        self._seed_task = None

    def say(self, message: str) -> None:
        style = "yellow" if message.startswith("warning") else "dim"
        self.console.print(f"[{style}]{message}[/]", highlight=False)

    def _bar(self, *extra_columns):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), *extra_columns,
                        TimeRemainingColumn(), console=self.console, transient=False, refresh_per_second=4)

    def seed_progress(self, done: int, total: int) -> None:
        from rich.progress import TextColumn

        if self._seed_task is None:
            self._progress = self._bar(TextColumn("[cyan]{task.fields[rate]}"))
            self._progress.start()
            self._seed_task = self._progress.add_task("seeding", total=total, rate="")
            self._seed_started = _now()
            self._seed_first = done
        elapsed = _now() - self._seed_started
        rate = (done - self._seed_first) / elapsed if elapsed > 0 else 0
        self._progress.update(self._seed_task, completed=done, rate=f"{rate:,.0f} rows/s")
        if done >= total:
            self._progress.stop()
            self._seed_task = None

    def run_started(self, label: str, total: int) -> None:
        from rich.progress import TextColumn

        self._progress = self._bar(TextColumn("[cyan]{task.fields[qps]}"), TextColumn("[green]{task.fields[hit]}"))
        self._progress.start()
        self._task = self._progress.add_task(label, total=total, qps="", hit="")
        self._run_started = _now()

    def run_progress(self, done: int, hit_ratio: float | None) -> None:
        if self._task is None:
            return
        elapsed = _now() - self._run_started
        qps = f"{done / elapsed:,.0f} q/s" if elapsed > 0 else ""
        hit = f"hit {hit_ratio * 100:.2f}%" if hit_ratio is not None else ""
        self._progress.update(self._task, completed=done, qps=qps, hit=hit)

    def run_finished(self) -> None:
        self.close()

    def close(self) -> None:
        """Stop any live bar, also when a command fails half-way (seeding interrupted)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        self._task = self._seed_task = None

    def __enter__(self) -> "RichReporter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _now() -> float:
    import time

    return time.monotonic()


# -- shared options ------------------------------------------------------------------------------
def server_options(f):
    @click.option("--server", "provider", default="auto", show_default=True,
                  help="Where the server comes from: auto (docker if usable, else local), local, docker, dsn.")
    @click.option("--pool", default=None, metavar="SIZE",
                  help="innodb_buffer_pool_size: 128M, 1G or bytes. [default: 128M; dsn: as the server has it]")
    @click.option("--dsn", default=None, metavar="URL",
                  help="An existing server: mysql://user@host:port/ (password from LOADGEN_PASSWORD or the URL).")
    @click.option("--mysqld", default=None, metavar="PATH", help="The mariadbd/mysqld binary for --server local.")
    @click.option("--image", default=None, help="Container image for --server docker. [default: mysql:8.4]")
    @click.option("--port", type=int, default=None, help="TCP port for a server we start. [default: a free one]")
    @click.option("--set", "settings", multiple=True, metavar="VAR=VALUE",
                  help="Extra server variable for a server we start, e.g. --set innodb_old_blocks_time=0.")
    @functools.wraps(f)
    def wrapper(*args, provider, pool, dsn, mysqld, image, port, settings, **kwargs):
        from .servers import ServerSpec, check_options
        from .units import parse_size

        options = {}
        for item in settings:
            if "=" not in item:
                raise UsageError(f"--set {item!r} is not VAR=VALUE", "e.g. --set innodb_old_blocks_time=0")
            k, v = item.split("=", 1)
            if not k.strip():
                raise UsageError(f"--set {item!r} is not VAR=VALUE", "e.g. --set innodb_old_blocks_time=0")
            name = k.strip().replace("-", "_")
            check_options({name: v})
            options[name.lower()] = v.strip()
        kwargs["server_spec"] = ServerSpec(
            provider=provider, pool_bytes=parse_size(pool, "--pool") if pool is not None else None,
            mysqld=mysqld, dsn=dsn, image=image, port=port, options=options,
        )
        return f(*args, **kwargs)

    return wrapper


def dataset_options(f):
    @click.option("--rows", default=DEFAULT_ROWS, show_default=True, help="Rows in chat.message: 200k, 4M, 4000000.")
    @click.option("--schema", default="chat", show_default=True, help="Schema file under schema/ (without .sql).")
    @click.option("--database", default="chat", show_default=True, help="Database that holds the table.")
    @click.option("--data-seed", type=int, default=1, show_default=True, help="Seed of the row generator.")
    @functools.wraps(f)
    def wrapper(*args, rows, schema, database, data_seed, **kwargs):
        from .dataset import DatasetSpec, schema_text
        from .units import parse_count

        schema_text(schema)  # an unknown schema is a usage error before anything starts
        kwargs["dataset_spec"] = DatasetSpec(rows=parse_count(rows, "--rows"), schema=schema, database=database,
                                             seed=data_seed)
        return f(*args, **kwargs)

    return wrapper


def workload_options(f):
    @click.option("--stride", default="10", show_default=True, help="Query every STRIDE-th id.")
    @click.option("--reps", default="2", show_default=True, help="How many times each id is queried.")
    @click.option("--seed", "order_seed", type=int, default=1, show_default=True, help="Seed of --order random.")
    @click.option("--sample-interval", type=float, default=1.0, show_default=True,
                  help="Seconds between buffer-pool samples.")
    @functools.wraps(f)
    def wrapper(*args, stride, reps, order_seed, sample_interval, **kwargs):
        from .units import parse_count

        if sample_interval <= 0:
            raise UsageError(f"--sample-interval {sample_interval} must be above zero")
        kwargs["shape"] = {"stride": parse_count(stride, "--stride"), "reps": parse_count(reps, "--reps"),
                           "seed": order_seed}
        kwargs["sample_interval_s"] = sample_interval
        return f(*args, **kwargs)

    return wrapper


def driver_options(f):
    @click.option("--driver", default="auto", show_default=True, type=click.Choice(["auto", "native", "python"]),
                  help="Query loop: native (C, prepared statement; auto picks it when built) or python.")
    @click.option("--threads", type=int, default=1, show_default=True,
                  help="Connections, each running the order over its own slice of the ids.")
    @functools.wraps(f)
    def wrapper(*args, driver, threads, **kwargs):
        from .drive import check_threads, resolve_driver

        kwargs["drive"] = {"driver": resolve_driver(driver), "threads": check_threads(threads)}
        return f(*args, **kwargs)

    return wrapper


# -- commands ------------------------------------------------------------------------------------
@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="loadgen")
def cli() -> None:
    """Provision a MySQL/MariaDB server with a chosen buffer pool, drive an access order against
    it, sample the buffer pool while it runs, and report hits, misses and latency.

    Exit codes: 0 ok, 1 error, 2 usage error, 3 regression threshold exceeded, 130 interrupted.
    """


@cli.command()
@click.option("--variation", default=None, metavar="A|B", help="A = interleaved (each id twice in a row), B = looped (two passes).")
@click.option("--order", default=None, type=click.Choice(["interleaved", "looped", "sequential", "random"]),
              help="The general form of --variation.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Result file. [default: reports/run-<order>-<time>.json]")
@server_options
@dataset_options
@workload_options
@driver_options
def run(variation, order, out, server_spec, dataset_spec, shape, sample_interval_s, drive):
    """Run one access order against a cold buffer pool and write a result file.

    Example: loadgen run --variation B --pool 128M
    """
    from . import runner
    from .orders import Workload, resolve
    from .report import rich_table, run_rows
    from .results import default_path

    order_name, var = resolve(variation, order)
    workload = Workload(order_name, dataset_spec.rows, variation=var, **shape)
    out = out or default_path("reports", f"run-{var or order_name}")
    with RichReporter() as reporter:
        [result] = runner.run(server_spec, dataset_spec, [workload], [out], sample_interval_s, reporter, **drive)
    _stdout_console().print(rich_table(["", ""], run_rows(result), title=f"loadgen run: {var or order_name}"))
    reporter.say(f"result written to {out}")


@cli.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--variations", default="A,B", show_default=True, help="Variations to run live, in order.")
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="Where the live runs' result files go.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the comparison as a markdown report to this file.")
@click.option("--max-regression", "max_regression", multiple=True, metavar="PCT|METRIC=PCT",
              help="With BASE NEW files: exit 3 when a metric is worse by more than this (10%, reads=5%).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown", "json"]), default="table",
              show_default=True, help="Output of a BASE NEW file comparison.")
@server_options
@dataset_options
@workload_options
@driver_options
def compare(files, variations, out_dir, report_path, max_regression, fmt, server_spec, dataset_spec, shape,
            sample_interval_s, drive):
    """Run A and B live on one dataset, each from a cold pool, side by side with B/A ratios.

    Example: loadgen compare --pool 8M --rows 2M
    """
    from . import runner
    from .compare import side_by_side
    from .orders import Workload, resolve
    from .report import rich_table, side_by_side_cells, side_by_side_headers
    from .results import default_path, load

    outs = list(files)
    if len(files) == 2 and _compare_files(files, max_regression, fmt, report_path):
        return
    if max_regression:
        raise UsageError("--max-regression needs two result files (or directories): BASE NEW")
    if files:
        results = [load(f) for f in files]
    else:
        names = [v.strip() for v in variations.split(",") if v.strip()]
        if len(names) < 2:
            raise UsageError("--variations needs at least two, e.g. A,B")
        workloads = []
        for name in names:
            order_name, var = resolve(name, None)
            workloads.append(Workload(order_name, dataset_spec.rows, variation=var, **shape))
        outs = [default_path(out_dir, f"compare-{w.variation}") for w in workloads]
        with RichReporter() as reporter:
            results = runner.run(server_spec, dataset_spec, workloads, outs, sample_interval_s, reporter, **drive)
        for path in outs:
            reporter.say(f"result written to {path}")
    rows = side_by_side(results)
    _stdout_console().print(rich_table(side_by_side_headers(results), side_by_side_cells(rows),
                                       title="loadgen compare"))
    if report_path is not None:
        from .report import compare_markdown
        from .results import write_text_atomic

        write_text_atomic(report_path, compare_markdown(results, rows, outs))
        _stderr_console().print(f"[dim]report written to {report_path}[/]")


def _compare_files(paths, max_regression, fmt, report_path) -> bool:
    """BASE NEW (each a result file or a directory of them): metric by metric, gated; False when
    the two sides hold different variations (then they are shown side by side, A vs B)."""
    import json as _json

    from .analysis_report import COMPARE_HEADERS, compare_cells, compare_markdown
    from .compare import compare_files, parse_limits
    from .errors import EXIT_REGRESSION, ResultError
    from .report import rich_table
    from .results import load, write_text_atomic

    limits = parse_limits(max_regression)
    sides = []
    for p in paths:
        files = sorted(p.glob("*.json")) if p.is_dir() else [p]
        if not files:
            raise ResultError(f"{p} holds no result files (*.json)")
        sides.append([load(f) for f in files if not f.name.startswith(".")])
    sides = [[r for r in side if r.get("kind") != "sweep"] for side in sides]
    keys = [{(r.get("workload") or {}).get("variation") or (r.get("workload") or {}).get("order") for r in s}
            for s in sides]
    if not (keys[0] & keys[1]) and not limits:
        return False
    comparison = compare_files(sides[0], sides[1], limits)
    if fmt == "json":
        click.echo(_json.dumps(comparison.to_dict(), indent=2))
    elif fmt == "markdown":
        click.echo(compare_markdown(comparison), nl=False)
    else:
        _stdout_console().print(rich_table(COMPARE_HEADERS, compare_cells(comparison), title="loadgen compare"))
        for note in comparison.notes:
            _stderr_console().print(f"[dim]note: {note}[/]", highlight=False)
    if report_path is not None:
        write_text_atomic(report_path, compare_markdown(comparison))
    if comparison.regressed:
        worst = [f"{r.variation} {r.metric} {r.worse_pct:+.1f}% (limit {r.limit_pct:g}%)"
                 for r in comparison.rows if r.regressed]
        click.echo(f"loadgen: regression: {'; '.join(worst)}", err=True)
        raise SystemExit(EXIT_REGRESSION)
    return True


@cli.command()
@server_options
@dataset_options
def seed(server_spec, dataset_spec):
    """Create and fill chat.message (idempotent; resumes after an interruption)."""
    from . import runner
    from .servers.provision import provisioned

    with RichReporter() as reporter, provisioned(server_spec, dataset_spec, reporter.say) as server:
        runner.prepare_dataset(server, dataset_spec, reporter)


@cli.command()
@server_options
def up(server_spec):
    """Start a server and keep it running between commands (`run` uses it while it is up)."""
    from .servers.provision import up as core_up
    from .units import format_bytes

    reporter = RichReporter()
    server = core_up(server_spec, reporter.say)
    click.echo(f"up: {server.provider} {server.flavor.name} {server.flavor.version}, "
               f"pool {format_bytes(server.pool_bytes)}, {server.endpoint.describe()}")


@cli.command()
def status():
    """Show the server kept up by `loadgen up`, if any (exit 1 when none is up)."""
    from .servers import ServerSpec
    from .servers.provision import attach_running
    from .units import format_bytes

    server = attach_running(ServerSpec())
    if server is None:
        click.echo("no server is up (start one with `loadgen up`)")
        sys.exit(1)
    click.echo(f"up: {server.provider} {server.flavor.name} {server.flavor.version}, "
               f"pool {format_bytes(server.pool_bytes)}, {server.endpoint.describe()}, "
               f"tcp 127.0.0.1:{server.endpoint.port}")


@cli.command()
def down():
    """Stop the server kept up by `loadgen up`."""
    from .servers.provision import down as core_down

    st = core_down()
    click.echo("stopped" if st else "no server was up")


def _register_subgroups() -> None:
    # Sub-groups live in their own modules so each topic stays small.
    from .cli_image import image
    from .cli_analysis import predict, report, sweep
    from .cli_native import native

    cli.add_command(native)
    cli.add_command(predict)
    cli.add_command(sweep)
    cli.add_command(report)
    cli.add_command(image)


_register_subgroups()
