"""`loadgen run --trace OPTRACE`: a whole server's op trace replayed on its tables (replay.py)."""
from __future__ import annotations

from .mix import given
from ..errors import UsageError
from .options import RichReporter, stderr_console, stdout_console

# Options of `run` that shape a single-table order or a mix: an op trace says its tables and keys.
NOT_WITH_OPTRACE = ("variation", "order", "stride", "reps", "queries", "zipf_theta", "zipf_scramble", "hot_fraction",
                    "hot_ops", "schema", "table_name", "existing_table", "query", "key_column", "threads", "rows",
                    "pipeline")


def replay(trace, out, allow_writes, server_spec, sample_interval_s, drive) -> None:
    from ..analysis.tracemodel import TraceModel
    from ..render.mixreport import STREAM_HEADERS, TABLE_HEADERS, stream_rows, summary_lines, table_rows
    from ..runner import replay as core
    from ..render.report import rich_table
    from ..results.files import check_destination, default_path

    clash = [n for n in NOT_WITH_OPTRACE if given(n)]
    if clash:
        flag = "--" + {"existing_table": "table"}.get(clash[0], clash[0]).replace("_", "-")
        if clash[0] in ("schema", "rows"):  # no tables to run on: what the user can do instead
            raise UsageError(f"{flag} does not go with an op trace: the replay runs on a server holding the "
                             "trace's tables", "predict from the schema (`loadgen predict --trace OPTRACE --schema "
                             "FILE --rows N`), or replay on a copy (`loadgen clone-shape` then `loadgen seed "
                             "--shape`)")
        raise UsageError(f"{flag} does not go with an op trace", "the trace says its tables, keys and order itself")
    out = check_destination(out) if out else default_path("reports", "run-replay", picked=True)
    with RichReporter() as reporter:
        result, seq = core.run(server_spec, trace, out, TraceModel(), allow_writes, sample_interval_s, reporter,
                               drive["driver"])
    console = stdout_console()
    if not console.is_terminal:  # a log or a pipe: wide enough that no column is cut
        from rich.console import Console

        console = Console(width=160)
    console.print(rich_table(STREAM_HEADERS, stream_rows(result), title=f"loadgen run: {trace} replayed, streams"))
    console.print(rich_table(TABLE_HEADERS, table_rows(result), title="tables: pages read, replayed and predicted"))
    console.print(rich_table(["table / index", "predicted"], index_rows(result),
                             title="predicted per index (the server counts reads per table only)"))
    for line in summary_lines(result):
        console.print(line, highlight=False)
    err = stderr_console()
    for why, n in seq.not_replayed.items():
        err.print(f"[yellow]not replayed: {n:,} operations, {why}[/]", highlight=False)
    err.print(f"[dim]result written to {result.source or out}[/]", highlight=False)


def index_rows(result) -> list[list[str]]:
    from ..render.report import fmt

    pred = result.prediction.to_dict() if result.prediction is not None else {}
    rows = []
    for name, t in sorted((pred.get("tables") or {}).items()):
        for idx, i in sorted((t.get("indexes") or {}).items()):
            rows.append([f"{name} {idx}", fmt(i.get("pages_read"))])
    if pred.get("system_pages_read") is not None:
        rows.append(["undo (system)", fmt(pred["system_pages_read"])])
    return rows
