"""seed --shape: tables of a cloned shape filled with synthetic rows of the same shape.

Each table is created from the shape's statement and filled by tablegen's plan through
usertable.load (the C generator and LOAD DATA LOCAL), with what the shape says in place of the
plan's defaults:
  rows                 the source's exact count
  an integer key       its range and gaps: the key range's segments, each spread with its rows
                       (tablegen's key map), so MIN, MAX and where the gaps are match
  text columns         their average length (the generator's mean, calibrated below)
  nullable columns     their NULL share
  secondary indexes    built as the source's look built (clone.py, SORTED_FILL): those that were
                       filled by random inserts are in the table while the rows load, the others
                       are added after the load (a sorted build); UNIQUE is seeded as a plain
                       index, generated values repeat
Then ANALYZE TABLE, and the same figures read back, side by side with the source's.
"""
from __future__ import annotations

import random
import re
from array import array
from pathlib import Path

from .. import db
from ..errors import SeedError
from . import ddl, shapefile, tablegen
from .chunks import chunk_dir
from .schemas import SchemaFile, SchemaStatement, create_tables, reflect
from .usertable import borrow_conn, count_rows, ident, load, table_exists

META_IDENTITY = "shape"


def seed(conn, doc: dict, database: str, seed_value: int = 1, progress=None, say=lambda _m: None,
         home: Path | None = None) -> list[dict]:
    """Create and fill doc's tables in `database`; return the comparison (compare()) per table.
    A database this shape already seeded (loadgen_meta says so, counts agree) is only read back."""
    from .dataset import open_meta, write_meta

    ident(database, "--database")
    identity = {"schema": f"shape:{shapefile.sha256(doc)[:16]}", "seed": str(seed_value),
                "generator": f"t{tablegen.GENERATOR_VERSION}"}
    meta, same = open_meta(conn, database, identity)
    names = [t["name"] for t in doc["tables"]]
    present = [n for n in names if table_exists(conn, database, n)]
    if present and not meta:
        raise SeedError(f"{database}.{present[0]} exists but was not created by loadgen",
                        "seed into another database with --database, or drop the table yourself")
    if (same and meta.get("complete") == "1" and len(present) == len(names)
            and all(count_rows(conn, database, t["name"]) == t["rows"] for t in doc["tables"])):
        say(f"{database} already holds this shape's tables: reading them back")
        return [compare(t, measure(conn, database, t)) for t in doc["tables"]]
    for name in reversed(present):
        db.query_all(conn, f"DROP TABLE IF EXISTS `{database}`.`{name}`")
    db.query_all(conn, f"DELETE FROM `{database}`.loadgen_meta")
    write_meta(conn, database, {**identity, "complete": 0})
    out = []
    for t in doc["tables"]:
        _seed_table(conn, t, database, seed_value, progress, say, home)
        out.append(compare(t, measure(conn, database, t)))
    write_meta(conn, database, {"complete": 1})
    return out


def _seed_table(conn, t: dict, database: str, seed_value: int, progress, say, home) -> None:
    name, rows = t["name"], t["rows"]
    after = {n: ix for n, ix in (t.get("indexes") or {}).items() if ix.get("build") == "after"}
    create = _without(t["create"], after)
    create = re.sub(r"(?im)^(\s*)UNIQUE\s+(KEY|INDEX)\s+(?!.*\bPRIMARY\b)", r"\1\2 ", create)
    statements = [create] + [f"ALTER TABLE `{name}` ADD {_plain_index(ix['definition'])}" for ix in after.values()]
    for i, sql in enumerate(statements):  # the gate --schema files pass, on what will really run
        try:
            ddl.check_statement(sql, database, [name.lower()] if i else [])
        except ddl.Refused as exc:
            raise SeedError(f"the shape's statement for {name} is refused: {exc.why}") from None
    schema = SchemaFile(Path(f"shape:{name}"), create, (SchemaStatement(create, 1),), (name,))
    create_tables(conn, database, schema)
    shape = reflect(borrow_conn(conn), database, name)
    if not shape.primary_key:
        raise SeedError(f"{name} has no primary key", "loadgen seeds tables in key order")
    plan = tablegen.plan(shape.columns, shape.primary_key, max(1, rows))
    shaped(plan, shape, t)
    if rows:
        say(f"seeding {database}.{name}: {rows:,} rows" + (f", then {len(after)} index(es) built sorted" if after
                                                             else ""))
        load(conn, database, name, plan, seed_value, 1, rows, progress, chunk_dir(home))
    if after:
        schema_alter = SchemaFile(Path(f"shape:{name}"), "", tuple(SchemaStatement(s, 1) for s in statements[1:]), ())
        create_tables(conn, database, schema_alter)
    db.query_all(conn, f"ANALYZE TABLE `{database}`.`{name}`")


