"""The undo side of a mix's writes (docs/workloads.md, "What is predicted"): the rollback
segments' pages, the undo pages a run's logs fill and the new ones they take, and MySQL's
temporary tablespace pages, as page references for the mix model (mixmodel.add_ops).

Each autocommit write transaction takes the next rollback segment in turn and appends its undo
log to the segment's cached undo page; at commit it writes the segment header (the history
list). A page takes logs until it is 3/4 full (TRX_UNDO_PAGE_REUSE_LIMIT); then, and on
MariaDB also once purge has passed a cached segment (it frees it), the segment's next log takes
a new page: created (buf_page_create), not read. How many logs a page takes comes from a run's
own pages_created where there is one (undo_txns_per_page), else from UNDO_TXNS_PER_PAGE, measured
per server and op (forecast_txns_per_undo_page). The rollback segments' header and first undo
page are read at start-up on both servers, so their first use reads nothing and they already
hold frames among the run's start-up pages (without_rseg_pages).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..workload import mix as mixspec
from ..workload.opstream import Generator
from .mixpages import NEW, WRITE, Refs, Space

# Rollback segments write transactions take in turn (MariaDB 10.11: innodb_undo_logs 128 in
# the system tablespace; MySQL 9.7: 128 in each of its 2 undo tablespaces).
ROLLBACK_SEGMENTS = {"mariadb": 128, "mysql": 256}
# MySQL 9.7 reads pages of its global temporary tablespace (ibtmp1) in a small pool in proportion
# to its updates and deletes: 0.53-0.85 per transaction at 16M (ycsb-a 28,561 for 49,660,
# sysbench-oltp-rw 12,399 for 23,481 statements), none for inserts (ycsb-d) and none where the
# pool holds them (64M). ibtmp1 holds only the rollback segments of temporary tables (the
# manual, "Temporary Tablespaces"): the optimizer's on-disk temporary tables (sysbench's DISTINCT
# and ORDER BY ranges) go to the session temporary tablespaces (#innodb_temp/temp_N.ibt), from
# which no run read a page, and ycsb-a has none and reads ibtmp1 at the same rate. So these are
# its rollback segments' pages, touched for a reason the model does not know: every second
# write transaction but an insert touches one of TEMP_RSEGS header pages in turn (created at
# start-up, so the first touch reads nothing).
TEMP_RSEGS = {"mysql": 128}
# The tablespaces the rollback segments are in (MariaDB: ibdata1; MySQL 9.7: undo_001, undo_002)
UNDO_FILES = {"mariadb": 1, "mysql": 2}
# Whether an insert's undo log goes to the history (MariaDB 10.3+: purge resets the inserted
# rows' DB_TRX_ID) or is freed at commit (MySQL 9.7). MySQL ycsb-d at 16M: 5,095 undo log pages
# read for 5,097 inserts and nothing else of the undo tablespaces or ibtmp1 (its 128 start-up
# pages once): an insert there writes its undo page only, touches no segment header, no
# temporary rollback segment, and purge never reads it.
INSERT_HISTORY = {"mariadb": True, "mysql": False}
TEMP_TOUCH_EVERY = 2
# Purge runs behind the writes by a lag the model cannot know (it follows the history list and
# the purge threads' batches); what matters is whether the pages it needs are still in the pool.
PURGE_LAG_OPS = 1_000
# MariaDB 10.11: each time the purge coordinator runs (the master thread wakes it every second
# while the history list holds a log), it ends with trx_purge_truncate_history, which walks every
# rollback segment (purge_sys_t::iterator::free_history) and so reads each one's header page. The
# headers of segments a write used in that second purge has just read (their logs); the others,
# where writes are rare, were evicted since the last walk (the old sublist turns over faster than a
# second) and are read again. Sampled every 0.2 s on 10.11.19 (ycsb-b, 300k rows, 16M): intervals
# holding a purge run read 144-223 system pages against ~1 a commit in the others, once a second;
# the same 100k ops read 20,013 system pages at 962 q/s and 11,766 at 2,311 q/s. The model walks
# the unused segments' headers once a second (sweeps_due): those runs' whole reads -8.0%, -3.3%,
# -2.5% -> -2.3%, -1.9%, -1.9%; ycsb-a, ycsb-f and sysbench-oltp-rw (every segment used each
# second) unchanged. MySQL truncates every innodb_purge_rseg_truncate_frequency (128) purge
# batches instead: not modelled here.
PURGE_SWEEP_S = {"mariadb": 1.0}
# Undo logs one undo page takes before the next log needs a new page, without a run (a run's
# own: undo_txns_per_page, from its pages_created). MariaDB frees a cached undo segment once
# purge has passed it, so a segment takes a new page about every time purge has caught up with
# it: 1 + the segment's transactions within the purge lag (forecast_txns_per_undo_page). At 16M,
# 300k rows, 100k ops: ycsb-a 4.2 and 6.3 measured (1 + 3.9 forecast), sysbench-oltp-rw 2.9
# (2.8), ycsb-b 1.03 (1.4). Where the pool holds the freed pages they are created again in
# their frames, which pages_created does not count (sysbench-oltp-rw at 64M: 88), and nothing is
# read either way. MySQL 9.7 keeps them until they fill: 16M ycsb-a 33 (15,032 updates, 454
# pages created; 42 at 300k rows), sysbench-oltp-rw 45 (its deletes and inserts ~69).
UNDO_TXNS_PER_PAGE = {
    "mysql": {"update": 33.0, "read-modify-write": 33.0, "delete": 69.0, "delete-insert": 69.0, "insert": 69.0},
}


def undo_refs(space: Space, txn: np.ndarray, rsegs_at_start: bool, plain: np.ndarray | None = None,
              statement: np.ndarray | None = None, temp_seen: np.ndarray | None = None) -> Refs:
    """Each write transaction's undo page (its log appended) and, at commit, its rollback
    segment's header (the history list), both written. plain: the transactions whose log is
    freed at commit (MySQL's inserts: INSERT_HISTORY), which write their undo page only.
    statement: each write statement's number (ibtmp1's touches; None: txn, one write each).
    temp_seen: the ibtmp1 pages touched before these transactions (a Mapper's, updated here): a
    page's first touch creates it (None: the first round of touches does)."""
    plain = np.zeros(len(txn), bool) if plain is None else plain
    hdr, undo, first_log = space.rseg_pages(txn)
    flags = np.full((len(txn), 2), WRITE, np.uint8)
    fresh = txn < space.rollback_segments
    # a new undo page (the segment's previous one is past its reuse limit, or purge freed it) is
    # created, not read
    flags[first_log & ~fresh, 0] |= NEW
    if rsegs_at_start:
        # Both servers read each rollback segment's header and cached undo page at start-up
        # (trx_rseg_array_init / trx_rseg_mem_create, before the run's cold baseline): their
        # first use reads nothing (sysbench-oltp-rw at 64M: MariaDB read 1 page of ibdata1 in
        # three runs, the model 256 without this; MySQL 9.7 read 103 of its undo files, the
        # model 512)
        flags[fresh] |= NEW
    keep = np.ones((len(txn), 2), bool)
    # a segment's first transaction keeps its header (NEW where the segments were read at
    # start-up) even where its log is freed at commit: else a segment first used by an insert
    # has its header read later by another transaction or purge (MySQL 9.7, the shop
    # application at 64M: 88 headers read by the model, none by the server)
    keep[plain & ~(fresh & rsegs_at_start), 1] = False
    refs = Refs(np.stack([undo, hdr], axis=1)[keep].astype(np.uint32), flags[keep], keep.sum(axis=1).astype(np.int64))
    # a new segment (its page created) changes its tablespace's header and inode page
    created = first_log & ~fresh
    fsp, inode = space.file_pages(txn)
    refs = append_refs(refs, created, np.stack([fsp, inode], axis=1), np.full((len(txn), 2), WRITE, np.uint8))
    if not space.temp_rsegs:
        return refs
    # every second write statement, not transaction: a captured sysbench oltp_read_write (three
    # updates and deletes and an insert in a BEGIN..COMMIT) on MySQL 9.7 at 16M read 2,689 and
    # 2,560 pages of ibtmp1 in 2,000 transactions (6,000 such statements; 0.45 a statement, the
    # mix's autocommit writes 0.53-0.85)
    statement = txn if statement is None else statement
    touch = (statement % TEMP_TOUCH_EVERY == TEMP_TOUCH_EVERY - 1) & ~plain
    nth = statement // TEMP_TOUCH_EVERY
    slot = nth % space.temp_rsegs
    temp = space.temp_base + slot
    if temp_seen is None:
        tflags = np.where(nth < space.temp_rsegs, NEW, 0).astype(np.uint8)
    else:
        # ibtmp1 is made anew at each start: a page's first touch creates it, whichever statement
        # it is (the first round skips slots where an insert, which touches nothing, stood: the
        # shop application at 64M read 76 ibtmp1 pages in the model, none on MySQL 9.7)
        at = np.nonzero(touch)[0]
        _, first = np.unique(slot[at], return_index=True)
        first = at[first]
        tflags = np.zeros(len(txn), np.uint8)
        tflags[first[~temp_seen[slot[first]]]] = NEW
        temp_seen[slot[first]] = True
    return append_refs(refs, touch, temp[:, None], tflags[:, None])


def purge_refs(space: Space, txn: np.ndarray) -> Refs:
    """What purge reads for each transaction's undo log: its rollback segment's header (the
    history list's next log: trx_purge_rseg_get_next_history_log), its undo page, and where the
    log was a segment's first on a new page, the tablespace header and inode page the previous
    page's freeing changes (fseg_free_step)."""
    hdr, undo, first_log = space.rseg_pages(txn)
    # The header: a captured oltp_read_write (2,000 transactions, 16M) read 4,656 .. 5,742 system
    # pages on MariaDB 10.11 (INNODB_METRICS buffer_page_read_system_page: the segments' headers)
    # and ~7,500 of undo_001/002 on MySQL 9.7 beside 2,700 .. 3,100 undo log pages; the model
    # read 1,872 and 1,744 headers without purge's
    refs = Refs.block(np.stack([hdr, undo], axis=1), np.zeros((len(txn), 2), np.uint8))
    fsp, inode = space.file_pages(txn)
    freed = first_log & (txn >= space.rollback_segments)
    return append_refs(refs, freed, np.stack([fsp, inode], axis=1), np.full((len(txn), 2), WRITE, np.uint8))


def sweep_ops_of(flavor: str, qps: float) -> float:
    """Ops between two walks of every rollback segment's header by purge (PURGE_SWEEP_S at the
    run's rate); 0: the server has no such walk."""
    every_s = PURGE_SWEEP_S.get(flavor)
    return float(every_s * qps) if every_s and qps and qps > 0 else 0.0


def sweeps_due(start: int, n: int, w_ops: np.ndarray, w_rsegs: np.ndarray, every: float, next_k: int,
               rseg_last: np.ndarray) -> tuple[list[int], list[np.ndarray], int]:
    """Purge's walks over the rollback segments' headers before ops start..start+n: one before the
    k-th second's op, int(k * every), where a write came within the `every` ops before it (the
    history list was not empty). A walk reads the headers of the segments no write used in that
    second: the others' the purge run before it has just read (the history's logs), so they are
    in the pool. w_ops, w_rsegs: this chunk's write transactions' ops (in order) and segments;
    rseg_last: each segment's last write's op before the chunk (-1: none), updated here.
    Returns the walks' ops, the headers each reads (segment numbers) and the next walk's k."""
    points, reads = [], []
    k = next_k
    while (at := int(k * every)) < start + n:
        lo, hi = np.searchsorted(w_ops, [at - every, at])
        used = rseg_last >= at - every
        used[w_rsegs[lo:hi]] = True
        if used.any():
            points.append(at)
            reads.append(np.nonzero(~used)[0])
        k += 1
    if len(w_ops):
        np.maximum.at(rseg_last, w_rsegs, w_ops)
    return points, reads, k


def sweep_refs(space: Space, reads: list[np.ndarray]) -> Refs:
    """Purge's walks (sweeps_due): each one's headers, read."""
    pages = (space.system_base + np.concatenate(reads)).astype(np.uint32) if reads else np.zeros(0, np.uint32)
    return Refs(pages, np.zeros(len(pages), np.uint8), np.array([len(r) for r in reads], dtype=np.int64))


def append_refs(refs: Refs, mask: np.ndarray, pages: np.ndarray, flags: np.ndarray) -> Refs:
    """refs (one op a row) with pages[i] (a row of references) after op i's own where mask[i]."""
    if not mask.any():
        return refs
    extra = pages.shape[1]
    widths = refs.widths + extra * mask
    total = int(widths.sum())
    out_p, out_f = np.zeros(total, np.uint32), np.zeros(total, np.uint8)
    starts = np.cumsum(widths) - widths
    body = np.ones(total, bool)
    tail_at = (starts[mask] + refs.widths[mask])[:, None] + np.arange(extra)
    body[tail_at.ravel()] = False
    out_p[body], out_f[body] = refs.pages, refs.flags
    out_p[~body], out_f[~body] = pages[mask].ravel(), flags[mask].ravel()
    return Refs(out_p, out_f, widths)


def without_rseg_pages(pool, space: Space):
    """The pool with the rollback segments' pages (read or created at start-up, first used with
    NEW: _undo_refs) taken out of its start-up pages, which counted them already."""
    held = 2 * space.rollback_segments + space.temp_rsegs
    if not held or not pool.start_pages:
        return pool
    return dataclasses.replace(pool, start_pages=max(0, pool.start_pages - held))


def write_txns(spec: mixspec.MixSpec, counts) -> int:
    """The write transactions of ops with these per-stream counts (each autocommit write one, a
    delete-insert two)."""
    return sum(int(c) * (2 if s.op == "delete-insert" else 1)
               for s, c in zip(spec.streams, counts) if s.writes and not s.scheduled)


def forecast_txns_per_undo_page(spec: mixspec.MixSpec, flavor: str) -> float:
    """Undo logs a page takes, without a run: MariaDB's 1 + each segment's write transactions
    within PURGE_LAG_OPS; MySQL's the share-weighted UNDO_TXNS_PER_PAGE of its write ops."""
    ws = [s for s in spec.streams if s.writes and not s.scheduled]
    total = sum(s.share or 0.0 for s in spec.streams if not s.scheduled)
    if not ws or not total:
        return 0.0
    txns_per_op = sum((s.share or 0.0) * (2 if s.op == "delete-insert" else 1) for s in ws) / total
    return txns_per_undo_page_of([(s.op, s.share or 0.0) for s in ws], txns_per_op, flavor)


def txns_per_undo_page_of(writes: list[tuple[str, float]], txns_per_op: float, flavor: str,
                          writes_per_txn: float = 1.0) -> float:
    """Undo logs a page takes, from the write ops' weights ((op, share or count), ...) and the
    write transactions per op (of all ops): MariaDB's 1 + a segment's transactions within
    PURGE_LAG_OPS (purge frees its cached page); MySQL's pages fill with records: the weighted
    UNDO_TXNS_PER_PAGE (one write a log) over the writes each transaction's log holds (a captured
    BEGIN..COMMIT with several)."""
    if not writes or not sum(w for _, w in writes):
        return 0.0
    if flavor not in UNDO_TXNS_PER_PAGE:
        return 1.0 + PURGE_LAG_OPS * txns_per_op / ROLLBACK_SEGMENTS.get(flavor, 128)
    table = UNDO_TXNS_PER_PAGE[flavor]
    pairs = [(w, table.get(op, table["update"])) for op, w in writes]
    # pages, not logs, add up: the mean of 1/T weighted by share
    return sum(w for w, _ in pairs) / sum(w / t for w, t in pairs) / max(writes_per_txn, 1.0)


def undo_space(tables: dict, inserts: dict, order: list[str], flavor: str, txns: int, done: int,
               per_page: float) -> Space:
    """The page space of a run's first `done` ops that wrote in `txns` transactions (mixmodel's
    and tracemodel's alike): the tables, the rollback segments and their undo pages in turn (a
    segment's pages in use: the one it writes, the ones purge has yet to pass, PURGE_LAG_OPS
    behind, that many ops' transactions spread over the segments, and the one it just passed),
    MySQL's ibtmp1 rollback segments, the undo tablespaces."""
    rsegs = ROLLBACK_SEGMENTS.get(flavor, 128)
    behind = PURGE_LAG_OPS * txns / max(done, 1) / rsegs
    live = 2 + int(behind / per_page) if per_page else 1
    return Space.of(tables, inserts, order, rsegs, per_page, live, TEMP_RSEGS.get(flavor, 0),
                    UNDO_FILES.get(flavor, 1), INSERT_HISTORY.get(flavor, True))


def undo_txns_per_page(run: dict, space: Space, spec: mixspec.MixSpec, done: int) -> float | None:
    """A run's own undo logs per undo page: its write transactions over the pages it created
    (buffer_pool.flush.pages_created, INNODB_METRICS buffer_pages_created) less the leaves its
    inserts added (the model's grown leaves); None where the run did not record them."""
    created = ((run.get("buffer_pool") or {}).get("flush") or {}).get("pages_created")
    if created is None:
        return None
    undo = int(created) - sum(t.grown for t in space.trees.values())
    txns = write_txns(spec, Generator(spec).counts_at(done))
    if txns <= 0:
        return None
    return txns / max(undo, 1)
