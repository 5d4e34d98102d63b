"""The C loops of reference building (native/mixref.c: a key's leaf, a descent, a walk, each op's
references put in place) make what numpy's did (mixpages.NATIVE False), reference for reference:
on random op traces of every kind over several tables with secondary indexes, both flavours (their
undo, purge and purge's walks), and on the loops' own edge cases."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from loadgen import native
from loadgen.analysis import mixpages as mp
from loadgen.analysis import tracegeometry, tracemodel, tracesim
from loadgen.workload import optrace as ot

ROWS = 300_000
TABLES = ("app.a", "app.b", "app.c")


def _trace(path, ops: int, seed: int) -> None:
    """Every kind and flag a capture writes, on three tables (b with a composite key, c a small one)."""
    rng = np.random.default_rng(seed)
    w = ot.Writer(path)
    trees = [w.tree(t, ot.PRIMARY) for t in TABLES] + [w.tree(t, f"k_{t[-1]}") for t in TABLES]
    r = np.zeros(ops, dtype=ot.RECORD)
    kinds = np.array([ot.POINT, ot.RANGE, ot.SCAN, ot.INSERT, ot.UPDATE, ot.DELETE, ot.INDEX_RANGE], np.uint8)
    r["kind"] = kind = kinds[rng.choice(7, ops, p=[0.4, 0.12, 0.002, 0.12, 0.17, 0.08, 0.108])]
    tree = np.array(trees, np.uint16)[rng.choice(6, ops, p=[0.4, 0.25, 0.15, 0.1, 0.05, 0.05])]
    primary = tree < len(TABLES)
    tree = np.where(np.isin(kind, (ot.INSERT, ot.UPDATE, ot.DELETE, ot.RANGE, ot.SCAN)) & ~primary,
                    tree - len(TABLES), tree)  # writes, ranges and scans on the clustered index
    r["tree"] = tree
    lo = np.where(rng.random(ops) < 0.7, rng.integers(1, ROWS // 30, ops) * 30, rng.integers(-5, ROWS + 40, ops))
    r["lo"], r["hi"] = lo, lo
    ranges = np.isin(kind, (ot.RANGE, ot.INDEX_RANGE))
    r["hi"][ranges] = lo[ranges] + rng.integers(-3, 400, int(ranges.sum()))
    r["extra"][ranges] = rng.choice([0, 1, 10, 1000], int(ranges.sum()))
    r["flags"] = rng.choice(np.array([0, ot.HASHED, ot.LO_OPEN, ot.HI_OPEN, ot.DESC, ot.ROWS, ot.VIA_INDEX,
                                      ot.LO_OPEN | ot.DESC], np.uint8), ops, p=[0.7, 0.05, 0.04, 0.04, 0.06,
                                                                                 0.04, 0.04, 0.03])
    opened = (kind == ot.INDEX_RANGE) & ((r["flags"] & (ot.LO_OPEN | ot.HI_OPEN)) != 0)
    r["extra"][opened] = rng.choice([1, 10, 1000], int(opened.sum()))  # an open index range with a LIMIT: else
    # each is the whole table's rows, each a descent (the test's time went there)
    ins = kind == ot.INSERT
    r["flags"][ins] = np.where(rng.random(int(ins.sum())) < 0.6, ot.AUTO, np.where(rng.random(int(ins.sum())) < 0.2,
                                                                                      ot.HASHED, 0))
    r["lo"][ins & (r["flags"] == ot.AUTO)] = 0
    upd = kind == ot.UPDATE
    r["extra"][upd] = rng.integers(0, 2, int(upd.sum()))  # sets k (its index's entry) or not
    writes = np.isin(kind, (ot.INSERT, ot.UPDATE, ot.DELETE))
    r["hi"][writes] = 1 + np.cumsum(rng.random(int(writes.sum())) < 0.6)  # some transactions of several writes
    w.add_records(r)
    w.close({"tables": {t: {"primary_key": ["id"], "indexes": {f"k_{t[-1]}": ["k"]}} for t in TABLES}})


def _tables(meta: dict) -> dict:
    widths = {t[-1]: {"id": 8, "k": 4, "c": 60} for t in TABLES}
    tables = tracegeometry.offline_geometry(meta, {"*": ROWS, "app.c": 5_000}, widths)
    tables["app.b"]["values"] = [1, 3 * ROWS]  # a composite key's leading column: inserts placed by value
    tables["app.a"]["indexes"]["k_a"].update(values=[10, 50_000], distinct=20_000)
    return tables


class _Recorder(tracesim.PoolFeed):
    """The pools fed as they are, and a digest of every reference they were fed."""

    digests: list = []

    def feed(self, pages, flags) -> None:
        _Recorder.digests.append(hashlib.sha1(pages.tobytes() + flags.tobytes()).hexdigest())
        super().feed(pages, flags)


@pytest.mark.parametrize("flavor,seed", [("mariadb", 1), ("mysql", 2), ("mariadb", 3)])
def test_native_references_and_predictions_are_numpys(tmp_path, monkeypatch, flavor, seed):
    if not mp.NATIVE:
        pytest.skip("the extension has no mixref loops")
    out = tmp_path / "t.optrace"
    _trace(out, 40_000, seed)
    meta, _, _ = ot.read_header(out)
    tables = _tables(meta)
    pools = tracegeometry.pools_of([2 << 20, 8 << 20, 32 << 20], flavor, {}, 800.0)
    monkeypatch.setattr(tracemodel, "CHUNK_OPS", 6_000)  # several chunks: purge's work due across them
    monkeypatch.setattr(tracemodel, "PoolFeed", _Recorder)
    runs = {}
    for on in (True, False):
        monkeypatch.setattr(mp, "NATIVE", on)
        _Recorder.digests = []
        runs[on] = (tracemodel.predict(out, tables, pools, flavor), _Recorder.digests)
    assert runs[True] == runs[False]
    doc = runs[True][0]
    kinds = doc["operations_by_kind"]
    # the trace made every kind of reference: not a comparison of two empty lists
    assert {"read", "read-secondary", "range", "range-secondary", "scan", "insert", "update", "delete"} <= set(kinds)
    assert kinds["insert"] > 1_000 and len(runs[True][1]) == 7
    assert all(p["pages_read"] > 0 for p in doc["pools"]) and doc["pools"][0]["system_pages_read"] > 0


@pytest.mark.parametrize("rows,leaves,height,grown", [(10_000_000, 85_000, 3, 0), (1_234_567, 9_999, 3, 77),
                                                      (1000, 400, 2, 3), (50, 20, 2, 0), (5, 5, 1, 2), (100, 1, 1, 0),
                                                      (3_000_000, 40_000, 5, 1_000)])
def test_leaf_path_and_walks_are_numpys(monkeypatch, rows, leaves, height, grown):
    if not mp.NATIVE:
        pytest.skip("the extension has no mixref loops")
    tree = mp.Tree("t", "PRIMARY", rows, leaves, height, grown=grown, base=12_345, fanout=37)
    rng = np.random.default_rng(rows)
    starts = tree.leaf_starts()
    keys = np.concatenate([rng.integers(-3, rows + 3 * rows // max(1, leaves) * grown + 10, 20_000), starts,
                           starts - 1, starts + 1, [0, 1, rows, rows + 1, -(1 << 40), 1 << 40]]).astype(np.int64)
    last = keys + rng.integers(-2, 500, len(keys))
    got = {}
    for on in (True, False):
        monkeypatch.setattr(mp, "NATIVE", on)
        leaf = tree.leaf_of_key(keys)
        lo, hi = tree.span(keys, last)
        w = mp.walks(tree, lo, hi, first=bool(rows % 2))
        got[on] = (leaf, tree.path(leaf), w.pages, w.flags, w.widths)
    for a, b in zip(got[True], got[False]):
        assert a.dtype == b.dtype and (a == b).all()
    assert got[True][0].max() == tree.all_leaves - 1 and got[True][0].min() == 0


def test_put_places_each_ops_references_as_numpy_did(monkeypatch):
    rng = np.random.default_rng(5)
    widths = rng.integers(0, 7, 3_000)
    refs = mp.Refs(rng.integers(0, 1 << 33, int(widths.sum())), rng.integers(0, 16, int(widths.sum())).astype(np.uint8),
                   widths)
    where = rng.permutation(5_000)[:3_000]
    room = np.zeros(5_000, np.int64)
    room[where] = widths
    got = {}
    for on in (True, False):
        monkeypatch.setattr(mp, "NATIVE", on)
        for dtype in (np.uint32, np.int64):
            pages, flags = np.zeros(int(widths.sum()), dtype), np.zeros(int(widths.sum()), np.uint8)
            cursor = mp.exclusive_cumsum(room)
            mp.put(pages, flags, cursor, refs, where)
            got[on, dtype] = (pages, flags, cursor)
    for dtype in (np.uint32, np.int64):
        assert all((a == b).all() for a, b in zip(got[True, dtype], got[False, dtype]))
    assert (got[True, np.int64][0] == refs.pages[np.argsort(np.repeat(np.argsort(np.argsort(where)), widths),
                                                              kind="stable")]).all()


def test_the_c_loops_refuse_what_does_not_fit():
    if not mp.NATIVE:
        pytest.skip("the extension has no mixref loops")
    one = np.ones(1, np.int64)
    with pytest.raises(ValueError, match="inside out"):  # an op's place past the output's end
        native.mixref_scatter(np.zeros(2, np.int64), np.zeros(2, np.uint8), np.array([1], np.int64),
                              np.arange(2, dtype=np.int64), np.zeros(2, np.uint8), np.array([2], np.int64),
                              np.zeros(0, np.int64))
    with pytest.raises(ValueError, match="inside out"):  # where names a cursor that is not there
        native.mixref_scatter(np.zeros(2, np.int64), np.zeros(2, np.uint8), np.zeros(1, np.int64),
                              np.arange(2, dtype=np.int64), np.zeros(2, np.uint8), np.array([2], np.int64),
                              np.array([3], np.int64))
    with pytest.raises(ValueError, match="exactly"):  # room for fewer references than the walks make
        native.mixref_walks(one, one * 5, np.zeros(3, np.int64), np.zeros(3, np.uint8), 0, 1, 0, 10, 4,
                            np.ones(1, np.int64))
    with pytest.raises(ValueError, match="starts"):
        native.mixref_leaves(np.zeros(0, np.int64), one, np.zeros(1, np.int64), 10, 1, 1, 10.0)
    with pytest.raises(ValueError, match="height"):
        native.mixref_path(one, np.zeros(1, np.int64), 0, 10, 4, np.ones(2, np.int64))


@pytest.mark.parametrize("preset", ["ycsb-a", "ycsb-d", "ycsb-e", "ycsb-f", "sysbench-oltp-rw"])
@pytest.mark.parametrize("flavor", ["mariadb", "mysql"])
def test_a_mixs_references_are_numpys(monkeypatch, preset, flavor):
    """The mixed run's model (mixmodel.build_trace: read-modify-write, delete-insert, stepped updates,
    inserts at the end, the undo side and purge's walks) through the same loops."""
    from loadgen.analysis import mixmodel as mm
    from loadgen.workload import presets

    spec = presets.load(preset, rows=20_000, operations=6_000)
    ix = {"k_1": {"columns": ["k"], "leaf_pages": 25, "height": 2}} if preset.startswith("sysbench") else {}
    name = spec.tables[0].name
    tables = {name: {"rows": 20_000, "leaf_pages": 290, "height": 3, "indexes": ix,
                     "columns": {"id": "INTEGER", "k": "INTEGER"}}}
    space, _ = mm.space_of(spec, tables, flavor, spec.operations)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(mp, "NATIVE", on)
        trace = mm.build_trace(spec, space, columns_of=mm.index_columns(tables), prefetch=flavor == "mariadb",
                               rsegs_at_start=True, stepped=mp.stepped_columns(tables), sweep_ops=900.0)
        got[on] = trace.arrays()
    assert len(got[True][0]) > spec.operations
    assert all((a == b).all() and a.dtype == b.dtype for a, b in zip(got[True], got[False]))


