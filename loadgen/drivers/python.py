"""The query loop: one connection, one point select per id, each timed into a histogram.

The loop uses mysqlclient's low-level calls (query/store_result/fetch_row) instead of a cursor:
the cursor's parameter escaping and row conversion would double the client's cost per query,
and the client's cost is what hides the server's (the seed's Python loop spent most of its
time in the client).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable
from collections.abc import Iterable

from .. import db
from ..measure.histogram import Histogram

QUERY = b"SELECT alias FROM message WHERE id = %d"
PROGRESS_EVERY = 1024


@dataclass
class DriverState:
    """Shared with the sampler and the progress display; written only by the driver thread."""

    queries: int = 0
    rows: int = 0
    empty: int = 0  # queries that returned no row: lookups of keys that are not there
    histogram: Histogram = field(default_factory=Histogram)
    error: str | None = None
    # The error number with `error`: a lost connection (db.CONNECTION_LOST; None: not known)
    # or the server refusing the statement (a --query that fails at run time).
    error_code: int | None = None
    interrupted: bool = False
    elapsed_s: float = 0.0
    driver: str = "python"
    latency_kind: str = "per_query"
    # The native driver counts in C while the GIL is released; this reads that count live.
    live: Callable[[], int] | None = field(default=None, repr=False, compare=False)

    def current_queries(self) -> int:
        """Queries run so far, also in the middle of a native chunk (for the sampler)."""
        live = self.live  # read once: the driver thread clears it when it finishes
        return max(self.queries, live()) if live is not None else self.queries


def run_queries(
    conn,
    ids: Iterable[int],
    state: DriverState,
    progress: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
    query_format: bytes = QUERY,
) -> DriverState:
    """Query each id in order. Stops early, with state.error or state.interrupted set, when the
    server goes away or refuses the query, or the user presses Ctrl-C; what was measured up to then stays in state.
    With `stop` (--threads), also stops soon after it is set.

    Raises KeyboardInterrupt again after recording it, so callers' cleanup runs.
    """
    import MySQLdb

    hist = state.histogram
    record = hist.record
    clock = time.perf_counter_ns
    query = conn.query
    store = conn.store_result
    n = state.queries
    rows = state.rows
    empty = state.empty
    started = time.monotonic()
    try:
        for i in ids:
            t0 = clock()
            query(query_format % i)
            result = store()
            got = len(result.fetch_row(0)) if result is not None else 0
            rows += got
            empty += not got
            record(clock() - t0)
            n += 1
            state.queries = n
            if not n % PROGRESS_EVERY:
                if progress is not None:
                    progress(n)
                if stop is not None and stop.is_set():
                    break
    except KeyboardInterrupt:
        state.interrupted = True
        raise
    except MySQLdb.Error as exc:  # the server gone, or refusing the statement: said apart by the code
        state.error = db.error_text(exc)
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        state.error_code = code
    finally:
        state.queries = n
        state.rows = rows
        state.empty = empty
        state.elapsed_s += time.monotonic() - started
        if progress is not None:
            progress(n)
    return state


def close_quietly(resource) -> None:
    """Close a connection whose server may be gone: there is nothing left to tell."""
    if resource is None:
        return
    try:
        resource.close()
    except Exception:  # noqa: BLE001 - the server may be gone
        pass


class PythonLoop:
    """QueryLoop over mysqlclient (--driver python)."""

    name = "python"

    def __init__(self, query: str | None = None) -> None:
        """query: SQL with one ? (--query), sent as text with the key formatted in."""
        from ..seeding.userquery import text_format

        self.conn = None
        self.query_format = text_format(query) if query else QUERY

    def open(self, server, database: str) -> None:
        self.conn = server.connect(database)

    def run(self, ids, state: DriverState, progress=None, stop=None) -> DriverState:
        state.driver = self.name
        return run_queries(self.conn, ids, state, progress, stop, query_format=self.query_format)

    def close(self) -> None:
        conn, self.conn = self.conn, None
        close_quietly(conn)
