"""Purge's walks of the rollback segments' headers (undomodel.sweep_ops_of: how often): which
headers each walk reads, and on MySQL the undo pages of the logs it takes off the history lists.
MariaDB's walk (trx_purge_truncate_history, once a second while writes come) and MySQL's (every
innodb_purge_rseg_truncate_frequency purge batches, its undo tablespaces' and ibtmp1's) read every
header; the pool decides which are still in it."""
from __future__ import annotations

import dataclasses

import numpy as np

from .mixpages import NEW, WRITE, Refs, Space
from .undomodel import append_refs


def sweeps_due(start: int, n: int, w_ops: np.ndarray, w_rsegs: np.ndarray, every: float, next_k: int,
               rseg_last: np.ndarray, first: float | None = None) -> tuple[list[int], list[np.ndarray], int]:
    """Purge's walks over the rollback segments' headers before ops start..start+n: one before the
    k-th second's op, int(k * every), where a write came within the `every` ops before it (the
    history list was not empty). A walk reads every segment's header (undomodel.PURGE_SWEEP_S: the
    pool decides which are still in it). w_ops, w_rsegs: this chunk's write transactions' ops (in
    order) and segments; rseg_last: each segment's last write's op before the chunk (-1: none),
    updated here. first (MySQL's walks by the run's batches, undomodel.measured_walks): the k-th
    walk at int(first + (k - 1) * every), whether or not a write came (the server's history list
    is never empty: 4 logs at every start). Returns the walks' ops, the headers each reads (segment
    numbers) and the next walk's k."""
    points, reads = [], []
    every_rseg = np.arange(len(rseg_last))
    k = next_k
    ats = []
    while (at := walk_op(k, every, first)) < start + n:
        ats.append(at)
        k += 1
    # every walk's window in one search (one a walk cast w_ops to float each time: 40 us a walk)
    bounds = np.searchsorted(w_ops, np.array([[at - every, at] for at in ats], dtype=np.float64).reshape(-1, 2))
    # a walk reads where some segment was written within `every` ops before it: one written before
    # the chunk (its last write, the latest of them all will do), or a write in its window (a mask
    # of the segments a walk took ~10 us, ~260 walks a 262k-op chunk at 1,000 q/s)
    latest = float(rseg_last.max()) if len(rseg_last) else -np.inf
    for at, (lo, hi) in zip(ats, bounds.tolist()):
        if hi > lo or latest >= at - every or first is not None:
            points.append(at)
            reads.append(every_rseg)
    if len(w_ops):
        np.maximum.at(rseg_last, w_rsegs, w_ops)
    return points, reads, k


def walk_op(k: int, every: float, first: float | None = None) -> int:
    """The k-th walk's op (k from 1): int(k * every), or int(first + (k - 1) * every) (sweeps_due)."""
    return int(k * every) if first is None else int(first + (k - 1) * every)


def first_touches(first_at: np.ndarray, at: int) -> np.ndarray:
    """The headers a walk before op `at` touches first (first_at: each header's first touch's op,
    NEVER where none yet; updated here: the walk is itself a touch). A chunk's writes are
    numbered before its walks are placed, so a segment first written after the walk is the
    walk's to create: the pages were read or made at start-up, so neither reads them (MySQL 9.7,
    the shop application at 64M, 232 q/s: 151 headers read by the model at its first walk, none
    by the server)."""
    new = first_at >= at
    np.minimum(first_at, at, out=first_at)
    return new


def sweep_refs(space: Space, reads: list[np.ndarray], first_at: np.ndarray | None = None,
               points: list[int] = ()) -> Refs:
    """Purge's walks (sweeps_due) at ops `points`: each one's headers (segment numbers), read.
    first_at (MySQL): every segment's header and ibtmp1's are read, whichever reads says; a
    header's first touch reads nothing (first_touches)."""
    if first_at is not None:
        every = np.concatenate([space.system_base + np.arange(space.rollback_segments, dtype=np.int64),
                                space.temp_base + np.arange(space.temp_rsegs, dtype=np.int64)])
        flags = np.zeros((len(reads), len(every)), np.uint8)
        for i, at in enumerate(points):
            flags[i, first_touches(first_at, at)] = NEW
        return Refs(np.tile(every, len(reads)).astype(np.uint32), flags.ravel(),
                    np.full(len(reads), len(every), np.int64))
    pages = (space.system_base + np.concatenate(reads)).astype(np.uint32) if reads else np.zeros(0, np.uint32)
    return Refs(pages, np.zeros(len(pages), np.uint8), np.array([len(r) for r in reads], dtype=np.int64))


