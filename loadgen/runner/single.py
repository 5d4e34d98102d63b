"""Run workloads end to end: provision, seed (or reuse), start cold, drive, sample, write.

This is the core behind `loadgen run` and `loadgen compare`. It returns RunResults and writes
each result file atomically *before* raising, so an interrupted or failed run keeps what it
measured (marked incomplete).
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import platform
import time
from pathlib import Path
from typing import Callable, Protocol

from .. import __version__, db
from ..seeding import dataset, usertable
from ..measure import hostload, tablestats
from ..seeding.dataset import DatasetInfo, DatasetSpec
from ..seeding.indexmap import CannotModel, IndexMap, read_index_map
from ..drivers.drive import Drive
from ..drivers.python import DriverState
from ..errors import Interrupted, LoadgenError, ResultError, UsageError, WorkloadError
from ..workload.orders import Workload
from ..paths import cache_dir, free_bytes
from ..results.documents import Prediction, RunResult, now_iso
from ..results.files import write_json_atomic
from ..measure.cleaner import stop_watch, watch_cleaner
from ..measure.coldstart import STARTUP_PAGES_DATA, most_data_pages, verify_cold  # noqa: F401 - re-exported
from ..measure.sampler import Sampler, take_snapshot, totals, wait_quiet
from ..servers import RECORDED_VARIABLES, ColdStart, Server, ServerSpec
from ..servers.lrulist import lru_list, scan_depth_of
from ..servers.provision import provisioned
from ..units import format_bytes


# The model's block for a run (analysis.predict.predict: the run, the Workload it drove, and the
# secondary index its query read, if any): handed in by the caller, so the runner never imports
# the analysis that sits above it.
Predict = Callable[[RunResult, Workload, "IndexMap | None"], "Prediction | None"]


class Reporter(Protocol):
    """How the core tells the user what is going on; the CLI implements it with rich."""

    def say(self, message: str) -> None: ...
    def seed_progress(self, done: int, total: int) -> None: ...
    def run_started(self, label: str, total: int) -> None: ...
    def run_progress(self, done: int, hit_ratio: float | None) -> None: ...
    def run_finished(self) -> None: ...


class QuietReporter:
    def say(self, message: str) -> None:
        pass

    def seed_progress(self, done: int, total: int) -> None:
        pass

    def run_started(self, label: str, total: int) -> None:
        pass

    def run_progress(self, done: int, hit_ratio: float | None) -> None:
        pass

    def run_finished(self) -> None:
        pass


def prepare_dataset(server: Server, spec: DatasetSpec, reporter: Reporter, count_after: bool = False) -> DatasetInfo:
    """Seed, resume or verify the dataset. count_after: on a server loadgen does not own, count a
    reused table's rows after the runs (finish_dataset) instead of scanning it now, which would
    leave it in a pool no resize may empty (dataset.ensure)."""
    conn = server.connect(local_infile=1)
    try:
        room = free_bytes(server.datadir) if server.datadir is not None else None
        home = server.home
        # another job's up server is used as it holds it: never seeded into (servers/state.py)
        may_seed = (f"the server from `loadgen up`, kept up by another job ({server.foreign_owner})"
                    if server.foreign_owner else None)
        if spec.existing or spec.custom:  # your own table (usertable.py), else one of schema/
            info = usertable.ensure(conn, spec, reporter.seed_progress, room, home, may_seed=may_seed)
        else:
            info = dataset.ensure(conn, spec, progress=reporter.seed_progress, free_bytes=room, home=home,
                                  say=reporter.say, count_after=count_after and not server.owned,
                                  may_seed=may_seed)
        info = usertable.apply_query(conn, spec, info)
    finally:
        conn.close()
    # the table each cold start may read from (a dsn server's shrink evicts only a full pool)
    server.will_query(info.database, info.table, (info.table_rows or info.rows) / max(1, info.leaf_pages))
    name = f"{info.database}.{info.table}"
    if info.stats_note:
        reporter.say(f"warning: {info.stats_note}")
    if info.existing and info.key_gaps:
        g = info.key_gaps
        every = f", 1 key in {g['every']:,} kept" if g["every"] > 1 else ""
        reporter.say(f"measuring the existing {name} (read only): {g['keys']:,} rows with keys "
                     f"{info.key_offset + 1:,}..{info.key_offset + g['key_span']:,} (gaps: the order runs over the "
                     f"{g['keys']:,} keys that exist, read in one pass{every}), {format_bytes(info.table_bytes)}, "
                     f"{info.leaf_pages:,} leaf pages, height {info.height}")
    elif info.existing:
        reporter.say(f"measuring the existing {name} (read only): {info.table_rows or 0:,} rows (estimate), "
                     f"keys {info.key_offset + 1:,}..{info.key_offset + info.rows:,}, "
                     f"{format_bytes(info.table_bytes)}, {info.leaf_pages:,} leaf pages, height {info.height}")
    elif info.seeded:
        rate = f" at {info.seed_rows_per_s:,.0f} rows/s" if info.seed_rows_per_s else ""
        if info.seed_method:
            rate += f" ({'LOAD DATA LOCAL' if info.seed_method == 'load data local' else 'INSERTs'})"
        if info.seed_note and info.seed_method != "insert":  # the fallback was said when it happened
            reporter.say(info.seed_note)
        reporter.say(f"seeded {name}: {spec.rows:,} rows{rate}, "
                     f"{format_bytes(info.table_bytes)}, {info.leaf_pages:,} leaf pages, height {info.height}")
    else:
        reporter.say(f"reusing the seeded {name}: {spec.rows:,} rows, "
                     f"{format_bytes(info.table_bytes)}, {info.leaf_pages:,} leaf pages")
    if info.query:
        reporter.say(f"query: {info.query} (index {info.index or 'none'}, key {info.key_column})")
    return info


def finish_dataset(server: Server, info: DatasetInfo, results: list[RunResult], reporter: Reporter) -> None:
    """The row count prepare_dataset(count_after=True) left for after the runs: when the table
    changed, the runs' results are rewritten as incomplete before the error is raised."""
    if not info.count_after:
        return
    conn = server.connect()
    try:
        dataset.check_count(conn, info)
    except LoadgenError as exc:
        for result in results:
            result.complete, result.incomplete_reason = False, f"the table changed: {exc.message}"
            result.prediction = None
            if result.source is not None:
                write_result(result.source, result, reporter)
        raise
    finally:
        conn.close()


