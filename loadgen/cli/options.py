"""What the commands share: the rich reporter (progress on stderr) and the option groups that
turn command-line words into the core's specs (ServerSpec, DatasetSpec, workload shape, driver).
"""
from __future__ import annotations

import functools
import re

import click

from ..errors import UsageError

DEFAULT_ROWS = "4M"
SAMPLE_INTERVAL_MIN_S = 0.01  # below this, SHOW GLOBAL STATUS itself loads the server
SAMPLE_INTERVAL_MAX_S = 3600.0


def stderr_console():
    from rich.console import Console

    console = Console(stderr=True)
    if not console.is_terminal:
        # a CI log: one message, one line (folded at 80 columns it cannot be grepped)
        console = Console(stderr=True, soft_wrap=True)
    return console


def stdout_console():
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        # a log, a pipe or a CI artifact: 80 columns would fold the tables' columns into slivers
        console = Console(width=max(console.width, 120))
    return console


# Without a terminal (CI logs, a pipe) there are no bars: a progress line every this many
# seconds shows the job is alive, at what rate, and when it should end.
PLAIN_PROGRESS_S = 10.0


class RichReporter:
    """Progress bars and notes on stderr; results go to stdout. Where stderr is no terminal, a
    plain progress line (done, rate, ETA) every PLAIN_PROGRESS_S instead of the bars, and one
    when a run ends."""

    def __init__(self, console=None, clock=None, interval_s: float = PLAIN_PROGRESS_S) -> None:
        self.console = console or stderr_console()
        self.plain = not self.console.is_terminal
        self.clock = clock or _now
        self.interval_s = interval_s
        self._progress = None
        self._task = None
        self._seed_task = None
        self._label = ""
        self._total = 0
        self._done = 0
        self._last_line = 0.0

    def say(self, message: str) -> None:
        style = "yellow" if message.startswith("warning") else "dim"
        self.console.print(f"[{style}]{message}[/]", highlight=False)

    def _bar(self, *extra_columns):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), *extra_columns,
                        TimeRemainingColumn(), console=self.console, transient=False, refresh_per_second=4)

    def _line(self, what: str, done: int, total: int, unit: str, started: float, first: int, extra: str = "") -> None:
        """One plain progress line: what, done of total, the rate since the start, the ETA."""
        from ..numfmt import count, number, pct

        elapsed = self.clock() - started
        rate = (done - first) / elapsed if elapsed > 0 else 0.0
        eta = f"ETA {_duration((total - done) / rate)}" if rate > 0 and total > done else "ETA –"
        self.console.print(f"{what}: {count(done)} of {count(total)} {unit} ({pct(done / total if total else None)}), "
                           f"{number(rate)} {unit}/s, {eta}{extra}", highlight=False, soft_wrap=True)

    def _due(self) -> bool:
        now = self.clock()
        if now - self._last_line >= self.interval_s:
            self._last_line = now
            return True
        return False

    def seed_progress(self, done: int, total: int) -> None:
        from rich.progress import TextColumn

        if self._seed_task is None:
            self._seed_started = self.clock()
            self._seed_first = done
            self._last_line = self._seed_started
            self._seed_task = "plain"
            if not self.plain:
                self._progress = self._bar(TextColumn("[cyan]{task.fields[rate]}"))
                self._progress.start()
                self._seed_task = self._progress.add_task("seeding", total=total, rate="")
        if self.plain:
            if done < total and self._due():
                self._line("seeding", done, total, "rows", self._seed_started, self._seed_first)
        else:
            elapsed = self.clock() - self._seed_started
            rate = (done - self._seed_first) / elapsed if elapsed > 0 else 0
            self._progress.update(self._seed_task, completed=done, rate=f"{rate:,.0f} rows/s")
        if done >= total:
            if self._progress is not None:
                self._progress.stop()
                self._progress = None
            self._seed_task = None

    def run_started(self, label: str, total: int) -> None:
        from rich.progress import TextColumn

        self._label, self._total, self._done = label, total, 0
        self._run_started = self._last_line = self.clock()
        self._task = "plain"
        if not self.plain:
            self._progress = self._bar(TextColumn("[cyan]{task.fields[qps]}"), TextColumn("[green]{task.fields[hit]}"))
            self._progress.start()
            self._task = self._progress.add_task(label, total=total, qps="", hit="")

    def run_progress(self, done: int, hit_ratio: float | None) -> None:
        from ..numfmt import pct

        if self._task is None:
            return
        self._done = done
        if self.plain:
            if self._due():
                self._line(self._label, done, self._total, "queries", self._run_started, 0,
                           f", hit ratio {pct(hit_ratio)}" if hit_ratio is not None else "")
            return
        elapsed = self.clock() - self._run_started
        qps = f"{done / elapsed:,.0f} q/s" if elapsed > 0 else ""
        hit = f"hit {pct(hit_ratio)}" if hit_ratio is not None else ""
        self._progress.update(self._task, completed=done, qps=qps, hit=hit)

    def run_finished(self) -> None:
        if self.plain and self._task is not None:
            from ..numfmt import count, number, seconds

            elapsed = self.clock() - self._run_started
            self.console.print(f"{self._label}: {count(self._done)} of {count(self._total)} queries in "
                               f"{seconds(elapsed)}, {number(self._done / elapsed if elapsed > 0 else None)} queries/s",
                               highlight=False, soft_wrap=True)
        self.close()

    def close(self) -> None:
        """Stop any live bar, also when a command fails half-way (seeding interrupted)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        self._task = self._seed_task = None

    def __enter__(self) -> RichReporter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _duration(s: float) -> str:
    """An ETA: 45 s, 12 min, 2.5 h."""
    if s < 100:
        return f"{s:.0f} s"
    if s < 6000:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def _now() -> float:
    import time

    return time.monotonic()


def say_trace(workload) -> None:
    """How many of a trace's keys lie inside the table; the ones outside are skipped."""
    s = workload.trace_scan()
    note = f"trace {s.path}: {s.total:,} keys, {s.keys:,} inside the table's 1..{workload.rows:,}"
    if s.outside:
        note += f"; {s.outside:,} outside it ({s.below:,} below, {s.above:,} above) are skipped"
    stderr_console().print(f"[{'yellow' if s.outside else 'dim'}]{note}[/]", highlight=False)


