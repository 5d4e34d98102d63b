"""The chat.message dataset: schema files, deterministic seeding, verification, geometry.

Rows are a pure function of (seed, id), generated in chunks aligned on ids, so a seed that was
interrupted resumes from MAX(id) and produces the same table as one that was not. A table made
by loadgen carries a small `loadgen_meta` table; a re-run that finds matching meta only verifies.
"""
from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Callable
from collections.abc import Iterator

from .. import db
from .chatrows import GENERATOR_VERSION, chunk_lines, chunk_ranges
from .chunks import chunk_dir, chunk_file, generated_ahead, in_one_line, load_local, seed_error
from ..errors import LoadgenError, SeedError, UsageError
from .height import believed_height, measure_id_height, plausible_height
from ..units import format_bytes

# Bump when the row generator changes: a cached dataset from another generator is not reused.
TABLE = "message"
# What a row costs on disk, for the free-space estimate made before seeding: ~140 B/row of data
# pages plus redo/undo/temporary overhead while loading.
EST_BYTES_PER_ROW = 190



@dataclass(frozen=True)
class DatasetSpec:
    rows: int
    schema: str = "chat"  # a schema name under schema/ (without .sql), or the path of any .sql file
    database: str = "chat"
    seed: int = 1
    # Your own table (usertable.py): which table of the schema file to seed and query (None: the
    # first), or with existing=True the table database.table already on the server, never written.
    table: str | None = None
    existing: bool = False
    query: str | None = None  # --query, one ? bound to the key
    key_column: str | None = None  # --key-column

    @property
    def custom(self) -> bool:
        """A schema file of the user's (seeded by usertable.py), not one of the built-in tables."""
        return not self.existing and is_schema_path(self.schema)

    @property
    def schema_label(self) -> str:
        """The schema's name in cache keys and results: the file's stem, safe in a volume name."""
        return re.sub(r"[^A-Za-z0-9_.-]", "_", Path(self.schema).stem if self.custom else self.schema)

    @property
    def schema_sql(self) -> str:
        return schema_text(self.schema)

    @property
    def schema_hash(self) -> str:
        return hashlib.sha256(self.schema_sql.encode()).hexdigest()[:16]

    def cache_key(self, flavor: db.Flavor) -> str:
        if self.custom:
            from .tablegen import GENERATOR_VERSION as TABLEGEN_VERSION

            table = f"-{re.sub(r'[^A-Za-z0-9_]', '_', self.table)}" if self.table else ""
            return (f"{flavor.name}-{flavor.version}-{self.schema_label}{table}-{self.schema_hash}-r{self.rows}"
                    f"-s{self.seed}-t{TABLEGEN_VERSION}")
        return (f"{flavor.name}-{flavor.version}-{self.schema}-{self.schema_hash}-r{self.rows}-s{self.seed}"
                f"-g{GENERATOR_VERSION}")


@dataclass
class DatasetInfo:
    """What the result file records about the table a run measured."""

    schema: str
    database: str
    table: str
    rows: int
    seed: int
    schema_hash: str
    table_bytes: int
    leaf_pages: int
    index_pages: int
    height: int
    seeded: bool  # True when this command seeded (some of) it, False when it only verified
    seed_rows_per_s: float | None = None
    seed_method: str | None = None  # "load data local" | "insert" (the server refused LOAD DATA LOCAL)
    seed_note: str | None = None  # what was done about local_infile, in words
    # Your own table (usertable.py); `rows` is then the number of keys the order ranges over.
    table_rows: int | None = None
    key_column: str | None = None
    key_offset: int = 0  # the order's id i queries key key_offset + i
    query: str | None = None  # None: the built-in point select on id
    index: str | None = None  # the index the query reads, from EXPLAIN
    index_only: bool = False  # EXPLAIN says "Using index": the query never reads the row
    existing: bool = False  # --table: a table loadgen did not create and never writes
    # The server's sizes could not hold the rows (stale statistics): what was estimated instead.
    stats_note: str | None = None
    # A table whose keys have gaps (tableinfo.read_keys): the keys the order's ids 1..rows stand
    # for, in key order, and how they were read: {key_span, keys, every} (every k-th key kept).
    key_map: object = None  # array('Q'); not in the result file
    key_gaps: dict | None = None
    # A reused table whose rows are counted after the runs (ensure(count_after=True)), not in
    # the result file.
    count_after: bool = False

    def to_dict(self) -> dict:
        # not asdict: it would deep-copy the key map (up to 64 MiB)
        return {f.name: (dict(v) if isinstance(v := getattr(self, f.name), dict) else v)
                for f in fields(self) if f.name not in ("key_map", "count_after")}


