"""The tables' geometry an op trace is predicted over (analysis/tracemodel.py): from the server
(read only: the key range, mysql.innodb_index_stats, measured heights, each index's leading
column's values and distinct count) or, without one, from --rows and the schema's column widths."""
from __future__ import annotations

from ..errors import UsageError
from .geometry import estimate_geometry

LEAF_BYTES = 16384 * 15 / 16  # a leaf filled in key order
SECONDARY_FILL = 0.7  # a secondary index filled at random keys
_TYPE_BYTES = {"TINYINT": 1, "SMALLINT": 2, "MEDIUMINT": 3, "INT": 4, "INTEGER": 4, "BIGINT": 8, "FLOAT": 4,
               "DOUBLE": 8, "DECIMAL": 8, "DATE": 3, "TIME": 3, "DATETIME": 5, "TIMESTAMP": 4, "YEAR": 1,
               "ENUM": 1, "BOOL": 1, "BOOLEAN": 1}
VARIABLE_BYTES = 32  # a column whose length the DDL does not give (TEXT kept off the page, VARCHAR)


def column_bytes(text: str, table: str) -> dict[str, int]:
    """Bytes of each column of `table` from its CREATE TABLE (CHAR(n) -> n; an estimate)."""
    import re

    from .. workload.tabledefs import shape

    s = shape(text, table)
    out = {}
    for col, word in (s.columns.items() if s else []):
        m = re.search(rf"`?{re.escape(col)}`?\s+{word}\s*\((\d+)", text, re.I)
        n = int(m.group(1)) if m and word in ("CHAR", "VARCHAR", "BINARY", "VARBINARY") else None
        out[col] = min(n, 768) if n else _TYPE_BYTES.get(word, VARIABLE_BYTES)
    return out


def offline_geometry(meta: dict, rows: dict[str, int], widths: dict[str, dict[str, int]]) -> dict[str, dict]:
    """Geometry without a server: each table's rows (--rows), leaves from its row width."""
    out = {}
    for name, t in (meta.get("tables") or {}).items():
        tbl = name.partition(".")[2]
        n = rows.get(name) or rows.get(tbl) or rows.get("*")
        if not n:
            raise UsageError(f"no --rows for {name}", "give --rows N (every table) or --rows db.tbl=N,db.tbl2=M")
        w = widths.get(tbl.lower()) or {}
        pk = t.get("primary_key") or []
        pk_bytes = sum(w.get(c, 8) for c in pk) or 8
        row = 18 + sum(w.values()) + (len(w) + 7) // 8 if w else 100
        g = estimate_geometry(n, rows_per_leaf=max(1.0, LEAF_BYTES / row))
        ixs = {}
        for iname, cols in (t.get("indexes") or {}).items():
            entry = 13 + pk_bytes + sum(w.get(c, 8) for c in cols)
            gi = estimate_geometry(n, rows_per_leaf=max(1.0, 16384 * SECONDARY_FILL / entry))
            ixs[iname] = {"leaf_pages": gi.leaf_pages, "height": gi.height, "columns": list(cols),
                          "unique": iname in (t.get("unique") or ())}  # the capture's schema says which
        out[name] = {"rows": n, "leaf_pages": g.leaf_pages, "height": g.height, "key_offset": 0, "indexes": ixs,
                     "source": "estimated from --rows and the schema's column widths"}
    return out


def server_tables(conn, names: list[str], infos: dict | None = None) -> dict[str, dict]:
    """Geometry of each table from the server, read only (runner/mixseed.py inspect_table: key range,
    mysql.innodb_index_stats, measured heights; infos: those already read), its leaves re-estimated
    when the statistics look stale (seeding/tableinfo.py stale_sizes)."""
    from .. import db
    from ..runner.mixseed import inspect_table
    from ..seeding.schemas import reflect
    from ..seeding.tableinfo import stale_sizes
    from ..seeding.usertable import borrow_conn
    from ..workload.mix import TableSpec

    out = {}
    for name in names:
        database, _, table = name.partition(".")
        if database == "?":
            raise UsageError(f"the log does not say which database {table} is in",
                             "capture with --dsn (the sessions' schema is followed) or qualify the tables")
        info = (infos or {}).get(name) or inspect_table(conn, TableSpec(name=name, existing=name), hashed_keys=True)
        d = info.to_dict()
        note = None
        table_rows = int(db.query_value(conn, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE "
                                              "TABLE_SCHEMA=%s AND TABLE_NAME=%s", (database, table)) or 0)
        stale = stale_sizes(conn, reflect(borrow_conn(conn), database, table), max(table_rows, 0), info.leaf_pages)
        if stale is not None:
            note = (f"the statistics of {name} look stale: estimated {stale[0]:,} leaf pages from rows x width; "
                    f"run ANALYZE TABLE for the server's own figures")
            d["leaf_pages"] = stale[0]
        rows, offset = d["rows"], int(d["key_offset"])
        pk = list(d.get("primary_key") or [])
        if len(pk) > 1:  # a composite key: its rows are not its leading column's range (the server's estimate)
            rows, offset = max(1, table_rows), 0
        out[name] = {"rows": rows, "leaf_pages": max(1, int(d["leaf_pages"])), "height": max(1, int(d["height"])),
                     "key_offset": offset, "stats_note": note, "indexes": {
                         i: {"leaf_pages": max(1, int(ix["leaf_pages"] or ix["pages"] or 1)),
                             "height": int(ix["height"] or max(1, int(d["height"]) - 1)), "columns": ix["columns"],
                             "unique": bool(ix.get("unique")),  # MySQL's change buffer takes no UNIQUE index's
                             **leading_values(conn, database, table, i, ix["columns"])}
                         for i, ix in d["indexes"].items()}}
        if len(pk) > 1:
            out[name].update(leading_values(conn, database, table, "PRIMARY", pk))
    return out


def leading_values(conn, database: str, table: str, index: str, columns: list[str]) -> dict:
    """{values: [lowest, highest] of the index's leading column (integers only), distinct: its
    distinct values (mysql.innodb_index_stats n_diff_pfx01)}: where a value's entries lie in the
    index and how many they are (an INDEX_RANGE of the trace). Two reads at the index's ends and
    one of the statistics; what cannot be read is left out (the model then assumes the values
    spread 1..rows, one row each)."""
    from .. import db
    from ..seeding.tableinfo import can_read_index_stats

    out: dict = {}
    if not columns:
        return out
    col = columns[0].replace("`", "``")
    try:
        lo, hi = db.query_all(conn, f"SELECT MIN(`{col}`), MAX(`{col}`) FROM `{database}`.`{table}`")[0]
        if isinstance(lo, int) and isinstance(hi, int):
            out["values"] = [lo, hi]
        if can_read_index_stats(conn):
            n = db.query_value(conn, "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name=%s AND "
                                     "table_name=%s AND index_name=%s AND stat_name='n_diff_pfx01'",
                               (database, table, index))
            if n:
                out["distinct"] = int(n)
    except Exception:  # noqa: BLE001 - optional: the model's assumption stands in (the docstring)
        pass
    return out


def pools_of(pool_bytes: list[int], flavor: str, variables: dict, qps: float):
    import dataclasses

    from .pool import pool_model

    io = int(variables.get("innodb_io_capacity") or 0)  # MySQL's flush-list batch (dirtypages.adaptive_args)
    return [(b, dataclasses.replace(pool_model(b, variables, flavor, qps), io_capacity=io)) for b in pool_bytes]
