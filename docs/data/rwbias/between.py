"""For each walk after the first of a purge run (bench/ibdata_walks.walks_of), the pages read since the
previous walk ended, split into purge threads' table reads, purge threads' undo reads, and the
foreground's, against the walk's header reads."""
import sys, collections, bisect
sys.path.insert(0, 'bench')
from pathlib import Path
import numpy as np
import ibdata_walks as iw
WRITERS = {"perf-3": {"5760", "5761", "5762", "5752", "5756"}, "strace-1": {"24700", "24701", "24702", "24694", "24696"},
           "ycsb-f-perf-2": {"16548", "16547"}}
for f in sys.argv[1:]:
    key = Path(f).name.replace("-reads.csv.gz", "")
    rows = iw.rows_of(Path(f))
    # foreground: the connections (the threads reading table pages with no purge-pool pattern)
    fg = WRITERS[key]
    walks = iw.walks_of(rows)
    t = np.array([float(r["s"]) for r in rows])
    out = []
    for prev, w in zip(walks, walks[1:]):
        if w["start"] - prev["end"] > iw.WALK_GAP_S:
            continue  # first walk of a purge run
        lo, hi = np.searchsorted(t, prev["end"], "right"), np.searchsorted(t, w["start"], "left")
        seg = rows[lo:hi]
        ptab = sum(1 for r in seg if r["thread"] not in fg and r["file"] != "ibdata1")
        pib = sum(1 for r in seg if r["thread"] not in fg and r["file"] == "ibdata1")
        fgr = sum(1 for r in seg if r["thread"] in fg)
        out.append((w["headers"], ptab, pib, fgr, len(seg)))
    a = np.array(out, float)
    print(key, "walks after a run's first:", len(a), "headers each %.1f" % a[:, 0].mean(),
          "| reads between: purge table %.1f, purge ibdata1 %.1f, foreground %.1f, all %.1f" % tuple(a[:, 1:].mean(0)))
    for j, name in ((1, "purge table"), (2, "purge ibdata1"), (3, "foreground"), (4, "all")):
        print("   corr(headers, %s) %.2f" % (name, np.corrcoef(a[:, 0], a[:, j])[0, 1]))