def schema_dir() -> Path:
    try:
        return Path(str(resources.files("loadgen.schema")))
    except (ModuleNotFoundError, TypeError):  # running from a checkout without install
        return Path(__file__).resolve().parent.parent / "schema"


def available_schemas() -> list[str]:
    return sorted(p.stem for p in schema_dir().glob("*.sql"))


def schema_choices() -> str:
    """What to say after an unknown schema: the built-ins, or that the install lost them (an
    editable install whose checkout moved said "choose one of: " and nothing)."""
    names = available_schemas()
    if not names:
        return f"loadgen's built-in schemas are missing from {schema_dir()}: reinstall it (make venv)"
    return f"choose one of: {', '.join(names)}"


def is_schema_path(name: str) -> bool:
    """--schema names a file (my_table.sql, ./x.sql, /abs/path) rather than a built-in schema."""
    return name.endswith(".sql") or "/" in name or os.sep in name


def schema_text(name: str) -> str:
    if is_schema_path(name):
        from .schemas import read_schema_text

        return read_schema_text(name)
    path = schema_dir() / f"{name}.sql"
    if not path.is_file():
        raise UsageError(f"unknown schema {name!r}", schema_choices())
    return path.read_text()


# -- meta ----------------------------------------------------------------------------------------
def read_meta(conn, database: str) -> dict[str, str] | None:
    if not db.query_value(
        conn, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND TABLE_NAME='loadgen_meta'",
        (database,),
    ):
        return None
    return {k: v for k, v in db.query_all(conn, f"SELECT k, v FROM `{database}`.loadgen_meta")}


def open_meta(conn, database: str, identity: dict[str, str]) -> tuple[dict[str, str], bool]:
    """Create the database and its meta table where missing; (the meta it holds, whether that
    meta records the same identity: schema, generator, rows, seed)."""
    cur = conn.cursor()
    cur.execute(f"CREATE DATABASE IF NOT EXISTS `{database}`")
    cur.execute(f"CREATE TABLE IF NOT EXISTS `{database}`.loadgen_meta (k VARCHAR(64) PRIMARY KEY, v TEXT)")
    cur.close()
    meta = read_meta(conn, database) or {}
    return meta, all(meta.get(k) == v for k, v in identity.items())


def write_meta(conn, database: str, values: dict) -> None:
    cur = conn.cursor()
    for k, v in values.items():
        cur.execute(f"REPLACE INTO `{database}`.loadgen_meta (k, v) VALUES (%s, %s)", (k, str(v)))
    cur.close()


def _table_exists(conn, database: str) -> bool:
    return bool(db.query_value(
        conn, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s",
        (database, TABLE),
    ))


def _identity(spec: DatasetSpec) -> dict:
    return {"schema": spec.schema, "schema_hash": spec.schema_hash, "rows": spec.rows, "seed": spec.seed,
            "generator": GENERATOR_VERSION}


# -- seeding -------------------------------------------------------------------------------------
ProgressFn = Callable[[int, int], None]


def ensure(conn, spec: DatasetSpec, progress: ProgressFn | None = None, free_bytes: int | None = None,
           home: Path | None = None, say: Callable[[str], None] | None = None,
           count_after: bool = False, may_seed: str | None = None) -> DatasetInfo:
    """Make `database.message` hold exactly spec's rows: verify, resume, or seed from scratch.

    Args:
        conn: an autocommit connection with LOAD DATA LOCAL allowed (local_infile=1).
        progress: called with (rows_done, rows_total) as chunks land.
        free_bytes: free space where the server keeps its data, when known, for the estimate.
        home: the cached dataset's directory (local server), named in errors; seeding's chunk
            files live in its tmp/ (else in the cache directory's tmp/).
        say: tells the user when a damaged cached table is seeded again, and at once when seeding
            falls back to INSERTs (local_infile=OFF).
        count_after: a complete table is checked by its key range now (two index dives) and its
            rows are counted after the runs (check_count), not by a scan now: on a server loadgen
            cannot restart and no resize can empty (MySQL's one-chunk pool) that scan would leave
            the table in the pool, and no run could start cold.
        may_seed: None, or why this server may not be written to (another job keeps it up): then
            a table that would need seeding is refused, and nothing is created.
    Returns:
        DatasetInfo with the table's geometry.
    """
    def damaged(text: str) -> SeedError:
        if home is not None:
            return SeedError(f"the cached dataset in {home} is damaged: {text}", f"remove {home} and re-run")
        return SeedError(f"the table {spec.database}.{TABLE} is damaged: {text}",
                         f"drop the database {spec.database} and re-run")

    return in_one_line(lambda: _ensure(conn, spec, progress, free_bytes, home, say or (lambda _: None), count_after,
                                       may_seed), "checking the dataset", "the table is not damaged", damaged)




