"""Which pages a MariaDB run read, one read at a time (issue #21: the whole-pool reads of
sysbench-oltp-rw at 16M, docs/workloads-lab.md "What the server reads that the model does not"):
summarise a per-read trace of the server's page reads, by file and page type, the table's by
index, and ibdata1's rollback segment headers by who read them (purge's truncation walks or not).

    .venv/bin/python bench/ibdata_walks.py docs/data/mariarwwhole/perf-3-reads.csv.gz

The trace is a CSV (s, thread, file, page, type, index, level): one row per 16 KiB pread64 of
ibdata1 or the table's .ibd, taken from the server process while `loadgen run` ran (strace or
perf trace; docs/workloads.md, the section above, says how). A walk (purge_sys_t::iterator::free_history, after
each purge batch) reads every rollback segment's header in slot order, each segment's oldest
history log's undo page after its header: it shows as one thread's header reads in rising slot
order from the first few slots, undo reads between them. Walks less than WALK_GAP_S apart are one
purge run (the batches of one wake-up of the coordinator).
"""
from __future__ import annotations

import argparse
import collections
import csv
import gzip
from pathlib import Path

SYS_PAGE = 6  # FIL_PAGE_TYPE_SYS: in ibdata1 the rollback segment headers
WALK_MIN_HEADERS = 20  # header misses for a rising run of reads to count as a walk
WALK_FIRST_SLOTS = 8  # a walk starts at one of the first segments (it may hit the first few)
WALK_STEP_S = 0.03  # the most between two header reads of one walk
UNDO_AFTER_HEADER_S = 0.005  # an undo read this soon after a walk's header read is the walk's
WALK_GAP_S = 0.3  # walks closer than this are one purge run


def rows_of(path: Path) -> list[dict]:
    with gzip.open(path, "rt", newline="") as f:
        return list(csv.DictReader(f))


def walks_of(rows: list[dict]) -> list[dict]:
    """The walks in a trace: {start, end, headers, undo} each, in time order."""
    ib = [r for r in rows if r["file"] == "ibdata1"]
    slot = {p: i for i, p in enumerate(sorted({int(r["page"]) for r in ib if int(r["type"]) == SYS_PAGE}))}
    open_, done = {}, []

    def close(w):
        if w and w["headers"] >= WALK_MIN_HEADERS and w["first"] < WALK_FIRST_SLOTS:
            done.append(w)

    for r in ib:
        t, th = float(r["s"]), r["thread"]
        w = open_.get(th)
        if int(r["type"]) == SYS_PAGE:
            s = slot[int(r["page"])]
            if w is None or s <= w["last"] or t - w["end"] > WALK_STEP_S:
                close(w)
                w = open_[th] = {"start": t, "end": t, "headers": 0, "undo": 0, "first": s, "last": s}
            w["headers"] += 1
            w["end"], w["last"] = t, s
        elif w and t - w["end"] < UNDO_AFTER_HEADER_S:
            w["undo"] += 1
    for w in open_.values():
        close(w)
    return sorted(done, key=lambda w: w["start"])


def report(path: Path) -> None:
    rows = rows_of(path)
    seconds = float(rows[-1]["s"]) - float(rows[0]["s"])
    kinds = collections.Counter((r["file"], r["type"], r["index"]) for r in rows)
    print(f"{path.name}: {len(rows):,} page reads in {seconds:.1f} s")
    for (file, typ, index), n in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {file:12} type {typ:>5} {index or '':8} {n:7,}")
    walks = walks_of(rows)
    runs: list[list[dict]] = []
    for w in walks:
        if runs and w["start"] - runs[-1][-1]["end"] < WALK_GAP_S:
            runs[-1].append(w)
        else:
            runs.append([w])
    headers = sum(1 for r in rows if r["file"] == "ibdata1" and int(r["type"]) == SYS_PAGE)
    first_h = sum(r[0]["headers"] for r in runs)
    first_u = sum(r[0]["undo"] for r in runs)
    more_h = sum(w["headers"] for r in runs for w in r[1:])
    more_u = sum(w["undo"] for r in runs for w in r[1:])
    more_n = len(walks) - len(runs)
    print(f"  rollback segment headers read: {headers:,}; purge runs {len(runs)} ({len(runs) / seconds:.2f} a second), "
          f"{len(walks)} walks in them")
    print(f"    the first walk of each run: {first_h:,} headers ({first_h / max(len(runs), 1):.0f} a walk), "
          f"{first_u:,} undo pages")
    print(f"    the walks after it in the run: {more_h:,} headers ({more_h / max(more_n, 1):.0f} a walk), "
          f"{more_u:,} undo pages")
    print(f"    outside the walks (the writes' assignments and commits, short walks): {headers - first_h - more_h:,}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+", type=Path)
    for path in ap.parse_args().traces:
        report(path)


if __name__ == "__main__":
    main()
