"""A child memory cgroup for one experiment: create, limit, join from the child, read, remove.

cgroup v1 (this project's CI host): the child is nested under this process's own memory cgroup
(from /proc/self/cgroup), so it stays inside whatever accounting the caller is under
(use_hierarchy=1). Files: memory.limit_in_bytes, memory.memsw.limit_in_bytes, memory.failcnt,
memory.max_usage_in_bytes, memory.oom_control, memory.stat.

cgroup v2: memory.max, memory.swap.max, memory.events, memory.peak, memory.stat. A v2 cgroup that
holds processes cannot delegate controllers to children ("no internal processes"), so when our
own cgroup is not the root and memory cannot be enabled in its subtree_control, the child is made
directly under the v2 mount root (which is exempt). The v2 path is written from the kernel
documentation (Documentation/admin-guide/cgroup-v2.rst); this project's CI host has no v2 memory
controller to test it on.
"""
from __future__ import annotations

import errno
import itertools
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import LoadgenError
from . import owner

NAME_PREFIX = "loadgen-native-"
_SEQ = itertools.count(1)


@dataclass(frozen=True)
class Hierarchy:
    version: int  # 1 or 2
    mount: Path  # the memory hierarchy's mount point
    own: str  # this process's cgroup path inside it ("/a/b")

    @property
    def own_dir(self) -> Path:
        return self.mount / self.own.lstrip("/")


def find_hierarchy(mountinfo: str | None = None, proc_cgroup: str | None = None) -> Hierarchy:
    """Locate the memory controller: a v2 mount whose cgroup.controllers lists memory, else the
    v1 mount with the memory option."""
    mountinfo = Path("/proc/self/mountinfo").read_text() if mountinfo is None else mountinfo
    proc_cgroup = Path("/proc/self/cgroup").read_text() if proc_cgroup is None else proc_cgroup
    v1_mount = v2_mount = None
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fstype, _, rest = right.partition(" ")
        fields = left.split()
        if len(fields) < 5:
            continue
        mount = Path(fields[4])
        options = rest.split()[-1].split(",") if rest.split() else []
        if fstype == "cgroup2":
            try:
                if "memory" in (mount / "cgroup.controllers").read_text().split():
                    v2_mount = mount
            except OSError:
                pass
        elif fstype == "cgroup" and "memory" in options:
            v1_mount = mount
    v1_path = v2_path = None
    for line in proc_cgroup.splitlines():
        hid, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hid == "0" and controllers == "":
            v2_path = path
        elif "memory" in controllers.split(","):
            v1_path = path
    if v2_mount is not None and v2_path is not None:
        return Hierarchy(2, v2_mount, v2_path)
    if v1_mount is not None and v1_path is not None:
        return Hierarchy(1, v1_mount, v1_path)
    raise LoadgenError("no memory cgroup controller is mounted (neither a cgroup2 mount with "
                       "'memory' in cgroup.controllers nor a v1 'memory' hierarchy)",
                       "run on a host with memory cgroups, or leave out --memory-limit")


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _permission(exc: OSError, action: str) -> LoadgenError:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return LoadgenError(f"cannot {action}: {exc.strerror}",
                            "run loadgen as root (sudo) to use --memory-limit")
    return LoadgenError(f"cannot {action}: {exc.strerror}")


