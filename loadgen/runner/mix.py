"""Run a mix end to end (`loadgen run --workload FILE|PRESET`): provision, seed the mix's tables,
check the streams against them, start cold, drive the op sequence and the scheduled streams,
sample, write the result.

Beside single.py (one table, one order), with the same guarantees: every check is made before
anything is measured, the result is written atomically before an error is raised, so a run
that was interrupted or lost its server keeps what it measured (marked incomplete).

What a mixed run records (/work/notes/mix-design.md, docs/workloads.md):
  workload.kind "mix", workload.mix (the spec as run), workload.statements (each stream's SQL);
  dataset.tables (each table's rows and B-trees: leaf pages, height, indexes);
  result.streams[name]: ops, ops/s, latency_us, rows, errors (scheduled: executions);
  buffer_pool: the counters of any run plus pages_flushed, LRU vs flush-list flushing
  (buffer_pool.flush, INNODB_METRICS), pages_dirty per sample, rows changed, and
  buffer_pool.tables["db.table"]: pages read from its .ibd, resident pages per index at the end;
  samples[i].streams: each stream's ops so far;
  prediction: what the model says (`predict`, handed in by the caller: analysis/mixmodel.py's
  predict), with its errors.
"""
from __future__ import annotations

import dataclasses
import os
import platform
from pathlib import Path
from typing import Callable

from .. import __version__, db
from . import mixseed
from ..errors import Interrupted, UsageError, WorkloadError
from ..measure.cleaner import stop_watch, watch_cleaner
from ..measure.histogram import Histogram
from .mixseed import MixDataset, TableInfo
from ..paths import free_bytes
from ..results.documents import Prediction, RunResult, now_iso
from .single import QuietReporter, Reporter, check_connections, verify_cold, write_result
from ..measure.sampler import (Sampler, enable_flush_metrics, flush_metrics, pool_stats, take_snapshot, totals,
                               wait_quiet)
from ..servers import RECORDED_VARIABLES, ServerSpec
from ..servers.provision import provisioned
from ..measure.tablestats import TablesReads
from ..units import format_bytes
from ..workload import mix, opstream, statements
from ..workload.mix import MixSpec

# Variables a mixed run records beyond every run's: what decides when dirty pages are written.
MIX_VARIABLES = ["innodb_flush_log_at_trx_commit", "innodb_max_dirty_pages_pct", "innodb_max_dirty_pages_pct_lwm",
                 "innodb_io_capacity", "innodb_flush_neighbors", "innodb_log_file_size", "innodb_redo_log_capacity",
                 "performance_schema",
                 # MySQL buffers secondary-index changes where it is on (8.4 starts with none, Debian's
                 # 9.7.4 with all); the model has no change buffer (render/mixreport.py says so)
                 "innodb_change_buffering", "innodb_change_buffer_max_size"]

# The model's prediction for a mixed run (analysis/mixmodel.py predict), handed in by the caller
# so that the runner never imports the analysis above it: takes the run's result document, returns
# None (no model for it) or {"model": ..., "pages_read": total, "tables": {"db.table":
# {"pages_read": n, "indexes": {...}}}, "dirty_evictions": n, ...}; the runner adds the errors
# against the measured pages.
Predict = Callable[[dict], "dict | None"]


def mix_settings(spec: ServerSpec) -> ServerSpec:
    """The server a mix needs: performance_schema on (each table's own reads come from its
    file_summary_by_instance; MySQL has it on, MariaDB not), unless the user said otherwise."""
    if spec.dsn or "performance_schema" in spec.options:
        return spec
    return dataclasses.replace(spec, options={**spec.options, "performance_schema": "ON"})


