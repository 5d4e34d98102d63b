"""The pages a pool holds, uncertain: how far a mix's or a captured trace's prediction moves when
the server holds a few pages fewer or more than the model (issues #21/#22, docs/capture.md, "48M,
what the server re-reads").

The model holds one figure for the pages a pool keeps (the page cleaner's free target, the start-up
pages); the server's swings around it from one second to the next and with what ran before its
restart. Where the workload's pages just fit, that swing decides whether they stay: MySQL's
read/write capture at 48M is read 6-9 points higher with the list 10 pages shorter. So the model
simulates the pool again with HELD_SPREAD_PAGES_* fewer and more pages held, and how far the reads
it gets there reach from the estimate is a source of error on each side of its interval
(intervals.interval: a knife edge is one-sided, 38 pages fewer can cost far more than 38 more
save), in quadrature with the others: wide where the curve is steep at the pool, next to nothing
where it is flat (a reach well under the margin adds little to it).

How many pages: what the servers' pages held were measured to swing by under writes.
  - MySQL 9.7: the LRU list the page cleaner leaves at 48M held 2,043-2,119 pages in four runs'
    snapshots (bench/lru_content.py, every 2 s), +-38 around their middle.
  - MariaDB: its free list swings by scan_depth/2 in batches, which the model simulates
    (pool.PoolModel.cleaner_batch); what is left is intervals.CAPACITY_SPREAD_PAGES (16), the
    spread the grid's floors were fitted with.
The calibrated grid (single-table orders and key streams, intervals.for_pool with its stack
histogram) keeps its own term: this one is for the mix and trace models only.

A long trace's twins, cut short (branch mysqltwins, bench/README.md): where a curve's MySQL pool is
simulated at one cleaner phase (tracesample.one_phase: a long trace under writes), its twins are
fed only the trace's first TWIN_SHARE of chunks (at least TWIN_MIN_OPS operations, and at least
as many chunks after the pool filled as before; tracesim.PoolFeed's cut), and the reach is carried
to the whole trace (extrapolated): the reach where the pool first re-read a page (filled) is kept
as it is, since part of it is a one-off shift the fill leaves (MySQL 64M on the bench's trace: 3,000
pages by its second chunk, then flat), and what it gained after that is scaled by the pool's
re-reads (reads past each page's first) over the whole trace against the part. Measured on the
bench's trace (3M, 30M operations, and 10M on 2M rows; docs/data/mysqltwins): each side within
0.6 of max(0.1% of the reads, 20% of the whole trace's reach) of the whole trace's reach. The
estimate itself is simulated whole, as before.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

HELD_SPREAD_PAGES_MYSQL = 38
HELD_SPREAD_PAGES_MARIADB = 16  # intervals.CAPACITY_SPREAD_PAGES
# a note says why an interval is wide where the envelope reaches further than this share of the
# estimate: beyond what the calibrated floors (3.4% / 4.6% for mixes and traces) would give alone
NOTE_REL = 0.05
# a long trace's twins (one cleaner phase) see this share of its chunks, and at least TWIN_MIN_OPS
# operations (a quarter of 3M operations, 3 chunks, left the 4G pool's reach 3x the gate off: it had
# filled in the second; docs/data/mysqltwins/prefix_3M.txt)
TWIN_SHARE = 0.25
TWIN_MIN_OPS = 1_500_000


@dataclasses.dataclass
class Marks:
    """A pool's and its cut twins' counts (tracesim.PoolFeed): [pool, fewer, more] ts.Results after
    warm_at chunks (the pool's first re-read) and after cut_at chunks (the twins stopped), the
    pool's re-reads there and at the end."""

    warm_at: int = 0
    warm_rereads: int | None = None
    warm: list | None = None
    cut_at: int = 0
    cut_rereads: int | None = None
    cut: list | None = None
    end_rereads: int = 0


def twin_chunks(n_chunks: int, ops: int) -> int:
    """The chunks a long trace's twins are fed (TWIN_SHARE, TWIN_MIN_OPS)."""
    return math.ceil(n_chunks * min(1.0, max(TWIN_SHARE, TWIN_MIN_OPS / max(ops, 1))))


def rereads(reads: bytes) -> int:
    """The reads past each page's first (a kernel's per-page uint32 reads)."""
    r = np.frombuffer(reads, dtype=np.uint32)
    return int(r.sum(dtype=np.uint64)) - int(np.count_nonzero(r))


def spread_pages(pool) -> int:
    """The pages held are uncertain by this many either way for the pool's server."""
    return HELD_SPREAD_PAGES_MYSQL if pool.cleaner_depth else HELD_SPREAD_PAGES_MARIADB


def shifted(pool, pages: int):
    """The pool holding `pages` more data pages (fewer where negative) than the model's figure:
    MySQL's timed page cleaner under writes leaves `pages` fewer free frames (cleaner_depth, at
    most every frame);
    a MySQL pool with one batch holds `pages` fewer start-up pages; MariaDB's LRU list is
    `pages` longer (capacity_pages). None where the pool has no such room (the list would go
    under one page)."""
    if pool.cleaner_depth and pool.cleaner_ticks == 0:
        # no more free frames than the pool has (MySQL 16M: the depth, 1,024, is every frame)
        depth = min(pool.cleaner_depth - pages, pool.pool_pages)
        return dataclasses.replace(pool, cleaner_depth=depth) if depth > 0 else None
    if pool.cleaner_depth:
        start = pool.start_pages - pages
        return dataclasses.replace(pool, start_pages=start) if 0 <= start < pool.pool_pages else None
    cap = pool.capacity_pages + pages
    return dataclasses.replace(pool, capacity_pages=cap) if 0 < cap <= pool.pool_pages else None


def pair(pool) -> tuple | None:
    """(pool holding spread_pages fewer, pool holding that many more), or None where either has no room."""
    n = spread_pages(pool)
    fewer, more = shifted(pool, -n), shifted(pool, n)
    return None if fewer is None or more is None else (fewer, more)


def envelope(reads: int, fewer: int, more: int) -> tuple[int, int]:
    """(low, high) of the reads with the pages held anywhere in the spread: the point and both ends."""
    return min(reads, fewer, more), max(reads, fewer, more)


def block(reads: int, fewer: int, more: int, pages: int) -> dict:
    """The JSON block a prediction carries: the spread in pages and the reads at either end."""
    lo, hi = envelope(reads, fewer, more)
    reach = max(reads - lo, hi - reads)
    return {"pages": pages, "reads_fewer_held": int(fewer), "reads_more_held": int(more),
            "reach_pct": round(100.0 * reach / reads, 1) if reads else 0.0}


def note(where: str, held: dict | None) -> str | None:
    """One line where the spread makes the interval wide (reach over NOTE_REL), else None."""
    if not held or held.get("reach_pct", 0.0) < 100 * NOTE_REL:
        return None
    # "held" alone meant nothing to a DBA new to loadgen: say what varies, and what it means for sizing.
    return (f"{where} is on a knife edge: {held['pages']} pages held more or fewer (how many a server keeps in "
            f"its pool varies by about that) move the prediction by up to {held['reach_pct']:.0f}% "
            f"({held['reads_more_held']:,} .. {held['reads_fewer_held']:,} pages read); its interval spans that, "
            "and a slightly larger pool reads about the lower figure or less")


def pairs(pools: list, write_share: float = 0.0, ops: int | None = None, buffered: bool = False) -> dict[int, tuple]:
    """{index: (fewer, more)} for each of a trace's pools simulated exactly (a miniature's interval
    holds its sampling error instead: its shifted pools would be a few sampled frames apart)."""
    from .tracesample import pool_rate

    out = {}
    for i, p in enumerate(pools):
        two = pair(p) if pool_rate(p, len(pools) > 1, write_share, ops, buffered) >= 1 else None
        if two:
            out[i] = two
    return out


def flat(part: tuple[dict, int]) -> dict[str, int]:
    """{"*": the total, table: its reads} of ({table: {pages_read}}, system pages read)."""
    tables, system = part
    return {"*": sum(t["pages_read"] for t in tables.values()) + system,
            **{n: t["pages_read"] for n, t in tables.items()}}


def by_part(parts: list[tuple[dict, int]]) -> dict[str, tuple[int, int]]:
    """{part: (reads with fewer pages held, with more)} of the total ("*") and each table, from the
    two shifted pools' ({table: {pages_read}}, system pages read)."""
    got = [flat(p) for p in parts]
    return {k: (got[0][k], got[1].get(k, 0)) for k in got[0]}


def extrapolated(end: tuple[dict, int], marks: Marks, part_of) -> dict[str, tuple[int, int]]:
    """by_part of twins cut short (module docstring): end, the pool's part over the whole trace;
    part_of(ts.Result) -> its part. Each side: the reach at the fill, plus what it gained up to the
    cut times the pool's re-reads after the fill over the whole trace / up to the cut."""
    after = marks.cut_rereads - marks.warm_rereads
    k = (marks.end_rereads - marks.warm_rereads) / after if after > 0 else 1.0
    e = flat(end)
    bw, fw, mw = (flat(part_of(r)) for r in marks.warm)
    bc, fc, mc = (flat(part_of(r)) for r in marks.cut)
    out = {}
    for key, reads in e.items():
        sides = []
        for tw, tc in ((fw, fc), (mw, mc)):
            at_fill = tw.get(key, 0) - bw.get(key, 0)
            sides.append(round(reads + at_fill + (tc.get(key, 0) - bc.get(key, 0) - at_fill) * k))
        out[key] = (sides[0], sides[1])
    return out


def of_mix(simulate, parts, pool) -> dict[str, tuple[int, int]]:
    """by_part of a mix, or {} where the pool has no room: simulate(pool) -> the kernel's sim,
    parts(sim) -> ({table: {pages_read}}, system pages read) (mixpages.table_reads)."""
    two = pair(pool)
    return by_part([parts(simulate(p)) for p in two]) if two else {}