def _ensure(conn, spec: DatasetSpec, progress: ProgressFn | None, free_bytes: int | None, home: Path | None,
            say: Callable[[str], None], count_after: bool = False, may_seed: str | None = None) -> DatasetInfo:
    database = spec.database
    identity = {k: str(v) for k, v in _identity(spec).items()}
    if may_seed is None:
        meta, same = open_meta(conn, database, identity)
    else:  # read only: not even the database or the meta table is created
        meta = read_meta(conn, database) or {}
        same = all(meta.get(k) == v for k, v in identity.items())
    exists = _table_exists(conn, database)

    if exists and same and meta.get("complete") == "1":
        if count_after:
            min_id, max_id = db.query_all(conn, f"SELECT MIN(id), MAX(id) FROM `{database}`.`{TABLE}`")[0]
            count = None
            if (min_id, max_id) == (1, spec.rows):
                info = _info(conn, spec, meta, seeded=False)
                info.count_after = True
                return info
        else:
            # One scan of the table: rows deleted, added or a damaged page show up here (MAX(id)
            # alone let a half-deleted table through). The checksum is recorded for `CHECKSUM TABLE`.
            count, min_id, max_id = db.query_all(
                conn, f"SELECT COUNT(*), MIN(id), MAX(id) FROM `{database}`.`{TABLE}`")[0]
            if (count, min_id, max_id) == (spec.rows, 1, spec.rows):
                return _info(conn, spec, meta, seeded=False)
        # Meta says complete but the table disagrees: someone changed it. Start over.
        where = f" in {home}" if home is not None else ""
        held = f"{count:,} rows" if count is not None else "rows"
        if may_seed is not None:
            raise refuse_seed(spec, may_seed, f"holds {held} (ids {min_id}..{max_id}), not {spec.rows:,}")
        say(f"the cached {database}.{TABLE}{where} holds {held} (ids {min_id}..{max_id}), "
            f"not {spec.rows:,}: seeding it again")
    elif may_seed is not None:
        raise refuse_seed(spec, may_seed, "is not there" if not exists else
                          "is not complete" if same else f"holds another dataset ({meta.get('rows', '?')} rows)")
    if exists and not meta:
        raise SeedError(
            f"{database}.{TABLE} exists but was not created by loadgen",
            "point loadgen at another database with --database, or drop the table yourself",
        )
    if exists and not (same and meta.get("complete") != "1"):
        db.query_all(conn, f"DROP TABLE `{database}`.`{TABLE}`")
        exists = False
    if not exists:
        # The meta first: a seed interrupted right after CREATE TABLE then resumes, instead of
        # finding a table without meta ("not created by loadgen") on the next run.
        db.query_all(conn, f"DELETE FROM `{database}`.loadgen_meta")
        write_meta(conn, database, {**identity, "complete": 0})
        _create_table(conn, spec)

    start_id = (db.query_value(conn, f"SELECT MAX(id) FROM `{database}`.`{TABLE}`") or 0) + 1
    remaining = spec.rows - start_id + 1
    if free_bytes is not None and remaining * EST_BYTES_PER_ROW > free_bytes:
        raise SeedError(
            f"seeding {remaining:,} rows needs about {format_bytes(remaining * EST_BYTES_PER_ROW)}, "
            f"only {format_bytes(free_bytes)} free",
            "use fewer --rows, free disk space, or set LOADGEN_CACHE_DIR to a larger disk",
        )
    started = time.monotonic()
    method, note = _load(conn, spec, start_id, progress, chunk_dir(home), say)
    elapsed = time.monotonic() - started
    db.query_all(conn, f"ANALYZE TABLE `{database}`.`{TABLE}`")
    info = _info(conn, spec, meta, seeded=True)
    info.seed_rows_per_s = remaining / elapsed if elapsed > 0 and remaining > 0 else None
    info.seed_method, info.seed_note = method, note
    count = db.query_value(conn, f"SELECT COUNT(*) FROM `{database}`.`{TABLE}`")
    if count != spec.rows:
        raise SeedError(f"seeding ended with {count:,} rows in {database}.{TABLE}, not {spec.rows:,}",
                        "another client may have changed the table; re-run to seed it again")
    checksum = db.query_all(conn, f"CHECKSUM TABLE `{database}`.`{TABLE}`")[0][1]
    write_meta(conn, database, {"complete": 1, "height": info.height, "row_count": count, "checksum": checksum})
    return info


