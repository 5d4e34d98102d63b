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
from .dirtypages import run_counter
from .mixpages import NEW, WRITE, Refs, Space, exclusive_cumsum, put

# Rollback segments write transactions take in turn (MariaDB 10.11: innodb_undo_logs 128 in
# the system tablespace; MySQL 9.7: 128 in each of its 2 undo tablespaces).
ROLLBACK_SEGMENTS = {"mariadb": 128, "mysql": 256}
# MySQL 9.7's global temporary tablespace (ibtmp1) holds the rollback segments of temporary tables
# (the manual, "Temporary Tablespaces"): 128 header pages, created at start-up, touched by purge's
# truncation passes only (TRUNCATE_BATCHES), which is why a run without history (ycsb-d's
# inserts) or a pool that holds them (64M) reads none.
TEMP_RSEGS = {"mysql": 128}
# The tablespaces the rollback segments are in (MariaDB: ibdata1; MySQL 9.7: undo_001, undo_002)
UNDO_FILES = {"mariadb": 1, "mysql": 2}
# Whether an insert's undo log goes to the history (MariaDB 10.3+: purge resets the inserted
# rows' DB_TRX_ID) or is freed at commit (MySQL 9.7). MySQL ycsb-d at 16M: 5,095 undo log pages
# read for 5,097 inserts and nothing else of the undo tablespaces or ibtmp1 (its 128 start-up
# pages once): an insert there writes its undo page only, touches no segment header, no
# temporary rollback segment, and purge never reads it.
INSERT_HISTORY = {"mariadb": True, "mysql": False}
# But a delete-insert's insert (sysbench-oltp-rw's: the key its delete just delete-marked, as its own
# autocommit transaction, before purge has removed the record) is an update of the delete-marked
# record (row_ins_clust_index_entry_by_modify), so on MySQL too its log is an update undo log: in the
# history, the segment's header written at commit, purged and walked (mixmodel.add_ops). Measured:
# purge handled a log for every statement (INNODB_METRICS purge_undo_pages 23,531 for 23,529 in the
# lead run, 4,756 for 4,786 in docs/data/mysqlrw3's c-2); as plain inserts, the model's 16M runs read
# 11% too few undo log pages and 13% too few headers (docs/workloads-lab.md, "MySQL's re-inserts").
REINSERT_HISTORY = True
# MySQL 8.0-9.x: every innodb_purge_rseg_truncate_frequency (128) purge batches, purge takes the
# logs it has passed off the history lists (srv_do_purge -> trx_purge(truncate) ->
# trx_purge_truncate_history): it reads the header page of every rollback segment of each undo
# tablespace (256) and of ibtmp1 (128), whether the segment has logs to remove or not
# (trx_purge_truncate_rseg_history: trx_rsegf_get first), and only while the history list is not
# empty (srv_do_purge stops at 0: no passes for inserts, whose logs are freed at commit). In 9.x
# purge does not read the header to find the next log (trx_purge_rseg_get_next_history_log reads
# the undo pages only), so where the passes are modelled purge_refs reads no header. Measured on
# MySQL 9.7.4 (bench/capture_rw.py: INNODB_METRICS purge_invoked / purge_truncate_history_count
# = 128.7 .. 131.6 in six runs; ibtmp1 read 128 a pass at 16M: 2,944 for 23, 2,689 for 21).
TRUNCATE_BATCHES = {"mysql": 128}
# Purge's batches a second: the coordinator runs batches while it finds work and, idle, waits for a
# commit's wake-up or 10 ms; how many follows the server's own timing, which the model does not
# simulate. Measured on MySQL 9.7.4 (2026-11-29, 15 runs at 16M/48M: the captured oltp_read_write,
# ycsb-a, ycsb-b, sysbench-oltp-rw; batches = ibtmp1 reads / 128 x 128 at 16M, or purge_invoked):
# 58 .. 228 a second for 46 .. 501 write transactions a second r; min(IDLE x r, BASE + BUSY x r)
# (a few batches a commit while commits are rare, fewer as they crowd) is within -24% .. +31% of
# each run's (a pass a second, the median, was -46% .. +80%; a line through them -31% .. +37%,
# with twice the passes of a slow capture in CI).
PURGE_BATCHES_IDLE_PER_TXN = {"mysql": 1.15}
PURGE_BATCHES_BASE_PER_S = {"mysql": 92.0}
PURGE_BATCHES_BUSY_PER_TXN = {"mysql": 0.21}
# A captured transaction of several writes (BEGIN .. COMMIT; sysbench's oltp_read_write: 4 writes
# and 14 reads between two commits) is purged by batches a commit that do not fall with the rate:
# 1.25 .. 2.07 a commit in 16 captures of 2,000 transactions at 42 .. 174 a second (MySQL 9.7.4, 30
# November 2026, bench/capture_rw.py, purge_invoked 2,500 .. 4,139; 1.25-1.54 where other work
# loaded the machine, 1.52-2.07 where it was quieter; two updates a transaction: 1.40-1.62), up to
# 292 batches a second, where the rule above gives 109 .. 128 at 83 .. 174 commits a second: 13-16
# passes for the server's 25-32, the whole of what the model read too few at 16M (384 headers a
# pass: -8.9%, -13.8%, -13.7% with the rule above, -1.3%, +1.3%, +0.1% with each run's own count).
# 1.6 a commit (25 passes) puts the passes within -22% .. +32% of the server's (19-32) and the 16M
# total within -6.6% .. +4.2% (docs/capture.md). Autocommit writes (the mixes, one write a commit)
# keep the rule above; above the most measured (292 a second) more batches are not known.
PURGE_BATCHES_PER_MULTI_WRITE_TXN = {"mysql": 1.6}
PURGE_BATCHES_MAX_PER_S = {"mysql": 300.0}
# updates and deletes a transaction (of those with any) from which a trace's are multi-write ones:
# sysbench's 3 (2 updates, a delete; its insert's log is freed at commit); an application's
# single UPDATE in a BEGIN .. COMMIT, 1, keeps the rule above
MULTI_WRITE_TXN = 1.5
# Purge runs behind the writes by a lag the model cannot know (it follows the history list and
# the purge threads' batches); what matters is whether the pages it needs are still in the pool.
PURGE_LAG_OPS = 1_000
# MariaDB 10.11 and 11.8: each time the purge coordinator runs (the master thread wakes it every
# second while the history list holds a log) it does batches until the history is empty, each
# followed by trx_purge_truncate_history (purge_truncation_task; synchronous where the history
# empties), which walks every rollback segment (purge_sys_t::iterator::free_history) and so reads
# each one's header page (trx_rseg_t::get). Purge itself reads no header: since 10.11.6 it takes a
# segment's next log from memory (purge_sys_t::choose_next_log: rseg->last_page_no) and reads undo
# pages only. So a header is read by the writes (undo_refs: the log's assignment and the commit's
# history list) and by the walks. The model walks once a second and reads all 128 headers, the pool
# deciding which are still in it (purgewalks.sweeps_due); a log purge reaches before that walk
# (PURGE_HEADER_LAG_S after its write, below) has its header read then, by the walk after its batch
# (purgewalks.Sweeps.before_walk, purge_refs' header). Walks after every batch spread evenly (the
# run's purge_invoked) read 20-46% too many pages in each of docs/data/mariaall's 11.8 ycsb-f runs:
# a run's batches come back to back, and the headers the first walk read are still there for the
# next. At 99-125 q/s the server's walks read fewer headers than this (docs/workloads.md, "The
# rollback segments' headers: read by the walks"). MySQL truncates every
# innodb_purge_rseg_truncate_frequency (128) purge batches instead (TRUNCATE_BATCHES, above).
PURGE_SWEEP_S = {"mariadb": 1.0}
# MariaDB: how long after its write purge reaches a log, for Sweeps.before_walk (whether the walk
# after purge's batch reads the log's header, or the next once-a-second walk does). The coordinator
# is woken once a second, so a log waits for the next wake-up: half a second on the average, in
# time, not in operations. PURGE_LAG_OPS there (1,000 ops: 0.4 s at 2,500 q/s, 1 s at 1,000) gave
# the walks after purge's batches 60% of the logs at 2,500 q/s and none at 1,000, so the model's
# headers rose with the rate where the server's fall (fewer batches a run): 10.11's ycsb-f at 16M
# +7.5% on average from 2,000 q/s, -3.0% at 1,000-2,000. In time the share is the same at every
# rate: the rise goes, the server's fall is not made (docs/workloads-lab.md, "The error follows
# the rate"; 0.4 s and 0.3 s were also within 5% in every band).
PURGE_HEADER_LAG_S = 0.5


