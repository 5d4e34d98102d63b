"""The query loops, behind one small protocol (QueryLoop: open, run, close):

  python.py  PythonLoop: mysqlclient, one point select per id; always there
  native.py  NativeLoop: the C loop of loadgen._native over a prepared statement
  drive.py   Drive: resolves --driver once and runs a loop per connection (--threads)
"""
from __future__ import annotations

import threading
from typing import Callable, Protocol
from collections.abc import Iterable

from .python import DriverState


class QueryLoop(Protocol):
    """One connection's query loop. open() connects (and prepares), so a bad statement stops a
    run before anything is measured; run() queries each id in order into `state`; close() is
    idempotent and safe after the server went away."""

    name: str

    def open(self, server, database: str) -> None: ...

    def run(self, ids: Iterable[int], state: DriverState, progress: Callable[[int], None] | None,
            stop: threading.Event | None) -> DriverState: ...

    def close(self) -> None: ...


__all__ = ["DriverState", "QueryLoop"]
