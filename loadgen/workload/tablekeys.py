"""The tables' keys a capture classifies statements against: each table's primary key, secondary
indexes and columns, read from the live server (information_schema, read only) or a --schema file."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import LoadgenError, UsageError

SYSTEM_SCHEMAS = {"mysql", "information_schema", "performance_schema", "sys"}


@dataclass
class TableDef:
    """A table's keys: its primary key, its secondary indexes, its columns in order."""

    columns: list[str]
    primary_key: list[str]
    indexes: dict[str, list[str]] = field(default_factory=dict)
    unique: set[str] = field(default_factory=set)  # secondary indexes that are UNIQUE: an equality is one row

    def bits(self) -> list[str]:
        """The secondary indexes in UPDATE mask order."""
        return sorted(self.indexes)

    def leading(self, column: str) -> str | None:
        c = column.lower()
        return next((i for i in self.bits() if self.indexes[i] and self.indexes[i][0].lower() == c), None)

    def to_dict(self) -> dict:
        return {"primary_key": self.primary_key, "indexes": {i: self.indexes[i] for i in self.bits()},
                "unique": sorted(self.unique)}


class Schemas:
    """Table definitions by (database, table), lower-cased; database None: any database (a --schema file)."""

    def __init__(self, tables: dict[tuple[str | None, str], TableDef]):
        self.tables = {(d.lower() if d else None, t.lower()): v for (d, t), v in tables.items()}

    def find(self, database: str | None, table: str) -> TableDef | None:
        t = table.lower()
        return self.tables.get((database.lower() if database else None, t)) or self.tables.get((None, t))


def schemas_from_file(path) -> Schemas:
    """Every CREATE TABLE of a .sql file (tables of any database, unless the file names one)."""
    from pathlib import Path

    from ..seeding.schemas import read_schema_text
    from .tabledefs import shape, tables

    text = read_schema_text(Path(path))
    out = {}
    for name in tables(text):
        s = shape(text, name)
        if s is None:
            raise UsageError(f"--schema {path}: cannot read the CREATE TABLE of {name}",
                             "give the server with --dsn instead (its SHOW CREATE TABLE is read)")
        out[(None, name)] = TableDef(list(s.columns), list(s.primary_key), dict(s.indexes), set(s.unique))
    if not out:
        raise UsageError(f"--schema {path} creates no table", "give a .sql file of CREATE TABLE statements")
    return Schemas(out)


def schemas_from_server(conn) -> Schemas:
    """The keys of every InnoDB table outside the system schemas (information_schema, read only)."""
    from .. import db

    system = tuple(SYSTEM_SCHEMAS)
    marks = ", ".join(["%s"] * len(system))
    try:
        cols = db.query_all(conn, "SELECT c.TABLE_SCHEMA, c.TABLE_NAME, c.COLUMN_NAME FROM "
                                  "information_schema.COLUMNS c JOIN information_schema.TABLES t ON "
                                  "t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME WHERE "
                                  f"t.ENGINE = 'InnoDB' AND c.TABLE_SCHEMA NOT IN ({marks}) "
                                  "ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION", system)
        stats = db.query_all(conn, "SELECT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM "
                                   f"information_schema.STATISTICS WHERE TABLE_SCHEMA NOT IN ({marks}) "
                                   "ORDER BY TABLE_SCHEMA, TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX", system)
    except Exception as exc:  # noqa: BLE001 - the server's message is the useful part
        raise LoadgenError(f"cannot read the tables' keys from the server: {db.error_text(exc)}",
                           "grant the --dsn user SELECT on the databases (information_schema shows only those)") \
            from None
    out: dict[tuple[str | None, str], TableDef] = {}
    for d, t, c in cols:
        out.setdefault((str(d), str(t)), TableDef([], [])).columns.append(str(c))
    for d, t, ix, c, non_unique in stats:
        tdef = out.get((str(d), str(t)))
        if tdef is None or c is None:
            continue
        if str(ix) == "PRIMARY":
            tdef.primary_key.append(str(c))
        else:
            tdef.indexes.setdefault(str(ix), []).append(str(c))
            if not int(non_unique):
                tdef.unique.add(str(ix))
    if not out:
        raise UsageError("the server has no InnoDB tables the --dsn user can see", "check the --dsn user's grants")
    return Schemas(out)
