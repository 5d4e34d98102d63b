"""The statements a schema file may hold, judged before any server starts.

loadgen runs a schema file with the server's root login (on someone else's server, with the
--dsn user's grants), and CI runs schema files that come from pull requests. So the file may
only describe tables in loadgen's own database (issue #18, N1):

  CREATE TABLE [IF NOT EXISTS] t (...) [table options] [partitioning]   (or LIKE one of its tables)
  CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX i ON t (...)                   on a table the file created
  ALTER TABLE t ADD {INDEX|KEY|UNIQUE|FULLTEXT|SPATIAL} ... [, ADD ...]   on a table the file created

with every qualified name inside --database. Refused besides: executable comments (`/*! */`,
`/*M! */`: the server runs what they hold), TEMPORARY tables, CREATE TABLE ... SELECT (or
TABLE, VALUES), DATA/INDEX DIRECTORY (files outside the datadir), engines other than InnoDB
(MERGE's UNION, FEDERATED's and SPIDER's CONNECTION, CONNECT's files), and loadgen's own
loadgen_meta. Expressions in DEFAULT, CHECK and generated columns are the server's to judge:
MariaDB and MySQL refuse LOAD_FILE, SLEEP, GET_LOCK, subqueries and stored functions there.

The tokenizer follows the server's lexer for what decides where a statement ends (quotes,
backslash escapes, doubled quotes); create_tables() runs the statements with multi-statements
off and without ANSI_QUOTES / NO_BACKSLASH_ESCAPES, so the server splits them as we do.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

NOT_ALLOWED = "not CREATE TABLE, CREATE INDEX or ALTER TABLE ... ADD INDEX"
META_TABLE = "loadgen_meta"
_WORD = re.compile(r"[A-Za-z0-9_$\u0080-\U0010ffff]+")
_NUMBER = re.compile(r"(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?")
_PLAIN = re.compile(r"^\w+$", re.ASCII)
_INDEX_KINDS = {"UNIQUE", "FULLTEXT", "SPATIAL"}


@dataclass(frozen=True)
class Token:
    kind: str  # "word" (unquoted), "ident" (`quoted`), "string", "number", "op", "xcomment"
    text: str  # the name for word/ident (unquoted), the character for op
    pos: int  # offset in the statement

    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    def is_name(self) -> bool:
        return self.kind in ("word", "ident")


class Refused(Exception):
    """A statement a schema file may not hold: why, and where in the statement."""

    def __init__(self, why: str, pos: int = 0):
        super().__init__(why)
        self.why = why
        self.pos = pos


def tokens(sql: str) -> list[Token]:
    """The statement's tokens; comments are skipped except executable ones (kind xcomment)."""
    out: list[Token] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        nxt = sql[i + 1] if i + 1 < n else ""
        if ch in " \t\n\r\f\v":  # the server's spaces: U+00A0 and the like are identifier characters
            i += 1
        elif ch == "/" and nxt == "*":
            if sql.startswith("/*!", i) or sql.startswith("/*M!", i):
                out.append(Token("xcomment", sql[i:i + 4], i))
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch == "#" or (ch == "-" and nxt == "-"):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif ch in "'\"`":
            j, text = i + 1, []
            while j < n:
                c = sql[j]
                if c == "\\" and ch != "`" and j + 1 < n:
                    text.append(sql[j:j + 2])
                    j += 2
                elif c == ch and sql[j + 1:j + 2] == ch:  # a doubled quote is the quote itself
                    text.append(c)
                    j += 2
                elif c == ch:
                    break
                else:
                    text.append(c)
                    j += 1
            out.append(Token("ident" if ch == "`" else "string", "".join(text), i))
            i = j + 1
        elif (m := _NUMBER.match(sql, i)) and not (i and (_WORD.match(sql[i - 1]) or sql[i - 1] in "`.")):
            out.append(Token("number", m.group(), i))
            i = m.end()
        elif m := _WORD.match(sql, i):
            out.append(Token("word", m.group(), i))
            i = m.end()
        else:
            out.append(Token("op", ch, i))
            i += 1
    return out


