"""A captured trace's write transactions numbered 0, 1, ... in order (tracemodel.predict): the
capture numbers every BEGIN..COMMIT, read-only ones too, and the rollback segments are taken in
turn by the transactions that write."""
from __future__ import annotations

import numpy as np


def dense_txns(chunks: list) -> tuple[list, int]:
    """The chunks (stream, key, length, transaction) with their transactions renumbered, and how
    many write transactions there are: a transaction's number is how many distinct ones come
    before it (np.searchsorted over them all; 0 where an op writes nothing)."""
    if _in_order(chunks):  # a capture's: each its place in the runs of equal numbers, no search
        n, last = 0, 0
        for i, (s, k, ln, t) in enumerate(chunks):
            pos = t > 0
            v = t[pos]
            out = np.zeros(len(t), np.int64)
            if len(v):
                new = np.empty(len(v), np.int64)  # 1 where a transaction starts (a run of its ops)
                new[0] = v[0] != last
                np.not_equal(v[1:], v[:-1], out=new[1:])
                rank = np.cumsum(new)
                rank += n - 1
                out[pos] = rank
                n, last = int(rank[-1]) + 1, int(v[-1])
            chunks[i] = (s, k, ln, out)
        return chunks, n
    # each chunk's own first, then their union: the whole trace's numbers are never sorted at once
    ids = _union([_distinct(c[3]) for c in chunks])
    for i, (s, k, n, t) in enumerate(chunks):  # in place: one chunk's numbers twice at a time, not all
        chunks[i] = (s, k, n, np.searchsorted(ids, t).astype(np.int64))
    return chunks, len(ids)


def _in_order(chunks: list) -> bool:
    """Whether the write transactions (> 0) never go back, within a chunk and from one to the next."""
    last = 0
    for c in chunks:
        v = c[3][c[3] > 0]
        if len(v):
            if v[0] < last or not (v[1:] >= v[:-1]).all():
                return False
            last = int(v[-1])
    return True


def _distinct(t: np.ndarray) -> np.ndarray:
    """The distinct write transactions (> 0) of a chunk, ascending: a capture numbers them in
    order, so most chunks need no sort (np.unique's hash took 0.1 s a chunk of 262,144)."""
    t = t[t > 0]
    if len(t) < 2 or (t[1:] >= t[:-1]).all():
        return t[np.concatenate(([True], t[1:] != t[:-1]))] if len(t) else t
    return np.unique(t)


def _union(parts: list) -> np.ndarray:
    """The union of ascending distinct arrays: joined as they are when each starts past the last's end."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return np.zeros(0, np.int64)
    if all(b[0] > a[-1] for a, b in zip(parts, parts[1:])):
        return np.concatenate(parts)
    return np.unique(np.concatenate(parts))


def reinserted(chunks: list, table_of: np.ndarray, is_insert: np.ndarray, lag_ops: int) -> list:
    """Each chunk's mask of the inserts that re-insert a key a delete left delete-marked: the key's
    previous delete or insert in its table a delete, in the same transaction or at most lag_ops
    before (purge has not removed the record yet). table_of: each stream's table number where it is
    a delete or an insert inside the table, else -1; is_insert: which of those streams insert. Over
    the whole trace at once, its deletes and inserts only (sysbench-oltp-rw's: 2 of its 18 statements)."""
    at, ons, parts = 0, [], []
    for stream, key, _, txn in chunks:
        on = np.flatnonzero(table_of[stream] >= 0)
        ons.append(on)
        parts.append((table_of[stream[on]], key[on], at + on, txn[on], is_insert[stream[on]]))
        at += len(stream)
    if not parts:
        return []
    table, key, pos, txn, ins = (np.concatenate(p) for p in zip(*parts))
    order = np.lexsort((pos, key, table))  # each key's writes in order, table by table
    prev, cur = order[:-1], order[1:]
    hit = (ins[cur] & ~ins[prev] & (table[cur] == table[prev]) & (key[cur] == key[prev])
           & ((pos[cur] - pos[prev] <= lag_ops) | (txn[cur] == txn[prev])))
    found = np.zeros(len(pos), bool)
    found[cur[hit]] = True
    out = []
    for (stream, *_), on, got in zip(chunks, ons, np.split(found, np.cumsum([len(o) for o in ons])[:-1])):
        m = np.zeros(len(stream), bool)
        m[on[got]] = True
        out.append(m)
    return out
