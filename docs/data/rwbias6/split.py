"""Branch rwbias6: the model's table reads split by index and level (leaf / non-leaf) against the
server's page-type counters (INNODB_METRICS buffer_page_read_index_leaf / _non_leaf: every
tablespace's, ibdata1's few system-table pages included), the rseg headers and undo pages too, for
the named stored runs.

    PYTHONPATH=$PWD python docs/data/rwbias6/split.py RUN.json.gz ...
"""

from __future__ import annotations

import gzip
import json
import sys

import numpy as np

from loadgen.analysis import mixmodel

_sims: list = []
_simulate = mixmodel.simulate


def _spy(*a, **k):
    got = _simulate(*a, **k)
    _sims.append((a[1], got))
    return got


mixmodel.simulate = _spy


def main() -> None:
    for path in sys.argv[1:]:
        run = json.loads(gzip.decompress(open(path, "rb").read()))
        _sims.clear()
        p = mixmodel.predict(run)
        space, sim = _sims[0]  # the run's own simulation (heldspread's two come after it)
        reads = np.frombuffer(sim.reads, dtype=np.uint32)
        leaf = nonleaf = 0
        parts = []
        for (_table, idx), tree in space.trees.items():
            lv = int(reads[tree.base : tree.base + tree.all_leaves].sum(dtype=np.uint64))
            nl = int(reads[tree.base + tree.all_leaves : tree.base + tree.n_pages].sum(dtype=np.uint64))
            leaf, nonleaf = leaf + lv, nonleaf + nl
            parts.append(f"{idx} leaf {lv} non-leaf {nl} (leaves {tree.all_leaves}, height {tree.height})")
        fl, bp = run["buffer_pool"]["flush"], run["buffer_pool"]
        t = next(iter(p["tables"]))
        print(f"{path.split('/')[-1]} {run['result']['qps']:.0f} q/s")
        print(
            f"  table: model {p['tables'][t]['pages_read']} server {bp['tables'][t]['file_pages_read']}"
            f"  ({p['tables'][t]['pages_read'] - bp['tables'][t]['file_pages_read']:+d})"
        )
        print(
            f"  index leaf: model {leaf} server {fl['leaf_pages_read']} ({leaf - fl['leaf_pages_read']:+d});"
            f" non-leaf: model {nonleaf} server {fl['nonleaf_pages_read']} ({nonleaf - fl['nonleaf_pages_read']:+d});"
            f" file space: model {p['tables'][t].get('file_space_pages_read')} server ibuf bitmap"
            f" {fl.get('ibuf_bitmap_pages_read')} fsp {fl.get('fsp_hdr_pages_read')}"
            f" inode {fl.get('inode_pages_read')}"
        )
        print("  " + "; ".join(parts))
        print(
            f"  system: model {p['system_pages_read']} (cap {p.get('undo_reads_cap')}, cut {p.get('undo_reads_cut')})"
            f" server undo {fl['undo_pages_read']} + system {fl['system_pages_read']}"
            f" = {fl['undo_pages_read'] + fl['system_pages_read']}"
            f"; whole model {p['pages_read']} server {bp['pages_read']}"
        )


if __name__ == "__main__":
    main()
