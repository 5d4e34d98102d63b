"""A workload as a mix of streams over several tables: the file, its checks, and the op stream.

The file (TOML, format 1; docs/workloads.md, docs/mix-design.md) declares tables and
streams. A stream is one operation (read, read-secondary, range, scan, update, insert, delete,
read-modify-write, delete-insert) on one table with a key distribution, and either a share of
the mix's operations or a schedule (`every_s`, `at_s`: a scan on its own connection).

parse() reads and checks it; every problem is a UsageError (exit 2) of one line, raised before
any server starts: a file over MAX_FILE_BYTES is refused by its size and never read, a device or
FIFO is refused without being opened for reading, not TOML, unknown keys, tables and ops, shares
that do not add up, a schedule in the past, a column or index the table's DDL does not have.

The op stream (the contract between the runner and the model) is opstream.py's: it reads this
module's spec, and this module never imports it (nor presets.py, which builds on parse()).
"""
from __future__ import annotations

import math
import os
import re
import stat
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from ..errors import UsageError
from .patterns import DEFAULT_HOT_FRACTION, DEFAULT_HOT_OPS, DEFAULT_THETA, Pattern

FORMAT = 1
MAX_FILE_BYTES = 1 << 20  # a workload is a page of text; anything larger is refused unread
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

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
_IDENT = re.compile(r"^\w{1,64}$")
_LENGTH = re.compile(r"^\s*uniform\s*:\s*(\d+)\s*\.\.\s*(\d+)\s*$")

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

TOP_KEYS = {"format", "seed", "operations", "tables", "streams", "description"}
TABLE_KEYS = {"schema", "rows", "existing"}
STREAM_KEYS = {"name", "table", "op", "keys", "share", "every_s", "at_s", "at_op", "column", "columns", "index",
               "length", "form", "insert", "zipf_theta", "zipf_scramble", "hot_fraction", "hot_ops", "special_pct",
               "special_res", "special_iter"}


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
            out = replace(out, operations=_check_operations(operations, "--queries"))
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


# -- reading a file ------------------------------------------------------------------------------
def read_text(path: str | os.PathLike) -> str:
    """The file's text, refused in one line when it is not a regular file, is over
    MAX_FILE_BYTES (by its size, unread) or is not UTF-8."""
    path = str(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says what it is.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UsageError(f"cannot read workload {path}: {exc.strerror}",
                         "give a workload file (TOML) you can read, or a preset (docs/workloads.md)") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UsageError(f"workload {path} is not a regular file", "give a TOML file")
        if st.st_size > MAX_FILE_BYTES:
            raise UsageError(f"workload {path} is {st.st_size:,} bytes, over the {MAX_FILE_BYTES:,}-byte limit",
                             "a workload file is a short TOML text; check the path")
        data = b""
        while len(data) <= MAX_FILE_BYTES:  # it may grow after the fstat: read one byte past the limit
            part = os.read(fd, MAX_FILE_BYTES + 1 - len(data))
            if not part:
                break
            data += part
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"workload {path} is over the {MAX_FILE_BYTES:,}-byte limit", "check the path")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"workload {path} is not text (not UTF-8)", "give a TOML file") from None


def parse_file(path: str | os.PathLike) -> MixSpec:
    """Read and check a workload file; relative schema and trace paths are the file's."""
    text = read_text(path)
    return parse(text, source=str(path), base=Path(path).resolve().parent)


