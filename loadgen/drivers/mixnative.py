"""The native loop of a mix (native/mixdrv.c): the op sequence run from C, one prepared statement
(or two) per stream on the stream's own connection, bound with integers only.

Python hands C a chunk of the sequence at a time (workload/mix.py's arrays, as they are) and gets
control back at least every BUDGET_NS, for the progress bar and Ctrl-C. Each stream's ops, rows,
errors and latency histogram are kept in C; MixState's live counts read them while a chunk runs
(the sampler's per-stream counts), and finish() copies them into the state.
"""
from __future__ import annotations

import threading
import time
from array import array
from typing import Callable

import numpy as np

from ..db import Endpoint
from ..errors import LoadgenError, ProvisionError, UsageError
from ..measure.histogram import N_BUCKETS
from ..workload.statements import PARAM_END, PARAM_KEY, PARAM_OP, PARAM_RAW, Statement
from .mix import MixState
from .python import close_quietly

BUDGET_NS = 100_000_000  # control back to Python at least every 0.1 s
CONNECT_TIMEOUT_S = 10


def _ext():
    from .. import native

    return native.extension()


def available() -> bool:
    """True when the extension was built with the mix loop (against libmariadb/libmysqlclient), and
    it reads the latency histogram and the statements' parameter codes as this package writes them
    (the codes belong to workload/statements.py, which the python driver uses without C)."""
    try:
        ext = _ext()
    except LoadgenError:
        return False
    codes = (PARAM_KEY, PARAM_END, PARAM_OP, PARAM_RAW)
    return (hasattr(ext, "mix_open") and getattr(ext, "QUERY_BUCKETS", None) == N_BUCKETS
            and tuple(getattr(ext, f"MIX_PARAM_{n}", None) for n in ("KEY", "END", "OP", "RAW")) == codes)


class NativeMix:
    """The mix over native/mixdrv.c (--driver native)."""

    name = "native"

    def __init__(self, plans: dict[int, list[Statement]], key_offsets: dict[int, int], one_connection: bool = False,
                 pipeline: int = 1):
        """one_connection: every stream's statements on one connection (the bench's comparison);
        the default gives each stream its own, as a mix's streams are separate clients.
        pipeline > 1 (--pipeline): one connection, up to that many statements in flight on it;
        the server runs them in the order sent, so the sequence is the same, and latency is
        from an op's first send to its last response."""
        self.one_connection = one_connection or pipeline > 1
        self.pipeline = pipeline
        self.plans = plans
        self.key_offsets = key_offsets
        self.handle = None
        self.ext = None
        self.n = max(plans) + 1 if plans else 0

    def open(self, server, database: str | None) -> None:
        self.ext = _ext()
        endpoint: Endpoint = server.endpoint
        streams = [(i, int(self.key_offsets.get(i, 0)),
                    [(st.sql, bytes(st.params), st.reads_rows) for st in plan]) for i, plan in self.plans.items()]
        try:
            self.handle = self.ext.mix_open(
                None if endpoint.unix_socket else endpoint.host, int(endpoint.port or 0), endpoint.user,
                endpoint.password, endpoint.unix_socket, database, CONNECT_TIMEOUT_S, streams,
                self.one_connection, self.pipeline)
        except self.ext.QueryError as exc:
            code, message, stage = exc.args
            text = f"{message} ({code})" if code else message
            if stage == "connect":
                from ..db import auth_plugin_hint

                raise ProvisionError(f"cannot connect to {endpoint.describe()}: {text}",
                                     auth_plugin_hint(Exception(code, message))
                                     or "check that the server is running and the DSN/credentials are right") from None
            if stage == "pipeline":
                raise UsageError(f"cannot pipeline this mix: {text}", "run it without --pipeline") from None
            index = int(stage.partition(":")[2] or 0)
            sqls = "; ".join(st.sql for st in self.plans.get(index, []))
            raise UsageError(f"stream {index}'s statement does not prepare: {text} [{sqls}]",
                             "check the workload's columns against the table") from None

    def _live(self):
        ops, per = self.ext.mix_count(self.handle)
        return ops, list(per)

    def run(self, chunks, state: MixState, progress: Callable[[int], None] | None = None,
            stop: threading.Event | None = None) -> MixState:
        ext, handle = self.ext, self.handle
        counts = array("Q", bytes(8 * N_BUCKETS * self.n))
        state.driver = self.name
        state.latency_kind = "pipelined_response" if self.pipeline > 1 else "per_op"
        state.live = self._live
        started = time.monotonic()
        try:
            for chunk in chunks:
                stream = np.ascontiguousarray(chunk.stream, dtype=np.uint16)
                key = np.ascontiguousarray(chunk.key, dtype=np.uint64)
                length = np.ascontiguousarray(chunk.length, dtype=np.uint32)
                pos = 0
                while pos < len(chunk):
                    done, err, message = ext.mix_run(handle, stream, key, length, pos, chunk.start, counts, BUDGET_NS)
                    pos += done
                    state.ops = chunk.start + pos
                    if err:
                        state.error = f"{message} ({err})"
                        return state
                    if progress is not None:
                        progress(state.ops)
                    if stop is not None and stop.is_set():
                        return state
        except KeyboardInterrupt:
            state.interrupted = True
            raise
        finally:
            state.elapsed_s += time.monotonic() - started
            state.ops = max(state.ops, ext.mix_count(handle)[0])
            state.live = None
            self._collect(state, counts)
            if progress is not None:
                progress(state.ops)
        return state

    def _collect(self, state: MixState, counts: array) -> None:
        """The C side's per-stream totals and histograms into the state."""
        for i, (ops, rows, errors, total_ns, min_ns, max_ns, first_error) in enumerate(self.ext.mix_stats(self.handle)):
            if i not in self.plans:
                continue
            st = state.streams[i]
            st.ops, st.rows, st.errors = ops, rows, errors
            st.first_error = first_error
            h = st.histogram
            h.counts = array("Q", counts[i * N_BUCKETS:(i + 1) * N_BUCKETS])
            h.count, h.total_ns, h.max_ns = ops, total_ns, max_ns
            h.min_ns = min_ns if ops else None

    def close(self) -> None:
        handle, self.handle = self.handle, None
        if handle is not None:
            close_quietly(_Closer(self.ext, handle))


class _Closer:
    def __init__(self, ext, handle):
        self.ext, self.handle = ext, handle

    def close(self) -> None:
        self.ext.mix_close(self.handle)
