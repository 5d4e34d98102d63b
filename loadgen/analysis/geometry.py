"""The table's shape and page layout: the B-tree levels of a PK-ordered table and where its leaves sit.

Held apart from the simulator because everything that reads a result needs it (the forecast, the
curve, the key-stream traces, the reports) and it needs nothing but the measured rows per leaf.
The table is loaded in PK order, so leaf k starts near id k*rows/L (docs/innodb.md, "Table
geometry"), up to 2 ids off, as real leaves hold 121-125 rows; that decides which selects hit a
leaf's first or last key, where read-ahead is checked (leaf_start). Leaves sit on physical pages
4..35, 64.. (leaf_phys, phys_leaf; native/lrusim/layout.h places them the same way).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

from ..errors import InputNote, UsageError

# Node pointers for a BIGINT key are 17 B; full level-1 pages held 902-928 in the lab.
DEFAULT_FANOUT = 900
ROOT_MAX_POINTERS = 930
# Measured here: 200,000 rows of schema/chat.sql -> 1,633 leaf pages (sequential load).
ROWS_PER_LEAF = {"chat": 122.5}


@dataclass(frozen=True)
class Geometry:
    rows: int
    leaf_pages: int
    height: int
    fanout: int = DEFAULT_FANOUT

    @property
    def n_pages(self) -> int:
        return sum(level_sizes(self))



def level_sizes(g: Geometry) -> list[int]:
    """Pages per level, leaves first, root (1 page) last."""
    sizes = [g.leaf_pages]
    for level in range(1, g.height):
        sizes.append(1 if level == g.height - 1 else -(-sizes[-1] // g.fanout))
    return sizes


def estimate_geometry(rows: int, schema: str = "chat", rows_per_leaf: float | None = None,
                      fanout: int = DEFAULT_FANOUT) -> Geometry:
    """Leaf pages and height of a PK-ordered table without a server (from measured rows/leaf)."""
    rpl = rows_per_leaf or ROWS_PER_LEAF.get(schema)
    if not rpl:
        raise UsageError(f"no measured rows per leaf page for schema {schema!r}",
                         "pass --rows-per-leaf, or run once against a server and predict from its result")
    leaves = max(1, round(rows / rpl))
    return Geometry(rows, leaves, estimate_height(leaves, fanout), fanout)


def btree_height(value, what: str, leaf_pages: int | None = None, rows: int | None = None) -> int:
    """A B-tree height read from a result, trace or geometry file (untrusted): 1..MAX_HEIGHT and,
    given the leaf pages and rows, within seeding.height's bounds. A measurement other clients'
    page gets spoiled (30 and 37 recorded for sbtest1's 3 levels on a loaded machine; 37 reached the
    simulator and killed the process with a floating-point exception) is replaced by the height the
    leaf pages imply (estimate_height), with an InputNote saying so; without them it is a UsageError
    naming the file's part."""
    from ..seeding.height import MAX_HEIGHT, plausible_height

    try:
        height = int(value or 1)
    except (TypeError, ValueError):
        height = 0
    if 1 <= height <= MAX_HEIGHT and (leaf_pages is None or rows is None
                                      or plausible_height(height, leaf_pages, rows)):
        return height
    if leaf_pages is not None and leaf_pages >= 1:
        estimated = estimate_height(leaf_pages)
        warnings.warn(f"{what} has a B-tree height of {value!r}, not believable for {leaf_pages:,} leaf pages: "
                      f"predicted with {estimated}, the leaf pages' estimate", InputNote, stacklevel=2)
        return estimated
    raise UsageError(f"{what} has a B-tree height of {value!r}, not 1..{MAX_HEIGHT}",
                     "measure the table again on an idle server (loadgen seed), or fix the file")


def estimate_height(leaf_pages: int, fanout: int = DEFAULT_FANOUT) -> int:
    """Levels above leaf_pages full leaves at `fanout` children a node page (estimate_geometry's)."""
    height, n = 1, max(1, int(leaf_pages))
    while n > 1:
        height += 1
        if n <= ROOT_MAX_POINTERS:
            break
        n = -(-n // fanout)
    return height


def geometry_of(dataset: dict) -> Geometry:
    """From a result file's dataset block (leaf pages from mysql.innodb_index_stats)."""
    try:
        rows, leaves = int(dataset["rows"]), max(1, int(dataset["leaf_pages"]))
        return Geometry(rows, leaves, btree_height(dataset["height"], "the result's dataset", leaves, rows))
    except (KeyError, TypeError, ValueError):
        raise UsageError("the result has no dataset geometry (rows, leaf_pages, height)") from None


def _mix64(x: int) -> int:
    """splitmix64's finaliser, as native/lrusim/source.h's mix64."""
    m = (1 << 64) - 1
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & m
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & m
    return x ^ (x >> 31)


def leaf_jitter(g: Geometry) -> int:
    """How many ids a leaf's start may sit off the even spread (native/lrusim/source.c leaf_start)."""
    r = g.rows // g.leaf_pages
    return 2 if r >= 5 else 1 if r >= 3 else 0


def leaf_start(g: Geometry, k: int) -> int:
    """The first id on leaf k: near k * rows / L, up to leaf_jitter ids off (real leaves hold
    121-125 rows, which decides which selects hit a leaf's first or last key)."""
    if k == 0:
        return 1
    if k >= g.leaf_pages:
        return g.rows + 1
    a = leaf_jitter(g)
    j = _mix64(k) % (2 * a + 1) - a if a else 0
    return 1 + (2 * k * g.rows + g.leaf_pages) // (2 * g.leaf_pages) + j


def leaf_of_id(g: Geometry, i: int) -> int:
    k = (i - 1) * g.leaf_pages // g.rows
    while k + 1 < g.leaf_pages and leaf_start(g, k + 1) <= i:
        k += 1
    while k > 0 and leaf_start(g, k) > i:
        k -= 1
    return k


def leaf_phys(k: int) -> int:
    """Physical page of leaf k in a PK-ordered table (docs/innodb.md, "Table geometry")."""
    if k < 32:
        return 4 + k
    j = k - 32
    return 64 + j + 64 * (j // (16384 - 64))


def phys_leaf(page: int, leaf_pages: int) -> int | None:
    """The leaf on a physical page, or None (system, fragment-extent or XDES page; past the end)."""
    if 4 <= page < 36:
        k = page - 4
    else:
        block, r = divmod(page, 16384)
        if r < 64:
            return None
        k = 32 + block * (16384 - 64) + r - 64
    return k if k < leaf_pages else None
