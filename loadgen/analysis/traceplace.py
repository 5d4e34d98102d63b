"""A captured op trace's streams and its keys placed on the tables (tracemodel.py's first step,
done once over the whole trace before any reference is built: the page space needs every insert).

The adapter makes one mix "stream" per (table, operation, index, updated indexes) and hands
mixmodel its arrays of stream / key / length, chunk by chunk (mixmodel.add_ops). Keys are placed
as the mix model places them: a table's keys 1..rows (the captured key less the table's lowest
key, key_offset) on its leaves in order; inserts past the last key (or AUTO_INCREMENT's) grow
the table at the end, in arrival order; an insert of a key inside the table writes that key's
leaf; a secondary index's value and a non-integer key (HASHED) go to a row chosen by a hash of
the value (where a row with that value lies is not known without the data).

A chunk's points on a clustered index, ranges, updates, deletes and inserts are placed in C
(native/traceplace.c, one pass: NATIVE); the rest, and every record without the extension, by
the numpy code below (_place), the twin test_traceplace.py holds the C pass to.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from .. import native
from ..errors import UsageError
from ..workload import optrace as ot
from . import mixpages as mp

# mix op of each trace kind (INSERT: "insert" at the end, INSERT_AT inside the table)
_OPS = {ot.POINT: "read", ot.RANGE: "range", ot.SCAN: "scan", ot.UPDATE: "update", ot.DELETE: "delete"}
INSERT_AT = "insert-at"
# an insert inside the table of a key a delete just before left delete-marked (MySQL: an update of
# that record, its log in the history; tracetxns.reinserted, tracemodel.predict)
REINSERT_AT = "reinsert-at"
RANGE_SECONDARY = "range-secondary"  # a secondary index's entries, then each one's row

# A chunk placed in one C pass (30M operations of bench/predict_speed.py: ~2.5 s of CPU in numpy,
# a sort by (tree, kind) and a dozen passes a group); False: numpy's _place for every group.
NATIVE = native.trace_place() is not None
_SUBS, _INSERT_AT_SUB, _PYTHON = 16, 8, -2  # native/traceplace.h: PLACE_SUBS, PLACE_INSERT_AT, PLACE_PYTHON
_IN_C = (ot.POINT, ot.RANGE, ot.INSERT, ot.UPDATE, ot.DELETE)  # a point only on a clustered index


@dataclass(frozen=True)
class Stream:
    """mixmodel.Mapper's view of a stream (workload.mix.StreamSpec's duck type)."""

    name: str
    table: str
    op: str
    index: str | None = None
    column: str | None = None
    share: float = 0.0
    scheduled: bool = False

    @property
    def writes(self) -> bool:
        return self.op in ("update", "delete", "insert", INSERT_AT, REINSERT_AT)


@dataclass(frozen=True)
class _Table:
    name: str


@dataclass(frozen=True)
class Spec:
    """mixmodel's view of the mix (workload.mix.MixSpec's duck type)."""

    streams: tuple
    tables: tuple
    operations: int = 0
    scheduled: tuple = ()

    @property
    def writes(self) -> bool:
        return any(s.writes for s in self.streams)


def _hash_key(x: np.ndarray, rows: int) -> np.ndarray:
    return (mp.mix64(x.astype(np.uint64)) % np.uint64(max(rows, 1))).astype(np.int64) + 1


class TracePlan:
    """The streams and the key placement of a trace over the tables' geometry."""

    def __init__(self, meta: dict, tables: dict[str, dict]):
        self.meta, self.tables = meta, tables
        self.trees = meta["trees"]
        missing = sorted({t["table"] for t in self.trees} - set(tables))
        if missing:
            raise UsageError(f"no geometry for {', '.join(missing[:5])}", "the trace names tables the server or "
                                                                          "--schema does not have")
        self.streams: list[Stream] = []
        self.ids: dict[tuple, int] = {}
        self.skipped: Counter = Counter()
        self.ops: Counter = Counter()
        self.appended: Counter = Counter()  # inserts at each table's end so far
        self.inserted_at = 0  # inserts inside a table so far

    def stream(self, table: str, op: str, index: str | None = None, mask: int = 0) -> int:
        k = (table, op, index, mask)
        if k not in self.ids:
            self.ids[k] = len(self.streams)
            column = None
            if op == "read-secondary":
                column = (self.tables[table]["indexes"][index].get("columns") or [None])[0]
            self.streams.append(Stream(f"{table} {op} {index or ''} {mask or ''}".strip(), table, op, index, column))
        return self.ids[k]

    def map(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(stream, key, length, transaction) of a chunk of records, in order; records the model cannot place
        (keys outside the table) are dropped and counted in skipped."""
        return self.place(a)[:4]

    def place(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """map() and the mask of the chunk's records kept (the replay reads their own values beside)."""
        trees = self._native_trees() if NATIVE and len(a) and a.dtype == ot.RECORD else None
        if trees is not None:
            stream, key, length, txn = self._place_native(a, *trees)
        else:
            stream, key, length, txn = self._place_numpy(a)
        keep = stream >= 0
        dropped = len(keep) - int(np.count_nonzero(keep))
        self.skipped["outside the table's keys"] += dropped
        if not dropped:  # most chunks: nothing to take out (four masked copies saved)
            return stream, key, length, txn, keep
        return stream[keep], key[keep], length[keep], txn[keep], keep

    def _place_numpy(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        n = len(a)
        stream = np.full(n, -1, dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        length = np.ones(n, dtype=np.int64)
        kinds = a["kind"]
        # each (tree, kind) in ascending order, its records in order: one sort, not a mask a pair
        for code, sel in mp.groups(a["tree"].astype(np.int64) * 256 + kinds):
            self._place_group(a, sel, code >> 8, code & 255, stream, key, length)
        writes = (kinds >= ot.INSERT) & (kinds <= ot.DELETE)  # 4, 5, 6 (np.isin: 3 ms a chunk)
        return stream, key, length, np.where(writes, a["hi"], 0).astype(np.int64)

    def _place_group(self, a, sel, tree: int, kind: int, stream, key, length) -> None:
        tr = self.trees[tree]
        table, index = tr["table"], tr["index"]
        g = self.tables[table]
        rows, off = int(g["rows"]), int(g.get("key_offset") or 0)
        # np.take: a fancy index of the structured records took 6x as long (8.8 ms for 100k)
        self._place(np.take(a, sel), sel, kind, table, index, rows, off, stream, key, length, a["flags"][sel])

    def _native_trees(self) -> tuple[np.ndarray, list[str]] | None:
        """traceplace.c's row a tree (table, rows, key offset, has values, lowest, highest value, a point
        placed in C) and the tables in its order; None where a value is not an int64 (numpy's path)."""
        if not hasattr(self, "_trees_c"):
            names = list(dict.fromkeys(t["table"] for t in self.trees))
            rows_c = []
            for t in self.trees:
                g = self.tables[t["table"]]
                values = g.get("values") or None
                row = [names.index(t["table"]), g["rows"], g.get("key_offset") or 0, int(values is not None),
                       *(values or (0, 0)), int(t["index"] == ot.PRIMARY)]
                ints = all(isinstance(v, (int, np.integer)) and -(1 << 62) < v < 1 << 62 for v in row)
                rows_c.append(row if ints and (values is None or len(values) == 2) else None)
            ok = rows_c and None not in rows_c
            self._trees_c = (np.array(rows_c, dtype=np.int64).reshape(-1), names) if ok else None
        return self._trees_c

    def _place_native(self, a: np.ndarray, trees: np.ndarray, names: list[str]):
        """_place_numpy's arrays from one C pass (native/traceplace.c), its streams named and its counts
        kept here in the order the numpy code names and counts them: by (tree, kind), ascending."""
        n, subs = len(a), len(self.trees) * _SUBS
        cls, key, length, txn = (np.empty(n, dtype=np.int64) for _ in range(4))
        counts, kept = np.zeros(subs, dtype=np.int64), np.zeros(subs, dtype=np.int64)
        appended = np.array([self.appended[t] for t in names], dtype=np.int64)
        inserted_at = np.array([self.inserted_at], dtype=np.int64)
        native.trace_place()(np.ascontiguousarray(a), trees, appended, inserted_at, cls, key, length, txn, counts,
                             kept)
        self.inserted_at = int(inserted_at[0])
        stream = None  # the records left to numpy, where there are any
        lut = np.full(subs + 2, -1, dtype=np.int64)  # a class's stream at class + 2 (dropped, numpy's: -1)
        updates, codes = [], None
        for code in np.flatnonzero(counts).tolist():
            t, kind = divmod(code, _SUBS)
            table, index = self.trees[t]["table"], self.trees[t]["index"]
            if kind not in _IN_C or (kind == ot.POINT and index != ot.PRIMARY):  # left to numpy
                if codes is None:
                    codes = a["tree"].astype(np.int64) * _SUBS + a["kind"]
                    stream = np.full(n, -1, dtype=np.int64)
                self._place_group(a, np.flatnonzero(codes == code), t, kind, stream, key, length)
                continue
            got = int(kept[code])
            if kind == ot.INSERT:
                lut[code + 2] = self.stream(table, "insert")
                lut[code - kind + _INSERT_AT_SUB + 2] = self.stream(table, INSERT_AT)
                self.appended[table] = int(appended[names.index(table)])
                self.ops["insert"] += got + int(kept[code - kind + _INSERT_AT_SUB])
            elif kind == ot.UPDATE:  # a stream a set of updated indexes, in ascending order
                sel = np.flatnonzero(cls == code)
                masks, which = np.unique(a["extra"][sel], return_inverse=True)
                updates.append((sel, np.array([self.stream(table, "update", None, int(m)) for m in masks],
                                              dtype=np.int64)[which]))
                self.ops["update"] += got
            else:
                lut[code + 2] = self.stream(table, _OPS[kind])
                self.ops[_OPS[kind]] += got
                if kind == ot.RANGE:
                    self.skipped["empty ranges"] += int(counts[code]) - got
        cls += 2
        placed = lut.take(cls)
        if stream is not None:
            placed = np.where(cls == _PYTHON + 2, stream, placed)
        for sel, ids in updates:
            placed[sel] = ids
        return placed, key, length, txn

    def _place(self, r, sel, kind, table, index, rows, off, stream, key, length, flags) -> None:
        if kind == ot.INDEX_RANGE:
            return self._index_range(r, sel, table, index, rows, stream, key, length, flags)
        # a write found through a secondary index: the row its lookup (the record before) chose
        hashed = (flags & (ot.HASHED | ot.VIA_INDEX)) != 0
        lo = r["lo"].astype(np.int64) - off
        if hashed.any():  # the hash of every record took ~9% of the placing where none was hashed
            lo = np.where(hashed, _hash_key(r["lo"], rows), lo)
        if kind == ot.POINT and index != ot.PRIMARY:
            if index not in self.tables[table]["indexes"]:
                self.skipped[f"index {index} not on the server"] += len(sel)
                return
            stream[sel] = self.stream(table, "read-secondary", index)
            key[sel] = _hash_key(r["lo"], rows)  # the row a value leads to
            self.ops["read-secondary"] += len(sel)
            return
        if kind == ot.INSERT:
            values = self.tables[table].get("values")  # a composite key: lo is its leading column's value
            if values:
                lo = np.where(hashed, lo, self._position(r["lo"], values, rows))
            at_end = ((flags & ot.AUTO) != 0) | (~hashed & (lo > rows))
            n_end = int(at_end.sum())
            end_keys = rows + self.appended[table] + 1 + np.arange(n_end, dtype=np.int64)
            self.appended[table] += n_end
            stream[sel[at_end]] = self.stream(table, "insert")
            key[sel[at_end]] = end_keys
            inside = ~at_end & (lo >= 1)
            stream[sel[inside]] = self.stream(table, INSERT_AT)
            key[sel[inside]] = lo[inside]
            n_in = int(inside.sum())
            length[sel[inside]] = self.inserted_at + 1 + np.arange(n_in, dtype=np.int64)  # ordinals (Mapper)
            self.inserted_at += n_in
            self.ops["insert"] += int(at_end.sum() + inside.sum())
            return
        if kind == ot.RANGE:
            hi = np.where(hashed, lo, r["hi"].astype(np.int64) - off)
            lo = np.where((flags & ot.LO_OPEN) != 0, 1, lo)
            hi = np.where((flags & ot.HI_OPEN) != 0, rows, hi)
            lo, hi = np.maximum(lo, 1), np.minimum(hi, rows)
            limit = r["extra"].astype(np.int64)
            desc = (flags & ot.DESC) != 0
            cut = limit > 0
            lo = np.where(cut & desc, np.maximum(lo, hi - limit + 1), lo)
            hi = np.where(cut & ~desc, np.minimum(hi, lo + limit - 1), hi)
            ok = hi >= lo
            stream[sel[ok]] = self.stream(table, "range")
            key[sel[ok]] = lo[ok]
            length[sel[ok]] = hi[ok] - lo[ok] + 1
            self.ops["range"] += int(ok.sum())
            self.skipped["empty ranges"] += int((~ok).sum())
            return
        if kind == ot.SCAN:
            stream[sel] = self.stream(table, "scan", None if index == ot.PRIMARY else index)
            key[sel] = 1
            self.ops["scan"] += len(sel)
            return
        ok = (lo >= 1) & (lo <= rows)
        if kind == ot.UPDATE:
            for m in np.unique(r["extra"][ok]):
                s = ok & (r["extra"] == m)
                stream[sel[s]] = self.stream(table, "update", None, int(m))
        else:
            stream[sel[ok]] = self.stream(table, _OPS[kind])
        key[sel[ok]] = lo[ok]
        self.ops[_OPS[kind]] += int(ok.sum())

    @staticmethod
    def _position(v: np.ndarray, values: list, rows: int) -> np.ndarray:
        """Where a leading column's value lies among the rows (past the highest: after the last)."""
        vmin, vmax = values
        span = float(max(1, vmax - vmin + 1))
        # clipped before the cast: a value far below the lowest (an untrusted trace's) is row 1, not
        # a float past int64 (numpy's cast of it is undefined, and warns)
        at = 1 + np.floor((v.astype(np.float64) - vmin) * rows / span).clip(0, rows).astype(np.int64)
        return np.where(v > vmax, rows + 1, np.maximum(at, 1))

    def _index_range(self, r, sel, table, index, rows, stream, key, length, flags) -> None:
        """The entries of an index whose leading column's values lie in lo..hi: placed by where the
        values lie between the column's lowest and highest (tracegeometry.leading_values; without
        them 1..rows), a value's entries rows / distinct values (an equality at least that many; a
        hashed value: that many from a row its hash picks); cut by the LIMIT from either end."""
        g = self.tables[table] if index == ot.PRIMARY else self.tables[table]["indexes"].get(index)
        if g is None:
            self.skipped[f"index {index} not on the server"] += len(sel)
            return
        vmin, vmax = g.get("values") or (1, rows)
        span = float(max(1, vmax - vmin + 1))
        per_value = max(1, round(rows / max(1, min(int(g.get("distinct") or span), rows))))
        lo_open, hi_open = (flags & ot.LO_OPEN) != 0, (flags & ot.HI_OPEN) != 0
        a = np.where(lo_open, vmin, r["lo"].astype(np.float64))
        b = np.where(hi_open, vmax, r["hi"].astype(np.float64))
        inside = (b >= vmin) & (a <= vmax) & (b >= a)
        first = 1 + np.floor((np.clip(a, vmin, vmax + 1) - vmin) * rows / span).astype(np.int64)
        last = np.floor((np.clip(b, vmin - 1, vmax) - vmin + 1) * rows / span).astype(np.int64)
        n = last - first + 1
        equal = ~lo_open & ~hi_open & (r["lo"] == r["hi"])
        n = np.where(equal & inside, np.maximum(n, per_value), n)
        hashed = (flags & ot.HASHED) != 0
        first = np.where(hashed, _hash_key(r["lo"], rows), first)
        n = np.where(hashed, per_value, np.where(inside, n, 0))
        first = np.clip(first, 1, rows)
        n = np.minimum(n, rows - first + 1)
        limit = r["extra"].astype(np.int64)
        known = ((flags & ot.ROWS) != 0) & inside  # the server's estimate of the rows (EXPLAIN)
        n = np.where(known, np.minimum(limit, rows - first + 1), n)
        cut = (limit > 0) & (n > limit)
        first = np.where(cut & ((flags & ot.DESC) != 0), first + n - limit, first)
        n = np.where(cut, limit, n)
        ok = n >= 1
        op = "range" if index == ot.PRIMARY else RANGE_SECONDARY
        stream[sel[ok]] = self.stream(table, op, None if index == ot.PRIMARY else index)
        key[sel[ok]] = first[ok]
        length[sel[ok]] = n[ok]
        self.ops[op] += int(ok.sum())
        self.skipped["empty ranges"] += int((~ok).sum())

    def spec(self) -> Spec:
        return Spec(tuple(self.streams), tuple(_Table(t) for t in self.tables))
