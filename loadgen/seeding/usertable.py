"""Your own table: seed one from any schema file, or measure one that is already there.

  --schema FILE.sql        loadgen creates the file's tables in its own database and fills the
                           queried one (the first, or --table-name) with tablegen's rows, in key
                           order, resumable, cached like the built-in chat tables
  --table db.tbl           a table on the --dsn server that loadgen never writes to: no seeding,
                           no DDL, no meta table; a read-only check first, then the key range and
                           the index geometry for the model
  --query 'SQL with one ?' the statement each access runs, the ? bound to the key from the order;
  --key-column COL         or a point select on COL (a secondary index: which one, EXPLAIN says)

The order's ids 1..keys map to keys offset+1..offset+keys of the key column: for an integer
primary key the key range, for a composite key its leading column. An existing table whose
single-column key has gaps (fewer rows than its key range: 1M rows over keys 3..3,000,000 made
two lookups in three find nothing) is read once in key order (read_keys): id i then stands for the
i-th key that exists, so every lookup finds its row and the model's leaves follow the real rows.
"""
from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from collections.abc import Iterator

from .. import db
from . import tablegen
from .chunks import (chunk_dir, chunk_file, generated_ahead, is_driver_error, load_local, raise_if_not_the_table,
                     seed_error)
from ..errors import LoadgenError, SchemaRefused, SeedError, UsageError, WorkloadError
from .schemas import TableShape, create_tables, queried_table, read_schema_file, reflect
from ..units import format_bytes

CHUNK_ROWS = 50_000
HEIGHT_SAMPLES = 50
# Keys of a table with gaps kept in memory (8 bytes each); beyond it every k-th key is kept.
KEY_MAP_MAX = 8_000_000
# A table whose row estimate is under this share of its key range is read for its keys (the
# estimate may be stale: the read decides, and a dense table keeps its key range).
GAPPED_SHARE = 0.9
# Rough bytes a generated row costs on disk while loading (row, page fill, redo, undo), for the
# free-space check; the built-in tables use their measured figure.
EST_OVERHEAD_PER_ROW = 60
INT_TYPES = set(tablegen.INT_RANGES)
_IDENT = re.compile(r"^\w+$")
ER_TABLEACCESS_DENIED = (1142, 1143, 1044)  # SELECT/column denied, database denied
ER_NO_SUCH_TABLE = 1146


def ident(name: str, what: str) -> str:
    """`name` quoted, after checking it is a plain identifier (they reach SQL text)."""
    if not _IDENT.match(name or ""):
        raise UsageError(f"{what} {name!r} is not a plain identifier", "use letters, digits and _")
    return f"`{name}`"


# -- the query -----------------------------------------------------------------------------------
# Clauses that make a SELECT write or lock (issue #18, N7): INTO OUTFILE/DUMPFILE writes a file on
# the database host, INTO @var sets variables, FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE lock
# rows. They are reserved words, so a column of that name is `quoted` and never matches here.
_WRITES = {"INTO": "INTO (OUTFILE, DUMPFILE, @var)", "UPDATE": "UPDATE", "DELETE": "DELETE",
           "LOCK": "LOCK IN SHARE MODE"}
# Functions that reach beyond the read being measured: LOAD_FILE reads a file on the database host
# (as root, any the server can), SLEEP and BENCHMARK stall it, the lock functions hold named locks
# another session may wait on. Found on the red-team replay of issue #18.
_FUNCTIONS = {"LOAD_FILE": "reads a file on the database host", "SLEEP": "stalls the server",
              "BENCHMARK": "stalls the server", "GET_LOCK": "takes a named lock",
              "RELEASE_LOCK": "takes a named lock", "RELEASE_ALL_LOCKS": "takes a named lock",
              "IS_FREE_LOCK": "takes a named lock", "IS_USED_LOCK": "takes a named lock",
              "SYS_EXEC": "runs a program", "SYS_EVAL": "runs a program"}
