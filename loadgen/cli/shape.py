"""clone-shape, and the table seed --shape prints: a server's tables' shape without their rows."""
from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from .options import check_database_name, stderr_console, stdout_console


@click.command("clone-shape")
@click.option("--dsn", required=True, metavar="URL",
              help="The source server: mysql://user@host:port/ (password from LOADGEN_PASSWORD or the URL). "
                   "Only read: a user with SELECT on the database is enough.")
@click.option("--database", required=True, help="The database whose tables are cloned.")
@click.option("--tables", default=None, metavar="A,B", help="Only these tables. [default: every InnoDB table]")
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The shape file to write (JSON, docs/shape.md); the schema goes beside it as .sql.")
@click.option("--schema-out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where the schema file goes. [default: OUT with .sql]")
def clone_shape(dsn, database, tables, out, schema_out):
    """Read the shape of a server's tables (row counts, key ranges and gaps, row widths, index
    sizes), never their rows, into a shape file and a schema file.

    \b
    Example: loadgen clone-shape --dsn mysql://reader@db-replica:3306/ --database shop -o shop.json
             loadgen seed --shape shop.json --server docker
    """
    from .. import db
    from ..results.files import check_destination, write_json_atomic, write_text_atomic
    from ..seeding import clone
    from ..servers.dsn import parse_dsn

    check_database_name(database)
    names = [t.strip() for t in tables.split(",") if t.strip()] if tables else None
    schema_out = schema_out or out.with_suffix(".sql")
    check_destination(out, "--out")
    check_destination(schema_out, "--schema-out")
    err = stderr_console()
    conn = db.connect(parse_dsn(dsn))
    try:
        doc = clone.clone(conn, database, names, say=lambda m: err.print(f"[dim]{m}[/]", highlight=False))
    finally:
        conn.close()
    write_text_atomic(schema_out, clone.schema_sql(doc))
    write_json_atomic(out, doc)
    rows = []
    for t in doc["tables"]:
        pk = t["primary_key"]
        keys = f"{pk['min']:,}..{pk['max']:,} ({pk['gap_density']:.1%} full)" if pk.get("min") is not None else "-"
        leaves = ", ".join(f"{n} {ix['leaf_pages']:,}" for n, ix in t["indexes"].items() if ix.get("leaf_pages"))
        rows.append((t["name"], f"{t['rows']:,}", keys, f"{t['avg_row_bytes']:,}", leaves or "(no access to "
                     "mysql.innodb_index_stats)"))
        for note in [t.get("stats_note"), *t.get("notes", [])]:
            if note:
                err.print(f"[dim]note: {t['name']}: {note}[/]", highlight=False)
    from ..render.report import rich_table

    stdout_console().print(rich_table(["table", "rows", "keys", "row bytes", "leaf pages"], rows,
                                      title=f"shape of {database}"))
    err.print(f"[dim]shape written to {out}, schema to {schema_out}[/]", highlight=False)


def print_comparison(results: list[dict]) -> None:
    from ..render.report import rich_table

    rows = []
    for r in results:
        for line in r["lines"]:
            d = line["diff_pct"]
            rows.append((r["table"], line["what"], _n(line["source"]), _n(line["clone"]),
                         "" if d is None else f"{d:+.1f}%"))
    stdout_console().print(rich_table(["table", "", "source", "seeded", "diff"], rows,
                                      title="seeded from the shape, read back"))


def _n(v) -> str:
    return "-" if v is None else f"{v:,}"


def shape_database(ctx, database: str, doc: dict) -> str:
    """--database when given, else the source's (a captured trace names db.table)."""
    from click.core import ParameterSource

    if ctx.get_parameter_source("database") == ParameterSource.COMMANDLINE:
        return database
    name = str(doc.get("source", {}).get("database", ""))
    try:
        return check_database_name(name)
    except UsageError:
        raise UsageError(f"the shape's source database {name[:64]!r} cannot be seeded into",
                         "give --database") from None
