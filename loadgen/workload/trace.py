"""Trace files: the keys to query, in the order to query them.

Two forms, told apart by their first bytes:
  text   : one integer key per line; blank lines and lines starting with '#' are ignored.
  binary : what loadgen writes (`loadgen trace capture -o`): a 24-byte header, MAGIC (8 bytes),
           version (u32 LE), reserved (u32), count (u64 LE), then `count` keys as u64 LE.
           Fixed width so a chunk is one read and one array("Q").frombytes.

Keys outside the table (1..rows) are skipped and counted, never queried. Reading is streamed in
chunks: a trace of any length replays in constant memory.
"""
from __future__ import annotations

import functools
import os
import re
import struct
import sys
import tempfile
from array import array
from dataclasses import asdict, dataclass
from pathlib import Path
from collections.abc import Iterable, Iterator

from ..errors import LoadgenError, UsageError
from ..results.files import SHARED, process_umask

MAGIC = b"LGTRACE\x00"
OP_MAGIC = b"LGOPTRC\x00"  # workload/optrace.py: told apart here, read there
VERSION = 1
HEADER = struct.Struct("<8sIIQ")
CHUNK_KEYS = 65536
TEXT_PROBE_BYTES = 8192
U64_MAX = (1 << 64) - 1


class TraceError(UsageError):
    """A trace file that cannot be read: exit 2 with one line."""


@dataclass(frozen=True)
class TraceScan:
    path: str
    format: str  # text | binary
    total: int  # keys in the file
    keys: int  # keys inside the table: the queries a replay makes
    below: int  # keys under the table's first key
    above: int  # keys past its last

    @property
    def outside(self) -> int:
        return self.below + self.above

    def to_dict(self) -> dict:
        d = asdict(self)
        d["outside"] = self.outside
        return d


def _fail(path, what: str) -> TraceError:
    return TraceError(f"trace {path}: {what}",
                      "a trace is one integer key per line, or a binary trace written by `loadgen trace capture`")


def detect(path) -> str:
    """'binary' or 'text'; a file that is neither (NUL bytes, not UTF-8) is a one-line error."""
    try:
        with open(path, "rb") as f:
            head = f.read(TEXT_PROBE_BYTES)
    except OSError as exc:
        raise TraceError(f"cannot read trace {path}: {exc.strerror}", "check the path and its permissions") from None
    if head.startswith(MAGIC):
        return "binary"
    if head.startswith(OP_MAGIC):
        return "ops"
    if b"\x00" in head:
        raise _fail(path, "binary data that is not a loadgen trace")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # a multi-byte character cut by the probe is fine
            raise _fail(path, "neither text nor a loadgen trace (not UTF-8)") from None
    return "text"


def chunks(path) -> Iterator[array]:
    """Every key of the file, in order, as array('Q') chunks (keys may lie outside any table).

    Text keys below zero or above 2**64-1 come out as 0 and U64_MAX, so they count as outside."""
    kind = detect(path)
    if kind == "ops":
        raise TraceError(f"trace {path} is an op trace (a whole server's statements), not a key trace",
                         "use it with `loadgen predict --trace`; capture a key trace with --table db.tbl")
    if kind == "binary":
        yield from _binary_chunks(path)
    else:
        yield from _text_chunks(path)


def _binary_chunks(path) -> Iterator[array]:
    with open(path, "rb") as f:
        raw = f.read(HEADER.size)
        if len(raw) < HEADER.size:
            raise _fail(path, "truncated header")
        _, version, _, count = HEADER.unpack(raw)
        if version != VERSION:
            raise _fail(path, f"format version {version}, this loadgen reads {VERSION}")
        left = count
        while left:
            want = min(left, CHUNK_KEYS)
            data = f.read(8 * want)
            if len(data) != 8 * want:
                raise _fail(path, f"truncated: the header says {count:,} keys, the file ends after "
                                  f"{count - left + len(data) // 8:,}")
            a = array("Q")
            a.frombytes(data)
            if sys.byteorder != "little":
                a.byteswap()
            left -= want
            yield a


