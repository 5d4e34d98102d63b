"""A workload as a mix of streams over several tables: the spec, and its checks against the tables.

The file (TOML, format 1; docs/workloads.md, docs/mix-design.md) declares tables and
streams. A stream is one operation (read, read-secondary, range, scan, update, insert, delete,
read-modify-write, delete-insert) on one table with a key distribution, and either a share of
the mix's operations or a schedule (`every_s`, `at_s`: a scan on its own connection).

mixfile.py's parse() reads and checks it into this module's MixSpec; every problem is a
UsageError (exit 2) of one line, raised before any server starts: a file over MAX_FILE_BYTES is
refused by its size and never read, a device or FIFO is refused without being opened for reading,
not TOML, unknown keys, tables and ops, shares that do not add up, a schedule in the past, a
column or index the table's DDL does not have (check_against_ddl, here: the runner checks a
stream against the server's tables with the same check_stream).

The op stream (the contract between the runner and the model) is opstream.py's: it reads this
module's spec, and this module never imports it (nor mixfile.py or presets.py).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from ..errors import UsageError
from .patterns import DEFAULT_HOT_FRACTION, DEFAULT_HOT_OPS, DEFAULT_THETA, Pattern

FORMAT = 1
MAX_STREAMS = 64  # each stream holds a connection
MAX_TABLES = 64
MAX_OPERATIONS = 10 ** 12
SHARE_TOLERANCE = 1e-4  # 1/3 + 1/3 + 1/3 written as 0.3333 adds up; 0.33 * 3 does not

OPS = ("read", "read-secondary", "range", "scan", "update", "insert", "delete", "read-modify-write",
       "delete-insert")
READ_ONLY_OPS = ("read", "read-secondary", "range", "scan")
WRITE_OPS = tuple(op for op in OPS if op not in READ_ONLY_OPS)
# Ops whose `latest` keys follow the table's inserts (the newest rows); the others draw over the
# rows the table started with.
GROWING_LATEST_OPS = ("read", "read-secondary", "range", "read-modify-write")
KEY_DISTRIBUTIONS = ("uniform", "zipfian", "hotspot", "latest", "sequential", "special", "trace")
RANGE_FORMS = ("simple", "sum", "order", "distinct")  # sysbench's four range SELECTs
BUILTIN_SCHEMAS = ("chat", "chat_wide", "chat_idx", "ycsb", "sbtest")
# sysbench 1.0's --rand-type=special defaults: 75% of the values in 1% of the range, the rest a
# gaussian of 12 uniform draws (sb_rand.c, sb_rand_special).
SPECIAL_PCT, SPECIAL_RES, SPECIAL_ITER = 1.0, 75.0, 12


M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15



# -- the spec ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableSpec:
    """One table of the mix, named as it is in --database (or `existing`: db.table on --dsn)."""

    name: str
    schema: str | None = None  # a built-in under schema/ or a .sql path (absolute once parsed)
    rows: int | None = None  # None only for an existing table until the server says
    existing: str | None = None  # "db.table": read-only ops only

    @property
    def database_table(self) -> tuple[str | None, str]:
        if self.existing:
            db, _, table = self.existing.partition(".")
            return db, table
        return None, self.name


@dataclass(frozen=True)
class KeySpec:
    """A stream's key distribution and its knobs (patterns.py's names and defaults)."""

    name: str = "uniform"  # one of KEY_DISTRIBUTIONS
    zipf_theta: float = DEFAULT_THETA
    zipf_scramble: bool = True
    hot_fraction: float = DEFAULT_HOT_FRACTION
    hot_ops: float = DEFAULT_HOT_OPS
    special_pct: float = SPECIAL_PCT
    special_res: float = SPECIAL_RES
    special_iter: int = SPECIAL_ITER
    trace: str | None = None  # the file of keys: trace:PATH

    def describe(self) -> str:
        if self.name == "trace":
            return f"trace {self.trace}"
        if self.name == "special":
            return f"special ({self.special_res:g}% in {self.special_pct:g}% of the keys)"
        if self.name in ("zipfian", "latest", "hotspot"):
            return Pattern(self.name, 2, theta=self.zipf_theta, scrambled=self.zipf_scramble,
                           hot_fraction=self.hot_fraction, hot_ops=self.hot_ops).describe()
        return self.name


@dataclass(frozen=True)
class StreamSpec:
    """One stream: an op on a table with a key distribution, by share or by schedule."""

    name: str
    table: str
    op: str
    keys: KeySpec = field(default_factory=KeySpec)
    share: float | None = None  # fraction of the mix's operations (normalised to add up to 1)
    every_s: float | None = None  # scheduled: at every_s, 2*every_s, ... on its own connection
    at_s: float | None = None  # scheduled: once, at this time
    at_op: int | None = None  # scheduled: once, when the sequence has sent this many operations
    column: str | None = None  # read-secondary: looked up; update/read-modify-write: set; range sum/order/distinct
    columns: tuple[str, ...] | None = None  # what read/range/read-modify-write return (None: all)
    index: str | None = None  # scan: the index walked (None: the clustered index)
    length: tuple[int, int] = (1, 1)  # range: rows, uniform in lo..hi
    form: str = "simple"  # range: simple | sum | order | distinct
    insert: str = "end"

    @property
    def scheduled(self) -> bool:
        return self.share is None

    @property
    def writes(self) -> bool:
        return self.op in WRITE_OPS


@dataclass(frozen=True)
class MixSpec:
    """A parsed, checked workload. `streams` in file order; op arrays index into it."""

    seed: int
    operations: int
    tables: tuple[TableSpec, ...]
    streams: tuple[StreamSpec, ...]
    source: str = ""  # the file, or "preset NAME"
    description: str = ""

    def table(self, name: str) -> TableSpec:
        return next(t for t in self.tables if t.name == name)

    @property
    def mixed(self) -> tuple[int, ...]:
        """Indexes of the streams that share the op sequence (the others are scheduled)."""
        return tuple(i for i, s in enumerate(self.streams) if not s.scheduled)

    @property
    def scheduled(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.streams) if s.scheduled)

    @property
    def writes(self) -> bool:
        return any(s.writes for s in self.streams)

    def with_overrides(self, seed: int | None = None, operations: int | None = None,
                       rows: int | None = None) -> MixSpec:
        """--seed, --queries and --rows (every table loadgen seeds) over the file's values."""
        out = self
        if seed is not None:
            out = replace(out, seed=seed)
        if operations is not None:
            out = replace(out, operations=check_operations(operations, "--queries"))
        if rows is not None:
            out = replace(out, tables=tuple(t if t.existing else replace(t, rows=rows) for t in out.tables))
        return out

    def with_rows(self, rows: dict[str, int]) -> MixSpec:
        """The rows the server reported for existing tables."""
        return replace(self, tables=tuple(replace(t, rows=rows.get(t.name, t.rows)) for t in self.tables))

    def to_dict(self) -> dict:
        """The spec as run (result files' workload.mix)."""
        return {
            "format": FORMAT, "seed": self.seed, "operations": self.operations, "source": self.source,
            "description": self.description,
            "tables": {t.name: {k: v for k, v in asdict(t).items() if k != "name" and v is not None}
                       for t in self.tables},
            "streams": [_stream_dict(s) for s in self.streams],
        }


