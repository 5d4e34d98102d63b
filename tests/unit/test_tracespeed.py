"""predict --trace's fast paths (bench/predict_speed.py) give what the plain ones gave: the leaf of a
key without a binary search, the ops grouped by stream in one sort, the trace joined in place, the
pools fed chunk by chunk in threads (tracesim.PoolFeed) whatever the chunks' size."""
from __future__ import annotations

import numpy as np
import pytest

from loadgen.analysis import mixpages as mp
from loadgen.analysis import tracegeometry, tracemodel, tracesample, tracetxns
from loadgen.workload import optrace as ot


@pytest.mark.parametrize("rows,leaves", [(10_000_000, 85_000), (1_234_567, 9_999), (1000, 990), (1000, 400),
                                         (50, 20), (5, 5), (100, 1)])
def test_leaf_index_is_the_binary_search(rows, leaves):
    starts = mp.Tree("t", "PRIMARY", rows, leaves, 3).leaf_starts()
    key = np.concatenate([np.random.default_rng(rows).integers(1, rows + 1, 50_000), starts, starts - 1, [1, rows]])
    key = np.clip(key, 1, rows)
    assert (mp.leaf_index(starts, key, rows) == np.searchsorted(starts, key, side="right") - 1).all()


def test_groups_are_nonzero_of_each_value():
    v = np.random.default_rng(3).integers(0, 40, 10_000)
    for big in (0, 1 << 40):
        got = mp.groups(v + big)
        assert [g for g, _ in got] == list(np.unique(v + big))
        assert all((w == np.nonzero(v + big == g)[0]).all() for g, w in got)
    assert mp.groups(np.zeros(0, np.int64)) == []


def test_trace_joined_in_place():
    t = mp.Trace()
    blocks = [np.arange(i, i + 7, dtype=np.uint32) for i in range(0, 70, 7)]
    for b in blocks:
        t.add(b, (b % 3).astype(np.uint8))
    pages, flags = t.arrays()
    assert (pages == np.concatenate(blocks)).all() and (flags == np.concatenate(blocks) % 3).all()
    assert t.arrays()[0] is pages  # joined once
    t.add(np.array([5], np.uint32), np.array([1], np.uint8))
    assert len(t.arrays()[0]) == 71 and t.arrays()[0][-1] == 5


