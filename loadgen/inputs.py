"""Files a user hands loadgen (result files, schema files), read with a size cap.

`compare x.json /dev/zero` used to read until the OOM killer came (issue #18, N4). A device, a
socket or a directory is refused by its type before a byte is read; a regular file by its size;
a pipe (`<(...)`, `/dev/stdin`) has no size, so it is read up to the cap and refused past it.
Pipes are accepted only where the file is read once (a result file): a schema file is read
several times (the check before any server starts, the cache key's hash, the seeding).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import LoadgenError, UsageError
from .units import format_bytes

RESULT_FILE_MAX_BYTES = 1 << 30
SCHEMA_FILE_MAX_BYTES = 16 << 20
_READ_BYTES = 1 << 20


def read_capped(path: str | os.PathLike, max_bytes: int, what: str, pipes: bool,
                error: type[LoadgenError] = UsageError) -> bytearray:
    """The bytes of a regular file (or, with `pipes`, a FIFO) of at most max_bytes.

    Args:
        what: the file's role in messages ("result file", "schema file").
        error: the LoadgenError to raise; its message names the file and what to do.
    """
    path = Path(path)
    # Judged by stat before opening (opening a device may do something; opening a pipe waits for
    # its writer), and again by fstat after, for a path swapped in between.
    try:
        _check_kind(path, os.stat(path).st_mode, what, pipes, error)
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        _check_kind(path, st.st_mode, what, pipes, error)
        if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
            raise error(f"{path} is {format_bytes(st.st_size)}, more than a {what} may be "
                        f"({format_bytes(max_bytes)})", f"is it the right file? a {what} is far smaller")
        data = bytearray()  # grown in place: a copy per chunk would double the peak
        while chunk := os.read(fd, min(_READ_BYTES, max_bytes + 1 - len(data))):
            data += chunk
            if len(data) > max_bytes:  # a pipe, or a file that grew while read
                raise error(f"{path} holds more than {format_bytes(max_bytes)}, more than a {what} may be",
                            f"is it the right file? a {what} is far smaller")
        return data
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _check_kind(path: Path, mode: int, what: str, pipes: bool, error: type[LoadgenError]) -> None:
    kind = _kind(mode)
    if kind is not None and not (pipes and stat.S_ISFIFO(mode)):
        also = " or a pipe" if pipes else ""
        raise error(f"{path} is {kind}, not a {what}", f"give a regular file{also}")


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"
