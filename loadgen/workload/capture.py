"""Build a trace from what a server logged: the keys of the point lookups on one table.

Sources:
  slow log    (slow_query_log=1, long_query_time=0): every statement, in the order statements
              FINISH: with several sessions a key can come before one issued earlier by a
              session that finished later. One session: the issue order.
  general log (general_log=1): statements as they arrive, in issue order. MariaDB and MySQL
              write executed prepared statements with the values substituted ("Execute").
  performance_schema.events_statements_history_long, polled on a live server (capture_pfs).

A statement is used when it reads the table (FROM/JOIN db.tbl, or tbl while the session's
schema is db) and has `key_column = <integer>` in it; everything else is counted by reason.
"""
from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable
from collections.abc import Iterable, Iterator

from ..errors import LoadgenError, UsageError

REASONS = {
    "other_statement": "statements on other tables, or no table (SHOW, SET, ...)",
    "no_key_equality": "statements on the table without `key = <integer>` (ranges, IN lists, joins on it)",
    "placeholder": "prepared statements with `?` (their Execute lines carry the values)",
    "not_a_statement": "lines that are neither a log header nor a statement",
    "execute_without_text": "prepared-statement executions (binary protocol): performance_schema keeps no "
                            "text or values for them; capture those from the slow or general log",
    "reconnects": "times the server went away while polling (its statements in between are lost)",
    "key_out_of_range": "statements with a key out of range (below 0, or 2^64 and above)",
}
# A key of more than this many digits (after leading zeros) is past 2^64 - 1 (20 digits): it is
# never given to int(), which refuses strings of 4,300 digits and takes long on millions.
MAX_KEY_DIGITS = 20
U64_MAX = (1 << 64) - 1


@dataclass
class Capture:
    source: str
    keys: int = 0
    statements: int = 0
    lines: int = 0
    unused: Counter = field(default_factory=Counter)
    note: str = ""

    def to_dict(self) -> dict:
        return {"source": self.source, "keys": self.keys, "statements": self.statements, "lines": self.lines,
                "unused": dict(self.unused), "note": self.note}


def parse_table(table: str) -> tuple[str | None, str]:
    db, dot, tbl = table.rpartition(".")
    if not tbl or not re.fullmatch(r"[A-Za-z0-9_$]+", tbl) or (dot and not re.fullmatch(r"[A-Za-z0-9_$]+", db)):
        raise UsageError(f"--table {table!r} is not db.table", "e.g. --table shop.orders")
    return (db or None), tbl


class Matcher:
    """Does a statement read db.tbl by key_column = N, and which N?"""

    def __init__(self, table: str, key_column: str = "id"):
        if not re.fullmatch(r"[A-Za-z0-9_$]+", key_column):
            raise UsageError(f"--key-column {key_column!r} is not a column name")
        self.db, self.tbl = parse_table(table)

        def q(name: str) -> str:  # the name, backquoted or not
            return rf"`?{re.escape(name)}`?"

        self.qualified = re.compile(rf"\b(?:FROM|JOIN)\s+{q(self.db)}\s*\.\s*{q(self.tbl)}(?![\w$])", re.I) \
            if self.db else None
        self.bare = re.compile(rf"\b(?:FROM|JOIN)\s+{q(self.tbl)}(?![\w$.])", re.I)
        col = rf"(?:`?\w+`?\s*\.\s*)?`?{re.escape(key_column)}`?"
        self.key = re.compile(rf"(?<![\w$.`]){col}\s*=\s*(?:'(-?\d+)'|\"(-?\d+)\"|(-?\d+)(?![\w.]))", re.I)
        self.placeholder = re.compile(rf"(?<![\w$.`]){col}\s*=\s*\?", re.I)

    def match(self, sql: str, schema: str | None) -> tuple[str, int | None]:
        """('key', N) or (reason, None)."""
        on_table = bool(self.qualified and self.qualified.search(sql))
        if not on_table and self.bare.search(sql):
            on_table = self.db is None or schema is None or schema.lower() == self.db.lower()
        if not on_table:
            return "other_statement", None
        m = self.key.search(sql)
        if m:
            key = _key(next(g for g in m.groups() if g is not None))
            return ("key", key) if key is not None else ("key_out_of_range", None)
        if self.placeholder.search(sql):
            return "placeholder", None
        return "no_key_equality", None


