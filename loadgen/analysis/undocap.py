"""The undo pages a mixed run's server read back, held to the ones it wrote (issue #21: MariaDB's
whole-pool reads on the write presets; docs/workloads-lab.md, "Undo pages read back are pages written").
mixmodel.predict takes the model's undo reads over the cap off its system pages' reads."""
from __future__ import annotations

import numpy as np

from .dirtypages import run_counter
from .mixpages import Space

# MariaDB: an undo page is read from disk only if it was written there first (created in the pool,
# dirtied by every log appended to it, written when the page cleaner evicts it dirty or a
# flush-list batch takes it; one purge freed before it went out is never written nor read). The
# model's undo reads follow its own pool, whose pressure it gets right for the tables but not which
# undo pages the server's purge freed before eviction: at CI's size (50k rows, 20,000 ops, 16M) the
# model read 2.5-58% more undo pages than MariaDB 11.8 did, and the pool's whole reads were off by
# -7.1 .. +15.7%, -0.99 correlated with the run's buffer_page_written_undo_log per op. The server's
# undo reads were 0.78-0.99 of its undo writes in the 76 stored MariaDB ycsb-a/ycsb-f runs at 16M (10.11, 11.8,
# 188-4,797 q/s), so a run's own written count bounds the model's undo reads (UNDO_READS_CAPPED:
# the flavours where that was measured; docs/workloads-lab.md, "Undo pages read back are pages written").
UNDO_READS_CAPPED = frozenset({"mariadb"})
# The cap is the share of the written pages the servers read back, not all of them: a page written
# while purge still needed it (the LRU batch writes a dirty page and leaves it in the list) is
# freed by purge without a read. The median of the stored 16M ycsb-a/ycsb-f runs from 350 q/s
# (2026-11-30, bench/rate_bands.py's runs): 10.11 0.89 (ycsb-a, 30 runs) and 0.90 (ycsb-f, 30),
# 11.8 0.90 and 0.89; at 1.0 the model read 1,000-1,700 undo pages a run more than the server
# in every rate band (docs/workloads-lab.md, "The error follows the rate").
UNDO_READ_SHARE = 0.9


def undo_reads_cap(run: dict, flavor: str) -> int | None:
    """The most undo pages the model may read for `run`: UNDO_READ_SHARE of its server's undo pages
    written (buffer_pool.flush.undo_pages_written, INNODB_METRICS buffer_page_written_undo_log);
    None where the run did not record it or for a flavour not in UNDO_READS_CAPPED."""
    if flavor not in UNDO_READS_CAPPED:
        return None
    written = run_counter(run, "undo_pages_written")
    return None if written is None else int(written * UNDO_READ_SHARE)


def undo_reads(reads: np.ndarray, space: Space) -> int:
    """The undo pages' reads in a simulation's per-page reads (Space: undo_base .. temp_base)."""
    if not space.rollback_segments:
        return 0
    return int(reads[space.undo_base:space.temp_base].sum(dtype=np.uint64))


def over_cap(reads: bytes, space: Space, cap: int | None) -> int:
    """The undo reads of a simulation's per-page reads (the kernel's uint32 buffer) above `cap`:
    what mixmodel.predict takes off its system pages' reads; 0 without a cap."""
    if cap is None:
        return 0
    return max(0, undo_reads(np.frombuffer(reads, dtype=np.uint32), space) - cap)
