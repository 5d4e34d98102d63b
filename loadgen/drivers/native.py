"""The native query loop (`--driver native`): the same point selects as drivers/python.py, driven from C.

The loop lives in native/querydrv.c on the MariaDB/MySQL C API: one binary-protocol prepared
statement (as sysbench's oltp_point_select), every query timed into Histogram.counts in C, the
GIL released. Python feeds it ids in chunks of CHUNK_IDS from the workload's lazy iterator (so
memory stays flat) and gets control back at least every BUDGET_NS, to update progress and to
honour Ctrl-C and --threads' stop event. The sampler reads the C-side query count live through
DriverState.current_queries().

Per query the C loop does what sysbench's C driver does: execute, buffer the whole result on
the client (mysql_stmt_store_result), count its rows, free it. With verify=True it also fetches
every row and folds every value into a 64-bit FNV-1a digest (row_digest below is the same
function in Python), so tests can check that both drivers return the same rows.

With pipeline=N > 1 (--pipeline), the handle runs native/pipeline.c instead: after libmariadb's
handshake and prepare, the execute packets go back to back on the socket, up to N in flight, and
the responses are read in order; the server runs them one after another in the order sent, so
the buffer pool sees the same page sequence. The client no longer sleeps once per query, which
is what one-at-a-time costs on this VM. Each latency is then from a query's send to its
response, including its wait behind the queries ahead of it: result.latency_kind says
"pipelined_response" rather than "per_query". Every call of the C loop drains what it has in
flight before returning, so a stop or Ctrl-C leaves the connection in step, and the query count
is always a completed prefix of the order.
"""
from __future__ import annotations

import itertools
import threading
from array import array
from typing import Callable, NamedTuple
from collections.abc import Iterable

from .. import native
from ..db import Endpoint
from ..errors import LoadgenError, ProvisionError, WorkloadError
from ..measure.histogram import N_BUCKETS
from .python import DriverState, close_quietly, tick, timed


# the C query loop's results (native/querydrv.c), driven here
class QueryRun(NamedTuple):
    """What one call of the C query loop did: queries run, rows fetched, their time in total and
    at the extremes, the running row digest, the error (0, "" when none) that stopped it, and the
    queries that returned no row (lookups of keys that are not there)."""

    done: int
    rows: int
    total_ns: int
    min_ns: int
    max_ns: int
    digest: int
    err: int
    message: str
    empty: int


class QueryTotals(NamedTuple):
    """A query handle's running totals since it was opened, kept in C (so a Ctrl-C between a
    QueryRun's return and its bookkeeping loses nothing). min_ns is 0 before the first query."""

    queries: int
    rows: int
    total_ns: int
    min_ns: int
    max_ns: int
    digest: int
    empty: int


def query_totals(handle) -> QueryTotals:
    return QueryTotals(*native.extension().query_totals(handle))


def query_run(handle, ids, pos: int, counts, budget_ns: int) -> QueryRun:
    """Run ids[pos:] until they end, budget_ns passes or a query fails; latencies go into the
    histogram buckets `counts` in place."""
    return QueryRun(*native.extension().query_run(handle, ids, pos, counts, budget_ns))

PREPARED_QUERY = "SELECT alias FROM message WHERE id = ?"
CHUNK_IDS = 4096
BUDGET_NS = 100_000_000  # hand control back to Python at least every 0.1 s
CONNECT_TIMEOUT_S = 10
FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3


def extension_with(entry: str):
    """The extension when it was built with the C loop `entry` (query_open: querydrv.c,
    mix_open: mixdrv.c) against libmariadb/libmysqlclient, timing into this Histogram's buckets;
    None otherwise."""
    try:
        ext = native.extension()
    except LoadgenError:
        return None
    return ext if hasattr(ext, entry) and getattr(ext, "QUERY_BUCKETS", None) == N_BUCKETS else None


def query_error(exc, endpoint: Endpoint) -> tuple[int, str, str]:
    """A C loop's QueryError as (code, text, stage); one that failed to connect raised as the
    one-line ProvisionError every C loop gives."""
    code, message, stage = exc.args
    text = f"{message} ({code})" if code else message
    if stage == "connect":
        from ..db import auth_plugin_hint

        raise ProvisionError(f"cannot connect to {endpoint.describe()}: {text}",
                             auth_plugin_hint(Exception(code, message))
                             or ("check that the server is running and the DSN/credentials are right"
                                 if code != 1045 else "check the user and password")) from None
    return code, text, stage


def available() -> bool:
    """True when the extension was built with the query loop (against libmariadb/libmysqlclient)."""
    return extension_with("query_open") is not None


def row_digest(rows: Iterable[tuple], digest: int = FNV_OFFSET) -> int:
    """What the C loop computes over the values it fetches, in Python (for tests)."""
    mask = (1 << 64) - 1
    for row in rows:
        for value in row:
            if value is None:
                data = b"\xfe"
            else:
                data = (value if isinstance(value, bytes) else str(value).encode())[:256] + b"\xff"
            for byte in data:
                digest = ((digest ^ byte) * FNV_PRIME) & mask
    return digest


