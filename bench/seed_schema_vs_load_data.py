#!/usr/bin/env python3
"""Seeding a user schema (--schema FILE.sql) against LOAD DATA INFILE of the same rows.

The variant of seed_vs_load_data.py for tables loadgen did not design: the schema file's queried
table is filled by usertable.ensure_seeded() (the code behind `loadgen seed --schema FILE`:
reflection, tablegen's C generator in a thread, LOAD DATA LOCAL per chunk), timed as loadgen
times it. The reference loads a file holding exactly those rows with one LOAD DATA INFILE into
the same freshly created table. Rounds alternate which goes first; the last line is the ratio.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from _common import ROOT, load_data_rate, reference_file, say, scratch_server, seed_rounds, spread


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schema", default=str(ROOT / "examples" / "schemas" / "every_type.sql"))
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from loadgen import db
    from loadgen.seeding import tablegen
    from loadgen.seeding.dataset import DatasetSpec
    from loadgen.seeding.schemas import create_tables, queried_table, read_schema_file, reflect
    from loadgen.seeding.usertable import borrow_conn, ensure_seeded

    # checked for the database its table is first created in (below); the file names no other
    schema = read_schema_file(Path(args.schema), "seedbench_plan")
    table = queried_table(schema, None)

    def spec_of(name: str) -> DatasetSpec:
        return DatasetSpec(rows=args.rows, schema=args.schema, database=name)

    with scratch_server(1 << 30, files_dir=True) as server:
        conn = server.connect(local_infile=1)
        try:
            db.query_all(conn, "CREATE DATABASE seedbench_plan")
            create_tables(conn, "seedbench_plan", schema)
            shape = reflect(borrow_conn(conn), "seedbench_plan", table)
            plan = tablegen.plan(shape.columns, shape.primary_key, args.rows)
            db.query_all(conn, "DROP DATABASE seedbench_plan")
            cols = ", ".join(f"`{c}`" for c in plan.columns)
            with reference_file(conn) as (ref, local):
                pool = tablegen.text_pool(1)
                with open(ref, "wb") as f:
                    for lo in range(1, args.rows + 1, 50_000):
                        f.write(tablegen.lines(plan, pool, 1, lo, min(lo + 49_999, args.rows)))
                say(f"server {server.flavor.name} {server.flavor.version}, {args.schema}: {table}, "
                    f"{args.rows:,} rows ({ref.stat().st_size / 2**20:,.0f} MiB file), "
                    f"reference LOAD DATA {'LOCAL ' if local else ''}INFILE")

                def loadgen_rate(name: str) -> float:
                    return ensure_seeded(conn, spec_of(name)).seed_rows_per_s

                def reference_rate(name: str) -> float:
                    db.query_all(conn, f"CREATE DATABASE `{name}`")
                    create_tables(conn, name, schema)
                    sql = (f"LOAD DATA {'LOCAL ' if local else ''}INFILE %s INTO TABLE `{name}`.`{table}` "
                           f"CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' ({cols})")
                    return load_data_rate(conn, sql, ref, args.rows)

                ratios = seed_rounds(conn, args.rounds, loadgen_rate, reference_rate)
        finally:
            conn.close()
    say(f"seed rows/s loadgen / LOAD DATA INFILE ({Path(args.schema).name}): {spread(ratios)}")


if __name__ == "__main__":
    main()
