"""Which query loop runs a workload, over how many connections (--driver, --threads).

  native: the C loop (native.py, native/querydrv.c); the default when the extension was
          built against libmariadb/libmysqlclient
  python: the mysqlclient loop (python.py); always there, the fallback

--pipeline N (native only) keeps up to N queries in flight on each connection (native/pipeline.c);
the server still runs them in the order's order, and latency becomes per response.

With --threads N, N connections each run the workload's order over a contiguous Nth of the
distinct ids (orders.ids(part, parts)), each in its own thread; the native loop releases the GIL,
so they run in parallel. The threads' counts and histograms are merged into one DriverState.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

from .. import native
from ..errors import UsageError
from ..workload.orders import Workload
from . import QueryLoop
from .python import DriverState, PythonLoop

DRIVERS = ("native", "python")
JOIN_POLL_S = 0.25


def native_available() -> bool:
    from .native import available

    return available()


def resolve_driver(name: str | None) -> str:
    """'auto'/None -> native when built, else python; an unavailable native is a usage error."""
    if name in (None, "auto"):
        return "native" if native_available() else "python"
    if name not in DRIVERS:
        raise UsageError(f"unknown --driver {name!r}", "choose native, python or auto")
    if name == "native" and not native_available():
        raise UsageError("--driver native is not built into this loadgen",
                         "install libmariadb-dev and pkg-config and rebuild (pip install -e .), "
                         "or use --driver python")
    return name


def check_pipeline(pipeline: int, driver: str) -> int:
    top = native.pipeline_max_depth()
    if not 1 <= pipeline <= top:
        raise UsageError(f"--pipeline {pipeline} must be 1 to {top}",
                         "use 1 (one query at a time) or e.g. --pipeline 16")
    if pipeline > 1 and driver != "native":
        raise UsageError(f"--pipeline {pipeline} needs the native driver",
                         "use --driver native (or auto), or drop --pipeline")
    return pipeline


def loop_class(name: str) -> type:
    """The QueryLoop class of a resolved driver name."""
    if name == "native":
        from .native import NativeLoop

        return NativeLoop
    return PythonLoop


def check_threads(threads: int) -> int:
    if threads < 1:
        raise UsageError(f"--threads {threads} must be at least 1")
    return threads


class Drive:
    """The driver's connections, opened before the sampler starts (so a statement that fails to
    prepare stops the run before anything is measured), then run() once, then close()."""

    def __init__(self, server, database: str, workload: Workload, driver: str = "auto", threads: int = 1,
                 query: str | None = None, key_offset: int = 0, pipeline: int = 1, key_map=None):
        """query: SQL with one ? bound to each key (--query), None for the built-in point select;
        key_offset: added to the order's ids (a table whose keys start above 1); key_map: or, for
        a table whose keys have gaps, the keys the ids 1..len stand for (tableinfo.read_keys);
        pipeline: queries in flight per connection (--pipeline, native only)."""
        self.driver = resolve_driver(driver)  # the one place a name becomes a loop
        self.threads = check_threads(threads)
        self.pipeline = check_pipeline(pipeline, self.driver)
        self.workload = workload
        self.key_offset = key_offset
        self.key_map = key_map
        make = loop_class(self.driver)
        self.loops: list[QueryLoop] = []
        try:
            for _ in range(self.threads):
                loop = make(query, pipeline=self.pipeline) if self.pipeline > 1 else make(query)
                self.loops.append(loop)
                loop.open(server, database)
        except BaseException:
            self.close()
            raise

    def run(self, state: DriverState, progress: Callable[[int], None] | None = None) -> DriverState:
        """Drive the whole workload into `state`; Ctrl-C sets state.interrupted and re-raises."""
        state.driver = self.driver
        if self.threads == 1:
            self.loops[0].run(self._ids(), state, progress, None)
            return state
        parts = [DriverState() for _ in range(self.threads)]
        stop = threading.Event()
        state.live = lambda: sum(p.current_queries() for p in parts)

        def work(k: int) -> None:
            try:
                self.loops[k].run(self._ids(k, self.threads), parts[k], None, stop)
            except Exception as exc:  # noqa: BLE001 - reported through the merged state
                parts[k].error = parts[k].error or str(exc)
            if parts[k].error:
                stop.set()

        workers = [threading.Thread(target=work, args=(k,), name=f"loadgen-driver-{k}", daemon=True)
                   for k in range(self.threads)]
        started = time.monotonic()
        for w in workers:
            w.start()
        try:
            alive = workers
            while alive:
                alive[0].join(JOIN_POLL_S)  # a timeout, so Ctrl-C reaches this thread
                if progress is not None:
                    progress(state.current_queries())
                alive = [w for w in workers if w.is_alive()]
        except KeyboardInterrupt:
            state.interrupted = True
            stop.set()
            for w in workers:
                w.join()
            raise
        finally:
            state.live = None
            for p in parts:
                state.queries += p.queries
                state.rows += p.rows
                state.empty += p.empty
                state.histogram.merge(p.histogram)
                if not state.error and p.error:
                    state.error, state.error_code = p.error, p.error_code
                state.latency_kind = p.latency_kind
            state.elapsed_s += time.monotonic() - started
            if progress is not None:
                progress(state.queries)
        return state

    def _ids(self, part: int = 0, parts: int = 1):
        ids = self.workload.ids(part, parts)
        if self.key_map is not None:
            keys = self.key_map
            return (keys[i - 1] for i in ids)
        return map(self.key_offset.__add__, ids) if self.key_offset else ids

    def close(self) -> None:
        for loop in self.loops:
            loop.close()
        self.loops = []
