"""The model for lookups through a secondary index (--key-column, or a --query whose EXPLAIN
names another index): each query descends the secondary index to the leaf (or leaves) holding
its key, then, for every matching entry, descends the clustered index to that row's leaf, as
InnoDB does for a non-covering secondary lookup (row_sel_get_clust_rec).

Which rows a key matches is not a function of the geometry, so it is read from the server once:
the secondary index in key order (key, primary key), reduced to where each key's entries start
and on which clustered leaf each entry's row lives (4 bytes per entry). The page trace is then
built for the run's own order and replayed through the same InnoDB LRU simulator as the primary
key model (simulate_trace; without linear read-ahead, which a bare trace cannot place).

Limits, said rather than guessed: integer keys and an integer primary key whose values are
dense enough that row position ~ key position (a table loaded in key order, as loadgen's are);
at most MAX_ENTRIES index entries.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass

from .. import db
from . import intervals, model

MAX_ENTRIES = 20_000_000
SECONDARY_FANOUT = 1000  # node pointers per non-leaf page of an INT key (+ child page number)


@dataclass
class IndexMap:
    index: str
    index_only: bool  # a covering read: no descent of the clustered index
    key_lo: int  # key of the order's id 1
    starts: array  # starts[i]: first entry whose key >= key_lo + i, for i in 0..keys
    entry_leaf: array  # clustered-index leaf of each entry's row, in index order
    leaf_pages: int  # of the secondary index
    height: int  # of the secondary index

    @property
    def entries(self) -> int:
        return len(self.entry_leaf)


class CannotModel(Exception):
    """Why the model cannot follow this index; the run is written without a prediction."""


def read_index_map(conn, info) -> IndexMap:
    """Scan info.index in key order on the live server (a read: the table is not written)."""
    database, table, index, key = info.database, info.table, info.index, info.key_column
    pk = [r[0] for r in db.query_all(
        conn, "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s "
        "AND INDEX_NAME='PRIMARY' ORDER BY SEQ_IN_INDEX", (database, table))]
    if len(pk) != 1:
        raise CannotModel(f"{database}.{table} has a composite primary key; the secondary-index model needs one "
                          "integer key column")
    total = int(db.query_value(conn, f"SELECT COUNT(*) FROM `{database}`.`{table}`") or 0)
    if total > MAX_ENTRIES:
        raise CannotModel(f"{total:,} rows: the secondary-index model reads at most {MAX_ENTRIES:,} index entries")
    pk_lo, pk_hi = db.query_all(conn, f"SELECT MIN(`{pk[0]}`), MAX(`{pk[0]}`) FROM `{database}`.`{table}`")[0]
    if not isinstance(pk_lo, int):
        raise CannotModel(f"the primary key {pk[0]} is not an integer")
    span = pk_hi - pk_lo + 1
    leaves = max(1, int(info.leaf_pages))
    keys = int(info.rows)
    key_lo = int(info.key_offset) + 1
    counts = array("Q", bytes(8 * (keys + 1)))
    entry_leaf = array("I")
    cur = conn.cursor()
    try:
        # One pass in index order; rows stream (SSCursor-like) in batches to keep memory flat.
        cur.execute(f"SELECT `{key}`, `{pk[0]}` FROM `{database}`.`{table}` FORCE INDEX (`{index}`) "
                    f"ORDER BY `{key}`, `{pk[0]}`")
        while True:
            batch = cur.fetchmany(65536)
            if not batch:
                break
            for k, p in batch:
                if k is None or not isinstance(k, int):
                    continue
                i = k - key_lo
                if 0 <= i < keys:
                    counts[i] += 1
                    entry_leaf.append((p - pk_lo) * leaves // span)
    finally:
        cur.close()
    starts = array("Q", bytes(8 * (keys + 1)))
    run = 0
    for i in range(keys):
        starts[i] = run
        run += counts[i]
    starts[keys] = run
    stats = dict(db.query_all(
        conn, "SELECT stat_name, stat_value FROM mysql.innodb_index_stats WHERE database_name=%s AND table_name=%s "
        "AND index_name=%s AND stat_name='n_leaf_pages'", (database, table, index)))
    sec_leaves = max(1, int(stats.get("n_leaf_pages", 0)) or -(-len(entry_leaf) // 700))
    height, n = 1, sec_leaves
    while n > 1:
        height += 1
        n = -(-n // SECONDARY_FANOUT)
    return IndexMap(index, bool(getattr(info, "index_only", False)), key_lo, starts, entry_leaf, sec_leaves, height)


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


def predict(result: dict, imap: IndexMap, ids) -> dict:
    """The `prediction` block for a secondary-index run (forecast.predict_result's fields)."""
    ds, srv, bp, res = (result.get(k) or {} for k in ("dataset", "server", "buffer_pool", "result"))
    g = model.Geometry(int(ds.get("table_rows") or ds["rows"]), max(1, int(ds["leaf_pages"])),
                       max(1, int(ds["height"])))
    pages, n_pages, queries = trace(imap, g, ids)
    qps = float(res.get("qps") or model.DEFAULT_QPS)
    pool = model.pool_model(int(srv.get("innodb_buffer_pool_size") or 0), srv.get("variables") or {},
                            srv.get("flavor") or "mariadb", qps, total_pages=bp.get("pages_total"),
                            start_pages=bp.get("pages_data_before"))
    refs_per_query = len(pages) / queries if queries else 1.0
    refs, misses, made_young, _ = model.simulate_trace(pages, n_pages, pool,
                                                       ms_per_ref=1000.0 / (qps * max(refs_per_query, 1e-9)))
    hist = model.stack_histogram_trace(pages, n_pages)
    plain = model.lru_misses(hist, pool.capacity_pages)
    requests = bp.get("read_requests") or refs
    p = model.Prediction(f"{model.MODEL}+secondary", misses, refs, 1.0 - misses / requests if requests else 0.0,
                         plain, pool.capacity_pages, pool.pool_pages, made_young, pool.qps, read_ahead=0,
                         measured_read_ahead=bp.get("read_ahead"))
    # how far it can be off (analysis/intervals.py), with the run's own start-up pages when it has them
    p.reads_low, p.reads_high = intervals.for_pool(misses, pool, hist=hist,
                                                   start_measured=bp.get("pages_data_before") is not None)
    model.hold_to_measured(p, result, plain)  # against the headline: pages read into the pool
    return p.to_dict()
