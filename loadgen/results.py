"""The result file: versioned JSON that CI parses, written atomically.

format_version history:
  1  first version: server, dataset, workload, result, buffer_pool, samples, latency histogram
"""
from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from .errors import ResultError

FORMAT_VERSION = 1


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def write_json_atomic(path: str | os.PathLike, obj) -> Path:
    """Write JSON so a reader never sees half a file: temp file in the same dir, fsync, rename."""
    return write_text_atomic(path, json.dumps(obj, indent=2, default=_json_default) + "\n")


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise ResultError(f"cannot write {path}: {exc.strerror or exc}", "check the path and free disk space") from None
    try:
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
            raise ResultError(f"cannot write {path}: {exc.strerror or exc}", "check the path and free disk space") from None
        raise
    return path


def _json_default(o):
    if hasattr(o, "to_dict"):
        return o.to_dict()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def load(path: str | os.PathLike) -> dict:
    """Read a result file; refuse truncated, non-JSON or other-version files with one line."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ResultError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultError(f"{path} is not a loadgen result (bad JSON at line {exc.lineno})",
                          "was the file truncated? re-run to produce it again") from None
    if not isinstance(data, dict) or "format_version" not in data:
        raise ResultError(f"{path} is not a loadgen result (no format_version)")
    if data["format_version"] != FORMAT_VERSION:
        raise ResultError(
            f"{path} has format_version {data['format_version']}, this loadgen reads {FORMAT_VERSION}",
            "re-run it with this version of loadgen",
        )
    return data


def default_path(directory: str | os.PathLike, stem: str) -> Path:
    """reports/<stem>-<UTC timestamp>.json, never overwriting an earlier result."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    directory = Path(directory)
    path = directory / f"{stem}-{stamp}.json"
    n = 1
    while path.exists():
        n += 1
        path = directory / f"{stem}-{stamp}-{n}.json"
    return path