_SQL_WORD = re.compile(r"[A-Za-z0-9_$\u0080-\U0010ffff]+")


def check_query(sql: str) -> str:
    """A --query: one SELECT that only reads, with exactly one ? (bound to the key) outside
    quotes and comments, read the same whatever the server's sql_mode."""
    hint = "e.g. --query 'SELECT body FROM message WHERE id = ?'"
    parts = _segments(sql, backslash=True)
    code = " ".join(text for kind, text in parts if kind == "code")
    if code != " ".join(text for kind, text in _segments(sql, backslash=False) if kind == "code"):
        # NO_BACKSLASH_ESCAPES or ANSI_QUOTES on the server would end a quote elsewhere
        raise UsageError("--query has a backslash before a quote: the server may end that string elsewhere",
                         "double the quote instead ('it''s')")
    for kind, text in parts:
        if kind == "comment" and text.startswith(("/*!", "/*M!")):
            opener = "/*M!" if text.startswith("/*M!") else "/*!"
            raise UsageError(f"--query holds an executable comment {opener} ... */ (the server runs what it holds)",
                             "write it as plain SQL")
    count = code.count("?")
    if count != 1:
        raise UsageError(f"--query has {count} ? placeholders, it needs exactly one (bound to the key)", hint)
    words = [w.upper() for w in _SQL_WORD.findall(code)]
    if not (words[:1] in (["SELECT"], ["WITH"]) or code.lstrip().startswith("(")):
        raise UsageError("--query must be a SELECT: loadgen measures reads and never writes", hint)
    for i, word in enumerate(words):
        after = words[i + 1:i + 2]
        clause = f"FOR {after[0]}" if word == "FOR" and after in (["UPDATE"], ["SHARE"]) else _WRITES.get(word)
        if clause:
            raise UsageError(f"--query holds {clause}: loadgen measures reads and never writes or locks", hint)
    for word in words:
        if word in _FUNCTIONS and re.search(rf"\b{word}\s*\(", code, re.IGNORECASE):
            raise UsageError(f"--query calls {word}(), which {_FUNCTIONS[word]}: loadgen measures reads only",
                             f"{hint} (a column of that name is written `{word.lower()}`)")
    if ";" in code.rstrip().rstrip(";"):
        raise UsageError("--query holds more than one statement (;)", hint)
    return sql.strip().rstrip(";")


def _segments(sql: str, backslash: bool = True) -> list[tuple[str, str]]:
    """sql cut into ("code" | "quote" | "comment", text), as the server's lexer cuts it: '...' and
    "..." (with backslash escapes unless `backslash` is False, as under NO_BACKSLASH_ESCAPES),
    `...`, doubled quotes, # and /* */ comments, and -- only before a space or a control
    character (`--1` is minus minus one)."""
    out: list[tuple[str, str]] = []
    i, n, start = 0, len(sql), 0
    while i < n:
        ch = sql[i]
        end = None
        if ch in "'\"`":
            j = i + 1
            while j < n:
                if sql[j] == "\\" and backslash and ch != "`":
                    j += 2
                elif sql[j] == ch and sql[j + 1:j + 2] == ch:
                    j += 2
                elif sql[j] == ch:
                    break
                else:
                    j += 1
            kind, end = "quote", min(j + 1, n)
        elif ch == "#" or (sql.startswith("--", i) and (i + 2 == n or ord(sql[i + 2]) <= 32)):
            nl = sql.find("\n", i)
            kind, end = "comment", n if nl < 0 else nl
        elif sql.startswith("/*", i):
            close = sql.find("*/", i + 2)
            kind, end = "comment", n if close < 0 else close + 2
        if end is None:
            i += 1
            continue
        if start < i:
            out.append(("code", sql[start:i]))
        out.append((kind, sql[i:end]))
        i = start = end
    if start < n:
        out.append(("code", sql[start:]))
    return out