def check_connections(server: Server, threads: int) -> None:
    """Refuse --threads the server cannot take: each thread holds a connection and the sampler
    one more. Found here, it is a usage error with a fix; found by the driver, it would be a
    'Too many connections' in the middle of opening them."""
    conn = server.connect()
    try:
        limit = int(db.query_value(conn, "SELECT @@max_connections"))
        # connections already open, less this one (closed before the run)
        busy = int(db.query_all(conn, "SHOW GLOBAL STATUS LIKE 'Threads_connected'")[0][1]) - 1
    finally:
        conn.close()
    free = limit - busy
    if threads + 1 > free:
        raise UsageError(f"--threads {threads} needs {threads + 1} connections (one more for the sampler), "
                         f"the server has {free} free (max_connections {limit})",
                         f"use --threads {max(1, free - 1)} or fewer, or start the server with "
                         f"--set max_connections={threads + busy + 11}")


def run(server_spec: ServerSpec, dataset_spec: DatasetSpec, workloads: list[Workload], out_paths: list[Path],
        sample_interval_s: float = 1.0, reporter: Reporter | None = None, driver: str = "auto", threads: int = 1,
        pipeline: int = 1, predict: Predict | None = None) -> list[RunResult]:
    """Provision (or reuse) a server, make the dataset, then run each workload from a cold pool.

    driver/threads/pipeline: --driver (native, python, auto), --threads (connections) and
    --pipeline (queries in flight per connection), see drive.py.
    predict: fills each result's `prediction` block (None: no prediction).
    """
    paths = iter(out_paths)  # run_pools asks once per run, in this order
    return run_pools(server_spec, dataset_spec, [None], workloads, lambda _pool, _w: next(paths), sample_interval_s,
                     reporter, driver, threads, pipeline, predict)


