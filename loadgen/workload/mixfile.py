"""Reading a workload file (TOML, format 1) into workload/mix.py's MixSpec, checked.

read_text() refuses what is not a small regular UTF-8 file before reading it (over MAX_FILE_BYTES
by its size, a device or FIFO without opening it for reading); parse() checks every key, table
and stream and gives one-line UsageErrors (mix.py's docstring lists them).
"""
from __future__ import annotations

import math
import os
import re
import stat
from dataclasses import replace
from pathlib import Path

from ..errors import UsageError
from .mix import (BUILTIN_SCHEMAS, FORMAT, KEY_DISTRIBUTIONS, M64, MAX_STREAMS, MAX_TABLES, OPS, RANGE_FORMS,
                  READ_ONLY_OPS, SHARE_TOLERANCE, KeySpec, MixSpec, StreamSpec, TableSpec, Where,
                  check_against_ddl, check_operations, check_stream_trace)


MAX_FILE_BYTES = 1 << 20  # a workload is a page of text; anything larger is refused unread
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
_IDENT = re.compile(r"^\w{1,64}$")
_LENGTH = re.compile(r"^\s*uniform\s*:\s*(\d+)\s*\.\.\s*(\d+)\s*$")
TOP_KEYS = {"format", "seed", "operations", "tables", "streams", "description"}
TABLE_KEYS = {"schema", "rows", "existing"}
STREAM_KEYS = {"name", "table", "op", "keys", "share", "every_s", "at_s", "at_op", "column", "columns", "index",
               "length", "form", "insert", "zipf_theta", "zipf_scramble", "hot_fraction", "hot_ops", "special_pct",
               "special_res", "special_iter"}


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
    return _build(doc, Where(source), base or Path.cwd(), defaults or {})


def _refuse_unknown(given: dict, allowed: set[str], w: Where, before: str, after: str, taker: str) -> None:
    """The first key of `given` that is not allowed, refused in one line that lists the allowed."""
    unknown = set(given) - allowed
    if unknown:
        raise w.fail(f"{before}unknown key {sorted(unknown)[0]!r}{after}",
                     f"{taker} takes: {', '.join(sorted(allowed))}")


def from_document(doc: dict, source: str, base: Path) -> MixSpec:
    """A spec from an already parsed document (a result file's workload.mix), with the file's checks."""
    return _build(doc, Where(source), base, {})


def _build(doc: dict, w: Where, base: Path, defaults: dict) -> MixSpec:
    _refuse_unknown(doc, TOP_KEYS, w, "", "", "the top level")
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
    operations = check_operations(operations, "operations", w)
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
            check_stream_trace(s, rows, w.fail)
    spec = MixSpec(seed=seed, operations=operations, tables=tables, streams=tuple(streams), source=w.source,
                   description=description)
    check_against_ddl(spec, w)
    return spec


def _table(name: str, t, w: Where, base: Path) -> TableSpec:
    if not _IDENT.match(name):
        raise w.fail(f"table name {name!r} is not a plain identifier", "use letters, digits and _ (at most 64)")
    if not isinstance(t, dict):
        raise w.fail(f"[tables.{name}] must be a table of keys (schema, rows)")
    _refuse_unknown(t, TABLE_KEYS, w, "", f" in [tables.{name}]", "a table")
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
    from ..seeding.dataset import available_schemas, is_schema_path, schema_choices

    if is_schema_path(schema):
        path = Path(schema).expanduser()
        schema = str(path if path.is_absolute() else (base / path))
        if not Path(schema).is_file():
            raise w.fail(f"[tables.{name}] schema file {schema} does not exist",
                         "check the path (relative to the workload file)")
    elif schema not in available_schemas():
        raise w.fail(f"[tables.{name}] schema {schema!r} is not a built-in", f"{schema_choices()}, or give a .sql file")
    rows = t.get("rows")
    if rows is None:
        raise w.fail(f"[tables.{name}] has no rows", 'e.g. rows = "300k" (--rows overrides it)')
    return TableSpec(name=name, schema=schema, rows=check_operations(rows, f"[tables.{name}] rows", w))


def _number(s: dict, key: str, w: Where, where: str, default=None, integer: bool = False):
    v = s.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (integer and not isinstance(v, int)):
        raise w.fail(f"{where}: {key} = {v!r} is not a {'whole ' if integer else ''}number")
    if isinstance(v, float) and not math.isfinite(v):
        raise w.fail(f"{where}: {key} = {v!r} is not a finite number")
    return v


def _stream(i: int, s, w: Where, base: Path, tables: dict[str, TableSpec]) -> StreamSpec:
    where = f"[[streams]] {i + 1}"
    if not isinstance(s, dict):
        raise w.fail(f"{where} must be a table of keys")
    name = s.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise w.fail(f"{where}: name {name!r} is not a name",
                     "letters, digits, _ . - (at most 64), e.g. name = \"read\"")
    where = f"stream {name!r}"
    _refuse_unknown(s, STREAM_KEYS, w, f"{where}: ", "", "a stream")
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


def _share(v, w: Where, where: str) -> float:
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


def _normalise_shares(streams: list[StreamSpec], w: Where) -> list[StreamSpec]:
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


def _length(v, w: Where, where: str) -> tuple[int, int]:
    if isinstance(v, int) and not isinstance(v, bool):
        lo = hi = v
    elif isinstance(v, str) and (m := _LENGTH.match(v)):
        lo, hi = int(m.group(1)), int(m.group(2))
    else:
        raise w.fail(f"{where}: length {v!r} is not rows", 'e.g. length = 100 or length = "uniform:1..100"')
    if not 1 <= lo <= hi <= 1_000_000:
        raise w.fail(f"{where}: length {v!r} must be 1 to 1,000,000 rows, low end first")
    return lo, hi


def _keys(s: dict, w: Where, where: str, base: Path) -> KeySpec:
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

