"""MySQL's change buffer in the mix model (analysis/changebuf.py, native/lrusim/ibuf.c): a change
to a non-unique secondary index's leaf that is not in the pool is buffered instead of read, and
merged when the leaf is next read or by the master thread's merge once a second."""
from __future__ import annotations

import numpy as np

from loadgen import native
from loadgen.analysis import changebuf
from loadgen.analysis import mixmodel as mm
from loadgen.analysis import mixpages as mp
from loadgen.analysis.pool import RA_RULE_MARIADB, RA_RULE_MYSQL
from loadgen.workload import presets

# lrusim_mix's pool: 700 pages, capacity 600, old_pct 37, old_time 0, 1 ms an op, no read-ahead,
# no start-up pages, no batches; MySQL's clean-page search of 100, no flush-list batch
POOL = (700, 0, 600, 600, 37.0, 0.0, 1.0, 0, 64, 0, 0, 0, 0, 0, 0.0, 1000.0, 1, 100, 0)


def _trace(refs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Pages 0..599 read (the pool full), then refs (page, flags), one op each."""
    pages = list(range(600)) + [p for p, _ in refs]
    flags = [mp.OP] * 600 + [mp.OP | f for _, f in refs]
    return np.array(pages, dtype=np.uint32), np.array(flags, dtype=np.uint8)


def _sim(refs, ibuf=(0, 0)):
    pages, flags = _trace(refs)
    sim = native.lrusim_mix(pages, flags, *POOL, *ibuf)
    return sim, np.frombuffer(sim.reads, dtype=np.uint32)


CHANGE = mp.WRITE | mp.BUFFER


def test_a_change_to_a_leaf_not_in_the_pool_is_buffered_not_read_until_the_merge():
    three = [(650, CHANGE)] * 3
    sim, reads = _sim(three)  # no change buffer: the leaf is read by the first change
    assert reads[650] == 1 and sim.ibuf_buffered == 0
    sim, reads = _sim(three, (1000, 10))  # ops 601..603 ms: before the master thread's first second
    assert reads[650] == 0 and sim.ibuf_buffered == 3 and sim.ibuf_merged == 0 and sim.dirty_at_end == 0
    # a read of the leaf merges its changes (it turns dirty); the next change finds it in the pool
    sim, reads = _sim(three + [(650, 0), (650, CHANGE)], (1000, 10))
    assert reads[650] == 1 and sim.ibuf_buffered == 3 and sim.ibuf_merged == 1 and sim.ibuf_merge_reads == 0
    assert sim.dirty_at_end == 1
    # past 1000 ms the master thread's merge reads the leaf (into the pool, dirty) without a reference
    sim, reads = _sim(three + [(0, 0)] * 400, (1000, 10))
    assert reads[650] == 1 and sim.ibuf_merge_reads == 1 and sim.dirty_at_end == 1
    assert sim.refs == 600 + 400  # the buffered changes and the merge are no page accesses


def test_a_leaf_in_the_pool_is_changed_in_place_and_a_full_buffer_takes_nothing_more():
    sim, reads = _sim([(5, CHANGE)], (1000, 10))
    assert sim.ibuf_buffered == 0 and reads[5] == 1 and sim.dirty_at_end == 1
    sim, reads = _sim([(650, CHANGE), (651, CHANGE)], (1, 10))  # room for one entry
    assert sim.ibuf_buffered == 1 and reads[650] == 0 and reads[651] == 1
    # a plain write (a clustered leaf, a unique index) is read whatever the buffer holds
    sim, reads = _sim([(650, mp.WRITE)], (1000, 10))
    assert sim.ibuf_buffered == 0 and reads[650] == 1


def test_purge_s_removal_is_buffered_only_where_two_records_of_the_leaf_are():
    # ibuf_insert_low refuses IBUF_OP_DELETE when the buffered records for the page are < 2
    # (min_n_recs: the page could become empty): purge then reads the leaf
    purge = mp.WRITE | mp.BUFFER | mp.PURGE
    sim, reads = _sim([(650, purge)], (1000, 10))
    assert sim.ibuf_buffered == 0 and reads[650] == 1
    sim, reads = _sim([(650, CHANGE), (650, purge)], (1000, 10))
    assert sim.ibuf_buffered == 1 and reads[650] == 1
    sim, reads = _sim([(650, CHANGE), (650, CHANGE), (650, purge), (650, purge)], (1000, 10))
    assert sim.ibuf_buffered == 3 and reads[650] == 1  # the second removal finds one record left


def _k1_flags(buffers: frozenset, unique: bool = False) -> dict[str, np.ndarray]:
    """Per sysbench-oltp-rw write stream: the flags of its references to k_1's leaves (with purge's)."""
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=3_000)
    tables = {"sbtest1": {"rows": 20_000, "leaf_pages": 290, "height": 2, "columns": {"id": "INTEGER", "k": "INTEGER"},
                          "indexes": {"k_1": {"columns": ["k"], "leaf_pages": 25, "height": 2, "unique": unique}}}}
    space = mp.Space.of(tables, {}, ["sbtest1"])
    mapper = mm.Mapper(spec, space, mm.index_columns(tables), stepped=mp.stepped_columns(tables), buffers=buffers)
    k1, prim = space.tree_of("sbtest1", "k_1"), space.tree_of("sbtest1", None)
    key = np.arange(1, 11, dtype=np.uint64)
    out = {}
    for i, s in enumerate(spec.streams):
        if not s.writes:
            continue
        own = mapper.op_refs(i, key, np.ones(10, dtype=np.uint32))
        for what, r in (("", own), ("purge ", mapper.purge_refs(i, key))):
            if r is None:
                continue
            assert not (r.flags[(r.pages >= prim.base) & (r.pages < prim.base + prim.n_pages)] & mp.BUFFER).any()
            out[what + s.name] = r.flags[(r.pages >= k1.base) & (r.pages < k1.base + k1.all_leaves)]
    return out


def test_the_model_flags_the_changes_each_setting_buffers():
    every = _k1_flags(changebuf.KINDS["all"])
    assert all((f & mp.BUFFER).all() for f in every.values()) and len(every["delete_inserts"]) == 20
    assert "non_index_updates" not in every or not len(every["non_index_updates"])
    assert not any((f & mp.BUFFER).any() for f in _k1_flags(changebuf.KINDS["none"]).values())
    assert not any((f & mp.BUFFER).any() for f in _k1_flags(changebuf.KINDS["all"], unique=True).values())
    # inserts only: the delete-insert's new entry; k = k + 1 is a delete-mark and an insert in one leaf
    ins = _k1_flags(changebuf.KINDS["inserts"])
    assert not (ins["index_updates"] & mp.BUFFER).any() and not (ins["purge index_updates"] & mp.BUFFER).any()
    assert np.count_nonzero(ins["delete_inserts"] & mp.BUFFER) == 10
    # deletes only: a delete-insert's old entry; not k = k + 1, whose insert needs the leaf
    dels = _k1_flags(changebuf.KINDS["deletes"])
    assert not (dels["index_updates"] & mp.BUFFER).any() and np.count_nonzero(dels["delete_inserts"] & mp.BUFFER) == 10
    assert len(every["index_updates"]) == 20 and len(dels["index_updates"]) == 10  # two descents where buffered
    purges = _k1_flags(changebuf.KINDS["purges"])
    assert (purges["purge delete_inserts"] & mp.PURGE).all() and not (purges["index_updates"] & mp.BUFFER).any()
    assert not (every["delete_inserts"] & mp.PURGE).any()


def test_mysql_only_with_the_setting_it_recorded():
    def run(flavor, mode, **var):
        return {"server": {"flavor": flavor, "variables": {"innodb_change_buffering": mode, **var}}}

    assert changebuf.buffered_kinds(run("mysql", "all")) == {"insert", "delete-mark", "purge"}
    assert changebuf.buffered_kinds(run("mysql", "none")) == frozenset()
    assert changebuf.buffered_kinds(run("mariadb", "all")) == frozenset()  # the model gives MariaDB none
    assert changebuf.buffered_kinds({"server": {"flavor": "mysql"}}) == frozenset()  # not recorded

    class P:
        ra_rule, pool_pages = RA_RULE_MYSQL, 1024

    # 25% of 1,024 pages of 341 entries each; PCT_IO(5) of innodb_io_capacity 10,000
    assert changebuf.kernel_args(run("mysql", "all", innodb_io_capacity="10000"), P(), frozenset({"insert"})) \
        == (256 * 341, 500)
    assert changebuf.kernel_args(run("mysql", "none"), P(), frozenset()) == (0, 0)
    P.ra_rule = RA_RULE_MARIADB
    assert changebuf.kernel_args(run("mysql", "all"), P(), frozenset({"insert"})) == (0, 0)


def test_purge_s_work_in_the_trees_follows_the_run_s_own_purge_batches_its_undo_read_the_fixed_lag():
    """MySQL's purge coordinator purges what is committed batch after batch (253 batches a second in
    sysbench-oltp-rw at 16M: 11,317 purge_invoked for 100k operations), so it removes an index entry
    about done / batches operations after the write (undomodel.measured_purge_lag); its undo read keeps
    PURGE_LAG_OPS."""
    from loadgen.analysis import undomodel

    run = {"buffer_pool": {"flush": {"purge_batches": 11_317}}}
    assert round(undomodel.measured_purge_lag(run, 100_000), 1) == 8.8
    assert undomodel.measured_purge_lag({}, 100_000) is None  # not recorded: the fixed lag
    spec = presets.load("sysbench-oltp-rw", rows=20_000, operations=3 * mm.PURGE_LAG_OPS)
    tables = {"sbtest1": {"rows": 20_000, "leaf_pages": 290, "height": 2,
                          "indexes": {"k_1": {"columns": ["k"], "leaf_pages": 25, "height": 2}}}}
    space = mp.Space.of(tables, {}, ["sbtest1"], rollback_segments=256)
    k1_writes, first_undo_read = {}, {}
    for lag in (None, 10.0):
        pages, flags = mm.build_trace(spec, space, columns_of={("sbtest1", "k_1"): ["k"]}, purge_lag=lag).arrays()
        ops = np.cumsum(flags & mp.OP != 0)
        k1 = space.tree_of("sbtest1", "k_1")
        in_k1 = (pages >= k1.base) & (pages < k1.base + k1.all_leaves) & (flags & mp.WRITE != 0)
        k1_writes[lag] = int(np.count_nonzero(in_k1 & (ops <= 900)))
        first_undo_read[lag] = ops[np.nonzero((pages >= space.system_base) & (flags & mp.WRITE == 0))[0][0]]
    # within the first 900 ops purge has removed entries with the run's lag, none with the fixed one
    # (one leaf per index update, delete-insert: ~2/17 of the ops)
    assert 80 < k1_writes[10.0] - k1_writes[None] < 130
    assert first_undo_read[None] == first_undo_read[10.0] > mm.PURGE_LAG_OPS  # the undo read: the fixed lag