def _key(text: str) -> int | None:
    """The key of a `-?digits` literal, or None when it is outside 0..2^64-1 (issue #18, N5:
    -1 and 2^64 ended the capture with an OverflowError, 30M digits with a ValueError)."""
    digits = text.lstrip("-").lstrip("0") or "0"
    if len(digits) > MAX_KEY_DIGITS or (text.startswith("-") and digits != "0"):
        return None
    key = int(digits)
    return key if key <= U64_MAX else None


# -- slow log ------------------------------------------------------------------------------------
_SCHEMA = re.compile(r"\bSchema:\s*(\S*)")
_USE = re.compile(r"^use\s+`?([\w$]+)`?\s*;\s*$", re.I)
_SET_TS = re.compile(r"^SET\s+timestamp\s*=\s*\d+(?:\.\d+)?\s*;\s*$", re.I)
_PREAMBLE = re.compile(r"^(\S*(mysqld|mariadbd)\S*, Version: |Tcp port: |Time\s+Id\s+Command\s+Argument)", re.I)


def slow_log_keys(lines: Iterable[str], m: Matcher, cap: Capture) -> Iterator[int]:
    """Keys from a slow log, in the log's (finish) order."""
    schema = None
    stmt: list[str] = []

    def flush():
        if not stmt:
            return None
        sql = " ".join(stmt)
        stmt.clear()
        cap.statements += 1
        what, key = m.match(sql, schema)
        if key is None:
            cap.unused[what] += 1
        return key

    for line in lines:
        cap.lines += 1
        line = line.rstrip("\n")
        if line.startswith("#"):
            k = flush()
            if k is not None:
                yield k
            s = _SCHEMA.search(line)
            if s:
                schema = s.group(1) or schema
            continue
        if _PREAMBLE.match(line):
            continue
        u = _USE.match(line.strip())
        if u:
            schema = u.group(1)
            continue
        if _SET_TS.match(line.strip()):
            continue
        if not line.strip():
            continue
        stmt.append(line.strip())
        if line.rstrip().endswith(";"):
            k = flush()
            if k is not None:
                yield k
    k = flush()
    if k is not None:
        yield k


# -- general log ---------------------------------------------------------------------------------
# MariaDB: "231123  5:40:01\t    8 Query\tSELECT ..." or "\t\t    8 Execute\tSELECT ..."
# MySQL:   "2026-11-23T05:40:01.123456Z\t    8 Execute\tSELECT ..."
_GENERAL = re.compile(r"^(?:\S+(?:\s+\d{1,2}:\d\d:\d\d)?)?\s+(\d+)\s+([A-Z][A-Za-z_ ]*?)\t(.*)$")
_STATEMENT_COMMANDS = {"query", "execute"}


def general_log_keys(lines: Iterable[str], m: Matcher, cap: Capture) -> Iterator[int]:
    """Keys from a general log in arrival order; statements may span lines."""
    schemas: dict[str, str] = {}
    current: tuple[str, str, list[str]] | None = None  # (thread, command, text lines)

    def flush():
        nonlocal current
        if current is None:
            return None
        thread, command, parts = current
        current = None
        sql = " ".join(p.strip() for p in parts)
        cmd = command.strip().lower()
        if cmd == "init db":
            schemas[thread] = sql.strip("` ")
            return None
        if cmd == "connect":
            on = re.search(r"\bon\s+([\w$]+)", sql)
            if on:
                schemas[thread] = on.group(1)
            return None
        if cmd == "prepare":
            cap.statements += 1
            cap.unused["placeholder" if "?" in sql else "other_statement"] += 1
            return None
        if cmd not in _STATEMENT_COMMANDS:
            return None
        cap.statements += 1
        u = _USE.match(sql if sql.endswith(";") else sql + ";")
        if u:
            schemas[thread] = u.group(1)
            return None
        what, key = m.match(sql, schemas.get(thread))
        if key is None:
            cap.unused[what] += 1
        return key

    for line in lines:
        cap.lines += 1
        line = line.rstrip("\n")
        g = _GENERAL.match(line)
        if g:
            k = flush()
            if k is not None:
                yield k
            current = (g.group(1), g.group(2), [g.group(3)])
        elif _PREAMBLE.match(line) or not line.strip():
            continue
        elif current is not None:
            current[2].append(line)  # a statement continued on the next line
        else:
            cap.unused["not_a_statement"] += 1
    k = flush()
    if k is not None:
        yield k