def run(server_spec: ServerSpec, spec: MixSpec, out: Path, database: str = "chat", data_seed: int = 1,
        sample_interval_s: float = 1.0, reporter: Reporter | None = None, driver: str = "auto",
        predict: Predict | None = None, pipeline: int = 1) -> RunResult:
    """Provision (or reuse) a server, make the mix's tables, then run the mix from a cold pool.

    pipeline > 1 (native driver): the whole sequence on one connection, that many statements in
    flight (the server runs them in the order sent)."""
    from ..drivers.drive import choose_driver

    reporter = reporter or QuietReporter()
    driver = resolve_mix_driver(choose_driver(driver, 1, pipeline).driver)
    if pipeline > 1 and driver != "native":
        raise UsageError(f"--pipeline {pipeline} needs the native mix driver, which this loadgen was built without",
                         "install libmariadb-dev and pkg-config and rebuild, or drop --pipeline")
    data = MixDataset(spec, database, data_seed)
    connections = len(spec.mixed) + len(spec.scheduled)
    with provisioned(mix_settings(server_spec), data, reporter.say) as server:
        check_connections(server, connections)
        tables = prepare_tables(server, data, reporter)
        spec = spec.with_rows({t.name: tables[t.name].rows for t in spec.tables if t.existing})
        _existing_ranges(server, spec, tables)
        plans = plan_statements(spec, tables)
        written = sorted({s.table for s in spec.streams if s.writes})
        if written:
            conn = server.connect()
            try:
                mixseed.mark_written(conn, data, written)
            finally:
                conn.close()
        # slowly: no seed work left for the run (servers.ask_slow_shutdown); measured for mixes
        # only: a single-table MySQL run at 8M read ~360 pages more after a slow stop (hotspot,
        # 5,808 and 5,823 against 5,444 after a fast one), which its model does not know
        cold = server.restart_cold(slow=True)
        if not cold.cold:
            reporter.say(f"warning: the pool was not emptied before this run ({cold.note})")
        return measure(server, spec, data, tables, plans, cold, out, sample_interval_s, reporter, driver, predict,
                       pipeline)


def resolve_mix_driver(name: str) -> str:
    """native when the extension has the mix loop (native/mixdrv.c), else python."""
    if name == "native":
        from ..drivers.mixnative import available

        if not available():
            return "python"
    return name


def prepare_tables(server, data: MixDataset, reporter: Reporter) -> dict[str, TableInfo]:
    conn = server.connect(local_infile=1)
    try:
        room = free_bytes(server.datadir) if server.datadir is not None else None
        tables = mixseed.ensure(conn, data, reporter.seed_progress, room, server.home, reporter.say)
    finally:
        conn.close()
    for t in tables.values():
        what = "existing (read only)" if t.existing else ("seeded" if t.seeded else "reusing")
        rate = f" at {t.seed_rows_per_s:,} rows/s" if t.seed_rows_per_s else ""
        idx = "".join(f", {n} {i.leaf_pages or '?'} leaf pages" for n, i in t.indexes.items())
        reporter.say(f"{what} {t.qualified}: {t.rows:,} rows{rate}, {format_bytes(t.table_bytes)}, "
                     f"{t.leaf_pages:,} leaf pages, height {t.height}{idx}")
    return tables


def _existing_ranges(server, spec: MixSpec, tables: dict[str, TableInfo]) -> None:
    """The value ranges of the columns read-secondary streams look up in existing tables."""
    wanted: dict[str, list[str]] = {}
    for s in spec.streams:
        if s.op == "read-secondary" and tables[s.table].existing:
            name = next((c for c in tables[s.table].columns if c.lower() == s.column.lower()), s.column)
            wanted.setdefault(s.table, []).append(name)
    if not wanted:
        return
    conn = server.connect()
    try:
        for table, cols in wanted.items():
            mixseed.read_column_ranges(conn, tables[table], sorted(set(cols)))
    finally:
        conn.close()


def plan_statements(spec: MixSpec, tables: dict[str, TableInfo]) -> dict[int, list[statements.Statement]]:
    """Each stream's statements, after checking it against the table the server made (a column
    or index the DDL reader could not see is caught here, still before any measurement)."""
    plans = {}
    for i, s in enumerate(spec.streams):
        t = tables[s.table]
        indexes = {n: ix.columns for n, ix in t.indexes.items()}
        mix.check_stream(s, list(t.columns), t.primary_key, indexes,
                         lambda what, hint=None: UsageError(f"workload {spec.source}: {what}", hint))
        plans[i] = statements.build(s, t)
    return plans