def check_statement(sql: str, database: str, tables: list[str]) -> str | None:
    """Raise Refused unless `sql` is allowed; return the table a CREATE TABLE makes (else None).

    Args:
        database: --database, the only database a qualified name may name.
        tables: the tables the file created before this statement (lower case).
    """
    toks = tokens(sql)
    for t in toks:  # first: what such a comment holds may come before any word we read
        if t.kind == "xcomment":
            raise Refused(f"an executable comment {t.text.rstrip('0123456789')} ... */ "
                          "(the server runs what it holds)", t.pos)
    words = [t.upper() for t in toks[:4]]
    if words[:2] == ["CREATE", "TABLE"]:
        check = _create_table
    elif words[:1] == ["CREATE"] and "INDEX" in words[1:4]:
        check = _create_index
    elif words[:2] == ["ALTER", "TABLE"]:
        check = _alter_table
    else:
        raise Refused(NOT_ALLOWED)
    _check_everywhere(toks, database)
    return check(toks, database, tables)


def _check_everywhere(toks: list[Token], database: str) -> None:
    for i, t in enumerate(toks):
        if t.is_name() and t.text.lower() == META_TABLE:
            raise Refused(f"{META_TABLE} is loadgen's own table", t.pos)
        if t.upper() in ("DATA", "INDEX") and i + 1 < len(toks) and toks[i + 1].upper() == "DIRECTORY":
            raise Refused(f"{t.upper()} DIRECTORY puts files outside the server's datadir", t.pos)
        if t.upper() in ("SELECT", "UNION"):  # reserved words: a column of that name is `quoted`
            raise Refused(f"{t.upper()}: a schema file creates empty tables, it reads none", t.pos)
        # db.name: only the first dot of a chain names a database (db.tbl.col)
        if (t.kind == "op" and t.text == "." and 0 < i < len(toks) - 1 and toks[i - 1].is_name()
                and toks[i + 1].is_name() and not (i > 1 and toks[i - 2].text == "." and toks[i - 2].kind == "op")
                and toks[i - 1].text != database):
            raise Refused(f"{_q(toks[i - 1].text)}.{_q(toks[i + 1].text)} is outside --database {database}",
                          toks[i - 1].pos)


def _name(toks: list[Token], i: int, database: str) -> tuple[str, int]:
    """The table name at toks[i] (db.name or name); (name, index after it)."""
    if i >= len(toks) or not toks[i].is_name():
        raise Refused("a table name was expected", toks[min(i, len(toks) - 1)].pos if toks else 0)
    if i + 2 < len(toks) and toks[i + 1].text == "." and toks[i + 1].kind == "op":
        if toks[i].text != database:  # _check_everywhere said so already; kept for a direct call
            raise Refused(f"{_q(toks[i].text)}.{_q(toks[i + 2].text)} is outside --database {database}", toks[i].pos)
        i += 2
    name = toks[i].text
    if not _PLAIN.match(name):
        raise Refused(f"table name {name!r}: use letters, digits and _", toks[i].pos)
    return name, i + 1


def _own_table(toks: list[Token], i: int, database: str, tables: list[str], what: str) -> int:
    name, j = _name(toks, i, database)
    if name.lower() not in tables:
        raise Refused(f"{what} on {name}, which the file does not create before it", toks[i].pos)
    return j


def _create_table(toks: list[Token], database: str, tables: list[str]) -> str:
    i = 2
    if [t.upper() for t in toks[i:i + 3]] == ["IF", "NOT", "EXISTS"]:
        i += 3
    name, i = _name(toks, i, database)
    if i < len(toks) and toks[i].upper() == "LIKE":
        j = _own_table(toks, i + 1, database, tables, "CREATE TABLE ... LIKE")
        if j != len(toks):
            raise Refused("CREATE TABLE ... LIKE takes nothing after the table", toks[j].pos)
        return name
    if i >= len(toks) or toks[i].text != "(" or toks[i].kind != "op":
        raise Refused("CREATE TABLE needs its columns in ( ): CREATE TABLE ... SELECT copies rows",
                      toks[min(i, len(toks) - 1)].pos)
    end = _closing(toks, i)
    if toks[i + 1].upper() == "LIKE":
        j = _own_table(toks, i + 2, database, tables, "CREATE TABLE (LIKE ...)")
        if j != end or end + 1 != len(toks):
            raise Refused("CREATE TABLE (LIKE ...) takes nothing else", toks[min(j, len(toks) - 1)].pos)
        return name
    _table_options(toks[end + 1:])
    return name


def _closing(toks: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].kind == "op" and toks[j].text == "(":
            depth += 1
        elif toks[j].kind == "op" and toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    raise Refused("unbalanced parentheses", toks[i].pos)