def text_format(sql: str) -> bytes:
    """The query for the python driver (text protocol): the key formatted in with %d at the ?
    outside quotes and comments (the one check_query counted)."""
    out = []
    for kind, text in _segments(sql):
        text = text.replace("%", "%%")
        out.append(text.replace("?", "%d") if kind == "code" else text)
    return "".join(out).encode()


def default_query(shape: TableShape, key_column: str | None) -> tuple[str, str]:
    """(query, key column) for a table without --query: a point select on the key column
    (--key-column, or the first primary-key column), returning one non-key column."""
    key = key_column or shape.primary_key[0]
    names = [c.name for c in shape.columns]
    if key not in names:
        raise UsageError(f"--key-column {key}: {shape.database}.{shape.table} has no such column",
                         f"choose one of: {', '.join(names)}")
    col = next((c for c in shape.columns if c.name == key), None)
    if col.type_name not in INT_TYPES:
        raise UsageError(f"the key column {key} is {col.type_name}, not an integer: the orders bind integer keys",
                         "give --query with a ? that turns the number into your key, e.g. "
                         f"WHERE {key} = CONCAT('k', LPAD(?, 12, '0'))")
    # A column outside the key's index, so a secondary lookup also reads the row (not covering).
    indexed = set(shape.primary_key) | {key}
    for cols in shape.indexes.values():
        if cols and cols[0] == key:
            indexed |= set(cols)
    others = [c.name for c in shape.columns if c.name not in indexed and not c.generated]
    out = others[0] if others else key
    return f"SELECT `{out}` FROM `{shape.table}` WHERE `{key}` = ?", key


def explain_index(conn, database: str, sql: str, key: int) -> tuple[str | None, bool]:
    """(the index the query reads, whether it reads only that index): EXPLAIN's `key`, and
    "Using index" in its Extra (a covering read), for one representative key."""
    cur = conn.cursor()
    try:
        cur.execute(f"USE `{database}`")
        cur.execute("EXPLAIN " + text_format(sql).decode() % key)
        names = [d[0].lower() for d in cur.description]
        rows = cur.fetchall()
    except Exception as exc:  # noqa: BLE001 - the user's SQL: say what the server said
        raise UsageError(f"--query does not run on {database}: {db.error_text(exc)}", "fix the query") from None
    finally:
        cur.close()
    if not rows or "key" not in names:
        return None, False
    value, extra = rows[0][names.index("key")], rows[0][names.index("extra")] if "extra" in names else ""
    extra = (extra.decode() if isinstance(extra, bytes) else str(extra or "")).lower()
    covering = "using index" in extra.replace("using index condition", "")
    return (value.decode() if isinstance(value, bytes) else value), covering


# -- seeding a schema file -----------------------------------------------------------------------
def _meta_identity(spec, table: str) -> dict[str, str]:
    return {"schema": spec.schema_label, "schema_hash": spec.schema_hash, "rows": str(spec.rows),
            "seed": str(spec.seed), "generator": f"t{tablegen.GENERATOR_VERSION}", "table": table}


def ensure(conn, spec, progress=None, free_bytes: int | None = None, home: Path | None = None,
           may_seed: str | None = None):
    """dataset.ensure for your own table: seed a schema file's table, or inspect an existing one.
    The server's errors become one-line LoadgenErrors that never advise dropping the user's data.
    may_seed: None, or why this server may not be written to (dataset.ensure)."""
    try:
        if spec.existing:
            return inspect_existing(conn, spec)
        return ensure_seeded(conn, spec, progress, free_bytes, home, may_seed)
    except LoadgenError as exc:
        if db.interrupted(exc):  # a cleanup's error after Ctrl-C/SIGTERM: it was an interruption
            raise KeyboardInterrupt from None
        raise
    except Exception as exc:  # only the driver's errors become one line
        if not is_driver_error(exc):
            raise
        raise_if_not_the_table(exc, f"preparing {spec.database}.{spec.table or spec.schema_label}",
                               "nothing is damaged")
        text = db.error_text(exc)
        if spec.existing:
            raise WorkloadError(f"cannot read {spec.database}.{spec.table}: {text}",
                                "check the table and the user's grants") from None
        raise SeedError(f"seeding {spec.schema} into {spec.database} failed: {text}",
                        f"drop the database {spec.database} (loadgen's own) and re-run") from None


