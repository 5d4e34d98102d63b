"""Run measurements in a child process, optionally inside a memory cgroup with swap.

The child (``python -m loadgen.experiments.child``) does the allocating, so an OOM kill takes the
child and never loadgen. It runs in its own session: Ctrl-C reaches loadgen only, which kills the
child, then removes what it made. Creating and removing the cgroup and the zram swap happen with
SIGINT/SIGTERM deferred, so a signal cannot leave half of either behind.
"""
from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import threading
import time

from ..errors import LoadgenError, UsageError
from ..units import format_bytes
from . import osmem
from .memcg import MemoryCgroup
from .zram import ZramSwap

SWAP_MODES = ("auto", "zram", "existing", "none")


@contextlib.contextmanager
def deferred_signals():
    """Hold SIGINT/SIGTERM until the block is done; then raise KeyboardInterrupt if one came."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def _defer(signum, frame):  # noqa: ARG001
        pending.append(signum)

    old = {s: signal.signal(s, _defer) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        if pending:
            raise KeyboardInterrupt


def run_child(calls: list[dict], cgroup: MemoryCgroup | None = None) -> tuple[list[dict], dict]:
    """Run [{'fn': name, 'kwargs': {...}}, ...] from loadgen.native in a fresh child process.

    Returns (results as dicts, {'wall_seconds', 'pswpin', 'pswpout', 'pgmajfault'}), the
    counters being host-wide /proc/vmstat deltas over the child's life.
    """
    request = {"calls": calls, "cgroup_procs": cgroup.procs_file if cgroup else None}
    before = osmem.vmstat()
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "loadgen.experiments.child"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(json.dumps(request).encode())
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    wall = time.monotonic() - t0
    after = osmem.vmstat()
    counters = {"wall_seconds": wall}
    for key in ("pswpin", "pswpout", "pgmajfault"):
        counters[key] = after.get(key, 0) - before.get(key, 0)
    return _decode(proc.returncode, out, cgroup), counters


def _decode(returncode: int, out: bytes, cgroup: MemoryCgroup | None) -> list[dict]:
    try:
        reply = json.loads(out) if out else None
    except ValueError:
        reply = None
    if returncode == 0 and isinstance(reply, dict):
        if reply.get("ok"):
            return reply["results"]
        err = reply.get("error", {})
        cls = UsageError if err.get("type") == "UsageError" else LoadgenError
        raise cls(err.get("message", "the experiment failed"), err.get("hint"))
    if cgroup is not None and cgroup.oom_kills() > 0:
        raise LoadgenError(
            f"the experiment was OOM-killed inside its memory cgroup ({cgroup.path.name}); "
            "loadgen itself is unaffected",
            "give it swap (--swap zram or existing) or raise --memory-limit")
    if returncode < 0:
        name = signal.Signals(-returncode).name
        hint = "the kernel's OOM killer (see dmesg)" if returncode == -signal.SIGKILL else None
        raise LoadgenError(f"the experiment process died of {name}",
                           f"likely cause: {hint}" if hint else None)
    raise LoadgenError(f"the experiment process failed with exit status {returncode}",
                       "its error output is above")


class Sandbox:
    """A memory cgroup limited to `limit` bytes, with `swap_need` bytes of swap for it.

    swap: 'zram' makes a zram device; 'existing' uses swap already on; 'auto' uses existing swap
    if enough is free, else zram; 'none' forbids swap (the child is OOM-killed when its working
    set passes the limit). Use as a context manager; everything it made is gone on exit.
    """

    def __init__(self, limit: int, swap: str = "auto", swap_need: int = 0,
                 zram_mem_limit: int = 512 << 20):
        if swap not in SWAP_MODES:
            raise UsageError(f"unknown swap mode {swap!r}", f"use one of {', '.join(SWAP_MODES)}")
        self.limit = limit
        self.swap_mode = swap
        self.swap_need = swap_need
        self.zram_mem_limit = zram_mem_limit
        self.zram: ZramSwap | None = None
        self.cgroup: MemoryCgroup | None = None
        self.swap_used = "none"

    def __enter__(self) -> "Sandbox":
        try:
            with deferred_signals():
                self._setup()
        except BaseException:
            with deferred_signals():
                self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        with deferred_signals():
            self.close()

    def _setup(self) -> None:
        osmem.require_root("running an experiment under --memory-limit (memory cgroup and swap)")
        mode = self.swap_mode
        if mode == "auto":
            mode = "existing" if osmem.swap_free() >= self.swap_need > 0 else "zram"
            if self.swap_need == 0:
                mode = "none"
        if mode == "existing":
            free = osmem.swap_free()
            if free < self.swap_need:
                raise LoadgenError(
                    f"--swap existing: {format_bytes(free)} of swap is free, the run needs "
                    f"{format_bytes(self.swap_need)}", "use --swap zram")
        if mode == "zram":
            self.zram = ZramSwap.create(max(self.swap_need, 64 << 20), self.zram_mem_limit)
        self.swap_used = self.zram.device if self.zram else mode
        self.cgroup = MemoryCgroup.create(self.limit, 0 if mode == "none" else self.swap_need)

    def close(self) -> None:
        """Remove the cgroup, then the swap; report (not hide) a step that failed."""
        errors = []
        for step in (self.cgroup, self.zram):
            if step is None:
                continue
            try:
                step.remove()
            except LoadgenError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def run(self, calls: list[dict]) -> tuple[list[dict], dict]:
        """run_child inside the cgroup; the counters add cgroup and zram statistics."""
        results, counters = run_child(calls, self.cgroup)
        counters["cgroup"] = self.cgroup.stats() if self.cgroup else None
        counters["zram"] = self.zram.stats() if self.zram else None
        return results, counters

    def describe(self) -> dict:
        return {"memory_limit": self.limit, "swap": self.swap_used, "swap_allowed": self.swap_need,
                "cgroup": str(self.cgroup.path) if self.cgroup else None,
                "cgroup_version": self.cgroup.hierarchy.version if self.cgroup else None,
                "zram": self.zram.stats() if self.zram else None}