def _without(create: str, indexes: dict) -> str:
    """The CREATE TABLE without the definitions of `indexes` (added after the load)."""
    drop = {ix["definition"] for ix in indexes.values()}
    lines = [ln for ln in create.split("\n") if ln.strip().rstrip(",") not in drop]
    return re.sub(r",(\s*\n\))", r"\1", "\n".join(lines))


def _plain_index(definition: str) -> str:
    return re.sub(r"^UNIQUE\s+(KEY|INDEX)", r"\1", definition.strip(), flags=re.IGNORECASE)


def shaped(plan: tablegen.RowPlan, shape, t: dict) -> None:
    """Put the shape's key segments, text lengths and NULL shares into the plan (in place)."""
    pk = shape.primary_key
    segments = (t.get("primary_key") or {}).get("segments")
    cols = {c["name"]: c for c in t.get("columns") or []}
    for i, name in enumerate(plan.columns):
        w = i * 8
        kind = plan.words[w]
        if kind == tablegen.K_PK and pk == [name] and segments and plan.words[w + 6] == tablegen.PK_INT:
            keymap, first = array("q"), 1
            for lo, hi, rows in segments:
                keymap.extend([first, rows, lo, hi])
                first += rows
            plan.keymap = keymap
            plan.words[w + 7] = 1
            continue
        c = cols.get(name)
        if c is None or kind == tablegen.K_PK:
            continue
        if c.get("null_fraction") is not None and plan.words[w + 1] > 0:
            plan.words[w + 1] = round(c["null_fraction"] * 1000)
        if kind == tablegen.K_TEXT and c.get("avg_bytes"):
            plan.words[w + 3] = text_mean(float(c["avg_bytes"]), plan.words[w + 2])
        if kind == tablegen.K_INT and _int(c.get("min")) and _int(c.get("max")) and c["min"] <= c["max"]:
            # the source's range (how often values repeat in its index), inside what the C draws from
            lo, hi = max(c["min"], -(2**62)), min(c["max"], 2**62)
            if lo <= hi:
                plan.words[w + 2], plan.words[w + 3] = lo, hi


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def text_mean(target: float, max_len: int) -> int:
    """The generator's mean for text whose lengths should average `target` bytes, clipped at
    max_len as tablegen clips them (a bisection over tablegen's own length function)."""
    rnd = random.Random(7)
    draws = [rnd.getrandbits(64) for _ in range(4096)]

    def average(mean: int) -> float:
        return sum(tablegen.text_len(r, mean, max_len) for r in draws) / len(draws)

    lo, hi = 1, max(1, 4 * max_len)
    while lo < hi:
        mid = (lo + hi) // 2
        if average(mid) < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


# -- reading back ------------------------------------------------------------------------------
def measure(conn, database: str, t: dict) -> dict:
    """The seeded table's figures, read as clone.py reads the source's."""
    from .clone import index_stats

    name = t["name"]
    rows = count_rows(conn, database, name)
    data_bytes, index_bytes = db.query_all(
        conn, "SELECT DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA=%s "
        "AND TABLE_NAME=%s", (database, name))[0]
    out = {"rows": rows, "data_bytes": int(data_bytes or 0), "index_bytes": int(index_bytes or 0),
           "indexes": index_stats(conn, database, name)}
    pk = (t.get("primary_key") or {}).get("columns") or []
    if len(pk) == 1 and (t.get("primary_key") or {}).get("segments") is not None and rows:
        out["min"], out["max"] = (int(v) for v in db.query_all(
            conn, f"SELECT MIN(`{pk[0]}`), MAX(`{pk[0]}`) FROM `{database}`.`{name}`")[0])
    return out


def compare(t: dict, got: dict) -> dict:
    """Source and clone side by side: rows, key range, bytes, each index's leaf pages."""
    def diff(a, b):
        return None if not a or b is None else round(100.0 * (b - a) / a, 1)

    lines = [("rows", t["rows"], got["rows"]), ("data bytes", t["data_bytes"], got["data_bytes"]),
             ("index bytes", t["index_bytes"], got["index_bytes"])]
    pk = t.get("primary_key") or {}
    if "min" in got:
        lines += [("key min", pk.get("min"), got["min"]), ("key max", pk.get("max"), got["max"])]
    for iname, ix in (t.get("indexes") or {}).items():
        mine = got["indexes"].get(iname, {})
        lines.append((f"{iname} leaf pages", ix.get("leaf_pages"), mine.get("leaf_pages")))
    return {"table": t["name"], "lines": [{"what": w, "source": a, "clone": b, "diff_pct": diff(a, b)}
                                          for w, a, b in lines]}