def ensure_seeded(conn, spec, progress=None, free_bytes: int | None = None, home: Path | None = None,
                  may_seed: str | None = None):
    """Make spec's schema file's queried table hold exactly spec.rows generated rows: verify,
    resume, or create and seed. Returns a DatasetInfo."""
    from .dataset import read_meta, write_meta, open_meta, refuse_seed

    schema = read_schema_file(Path(spec.schema), spec.database)
    table = queried_table(schema, spec.table)
    database = spec.database
    ident(database, "--database")
    identity = _meta_identity(spec, table)
    if may_seed is None:
        meta, same = open_meta(conn, database, identity)
    else:  # read only: not even the database or the meta table is created
        meta = read_meta(conn, database) or {}
        same = all(meta.get(k) == v for k, v in identity.items())
    exists = table_exists(conn, database, table)
    if exists and same and meta.get("complete") == "1":
        if count_rows(conn, database, table) == spec.rows:
            shape = reflect(borrow_conn(conn), database, table)
            return table_info(conn, spec, shape, seeded=False)
    if may_seed is not None:
        raise refuse_seed(dataclasses.replace(spec, table=table), may_seed,
                          "is not there" if not exists else "is not as the schema file and --rows make it")
    if exists and not meta:
        raise SeedError(f"{database}.{table} exists but was not created by loadgen",
                        "point loadgen at another database with --database, or drop the table yourself")
    if not (exists and same and meta.get("complete") != "1"):
        for name in reversed(schema.tables):  # another file or generator: start over
            db.query_all(conn, f"DROP TABLE IF EXISTS `{database}`.`{name}`")
        db.query_all(conn, f"DELETE FROM `{database}`.loadgen_meta")
        write_meta(conn, database, {**identity, "complete": 0})  # first: see dataset._ensure
        create_tables(conn, database, schema)
    shape = reflect(borrow_conn(conn), database, table)
    if not shape.primary_key:
        raise SchemaRefused(f"{schema.path}: the server made {table} without a primary key",
                         "declare a PRIMARY KEY in the schema file")
    plan = tablegen.plan(shape.columns, shape.primary_key, spec.rows)
    done = count_rows(conn, database, table)
    remaining = spec.rows - done
    if free_bytes is not None and remaining * _row_estimate(plan) > free_bytes:
        raise SeedError(f"seeding {remaining:,} rows needs about {format_bytes(remaining * _row_estimate(plan))}, "
                        f"only {format_bytes(free_bytes)} free",
                        "use fewer --rows, free disk space, or set LOADGEN_CACHE_DIR to a larger disk")
    started = time.monotonic()
    load(conn, database, table, plan, spec.seed, done + 1, spec.rows, progress, chunk_dir(home))
    elapsed = time.monotonic() - started
    db.query_all(conn, f"ANALYZE TABLE `{database}`.`{table}`")
    info = table_info(conn, spec, shape, seeded=True)
    info.seed_rows_per_s = remaining / elapsed if elapsed > 0 and remaining > 0 else None
    write_meta(conn, database, {"complete": 1})
    return info


def _row_estimate(plan: tablegen.Plan) -> int:
    return EST_OVERHEAD_PER_ROW + 24 * len(plan.columns)


def table_exists(conn, database: str, table: str) -> bool:
    return bool(db.query_value(
        conn, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s",
        (database, table)))