# -- shared options ------------------------------------------------------------------------------
def settings_option(help_text: str):
    """--set VAR=VALUE (repeatable) -> {"var": "value"}, dashes in names read as underscores."""

    def callback(ctx, param, items) -> dict[str, str]:  # click's signature
        from ..servers import check_options

        settings = {}
        for item in items:
            name, sep, value = item.partition("=")
            if not sep or not name.strip():
                raise UsageError(f"--set {item!r} is not VAR=VALUE", "e.g. --set innodb_old_blocks_time=0")
            settings[name.strip().replace("-", "_")] = value.strip()
        check_options(settings)  # names only [A-Za-z0-9_]: a server flag, never more
        return {name.lower(): value for name, value in settings.items()}

    return click.option("--set", "settings", multiple=True, metavar="VAR=VALUE", callback=callback, help=help_text)


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
    @settings_option("Extra server variable for a server we start, e.g. --set innodb_old_blocks_time=0.")
    @functools.wraps(f)
    def wrapper(*args, provider, pool, dsn, mysqld, image, port, settings, **kwargs):
        from ..servers import ServerSpec
        from ..units import parse_size

        kwargs["server_spec"] = ServerSpec(
            provider=provider, pool_bytes=parse_size(pool, "--pool") if pool is not None else None,
            mysqld=mysqld, dsn=dsn, image=image, port=port, options=settings,
        )
        return f(*args, **kwargs)

    return wrapper


