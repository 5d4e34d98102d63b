"""The shape file: what `clone-shape` read from a server and `seed --shape` rebuilds, never a row.

A versioned JSON document (docs/shape.md describes every field):

  {"format": "loadgen-shape", "version": 1,
   "source": {"flavor", "version", "database", "cloned_at"},
   "tables": [{"name", "create", "rows", "rows_exact", "data_bytes", "index_bytes", "avg_row_bytes",
               "stats_note", "primary_key": {"columns", "min", "max", "gap_density", "segments"},
               "indexes": {name: {"columns", "unique", "definition", "leaf_pages", "size_pages",
                                  "fill", "build"}},
               "columns": [{"name", "type", "avg_bytes", "null_fraction"}]}]}

The file is input from anywhere (a pull request, a ticket): read() checks every field it uses
before a server is touched: names are plain identifiers, counts are non-negative integers in
range, key segments ascend and fit their rows, and each statement passes the schema gate
(ddl.py) that `--schema` files pass. Anything else is one line and exit 2.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from . import ddl
from ..errors import UsageError
from ..inputs import read_capped

FORMAT = "loadgen-shape"
VERSION = 1
SHAPE_FILE_MAX_BYTES = 16 << 20  # a thousand tables with 256 key segments each is ~10 MiB
MAX_TABLES = 1000
MAX_SEGMENTS = 4096
MAX_ROWS = 10**12  # far past any table a test server seeds; a typo of 10^18 stops here
BUILDS = ("load", "after")  # a secondary index filled while rows load (random inserts) or built after (sorted)
_PLAIN = re.compile(r"^\w{1,64}$", re.ASCII)
INT64 = (-(2**63), 2**63 - 1)


def sha256(shape: dict) -> str:
    return hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()


def read(path: str | Path) -> dict:
    """The shape file at path, checked (UsageError otherwise)."""
    raw = read_capped(path, SHAPE_FILE_MAX_BYTES, "shape file", pipes=False)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"shape file {path} is not JSON: {str(exc).splitlines()[0][:120]}",
                         "give the file `loadgen clone-shape -o FILE` wrote") from None
    check(doc, str(path))
    return doc


def check(doc, where: str = "shape file") -> None:
    def bad(what: str) -> UsageError:
        return UsageError(f"{where}: {what}", "give the file `loadgen clone-shape -o FILE` wrote, unedited")

    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise bad(f"not a loadgen shape file (no \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise UsageError(f"{where}: shape format version {str(doc.get('version'))[:20]} is not one this loadgen "
                         f"reads ({VERSION})", "clone the shape again with this loadgen")
    tables = doc.get("tables")
    if not isinstance(tables, list) or not tables or len(tables) > MAX_TABLES:
        raise bad(f"\"tables\" must list 1 to {MAX_TABLES} tables")
    seen: set[str] = set()
    for t in tables:
        if not isinstance(t, dict):
            raise bad("a table entry is not an object")
        name = t.get("name")
        if not isinstance(name, str) or not _PLAIN.match(name):
            raise bad(f"table name {str(name)[:40]!r} is not a plain identifier (letters, digits, _)")
        if name.lower() in seen:
            raise bad(f"table {name} is listed twice")
        seen.add(name.lower())
        _count(t.get("rows"), f"{name}.rows", bad)
        _check_statements(t, name, bad)
        _check_key(t, name, bad)
        _check_columns(t, name, bad)


def _count(value, what: str, bad, lo: int = 0, hi: int = MAX_ROWS) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise bad(f"{what} must be an integer in {lo:,}..{hi:,}, not {str(value)[:30]}")
    return value


def _check_statements(t: dict, name: str, bad) -> None:
    create = t.get("create")
    if not isinstance(create, str):
        raise bad(f"{name}.create must be the CREATE TABLE statement")
    try:
        made = ddl.check_statement(create, "shape", [])
    except ddl.Refused as exc:
        raise bad(f"{name}.create: {exc.why}") from None
    if made is None or made.lower() != name.lower():
        raise bad(f"{name}.create does not create {name}")
    indexes = t.get("indexes") or {}
    if not isinstance(indexes, dict):
        raise bad(f"{name}.indexes must be an object")
    for iname, ix in indexes.items():
        if not isinstance(ix, dict) or not _PLAIN.match(str(iname)):
            raise bad(f"{name}: index name {str(iname)[:40]!r} is not a plain identifier")
        if ix.get("build", "load") not in BUILDS:
            raise bad(f"{name}.{iname}.build must be one of {', '.join(BUILDS)}")
        if ix.get("build") == "after":
            definition = ix.get("definition")
            if not isinstance(definition, str) or "\n" in definition:
                raise bad(f"{name}.{iname}.definition must be the index's one-line definition")
            try:
                ddl.check_statement(f"ALTER TABLE `{name}` ADD {definition}", "shape", [name.lower()])
            except ddl.Refused as exc:
                raise bad(f"{name}.{iname}.definition: {exc.why}") from None


def _check_key(t: dict, name: str, bad) -> None:
    pk = t.get("primary_key") or {}
    if not isinstance(pk, dict):
        raise bad(f"{name}.primary_key must be an object")
    segments = pk.get("segments")
    if segments is None:
        return
    if not isinstance(segments, list) or len(segments) > MAX_SEGMENTS:
        raise bad(f"{name}.primary_key.segments must list at most {MAX_SEGMENTS} [first, last, rows]")
    total, after = 0, None
    for seg in segments:
        if not isinstance(seg, list) or len(seg) != 3:
            raise bad(f"{name}.primary_key.segments: each is [first key, last key, rows]")
        lo = _count(seg[0], f"{name} segment first key", bad, *INT64)
        hi = _count(seg[1], f"{name} segment last key", bad, lo, INT64[1])
        rows = _count(seg[2], f"{name} segment rows", bad, 1, hi - lo + 1)
        if after is not None and lo <= after:
            raise bad(f"{name}.primary_key.segments must ascend without overlapping")
        after, total = hi, total + rows
    if total != t["rows"]:
        raise bad(f"{name}: its key segments hold {total:,} rows, not the table's {t['rows']:,}")


def _check_columns(t: dict, name: str, bad) -> None:
    columns = t.get("columns") or []
    if not isinstance(columns, list):
        raise bad(f"{name}.columns must be a list")
    for c in columns:
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            raise bad(f"{name}.columns: each needs a name")
        for key, hi in (("avg_bytes", 1 << 32), ("null_fraction", 1)):
            v = c.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= hi):
                raise bad(f"{name}.{c['name'][:64]}.{key} must be a number in 0..{hi}")
