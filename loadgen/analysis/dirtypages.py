"""What MySQL does with dirty pages at the LRU tail, as the mix kernel takes it (native/lrusim/
cleaner.c; docs/mysql-lab.md, "Dirty pages at the LRU tail").

MySQL 8.0-9.x's user threads free a frame by looking for a clean page among the
BUF_LRU_SEARCH_SCAN_THRESHOLD (100) pages at the LRU tail (buf_LRU_free_from_common_LRU_list; a
dirty page is not ready for replace); when none is, they wake the page cleaner and write the
tail page themselves, and the woken batch comes at once: 1-3 batches a second where the tail is
dirty, not one. The page cleaner's LRU batch writes the dirty pages it meets and counts them in
the list until their writes end, so the list ends below BUF_LRU_MIN_LEN by those still being
written (the kernel's reading of the doublewrite buffer, DBLWR_PAGES: fitted, not measured).
Its flush-list batch cleans dirty pages without evicting them at a rate set by redo age and
innodb_io_capacity, which the model does not follow: a run's own rate is taken from it.
MariaDB (10.11, 11.8) frees frames in the page cleaner's batches, modelled apart (pool.py's
cleaner_batch): none of this applies to it.
"""
from __future__ import annotations

from .pool import RA_RULE_MYSQL

MYSQL_CLEAN_SCAN = 100  # BUF_LRU_SEARCH_SCAN_THRESHOLD (buf0lru.cc)


def run_counter(run: dict, name: str) -> int | None:
    """A counter the run recorded in buffer_pool.flush (sampler.FLUSH_METRICS' deltas), or None where
    it did not, or where the file holds no count there (a result file is the user's: never trusted)."""
    value = ((run.get("buffer_pool") or {}).get("flush") or {}).get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 2**63:
        return None
    return int(value)


def flush_list_rate(run: dict) -> float:
    """Pages a second the run's flush-list batches wrote (INNODB_METRICS buffer_flush_batch_total_
    pages over its seconds); 0.0 where it did not record them."""
    flushed = run_counter(run, "flush_list_flushed")
    seconds = (run.get("result") or {}).get("elapsed_s")
    if flushed is None or not isinstance(seconds, (int, float)) or not seconds > 0:
        return 0.0
    return max(0.0, float(flushed) / float(seconds))


# MySQL 8.4-9.x's innodb_io_capacity (8.0's was 200); the server's where it can be read
MYSQL_IO_CAPACITY = 10_000


def adaptive_args(pool) -> dict:
    """MixStream's keywords for a MySQL pool with no run to take the flush-list rate from (a captured
    trace): the dirty tail (kernel_args) and the flush-list batch MySQL's adaptive flushing sizes
    each second from the dirty pages and innodb_io_capacity (native/lrusim/cleaner.c adaptive_batch:
    for a restarted server's first 30 s nothing under 10% of the pool dirty, everything over it);
    none on MariaDB. Captured oltp_read_write at 16M (bench/capture_rw.py, 5 runs): the server's
    flush list wrote 53-58 pages a second, and the model without the dirty tail was -3.1 .. -14.0%."""
    clean_scan, _ = kernel_args(pool)
    if not clean_scan:
        return {}
    return {"clean_scan": clean_scan, "fl_io": int(pool.io_capacity or MYSQL_IO_CAPACITY)}


def run_args(pool, run: dict) -> tuple:
    """simulate's `dirty` for a mixed run: its own flush-list rate where it recorded the page
    cleaner's counters, else (a `--dsn` server whose monitors could not be enabled, a forecast) the
    adaptive batch (adaptive_args) with the server's innodb_io_capacity: a rate of 0 would leave
    every dirty page to the LRU tail, which the server's flush list does not (captured traces:
    docs/capture.md)."""
    if run_counter(run, "flush_list_flushed") is not None:
        return kernel_args(pool, flush_list_rate(run))
    clean_scan, _ = kernel_args(pool)
    if not clean_scan:
        return (0, 0)
    io = int(float(((run.get("server") or {}).get("variables") or {}).get("innodb_io_capacity") or 0))
    return (clean_scan, 0, io or MYSQL_IO_CAPACITY)


def kernel_args(pool, flush_list_pages_s: float = 0.0) -> tuple[int, int]:
    """lrusim_mix's (clean_scan, fl_batch) for pool (pool.PoolModel): MySQL's rules, none on MariaDB."""
    if pool.ra_rule != RA_RULE_MYSQL:
        return (0, 0)
    return (MYSQL_CLEAN_SCAN, round(flush_list_pages_s))
