"""The secondary-index page trace: the secondary descent, then one clustered descent per match."""
from __future__ import annotations

from array import array

from loadgen.analysis import model, secondary


def _imap(keys_to_rows: dict[int, list[int]], keys: int, leaf_pages: int, pk_leaves: int, rows: int,
          index_only: bool = False) -> secondary.IndexMap:
    starts, entry_leaf, run = array("Q"), array("I"), 0
    for k in range(1, keys + 1):
        starts.append(run)
        for pk in sorted(keys_to_rows.get(k, [])):
            entry_leaf.append((pk - 1) * pk_leaves // rows)
            run += 1
    starts.append(run)
    return secondary.IndexMap("by_x", index_only, 1, starts, entry_leaf, leaf_pages, 2)


def test_each_match_descends_the_clustered_index():
    g = model.Geometry(rows=1000, leaf_pages=10, height=2)
    imap = _imap({1: [5, 900], 2: [], 3: [500]}, keys=3, leaf_pages=2, pk_leaves=10, rows=1000)
    pages, n_pages, queries = secondary.trace(imap, g, iter([1, 2, 3]))
    n_pk = sum(model.level_sizes(g))
    assert queries == 3 and n_pages == n_pk + 3  # 2 secondary leaves + root
    pk_root, sec_root = 10, n_pk + 2
    # key 1: secondary root, leaf 0, then rows 5 (leaf 0) and 900 (leaf 8), each back to the secondary leaf
    assert list(pages[:8]) == [sec_root, n_pk + 0, pk_root, 0, n_pk + 0, pk_root, 8, n_pk + 0]
    # key 2 matches nothing: only the secondary descent
    assert list(pages[8:10]) == [sec_root, n_pk + 1]
    assert list(pages[10:]) == [sec_root, n_pk + 1, pk_root, 4, n_pk + 1]  # row 500: clustered leaf 4


def test_covering_reads_skip_the_clustered_index():
    g = model.Geometry(rows=1000, leaf_pages=10, height=2)
    imap = _imap({1: [5, 900], 3: [500]}, keys=3, leaf_pages=2, pk_leaves=10, rows=1000, index_only=True)
    pages, n_pages, _ = secondary.trace(imap, g, iter([1, 2, 3]))
    n_pk = sum(model.level_sizes(g))
    assert all(p >= n_pk for p in pages)


def test_a_secondary_prediction_carries_its_interval():
    """Issue #20 item 3: the secondary-key prediction has reads_low <= reads <= reads_high."""
    rows, pk_leaves = 20_000, 160
    imap = _imap({k: [(k * 7919) % rows + 1] for k in range(1, 2001)}, keys=2000, leaf_pages=20,
                 pk_leaves=pk_leaves, rows=rows)
    from loadgen.analysis.predict import predict
    from loadgen.results.documents import RunResult
    from loadgen.workload.orders import Workload

    result = {"dataset": {"rows": rows, "leaf_pages": pk_leaves, "height": 2},
              "server": {"flavor": "mariadb", "innodb_buffer_pool_size": 2 << 20, "variables": {}},
              "workload": {"order": "random", "seed": 3, "count": 6000},
              "buffer_pool": {"pages_read": 1500}, "result": {"qps": 5000.0, "queries": 6000}}
    p = predict(RunResult.from_dict(result), Workload("random", 2000, seed=3, count=6000), index_map=imap).to_dict()
    assert p["reads_low"] < p["reads"] < p["reads_high"], p
    assert p["measured_reads"] == 1500 and p["error_pct"] is not None
