"""Who made a cgroup, swap file or zram device: an owner mark, and a registry of marks.

Every OS object `loadgen native` makes is marked with its owner, the pid *and* the start time of
that process (field 22 of /proc/<pid>/stat, in clock ticks since boot), so a pid reused by an
unrelated process after loadgen was SIGKILLed reads as a dead owner, never as a live one.

The mark is in the object's name where it has one (cgroup directories, swap files) and, for all
of them, in a record written to a fixed registry before (swap file, cgroup) or right after
(zram: the id comes from hot_add) the object is made. The registry is /run/loadgen/native: the
objects are host-wide, so it must not depend on $LOADGEN_STATE_DIR (tests set their own), and
/run is a tmpfs, emptied on reboot like the cgroups and zram devices it describes.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path

from .. import paths

RUN_REGISTRY = Path("/run/loadgen/native")


@dataclass(frozen=True)
class Owner:
    pid: int
    start: int  # clock ticks after boot at which the process started

    @property
    def token(self) -> str:
        """The part of an object's name that says who made it: p<pid>-s<start>."""
        return f"p{self.pid}-s{self.start}"

    def alive(self) -> bool:
        return start_time(self.pid) == self.start


def start_time(pid: int) -> int | None:
    """The process's start time, or None if there is no such (non-zombie) process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rpartition(")")[2].split()  # the command name may hold spaces and parentheses
    if not fields or fields[0] in ("Z", "X"):
        return None
    try:
        return int(fields[19])  # field 22 overall; fields[0] is field 3 (state)
    except (IndexError, ValueError):
        return None


def me() -> Owner:
    return Owner(os.getpid(), start_time(os.getpid()) or 0)


def parse_token(name: str) -> Owner | None:
    """The owner in a name holding p<pid>-s<start> (as made by Owner.token), else None."""
    for i, part in enumerate(parts := name.replace(".", "-").split("-")):
        if part[:1] == "p" and part[1:].isdigit() and i + 1 < len(parts):
            nxt = parts[i + 1]
            if nxt[:1] == "s" and nxt[1:].isdigit():
                return Owner(int(part[1:]), int(nxt[1:]))
    return None


def registry_dir() -> Path:
    """/run/loadgen/native where we may write there (root), else the state directory."""
    for d in (RUN_REGISTRY, paths.state_dir() / "native-owned"):
        try:
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            continue
    return RUN_REGISTRY


def record(kind: str, key: str, **fields) -> Path:
    """Write the mark of one object (kind: swapfile, cgroup, zram) owned by this process."""
    owner = me()
    path = registry_dir() / f"{kind}-{key}.json"
    body = {"kind": kind, "pid": owner.pid, "start": owner.start, **fields}
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(body, f)
    os.replace(tmp, path)
    return path


def forget(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def records(directory: Path | None = None) -> list[tuple[Path, dict]]:
    d = registry_dir() if directory is None else directory
    out = []
    for p in sorted(d.glob("*.json")):
        try:
            body = json.loads(p.read_text())
            int(body["pid"]), int(body["start"]), str(body["kind"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        out.append((p, body))
    return out


@contextlib.contextmanager
def registry_lock():
    """One sweeper at a time (two would race to remove the same orphan)."""
    fd = os.open(registry_dir() / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
