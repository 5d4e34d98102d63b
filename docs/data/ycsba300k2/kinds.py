"""Server vs model reads by kind for mixed run files."""

import gzip, json, sys
from pathlib import Path
import numpy as np

sys.path.insert(0, "bench")
import whole_repeat
from loadgen.analysis import mixmodel


def load(p):
    raw = Path(p).read_bytes()
    return json.loads(gzip.decompress(raw) if p.endswith(".gz") else raw)


for path in sys.argv[1:]:
    doc = load(path)
    seen = []
    real = mixmodel.simulate

    def spy(trace, space, *a, **k):
        sim = real(trace, space, *a, **k)
        seen.append((sim, space))
        return sim

    mixmodel.simulate = spy
    try:
        p = mixmodel.predict(doc)
    finally:
        mixmodel.simulate = real
    sim, space = seen[0]
    reads = np.frombuffer(sim.reads, dtype=np.uint32)
    leaf = nonleaf = 0
    for (name, idx), tree in space.trees.items():
        leaf += int(reads[tree.base : tree.base + tree.all_leaves].sum())
        nonleaf += int(reads[tree.base + tree.all_leaves : tree.base + tree.n_pages].sum())
    t = lambda a, b: int(reads[a:b].sum(dtype=np.uint64))
    cut = int(p.get("undo_reads_cut") or 0)
    m = {
        "leaf": leaf + sim.filler_reads,
        "nonleaf": nonleaf,
        "rseg": t(space.system_base, space.undo_base),
        "undo": t(space.undo_base, space.temp_base) - cut,
        "temp": t(space.temp_base, space.file_base),
        "ufile": t(space.file_base, space.n_pages),
    }
    fl = doc["buffer_pool"]["flush"]
    bp = doc["buffer_pool"]
    s = {
        "leaf": fl["leaf_pages_read"],
        "nonleaf": fl["nonleaf_pages_read"],
        "rseg": fl["system_pages_read"],
        "undo": fl["undo_pages_read"],
        "other": fl["inode_pages_read"]
        + fl["fsp_hdr_pages_read"]
        + fl.get("ibuf_bitmap_pages_read", 0)
        + fl["xdes_pages_read"]
        + fl["other_pages_read"],
    }
    print(
        f"{Path(path).name} qps={doc['result']['qps']} ops={doc['result']['ops']} v={doc['server']['version']} "
        f"whole srv={bp['pages_read']} model={p['pages_read']} table srv={sum(x['file_pages_read'] for x in bp['tables'].values())} model={sum(x['pages_read'] for x in p['tables'].values())}"
    )
    print("   kind      server   model   srv-model")
    for k in ("leaf", "nonleaf", "rseg", "undo"):
        print(f"   {k:8s} {s[k]:8d} {m[k]:7d} {s[k] - m[k]:8d}")
    print(
        f"   other    {s['other']:8d} temp+ufile model {m['temp'] + m['ufile']}  undo_written={fl['undo_pages_written']} purge_undo={fl['purge_undo_pages']} batches={fl['purge_batches']} created={fl['pages_created']} cap={p.get('undo_reads_cap')} cut={cut}"
    )