def dataset_options(f):
    @click.option("--rows", default=DEFAULT_ROWS, show_default=True, help="Rows in chat.message: 200k, 4M, 4000000.")
    @click.option("--schema", default="chat", show_default=True,
                  help="A schema under schema/ (chat, chat_wide, chat_idx, ycsb, sbtest) or any .sql file of "
                       "CREATE TABLEs.")
    @click.option("--table-name", default=None, metavar="NAME",
                  help="Which table of the --schema file to seed and query. [default: the first]")
    @click.option("--table", "existing_table", default=None, metavar="DB.TABLE",
                  help="Measure this existing table on the --dsn server instead (read only: no seeding, no DDL).")
    @click.option("--query", default=None, metavar="SQL",
                  help="The statement to run per access, with one ? bound to the key, e.g. "
                       "'SELECT body FROM message WHERE id = ?'.")
    @click.option("--key-column", default=None, metavar="COL",
                  help="Look rows up by this column (a secondary index) instead of the primary key.")
    @click.option("--database", default="chat", show_default=True, help="Database that holds the table.")
    @click.option("--data-seed", type=int, default=1, show_default=True, help="Seed of the row generator.")
    @functools.wraps(f)
    def wrapper(*args, rows, schema, table_name, existing_table, query, key_column, database, data_seed, **kwargs):
        kwargs["dataset_spec"] = dataset_spec_from(rows, schema, table_name, existing_table, query, key_column,
                                                   database, data_seed)
        return f(*args, **kwargs)

    return wrapper


_DATABASE_RE = re.compile(r"[A-Za-z0-9_]{1,64}")


SYSTEM_DATABASES = ("mysql", "information_schema", "performance_schema", "sys")


def check_database_name(name: str) -> str:
    """--database goes into SQL as an identifier: letters, digits and _, at most 64 (the server's
    limit), not only digits. Anything else would be an SQL error (or worse) once a server is up."""
    if not _DATABASE_RE.fullmatch(name) or name.isdigit():
        raise UsageError(f"--database {name!r} is not a plain database name",
                         "use letters, digits and _ (at most 64), e.g. --database chat")
    if name.lower() in SYSTEM_DATABASES:  # loadgen creates, fills and may drop tables in its database
        raise UsageError(f"--database {name} is the server's own",
                         "give loadgen a database of its own, e.g. --database chat")
    return name


def dataset_spec_from(rows, schema, table_name=None, existing_table=None, query=None, key_column=None,
                      database="chat", data_seed=1):
    """The options above -> DatasetSpec; bad input is a usage error before anything starts."""
    from pathlib import Path

    from ..seeding.dataset import DatasetSpec, is_schema_path, schema_text
    from ..units import parse_count
    from ..seeding.usertable import ident
    from ..seeding.userquery import check_query

    if existing_table is None:
        check_database_name(database)
    if query is not None:
        query = check_query(query)
    if key_column is not None:
        ident(key_column, "--key-column")
    if existing_table is not None:
        db_name, dot, table = existing_table.partition(".")
        if not dot:
            raise UsageError(f"--table {existing_table} needs the database: DB.TABLE", "e.g. --table shop.orders")
        ident(db_name, "--table database")
        ident(table, "--table table")
        if schema != "chat" or table_name:
            raise UsageError("--table measures an existing table: it goes without --schema and --table-name")
        return DatasetSpec(rows=parse_count(rows, "--rows"), schema=existing_table, database=db_name, seed=0,
                           table=table, existing=True, query=query, key_column=key_column)
    if is_schema_path(schema):
        from ..seeding.schemas import queried_table, read_schema_file

        # a statement other than CREATE TABLE / INDEX, no table, no key: exit 2 now
        queried_table(read_schema_file(Path(schema), database), table_name)
    else:
        text = schema_text(schema)  # an unknown schema is a usage error before anything starts
        if table_name:
            raise UsageError("--table-name picks a table of a --schema FILE.sql", "drop it for the built-in schemas")
        from ..workload.tabledefs import tables

        if tables(text) != ["message"]:  # ycsb, sbtest: another table, seeded as a schema file's is
            from ..seeding.dataset import schema_dir

            schema = str(schema_dir() / f"{schema}.sql")
    return DatasetSpec(rows=parse_count(rows, "--rows"), schema=schema, database=database, seed=data_seed,
                       table=table_name, query=query, key_column=key_column)


