"""Run measurements in a child process, optionally inside a memory cgroup with swap.

The child (``python -I``, running loadgen.experiments.child) does the allocating, so an OOM kill takes the
child and never loadgen. It runs in its own session: Ctrl-C reaches loadgen only, which kills the
child, then removes what it made. Creating and removing the cgroup and the swap (a file or a zram
device) happen with SIGINT/SIGTERM deferred, so a signal cannot leave half of either behind. A
SIGKILLed loadgen cannot clean up: the child dies with it (PR_SET_PDEATHSIG) and the next
sandbox sweeps the cgroup and swap it left (orphans.py).
"""
from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..errors import LoadgenError, UsageError
from ..shield import shielded
from ..units import format_bytes
from . import orphans, osmem
from .memcg import MemoryCgroup
from .swapfile import SwapFile
from .zram import CONTROL as ZRAM_CONTROL
from .zram import ZramSwap

SWAP_MODES = ("auto", "file", "zram", "existing", "none")
# Above the kernel's default (negative) priorities and zram's usual 100, so the experiment's pages
# go to the swap we made for it.
SWAP_PRIORITY = 32000
# A run OOM-killed while its swap still had room is retried this many times (see Sandbox.run).
OOM_RETRIES = 2


class OomKilled(LoadgenError):
    """The child was OOM-killed inside its memory cgroup."""


def run_child(calls: list[dict], cgroup: MemoryCgroup | None = None) -> tuple[list[dict], dict]:
    """Run [{'fn': name, 'kwargs': {...}}, ...] from loadgen.native in a fresh child process.

    Returns (results as dicts, {'wall_seconds', 'pswpin', 'pswpout', 'pgmajfault'}), the
    counters being host-wide /proc/vmstat deltas over the child's life.
    """
    request = {"calls": calls, "cgroup_procs": cgroup.procs_file if cgroup else None}
    before = osmem.vmstat()
    ooms = cgroup.oom_kills() if cgroup else 0  # the cgroup's count is cumulative: take a delta
    t0 = time.monotonic()
    parent, libc = os.getpid(), ctypes.CDLL(None)  # loaded before the fork, used after it
    proc = subprocess.Popen(child_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd="/",
                            start_new_session=True, preexec_fn=lambda: _die_with(libc, parent))
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
    return _decode(proc.returncode, out, cgroup, ooms), counters


def child_command() -> list[str]:
    """The child's command line: this interpreter, isolated, importing this very loadgen.

    `python -m` would put the current directory first on sys.path, so a loadgen/ planted there
    (by any user, in /tmp) would run as whoever runs loadgen, root for --memory-limit (issue
    #18, N2). -I drops the cwd, PYTHONPATH and the user's site-packages; the directory that
    holds *this* loadgen package goes first, so a checkout that is not installed works too.
    """
    root = str(Path(__file__).resolve().parents[2])
    boot = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from loadgen.experiments.child import main; sys.exit(main())")
    return [sys.executable, "-I", "-c", boot, root]


def _die_with(libc, parent: int) -> None:
    # Between fork and exec: a SIGKILLed loadgen takes the child with it, so its pages leave the
    # cgroup and the swap, and the next run's sweep can remove both.
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # loadgen died before prctl took effect
        os._exit(1)


def _decode(returncode: int, out: bytes, cgroup: MemoryCgroup | None,
            ooms_before: int = 0) -> list[dict]:
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
    if cgroup is not None and cgroup.oom_kills() > ooms_before:
        raise OomKilled(
            f"the experiment was OOM-killed inside its memory cgroup ({cgroup.path.name}); "
            "loadgen itself is unaffected",
            "give it swap (--swap file, zram or existing) or raise --memory-limit")
    if returncode < 0:
        name = signal.Signals(-returncode).name
        hint = "the kernel's OOM killer (see dmesg)" if returncode == -signal.SIGKILL else None
        raise LoadgenError(f"the experiment process died of {name}",
                           f"likely cause: {hint}" if hint else None)
    raise LoadgenError(f"the experiment process failed with exit status {returncode}",
                       "its error output is above")