class NativeQueries:
    """One connection and one prepared statement in C. Close it (or use `with`)."""

    def __init__(self, endpoint: Endpoint, database: str | None, sql: str = PREPARED_QUERY,
                 verify: bool = False, pipeline: int = 1):
        self.ext = native.extension()
        if not hasattr(self.ext, "query_open"):
            raise LoadgenError("the native driver is not built into loadgen._native",
                               "install libmariadb-dev and pkg-config, rebuild (pip install -e .), "
                               "or use --driver python")
        try:
            self.handle = self.ext.query_open(
                None if endpoint.unix_socket else endpoint.host, int(endpoint.port or 0),
                endpoint.user, endpoint.password, endpoint.unix_socket, database, sql,
                CONNECT_TIMEOUT_S, verify, pipeline)
        except self.ext.QueryError as exc:
            code, text, stage = query_error(exc, endpoint)
            if stage == "prepare" and pipeline > 1 and not code:
                raise WorkloadError(f"cannot pipeline {sql!r}: {text}",
                                    "run without --pipeline") from None
            raise WorkloadError(f"cannot prepare {sql!r}: {text}",
                                "check the schema and the database the dataset lives in") from None
        self.pipeline = pipeline
        self.digest = FNV_OFFSET

    def count(self) -> int:
        return self.ext.query_count(self.handle)

    def close(self) -> None:
        if self.handle is not None:
            self.ext.query_close(self.handle)

    def __enter__(self) -> NativeQueries:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def run_queries_native(
    queries: NativeQueries,
    ids: Iterable[int],
    state: DriverState,
    progress: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
) -> DriverState:
    """Query each id in order through the C loop; the contract of driver.run_queries.

    Stops early with state.error (and error_code) set when a query fails (the server went away
    or refused it), or with
    state.interrupted on Ctrl-C (re-raised so callers' cleanup runs).
    """
    ext = queries.ext
    handle = queries.handle
    hist = state.histogram
    counts = hist.counts
    base = state.queries - queries.count()
    state.driver = "native"
    state.latency_kind = "pipelined_response" if queries.pipeline > 1 else "per_query"
    state.live = lambda: base + ext.query_count(handle)
    # A Ctrl-C can land between query_run's return and the bookkeeping below it; the C side keeps
    # running totals per handle, and the finally clause takes the final figures from those.
    t0 = query_totals(handle)
    s0 = (state.queries, state.rows, hist.count, hist.total_ns, state.empty)
    it = iter(ids)
    try:
        with timed(state):
            while True:
                chunk = array("Q", itertools.islice(it, CHUNK_IDS))
                if not chunk:
                    break
                pos = 0
                while pos < len(chunk):
                    step = query_run(handle, chunk, pos, counts, BUDGET_NS)
                    pos += step.done
                    state.queries += step.done
                    state.rows += step.rows
                    state.empty += step.empty
                    queries.digest = step.digest
                    hist.add_chunk(step.done, step.total_ns, step.min_ns, step.max_ns)
                    if step.err:
                        state.error, state.error_code = f"{step.message} ({step.err})", step.err
                        return state
                    if tick(progress, stop, state.queries):
                        return state
    finally:
        state.live = None
        t1 = query_totals(handle)
        done = t1.queries - t0.queries
        if s0[0] + done != state.queries:  # a QueryRun was lost to an exception
            if done:
                hist.max_ns = max(hist.max_ns, t1.max_ns)
                hist.min_ns = t1.min_ns if hist.min_ns is None else min(hist.min_ns, t1.min_ns)
            state.queries, state.rows = s0[0] + done, s0[1] + t1.rows - t0.rows
            state.empty = s0[4] + t1.empty - t0.empty
            hist.count, hist.total_ns = s0[2] + done, s0[3] + t1.total_ns - t0.total_ns
            queries.digest = t1.digest
        if progress is not None:
            progress(state.queries)
    return state


class NativeLoop:
    """QueryLoop over the C loop (--driver native)."""

    name = "native"

    def __init__(self, query: str | None = None, pipeline: int = 1) -> None:
        """query: SQL with one ? (--query), prepared as is; None for PREPARED_QUERY. pipeline:
        queries in flight on the connection (1: one round trip each)."""
        self.queries: NativeQueries | None = None
        self.sql = query or PREPARED_QUERY
        self.pipeline = pipeline

    def open(self, server, database: str) -> None:
        self.queries = NativeQueries(server.endpoint, database, sql=self.sql, pipeline=self.pipeline)

    def run(self, ids, state: DriverState, progress=None, stop=None) -> DriverState:
        return run_queries_native(self.queries, ids, state, progress, stop)

    def close(self) -> None:
        queries, self.queries = self.queries, None
        close_quietly(queries)


def bucket_counts(values_ns: Iterable[int]):
    """Histogram counts of values (ns) as the C loop buckets them (for tests against Python)."""
    counts = array("Q", bytes(8 * N_BUCKETS))
    native.extension().query_buckets(array("Q", values_ns), counts)
    return counts
