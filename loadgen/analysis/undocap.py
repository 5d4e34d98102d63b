"""The undo pages a mixed run's server read back, held to the ones it wrote (issue #21: MariaDB's
whole-pool reads on the write presets; docs/workloads-lab.md, "Undo pages read back are pages written").
mixmodel.predict takes the model's undo reads over the cap off its system pages' reads, after the
simulation: the frames those reads held stay charged to the tables. Simulating again without them
(branches rwbias4/5's `settle`) took 0.4-2.3 points off ycsb-a/f's 16M bands, where the model's reads
over the cap are mostly of undo pages the server never wrote out, so held in its pool; the frames
were the server's too (docs/workloads-lab.md, "The over-cap read-backs' frames in ycsb"; docs/workloads-lab.md,
"The header rule and the undo cap, without a second simulation")."""
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
# What a run reads back follows the logs purge went through (purge_undo_log_pages: one page handled a
# log in these presets) more than the page writes: a log is read back about once (the connection
# appending the next log to its page, or purge), and a page's
# writes beyond one a log (the LRU batch writes a page a later log or purge dirties again while it
# is still in the list: "Dirty pages an LRU batch writes stay in the list") are read back about
# half the time. Across the stored MariaDB 16M ycsb-a, ycsb-f and sysbench-oltp-rw runs from 350 q/s
# (229, 10.11 and 11.8, 20,000 and 100,000 operations) the read-back share falls with the writes a
# log (undo_pages_written / purge_undo_pages, r -0.74; the preset alone explains less, r -0.36), and
# least squares on reads = a x logs + b x (writes - logs) gives a 1.005, b 0.573 (10.11: 1.03 / 0.52,
# 11.8: 1.03 / 0.45). The two bounds meet at 1.3 writes a log: ycsb writes 1.2-1.4 (the bound by
# the logs is 0.89 of the writes at 1.35, against 0.9), sysbench-oltp-rw's faster runs 1.6-1.8, the
# bound 0.81-0.78 of the writes, which is what they read back (10.11 0.78-0.82, 11.8 0.70-0.77:
# 11.8's lower share is not in these counters). Why its pages are written again more was not
# traced (docs/workloads-lab.md, "Undo pages read back follow the logs purged").
UNDO_READS_PER_LOG = 1.0
UNDO_READS_PER_REWRITE = 0.57


def undo_reads_cap(run: dict, flavor: str) -> int | None:
    """The most undo pages the model may read for `run`: UNDO_READ_SHARE of its server's undo pages
    written (buffer_pool.flush.undo_pages_written, INNODB_METRICS buffer_page_written_undo_log), and
    where the run counted the logs purge went through (purge_undo_pages, purge_undo_log_pages) no
    more than UNDO_READS_PER_LOG of those plus UNDO_READS_PER_REWRITE of the writes beyond them;
    None where the run did not record its writes or for a flavour not in UNDO_READS_CAPPED."""
    if flavor not in UNDO_READS_CAPPED:
        return None
    written = run_counter(run, "undo_pages_written")
    if written is None:
        return None
    cap = int(written * UNDO_READ_SHARE)
    logs = run_counter(run, "purge_undo_pages")
    if logs:
        cap = min(cap, int(logs * UNDO_READS_PER_LOG + max(0, written - logs) * UNDO_READS_PER_REWRITE))
    return cap


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
