"""A table's own space-management pages in the mix model, and MariaDB's secondary index heights.

Every .ibd file begins with page 0 (the file-space header and the first extents' descriptors),
page 1 (the change buffer bitmap) and page 2 (the first segment inode page). The server reads
them like any other page and counts them in the file's reads (performance_schema), so a table's
measured reads hold them. Traced on MariaDB 10.11 (sysbench-oltp-rw, sbtest1 300k rows, 16M,
20,000 operations; docs/data/rwrate/traces.json): page 1 read 252-269 times, by the write
connections and InnoDB's thread pool (purge) alike, page 0 81-109 times, nearly all by the thread
pool, page 2 9-10: ~2% of the table's reads. What the model references (used_by):
  page 1  at every secondary leaf change (a write's delete-mark and insert, purge's removal), on
          MariaDB before 11.0: the free-space bits of the leaf are kept there even with
          innodb_change_buffering=none (11.0 dropped the change buffer)
  page 0  where purge removes a secondary index entry (which call reads it is not found: the
          thread pool's reads, at purge's pace)
  page 2  none (10 reads)
"""
from __future__ import annotations

import numpy as np

from .. import native

WRITE = native.mix_flags()[1]
PAGES = 3  # pages 0, 1, 2 (Space.ibd_pages: each table's block of them)
FSP_PAGE, BITMAP_PAGE = 0, 1
# the page gets MariaDB's covering SELECT on a secondary index costs beyond the index's levels (the
# optimiser's; sbtest1's k_1: 4 gets for 2 levels, seeding/height.py): runs measured so are taken lower
SELECT_EXTRA_GETS = 2


def used_by(run: dict) -> tuple[int, ...]:
    """The pages the model references for a run (the module's docstring): none on MySQL."""
    srv = run.get("server") or {}
    if srv.get("flavor") != "mariadb":
        return ()
    major = (srv.get("version") or "0").split(".")[0]
    return (FSP_PAGE, BITMAP_PAGE) if major.isdigit() and int(major) < 11 else (FSP_PAGE,)


def layout(names, at: int, used: tuple) -> tuple[dict[str, int], int]:
    """Each table's block of PAGES from page `at` on (none where no page is used): ({table: base}, next page)."""
    bases = {}
    if used:
        for name in dict.fromkeys(names):
            bases[name], at = at, at + PAGES
    return bases, at


def refs(space, table: str, n: int, page: int) -> tuple[np.ndarray, np.ndarray] | None:
    """n references to one of the table's pages, as (n, 1) pages and flags (the bitmap written);
    None where the space does not use it."""
    base = space.ibd_pages.get(table)
    if base is None or page not in space.ibd_used:
        return None
    return np.full((n, 1), base + page, np.int64), np.full((n, 1), WRITE if page == BITMAP_PAGE else 0, np.uint8)


def add_reads(out: dict, reads: np.ndarray, space, qualified) -> None:
    """The pages' reads into each table's (table_reads' out; qualified: a table's qualified name)."""
    for name, base in space.ibd_pages.items():
        got = int(reads[base:base + PAGES].sum(dtype=np.uint64))
        t = out[qualified(name)]
        t["pages_read"] += got
        t["file_space_pages_read"] = got


def tables_of(run: dict) -> dict:
    """The run's dataset.tables, a MariaDB run's secondary index heights not measured by HANDLER
    (seeding/height.py secondary_height: `height_from` other than "handler", or none, as in every
    run before it) taken SELECT_EXTRA_GETS lower."""
    tables = (run.get("dataset") or {}).get("tables") or {}
    if (run.get("server") or {}).get("flavor") != "mariadb":
        return tables

    def fixed(ix: dict) -> dict:
        if not ix.get("height") or ix.get("height_from") == "handler":
            return ix
        return {**ix, "height": max(1, int(ix["height"]) - SELECT_EXTRA_GETS)}

    return {name: {**t, "indexes": {i: fixed(ix) for i, ix in (t.get("indexes") or {}).items()}}
            if t.get("indexes") else t for name, t in tables.items()}