def read_lines(path) -> Iterator[str]:
    try:
        f = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise LoadgenError(f"cannot read {path}: {exc.strerror}", "check the path (the server writes the log "
                           "where slow_query_log_file / general_log_file say)") from None
    with f:
        head = f.read(4096)
        if "\x00" in head:
            raise UsageError(f"{path} is binary, not a MySQL/MariaDB log",
                             "give the text log the server writes (slow_query_log_file or general_log_file)")
        f.seek(0)
        yield from f


# -- performance_schema --------------------------------------------------------------------------
PFS_QUERY = ("SELECT THREAD_ID, EVENT_ID, CURRENT_SCHEMA, SQL_TEXT, EVENT_NAME FROM "
             "performance_schema.events_statements_history_long "
             "WHERE SQL_TEXT IS NOT NULL OR EVENT_NAME = 'statement/com/Execute' "
             "ORDER BY TIMER_START, THREAD_ID, EVENT_ID")


RECONNECT_S = 30.0


def pfs_keys(connect: Callable[[], object], m: Matcher, cap: Capture, duration_s: float, interval_s: float = 0.5,
             should_stop: Callable[[], bool] | None = None) -> Iterator[int]:
    """Poll events_statements_history_long for duration_s; each (thread, event) once, in start
    order within a poll. The table is a ring (performance_schema_events_statements_history_long_size
    rows): statements that come and go between two polls are lost; poll often or size it up.
    EVENT_ID counts every event of a thread (stages, waits), so its gaps say nothing.

    A server that goes away (a restart) is reconnected for up to RECONNECT_S; its statements in
    between are lost and the reconnects are counted (cap.unused["reconnects"])."""
    import MySQLdb

    deadline = time.monotonic() + duration_s
    conn = connect()
    while True:
        try:
            yield from _pfs_poll(conn, m, cap, deadline, interval_s, should_stop)
            return
        except MySQLdb.OperationalError as exc:
            if exc.args and exc.args[0] not in (2006, 2013):
                raise LoadgenError(f"performance_schema poll failed: {exc.args[-1]}") from None
        cap.unused["reconnects"] += 1
        conn = _reconnect(connect, min(deadline, time.monotonic() + RECONNECT_S))
        if conn is None:
            return


def _reconnect(connect, until: float):
    while time.monotonic() < until:
        try:
            return connect()
        except LoadgenError:
            time.sleep(0.5)
    return None


def _pfs_poll(conn, m: Matcher, cap: Capture, deadline: float, interval_s: float, should_stop) -> Iterator[int]:
    cur = conn.cursor()
    try:
        # history_long is filled only when events_statements_current is on as well
        cur.execute("SELECT MIN(ENABLED = 'YES') FROM performance_schema.setup_consumers "
                    "WHERE NAME IN ('events_statements_current', 'events_statements_history_long')")
        row = cur.fetchone()
    except Exception as exc:  # the server's own message is the useful part
        if getattr(exc, "args", None) and exc.args[0] in (2006, 2013):
            raise
        raise LoadgenError(f"cannot read performance_schema: {exc.args[-1] if exc.args else exc}",
                           "start the server with performance_schema=ON "
                           "and grant SELECT on performance_schema.*") from None
    if not row or row[0] != 1:
        raise LoadgenError("the consumers events_statements_current/events_statements_history_long are off",
                           "run: UPDATE performance_schema.setup_consumers SET ENABLED='YES' WHERE NAME IN "
                           "('events_statements_current','events_statements_history_long')")
    last: dict[int, int] = {}
    own = None
    cur.execute("SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()")
    r = cur.fetchone()
    own = r[0] if r else None
    while True:
        cur.execute(PFS_QUERY)
        for thread, event, schema, sql, _name in cur.fetchall():
            if thread == own or event <= last.get(thread, 0):
                continue
            last[thread] = event
            cap.statements += 1
            if sql is None:  # a binary-protocol execute: the history keeps no text, no values
                cap.unused["execute_without_text"] += 1
                continue
            text = sql.decode() if isinstance(sql, bytes) else sql
            what, key = m.match(text, schema)
            if key is None:
                cap.unused[what] += 1
            else:
                yield key
        if time.monotonic() >= deadline or (should_stop and should_stop()):
            return
        time.sleep(interval_s)
