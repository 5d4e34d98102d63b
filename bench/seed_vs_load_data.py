#!/usr/bin/env python3
"""Target 2: rows per second of loadgen's seeding against LOAD DATA INFILE of a pre-made file.

Both fill the same chat.message schema with the same rows on the same server, in alternating
order, each into a fresh database dropped afterwards. loadgen's side is dataset.ensure(), the
code behind `loadgen seed` (rows generated in a thread while the previous chunk loads, LOAD DATA
LOCAL per chunk), timed as loadgen times and reports it. The reference is one LOAD DATA INFILE
(server-side read; LOCAL if the server's secure_file_priv forbids it) of a file holding exactly
those rows, written before the clock starts. The last line is the ratio loadgen / reference.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from _common import load_data_rate, reference_file, say, scratch_server, seed_rounds, spread

LOAD_SQL = ("LOAD DATA {local}INFILE %s INTO TABLE `{db}`.message FIELDS TERMINATED BY '\\t' "
            "LINES TERMINATED BY '\\n' (id, channel_id, author_id, alias, body, @ts) "
            "SET created_at = FROM_UNIXTIME(@ts)")


def write_rows(path: Path, rows: int, seed: int) -> None:
    from loadgen.seeding.chatrows import chunk_lines, chunk_ranges

    with open(path, "wb") as f:
        for first, last in chunk_ranges(1, rows):
            f.write(chunk_lines(seed, first, last))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from loadgen import db
    from loadgen.seeding.dataset import DatasetSpec, _create_table, ensure


    def spec_of(name: str) -> DatasetSpec:
        return DatasetSpec(rows=args.rows, database=name)

    with scratch_server(1 << 30, files_dir=True) as server:
        conn = server.connect(local_infile=1)
        try:
            with reference_file(conn) as (ref, local):
                write_rows(ref, args.rows, spec_of("x").seed)
                say(f"server {server.flavor.name} {server.flavor.version}, {args.rows:,} rows "
                    f"({ref.stat().st_size / 2**20:,.0f} MiB file), "
                    f"reference LOAD DATA {'LOCAL ' if local else ''}INFILE")

                def loadgen_rate(name: str) -> float:
                    return ensure(conn, spec_of(name)).seed_rows_per_s

                def reference_rate(name: str) -> float:
                    db.query_all(conn, f"CREATE DATABASE `{name}`")
                    _create_table(conn, spec_of(name))
                    return load_data_rate(conn, LOAD_SQL.format(local="LOCAL " if local else "", db=name), ref,
                                          args.rows)

                ratios = seed_rounds(conn, args.rounds, loadgen_rate, reference_rate)
        finally:
            conn.close()
    say(f"seed rows/s loadgen / LOAD DATA INFILE: {spread(ratios)}")


if __name__ == "__main__":
    main()
