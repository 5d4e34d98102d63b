"""What loadgen reads of the queried table before a run (DatasetInfo): its key range (and the
keys that exist, where they have gaps), the query's index, the leaf pages and the height; and
where the server's statistics look stale, an estimate from the rows' width."""
from __future__ import annotations

from .. import db
from ..errors import UsageError
from .schemas import TableShape
from .height import measure_height
from .userquery import check_query, default_query, explain_index

# Keys of a table with gaps kept in memory (8 bytes each); beyond it every k-th key is kept.
KEY_MAP_MAX = 8_000_000
# A table whose row estimate is under this share of its key range is read for its keys (the
# estimate may be stale: the read decides, and a dense table keeps its key range).
GAPPED_SHARE = 0.9


# -- geometry ------------------------------------------------------------------------------------
def table_info(conn, spec, shape: TableShape, seeded: bool, existing: bool = False):
    """DatasetInfo for the queried table: its key range, the query and its index, the geometry."""
    from .dataset import DatasetInfo

    database, table = shape.database, shape.table
    if spec.query:
        query, key = check_query(spec.query), spec.key_column
        if key is None and shape.primary_key:
            key = shape.primary_key[0]
    else:
        query, key = default_query(shape, spec.key_column)
    lo = hi = None
    if key is not None and key in {c.name for c in shape.columns}:
        lo, hi = db.query_all(conn, f"SELECT MIN(`{key}`), MAX(`{key}`) FROM `{database}`.`{table}`")[0]
    if lo is None and existing:
        raise UsageError(f"{database}.{table} is empty", "point --table at a table that holds rows")
    numeric = isinstance(lo, int) and isinstance(hi, int)
    if numeric and lo < 1:
        raise UsageError(f"{database}.{table}.{key} holds keys below 1 ({lo}): the drivers bind unsigned keys "
                         "counted from 1", "query a column whose keys are positive, or give --query with a ? "
                         f"shifted into your range, e.g. WHERE {key} = ? - 1000")
    keys = (hi - lo + 1) if numeric else (spec.rows or 1)
    offset = (lo - 1) if numeric else 0
    key_map = gaps = None
    data_length, index_length, table_rows = db.query_all(
        conn, "SELECT DATA_LENGTH, INDEX_LENGTH, TABLE_ROWS FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s", (database, table))[0]
    if existing and numeric and shape.primary_key == [key] and int(table_rows or 0) < GAPPED_SHARE * keys:
        key_map, count, every = read_keys(conn, database, table, key, int(table_rows or 0))
        if count != keys:  # gaps: the order's ids stand for the keys that exist
            gaps = {"key_span": keys, "keys": count, "every": every}
            keys, table_rows = len(key_map), count
        else:
            key_map = None
    middle = key_map[len(key_map) // 2] if key_map is not None else offset + 1 + keys // 2
    index, covering = explain_index(conn, database, query, middle)
    stats = dict(db.query_all(
        conn,
        "SELECT stat_name, stat_value FROM mysql.innodb_index_stats WHERE database_name=%s AND table_name=%s "
        "AND index_name='PRIMARY' AND stat_name IN ('n_leaf_pages','size')", (database, table),
    )) if can_read_index_stats(conn) else {}
    leaf_pages = int(stats.get("n_leaf_pages", 0)) or max(1, int(data_length or 0) // PAGE_BYTES)
    rows = spec.rows if not existing else int(table_rows or 0)
    table_bytes = int(data_length or 0) + int(index_length or 0)
    stale = stale_sizes(conn, shape, rows, leaf_pages)
    if stale is not None:
        leaf_pages, width = stale
        said = int(stats.get("n_leaf_pages", 0)) or max(1, int(data_length or 0) // PAGE_BYTES)
        stats_note = (f"the statistics of {database}.{table} look stale: {rows:,} rows do not fit in "
                      f"{said:,} leaf page{'s' if said != 1 else ''}; estimated {leaf_pages:,} from rows x width "
                      f"({width:,} bytes a row); run ANALYZE TABLE `{database}`.`{table}` for the server's own figures")
        table_bytes = max(table_bytes, leaf_pages * PAGE_BYTES)
    else:
        stats_note = None
    return DatasetInfo(
        schema=spec.schema_label if not existing else f"{database}.{table}",
        database=database, table=table, rows=keys, seed=spec.seed if not existing else 0,
        schema_hash=spec.schema_hash if not existing else "",
        table_bytes=table_bytes, stats_note=stats_note,
        leaf_pages=leaf_pages, index_pages=int(stats.get("size", 0)),
        height=measure_height(conn, database, table, shape.primary_key, leaf_pages, max(rows, keys, leaf_pages)),
        seeded=seeded,
        table_rows=rows if gaps is None else int(table_rows), key_column=key, key_offset=offset, query=query,
        index=index, index_only=covering, existing=existing, key_map=key_map, key_gaps=gaps,
    )


# Bytes a row of the clustered index costs besides its columns: the record header (5), the
# transaction id (6) and the roll pointer (7) of COMPACT/DYNAMIC rows.
RECORD_OVERHEAD_BYTES = 18
PAGE_BYTES = 16384
LEAF_FILL = 15 / 16  # InnoDB fills a leaf to 15/16 when rows arrive in key order
WIDTH_SAMPLE_ROWS = 1000
MAX_IN_PAGE_ROW_BYTES = 8126  # longer rows keep their long columns off the page
_FIXED_BYTES = {"TINYINT": 1, "BOOL": 1, "BOOLEAN": 1, "SMALLINT": 2, "MEDIUMINT": 3, "INT": 4, "INTEGER": 4,
                "BIGINT": 8, "FLOAT": 4, "DOUBLE": 8, "REAL": 8, "DATE": 3, "TIME": 3, "YEAR": 1,
                "DATETIME": 5, "TIMESTAMP": 4, "ENUM": 1}


def fixed_bytes(col) -> int | None:
    """Bytes a column takes in every row, or None for a variable (or unknown) width."""
    t = col.type_name
    if t in ("DECIMAL", "NUMERIC"):
        p, sc = col.precision or 10, col.scale or 0

        def digits(d: int) -> int:  # bytes for d decimal digits: 4 per 9, then 0-4 for the rest
            return d // 9 * 4 + (0, 1, 1, 2, 2, 3, 3, 4, 4)[d % 9]

        return digits(p - sc) + digits(sc)
    if t in ("BINARY", "BIT"):
        return col.length if t == "BINARY" else ((col.length or 1) + 7) // 8
    return _FIXED_BYTES.get(t)


def stale_sizes(conn, shape: TableShape, rows: int, leaf_pages: int) -> tuple[int, int] | None:
    """(leaf pages estimated from rows x width, the width) when the server's figure cannot hold
    `rows` (information_schema and innodb_index_stats keep the sizes of the last statistics
    run: a table filled since, or with STATS_AUTO_RECALC=0, shows 1-3 pages for 150,001 rows,
    issue #18 N8); None when the figure is plausible. The width adds the fixed columns' sizes
    and the average length of the variable ones over the first rows."""
    fixed = {c.name: fixed_bytes(c) for c in shape.columns}
    least = RECORD_OVERHEAD_BYTES + sum(b for c in shape.columns if not c.nullable and (b := fixed[c.name]))
    if rows <= 0 or rows * least <= leaf_pages * PAGE_BYTES:
        return None
    var = [c.name for c in shape.columns if fixed[c.name] is None]
    width = RECORD_OVERHEAD_BYTES + sum(b for b in fixed.values() if b) + (len(shape.columns) + 7) // 8
    if var:
        cols = ", ".join(f"`{name}`" for name in var)
        avgs = db.query_all(conn, "SELECT " + ", ".join(f"AVG(COALESCE(LENGTH(`{n}`), 0))" for n in var)
                            + f" FROM (SELECT {cols} FROM `{shape.database}`.`{shape.table}` "
                            f"LIMIT {WIDTH_SAMPLE_ROWS}) AS sample")[0]
        width += sum(round(float(a or 0)) + 1 for a in avgs)  # + its length byte
    width = min(width, MAX_IN_PAGE_ROW_BYTES)
    return max(leaf_pages, -(-rows * width // int(PAGE_BYTES * LEAF_FILL))), width


def read_keys(conn, database: str, table: str, key: str, estimate: int):
    """(the keys of `key` in order, how many there are, k): one streaming pass over the primary
    key, every k-th key kept so that at most KEY_MAP_MAX stay in memory (k from the row estimate,
    doubled while reading when the estimate was low)."""
    from array import array

    import MySQLdb.cursors

    every = max(1, -(-estimate // KEY_MAP_MAX))
    out = array("Q")
    count = 0
    cur = conn.cursor(MySQLdb.cursors.SSCursor)  # streamed: memory stays flat
    try:
        cur.execute(f"SELECT `{key}` FROM `{database}`.`{table}` ORDER BY `{key}`")
        while True:
            batch = cur.fetchmany(65536)
            if not batch:
                break
            for (k,) in batch:
                if count % every == 0:
                    out.append(k)
                count += 1
            while len(out) > KEY_MAP_MAX:  # the estimate was low: keep every other one from here on
                out = out[::2]
                every *= 2
    finally:
        cur.close()
    return out, count, every


def can_read_index_stats(conn) -> bool:
    try:
        db.query_all(conn, "SELECT 1 FROM mysql.innodb_index_stats LIMIT 1")
        return True
    except Exception:  # noqa: BLE001 - a user without SELECT on mysql.*: estimate from DATA_LENGTH
        return False