def measure(server, spec: MixSpec, data: MixDataset, tables: dict[str, TableInfo], plans, cold, out: Path,
            sample_interval_s: float, reporter: Reporter, driver: str, predict: Predict | None,
            pipeline: int = 1, sequence=None, offsets: dict[int, int] | None = None) -> RunResult:
    """Drive the mix with the sampler on; write the result; raise if it did not complete.

    sequence: the op chunks to run instead of the spec's generated ones, all on one connection
    (a replayed op trace, runner/replay.py: its order and transactions as recorded); offsets:
    each stream's key offset, when not its table's."""
    from ..drivers.mix import MixState, PythonMix, Scheduler, StreamStats

    if offsets is None:
        offsets = {i: tables[s.table].key_offset for i, s in enumerate(spec.streams)}
    mixed = {i: plans[i] for i in spec.mixed}
    one = sequence is not None
    if driver == "native":
        from ..drivers.mixnative import NativeMix

        loop = NativeMix(mixed, offsets, one_connection=one, pipeline=pipeline)
    else:
        loop = PythonMix(mixed, offsets, one_connection=one)
    # the generator's checks (a trace's keys against the table) before any connection
    chunks = sequence if one else opstream.Generator(spec).chunks()
    schedulers: list[Scheduler] = []
    state = MixState(streams=[StreamStats() for _ in spec.streams])
    sampler_conn = None
    try:
        # the statements name their tables' databases: connections need none (the --dsn user may
        # have no grant on --database when every table of the mix is an existing one)
        loop.open(server, None)
        for i in spec.scheduled:
            s = spec.streams[i]
            schedulers.append(Scheduler(server, None, i, s.name, plans[i][0], s.every_s, s.at_s,
                                        state.current_ops, state.streams[i], at_op=s.at_op))
        sampler_conn = server.connect()
    except BaseException:
        _close(loop, schedulers, sampler_conn)
        raise
    variables = db.global_variables(sampler_conn, RECORDED_VARIABLES + MIX_VARIABLES)
    flavor = db.parse_version(variables.get("version", ""), variables.get("version_comment", ""))
    monitors_note = (enable_flush_metrics(sampler_conn) if server.owned
                     else "not changed on a server loadgen does not own")
    # a server this command restarted is also waited on until its start-up's dirty pages are
    # written (wait_quiet); another's may never be clean while its own clients write
    settle = wait_quiet(sampler_conn, until_clean=server.owned and cold.method == "restart")
    if not settle["quiet"]:
        reporter.say(f"warning: the server kept reading or writing pages in the background "
                     f"({settle['pages_read_while_settling']} read, {settle.get('pages_dirty_after_settling', 0)} "
                     f"still dirty after {settle['settle_s']} s); they may count as misses")
    before = take_snapshot(sampler_conn, 0).status
    verdict = verify_cold(cold, before, flavor.name)
    if cold.cold and not verdict["cold"]:
        reporter.say(f"warning: the pool was not cold before this run: {verdict['note']}")
    table_reads = TablesReads(sampler_conn, [(t.database, t.table) for t in tables.values()])
    flush_before = flush_metrics(sampler_conn)
    if monitors_note is None and cold.method == "restart" and "purge_batches" in flush_before:
        # purge's batches while settling (the monitors were enabled just before, on a server just
        # restarted): MySQL walks the rollback segments every 128 batches counted from its start
        # (srv_do_purge), so these are part of what sets where the run's walks fall (the model
        # takes the settle time: undomodel.walk_phase_batches)
        settle["purge_batches_while_settling"] = flush_before["purge_batches"]
    pool_before = pool_stats(sampler_conn)
    names = [s.name for s in spec.streams]
    sampler = Sampler(sampler_conn, state.current_ops, sample_interval_s, flavor=flavor.name,
                      extra=lambda: {"streams": dict(zip(names, state.stream_ops()))})
    reporter.run_started(f"{spec.source} (mix of {len(spec.streams)} streams)", spec.operations)
    started_at = now_iso()
    interrupted = False
    # MySQL's page-cleaner LRU batches, by ops done: the prediction replays them (mixmodel.pool_of)
    watch = watch_cleaner(server, flavor.name, state.current_ops)
    sampler.start()
    watching = watch is not None and watch.start()
    for sch in schedulers:
        sch.start(sampler.baseline.t_s)
    try:
        loop.run(chunks, state, progress=lambda n: reporter.run_progress(n, sampler.latest_hit_ratio))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        reporter.run_finished()
        try:
            for sch in schedulers:
                sch.stop(kill=interrupted or state.error is not None)
        except KeyboardInterrupt:
            interrupted = True
            for sch in schedulers:
                sch.stop(kill=True)
        last = sampler.stop(final=True)
        cleaner_record = stop_watch(watch)
        flush_after = flush_metrics(sampler_conn) if sampler.error is None else {}
        pool_after = pool_stats(sampler_conn) if sampler.error is None else {}
        table_reads.finish(server)
        _close(loop, schedulers, sampler_conn)
    lost = state.error or next((s.error for s in schedulers if s.error), None)
    reason = None
    if interrupted:
        reason = "interrupted"
    elif lost:
        reason = f"server lost: {lost}"
    elif state.ops < spec.operations:
        reason = "stopped early"
    result = _result(server, flavor, variables, cold, spec, data, tables, plans, state, schedulers, sampler, last,
                     started_at, reason, settle, verdict, pipeline)
    bp = result.buffer_pool
    bp["flush"] = _flush_block(flush_before, flush_after, monitors_note)
    bp["tables"] = table_reads.result
    bp["files"] = table_reads.files
    if cleaner_record is not None:
        bp["cleaner_batches"] = cleaner_record
    elif watch is not None and watch.note and not watching:
        reporter.say(f"note: {watch.note}; the prediction places the page cleaner's batches by the model's mean")
    # INNODB_BUFFER_POOL_STATS: made young / not young on MySQL (no status variable there)
    pool = {k: pool_after[k] - pool_before[k] for k in pool_after if k in pool_before}
    bp["pool_stats"] = pool
    for k in ("made_young", "made_not_young"):
        if bp.get(k) is None and k in pool:
            bp[k] = pool[k]
    if reason is None and predict is not None:
        result.prediction = _prediction(result, predict, reporter)
    out = write_result(out, result, reporter)
    if interrupted:
        raise Interrupted(f"interrupted after {state.ops:,} of {spec.operations:,} operations",
                          f"partial result written to {out}")
    if lost:
        why = server.diagnostics() if not server.alive() else ""
        raise WorkloadError(f"the server went away after {state.ops:,} of {spec.operations:,} operations: {lost}"
                            + (f" [{why}]" if why else ""), f"partial result written to {out}")
    return result