class MemoryCgroup:
    """One child memory cgroup; `remove()` is safe to call more than once."""

    def __init__(self, hierarchy: Hierarchy, path: Path):
        self.hierarchy = hierarchy
        self.path = path
        self.removed = False
        self.mark: Path | None = None

    @classmethod
    def create(cls, limit: int, swap_limit: int | None, hierarchy: Hierarchy | None = None,
               name: str | None = None) -> MemoryCgroup:
        """Make the child and set its limits. swap_limit: bytes of swap allowed (None: no cap,
        0: none)."""
        h = find_hierarchy() if hierarchy is None else hierarchy
        # The owner's pid and start time in the name: the orphan sweep reads them back.
        name = name or f"{NAME_PREFIX}{owner.me().token}-{next(_SEQ)}"
        parent = h.own_dir
        if h.version == 2 and h.own not in ("", "/") and not _v2_enable_memory(parent):
            parent = h.mount
        path = parent / name
        mark = owner.record("cgroup", name, path=str(path))
        try:
            path.mkdir()
        except OSError as exc:
            owner.forget(mark)
            raise _permission(exc, f"create memory cgroup {path}") from None
        cg = cls(h, path)
        cg.mark = mark
        try:
            cg._set_limits(limit, swap_limit)
        except BaseException:
            cg.remove()
            raise
        return cg

    def _set_limits(self, limit: int, swap_limit: int | None) -> None:
        try:
            if self.hierarchy.version == 1:
                _write(self.path / "memory.limit_in_bytes", str(limit))
                memsw = self.path / "memory.memsw.limit_in_bytes"
                if swap_limit is not None:
                    if memsw.exists():
                        _write(memsw, str(limit + swap_limit))
                    elif swap_limit == 0:
                        # No swap accounting: swappiness 0 is the closest v1 knob.
                        _write(self.path / "memory.swappiness", "0")
            else:
                _write(self.path / "memory.max", str(limit))
                if swap_limit is not None and (self.path / "memory.swap.max").exists():
                    _write(self.path / "memory.swap.max", str(swap_limit))
        except OSError as exc:
            raise _permission(exc, f"set the limits of {self.path}") from None

    @property
    def procs_file(self) -> str:
        """The file a child writes its pid into to join."""
        return str(self.path / "cgroup.procs")

    def stats(self) -> dict:
        """Peak usage, limit hits, OOM kills and the memory.stat counters that matter here."""
        out: dict = {"cgroup": str(self.path), "version": self.hierarchy.version}
        stat = self._kv("memory.stat")
        if self.hierarchy.version == 1:
            out["max_usage"] = self._int("memory.max_usage_in_bytes")
            out["memsw_max_usage"] = self._int("memory.memsw.max_usage_in_bytes")
            out["failcnt"] = self._int("memory.failcnt")
            out["oom_kill"] = self._kv("memory.oom_control").get("oom_kill")
            out["pgmajfault"] = stat.get("total_pgmajfault", stat.get("pgmajfault"))
        else:
            events = self._kv("memory.events")
            out["max_usage"] = self._int("memory.peak")
            out["failcnt"] = events.get("max")
            out["oom_kill"] = events.get("oom_kill")
            out["pgmajfault"] = stat.get("pgmajfault")
            for key in ("pswpin", "pswpout"):
                if key in stat:
                    out[key] = stat[key]
        return out

    def mark_swap_peak(self) -> None:
        """Start watching whether the swap allowed fills up (see swap_was_full)."""
        if self.hierarchy.version == 1:
            try:  # writing 0 resets the peak; failcnt is not kept for memsw on recent kernels
                _write(self.path / "memory.memsw.max_usage_in_bytes", "0")
            except OSError:
                pass
        self._swap_events = self._swap_event_count()

    def swap_was_full(self) -> bool:
        """Whether memory+swap (v1) or swap (v2) reached its limit since mark_swap_peak."""
        if self.hierarchy.version == 1:
            peak = self._int("memory.memsw.max_usage_in_bytes")
            limit = self._int("memory.memsw.limit_in_bytes")
            # Within one charge batch (64 pages) and a little of the limit counts as reached.
            return peak is not None and limit is not None and peak >= limit - (1 << 20)
        return self._swap_event_count() > getattr(self, "_swap_events", 0)

    def _swap_event_count(self) -> int:
        events = self._kv("memory.swap.events")
        return events.get("max", 0) + events.get("fail", 0)

    def oom_kills(self) -> int:
        return self.stats().get("oom_kill") or 0

    def _int(self, name: str) -> int | None:
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def _kv(self, name: str) -> dict[str, int]:
        try:
            text = (self.path / name).read_text()
        except OSError:
            return {}
        out = {}
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit():
                out[parts[0]] = int(parts[1])
        return out

    def remove(self, timeout: float = 5.0) -> None:
        """rmdir the cgroup; its processes must have exited. Retries while the kernel is still
        offlining it (EBUSY)."""
        if self.removed:
            return
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.path.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError as exc:
                if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                    raise _permission(exc, f"remove memory cgroup {self.path}") from None
                time.sleep(0.05)
        self.removed = True
        owner.forget(self.mark)

    def pids(self) -> list[int]:
        try:
            return [int(x) for x in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def swap_counters(self) -> dict[str, int]:
        """The cgroup's own swap-in evidence, cumulative (take deltas around a run).

        v2 memory.stat has pswpin/pswpout (pages). v1 has neither: pgmajfault (faults that
        waited for a read, here swap-ins; one may bring in a readahead cluster) and
        workingset_refault_anon (anon pages read back that had been swapped out) are its
        closest per-cgroup counters."""
        stat = self._kv("memory.stat")
        if self.hierarchy.version == 1:
            keys = {"pgmajfault": "pgmajfault", "refault_anon": "workingset_refault_anon"}
            return {k: stat.get(f"total_{v}", stat.get(v)) for k, v in keys.items()
                    if f"total_{v}" in stat or v in stat}
        keys = {"pgmajfault": "pgmajfault", "pswpin": "pswpin", "pswpout": "pswpout",
                "refault_anon": "workingset_refault_anon"}
        return {k: stat[v] for k, v in keys.items() if v in stat}


def _v2_enable_memory(parent: Path) -> bool:
    """Make sure children of `parent` get the memory controller (v2)."""
    try:
        if "memory" in (parent / "cgroup.subtree_control").read_text().split():
            return True
        _write(parent / "cgroup.subtree_control", "+memory")
        return True
    except OSError:
        return False


def leftovers(hierarchy: Hierarchy | None = None) -> list[Path]:
    """Cgroups named like ours under our own cgroup (and the v2 root): what tests check for."""
    h = find_hierarchy() if hierarchy is None else hierarchy
    dirs = {h.own_dir, h.mount}
    found = []
    for d in dirs:
        try:
            found += [p for p in d.iterdir() if p.is_dir() and p.name.startswith(NAME_PREFIX)]
        except OSError:
            pass
    return sorted(found)
