"""Writing result files: atomically (a reader never sees half a file), shared or private, under
names that never overwrite an earlier result, to destinations checked before any work starts.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ResultError, UsageError


# Result files, reports and plots are meant to be shared (CI artifacts, a colleague's review):
# readable by all, as a plain open() under the usual umask 022 makes them; mkstemp's 0600 would
# lock them to their writer. Files that must stay private (the server state) pass PRIVATE.
SHARED = 0o644
PRIVATE = 0o600


def write_json_atomic(path: str | os.PathLike, obj, mode: int = SHARED) -> Path:
    """Write JSON so a reader never sees half a file: temp file in the same dir, fsync, rename.

    mode: the file's permissions (SHARED or PRIVATE), less the process's umask."""
    # A bare NaN/Infinity is not JSON (jq, JavaScript and Go refuse the file): a value that is not
    # a finite number is written as null rather than losing the file, and allow_nan=False holds us to it.
    text = json.dumps(_finite(obj), indent=2, default=_json_default, allow_nan=False)
    return write_text_atomic(path, text + "\n", mode)


def _finite(obj):
    """obj as plain JSON data, with NaN and infinities as None."""
    if hasattr(obj, "to_dict"):
        obj = obj.to_dict()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def process_umask() -> int:
    """The process's umask, read without changing it (os.umask can only set it, and another
    thread would create files under the temporary value)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def write_text_atomic(path: str | os.PathLike, text: str, mode: int = SHARED) -> Path:
    """Write text atomically (see write_json_atomic), with permissions mode less the umask."""
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        # A device or FIFO (--out /dev/null, /dev/stdout, a pipe): the rename below would replace
        # it with a regular file (as root, /dev/null itself), so write into it in place.
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError as exc:
            raise ResultError(f"cannot write {path}: {exc.strerror or exc}") from None
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise ResultError(f"cannot write {path}: {exc.strerror or exc}", "check the path and free disk space") from None
    try:
        os.fchmod(fd, mode & ~process_umask())  # before any byte is written: a private file never shows them
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise ResultError(f"cannot write {path}: {exc.strerror or exc}",
                              "check the path and free disk space") from None
        raise
    return path


def _json_default(o):
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


# Default names this process claimed (created empty) and has not filled yet; drop_empty_claims()
# removes them when the command ends without writing them (failed before the run).
_claims: set[Path] = set()


def default_path(directory: str | os.PathLike, stem: str, picked: bool = False) -> Path:
    """reports/<stem>-<UTC timestamp>.json, never overwriting an earlier result. picked: loadgen
    chose the directory itself (no --out or --out-dir), so check_picked_directory applies.

    The name is claimed by creating the file with O_EXCL, so two processes (or threads) starting
    in the same second get different names; the later atomic write replaces the empty claim.
    """
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the result directory {directory}: {exc.strerror or exc}",
                         "give a writable --out or --out-dir") from None
    if picked:
        check_picked_directory(directory)
    n = 1
    while True:
        path = directory / (f"{stem}-{stamp}.json" if n == 1 else f"{stem}-{stamp}-{n}.json")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            n += 1
            continue
        except OSError as exc:
            raise UsageError(f"cannot write a result file in {directory}: {exc.strerror or exc}",
                             "give a writable --out or --out-dir") from None
        os.close(fd)
        _claims.add(path)
        return path


def check_picked_directory(directory: str | os.PathLike) -> None:
    """As root, a result directory loadgen picks by itself (reports/ in the current directory)
    must be root's own: a `reports` symlink or directory another user planted there would have
    root write files where that user chose (a red-team replay of issue #18 saw it followed)."""
    if os.geteuid() != 0:
        return  # the kernel's permissions already keep a user to the places they may write
    directory = Path(directory)
    try:
        st = directory.lstat()
    except OSError:
        return
    if directory.is_symlink() or st.st_uid != 0:
        what = "a symlink" if directory.is_symlink() else f"owned by uid {st.st_uid}"
        raise UsageError(f"the result directory {directory} is {what}, and loadgen runs as root: "
                         "it will not write where another user pointed it",
                         "give --out or --out-dir a path you chose, or remove it")


def drop_empty_claims() -> None:
    """Remove the default names this process claimed but never wrote (the command failed first)."""
    for path in list(_claims):
        try:
            if path.stat().st_size == 0:
                path.unlink()
        except OSError:
            pass
        _claims.discard(path)


def check_destination(path: str | os.PathLike, option: str = "--out") -> Path:
    """Fail before any work if a result cannot be written to path: its directory is created if
    missing, and a probe file is made and removed in it (this catches read-only and pseudo
    filesystems such as /proc, where permissions alone say nothing)."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{option} {path} is a directory", "give a file name, e.g. reports/run.json")
    if path.exists() and not path.is_file():
        # a device or FIFO is written in place (write_text_atomic): only it must take writes;
        # opening a FIFO to probe it would block until a reader comes
        if not os.access(path, os.W_OK):
            raise UsageError(f"{option} {path} cannot be written: permission denied", "choose another path")
        return path
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise UsageError(f"{option} {path}: {ancestor} is a file, not a directory", "choose another path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{option} {path} cannot be written: {exc.strerror or exc}",
                         "choose a writable directory") from None
    return path


def check_directory(directory: str | os.PathLike, option: str = "--out-dir") -> Path:
    """check_destination for a directory that result files will go into."""
    check_destination(Path(directory) / ".loadgen-probe.json", option)
    return Path(directory)
