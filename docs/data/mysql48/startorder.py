"""Experiment (not kept; docs/capture.md, "Where the fast 48M runs' missing reads are"): the model's
start-up list built by a prelude of page creations before the first operation instead of its 320
filler pages and the rollback segments' pages created at their first use, in an order:

    PYTHONPATH=. .venv/bin/python docs/data/mysql48/startorder.py DICT_A DICT_B odd|even [middle]

DICT_A dictionary pages at the tail, one undo file's segments (header, undo page), [middle: DICT_B
dictionary pages,] the other file's segments, [else: DICT_B dictionary pages,] ibtmp1's headers at
the head. The server's order, measured (startlru.json.gz: INNODB_BUFFER_PAGE_LRU after a restart
at 48M, tail first): `0 320 odd middle`. The dictionary is a fake table the trace never names."""
import gzip, json, sys, tempfile, dataclasses
from pathlib import Path
import numpy as np
from loadgen.analysis import changebuf, tracegeometry, tracemodel, mixmodel as mm, mixpages as mp, undomodel
DICT_A, DICT_B = int(sys.argv[1]), int(sys.argv[2])
FIRST_ODD = sys.argv[3] == "odd"
MIDDLE = len(sys.argv) > 4 and sys.argv[4] == "middle"
HERE = Path(__file__).resolve().parent
FAKE = "mysql.dd"
_order = tracemodel._table_order
tracemodel._table_order = lambda plan, tables: _order(plan, {k: v for k, v in tables.items() if k != FAKE}) + [FAKE]
tracemodel.without_rseg_pages = lambda pool, space, held_at_start=True: dataclasses.replace(pool, start_pages=0)
_init = tracemodel.TraceMapper.__init__
def init(self, *a, **k):
    k["rsegs_at_start"] = False
    _init(self, *a, **k)
    self._prelude = True
tracemodel.TraceMapper.__init__ = init
_add = mm.add_ops
def add_ops(trace, mapper, *a, **k):
    if mapper._prelude:
        mapper._prelude = False
        sp = mapper.space
        dd = sp.tree_of(FAKE, None)
        r = np.arange(sp.rollback_segments)
        hdr, undo = sp.system_base + r, sp.undo_base + r
        first = r % 2 == (1 if FIRST_ODD else 0)
        seg = lambda m: np.stack([hdr[m], undo[m]], 1).ravel()
        if MIDDLE:  # measured (startlru.json): one undo file's segments, the dictionary, the other's, ibtmp1
            pages = np.concatenate([dd.base + np.arange(DICT_A), seg(first), dd.base + DICT_A + np.arange(DICT_B),
                                    seg(~first), sp.temp_base + np.arange(sp.temp_rsegs)])
        else:
            pages = np.concatenate([dd.base + np.arange(DICT_A), seg(first), seg(~first),
                                    dd.base + DICT_A + np.arange(DICT_B), sp.temp_base + np.arange(sp.temp_rsegs)])
        trace.add(pages.astype(np.uint32), np.full(len(pages), mp.NEW, np.uint8))
    return _add(trace, mapper, *a, **k)
mm.add_ops = add_ops
with tempfile.TemporaryDirectory() as tmp:
    for name in ("rw48", "rw48b", "rw16"):
        for run in json.loads(gzip.decompress((HERE / f"{name}.json.gz").read_bytes())):
            trace = Path(tmp) / run["trace"].removesuffix(".gz")
            trace.write_bytes(gzip.decompress((HERE / run["trace"]).read_bytes()))
            doc = json.loads(gzip.decompress((HERE / run["predict"]).read_bytes()))
            tables = dict(doc["tables"])
            tables[FAKE] = {"rows": DICT_A + DICT_B, "leaf_pages": DICT_A + DICT_B, "height": 1, "indexes": {}}
            pools = tracegeometry.pools_of([run["pool_bytes"]], "mysql", {"innodb_io_capacity": 10_000}, float(doc["qps"]))
            p = tracemodel.predict(trace, tables, pools, "mysql", changebuf.kinds_of("mysql", doc.get("change_buffering")))["pools"][0]
            s = run["server_read"]
            print(f"{name} #{run['run']} {run['pool_bytes']>>20}M server {s} model {p['pages_read']} {100*(p['pages_read']-s)/s:+.1f}% sys {p['system_pages_read']} dd {p['tables'].get(FAKE, {}).get('pages_read')}")
