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
    "too_long": "statements or log lines over the size limit (4 MiB)",
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
_EXAMINED = re.compile(r"\bRows_examined:\s*(\d+)")
_USE = re.compile(r"^use\s+`?([\w$]+)`?\s*;\s*$", re.I)
_SET_TS = re.compile(r"^SET\s+timestamp\s*=\s*(\d+(?:\.\d+)?)\s*;\s*$", re.I)
_PREAMBLE = re.compile(r"^(\S*(mysqld|mariadbd)\S*, Version: |Tcp port: |Time\s+Id\s+Command\s+Argument)", re.I)


# A log line or a statement longer than this is counted (too_long) and skipped, never held.
MAX_LINE_CHARS = 4 << 20
MAX_STATEMENT_CHARS = 4 << 20
HUGE = "\x00huge"  # read_lines' stand-in for a line over MAX_LINE_CHARS


@dataclass
class LoggedStatement:
    command: str  # query | execute | prepare
    sql: str
    schema: str | None
    ts: float | None  # seconds (the log's clock) when the log says, else None
    thread: str | None = None  # the session (general log: its Id)
    rows_examined: int | None = None  # the server's count (slow log, performance_schema), else None


def slow_log_keys(lines: Iterable[str], m: Matcher, cap: Capture) -> Iterator[int]:
    """Keys from a slow log, in the log's (finish) order."""
    for st in slow_log_statements(lines, cap):
        k = _match(st, m, cap)
        if k is not None:
            yield k


def general_log_keys(lines: Iterable[str], m: Matcher, cap: Capture) -> Iterator[int]:
    """Keys from a general log in arrival order; statements may span lines."""
    for st in general_log_statements(lines, cap):
        k = _match(st, m, cap)
        if k is not None:
            yield k


def _match(st: LoggedStatement, m: Matcher, cap: Capture) -> int | None:
    if st.command == "prepare":
        cap.unused["placeholder" if "?" in st.sql else "other_statement"] += 1
        return None
    what, key = m.match(st.sql, st.schema)
    if key is None:
        cap.unused[what] += 1
    return key


class _Parts:
    """A statement's lines, bounded: past MAX_STATEMENT_CHARS it is marked too long."""

    def __init__(self, first: str = ""):
        self.parts, self.size, self.too_long = ([first] if first else []), len(first), False

    def add(self, line: str) -> None:
        self.size += len(line)
        if self.size > MAX_STATEMENT_CHARS:
            self.too_long, self.parts = True, []
        elif not self.too_long:
            self.parts.append(line)


def slow_log_statements(lines: Iterable[str], cap: Capture) -> Iterator[LoggedStatement]:
    """Statements of a slow log, in the log's (finish) order; each counted in cap.statements."""
    schema, ts, examined = None, None, None
    stmt = _Parts()

    def flush():
        nonlocal stmt
        if not stmt.parts and not stmt.too_long:
            return None
        done, stmt = stmt, _Parts()
        cap.statements += 1
        if done.too_long:
            cap.unused["too_long"] += 1
            return None
        return LoggedStatement("query", " ".join(done.parts), schema, ts, rows_examined=examined)

    for line in lines:
        cap.lines += 1
        if line == HUGE:
            stmt.too_long = True
            continue
        line = line.rstrip("\n")
        if line.startswith("#"):
            st = flush()
            if st is not None:
                yield st
            s = _SCHEMA.search(line)
            if s:
                schema = s.group(1) or schema
            e = _EXAMINED.search(line)
            if e:
                examined = int(e.group(1))
            continue
        if _PREAMBLE.match(line):
            continue
        u = _USE.match(line.strip())
        if u:
            schema = u.group(1)
            continue
        t = _SET_TS.match(line.strip())
        if t:
            ts = float(t.group(1))
            continue
        if not line.strip():
            continue
        stmt.add(line.strip())
        if line.rstrip().endswith(";"):
            st = flush()
            if st is not None:
                yield st
    st = flush()
    if st is not None:
        yield st


# -- general log ---------------------------------------------------------------------------------
# MariaDB: "231123  5:40:01\t    8 Query\tSELECT ..." or "\t\t    8 Execute\tSELECT ..."
# MySQL:   "2026-11-23T05:40:01.123456Z\t    8 Execute\tSELECT ..."
_GENERAL = re.compile(r"^(\S+(?:\s+\d{1,2}:\d\d:\d\d)?)?\s+(\d+)\s+([A-Z][A-Za-z_ ]*?)\t(.*)$")
_STATEMENT_COMMANDS = {"query", "execute", "prepare"}
_MARIADB_TS = re.compile(r"^(\d\d)(\d\d)(\d\d)\s+(\d{1,2}):(\d\d):(\d\d)$")
_MYSQL_TS = re.compile(r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d(?:\.\d+)?)")


def _log_time(text: str | None) -> float | None:
    """Seconds since 2000 of a general log's timestamp (only differences are used)."""
    import calendar

    if not text:
        return None
    m = _MARIADB_TS.match(text.strip())
    if m:
        y, mo, d, h, mi, s = (int(x) for x in m.groups())
        y += 2000
    else:
        m = _MYSQL_TS.match(text.strip())
        if not m:
            return None
        y, mo, d, h, mi = (int(x) for x in m.groups()[:5])
        s = float(m.group(6))
    try:
        return calendar.timegm((y, mo, d, h, mi, 0, 0, 0, 0)) + s
    except (ValueError, OverflowError):
        return None