# No touch yet (Sweeps.first_at)
NEVER = np.iinfo(np.int64).max


@dataclasses.dataclass
class Sweeps:
    """A run's walks of purge over the rollback segments' headers (sweep_ops_of), as the op
    sequence is built chunk by chunk: ops between two (0: none), the next one's k (before op
    int(k * every)), each segment's last write's op (sweeps_due); MySQL (ibtmp1's segments): each
    header's first touch's op (first_touches), and purge reads no header per log (purge_refs); whether
    the walks read the logs' undo pages (walk_after), and the logs each walk still has to read
    (logs: (walk op, transaction) arrays, read in the walk's order: walk_refs)."""

    space: Space
    every: float
    next_k: int
    rseg_last: np.ndarray
    first_at: np.ndarray | None = None
    reads_logs: bool = False
    logs: list = dataclasses.field(default_factory=list)
    first: float | None = None
    batch_ops: float = 0.0

    @classmethod
    def of(cls, space: Space, every: float | tuple[float, float], reads_logs: bool = False,
           held: bool = True, batch_ops: float = 0.0) -> Sweeps:
        """every: ops between two walks, or (that, the first walk's op) where the run's own batches
        place them (undomodel.measured_walks: then made with or without writes, sweeps_due).
        reads_logs: the walks read the logs purge passed (walk_after), where purge's lag is the
        run's own (measured_purge_lag); else PURGE_LAG_OPS's read of the undo page stands for it.
        held: the rollback segments' pages are in the pool as the run begins (undo_refs'
        rsegs_at_start); where not, their first touch reads them, a walk's too, ibtmp1's included.
        batch_ops: ops between two of purge's batches where the run counted them (measured_purge_lag;
        0: not counted), for after_trees."""
        first_at = np.full(space.rollback_segments + space.temp_rsegs, NEVER, np.int64) if space.temp_rsegs else None
        if first_at is not None and not held:  # ibtmp1's too: made at start-up, but out of the pool by the
            # first walk (at 16M the server read 128 ibtmp1 pages for each walk it counted, the first
            # included: 2,031 for 16, 2,295 for 18 in sysbench-oltp-rw at CI's size, branch mysqlrw3)
            first_at[:] = -1
        every, first = every if isinstance(every, tuple) else (every, None)
        return cls(space, float(every or 0.0), 1, np.full(space.rollback_segments, -1, np.int64), first_at,
                   reads_logs and first_at is not None, first=None if first is None else float(first),
                   batch_ops=float(batch_ops or 0.0))

    @property
    def seen(self) -> np.ndarray | None:
        """The headers touched so far (None: MariaDB, whose walks read the headers they name)."""
        return None if self.first_at is None else self.first_at != NEVER

    def used(self, txn: np.ndarray, ops: np.ndarray | None = None) -> None:
        """Transactions txn, at ops (None: before any walk), touched their segments' headers."""
        if self.first_at is not None:
            at = np.full(len(txn), -1, np.int64) if ops is None else np.asarray(ops, np.int64)
            np.minimum.at(self.first_at, np.asarray(txn, np.int64) % self.space.rollback_segments, at)

    def walk_after(self, at: np.ndarray) -> np.ndarray | None:
        """The op of the first walk at or after each op in at (sweeps_due's int(k * every)); None
        where there are no walks. MySQL's walk (trx_purge_truncate_rseg_history) reads the undo
        page of every log purge has passed since the last one, to take it off the history list
        (trx_purge_remove_log_hdr) or free its segment (trx_purge_free_segment): the read that
        falls between purge's own (a few ops after the write, mostly a hit) and the next walk. None
        also on MariaDB (its walks free what purge passed without reading the logs: PURGE_SWEEP_S)
        and where reads_logs is off."""
        if not self.every or not self.reads_logs:
            return None
        first = self.every if self.first is None else self.first
        k = np.maximum(np.ceil((at - first) / self.every), 0).astype(np.int64)
        k += (first + k * self.every).astype(np.int64) < at
        return (first + k * self.every).astype(np.int64)

    def before_walk(self, at: np.ndarray, lag: float) -> np.ndarray | None:
        """MariaDB: whether purge reaches each log (written at op `at`, `lag` ops later) before the
        next once-a-second walk (sweeps_due's int(k * every)): then the walk after its batch reads
        its header (undomodel.purge_refs' header), else the once-a-second walk does. None where
        there are no walks, and on MySQL (its walks follow the batches: TRUNCATE_BATCHES)."""
        if not self.every or self.first_at is not None:
            return None
        nxt = np.floor(at / self.every + 1) * self.every
        return at + lag < nxt

    def after_trees(self, refs: Refs, txn: np.ndarray, at: np.ndarray) -> Refs:
        """MariaDB: purge's work in a secondary index for each op (refs, one op a row; the op's log in
        transaction txn, the op at `at`, its tree work batch_ops later), then the header of the log's
        segment, read by the walk that follows the batch (in place of before_walk's own read of it).
        10.11's purge_coordinator_state::do_purge hands the truncation (trx_purge_truncate_history,
        purge_sys_t::free_history: every segment's header) over after each batch, and a batch that
        read k_1's and PRIMARY's leaves (row_purge_remove_sec_if_poss, row_purge_poss_sec) has pushed
        the headers out of the old sublist just before: 67-75 headers a batch read by InnoDB's threads
        in sysbench-oltp-rw at 16M, 23-38 in ycsb-a/f, whose purge reads 3-6 table pages a run
        (docs/workloads-lab.md, "Who reads the headers: the connections or purge"). The coordinator
        wakes once a second and runs its batches back to back, so the walk after a second's first
        batch is the once-a-second walk sweeps_due places (the second's start): an op whose tree work
        falls within one batch (batch_ops, the run's own) of it reads no header here; the later
        batches' do. Without that, the headers read fell with the rate where the servers' do not (10.11
        sysbench-oltp-rw at 16M: 700 over the server at 700-1,000 q/s, 960 under from 3,000;
        docs/workloads-lab.md, "The rule's header reads follow the wake"). No constant. MySQL: refs
        unchanged (its walks follow its batches already, TRUNCATE_BATCHES)."""
        if not self.every or self.first_at is not None:
            return refs
        txn = np.asarray(txn, np.int64)
        at = np.asarray(at, np.float64) + round(self.batch_ops)
        later = at - np.floor(at / self.every) * self.every >= self.batch_ops
        hdr = self.space.rseg_pages(txn)[0].astype(np.int64)
        return append_refs(refs, later, hdr[:, None], np.zeros((len(txn), 1), np.uint8))

    def to_walk(self, walks_at: np.ndarray, txn: np.ndarray) -> None:
        """Logs (transactions txn) the walks at walks_at (walk_after) read."""
        self.logs.append((walks_at.astype(np.int64), txn.astype(np.int64)))

    def due(self, start: int, n: int, w_ops: list, w_rsegs: list) -> tuple[np.ndarray, Refs] | None:
        """The walks before ops start..start+n-1 ((their ops, refs); None: none). w_ops, w_rsegs: the
        chunk's write transactions that left a log in the history, their ops and segments (arrays)."""
        if not self.every or not self.space.rollback_segments:
            return None
        ops = np.concatenate(w_ops).astype(np.int64) if w_ops else np.zeros(0, np.int64)
        rsegs = np.concatenate(w_rsegs).astype(np.int64) if w_rsegs else np.zeros(0, np.int64)
        by_op = np.argsort(ops, kind="stable")
        points, reads, self.next_k = sweeps_due(start, n, ops[by_op], rsegs[by_op], self.every, self.next_k,
                                                self.rseg_last, self.first)
        if not points:
            return None
        if not self.reads_logs:
            return np.array(points, dtype=np.int64), sweep_refs(self.space, reads, self.first_at, points)
        return np.array(points, dtype=np.int64), walk_refs(self.space, self._logs_of(points), self.first_at, points)

    def _logs_of(self, points: list[int]) -> list[np.ndarray]:
        """The logs each of these walks reads (the first walk at or after a log's walk op: one
        sweeps_due skipped, no write in its interval, leaves its logs to the next); the others kept."""
        if not self.logs:
            return [np.zeros(0, np.int64) for _ in points]
        at, txn = (np.concatenate(c) for c in zip(*self.logs))
        which = np.searchsorted(np.array(points, dtype=np.int64), at, side="left")
        later = which >= len(points)
        self.logs = [(at[later], txn[later])] if later.any() else []
        return [txn[which == i] for i in range(len(points))]


