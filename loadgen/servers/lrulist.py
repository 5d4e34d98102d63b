"""How many data pages a server's LRU list holds: the pool's frames less the free pages its page
cleaner keeps (fitted to MariaDB 10.11 and MySQL 9.7, docs/innodb.md, "The page cleaner").

A fact about the server, read below the model: the runner's "the table fits" warning, the
cold-start check (measure/coldstart.py) and the model's pool (analysis/pool.py) all take it from
here, so the three cannot disagree.

MariaDB's page cleaner evicts from the LRU tail when the free list falls below
innodb_lru_scan_depth/2 and refills it to innodb_lru_scan_depth, so the free list swings between
the two: on average 0.75 * scan depth (sampled every 0.2 s at 32M and the default 1536: free
800..1550, data pages 480..1220). Held to measurements: 100 -> 3990 of 4056 data pages, 8044 of
8112, 16165 of 16224 (lab); 1536 at 32M -> looped 2,710..2,715 reads (native driver, 6 runs), which
0.75 predicts within 1.5% and the earlier fit 0.87 missed by 5.7%. When the reserve exceeds the
pool, 143..252 data pages stayed resident (8M and 16M at 1536). MySQL 8.0-9.x keeps no standing
free reserve (the lab's data + free = pages_total).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import native

# innodb_lru_scan_depth's default per flavour (MariaDB 10.11, MySQL 8.0-9.x)
LRU_SCAN_DEPTH_DEFAULT = {"mariadb": 1536, "mysql": 1024}
RESERVE_PER_SCAN_DEPTH = 0.75
# MariaDB, pool - scan depth <= BUF_LRU_MIN_LEN: the LRU list swings between these (fitted)
SMALL_POOL_HIGH_PAGES, SMALL_POOL_LOW_PAGES = 256, 32
MIN_CAPACITY_PAGES = 192
# BUF_LRU_MIN_LEN: the page cleaner's LRU batch leaves at least this many pages (read from the
# kernel, native/lrusim/, so that it cannot drift from it)
LRU_MIN_LEN = native.lrusim_constants().lru_min_len


@dataclass(frozen=True)
class LruList:
    """The LRU list a pool keeps: its mean length and the page cleaner's batch around it."""

    pages: int  # data pages held (the pool minus the page cleaner's free reserve)
    batch: int  # pages the cleaner frees at once when the list is full (0: one per read)

    @property
    def high(self) -> int:
        """The longest the list grows: where the page cleaner frees its batch."""
        return self.pages + self.batch // 2


def scan_depth_of(variables: dict | None, flavor: str = "mariadb") -> int:
    """innodb_lru_scan_depth as the server has it (variables), else the flavour's default."""
    given = (variables or {}).get("innodb_lru_scan_depth")
    return int(LRU_SCAN_DEPTH_DEFAULT["mysql" if flavor == "mysql" else "mariadb"] if given in (None, "")
               else given)


def capacity_pages(total_pages: int, lru_scan_depth: int) -> int:
    """Data pages the pool holds: the page cleaner keeps most of lru_scan_depth pages free."""
    reserve = round(RESERVE_PER_SCAN_DEPTH * lru_scan_depth)
    return max(min(total_pages, MIN_CAPACITY_PAGES), total_pages - reserve)


def lru_list(total_pages: int, lru_scan_depth: int, flavor: str = "mariadb") -> LruList:
    """The LRU list of a pool of total_pages frames (Innodb_buffer_pool_pages_total)."""
    if flavor == "mysql":
        return LruList(total_pages, 0)
    if total_pages - lru_scan_depth <= LRU_MIN_LEN:
        # The free target is out of reach: the page cleaner, woken whenever fewer than depth/2
        # frames are free, keeps the LRU list at BUF_LRU_MIN_LEN or under; sampled every 0.2 s at
        # 8M and 16M with the default 1536 it swung between 28 and 255 pages. The model lets it
        # grow to 256 and empties it to SMALL_POOL_LOW_PAGES (fitted on zipfian, hotspot and a
        # trace at 8M/16M: docs/innodb.md, "The page cleaner").
        batch = SMALL_POOL_HIGH_PAGES - SMALL_POOL_LOW_PAGES + 1
        return LruList(SMALL_POOL_HIGH_PAGES - batch // 2, batch)
    # MariaDB's page cleaner keeps the free list between depth/2 and depth: batches of depth/2.
    return LruList(capacity_pages(total_pages, lru_scan_depth), lru_scan_depth // 2)
