"""A whole server's traffic from its general or slow log -> an op trace (workload/optrace.py).

Every statement is read in log order (capture.py's readers: bounded lines, the session's
schema followed), classified by sqlops.Classifier against the tables' keys (from the live
server, read only, or a --schema file) and written as its operations; the ones it cannot model
are counted by reason, with the most frequent statement shapes (digests) named.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from . import capture as logs
from . import joinops, optrace, sqlops, sqltext, tablekeys

_BEGIN = re.compile(r"^\s*(?:BEGIN(?:\s+WORK)?|START\s+TRANSACTION\b[^;]*)\s*;?\s*$", re.I)
_END = re.compile(r"^\s*(?:COMMIT|ROLLBACK)\b", re.I)
MAX_DIGESTS = 10_000  # distinct shapes kept per capture; past it they count as "(other shapes)"
TOP_DIGESTS = 10


@dataclass
class OpCapture:
    source: str
    lines: int = 0
    statements: int = 0
    no_table: int = 0  # BEGIN, COMMIT, SET, SHOW...: they read no table's pages
    modelled: int = 0
    ops: int = 0
    unused: Counter = field(default_factory=Counter)
    digests: Counter = field(default_factory=Counter)  # (reason, digest) -> statements
    by_table: Counter = field(default_factory=Counter)
    rows_examined: int = 0  # the server's count over the statements on tables (slow log, performance_schema)
    rows_examined_modelled: int = 0
    first_ts: float | None = None
    last_ts: float | None = None
    note: str = ""

    @property
    def on_tables(self) -> int:
        return self.statements - self.no_table

    @property
    def modelled_pct(self) -> float:
        return 100.0 * self.modelled / self.on_tables if self.on_tables else 0.0

    @property
    def span_s(self) -> float | None:
        if self.first_ts is None or self.last_ts is None:
            return None
        return max(0.0, self.last_ts - self.first_ts)

    @property
    def rows_modelled_pct(self) -> float | None:
        """Share of the rows the server examined that modelled statements examined; None when the
        source does not say (a general log)."""
        return 100.0 * self.rows_examined_modelled / self.rows_examined if self.rows_examined else None

    def top(self, n: int = TOP_DIGESTS) -> list[dict]:
        return [{"reason": r, "digest": d, "statements": c} for (r, d), c in self.digests.most_common(n)]

    def to_meta(self, tables: dict[str, tablekeys.TableDef]) -> dict:
        return {"source": self.source, "lines": self.lines, "statements": self.statements, "no_table": self.no_table,
                "modelled": self.modelled, "operations": self.ops, "unmodelled": dict(self.unused),
                "rows_examined": self.rows_examined, "rows_examined_modelled": self.rows_examined_modelled,
                "top_unmodelled": self.top(), "span_s": self.span_s, "note": self.note,
                "tables": {name: t.to_dict() for name, t in sorted(tables.items())},
                "operations_by_table": dict(self.by_table)}


def capture(statements: Iterable, cap: OpCapture, classifier: sqlops.Classifier, writer: optrace.Writer,
            joins: joinops.Joins | None = None) -> dict:
    """Classify and write every statement (joins through `joins`: EXPLAIN on the server); returns
    the tables written ({db.tbl: TableDef})."""
    used: dict[str, tablekeys.TableDef] = {}
    open_txn: dict[str | None, int] = {}  # session -> its transaction's number (BEGIN .. COMMIT)
    txns = 0
    for st in statements:
        if st.ts is not None:
            cap.first_ts = st.ts if cap.first_ts is None else cap.first_ts
            cap.last_ts = st.ts
        if st.command == "prepare":  # the Execute lines that follow carry the values
            cap.no_table += 1
            continue
        res, masked = classifier.classify(st.sql, st.schema)
        if res.reason == "join" and joins is not None and masked[:6].upper() == "SELECT":
            res = joins.classify(st.sql, masked, sqltext.mask(st.sql)[1], st.schema, sqltext.digest(masked))
        if joins is not None and res.reason is None:
            res = _server_choice(res, classifier, joins, st, masked)
            _range_rows(res, joins, st, masked)
        if res.reason == "none":
            cap.no_table += 1
            if _BEGIN.match(st.sql):
                txns += 1
                open_txn[st.thread] = txns
            elif _END.match(st.sql):
                open_txn.pop(st.thread, None)
            continue
        cap.rows_examined += st.rows_examined or 0
        if res.reason is not None:
            _unmodelled(cap, res.reason, masked)
            continue
        cap.modelled += 1
        cap.rows_examined_modelled += st.rows_examined or 0
        if not res.ops:
            continue
        txn = open_txn.get(st.thread)
        if txn is None and any(o.kind in WRITES for o in res.ops):  # autocommit: the statement is its transaction
            txns += 1
            txn = txns
        for op in res.ops:
            table = op.table or res.table
            if table not in used:
                used[table] = _def_of(classifier, table)
            # a write's hi is its transaction's number (optrace's layout)
            hi = txn if op.kind in WRITES else op.hi
            writer.add(op.kind, writer.tree(table, op.index), op.lo, hi, op.flags, op.extra)
            cap.by_table[table] += 1
        cap.ops += len(res.ops)
    return used


WRITES = (optrace.INSERT, optrace.UPDATE, optrace.DELETE)


def _server_choice(res: sqlops.Result, classifier: sqlops.Classifier, joins: joinops.Joins, st,
                   masked: str) -> sqlops.Result:
    """A SELECT whose conditions could be read through several indexes: the one the server's
    EXPLAIN chose (a full scan when it scans), else the classifier's own order."""
    if res.choices < 2 or masked[:6].upper() != "SELECT" or (res.ops and res.ops[0].table is not None):
        return res
    step = joins.chosen(st.sql, masked, st.schema, sqltext.digest(masked))
    if step is None:
        return res
    if step.access == "ALL":
        return sqlops.Result(None, res.table, [sqlops.Op(optrace.SCAN, optrace.PRIMARY, 0)], res.choices)
    if step.access == "index" and step.key:
        return sqlops.Result(None, res.table, [sqlops.Op(optrace.SCAN, step.key, 0)], res.choices)
    if not step.key:
        return res
    chosen, _ = classifier.classify(st.sql, st.schema, prefer=step.key)
    return chosen if chosen.reason is None else res


