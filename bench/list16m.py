"""The model's LRU list of a small MariaDB pool (8M/16M: pool - innodb_lru_scan_depth under
BUF_LRU_MIN_LEN), replayed in Python over the model's own references for a stored run, to see what
the kernel (native/lrusim) does not report (issue #21, docs/workloads-lab.md "How long a walk's
headers stay"): which rollback segment header reads come from purge's walks and which from the
writes, how long the list is and how many of its pages are dirty, and how long a header read by
one walk stays for the next.

    .venv/bin/python bench/list16m.py docs/data/mariarwwhole/*-perf-3.json.gz
    .venv/bin/python bench/list16m.py RUN.json.gz --keep-written   # the batch's written pages stay

The list as the kernel keeps it there: no old sublist (under BUF_LRU_OLD_MIN_LEN), so a read goes
to the head and a hit moves a page to the head only once a quarter of the young share of the pool
was evicted since it was put there (buf_page_peek_if_young); when a read finds the list at
SMALL_POOL_HIGH_PAGES the batch (cleaner.c mariadb_batch) walks from the tail, writes a dirty page
and keeps it, evicts a clean one, until the list (the kept pages counted) is at
SMALL_POOL_LOW_PAGES, and then (make_room) evicts from the tail, written pages too, down to it
(a write run from 800 q/s: the list's bounds pool.write_batch gives, list_bounds).
--keep-written leaves that last step out. Read-ahead and the undo reads' cap (undocap) are not
replayed: on sysbench-oltp-rw (no read-ahead) the misses and the header reads are the kernel's to
the page; where the cap cuts, compare the headers only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadgen.analysis import mixmodel, pool  # noqa: E402 - after sys.path takes the checkout's loadgen
from loadgen.servers import lrulist  # noqa: E402 - the same

MIX_WRITE, MIX_NEW = 2, 8  # native/lrusim/mix.h
WALK_MIN_HEADERS = 64  # consecutive header references that are a walk (the model's walks read all 128)
SURVIVAL_BINS = (0, 100, 150, 200, 250, 300, 400)  # reads since a header's last read (bench/header_survival.py)


def model_trace(run: dict):
    """The references mixmodel.predict simulates for this run, and its Space (the first simulate
    call's: the exact pool's, before heldspread's twins)."""
    seen = {}
    real = mixmodel.simulate

    def keep(trace, space, *args, **kwargs):
        seen.setdefault("trace", (trace, space))
        return real(trace, space, *args, **kwargs)

    mixmodel.simulate = keep
    try:
        mixmodel.predict(run)
    finally:
        mixmodel.simulate = real
    trace, space = seen["trace"]
    return np.concatenate(trace.pages).tolist(), np.concatenate(trace.flags).tolist(), space


def walk_mask(pages: list[int], lo: int, hi: int) -> list[bool]:
    """Whether each reference is a walk's: one of WALK_MIN_HEADERS or more header references in a row."""
    out = [False] * len(pages)
    i = 0
    while i < len(pages):
        j = i
        while j < len(pages) and lo <= pages[j] < hi:
            j += 1
        if j - i >= WALK_MIN_HEADERS:
            out[i:j] = [True] * (j - i)
        i = max(j, i + 1)
    return out


def list_bounds(run: dict) -> tuple[int, int]:
    """The list's length where the batch starts and where it stops for this run, as mixmodel.pool_of
    gives them to the kernel: SMALL_POOL_HIGH_PAGES -> SMALL_POOL_LOW_PAGES, or a write run's
    (pool.write_batch, from 800 q/s) capacity_high -> capacity_high - cleaner_batch + 1."""
    p = mixmodel.pool_of(run, writes=True)
    return p.capacity_high, p.capacity_high - p.cleaner_batch + 1


def replay(
    pages: list[int], flags: list[int], space, keep_written: bool, bounds: tuple[int, int] | None = None
) -> dict:
    """The list over the references (the module docstring): counts, list samples, walk-time survival.
    bounds: (high, low), list_bounds(run); main's SMALL_POOL_HIGH_PAGES, SMALL_POOL_LOW_PAGES if None."""
    high, low = bounds or (lrulist.SMALL_POOL_HIGH_PAGES, lrulist.SMALL_POOL_LOW_PAGES)
    frames = pool.pool_pages(16 << 20)
    quarter = (
        frames
        * (pool.RATIO_DIV - pool.DEFAULTS["innodb_old_blocks_pct"] * pool.RATIO_DIV // 100)
        // (pool.RATIO_DIV * 4)
    )
    h_lo, h_hi = space.system_base, space.system_base + space.rollback_segments
    in_walk = walk_mask(pages, h_lo, h_hi)
    lru: dict[int, None] = {}  # insertion order: the tail first
    dirty: set[int] = set()
    placed: dict[int, int] = {}  # the eviction clock when a page was put at the head
    clock = reads = 0
    headers = {"walk": 0, "other": 0}
    last: dict[int, int] = {}
    survival: list[tuple[int, int]] = []
    lengths, dirty_counts = [], []
    for i, (p, f) in enumerate(zip(pages, flags)):
        header = h_lo <= p < h_hi
        if p in lru:
            if header and in_walk[i]:
                survival.append((reads - last[p], 0))
            if clock and clock - placed[p] >= quarter:
                del lru[p]
                lru[p] = None
                placed[p] = clock
        else:
            if len(lru) + 1 > high:
                n = len(lru)
                for q in list(lru):
                    if n <= low - 1:
                        break
                    if q in dirty:
                        dirty.discard(q)  # written, kept
                    else:
                        del lru[q]
                        n -= 1
                        clock += 1
                while not keep_written and len(lru) > low - 1:
                    q = next(iter(lru))
                    del lru[q]
                    dirty.discard(q)
                    clock += 1
            if not f & MIX_NEW:
                reads += 1
                if header:
                    headers["walk" if in_walk[i] else "other"] += 1
                    if p in last and in_walk[i]:
                        survival.append((reads - last[p], 1))
            lru[p] = None
            placed[p] = clock
        if header:
            last[p] = reads
        if f & MIX_WRITE:
            dirty.add(p)
        if i % 64 == 0:
            lengths.append(len(lru))
        if i % 4096 == 0:
            dirty_counts.append(len(dirty))
    return {
        "reads": reads,
        "headers": headers,
        "lengths": lengths,
        "dirty": dirty_counts,
        "survival": np.array(survival, dtype=np.int64).reshape(-1, 2),
    }


def report(path: Path, keep_written: bool) -> None:
    raw = path.read_bytes()
    run = json.loads(gzip.decompress(raw) if path.name.endswith(".gz") else raw)
    got = replay(*model_trace(run), keep_written, list_bounds(run))
    s = got["survival"]
    curve = []
    for lo, hi in zip(SURVIVAL_BINS, SURVIVAL_BINS[1:]):
        sel = (s[:, 0] >= lo) & (s[:, 0] < hi)
        curve.append(f"{lo}-{hi} {s[sel, 1].mean():.2f}" if sel.any() else f"{lo}-{hi} -")
    p5, p50, p95 = np.percentile(got["lengths"], [5, 50, 95]).round().astype(int)
    print(
        f"{path.name}: {got['reads']:,} reads; headers by walks {got['headers']['walk']:,}, "
        f"others {got['headers']['other']:,}; list p5/50/95 {p5}/{p50}/{p95}, dirty p50 "
        f"{int(np.median(got['dirty']))}; a walk's headers missed by reads since: {', '.join(curve)}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--keep-written", action="store_true", help="the batch does not evict the pages it wrote")
    args = ap.parse_args()
    for path in args.runs:
        report(path, args.keep_written)


if __name__ == "__main__":
    main()
