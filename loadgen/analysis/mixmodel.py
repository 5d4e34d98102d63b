"""Predict a mixed run's pages read per table (issue #21 item 4; docs/mix-design.md, "The model's view").

The run's op sequence is regenerated from its spec and seed (workload/opstream.py: op i is a
function of (seed, i), and the driver sends the ops in that order, so the server saw exactly this
sequence); each op becomes the page references it makes in each B-tree (clustered index and
secondary indexes, their geometry from the run's dataset.tables), and one simulated pool (the
kernel's InnoDB LRU, native/lrusim/mix.h) runs them all, counting each page's reads.

The page space: each B-tree has a block of page numbers, leaves first in key order (with room
for the leaves the run's inserts add), then its upper levels, the root last. The first table's
clustered index sits at page 0 with the physical layout of a PK-ordered load (layout.h), so
linear read-ahead runs on its leaves (MariaDB's trigger on a step to the next leaf, MySQL's on a
page's first access); the other B-trees have no physical page numbers and no read-ahead (every
preset is one table, whose ranges and scans are on that index).

What an op references (root first):
  read                    the clustered descent to the key's leaf
  read-secondary          the index's descent to the value's leaf, then the clustered descent
  range of n rows         the descent to the first key's leaf, then each next leaf (a leaf step)
  scan                    the descent to the first leaf, then every leaf in order
  update, delete          the clustered descent, the leaf written; an update of an indexed column
                          (sysbench's k = k + 1) and a delete also write the index entry's leaf
  read-modify-write       the read, then the update
  delete-insert           the delete, then the insert of the same key: the leaf written twice,
                          the index's old and new entries' leaves written
  insert (at the end)     the descent to the last leaf; every rows-per-leaf inserts a new leaf is
                          created (a frame, no read: buf_page_create) at the end of the tree
Where a row's secondary index entry lies is not known from its key (sysbench's k is random): a hash of
the key over the index's leaves. A read visits the leaves from the one holding the key before its first
to the one holding the key after its last (the PAGE_CUR_L descent, the read on to the next record: the
single-table model's leaf steps, 2 of usertable's 14 rows per leaf); a write's lookup does not read on.

Writes in small pools also read the undo log back: each write transaction (autocommit; a
delete-insert is two) takes the next rollback segment in turn and writes its undo log and the
segment header (undomodel.py: the segments' pages, the new undo pages a segment takes as its
logs fill them or purge frees them, MySQL's ibtmp1 pages). Purge reads the undo log back
PURGE_LAG_OPS operations later, and removes the index entries the write delete-marked (after the
row's clustered lookup) as many later as the run's purge batches say (undomodel.measured_purge_lag),
else PURGE_LAG_OPS. Purge's truncation walks the rollback segments' headers while writes come:
MariaDB once a second (PURGE_SWEEP_S: every header, and before it the header of each log purge
reached first, PURGE_HEADER_LAG_S after its write), MySQL every 128 purge batches, ibtmp1's too. These are
counted apart (system_pages_read) and in the total, held to the pool's Innodb_pages_read.

On MariaDB a secondary leaf change also references the table's own pages 0-1 (ibdpages.py: the
change buffer bitmap before 11.0, the file-space header where purge removes an entry).

Not modelled: purge's lag before its undo reads (assumed); page splits at random keys (inserts go
at the end only); the change buffer's own pages (changebuf.py has its rule); the segment inode and
file-space pages undo segments touch, the doublewrite buffer; the server threads' reads (statistics,
the dictionary) beyond pool.py's start-up pages; the timeline (ops evenly spaced at the mean rate).
"""
from __future__ import annotations

import numpy as np

from .. import native
from ..errors import UsageError
from ..workload import mix as mixspec
from ..workload.opstream import Generator
from . import changebuf, heldspread, ibdpages, intervals, mixpages, seedmerges, undocap, undomodel
from .indexcols import index_columns, index_of, leads
from .mixdoc import scheduled_positions, spec_of
from .mixpages import (Refs, Space, Trace, Tree, exclusive_cumsum, hcat, point_refs, scan_refs,
                       simulate, stepped_columns, table_order, table_reads, walks)
