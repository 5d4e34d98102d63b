"""Why MySQL's LRU batches at 48M write more dirty pages than the model's (docs/capture.md, "The dirty
tail at 48M", branch mysql48d): (1) the pages each side wrote by kind over a run (the servers'
INNODB_METRICS buffer_page_written_*; the model's flush-list cleans and LRU-batch writes by region);
(2) the model's LRU-batch writes and reads with the start-up pages each run had (Innodb_buffer_pool_
pages_data at t=0), and with the pages it created by 2 s added (the first run after sysbench's load
splits ~250 k-index leaves); (3) the two fresh runs' page cleaner watched every 50 ms
(capture_rw.py --flush-trace 0.05): each batch's evictions and writes, the dirty pages around it.

Needs a debug build: a copy of the tree with ../mysql48c/lrudbg.patch and lrudbg2.patch here applied
(`patch -p1`), built in place (`python setup.py -q build_ext --inplace`); lrudbg2.patch logs each page
the flush list cleans and each dirty page an LRU batch writes to $LRUDBG_F.

    DBG_TREE=/path/to/copy PYTHONPATH=/path/to/copy .venv/bin/python docs/data/mysql48d/dirt.py
"""
import collections
import dataclasses
import gzip
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = HERE.parent / "mysql48"
sys.path.insert(0, str(RUNS))
import split  # noqa: E402

from loadgen.analysis import tracegeometry  # noqa: E402
from loadgen.analysis import tracesample as ts  # noqa: E402
from loadgen.workload import optrace as ot  # noqa: E402

FIVE = [("rw48", 0), ("rw48", 1), ("rw48", 2), ("rw48b", 0), ("rw48b", 1)]
LOG = os.environ.setdefault("LRUDBG_F", "/tmp/mysql48d-dirt.log")
DELTA = [0]
LAYOUT = {}
_exact, _pools_of = split.exact, tracegeometry.pools_of


def exact(sim, space, first):
    LAYOUT.setdefault("trees", [(t.base, t.base + t.n_pages) for t in space.trees.values()])
    LAYOUT.setdefault("sys", (space.system_base, space.undo_base, space.temp_base))
    return _exact(sim, space, first)


def pools_of(*a, **k):  # the start-up pages moved by DELTA
    return [(b, dataclasses.replace(p, start_pages=p.start_pages + DELTA[0])) for b, p in _pools_of(*a, **k)]


ts.exact, ot.chunks, tracegeometry.pools_of = exact, split.chunks, pools_of


def load(where, name, i):
    run = json.loads(gzip.decompress((where / f"{name}.json.gz").read_bytes()))[i]
    tr = Path(f"/tmp/mysql48d-{name}-{i}.optrace")
    tr.write_bytes(gzip.decompress((where / run["trace"]).read_bytes()))
    return run, tr, json.loads(gzip.decompress((where / run["predict"]).read_bytes()))


def predict(run, tr, doc, delta=0):
    """(pages read, {simulation: [(kind F|L, page, ms), ...]}) of the base pool's four cleaner phases."""
    DELTA[0] = delta
    off = os.path.getsize(LOG) if os.path.exists(LOG) else 0  # the kernel keeps its log open
    total, _ = split.predict(run, tr, doc)
    sims = collections.OrderedDict()
    with open(LOG) as f:
        f.seek(off)
        for line in f:
            p, kind, ms, page, _ = line.split()
            sims.setdefault(p, []).append((kind, int(page), float(ms)))
    return total, list(sims.values())[:4]


def region(page):
    if any(a <= page < b for a, b in LAYOUT["trees"]):
        return "index"
    s0, u0, t0 = LAYOUT["sys"]
    return "hdr" if s0 <= page < u0 else "undo" if u0 <= page < t0 else "other"


def written():
    print("| run | server: index / undo log / system pages written, LRU-batch writes "
          "| model (4 phases): index / undo / headers, LRU-batch writes |")
    print("|---|---|---|")
    for name, i in FIVE:
        run, tr, doc = load(RUNS, name, i)
        c = run["counters"]
        _, sims = predict(run, tr, doc)
        cells = []
        for ev in sims:
            n = collections.Counter(region(p) for _, p, _ in ev)
            cells.append(f"{n['index']:,} / {n['undo']:,} / {n['hdr']:,}, {sum(k == 'L' for k, _, _ in ev)}")
        print(f"| {name} #{i} | {c['buffer_page_written_index_leaf'] + c['buffer_page_written_index_non_leaf']:,} / "
              f"{c['buffer_page_written_undo_log']:,} / {c['buffer_page_written_system_page']:,}, "
              f"{run['flush']['lru_batch_flushed']} | " + "; ".join(cells) + " |")


def starts():
    print("\n| run | server read, t=0 data pages, created by 2 s, LRU-batch writes | model: start 960 "
          "| start as the run's | + created by 2 s |")
    print("|---|---|---|---|---|")
    runs = [(RUNS, n, i) for n, i in FIVE] + [(HERE, "ft48", 0), (HERE, "ft48b", 0)]
    for where, name, i in runs:
        run, tr, doc = load(where, name, i)
        ff, s = run["free_frames"], run["server_read"]
        s0, made = ff[0][2], [x[6] for x in ff if x[0] <= 2.1][-1] - ff[0][6]
        cells = []
        for d in (0, s0 - 960, s0 - 960 + made):
            total, sims = predict(run, tr, doc, d)
            w = [sum(k == "L" for k, _, _ in ev) for ev in sims]
            cells.append(f"{total:,} ({100 * (total - s) / s:+.1f}%), writes {min(w)}-{max(w)}")
        print(f"| {name} #{i} | {s:,}, {s0:,}, {made}, {run['flush']['lru_batch_flushed']} | " + " | ".join(cells) + " |")


def watched():
    for name in ("ft48", "ft48b"):
        run = json.loads(gzip.decompress((HERE / f"{name}.json.gz").read_bytes()))[0]
        ft, ev = run["flush_trace"], []
        for a, b in zip(ft, ft[1:]):
            if b[6] != a[6] or b[4] != a[4] or b[2] != a[2]:
                ev.append(f"{b[0]:.2f}:" + (f"LRU e{b[5] - a[5]} w{b[4] - a[4]} " if b[6] != a[6] or b[4] != a[4] else "")
                          + (f"FL {b[2] - a[2]} dirty {a[1]}->{b[1]}" if b[2] != a[2] else ""))
        print(f"\n{name}: {run['qps']} q/s, {run['server_read']:,} read, LRU-batch writes "
              f"{run['flush']['lru_batch_flushed']}, flush list {run['flush']['flush_list_flushed']:,} "
              f"({run['counters']['buffer_flush_batches']} batches), pages created {run['flush']['pages_created']}, "
              f"splits {run['counters'].get('index_page_splits')}")
        print("  " + "; ".join(ev))


if __name__ == "__main__":
    written()
    starts()
    watched()
