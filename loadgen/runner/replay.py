"""Replay an op trace (`loadgen run --trace OPTRACE`, workload/optrace.py) on a server's tables,
in its recorded order, and measure it beside the prediction of the same trace at the same pool.

The trace's operations are placed on the tables as the model places them (the model's TracePlan,
analysis/tracemodel.py, handed in as the prediction is: one key space per table, keys less the
table's lowest, inserts past the end in arrival order), so the replay and the prediction see the
same keys; each (table, kind, index, indexes set) becomes a mix stream with its statement
(workload/statements.py) and the whole sequence runs through the mix's runner and drivers
(runner/mix.py measure) on one connection: its per-table reads, its cold start,
its result file. Writes keep their recorded transactions: a transaction of two writes or more is
wrapped in BEGIN .. COMMIT (a transaction interleaved with another session's on the server is cut
where the other's writes come in: counted). What the replay cannot run is counted by reason and
named, never dropped silently (a non-integer key is only a hash in the trace; an update of more
than one index sets the first's column only).
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from typing import Protocol

from .. import db
from ..errors import UsageError
from ..workload import optrace as ot
from ..workload.mix import MixSpec, StreamSpec, TableSpec
from ..workload.opstream import CHUNK_OPS, Chunk
from ..workload.statements import Statement

# A trace the replay refuses by its size, before anything starts: the model holds every placed
# operation in memory (32 bytes each) and the replay runs them on one connection; a capture of
# tens of millions of statements is predicted, and replayed cut (`trace capture` of a shorter log).
MAX_TRACE_BYTES = 1 << 30
MAX_REPLAY_OPS = 20_000_000
BEGIN, COMMIT = "transaction begin", "transaction commit"
# the mix op each placed stream runs (tracemodel's "insert-at": an insert of a key inside the table)
REPLAYED_OPS = {"read": "read", "read-secondary": "read-secondary", "range": "range", "scan": "scan",
                "update": "update", "delete": "delete", "insert": "insert", "insert-at": "insert"}


def read_trace_kinds(path) -> tuple[dict, Counter]:
    """The trace's meta and its operations by kind, read through before any server starts: too
    large, damaged or empty is one line (exit 2)."""
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise UsageError(f"cannot read trace {path}: {exc.strerror}", "check the path") from None
    if size > MAX_TRACE_BYTES:
        raise UsageError(f"op trace {path} is {size / 2**30:.1f} GiB: the replay runs at most {MAX_REPLAY_OPS:,} "
                         "operations", "capture a shorter stretch of the log, or predict it without replaying "
                         "(loadgen predict --trace)")
    meta, count, _ = ot.read_header(path)
    if count > MAX_REPLAY_OPS:
        raise UsageError(f"op trace {path} holds {count:,} operations: the replay runs at most {MAX_REPLAY_OPS:,}",
                         "capture a shorter stretch of the log, or predict it without replaying "
                         "(loadgen predict --trace)")
    if not count:
        raise UsageError(f"op trace {path} holds no operations", "capture a log with statements on tables")
    kinds: Counter = Counter()
    for a in ot.chunks(path):  # every record's tree and kind checked against the header
        k, n = np.unique(a["kind"], return_counts=True)
        kinds.update({ot.KIND_NAMES[int(x)]: int(c) for x, c in zip(k, n)})
    return meta, kinds


def writes_of(kinds: Counter) -> int:
    return sum(kinds.get(k, 0) for k in ("insert", "update", "delete"))


def check_tables(conn, names: list[str]) -> None:
    """Every table the trace names is on the server (one line naming the missing ones)."""
    missing = []
    for name in names:
        database, _, table = name.partition(".")
        found = db.query_value(conn, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND "
                                     "TABLE_NAME=%s", (database, table))
        if not found:
            missing.append(name)
    if missing:
        raise UsageError(f"the trace names {len(missing)} table(s) the server does not have: "
                         f"{', '.join(missing[:5])}",
                         "replay it on the server the log came from, or on a copy seeded with `loadgen seed --shape`")


@dataclass
class Sequence:
    """The replay: its streams (a mix spec), their statements and key offsets, the op sequence."""

    spec: MixSpec
    plans: dict[int, list[Statement]]
    offsets: dict[int, int]
    stream: np.ndarray
    key: np.ndarray
    length: np.ndarray
    not_replayed: Counter = field(default_factory=Counter)  # operations, by reason
    transactions: int = 0  # BEGIN .. COMMIT blocks
    cut_transactions: int = 0  # of which cut by another session's writes
    update_salt: int = 0  # in every value an update stores (statements._update_expr): this replay's own
    # the trace's records this replay runs, in order, where it leaves some out that the model places
    # (a string key's hash, a statement it cannot build): what its prediction is made of; None: all
    replayed_records: np.ndarray | None = None

    @property
    def operations(self) -> int:
        return len(self.stream)

    def chunks(self):
        for start in range(0, len(self.stream), CHUNK_OPS):
            stop = min(start + CHUNK_OPS, len(self.stream))
            yield Chunk(start, stop, self.stream[start:stop], self.key[start:stop], self.length[start:stop],
                        np.zeros(len(self.spec.streams), dtype=np.uint64))

    def summary(self) -> dict:
        return {"operations": self.operations, "transactions": self.transactions,
                "cut_transactions": self.cut_transactions, "not_replayed": dict(self.not_replayed),
                **({"update_salt": self.update_salt} if self.update_salt else {}),
                # the prediction beside the replay is of the operations it ran (replayed_trace)
                "predicted": "the whole trace" if self.replayed_records is None else "the replayed operations"}


class Model(Protocol):
    """What the replay takes from the model (analysis/tracemodel.py's TraceModel): the tables'
    geometry, the placement of the trace's keys on them, and the prediction of a replayed run."""

    def geometry(self, conn, names: list[str], infos: dict) -> dict[str, dict]: ...
    def plan(self, meta: dict, geometry: dict[str, dict]): ...
    def predictor(self, path, geometry: dict[str, dict], extra: dict): ...


def build(path, plan, infos: dict, source: str, update_salt: int = 0) -> Sequence:
    """The replay of the trace at `path` as `plan` places it (Model.plan: place(chunk), streams,
    ids, skipped, meta) over the tables (infos: runner/mixseed.py's TableInfo by table name).
    update_salt (1..999, new_salt()): in every value an update stores, so this replay's updates
    change rows an earlier replay of the same trace left (0: the op's index alone)."""
    from ..workload import statements

    meta = plan.meta
    parts = []
    for a in ot.chunks(path):
        stream, key, length, txn, keep = plan.place(a)
        kept = a[keep]
        hashed = (kept["flags"] & ot.HASHED) != 0
        parts.append((stream, key, length, txn, kept["lo"], hashed, kept))
    stream, key, length, txn, raw, hashed, rec = (np.concatenate([p[i] for p in parts]) for i in range(7))
    not_replayed: Counter = Counter({f"{why} (not placed by the model either)": n for why, n in plan.skipped.items()
                                     if n})
    specs: list[StreamSpec] = []
    plans: dict[int, list[Statement]] = {}
    offsets: dict[int, int] = {}
    new_id = np.full(max(1, len(plan.streams)), -1, dtype=np.int64)
    ranges = rec["kind"] == ot.INDEX_RANGE  # replayed by their own values (index_ranges), per form
    counts = np.bincount(stream[~ranges], minlength=len(plan.streams))
    masks = {v: k[3] for k, v in plan.ids.items()}
    for i, s in enumerate(plan.streams):
        if not counts[i]:  # made for a chunk's placement and never used, or index ranges only (below)
            continue
        info = infos[s.table]
        try:
            spec = _stream_spec(s, masks[i], meta, info, int(counts[i]))
            stmts = statements.build(spec, info, update_salt)
        except UsageError as exc:
            not_replayed[f"{s.name}: {exc.message}"] += int(counts[i])
            continue
        new_id[i] = len(specs)
        offsets[len(specs)] = 0 if s.op == "read-secondary" else info.key_offset
        plans[len(specs)] = stmts
        specs.append(spec)
    sid = new_id[stream]
    key, length = key.copy(), length.copy()
    index_ranges(plan, rec, ranges, sid, key, length, infos, specs, plans, offsets, not_replayed)
    ok = sid >= 0
    sec = np.zeros(len(stream), dtype=bool)
    for i, s in enumerate(plan.streams):
        if s.op == "read-secondary":
            sec |= stream == i
    # a secondary index's point looks its own value up (the model places it by a hash of it)
    key = np.where(sec, raw, key)
    n_hashed = int((hashed & ok).sum())
    if n_hashed:
        not_replayed[NOT_AN_INTEGER] += n_hashed
    ok &= ~hashed
    stream, key, length, txn = sid[ok], key[ok], length[ok], txn[ok]
    seq = Sequence(MixSpec(seed=0, operations=0, tables=(), streams=()), plans, offsets, stream, key, length,
                   not_replayed, update_salt=update_salt, replayed_records=None if ok.all() else rec[ok])
    _transactions(seq, txn, specs, next(iter(infos)))
    total = max(1, len(seq.stream))
    shares = np.bincount(seq.stream, minlength=len(specs)) / total
    from dataclasses import replace

    specs = [replace(s, share=float(shares[j])) for j, s in enumerate(specs)]
    tables = tuple(TableSpec(name=n, existing=n, rows=infos[n].rows) for n in infos)
    seq.spec = MixSpec(seed=0, operations=len(seq.stream), tables=tables, streams=tuple(specs), source=source,
                       description=f"op trace {Path(path).name} replayed in its order")
    return seq


def replayed_trace(seq: Sequence, meta: dict, path, out: Path) -> Path:
    """The trace the replay's prediction is made of: `path` itself, or where the replay leaves
    operations out that the model would place (a VARCHAR-keyed table's hashed keys), a trace of the
    replayed ones beside `out` (the caller removes it). Predicting the whole trace instead credited
    the replay with reads it never made: a table keyed by a string beside one keyed by an integer
    (MariaDB 10.11, 16M) predicted the integer-keyed table 483 pages where the replay, without the
    other table's traffic in the pool, read 249."""
    if seq.replayed_records is None:
        return Path(path)
    target = out.with_name(f".{out.name}.replayed.optrace")
    w = ot.Writer(target)
    w.trees = {(t["table"], t["index"]): i for i, t in enumerate(meta["trees"])}
    try:
        w.add_records(seq.replayed_records)
        w.close({k: v for k, v in meta.items() if k not in ("trees", "format", "version", "minor")})
    except BaseException:
        w.discard(target)
        raise
    return target


def new_salt() -> int:
    """A replay's update salt (Sequence.update_salt). A replay's updates stored LPAD(op index), the
    same values at every replay of a trace: replayed again on the rows the last replay left, most
    of them changed nothing (the server compares the row and writes no undo log), and on MariaDB
    10.11 the second and third replays of 10k ycsb-a updates read 7,501 and 7,895 pages of ibdata1
    where the first read 25,352 (the model: ~28.5k; docs/capture.md, "A replay repeated on the
    same rows"). 999 salts: two replays share one once in 999."""
    import secrets

    return 1 + secrets.randbelow(999)


MAX_RANGE_FORMS = 16  # statements (bounds, direction, LIMIT) an index's ranges are replayed with
NOT_AN_INTEGER = "a key that is not an integer (the trace holds only its hash)"


def index_ranges(plan, rec, ranges, sid, key, length, infos, specs, plans, offsets, not_replayed) -> None:
    """The trace's index ranges (kind 7: a secondary index's entries, or a composite primary key's,
    whose leading column's values lie in lo..hi) replayed by their captured values, not the model's
    placed positions: one stream per (index, form), form = open bounds, direction and LIMIT, each
    with its statement (statements.index_range: the entries through that index, each one's row).
    With the server's row estimate (ROWS) and both bounds the values bound the rows: no LIMIT."""
    from ..workload import statements

    at_all = np.nonzero(ranges)[0]
    if not len(at_all):
        return
    flags, extra = rec["flags"].astype(np.int64), rec["extra"].astype(np.int64)
    lo, hi = rec["lo"].astype(np.int64), rec["hi"].astype(np.int64)
    lo_open, hi_open = (flags & ot.LO_OPEN) != 0, (flags & ot.HI_OPEN) != 0
    limit = np.where(((flags & ot.ROWS) != 0) & ~lo_open & ~hi_open, 0, extra)
    hashed = (flags & ot.HASHED) != 0
    n = int(hashed[at_all].sum())
    if n:
        not_replayed[NOT_AN_INTEGER] += n
        sid[at_all[hashed[at_all]]] = -1
    at_all = at_all[~hashed[at_all]]
    # the statement binds key and end = key + length - 1 (length a u32 in the native driver, which
    # binds unsigned integers: a negative value would be read as one past 2^63)
    span = hi - lo + 1
    for why, bad in (("an index range of more than 2^32 values", ~lo_open & ~hi_open & ((span < 1) |
                                                                                         (span > 0xFFFFFFFF))),
                     ("an index range with a negative bound", (~lo_open & (lo < 0)) | (~hi_open & (hi < 0)))):
        n = int(bad[at_all].sum())
        if n:
            not_replayed[why] += n
            sid[at_all[bad[at_all]]] = -1
        at_all = at_all[~bad[at_all]]
    key[at_all] = np.where(lo_open[at_all], hi[at_all], lo[at_all])
    length[at_all] = np.where(lo_open[at_all] | hi_open[at_all], 1, span[at_all])
    desc = (flags & ot.DESC) != 0
    trees = rec["tree"].astype(np.int64)
    equal = ~lo_open & ~hi_open & (lo == hi)
    form = np.stack([trees, lo_open, hi_open, desc & (limit > 0), limit, equal], axis=1)[at_all]
    forms, which = np.unique(form, axis=0, return_inverse=True)
    made: Counter = Counter()
    for f, (tree, l_open, h_open, down, lim, eq) in enumerate(forms.tolist()):
        sel = at_all[which.ravel() == f]
        table, index = plan.trees[tree]["table"], plan.trees[tree]["index"]
        made[(table, index)] += 1
        if made[(table, index)] > MAX_RANGE_FORMS:
            not_replayed[f"{table} {index}: index ranges of more than {MAX_RANGE_FORMS} forms (bounds, LIMIT)"] \
                += len(sel)
            sid[sel] = -1
            continue
        info = infos[table]
        name = f"{table} index-range {index}" + ("" if not lim else f" {'desc ' if down else ''}limit {lim}") + \
            (" >=" if h_open and not l_open else " <=" if l_open and not h_open else " all" if l_open else
             " =" if eq else "")
        try:
            stmt = statements.index_range(info, index, bool(l_open), bool(h_open), bool(down), int(lim), bool(eq))
        except UsageError as exc:
            not_replayed[f"{name}: {exc.message}"] += len(sel)
            sid[sel] = -1
            continue
        sid[sel] = len(specs)
        offsets[len(specs)] = 0  # the captured values themselves
        plans[len(specs)] = [stmt]
        specs.append(StreamSpec(name=name, table=table, op="index-range", index=index, share=len(sel)))


def _stream_spec(s, mask: int, meta: dict, info, ops: int) -> StreamSpec:
    """The mix stream that runs one placed stream's operations on its table (an op the model
    places and the replay has no statement for is refused here, and counted by the caller)."""
    op = REPLAYED_OPS.get(s.op)
    if op is None:
        raise UsageError(f"the replay has no statement for {s.op} operations")
    kw: dict = {}
    if op == "read-secondary":
        kw["column"] = s.column
        if not s.column:
            raise UsageError(f"index {s.index} has no column the replay can look up")
    elif op == "scan":
        kw["index"] = s.index
    elif op == "update":
        kw["column"] = _update_column(mask, meta, s.table, info)
    return StreamSpec(name=s.name, table=s.table, op=op, share=ops, **kw)


def _update_column(mask: int, meta: dict, table: str, info) -> str:
    """The column an update sets: the first column of the first index the captured update set
    (sysbench's index update: k = k + 1), else a column in no index (its non-index update)."""
    names = sorted(((meta.get("tables") or {}).get(table) or {}).get("indexes") or {})
    for j, name in enumerate(names):
        if mask >> j & 1 and name in info.indexes and info.indexes[name].columns:
            return info.indexes[name].columns[0]
    indexed = {c.lower() for ix in info.indexes.values() for c in ix.columns}
    indexed |= {c.lower() for c in info.primary_key}
    free = [c for c in info.columns if c.lower() not in indexed and c not in info.generated]
    if not free:
        raise UsageError("every column is in an index: no update that leaves the indexes alone")
    return free[0]


def _transactions(seq: Sequence, txn: np.ndarray, specs: list[StreamSpec], table: str) -> None:
    """BEGIN before and COMMIT after each run of writes of one transaction of two writes or more
    (reads between them stay inside, as recorded); a transaction another one's writes cut in two
    is two blocks here (counted)."""
    w = np.nonzero(txn != 0)[0]
    if not len(w):
        return
    t = txn[w]
    ids, n = np.unique(t, return_counts=True)
    multi = np.isin(t, ids[n >= 2])
    first = np.ones(len(w), dtype=bool)
    first[1:] = t[1:] != t[:-1]
    last = np.ones(len(w), dtype=bool)
    last[:-1] = t[1:] != t[:-1]
    begins, ends = w[first & multi], w[last & multi]
    if not len(begins):
        return
    seq.transactions = len(begins)
    seq.cut_transactions = len(begins) - len(np.unique(t[first & multi]))
    b, c = len(specs), len(specs) + 1
    specs.append(StreamSpec(name=BEGIN, table=table, op="begin", share=0))
    specs.append(StreamSpec(name=COMMIT, table=table, op="commit", share=0))
    seq.plans[b] = [Statement("BEGIN", (), False, explain=False)]
    seq.plans[c] = [Statement("COMMIT", (), False, explain=False)]
    seq.offsets[b] = seq.offsets[c] = 0
    # np.insert puts each value before the given index: COMMIT after the last write
    at = np.concatenate([begins, ends + 1])
    kinds = np.concatenate([np.full(len(begins), b), np.full(len(ends), c)])
    order = np.argsort(at, kind="stable")  # at the same place a COMMIT (of the block before) goes first
    at, kinds = at[order], kinds[order]
    fix = np.lexsort((kinds != c, at))
    at, kinds = at[fix], kinds[fix]
    seq.stream = np.insert(seq.stream, at, kinds)
    seq.key = np.insert(seq.key, at, 1)
    seq.length = np.insert(seq.length, at, 1)


def run(server_spec, path, out: Path, model: Model, allow_writes: bool = False, sample_interval_s: float = 1.0,
        reporter=None, driver: str = "auto"):
    """Replay the op trace at `path` from a cold pool on the server's tables; write the result
    (the model's prediction beside, per table and in total). Returns (RunResult, Sequence)."""
    from . import mix as mixrun
    from ..drivers.drive import choose_driver
    from .mixseed import MixDataset, inspect_table
    from ..servers.provision import provisioned
    from .single import QuietReporter

    reporter = reporter or QuietReporter()
    meta, kinds = read_trace_kinds(path)  # before any server: a bad trace is exit 2 with nothing started
    writes = writes_of(kinds)
    if writes and (server_spec.provider == "dsn" or server_spec.dsn) and not allow_writes:
        raise UsageError(f"the trace writes ({writes:,} inserts, updates and deletes): replayed on --dsn they change "
                         "that server's rows", "add --allow-writes to replay them (best on a copy: `loadgen "
                         "clone-shape` then `loadgen seed --shape`), or replay read-only traffic")
    names = sorted({t["table"] for t in meta["trees"]})
    driver = mixrun.resolve_mix_driver(choose_driver(driver).driver)
    with provisioned(mixrun.mix_settings(server_spec), None, reporter.say) as server:
        conn = server.connect()
        try:
            check_tables(conn, names)
            infos = {n: inspect_table(conn, TableSpec(name=n, existing=n), hashed_keys=True) for n in names}
            geometry = model.geometry(conn, names, infos)
        finally:
            conn.close()
        seq = build(path, model.plan(meta, geometry), infos, f"trace {path}", new_salt())
        for reason, n in seq.not_replayed.items():
            reporter.say(f"not replayed: {n:,} operations, {reason}")
        if not seq.operations:
            raise UsageError(f"none of the trace's {sum(kinds.values()):,} operations can be replayed on these tables",
                             "replay it on the server the log came from (or a `seed --shape` copy of it)")
        reporter.say(f"replaying {seq.operations:,} operations on {len(names)} table(s), one connection"
                     + (f", {seq.transactions:,} transactions" if seq.transactions else ""))
        big = max(infos.values(), key=lambda t: t.leaf_pages)
        server.will_query(big.database, big.table, big.rows / max(1, big.leaf_pages))
        cold = server.restart_cold()
        if not cold.cold:
            reporter.say(f"warning: the pool was not emptied before this run ({cold.note})")
        data = MixDataset(seq.spec, database=big.database)
        predicted = replayed_trace(seq, meta, path, Path(out))
        try:
            result = mixrun.measure(server, seq.spec, data, infos, seq.plans, cold, out, sample_interval_s, reporter,
                                    driver, model.predictor(predicted, geometry, {"replay": seq.summary()}),
                                    sequence=seq.chunks(), offsets=seq.offsets)
        finally:
            if predicted != Path(path):
                predicted.unlink(missing_ok=True)
    return result, seq