def count_rows(conn, database: str, table: str) -> int:
    return int(db.query_value(conn, f"SELECT COUNT(*) FROM `{database}`.`{table}`") or 0)


class _Borrowed:
    """The caller's connection for SQLAlchemy's inspector, which closes what it was given."""

    def __init__(self, conn):
        self._conn = conn

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def close(self) -> None:
        pass


def borrow_conn(conn):
    return lambda: _Borrowed(conn)


def load(conn, database: str, table: str, plan: tablegen.Plan, seed: int, first: int, last: int,
         progress=None, tmp_dir: Path | None = None) -> None:
    """LOAD DATA LOCAL rows first..last in chunks, generating the next chunk in a thread while the
    server ingests the current one (the C generator releases the GIL); each chunk commits alone,
    so an interruption leaves a prefix of the table and COUNT(*) says where to resume."""
    pool = tablegen.text_pool(seed)

    def generate() -> Iterator[tuple[int, bytes]]:
        for lo in range(first, last + 1, CHUNK_ROWS):
            hi = min(lo + CHUNK_ROWS - 1, last)
            yield hi, tablegen.lines(plan, pool, seed, lo, hi)

    columns = ", ".join(f"`{c}`" for c in plan.columns)
    load_sql = (f"LOAD DATA LOCAL INFILE %s INTO TABLE `{database}`.`{table}` CHARACTER SET utf8mb4 "
                f"FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' ({columns})")
    use_local = True
    # The chunk file sits where dataset.py's do (chunk_dir), so the sweep of files left by killed
    # processes covers these too.
    with generated_ahead(generate(), "loadgen-tablegen") as chunks, chunk_file(tmp_dir) as path:
        cur = conn.cursor()
        try:
            cur.execute("SET time_zone = '+00:00'")
            for hi, data in chunks:
                if use_local:
                    use_local = load_local(cur, load_sql, path, data)
                    if use_local:
                        _check_loaded(cur, database, table, data.count(b"\n"))
                if not use_local:
                    _insert(cur, database, table, plan.columns, data)
                if progress:
                    progress(hi, last)
        finally:
            cur.close()


def _check_loaded(cur, database: str, table: str, expected: int) -> None:
    """LOAD DATA LOCAL turns errors into warnings and skips the row (it implies IGNORE): a value
    the table refuses (a CHECK, a range) would leave holes, so a short chunk is an error."""
    kept = cur.rowcount
    if kept == expected:
        return
    cur.execute("SHOW WARNINGS LIMIT 1")
    warning = cur.fetchone()
    why = f": {warning[2]}" if warning else ""
    raise SeedError(f"the server kept {kept:,} of {expected:,} generated rows of {database}.{table}{why}",
                    "loadgen cannot generate values this column accepts; give it a DEFAULT and "
                    "leave it out, or report the column type")


def _insert(cur, database: str, table: str, columns: list[str], data: bytes) -> None:
    rows = [tuple(None if v == b"\\N" else v.decode() for v in line.split(b"\t"))
            for line in data.split(b"\n") if line]
    sql = (f"INSERT INTO `{database}`.`{table}` ({', '.join(f'`{c}`' for c in columns)}) "
           f"VALUES ({', '.join(['%s'] * len(columns))})")
    try:
        for i in range(0, len(rows), 1000):
            cur.executemany(sql, rows[i:i + 1000])
    except Exception as exc:  # noqa: BLE001 - classified by seed_error
        raise seed_error(exc) from None


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
        height=measure_height(conn, database, table, shape.primary_key), seeded=seeded,
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


