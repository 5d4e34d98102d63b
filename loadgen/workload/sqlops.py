"""One SQL statement -> the operations it makes on a table's B-trees (or the reason it cannot say).

Not a SQL parser: it reads the statement shapes OLTP tools and ORMs send to one table, and
picks the access path as InnoDB's optimiser does for them (the primary key's equality first,
then a secondary index's, then a primary-key range, else a full scan):
  SELECT ... FROM t WHERE pk = N | pk IN (..)          point(s) by primary key
  SELECT ... FROM t WHERE col = V  (col leads an index)  point by that index
  SELECT ... FROM t WHERE pk BETWEEN a AND b | pk >= a [AND pk < b] [ORDER BY pk [DESC]] [LIMIT n]
                                                         range by primary key (SUM, DISTINCT,
                                                         ORDER BY c forms alike: the same rows)
  SELECT ... FROM t [WHERE on no index]                  full scan of the clustered index
  INSERT/REPLACE INTO t [(cols)] VALUES (..),(..)        inserts (the key, or AUTO_INCREMENT's)
  UPDATE t SET .. WHERE pk = N                           update (and the indexes its columns are in)
  DELETE FROM t WHERE pk = N                             delete
Everything else returns a reason (REASONS); statements on no table (BEGIN, SET, SHOW) are "none".
Literals are masked before the shape is read, so keywords inside strings do not count.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import optrace as ot
from .sqltext import MAX_KEYS_PER_STATEMENT, key_tuple, literal, mask, split_top, tuples, unquote
from .tablekeys import SYSTEM_SCHEMAS, Schemas, TableDef

REASONS = {
    "join": "joins whose FROM clause this reader cannot take apart",
    "needs_explain": "joins: needs --dsn for EXPLAIN (which table drives, through which index)",
    "explain_failed": "joins the server would not EXPLAIN (a table gone, no grant)",
    "explain_empty": "joins whose keys matched no row (EXPLAIN has no plan for them)",
    "calls_function": "joins that call a stored or non-built-in function (EXPLAIN would run it: not sent)",
    "join_unknown_table": "joins through a derived table or a table the schema does not have",
    "join_inner_access": "joins whose inner table is read by a range or index merge per row",
    "subquery": "subqueries and UNIONs",
    "complex_where": "WHERE with OR / NOT / nested conditions",
    "non_integer_range": "ranges with bounds that are not integers",
    "write_not_by_key": "UPDATE / DELETE not by a key's equality (ranges, no index, no WHERE: the rows are not known)",
    "update_of_primary_key": "UPDATEs that change the primary key",
    "insert_select": "INSERT ... SELECT and other inserts without VALUES",
    "placeholder": "prepared statements with `?` (their Execute lines carry the values)",
    "unknown_table": "tables the schema (--dsn or --schema) does not have",
    "system_table": "the server's own schemas (mysql, information_schema, performance_schema, sys)",
    "other_statement": "statements that are not SELECT/INSERT/REPLACE/UPDATE/DELETE on a table (DDL, CALL, LOAD)",
    "too_long": "statements or log lines over the size limit",
    "key_out_of_range": "keys beyond 64-bit signed integers",
    "not_a_statement": "log lines that are neither a log header nor a statement",
    "too_many_rows": "statements over MAX_KEYS_PER_STATEMENT keys (IN lists, multi-row INSERTs)",
}


_IDENT = r"(?:`[^`]{1,64}`|[A-Za-z0-9_$]{1,64})"
_TABLE = rf"(?P<t1>{_IDENT})(?:\s*\.\s*(?P<t2>{_IDENT}))?"
_TAIL = r"(?:GROUP\s+BY|ORDER\s+BY|LIMIT|FOR\s+UPDATE|FOR\s+SHARE|LOCK\s+IN|HAVING|WINDOW|INTO|PROCEDURE)\b"
_SELECT = re.compile(rf"^SELECT\b.*?\bFROM\s+(?P<from>.*?)(?:\s+WHERE\s+(?P<where>.*?))?(?:\s+(?P<tail>{_TAIL}.*))?$",
                     re.I | re.S)
_FROM_ONE = re.compile(rf"^{_TABLE}(?:\s+(?:AS\s+)?(?!(?:USE|FORCE|IGNORE)\b)\w+)?"
                       r"(?:\s+(?:USE|FORCE|IGNORE)\s+(?:INDEX|KEY)\b.*)?$", re.I | re.S)
_UPDATE = re.compile(rf"^UPDATE\s+(?:LOW_PRIORITY\s+)?(?:IGNORE\s+)?{_TABLE}(?:\s+(?:AS\s+)?\w+)?\s+SET\s+(?P<set>.*?)"
                     r"(?:\s+WHERE\s+(?P<where>.*?))?(?:\s+(?:ORDER\s+BY|LIMIT)\b.*)?$", re.I | re.S)
_DELETE = re.compile(rf"^DELETE\s+(?:LOW_PRIORITY\s+)?(?:QUICK\s+)?(?:IGNORE\s+)?FROM\s+{_TABLE}"
                     r"(?:\s+WHERE\s+(?P<where>.*?))?(?:\s+(?:ORDER\s+BY|LIMIT)\b.*)?$", re.I | re.S)
_INSERT = re.compile(rf"^(?:INSERT|REPLACE)\s+(?:(?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY)\s+)?(?:IGNORE\s+)?"
                     rf"(?:INTO\s+)?{_TABLE}\s*(?P<rest>.*)$", re.I | re.S)
_NO_TABLE = re.compile(r"^(?:BEGIN|COMMIT|ROLLBACK|START\s+TRANSACTION|SET|SHOW|USE|SAVEPOINT|RELEASE|XA|DO|"
                       r"SELECT(?!.*\bFROM\b)|EXPLAIN|DESCRIBE|DESC|HELP|KILL|FLUSH|PING)\b", re.I | re.S)

_COL = r"(?:`?\w+`?\s*\.\s*)?`?(?P<col>\w+)`?"
_VALUE = r"(?P<val>[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\x01\d+\x01|\?|NULL|TRUE|FALSE)"
_BETWEEN = re.compile(rf"^{_COL}\s+BETWEEN\s+(?P<a>\S+)\s+AND\s+(?P<b>\S+)$", re.I)
_BETWEEN_FIND = re.compile(rf"{_COL}\s+BETWEEN\s+\S+\s+AND\s+\S+", re.I)
_COMPARE = re.compile(rf"^{_COL}\s*(?P<op><=>|>=|<=|=|>|<)\s*{_VALUE}$", re.I)
_IN = re.compile(rf"^{_COL}\s+IN\s*\((?P<list>[^()]*)\)$", re.I | re.S)
_LIMIT = re.compile(r"\bLIMIT\s+(\d+)(?:\s*(?:,|OFFSET)\s*(\d+))?", re.I)
_ORDER = re.compile(r"\bORDER\s+BY\s+" + _COL + r"(?:\s+(?P<dir>ASC|DESC))?", re.I)


@dataclass
class Op:
    kind: int
    index: str
    lo: int
    hi: int | None = None
    flags: int = 0
    extra: int = 0
    table: str | None = None  # db.tbl when not the Result's (a join's inner tables)


@dataclass
class Result:
    reason: str | None  # None: modelled; "none": a statement on no table
    table: str = ""  # db.tbl
    ops: list[Op] = field(default_factory=list)
    choices: int = 0  # indexes its conditions could be read through (over 1: EXPLAIN says which)


MAX_SHAPES = 20_000  # statement shapes kept (their results reused); past it each is classified anew
SENTINEL, SENTINEL_STEP = 10**18, 1000  # a shape's i-th number stands as SENTINEL + i * STEP
_NUMBER = re.compile(r"(?<![\w$.\x01])-?\d{1,18}(?![\w$.\x01])")


def _with_numbers(tmpl: Result, nums: list[int], check: bool = False) -> Result | None:
    """The shape's result with the statement's numbers in place of its sentinels (a bound's +-1
    kept); None (with check) when a value is not a sentinel's."""
    ops = []
    for o in tmpl.ops:
        vals = []
        for v in (o.lo, o.hi):
            if v is None or (o.flags & (ot.LO_OPEN | ot.HI_OPEN) and v == 0):
                vals.append(v)
                continue
            i, delta = divmod(v - SENTINEL + 1, SENTINEL_STEP)
            delta -= 1
            if not (0 <= i < len(nums) and -1 <= delta <= 1):
                if check:
                    return None
                raise AssertionError("a cached shape without its sentinel")
            vals.append(nums[i] + delta)
        if check and (o.flags & ot.HASHED or (o.kind == ot.RANGE and o.extra)):
            return None  # a hashed key or a LIMIT: their values are not sentinels
        ops.append(Op(o.kind, o.index, vals[0], vals[1], o.flags, o.extra))
    return Result(tmpl.reason, tmpl.table, ops, tmpl.choices)


