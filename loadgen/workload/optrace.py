"""Op traces: what every statement of a whole server did to its tables, in arrival order.

`loadgen trace capture` without --table writes one (docs/capture.md); `loadgen predict --trace`
reads it. The single-table key traces (workload/trace.py) are a different file: told apart by
their first 8 bytes.

Layout (little endian), version 1:
  header   MAGIC (8 bytes) | version u32 | meta_bytes u32 | records u64        (24 bytes)
  meta     meta_bytes of UTF-8 JSON: "trees" (the B-trees the records name, by position),
           "tables" (each table's primary key and secondary indexes as captured), the capture's
           counts ("statements", "modelled", "unmodelled" by reason, "top_unmodelled" digests),
           "span_s" (seconds the log covers) and "source".
  records  `records` fixed records of RECORD (24 bytes), one per operation, in arrival order:
           kind   u1  POINT, RANGE, SCAN, INSERT, UPDATE, DELETE; since 1.1 INDEX_RANGE (the
                      entries of an index whose leading column's values lie in lo..hi: a range
                      or a non-unique equality on a secondary index, each entry's row read from
                      the clustered index; a prefix of a composite primary key)
           flags  u1  HASHED (lo is a hash of a non-integer key), AUTO (an insert whose key the
                      server picks: AUTO_INCREMENT), LO_OPEN / HI_OPEN (the range has no lower /
                      upper bound: from the table's first key / to its last), DESC (read from
                      the upper end: ORDER BY key DESC LIMIT n); since 1.1 VIA_INDEX (an
                      UPDATE/DELETE whose row was found through a secondary index: the record
                      before it is that lookup, lo is the index's value, the row a hash of it);
                      ROWS (INDEX_RANGE: extra is the rows it reads, the server's EXPLAIN
                      estimate for the statement's shape, LIMIT applied)
           tree   u2  position in meta["trees"]: {"table": "db.tbl", "index": "PRIMARY" | name}
           extra  u4  UPDATE: bit j = the table's j-th secondary index (meta["tables"][t]
                      ["indexes"], sorted by name) has a column the statement sets;
                      RANGE, INDEX_RANGE: at most this many rows (LIMIT), 0 = no limit
           lo     i8  the key (POINT: of `tree`, a secondary index's value when tree is one),
                      the range's first key
           hi     i8  the range's last key (POINT: = lo); INSERT, UPDATE, DELETE: the number of
                      the write's transaction (one session's statements between BEGIN and
                      COMMIT share it; an autocommit statement has its own)
A statement reading several keys (IN lists, multi-row INSERT) is several records.
Fixed width so that a chunk is one read and one numpy.frombuffer; written atomically.

Versions: the header's version is the format's major (1); meta["minor"] its additions, each a new
kind or flag a reader of the same major may meet (absent: 0). 1.1 added INDEX_RANGE, VIA_INDEX, ROWS.
A reader dispatches by kind; read_header() refuses a minor above its own and chunks() a kind it does
not know (KIND_NAMES), so a trace from a newer loadgen is a one-line error, never misread.
"""
from __future__ import annotations

import json
import os
import struct
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..errors import LoadgenError, UsageError
from ..results.files import SHARED, process_umask

MAGIC = b"LGOPTRC\x00"
VERSION = 1
MINOR = 1  # 1.1: INDEX_RANGE, VIA_INDEX, ROWS
HEADER = struct.Struct("<8sIIQ")
RECORD = np.dtype([("kind", "u1"), ("flags", "u1"), ("tree", "<u2"), ("extra", "<u4"), ("lo", "<i8"),
                   ("hi", "<i8")])
POINT, RANGE, SCAN, INSERT, UPDATE, DELETE, INDEX_RANGE = 1, 2, 3, 4, 5, 6, 7
KIND_NAMES = {POINT: "point", RANGE: "range", SCAN: "scan", INSERT: "insert", UPDATE: "update", DELETE: "delete",
              INDEX_RANGE: "index-range"}
HASHED, AUTO, LO_OPEN, HI_OPEN, DESC, VIA_INDEX, ROWS = 1, 2, 4, 8, 16, 32, 64
CHUNK_RECORDS = 65536
MAX_META_BYTES = 16 << 20
PRIMARY = "PRIMARY"


class OpTraceError(UsageError):
    """An op trace that cannot be read: exit 2 with one line."""


