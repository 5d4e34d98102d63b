"""This host as loadgen's servers need it: free ports, live processes (the owner a state file or a
container's label names), free memory, and the tie that takes a local server down with loadgen."""
from __future__ import annotations

import ctypes
import os
import signal
import socket

from ..errors import UsageError


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def die_with_parent() -> None:
    # Runs in the child between fork and exec: if loadgen is killed outright (SIGKILL, OOM), the
    # kernel sends the server SIGTERM, so no orphan mariadbd outlives us.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def memory_available_bytes() -> int | None:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_pool_fits(pool_bytes: int) -> None:
    avail = memory_available_bytes()
    if avail is not None and pool_bytes > avail:
        from ..units import format_bytes

        raise UsageError(f"pool {format_bytes(pool_bytes)} is more than this machine's free memory "
                         f"({format_bytes(avail)} MemAvailable); the server would fail to start or swap",
                         "use a smaller --pool")
