"""Hold Ctrl-C and SIGTERM off while loadgen puts something back as it was.

A second Ctrl-C while a --dsn server's pool was being grown back used to abort the restore and
leave the user's server at loadgen's 6 MiB (issue #18). Inside `shielded()` an interrupt is
noted, said once, and raised when the block is over; a third one is taken as "stop now": it is
raised at once, and the caller says what to set by hand. `loadgen native --memory-limit` holds
every interrupt (hold_max=None) while it makes or takes down its memory cgroup and swap, which
must never be left half done.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Callable

# Interrupts held off before the next one is let through (the user insists).
HOLD_MAX = 2


class Insisted(KeyboardInterrupt):
    """The user interrupted again while the restore was held: it was left unfinished."""


@contextlib.contextmanager
def shielded(what: str | None = None, say: Callable[[str], None] | None = None,
             hold_max: int | None = HOLD_MAX) -> Iterator[None]:
    """Run the block with SIGINT/SIGTERM held (main thread only; elsewhere signals reach no
    Python handler anyway). A held interrupt is raised as KeyboardInterrupt after the block.
    say(...what...): said at the first interrupt (None: nothing said); hold_max: interrupts held
    before one more raises Insisted at once (None: every one is held)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def hold(signum, frame):
        held.append(signum)
        if hold_max is not None and len(held) > hold_max:
            raise Insisted
        if len(held) == 1 and say is not None:
            say(f"interrupted: {what} first (a few seconds; interrupt twice more to stop at once)")

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if held:
        raise KeyboardInterrupt