def header_lag_ops(walk_ops: float) -> float:
    """Ops from a log's write to purge's batch for Sweeps.before_walk (MariaDB's only: MySQL's walks
    follow its batches): PURGE_HEADER_LAG_S at the run's rate, from the once-a-second walks' spacing
    (walk_ops, sweep_ops_of); PURGE_LAG_OPS where there are no walks."""
    if not walk_ops:
        return float(PURGE_LAG_OPS)
    return PURGE_HEADER_LAG_S * walk_ops / PURGE_SWEEP_S["mariadb"]


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


def undo_refs(space: Space, txn: np.ndarray, rsegs_at_start: bool, plain: np.ndarray | None = None) -> Refs:
    """Each write transaction's undo page (its log appended) and, at commit, its rollback
    segment's header (the history list), both written. plain: the transactions whose log is
    freed at commit (MySQL's inserts: INSERT_HISTORY), which write their undo page only."""
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
    return refs


def purge_refs(space: Space, txn: np.ndarray, freed: bool = True, header: np.ndarray | None = None) -> Refs:
    """What purge reads for each transaction's undo log: its undo page (neither server's purge
    reads the segment's header to find a log: MySQL 9.x's trx_purge_rseg_get_next_history_log and
    MariaDB 10.11.6+'s purge_sys_t::choose_next_log read undo pages only; the header is read by the
    writes and the walks, PURGE_SWEEP_S, TRUNCATE_BATCHES), the segment's header where header says
    (MariaDB: the logs purge reaches before the next once-a-second walk, whose headers the walk
    after their batch reads: Sweeps.before_walk), and where the log was a segment's first on a new
    page, the tablespace header and inode page the previous page's freeing changes (fseg_free_step;
    freed False: not, MySQL's purge where its walks read the logs, whose truncation frees the
    segments: truncate_refs)."""
    hdr, undo, first_log = space.rseg_pages(txn)
    refs = Refs.block(undo[:, None], np.zeros((len(txn), 1), np.uint8))
    if header is not None and header.any():
        refs = append_refs(refs, header, hdr[:, None], np.zeros((len(txn), 1), np.uint8))
    if not freed:
        return refs
    fsp, inode = space.file_pages(txn)
    freed_at = first_log & (txn >= space.rollback_segments)
    return append_refs(refs, freed_at, np.stack([fsp, inode], axis=1), np.full((len(txn), 2), WRITE, np.uint8))


