"""The model for lookups through a secondary index (--key-column, or a --query whose EXPLAIN
names another index): each query descends the secondary index to the leaf (or leaves) holding
its key, then, for every matching entry, descends the clustered index to that row's leaf, as
InnoDB does for a non-covering secondary lookup (row_sel_get_clust_rec).

Which rows a key matches is not a function of the geometry, so it is read from the server once:
the secondary index in key order (key, primary key), reduced to where each key's entries start
and on which clustered leaf each entry's row lives (4 bytes per entry). The page trace is then
built for the run's own order and replayed through the same InnoDB LRU simulator as the primary
key model (simulate_trace; without linear read-ahead, which a bare trace cannot place).

The map itself is read from the server by seeding/indexmap.py (its limits are said there);
this module only turns it into pages and predicts.
"""
from __future__ import annotations

from array import array

from ..seeding.indexmap import SECONDARY_FANOUT, IndexMap
from . import intervals, model
from .geometry import btree_height


def trace(imap: IndexMap, g: model.Geometry, ids) -> tuple[array, int, int]:
    """(page trace, pages in both indexes, queries) for the order's ids (1-based, lazy)."""
    pk_sizes = model.level_sizes(g)
    pk_bases = [sum(pk_sizes[:i]) for i in range(len(pk_sizes))]
    n_pk = sum(pk_sizes)
    sec_g = model.Geometry(imap.entries or 1, imap.leaf_pages, imap.height, SECONDARY_FANOUT)
    sec_sizes = model.level_sizes(sec_g)
    sec_bases = [n_pk + sum(sec_sizes[:i]) for i in range(len(sec_sizes))]
    n_pages = n_pk + sum(sec_sizes)
    entries = max(1, imap.entries)
    pk_path = {}  # leaf -> its root..parent pages (cached: few distinct parents)

    def descend(bases, height, fanout, leaf):
        idx = [leaf]
        for level in range(1, height):
            idx.append(0 if level == height - 1 else idx[-1] // fanout)
        return [bases[level] + idx[level] for level in range(height - 1, 0, -1)]

    out = array("I")
    append, extend = out.append, out.extend
    starts, entry_leaf, keys = imap.starts, imap.entry_leaf, len(imap.starts) - 1
    queries = 0
    for i in ids:
        queries += 1
        k = i - 1
        if not 0 <= k < keys:
            continue
        first, last = starts[k], starts[k + 1]
        # The secondary leaves holding the key's entries (the one where it would be, if none).
        lo_leaf = min(first, entries - 1) * imap.leaf_pages // entries
        hi_leaf = max(lo_leaf, (max(first, last - 1)) * imap.leaf_pages // entries)
        extend(descend(sec_bases, imap.height, SECONDARY_FANOUT, lo_leaf))
        for leaf in range(lo_leaf, min(hi_leaf, imap.leaf_pages - 1) + 1):
            append(sec_bases[0] + leaf)
        if imap.index_only:
            continue
        for e in range(first, last):
            leaf = entry_leaf[e]
            path = pk_path.get(leaf)
            if path is None:
                path = pk_path[leaf] = descend(pk_bases, g.height, g.fanout, leaf)
            extend(path)
            append(leaf)
            # Back on the secondary leaf: the cursor is restored there to look for the next match.
            append(sec_bases[0] + min(e * imap.leaf_pages // entries, imap.leaf_pages - 1))
    return out, n_pages, queries


def clustered_geometry(dataset: dict) -> model.Geometry:
    """The clustered index a secondary lookup descends: its real row count (table_rows), which
    the order's keys (rows) need not be."""
    rows, leaves = int(dataset.get("table_rows") or dataset["rows"]), max(1, int(dataset["leaf_pages"]))
    return model.Geometry(rows, leaves, btree_height(dataset["height"], "the result's dataset", leaves, rows))


def predict_secondary(imap: IndexMap, g: model.Geometry, pool: model.PoolModel,
                      ids, start_measured: bool = False) -> tuple[model.Prediction, int, dict]:
    """The model's reads for a secondary-index run, before they are held to the measured ones
    (analysis/predict.py does that for every model): (prediction, plain-LRU reads, no extra fields)."""
    pages, n_pages, queries = trace(imap, g, ids)
    refs_per_query = len(pages) / queries if queries else 1.0
    refs, misses, made_young, _ = model.simulate_trace(pages, n_pages, pool,
                                                       ms_per_ref=1000.0 / (pool.qps * max(refs_per_query, 1e-9)))
    hist = model.stack_histogram_trace(pages, n_pages)
    plain = model.lru_misses(hist, pool.capacity_pages)
    p = model.Prediction(f"{model.MODEL}+secondary", misses, refs, 0.0, plain, pool.capacity_pages, pool.pool_pages,
                         made_young, pool.qps, read_ahead=0)
    # how far it can be off (analysis/intervals.py), with the run's own start-up pages when it has them
    p.reads_low, p.reads_high = intervals.for_pool(misses, pool, hist=hist, start_measured=start_measured,
                                                   fitted=False)  # no secondary-key runs on the grid
    return p, plain, {}
