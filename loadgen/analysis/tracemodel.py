"""Predict pages read from an op trace (workload/optrace.py): the captured operations fed, in
their order, to the mix model's page references and pool (mixmodel.py), per table and index.

The trace's streams and its keys placed on the tables (traceplace.py's TracePlan), mixmodel is
handed their arrays of stream / key / length, chunk by chunk (mixmodel.add_ops): the same
references, read-ahead, undo and purge a mixed run of those operations would make.
"""
from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np

from ..errors import UsageError
from ..workload import optrace as ot
from . import changebuf, heldspread, undomodel
from . import mixmodel as mm
from . import mixpages as mp
from . import tracesample as ts
from .pool import under_writes
from .traceplace import INSERT_AT, RANGE_SECONDARY, REINSERT_AT, Spec, TracePlan
from .tracesim import PoolFeed
from .tracetxns import dense_txns, reinserted
from .undomodel import (INSERT_HISTORY, PURGE_LAG_OPS, TRUNCATE_BATCHES, sweep_ops_of, txns_per_undo_page_of,
                        undo_space, without_rseg_pages)

MODEL = "innodb-lru-mix-trace"
# operations placed and turned into references at a time: numpy's work per call is spread over 4x
# optrace's chunk (bench/predict_speed.py); any size gives the same references (test_tracespeed.py)
CHUNK_OPS = 1 << 18


class TraceMapper(mm.Mapper):
    """mixmodel's Mapper and one op it does not have: an insert of a key inside the table (the
    descent to its leaf, the leaf written, a new entry in each secondary index)."""

    def op_refs(self, stream: int, key: np.ndarray, length: np.ndarray) -> mp.Refs:
        s = self.spec.streams[stream]
        if s.op == RANGE_SECONDARY:
            return self._secondary_range(s, key, length)
        if s.op not in (INSERT_AT, REINSERT_AT):
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
        if self.spec.streams[stream].op in (INSERT_AT, REINSERT_AT):
            return None  # an insert leaves purge nothing in the B-trees (its undo is read all the same)
        return super().purge_refs(stream, key)




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
    chunks, txns = dense_txns(chunks)
    if not INSERT_HISTORY.get(flavor, True) and undomodel.REINSERT_HISTORY:
        chunks = _reinserts(chunks, plan)
    spec = plan.spec()
    if not spec.streams:
        raise UsageError(f"none of the trace's {count:,} operations falls inside its tables",
                         "check that --dsn is the server the log came from (or --rows for --schema)")
    inserts = {t: plan.appended[t] for t in plan.appended}
    order = _table_order(plan, tables)
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
    # a curve's MySQL pools of a long trace under writes: one cleaner phase, the twins' too (tracesample.one_phase)
    one = [ts.one_phase(p, len(pools) > 1, count) for _, p in pools]
    pools = [(b, dataclasses.replace(p, cleaner_phase_ms=ts.CURVE_PHASE_MS) if o else p)
             for (b, p), o in zip(pools, one)]
    base = [p for _, p in pools]
    # each exact pool again with the pages held a spread fewer and more (heldspread.py): the
    # interval's envelope where the prediction sits on a knife edge; a miniature's has its SE
    spread = heldspread.pairs(base, write_share, count, bool(buffers))
    # a one-phase pool's twins see the trace's first chunks only, their reach carried to the whole (heldspread.py)
    cut = {i: (len(base) + 2 * j, len(base) + 2 * j + 1) for j, i in enumerate(spread) if one[i]}
    n_chunks = len(chunks)
    with PoolFeed(space, base + [q for two in spread.values() for q in two], first.all_leaves,
                  (order[0], mp.PRIMARY), write_share, count, buffers, exact_from=len(base), cut=cut,
                  cut_chunks=heldspread.twin_chunks(n_chunks, count)) as feed:
        while chunks:  # each chunk's references simulated while the next one's are built, then dropped
            stream, key, length, txn = chunks.pop(0)
            trace = mp.Trace()
            mm.add_ops(trace, mapper, stream, key, length, done, txn)
            feed.feed(*trace.arrays())
            done += len(stream)
        results = feed.close()
    marks = {i: m for i, m in feed.marks.items() if m.cut is not None}
    shifted = dict(zip(spread, zip(results[len(base)::2], results[len(base) + 1::2])))
    out = {"model": MODEL, "trace": str(path), "operations": count, "simulated": done,
           "skipped": {k: v for k, v in plan.skipped.items() if v}, "operations_by_kind": dict(plan.ops),
           "pools": []}
    for i, ((pool_bytes, pool), res) in enumerate(zip(pools, results)):
        per = _per_table(res)
        total = sum(t["pages_read"] for t in per.values()) + res.system
        # part -> (reads with fewer, with more pages held)
        held = heldspread.by_part([(_per_table(r), r.system) for r in shifted[i]]) if i in shifted else {}
        if i in marks:  # the twins cut short: their reach carried to the whole trace
            held = heldspread.extrapolated((per, res.system), marks[i], lambda r: (_per_table(r), r.system))
        # the total's interval has the write side's guesses too, as a mix's total does (for_mix): without
        # them 12 of 27 read/write captures at a DBA's size fell below it (docs/capture.md)
        se = ts.PHASE_SPREAD_REL * total if one[i] else res.se  # one phase: how far from the phases' mean
        low, high = for_pool(total, pool, se=se, fitted=False,  # no op traces on the grid
                             held=heldspread.envelope(total, *held["*"]) if held else None,
                             writes=spec.writes, undo=res.system)
        for name, t in per.items():  # each table's own interval: the same sources as a mix's tables
            env = heldspread.envelope(t["pages_read"], *held[name]) if name in held else None
            t_se = ts.PHASE_SPREAD_REL * t["pages_read"] if one[i] else res.table_se.get(name, 0.0)
            t["low"], t["high"] = table_interval(t["pages_read"], pool, spec.writes, se=t_se, held=env)
        block = {"pool_bytes": pool_bytes, "pool_pages": pool.pool_pages, "capacity_pages": pool.capacity_pages,
                 "pages_read": total, "low": low, "high": high, "system_pages_read": res.system,
                 "read_requests": res.refs, "hit_ratio": 1.0 - total / res.refs if res.refs else None,
                 "dirty_evictions": res.dirty_evicted, "tables": per}
        if res.change_buffer is not None:
            block["change_buffer"] = res.change_buffer
        if held:  # the pages held a spread fewer and more: how much the prediction moves
            block["held_spread"] = heldspread.block(total, *held["*"], heldspread.spread_pages(pool))
            if i in marks:  # the share of the trace the twins saw
                block["held_spread"]["twins_share"] = round(marks[i].cut_at / max(n_chunks, 1), 3)
        if one[i]:  # simulated at one cleaner phase, not the four's mean
            block["cleaner_phase_ms"] = ts.CURVE_PHASE_MS
        if res.rate < 1:  # a miniature (tracesample.py): its sampling rate and standard error
            block["sampled"] = {"rate": round(res.rate, 4), "se_pages": round(res.se)}
        out["pools"].append(block)
    return out