def sweep_ops_of(flavor: str, qps: float, txns_per_op: float = 0.0, writes_per_txn: float = 1.0) -> float:
    """Ops between two walks of every rollback segment's header by purge at the run's rate (qps
    ops a second, txns_per_op write transactions an op, writes_per_txn the updates and deletes in
    each that has any); 0: none. MariaDB: PURGE_SWEEP_S; MySQL: every TRUNCATE_BATCHES purge
    batches, PURGE_BATCHES_* of the write transactions a second (PURGE_BATCHES_PER_MULTI_WRITE_TXN
    where they hold several writes: a captured BEGIN .. COMMIT)."""
    if not qps or qps <= 0:
        return 0.0
    if flavor in TRUNCATE_BATCHES:
        if txns_per_op <= 0:
            return 0.0
        r = txns_per_op * qps
        if writes_per_txn >= MULTI_WRITE_TXN:
            batches_per_s = min(PURGE_BATCHES_PER_MULTI_WRITE_TXN[flavor] * r, PURGE_BATCHES_MAX_PER_S[flavor])
        else:
            batches_per_s = min(PURGE_BATCHES_IDLE_PER_TXN[flavor] * r,
                                PURGE_BATCHES_BASE_PER_S[flavor] + PURGE_BATCHES_BUSY_PER_TXN[flavor] * r)
        return TRUNCATE_BATCHES[flavor] * qps / batches_per_s
    every_s = PURGE_SWEEP_S.get(flavor)
    return float(every_s * qps) if every_s else 0.0