# MySQL assigns write transactions the rollback segments of its undo tablespaces in turn, one
# tablespace then the next (trx_assign_rseg_durable), so the model's segment r (txn % 256) is in
# tablespace r % 2 (Space.file_pages); trx_purge_truncate_history walks each tablespace's segments
# in order, the first tablespace's, then the next's, then ibtmp1's.
def walk_order(space: Space) -> np.ndarray:
    """The rollback segments (the model's numbers) in the order the walk visits them."""
    r = np.arange(space.rollback_segments, dtype=np.int64)
    return r[np.lexsort((r // space.undo_files, r % space.undo_files))]


def walk_refs(space: Space, logs: list[np.ndarray], first_at: np.ndarray, points: list[int]) -> Refs:
    """MySQL's walks (trx_purge_truncate_history) where they read the logs purge passed, one
    pseudo-op each: every segment in walk_order, its header (trx_rsegf_get), then its logs from the
    oldest (trx_undo_page_get; a log ending a segment that was not cached frees it:
    trx_purge_free_segment, the tablespace's header and inode page), then ibtmp1's headers. logs:
    each walk's transactions, at ops points. first_at: each header's first touch (first_touches:
    a first touch reads nothing), updated here."""
    order = walk_order(space)
    pos = np.empty_like(order)
    pos[order] = np.arange(len(order))
    temp = space.temp_base + np.arange(space.temp_rsegs, dtype=np.int64)
    pages, flags, widths = [], [], []
    for txn, at in zip(logs, points):
        new = first_touches(first_at, at)
        _, undo, first_log = space.rseg_pages(txn)
        freed = first_log & (txn >= space.rollback_segments)
        fsp, inode = space.file_pages(txn)
        n_r, n_l = len(order), len(txn)
        # rows of up to 3 references: each header (1), each log (its undo page; 3 where it frees)
        rows_p = np.zeros((n_r + n_l, 3), np.int64)
        rows_f = np.zeros((n_r + n_l, 3), np.uint8)
        width = np.ones(n_r + n_l, np.int64)
        rows_p[:n_r, 0] = space.system_base + order
        rows_f[:n_r, 0] = np.where(new[order], NEW, 0)
        rows_p[n_r:] = np.stack([undo, fsp, inode], axis=1)
        rows_f[n_r:, 1:] = WRITE
        width[n_r:] += 2 * freed
        key_seg = np.concatenate([np.arange(n_r), pos[txn % space.rollback_segments]])
        key_log = np.concatenate([np.full(n_r, -1, np.int64), txn])
        rank = np.lexsort((key_log, key_seg))
        keep = np.arange(3)[None, :] < width[rank][:, None]
        tf = np.where(new[space.rollback_segments:], NEW, 0).astype(np.uint8)
        pages.append(np.concatenate([rows_p[rank][keep], temp]))
        flags.append(np.concatenate([rows_f[rank][keep], tf]))
        widths.append(len(pages[-1]))
    if not pages:
        return Refs(np.zeros(0, np.uint32), np.zeros(0, np.uint8), np.zeros(0, np.int64))
    return Refs(np.concatenate(pages).astype(np.uint32), np.concatenate(flags), np.array(widths, np.int64))