from ..measure.cleaner import refill_schedule, replay_schedule
from .keymodel import held_pages
from .dirtypages import run_args
from .pool import hold_capacity, run_pool_model, small_pool_start, under_writes, write_batch
from .purgewalks import Sweeps
from .undomodel import (PURGE_LAG_OPS, forecast_txns_per_undo_page, header_lag_ops, measured_purge_lag, measured_walks,
                        sweep_ops_of, undo_refs, undo_space, undo_txns_per_page, without_rseg_pages, write_txns)
from .undomodel import purge_refs as undo_purge_refs

MODEL = "innodb-lru-mix"
RANGE_PREFETCH = True
WRITE_LOOKUP_STEPS = True  # measured: ycsb-b 16M -3.9% -> -3.3%
WRITE_READS_ON = False  # traced: of ~4,000 updates of a leaf's last key 129 read the next leaf, of selects 3,711


class Mapper:
    """Turns a chunk of the op sequence into references (the model's view, this module's docstring)."""

    def __init__(self, spec: mixspec.MixSpec, space: Space, columns_of: dict | None = None,
                 prefetch: bool = False, rsegs_at_start: bool = False, stepped: set | None = None,
                 sweep_ops: float | tuple = 0.0, buffers: frozenset = frozenset(), purge_lag: float | None = None):
        self.spec = spec
        self.buffers = buffers  # the changes MySQL's change buffer takes (changebuf.buffered_kinds)
        self.rsegs_at_start = rsegs_at_start  # the rollback segments' pages were read at start-up
        self.prefetch = prefetch  # ranges read rows in the fetch cache's batches (fetched_rows)
        self.space = space
        self.columns_of = columns_of or {}  # (table, index) -> its columns (dataset.tables)
        self.indexed: dict[int, list[Tree]] = {}  # update streams: the indexes their column is in
        for i, s in enumerate(spec.streams):
            if s.op in ("update", "read-modify-write") and s.column:
                self.indexed[i] = [t for t in space.secondaries(s.table) if leads(t, s.column, self.columns_of)]
        stepped = stepped or set()  # updates moving the value a step: the new entry in the old one's leaf
        self.stepped = {i for i in self.indexed if (spec.streams[i].table, spec.streams[i].column.lower()) in stepped}
        self.inserted: dict[str, int] = {t.name: 0 for t in spec.tables}
        self.txns = 0  # write transactions (each autocommit write is one; a captured trace's: statements) so far
        self.pending: list[tuple[np.ndarray, Refs]] = []  # purge's work: (op it runs before, refs)
        # purge's walks of the segments' headers
        self.sweeps = Sweeps.of(space, sweep_ops, purge_lag is not None, rsegs_at_start, batch_ops=purge_lag or 0.0)
        self.purge_lag = (PURGE_LAG_OPS, purge_lag or PURGE_LAG_OPS)  # ops to purge's undo read, tree work

    def op_refs(self, stream: int, key: np.ndarray, length: np.ndarray) -> Refs:
        """The references of one stream's ops (keys and lengths of its ops, in op order)."""
        s = self.spec.streams[stream]
        tree = self.space.tree_of(s.table, None)
        op = s.op
        n = len(key)
        if op == "read":
            return walks(tree, *tree.span(key, key))
        if op == "read-secondary":
            sec = self.space.tree_of(s.table, index_of(self.space, s.table, s.column, self.columns_of))
            return hcat(Refs.block(*point_refs(sec, sec.entry_leaf(key))),
                        Refs.block(*point_refs(tree, tree.leaf_of_key(key), first=False)))
        if op in ("update", "delete", "delete-insert"):
            return self._writes(stream, key, first=True)
        if op == "read-modify-write":  # the read (with its leaf steps), then the update: one op
            return hcat(walks(tree, *tree.span(key, key)), self._writes(stream, key, first=False))
        if op == "insert":
            before = self.inserted[s.table]
            self.inserted[s.table] = before + n
            # n-th insert into the table: key rows + n; a new leaf when it is the first on it
            nth = key.astype(np.int64) - tree.rows
            rpl = tree.rows_per_leaf
            leaf_now = ((nth - 1) // rpl).astype(np.int64)
            leaf_before = np.where(nth > 1, ((nth - 2) // rpl).astype(np.int64), -1)
            new = leaf_now != leaf_before
            parts = [Refs.block(*point_refs(tree, tree.leaf_of_key(key), write=True, new=new))]
            for sec in self.space.secondaries(s.table):
                parts.append(Refs.block(*point_refs(sec, sec.entry_leaf(key, 1), first=False, write=True,
                                                    buffer=changebuf.flag(self.buffers, sec.unique, "insert"))))
                self._ibd(parts, None, s.table, n, ibdpages.BITMAP_PAGE)
            return hcat(*parts)
        if op == "range":
            rows = length.astype(np.int64)
            if self.prefetch:
                rows = fetched_rows(rows) - 1  # span() adds the row after the last itself
            return walks(tree, *tree.span(key, key.astype(np.int64) + rows - 1))
        if op == "scan":
            return scan_refs(self.space.tree_of(s.table, s.index), n)
        raise UsageError(f"the mix model does not know op {op!r}")

    def tree_work(self, stream: int) -> bool:
        """Whether purge_refs gives this stream's ops work in a secondary index (Sweeps.after_trees)."""
        s = self.spec.streams[stream]
        if s.op in ("update", "read-modify-write"):
            return bool(self.indexed.get(stream))
        return s.op in ("delete", "delete-insert") and bool(self.space.secondaries(s.table))

    def purge_refs(self, stream: int, key: np.ndarray) -> Refs | None:
        """What purge does for these ops once it reaches them (PURGE_LAG_OPS later): removes the
        index entries they delete-marked (an update's old entry in the indexes its column leads,
        a delete's in every index, a delete-insert's old entries), each after looking the row
        up in the clustered index (row_purge_remove_sec_if_poss), and a delete's clustered
        record. None: nothing for purge in the B-trees (their undo is purge's all the same)."""
        s = self.spec.streams[stream]
        if s.op in ("update", "read-modify-write"):
            secs = self.indexed.get(stream, [])
        elif s.op in ("delete", "delete-insert"):
            secs = self.space.secondaries(s.table)
        else:
            return None
        if not secs and s.op != "delete":
            return None
        tree = self.space.tree_of(s.table, None)
        leaves = tree.leaf_of_key(key)
        parts_p, parts_f = [], []
        for sec in secs:
            p, f = point_refs(tree, leaves, first=False)
            parts_p.append(p)
            parts_f.append(f)
            p, f = point_refs(sec, sec.entry_leaf(key, 0), first=False, write=True,
                              buffer=changebuf.flag(self.buffers, sec.unique, "purge"))
            parts_p.append(p)
            parts_f.append(f)
            self._ibd(parts_p, parts_f, s.table, len(key), ibdpages.BITMAP_PAGE, ibdpages.FSP_PAGE)
        if s.op == "delete":
            p, f = point_refs(tree, leaves, first=False, write=True)
            parts_p.append(p)
            parts_f.append(f)
        return Refs.block(np.hstack(parts_p), np.hstack(parts_f))

    def _ibd(self, pages_out: list, flags_out: list | None, table: str, n: int, *pages: int) -> None:
        """The table's own pages (ibdpages.py) n secondary leaf changes touch, those the space has, added
        to the parts (flags_out None: pages_out takes Refs blocks)."""
        for p, f in (r for r in (ibdpages.refs(self.space, table, n, page) for page in pages) if r is not None):
            if flags_out is None:
                pages_out.append(Refs.block(p, f))
            else:
                pages_out.append(p)
                flags_out.append(f)

    def _writes(self, stream: int, key: np.ndarray, first: bool) -> Refs:
        """An update, delete or delete-insert of each key.
        The row's leaf (written; a delete-insert writes it twice), and the secondary index
        entries it changes: an update's of the indexes its column leads (the old entry
        delete-marked, the new one inserted), a delete's of every index, a delete-insert's old
        and new entries in every index."""
        s = self.spec.streams[stream]
        tree = self.space.tree_of(s.table, None)
        leaves = tree.leaf_of_key(key)
        lookup = []
        if WRITE_LOOKUP_STEPS:  # the row is found as a select finds it (row_search_mvcc), then changed
            lookup = [walks(tree, *tree.span(key, key, WRITE_READS_ON), first=first)]
            first = False
        p, f = point_refs(tree, leaves, first=first, write=True)
        parts_p, parts_f = [p], [f]
        if s.op == "delete-insert":
            p, f = point_refs(tree, leaves, first=False, write=True)
            parts_p.append(p)
            parts_f.append(f)
        if s.op in ("update", "read-modify-write"):
            secs = self.indexed.get(stream, [])
        else:
            secs = self.space.secondaries(s.table)
        salts = (0,) if s.op == "delete" or stream in self.stepped else (0, 1)
        for sec in secs:
            # the old entry delete-marked (salt 0), the new one inserted (salt 1; a stepped update's
            # beside the old: one leaf, two descents where the change buffer takes them, each its own)
            two = stream in self.stepped and changebuf.flag(self.buffers, sec.unique, "delete-mark", "insert")
            for salt in (0, 0) if two else salts:
                change = ("delete-mark", "insert")[salt]
                buf = two or (0 if stream in self.stepped else changebuf.flag(self.buffers, sec.unique, change))
                p, f = point_refs(sec, sec.entry_leaf(key, salt), first=False, write=True, buffer=buf)
                parts_p.append(p)
                parts_f.append(f)
                self._ibd(parts_p, parts_f, s.table, len(key), ibdpages.BITMAP_PAGE)
        return hcat(*lookup, Refs.block(np.hstack(parts_p), np.hstack(parts_f)))


def fetched_rows(n: np.ndarray) -> np.ndarray:
    """Rows InnoDB reads for a range of n rows on MariaDB: up to the row after the last (which
    ends it), the first MYSQL_FETCH_CACHE_THRESHOLD (4) one by one, then MYSQL_FETCH_CACHE_SIZE
    (8) at a time into the prefetch cache, past the range's end (MySQL checks the end inside
    InnoDB, row_search_end_range_check, and stops at the row after the last)."""
    want = np.asarray(n, dtype=np.int64) + 1
    return np.where(want <= 4, want, 4 + 8 * -(-(want - 4) // 8))


def build_trace(spec: mixspec.MixSpec, space: Space, scheduled: dict[int, list[int]] | None = None,
                ops: int | None = None, columns_of: dict | None = None, prefetch: bool = False,
                rsegs_at_start: bool = False, stepped: set | None = None, sweep_ops: float | tuple = 0.0,
                buffers: frozenset = frozenset(), purge_lag: float | None = None) -> Trace:
    """The references of the mix's first `ops` operations, in order; scheduled[op] = the
    scheduled streams whose execution started before op (their scans go in there); sweep_ops:
    ops between purge's walks of the rollback segments' headers (undomodel.sweep_ops_of)."""
    mapper = Mapper(spec, space, columns_of, prefetch, rsegs_at_start, stepped, sweep_ops, buffers, purge_lag)
    trace = Trace()
    scheduled = scheduled or {}
    stop = spec.operations if ops is None else ops
    gen = Generator(spec)
    at_ops = sorted(scheduled)
    for chunk in gen.chunks(0, stop):
        cuts = sorted({chunk.start, chunk.stop, *(o for o in at_ops if chunk.start < o < chunk.stop)})
        for lo, hi in zip(cuts, cuts[1:]):
            for stream in scheduled.get(lo, []):
                _add_scheduled(trace, mapper, stream)
            add_ops(trace, mapper, chunk.stream[lo - chunk.start:hi - chunk.start],
                     chunk.key[lo - chunk.start:hi - chunk.start], chunk.length[lo - chunk.start:hi - chunk.start],
                     lo)
    for o in at_ops:
        if o >= stop:
            for stream in scheduled[o]:
                _add_scheduled(trace, mapper, stream)
    return trace


def _add_scheduled(trace: Trace, mapper: Mapper, stream: int) -> None:
    s = mapper.spec.streams[stream]
    r = scan_refs(mapper.space.tree_of(s.table, s.index))
    trace.add(r.pages, r.flags)


def add_ops(trace: Trace, mapper: Mapper, stream: np.ndarray, key: np.ndarray, length: np.ndarray,
             start: int = 0, txn: np.ndarray | None = None) -> None:
    """Ops start.. in sequence order: each stream's references computed at once, then put in
    their ops' places; a write op's undo pages after its own; purge's work for earlier ops
    (Mapper.pending) before the op it is due at. txn: each op's transaction (a captured trace's
    BEGIN..COMMIT: its writes share one rollback segment); None: every write is its own."""
    n = len(stream)
    if n == 0:
        return
    spec, space = mapper.spec, mapper.space
    by_stream = dict(mixpages.groups(stream))
    done = [(where, mapper.op_refs(i, key[where], length[where])) for i, where in by_stream.items()]
    writes = np.array([spec.streams[i].writes for i in range(len(spec.streams))], dtype=bool)[stream]
    w_ops, w_rsegs = [], []  # each write transaction that left a log: its op and segment (purge's walks)
    if space.rollback_segments and writes.any():
        w_at = np.nonzero(writes)[0]
        rounds = [w_at]
        if txn is None:
            # a delete-insert is two autocommit statements: the insert is a transaction of its own
            # (sysbench-oltp-rw: purge_undo_pages 23,531 for 17,647 write ops, 23,529 statements)
            twice = np.array([s.op == "delete-insert" for s in spec.streams], dtype=bool)[stream[w_at]]
            if twice.any():
                rounds.append(w_at[twice])
        purge, trees = [], np.array([mapper.tree_work(i) for i in range(len(spec.streams))], dtype=bool)
        log_of = np.full(n, -1, np.int64)  # each write op's (first) transaction: the segment its log is in
        if txn is None:  # numbered in op order (a delete-insert's insert right after its delete)
            at = np.concatenate(rounds)
            nth = np.empty(len(at), np.int64)
            nth[np.lexsort((np.repeat(np.arange(len(rounds)), [len(r) for r in rounds]), at))] = np.arange(len(at))
            numbers = np.split(mapper.txns + nth, np.cumsum([len(r) for r in rounds])[:-1])
            mapper.txns += len(at)
        else:
            numbers = [mapper.txns + np.arange(len(w_at), dtype=np.int64)]
            mapper.txns += len(w_at)
        for j, r_at in enumerate(rounds):
            t = numbers[j] if txn is None else txn[r_at].astype(np.int64)
            if j == 0:  # the delete-insert's insert (j == 1) is purged without tree work of its own
                log_of[r_at] = t
            # an insert whose log is freed at commit (a captured trace's insert of a key inside the table,
            # tracemodel's "insert-at", too); not a delete-insert's (j == 1): undomodel.REINSERT_HISTORY
            inserts = np.array([s.op in ("insert", "insert-at") for s in spec.streams])
            plain = inserts[stream[r_at]] | np.full(len(r_at), j == 1 and not undomodel.REINSERT_HISTORY)
            plain &= not space.insert_history
            done.append((r_at, undo_refs(space, t, mapper.rsegs_at_start, plain)))
            mapper.sweeps.used(t, start + r_at.astype(np.int64))
            w_ops.append(start + r_at[~plain].astype(np.int64))  # MySQL's inserts leave purge nothing
            w_rsegs.append(t[~plain] % space.rollback_segments)
            if (~plain).any():  # purge reads the undo log back; MySQL's walk again (Sweeps.walk_after)
                walks_at = mapper.sweeps.walk_after(start + r_at[~plain] + round(mapper.purge_lag[1]))
                own_hdr = mapper.sweeps.before_walk(start + r_at[~plain], header_lag_ops(mapper.sweeps.every))
                if own_hdr is not None and j == 0:  # the walk after the trees' work reads it (after_trees)
                    own_hdr &= ~trees[stream[r_at[~plain]]]
                purge.append((r_at[~plain], undo_purge_refs(space, t[~plain], walks_at is None, own_hdr),
                              0 if walks_at is None else 1))
                if walks_at is not None:
                    mapper.sweeps.to_walk(walks_at, t[~plain])
        # then does its work in the B-trees
        for i in (i for i in by_stream if spec.streams[i].writes):  # np.unique(stream[w_at]): a sort a chunk
            where = by_stream[i]
            r = mapper.purge_refs(i, key[where])
            if r is not None:
                purge.append((where, mapper.sweeps.after_trees(r, log_of[where], start + where) if trees[i] else r, 1))
        for where, r, lag in purge:  # the undo log read back (0), the trees' work (1)
            mapper.pending.append((start + where.astype(np.int64) + round(mapper.purge_lag[lag]), r))
    walks = mapper.sweeps.due(start, n, w_ops, w_rsegs)
    if walks:  # after the purge work due at the same op (the walk ends a purge run)
        mapper.pending.append(walks)
    # purge's work due in this chunk, as pseudo-ops before the op it is due at
    due, keep = [], []
    for at, r in mapper.pending:
        inside = at < start + n
        if inside.all():
            due.append((at - start, r))
        elif inside.any():
            due.append((at[inside] - start, _select(r, inside)))
            keep.append((at[~inside], _select(r, ~inside)))
        else:
            keep.append((at, r))
    mapper.pending = keep
    # order: purge items due at op i (key 2i), then op i's own references (key 2i + 1)
    op_widths = np.zeros(n, dtype=np.int64)
    for where, refs in done:
        op_widths[where] += refs.widths
    p_at = np.concatenate([d[0] for d in due]) if due else np.zeros(0, np.int64)
    p_widths = np.concatenate([d[1].widths for d in due]) if due else np.zeros(0, np.int64)
    total = int(op_widths.sum() + p_widths.sum())
    starts = np.empty(n + len(p_at), dtype=np.int64)
    if mixpages.NATIVE:  # one counting pass (the stable sort below took ~13% of the building)
        native.mixref_order(op_widths, *(np.ascontiguousarray(a, np.int64) for a in (p_at, p_widths)), starts)
    else:
        order_key = np.concatenate([2 * np.arange(n, dtype=np.int64) + 1, 2 * np.maximum(p_at, 0)])
        widths = np.concatenate([op_widths, p_widths])
        order = np.argsort(order_key, kind="stable")
        starts[order] = exclusive_cumsum(widths[order])
    pages, flags = np.empty(total, dtype=np.uint32), np.empty(total, dtype=np.uint8)
    cursor = starts[:n].copy()
    for where, refs in done:
        mixpages.put(pages, flags, cursor, refs, where)
    p_start = starts[n:]
    at = 0
    for _, r in due:
        m = len(r.widths)
        mixpages.put(pages, flags, p_start[at:at + m].copy(), r)
        at += m
    trace.add(pages, flags)


def _select(r: Refs, mask: np.ndarray) -> Refs:
    """The ops of r where mask is set."""
    keep = np.repeat(mask, r.widths)
    return Refs(r.pages[keep], r.flags[keep], r.widths[mask])


def pool_of(run: dict, writes: bool = False):
    """The server's pool (pool.pool_model) for the run; a read-only run's capacity from the data
    pages it held (pool.hold_capacity). Not a write run's: there the page cleaner's
    LRU batches free frames for dirty pages and the data pages swing (MySQL 9.7, sysbench-oltp-rw
    at 16M: a median of 450 of 1,024; the table then read +40% with it, -5.3% without)."""
    srv, bp, res = (run.get(k) or {} for k in ("server", "buffer_pool", "result"))
    # a MySQL read-only run's LRU batches replayed where it recorded them: they land when the server
    # will (sysbench-oltp-ro 300k rows 16M: 1-2 batches at query 15 .. 8,197, -14.6 .. +14.4% with the
    # timed batch's phase mean, -4.6 .. +3.5% replayed); a write run's every second, or where it recorded them
    seen = None if writes or srv.get("flavor") != "mysql" else replay_schedule(bp.get("cleaner_batches"))
    pool = small_pool_start(run_pool_model(srv, bp, res.get("qps"), cleaner_seen=seen), bp.get("pages_data_before"))
    if writes:
        pool = under_writes(pool, refill_schedule(run, pool.cleaner_depth) if pool.cleaner_depth else None)
        pool = write_batch(pool, bp.get("flush"), res.get("qps"))  # MariaDB's small pools: the batch its writes leave
    held = None if writes else held_pages(run.get("samples") or [], pool.pool_pages)
    return hold_capacity(pool, held, srv.get("variables"))


def space_of(spec: mixspec.MixSpec, tables: dict, flavor: str, done: int,
             txns_per_undo_page: float | None = None, ibd_pages: tuple = ()) -> tuple[Space, list[str]]:
    """The page space of a mix's first `done` ops (room for the leaves their inserts add, the
    rollback segments' and undo pages where it writes) and its tables' order (table_order).
    txns_per_undo_page: a run's own (undo_txns_per_page); None: the forecast's
    (UNDO_TXNS_PER_PAGE)."""
    counts = Generator(spec).counts_at(done)
    inserts: dict[str, int] = {}
    for i, s in enumerate(spec.streams):
        if s.op == "insert" and not s.scheduled:
            inserts[s.table] = inserts.get(s.table, 0) + int(counts[i])
    order = table_order(spec, tables)
    if not spec.writes:
        return Space.of(tables, inserts, order), order
    per_page = forecast_txns_per_undo_page(spec, flavor) if txns_per_undo_page is None else txns_per_undo_page
    return undo_space(tables, inserts, order, flavor, write_txns(spec, counts), done, per_page, ibd_pages), order


def predict(run: dict, own_undo: bool = True) -> dict | None:
    """The prediction block of a mixed run (runner/mix.py's `predict`, handed in by the CLI), or
    None when the run has no mix or no table geometry. own_undo: the undo pages' growth from the
    run's own pages_created where it has them (False: the forecast's, undomodel.UNDO_TXNS_PER_PAGE)."""
    wl, ds = run.get("workload") or {}, run.get("dataset") or {}
    tables = ibdpages.tables_of(run)  # MariaDB's secondary heights as HANDLER measures them
    if wl.get("kind") != "mix" or not tables or any(not t.get("leaf_pages") for t in tables.values()):
        return None
    spec = spec_of(run)
    done = int((run.get("result") or {}).get("ops") or spec.operations)
    flavor = (run.get("server") or {}).get("flavor") or "mariadb"
    ibd = ibdpages.used_by(run)
    space, order = space_of(spec, tables, flavor, done, ibd_pages=ibd)
    measured_per_page = undo_txns_per_page(run, space, spec, done) if spec.writes and own_undo else None
    if measured_per_page is not None:  # the run's own undo growth (the forecast's where it has none)
        space, order = space_of(spec, tables, flavor, done, measured_per_page, ibd)
    pool = without_rseg_pages(pool_of(run, spec.writes), space, held := undomodel.rsegs_held(run, space))
    txns_per_op = write_txns(spec, Generator(spec).counts_at(done)) / max(done, 1)
    # purge's walks: as many as the run's server counted (MySQL), else at the rate fitted to its q/s
    walks = measured_walks(run, flavor, done) if spec.writes and own_undo else None  # (spacing, first op)
    walks_from, walk_ops = ("fit", sweep_ops_of(flavor, pool.qps, txns_per_op)) if walks is None else ("run", walks[0])
    buffers, lag = changebuf.buffered_kinds(run), measured_purge_lag(run, done) if own_undo else None
    trace = build_trace(spec, space, scheduled_positions(run, spec), done, index_columns(tables),
                        prefetch=RANGE_PREFETCH and flavor == "mariadb", rsegs_at_start=held,
                        stepped=stepped_columns(tables), sweep_ops=walks or walk_ops, buffers=buffers, purge_lag=lag)
    trace = seedmerges.read_in(trace, space, run, spec.writes, pool.cleaner_seen)  # MySQL read-only runs'
    first, span = space.tree_of(order[0], None), []
    sim = simulate(trace, space, pool, first.all_leaves, span, run_args(pool, run),
                   changebuf.kernel_args(run, pool, buffers))
    # undo reads no more than the run's server wrote undo pages (undocap.UNDO_READS_CAPPED), taken off
    # after the simulation: the frames of the reads over the cap stay charged, as they were held
    # (docs/workloads-lab.md, "The header rule and the undo cap, without a second simulation")
    cap = undocap.undo_reads_cap(run, flavor) if spec.writes and own_undo else None

    def parts(got) -> tuple[dict, int]:
        tabs, sys_reads = table_reads(got, space, tables, ds.get("database"), order[0])
        return tabs, sys_reads - undocap.over_cap(got.reads, space, cap)

    out_tables, system = parts(sim)
    cut = undocap.over_cap(sim.reads, space, cap)
    # the pool again with the pages held a spread fewer and more (heldspread.py): an envelope in the interval
    held = heldspread.of_mix(lambda p: simulate(trace, space, p, first.all_leaves, None, run_args(p, run),
                                                changebuf.kernel_args(run, p, buffers)), parts, pool)
    block = {
        "model": MODEL,
        # the tables' and the undo pages' (equal to the pool's misses; with MySQL's cleaner phases
        # averaged, per page, the sum of the rounded parts)
        "pages_read": sum(t["pages_read"] for t in out_tables.values()) + system,
        "system_pages_read": system,
        "read_requests": int(sim.refs),
        "read_ahead": int(sim.read_ahead),
        "made_young": int(sim.made_young),
        "dirty_evictions": int(sim.dirty_evicted), "single_flushes": int(sim.single_flushes),
        "dirty_at_end": int(sim.dirty_at_end), "lru_batches": int(sim.lru_batches),
        **changebuf.result_block(sim, buffers),
        "capacity_pages": pool.capacity_pages,
        "pool_pages": pool.pool_pages,
        "qps": pool.qps,
        "purge_walk_ops": round(walk_ops, 1), "purge_walks_from": walks_from,
        **({"purge_first_walk_op": round(walks[1], 1)} if walks and walks[0] else {}),
        **({"undo_reads_cap": cap, "undo_reads_cut": cut} if cap is not None else {}),
        "tables": out_tables,
        "note": "pages_read is the tables' and the undo pages' (system_pages_read: rollback segment headers "
                "and their undo pages, purge reading them back); dirty_evictions counts pages evicted dirty "
                "(MariaDB: the pages its LRU batches wrote, each kept in the pool); lru_batches, "
                "single_flushes: MySQL's",
    }
    # how far it can be off: reads_low/high on the total and on each table (analysis/intervals.py)
    rel = (span[0] / sim.misses, span[1] / sim.misses) if sim.misses and span[0] != span[1] else None
    intervals.for_mix(block, pool, rel, spec.writes, held)
    if held:
        block["held_spread"] = heldspread.block(block["pages_read"], *held["*"], heldspread.spread_pages(pool))
    return block