def general_log_statements(lines: Iterable[str], cap: Capture) -> Iterator[LoggedStatement]:
    """Statements (Query, Execute, Prepare) of a general log in arrival order; statements may
    span lines. Each counted in cap.statements."""
    schemas: dict[str, str] = {}
    current: tuple[str, str, _Parts] | None = None  # (thread, command, text lines)
    ts = None

    def flush():
        nonlocal current
        if current is None:
            return None
        thread, command, parts = current
        current = None
        cmd = command.strip().lower()
        if parts.too_long:
            if cmd in _STATEMENT_COMMANDS:
                cap.statements += 1
                cap.unused["too_long"] += 1
            return None
        sql = " ".join(p.strip() for p in parts.parts)
        if cmd == "init db":
            schemas[thread] = sql.strip("` ")
            return None
        if cmd == "connect":
            on = re.search(r"\bon\s+([\w$]+)", sql)
            if on:
                schemas[thread] = on.group(1)
            return None
        if cmd not in _STATEMENT_COMMANDS:
            return None
        cap.statements += 1
        if cmd != "prepare":
            u = _USE.match(sql if sql.endswith(";") else sql + ";")
            if u:
                schemas[thread] = u.group(1)
                return None
        return LoggedStatement(cmd, sql, schemas.get(thread), ts, thread)

    for line in lines:
        cap.lines += 1
        if line == HUGE:  # most likely a statement of its own (a huge INSERT): the one before has ended
            st = flush()
            if st is not None:
                yield st
            cap.statements += 1
            cap.unused["too_long"] += 1
            continue
        line = line.rstrip("\n")
        g = _GENERAL.match(line)
        if g:
            st = flush()
            if st is not None:
                yield st
            if g.group(1):
                ts = _log_time(g.group(1)) or ts
            current = (g.group(2), g.group(3), _Parts(g.group(4)))
        elif _PREAMBLE.match(line) or not line.strip():
            continue
        elif current is not None:
            current[2].add(line)  # a statement continued on the next line
        else:
            cap.unused["not_a_statement"] += 1
    st = flush()
    if st is not None:
        yield st


def read_lines(path) -> Iterator[str]:
    """The log's lines; one over MAX_LINE_CHARS comes out as HUGE (memory stays bounded)."""
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
        while True:
            line = f.readline(MAX_LINE_CHARS)
            if not line:
                return
            if len(line) >= MAX_LINE_CHARS and not line.endswith("\n"):
                while (more := f.readline(MAX_LINE_CHARS)) and not more.endswith("\n"):
                    pass
                yield HUGE
                continue
            yield line


# -- performance_schema --------------------------------------------------------------------------
PFS_QUERY = ("SELECT THREAD_ID, EVENT_ID, CURRENT_SCHEMA, SQL_TEXT, EVENT_NAME, ROWS_EXAMINED FROM "
             "performance_schema.events_statements_history_long "
             "WHERE SQL_TEXT IS NOT NULL OR EVENT_NAME = 'statement/com/Execute' "
             "ORDER BY TIMER_START, THREAD_ID, EVENT_ID")


RECONNECT_S = 30.0


def pfs_keys(connect: Callable[[], object], m: Matcher, cap: Capture, duration_s: float, interval_s: float = 0.5,
             should_stop: Callable[[], bool] | None = None) -> Iterator[int]:
    """The keys of the statements pfs_statements() reads."""
    for st in pfs_statements(connect, cap, duration_s, interval_s, should_stop):
        what, key = m.match(st.sql, st.schema)
        if key is None:
            cap.unused[what] += 1
        else:
            yield key


def pfs_statements(connect: Callable[[], object], cap: Capture, duration_s: float, interval_s: float = 0.5,
                   should_stop: Callable[[], bool] | None = None, backlog: bool = True) -> Iterator[LoggedStatement]:
    """Poll events_statements_history_long for duration_s; each (thread, event) once, in start
    order within a poll. The table is a ring (performance_schema_events_statements_history_long_size
    rows): statements that come and go between two polls are lost; poll often or size it up.
    EVENT_ID counts every event of a thread (stages, waits), so its gaps say nothing.

    A server that goes away (a restart) is reconnected for up to RECONNECT_S; its statements in
    between are lost and the reconnects are counted (cap.unused["reconnects"]). backlog=False: the
    statements the ring holds from before the first poll are not part of the capture."""
    import MySQLdb

    deadline = time.monotonic() + duration_s
    conn = connect()
    while True:
        try:
            yield from _pfs_poll(conn, cap, deadline, interval_s, should_stop, backlog)
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


def _pfs_poll(conn, cap: Capture, deadline: float, interval_s: float, should_stop,
              backlog: bool = True) -> Iterator[LoggedStatement]:
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
        for thread, event, schema, sql, _name, examined in cur.fetchall():
            if thread == own or event <= last.get(thread, 0):
                continue
            last[thread] = event
            if not backlog:
                continue  # the first poll: what ran before the capture began
            cap.statements += 1
            if sql is None:  # a binary-protocol execute: the history keeps no text, no values
                cap.unused["execute_without_text"] += 1
                continue
            text = sql.decode("utf-8", "replace") if isinstance(sql, bytes) else sql
            if isinstance(schema, bytes):
                schema = schema.decode("utf-8", "replace")
            yield LoggedStatement("query", text, schema, None, str(thread),
                            int(examined) if examined is not None else None)
        backlog = True
        if time.monotonic() >= deadline or (should_stop and should_stop()):
            return
        time.sleep(interval_s)