def _table_options(rest: list[Token]) -> None:
    """After the columns: table options and partitioning, never a query or a foreign engine."""
    for k, t in enumerate(rest):
        word = t.upper()
        if word in ("AS", "IGNORE", "REPLACE", "TABLE", "LIKE"):
            raise Refused(f"{word} after the columns: CREATE TABLE ... SELECT copies rows", t.pos)
        if word == "VALUES" and (k + 1 == len(rest) or rest[k + 1].upper() not in ("LESS", "IN")):
            raise Refused("VALUES after the columns: a schema file creates empty tables", t.pos)
        if word in ("CONNECTION", "UNION", "INSERT_METHOD"):
            raise Refused(f"{word}: loadgen measures InnoDB tables of its own", t.pos)
        if word == "ENGINE":
            j = k + 1 + (k + 1 < len(rest) and rest[k + 1].text == "=")
            engine = rest[j].text if j < len(rest) else ""
            if engine.lower() != "innodb":
                raise Refused(f"ENGINE={engine}: loadgen measures InnoDB's buffer pool", t.pos)


def _create_index(toks: list[Token], database: str, tables: list[str]) -> None:
    """CREATE [ONLINE|OFFLINE] [UNIQUE|FULLTEXT|SPATIAL] INDEX [IF NOT EXISTS] i [USING t] ON tbl (...)"""
    k = 1
    k += toks[k].upper() in ("ONLINE", "OFFLINE")
    k += k < len(toks) and toks[k].upper() in _INDEX_KINDS
    if k >= len(toks) or toks[k].upper() != "INDEX":
        raise Refused(NOT_ALLOWED)
    k += 1
    if [t.upper() for t in toks[k:k + 3]] == ["IF", "NOT", "EXISTS"]:
        k += 3
    k += 1  # the index's name
    if [t.upper() for t in toks[k:k + 1]] == ["USING"]:
        k += 2
    if k >= len(toks) or toks[k].upper() != "ON":
        raise Refused("CREATE INDEX i ON table (columns) was expected", toks[min(k, len(toks) - 1)].pos)
    k = _own_table(toks, k + 1, database, tables, "CREATE INDEX")
    _key_parts_and_options(toks[k:])


def _alter_table(toks: list[Token], database: str, tables: list[str]) -> None:
    """ALTER TABLE tbl ADD [UNIQUE|FULLTEXT|SPATIAL] {INDEX|KEY} ... [, ADD ...]"""
    i = _own_table(toks, 2, database, tables, "ALTER TABLE")
    clause: list[Token] = []
    depth = 0
    for t in [*toks[i:], Token("op", ",", len(toks) and toks[-1].pos)]:
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        if t.kind == "op" and t.text == "," and depth == 0:
            _add_index(clause, t.pos)
            clause = []
        else:
            clause.append(t)


def _add_index(clause: list[Token], pos: int) -> None:
    words = [t.upper() for t in clause[:2]]
    if len(words) < 2 or words[0] != "ADD" or not (words[1] in ("INDEX", "KEY") or words[1] in _INDEX_KINDS):
        raise Refused("ALTER TABLE may only ADD INDEX or KEY here", clause[0].pos if clause else pos)
    k = 1
    while k < len(clause) and not (clause[k].kind == "op" and clause[k].text == "("):
        if not clause[k].is_name():  # [kind] INDEX [IF NOT EXISTS] [name] [USING type]
            raise Refused(f"{clause[k].text!r} in ADD INDEX", clause[k].pos)
        k += 1
    _key_parts_and_options(clause[k:])


# Index options after the key parts (MySQL and MariaDB), and the ones that take a value.
_INDEX_OPTIONS = {"KEY_BLOCK_SIZE", "USING", "BTREE", "HASH", "RTREE", "COMMENT", "VISIBLE", "INVISIBLE",
                  "WITH", "PARSER", "ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE", "IGNORED", "NOT",
                  "ALGORITHM", "LOCK", "CLUSTERING"}
_TAKES_VALUE = {"PARSER", "ALGORITHM", "LOCK", "KEY_BLOCK_SIZE", "USING", "COMMENT"}


def _key_parts_and_options(toks: list[Token]) -> None:
    """( key parts ) then index options only: nothing that renames, drops or moves the table."""
    if not toks or toks[0].text != "(" or toks[0].kind != "op":
        raise Refused("the index's columns in ( ) were expected", toks[0].pos if toks else 0)
    end = _closing(toks, 0)
    taker = False
    for t in toks[end + 1:]:
        if t.kind == "op" and t.text == "=":
            continue
        if t.kind in ("string", "number") or (taker and t.is_name()):
            taker = False
            continue
        if t.upper() not in _INDEX_OPTIONS:
            raise Refused(f"{t.text} after the index's columns: only index options may follow", t.pos)
        taker = t.upper() in _TAKES_VALUE


def _q(name: str) -> str:
    return f"`{name}`"
