"""Schema files and tables: parse a file of CREATE TABLE statements, create them with errors that
name the file's line, and reflect what the server made of them (SQLAlchemy's inspector).

Parsing here is only what must happen before a server exists: split statements, find the
tables, check that the queried one declares a primary key. Everything else (syntax, types,
defaults) is the server's to judge; the columns the generator fills come from reflecting the
created table, so the generator sees the types the server actually chose (BOOL -> TINYINT(1),
JSON -> LONGTEXT on MariaDB, ...).
"""
from __future__ import annotations

import hashlib
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from .. import db
from . import ddl
from ..errors import SchemaRefused, SeedError, UsageError
from ..inputs import SCHEMA_FILE_MAX_BYTES, read_capped

_CREATE = re.compile(r"^\s*CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                     r"(?:`?(\w+)`?\s*\.\s*)?`?(\w+)`?", re.IGNORECASE)
_PRIMARY = re.compile(r"\bPRIMARY\s+KEY\b", re.IGNORECASE)
# A word of a statement that may be shown: a keyword or a name (`quoted`, db.name), nothing else.
_SHOWN_WORD = re.compile(r"(?:[A-Za-z_][\w$]*|`[\w$]+`)(?:\.(?:[A-Za-z_][\w$]*|`[\w$]+`))?")
_AT_LINE = re.compile(r"at line (\d+)\s*$")


@dataclass(frozen=True)
class SchemaStatement:
    sql: str
    line: int  # line of the file where the statement starts (1-based)


@dataclass(frozen=True)
class SchemaFile:
    path: Path
    text: str
    statements: tuple[SchemaStatement, ...]
    tables: tuple[str, ...]  # CREATE TABLE names in file order

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def create_statement(self, table: str) -> SchemaStatement:
        for st in self.statements:
            m = _CREATE.match(st.sql)
            if m and m.group(2).lower() == table.lower():
                return st
        raise KeyError(table)


def split_statements(text: str) -> list[SchemaStatement]:
    """Statements separated by `;` outside quotes and comments, each with its first line."""
    out: list[SchemaStatement] = []
    buf: list[str] = []
    start_line = None
    line = 1
    i, n = 0, len(text)
    quote = None
    while i < n:
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if quote:
            buf.append(ch)
            if ch == "\\" and quote != "`":
                buf.append(nxt)
                line += nxt == "\n"
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch == "-" and nxt == "-" or ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch == "/" and nxt == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            newlines = text.count("\n", i, end)
            if text.startswith(("/*!", "/*M!"), i):
                # Executable comments are code to the server: kept, so ddl.py refuses them
                # with their line (dropping them would also change what the user's file makes).
                if start_line is None:
                    start_line = line
                buf.append(text[i:end])
            else:  # the newlines stay, so a line in the statement is a line in the file
                buf.append(" " + "\n" * newlines)
            line += newlines
            i = end
            continue
        elif ch == ";":
            sql = "".join(buf).strip()
            if sql:
                out.append(SchemaStatement(sql, start_line or line))
            buf, start_line = [], None
            i += 1
            continue
        else:
            if ch in "'\"`":
                quote = ch
            if start_line is None and not ch.isspace():
                start_line = line
            buf.append(ch)
        line += ch == "\n"
        i += 1
    sql = "".join(buf).strip()
    if sql:
        out.append(SchemaStatement(sql, start_line or line))
    return out


def read_schema_file(path: Path, database: str) -> SchemaFile:
    """Read and check a schema file; UsageError (exit 2) for what can be judged without a server:
    a statement ddl.py does not allow (anything but CREATE TABLE and indexes on its tables in
    `database`), no CREATE TABLE, not a regular UTF-8 text file of at most 16 MiB."""
    text = read_schema_text(path)
    statements = tuple(split_statements(text))
    tables: list[str] = []
    for st in statements:
        try:
            table = ddl.check_statement(st.sql, database, [t.lower() for t in tables])
        except ddl.Refused as exc:
            line = st.line + st.sql.count("\n", 0, exc.pos)
            raise UsageError(f"{path} line {line}: {_first_words(st.sql)}: {exc.why}",
                             f"a schema file may only create tables and their indexes in --database {database}: "
                             "remove the statement") from None
        if table is not None:
            tables.append(table)
    if not tables:
        raise UsageError(f"schema file {path} holds no CREATE TABLE statement",
                         "write at least one CREATE TABLE ... (...) with a PRIMARY KEY")
    return SchemaFile(path, text, statements, tuple(tables))


def read_schema_text(path: str | Path) -> str:
    """The text of a schema file: a regular file (it is read more than once: the check, the cache
    key's hash, the seeding), at most 16 MiB, UTF-8, no NUL."""
    raw = read_capped(path, SCHEMA_FILE_MAX_BYTES, "schema file", pipes=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"cannot read schema file {path}: not UTF-8 text ({exc.reason} at byte {exc.start})",
                         "give a .sql file of UTF-8 text") from None
    if "\0" in text:
        raise UsageError(f"schema file {path} holds NUL bytes: it is not SQL text", "give a .sql file") from None
    return text


def _first_words(sql: str, words: int = 5) -> str:
    """The statement's first words for a message ("DROP DATABASE mysql"): names and keywords only,
    up to the first string or symbol. A schema file may be a symlink a pull request planted to a
    file that is not SQL (a key, /etc/shadow): nothing past its first word ever reaches a log."""
    shown = []
    for word in sql.split()[:words]:
        if not _SHOWN_WORD.fullmatch(word):
            break
        shown.append(word)
    text = " ".join(shown)
    if len(shown) == len(sql.split()):
        return f'"{text}"'
    return f'"{text} ..."' if text else '"..."'


def queried_table(schema: SchemaFile, table_name: str | None) -> str:
    """The table loadgen seeds and queries: --table-name, or the file's first; it needs a key."""
    if table_name:
        match = [t for t in schema.tables if t.lower() == table_name.lower()]
        if not match:
            raise UsageError(f"--table-name {table_name}: {schema.path} creates no such table",
                             f"choose one of: {', '.join(schema.tables)}")
        table = match[0]
    else:
        table = schema.tables[0]
    st = schema.create_statement(table)
    if not _PRIMARY.search(st.sql):
        raise UsageError(f"{schema.path} line {st.line}: table {table} has no PRIMARY KEY",
                         "loadgen seeds and queries in key order: declare a PRIMARY KEY")
    return table


def create_tables(conn, database: str, schema: SchemaFile) -> None:
    """Run the file's statements in `database`. A server error names the file's line; tables
    created before it are dropped again, so a fixed file starts from nothing."""
    cur = conn.cursor()
    made: list[str] = []
    restore = _lex_as_we_do(conn, cur)
    try:
        cur.execute(f"USE `{database}`")
        for st in schema.statements:
            try:
                cur.execute(st.sql)
            except Exception as exc:  # noqa: BLE001 - classified below
                raise _statement_error(schema, st, exc) from None
            m = _CREATE.match(st.sql)
            if m:
                made.append(m.group(2))
    except BaseException:
        try:
            restore()
            for table in reversed(made):
                cur.execute(f"DROP TABLE IF EXISTS `{database}`.`{table}`")
        except Exception:  # noqa: BLE001 - best effort; the original error matters
            pass
        raise
    else:
        restore()
    finally:
        cur.close()


# sql_mode flags that change where a quoted string ends (and so where the server ends a
# statement): the combination modes that include ANSI_QUOTES, too, since @@sql_mode lists them.
_LEXING_MODES = {"ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "ANSI", "ORACLE", "MSSQL", "DB2", "POSTGRESQL", "MAXDB"}
_MULTI_STATEMENTS_ON, _MULTI_STATEMENTS_OFF = 0, 1  # enum_mysql_set_option


def _lex_as_we_do(conn, cur):
    """Make the session read the file's statements as ddl.py did: one statement per call
    (a `;` the server found where we saw none would start a second one) and quotes ended as
    the default sql_mode ends them. Returns what undoes it."""
    cur.execute("SELECT @@SESSION.sql_mode")
    mode = cur.fetchone()[0] or ""
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    kept = ",".join(m for m in mode.split(",") if m and m.upper() not in _LEXING_MODES)
    if kept != mode:
        cur.execute("SET SESSION sql_mode = %s", (kept,))
    conn.set_server_option(_MULTI_STATEMENTS_OFF)

    def restore() -> None:
        conn.set_server_option(_MULTI_STATEMENTS_ON)  # mysqlclient's default
        if kept != mode:
            cur.execute("SET SESSION sql_mode = %s", (mode,))
    return restore


def _statement_error(schema: SchemaFile, st: SchemaStatement, exc: BaseException) -> Exception:
    if db.is_connection_lost(exc):
        return SeedError(f"lost the server while creating the tables of {schema.path}: {db.error_text(exc)}")
    args = getattr(exc, "args", ())
    message = str(args[1]) if len(args) >= 2 else str(exc)
    line = st.line
    m = _AT_LINE.search(message)
    if m:  # the server counts lines from the statement's start
        line = st.line + int(m.group(1)) - 1
    message = message.replace("\r", "").replace("\n", "\\n")  # one line, as every error is
    return SchemaRefused(f"{schema.path} line {line}: the server refused the statement: {message}",
                         "fix the schema file")


# -- reflection ----------------------------------------------------------------------------------
@dataclass
class TableShape:
    """What reflection tells the generator and the query about a table."""

    database: str
    table: str
    columns: list  # tablegen.Column, in table order
    primary_key: list[str]
    indexes: dict[str, list[str]]  # secondary index name -> its columns
    unique: frozenset = frozenset()  # the secondary indexes that are UNIQUE (no change buffering)


def reflect(connect, database: str, table: str) -> TableShape:
    """Columns, primary key and indexes of database.table as the server has them.

    `connect` returns a new mysqlclient connection; SQLAlchemy's MySQL dialect reads the table
    through it (SHOW CREATE TABLE, parsed into typed columns: lengths, precision, unsigned, enum
    labels), which is the one job here a regular expression over our own file would get wrong.
    """
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.pool import NullPool

    from .tablegen import column_from_reflection

    engine = create_engine("mysql+mysqldb://", creator=connect, poolclass=NullPool)
    try:
        insp = inspect(engine)
        with warnings.catch_warnings():  # "Did not recognize type 'point'": tablegen says what it skips
            warnings.simplefilter("ignore")
            raw = insp.get_columns(table, schema=database)
        pk = list(insp.get_pk_constraint(table, schema=database).get("constrained_columns") or [])
        found = insp.get_indexes(table, schema=database)
        indexes = {ix["name"]: list(ix["column_names"]) for ix in found}
        unique = frozenset(ix["name"] for ix in found if ix.get("unique"))
        json_cols = _json_columns(insp, database, table)
    finally:
        engine.dispose()
    return TableShape(database, table, [column_from_reflection(c, json_cols) for c in raw], pk, indexes, unique)


def _json_columns(insp, database: str, table: str) -> set[str]:
    """Columns MariaDB stores as LONGTEXT CHECK (json_valid(col)): its JSON type. The check is
    column-level, which SQLAlchemy's get_check_constraints does not list, so ask the server."""
    out: set[str] = set()
    try:
        with insp.bind.connect() as c:
            rows = c.exec_driver_sql(
                "SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS "
                "WHERE CONSTRAINT_SCHEMA = %s AND TABLE_NAME = %s", (database, table)).fetchall()
    except Exception:  # noqa: BLE001 - MySQL < 8.0.16 has no such view, and no JSON-as-text either
        return out
    for (clause,) in rows:
        m = re.search(r"json_valid\(`?(\w+)`?\)", str(clause), re.IGNORECASE)
        if m:
            out.add(m.group(1))
    return out