def _stream_dict(s: StreamSpec) -> dict:
    out = {"name": s.name, "table": s.table, "op": s.op}
    if s.scheduled:
        out.update({k: v for k, v in (("every_s", s.every_s), ("at_s", s.at_s), ("at_op", s.at_op)) if v is not None})
    else:
        out["share"] = s.share
        out["keys"] = s.keys.name if s.keys.name != "trace" else f"trace:{s.keys.trace}"
        knobs = {k: v for k, v in asdict(s.keys).items() if k not in ("name", "trace") and v != getattr(KeySpec(), k)}
        out.update(knobs)
    for k in ("column", "index"):
        if getattr(s, k) is not None:
            out[k] = getattr(s, k)
    if s.columns is not None:
        out["columns"] = list(s.columns)
    if s.op == "range":
        out["length"] = s.length[0] if s.length[0] == s.length[1] else f"uniform:{s.length[0]}..{s.length[1]}"
        out["form"] = s.form
    if s.op == "insert":
        out["insert"] = s.insert
    return out


class Where:
    """Where a workload's problem is (the file), and the one-line error that says so."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, what: str, hint: str | None = None) -> UsageError:
        return UsageError(f"workload {self.source}: {what}", hint)


def check_operations(value, what: str, w: Where | None = None) -> int:
    from ..units import parse_count

    if isinstance(value, bool) or not isinstance(value, (int, str)):
        err = f"{what} {value!r} is not a count"
        raise w.fail(err, "e.g. 200000 or \"200k\"") if w else UsageError(err)
    try:
        n = parse_count(value, what)
    except UsageError as exc:
        raise (w.fail(exc.message, exc.hint) if w else exc) from None
    if n > MAX_OPERATIONS:
        err = f"{what} {n:,} is more than {MAX_OPERATIONS:,}"
        raise w.fail(err) if w else UsageError(err)
    return n


def check_stream_trace(s: StreamSpec, rows: int, fail) -> None:
    from .trace import scan

    try:
        found = scan(s.keys.trace, 1, rows)
    except UsageError as exc:
        raise fail(f"stream {s.name!r}: {exc.message}", exc.hint) from None
    if found.keys == 0:
        raise fail(f"stream {s.name!r}: trace {s.keys.trace} has no key inside the table's 1..{rows:,}",
                   "check the trace and the table's rows")


# -- checks against the tables' DDL --------------------------------------------------------------
def table_ddl(t: TableSpec):
    """The DDL view of a table loadgen creates (tabledefs.DdlShape), None when unknown before a server."""
    from ..seeding.dataset import schema_text
    from . import tabledefs

    if t.existing or t.schema is None:
        return None
    return tabledefs.shape(schema_text(t.schema), t.name)


def check_against_ddl(spec: MixSpec, w: Where | None = None) -> None:
    """Streams against what each table's schema file declares: the file must create the table,
    and the columns and indexes the streams name must be there."""
    from ..seeding.dataset import schema_text
    from . import tabledefs

    w = w or Where(spec.source)
    for t in spec.tables:
        if t.existing:
            continue
        text = schema_text(t.schema)
        made = tabledefs.tables(text)
        label = Path(t.schema).name if "/" in t.schema else t.schema
        if not made:
            raise w.fail(f"[tables.{t.name}]: schema {label} holds no CREATE TABLE",
                         "give a file of CREATE TABLE statements")
        if t.name.lower() not in (m.lower() for m in made):
            raise w.fail(f"[tables.{t.name}]: schema {label} creates {', '.join(made)}, not {t.name}",
                         f"name the table [tables.{made[0]}]")
        unsafe = tabledefs.unsafe_options(text, t.name)
        if unsafe:
            raise w.fail(f"[tables.{t.name}]: schema {label}'s CREATE TABLE {t.name} has {unsafe} after its columns",
                         "a mix's table is its columns, keys and table options: no SELECT, LIKE or DIRECTORY")
        _, databases = tabledefs.statements_for(text, t.name)
        if databases:
            raise w.fail(f"[tables.{t.name}]: schema {label} makes it in database {databases[0]}",
                         "a mix's tables are created in --database: leave the database out of the file")
        shape = table_ddl(t)
        if shape is None:
            continue
        for s in spec.streams:
            if s.table == t.name:
                check_stream(s, shape.columns.keys(), shape.primary_key, shape.indexes, w.fail)


def check_stream(s: StreamSpec, columns, primary_key: list[str], indexes: dict[str, list[str]], fail) -> None:
    """One stream against a table's columns and indexes (from its DDL or from the server);
    `fail(message, hint)` makes the error."""
    lower = {c.lower(): c for c in columns}
    where = f"stream {s.name!r}"
    if not primary_key:
        raise fail(f"{where}: table {s.table} has no primary key",
                   "loadgen addresses rows by key: declare a PRIMARY KEY")
    for c in [s.column] + list(s.columns or ()):
        if c is not None and c.lower() not in lower:
            raise fail(f"{where}: table {s.table} has no column {c!r}", f"its columns: {', '.join(columns)}")
    if s.op == "read-secondary":
        lead = [n for n, cols in indexes.items() if cols and cols[0].lower() == s.column.lower()]
        if not lead:
            raise fail(f"{where}: no index of {s.table} starts with {s.column!r}",
                       f"read-secondary looks rows up through an index; its indexes: {_index_list(indexes)}")
    if s.op in ("update", "read-modify-write") and s.column is not None:
        if s.column.lower() in (k.lower() for k in primary_key):
            raise fail(f"{where}: {s.column} is part of the primary key; an update sets another column",
                       "choose a column outside the primary key")
    if s.op == "scan" and s.index is not None and s.index.upper() != "PRIMARY":
        if s.index.lower() not in (i.lower() for i in indexes):
            raise fail(f"{where}: table {s.table} has no index {s.index!r}",
                       f"its indexes: PRIMARY, {_index_list(indexes)}")


def _index_list(indexes: dict) -> str:
    return ", ".join(f"{n} ({', '.join(c)})" for n, c in indexes.items()) or "none"
