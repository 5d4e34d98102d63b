"""A B-tree's height: measured on the server as the page gets of a warm point select (the
adaptive hash index is off), and the bounds a measurement must fall within to be believed."""
from __future__ import annotations

import time

from .. import db
from ..errors import SeedError

# Children per internal page of a primary key: ~1,000 for a BIGINT key in a full 16 KiB page;
# the bounds leave room for half-full pages and wider keys.
FANOUT_RANGE = (30, 1200)
MAX_HEIGHT = 15  # deeper than any real InnoDB B-tree; the simulator's limit too
HEIGHT_SAMPLES = 50


def _q(name) -> str:
    """An identifier quoted for SQL text: names come from workload files and from the server's own
    catalogue (an existing table's index may be named with a backtick)."""
    return "`" + str(name).replace("`", "``") + "`"


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

    Spread ids are touched once to warm them, then selected again in rounds between two reads of
    Innodb_buffer_pool_read_requests. Background work only adds gets (after a seed the statistics
    recalculation dives into the same tree: a CI run once read 3.8 gets per select and cached a
    height of 4 for a 3-level tree), so take the least of four rounds, a pause apart."""
    step = max(1, rows // samples)
    ids = [(i,) for i in range(1, rows + 1, step)][:samples]
    return least_gets_per_select(conn, f"SELECT alias FROM {_q(database)}.{_q(table)} WHERE id = %s", ids,
                                 rounds=4, pause_s=0.2)


def least_gets_per_select(conn, sql: str, params: list, rounds: int = 3, pause_s: float = 0.0) -> int:
    """Page gets per warm select of `sql` over `params`, the least of `rounds` rounds (background
    threads, purge and statistics after a load, only add gets), rounded down: an index's height
    when each select descends it once to one leaf. Every round is taken: a whole number of gets a
    select is no sign of a quiet round (a busy MySQL gave 37 for a 3-level tree)."""
    cur = conn.cursor()
    least = float("inf")
    try:
        for p in params:  # warm
            cur.execute(sql, p)
            cur.fetchall()
        for round_no in range(rounds):
            if round_no and pause_s:
                time.sleep(pause_s)  # let a burst of background page gets pass
            before = read_requests(cur)
            for p in params:
                cur.execute(sql, p)
                cur.fetchall()
            least = min(least, (read_requests(cur) - before) / len(params))
    finally:
        cur.close()
    return max(1, int(least + 0.2))


def measure_height(conn, database: str, table: str, primary_key: list[str], leaf_pages: int | None = None,
                   rows: int | None = None, attempts: int = 4) -> int:
    """B-tree height of the clustered index = page gets per warm point select on the full key
    (the adaptive hash index is off). Every leaf is at the same depth, so the first keys serve.
    Given the leaf pages and rows, believed_height's checks (a CI run under load recorded 37 for
    sbtest1's 3 levels)."""
    cols = ", ".join(_q(c) for c in primary_key)
    keys = db.query_all(conn, f"SELECT {cols} FROM {_q(database)}.{_q(table)} ORDER BY {cols} LIMIT {HEIGHT_SAMPLES}")
    if not keys:
        return 1
    where = " AND ".join(f"{_q(c)} = %s" for c in primary_key)
    sql = f"SELECT 1 FROM {_q(database)}.{_q(table)} WHERE {where}"
    if leaf_pages is None or rows is None:
        return min(least_gets_per_select(conn, sql, keys), MAX_HEIGHT)
    return believed_height(lambda: least_gets_per_select(conn, sql, keys, pause_s=0.2), leaf_pages, rows,
                           f"{_q(database)}.{_q(table)}", attempts)


def believed_height(measure, leaf_pages: int, rows: int, what: str, attempts: int = 4) -> int:
    """measure() again after a growing pause while its height is outside height_bounds (other
    clients' page gets counted in: once cached, a wrong height spoils every later prediction, and
    37 killed the simulator); a SeedError when it stays out. Background work (purge, statistics)
    only adds gets, so a later try can only come out lower."""
    height = 0
    for attempt in range(attempts):
        if attempt:
            time.sleep(0.25 * attempt)  # let a burst of background page gets pass
        height = measure()
        if plausible_height(height, leaf_pages, rows):
            return height
    lo, hi = height_bounds(leaf_pages, rows)
    raise SeedError(f"measured a B-tree height of {height} for {what} ({rows:,} rows in {leaf_pages:,} leaf "
                    f"pages; expected {lo}..{hi})",
                    "another client is probably busy on this server; re-run when it is idle")


def secondary_height(conn, database: str, table: str, index: str, cols: list[str],
                     primary_height: int | None = None) -> tuple[int | None, str | None]:
    """A secondary index's height and how it was measured, over HEIGHT_SAMPLES existing values
    (least_gets_per_select's rounds). MariaDB (given the primary key's height): the page gets of
    `HANDLER ... READ index = (v) LIMIT 1` less the primary key's height ("handler": the index's
    descent, then the row's clustered lookup, no optimiser), as MariaDB's covering SELECT costs 2
    gets more than the index has (sbtest1's k_1: 4 for its 2 levels, HANDLER 5 = 2 + the primary
    key's 3; the optimiser's, most likely its range estimate for the `ref` key). Else a covering
    lookup's (`SELECT col ... FORCE INDEX ... LIMIT 1`, "select"), which MySQL descends once. (None,
    None): not measured (the model estimates it from the pages)."""
    if not cols:
        return None, None
    col = cols[0]
    try:
        values = [r[0] for r in db.query_all(conn, f"SELECT {_q(col)} FROM {_q(database)}.{_q(table)} "
                                                   f"WHERE {_q(col)} IS NOT NULL LIMIT {HEIGHT_SAMPLES}")]
        if not values:
            return None, None
        if primary_height and db.server_flavor(conn).name == "mariadb":
            got = handler_gets(conn, database, table, index, values)
            if got is not None and got > primary_height:
                return _believed(got - primary_height, primary_height), "handler"
        sql = f"SELECT {_q(col)} FROM {_q(database)}.{_q(table)} FORCE INDEX ({_q(index)}) WHERE {_q(col)} = %s LIMIT 1"
        height = _believed(least_gets_per_select(conn, sql, [(v,) for v in values]), primary_height)
        return height, "select" if height else None
    except Exception:  # noqa: BLE001 - optional: the model can estimate it from the pages
        return None, None


def _believed(height: int, primary_height: int | None) -> int | None:
    """A secondary index's measured height, or None (the model estimates it from the pages) where
    other clients' gets made it more than the primary key's plus one (a secondary entry is never
    wider than the row) or more than any B-tree has."""
    limit = MAX_HEIGHT if primary_height is None else min(MAX_HEIGHT, primary_height + 1)
    return height if 1 <= height <= limit else None


def handler_gets(conn, database: str, table: str, index: str, values: list) -> int | None:
    """Page gets per warm `HANDLER ... READ index = (v) LIMIT 1` (the index's descent and the row's
    clustered lookup; least_gets_per_select's rounds); None where HANDLER is refused."""
    cur = conn.cursor()
    try:
        cur.execute(f"HANDLER {_q(database)}.{_q(table)} OPEN AS loadgen_h")
    except Exception:  # noqa: BLE001 - an engine or a grant without HANDLER: the SELECT measure
        cur.close()
        return None
    try:  # the handler is the session's: the rounds' own cursor on the same connection reads through it
        return least_gets_per_select(conn, f"HANDLER loadgen_h READ {_q(index)} = (%s) LIMIT 1", [(v,) for v in values])
    finally:
        try:
            cur.execute("HANDLER loadgen_h CLOSE")
        finally:
            cur.close()