def run_pools(
    server_spec: ServerSpec,
    dataset_spec: DatasetSpec,
    pools: list[int | None],
    workloads: list[Workload],
    out_for: Callable[[int | None, Workload], Path],
    sample_interval_s: float = 1.0,
    reporter: Reporter | None = None,
    driver: str = "auto",
    threads: int = 1,
    pipeline: int = 1,
    predict: Predict | None = None,
) -> list[RunResult]:
    """The run loop of `run`, `compare` and `sweep`: provision (or reuse) a server, make the
    dataset, then at each pool in turn (None: the server's own) run each workload from a cold
    pool, pool by pool. out_for(pool, workload): where that run's file goes, asked right before it
    starts (default_path claims the name, so never for a run that does not happen)."""
    reporter = reporter or QuietReporter()
    results = []
    if pools and pools[0] is not None:
        server_spec = dataclasses.replace(server_spec, pool_bytes=pools[0])
    with provisioned(server_spec, dataset_spec, reporter.say) as server:
        check_connections(server, threads)  # before seeding, which may take minutes
        info = prepare_dataset(server, dataset_spec, reporter, count_after=True)
        asked = list(workloads)
        workloads = [usertable.retarget(w, info) for w in workloads]
        for pool in pools:
            if pool is not None and pool != server.pool_bytes:
                server.set_pool(pool)
            for given, workload in zip(asked, workloads):
                out = out_for(pool, given)
                cold = server.restart_cold()
                results.append(measure(server, info, workload, cold, out, sample_interval_s, reporter,
                                       driver=driver, threads=threads, pipeline=pipeline, predict=predict))
        finish_dataset(server, info, results, reporter)
    return results


def measure(
    server: Server,
    info: DatasetInfo,
    workload: Workload,
    cold: ColdStart,
    out: Path,
    sample_interval_s: float,
    reporter: Reporter,
    driver: str = "auto",
    threads: int = 1,
    pipeline: int = 1,
    predict: Predict | None = None,
) -> RunResult:
    """Drive one workload with the sampler on; write the result; raise if it did not complete."""
    key_map = info.key_map
    if workload.order == "trace" and (info.key_offset or key_map is not None):
        # a trace's keys are the table's own, queried as they are (gaps and all)
        span = info.key_gaps["key_span"] if key_map is not None else workload.rows
        workload = dataclasses.replace(workload, trace_key_min=info.key_offset + 1, rows=span)
        if key_map is not None:
            key_map, predict = None, None  # the model places keys by their rank among those that exist
            reporter.say("note: no prediction: a trace replays its own keys, and this table's keys have gaps")
    drive = Drive(server, info.database, workload, driver, threads, query=info.query, key_offset=info.key_offset,
                  pipeline=pipeline, key_map=key_map)
    # Everything opened from here to the run's own try/finally is closed on every path: an error
    # or Ctrl-C while the server settles (up to 15 s) once left the driver's connections open (B3).
    with contextlib.ExitStack() as opened:
        opened.callback(drive.close)
        sampler_conn = server.connect()
        opened.callback(_close_quietly, sampler_conn)
        variables = db.global_variables(sampler_conn, RECORDED_VARIABLES)
        flavor = db.parse_version(variables.get("version", ""), variables.get("version_comment", ""))
        settle = wait_quiet(sampler_conn)
        if not settle["quiet"]:
            reporter.say(f"warning: the server kept reading pages in the background "
                         f"({settle['pages_read_while_settling']} in {settle['settle_s']} s); they may count as misses")
        before = take_snapshot(sampler_conn, 0).status
        table_pages = tablestats.resident_pages(sampler_conn, info.database, info.table, before.get("pages_data"),
                                                owned=server.owned and server.foreign_owner is None)
        if table_pages is not None:  # the indexes the run reads (another index's pages spare it nothing)
            table_pages = {k: v for k, v in table_pages.items() if k in ("PRIMARY", info.index)}
        verdict = verify_cold(cold, before, flavor.name, table_pages, info.height,
                              most_data_pages=most_data_pages(before, variables, flavor.name))
        if verdict["cold"] is None:
            reporter.say(f"warning: {verdict['note']}"
                         + (f"; to verify it, {verdict['fix']}" if verdict.get("fix") else ""))
        elif not verdict["cold"]:
            reporter.say(f"warning: the run starts warm: {verdict['note']}"
                         + (f"; to start cold, {verdict['fix']}" if verdict.get("fix") else ""))
        elif verdict.get("note"):
            reporter.say(verdict["note"])
        _warn_if_fits(info, before, reporter, flavor.name, variables)
        table_reads = tablestats.TableReads(sampler_conn, info.database, info.table)
        state = DriverState()
        sampler = Sampler(sampler_conn, state.current_queries, sample_interval_s, flavor=flavor.name)
        watch = watch_cleaner(server, flavor.name, state.current_queries)
        opened.callback(stop_watch, watch)
        label = f"{workload.variation or workload.order} ({workload.order})"
        host_before = hostload.sample()
        reporter.run_started(label, workload.queries)
        started_at = now_iso()
        interrupted = False
        sampler.start()
        watching = watch is not None and watch.start()
        opened.pop_all()  # the run's finally closes them from here
    try:
        drive.run(state, progress=lambda n: reporter.run_progress(n, sampler.latest_hit_ratio))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        reporter.run_finished()
        last = sampler.stop(final=True)
        cleaner_record = stop_watch(watch)
        table_reads.finish(server)
        drive.close()
        _close_quietly(sampler_conn)
    host_after = hostload.sample()
    if state.empty:
        reporter.say(f"warning: {state.empty:,} of {state.queries:,} lookups ({state.empty / state.queries:.1%}) "
                     "found no row")
    reason = None
    # A server that refused the statement (a --query failing at run time: 1242, 1290) is up:
    # "went away" is only for a lost connection (issue #18, N7).
    lost = not db.refused_by_server(state.error_code)
    if interrupted:
        reason = "interrupted"
    elif state.error:
        reason = f"server lost: {state.error}" if lost else f"query refused: {state.error}"
    elif state.queries < workload.queries:
        reason = "stopped early"
    result = _result(server, flavor, variables, cold, info, workload, state, sampler, last, started_at, reason)
    result.result["threads"] = drive.threads
    result.result["pipeline"] = drive.pipeline
    result.host.update(hostload.assess(host_before, host_after, threads=drive.threads))
    if result.host["busy"]:
        reporter.say(f"warning: the host was busy during this run ({'; '.join(result.host['busy_reasons'])}): "
                     "its q/s and latency may be off (the same run swung 2x on a busy host); "
                     "pages read hardly depend on it")
    result.server["cold_start"].update(settle)
    result.server["cold_start"].update(verdict)
    if table_reads.result:
        result.buffer_pool["table"] = table_reads.result
    if cleaner_record is not None:
        result.buffer_pool["cleaner_batches"] = cleaner_record
    elif watch is not None and watch.note and not watching:
        reporter.say(f"note: {watch.note}; the prediction places the page cleaner's batch by the model's mean")
    # The model predicts whole workloads; against a partial run's reads it would be off by the
    # part that never ran (841% in the red-team's kill -9), so a partial result carries none.
    result.prediction = None if reason is not None else _prediction(server, info, workload, result, reporter, predict)
    out = write_result(out, result, reporter)
    if interrupted:
        raise Interrupted(f"interrupted after {state.queries:,} of {workload.queries:,} queries",
                          f"partial result written to {out}")
    if state.error and not lost:
        raise WorkloadError(f"the server refused the query after {state.queries:,} of {workload.queries:,} "
                            f"queries: {state.error}", f"partial result written to {out}")
    if state.error:
        why = _why_gone(server)
        raise WorkloadError(
            f"the server went away after {state.queries:,} of {workload.queries:,} queries: {state.error}"
            + (f" [{why}]" if why else ""),
            f"partial result written to {out}",
        )
    return result