def shape_options(f):
    """--stride, --reps, --seed and the key distributions' knobs (--queries, --zipf-theta, ...,
    --trace) -> shape={...}: what a Workload needs besides its order and rows (run, compare, sweep
    and predict share them)."""
    @click.option("--stride", default="10", show_default=True, help="Query every STRIDE-th id.")
    @click.option("--reps", default="2", show_default=True, help="How many times each id is queried.")
    @click.option("--seed", "order_seed", type=int, default=1, show_default=True,
                  help="Seed of --order random and of the key distributions.")
    @click.option("--queries", default=None, metavar="N",
                  help="Operations of zipfian/hotspot/latest/uniform. [default: rows/stride * reps]")
    @click.option("--zipf-theta", type=float, default=0.99, show_default=True,
                  help="Zipfian exponent of --order zipfian and latest (YCSB's 0.99).")
    @click.option("--zipf-scramble/--no-zipf-scramble", default=True, show_default=True,
                  help="Scatter zipfian's hot keys over the table by hash, as YCSB's zipfian does.")
    @click.option("--hot-fraction", type=float, default=0.2, show_default=True,
                  help="--order hotspot: the fraction of the keys that is hot (the lowest ids).")
    @click.option("--hot-ops", type=float, default=0.8, show_default=True,
                  help="--order hotspot: the fraction of the operations that go to the hot keys.")
    @click.option("--trace", "trace_path", default=None, metavar="FILE",
                  help="Query the keys of FILE in its order (text, one per line, or `loadgen trace capture`); "
                       "run: an op trace (capture without --table) is replayed on its own tables.")
    @functools.wraps(f)
    def wrapper(*args, stride, reps, order_seed, queries, zipf_theta, zipf_scramble, hot_fraction, hot_ops,
                trace_path, **kwargs):
        from ..units import parse_count

        kwargs["shape"] = {"stride": parse_count(stride, "--stride"), "reps": parse_count(reps, "--reps"),
                           "seed": order_seed, "count": parse_count(queries, "--queries") if queries else None,
                           "zipf_theta": zipf_theta, "zipf_scramble": zipf_scramble, "hot_fraction": hot_fraction,
                           "hot_ops": hot_ops, "trace": trace_path}
        if trace_path is not None:
            from ..workload.trace import detect

            detect(trace_path)  # unreadable or garbage: a one-line error before anything starts
        return f(*args, **kwargs)

    return wrapper


def workload_options(f):
    """shape_options and --sample-interval: what a measured run needs."""
    @shape_options
    @click.option("--sample-interval", type=float, default=1.0, show_default=True,
                  help="Seconds between buffer-pool samples.")
    @functools.wraps(f)
    def wrapper(*args, sample_interval, **kwargs):
        # nan passes every comparison (the sampler would spin) and inf overflows the timer:
        # a finite range, checked before anything starts
        if not SAMPLE_INTERVAL_MIN_S <= sample_interval <= SAMPLE_INTERVAL_MAX_S:
            raise UsageError(f"--sample-interval {sample_interval} is out of range",
                             f"give seconds from {SAMPLE_INTERVAL_MIN_S} to {SAMPLE_INTERVAL_MAX_S:g}")
        kwargs["sample_interval_s"] = sample_interval
        return f(*args, **kwargs)

    return wrapper


def driver_options(f):
    @click.option("--driver", default="auto", show_default=True, type=click.Choice(["auto", "native", "python"]),
                  help="Query loop: native (C, prepared statement; auto picks it when built) or python.")
    @click.option("--threads", type=int, default=1, show_default=True,
                  help="Connections, each running the order over its own slice of the ids.")
    @click.option("--pipeline", type=int, default=1, show_default=True,
                  help="Queries in flight per connection, run by the server in the order's exact order "
                       "(native driver; latency is then per response, not per query).")
    @functools.wraps(f)
    def wrapper(*args, driver, threads, pipeline, **kwargs):
        # as given: the runner resolves and checks them once (drivers/drive.py choose_driver()) before
        # any server starts, and `compare BASE NEW`, which never drives, loads no extension
        kwargs["drive"] = {"driver": driver, "threads": threads, "pipeline": pipeline}
        return f(*args, **kwargs)

    return wrapper


def check_default_out_dir(out_dir) -> None:
    """--out-dir left at its default is a directory loadgen picked (results.files.check_picked_directory)."""
    from ..results.files import check_picked_directory

    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.get_parameter_source("out_dir") == click.core.ParameterSource.DEFAULT:
        check_picked_directory(out_dir)
