"""A secondary index as the model needs it, read from the live server once: where each key's
entries start and on which clustered leaf each entry's row lives (analysis/secondary.py turns it
into the run's page trace). It reads a server, so it lives with the seeding side, not the model.

Limits, said rather than guessed: integer keys and an integer primary key whose values are dense
enough that row position ~ key position (a table loaded in key order, as loadgen's are); at most
MAX_ENTRIES index entries.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass

from .. import db

MAX_ENTRIES = 20_000_000
SECONDARY_FANOUT = 1000  # node pointers per non-leaf page of an INT key (+ child page number)


@dataclass
class IndexMap:
    index: str
    index_only: bool  # a covering read: no descent of the clustered index
    key_lo: int  # key of the order's id 1
    starts: array  # starts[i]: first entry whose key >= key_lo + i, for i in 0..keys
    entry_leaf: array  # clustered-index leaf of each entry's row, in index order
    leaf_pages: int  # of the secondary index
    height: int  # of the secondary index

    @property
    def entries(self) -> int:
        return len(self.entry_leaf)


class CannotModel(Exception):
    """Why the model cannot follow this index; the run is written without a prediction."""


def read_index_map(conn, info) -> IndexMap:
    """Scan info.index in key order on the live server (a read: the table is not written)."""
    database, table, index, key = info.database, info.table, info.index, info.key_column
    pk = [r[0] for r in db.query_all(
        conn, "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s "
        "AND INDEX_NAME='PRIMARY' ORDER BY SEQ_IN_INDEX", (database, table))]
    if len(pk) != 1:
        raise CannotModel(f"{database}.{table} has a composite primary key; the secondary-index model needs one "
                          "integer key column")
    total = int(db.query_value(conn, f"SELECT COUNT(*) FROM `{database}`.`{table}`") or 0)
    if total > MAX_ENTRIES:
        raise CannotModel(f"{total:,} rows: the secondary-index model reads at most {MAX_ENTRIES:,} index entries")
    pk_lo, pk_hi = db.query_all(conn, f"SELECT MIN(`{pk[0]}`), MAX(`{pk[0]}`) FROM `{database}`.`{table}`")[0]
    if not isinstance(pk_lo, int):
        raise CannotModel(f"the primary key {pk[0]} is not an integer")
    span = pk_hi - pk_lo + 1
    leaves = max(1, int(info.leaf_pages))
    keys = int(info.rows)
    key_lo = int(info.key_offset) + 1
    counts = array("Q", bytes(8 * (keys + 1)))
    entry_leaf = array("I")
    cur = conn.cursor()
    try:
        # One pass in index order; rows stream (SSCursor-like) in batches to keep memory flat.
        cur.execute(f"SELECT `{key}`, `{pk[0]}` FROM `{database}`.`{table}` FORCE INDEX (`{index}`) "
                    f"ORDER BY `{key}`, `{pk[0]}`")
        while True:
            batch = cur.fetchmany(65536)
            if not batch:
                break
            for k, p in batch:
                if k is None or not isinstance(k, int):
                    continue
                i = k - key_lo
                if 0 <= i < keys:
                    counts[i] += 1
                    entry_leaf.append((p - pk_lo) * leaves // span)
    finally:
        cur.close()
    starts = array("Q", bytes(8 * (keys + 1)))
    run = 0
    for i in range(keys):
        starts[i] = run
        run += counts[i]
    starts[keys] = run
    stats = dict(db.query_all(
        conn, "SELECT stat_name, stat_value FROM mysql.innodb_index_stats WHERE database_name=%s AND table_name=%s "
        "AND index_name=%s AND stat_name='n_leaf_pages'", (database, table, index)))
    sec_leaves = max(1, int(stats.get("n_leaf_pages", 0)) or -(-len(entry_leaf) // 700))
    height, n = 1, sec_leaves
    while n > 1:
        height += 1
        n = -(-n // SECONDARY_FANOUT)
    return IndexMap(index, bool(getattr(info, "index_only", False)), key_lo, starts, entry_leaf, sec_leaves, height)
