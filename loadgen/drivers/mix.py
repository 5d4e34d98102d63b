"""The driver of a mix: its ops in the generated order, each on its stream's own connection, and
its scheduled streams on theirs, at their times.

One thread runs the op sequence (workload/mix.py's Generator): op i goes to stream s's connection
and the next op is sent only when op i has answered, so the server sees the mix's exact order
whatever the number of streams; each stream's statements were prepared (native) on its own
connection before the sampler starts. Two loops run it:
  python  mysqlclient, the statements as text with their integers formatted in;
  native  native/mixdrv.c: binary-protocol prepared statements bound with 64-bit integers, the
          whole chunk in C with the GIL released (mixnative.py).
A failed statement (a duplicate key, a deadlock) is counted in its stream's `errors` and the run
goes on; a lost connection stops it with MixState.error, the ops done so far kept.

A scheduled stream (a scan every_s seconds, or once at at_s) runs on its own connection in its
own thread (Scheduler), beside the sequence; each execution records its start and end time and
the mix's op count at both, so the model can place the scan's pages inside the sequence.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from .. import db
from ..measure.histogram import Histogram
from ..workload.statements import Statement
from .python import close_quietly

PROGRESS_EVERY = 1024


@dataclass
class StreamStats:
    ops: int = 0
    rows: int = 0  # returned (reads) or changed (writes)
    errors: int = 0
    first_error: str | None = None
    histogram: Histogram = field(default_factory=Histogram)


@dataclass
class MixState:
    """What the driver has done, shared with the sampler and the progress bar."""

    streams: list[StreamStats]
    ops: int = 0  # ops of the sequence completed (always a prefix of it)
    error: str | None = None  # the server went away
    interrupted: bool = False
    elapsed_s: float = 0.0
    driver: str = "python"
    latency_kind: str = "per_op"
    # live counts from C while a native chunk runs: () -> (ops, per-stream ops)
    live: Callable[[], tuple[int, list[int]]] | None = field(default=None, repr=False, compare=False)

    def current_ops(self) -> int:
        live = self.live
        return max(self.ops, live()[0]) if live is not None else self.ops

    def stream_ops(self) -> list[int]:
        live = self.live
        own = [s.ops for s in self.streams]
        if live is None:
            return own
        return [max(a, b) for a, b in zip(own, live()[1])]


class PythonMix:
    """The mix over mysqlclient (--driver python): one connection per stream of the sequence."""

    name = "python"

    def __init__(self, plans: dict[int, list[Statement]], key_offsets: dict[int, int], one_connection: bool = False):
        """plans: the statements of each stream of the sequence (index into spec.streams);
        key_offsets: added to each stream's keys (an existing table whose keys start above 1);
        one_connection: every stream on one connection (a replayed trace's transactions)."""
        self.plans = plans
        self.key_offsets = key_offsets
        self.one_connection = one_connection
        self.conns: dict[int, object] = {}

    def open(self, server, database: str | None) -> None:
        shared = None
        for i, plan in self.plans.items():
            if self.one_connection:
                shared = shared or server.connect(database)
            conn = shared or server.connect(database)
            self.conns[i] = conn
            for st in plan:  # a statement the table cannot run fails here, before anything is measured
                if st.explain:
                    _explain(conn, st)

    def run(self, chunks, state: MixState, progress: Callable[[int], None] | None = None,
            stop: threading.Event | None = None) -> MixState:
        import MySQLdb

        clock = time.perf_counter_ns
        started = time.monotonic()
        state.driver = self.name
        texts = {i: [(st, st.reads_rows) for st in plan] for i, plan in self.plans.items()}
        try:
            for chunk in chunks:
                streams, keys, lengths = chunk.stream.tolist(), chunk.key.tolist(), chunk.length.tolist()
                for j, s in enumerate(streams):
                    raw = keys[j]
                    key = raw + self.key_offsets.get(s, 0)
                    end = key + lengths[j] - 1
                    op = chunk.start + j
                    conn = self.conns[s]
                    stats = state.streams[s]
                    rows = 0
                    t0 = clock()
                    try:
                        for st, reads in texts[s]:
                            conn.query(st.text(key, end, op, raw))
                            if reads:
                                result = conn.store_result()
                                rows += len(result.fetch_row(0)) if result is not None else 0
                            else:
                                rows += max(0, conn.affected_rows())
                    except (MySQLdb.OperationalError, MySQLdb.InterfaceError, MySQLdb.ProgrammingError,
                            MySQLdb.IntegrityError, MySQLdb.DataError, MySQLdb.InternalError) as exc:
                        if db.is_connection_lost(exc) or isinstance(exc, MySQLdb.InterfaceError):
                            state.error = db.error_text(exc)
                            return state
                        stats.errors += 1
                        stats.first_error = stats.first_error or db.error_text(exc)
                    stats.histogram.record(clock() - t0)
                    stats.ops += 1
                    stats.rows += rows
                    state.ops = op + 1
                    if not state.ops % PROGRESS_EVERY:
                        if progress is not None:
                            progress(state.ops)
                        if stop is not None and stop.is_set():
                            return state
        except KeyboardInterrupt:
            state.interrupted = True
            raise
        finally:
            state.elapsed_s += time.monotonic() - started
            if progress is not None:
                progress(state.ops)
        return state

    def close(self) -> None:
        conns, self.conns = self.conns, {}
        for conn in {id(c): c for c in conns.values()}.values():
            close_quietly(conn)


def _explain(conn, st: Statement) -> None:
    """Have the server parse a statement (EXPLAIN of it with key 1), so a column or table that
    is not there stops the run before anything is measured, as a native prepare does."""
    cur = conn.cursor()
    try:
        cur.execute("EXPLAIN " + st.text(1, 1, 0))
        cur.fetchall()
    finally:
        cur.close()


AT_OP_POLL_S = 0.002  # at_op's poll: a few ops late at most at this project's rates


class Scheduler:
    """One scheduled stream (a scan) on its own connection and thread: at at_s once, once when
    the sequence has sent at_op operations, or at every_s, 2*every_s, ... until stop(). Each
    execution is recorded with its start and end (seconds from the run's t0) and the sequence's
    op count at both."""

    def __init__(self, server, database: str | None, index: int, name: str, statement: Statement,
                 every_s: float | None, at_s: float | None, ops_now: Callable[[], int], stats: StreamStats,
                 at_op: int | None = None):
        self.server, self.database, self.index, self.name = server, database, index, name
        self.statement, self.every_s, self.at_s, self.at_op = statement, every_s, at_s, at_op
        self.ops_now = ops_now
        self.stats = stats
        self.executions: list[dict] = []
        self.error: str | None = None
        self.conn = server.connect(database)
        _explain(self.conn, statement)
        self.connection_id = int(db.query_value(self.conn, "SELECT CONNECTION_ID()"))
        self._stop = threading.Event()
        self._busy = threading.Event()
        self._thread: threading.Thread | None = None
        self.t0 = 0.0

    def start(self, t0: float) -> None:
        self.t0 = t0
        self._thread = threading.Thread(target=self._loop, name=f"loadgen-scheduled-{self.name}", daemon=True)
        self._thread.start()

    def _times(self):
        if self.at_s is not None:
            yield self.at_s
            return
        k = 1
        while True:
            yield k * self.every_s
            k += 1

    def _loop(self) -> None:
        if self.at_op is not None:
            # by the sequence's op count, whatever the rate (polled: the drivers count as they go)
            while self.ops_now() < self.at_op:
                if self._stop.wait(AT_OP_POLL_S):
                    return
            self._execute()
            return
        for at in self._times():
            if self._stop.wait(max(0.0, self.t0 + at - time.monotonic())):
                return
            self._execute()
            if self.error is not None:
                return

    def _execute(self) -> None:
        import MySQLdb

        self._busy.set()
        record = {"start_s": round(time.monotonic() - self.t0, 3), "ops_before": self.ops_now()}
        t0 = time.perf_counter_ns()
        try:
            self.conn.query(self.statement.text(1, 1, 0))
            result = self.conn.store_result()
            rows = result.fetch_row(0) if result is not None else ()
            record["rows"] = int(rows[0][0] or 0) if rows else 0
        except (MySQLdb.OperationalError, MySQLdb.InterfaceError, MySQLdb.ProgrammingError) as exc:
            record["error"] = db.error_text(exc)
            if db.is_connection_lost(exc) or isinstance(exc, MySQLdb.InterfaceError):
                self.error = record["error"]
            self.stats.errors += 1
            self.stats.first_error = self.stats.first_error or record["error"]
        finally:
            elapsed = time.perf_counter_ns() - t0
            record["end_s"] = round(time.monotonic() - self.t0, 3)
            record["ops_after"] = self.ops_now()
            self.executions.append(record)
            if "error" not in record:
                self.stats.ops += 1
                self.stats.rows += record.get("rows", 0)
                self.stats.histogram.record(elapsed)
            self._busy.clear()

    def stop(self, kill: bool = False) -> None:
        """No more executions; one in progress finishes (kill=True: KILL QUERY it, on Ctrl-C)."""
        self._stop.set()
        if kill and self._busy.is_set():
            try:
                conn = self.server.connect()
                try:
                    db.query_all(conn, f"KILL QUERY {self.connection_id}")
                finally:
                    conn.close()
            except Exception:  # noqa: BLE001 - the server may be gone
                pass
        if self._thread is not None:
            while self._thread.is_alive():
                self._thread.join(0.25)  # a timeout, so Ctrl-C reaches this thread

    def close(self) -> None:
        close_quietly(self.conn)