def refuse_seed(spec, why: str, state: str) -> LoadgenError:
    """The error for a dataset that would have to be seeded into a server this job may not write."""
    from ..errors import ProvisionError

    name = f"{spec.database}.{getattr(spec, 'table', None) or TABLE}"
    return ProvisionError(f"{name} ({spec.rows:,} rows) {state} on {why}: loadgen does not seed into it",
                          "use the rows that server holds (--rows, --schema as there), seed it from the job that "
                          "keeps it up, or give this job a state directory of its own (LOADGEN_STATE_DIR)")


def check_count(conn, info: DatasetInfo) -> None:
    """The count ensure(count_after=True) left for after the runs. A table that changed is marked
    incomplete, so the next run seeds it again, and reported (SeedError)."""
    count = db.query_value(conn, f"SELECT COUNT(*) FROM `{info.database}`.`{TABLE}`")
    if count == info.rows:
        return
    write_meta(conn, info.database, {"complete": 0, "rows": "changed"})  # not a prefix to resume: seed anew
    raise SeedError(f"{info.database}.{TABLE} holds {count:,} rows, not {info.rows:,}: it was changed, and the "
                    "runs measured the changed table (their results are marked incomplete)",
                    "re-run: loadgen seeds the table again")


def _create_table(conn, spec: DatasetSpec) -> None:
    cur = conn.cursor()
    cur.execute(f"USE `{spec.database}`")
    for statement in _statements(spec.schema_sql):
        cur.execute(statement)
    cur.close()