def _close_quietly(conn) -> None:
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - the server may be gone
        pass


# A lost connection is often seen before the engine has marked the container exited (or the
# process reaped): the dying server is given this long to show it is gone before it is taken
# for alive and its exit status left out of the message.
GONE_WAIT_S = 5.0


def _why_gone(server, wait_s: float = GONE_WAIT_S) -> str:
    """The dead server's exit status and last log lines, or "" when it is still up."""
    deadline = time.monotonic() + wait_s
    while server.alive():
        if time.monotonic() >= deadline:
            return ""
        time.sleep(0.2)
    return server.diagnostics()


def _warn_if_fits(info: DatasetInfo, status: dict, reporter: Reporter, flavor_name: str = "mariadb",
                  variables: dict | None = None) -> None:
    """Warn when the table fits the pool's usable frames: the pages it has minus what the server
    already holds (MySQL keeps ~960 pages from start-up, docs/mysql-lab.md), and on MariaDB no
    more than the LRU list its page cleaner keeps on average (servers/lrulist.py: 144 pages at 8 and
    16 MiB, where it swings between 32 and 256: an 817-page table said to fit in 984 frames read
    16,627 pages, and a 164-page one in 376 frames read 246)."""
    total, held = status.get("pages_total"), status.get("pages_data") or 0
    pages = info.leaf_pages or 0
    if not total or not pages:
        return
    usable = max(0, total - held)
    why = f"{total:,} minus {held:,} the server holds"
    if flavor_name == "mariadb":
        listed = lru_list(total, scan_depth_of(variables, flavor_name), flavor_name).pages
        if listed < usable:
            usable, why = listed, f"of {total:,}: the page cleaner keeps the rest free"
    if pages <= usable:
        reporter.say(f"warning: the table ({pages:,} leaf pages, {format_bytes(info.table_bytes or 0)}) fits in "
                     f"the pool's {usable:,} usable pages ({why}): every order "
                     "misses each page only once; use a smaller --pool or more --rows to see the access order matter")


