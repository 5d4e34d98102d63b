"""MariaDB 10.11's purge as the server runs it (issue #21; docs/workloads.md, "Purge's batches"):
once a second the coordinator purges the whole history in batches of innodb_purge_batch_size (127)
undo pages; each page a batch reads stays buffer-fixed until the batch ends
(purge_sys_t::get_page: buf_pool.page_fix, unfixed in batch_cleanup), so the page cleaner passes it
over and evicts other pages instead, and the next batch finds it still resident.

An experiment of branch mariaundo3 (PURGE_BATCHES off: not the model's rule unless it improves
the measured error): a log's undo page and segment header are read at its purge run (the first
second's mark after it), the page fixed (native MIX_FIX) until its batch's end, BATCH_MS later
(native MIX_UNFIX), the next batch read then.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .mixpages import FIX, UNFIX, WRITE, Refs, Space
from .dirtypages import run_counter
from .undomodel import append_refs

PURGE_BATCHES = False
BATCH_LOGS = 127  # innodb_purge_batch_size: undo pages a batch; about one log each (a log a segment)
BATCH_MS = 10.0
BATCH_SHARE = 0.0  # else a batch spans this share of the time between two (0: BATCH_MS)
FROM_RUN = True  # batches as often as the run's server ran them (purge_invoked), else once a second


def batch_every(run: dict, flavor: str, done: int) -> float:
    """Ops between two purge batches as a MariaDB run's server counted them (INNODB_METRICS
    purge_invoked: buffer_pool.flush.purge_batches); 0.0: not recorded, or not MariaDB."""
    batches = run_counter(run, "purge_batches")
    if flavor != "mariadb" or not FROM_RUN or not batches or done <= 0:
        return 0.0
    return done / batches  # one batch's span: a run of ~6 batches takes 20-100 ms (sampled every 20 ms)


@dataclasses.dataclass
class PurgeRuns:
    """Where each log's purge batch falls: runs every `every` ops (int(k * every), as the walks),
    batches `gap` ops apart inside a run; run_k/run_n: the run the last log went to and its logs so far."""

    every: float
    gap: int
    run_k: int = 0
    run_n: int = 0
    logs: list = dataclasses.field(default_factory=list)  # (ops, txns) of this chunk's logs

    def add(self, ops: np.ndarray, txn: np.ndarray) -> None:
        self.logs.append((ops, txn))

    @classmethod
    def of(cls, every: float, second: float) -> PurgeRuns | None:
        """every: ops between two runs; second: a second's ops (the run's rate); None: no batches."""
        if not PURGE_BATCHES or not every or not second:
            return None
        span = every * BATCH_SHARE if BATCH_SHARE else second * BATCH_MS / 1000.0
        return cls(float(every), max(1, round(span)))

    def batches(self, space: Space) -> list[tuple[np.ndarray, Refs]]:
        """Purge's reads of the chunk's logs (add: their writes' ops and transactions) as pending items (due op per log, refs): the unfix of each batch first, then each log's header
        and undo page (fixed), and where it was a segment's first log on a new page, the tablespace
        header and inode page."""
        if not self.logs:
            return []
        ops, txn = (np.concatenate(x).astype(np.int64) for x in zip(*self.logs))
        self.logs = []
        by = np.lexsort((txn, ops))
        ops, txn = ops[by], txn[by]
        k = np.floor(ops / self.every).astype(np.int64) + 1
        k = np.maximum(k, 1)
        k += (k * self.every).astype(np.int64) <= ops
        starts = np.r_[0, np.nonzero(np.diff(k))[0] + 1]
        lengths = np.diff(np.r_[starts, len(ops)])
        rank = np.arange(len(ops)) - np.repeat(starts, lengths)
        rank += np.where(k == self.run_k, self.run_n, 0)
        last = k[-1]
        self.run_n = int(rank[-1]) + 1
        self.run_k = int(last)
        at = (k * self.every).astype(np.int64) + (rank // BATCH_LOGS) * self.gap
        hdr, undo, first_log = space.rseg_pages(txn)
        read = Refs.block(np.stack([hdr, undo], axis=1), np.tile(np.array([0, FIX], np.uint8), (len(txn), 1)))
        fsp, inode = space.file_pages(txn)
        freed = first_log & (txn >= space.rollback_segments)
        read = append_refs(read, freed, np.stack([fsp, inode], axis=1), np.full((len(txn), 2), WRITE, np.uint8))
        unfix = Refs.block(undo[:, None], np.full((len(txn), 1), UNFIX, np.uint8))
        return [(at + self.gap, unfix), (at, read)]


PIN_MS = 0.0  # experiment: purge's read of a log's undo page (at PURGE_LAG_OPS) fixed this long


def pinned(space: Space, txn: np.ndarray, refs: Refs) -> tuple[Refs, Refs]:
    """purge_refs' refs (header, undo page, ...) with each undo page fixed, and the unfix refs."""
    _, undo, _ = space.rseg_pages(txn)
    flags = refs.flags.copy()
    starts = np.cumsum(refs.widths) - refs.widths
    flags[starts + 1] |= FIX
    return Refs(refs.pages, flags, refs.widths), Refs.block(undo[:, None], np.full((len(txn), 1), UNFIX, np.uint8))

WALK_PER_BATCH = False  # experiment: MariaDB's truncation walk after every batch the run counted