def _range_rows(res: sqlops.Result, joins: joinops.Joins, st, masked: str) -> None:
    """An index range (not an equality: its rows are the index statistics' rows a value) takes
    the rows the server's EXPLAIN estimates for its shape (the ROWS flag), LIMIT applied."""
    ranges = [o for o in res.ops if o.kind == optrace.INDEX_RANGE and not o.flags & optrace.HASHED
              and (o.lo != o.hi or o.flags & (optrace.LO_OPEN | optrace.HI_OPEN))]
    if not ranges or res.ops[0].table is not None:  # a join's ops: its plan is the join's
        return
    rows = joins.range_rows(st.sql, masked, st.schema, sqltext.digest(masked))
    if rows is None:
        return
    for o in ranges:
        o.extra = min(o.extra, rows) if o.extra else rows
        o.flags |= optrace.ROWS


def _def_of(classifier: sqlops.Classifier, table: str) -> tablekeys.TableDef:
    db, _, tbl = table.partition(".")
    return classifier.schemas.find(None if db == "?" else db, tbl)


def _unmodelled(cap: OpCapture, reason: str, masked: str) -> None:
    cap.unused[reason] += 1
    key = (reason, sqltext.digest(masked))
    if key in cap.digests or len(cap.digests) < MAX_DIGESTS:
        cap.digests[key] += 1
    else:
        cap.digests[(reason, "(other shapes)")] += 1


NOTES = {
    "general": "the general log lists statements as they arrive (issue order)",
    "slow": "the slow log lists statements as they finish: with several sessions that is not quite the order "
            "they were issued",
    "performance_schema": "statements in start order within a poll; the history ring keeps "
                          "performance_schema_events_statements_history_long_size rows (statements beyond it "
                          "between polls are lost) and each text up to performance_schema_max_sql_text_length "
                          "(a longer one is cut: its IN list or VALUES short); the binary protocol's executes "
                          "have no text and no values (counted: execute_without_text)",
}


def run(path, kind: str, schemas: tablekeys.Schemas, out, explain=None) -> OpCapture:
    """Capture the log `path` (kind: general | slow) into the op trace `out`; explain:
    joinops.explainer of the live server (joins are "needs_explain" without it)."""
    counts = logs.Capture(kind)
    lines = logs.read_lines(path)
    statements = (logs.general_log_statements if kind == "general" else logs.slow_log_statements)(lines, counts)
    return run_statements(statements, counts, kind, schemas, out, explain)


def run_statements(statements: Iterable, counts: logs.Capture, kind: str, schemas: tablekeys.Schemas, out,
                   explain=None) -> OpCapture:
    """Capture statements (a log reader's, or capture.pfs_statements) counted in `counts` (kind:
    general | slow | performance_schema) into the op trace `out`."""
    cap = OpCapture({"general": "general log", "slow": "slow log"}.get(kind, kind), note=NOTES[kind])
    writer = optrace.Writer(out)
    try:
        classifier = sqlops.Classifier(schemas)
        used = capture(statements, cap, classifier, writer, joinops.Joins(classifier, explain))
        seen = cap.no_table + cap.modelled + sum(cap.unused.values())
        cap.lines, cap.statements = counts.lines, counts.statements
        for reason, n in counts.unused.items():  # lines the readers could not use
            cap.unused[reason] += n
        # the readers keep `USE db` to themselves (it sets the session's schema): on no table
        cap.no_table += max(0, counts.statements - seen - sum(counts.unused.values()))
        writer.close(cap.to_meta(used))
    except BaseException:
        writer.discard()
        raise
    return cap
