"""`loadgen run --workload FILE|PRESET`: a mix of streams (workload/mix.py) instead of one order."""
from __future__ import annotations

import click

from ..errors import UsageError
from .options import RichReporter, stderr_console, stdout_console

# Options of `run` that shape a single-table order: a mix says all of that in its file.
NOT_WITH_WORKLOAD = ("variation", "order", "stride", "reps", "zipf_theta", "zipf_scramble", "hot_fraction", "hot_ops",
                     "trace_path", "schema", "table_name", "existing_table", "query", "key_column", "threads")


def given(name: str) -> bool:
    """Whether the user gave option `name` (not its default)."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)


def run_workload(workload: str, out, server_spec, dataset_spec, shape, sample_interval_s, drive) -> None:
    from ..analysis.mixmodel import predict
    from ..runner import mix as mixrun
    from ..render.mixreport import STREAM_HEADERS, TABLE_HEADERS, stream_rows, summary_lines, table_rows
    from ..render.report import rich_table
    from ..results.files import check_destination, default_path
    from ..workload.presets import resolve

    clash = [n for n in NOT_WITH_WORKLOAD if given(n)]
    if clash:
        flag = "--" + {"trace_path": "trace", "existing_table": "table"}.get(clash[0], clash[0]).replace("_", "-")
        raise UsageError(f"{flag} goes with a single order, not with --workload",
                         "a workload file says its tables, streams and keys itself")
    spec = resolve(workload, rows=dataset_spec.rows if given("rows") else None,
                   operations=shape["count"], seed=shape["seed"] if given("order_seed") else None)
    out = check_destination(out) if out else default_path("reports", f"run-{_stem(workload)}", picked=True)
    with RichReporter() as reporter:
        result = mixrun.run(server_spec, spec, out, database=dataset_spec.database, data_seed=dataset_spec.seed,
                            sample_interval_s=sample_interval_s, reporter=reporter, driver=drive["driver"],
                            pipeline=drive["pipeline"], predict=predict)
    console = stdout_console()
    if not console.is_terminal:  # a log or a pipe: wide enough that no column is cut
        from rich.console import Console

        console = Console(width=160)
    console.print(rich_table(STREAM_HEADERS, stream_rows(result), title=f"loadgen run: {spec.source}, streams"))
    console.print(rich_table(TABLE_HEADERS, table_rows(result), title="tables: pages read"))
    for line in summary_lines(result):
        console.print(line, highlight=False)
    stderr_console().print(f"[dim]result written to {result.source or out}[/]", highlight=False)


def _stem(workload: str) -> str:
    from pathlib import Path

    from ..workload.presets import is_preset

    if is_preset(workload):
        return workload
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(workload).stem)