def is_op_trace(path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


class Writer:
    """Records appended in order to a temporary body file, joined with the meta at close():
    memory stays one chunk whatever the log's length."""

    def __init__(self, path):
        self.path = Path(path)
        self.trees: dict[tuple[str, str], int] = {}
        self.count = 0
        self._buf = np.zeros(CHUNK_RECORDS, dtype=RECORD)
        self._n = 0
        # a name of mkstemp's (O_EXCL, never a link someone planted): loadgen often runs as root, and
        # a predictable name in a shared directory (-o /tmp/x.optrace) let another user's symlink
        # redirect the write
        try:
            fd, body = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".body", dir=self.path.parent)
        except OSError as exc:
            raise LoadgenError(f"cannot write trace {path}: {exc.strerror}", "choose a writable path with -o") from None
        self.body = Path(body)
        self._f = os.fdopen(fd, "wb")

    def tree(self, table: str, index: str) -> int:
        key = (table, index)
        if key not in self.trees:
            if len(self.trees) >= 65535:
                raise LoadgenError("the log names more than 65,535 tables and indexes: too many for one trace")
            self.trees[key] = len(self.trees)
        return self.trees[key]

    def add(self, kind: int, tree: int, lo: int, hi: int | None = None, flags: int = 0, extra: int = 0) -> None:
        r = self._buf[self._n]
        r["kind"], r["flags"], r["tree"], r["extra"] = kind, flags, tree, extra
        r["lo"], r["hi"] = lo, lo if hi is None else hi
        self._n += 1
        if self._n == CHUNK_RECORDS:
            self._flush()

    def add_records(self, records: np.ndarray) -> None:
        """Records (RECORD) appended as a block, after those added one by one."""
        self._flush()
        self._f.write(np.ascontiguousarray(records, dtype=RECORD).tobytes())
        self.count += len(records)

    def _flush(self) -> None:
        self._f.write(self._buf[:self._n].tobytes())
        self.count += self._n
        self._n = 0

    def close(self, meta: dict) -> int:
        """Write the file (header, meta, records) atomically; returns the records written."""
        tmp = None
        try:
            self._flush()
            self._f.close()
            trees = sorted(self.trees.items(), key=lambda kv: kv[1])
            meta = {"format": "loadgen op trace", "version": VERSION, "minor": MINOR, **meta,
                    "trees": [{"table": t, "index": i} for (t, i), _ in trees]}
            blob = json.dumps(meta, sort_keys=True).encode()
            fd, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
            tmp = Path(name)
            os.fchmod(fd, SHARED & ~process_umask())  # as a plain open() would make it: the umask decides
            with os.fdopen(fd, "wb") as out, open(self.body, "rb") as body:
                out.write(HEADER.pack(MAGIC, VERSION, len(blob), self.count))
                out.write(blob)
                while chunk := body.read(1 << 20):
                    out.write(chunk)
            os.replace(tmp, self.path)
        except OSError as exc:
            raise LoadgenError(f"cannot write trace {self.path}: {exc.strerror}",
                               "choose a writable path with -o (and room for the trace twice)") from None
        finally:
            self.discard(*([tmp] if tmp else []))
        return self.count

    def discard(self, *extra: Path) -> None:
        if not self._f.closed:
            self._f.close()
        for p in (self.body, *extra):
            try:
                p.unlink()
            except OSError:
                pass


def _fail(path, what: str) -> OpTraceError:
    return OpTraceError(f"op trace {path}: {what}", "write it again with `loadgen trace capture` (without --table)")


def read_header(path) -> tuple[dict, int, int]:
    """(meta, records, offset of the first record); a damaged file is a one-line error."""
    try:
        with open(path, "rb") as f:
            raw = f.read(HEADER.size)
            if len(raw) < HEADER.size or not raw.startswith(MAGIC):
                raise _fail(path, "not an op trace")
            _, version, meta_bytes, count = HEADER.unpack(raw)
            if version != VERSION:
                raise _fail(path, f"format version {version}, this loadgen reads {VERSION}.0 .. {VERSION}.{MINOR}")
            if meta_bytes > MAX_META_BYTES:
                raise _fail(path, f"a header of {meta_bytes:,} bytes")
            blob = f.read(meta_bytes)
            size = os.fstat(f.fileno()).st_size
    except OSError as exc:
        raise OpTraceError(f"cannot read trace {path}: {exc.strerror}", "check the path") from None
    try:
        meta = json.loads(blob.decode())
        trees = meta["trees"]
        if not isinstance(trees, list) or not all(isinstance(t, dict) and isinstance(t.get("table"), str)
                                                  and isinstance(t.get("index"), str) for t in trees):
            raise ValueError
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise _fail(path, "its header is damaged") from None
    minor = meta.get("minor", 0)
    if not isinstance(minor, int) or minor > MINOR:  # a newer flag would be misread: refused
        raise OpTraceError(f"op trace {path}: format {VERSION}.{minor}, this loadgen reads {VERSION}.0 .. "
                           f"{VERSION}.{MINOR}", "predict it with the loadgen that wrote it, or a newer one")
    start = HEADER.size + meta_bytes
    if size != start + count * RECORD.itemsize:
        raise _fail(path, f"truncated: the header says {count:,} operations, the file holds "
                          f"{max(0, size - start) // RECORD.itemsize:,}")
    return meta, count, start


def chunks(path, records: int | None = None) -> Iterator[np.ndarray]:
    """The records in order, `records` (CHUNK_RECORDS) at a time (trees checked against the meta)."""
    meta, count, start = read_header(path)
    n_trees = len(meta["trees"])
    known = np.zeros(256, dtype=bool)  # a kind byte's lookup: np.isin took ~4 ms a 262k-record chunk
    known[list(KIND_NAMES)] = True
    with open(path, "rb") as f:
        f.seek(start)
        left = count
        while left:
            want = min(left, records or CHUNK_RECORDS)
            a = np.frombuffer(f.read(want * RECORD.itemsize), dtype=RECORD)
            if len(a) != want:
                raise _fail(path, "truncated")
            if n_trees == 0 or int(a["tree"].max()) >= n_trees or not known[a["kind"]].all():
                raise _fail(path, "a record names a tree or kind the header does not have")
            left -= want
            yield a