def write_result(out: Path, result: RunResult, reporter: Reporter) -> Path:
    """Write the result to out; if that fails now (the directory went away, the disk filled),
    write it to a fallback place and say where, because the measurement cannot be repeated for
    free. Returns the path written; result.source is set to it."""
    try:
        write_json_atomic(out, result)
        result.source = Path(out)
        return Path(out)
    except ResultError as exc:
        first = exc
    import tempfile

    places = [Path(tempfile.gettempdir())]
    try:
        places.insert(0, cache_dir() / "results")
    except LoadgenError:
        pass
    for directory in places:
        fallback = directory / Path(out).name
        try:
            write_json_atomic(fallback, result)
        except ResultError:
            continue
        reporter.say(f"warning: {first.message}; the result was written to {fallback} instead")
        result.source = fallback
        return fallback
    raise first


def _result(server, flavor, variables, cold, info, workload, state, sampler, last, started_at, reason) -> RunResult:
    elapsed = state.elapsed_s
    latency = state.histogram.summary_us()
    bp = totals(sampler.baseline, last, sampler.samples, flavor.name) if last is not None else {}
    queries = state.queries
    if last is not None:
        # The totals run to the last sample that succeeded: at the stop (a final sample), or
        # earlier when the server went away. Say which queries they cover.
        # (less the queries of intervals left out at a counter wrap or reset: sampler.totals)
        bp["queries"] = last.queries - sampler.baseline.queries - bp.get("gap_queries", 0)
        bp["until_s"] = round(last.t_s - sampler.baseline.t_s, 3)
        bp["covers_all_queries"] = bp["queries"] >= queries
        if bp["queries"] and bp.get("read_requests") is not None:
            bp["read_requests_per_query"] = round(bp["read_requests"] / bp["queries"], 3)
    return RunResult(
        loadgen_version=__version__,
        started_at=started_at,
        finished_at=now_iso(),
        complete=reason is None,
        incomplete_reason=reason,
        server={
            # How the run's connections reached the server (docker: servers/fastpath.py).
            "endpoint_path": "unix_socket" if server.endpoint.unix_socket else "tcp",
            **server.describe(),
            "flavor": flavor.name,
            "version": flavor.version,
            "innodb_buffer_pool_size": int(variables.get("innodb_buffer_pool_size", 0)),
            "variables": variables,
            "cold_start": {"method": cold.method, "cold": cold.cold, "note": cold.note, **cold.details},
        },
        dataset=info.to_dict(),
        workload=workload.to_dict(),
        result={
            "queries": queries,
            "rows_returned": state.rows,
            # lookups that returned no row: keys the table does not hold (a trace's, or a --query
            # that matches nothing for some keys)
            "empty_lookups": state.empty,
            "elapsed_s": round(elapsed, 3),
            "qps": round(queries / elapsed, 1) if elapsed > 0 else None,
            "latency_us": {k: v for k, v in latency.to_dict().items() if k != "count"},
            "latency_histogram": state.histogram.to_dict(),
            "driver": state.driver,
            # per_query: send to response of one query alone; pipelined_response: send to response
            # with up to `pipeline` queries ahead of it on the connection (see drivers/native.py).
            "latency_kind": state.latency_kind,
            "sample_interval_s": sampler.interval_s,
        },
        buffer_pool=bp,
        samples=sampler.samples,
        host={"cpus": os.cpu_count(), "kernel": platform.release(), "python": platform.python_version()},
    )


def _prediction(server: Server, info: DatasetInfo, workload: Workload, result: RunResult, reporter: Reporter,
                predict: Predict | None) -> Prediction | None:
    """The model's reads beside the measured ones; a model failure must never cost a measurement.
    A query through a secondary index needs that index's contents, read here from the server."""
    if predict is None:
        return None
    try:
        index_map = None
        if usertable.reads_secondary(info):
            conn = server.connect()
            try:
                index_map = read_index_map(conn, info)
            finally:
                conn.close()
        return predict(result, workload, index_map)
    except CannotModel as exc:
        reporter.say(f"note: no prediction for this run: {exc}")
    except Exception as exc:  # noqa: BLE001 - reported, and the result is written without it
        reporter.say(f"warning: no prediction for this run: {exc}")
    return None