def _close(loop, schedulers, conn) -> None:
    loop.close()
    for sch in schedulers:
        sch.close()
    if conn is not None:
        try:
            conn.close()
        except Exception:  # noqa: BLE001 - the server may be gone
            pass


def _flush_block(before: dict, after: dict, note: str | None) -> dict:
    out: dict = {k: after[k] - before[k] for k in after if k in before}
    out["source"] = "information_schema.INNODB_METRICS"
    if note:
        out["note"] = f"innodb_monitor_enable: {note}"
    return out


def _latency(h: Histogram) -> dict:
    return {k: v for k, v in h.summary_us().to_dict().items() if k != "count"}


def _result(server, flavor, variables, cold, spec: MixSpec, data: MixDataset, tables, plans, state, schedulers,
            sampler, last, started_at, reason, settle, verdict, pipeline: int = 1) -> RunResult:
    elapsed = state.elapsed_s
    bp = totals(sampler.baseline, last, sampler.samples, flavor.name) if last is not None else {}
    if last is not None:
        bp["queries"] = last.queries - sampler.baseline.queries - bp.get("gap_queries", 0)
        bp["until_s"] = round(last.t_s - sampler.baseline.t_s, 3)
        bp["covers_all_queries"] = bp["queries"] >= state.ops
    merged = Histogram()
    streams = {}
    executions = {sch.index: sch.executions for sch in schedulers}
    for i, s in enumerate(spec.streams):
        st = state.streams[i]
        if not s.scheduled:
            merged.merge(st.histogram)
        block = {"op": s.op, "table": f"{tables[s.table].qualified}", "ops": st.ops,
                 "ops_per_s": round(st.ops / elapsed, 1) if elapsed > 0 and not s.scheduled else None,
                 "latency_us": _latency(st.histogram), "rows": st.rows, "errors": st.errors}
        if s.scheduled:
            block["share"] = None
            block["executions"] = executions.get(i, [])
        else:
            block["share"] = s.share
        if st.first_error:
            block["first_error"] = st.first_error
        block["latency_histogram"] = st.histogram.to_dict()
        streams[s.name] = block
    server_block = {
        "endpoint_path": "unix_socket" if server.endpoint.unix_socket else "tcp",
        **server.describe(), "flavor": flavor.name, "version": flavor.version,
        "innodb_buffer_pool_size": int(variables.get("innodb_buffer_pool_size", 0)), "variables": variables,
        "cold_start": {"method": cold.method, "cold": cold.cold, "note": cold.note, **cold.details, **settle,
                       **verdict},
    }
    return RunResult(
        loadgen_version=__version__, started_at=started_at, finished_at=now_iso(), complete=reason is None,
        incomplete_reason=reason, server=server_block,
        # rows (all tables') and order ("mix:<name>") are what `loadgen compare` matches and groups
        # runs by, as for single-table runs
        dataset={"kind": "mix", "database": data.database, "seed": data.seed,
                 "rows": sum(t.rows for t in tables.values()),
                 "tables": {name: t.to_dict() for name, t in tables.items()}},
        workload={"kind": "mix", "order": f"mix:{_short(spec.source)}", "name": spec.source, "seed": spec.seed,
                  "queries": spec.operations,
                  "mix": spec.to_dict(),
                  "statements": {spec.streams[i].name: [st.to_dict() for st in plan] for i, plan in plans.items()}},
        result={"queries": state.ops, "ops": state.ops, "elapsed_s": round(elapsed, 3),
                "qps": round(state.ops / elapsed, 1) if elapsed > 0 else None,
                "latency_us": _latency(merged), "latency_histogram": merged.to_dict(), "driver": state.driver,
                "latency_kind": state.latency_kind, "pipeline": pipeline, "sample_interval_s": sampler.interval_s,
                "streams": streams},
        buffer_pool=bp, samples=sampler.samples,
        host={"cpus": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()},
    )


def _short(source: str) -> str:
    """A mix's name in a few characters: the preset, or the file's name."""
    return source[len("preset "):] if source.startswith("preset ") else Path(source).name


def _prediction(result: RunResult, predict: Predict, reporter: Reporter) -> Prediction | None:
    """The model's pages beside the measured ones, with the errors per table and in total; a
    model failure never costs the measurement."""
    try:
        block = predict(result.to_dict())
    except Exception as exc:  # noqa: BLE001 - reported, and the result is written without it
        reporter.say(f"warning: no prediction for this run: {exc}")
        return None
    if not block:
        return None
    block = dict(block)
    measured = result.buffer_pool.get("pages_read")
    if block.get("pages_read") is not None and measured:
        block["measured_pages_read"] = measured
        block["error_pct"] = round(100.0 * (block["pages_read"] - measured) / measured, 2)
    for name, t in (block.get("tables") or {}).items():
        got = (result.buffer_pool.get("tables") or {}).get(name, {}).get("file_pages_read")
        if isinstance(t, dict) and t.get("pages_read") is not None and got:
            t["measured_pages_read"] = got
            t["error_pct"] = round(100.0 * (t["pages_read"] - got) / got, 2)
    return Prediction.from_dict(block)
