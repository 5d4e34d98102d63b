"""How long a rollback segment header stays in MariaDB's pool between purge's walks, counted in
the server's page reads (issue #21, docs/workloads-lab.md "How long a walk's headers stay"):
for every walk that bench/ibdata_walks.py finds in a per-read trace, and every header page that
was read before, the reads between its last read and this walk. A header the walk read again was
evicted in between (a miss), one it did not read was still in the pool (a hit).

    .venv/bin/python bench/header_survival.py docs/data/mariarwwhole/perf-3-reads.csv.gz

Below BUF_LRU_OLD_MIN_LEN (512 pages: every 16M pool) the LRU list has no old sublist and a hit
does not move a page (buf_page_make_young_if_needed needs an old page), so the list is in read
order and a page's distance in reads is its place from the head, give or take the pages created
(not read, so not in the trace) and those a batch wrote and kept. The share missed by distance
is then the list's length as the headers meet it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from ibdata_walks import SYS_PAGE, WALK_GAP_S, rows_of, walks_of

DISTANCE_BINS = (0, 100, 150, 200, 250, 300, 400, 600, None)  # reads since the header's last read


def survival(rows: list[dict]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{"first", "later"}: (distances of the headers a walk hit, of those it read), for the first
    walk of each purge run and the walks after it (walks under WALK_GAP_S apart are one run)."""
    walks = walks_of(rows)
    later, prev_end = set(), None
    for i, w in enumerate(walks):
        if prev_end is not None and w["start"] - prev_end < WALK_GAP_S:
            later.add(i)
        prev_end = w["end"]
    times = np.array([float(r["s"]) for r in rows])
    reads_of: dict[int, list[int]] = {}
    for i, r in enumerate(rows):
        if r["file"] == "ibdata1" and int(r["type"]) == SYS_PAGE:
            reads_of.setdefault(int(r["page"]), []).append(i)
    at = {page: np.array(idx) for page, idx in reads_of.items()}
    out: dict[str, tuple[list, list]] = {"first": ([], []), "later": ([], [])}
    for i, w in enumerate(walks):
        hits, misses = out["later" if i in later else "first"]
        lo = int(np.searchsorted(times, w["start"], "left"))
        hi = int(np.searchsorted(times, w["end"], "right"))
        for idx in at.values():
            before = idx[idx < lo]
            if not len(before):
                continue
            inside = idx[(idx >= lo) & (idx < hi)]
            if len(inside):
                misses.append(int(inside[0] - before[-1]))
            else:
                hits.append(lo - int(before[-1]))  # at least this far when the walk began
    return {k: (np.array(h, np.int64), np.array(m, np.int64)) for k, (h, m) in out.items()}


def report(path: Path) -> None:
    print(path.name)
    for kind, (hits, misses) in survival(rows_of(path)).items():
        dist = np.concatenate([hits, misses])
        missed = np.concatenate([np.zeros(len(hits)), np.ones(len(misses))])
        print(f"  {kind} walks: {len(hits):,} hits, {len(misses):,} misses")
        for lo, hi in zip(DISTANCE_BINS, DISTANCE_BINS[1:]):
            sel = (dist >= lo) & (dist < (hi if hi is not None else np.iinfo(np.int64).max))
            if sel.any():
                span = f"{lo}-{hi}" if hi is not None else f"{lo}+"
                print(f"    {span:>8} reads: {int(sel.sum()):6,} headers, missed {missed[sel].mean():.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+", type=Path)
    for path in ap.parse_args().traces:
        report(path)


if __name__ == "__main__":
    main()
