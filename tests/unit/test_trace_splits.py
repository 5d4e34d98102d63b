"""With tracemodel.SPLITS_PER_LEAF (off by default), a captured insert into a secondary index's leaf on
MySQL creates a page the first time the run inserts into that leaf (a packed index split: sysbench's
k_1 built sorted at fill factor 100): a frame taken and written, nothing read; MariaDB is unchanged."""
from __future__ import annotations

from loadgen.analysis import tracemodel
from loadgen.workload import optrace as ot

from .test_trace_changebuf import _predict, _trace


def _k_1_leaves(out) -> int:
    from loadgen.analysis import tracegeometry

    from .test_trace_changebuf import ROWS

    meta, _, _ = ot.read_header(out)
    tables = tracegeometry.offline_geometry(meta, {"*": ROWS}, {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}})
    return tables["sbtest.sbtest1"]["indexes"]["k_1"]["leaf_pages"]


def test_each_k_1_leaf_s_first_insert_creates_one_page_on_mysql(tmp_path, monkeypatch):
    out = _trace(tmp_path)  # 1,500 updates of k and 1,500 re-inserts: every k_1 leaf takes inserts
    off = _predict(out, "mysql", None)  # the default: no pages created
    monkeypatch.setattr(tracemodel, "SPLITS_PER_LEAF", 1)
    on = _predict(out, "mysql", None)
    # one reference more per leaf (the created page) and nothing else moved in the references
    assert on["read_requests"] - off["read_requests"] == _k_1_leaves(out), (on, off)
    # a created page is not read: in a pool that holds everything the reads do not change
    big = [_predict_at(out, "mysql", 64 << 20, n) for n in (0, 1)]
    assert big[0]["pages_read"] == big[1]["pages_read"]
    # and where the pool is short they take frames (more reads, the new pages written: more dirty evictions)
    assert on["pages_read"] >= off["pages_read"] and on["dirty_evictions"] > off["dirty_evictions"], (on, off)


def test_two_pages_a_leaf_and_mariadb_untouched(tmp_path, monkeypatch):
    out = _trace(tmp_path)
    maria = _predict(out, "mariadb", None)
    monkeypatch.setattr(tracemodel, "SPLITS_PER_LEAF", 1)
    one = _predict(out, "mysql", None)
    monkeypatch.setattr(tracemodel, "SPLITS_PER_LEAF", 2)
    two = _predict(out, "mysql", None)
    assert two["read_requests"] - one["read_requests"] == _k_1_leaves(out)
    assert _predict(out, "mariadb", None) == maria


def test_the_split_pages_do_not_depend_on_the_chunk_size(tmp_path, monkeypatch):
    """Which insert creates a leaf's page is taken in op order across the streams, so the pages
    are the same however the trace is cut into chunks."""
    out = _trace(tmp_path)
    monkeypatch.setattr(tracemodel, "SPLITS_PER_LEAF", 1)
    whole = _predict(out, "mysql", None)
    monkeypatch.setattr(tracemodel, "CHUNK_OPS", 1_000)
    assert _predict(out, "mysql", None) == whole


def _predict_at(out, flavor: str, pool_bytes: int, per_leaf: int) -> dict:
    from loadgen.analysis import changebuf, tracegeometry

    from .test_trace_changebuf import ROWS

    old = tracemodel.SPLITS_PER_LEAF
    tracemodel.SPLITS_PER_LEAF = per_leaf
    try:
        meta, _, _ = ot.read_header(out)
        tables = tracegeometry.offline_geometry(meta, {"*": ROWS},
                                                {"sbtest1": {"id": 4, "k": 4, "c": 120, "pad": 60}})
        pools = tracegeometry.pools_of([pool_bytes], flavor, {}, 1000.0)
        return tracemodel.predict(out, tables, pools, flavor, changebuf.kinds_of(flavor, None))["pools"][0]
    finally:
        tracemodel.SPLITS_PER_LEAF = old
