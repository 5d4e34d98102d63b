"""Columns and indexes of a table read from its CREATE TABLE text, before any server exists.

A workload file's streams name columns and indexes (`column = "k"`, `index = "k_1"`); a typo
there should stop the run before a server starts and a table is seeded, not minutes later. This
reads what it can from the schema file's DDL (column names, their type word, the primary key,
KEY/INDEX/UNIQUE clauses and CREATE INDEX statements). It is not a SQL parser: when it cannot
make sense of a definition it says so (None) and the check waits for the server's own answer
(schemas.reflect), which is made before anything is measured either way.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..seeding.schemas import split_statements

_CREATE_TABLE = re.compile(r"^\s*CREATE\s+(?:TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"
                           r"(?:`?(\w+)`?\s*\.\s*)?`?(\w+)`?\s*\(", re.IGNORECASE)
_CREATE_INDEX = re.compile(r"^\s*CREATE\s+(?:UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?INDEX\s+`?(\w+)`?\s+"
                           r"(?:USING\s+\w+\s+)?ON\s+(?:`?(?P<db>\w+)`?\s*\.\s*)?`?(\w+)`?\s*\((.*)\)",
                           re.IGNORECASE | re.DOTALL)
_INDEX_CLAUSE = re.compile(r"^(?:CONSTRAINT\s+`?\w*`?\s+)?(UNIQUE\s+(?:KEY|INDEX)?|KEY|INDEX|FULLTEXT\s+(?:KEY|INDEX)?"
                           r"|SPATIAL\s+(?:KEY|INDEX)?)\s*`?(\w+)?`?\s*(?:USING\s+\w+\s*)?\((.*)\)",
                           re.IGNORECASE | re.DOTALL)
_PRIMARY_CLAUSE = re.compile(r"^(?:CONSTRAINT\s+`?\w*`?\s+)?PRIMARY\s+KEY\s*(?:USING\s+\w+\s*)?\((.*)\)",
                             re.IGNORECASE | re.DOTALL)
_OTHER_CLAUSE = re.compile(r"^(?:CONSTRAINT|FOREIGN|CHECK|PERIOD|SYSTEM)\b", re.IGNORECASE)
_COLUMN = re.compile(r"^`?(\w+)`?\s+([A-Za-z]+)", re.DOTALL)


@dataclass
class DdlShape:
    """What the DDL says about one table (names as written, compared case-insensitively)."""

    table: str
    columns: dict[str, str] = field(default_factory=dict)  # name -> upper-case type word
    primary_key: list[str] = field(default_factory=list)
    indexes: dict[str, list[str]] = field(default_factory=dict)  # secondary index -> its columns
    unique: set[str] = field(default_factory=set)  # the secondary indexes declared UNIQUE

    def column(self, name: str) -> str | None:
        """The column's name as declared, or None."""
        return next((c for c in self.columns if c.lower() == name.lower()), None)

    def index(self, name: str) -> str | None:
        if name.upper() == "PRIMARY":
            return "PRIMARY"
        return next((i for i in self.indexes if i.lower() == name.lower()), None)

    def leading(self, column: str) -> str | None:
        """An index whose first column is `column` (PRIMARY first), or None."""
        if self.primary_key and self.primary_key[0].lower() == column.lower():
            return "PRIMARY"
        return next((i for i, cols in self.indexes.items() if cols and cols[0].lower() == column.lower()), None)


def _split_top(body: str) -> list[str]:
    """Comma-separated items of a parenthesised list, commas inside () or quotes left alone."""
    items, depth, quote, buf = [], 0, None, []
    for ch in body:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    if "".join(buf).strip():
        items.append("".join(buf).strip())
    return items


def _body(sql: str, open_at: int) -> str | None:
    """The text between the '(' at open_at and its matching ')'."""
    depth, quote = 0, None
    for i in range(open_at, len(sql)):
        ch = sql[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return sql[open_at + 1:i]
    return None


def _names(cols: str) -> list[str]:
    """Index columns `(a, b(10) DESC)` -> ['a', 'b']."""
    out = []
    for part in _split_top(cols):
        m = re.match(r"`?(\w+)`?", part.strip())
        if m:
            out.append(m.group(1))
    return out


def shape(sql_text: str, table: str) -> DdlShape | None:
    """The table's columns and indexes from a schema file's text, or None when the file does
    not create it or a definition is beyond this reader (the server then decides)."""
    statements = split_statements(sql_text)
    out: DdlShape | None = None
    for st in statements:
        m = _CREATE_TABLE.match(st.sql)
        if not m or m.group(2).lower() != table.lower():
            continue
        body = _body(st.sql, m.end() - 1)
        if body is None:
            return None
        out = DdlShape(m.group(2))
        for item in _split_top(body):
            if p := _PRIMARY_CLAUSE.match(item):
                out.primary_key = _names(p.group(1))
            elif i := _INDEX_CLAUSE.match(item):
                name = i.group(2) or (_names(i.group(3)) or ["?"])[0]
                out.indexes[name] = _names(i.group(3))
                if i.group(1).upper().startswith("UNIQUE"):
                    out.unique.add(name)
            elif _OTHER_CLAUSE.match(item):
                continue
            elif c := _COLUMN.match(item):
                out.columns[c.group(1)] = c.group(2).upper()
                if re.search(r"\bPRIMARY\s+KEY\b", item, re.IGNORECASE):
                    out.primary_key = [c.group(1)]
                elif re.search(r"\bUNIQUE\b", item, re.IGNORECASE):
                    out.indexes[c.group(1)] = [c.group(1)]
                    out.unique.add(c.group(1))
            else:
                return None
    if out is None:
        return None
    for st in statements:
        m = _CREATE_INDEX.match(st.sql)
        if m and m.group(3).lower() == table.lower():
            out.indexes[m.group(1)] = _names(m.group(4))
            if re.match(r"\s*CREATE\s+UNIQUE\b", st.sql, re.IGNORECASE):
                out.unique.add(m.group(1))
    return out


def tables(sql_text: str) -> list[str]:
    """Names of the tables the text creates, in order."""
    return [m.group(2) for st in split_statements(sql_text) if (m := _CREATE_TABLE.match(st.sql))]


_UNSAFE_TAIL = re.compile(r"\b(SELECT|DIRECTORY|LIKE|UNION)\b", re.IGNORECASE)


def unsafe_options(sql_text: str, table: str) -> str | None:
    """What follows the column list of the table's CREATE TABLE, when it reads other tables
    (CREATE ... SELECT) or puts files elsewhere (DATA/INDEX DIRECTORY); else None."""
    for st in split_statements(sql_text):
        m = _CREATE_TABLE.match(st.sql)
        if m and m.group(2).lower() == table.lower():
            body = _body(st.sql, m.end() - 1)
            tail = st.sql[m.end() + len(body or ""):] if body is not None else st.sql
            found = _UNSAFE_TAIL.search(tail)
            if found:
                return found.group(1).upper()
    return None


def statements_for(sql_text: str, table: str) -> tuple[list, list[str]]:
    """(the statements that make `table`: its CREATE TABLE and the CREATE INDEXes on it; the
    databases any of them names), so a file cannot reach outside --database."""
    out, databases = [], []
    for st in split_statements(sql_text):
        t, i = _CREATE_TABLE.match(st.sql), _CREATE_INDEX.match(st.sql)
        if t and t.group(2).lower() == table.lower():
            out.append(st)
            if t.group(1):
                databases.append(t.group(1))
        elif i and i.group(3).lower() == table.lower():
            out.append(st)
            if i.group("db"):
                databases.append(i.group("db"))
    return out, databases