def _statements(sql: str) -> list[str]:
    lines = [ln for ln in sql.splitlines() if not ln.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _load(conn, spec: DatasetSpec, start_id: int, progress: ProgressFn | None, tmp_dir: Path,
          say: Callable[[str], None] | None = None) -> tuple[str, str | None]:
    """LOAD DATA LOCAL each chunk, generating the next one in a thread meanwhile (chunks.py).

    A server with local_infile=OFF (MySQL's default) refuses LOAD DATA LOCAL: then we turn it on
    with SET GLOBAL where this user may, and back off after; else we fall back to INSERTs (~37x
    slower on MySQL 9.7). Returns (method, note) for the user.
    """
    note = None
    turned_on = False
    use_local = True
    with generated_ahead(_chunk_data(spec, start_id), "loadgen-seed-gen") as chunks, chunk_file(tmp_dir) as path:
        try:
            cur = conn.cursor()
            cur.execute("SET time_zone = '+00:00'")
            for last, data in chunks:
                loaded = use_local and load_local(cur, _load_sql(spec), path, data)
                if use_local and not loaded:  # refused: LOCAL from here on where we may turn it on
                    # turned_on is True from before the SET GLOBAL: an interrupt right after it (in
                    # the LOAD DATA that follows) must still turn it off in the finally below
                    turned_on = _local_infile_off(cur)
                    turned_on, note = _turn_local_infile_on(cur) if turned_on else (False, NO_LOCAL_ON_CONNECTION)
                    loaded = turned_on and load_local(cur, _load_sql(spec), path, data)
                    if turned_on:
                        note = TURNED_ON if loaded else TURNED_ON_STILL_REFUSED
                    use_local = loaded
                    if not loaded and say:
                        say(f"warning: {note}")
                if not loaded:
                    _insert_rows(cur, spec, data)
                if progress:
                    progress(last, spec.rows)
            cur.close()
        finally:
            if turned_on:
                try:
                    db.query_all(conn, "SET GLOBAL local_infile = 0")
                except Exception:  # noqa: BLE001 - the server may be gone; said in the note
                    note = (note or "") + "; could not set it back to OFF: check SELECT @@GLOBAL.local_infile"
    return ("load data local" if use_local else "insert"), note


def _chunk_data(spec: DatasetSpec, start_id: int) -> Iterator[tuple[int, bytes]]:
    """(last id, rows) of each chunk from the one holding start_id on."""
    for first, last in chunk_ranges(start_id, spec.rows):
        data = chunk_lines(spec.seed, first, last)
        if first < start_id:  # resuming inside a chunk: drop the rows already there
            data = b"\n".join(data.split(b"\n")[start_id - first:])
        yield last, data


def _load_sql(spec: DatasetSpec) -> str:
    return (f"LOAD DATA LOCAL INFILE %s INTO TABLE `{spec.database}`.`{TABLE}` "
            "FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' "
            "(id, channel_id, author_id, alias, body, @ts) SET created_at = FROM_UNIXTIME(@ts)")


NO_LOCAL_ON_CONNECTION = "this connection does not allow LOAD DATA LOCAL: seeding with INSERTs"
TURNED_ON = "the server had local_infile=OFF: loadgen set it ON for the seed and back to OFF after"
TURNED_ON_STILL_REFUSED = "local_infile was turned on but LOAD DATA LOCAL still refused: seeding with INSERTs"


def _local_infile_off(cur) -> bool:
    """The server refused LOAD DATA LOCAL: was it the server (local_infile=OFF), not the client?"""
    cur.execute("SELECT @@GLOBAL.local_infile")
    return str(cur.fetchone()[0]) not in ("1", "ON")


def _turn_local_infile_on(cur) -> tuple[bool, str | None]:
    """SET GLOBAL local_infile = 1 for the seed if this user may. Returns (turned_on, note)."""
    try:
        cur.execute("SET GLOBAL local_infile = 1")
    except Exception as exc:  # noqa: BLE001 - no privilege: INSERTs it is
        return False, (f"the server has local_infile=OFF and this user may not change it ({db.error_text(exc)}): "
                       "seeding with INSERTs, ~37x slower; to seed fast, have an admin run "
                       "SET GLOBAL local_infile=1 for the seed (and =0 after), "
                       "or grant this user SYSTEM_VARIABLES_ADMIN: "
                       "loadgen then turns it on for the seed and back off itself")
    return True, None


def _insert_rows(cur, spec: DatasetSpec, data: bytes) -> None:
    rows = [line.split(b"\t") for line in data.split(b"\n") if line]
    sql = (f"INSERT INTO `{spec.database}`.`{TABLE}` (id, channel_id, author_id, alias, body, created_at) "
           "VALUES (%s, %s, %s, %s, %s, FROM_UNIXTIME(%s))")
    try:
        for i in range(0, len(rows), 1000):
            cur.executemany(sql, [tuple(v.decode() for v in r) for r in rows[i:i + 1000]])
    except Exception as exc:  # noqa: BLE001 - classified by seed_error
        raise seed_error(exc) from None


# -- geometry ------------------------------------------------------------------------------------
def _info(conn, spec: DatasetSpec, meta: dict, seeded: bool) -> DatasetInfo:
    stats = dict(db.query_all(
        conn,
        "SELECT stat_name, stat_value FROM mysql.innodb_index_stats "
        "WHERE database_name=%s AND table_name=%s AND index_name='PRIMARY' AND stat_name IN ('n_leaf_pages','size')",
        (spec.database, TABLE),
    ))
    data_length, index_length = db.query_all(
        conn, "SELECT DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s",
        (spec.database, TABLE),
    )[0]
    leaf_pages = int(stats.get("n_leaf_pages", 0))
    cached = int(meta["height"]) if seeded is False and str(meta.get("height", "")).isdigit() else None
    if cached is not None and plausible_height(cached, leaf_pages, spec.rows):
        height = cached
    else:
        height = _measured_height(conn, spec, leaf_pages)
        if cached is not None:  # an implausible height cached by an older loadgen: replace it
            write_meta(conn, spec.database, {"height": height})
    return DatasetInfo(
        schema=spec.schema, database=spec.database, table=TABLE, rows=spec.rows, seed=spec.seed,
        schema_hash=spec.schema_hash, table_bytes=int(data_length) + int(index_length),
        leaf_pages=leaf_pages, index_pages=int(stats.get("size", 0)),
        height=height, seeded=seeded,
    )


def _measured_height(conn, spec: DatasetSpec, leaf_pages: int) -> int:
    """measure_id_height, refused when it cannot be right (height.believed_height)."""
    return believed_height(lambda: measure_id_height(conn, spec.database, TABLE, spec.rows), leaf_pages, spec.rows,
                           f"{spec.database}.{TABLE}", attempts=6)
