"""--query and --key-column: the statement each access runs, checked before any server sees it
(a SELECT that neither writes, locks nor calls a function that reaches outside the server), sent in
the text protocol, and the index EXPLAIN says it reads."""
from __future__ import annotations

import re

from .. import db
from . import tablegen
from ..errors import UsageError
from .schemas import TableShape

INT_TYPES = set(tablegen.INT_RANGES)


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
