"""Whether a run starts cold, decided from what the pool holds right before its first query.

The start method (a restart, a resize) only claims a cold pool; runner.measure asks verify_cold,
which reads the table's own pages in the pool where it can, else the pool's data pages against
what a freshly started server holds, and says so when neither can tell (issue #18).
"""
from __future__ import annotations

from ..servers import ColdStart
from ..servers.lrulist import lru_list, scan_depth_of

# Data pages a server holds right after it starts, before any query (docs/mysql-lab.md, "Start-up
# pages"): MySQL 9.7 955-976 (system tablespace, dictionary, undo), MariaDB 10.11 277. The fallback
# test of a cold pool where the table's own pages cannot be read (no PROCESS privilege).
STARTUP_PAGES_DATA = {"mysql": 1200, "mariadb": 450}
# Pages of the table a cold server holds right before the first query: the root read when the
# driver prepares its statement, and on a server loadgen does not own the two descents that read
# the table's key range (MIN/MAX) after a restart: at most 2 x height + 2, and never fewer than this.
COLD_TABLE_PAGES_MAX = 4


# What lets a user without PROCESS have the start verified (INNODB_BUFFER_PAGE_LRU needs it).
PROCESS_FIX = "GRANT PROCESS ON *.* to the --dsn user (loadgen then counts the table's own pages in the pool)"


def cold_table_pages_max(height: int) -> int:
    return max(COLD_TABLE_PAGES_MAX, 2 * height + 2)


def most_data_pages(status: dict, variables: dict, flavor_name: str) -> int | None:
    """The most data pages this pool ever holds: every frame on MySQL, on MariaDB what its page
    cleaner lets the LRU list reach (256 pages at 8M and 16M, servers/lrulist.py)."""
    total = status.get("pages_total")
    if not total:
        return None
    try:
        return lru_list(total, scan_depth_of(variables, flavor_name), flavor_name).high
    except (TypeError, ValueError):  # a variable the server reports oddly: judged as before, never lost
        return None


def verify_cold(cold: ColdStart, status: dict, flavor_name: str, table_pages: dict[str, int] | None = None,
                height: int = 1, most_data_pages: int | None = None) -> dict:
    """Decide from the pool's contents right before the first query whether the run starts cold;
    the start method's claim (cold.cold) is never taken for it.

    table_pages: {index: pages} of the indexes the run reads in the pool (tablestats.resident_pages),
    or None when they could not be read: then a pool holding no more data pages than a freshly
    started server counts as cold (e.g. a --dsn MySQL right after its restart, whose one-chunk pool
    no resize can empty).

    most_data_pages: the most data pages the pool can hold (_most_data_pages). When that is no
    more than a freshly started server holds, pages_data cannot tell a warm pool from a cold one
    (a SELECT-only user at 8M was always told "cold"): then `cold` is None, not verified, and the
    note says so (issue #18).

    Returns the cold_start fields to record: pages_data/pages_free/pages_total before the run, the
    table's pages in the pool, `cold` (None: cannot be judged), `verified` and `verified_by` (what
    decided it: table_pages or pages_data) and, when warm or unjudged, `note` and `fix` (what makes
    the next start cold, or verifiable).
    """
    data = status.get("pages_data")
    allowance = STARTUP_PAGES_DATA.get(flavor_name, STARTUP_PAGES_DATA["mysql"])
    resident = sum(table_pages.values()) if table_pages is not None else None
    most = cold_table_pages_max(height)
    out = {"pages_data_before": data, "pages_free_before": status.get("pages_free"),
           "pages_total_before": status.get("pages_total"), "startup_pages_data_max": allowance,
           "table_pages_before": resident, "table_pages_cold_max": most}
    claim = cold.note or cold.method
    fix = cold.fix or ("remove any --set that loads the pool at start-up (innodb_buffer_pool_load_at_startup)"
                       if cold.method == "restart" else "")
    if resident is not None:
        out.update(verified=True, verified_by="table_pages")
        if resident <= most:
            out["cold"] = True
            if not cold.cold:
                out["note"] = (f"{claim}; but the pool holds {resident} of the table's pages (as a freshly "
                               "started server does): it starts cold")
        else:
            out.update(cold=False, note=f"{claim}; but the pool holds {resident:,} of the table's pages before "
                                        "the run: it starts warm", fix=fix)
    elif data is None:
        out.update(cold=False, verified=False, verified_by=None,
                   note=f"{claim}; neither the table's pages in the pool nor "
                        "pages_data could be read: not verified", fix=fix)
    elif most_data_pages is not None and most_data_pages <= allowance:
        out.update(cold=None, verified=False, verified_by=None, most_data_pages=most_data_pages,
                   note=f"whether the run starts cold cannot be judged: the table's pages in the pool could not be "
                        f"read, and this pool holds at most {most_data_pages:,} data pages, no more than a freshly "
                        f"started {flavor_name} ({allowance:,}), so its {data:,} say nothing",
                   fix=PROCESS_FIX)
    elif data > allowance:
        out.update(cold=False, verified=True, verified_by="pages_data",
                   note=f"{claim}; but the pool holds {data:,} data pages before the run, more than the "
                        f"{allowance:,} a freshly started {flavor_name} holds: it starts warm", fix=fix)
    else:
        out.update(cold=True, verified=True, verified_by="pages_data")
        if not cold.cold:
            out["note"] = (f"{claim}; but the pool holds {data:,} data pages, no more than a freshly started "
                           f"{flavor_name} ({allowance:,}): it starts cold")
    return out
