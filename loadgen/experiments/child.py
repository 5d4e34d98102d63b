"""The experiment child: ``python -m loadgen.experiments.child`` reads one JSON request on stdin,
joins a memory cgroup if asked, runs loadgen.native functions and writes one JSON reply.

Request: {"calls": [{"fn": "memset", "kwargs": {...}}, ...], "cgroup_procs": path or null}
Reply:   {"ok": true, "results": [...]} or {"ok": false, "error": {"type", "message", "hint"}}

It imports nothing but loadgen.native, so its own footprint inside a small cgroup stays small.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict

from .. import native
from ..errors import LoadgenError

CALLS = {"pagez": native.pagez, "memset": native.memset, "lazymap": native.lazymap,
         "alloc_touch": native.alloc_touch}


def _join(procs_file: str) -> None:
    try:
        with open(procs_file, "w") as f:
            f.write(str(os.getpid()))
    except OSError as exc:
        raise LoadgenError(f"cannot join memory cgroup ({procs_file}: {exc.strerror})",
                           "run loadgen as root (sudo)") from None


def serve(request: dict) -> dict:
    try:
        if request.get("cgroup_procs"):
            _join(request["cgroup_procs"])
        results = []
        for call in request["calls"]:
            fn = CALLS.get(call["fn"])
            if fn is None:
                raise LoadgenError(f"unknown native call {call['fn']!r}")
            results.append(asdict(fn(**call.get("kwargs", {}))))
        return {"ok": True, "results": results}
    except LoadgenError as exc:
        return {"ok": False, "error": {"type": type(exc).__name__, "message": exc.message,
                                       "hint": exc.hint}}


def main() -> int:
    reply = serve(json.load(sys.stdin))
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
