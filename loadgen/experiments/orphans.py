"""Sweep what a SIGKILLed `loadgen native` left behind: its cgroups, swap files, zram devices.

A normal exit, an error, Ctrl-C and SIGTERM all remove these (sandbox.py); SIGKILL cannot be
caught, so every run that is about to make new ones first removes the old ones whose owner is
dead (owner.py), the way the docker provider sweeps orphaned containers. Objects of a live
loadgen, and anything loadgen did not make (no mark of ours), are never touched.

Order matters: processes in an orphaned cgroup still hold swapped-out pages, so they are killed
and the cgroup removed before the swap that holds their pages is turned off.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from ..errors import LoadgenError
from . import memcg, osmem, owner, swapfile, zram

CHILD_MODULE = "loadgen.experiments.child"


def sweep() -> list[str]:
    """Remove every orphan found; returns one line per object removed (or that failed)."""
    done: list[str] = []
    with owner.registry_lock():
        recs = owner.records()
        dead = [(p, r) for p, r in recs if not owner.Owner(int(r["pid"]), int(r["start"])).alive()]
        for kind in ("cgroup", "swapfile", "zram"):
            for path, rec in dead:
                if rec["kind"] == kind:
                    done += _sweep_record(path, rec)
        done += _sweep_unrecorded_cgroups()
        done += _sweep_unrecorded_swapfiles()
    return done


def _sweep_record(path: Path, rec: dict) -> list[str]:
    try:
        if rec["kind"] == "cgroup":
            msg = _remove_cgroup(Path(rec["path"]))
        elif rec["kind"] == "swapfile":
            msg = _remove_swapfile(Path(rec["path"]))
        elif rec["kind"] == "zram":
            msg = _remove_zram(int(rec["id"]), rec.get("label"))
        else:
            msg = None
    except LoadgenError as exc:
        return [f"could not sweep {rec['kind']} of dead pid {rec['pid']}: {exc}"]
    owner.forget(path)
    return [msg] if msg else []


def _remove_cgroup(path: Path) -> str | None:
    if not path.exists():
        return None
    for pid in _pids(path):
        if _is_our_child(pid):  # what else could be in a cgroup named like ours: leave it
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 5
    while _pids(path) and time.monotonic() < deadline:
        time.sleep(0.02)
    cg = memcg.MemoryCgroup(None, path)  # remove() needs only the path
    cg.remove()
    return f"removed orphaned cgroup {path}"


def _remove_swapfile(path: Path) -> str | None:
    if not path.name.startswith(swapfile.NAME_PREFIX):
        return None  # a record that names something not ours: drop the record only
    if not path.exists() and not swapfile.is_active(path):
        return None
    errors = swapfile.remove_file(path)
    if errors:
        raise LoadgenError("; ".join(errors))
    return f"removed orphaned swap file {path}"


def _remove_zram(device_id: int, label: str | None) -> str | None:
    dev = zram.ZramSwap(device_id)
    if not dev.sysfs.exists():
        return None
    if dev.is_swap_on() and label and swap_label(dev.device) != label:
        return None  # the id was reused by someone else's device since: not ours
    dev.remove()
    return f"removed orphaned zram device {dev.device}"


def _sweep_unrecorded_cgroups() -> list[str]:
    """Cgroups named like ours whose owner is dead and that have no record (registry lost)."""
    try:
        found = memcg.leftovers()
    except LoadgenError:
        return []
    return _sweep_dead_owners(found, _remove_cgroup, "cgroup")


def _sweep_unrecorded_swapfiles() -> list[str]:
    """Swap files of ours still on (in /proc/swaps) or lying in a candidate directory, whose
    owner is dead."""
    paths = {Path(e["name"]) for e in osmem.swaps()}
    for d in swapfile.known_dirs():
        try:
            paths |= set(Path(d).glob(f"{swapfile.NAME_PREFIX}*.swap"))
        except OSError:
            pass
    ours = [p for p in sorted(paths) if p.name.startswith(swapfile.NAME_PREFIX)]
    return _sweep_dead_owners(ours, _remove_swapfile, "swap file")


def _sweep_dead_owners(paths, remove, what: str) -> list[str]:
    """remove(path) for each path whose name's owner token names a dead process; one message
    each (a failure is reported, not raised: the sweep goes on to the next leftover)."""
    out = []
    for path in paths:
        who = owner.parse_token(path.name)
        if who is None or who.alive():
            continue
        try:
            msg = remove(path)
        except LoadgenError as exc:
            msg = f"could not sweep {what} {path}: {exc}"
        if msg:
            out.append(msg)
    return out


def _pids(cgroup: Path) -> list[int]:
    try:
        return [int(x) for x in (cgroup / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _is_our_child(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return CHILD_MODULE.encode() in cmdline


def swap_label(device: str) -> str | None:
    """The label in a swap header (16 bytes at offset 1052 of a v1 swap area)."""
    try:
        fd = os.open(device, os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.pread(fd, 16, 1052)
    finally:
        os.close(fd)
    return raw.split(b"\0", 1)[0].decode(errors="replace") or None
