"""Joins: the operations of a SELECT over several tables, from the server's EXPLAIN (read only).

A join's access path is the optimiser's choice (which table drives, through which index), not
the statement's text: `trace capture --dsn` asks the server (EXPLAIN, once per statement shape,
in a read-only transaction) and models, in EXPLAIN's order:
  the driving table  its own conditions (`alias.col op literal`) read as a one-table SELECT:
                     points, ranges, an index's entries, or a scan (EXPLAIN's ALL / index);
  each inner table   eq_ref / ref through its key: one lookup per row the tables before it
                     give (EXPLAIN's rows x filtered, the driving table's own ops counted
                     where they are points). The inner keys come from the driving rows, which
                     the log does not show: they are lookups at rows picked by a hash (spread
                     over the index, not the rows the server really joined);
                     ALL / index (a hash or block nested-loop join): one scan of it.
Anything else (derived tables, subqueries, an inner range per row) is a reason, counted.
Without a server the statement is counted as "needs_explain".
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from . import optrace as ot
from .sqlops import MAX_KEYS_PER_STATEMENT, Classifier, Op, Result
from .sqltext import key_hash, unquote

_IDENT = r"(?:`[^`]{1,64}`|[A-Za-z0-9_$]{1,64})"
_JOINER = re.compile(r",|\b(?:NATURAL\s+)?(?:(?:LEFT|RIGHT|FULL)\s+(?:OUTER\s+)?|INNER\s+|CROSS\s+)?JOIN\b"
                     r"|\bSTRAIGHT_JOIN\b", re.I)
_ITEM = re.compile(rf"^\s*(?P<t1>{_IDENT})(?:\s*\.\s*(?P<t2>{_IDENT}))?(?:\s+(?:AS\s+)?(?!ON\b|USING\b)"
                   rf"(?P<alias>{_IDENT}))?(?:\s+(?:ON|USING)\b.*)?\s*$", re.I | re.S)
_SELECT = re.compile(r"^SELECT\b.*?\bFROM\s+(?P<from>.*?)(?:\s+WHERE\s+(?P<where>.*?))?"
                     r"(?:\s+(?:GROUP\s+BY|ORDER\s+BY|LIMIT|HAVING|FOR\s+UPDATE|FOR\s+SHARE|LOCK\s+IN)\b.*)?$",
                     re.I | re.S)
_QUALIFIED = re.compile(rf"^\(*\s*(?P<q>{_IDENT})\s*\.\s*(?P<rest>{_IDENT}.*)$", re.S)
MAX_PLANS = 10_000  # statement shapes whose EXPLAIN is kept


@dataclass(frozen=True)
class Step:
    """One row of EXPLAIN: the table (its alias), the access type, the key, the rows per lookup."""

    alias: str
    access: str  # const, system, eq_ref, ref, range, index, ALL, ...
    key: str | None
    rows: float  # rows x filtered / 100: what the next table is joined with, per row before
    examined: float = 0.0  # rows: what its access reads


# What a statement may call and still be EXPLAINed: SQL words that take a parenthesis and built-in
# functions without side effects or delays. The optimizer evaluates constant expressions while it
# plans, so EXPLAIN runs a DETERMINISTIC stored function in the WHERE (measured: MariaDB 10.11 ran
# a function sleeping 3 s twice for one EXPLAIN): a log's text naming any other function (a stored
# function, SLEEP, BENCHMARK, GET_LOCK) is not sent.
SAFE_CALLS = frozenset("""
in values using on and or not join from where exists as over by when then else case is like
between key index for use force ignore row match against interval distinct all any some
count sum min max avg group_concat std stddev variance bit_and bit_or bit_xor
coalesce ifnull nullif if isnull concat concat_ws lower upper lcase ucase length char_length
substring substr trim ltrim rtrim replace left right lpad rpad instr locate field find_in_set
round floor ceil ceiling abs mod sign greatest least cast convert binary
now curdate curtime current_date current_time current_timestamp utc_timestamp sysdate
date time year month day dayofweek dayofmonth week hour minute second date_format str_to_date
date_add date_sub adddate subdate datediff timestampdiff timestampadd unix_timestamp from_unixtime
md5 sha1 sha2 crc32 hex unhex json_extract json_unquote json_contains json_length
""".split())
_CALL = re.compile(r"(`(?:[^`]|``)+`|[A-Za-z_][\w$]*)(\s*\.\s*(?:`(?:[^`]|``)+`|[A-Za-z_][\w$]*))*\s*\(")
_STRING = re.compile(r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"")


def calls_function(sql: str) -> bool:
    """Whether the statement calls anything outside SAFE_CALLS (strings masked first; a qualified
    name such as db.f( or a quoted one is never safe)."""
    for m in _CALL.finditer(_STRING.sub("''", sql)):
        if m.group(2) or m.group(1).startswith("`") or m.group(1).lower() not in SAFE_CALLS:
            return True
    return False


def explainer(conn) -> Callable[[str, str | None], list[Step] | str]:
    """EXPLAIN of a statement on the live server: its steps, or a reason. Read only: a READ ONLY
    transaction, one statement per call (the text is checked to hold no second statement)."""
    from .. import db

    cur_schema: list[str | None] = [None]
    # MySQL 9 writes EXPLAIN as a tree unless asked for the table (explain_format); MariaDB has no FORMAT=TRADITIONAL
    head = "EXPLAIN FORMAT=TRADITIONAL " if db.server_flavor(conn).name == "mysql" else "EXPLAIN "

    def explain(sql: str, schema: str | None) -> list[Step] | str:
        if re.search(r"/\*[!M]", sql):  # an executable comment runs what the capture read as a comment
            return "other_statement"
        if calls_function(sql):
            return "calls_function"
        sql = sql.strip().rstrip(";")
        cur = conn.cursor()
        try:
            if schema and schema != cur_schema[0]:
                cur.execute(f"USE `{schema.replace('`', '``')}`")
                cur_schema[0] = schema
            cur.execute("START TRANSACTION READ ONLY")
            try:
                cur.execute(head + sql)
                names = [d[0].lower() for d in cur.description]
                rows = [dict(zip(names, r)) for r in cur.fetchall()]
            finally:
                cur.execute("ROLLBACK")
        except Exception:  # noqa: BLE001 - the server refused it (a table gone, no grant): counted
            return "explain_failed"
        finally:
            cur.close()
        rows = [{k: v.decode("utf-8", "replace") if isinstance(v, bytes) else v for k, v in r.items()}
                for r in rows]  # MySQL's EXPLAIN columns come back as bytes
        steps = []
        for r in rows:
            if r.get("table") is None and re.search(r"no matching row|Impossible", str(r.get("extra") or ""), re.I):
                return "explain_empty"  # this statement's keys match nothing: the next of its shape is asked
            if str(r.get("select_type") or "SIMPLE").upper() != "SIMPLE" or r.get("table") is None:
                return "subquery"
            filtered = float(r.get("filtered") or 100.0)
            rows = max(0.0, float(r.get("rows") or 1))
            steps.append(Step(str(r["table"]), str(r.get("type") or "ALL"), r.get("key") and str(r["key"]),
                              rows * filtered / 100.0, rows))
        return steps or "explain_failed"

    return explain


class Joins:
    """Join statements -> ops on each table (the module's docstring), EXPLAIN cached per shape."""

    def __init__(self, classifier: Classifier, explain: Callable | None):
        self.classifier, self.explain = classifier, explain
        self.plans: dict[tuple, list[Step] | str] = {}
        self.n = 0  # join statements modelled: the inner lookups' hash seed

    def classify(self, sql: str, masked: str, strings: list[str], schema: str | None, shape: str) -> Result:
        if self.explain is None:
            return Result("needs_explain")
        if ";" in masked:
            return Result("other_statement")  # never more than one statement to the server
        m = _SELECT.match(masked)
        if not m or re.search(r"\(\s*SELECT\b", masked, re.I):
            return Result("subquery")
        aliases = self._aliases(m.group("from"), schema)
        if isinstance(aliases, str):
            return Result(aliases)
        if re.search(r"\b(?:OR|XOR)\b|\|\|", m.group("where") or "", re.I):
            return Result("complex_where")  # before the server is asked
        plan = self._plan(sql, schema, shape)
        if isinstance(plan, str):
            return Result(plan)
        return self._ops(plan, aliases, m.group("where") or "", strings)

    def chosen(self, sql: str, masked: str, schema: str | None, shape: str) -> Step | None:
        """The server's access to a one-table statement whose conditions could use several
        indexes (EXPLAIN once per shape); None without a server or an answer."""
        if self.explain is None or ";" in masked:
            return None
        plan = self._plan(sql, schema, shape)
        return plan[0] if not isinstance(plan, str) and len(plan) == 1 else None

    def range_rows(self, sql: str, masked: str, schema: str | None, shape: str) -> int | None:
        """Rows a one-table range on an index reads, from the server's EXPLAIN of the first
        statement of its shape (the optimiser's index dives: where the values lie is the data's,
        not an even spread between the column's ends); None without a server or an answer."""
        if self.explain is None or ";" in masked:
            return None
        plan = self._plan(sql, schema, shape)
        if isinstance(plan, str) or len(plan) != 1 or plan[0].access not in ("range", "ref", "index"):
            return None
        return max(1, int(round(plan[0].examined)))

    def _plan(self, sql: str, schema: str | None, shape: str) -> list[Step] | str:
        """EXPLAIN once per shape (and schema); a plan for keys that match nothing is not kept."""
        plan = self.plans.get((shape, schema))
        if plan is None:
            plan = self.explain(sql, schema)
            if len(self.plans) < MAX_PLANS and plan != "explain_empty":
                self.plans[(shape, schema)] = plan
        return plan

    def _aliases(self, frm: str, schema: str | None) -> dict[str, tuple[str, object]] | str:
        """alias (and table name) -> (db.tbl, TableDef), or a reason."""
        if "(" in re.sub(r"\bUSING\s*\([^()]*\)|\bON\b.*?(?=,|\bJOIN\b|$)", " ", frm, flags=re.I | re.S):
            return "subquery"
        out: dict[str, tuple[str, object]] = {}
        for item in _JOINER.split(frm):
            item = re.sub(r"^\s*(?:LEFT|RIGHT|INNER|CROSS|OUTER|NATURAL|\s)*", "", item, flags=re.I)
            i = _ITEM.match(item)
            if not i:
                return "join"
            a, b = unquote(i.group("t1")), i.group("t2")
            db, tbl = (a, unquote(b)) if b else (schema, a)
            name, t, why = self.classifier.table_def(db, tbl)
            if why:
                return why
            out[unquote(i.group("alias")).lower() if i.group("alias") else tbl.lower()] = (name, t)
        return out

    def _ops(self, plan: list[Step], aliases: dict, where: str, strings: list[str]) -> Result:
        self.n += 1
        ops: list[Op] = []
        before = 1.0  # rows the tables so far give
        for i, step in enumerate(plan):
            found = aliases.get(step.alias.lower())
            if found is None:
                return Result("join_unknown_table")  # a derived table, <union..>: EXPLAIN's own names
            name, t = found
            if i == 0:
                r = self.classifier.table_read(t, name, self._own(where, step.alias, aliases), strings)
                if r.reason is not None:
                    return r
                if step.access == "index" and step.key and r.ops and r.ops[0].kind == ot.SCAN:
                    r.ops[0].index = step.key  # a full scan of a covering index, not the table
                for o in r.ops:
                    o.table = name
                ops += r.ops
                points = all(o.kind == ot.POINT for o in r.ops)
                before = float(len(r.ops)) if points else max(1.0, step.rows)
                continue
            if step.access in ("eq_ref", "ref") and step.key:
                n = int(round(before))
                if len(ops) + n > MAX_KEYS_PER_STATEMENT:
                    return Result("too_many_rows")
                kind = ot.POINT if step.access == "eq_ref" else ot.INDEX_RANGE
                for j in range(n):
                    k = key_hash(f"{self.n}:{i}:{j}")
                    ops.append(Op(kind, step.key, k, k, ot.HASHED, table=name))
                before *= max(1.0, step.rows) if step.access == "ref" else 1.0
            elif step.access in ("ALL", "index"):
                ops.append(Op(ot.SCAN, step.key if step.access == "index" and step.key else ot.PRIMARY, 0,
                              table=name))
                before *= max(1.0, step.rows)
            elif step.access in ("const", "system"):
                before *= 1.0
                r = self.classifier.table_read(t, name, self._own(where, step.alias, aliases), strings)
                if r.reason is None:
                    for o in r.ops:
                        o.table = name
                    ops += r.ops
            else:
                return Result("join_inner_access")  # range checked per row, index_merge, fulltext
        return Result(None, plan and aliases[plan[0].alias.lower()][0] or "", ops)

    @staticmethod
    def _own(where: str, alias: str, aliases: dict) -> str:
        """The conjuncts of WHERE on this table alone (`alias.col op literal`, qualifier dropped;
        unqualified ones when it is the only table): what its own access reads."""
        keep = []
        for part in re.split(r"\bAND\b", re.sub(r"\bBETWEEN\s+(\S+)\s+AND\b", "BETWEEN \\1 \x04", where, flags=re.I),
                             flags=re.I):
            part = part.replace("\x04", "AND").strip()
            q = _QUALIFIED.match(part)
            if q and unquote(q.group("q")).lower() == alias.lower():
                rest = q.group("rest")
                if not re.search(rf"\b{_IDENT}\s*\.\s*{_IDENT}", rest):  # not a join condition
                    keep.append(rest)
            elif not q and len(aliases) == 1:
                keep.append(part)
        return " AND ".join(keep)
