"""Predict pages read from an op trace (workload/optrace.py): the captured operations fed, in
their order, to the mix model's page references and pool (mixmodel.py), per table and index.

The adapter makes one mix "stream" per (table, operation, index, updated indexes) and hands
mixmodel its arrays of stream / key / length, chunk by chunk (mixmodel.add_ops): the same
references, read-ahead, undo and purge a mixed run of those operations would make. Keys are
placed as the mix model places them: a table's keys 1..rows (the captured key less the table's
lowest key, key_offset) on its leaves in order; inserts past the last key (or AUTO_INCREMENT's)
grow the table at the end, in arrival order; an insert of a key inside the table writes that
key's leaf; a secondary index's value and a non-integer key (HASHED) go to a row chosen by a
hash of the value (where a row with that value lies is not known without the data).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from ..workload import optrace as ot
from . import changebuf, heldspread
from . import mixmodel as mm
from . import mixpages as mp
from .pool import under_writes
from .tracesim import PoolFeed
from .tracetxns import dense_txns
from .undomodel import TRUNCATE_BATCHES, sweep_ops_of, txns_per_undo_page_of, undo_space, without_rseg_pages

MODEL = "innodb-lru-mix-trace"
# mix op of each trace kind (INSERT: "insert" at the end, INSERT_AT inside the table)
_OPS = {ot.POINT: "read", ot.RANGE: "range", ot.SCAN: "scan", ot.UPDATE: "update", ot.DELETE: "delete"}
INSERT_AT = "insert-at"
RANGE_SECONDARY = "range-secondary"  # a secondary index's entries, then each one's row
I64_MAX = (1 << 63) - 1
# operations placed and turned into references at a time: numpy's work per call is spread over 4x
# optrace's chunk (bench/predict_speed.py); any size gives the same references (test_tracespeed.py)
CHUNK_OPS = 1 << 18


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
        return self.op in ("update", "delete", "insert", INSERT_AT)


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


class TraceMapper(mm.Mapper):
    """mixmodel's Mapper and one op it does not have: an insert of a key inside the table (the
    descent to its leaf, the leaf written, a new entry in each secondary index)."""

    def op_refs(self, stream: int, key: np.ndarray, length: np.ndarray) -> mp.Refs:
        s = self.spec.streams[stream]
        if s.op == RANGE_SECONDARY:
            return self._secondary_range(s, key, length)
        if s.op != INSERT_AT:
            return super().op_refs(stream, key, length)
        tree = self.space.tree_of(s.table, None)
        parts = [mp.walks(tree, *tree.span(key, key))]
        p, f = mp.point_refs(tree, tree.leaf_of_key(key), first=False, write=True)
        ps, fs = [p], [f]
        for sec in self.space.secondaries(s.table):  # length: the insert's ordinal (TracePlan._place): rows
            # inserted at one place (a composite key's leading value) are entries of their own
            entry = key.astype(np.int64) + (length.astype(np.int64) << 40)
            p, f = mp.point_refs(sec, sec.entry_leaf(entry, 1), first=False, write=True,
                                 buffer=changebuf.flag(self.buffers, sec.unique, "insert"))
            ps.append(p)
            fs.append(f)
        parts.append(mp.Refs.block(np.hstack(ps), np.hstack(fs)))
        return mp.hcat(*parts)

    def _secondary_range(self, s, key: np.ndarray, length: np.ndarray) -> mp.Refs:
        """The index's entries key..key+length-1 (a walk over its leaves), then each entry's row in
        the clustered index: a row chosen by a hash of the entry's place (an index's order is not
        the table's)."""
        sec, tree = self.space.tree_of(s.table, s.index), self.space.tree_of(s.table, None)
        length = length.astype(np.int64)
        walk = mp.walks(sec, *sec.span(key, key.astype(np.int64) + length - 1))
        entries = mp.positions(key.astype(np.int64), length)
        rowkeys = (mp.mix64(entries.astype(np.uint64) ^ np.uint64(0x5BD1E995)) % np.uint64(tree.rows)).astype(
            np.int64) + 1
        p, f = mp.point_refs(tree, tree.leaf_of_key(rowkeys), first=False)
        return mp.hcat(walk, mp.Refs(p.ravel(), f.ravel(), length * p.shape[1]))

    def purge_refs(self, stream: int, key: np.ndarray):
        if self.spec.streams[stream].op == INSERT_AT:
            return None  # an insert leaves purge nothing in the B-trees (its undo is read all the same)
        return super().purge_refs(stream, key)


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
        n = len(a)
        stream = np.full(n, -1, dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        length = np.ones(n, dtype=np.int64)
        kinds, flags = a["kind"], a["flags"]
        # each (tree, kind) in ascending order, its records in order: one sort, not a mask a pair
        for code, sel in mp.groups(a["tree"].astype(np.int64) * 256 + kinds):
            tr = self.trees[code >> 8]
            table, index = tr["table"], tr["index"]
            g = self.tables[table]
            rows, off = int(g["rows"]), int(g.get("key_offset") or 0)
            # np.take: a fancy index of the structured records took 6x as long (8.8 ms for 100k)
            self._place(np.take(a, sel), sel, code & 255, table, index, rows, off, stream, key, length, flags[sel])
        keep = stream >= 0
        dropped = len(keep) - int(np.count_nonzero(keep))
        self.skipped["outside the table's keys"] += dropped
        writes = (kinds >= ot.INSERT) & (kinds <= ot.DELETE)  # 4, 5, 6 (np.isin: 3 ms a chunk)
        txn = np.where(writes, a["hi"], 0).astype(np.int64)
        if not dropped:  # most chunks: nothing to take out (four masked copies saved)
            return stream, key, length, txn, keep
        return stream[keep], key[keep], length[keep], txn[keep], keep

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
        at = 1 + np.floor((v.astype(np.float64) - vmin) * rows / span).astype(np.int64)
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


def predict(path, tables: dict[str, dict], pools: list, flavor: str = "mariadb",
            buffers: frozenset = frozenset()) -> dict:
    """Pages read per table and index and in total at each pool ((bytes, pool.PoolModel) list), with the
    interval (intervals.for_pool); tables: {db.tbl: {rows, leaf_pages, height, key_offset,
    indexes: {name: {leaf_pages, height, columns, unique}}}}; buffers: the changes MySQL's change
    buffer takes (changebuf.kinds_of: the server's innodb_change_buffering; none: no change buffer)."""
    from .intervals import for_pool, table_interval

    meta, count, _ = ot.read_header(path)
    plan = TracePlan(meta, tables)
    chunks = [plan.map(a) for a in ot.chunks(path, CHUNK_OPS)]  # placed once: the inserts' keys are counted here
    spec = plan.spec()
    if not spec.streams:
        raise UsageError(f"none of the trace's {count:,} operations falls inside its tables",
                         "check that --dsn is the server the log came from (or --rows for --schema)")
    inserts = {t: plan.appended[t] for t in plan.appended}
    order = _table_order(plan, tables)
    chunks, txns = dense_txns(chunks)
    if spec.writes:  # the mix model's undo side (undomodel.undo_space), from the trace's own counts
        writes = [(op, float(plan.ops[op])) for op in ("update", "delete", "insert") if plan.ops[op]]
        done = sum(len(c[0]) for c in chunks)
        per_page = txns_per_undo_page_of(writes, txns / max(done, 1), flavor,
                                         sum(w for _, w in writes) / max(txns, 1))
        space = undo_space(tables, inserts, order, flavor, txns, done, per_page)
        # the page cleaner under writes, and the rollback segments' pages (read at start-up) out of
        # the start-up pages: the mix model's pool for a write run (mixmodel.pool_of, predict)
        written = len({s.table for s in spec.streams if s.writes})
        pools = [(b, without_rseg_pages(under_writes(p, tables=written), space)) for b, p in pools]
    else:
        space = mp.Space.of(tables, inserts, order)
    columns_of = mm.index_columns(tables)
    # a restarted server reads its rollback segments' pages while it starts (mixmodel.add_ops): the
    # shop application at 64M read no undo page during its run (MySQL 9.7: undo_001/002 in
    # performance_schema.file_summary_by_instance, MariaDB: every page read was a table's)
    # purge's walks of the rollback segments' headers follow the clock: the pools share the log's rate
    txns_per_op = txns / max(sum(len(c[0]) for c in chunks), 1)
    # a captured BEGIN .. COMMIT of several writes that purge takes (its updates and deletes: MySQL
    # frees an insert's log at commit): purge's batches follow its commits (undomodel.sweep_ops_of)
    sweep_ops = 0.0
    if spec.writes and pools:
        purged = _purged_writes_per_txn(chunks, spec) if flavor in TRUNCATE_BATCHES else 1.0
        sweep_ops = sweep_ops_of(flavor, pools[0][1].qps, txns_per_op, purged)
    mapper = TraceMapper(spec, space, columns_of, prefetch=mm.RANGE_PREFETCH and flavor == "mariadb",
                         rsegs_at_start=True, sweep_ops=sweep_ops, buffers=buffers)
    for i, s in enumerate(spec.streams):  # an update writes the entries of the indexes it sets
        if s.op == "update":
            bits = _bits(meta, s.table)
            mask = next(k[3] for k, v in plan.ids.items() if v == i)
            mapper.indexed[i] = [space.tree_of(s.table, ix) for j, ix in enumerate(bits)
                                 if mask >> j & 1 and (s.table, ix) in space.trees]
    first = space.tree_of(order[0], None)
    done = 0
    write_share = sum(plan.ops[op] for op in ("update", "delete", "insert")) / max(1, sum(plan.ops.values()))
    base = [p for _, p in pools]
    # each exact pool again with the pages held a spread fewer and more (heldspread.py): the
    # interval's envelope where the prediction sits on a knife edge; a miniature's has its SE
    spread = heldspread.pairs(base, write_share, count)
    with PoolFeed(space, base + [q for two in spread.values() for q in two], first.all_leaves,
                  (order[0], mp.PRIMARY), write_share, count, buffers, exact_from=len(base)) as feed:
        while chunks:  # each chunk's references simulated while the next one's are built, then dropped
            stream, key, length, txn = chunks.pop(0)
            trace = mp.Trace()
            mm.add_ops(trace, mapper, stream, key, length, done, txn)
            feed.feed(*trace.arrays())
            done += len(stream)
        results = feed.close()
    shifted = dict(zip(spread, zip(results[len(base)::2], results[len(base) + 1::2])))
    out = {"model": MODEL, "trace": str(path), "operations": count, "simulated": done,
           "skipped": {k: v for k, v in plan.skipped.items() if v}, "operations_by_kind": dict(plan.ops),
           "pools": []}
    for i, ((pool_bytes, pool), res) in enumerate(zip(pools, results)):
        per = _per_table(res)
        total = sum(t["pages_read"] for t in per.values()) + res.system
        # part -> (reads with fewer, with more pages held)
        held = heldspread.by_part([(_per_table(r), r.system) for r in shifted[i]]) if i in shifted else {}
        # the total's interval has the write side's guesses too, as a mix's total does (for_mix): without
        # them 12 of 27 read/write captures at a DBA's size fell below it (docs/capture.md)
        low, high = for_pool(total, pool, se=res.se, fitted=False,  # no op traces on the grid
                             held=heldspread.envelope(total, *held["*"]) if held else None,
                             writes=spec.writes, undo=res.system)
        for name, t in per.items():  # each table's own interval: the same sources as a mix's tables
            env = heldspread.envelope(t["pages_read"], *held[name]) if name in held else None
            t["low"], t["high"] = table_interval(t["pages_read"], pool, spec.writes, se=res.table_se.get(name, 0.0),
                                                 held=env)
        block = {"pool_bytes": pool_bytes, "pool_pages": pool.pool_pages, "capacity_pages": pool.capacity_pages,
                 "pages_read": total, "low": low, "high": high, "system_pages_read": res.system,
                 "read_requests": res.refs, "hit_ratio": 1.0 - total / res.refs if res.refs else None,
                 "dirty_evictions": res.dirty_evicted, "tables": per}
        if res.change_buffer is not None:
            block["change_buffer"] = res.change_buffer
        if held:  # the pages held a spread fewer and more: how much the prediction moves
            block["held_spread"] = heldspread.block(total, *held["*"], heldspread.spread_pages(pool))
        if res.rate < 1:  # a miniature (tracesample.py): its sampling rate and standard error
            block["sampled"] = {"rate": round(res.rate, 4), "se_pages": round(res.se)}
        out["pools"].append(block)
    return out


def _purged_writes_per_txn(chunks: list, spec: Spec) -> float:
    """Updates and deletes a transaction that has any (the writes whose logs purge takes), over the
    chunks (stream, key, length, transaction: dense_txns' numbers)."""
    purged = np.array([s.op in ("update", "delete") for s in spec.streams], dtype=bool)
    writes, txns = 0, []
    for stream, _, _, txn in chunks:
        on = purged[stream]
        writes += int(on.sum())
        txns.append(np.unique(txn[on]))
    n = len(np.unique(np.concatenate(txns))) if txns else 0
    return writes / n if n else 0.0


def _per_table(res) -> dict[str, dict]:
    """A pool's reads per table, with its indexes'."""
    per: dict[str, dict] = {}
    for (name, idx), got in res.trees.items():
        t = per.setdefault(name, {"pages_read": 0, "indexes": {}})
        t["pages_read"] += got
        t["indexes"][idx] = got
    return per


def _bits(meta: dict, table: str) -> list[str]:
    return sorted(((meta.get("tables") or {}).get(table) or {}).get("indexes") or {})


def _table_order(plan: TracePlan, tables: dict) -> list[str]:
    """The table at page 0 (the one whose leaves read-ahead follows) first: the one with the most
    range and scan operations, else the most operations (as mixmodel.table_order)."""
    weight: Counter = Counter()
    for table, op, _, _ in plan.ids:
        weight[table] += 1000 if op in ("range", "scan", RANGE_SECONDARY) else 1
    return sorted(tables, key=lambda t: -weight.get(t, 0))


class TraceModel:
    """The model side of a replayed op trace (runner/replay.py's Model): the tables' geometry from
    the server, the keys placed as predict() places them, and the replay's prediction block."""

    def geometry(self, conn, names: list[str], infos: dict) -> dict[str, dict]:
        from .tracegeometry import server_tables

        return server_tables(conn, names, infos)

    def plan(self, meta: dict, geometry: dict[str, dict]) -> TracePlan:
        return TracePlan(meta, geometry)

    def predictor(self, path, geometry: dict[str, dict], extra: dict):
        """The prediction of the trace at the run's pool and rate (as `predict --trace`), as a run's
        prediction block: per table (and index) and in total, each with its interval; `extra` kept."""
        def predict_run(run: dict) -> dict:
            from .pool import DEFAULTS
            from .tracegeometry import pools_of

            srv = run.get("server") or {}
            flavor = srv.get("flavor") or "mariadb"
            variables = {k: int(v) for k, v in (srv.get("variables") or {}).items()
                         if k in DEFAULTS and str(v).isdigit()}
            qps = float((run.get("result") or {}).get("qps") or 1000.0)  # old_blocks_time: the replay's own rate
            doc = predict(path, geometry, pools_of([int(srv["innodb_buffer_pool_size"])], flavor, variables, qps),
                          flavor, changebuf.buffered_kinds(run))
            p = doc["pools"][0]
            return {"model": doc["model"], "pages_read": p["pages_read"], "reads_low": p["low"],
                    "reads_high": p["high"], "system_pages_read": p["system_pages_read"],
                    "read_requests": p["read_requests"], "hit_ratio": p["hit_ratio"],
                    "capacity_pages": p["capacity_pages"], "pool_pages": p["pool_pages"], "qps": round(qps, 1),
                    "operations_simulated": doc["simulated"], **extra,
                    **({"held_spread": p["held_spread"]} if p.get("held_spread") else {}),
                    "tables": {name: {"pages_read": t["pages_read"], "reads_low": t["low"], "reads_high": t["high"],
                                      "indexes": {i: {"pages_read": n} for i, n in t["indexes"].items()}}
                               for name, t in p["tables"].items()}}
        return predict_run