# MySQL's k-th walk of a run falls at about its (128 k)-th purge batch (srv_do_purge truncates every
# innodb_purge_rseg_truncate_frequency batches, counted from the server's start; a run begins just
# after the cold restart and its few batches). The walks counted were floor(batches / 128) in 35 of
# the 48 stored and new MySQL runs that record both (branch mysqlrw3: docs/data/mixruns, ycsbd,
# mysqlrw3); one more in three (18 for 2,303, 15 for 1,914, 7 for 893: a walk a few batches before
# the multiple) and in the ten insert-only ycsb-d/e runs (one walk at 117-126 batches; the model
# walks only where history was written). So measured_sweep_ops spaces the walks by the batches
# where the two agree to a walk. Spaced by the walks' count (ops / walks), the k-th fell at
# k x ops / walks: one walk fewer than the server's (the last on the run's last op), 384 pages short
# at 16M.
def measured_sweep_ops(run: dict, flavor: str, done: int) -> float | None:
    """Ops between purge's walks as the run's own server counted them (MySQL: INNODB_METRICS
    purge_truncate_history_count over the run, buffer_pool.flush.purge_truncations), in place of
    sweep_ops_of's fitted batch rate; None where the run did not record it, or for MariaDB (whose
    walks follow the clock, PURGE_SWEEP_S). A run that counted no walk while it wrote has none (0).
    Where the run counted its purge batches too (purge_invoked), a walk every TRUNCATE_BATCHES of
    them: the k-th at the run's (128 k)-th batch, as the server's were (the comment above)."""
    if flavor not in TRUNCATE_BATCHES or done <= 0:
        return None
    walks = run_counter(run, "purge_truncations")
    if walks is None:
        return None
    if not walks:
        return 0.0
    batches = run_counter(run, "purge_batches")
    if spaced_by_batches(walks, batches, flavor):
        return TRUNCATE_BATCHES[flavor] * done / batches
    return done / walks