class Classifier:
    def __init__(self, schemas: Schemas):
        self.schemas = schemas
        self.shapes: dict[tuple, Result] = {}

    def classify(self, sql: str, schema: str | None, prefer: str | None = None) -> tuple[Result, str]:
        """(the result, the masked statement for digests). Statements of one shape (numbers aside)
        are classified once: the shape's result is kept with its numbers as sentinels and reused
        with the next statement's numbers, when that gives exactly what classifying it gives."""
        masked, strings = mask(sql)
        if prefer is not None:  # the server's choice of index (EXPLAIN): not a shape's
            return self._classify(masked, strings, schema, prefer), masked
        nums = _NUMBER.findall(masked)
        shape = (_NUMBER.sub("\x03", masked), schema, len(strings))
        cached = self.shapes.get(shape)
        if cached is not None:
            return _with_numbers(cached, [int(n) for n in nums]), masked
        res = self._classify(masked, strings, schema)
        if len(self.shapes) < MAX_SHAPES and nums and len(nums) < SENTINEL_STEP:
            at = iter(range(len(nums)))
            sentinel = _NUMBER.sub(lambda _m: str(SENTINEL + SENTINEL_STEP * next(at)), masked)
            tmpl = self._classify(sentinel, strings, schema)
            if _with_numbers(tmpl, [int(n) for n in nums], check=True) == res:
                self.shapes[shape] = tmpl
        return res, masked

    def _classify(self, masked: str, strings: list[str], schema: str | None, prefer: str | None = None) -> Result:
        res, _ = self._classify_masked(masked, strings, schema, prefer)
        return res

    def _classify_masked(self, masked: str, strings: list[str], schema: str | None,
                         prefer: str | None = None) -> tuple[Result, str]:
        if not masked:
            return Result("none"), masked
        word = masked.split(None, 1)[0].upper()
        if word in ("SELECT", "WITH", "(") or masked.startswith("("):
            if _NO_TABLE.match(masked):
                return Result("none"), masked
            return self._select(masked, strings, schema, prefer), masked
        if word in ("INSERT", "REPLACE"):
            return self._insert(masked, strings, schema), masked
        if word == "UPDATE":
            return self._write(_UPDATE.match(masked), masked, strings, schema, ot.UPDATE), masked
        if word == "DELETE":
            return self._write(_DELETE.match(masked), masked, strings, schema, ot.DELETE), masked
        if _NO_TABLE.match(masked):
            return Result("none"), masked
        return Result("other_statement"), masked

    def table_def(self, db: str | None, tbl: str) -> tuple[str | None, TableDef | None, str | None]:
        """(db.tbl, its keys, None) or (None, None, the reason it cannot be used)."""
        if db and db.lower() in SYSTEM_SCHEMAS:
            return None, None, "system_table"
        t = self.schemas.find(db, tbl)
        if t is None:
            return None, None, "unknown_table"
        return f"{db or '?'}.{tbl}", t, None

    def table_read(self, t: TableDef, name: str, where: str, strings: list[str]) -> Result:
        """A read of one table by a conjunction of its own conditions (a join's driving table)."""
        if not where.strip():
            return Result(None, name, [Op(ot.SCAN, ot.PRIMARY, 0)])
        return self._read(t, name, where, strings, "", 0, None)

    def _table(self, m, schema: str | None) -> tuple[str | None, str, TableDef | None, str | None]:
        """(qualified name, the reason it cannot be used or None, its def)."""
        a, b = unquote(m.group("t1")), m.group("t2")
        db, tbl = (a, unquote(b)) if b else (schema, a)
        name, t, why = self.table_def(db, tbl)
        return name, tbl, t, why

    def _select(self, masked: str, strings: list[str], schema: str | None, prefer: str | None = None) -> Result:
        if len(re.findall(r"\bSELECT\b", masked, re.I)) > 1 or re.search(r"\bUNION\b", masked, re.I):
            return Result("subquery")
        m = _SELECT.match(masked)
        if not m:
            return Result("other_statement")
        frm = m.group("from")
        if "," in frm or re.search(r"\bJOIN\b|\(", frm, re.I):
            return Result("join")
        f = _FROM_ONE.match(frm)
        if not f:
            return Result("join")
        name, _, t, why = self._table(f, schema)
        if why:
            return Result(why)
        tail = m.group("tail") or ""
        limit = _LIMIT.search(tail)
        order = _ORDER.search(tail)
        rows = int(limit.group(2) if limit and limit.group(2) and "," in limit.group(0) else
                   limit.group(1)) if limit else 0
        offset = int(limit.group(1) if limit and "," in limit.group(0) else
                     (limit.group(2) or 0) if limit else 0)
        where = m.group("where")
        if where is None:
            desc = ot.DESC if order and (order.group("dir") or "").upper() == "DESC" else 0
            col = order.group("col").lower() if order else None
            if limit and (col is None or col == t.primary_key[0].lower()):  # the clustered index's order
                return Result(None, name, [Op(ot.RANGE, ot.PRIMARY, 0, 0, ot.LO_OPEN | ot.HI_OPEN | desc,
                                              min(rows + offset, 2**32 - 1))])
            if limit and t.leading(col):  # ORDER BY an index's column LIMIT n: its first (last) n entries
                return Result(None, name, [Op(ot.INDEX_RANGE, t.leading(col), 0, 0, ot.LO_OPEN | ot.HI_OPEN | desc,
                                              min(rows + offset, 2**32 - 1))])
            return Result(None, name, [Op(ot.SCAN, ot.PRIMARY, 0)])
        return self._read(t, name, where, strings, tail, rows + offset if limit else 0, order, prefer)

    @staticmethod
    def _is_pk(t: TableDef, col: str) -> bool:
        return len(t.primary_key) == 1 and t.primary_key[0].lower() == col.lower()

    def _conditions(self, where: str):
        """[(col, op, [values])] of a conjunction, or a reason."""
        if re.search(r"\b(?:OR|NOT|XOR)\b|\|\||&&", where, re.I):
            return "complex_where"
        betweens = [b.group(0) for b in _BETWEEN_FIND.finditer(where)]
        rest = _BETWEEN_FIND.sub(" \x02 ", where)
        parts = [p.strip() for p in re.split(r"\bAND\b", rest, flags=re.I)]
        out = []
        for p in parts:
            p = p.strip("() ") if p.count("(") == p.count(")") and not re.search(r"\bIN\s*\(", p, re.I) else p
            if p == "\x02":
                b = _BETWEEN.match(betweens.pop(0))
                if not b:
                    return "complex_where"
                out.append((b.group("col"), "between", [b.group("a"), b.group("b")]))
            elif c := _COMPARE.match(p):
                out.append((c.group("col"), c.group("op"), [c.group("val")]))
            elif i := _IN.match(p):
                out.append((i.group("col"), "in", [v.strip() for v in i.group("list").split(",")]))
            else:
                out.append((None, "other", []))  # a filter on no key (LIKE, a function): the server filters rows
        return out

    def _read(self, t: TableDef, name: str, where: str, strings, tail: str, limit: int, order,
              prefer: str | None = None) -> Result:
        conds = self._conditions(where)
        if isinstance(conds, str):
            return Result(conds)
        paths = self._paths(t, conds)
        r = self._read_by(t, name, conds, strings, limit, order, prefer if prefer in paths else None)
        r.choices = len(paths)
        return r

    @staticmethod
    def _paths(t: TableDef, conds) -> list[str]:
        """The indexes the conditions could be read through (PRIMARY for its leading column)."""
        out: list[str] = []
        for c, op, _ in conds:
            if not c or op == "other":
                continue
            ix = ot.PRIMARY if c.lower() == t.primary_key[0].lower() else t.leading(c)
            if ix and ix not in out:
                out.append(ix)
        return out

    def _read_by(self, t: TableDef, name: str, conds, strings, limit: int, order, prefer: str | None) -> Result:
        """The access path InnoDB's optimiser takes for these shapes (the module's docstring), or
        the one through `prefer` (the index the server's EXPLAIN chose)."""
        def keep(ix: str) -> bool:
            return prefer is None or ix == prefer

        eq = [(c, vals) for c, op, vals in conds if c and op in ("=", "<=>", "in")]
        for col, vals in eq:  # the primary key's equality, then a composite key's, then a secondary index's
            if self._is_pk(t, col) and keep(ot.PRIMARY):
                return self._points(name, ot.PRIMARY, vals, strings)
        bounds = [(c, op, vals) for c, op, vals in conds if c and op in (">", ">=", "<", "<=", "between")]
        if len(t.primary_key) > 1 and keep(ot.PRIMARY):
            r = self._composite(t, name, conds, strings, limit, order, ot.POINT)
            if r is not None:
                return r
        for col, vals in eq:
            ix = t.leading(col)
            if ix and not keep(ix):
                continue
            if ix and ix in t.unique and len(t.indexes[ix]) == 1:
                return self._points(name, ix, vals, strings)
            if ix:  # a non-unique (or a composite's prefix) equality: the entries with that value
                return self._equal_entries(name, ix, vals, strings, limit, order)
        pk_bounds = [b for b in bounds if self._is_pk(t, b[0])]
        if pk_bounds and keep(ot.PRIMARY):
            return self._range(name, ot.PRIMARY, pk_bounds, strings, limit, order)
        for col, _, _ in bounds:
            ix = t.leading(col)
            if ix and keep(ix):
                return self._range(name, ix, [b for b in bounds if b[0].lower() == col.lower()], strings, limit, order)
        if any(v == "?" for _, _, vals in conds for v in vals):
            return Result("placeholder")
        return Result(None, name, [Op(ot.SCAN, ot.PRIMARY, 0)])

    def _composite(self, t: TableDef, name: str, conds, strings, limit: int, order, kind: int) -> Result | None:
        """A composite primary key: every column's equality is one row (POINT, or the write `kind`;
        the row a hash of the values: where it lies is not known); the leading column's equality or
        bounds are the entries with those values (INDEX_RANGE on PRIMARY); None: neither."""
        pk = [c.lower() for c in t.primary_key]
        eq = {c.lower(): vals for c, op, vals in conds if c and op in ("=", "<=>") and c.lower() in pk}
        if all(c in eq for c in pk):
            keys = []
            for c in pk:
                what, key, _ = literal(eq[c][0], strings)
                if what in ("placeholder", "range"):
                    return Result("placeholder" if what == "placeholder" else "key_out_of_range")
                if what == "null":
                    return Result(None, name, [])
                keys.append(key)
            h = key_tuple(keys)
            return Result(None, name, [Op(kind, ot.PRIMARY, h, h, ot.HASHED)])
        if kind != ot.POINT:
            return None
        lead = [(c, op, vals) for c, op, vals in conds if c and c.lower() == pk[0]]
        ins = [vals for _, op, vals in lead if op in ("=", "<=>", "in")]
        if ins:
            return self._equal_entries(name, ot.PRIMARY, ins[0], strings, limit, order)
        bounds = [b for b in lead if b[1] in (">", ">=", "<", "<=", "between")]
        if bounds:
            return self._range(name, ot.PRIMARY, bounds, strings, limit, order, kind=ot.INDEX_RANGE)
        return None

    def _equal_entries(self, name: str, index: str, vals: list[str], strings, limit: int, order) -> Result:
        """An equality on a non-unique index (or a composite primary key's leading column): per value,
        the entries holding it (INDEX_RANGE lo = hi = the value; how many: the index's statistics)."""
        r = self._points(name, index, vals, strings)
        desc = ot.DESC if order is not None and (order.group("dir") or "").upper() == "DESC" else 0
        for o in r.ops:
            o.kind, o.flags, o.extra = ot.INDEX_RANGE, o.flags | desc, min(limit, 2**32 - 1)
        return r

    def _points(self, name: str, index: str, vals: list[str], strings) -> Result:
        if len(vals) > MAX_KEYS_PER_STATEMENT:
            return Result("too_many_rows")
        ops = []
        for v in vals:
            what, key, flags = literal(v, strings)
            if what in ("placeholder", "range"):
                return Result("placeholder" if what == "placeholder" else "key_out_of_range")
            if what == "null":
                continue  # matches no row
            ops.append(Op(ot.POINT, index, key, key, flags))
        return Result(None, name, ops)

    def _range(self, name: str, index: str, bounds, strings, limit: int, order, kind: int | None = None) -> Result:
        """A range of the primary key (RANGE), of a secondary index's leading column or a composite
        primary key's (INDEX_RANGE): its bounds, the LIMIT, the direction."""
        lo, hi, flags = None, None, 0
        for _, op, vals in bounds:
            keys = []
            for v in vals:
                what, key, _ = literal(v, strings)
                if what == "placeholder":
                    return Result("placeholder")
                if what != "int":
                    return Result("non_integer_range" if what != "range" else "key_out_of_range")
                keys.append(key)
            if op == "between":
                lo = max(lo, keys[0]) if lo is not None else keys[0]
                hi = min(hi, keys[1]) if hi is not None else keys[1]
            elif op in (">", ">="):
                k = keys[0] + (op == ">")
                lo = max(lo, k) if lo is not None else k
            else:
                k = keys[0] - (op == "<")
                hi = min(hi, k) if hi is not None else k
        if lo is None:
            flags |= ot.LO_OPEN
        if hi is None:
            flags |= ot.HI_OPEN
        if order is not None and (order.group("dir") or "").upper() == "DESC":
            flags |= ot.DESC
        if lo is not None and hi is not None and hi < lo:
            return Result(None, name, [])  # an empty range: the descent reads nothing the model needs
        if kind is None:
            kind = ot.RANGE if index == ot.PRIMARY else ot.INDEX_RANGE
        return Result(None, name, [Op(kind, index, lo or 0, hi or 0, flags, min(limit, 2**32 - 1))])

    def _write(self, m, masked: str, strings, schema: str | None, kind: int) -> Result:
        if re.search(r"\bSELECT\b", masked, re.I):
            return Result("subquery")
        if m is None:
            head = re.split(r"\bSET\b", masked, maxsplit=1, flags=re.I)[0]
            multi = re.search(r"\bJOIN\b", masked, re.I) or "," in head
            return Result("join" if multi else "other_statement")
        name, _, t, why = self._table(m, schema)
        if why:
            return Result(why)
        where = m.group("where")
        if where is None:
            return Result("write_not_by_key")
        extra = 0
        if kind == ot.UPDATE:
            cols = {re.sub(r"^(?:`?\w+`?\s*\.\s*)?`?(\w+)`?.*$", r"\1", a.split("=", 1)[0].strip()).lower()
                    for a in split_top(m.group("set"))}
            if any(c.lower() in cols for c in t.primary_key):
                return Result("update_of_primary_key")
            for j, ix in enumerate(t.bits()):
                if j < 32 and any(c.lower() in cols for c in t.indexes[ix]):
                    extra |= 1 << j
        conds = self._conditions(where)
        if isinstance(conds, str):
            return Result(conds)
        for col, op, vals in conds:
            if col and op in ("=", "<=>", "in") and self._is_pk(t, col):
                r = self._points(name, ot.PRIMARY, vals, strings)
                for o in r.ops:
                    o.kind, o.extra = kind, extra
                return r
        if len(t.primary_key) > 1:
            r = self._composite(t, name, conds, strings, 0, None, kind)
            if r is not None:
                for o in r.ops:
                    o.extra = extra
                return r
        for col, op, vals in conds:  # by a secondary index's equality: the lookup, then the row it finds
            ix = t.leading(col) if col and op in ("=", "<=>", "in") else None
            if ix:
                r = self._points(name, ix, vals, strings)
                ops = []
                for o in r.ops:  # the row: a hash of the value, as the lookup's (one row a value)
                    ops += [o, Op(kind, ot.PRIMARY, o.lo, o.lo, o.flags | ot.VIA_INDEX, extra)]
                return Result(r.reason, r.table, ops)
        if any(v == "?" for _, _, vals in conds for v in vals):
            return Result("placeholder")
        return Result("write_not_by_key")

    def _insert(self, masked: str, strings, schema: str | None) -> Result:
        m = _INSERT.match(masked)
        if not m:
            return Result("other_statement")
        name, _, t, why = self._table(m, schema)
        if why:
            return Result(why)
        rest = m.group("rest")
        cols = t.columns
        if rest.startswith("("):
            close = rest.find(")")
            inner = rest[1:close]
            if re.match(r"\s*SELECT\b", inner, re.I):
                return Result("insert_select")
            cols = [unquote(c.strip()) for c in inner.split(",")]
            rest = rest[close + 1:].lstrip()
        pks = [c.lower() for c in t.primary_key]
        s = re.match(r"SET\s+(.*)$", rest, re.I | re.S)
        if s:
            assigns = {a.split("=", 1)[0].strip().strip("`").lower(): a.split("=", 1)[1].strip()
                       for a in split_top(s.group(1)) if "=" in a}
            rows = [[assigns.get(c, "NULL") for c in pks]]
            at = list(range(len(pks)))
        else:
            at = [next((i for i, c in enumerate(cols) if c.lower() == pk), None) for pk in pks]
            v = re.match(r"VALUES?\s*(.*)$", rest, re.I | re.S)
            if not v:
                return Result("insert_select")
            rows = tuples(v.group(1))
            if rows is None:
                return Result("too_many_rows")
        ops = []
        for row in rows:
            keys, hashed, lead_int = [], 0, False
            for a in at:
                val = row[a] if a is not None and a < len(row) else "NULL"
                what, key, flags = literal(val, strings) if val.upper() != "DEFAULT" else ("null", None, 0)
                if what == "placeholder":
                    return Result("placeholder")
                if what == "range":
                    return Result("key_out_of_range")
                keys.append(None if what == "null" or (what == "int" and key == 0 and len(at) == 1) else key)
                hashed |= flags
                lead_int = lead_int or (len(keys) == 1 and what == "int")
            if None in keys:  # AUTO_INCREMENT's key (a composite key's: at the end as well)
                ops.append(Op(ot.INSERT, ot.PRIMARY, 0, 0, ot.AUTO))
            elif len(keys) > 1 and lead_int:  # a composite key: placed by its leading column's value
                ops.append(Op(ot.INSERT, ot.PRIMARY, keys[0], keys[0], 0))
            elif len(keys) > 1:  # ... or, not an integer, by a hash of the values
                h = key_tuple(keys)
                ops.append(Op(ot.INSERT, ot.PRIMARY, h, h, ot.HASHED))
            else:
                ops.append(Op(ot.INSERT, ot.PRIMARY, keys[0], keys[0], hashed))
        return Result(None, name, ops)