def _trace(path, ops: int, rows: int) -> dict:
    """Points on skewed keys, ranges with and without a LIMIT, updates of k, inserts at the end, deletes."""
    rng = np.random.default_rng(7)
    w = ot.Writer(path)
    trees = np.array([w.tree("app.t1", ot.PRIMARY), w.tree("app.t2", ot.PRIMARY)], dtype=np.uint16)
    r = np.zeros(ops, dtype=ot.RECORD)
    kinds = np.array([ot.POINT, ot.RANGE, ot.UPDATE, ot.INSERT, ot.DELETE], dtype=np.uint8)
    r["kind"] = kind = kinds[rng.choice(5, ops, p=[0.6, 0.15, 0.12, 0.08, 0.05])]
    r["tree"] = trees[rng.choice(2, ops, p=[0.7, 0.3])]
    r["lo"] = r["hi"] = np.where(rng.random(ops) < 0.8, rng.integers(1, rows // 20, ops) * 20,
                                 rng.integers(1, rows + 1, ops))
    ranges = kind == ot.RANGE
    r["hi"][ranges] += 49
    r["extra"][ranges] = np.where(rng.random(int(ranges.sum())) < 0.5, 10, 0)
    r["extra"][kind == ot.UPDATE] = 1
    writes = np.isin(kind, (ot.INSERT, ot.UPDATE, ot.DELETE))
    r["hi"][writes] = 1 + np.arange(int(writes.sum())) // 2  # two writes a transaction
    r["flags"][kind == ot.INSERT] = ot.AUTO
    w.add_records(r[: ops // 2])
    for rec in r[ops // 2: ops // 2 + 3]:  # the one-by-one add and the block add in one file
        w.add(int(rec["kind"]), int(rec["tree"]), int(rec["lo"]), int(rec["hi"]), int(rec["flags"]), int(rec["extra"]))
    w.add_records(r[ops // 2 + 3:])
    w.close({"tables": {f"app.t{i}": {"primary_key": ["id"], "indexes": {f"k_{i}": ["k"]}} for i in (1, 2)}})
    return {f"t{i}": {"id": 8, "k": 4, "c": 100} for i in (1, 2)}


@pytest.mark.parametrize("flavor", ["mariadb", "mysql"])
def test_fast_paths_predict_what_the_plain_ones_did(tmp_path, monkeypatch, flavor):
    out = tmp_path / "t.optrace"
    widths = _trace(out, 30_000, 200_000)
    meta, count, _ = ot.read_header(out)
    assert count == 30_000 and (np.concatenate(list(ot.chunks(out)))["kind"] > 0).all()
    tables = tracegeometry.offline_geometry(meta, {"*": 200_000}, widths)
    pools = tracegeometry.pools_of([2 << 20, 4 << 20, 8 << 20, 64 << 20], flavor, {}, 2000.0)
    monkeypatch.setattr(tracemodel, "CHUNK_OPS", 4096)  # 8 chunks, each simulated while the next is built
    fast = tracemodel.predict(out, tables, pools, flavor)
    # the plain paths: the binary search, a pass a stream, the whole trace in one piece (lrusim_mix's loop)
    monkeypatch.setattr(mp, "leaf_index", lambda starts, key, rows: np.searchsorted(starts, key, side="right") - 1)
    monkeypatch.setattr(mp, "groups", lambda v: [(int(i), np.nonzero(v == i)[0]) for i in np.unique(v)])
    monkeypatch.setattr(tracemodel, "CHUNK_OPS", 1 << 30)
    plain = tracemodel.predict(out, tables, pools, flavor)
    assert fast == plain
    reads = [p["pages_read"] for p in fast["pools"]]
    assert reads[0] > 2 * reads[-1] > 0  # a curve, not one figure (the small pools' order is not monotone)


@pytest.mark.parametrize("ticks", [(0, 0.0, 1000.0, 1), (8, 250.0, 1000.0, 0)])
def test_a_simulation_fed_in_pieces_is_the_one_over_the_whole_trace(ticks):
    """native.MixStream (mix_begin/feed/end) against lrusim_mix: reads, writes, new pages, leaf steps."""
    from loadgen import native

    rng = np.random.default_rng(11)
    n_pages, n = 5_000, 200_000
    pages = np.where(rng.random(n) < 0.7, rng.integers(0, 300, n), rng.integers(0, n_pages, n)).astype(np.uint32)
    flags = rng.choice(np.array([0, mp.MOVE, mp.WRITE, mp.OP, mp.OP | mp.WRITE, mp.NEW], np.uint8), n)
    args = (n_pages, 2_000, 900, 1_000, 37.0, 1000.0, 0.5, 56, 64, 0, 100, 50, 32 if ticks[0] else 0, *ticks)
    whole = native.lrusim_mix(pages, flags, *args)
    s = native.MixStream(*args)
    for a, b in ((0, 1), (1, 77_777), (77_777, 77_777), (77_777, n)):
        s.feed(pages[a:b], flags[a:b])
    assert s.close() == whole and whole.misses > 0
    with pytest.raises(ValueError, match="closed"):
        s.feed(pages[:1], flags[:1])
    with pytest.raises(ValueError, match="below n_pages"):
        native.MixStream(*args).feed(np.array([n_pages], np.uint32), np.zeros(1, np.uint8))


def test_a_curves_miniatures_stay_within_their_stated_error_of_the_exact_pools(tmp_path, monkeypatch):
    """Several pools asked for on a long trace (SAMPLE_MIN_OPS, lowered here to this one's length):
    MariaDB's larger ones are miniatures (tracesample.py) whose estimate is within 2 standard
    errors of each pool simulated alone (exactly, to the page) and whose interval holds the exact
    figure; a pool alone, and the same curve of a shorter trace, are exact."""
    out = tmp_path / "t.optrace"
    widths = _trace(out, 60_000, 1_000_000)
    meta, count, _ = ot.read_header(out)
    tables = tracegeometry.offline_geometry(meta, {"*": 1_000_000}, widths)
    pools = tracegeometry.pools_of([16 << 20, 64 << 20, 128 << 20], "mariadb", {}, 2000.0)
    short = tracemodel.predict(out, tables, pools, "mariadb")["pools"]
    assert not any("sampled" in p for p in short)
    monkeypatch.setattr(tracesample, "SAMPLE_MIN_OPS", count)
    curve = tracemodel.predict(out, tables, pools, "mariadb")["pools"]
    assert "sampled" not in curve[0] and all(0 < p["sampled"]["rate"] < 0.2 for p in curve[1:])
    for pool, got in zip(pools, curve):
        alone = tracemodel.predict(out, tables, [pool], "mariadb")["pools"][0]
        assert "sampled" not in alone
        se = got.get("sampled", {}).get("se_pages", 0)
        assert abs(got["pages_read"] - alone["pages_read"]) <= 2 * se
        assert got["low"] <= alone["pages_read"] <= got["high"]
        assert got["read_requests"] == alone["read_requests"]
        if se:  # the estimate's error is a few per cent of the reads, not a blank cheque
            assert 0 < se < 0.1 * alone["pages_read"]


def test_write_transactions_numbered_in_order_whatever_the_chunks():
    ordered = [(None, None, None, np.array([0, 3, 3, 5, 0, 9])), (None, None, None, np.array([9, 12, 0]))]
    shuffled = [(None, None, None, np.array([7, 0, 2, 7])), (None, None, None, np.array([1, 2, 0, 9]))]
    # a capture's order, numbered without a search (tracetxns._in_order): runs of one transaction's
    # writes across chunk boundaries, reads (0) between them, chunks with no write at all
    rng = np.random.default_rng(7)
    t = np.cumsum(rng.random(5000) < 0.3) * np.where(rng.random(5000) < 0.4, 0, 1) * 3
    cuts = np.sort(rng.choice(np.arange(1, 5000), 40, replace=False))
    long = [(None, None, None, p) for p in np.split(t, cuts)] + [(None, None, None, np.zeros(3, np.int64))]
    assert tracetxns._in_order(ordered) and tracetxns._in_order(long) and not tracetxns._in_order(shuffled)
    for chunks in (ordered, shuffled, long):
        ids = np.unique(np.concatenate([c[3] for c in chunks]))
        ids = ids[ids > 0]
        want = [np.searchsorted(ids, c[3]) for c in chunks]
        got, n = tracetxns.dense_txns(list(chunks))
        assert n == len(ids) and all((g[3] == w).all() for g, w in zip(got, want))


def _pin_case(seed: int, n_ops: int, cold: tuple = ()):
    """A miniature (rate 1/4) of one table of 25,600 leaves under 29 level-1 pages and a root, fed
    descents (root, level 1, leaf: 80% of them on a hot tenth of the leaves) at 1,000 q/s, with and
    without its pages above the leaves pinned; cold: (level-1 page, op) references of one more
    page on their own (that page's descents go elsewhere). (pinned, plain, the sample)."""
    from loadgen import native

    space = mp.Space.of({"db.t": {"rows": 2_560_000, "leaf_pages": 25_600, "height": 3}}, {}, ["db.t"])
    tree = space.tree_of("db.t", None)
    sample = tracesample.plan(space, ("db.t", mp.PRIMARY), 0.25)
    rng = np.random.default_rng(seed)
    hot = rng.random(n_ops) < 0.8
    leaf = np.where(hot, rng.integers(0, 2_560, n_ops) * 10, rng.integers(0, 25_600, n_ops))
    if cold:  # the cold level-1 page's leaves are never descended to but at its own references
        lo = (cold[0][0] - tree.all_leaves) * tree.fanout
        leaf = np.where((leaf >= lo) & (leaf < lo + tree.fanout), (leaf + tree.fanout) % 25_600, leaf)
    path = tree.path(leaf)  # root, level 1, leaf
    flags = np.zeros(path.shape, np.uint8)
    flags[:, 0] = mp.OP
    pages, fl = path.ravel().astype(np.uint32), flags.ravel()
    for page, at in cold:
        pages = np.insert(pages, 3 * at, np.array([page], np.uint32))
        fl = np.insert(fl, 3 * at, np.array([mp.OP], np.uint8))
    args = (sample.n_pages, tree.all_leaves, 4_000, 4_096, 37.0, 1000.0, 1.0)
    base = (sample.map_, sample.rate, sample.salt, sample.more_ones)
    got = []
    for mini in (base + (sample.pin, tracesample.PIN_SHARE), base):
        s = native.MixStream(*args, mini=mini)
        for a in range(0, len(pages), 100_000):
            s.feed(pages[a:a + 100_000], fl[a:a + 100_000])
        got.append(s.close()[0])
    return got[0], got[1], sample


def test_pinned_pages_read_what_the_list_reads_where_they_stay_young():
    """The root and the level-1 pages, each touched every few dozen operations, never sink out of
    the young region of a pool of 4,000 pages that evicts a leaf on most operations: pinned
    (tracesample.PIN_SHARE), their references only counted, the miniature reads what it reads with
    every reference simulated, to the page, and its counts are the same."""
    pinned, plain, sample = _pin_case(5, 300_000)
    assert plain.misses > 10_000 and plain.made_young > 1_000 and pinned == plain
    assert int(sample.pin.sum()) == 30  # the 29 level-1 pages and the root, no leaf


def test_a_page_that_leaves_the_pool_between_its_references_is_not_pinned():
    """A level-1 page referenced only every 40,000 operations is evicted between them (a reference
    finds it out of the pool or old, never young: never pinned) and read each time, as with every
    reference simulated; the others as before, to the page."""
    space = mp.Space.of({"db.t": {"rows": 2_560_000, "leaf_pages": 25_600, "height": 3}}, {}, ["db.t"])
    page = space.tree_of("db.t", None).all_leaves + 7
    cold = tuple((page, at) for at in range(1_000, 300_000, 40_000))
    pinned, plain, sample = _pin_case(6, 300_000, cold)
    q = sample.map_[page]
    reads = np.frombuffer(pinned.reads, np.uint32), np.frombuffer(plain.reads, np.uint32)
    assert reads[0][q] == reads[1][q] == len(cold)
    assert pinned == plain


def test_a_pinned_page_is_a_miniatures_only(tmp_path):
    """The pin candidates are a miniature's kept pages: a sampled leaf cannot be pinned, nor a share
    of the pool of 1 or more."""
    from loadgen import native

    space = mp.Space.of({"db.t": {"rows": 2_560_000, "leaf_pages": 25_600, "height": 3}}, {}, ["db.t"])
    sample = tracesample.plan(space, ("db.t", mp.PRIMARY), 0.25)
    args = (sample.n_pages, 25_600, 4_000, 4_096, 37.0, 1000.0, 1.0)
    base = (sample.map_, sample.rate, sample.salt, sample.more_ones)
    bad = sample.pin.copy()
    bad[0] = 1
    with pytest.raises(ValueError, match="sampled page cannot be pinned"):
        native.MixStream(*args, mini=base + (bad, 0.25))
    with pytest.raises(ValueError, match="pinned share"):
        native.MixStream(*args, mini=base + (sample.pin, 1.0))


def test_a_pinned_page_stays_where_the_list_would_evict_it():
    """What pinning gives up: a level-1 page touched every 10 operations for 10,000 of them is
    pinned; left alone for 280,000 operations the list evicts it (read again at its last
    reference), the pinned miniature keeps it (read once). The pages it held in the meantime are
    one frame's worth: the other pages' reads move by a few."""
    space = mp.Space.of({"db.t": {"rows": 2_560_000, "leaf_pages": 25_600, "height": 3}}, {}, ["db.t"])
    page = space.tree_of("db.t", None).all_leaves + 7
    cold = tuple((page, at) for at in [*range(10_000, 20_000, 10), 299_000])
    pinned, plain, sample = _pin_case(7, 300_000, cold)
    q = sample.map_[page]
    reads = np.frombuffer(pinned.reads, np.uint32), np.frombuffer(plain.reads, np.uint32)
    assert (reads[0][q], reads[1][q]) == (1, 2)
    assert pinned.refs == plain.refs and abs(pinned.misses - plain.misses) <= 10
