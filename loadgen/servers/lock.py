"""Exclusive flock-based locks: one per datadir (a server uses it) and one for the `loadgen up`
server (a command restarts or runs against it).

The holder's description is written into the lock file, so a waiter can say whom it waits for.
A lock file descriptor may be handed to a server process (pass_fds): the lock then lives exactly
as long as that server, even after the loadgen that started it has exited.
"""
from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Callable

from ..errors import ProvisionError

# How long a command waits for another one to release a datadir or the up server: long enough
# for a big seed, bounded so a stuck holder does not hang CI forever.
DEFAULT_WAIT_S = 1800.0


def wait_s() -> float:
    try:
        return float(os.environ.get("LOADGEN_LOCK_WAIT_S", DEFAULT_WAIT_S))
    except ValueError:
        return DEFAULT_WAIT_S


class FileLock:
    """An exclusive flock on `path`, held from acquire() until release() (or process exit)."""

    def __init__(self, path: Path, what: str):
        self.path = Path(path)
        self.what = what  # "the dataset in /x", for messages
        self.fd: int | None = None

    @property
    def held(self) -> bool:
        return self.fd is not None

    def holder(self) -> str:
        try:
            return self.path.read_text().strip() or "?"
        except OSError:
            return "?"

    def try_acquire(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self.fd = fd
        self.note(f"pid {os.getpid()}")
        return True

    def acquire(self, say: Callable[[str], None], timeout_s: float | None = None) -> None:
        if self.held:
            return
        timeout_s = wait_s() if timeout_s is None else timeout_s
        if self.try_acquire():
            return
        say(f"{self.what} is in use by {self.holder()}; waiting for it (up to {timeout_s:.0f} s)")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            time.sleep(0.2)  # polling a lock with a deadline
            if self.try_acquire():
                return
        raise ProvisionError(f"{self.what} is still in use by {self.holder()} after {timeout_s:.0f} s",
                             "wait for that command to finish or stop it (LOADGEN_LOCK_WAIT_S sets the wait)")

    def note(self, text: str) -> None:
        """Record who holds the lock (shown to waiters)."""
        if self.fd is None:
            return
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, (text + "\n").encode(), 0)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # other descriptors of it (a server's) keep the lock
            self.fd = None
