"""clone-shape: read a server's tables' shape, never a row of their data, and never write.

What is read, per table (all of it metadata, counts or lengths):
  SHOW CREATE TABLE                       the statement, cleaned to pass the schema gate (ddl.py)
  information_schema.TABLES               engine, row estimate, data/index bytes, avg row length
  mysql.innodb_index_stats                leaf pages and size of every index (when readable)
  SELECT FLOOR((pk - min) / w), COUNT(*), MIN(pk), MAX(pk) ... GROUP BY 1
                                          the exact row count and how the keys fill their range,
                                          in up to SEGMENTS segments (one pass over the smallest
                                          index, as COUNT(*) makes)
  SELECT SUM(LENGTH(col)), SUM(col IS NULL) over SAMPLE_SLICES slices of the key range
                                          each column's average width and NULL share
The session is made read-only first (transaction_read_only), so the server itself refuses a
write should one ever be attempted.
"""
from __future__ import annotations

import re
import time

from .. import db
from ..errors import UsageError
from . import shapefile, tablegen
from .schemas import reflect
from .tableinfo import PAGE_BYTES, can_read_index_stats, fixed_bytes, stale_sizes
from .usertable import borrow_conn, raise_unreadable

SEGMENTS = 256  # key-range segments kept per table: where the gaps are, at 1/256 of the range
SAMPLE_ROWS = 5000  # rows whose column lengths are averaged, in SAMPLE_SLICES slices over the keys
SAMPLE_SLICES = 10
# An index whose entries (by the estimate below) fill less than this share of its leaves was filled
# by inserts in random key order (B-tree splits leave ~69% full); above it, built sorted (15/16
# full). By this estimate on MariaDB 10.11, 100k-150k rows: sysbench's k_1 (INT, created after its
# rows) 1.09, an INT index filled by random inserts while the rows loaded 0.68.
SORTED_FILL = 0.85
ENTRY_OVERHEAD_BYTES = 7  # record header (5) and the page directory's share (~2) of a secondary entry
_AUTO_INCREMENT = re.compile(r"\s+AUTO_INCREMENT=\d+", re.IGNORECASE)
_VERSIONED_COMMENT = re.compile(r"/\*!\d*\s?(.*?)\s*\*/", re.DOTALL)
_FOREIGN = re.compile(r"^\s*(?:CONSTRAINT\s+`[^`]*`\s+)?FOREIGN\s+KEY\b", re.IGNORECASE)
_INDEX_LINE = re.compile(r"^\s*(?:(UNIQUE|FULLTEXT|SPATIAL)\s+)?(?:KEY|INDEX)\s+`((?:[^`]|``)+)`", re.IGNORECASE)


