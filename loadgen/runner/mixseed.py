"""A mix's tables: seeded (or reused, or re-seeded after a run wrote to them), and measured.

Every table a workload file declares with a schema is created in --database from its schema file
(the built-ins under schema/ or the user's .sql; only the statements that make that table: its
CREATE TABLE and the CREATE INDEXes on it) and filled in key order with tablegen's deterministic
rows through usertable.load (LOAD DATA LOCAL, resumable), as `--schema FILE.sql` tables are.
The whole set is cached like a dataset: a datadir (local) or a volume (docker) per set of
tables, keyed by flavour, version and every table's schema, rows and seed (MixDataset.cache_key).

Each table's state lives in loadgen_meta under its own key ("mix.<table>"): what it was seeded
from, and whether it is complete. A mix that writes (updates, inserts, deletes) marks the tables
it writes "written" before it starts; the next run seeds those again, so every run starts from
the same table (the same pages, the geometry the model reads). An existing table (`existing =
"db.table"`, --dsn) is only read: its geometry, never a write.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from .. import db
from ..seeding import tablegen
from ..seeding.chunks import chunk_dir, in_one_line
from ..errors import SeedError, UsageError
from ..seeding.schemas import SchemaFile, create_tables, reflect
from ..units import format_bytes
from ..workload import tabledefs
from ..workload.mix import MixSpec, TableSpec

META_PREFIX = "mix."
# On-disk bytes per generated row beyond its columns' widths (record header, page fill, redo and
# undo while loading), for the free-space check before seeding.
EST_OVERHEAD_PER_ROW = 80

Say = Callable[[str], None]


@dataclass(frozen=True)
class MixDataset:
    """What provisioning needs to know about a mix's tables (DatasetSpec's duck type): the cache
    key of the datadir/volume holding them, and their rows for the disk estimate."""

    spec: MixSpec
    database: str = "chat"
    seed: int = 1  # --data-seed: the row generator's

    @property
    def seeded(self) -> list[TableSpec]:
        return [t for t in self.spec.tables if not t.existing]

    @property
    def rows(self) -> int:
        return sum(int(t.rows) for t in self.seeded)

    def identity(self, t: TableSpec) -> dict:
        from ..seeding.dataset import schema_text

        return {"schema": Path(t.schema).name if "/" in t.schema else t.schema,
                "schema_hash": hashlib.sha256(_table_sql(schema_text(t.schema), t.name).encode()).hexdigest()[:16],
                "rows": int(t.rows), "seed": self.seed, "generator": f"t{tablegen.GENERATOR_VERSION}"}

    def cache_key(self, flavor: db.Flavor) -> str:
        seeded = sorted(self.seeded, key=lambda t: t.name)
        ident = json.dumps([self.database] + [[t.name, self.identity(t)] for t in seeded],
                           sort_keys=True)
        names = "-".join(sorted(t.name for t in self.seeded))[:40]
        return f"{flavor.name}-{flavor.version}-mix-{names}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}"


@dataclass
class IndexInfo:
    name: str
    columns: list[str]
    leaf_pages: int | None = None
    pages: int | None = None
    height: int | None = None
    leaf_pages_source: str = "mysql.innodb_index_stats n_leaf_pages"
    unique: bool = False  # MySQL's change buffer takes changes to a non-unique index only
    # how height was measured (seeding/height.py secondary_height): "handler", "select"; None in
    # runs before it (a MariaDB one's SELECT height is 2 over: ibdpages.tables_of)
    height_from: str | None = None


@dataclass
class TableInfo:
    """One table of a mixed run: where it is, its rows and its B-trees (the model's geometry)."""

    name: str  # the mix's name for it
    database: str
    table: str
    rows: int  # keys 1..rows (an existing table: its key range, offset by key_offset)
    key_column: str
    key_offset: int = 0
    schema: str | None = None
    existing: bool = False
    seeded: bool = False  # this command seeded it
    seed_rows_per_s: float | None = None
    table_bytes: int = 0
    leaf_pages: int = 0
    index_pages: int = 0
    height: int = 1
    columns: dict[str, str] = field(default_factory=dict)  # name -> type word (INT, CHAR, ...)
    column_lengths: dict[str, int] = field(default_factory=dict)
    nullable: list[str] = field(default_factory=list)
    defaults: list[str] = field(default_factory=list)  # columns with a DEFAULT
    generated: list[str] = field(default_factory=list)  # generated columns: the server fills them
    primary_key: list[str] = field(default_factory=list)
    indexes: dict[str, IndexInfo] = field(default_factory=dict)  # secondary indexes
    # an existing table's looked-up columns: (lowest, highest) value, onto which keys 1..rows map
    column_ranges: dict[str, list[int]] = field(default_factory=dict)

    @property
    def qualified(self) -> str:
        return f"{self.database}.{self.table}"

    def to_dict(self) -> dict:
        out = asdict(self)
        out["indexes"] = {k: asdict(v) for k, v in self.indexes.items()}
        return out


def _table_sql(text: str, table: str) -> str:
    """The statements of a schema file that make `table`: its CREATE TABLE, CREATE INDEX on it."""
    return ";\n".join(st.sql for st in tabledefs.statements_for(text, table)[0])


def _meta_key(table: str) -> str:
    key = META_PREFIX + table
    return key if len(key) <= 64 else META_PREFIX + hashlib.sha1(table.encode()).hexdigest()


def _read_meta(conn, database: str, table: str) -> dict | None:
    rows = db.query_all(conn, f"SELECT v FROM `{database}`.loadgen_meta WHERE k = %s", (_meta_key(table),))
    if not rows:
        return None
    try:
        return json.loads(rows[0][0])
    except (TypeError, ValueError):
        return None


def write_table_meta(conn, database: str, table: str, value: dict) -> None:
    db.query_all(conn, f"REPLACE INTO `{database}`.loadgen_meta (k, v) VALUES (%s, %s)",
                 (_meta_key(table), json.dumps(value, sort_keys=True)))


def _exists(conn, database: str, table: str) -> bool:
    return bool(db.query_value(conn, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s "
                                     "AND TABLE_NAME=%s", (database, table)))


def ensure(conn, data: MixDataset, progress=None, free_bytes: int | None = None, home: Path | None = None,
           say: Say = lambda _: None) -> dict[str, TableInfo]:
    """Every table of the mix ready to run: seeded, resumed, re-seeded or reused; existing ones
    inspected. Returns {mix table name: TableInfo}. The server's errors become one line."""
    # an interrupted seed is never a damaged table (issue #18, N6): the same words as a single table's
    return in_one_line(lambda: _ensure(conn, data, progress, free_bytes, home, say), "preparing the mix's tables",
                       "nothing is damaged",
                       lambda text: SeedError(f"preparing the mix's tables in {data.database} failed: {text}",
                                              f"drop the database {data.database} (loadgen's own) and re-run"))


def _ensure(conn, data: MixDataset, progress, free_bytes, home, say) -> dict[str, TableInfo]:
    out: dict[str, TableInfo] = {}
    database = data.database
    if data.seeded:
        db.query_all(conn, f"CREATE DATABASE IF NOT EXISTS `{database}`")
        db.query_all(conn, f"CREATE TABLE IF NOT EXISTS `{database}`.loadgen_meta (k VARCHAR(64) PRIMARY KEY, v TEXT)")
    for t in data.spec.tables:
        if t.existing:
            out[t.name] = inspect_table(conn, t)
        else:
            out[t.name] = _ensure_table(conn, data, t, progress, free_bytes, home, say)
    return out


def _ensure_table(conn, data: MixDataset, t: TableSpec, progress, free_bytes, home, say) -> TableInfo:
    from ..seeding.dataset import schema_dir, schema_text
    from ..seeding.usertable import borrow_conn, load

    database, name = data.database, t.name
    identity = data.identity(t)
    meta = _read_meta(conn, database, name)
    exists = _exists(conn, database, name)
    if exists and meta is None:
        raise SeedError(f"{database}.{name} exists but was not created by loadgen for a mix",
                        "point loadgen at another database with --database, or drop the table yourself")
    same = meta is not None and all(meta.get(k) == v for k, v in identity.items())
    if exists and same and meta.get("state") == "complete":
        shape = reflect(borrow_conn(conn), database, name)
        pk = shape.primary_key[0]
        count, lo, hi = db.query_all(conn, f"SELECT COUNT(*), MIN(`{pk}`), MAX(`{pk}`) FROM `{database}`.`{name}`")[0]
        if (count, lo, hi) == (t.rows, 1, t.rows):
            return _info(conn, t, database, shape, seeded=False)
        say(f"{database}.{name} holds {count:,} rows (keys {lo}..{hi}), not {t.rows:,}: seeding it again")
    elif exists and same and meta.get("state") == "written":
        say(f"seeding {database}.{name} again: the last run wrote to it")
    resume = exists and same and meta.get("state") == "partial"
    if not resume:
        if exists:
            db.query_all(conn, f"DROP TABLE `{database}`.`{name}`")
        text = schema_text(t.schema)
        path = Path(t.schema) if "/" in t.schema else schema_dir() / f"{t.schema}.sql"
        statements, databases = tabledefs.statements_for(text, name)
        if tabledefs.unsafe_options(text, name):  # checked at parse time too; the file may have changed since
            raise UsageError(f"{t.schema}: CREATE TABLE {name} reads or writes beyond its own columns",
                             "no SELECT, LIKE or DIRECTORY after the column list")
        if databases:
            raise UsageError(f"{t.schema}: {name} is made in database {databases[0]}",
                             "a mix's tables are created in --database: leave the database out of the file")
        statements = tuple(statements)
        create_tables(conn, database, SchemaFile(path, text, statements, (name,)))
        write_table_meta(conn, database, name, {**identity, "state": "partial"})
    shape = reflect(borrow_conn(conn), database, name)
    if not shape.primary_key:
        raise UsageError(f"{t.schema}: the server made {name} without a primary key", "declare a PRIMARY KEY")
    plan = tablegen.plan(shape.columns, shape.primary_key, t.rows)
    done = int(db.query_value(conn, f"SELECT COUNT(*) FROM `{database}`.`{name}`") or 0)
    remaining = t.rows - done
    need = remaining * (EST_OVERHEAD_PER_ROW + _row_bytes(shape))
    if free_bytes is not None and need > free_bytes:
        raise SeedError(f"seeding {remaining:,} rows of {name} needs about {format_bytes(need)}, only "
                        f"{format_bytes(free_bytes)} free",
                        "use fewer --rows, free disk space, or set LOADGEN_CACHE_DIR to a larger disk")
    started = time.monotonic()
    load(conn, database, name, plan, data.seed, done + 1, t.rows,
         (lambda d, total: progress(d, total)) if progress else None, chunk_dir(home))
    elapsed = time.monotonic() - started
    db.query_all(conn, f"ANALYZE TABLE `{database}`.`{name}`")
    info = _info(conn, t, database, shape, seeded=True)
    info.seed_rows_per_s = round(remaining / elapsed) if elapsed > 0 and remaining > 0 else None
    write_table_meta(conn, database, name, {**identity, "state": "complete"})
    return info


def _row_bytes(shape) -> int:
    total = 0
    for c in shape.columns:
        total += min(c.length or 8, 4096) if c.type_name in ("CHAR", "VARCHAR", "BINARY", "VARBINARY") else 16
    return total


def mark_written(conn, data: MixDataset, tables: list[str]) -> None:
    """The run is about to write these tables: the next run seeds them again."""
    for name in tables:
        meta = _read_meta(conn, data.database, name)
        if meta is not None:
            write_table_meta(conn, data.database, name, {**meta, "state": "written"})


# -- geometry ------------------------------------------------------------------------------------
LEAF_SIZE_RATIO_MIN = 4  # n_leaf_pages under a quarter of the index's size: not believed (_info)


def _info(conn, t: TableSpec, database: str, shape, seeded: bool, existing: bool = False,
          key_offset: int = 0, rows: int | None = None) -> TableInfo:
    from ..seeding.height import measure_height, secondary_height
    from ..seeding.tableinfo import can_read_index_stats

    table = shape.table
    stats: dict[tuple[str, str], int] = {}
    if can_read_index_stats(conn):
        for index, stat, value in db.query_all(
                conn, "SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats WHERE database_name=%s "
                "AND table_name=%s AND stat_name IN ('n_leaf_pages','size')", (database, table)):
            stats[(str(index), str(stat))] = int(value)
    data_length, index_length = db.query_all(
        conn, "SELECT DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s",
        (database, table))[0]
    pk = shape.primary_key
    leaf = stats.get(("PRIMARY", "n_leaf_pages")) or max(1, int(data_length or 0) // 16384)
    info = TableInfo(
        name=t.name, database=database, table=table, rows=rows if rows is not None else int(t.rows),
        key_column=pk[0], key_offset=key_offset, schema=t.schema if not existing else None, existing=existing,
        seeded=seeded, table_bytes=int(data_length or 0) + int(index_length or 0), leaf_pages=leaf,
        index_pages=stats.get(("PRIMARY", "size"), 0),
        height=measure_height(conn, database, table, pk, leaf, rows if rows is not None else int(t.rows)),
        columns={c.name: c.type_name for c in shape.columns},
        column_lengths={c.name: c.length for c in shape.columns if c.length},
        nullable=[c.name for c in shape.columns if c.nullable],
        defaults=[c.name for c in shape.columns if c.has_default],
        generated=[c.name for c in shape.columns if c.generated], primary_key=list(pk),
    )
    for name, cols in shape.indexes.items():
        leaf, size = stats.get((name, "n_leaf_pages")), stats.get((name, "size"))
        height, height_from = secondary_height(conn, database, table, name, cols, info.height)
        ix = IndexInfo(name, list(cols), leaf, size, height, unique=name in shape.unique, height_from=height_from)
        if leaf is not None and size and leaf * LEAF_SIZE_RATIO_MIN < size:
            # MariaDB 10.11 reported n_leaf_pages 1 for a 30-page secondary index of sbtest1 (20k
            # rows; MySQL 9.7: 31) after ANALYZE: leaves are nearly all of an index's pages, so take
            # its size less the levels above (~1 in 400 at half-full pages) and say so. Not where
            # n_leaf_pages is merely under half the size: an index built after the load (sysbench's
            # k_1) has full leaves in a half-used extent (50k rows: n_leaf_pages 42, size 97, 49
            # pages read by a scan of it), and taking its size over-read a captured
            # oltp_read_write by 6% at 48M (docs/capture.md)
            ix.leaf_pages = max(leaf, size - max(1, size // 400))
            ix.leaf_pages_source = f"size ({size}); n_leaf_pages said {leaf}"
        info.indexes[name] = ix
    return info


def inspect_table(conn, t: TableSpec, hashed_keys: bool = False) -> TableInfo:
    """An existing table (--dsn): readable, InnoDB, an integer key; its key range and geometry.
    hashed_keys (a captured trace, whose keys on such a table are hashes placed by hash): a key
    that is not an integer (a VARCHAR id) is taken too, its rows the server's estimate. Nothing
    is written."""
    from ..seeding.dataset import DatasetSpec
    from ..seeding.userquery import INT_TYPES
    from ..seeding.usertable import borrow_conn, check_existing, inspect_existing as user_inspect

    database, table = t.database_table
    if hashed_keys:
        shape = check_existing(conn, database, table)
        key_type = next((c.type_name for c in shape.columns if c.name == shape.primary_key[0]), None)
        if key_type not in INT_TYPES:  # no key range to read: rows 1..TABLE_ROWS, each key's row by its hash
            rows = max(1, int(db.query_value(conn, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE "
                                                   "TABLE_SCHEMA=%s AND TABLE_NAME=%s", (database, table)) or 0))
            return _info(conn, TableSpec(name=t.name, rows=rows), database, shape, seeded=False, existing=True,
                         rows=rows)
    spec = DatasetSpec(rows=1, schema=t.existing, database=database, seed=0, table=table, existing=True)
    dinfo = user_inspect(conn, spec)  # the read-only checks, one line each
    shape = reflect(borrow_conn(conn), database, table)
    lo, hi = db.query_all(conn, f"SELECT MIN(`{shape.primary_key[0]}`), MAX(`{shape.primary_key[0]}`) "
                                f"FROM `{database}`.`{table}`")[0]
    if not (isinstance(lo, int) and isinstance(hi, int)):
        raise UsageError(f"{t.existing}: its primary key {shape.primary_key[0]} is not an integer",
                         "a mix addresses rows by an integer key")
    return _info(conn, TableSpec(name=t.name, rows=hi - lo + 1), database, shape, seeded=False, existing=True,
                 key_offset=dinfo.key_offset, rows=hi - lo + 1)


def read_column_ranges(conn, info: TableInfo, columns: list[str]) -> None:
    """An existing table's read-secondary columns: their value range (through their index), so
    the keys 1..rows spread over the values the column holds (a customer id of 0..499 in a table
    of 20,000 orders), not over the primary key's range."""
    for col in columns:
        lo, hi = db.query_all(conn, f"SELECT MIN(`{col}`), MAX(`{col}`) FROM `{info.database}`.`{info.table}`")[0]
        if not (isinstance(lo, int) and isinstance(hi, int)):
            raise UsageError(f"{info.qualified}.{col} is not an integer column: read-secondary binds integer keys",
                             "look rows up by an integer column")
        info.column_ranges[col] = [lo, hi]
