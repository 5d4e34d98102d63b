"""ft48 (a fresh run: fresh run json, index, start-page delta) through the debug build: each LRU batch
(evicted, written) of the four cleaner phases. DBG_TREE-built copy on PYTHONPATH, LRUDBG_B=file;
e.g. the run's start plus its pages created by 2 s: delta 166 (949 - 960 + 177).

    LRUDBG_B=/tmp/b PYTHONPATH=$DBG_TREE python batches.py ft48.json 0 166   # ft48.json: ft48.json.gz unzipped, paths fixed
"""
import json, sys, os, collections, dataclasses
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mysql48"))
import split
from loadgen.analysis import tracesample as ts, tracegeometry
from loadgen.workload import optrace as ot
ts.exact, ot.chunks = split.exact, split.chunks
_p = tracegeometry.pools_of
D = int(sys.argv[3])
tracegeometry.pools_of = lambda *a, **k: [(b, dataclasses.replace(p, start_pages=p.start_pages + D)) for b, p in _p(*a, **k)]
r = json.load(open(sys.argv[1]))[int(sys.argv[2])]
tot, _ = split.predict(r, Path(r["trace"]), json.load(open(r["predict"])))
b = collections.OrderedDict()
for line in open(os.environ["LRUDBG_B"]):
    p, t, n, w, ln, _ = line.split()
    b.setdefault(p, []).append(f"{float(t)/1000:.1f}:e{n}/w{w}")
print("start delta", D, "model", tot)
for p, rows in list(b.items())[:4]:
    print("  ", " ".join(rows[:7]))
