"""The SQL each stream of a mix runs, built from its op and its table's columns.

Every statement is prepared once per stream connection and bound with integers only (so the C
driver binds nothing but 64-bit integers): PARAM_KEY the op's key (plus the table's key offset),
PARAM_END the last key of a range (key + length - 1), PARAM_OP the op's index in the mix, PARAM_RAW
the key as drawn, 1..rows (an existing table's read-secondary spreads it over the column's values
in SQL: `col = lo + (raw - 1) * (hi - lo + 1) DIV rows`). Values a write stores are made by the
server from those integers, e.g. LPAD(op, 100, '#'): each update stores a value no earlier op
stored, so InnoDB really changes (and dirties) the row, which an update to the same value would
not do.

  read               SELECT cols FROM t WHERE pk = key
  read-secondary     SELECT cols FROM t WHERE col = key               (the index that leads with col)
  range simple       SELECT cols FROM t WHERE pk BETWEEN key AND end  (sysbench's four range forms,
  range sum          SELECT SUM(col) ...                               YCSB's scan is the simple one)
  range order        SELECT col ... ORDER BY col
  range distinct     SELECT DISTINCT col ... ORDER BY col
  index-range        SELECT * FROM t FORCE INDEX (index) WHERE col BETWEEN key AND end (col = key,
                     col >= key, col <= key, or none for open bounds) [ORDER BY the index's columns [DESC] LIMIT n]:
                     an op trace's index range (its values), each entry's row read (the replay only)
  scan               SELECT SUM(1) FROM t FORCE INDEX (PRIMARY | index): every leaf of that index in
                     order, on the server (no row reaches the client; not COUNT(*), which MySQL
                     may answer with its parallel reader)
  update             UPDATE t SET col = <new value> WHERE pk = key
  insert             INSERT INTO t (all columns) VALUES (key, <values from key>)
  delete             DELETE FROM t WHERE pk = key
  read-modify-write  the read, then the update, of one key, on one connection
  delete-insert      the delete, then the insert, of one key (sysbench's delete_inserts)
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from .mix import StreamSpec

PARAM_KEY, PARAM_END, PARAM_OP, PARAM_RAW = 0, 1, 2, 3
PARAM_NAMES = {PARAM_KEY: "key", PARAM_END: "end", PARAM_OP: "op", PARAM_RAW: "raw_key"}
TEXT_LENGTH = {"TINYTEXT": 100, "TEXT": 200, "MEDIUMTEXT": 400, "LONGTEXT": 400, "TINYBLOB": 100, "BLOB": 200,
               "MEDIUMBLOB": 400, "LONGBLOB": 400}
INT_MAX = {"TINYINT": 127, "SMALLINT": 32767, "MEDIUMINT": 8388607, "INT": 2147483647, "INTEGER": 2147483647,
           "BIGINT": 2 ** 62}
SPREAD = 2654435761  # Knuth's multiplicative hash: inserted integers spread over 1..rows


@dataclass(frozen=True)
class Statement:
    sql: str
    params: tuple[int, ...]  # PARAM_* per placeholder, in order
    reads_rows: bool  # a SELECT: its rows are counted; else the rows it changed
    explain: bool = True  # checked with EXPLAIN before the run (BEGIN and COMMIT are not)

    def text(self, key: int, end: int, op: int, raw: int | None = None) -> str:
        """The statement with its integers in (the python driver's text protocol)."""
        values = {PARAM_KEY: key, PARAM_END: end, PARAM_OP: op, PARAM_RAW: key if raw is None else raw}
        parts = self.sql.split("?")
        out = [parts[0]]
        for code, rest in zip(self.params, parts[1:]):
            out.append(str(int(values[code])))
            out.append(rest)
        return "".join(out)

    def to_dict(self) -> dict:
        return {"sql": self.sql, "params": [PARAM_NAMES[p] for p in self.params]}


def _q(name: str) -> str:
    return f"`{name}`"


def _cols(table, wanted: tuple[str, ...] | None) -> str:
    if wanted is None:
        return "*"
    return ", ".join(_q(_name(table, c)) for c in wanted)


def _name(table, column: str) -> str:
    """The column as the table spells it (names compare case-insensitively)."""
    for c in table.columns:
        if c.lower() == column.lower():
            return c
    raise UsageError(f"table {table.name} has no column {column!r}", f"its columns: {', '.join(table.columns)}")


def _string_length(table, col: str) -> int:
    """How long a value written to a text column is: the column's width for CHAR (fixed, as the
    seeded rows are), the generator's mean for VARCHAR and TEXT (tablegen.py), so a row keeps
    about its size and an update does not turn into a page split the seed never had."""
    t = table.columns[col]
    n = table.column_lengths.get(col)
    if t in ("CHAR", "BINARY"):
        return n or 1
    if t in ("VARCHAR", "VARBINARY"):
        return max(1, min((n or 2) // 2, 48))
    return TEXT_LENGTH.get(t, 16)


def _new_value(table, col: str, param_code: int) -> tuple[str, int] | None:
    """(SQL expression of a value for col made from one integer placeholder, its code), or None
    for a type it cannot make."""
    t = table.columns[col]
    if t in INT_MAX:
        top = min(INT_MAX[t], max(1, table.rows))
        return f"(1 + (? * {SPREAD}) % {top})", param_code
    if t in ("CHAR", "VARCHAR", "BINARY", "VARBINARY") or t in TEXT_LENGTH:
        return f"LPAD(?, {_string_length(table, col)}, '#')", param_code
    if t in ("DECIMAL", "NUMERIC", "FLOAT", "DOUBLE", "REAL"):
        return "(? % 1000)", param_code
    if t in ("DATETIME", "TIMESTAMP"):
        return "FROM_UNIXTIME(1700000000 + 3 * (? % 300000000))", param_code
    if t == "DATE":
        return "DATE(FROM_UNIXTIME(1700000000 + 86400 * (? % 2000000)))", param_code
    if t == "TIME":
        return "SEC_TO_TIME(? % 86400)", param_code
    if t == "YEAR":
        return "(1990 + ? % 40)", param_code
    if t == "JSON":
        return "JSON_OBJECT('n', ?)", param_code
    return None


def steps_by_one(col_type: str) -> bool:
    """Whether an update of a column of this type (its type word) moves the value one step
    (col = col + 1, a day for dates), which leaves its index entry beside the old one, in the
    same leaf (the mix model, mixmodel.Mapper); other types get a new value from the op."""
    t = col_type.upper()
    return t in INT_MAX or t in ("DECIMAL", "NUMERIC", "FLOAT", "DOUBLE", "REAL", "DATETIME", "TIMESTAMP", "DATE")


def _update_expr(table, col: str, salt: int = 0) -> tuple[str, tuple[int, ...]]:
    """salt (a replay's, 1..999; 0 for a mix, whose written tables are seeded again before the
    next run): a string made from op * 1000 + salt, another type's value from op + salt, so a
    replay repeated on the rows an earlier replay of the same trace left stores values that one did
    not, and InnoDB changes the row."""
    t = table.columns[col]
    if steps_by_one(t) and t in ("DATETIME", "TIMESTAMP", "DATE"):
        return f"{_q(col)} = {_q(col)} + INTERVAL 1 DAY", ()
    if steps_by_one(t):
        return f"{_q(col)} = {_q(col)} + 1", ()  # sysbench's index update: k = k + 1
    made = _new_value(table, col, PARAM_OP)
    if made is None:
        raise UsageError(f"loadgen cannot make values of {col} ({t}) in {table.name} for an update",
                         "update another column: column = \"...\"")
    expr = made[0]
    if salt and expr.startswith("LPAD(?, "):
        # LPAD keeps a value's leftmost characters: the rightmost are taken first so that a column
        # narrower than the number keeps the salt (VARCHAR(8): 4 characters)
        n = _string_length(table, col)
        expr = f"LPAD(RIGHT(? * 1000 + {int(salt)}, {n}), {n}, '#')"
    elif salt:
        # shifted, not scaled: the other types take the op modulo a small range (YEAR: % 40), where
        # op * 1000 + salt would be the salt alone, one value for every update of the replay
        expr = expr.replace("?", f"(? + {int(salt)})", 1)
    return f"{_q(col)} = {expr}", (PARAM_OP,)


def _default_update_column(table) -> str:
    others = [c for c in table.columns if c.lower() not in (k.lower() for k in table.primary_key)]
    if not others:
        raise UsageError(f"table {table.name} has only key columns: nothing to update")
    return others[0]


def _insert(table, where: str) -> Statement:
    names, values, params = [], [], []
    key = table.key_column
    for col, t in table.columns.items():
        if col in table.generated:
            continue
        if col == key:
            names.append(_q(col))
            values.append("?")
            params.append(PARAM_KEY)
            continue
        if col in table.primary_key:
            raise UsageError(f"{where}: {table.name} has a composite primary key; a mix inserts by one integer key")
        made = _new_value(table, col, PARAM_KEY)
        if made is None:
            if col in table.nullable or col in table.defaults:
                continue
            raise UsageError(f"{where}: loadgen cannot make values of {col} ({t}) to insert into {table.name}",
                             "give the column a DEFAULT or make it NULL in the schema file")
        names.append(_q(col))
        values.append(made[0])
        params.append(made[1])
    sql = f"INSERT INTO {_q(table.database)}.{_q(table.table)} ({', '.join(names)}) VALUES ({', '.join(values)})"
    return Statement(sql, tuple(params), False)


def index_range(table, index: str, lo_open: bool, hi_open: bool, desc: bool, limit: int,
                equal: bool = False) -> Statement:
    """An op trace's index range (the replay's): the entries of `index` (PRIMARY: a composite
    primary key) whose leading column's values lie in key..end, each entry's row (SELECT *), read
    through that index as the capture classified it; with a LIMIT, in the index's order from the
    end the statement read from. Open bounds bind the other one as key."""
    if index.upper() != "PRIMARY" and index not in table.indexes:  # a name from a trace: only the server's
        raise UsageError(f"{table.name} has no index {index!r}")
    cols = table.primary_key if index.upper() == "PRIMARY" else table.indexes[index].columns
    if not cols:
        raise UsageError(f"index {index} of {table.name} has no columns loadgen knows")
    t = f"{_q(table.database)}.{_q(table.table)}"
    col = _q(_name(table, cols[0]))
    forced = "PRIMARY" if index.upper() == "PRIMARY" else _q(index)
    where, params = "", ()
    if equal:  # not BETWEEN v AND v: MariaDB 10.11 then sorts the value's every row for ORDER BY .. LIMIT
        where, params = f" WHERE {col} = ?", (PARAM_KEY,)
    elif not lo_open and not hi_open:
        where, params = f" WHERE {col} BETWEEN ? AND ?", (PARAM_KEY, PARAM_END)
    elif not lo_open:
        where, params = f" WHERE {col} >= ?", (PARAM_KEY,)
    elif not hi_open:
        where, params = f" WHERE {col} <= ?", (PARAM_KEY,)
    tail = ""
    if limit:
        way = " DESC" if desc else ""
        tail = " ORDER BY " + ", ".join(_q(_name(table, c)) + way for c in cols) + f" LIMIT {int(limit)}"
    return Statement(f"SELECT * FROM {t} FORCE INDEX ({forced}){where}{tail}", params, True)


def build(s: StreamSpec, table, update_salt: int = 0) -> list[Statement]:
    """The statement(s) one op of stream s runs, in order, on its table (a mixseed.TableInfo);
    update_salt: _update_expr's salt (a replay's)."""
    where = f"stream {s.name!r}"
    # qualified: one connection reaches every table of the mix (--pipeline), existing ones in their
    # own database included
    t, pk = f"{_q(table.database)}.{_q(table.table)}", _q(table.key_column)
    if table.columns.get(table.key_column) not in INT_MAX:
        raise UsageError(f"{where}: {table.name}'s key {table.key_column} is not an integer",
                         "a mix addresses rows by an integer primary key")
    read = Statement(f"SELECT {_cols(table, s.columns)} FROM {t} WHERE {pk} = ?", (PARAM_KEY,), True)
    if s.op == "read":
        return [read]
    if s.op == "read-secondary":
        name = _name(table, s.column)
        col = _q(name)
        value = "?"
        span = getattr(table, "column_ranges", {}).get(name)
        if span is not None:  # an existing table: keys 1..rows spread over the column's own values
            lo, hi = span
            value = f"({lo} + ((? - 1) * {hi - lo + 1}) DIV {max(1, table.rows)})"
        return [Statement(f"SELECT {_cols(table, s.columns)} FROM {t} WHERE {col} = {value}", (PARAM_RAW,), True)
                if span is not None else
                Statement(f"SELECT {_cols(table, s.columns)} FROM {t} WHERE {col} = ?", (PARAM_KEY,), True)]
    if s.op == "range":
        between = f"FROM {t} WHERE {pk} BETWEEN ? AND ?"
        params = (PARAM_KEY, PARAM_END)
        if s.form == "simple":
            return [Statement(f"SELECT {_cols(table, s.columns)} {between}", params, True)]
        col = _q(_name(table, s.column))
        sql = {"sum": f"SELECT SUM({col}) {between}",
               "order": f"SELECT {col} {between} ORDER BY {col}",
               "distinct": f"SELECT DISTINCT {col} {between} ORDER BY {col}"}[s.form]
        return [Statement(sql, params, True)]
    if s.op == "scan":
        index = "PRIMARY" if s.index is None or s.index.upper() == "PRIMARY" else _q(s.index)
        return [Statement(f"SELECT SUM(1) FROM {t} FORCE INDEX ({index})", (), True)]
    if s.op in ("update", "read-modify-write"):
        col = _name(table, s.column) if s.column else _default_update_column(table)
        expr, params = _update_expr(table, col, update_salt)
        update = Statement(f"UPDATE {t} SET {expr} WHERE {pk} = ?", params + (PARAM_KEY,), False)
        return [update] if s.op == "update" else [read, update]
    delete = Statement(f"DELETE FROM {t} WHERE {pk} = ?", (PARAM_KEY,), False)
    if s.op == "delete":
        return [delete]
    if s.op == "insert":
        return [_insert(table, where)]
    if s.op == "delete-insert":
        return [delete, _insert(table, where)]
    raise UsageError(f"{where}: unknown op {s.op!r}")
