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
from .chunks import chunk_dir, chunk_file, generated_ahead, in_one_line, load_local, seed_error
from ..errors import LoadgenError, SchemaRefused, SeedError, UsageError, WorkloadError
from .schemas import create_tables, queried_table, read_schema_file, reflect
from .tableinfo import table_info
from .userquery import check_query, default_query, explain_index
from ..units import format_bytes

CHUNK_ROWS = 50_000
# Rough bytes a generated row costs on disk while loading (row, page fill, redo, undo), for the
# free-space check; the built-in tables use their measured figure.
EST_OVERHEAD_PER_ROW = 60
_IDENT = re.compile(r"^\w+$")
ER_TABLEACCESS_DENIED = (1142, 1143, 1044)  # SELECT/column denied, database denied
ER_NO_SUCH_TABLE = 1146


def ident(name: str, what: str) -> str:
    """`name` quoted, after checking it is a plain identifier (they reach SQL text)."""
    if not _IDENT.match(name or ""):
        raise UsageError(f"{what} {name!r} is not a plain identifier", "use letters, digits and _")
    return f"`{name}`"


# -- seeding a schema file -----------------------------------------------------------------------
def _meta_identity(spec, table: str) -> dict[str, str]:
    return {"schema": spec.schema_label, "schema_hash": spec.schema_hash, "rows": str(spec.rows),
            "seed": str(spec.seed), "generator": f"t{tablegen.GENERATOR_VERSION}", "table": table}


def ensure(conn, spec, progress=None, free_bytes: int | None = None, home: Path | None = None,
           may_seed: str | None = None):
    """dataset.ensure for your own table: seed a schema file's table, or inspect an existing one.
    The server's errors become one-line LoadgenErrors that never advise dropping the user's data.
    may_seed: None, or why this server may not be written to (dataset.ensure)."""
    def failed(text: str) -> LoadgenError:
        if spec.existing:
            return WorkloadError(f"cannot read {spec.database}.{spec.table}: {text}",
                                 "check the table and the user's grants")
        return SeedError(f"seeding {spec.schema} into {spec.database} failed: {text}",
                         f"drop the database {spec.database} (loadgen's own) and re-run")

    def prepare():
        if spec.existing:
            return inspect_existing(conn, spec)
        return ensure_seeded(conn, spec, progress, free_bytes, home, may_seed)

    return in_one_line(prepare, f"preparing {spec.database}.{spec.table or spec.schema_label}", "nothing is damaged",
                       failed)


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


def _row_estimate(plan: tablegen.RowPlan) -> int:
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


def load(conn, database: str, table: str, plan: tablegen.RowPlan, seed: int, first: int, last: int,
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
    shape = check_existing(conn, spec.database, spec.table)
    return table_info(conn, spec, shape, seeded=False, existing=True)


def check_existing(conn, database: str, table: str):
    """The shape of an existing table once it is known readable, InnoDB and keyed (one line each
    otherwise); nothing is written."""
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
    return shape


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