def measure_height(conn, database: str, table: str, primary_key: list[str]) -> int:
    """B-tree height of the clustered index = page gets per warm point select on the full key
    (the adaptive hash index is off). Every leaf is at the same depth, so the first keys serve."""
    cols = ", ".join(f"`{c}`" for c in primary_key)
    keys = db.query_all(conn, f"SELECT {cols} FROM `{database}`.`{table}` ORDER BY {cols} LIMIT {HEIGHT_SAMPLES}")
    if not keys:
        return 1
    where = " AND ".join(f"`{c}` = %s" for c in primary_key)
    sql = f"SELECT 1 FROM `{database}`.`{table}` WHERE {where}"
    cur = conn.cursor()

    def gets() -> int:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'")
        return int(cur.fetchone()[1])

    try:
        for k in keys:  # warm
            cur.execute(sql, k)
            cur.fetchall()
        per_select = []
        # Background threads (purge and stats after a load) only add page gets: keep the least.
        for _ in range(3):
            before = gets()
            for k in keys:
                cur.execute(sql, k)
                cur.fetchall()
            per_select.append((gets() - before) / len(keys))
    finally:
        cur.close()
    return max(1, int(min(per_select) + 0.2))


# -- an existing table ---------------------------------------------------------------------------
def raise_unreadable(exc: BaseException, database: str, table: str, why_select: str, missing: LoadgenError,
                     denied: type[LoadgenError] = LoadgenError):
    """Raise the one-line error for a failed read of database.table: no grant (`denied`, saying
    what to GRANT), `missing` when the table is not there, else the server's words."""
    code = exc.args[0] if getattr(exc, "args", None) and isinstance(exc.args[0], int) else 0
    if code in ER_TABLEACCESS_DENIED:
        raise denied(f"the --dsn user cannot read {database}.{table}: {db.error_text(exc)}",
                     f"GRANT SELECT ON `{database}`.* TO that user ({why_select})") from None
    if code == ER_NO_SUCH_TABLE:
        raise missing from None
    raise WorkloadError(f"cannot read {database}.{table}: {db.error_text(exc)}") from None


def inspect_existing(conn, spec):
    """DatasetInfo of --table db.tbl, after checking it can be read; nothing is written."""
    database, table = spec.database, spec.table
    ident(database, "--table database")
    ident(table, "--table table")
    try:
        db.query_all(conn, f"SELECT 1 FROM `{database}`.`{table}` LIMIT 1")
    except Exception as exc:  # noqa: BLE001 - classified by raise_unreadable
        raise_unreadable(exc, database, table, "loadgen only reads", UsageError(
            f"--table {database}.{table} does not exist on that server", "check the name (database.table)"))
    engine = db.query_value(conn, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s "
                            "AND TABLE_NAME=%s", (database, table))
    if engine is not None and str(engine).lower() != "innodb":
        raise UsageError(f"{database}.{table} is {engine}, not InnoDB: there is no buffer pool to measure")
    shape = reflect(borrow_conn(conn), database, table)
    if not shape.primary_key:
        raise UsageError(f"{database}.{table} has no primary key", "loadgen queries tables by key")
    return table_info(conn, spec, shape, seeded=False, existing=True)


def retarget(workload, info):
    """The workload over the table's keys (1..keys, offset when queried) instead of --rows."""
    keys = getattr(info, "rows", None)
    if keys and getattr(workload, "rows", keys) != keys:
        return dataclasses.replace(workload, rows=keys)
    return workload


def reads_secondary(info) -> bool:
    """The run's query reads an index other than the clustered one (EXPLAIN said so)."""
    return bool(info.query) and info.index not in (None, "PRIMARY")


def apply_query(conn, spec, info):
    """A built-in table queried with --query or --key-column: resolve them as for any table."""
    if info.query is not None or not (spec.query or spec.key_column):
        return info
    shape = reflect(borrow_conn(conn), info.database, info.table)
    if spec.query:
        query, key = check_query(spec.query), spec.key_column or shape.primary_key[0]
    else:
        query, key = default_query(shape, spec.key_column)
    index, covering = explain_index(conn, info.database, query, max(1, info.rows // 2))
    return dataclasses.replace(info, query=query, key_column=key, index=index, index_only=covering,
                               table_rows=info.rows)