def _reinserts(chunks: list, plan: TracePlan) -> list:
    """The chunks with each insert of a key a delete just left delete-marked (tracetxns.reinserted:
    sysbench-oltp-rw's delete and insert of one id in a transaction) moved to its table's REINSERT_AT
    stream: MySQL inserts it by updating the delete-marked record (row_ins_clust_index_entry_by_modify),
    so its log is an update undo log, in the history and purged, as a mix's delete-insert's is
    (undomodel.REINSERT_HISTORY), where a plain insert's is freed at commit."""
    streams = plan.streams
    tables = {t: i for i, t in enumerate(dict.fromkeys(s.table for s in streams))}
    table_of = np.array([tables[s.table] if s.op in ("delete", INSERT_AT) else -1 for s in streams], np.int64)
    is_insert = np.array([s.op == INSERT_AT for s in streams], bool)
    if not len(streams) or not is_insert.any() or not (table_of[~is_insert] >= 0).any():
        return chunks
    twin = np.arange(len(streams), dtype=np.int64)  # each insert-at stream's re-insert stream
    for i in np.flatnonzero(is_insert).tolist():
        twin[i] = plan.stream(streams[i].table, REINSERT_AT)
    for j, ((stream, key, length, txn), again) in enumerate(zip(chunks, reinserted(chunks, table_of, is_insert,
                                                                                   PURGE_LAG_OPS))):
        if again.any():
            chunks[j] = (np.where(again, twin[stream], stream), key, length, txn)
    return chunks


def _purged_writes_per_txn(chunks: list, spec: Spec) -> float:
    """Updates and deletes a transaction that has any (the writes whose logs purge takes), over the
    chunks (stream, key, length, transaction: dense_txns' numbers)."""
    purged = np.array([s.op in ("update", "delete", REINSERT_AT) for s in spec.streams], dtype=bool)
    txns = [txn[purged[stream]] for stream, _, _, txn in chunks]
    txns = [t for t in txns if len(t)]
    writes = sum(len(t) for t in txns)
    if not writes:
        return 0.0
    lo, hi = min(int(t.min()) for t in txns), max(int(t.max()) for t in txns)
    if lo >= 0 and hi <= 4 * writes + (1 << 20):  # dense numbers: the distinct ones in a bitmap
        seen = np.zeros(hi + 1, dtype=bool)  # (np.unique's hash took ~4 s of CPU at 30M operations)
        for t in txns:
            seen[t] = True
        n = int(np.count_nonzero(seen))
    else:
        n = len(np.unique(np.concatenate(txns)))
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