def parse(text: str, source: str = "<workload>", base: Path | None = None, defaults: dict | None = None) -> MixSpec:
    """Check a workload's TOML text and return the spec; UsageError (one line) otherwise.

    base: where relative paths in it are; defaults: top-level values a preset supplies
    (the file's own win)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise UsageError("reading a workload file needs Python 3.11+ (tomllib) or the tomli package",
                             "pip install tomli") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"workload {source} is not valid TOML: {exc}", "fix the file (https://toml.io)") from None
    return _build(doc, _Where(source), base or Path.cwd(), defaults or {})


class _Where:
    def __init__(self, source: str):
        self.source = source

    def fail(self, what: str, hint: str | None = None) -> UsageError:
        return UsageError(f"workload {self.source}: {what}", hint)


def _build(doc: dict, w: _Where, base: Path, defaults: dict) -> MixSpec:
    unknown = set(doc) - TOP_KEYS
    if unknown:
        raise w.fail(f"unknown key {sorted(unknown)[0]!r}", f"the top level takes: {', '.join(sorted(TOP_KEYS))}")
    fmt = doc.get("format", defaults.get("format"))
    if fmt is None:
        raise w.fail("no `format`", f"start the file with format = {FORMAT}")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt != FORMAT:
        raise w.fail(f"format {fmt!r} is not one this loadgen reads", f"this loadgen reads format = {FORMAT}")
    seed = doc.get("seed", defaults.get("seed", 1))
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= M64:
        raise w.fail(f"seed {seed!r} is not an integer from 0 to 2^64-1", "e.g. seed = 7")
    operations = doc.get("operations", defaults.get("operations"))
    if operations is None:
        raise w.fail("no `operations`", "say how many operations the mix runs, e.g. operations = 200000")
    operations = _check_operations(operations, "operations", w)
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise w.fail("description must be a string")

    raw_tables = doc.get("tables")
    if not isinstance(raw_tables, dict) or not raw_tables:
        raise w.fail("no [tables.NAME] section", 'declare at least one table, e.g. [tables.usertable] schema = "ycsb"')
    if len(raw_tables) > MAX_TABLES:
        raise w.fail(f"{len(raw_tables)} tables, at most {MAX_TABLES}")
    tables = tuple(_table(name, t, w, base) for name, t in raw_tables.items())

    raw_streams = doc.get("streams")
    if not isinstance(raw_streams, list) or not raw_streams:
        raise w.fail("no [[streams]]", 'declare at least one, e.g. [[streams]] name = "read" table = "t" op = "read"')
    if len(raw_streams) > MAX_STREAMS:
        raise w.fail(f"{len(raw_streams)} streams, at most {MAX_STREAMS} (each holds a connection)")
    streams = [_stream(i, s, w, base, {t.name: t for t in tables}) for i, s in enumerate(raw_streams)]
    names = [s.name for s in streams]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise w.fail(f"two streams are named {dup!r}", "give each stream its own name")
    streams = _normalise_shares(streams, w)
    for s in streams:  # a trace is read through once now: a bad line stops the run before it starts
        rows = next(t.rows for t in tables if t.name == s.table)
        if s.keys.name == "trace" and rows is not None:
            check_trace(s, rows, w.fail)
    spec = MixSpec(seed=seed, operations=operations, tables=tables, streams=tuple(streams), source=w.source,
                   description=description)
    check_against_ddl(spec, w)
    return spec


def _check_operations(value, what: str, w: _Where | None = None) -> int:
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


def _table(name: str, t, w: _Where, base: Path) -> TableSpec:
    if not _IDENT.match(name):
        raise w.fail(f"table name {name!r} is not a plain identifier", "use letters, digits and _ (at most 64)")
    if not isinstance(t, dict):
        raise w.fail(f"[tables.{name}] must be a table of keys (schema, rows)")
    unknown = set(t) - TABLE_KEYS
    if unknown:
        raise w.fail(f"unknown key {sorted(unknown)[0]!r} in [tables.{name}]",
                     f"a table takes: {', '.join(sorted(TABLE_KEYS))}")
    existing = t.get("existing")
    if existing is not None:
        if not isinstance(existing, str) or not re.match(r"^\w{1,64}\.\w{1,64}$", existing):
            raise w.fail(f"[tables.{name}] existing = {existing!r} is not DB.TABLE", 'e.g. existing = "shop.orders"')
        if "schema" in t or "rows" in t:
            raise w.fail(f"[tables.{name}] is an existing table: it takes no schema or rows (the server has them)")
        return TableSpec(name=name, existing=existing)
    schema = t.get("schema")
    if not isinstance(schema, str) or not schema:
        raise w.fail(f"[tables.{name}] has no schema",
                     f"schema = one of {', '.join(BUILTIN_SCHEMAS)} or a .sql file "
                     "(or existing = \"db.table\" with --dsn)")
    from ..seeding.dataset import available_schemas, is_schema_path

    if is_schema_path(schema):
        path = Path(schema).expanduser()
        schema = str(path if path.is_absolute() else (base / path))
        if not Path(schema).is_file():
            raise w.fail(f"[tables.{name}] schema file {schema} does not exist",
                         "check the path (relative to the workload file)")
    elif schema not in available_schemas():
        raise w.fail(f"[tables.{name}] schema {schema!r} is not a built-in",
                     f"choose one of: {', '.join(available_schemas())}, "
                     "or give a .sql file")
    rows = t.get("rows")
    if rows is None:
        raise w.fail(f"[tables.{name}] has no rows", 'e.g. rows = "300k" (--rows overrides it)')
    return TableSpec(name=name, schema=schema, rows=_check_operations(rows, f"[tables.{name}] rows", w))


def _number(s: dict, key: str, w: _Where, where: str, default=None, integer: bool = False):
    v = s.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (integer and not isinstance(v, int)):
        raise w.fail(f"{where}: {key} = {v!r} is not a {'whole ' if integer else ''}number")
    if isinstance(v, float) and not math.isfinite(v):
        raise w.fail(f"{where}: {key} = {v!r} is not a finite number")
    return v


def _stream(i: int, s, w: _Where, base: Path, tables: dict[str, TableSpec]) -> StreamSpec:
    where = f"[[streams]] {i + 1}"
    if not isinstance(s, dict):
        raise w.fail(f"{where} must be a table of keys")
    name = s.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise w.fail(f"{where}: name {name!r} is not a name",
                     "letters, digits, _ . - (at most 64), e.g. name = \"read\"")
    where = f"stream {name!r}"
    unknown = set(s) - STREAM_KEYS
    if unknown:
        raise w.fail(f"{where}: unknown key {sorted(unknown)[0]!r}",
                     f"a stream takes: {', '.join(sorted(STREAM_KEYS))}")
    table = s.get("table")
    if table not in tables:
        raise w.fail(f"{where}: unknown table {table!r}",
                     f"declare [tables.{table}] or use one of: {', '.join(tables)}")
    op = s.get("op")
    if op not in OPS:
        raise w.fail(f"{where}: unknown op {op!r}", f"choose one of: {', '.join(OPS)}")
    t = tables[table]
    if t.existing and op not in READ_ONLY_OPS:
        raise w.fail(f"{where}: {op} on {t.existing}, an existing table loadgen only reads",
                     f"existing tables take {', '.join(READ_ONLY_OPS)}")

    share = s.get("share")
    every_s = _number(s, "every_s", w, where)
    at_s = _number(s, "at_s", w, where)
    at_op = _number(s, "at_op", w, where, integer=True)
    schedules = [k for k, v in (("every_s", every_s), ("at_s", at_s), ("at_op", at_op)) if v is not None]
    if share is not None and schedules:
        raise w.fail(f"{where}: a share and a schedule on the same stream",
                     "give either share (its part of the mix's operations) or every_s/at_s/at_op (its own connection)")
    if len(schedules) > 1:
        raise w.fail(f"{where}: both {schedules[0]} and {schedules[1]}",
                     "every_s repeats, at_s runs once at a time, at_op once at an operation: give one")
    if share is None and not schedules:
        raise w.fail(f"{where}: no share and no schedule",
                     "give share = 0.5 (or \"50%\"), or every_s / at_s / at_op")
    if every_s is not None and not every_s > 0:
        raise w.fail(f"{where}: every_s = {every_s} must be above 0", "e.g. every_s = 60")
    if at_s is not None and at_s < 0:
        raise w.fail(f"{where}: at_s = {at_s} is in the past", "a schedule counts seconds from the start: at_s >= 0")
    if at_op is not None and at_op < 0:
        raise w.fail(f"{where}: at_op = {at_op} is in the past", "at_op counts the mix's operations: at_op >= 0")
    if share is None and op != "scan":
        raise w.fail(f"{where}: a scheduled stream must be a scan (op = \"scan\"), not {op}",
                     "give other ops a share of the mix")
    if share is not None:
        share = _share(share, w, where)

    keys = _keys(s, w, where, base)
    if op in ("scan", "insert") and "keys" in s:
        raise w.fail(f"{where}: a {op} takes no keys", "scan walks the whole index; insert appends at the end")
    column = s.get("column")
    if column is not None and (not isinstance(column, str) or not _IDENT.match(column)):
        raise w.fail(f"{where}: column {column!r} is not a column name")
    if op == "read-secondary" and column is None:
        raise w.fail(f"{where}: read-secondary needs the indexed column it looks up", 'e.g. column = "k"')
    if column is not None and op not in ("read-secondary", "update", "read-modify-write", "range"):
        raise w.fail(f"{where}: a {op} takes no column")
    columns = s.get("columns")
    if columns is not None:
        if (not isinstance(columns, list) or not columns
                or not all(isinstance(c, str) and _IDENT.match(c) for c in columns)):
            raise w.fail(f"{where}: columns must be a list of column names", 'e.g. columns = ["c"]')
        if op not in ("read", "read-secondary", "range", "read-modify-write"):
            raise w.fail(f"{where}: a {op} returns no columns")
        columns = tuple(columns)
    index = s.get("index")
    if index is not None:
        if op != "scan":
            raise w.fail(f"{where}: index names what a scan walks; a {op} takes none")
        if not isinstance(index, str) or not _IDENT.match(index):
            raise w.fail(f"{where}: index {index!r} is not an index name")
    length = (1, 1)
    if "length" in s:
        if op != "range":
            raise w.fail(f"{where}: a {op} takes no length", "length is the rows of a range")
        length = _length(s["length"], w, where)
    elif op == "range":
        length = (100, 100)
    form = s.get("form", "simple")
    if "form" in s and op != "range":
        raise w.fail(f"{where}: form is a range's ({', '.join(RANGE_FORMS)}); a {op} takes none")
    if form not in RANGE_FORMS:
        raise w.fail(f"{where}: form {form!r} is not one of {', '.join(RANGE_FORMS)}")
    if op == "range" and form != "simple" and column is None:
        raise w.fail(f"{where}: a {form} range needs the column it works on", 'e.g. column = "k"')
    insert = s.get("insert", "end")
    if "insert" in s and op != "insert":
        raise w.fail(f"{where}: insert says where an insert goes; a {op} takes none")
    if insert != "end":
        raise w.fail(f"{where}: insert = {insert!r} is not supported",
                     'inserts go at the end of the key space: insert = "end"')
    return StreamSpec(name=name, table=table, op=op, keys=keys, share=share, every_s=every_s, at_s=at_s, at_op=at_op,
                      column=column, columns=columns, index=index, length=length, form=form, insert=insert)


def check_trace(s: StreamSpec, rows: int, fail) -> None:
    from .trace import scan

    try:
        found = scan(s.keys.trace, 1, rows)
    except UsageError as exc:
        raise fail(f"stream {s.name!r}: {exc.message}", exc.hint) from None
    if found.keys == 0:
        raise fail(f"stream {s.name!r}: trace {s.keys.trace} has no key inside the table's 1..{rows:,}",
                   "check the trace and the table's rows")


def _share(v, w: _Where, where: str) -> float:
    """A share: a fraction (0.5) or a percentage string ("50%"); percentages come back as
    fractions here and are checked to add up with the others in _normalise_shares."""
    if isinstance(v, str):
        m = re.match(r"^\s*([0-9]*\.?[0-9]+)\s*%\s*$", v)
        if not m:
            raise w.fail(f"{where}: share {v!r} is not a number or a percentage", 'e.g. share = 0.5 or share = "50%"')
        value = float(m.group(1)) / 100
    elif isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise w.fail(f"{where}: share {v!r} is not a number", 'e.g. share = 0.5 or share = "50%"')
    else:
        value = float(v)
    if not 0 < value <= 1:
        raise w.fail(f"{where}: share {v!r} must be above 0 and at most 1 (100%)")
    return value


def _normalise_shares(streams: list[StreamSpec], w: _Where) -> list[StreamSpec]:
    shared = [s for s in streams if not s.scheduled]
    if not shared:
        raise w.fail("every stream is scheduled: nothing makes up the mix's operations",
                     "give at least one stream a share")
    total = math.fsum(s.share for s in shared)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        parts = " + ".join(f"{s.share:g}" for s in shared)
        raise w.fail(f"the shares add up to {total:.6g} ({parts}), not 1",
                     "make them add up to 1 (or to 100%)")
    return [s if s.scheduled else replace(s, share=s.share / total) for s in streams]


def _length(v, w: _Where, where: str) -> tuple[int, int]:
    if isinstance(v, int) and not isinstance(v, bool):
        lo = hi = v
    elif isinstance(v, str) and (m := _LENGTH.match(v)):
        lo, hi = int(m.group(1)), int(m.group(2))
    else:
        raise w.fail(f"{where}: length {v!r} is not rows", 'e.g. length = 100 or length = "uniform:1..100"')
    if not 1 <= lo <= hi <= 1_000_000:
        raise w.fail(f"{where}: length {v!r} must be 1 to 1,000,000 rows, low end first")
    return lo, hi


def _keys(s: dict, w: _Where, where: str, base: Path) -> KeySpec:
    raw = s.get("keys", "uniform")
    if not isinstance(raw, str):
        raise w.fail(f"{where}: keys {raw!r} is not a distribution", f"choose one of: {', '.join(KEY_DISTRIBUTIONS)}")
    trace = None
    name = raw
    if raw.startswith("trace:"):
        name, trace = "trace", raw[len("trace:"):]
        if not trace:
            raise w.fail(f"{where}: keys = \"trace:\" needs a file", 'e.g. keys = "trace:orders.trace"')
        path = Path(trace).expanduser()
        trace = str(path if path.is_absolute() else base / path)
        from .trace import detect

        try:
            detect(trace)
        except UsageError as exc:
            raise w.fail(f"{where}: {exc.message}", exc.hint) from None
    elif raw not in KEY_DISTRIBUTIONS or raw == "trace":
        raise w.fail(f"{where}: unknown keys {raw!r}",
                     f"choose one of: {', '.join(KEY_DISTRIBUTIONS[:-1])}, trace:PATH")
    knobs = {}
    for k, lo, hi, integer in (("zipf_theta", 0.0, 1.0, False), ("hot_fraction", 0.0, 1.0, False),
                               ("hot_ops", 0.0, 1.0, False), ("special_pct", 0.0, 100.0, False),
                               ("special_res", 0.0, 100.0, False), ("special_iter", 1, 1000, True)):
        v = _number(s, k, w, where, integer=integer)
        if v is None:
            continue
        if k == "zipf_theta" and not 0 < v < 1:
            raise w.fail(f"{where}: zipf_theta = {v} must be above 0 and below 1", "YCSB's default is 0.99")
        if k in ("hot_fraction",) and not 0 < v <= 1:
            raise w.fail(f"{where}: hot_fraction = {v} must be within (0, 1]", "e.g. 0.2")
        if not lo <= v <= hi:
            raise w.fail(f"{where}: {k} = {v} must be within {lo}..{hi}")
        if k == "special_res" and v >= 100:
            raise w.fail(f"{where}: special_res = {v} must be below 100", "sysbench's default is 75")
        knobs[k] = v
    if "zipf_scramble" in s:
        if not isinstance(s["zipf_scramble"], bool):
            raise w.fail(f"{where}: zipf_scramble must be true or false")
        knobs["zipf_scramble"] = s["zipf_scramble"]
    relevant = {"zipfian": {"zipf_theta", "zipf_scramble"}, "latest": {"zipf_theta"},
                "hotspot": {"hot_fraction", "hot_ops"}, "special": {"special_pct", "special_res", "special_iter"}}
    stray = set(knobs) - relevant.get(name, set())
    if stray:
        raise w.fail(f"{where}: {sorted(stray)[0]} is not a knob of keys = {raw!r}")
    return KeySpec(name=name, trace=trace, **knobs)


# -- checks against the tables' DDL --------------------------------------------------------------
def table_ddl(t: TableSpec):
    """The DDL view of a table loadgen creates (tabledefs.DdlShape), None when unknown before a server."""
    from ..seeding.dataset import schema_text
    from . import tabledefs

    if t.existing or t.schema is None:
        return None
    return tabledefs.shape(schema_text(t.schema), t.name)


def check_against_ddl(spec: MixSpec, w: _Where | None = None) -> None:
    """Streams against what each table's schema file declares: the file must create the table,
    and the columns and indexes the streams name must be there."""
    from ..seeding.dataset import schema_text
    from . import tabledefs

    w = w or _Where(spec.source)
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