class Sandbox:
    """A memory cgroup limited to `limit` bytes, with `swap_need` bytes of swap for it.

    swap: 'file' makes a swap file on a disk-backed filesystem (swapfile.py); 'zram' makes a zram
    device; 'existing' uses swap already on; 'auto' is 'file' where a file can be made, else
    'zram'; 'none' forbids swap (the child is OOM-killed when its working set passes the limit).
    Use as a context manager; everything it made is gone on exit. Entering first sweeps what a
    SIGKILLed loadgen left behind.
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
        self.swap_file: SwapFile | None = None
        self.cgroup: MemoryCgroup | None = None
        self.swap_used = "none"
        self.swap_kind = "none"
        self.notes: list[str] = []
        self.swept: list[str] = []

    def __enter__(self) -> Sandbox:
        try:
            with shielded(hold_max=None):
                self._setup()
        except BaseException:
            with shielded(hold_max=None):
                self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        with shielded(hold_max=None):
            self.close()

    def _setup(self) -> None:
        osmem.require_root("running an experiment under --memory-limit (memory cgroup and swap)")
        try:
            self.swept = orphans.sweep()
        except OSError as exc:  # the registry itself unreadable: run anyway, and say so
            self.notes.append(f"could not sweep orphans of earlier runs ({exc})")
        mode = self.swap_mode
        if mode == "auto" and self.swap_need == 0:
            mode = "none"
        if mode == "auto":
            try:
                self.swap_file = SwapFile.create(max(self.swap_need, 64 << 20), SWAP_PRIORITY)
                mode = "file"
            except LoadgenError as exc:
                if not (ZRAM_CONTROL / "hot_add").exists():
                    raise
                self.notes.append(f"no swap file ({exc.message}): zram instead, where a swap-in "
                                  "decompresses in RAM instead of reading the disk")
                mode = "zram"
        elif mode == "file":
            self.swap_file = SwapFile.create(max(self.swap_need, 64 << 20), SWAP_PRIORITY)
        if mode == "existing":
            free = osmem.swap_free()
            if free < self.swap_need:
                raise LoadgenError(
                    f"--swap existing: {format_bytes(free)} of swap is free, the run needs "
                    f"{format_bytes(self.swap_need)}", "use --swap zram")
        if mode == "zram":
            self.zram = ZramSwap.create(max(self.swap_need, 64 << 20), self.zram_mem_limit)
        self.swap_kind = mode
        self.swap_used = (self.zram.device if self.zram else
                          self.swap_file.device if self.swap_file else mode)
        self.cgroup = MemoryCgroup.create(self.limit, 0 if mode == "none" else self.swap_need)

    def close(self) -> None:
        """Remove the cgroup, then the swap; report (not hide) a step that failed."""
        errors = []
        # The cgroup first: its processes are gone by now, and with them their swapped pages.
        for step in (self.cgroup, self.swap_file, self.zram):
            if step is None:
                continue
            try:
                step.remove()
            except LoadgenError as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def run(self, calls: list[dict]) -> tuple[list[dict], dict]:
        """run_child inside the cgroup; the counters add cgroup and swap statistics, and the
        swap-ins of this run as the cgroup counts them (`swap_ins`, `swap_ins_source`)."""
        retries = 0
        while True:
            before = self.cgroup.swap_counters() if self.cgroup else {}
            if self.cgroup:
                self.cgroup.mark_swap_peak()
            try:
                results, counters = run_child(calls, self.cgroup)
                break
            except OomKilled as exc:
                # With swap on a busy disk, the cgroup can fill with pages still being written
                # out (seen: 144 MiB under writeback at a 256 MiB limit, swap not full), and
                # v1 memcg reclaim gives up and OOM-kills. That is the disk, not the workload:
                # run it again, and say so in the result.
                if self.swap_kind == "none" or self.cgroup.swap_was_full():
                    raise  # no swap, or the swap allowed was full: a real out-of-memory
                if retries >= OOM_RETRIES:
                    raise OomKilled(
                        f"{exc.message}, {retries + 1} times, with {self.swap_used} as swap",
                        "the swap device writes too slowly for this memory limit; raise "
                        "--memory-limit, or use --swap zram") from None
                retries += 1
        after = self.cgroup.swap_counters() if self.cgroup else {}
        counters["oom_retries"] = retries
        delta = {k: after[k] - before[k] for k in after if k in before}
        counters["cgroup_swap"] = delta
        counters.update(swap_ins_of(delta, counters, self.cgroup))
        counters["cgroup"] = self.cgroup.stats() if self.cgroup else None
        counters["zram"] = self.zram.stats() if self.zram else None
        counters["swap_file"] = self.swap_file.stats() if self.swap_file else None
        return results, counters

    def describe(self) -> dict:
        return {"memory_limit": self.limit, "swap": self.swap_used, "swap_kind": self.swap_kind,
                "swap_allowed": self.swap_need,
                "cgroup": str(self.cgroup.path) if self.cgroup else None,
                "cgroup_version": self.cgroup.hierarchy.version if self.cgroup else None,
                "zram": self.zram.stats() if self.zram else None,
                "swap_file": self.swap_file.stats() if self.swap_file else None,
                "notes": self.notes, "swept": self.swept}


def swap_ins_of(delta: dict, counters: dict, cgroup: MemoryCgroup | None) -> dict:
    """The run's swap-ins, from the child's cgroup where it counts them: v2 pswpin (pages read
    from swap); v1 workingset_refault_anon (swapped-out anon pages brought back). Host-wide
    /proc/vmstat pswpin only when the cgroup has neither."""
    version = cgroup.hierarchy.version if cgroup else None
    for key, name in (("pswpin", "memory.stat pswpin"),
                      ("refault_anon", "memory.stat workingset_refault_anon")):
        if key in delta:
            return {"swap_ins": delta[key], "swap_ins_source": f"cgroup v{version} {name}"}
    return {"swap_ins": counters.get("pswpin"), "swap_ins_source": "host /proc/vmstat pswpin"}
