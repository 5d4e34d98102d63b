"""A B-tree's height: measured on the server as the page gets of a warm point select (the
adaptive hash index is off), and the bounds a measurement must fall within to be believed."""
from __future__ import annotations

from .. import db

# Children per internal page of a primary key: ~1,000 for a BIGINT key in a full 16 KiB page;
# the bounds leave room for half-full pages and wider keys.
FANOUT_RANGE = (30, 1200)
MAX_HEIGHT = 15  # deeper than any real InnoDB B-tree; the simulator's limit too
HEIGHT_SAMPLES = 50


def height_bounds(leaf_pages: int, rows: int) -> tuple[int, int]:
    """The B-tree heights possible for this many leaf pages (as the index statistics count them,
    which can be stale for a small table) and rows (each leaf holds at least one). Lenient by
    design: it catches other clients' page gets counted in (a height of 75 for 3), not noise."""
    def height(pages: int, fanout: int) -> int:
        pages, levels = max(1, pages), 1
        while pages > 1:
            pages, levels = -(-pages // fanout), levels + 1
        return levels

    lo = max(1, height(leaf_pages, FANOUT_RANGE[1]) - 1)
    hi = min(MAX_HEIGHT, height(max(leaf_pages, rows), FANOUT_RANGE[0]))
    return lo, max(lo, hi)


def plausible_height(height: int, leaf_pages: int, rows: int) -> bool:
    lo, hi = height_bounds(leaf_pages, rows)
    return lo <= height <= hi


def read_requests(cur) -> int:
    """Innodb_buffer_pool_read_requests: the page gets so far."""
    cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'")
    return int(cur.fetchone()[1])


def measure_id_height(conn, database: str, table: str, rows: int, samples: int = 50) -> int:
    """Height of chat.message's primary key (ids 1..rows) = page gets per warm point select.

    The ids are touched once to warm them, then selected again between two reads of
    Innodb_buffer_pool_read_requests; background threads add a few gets, so round down.
    """
    step = max(1, rows // samples)
    ids = list(range(1, rows + 1, step))[:samples]
    cur = conn.cursor()
    sql = f"SELECT alias FROM `{database}`.`{table}` WHERE id = %s"
    for i in ids:
        cur.execute(sql, (i,))
        cur.fetchall()
    before = read_requests(cur)
    for i in ids:
        cur.execute(sql, (i,))
        cur.fetchall()
    after = read_requests(cur)
    cur.close()
    return max(1, int((after - before) / len(ids) + 0.2))


def least_gets_per_select(conn, sql: str, params: list) -> int:
    """Page gets per warm select of `sql` over `params`, the least of three rounds (background
    threads, purge and statistics after a load, only add gets), rounded down: an index's height
    when each select descends it once to one leaf."""
    cur = conn.cursor()
    try:
        for p in params:  # warm
            cur.execute(sql, p)
            cur.fetchall()
        rounds = []
        for _ in range(3):
            before = read_requests(cur)
            for p in params:
                cur.execute(sql, p)
                cur.fetchall()
            rounds.append((read_requests(cur) - before) / len(params))
    finally:
        cur.close()
    return max(1, int(min(rounds) + 0.2))


def measure_height(conn, database: str, table: str, primary_key: list[str]) -> int:
    """B-tree height of the clustered index = page gets per warm point select on the full key
    (the adaptive hash index is off). Every leaf is at the same depth, so the first keys serve."""
    cols = ", ".join(f"`{c}`" for c in primary_key)
    keys = db.query_all(conn, f"SELECT {cols} FROM `{database}`.`{table}` ORDER BY {cols} LIMIT {HEIGHT_SAMPLES}")
    if not keys:
        return 1
    where = " AND ".join(f"`{c}` = %s" for c in primary_key)
    return least_gets_per_select(conn, f"SELECT 1 FROM `{database}`.`{table}` WHERE {where}", keys)


def secondary_height(conn, database: str, table: str, index: str, cols: list[str]) -> int | None:
    """Page gets of a covering lookup of one existing value through the index (LIMIT 1: one
    leaf), the least of three rounds over HEIGHT_SAMPLES values: the index's height."""
    if not cols:
        return None
    col = cols[0]
    try:
        values = [r[0] for r in db.query_all(conn, f"SELECT `{col}` FROM `{database}`.`{table}` "
                                                   f"WHERE `{col}` IS NOT NULL LIMIT {HEIGHT_SAMPLES}")]
        if not values:
            return None
        sql = f"SELECT `{col}` FROM `{database}`.`{table}` FORCE INDEX (`{index}`) WHERE `{col}` = %s LIMIT 1"
        return least_gets_per_select(conn, sql, [(v,) for v in values])
    except Exception:  # noqa: BLE001 - optional: the model can estimate it from the pages
        return None