def spaced_by_batches(walks: int, batches: int | None, flavor: str) -> bool:
    """Whether a run's walks follow its purge batches: it counted both, and they agree to a walk."""
    return bool(walks and batches) and abs(int(batches // TRUNCATE_BATCHES[flavor]) - walks) <= 1


# The walks' phase: srv_do_purge's count of batches is a static from the server's start (MySQL 9.x
# srv0srv.cc: do_truncate where ++count % innodb_purge_rseg_truncate_frequency == 0), and the run's
# counters (INNODB_METRICS, enabled just before it settles) miss the batches before: the restart's
# own and the settling's. Every restart leaves 4 logs in the history (history_len_before 4 in all
# the stored MySQL runs), so the master thread wakes purge each second (srv_master_do_idle_tasks /
# _active_tasks: rseg_history_len > 0) and a wake is a batch, with or without writes: an
# insert-only run (its logs freed at commit) walks at the 128th batch from the start too, and that
# walk empties the history, after which no batch comes (history_emptied_op). Its batches counted
# are then 128 - P exactly for P batches before the run: 2-3 in the 4 stored runs that settled
# 0.31-0.37 s, 7-11 in the 6 that settled 2.1-3.6 s (docs/data/mixruns, ycsbd): P = 1.95 + 2.31
# settle_s, residuals within 1.1 batches (WALK_PHASE_*: 2.0 + 2.3, rounded). Seven fresh ones
# (docs/data/ycsbdwalk, not used to fit it) are within 3.6 of it (P 7-11 at 1.0-3.7 s; the worst q5, 8 for 4.4): a walk
# interval is 128 batches, so the line places write runs' walks to ~3% of one. Those count the
# settling's own batches (cold_start.purge_batches_while_settling: 2-5); the restart's before them
# were 3-7, so that count predicts P no better (within 3, mean error 1.4 against the line's 1.4).
# A write run's walks fall at its batches 128 k - P.
WALK_PHASE_START_BATCHES = 2.0
WALK_PHASE_SETTLE_BATCHES_PER_S = 2.3


def walk_phase_batches(run: dict) -> float | None:
    """Purge batches the server made since its start before the run began (P above); None where
    the run did not begin from loadgen's cold restart (another server's count is unknown)."""
    cold = (run.get("server") or {}).get("cold_start") or {}
    settle_s = cold.get("settle_s")
    if cold.get("method") != "restart":
        return None
    if isinstance(settle_s, bool) or not isinstance(settle_s, (int, float)) or not 0 <= settle_s < 3600:
        return None
    return WALK_PHASE_START_BATCHES + WALK_PHASE_SETTLE_BATCHES_PER_S * float(settle_s)


def history_emptied_op(run: dict) -> float | None:
    """Where a run that wrote no history (inserts only: MySQL frees an insert's log at commit) saw
    the restart's logs leave the history list: the op midway between the two samples whose
    history_len went from 4 to 0; None where it did not, or where the run updated or deleted. Its
    one walk took them off (trx_purge_truncate_history), and no batch came after it (srv_do_purge
    stops at an empty history; the master thread wakes purge only while it is not): in the 17
    insert-only runs that walked (docs/data/ycsbd, mixruns, ycsbdwalk) the history emptied at
    12-94% of the run's ops, and the batches the run counted were 117-126 = 128 - P, its walk the
    last. So the batches, spread evenly, would put it at the run's end."""
    bp = run.get("buffer_pool") or {}
    if bp.get("rows_updated") or bp.get("rows_deleted") or not bp.get("history_len_before"):
        return None
    done = 0
    for sample in run.get("samples") or []:
        queries = sample.get("queries")
        if isinstance(queries, bool) or not isinstance(queries, int) or queries < 0:
            return None
        if sample.get("history_len") == 0:
            return done + queries / 2
        done += queries
    return None


def measured_walks(run: dict, flavor: str, done: int) -> tuple[float, float] | None:
    """(ops between two walks, the first walk's op) as the run's server made them: measured_sweep_ops'
    spacing, the first at the run's (128 - P)-th batch for P = walk_phase_batches, held where the
    walks counted say (between 128 w - batches and 128 (w + 1) - batches - 1 for w walks); the first a
    spacing in where P is unknown. None where measured_sweep_ops is; (0, 0): no walk."""
    every = measured_sweep_ops(run, flavor, done)
    if every is None or not every:
        return None if every is None else (0.0, 0.0)
    walks, batches = run_counter(run, "purge_truncations") or 0, run_counter(run, "purge_batches")
    emptied = history_emptied_op(run)
    if walks == 1 and emptied is not None:
        return every, min(emptied, done - 1.0)
    phase = walk_phase_batches(run)
    freq = TRUNCATE_BATCHES[flavor]
    if phase is None or not spaced_by_batches(walks, batches, flavor):
        return every, every
    phase = min(max(phase, freq * walks - batches), freq * (walks + 1) - batches - 1, freq - 1)
    return every, (freq - max(phase, 0.0)) * done / batches


def measured_purge_lag(run: dict, done: int) -> float | None:
    """Ops from a write to purge's work on it as the run's own server ran purge: done over INNODB_METRICS
    purge_invoked (buffer_pool.flush.purge_batches; each batch purges what was committed since the last:
    MySQL 253 a second in sysbench-oltp-rw at 16M; MariaDB 2-10, 65-408 ops apart at 136-3,626 q/s,
    docs/workloads-lab.md "Undo pages created again"); None where the run did not record it."""
    if done <= 0:
        return None
    batches = run_counter(run, "purge_batches")
    if not batches:
        return None
    return done / batches


def append_refs(refs: Refs, mask: np.ndarray, pages: np.ndarray, flags: np.ndarray) -> Refs:
    """refs (one op a row) with pages[i] (a row of references) after op i's own where mask[i]."""
    if not mask.any():
        return refs
    extra = pages.shape[1]
    widths = refs.widths + extra * mask
    total = int(widths.sum())
    out_p, out_f = np.zeros(total, np.uint32), np.zeros(total, np.uint8)
    # each op's own, then its row (mixpages.put: one C pass each; two boolean masks of the whole
    # output were ~8% of a captured trace's building)
    cursor = exclusive_cumsum(widths)
    put(out_p, out_f, cursor, refs)
    at = np.flatnonzero(mask)
    put(out_p, out_f, cursor, Refs(pages[at].ravel(), flags[at].ravel(), np.full(len(at), extra, np.int64)), at)
    return Refs(out_p, out_f, widths)


def rsegs_held(run: dict, space: Space) -> bool:
    """Whether the rollback segments' pages are in the pool as a run begins (undo_refs'
    rsegs_at_start). Not on a MySQL server that held fewer data pages before the run than they
    are (2 x 256 + 128): at 16M its restart left 128-507, and each segment's undo page was read at
    its first use too. ycsb-d at CI's size (1,036 inserts, 2026-11-30, branch ycsbd, 16 runs): at
    2,101-7,926 q/s the server read 965-1,040 undo pages, the model 740-780 with them held, whose
    frames then went to the table (+4 points); read at first use 987-1,036, the tables -4.1 .. +1.8%
    at 501-7,926 q/s. MariaDB (128 in ibdata1; 277-285 pages held at 16M) and larger pools as before."""
    before = (run.get("buffer_pool") or {}).get("pages_data_before")
    if (run.get("server") or {}).get("flavor") != "mysql" or not isinstance(before, int) or isinstance(before, bool):
        return True
    return before >= 2 * space.rollback_segments + space.temp_rsegs


def without_rseg_pages(pool, space: Space, held_at_start: bool = True):
    """The pool with the rollback segments' pages (read or created at start-up, first used with
    NEW: _undo_refs) taken out of its start-up pages, which counted them already; as it is where
    they were not held (rsegs_held)."""
    held = 2 * space.rollback_segments + space.temp_rsegs
    if not held or not pool.start_pages or not held_at_start:
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
               per_page: float, ibd_pages: tuple = ()) -> Space:
    """The page space of a run's first `done` ops that wrote in `txns` transactions (mixmodel's
    and tracemodel's alike): the tables, the rollback segments and their undo pages in turn (a
    segment's pages in use: the one it writes, the ones purge has yet to pass, PURGE_LAG_OPS
    behind, that many ops' transactions spread over the segments, and the one it just passed),
    MySQL's ibtmp1 rollback segments, the undo tablespaces."""
    rsegs = ROLLBACK_SEGMENTS.get(flavor, 128)
    behind = PURGE_LAG_OPS * txns / max(done, 1) / rsegs
    live = 2 + int(behind / per_page) if per_page else 1
    return Space.of(tables, inserts, order, rsegs, per_page, live, TEMP_RSEGS.get(flavor, 0),
                    UNDO_FILES.get(flavor, 1), INSERT_HISTORY.get(flavor, True), ibd_pages)


# Flavours whose own count (undo_txns_per_page) is held to the forecast's: MariaDB creates a freed
# undo page again in the frame that still holds it, uncounted by pages_created, so a run's logs per
# page are a ceiling, the higher the faster it ran (sysbench-oltp-rw, CI's size, 10.11: 3,260
# created at 781 q/s, 783-948 at 2,953-3,626, its table read 17,664-18,735 at every rate; uncapped
# -4.8% at 3,406 q/s). MySQL keeps a page until it fills. docs/workloads-lab.md, "Undo pages created again".
OWN_PER_PAGE_CAPPED = frozenset({"mariadb"})


def undo_txns_per_page(run: dict, space: Space, spec: mixspec.MixSpec, done: int) -> float | None:
    """A run's own undo logs per undo page: its write transactions over the pages it created
    (buffer_pool.flush.pages_created, INNODB_METRICS buffer_pages_created) less the leaves its
    inserts added (the model's grown leaves), at most the forecast's for OWN_PER_PAGE_CAPPED;
    None where the run did not record them."""
    created = run_counter(run, "pages_created")
    if created is None:
        return None
    undo = created - sum(t.grown for t in space.trees.values())
    txns = write_txns(spec, Generator(spec).counts_at(done))
    if txns <= 0:
        return None
    own = txns / max(undo, 1)
    flavor = (run.get("server") or {}).get("flavor") or "mariadb"
    return min(own, forecast_txns_per_undo_page(spec, flavor)) if flavor in OWN_PER_PAGE_CAPPED else own