@pytest.mark.parametrize("n,m", [(3_000, 700), (1, 0), (1, 5), (500, 4_000)])
def test_order_places_ops_and_purge_as_the_stable_sort_did(n, m):
    """mixref_order: each op's references and each piece of purge's work where add_ops' stable argsort
    of 2i + 1 (op i) and 2 * max(at, 0) (a piece due before op at) put them: pieces due at one op in
    their order, before it; below 0 before the first op (n or more: not this chunk's, refused)."""
    if not mp.NATIVE:
        pytest.skip("the extension has no mixref loops")
    rng = np.random.default_rng(n + m)
    op_widths = rng.integers(0, 9, n)
    p_at = np.sort(rng.integers(-3, max(n, 1), m))  # pieces due at the same op: their order kept
    p_at[: m // 2] = rng.integers(-3, max(n, 1), m // 2)  # and some out of order
    p_widths = rng.integers(0, 6, m)
    starts = np.empty(n + m, np.int64)
    native.mixref_order(op_widths, p_at, p_widths, starts)
    order = np.argsort(np.concatenate([2 * np.arange(n) + 1, 2 * np.maximum(p_at, 0)]), kind="stable")
    want = np.empty(n + m, np.int64)
    want[order] = mp.exclusive_cumsum(np.concatenate([op_widths, p_widths])[order])
    assert (starts == want).all()
    if n > 1 and m:  # pieces due at one op, and before the first: not only the easy cases
        assert len(np.unique(p_at)) < m and (p_at < 0).any() and len(np.unique(starts)) > 1
    with pytest.raises(ValueError, match="mixref_order"):
        native.mixref_order(op_widths, p_at, p_widths, np.empty(n + m + 1, np.int64))
    if m:
        with pytest.raises(ValueError, match="mixref_order"):
            native.mixref_order(op_widths, np.full(m, n), p_widths, starts)