# What a bad line may show of itself: a number that is not an integer ("1.5", "-3e6", "0x1f").
# A trace may be a symlink a pull request planted to a file that is not a trace (a key,
# /etc/shadow): any other line is named by its length, so none of its text reaches a CI log.
_SHOWN_LINE = re.compile(rb"[0-9a-fA-FxX.eE+-]{1,24}")


def _shown(line: bytes) -> str:
    if _SHOWN_LINE.fullmatch(line):
        return repr(line.decode("ascii"))
    return f"a line of {len(line):,} characters"


def _text_chunks(path) -> Iterator[array]:
    a = array("Q")
    with open(path, "rb") as f:
        for lineno, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith(b"#"):
                continue
            try:
                k = int(s)
            except ValueError:
                if b"\x00" in s:
                    raise _fail(path, f"line {lineno}: binary data") from None
                raise _fail(path, f"line {lineno}: {_shown(s)} is not an integer key") from None
            a.append(0 if k < 0 else min(k, U64_MAX))
            if len(a) >= CHUNK_KEYS:
                yield a
                a = array("Q")
    if a:
        yield a


def scan(path, key_min: int, rows: int) -> TraceScan:
    st = _stat(path)
    return _scan(str(path), st.st_mtime_ns, st.st_size, key_min, rows)


# mtime_ns and size are only the cache key: a changed file is scanned again
@functools.lru_cache(maxsize=16)
def _scan(path: str, mtime_ns: int, size: int, key_min: int, rows: int) -> TraceScan:
    total = below = above = 0
    key_max = key_min + rows - 1
    for a in chunks(path):
        total += len(a)
        for k in a:
            if k < key_min:
                below += 1
            elif k > key_max:
                above += 1
    if total == 0:
        raise _fail(path, "no keys")
    return TraceScan(path, detect(path), total, total - below - above, below, above)


def _stat(path):
    try:
        return os.stat(path)
    except OSError as exc:
        raise TraceError(f"cannot read trace {path}: {exc.strerror}", "check the path") from None


def table_keys(path, key_min: int, rows: int, lo: int = 0, hi: int | None = None) -> Iterator[int]:
    """The keys inside the table, in file order; with lo/hi only the lo-th..(hi-1)-th of them
    (--threads gives each connection a contiguous slice)."""
    key_max = key_min + rows - 1
    seen = 0
    for a in chunks(path):
        for k in a:
            if key_min <= k <= key_max:
                if hi is not None and seen >= hi:
                    return
                if seen >= lo:
                    yield k
                seen += 1


def write(path, keys: Iterable[int]) -> int:
    """Write keys as a binary trace, atomically (a temporary file renamed over the target);
    returns how many. An unwritable place is a one-line error."""
    path = Path(path)
    tmp = None
    count = 0
    try:
        # mkstemp's name (O_EXCL): a predictable one let a symlink planted in a shared directory
        # redirect a root run's write (optrace.Writer has the same)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(name)
        os.fchmod(fd, SHARED & ~process_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(HEADER.pack(MAGIC, VERSION, 0, 0))
            buf = array("Q")
            for k in keys:
                buf.append(k)
                if len(buf) >= CHUNK_KEYS:
                    count += _flush(f, buf)
                    buf = array("Q")
            count += _flush(f, buf)
            f.seek(0)
            f.write(HEADER.pack(MAGIC, VERSION, 0, count))
        os.replace(tmp, path)
    except OSError as exc:
        try:
            if tmp:
                tmp.unlink()
        except OSError:
            pass
        raise LoadgenError(f"cannot write trace {path}: {exc.strerror}",
                           "choose a writable path with -o") from None
    return count


def _flush(f, buf: array) -> int:
    if sys.byteorder != "little":
        buf = array("Q", buf)
        buf.byteswap()
    f.write(buf.tobytes())
    return len(buf)