def clone(conn, database: str, tables: list[str] | None = None, say=lambda _m: None) -> dict:
    """The shape document (shapefile.py) of `database`'s InnoDB tables (or `tables` of them)."""
    _read_only(conn)
    names = _tables(conn, database, tables, say)
    flavor = db.server_flavor(conn)
    out = []
    for name in names:
        say(f"reading the shape of {database}.{name}")
        out.append(table_shape(conn, database, name))
    doc = {"format": shapefile.FORMAT, "version": shapefile.VERSION,
           "source": {"flavor": flavor.name, "version": flavor.version, "database": database,
                      "cloned_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
           "tables": out}
    shapefile.check(doc, "the shape read")  # what seed --shape will accept, or say so now
    return doc


def schema_sql(doc: dict) -> str:
    """The schema file of a shape: its CREATE TABLE statements, as `--schema` accepts them."""
    head = (f"-- the tables of {doc['source']['database']} on {doc['source']['flavor']} {doc['source']['version']}, "
            f"cloned by loadgen clone-shape at {doc['source']['cloned_at']} (no rows)\n")
    return head + "".join(f"\n{t['create']};\n" for t in doc["tables"])


def _read_only(conn) -> None:
    for var in ("transaction_read_only", "tx_read_only"):  # MySQL 8+ and MariaDB 11.1+; MariaDB before
        try:
            db.query_all(conn, f"SET SESSION {var} = 1")
            return
        except Exception:  # noqa: BLE001 - the other name, on the other server
            continue


def _tables(conn, database: str, wanted: list[str] | None, say=lambda _m: None) -> list[str]:
    rows = db.query_all(conn, "SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s "
                        "AND TABLE_TYPE='BASE TABLE' ORDER BY TABLE_NAME", (database,))
    engines = {str(n): str(e or "") for n, e in rows}
    if wanted:
        missing = [t for t in wanted if t not in engines]
        if missing:
            raise UsageError(f"{database} has no table {missing[0]} (or this user cannot see it)",
                             "check --database and --tables, and that the user may SELECT them")
        names = list(wanted)
    else:
        names = [n for n, e in engines.items() if e.lower() == "innodb"]
        odd = [n for n in names if not re.match(r"^\w{1,64}$", n, re.ASCII)]
        if odd:  # a schema file names tables in letters, digits and _ only
            say(f"left out (not a plain name): {', '.join(repr(n[:64]) for n in odd)}")
            names = [n for n in names if n not in odd]
        if not names:
            raise UsageError(f"{database} holds no InnoDB table this user can see",
                             "check --database, and GRANT SELECT ON `db`.* to the --dsn user")
    for n in names:
        if engines[n].lower() != "innodb":
            raise UsageError(f"{database}.{n} is {engines[n]}, not InnoDB", "leave it out of --tables")
        if not re.match(r"^\w{1,64}$", n, re.ASCII):
            raise UsageError(f"{database}: table name {n!r} is not a plain identifier; loadgen's schema files "
                             "take letters, digits and _ only", "leave it out with --tables")
    return names


def table_shape(conn, database: str, name: str) -> dict:
    try:
        create = db.query_all(conn, f"SHOW CREATE TABLE `{database}`.`{name}`")[0][1]
    except Exception as exc:  # noqa: BLE001 - classified by raise_unreadable
        raise_unreadable(exc, database, name, "clone-shape only reads",
                         UsageError(f"{database}.{name} does not exist"), denied=UsageError)
    create, index_lines, notes = clean_create(create)
    reflected = reflect(borrow_conn(conn), database, name)
    est_rows, avg_row, data_bytes, index_bytes = db.query_all(
        conn, "SELECT TABLE_ROWS, AVG_ROW_LENGTH, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES "
        "WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s", (database, name))[0]
    pk = reflected.primary_key
    int_key = len(pk) == 1 and next(c for c in reflected.columns if c.name == pk[0]).type_name in tablegen.INT_RANGES
    key = _key_shape(conn, database, name, pk[0]) if int_key else None
    rows = key["rows"] if key else int(db.query_value(conn, f"SELECT COUNT(*) FROM `{database}`.`{name}`") or 0)
    columns = _columns(conn, database, name, reflected, key)
    stats = index_stats(conn, database, name)
    width = {c["name"]: _width(c, col) for c, col in zip(columns, reflected.columns)}
    indexes = {"PRIMARY": {"columns": pk, "unique": True, **stats.get("PRIMARY", {})}}
    for iname, cols in reflected.indexes.items():
        line = index_lines.get(iname)
        ix = {"columns": cols, "unique": bool(line and line[0]), "definition": line[1] if line else None,
              **stats.get(iname, {})}
        entry = sum(width.get(c, 8) for c in dict.fromkeys([*cols, *pk])) + ENTRY_OVERHEAD_BYTES
        if ix.get("leaf_pages") and rows:
            ix["fill"] = round(rows * entry / (ix["leaf_pages"] * PAGE_BYTES), 3)
        # sorted when we cannot tell: what a restore or an ALTER TABLE ADD INDEX makes
        ix["build"] = "load" if ix.get("fill", 1) < SORTED_FILL or not ix["definition"] else "after"
        indexes[iname] = ix
    stats_note = None
    leaf = indexes["PRIMARY"].get("leaf_pages")
    if leaf and (stale := stale_sizes(conn, reflected, rows, leaf)) is not None:
        stats_note = (f"the statistics look stale ({rows:,} rows in {leaf:,} leaf pages; rows x width says "
                      f"{stale[0]:,}): run ANALYZE TABLE on the source and clone again")
    out = {"name": name, "create": create, "rows": rows, "rows_exact": True, "row_estimate": int(est_rows or 0),
           "data_bytes": int(data_bytes or 0), "index_bytes": int(index_bytes or 0),
           "avg_row_bytes": round(int(data_bytes or 0) / rows, 1) if rows else int(avg_row or 0),
           "stats_note": stats_note, "notes": notes,
           "primary_key": {"columns": pk, **({k: v for k, v in key.items() if k != "rows"} if key else {})},
           "indexes": indexes, "columns": columns}
    return out


def clean_create(create: str) -> tuple[str, dict[str, tuple[str | None, str]], list[str]]:
    """(the statement as a schema file may hold it, {index: (UNIQUE|FULLTEXT|SPATIAL|None, its
    one-line definition)}, notes). SHOW CREATE TABLE wraps options in versioned comments
    (`/*!50100 PARTITION ...*/`), which the gate refuses: their text is kept, unwrapped. Foreign
    keys are left out (generated rows cannot satisfy them), as is AUTO_INCREMENT=N."""
    create = _VERSIONED_COMMENT.sub(lambda m: m.group(1), create)
    create = _AUTO_INCREMENT.sub("", create)
    lines, kept, indexes, notes = create.split("\n"), [], {}, []
    for line in lines:
        if _FOREIGN.match(line):
            notes.append(f"foreign key left out: {line.strip().rstrip(',')[:200]}")
            continue
        m = _INDEX_LINE.match(line)
        if m:
            indexes[m.group(2).replace("``", "`")] = (m.group(1) and m.group(1).upper(), line.strip().rstrip(","))
        kept.append(line)
    # a dropped last entry leaves "...,\n)" behind
    text = re.sub(r",(\s*\n\))", r"\1", "\n".join(kept))
    return text, indexes, notes


def _key_shape(conn, database: str, name: str, key: str) -> dict:
    """Exact rows, MIN/MAX and the key range cut into up to SEGMENTS segments: [first key, last
    key, rows] of each that holds rows. One grouped pass (the server picks the smallest index)."""
    lo, hi = db.query_all(conn, f"SELECT MIN(`{key}`), MAX(`{key}`) FROM `{database}`.`{name}`")[0]
    if lo is None:
        return {"rows": 0, "min": None, "max": None, "gap_density": None, "segments": []}
    lo, hi = int(lo), int(hi)
    width = max(1, -(-(hi - lo + 1) // SEGMENTS))
    rows = db.query_all(
        conn, f"SELECT FLOOR((CAST(`{key}` AS DECIMAL(21)) - {lo}) / {width}) AS s, MIN(`{key}`), MAX(`{key}`), "
        f"COUNT(*) FROM `{database}`.`{name}` GROUP BY s ORDER BY s")
    segments = [[int(a), int(b), int(n)] for _s, a, b, n in rows]
    total = sum(s[2] for s in segments)
    if not (shapefile.INT64[0] <= lo and hi <= shapefile.INT64[1]):
        raise UsageError(f"{database}.{name}.{key} holds keys beyond 64-bit signed integers",
                         "leave the table out with --tables")
    return {"rows": total, "min": lo, "max": hi, "gap_density": round(total / (hi - lo + 1), 6),
            "segments": segments}


def _columns(conn, database: str, name: str, reflected, key: dict | None) -> list[dict]:
    """Each column's type and, over a sample spread along the key, its average bytes and NULL
    share; an integer column's range too (exact by an index dive where an index leads with it),
    which sets how often its values repeat, and so how its index fills."""
    cols = [c for c in reflected.columns if not c.generated]
    ints = [c for c in cols if c.type_name in tablegen.INT_RANGES]
    parts = [f"SUM(LENGTH(`{c.name}`)), SUM(`{c.name}` IS NULL)" for c in cols]
    parts += [f"MIN(`{c.name}`), MAX(`{c.name}`)" for c in ints]
    sums = [0.0] * (2 * len(cols))
    ranges: dict[str, list] = {}
    n = 0
    if cols:
        inner = ", ".join(f"`{c.name}`" for c in cols)
        per = max(1, SAMPLE_ROWS // SAMPLE_SLICES)
        if key and key["rows"]:
            k = reflected.primary_key[0]
            starts = sorted({key["min"] + (key["max"] - key["min"]) * i // SAMPLE_SLICES for i in range(SAMPLE_SLICES)})
            slices = [f"SELECT {inner} FROM `{database}`.`{name}` WHERE `{k}` >= {s} ORDER BY `{k}` LIMIT {per}"
                      for s in starts]
        else:
            slices = [f"SELECT {inner} FROM `{database}`.`{name}` LIMIT {SAMPLE_ROWS}"]
        for sql in slices:
            row = db.query_all(conn, f"SELECT COUNT(*), {', '.join(parts)} FROM ({sql}) AS sample")[0]
            n += int(row[0] or 0)
            for i in range(2 * len(cols)):
                sums[i] += float(row[1 + i] or 0)
            for j, c in enumerate(ints):
                lo, hi = row[1 + 2 * len(cols) + 2 * j], row[2 + 2 * len(cols) + 2 * j]
                if lo is not None:
                    was = ranges.get(c.name)
                    ranges[c.name] = [min(int(lo), was[0]), max(int(hi), was[1])] if was else [int(lo), int(hi)]
    leading = {cs[0] for cs in reflected.indexes.values() if cs} - set(reflected.primary_key)
    for c in ints:
        if c.name in leading:
            lo, hi = db.query_all(conn, f"SELECT MIN(`{c.name}`), MAX(`{c.name}`) FROM `{database}`.`{name}`")[0]
            if lo is not None:
                ranges[c.name] = [int(lo), int(hi)]
    out = []
    by_name = {c.name: i for i, c in enumerate(cols)}
    for c in reflected.columns:
        fixed = fixed_bytes(c)
        entry = {"name": c.name, "type": c.type_name, "length": c.length, "nullable": c.nullable,
                 "generated": c.generated, "fixed_bytes": fixed, "avg_bytes": fixed, "null_fraction": None}
        if c.name in ranges:
            entry["min"], entry["max"] = ranges[c.name]
        i = by_name.get(c.name)
        if i is not None and n:
            nulls = sums[2 * i + 1]
            entry["null_fraction"] = round(nulls / n, 4)
            if fixed is None:  # LENGTH of a number is its digits, not its bytes
                entry["avg_bytes"] = round(sums[2 * i] / (n - nulls), 1) if n > nulls else 0
        out.append(entry)
    return out


def _width(entry: dict, col) -> float:
    """Bytes a column adds to an index entry: its fixed size, or its average length + 1."""
    fixed = fixed_bytes(col)
    if fixed is not None:
        return fixed
    return (entry.get("avg_bytes") or 8) + 1


def index_stats(conn, database: str, name: str) -> dict[str, dict]:
    """{index: {leaf_pages, size_pages}} from mysql.innodb_index_stats; {} without access."""
    if not can_read_index_stats(conn):
        return {}
    out: dict[str, dict] = {}
    for iname, stat, value in db.query_all(
            conn, "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats WHERE database_name=%s "
            "AND table_name=%s AND stat_name IN ('n_leaf_pages', 'size')", (database, name)):
        out.setdefault(str(iname), {})["leaf_pages" if stat == "n_leaf_pages" else "size_pages"] = int(value)
    return out
